"""TOML on every Python the package supports (``requires-python >= 3.10``): the standard
library's ``tomllib`` from Python 3.11, else ``tomli``, the same parser published on its
own (pyproject.toml depends on it for Python 3.10 only). Every TOML read of the package
imports ``tomllib`` from here."""
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

__all__ = ["tomllib"]

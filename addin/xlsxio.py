"""Compatibility names for :mod:`zvmplan_addin.xlsx`, the xlsx package layer.

The calculator imported everything about files from here; the code now lives in the
``zvmplan_addin.xlsx`` package (one module per concern, see its docstring). This module
re-exports the same names with the same data shapes."""
from .xlsx import *  # noqa: F401,F403
from .xlsx import __all__ as _all
from .xlsx.package import (CFB_MAGIC, MAIN_TYPES, RATIO_FLOOR, REL_OFFICE_DOCUMENT,  # noqa: F401
                           ZIP_MAGIC)
from .xlsx.rewrite import CURRENT_CALC_ID, REL_CALC_CHAIN  # noqa: F401
from .xlsx.sheet import ERROR_CODES, REL_SHARED_STRINGS, REL_WORKSHEET  # noqa: F401

__all__ = list(_all)

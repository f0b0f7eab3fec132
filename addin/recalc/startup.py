"""Start-up: the ``formulas`` function table without importing SciPy until a formula needs it.

``formulas`` builds its function table (``formulas.functions.get_functions``) by importing
every one of its function modules. One of them, ``formulas.functions.stat``, does
``from scipy import stats, linalg`` and ``from scipy.interpolate import interp1d`` at the
top, which costs about half a second -- a quarter of a 10,000-row recalculation -- although
only a few statistical functions (KURT, SKEW, FORECAST.ETS, the distributions) use SciPy,
and only when they are called.

:func:`defer_scipy` imports that module while three stand-ins sit in ``sys.modules`` in
place of ``scipy.stats``, ``scipy.linalg`` and ``scipy.interpolate``; the stand-ins leave
``sys.modules`` as soon as the import is done. The first attribute read on a stand-in
(``stats.kurtosis`` inside KURT) imports the real module and answers from it, so every
function computes exactly what it would have; a formula that never calls one of them
never loads SciPy. If SciPy is already loaded, or ``formulas`` has already imported its
statistics module, nothing is done.
"""
from __future__ import annotations

import importlib
import sys
import types

STAT_MODULE = "formulas.functions.stat"
DEFERRED = ("scipy.stats", "scipy.linalg")


class _Deferred(types.ModuleType):
    """Stands for the SciPy module of the same name; the first attribute read imports it."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if sys.modules.get(self.__name__) is self:  # read while the stand-in is in place
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


def _interp1d(*args, **kwargs):
    """``scipy.interpolate.interp1d``, imported on its first call."""
    from scipy.interpolate import interp1d
    return interp1d(*args, **kwargs)


def defer_scipy() -> bool:
    """Import ``formulas``' statistics module with SciPy deferred (see the module
    docstring); True if the stand-ins were used."""
    if STAT_MODULE in sys.modules or any(name in sys.modules for name in
                                         DEFERRED + ("scipy.interpolate",)):
        return False
    try:
        import scipy  # noqa: F401  (the package itself is light: it loads submodules lazily)
    except ImportError:
        return False
    standins: dict[str, types.ModuleType] = {name: _Deferred(name) for name in DEFERRED}
    interpolate = types.ModuleType("scipy.interpolate")
    interpolate.interp1d = _interp1d
    standins["scipy.interpolate"] = interpolate
    sys.modules.update(standins)
    try:
        importlib.import_module(STAT_MODULE)
    finally:
        for name, module in standins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
    return True

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

Likewise ``formulas.functions.math`` reads ``np.random.rand`` at its top (for RAND), which
imports ``numpy.random`` (its bit generators, ``secrets``, ``hmac``: ~0.01 CPU-s) for a
function few workbooks call: :func:`defer_numpy_random` imports that module while a
stand-in answers ``np.random``, and RAND gets a function that calls ``numpy.random.rand``
itself, imported on its first call (the same generator, the same numbers).
:func:`defer_heavy_imports` does both.
"""
from __future__ import annotations

import importlib
import math
import os
import sys
import types

import numpy as np

STAT_MODULE = "formulas.functions.stat"
DEFERRED = ("scipy.stats", "scipy.linalg")


class _Deferred(types.ModuleType):
    """Stands for the SciPy module of the same name; the first attribute read imports it
    (``stats.t`` and ``stats.rankdata`` excepted: :data:`_STATS`)."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self.__name__ == "scipy.stats" and attr in _STATS:
            return _STATS[attr]
        if sys.modules.get(self.__name__) is self:  # read while the stand-in is in place
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attr)


class _StudentT:
    """``scipy.stats.t`` for what ``formulas`` asks of it (T.DIST, T.DIST.RT, T.DIST.2T,
    T.INV, T.INV.2T, CONFIDENCE.T; the template's confidence intervals use three of them)
    without importing ``scipy.stats`` (about 0.5 s): ``cdf``, ``sf`` and ``ppf`` of one
    finite number and one finite ``df > 0`` are computed exactly as ``scipy.stats.t``
    computes them, by ``scipy.special.stdtr`` and ``stdtrit`` with the same arithmetic
    around them (``loc`` 0, ``scale`` 1: ``ppf`` adds ``* 1 + 0``, which turns -0.0 into
    0.0), so every value is the same float (``tests/test_recalc_startup.py`` compares them
    over a grid). Any other argument, and any other method, goes to the real
    ``scipy.stats.t``."""

    def cdf(self, x, df):
        if _number(x) and _df(df):
            return special_ufuncs().stdtr(float(df), float(x))
        return self._real().cdf(x, df)

    def sf(self, x, df):
        if _number(x) and _df(df):
            return special_ufuncs().stdtr(float(df), -float(x))
        return self._real().sf(x, df)

    def ppf(self, q, df):
        if _number(q) and 0 < q < 1 and _df(df):
            return special_ufuncs().stdtrit(float(df), float(q)) * 1.0 + 0.0
        return self._real().ppf(q, df)

    def __getattr__(self, attr):
        return getattr(self._real(), attr)

    @staticmethod
    def _real():
        from scipy.stats import t
        return t


SPECIAL = "scipy.special"
UFUNCS = "scipy.special._ufuncs"


def special_ufuncs() -> types.ModuleType:
    """SciPy's compiled special functions, ``scipy.special._ufuncs`` (``stdtr``,
    ``stdtrit``: the very objects ``scipy.special`` exports), without running the
    ``scipy.special`` package's own ``__init__``, which loads SciPy's array-API layer
    and, through it, ``numpy.f2py`` and ``numpy.testing`` (about 0.25 s, an eighth of a
    template recalculation, against 0.02 s for the compiled module).

    While ``scipy.special`` is not loaded, a bare package module with the real package's
    ``__path__`` stands for it in ``sys.modules`` during this one import, so the import
    system finds the compiled module and its compiled siblings where they are; the
    stand-in leaves as soon as the import is done. A later ``import scipy.special`` runs
    the real package, whose ``from ._ufuncs import *`` takes the module already loaded:
    one module, one set of functions. If ``scipy.special`` is loaded already, or this
    SciPy keeps the two functions elsewhere, the package itself is returned."""
    loaded = sys.modules.get(UFUNCS)
    if loaded is not None and _has_t(loaded):
        return loaded
    if SPECIAL in sys.modules:
        return importlib.import_module(SPECIAL)
    import scipy
    standin = types.ModuleType(SPECIAL)
    standin.__path__ = [os.path.join(directory, "special") for directory in scipy.__path__]
    standin.__package__ = SPECIAL
    sys.modules[SPECIAL] = standin
    try:
        ufuncs = importlib.import_module(UFUNCS)
    except ImportError:  # another SciPy's layout: the package as it is
        ufuncs = None
    finally:
        if sys.modules.get(SPECIAL) is standin:
            del sys.modules[SPECIAL]
    if ufuncs is not None and _has_t(ufuncs):
        return ufuncs
    return importlib.import_module(SPECIAL)


def _has_t(module) -> bool:
    return hasattr(module, "stdtr") and hasattr(module, "stdtrit")


def _number(x) -> bool:
    """A finite real number (not a bool, not an array)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and \
        not isinstance(x, (bool, np.bool_)) and math.isfinite(x)


def _df(df) -> bool:
    return _number(df) and df > 0


#: what ``stats.t`` is in ``formulas``' statistics module while SciPy is deferred
STUDENT_T = _StudentT()


def rankdata(a, method="average", **kwargs):
    """``scipy.stats.rankdata`` as RANK, RANK.EQ and RANK.AVG call it (a 1-D array of
    finite floats, ``method`` "min" or "average"), without importing ``scipy.stats``: the
    same ranks by the same arithmetic (``min``: the count of smaller values plus one, as
    integers; ``average``: that plus (ties - 1) / 2, as floats). Anything else goes to
    the real ``rankdata``."""
    if not kwargs and method in ("min", "average") and isinstance(a, np.ndarray) and \
            a.ndim == 1 and a.dtype == np.float64 and np.isfinite(a).all():
        ordered = np.sort(a)
        below = np.searchsorted(ordered, a, "left")
        if method == "min":
            return below + 1
        ties = np.searchsorted(ordered, a, "right") - below
        return (below + 1.0) + (ties - 1.0) / 2
    from scipy.stats import rankdata as real
    return real(a, method=method, **kwargs)


_STATS = {"t": STUDENT_T, "rankdata": rankdata}


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


RANDOM = "numpy.random"
MATH_MODULE = "formulas.functions.math"


def _rand(*args):
    """``numpy.random.rand``, imported on its first call (RAND)."""
    import numpy.random
    return numpy.random.rand(*args)


_rand.__name__ = _rand.__qualname__ = "rand"


class _DeferredRandom(types.ModuleType):
    """Stands for ``numpy.random`` as ``np.random`` while ``formulas``' math module is
    imported: ``rand`` is :func:`_rand`; any other attribute imports the real module (the
    stand-in steps aside first) and answers from it."""

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr == "rand":
            return _rand
        if np.__dict__.get("random") is self:
            del np.random
        return getattr(importlib.import_module(RANDOM), attr)


def defer_numpy_random() -> bool:
    """Import ``formulas``' math module with ``numpy.random`` deferred (see the module
    docstring); True if the stand-in was used. Nothing is done if ``numpy.random`` or
    that module is loaded already."""
    if RANDOM in sys.modules or MATH_MODULE in sys.modules or "random" in np.__dict__:
        return False
    standin = _DeferredRandom(RANDOM)
    np.random = standin  # numpy's __getattr__ is not asked while this is set
    try:
        importlib.import_module(MATH_MODULE)
    finally:
        if np.__dict__.get("random") is standin:
            del np.random
    return True


def defer_heavy_imports() -> None:
    """``formulas``' function modules imported with ``numpy.random``
    (:func:`defer_numpy_random`) and SciPy (:func:`defer_scipy`) deferred."""
    defer_numpy_random()
    defer_scipy()

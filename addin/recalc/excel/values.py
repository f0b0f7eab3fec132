"""A function argument as formulas hands it over: a reference (formulas' ``Ranges``, or
a column run's :class:`CellSlice`), an array, or one value; and the kinds of cell value
Excel tells apart (number, text, logical, error, empty)."""
from __future__ import annotations

import itertools

import numpy as np
import schedula as sh
from formulas.functions import Array
from formulas.ranges import Ranges
from formulas.tokens.operand import Error, XlError

from ...errors import ExcelError
from ..runlog import note

XL = Error.errors  # Excel error code -> formulas' error value


def first_appearance(keys, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values among ``n`` hashable ``keys`` (any iterable): (``picks``,
    ``inverse``), ``picks`` the index of the first key of each distinct value (int64, in
    order of first appearance), ``inverse[k]`` the distinct value of key ``k``. One dict
    filled by ``map`` (no Python loop per key); an unhashable key raises TypeError."""
    first: dict = {}
    codes = np.fromiter(map(first.setdefault, keys, itertools.count()), dtype=np.int64,
                        count=n)
    picks = np.fromiter(first.values(), dtype=np.int64, count=len(first))
    position = np.empty(n, dtype=np.int64)
    position[picks] = np.arange(len(picks))
    return picks, position[codes]


class CellSlice(np.ndarray):
    """One cell's value taken from a column of single-cell references (a column run):
    still a reference, as the cell alone would see it."""


class ReferenceValues(Array):
    """The values of a reference INDEX gives whole (``INDEX(B1:B8,0)``: column B of the
    range) with the reference's rectangle, :attr:`rect`: a reference for ISREF, and cut
    to one cell where a legacy cell reads it as one value
    (:func:`~zvmplan_addin.recalc.legacy.one_cell_of`). Otherwise it is the array it
    always was; an array computed from it, or a part of it, has no rectangle."""
    rect = None


def is_reference(a) -> bool:
    return isinstance(a, (Ranges, CellSlice)) or \
        isinstance(a, ReferenceValues) and "rect" in a.__dict__


def is_collection(a) -> bool:
    """A reference, or an array of more than one value: only its numbers count."""
    return is_reference(a) or isinstance(a, np.ndarray) and a.size != 1


def values_of(a) -> np.ndarray:
    """The 2-D object array a reference or array holds. An array constant's negative
    number (``{1,-1}``) reaches formulas' functions as a 0-d array inside the array:
    it is unwrapped to the number."""
    if isinstance(a, Ranges):
        return np.asarray(a.value, dtype=object)
    values = np.asarray(a, dtype=object)
    if values.ndim and not isinstance(a, CellSlice):
        flat = values.reshape(-1).tolist()
        if any(issubclass(t, np.ndarray) for t in set(map(type, flat))):
            out = np.empty(len(flat), dtype=object)
            out[:] = [v.reshape(-1)[0] if isinstance(v, np.ndarray) and v.size == 1 else v
                      for v in flat]
            return out.reshape(values.shape)
    return values


def single(a):
    """The one value of a non-collection argument (a 0-d or 1x1 array's element)."""
    if isinstance(a, np.ndarray):
        return a.reshape(-1)[0] if a.size else sh.EMPTY
    return a


def first_value(a):
    """The value an argument stands for where one value is expected: a reference's or an
    array's first value, else the argument itself (:func:`single`)."""
    return single(values_of(a)) if is_collection(a) else single(a)


def is_number(v) -> bool:
    """A number: not a bool, not text, not an error, not an empty cell."""
    return isinstance(v, (int, float, np.integer, np.floating)) and \
        not isinstance(v, (bool, np.bool_))


def is_text(v) -> bool:
    return isinstance(v, str) and not isinstance(v, XlError) and v is not sh.EMPTY


def error(code: str, reason: str):
    """formulas' error value ``code``, its ``reason`` left for the run's report."""
    note(ExcelError(code, reason))
    return XL[code]


#: what formulas hands a function for an argument left empty (``F(1,,2)``): the
#: engine's SKIPPED, given by :func:`~zvmplan_addin.recalc.excel.install`
LEFT_OUT: list = []


def is_left_out(v) -> bool:
    """An empty cell, or an argument left empty (``F(1,,2)``): an optional argument
    then takes its default."""
    return v is sh.EMPTY or any(v is x for x in LEFT_OUT)


def each(func, a):
    """``func`` of each value of the reference or array ``a``, as an array."""
    values = values_of(a)
    out = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(values.shape):
        out[idx] = func(values[idx])
    return out.view(Array)


def elementwise(func):
    """``func`` of single values made to take ranges and arrays as Excel's scalar
    functions do: with no argument of several cells, ``func`` of each argument's value
    (:func:`first_value`); else ``func`` of each position of the arguments paired
    element by element -- a single value, row or column repeated along the others, #N/A
    where one is too short -- as an array (a legacy formula's cell then takes its own by
    implicit intersection, or #VALUE!)."""
    def call(*args):
        if not any(is_collection(a) and values_of(a).size > 1 for a in args):
            return func(*[first_value(a) if a is not None else None for a in args])
        grids = [np.atleast_2d(values_of(a)) if is_collection(a) else
                 np.array([[first_value(a)]], dtype=object) for a in args]
        rows = max(g.shape[0] for g in grids)
        cols = max(g.shape[1] for g in grids)
        out = np.empty((rows, cols), dtype=object)
        for i in range(rows):
            for j in range(cols):
                picked = []
                for g in grids:
                    gi = 0 if g.shape[0] == 1 else i
                    gj = 0 if g.shape[1] == 1 else j
                    if gi >= g.shape[0] or gj >= g.shape[1]:
                        picked = None
                        break
                    picked.append(g[gi, gj])
                out[i, j] = XL["#N/A"] if picked is None else func(*picked)
        return out.view(Array)
    call.__name__ = getattr(func, "__name__", "call")
    return call

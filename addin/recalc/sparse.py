"""A large range over a sparse sheet, at a cost proportional to the cells it holds.

A sheet whose used area is too large to hold as a dense grid keeps its cells in a dict
(:class:`~.read.Grid`). A range over such a sheet (two values at ``A1`` and
``XFD1048576`` and ``=SUM(A1:XFD1048576)``) is handed to formulas' functions as a
:class:`SparseRanges`: the range's geometry whole, and only the cells the sheet stores in
it, in the order Excel reads a range (by row, then column). Then:

* SUM, COUNT, COUNTA, COUNTBLANK, MAX, MIN, MAXA, MINA, AVERAGE, AVERAGEA, PRODUCT,
  SUMSQ, MEDIAN, AND and OR read only those cells: each gets the stored values packed
  in reading order (:func:`packed`), the rest of the range being empty cells, which
  these functions skip (COUNTBLANK counts them from the geometry, as for a whole column
  cut to the used rows, :mod:`.install`);
* INDEX with a row and column number inside the range reads its one cell; MATCH with
  match type 0 and VLOOKUP and HLOOKUP with FALSE look a non-empty scalar up among the
  stored cells of the vector (first column, first row) and nowhere else: an empty cell
  never equals such a value;
* any other use of the range's value (an operator, SUMPRODUCT, a zvmplan function)
  gets it as the dense array it was before, if it has at most :data:`MAX_DENSE_CELLS`
  cells, and else ``#VALUE!`` with the reason (never a MemoryError).
"""
from __future__ import annotations

import functools

import numpy as np
import schedula as sh
from formulas.ranges import Ranges

from ..errors import ExcelError
from .runlog import note
from .values import XL, geometry, make_ranges, one_value

#: a range over a dict-kept sheet covering more cells than this (after the cut to the used
#: area) is a :class:`SparseRanges`; a smaller one is built dense, as any range
SPARSE_CELLS = 1_000_000
#: the largest dense array a :class:`SparseRanges` is turned into for a function that
#: reads its value as an array (the read stage's dense limit for a whole sheet)
MAX_DENSE_CELLS = 8_000_000
#: the functions that read only the stored cells of a sparse range, in reading order
AGGREGATES = ("SUM", "COUNT", "COUNTA", "COUNTBLANK", "MAX", "MIN", "MAXA", "MINA", "AVERAGE",
              "AVERAGEA", "PRODUCT", "SUMSQ", "MEDIAN", "AND", "OR")


class SparseRanges(Ranges):
    """A range (``sheet``, ``r1``, ``c1``)-(``r2``, ``c2``) of a sparse sheet: ``cells``,
    the (row, column, value) of the cells the sheet stores in it, by row then column;
    ``cut``: (rows, columns) of its value as a dense array would hold it (cut to the
    used area of the book, :meth:`~.cells.CellEvaluator.ranges`)."""

    __slots__ = ("rect", "cells", "cut", "_held")

    def __init__(self, rect: tuple, cells: list, cut: tuple):
        sheet, r1, c1, r2, c2 = rect
        super().__init__((geometry(sheet, r1, c1, r2, c2),), None)
        self.rect, self.cells, self.cut = rect, cells, cut
        self._held = None

    # ``values`` and ``value`` as formulas reads them: the dense array when it is small
    # enough, else one #VALUE! cell with the reason noted
    @property
    def values(self):
        held = self._held
        if held is None:
            held = self._held = self._dense().values
        return held

    @values.setter
    def values(self, _ignored):  # Ranges.__init__ sets it; the cells are the truth
        self._held = None

    @property
    def value(self):
        if self._value is sh.NONE:
            self._value = next(iter(self.values.values()))[1]
        return self._value

    def _dense(self) -> Ranges:
        sheet, r1, c1, r2, c2 = self.rect
        h, w = self.cut
        if h * w > MAX_DENSE_CELLS:
            note(ExcelError("#VALUE!", f"{self.label()} covers {h * w:,} cells of a "
                            f"sparse sheet; only SUM, COUNT, MAX, ... (docs/engine.md) read "
                            f"so large a range, not as an array of more than "
                            f"{MAX_DENSE_CELLS:,} cells"))
            return make_ranges(sheet, r1, c1, r2, c2, np.array([[XL["#VALUE!"]]], dtype=object))
        out = np.empty((h, w), dtype=object)
        out.fill(sh.EMPTY)
        for r, c, v in self.cells:
            out[r - r1, c - c1] = v
        return make_ranges(sheet, r1, c1, r2, c2, out)

    def label(self) -> str:
        return self.ranges[0]["ref"]


def packed(rng: SparseRanges) -> Ranges:
    """``rng`` with its stored values packed in reading order into as few full rows of
    its width as hold them (the rest empty): the same values, in the same order, for a
    function that reads neither positions nor empty cells."""
    sheet, r1, c1, r2, c2 = rng.rect
    w = c2 - c1 + 1
    n = len(rng.cells)
    h = max(1, -(-n // w))
    flat = np.empty(h * w, dtype=object)
    flat.fill(sh.EMPTY)
    for k, (_, _, v) in enumerate(rng.cells):
        flat[k] = v
    return make_ranges(sheet, r1, c1, r2, c2, flat.reshape(h, w))


def _vector(rng: SparseRanges, column: bool) -> tuple[list, Ranges]:
    """The positions (rows for a column, else columns) of the stored cells of ``rng``'s
    first column (or row), and their values as a one-column (one-row) range."""
    sheet, r1, c1, r2, c2 = rng.rect
    if column:
        at = [(r, v) for r, c, v in rng.cells if c == c1]
    else:
        at = [(c, v) for r, c, v in rng.cells if r == r1]
    values = np.empty((max(1, len(at)), 1) if column else (1, max(1, len(at))), dtype=object)
    values.fill(sh.EMPTY)
    for k, (_, v) in enumerate(at):
        values.reshape(-1)[k] = v
    if column:
        return [p for p, _ in at], make_ranges(sheet, r1, c1, r1 + values.shape[0] - 1, c1,
                                               values)
    return [p for p, _ in at], make_ranges(sheet, r1, c1, r1, c1 + values.shape[1] - 1, values)


def _scalar_key(x):
    """``x`` if it is a lookup value the stored cells alone can answer (a number, a
    non-empty text, a boolean), else None."""
    x = one_value(x)
    if isinstance(x, Ranges) or x is sh.EMPTY or x is None or isinstance(x, np.ndarray):
        return None
    if isinstance(x, str) and (x == "" or x in XL.values()):
        return None
    return x


def _whole_number(x):
    x = one_value(x)
    if isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and \
            float(x) == int(x):
        return int(x)
    return None


def _exact(mode) -> bool:
    mode = one_value(mode)
    return isinstance(mode, (int, float, bool, np.integer, np.floating, np.bool_)) and \
        not mode


_MATCH: list = []  # the function table's MATCH, which VLOOKUP's exact search uses


def install(table) -> None:
    """Put the sparse-range readings above around ``table``'s functions (idempotent)."""
    for name in AGGREGATES:
        _wrap(table, name, _aggregate)
    _wrap(table, "INDEX", _index, compiling=True)
    _wrap(table, "MATCH", _match)
    _MATCH[:] = [table["MATCH"]]
    _wrap(table, "VLOOKUP", _vlookup)
    _wrap(table, "HLOOKUP", _hlookup)


def _wrap(table, name: str, reading, compiling: bool = False) -> None:
    entry = table[name]
    func = entry["function"] if isinstance(entry, dict) else entry
    if getattr(func, "_zvm_sparse", False):
        return

    @functools.wraps(func)
    def call(*args, _original=func):
        if not any(type(a) is SparseRanges for a in args):
            return _original(*args)
        if compiling:
            return _original(*args) if args[0] else reading(
                lambda *a: _original(args[0], *a), *args[1:])
        return reading(_original, *args)
    call._zvm_sparse = True
    if isinstance(entry, dict):
        table[name] = {**entry, "function": call}
    else:
        table[name] = call


def _aggregate(original, *args):
    return original(*(packed(a) if type(a) is SparseRanges else a for a in args))


def _index(original, array, *args):
    if type(array) is SparseRanges and 1 <= len(args) <= 2:
        sheet, r1, c1, r2, c2 = array.rect
        nums = [_whole_number(a) for a in args]
        if len(nums) == 1:  # INDEX(vector, n)
            if r1 == r2:
                nums = [1, nums[0]]
            elif c1 == c2:
                nums = [nums[0], 1]
            else:
                nums = [None, None]
        r, c = nums
        if r is not None and c is not None and 1 <= r <= r2 - r1 + 1 and \
                1 <= c <= c2 - c1 + 1:
            rr, cc = r1 + r - 1, c1 + c - 1
            cell = np.empty((1, 1), dtype=object)
            cell[0, 0] = _stored(array, rr, cc)
            return original(make_ranges(sheet, rr, cc, rr, cc, cell), 1, 1)
    return original(array, *args)


def _stored(rng: SparseRanges, r: int, c: int):
    for rr, cc, v in rng.cells:  # by row, then column
        if (rr, cc) == (r, c):
            return v
        if (rr, cc) > (r, c):
            break
    return sh.EMPTY


def _match(original, value, array, mode=1):
    sheet, r1, c1, r2, c2 = array.rect if type(array) is SparseRanges else (None,) * 5
    if sheet is not None and (r1 == r2 or c1 == c2) and _exact(mode) and \
            _scalar_key(value) is not None:
        column = c1 == c2
        positions, vector = _vector(array, column)
        if not positions:
            return XL["#N/A"]
        result = original(value, vector, 0)
        found = _whole_number(result)
        if found is None:
            return result
        return positions[found - 1] - (r1 if column else c1) + 1
    return original(value, array, mode)


def _vlookup(original, value, array, col, mode=True, *rest):
    return _exact_lookup(original, value, array, col, mode, rest, by_row=True)


def _hlookup(original, value, array, row, mode=True, *rest):
    return _exact_lookup(original, value, array, row, mode, rest, by_row=False)


def _exact_lookup(original, value, array, offset, mode, rest, by_row: bool):
    """VLOOKUP (``by_row``) or HLOOKUP with FALSE over a :class:`SparseRanges`: the first
    stored cell of the first column (row) equal to ``value``, then the original function
    on that one row (column), which gives the cell ``offset`` along it."""
    k = _whole_number(offset)
    if type(array) is SparseRanges and not rest and _exact(mode) and \
            _scalar_key(value) is not None and k is not None:
        sheet, r1, c1, r2, c2 = array.rect
        if k < 1:
            return XL["#VALUE!"]
        if k > (c2 - c1 + 1 if by_row else r2 - r1 + 1):
            return XL["#REF!"]
        at, vector = _vector(array, by_row)
        found = _whole_number(_MATCH[0](value, vector, 0)) if at else None
        if found is None:
            return XL["#N/A"]
        p = at[found - 1]
        line = _line(array, p, by_row)
        one = make_ranges(sheet, p, c1, p, c2, line) if by_row else \
            make_ranges(sheet, r1, p, r2, p, line)
        return original(value, one, offset, mode)
    return original(value, array, offset, mode, *rest)


def _line(rng: SparseRanges, at: int, by_row: bool) -> np.ndarray:
    """Row ``at`` (``by_row``) or column ``at`` of ``rng`` as a dense 1-row (1-column)
    array."""
    sheet, r1, c1, r2, c2 = rng.rect
    out = np.empty((1, c2 - c1 + 1) if by_row else (r2 - r1 + 1, 1), dtype=object)
    out.fill(sh.EMPTY)
    for r, c, v in rng.cells:
        if by_row and r == at:
            out[0, c - c1] = v
        elif not by_row and c == at:
            out[r - r1, 0] = v
    return out

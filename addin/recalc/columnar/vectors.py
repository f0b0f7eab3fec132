"""How a column input is held for :func:`~.run_columns`: the kinds of column
(:data:`REF_COLUMN` ...), a column as an ``(n, 1)`` object array, one row per cell as
:class:`RowRanges`, and each cell's value taken from one."""
from __future__ import annotations

import math

import numpy as np
import schedula as sh
from formulas.ranges import Ranges

from ..excel.values import CellSlice
from ..values import MAX_TEXT, NOT_ONE, make_ranges, one_value, scalar
from .keys import _token_keyed, _needs_type, _negative_zero


REF_COLUMN, LIT_COLUMN, STEP_COLUMN = 1, 2, 3  # how a column input is sliced per cell


ARRAY_COLUMN = 4  # a step whose result in a cell is an array (ZVM_RANGE): kept whole


ROWS_COLUMN = 5   # a range of one row per cell ($V10:$AB10): a :class:`RowRanges`


PREFIX_COLUMN = 6  # rows from a fixed first row to each cell's own: a :class:`~.prefix.PrefixRanges`


_WHOLE = (ARRAY_COLUMN, ROWS_COLUMN)  # inputs only :func:`_per_distinct` may read


def _column_list(a, n):
    """A column input as a list of its ``n`` values, or a value every cell shares as a
    1-tuple; None if it is neither (a range of several cells given to each cell)."""
    if isinstance(a, np.ndarray) and not isinstance(a, Ranges) and a.shape == (n, 1):
        return a.reshape(-1).tolist()
    v = one_value(a)
    return None if v is NOT_ONE else (v,)


def _cell_values(flat: list) -> list:
    """Results -> cell values (:func:`~.values.scalar`): a column of finite floats, of
    TRUE/FALSE or of text no longer than Excel's limit is kept as it is (checked with
    numpy, not one by one); anything else goes through ``scalar`` value by value."""
    types = set(map(type, flat))
    if types <= _CELL_AS_IS:
        if float in types:
            floats = flat if types == {float} else [v for v in flat if type(v) is float]
            if not np.isfinite(np.array(floats, dtype=float)).all():
                return [scalar(v) for v in flat]
        if str not in types:
            return flat
        texts = flat if types == {str} else [v for v in flat if type(v) is str]
        if max(map(len, texts)) <= MAX_TEXT:
            return flat
    return [v if type(v) in _CELL_AS_IS and (type(v) is not str or len(v) <= MAX_TEXT)
            and (type(v) is not float or math.isfinite(v)) else scalar(v) for v in flat]


_CELL_AS_IS = frozenset({float, str, bool})


def _as_column(result, n, unwrap=False):
    """An ``(n, 1)`` object array of one value per cell, or None. ``unwrap``: elements
    that are references (INDEX gives one per cell) become their values."""
    if isinstance(result, Ranges):
        result = result.value
    if not isinstance(result, np.ndarray) or result.shape != (n, 1):
        return None
    result = result if result.dtype == object else result.astype(object)
    if unwrap:
        flat = result.reshape(-1)
        for k in range(n):
            v = flat[k]
            if isinstance(v, Ranges):
                v = v.value
                if v.size != 1:
                    return None
                flat[k] = v.reshape(-1)[0]
    return result


class RowRanges:
    """A reference to one row per cell of a column (``$V10:$AB10`` filled down): the
    values of every cell's row as one ``(n, w)`` block gathered from the grid with
    numpy, and each cell's own range (what the engine gives a function for that cell
    alone, :meth:`~.cells.CellEvaluator.ranges`) made only for the cells a step is
    called for."""

    def __init__(self, sheet: str, grid, rows: np.ndarray, c1: int, c2: int):
        self.sheet, self.rows, self.c1, self.c2 = sheet, rows, c1, c2
        n, w = rows.size, c2 - c1 + 1
        if grid.dense:
            block = np.empty((n, w), dtype=object)
            block.fill(sh.EMPTY)
            inside = rows <= grid.rows
            cc = min(c2, grid.cols)
            if cc >= c1 and inside.any():
                block[inside, :cc - c1 + 1] = grid.a[rows[inside] - 1, c1 - 1:cc]
        else:
            block = np.concatenate([grid.block(r, c1, r, c2) for r in rows.tolist()]) \
                if n else np.empty((0, w), dtype=object)
        self.block = block

    def ranges(self, k: int):
        r = int(self.rows[k])
        return make_ranges(self.sheet, r, self.c1, r, self.c2, self.block[k:k + 1].copy())

    def keys(self) -> list | None:
        """Each cell's row of values as one hashable key, each value keyed by its type;
        None if a row holds -0.0 or an unhashable value (then no row is shared)."""
        flat = self.block.reshape(-1).tolist()
        types = set(map(type, flat))
        keyed = _token_keyed(flat, types)  # the empty cell and errors keyed in C
        if _negative_zero(keyed, types):
            return None
        w = self.block.shape[1]
        if w == 0:
            return [()] * self.block.shape[0]
        if _needs_type(flat, True, types):
            keyed = list(zip(map(type, flat), keyed))
        # each row's tuple zipped from the block's columns
        keys = list(zip(*[keyed[c::w] for c in range(w)]))
        try:
            set(keys)
        except TypeError:
            return None
        return keys


class RowKeyAt:
    """The key :meth:`RowRanges.keys` gives a row, made one row at a time (for the rows
    a factorisation with codes looks at): the row's values, each beside its type."""

    __slots__ = ("block",)

    def __init__(self, block: np.ndarray):
        self.block = block

    def __getitem__(self, k: int) -> tuple:
        row = self.block[k].tolist()
        return tuple(zip(map(type, row), _token_keyed(row, set(map(type, row)))))


def _cell_value(values, column, name, k):
    """Input ``name`` as cell ``k`` alone would see it."""
    value = values[name]
    kind = column.get(name)
    if kind is None:
        return value
    if kind == LIT_COLUMN or kind == ARRAY_COLUMN:
        return value[k, 0]
    if kind == ROWS_COLUMN or kind == PREFIX_COLUMN:
        return value.ranges(k)
    if kind == REF_COLUMN:  # still a reference: SUM(A2) skips A2's text, as in Excel
        return value[k:k + 1].view(CellSlice)
    return value[k:k + 1]

"""Stage 5, evaluate by column: one compiled formula run once over many cells.

A formula filled down a column (``=F2*D2/86400``, ``=F3*D3/86400``, ...) shares one
:class:`~.program.Program`. When its cells do not read each other, the engine gathers
each input once for all of them -- a relative single-cell reference becomes a column
(an ``(n, 1)`` object array, one numpy gather from the sheet's grid), a reference or
literal that every cell shares stays one value -- and :func:`run_columns` runs the
program's steps once. Per-cell Python is what a big sheet pays for (a Python call costs
about as much as the arithmetic of a thousand cells in numpy), so each step is vectorised
as far as its function allows:

* a step none of whose inputs is a column runs once (its value is the same in every
  cell; ``SUM(I$2:I$10001)`` is such a step);
* the arithmetic and comparison operators on columns of plain numbers, ``&`` on columns
  of text and ``IF`` on a condition column of TRUE/FALSE or numbers run in numpy
  (:func:`_fast`: the same IEEE arithmetic, ``np.where`` for IF), with no Python call
  per cell; a column of mixed kinds (text among numbers, errors) takes the paths below;
* an **elementwise** function (:data:`ELEMENTWISE`: a lookup over its lookup value,
  ``=`` on text, ``IFERROR``, the ``IS...`` functions, ``ROUND``, ``LEN``, ...) is called
  once on the distinct combinations of its column arguments (:func:`_distinct`: a
  planner repeats a few transports and site codes) and the answers are scattered back
  with numpy; with too many combinations, once with the whole columns, as formulas
  evaluates an Excel array expression;
* a **zvmplan function** goes through the registry once per distinct combination of its
  arguments (:func:`_factorize`: one dict filled by ``map``; a planner repeats its
  transports, sizes and levels), each answer given to every cell holding the
  combination. With few combinations that is the scalar call, exactly as cell by cell;
  beyond :data:`SCALAR_DISTINCT` per combination of its non-vector arguments (transport,
  level, ...) the numbers of its vector arguments go to one call as a range, so the
  model's ``per_mb_many``/``per_tx_many`` do the work. Columns that read the very same
  cells (three functions of one row's inputs) share one factorisation;
* ``IF`` over any condition and values (text, empty cells, errors) picks element by
  element with a plain ``map`` (:func:`_any_if`), as formulas' IF answers each element;
* any other function (``OR($B10="",$C10="")``, ``AND``, ``SUM(F2,G2)``, ``COUNTIF`` or
  ``MINIFS`` over the row's own range, ``INDEX(ZVM_RANGE(...),1,1)``) is called with
  each cell's own values, as the engine calls it for that cell alone, but once per
  distinct combination of them (:func:`_per_distinct`; the reason behind an error is
  caught for the combination and noted for each of its cells). A result that is an
  array in a cell (``ZVM_RANGE``) stays whole for the step that reads it.

A reference to one row per cell of the same columns (``$V10:$AB10`` filled down) is a
column input too (:class:`RowRanges`): the rows' values are gathered from the grid in
one numpy step and a cell's own range is made only for the cells a step is called for.

Errors stay per cell: an error value in one cell's input is an error in that cell's
result only, and a zvmplan function's reason is kept for every cell it belongs to. A run
whose result is not one value per cell (an array result) returns None and the engine
evaluates those cells one by one, as it does for formulas that read their own column.

Forming the groups (:class:`Columns`) is numpy work too: the cells are sorted into
templates with one ``np.unique`` over the templates' ids, and each reference is checked
with ``map``, ``chain`` and list slices over the cells' reference tuples. Those tuples
(one per cell and reference, made by the compile stage) are still read once per
reference, which is now the largest share of forming the groups of a big sheet.
"""
from __future__ import annotations

import itertools
import math
import operator
from typing import Callable

import numpy as np
import schedula as sh
from formulas.ranges import Ranges
from formulas.tokens.operand import XlError as FXlError

from ..errors import ExcelError
from ..evaluate import resolve
from .excel.values import CellSlice
from .excel.numbers import compare_columns
from .install import (OVERFLOW, Reasons, _elem_from_formulas, _from_formulas, _to_formulas,
                      _whole_value)
from .program import CONST, LIT, MISSING, NAME, RAW, REF, UNION, NotStraight, Program
from .shapes import MAX_COL
from .values import MAX_TEXT, NOT_ONE, XL, make_ranges, one_value, same, scalar

_OPERATORS = ("+", "-", "*", "/", "^", "&", "=", "<>", "<", ">", "<=", ">=", "u-", "u+",
              "%")
_ANY = None
# function -> the argument positions that may hold a column (None: every argument)
ELEMENTWISE: dict[str, frozenset | None] = {
    **{op: _ANY for op in _OPERATORS},
    **{name: _ANY for name in (
        "IF", "IFERROR", "_XLFN.IFNA", "IFNA", "ISERROR", "ISERR", "ISNA", "ISNUMBER",
        "ISTEXT", "ISNONTEXT", "ISBLANK", "ISLOGICAL", "NOT", "ABS", "ROUND", "ROUNDUP",
        "ROUNDDOWN", "INT", "SQRT", "EXP", "LN", "LOG10", "LEN", "UPPER", "LOWER", "TRIM")},
    "VLOOKUP": frozenset({0}), "HLOOKUP": frozenset({0}), "MATCH": frozenset({0}),
    "INDEX": frozenset({1, 2}),
}

REF_COLUMN, LIT_COLUMN, STEP_COLUMN = 1, 2, 3  # how a column input is sliced per cell
ARRAY_COLUMN = 4  # a step whose result in a cell is an array (ZVM_RANGE): kept whole
ROWS_COLUMN = 5   # a range of one row per cell ($V10:$AB10): a :class:`RowRanges`
_WHOLE = (ARRAY_COLUMN, ROWS_COLUMN)  # inputs only :func:`_per_distinct` may read
MAX_ROW_RANGE = 256  # a wider range per row keeps its cells one by one
# a zvmplan function over at most this many distinct argument combinations is called once
# per combination (its scalar path: the same numbers as cell by cell); beyond, once with
# all of them (the model's vectorised path, equal to within a unit in the last place)
SCALAR_DISTINCT = 256


def run_columns(program: Program, args: list, kinds: list, n: int,
                note: Callable[[int, ExcelError], None],
                memo: list | None = None) -> np.ndarray | None:
    """Run ``program`` once for ``n`` cells: ``args`` are its inputs, each a value all
    cells share (``kinds[k]`` 0) or a column of ``n`` values (``REF_COLUMN``: a column of
    single-cell references; ``LIT_COLUMN``: of literals; ``ROWS_COLUMN``: a
    :class:`RowRanges`). Returns an ``(n, 1)`` object
    array of results, or None when the result is not one value per cell. ``note(k,
    err)`` receives the reason of an error a zvmplan function gave cell ``k``. ``memo``:
    where the distinct combinations of zvmplan functions' arguments are kept for the
    next column that reads the very same values (:func:`_factorize_once`)."""
    values = dict(zip(program.inputs, args))
    column = {name: kind for name, kind in zip(program.inputs, kinds) if kind}
    shared, cache, names = program.shared, program.cache, program.names
    for is_function, v, a, b in program.steps:
        if is_function:
            has_column = any(k in column for k in b)
            if v in program.volatile:  # RAND(), RANDBETWEEN(1,A2): one call per cell
                result = _cell_by_cell(a, b, values, column, n)
                if result is None:
                    return None
                column[v] = STEP_COLUMN
            elif not has_column:
                if v in shared and v in cache:
                    values[v] = cache[v]
                    continue
                result = a(*[values[k] for k in b])
                if v in shared:
                    cache[v] = result
            else:
                got = _column_step(names.get(v), a, b, values, column, n, note, memo)
                if got is None:
                    return None
                result, column[v] = got
            if result is sh.NONE:
                raise NotStraight(v)
            values[v] = result
        else:
            value = values.get(v, a)
            if value is MISSING or b and column.get(v) == ROWS_COLUMN:
                raise NotStraight(v)
            for flt in b:
                value = flt(value)
            values[v] = value
    out = values[program.output]
    if column.get(program.output) in _WHOLE:  # an array per cell: a spill each
        return None
    if program.output not in column:  # the same in every cell
        out = one_value(out)
        if out is NOT_ONE:
            return None
        col = np.empty((n, 1), dtype=object)
        col.fill(out)
        return col
    return _as_column(out, n)


def _column_step(name, func, inputs, values, column, n, note, memo=None):
    """One step with a column among its inputs: (its ``(n, 1)`` result, the kind of
    column it is), or None when the run cannot go on as a column. The cheapest path
    that gives formulas' answer for each cell: numpy (:func:`_fast`), a zvmplan function
    or an elementwise function once per distinct argument combination, formulas' own
    elementwise call on the whole columns, and else :func:`_per_distinct`."""
    if any(column.get(k) in _WHOLE for k in inputs):
        return _per_distinct(func, inputs, values, column, n, note)
    positions = {p for p, k in enumerate(inputs) if k in column}
    fn = resolve(name) if isinstance(name, str) else None
    if fn is not None:
        result = _zvmplan_column(fn, inputs, values, column, n, note, memo)
        if result is not None:
            return result, STEP_COLUMN
        return _per_distinct(func, inputs, values, column, n, note)  # an array per cell
    allowed = ELEMENTWISE.get(name, ()) if isinstance(name, str) else ()
    if allowed is _ANY or (allowed and positions <= allowed):
        args = [values[k] for k in inputs]
        result = _fast(name, args, n)
        if result is None:
            result = _distinct(name, func, args, [k in column for k in inputs], n)
        if result is None:
            result = _as_column(func(*args), n, unwrap=name == "INDEX")
        if result is not None:
            return result, STEP_COLUMN
    return _per_distinct(func, inputs, values, column, n, note)


_ARITHMETIC = {"+": np.add, "-": np.subtract, "*": np.multiply}
_COMPARE = {"=": np.equal, "<>": np.not_equal, "<": np.less, ">": np.greater,
            "<=": np.less_equal, ">=": np.greater_equal}
_NUMBER_TYPES = (float, int)


def _fast(name, args, n):
    """The arithmetic and comparison operators on columns of plain numbers, and ``&`` on
    columns of text, with numpy: what formulas' element-by-element operators compute,
    without a Python call per element. None: not such a case (formulas decides)."""
    if name in _ARITHMETIC or name == "/" or name in ("u-", "U-", "%"):
        nums = [_numbers(a, n, empty=True) for a in args]
        if any(x is None for x in nums):
            return None
        if name == "/":
            x, y = nums
            zero = np.broadcast_to(y == 0, (n,))
            with np.errstate(all="ignore"):
                out = _finite_column(np.divide(x, np.where(y == 0, 1.0, y)), n)
            out[zero] = XL["#DIV/0!"]
            return out.reshape(n, 1)
        with np.errstate(all="ignore"):
            if name in ("u-", "U-"):
                result = np.negative(nums[0])
            elif name == "%":
                result = nums[0] / 100.0
            else:
                result = _ARITHMETIC[name](*nums)
        return _finite_column(result, n).reshape(n, 1)
    if name in _COMPARE:
        nums = [_numbers(a, n, empty=False) for a in args]
        if any(x is None for x in nums):
            return None
        out = np.empty(n, dtype=object)
        out[:] = np.broadcast_to(compare_columns(name, *nums), (n,)).tolist()
        return out.reshape(n, 1)
    if name == "IF" and len(args) in (2, 3):
        result = _fast_if(*args, n=n)
        return result if result is not None else _any_if(*args, n=n)
    if name == "&":
        texts = [_texts(a, n) for a in args]
        if any(x is None for x in texts):
            return None
        return np.add(*texts).reshape(n, 1)  # str + str for each element, in numpy's loop
    return None


#: an elementwise step whose columns hold at most this share of distinct combinations is
#: called once on the distinct ones (a lookup of a planner's few site codes)
DISTINCT_SHARE = 0.25
#: lookups key an int and a float of equal value as one number (they find the same row)
DISTINCT_FUNCTIONS = frozenset({"VLOOKUP", "HLOOKUP", "MATCH", "INDEX"})


def _distinct(name, func, args, is_column, n):
    """An elementwise function (:data:`ELEMENTWISE`: ``$B10=""``, ``IF``, ``IFNA``, a
    lookup) called once on the distinct combinations of its column arguments
    (:func:`_factorize`: each value keyed by its type too, so 1, TRUE and "1" differ),
    the results scattered back with numpy: the same values as the call on the whole
    columns, since each element's result depends on that element alone. A planner's
    text columns (transport, workload, unit) hold a handful of values, so
    ``$B10="GUEST_LAN"`` over 5,000 cells is a few calls. None when the columns hold too
    many distinct combinations (or unhashable values) to gain."""
    lookup = name in DISTINCT_FUNCTIONS
    cols = []
    for a, c in zip(args, is_column):
        if c:
            if not isinstance(a, np.ndarray) or isinstance(a, Ranges) or a.shape != (n, 1):
                return None
            cols.append(a.reshape(-1).tolist())
    if not cols:
        return None
    found = _factorize(cols, n, strict=not lookup)
    if found is None or len(found[0]) > int(n * DISTINCT_SHARE):
        return None
    picks, inverse = found
    m = len(picks)
    small = [a.reshape(-1)[picks].reshape(m, 1) if c else a for a, c in zip(args, is_column)]
    result = _as_column(func(*small), m, unwrap=name == "INDEX")
    if result is None:
        return None
    return result[inverse]


def _fast_if(condition, x, y=False, *, n):
    """``IF`` over columns with numpy: a condition column of TRUE/FALSE or numbers picks
    each cell's value from ``x`` or ``y`` (``np.where``), an empty cell picked being 0,
    which is what formulas' IF does element by element for such a condition. None
    (:func:`_any_if` decides) when the condition holds text, an error or an empty cell,
    or a result is one formulas would change (:func:`_plain_results`)."""
    cond = _column_list(condition, n)
    if cond is None or not isinstance(cond, list) or \
            not set(map(type, cond)) <= _CONDITION_TYPES:
        return None
    picked = []
    for a in (x, y):
        values = _column_list(a, n)
        if values is None:
            return None
        column = np.empty(n, dtype=object)
        if isinstance(values, list):
            column[:] = values
            blank = np.fromiter(map(operator.is_, values, itertools.repeat(sh.EMPTY)),
                                dtype=bool, count=n)
            column[blank] = 0  # by identity: EMPTY is a str to numpy's ==
        else:
            column.fill(0 if values[0] is sh.EMPTY else values[0])
        picked.append(column)
    out = np.where(np.array(cond, dtype=bool), *picked)
    return out.reshape(n, 1) if _plain_results(out.tolist()) else None


def _any_if(condition, x, y=False, *, n):
    """``IF`` over columns of any values, element by element as formulas' IF does it (an
    empty cell is 0 in each argument; an error condition is its result, a text condition
    #VALUE!), with a plain ``map`` over the elements instead of formulas' wrapper per
    element. None (formulas decides) for an input that is not a column or one value,
    or a result formulas would turn into #NUM! or #VALUE! (a number that is not finite,
    a text over Excel's limit)."""
    columns = []
    for a in (condition, x, y):
        values = _column_list(a, n)
        if values is None:
            return None
        columns.append(values if isinstance(values, list) else values * n)
    try:
        out = list(map(_if_one, *columns))
    except Exception:  # a value formulas' IF answers otherwise (#VALUE!): let it
        return None
    if not _plain_results(out):
        return None
    col = np.empty((n, 1), dtype=object)
    col[:, 0] = out
    return col


def _if_one(condition, x, y):
    if condition is sh.EMPTY:
        condition = 0
    if isinstance(condition, FXlError):
        return condition
    if isinstance(condition, str):
        return XL["#VALUE!"]
    picked = x if condition else y
    return 0 if picked is sh.EMPTY else picked


def _plain_results(values: list) -> bool:
    """Are these finite numbers, TRUE/FALSE, errors and text within Excel's limit, which
    formulas' check of every function's result leaves as they are?"""
    types = set(map(type, values))
    if not types <= _PLAIN_TYPES:
        return False
    if float in types:
        floats = values if types == {float} else [v for v in values if type(v) is float]
        if not np.isfinite(np.array(floats, dtype=float)).all():
            return False
    if str in types:
        texts = values if types == {str} else [v for v in values if type(v) is str]
        if max(map(len, texts)) > MAX_TEXT:
            return False
    return True


_PLAIN_TYPES = frozenset({bool, int, float, str, type(XL["#N/A"])})
_CONDITION_TYPES = frozenset({bool, float, int})
_EMPTY_TYPE = type(sh.EMPTY)


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


def _finite_column(result, n) -> np.ndarray:
    """Floats -> an object column, every non-finite number #NUM! (as formulas does)."""
    result = np.broadcast_to(np.asarray(result, dtype=float), (n,))
    out = np.empty(n, dtype=object)
    out[:] = result.tolist()
    bad = ~np.isfinite(result)
    if bad.any():
        out[bad] = XL["#NUM!"]
    return out


def _numbers(a, n, empty):
    """A column (or one value) of plain numbers as floats; EMPTY as 0 if ``empty``;
    None if anything else is in it (text, TRUE/FALSE, errors)."""
    if isinstance(a, np.ndarray) and not isinstance(a, Ranges) and a.shape == (n, 1):
        flat = a.reshape(-1)
        values = flat.tolist()
        types = set(map(type, values))
        if not types <= {float, int, type(sh.EMPTY)} or (not empty and type(sh.EMPTY) in types):
            return None
        if type(sh.EMPTY) in types:  # by identity: EMPTY is a str to numpy's ==
            blank = np.fromiter(map(operator.is_, values, itertools.repeat(sh.EMPTY)),
                                dtype=bool, count=len(values))
            flat = np.where(blank, 0.0, flat)
        return flat.astype(float)
    v = one_value(a)
    if type(v) in _NUMBER_TYPES or isinstance(v, (np.floating, np.integer)):
        return np.float64(v)  # a shared step's result may be numpy's (SUM gives float64)
    if empty and v is sh.EMPTY:
        return np.float64(0.0)
    return None


def _texts(a, n):
    """A column (or one value) of text as an object array of n strings; None if not
    all text."""
    if isinstance(a, np.ndarray) and not isinstance(a, Ranges) and a.shape == (n, 1):
        flat = a.reshape(-1)
        return flat if set(map(type, flat.tolist())) == {str} else None
    v = one_value(a)
    if type(v) is not str:
        return None
    out = np.empty(n, dtype=object)
    out.fill(v)
    return out


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
    alone, :meth:`~.evaluate.Evaluator._ranges`) made only for the cells a step is
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
        if _negative_zero(flat):
            return None
        rows = self.block.tolist()
        keys = [tuple(zip(map(type, row), row)) for row in rows] \
            if _needs_type(flat, True) else list(map(tuple, rows))
        try:
            set(keys)
        except TypeError:
            return None
        return keys


def _cell_value(values, column, name, k):
    """Input ``name`` as cell ``k`` alone would see it."""
    value = values[name]
    kind = column.get(name)
    if kind is None:
        return value
    if kind == LIT_COLUMN or kind == ARRAY_COLUMN:
        return value[k, 0]
    if kind == ROWS_COLUMN:
        return value.ranges(k)
    if kind == REF_COLUMN:  # still a reference: SUM(A2) skips A2's text, as in Excel
        return value[k:k + 1].view(CellSlice)
    return value[k:k + 1]


def _cell_by_cell(func, inputs, values, column, n):
    """An impure step (RAND(), RANDBETWEEN(1,A2)) called once for each cell: never once
    per distinct argument set, as each call gives another number."""
    out = np.empty((n, 1), dtype=object)
    for k in range(n):
        result = one_value(func(*[_cell_value(values, column, name, k) for name in inputs]))
        if result is NOT_ONE or result is sh.NONE:
            return None
        out[k, 0] = result
    return out


def _per_distinct(func, inputs, values, column, n, note):
    """Any other step (``OR($B10="",$C10="")``, ``AND``, ``COUNTIF`` of a cell,
    ``INDEX(ZVM_RANGE(...),1,1)``): called with each cell's own values as the engine
    would call it for that cell alone, but once per distinct combination of the column
    inputs (:func:`_factorize`, keyed by type; an array result by its identity, shared
    by the cells of one combination), and given to every cell holding it. Exact for a
    pure function: its answer depends on those values alone (a template that reads its
    position, ROW() or OFFSET, never forms a column). The reason behind an error a
    zvmplan function gives is caught for the combination and noted for each of its
    cells. Returns (the column, STEP_COLUMN), or (..., ARRAY_COLUMN) when some cell's
    result is an array, which only another such step may read; None for a result
    formulas could not give."""
    keys = []
    for name in inputs:
        kind = column.get(name)
        if kind == ROWS_COLUMN:
            keys.append(values[name].keys())
        elif kind is not None:
            flat = values[name].reshape(-1).tolist()
            keys.append(list(map(id, flat)) if kind == ARRAY_COLUMN else flat)
    found = None if None in keys else _factorize(keys, n, strict=True)
    picks, inverse = found if found is not None else (np.arange(n), np.arange(n))
    m = len(picks)
    out = np.empty(m, dtype=object)
    raw = np.empty(m, dtype=object)  # the results as the step gave them
    arrays = False
    saved = Reasons.cell, Reasons.log
    log: dict = {}
    Reasons.log = log  # each combination's first reason, as a cell keeps its first
    try:
        for j, k in enumerate(picks.tolist()):
            Reasons.cell = j
            result = func(*[_cell_value(values, column, name, k) for name in inputs])
            if result is sh.NONE:
                return None
            raw[j] = result
            out[j] = one_value(result)
            arrays = arrays or out[j] is NOT_ONE
    finally:
        Reasons.cell, Reasons.log = saved
    if arrays:  # every result kept as the step gave it, for the step that reads it
        out = raw
    if log:
        has = np.zeros(m, dtype=bool)
        has[list(log)] = True
        for k in np.flatnonzero(has[inverse]).tolist():
            note(k, ExcelError(*log[int(inverse[k])]))
    return out[inverse].reshape(n, 1), ARRAY_COLUMN if arrays else STEP_COLUMN


def _raw_column(value) -> list:
    """A column input -> the raw values the registry takes, one per cell (a plain list:
    numbers and text as they are, only other values converted one by one)."""
    flat = value.reshape(-1).tolist()
    if set(map(type, flat)) <= _RAW_AS_IS:
        return flat
    return [v if type(v) in _RAW_AS_IS else _elem_from_formulas(v) for v in flat]


_RAW_AS_IS = frozenset({float, str, int})


def _factorize(columns: list, n: int, strict: bool = False):
    """The distinct combinations of the values of ``columns`` (lists of ``n`` values):
    (``picks``, ``inverse``) with ``picks`` the first cell of each combination (int64,
    in order of first appearance) and ``inverse[k]`` the combination of cell ``k``;
    None when a value is unhashable. Values are keyed by type too (TRUE is not 1, the
    text "#N/A" is not the error), except that an int and a float of equal value are
    one number unless ``strict`` (then they differ, and a column holding -0.0, which
    equals 0.0, is not factorised). One dict filled by ``map`` (no Python loop per
    cell): each combination maps to the index of the first cell that holds it."""
    if strict and any(map(_negative_zero, columns)):
        return None
    keyed = [_typed(col, {} if strict else None) if _needs_type(col, strict) else col
             for col in columns]
    keys = keyed[0] if len(keyed) == 1 else zip(*keyed)
    first: dict = {}
    try:
        codes = np.fromiter(map(first.setdefault, keys, itertools.count()), dtype=np.int64,
                            count=n)
    except TypeError:  # an unhashable value
        return None
    picks = np.fromiter(first.values(), dtype=np.int64, count=len(first))
    position = np.empty(n, dtype=np.int64)
    position[picks] = np.arange(len(picks))
    return picks, position[codes]


MEMO_SIZE = 4  # factorisations kept for the next columns of one pass


def _factorize_once(columns: list, n: int, memo: list | None):
    """:func:`_factorize`, or the answer kept in ``memo`` for columns holding the very
    same value objects (``=CPCPU_PER_MB(A2,B2,C2)`` and ``=MB_PER_SEC(A2,B2,C2)`` read
    the same cells: the second finds the first's answer with an identity comparison)."""
    if memo is None:
        return _factorize(columns, n)
    for kept, found in memo:
        if len(kept) == len(columns) and all(
                len(a) == len(b) and all(map(operator.is_, a, b))
                for a, b in zip(kept, columns)):
            return found
    found = _factorize(columns, n)
    if found is not None:
        memo.insert(0, (columns, found))
        del memo[MEMO_SIZE:]
    return found


def _needs_type(col, strict: bool) -> bool:
    """Must the values of ``col`` be keyed by their type too? Only where two values of
    different types can be equal: TRUE, 1 and 1.0 (unless not ``strict``: 1 and 1.0 are
    one number), or types other than text, numbers, TRUE/FALSE, errors and the empty
    cell. Text, formulas' errors and its empty cell equal no value of another type
    (an error or the empty cell only itself), so a column of text and numbers needs
    no type key."""
    types = set(map(type, col))
    if len(types) <= 1:
        return False
    if not types <= _KEYED_APART:
        return True
    numbers = types & _NUMBER_KINDS
    return len(numbers) > 1 and (strict or not numbers <= {int, float})


_NUMBER_KINDS = frozenset({bool, int, float})
_KEYED_APART = _NUMBER_KINDS | {str, type(sh.EMPTY), type(XL["#N/A"])}


def _typed(col, merge=None) -> list:
    """Each value of ``col`` keyed by its type (int as float: one number type, unless
    ``merge`` is given another map)."""
    merge = _NUMBER_TYPE if merge is None else merge
    types = list(map(type, col))
    return list(zip(map(merge.get, types, types), col))


def _negative_zero(col) -> bool:
    """Does ``col`` hold -0.0 (a number equal to 0.0 that an operation tells apart)?"""
    if not col.count(0.0):  # == : 0, 0.0, -0.0 and FALSE
        return False
    return any(type(v) is float and v == 0.0 and math.copysign(1.0, v) < 0 for v in col)


_NUMBER_TYPE = {int: float}


def _zvmplan_column(fn, inputs, values, column, n, note, memo=None):
    """A zvmplan function over columns, through the registry: called once per distinct
    combination of its arguments (:func:`_factorize`), each result given to every cell
    that holds the combination. With at most :data:`SCALAR_DISTINCT` combinations (per
    combination of its non-vector arguments) that is the scalar call, exactly as cell by
    cell; beyond, the combinations whose vector arguments are plain numbers go to one
    vector call per combination of the other arguments (the model's ``per_mb_many`` /
    ``per_tx_many``), the rest to the scalar call. None: a result that is not one value
    per cell."""
    params = fn.params
    if len(inputs) > len(params):
        return None
    raw: list = []
    col_pos = []
    for p, name in enumerate(inputs):
        value = values[name]
        if name in column:
            raw.append(_raw_column(value))
            col_pos.append(p)
        else:
            if isinstance(value, Ranges):
                value = _whole_value(value)
                if value is None:
                    return None
            raw.append(_from_formulas(value))
    found = _factorize_once([raw[p] for p in col_pos], n, memo)
    if found is None:
        return None
    picks, inverse = found
    m = len(picks)
    # the m distinct combinations: column arguments cut to their first cells
    take = picks.tolist()
    for p in col_pos:
        raw[p] = list(map(raw[p].__getitem__, take))
    results = _zvmplan_distinct(fn, raw, col_pos, m)
    if results is None:
        return None
    values_, errors = results
    out = values_[inverse].reshape(n, 1)
    if errors:  # each cell of a combination with a reason gets it
        has = np.zeros(m, dtype=bool)
        has[list(errors)] = True
        for k in np.flatnonzero(has[inverse]).tolist():
            note(k, errors[int(inverse[k])])
    return out


def _zvmplan_distinct(fn, raw, col_pos, m):
    """``fn`` over ``m`` distinct combinations (``raw[p]`` a list of ``m`` values for
    each column position): (an object array of ``m`` results, {combination: the
    ExcelError to note}), or None for an array result."""
    params = fn.params
    vec_pos = [p for p in col_pos if params[p].vector]
    key_pos = [p for p in col_pos if not params[p].vector]
    out = np.empty(m, dtype=object)
    errors: dict = {}
    scalar = np.arange(m)
    if m > SCALAR_DISTINCT and vec_pos:
        plain = np.ones(m, dtype=bool)
        for p in vec_pos:
            types = np.array(list(map(type, raw[p])), dtype=object)
            plain &= (types == float) | (types == int)
        groups = _factorize([raw[p] for p in key_pos], m) if key_pos else \
            (np.zeros(1, dtype=np.int64), np.zeros(m, dtype=np.int64))
        if groups is None:
            return None
        vector = np.zeros(m, dtype=bool)
        for g in range(len(groups[0])):
            rows = np.flatnonzero(plain & (groups[1] == g))
            if len(rows) <= SCALAR_DISTINCT:
                continue  # few: the scalar call, exactly as cell by cell
            args = []
            for p in range(len(raw)):
                if p in vec_pos:
                    args.append(np.array(raw[p], dtype=object)[rows].reshape(-1, 1))
                elif p in key_pos:
                    args.append(raw[p][rows[0]])
                else:
                    args.append(raw[p])
            result = fn(*args)
            if not isinstance(result, np.ndarray) or result.size != len(rows):
                return None
            for j, v in zip(rows.tolist(), result.reshape(-1).tolist()):
                out[j], err = _one(v)
                if err is not None:
                    errors[j] = err
            vector[rows] = True
        scalar = np.flatnonzero(~vector)
    for j in scalar.tolist():
        result = fn(*[raw[p][j] if p in col_pos else raw[p] for p in range(len(raw))])
        if isinstance(result, np.ndarray):
            return None
        out[j], err = _one(result)
        if err is not None:
            errors[j] = err
    return out, errors


def _one(v):
    """One zvmplan result -> (formulas' value, the ExcelError whose reason its cells
    get, or None)."""
    if isinstance(v, ExcelError):
        return XL[v.code], (v if v.reason else None)
    if isinstance(v, FXlError):
        return v, None
    if isinstance(v, float) and not np.isfinite(v):
        return XL["#NUM!"], ExcelError("#NUM!", OVERFLOW)
    return _to_formulas(v), None


__all__ = ["run_columns", "cells_by_template", "ELEMENTWISE", "REF_COLUMN", "LIT_COLUMN"]


_FIELD = [operator.itemgetter(f) for f in range(5)]
MIN_COLUMN = 8  # fewer cells of one formula are evaluated one by one


def cells_by_template(templates: list) -> list[tuple]:
    """(template, its cells as a sorted int64 array) for each distinct template in
    ``templates`` (None included), in order of first appearance: one ``np.unique`` over
    the templates' ids instead of a dict filled cell by cell."""
    if not templates:
        return []
    ids = np.fromiter(map(id, templates), dtype=np.int64, count=len(templates))
    _, first, inverse, counts = np.unique(ids, return_index=True, return_inverse=True,
                                          return_counts=True)
    by_template = np.argsort(inverse.reshape(-1), kind="stable")  # cells in order per template
    parts = np.split(by_template, np.cumsum(counts)[:-1])
    return [(templates[int(first[j])], parts[j]) for j in np.argsort(first, kind="stable")]


class Columns:
    """Column groups and their evaluation (a mixin of
    :class:`~zvmplan_addin.recalc.calc.Engine`)."""

    def _column_groups(self) -> list[np.ndarray]:
        """The cells of each template that can be evaluated as one column: plain
        formula cells whose compiled program runs as a straight line, whose references
        are per cell single cells or shared by all, and which read none of each other.
        Sets :attr:`group_slots`: per group and input, ("same", rect) for a reference
        every cell shares, ("cells", sheet, rows, cols) for one cell each, ("rows",
        sheet, rows, c1, c2, sheet name) for one row of the same columns each
        (``$V10:$AB10``), or None.

        The cells come sorted into templates (:func:`cells_by_template`, done once per
        pass), so only each template, not each cell, is looked at in Python."""
        n = self.cells
        in_area = np.fromiter(map(operator.is_not, self.n_area[:n], itertools.repeat(None)),
                              dtype=bool, count=n)
        groups, self.group_slots = [], []
        for t, members in self.by_template:
            members = members[:np.searchsorted(members, n)]  # cells, not defined names
            if len(members) < MIN_COLUMN or t is None or t.pipe is None or \
                    t.program is None or not t.shareable or t.exact_only:
                continue
            if in_area[members].any():  # an array formula's cells: each on its own
                members = members[~in_area[members]]
                if len(members) < MIN_COLUMN:
                    continue
            slots = self._slots(members.tolist())
            if slots is not None:
                groups.append(members)
                self.group_slots.append(slots)
        return groups

    def _slots(self, members) -> list | None:
        """The group's inputs (see :meth:`_column_groups`); None if its cells read each
        other or a range per cell that is not one row of the same columns."""
        t = self.template[members[0]]
        if any(kind == UNION for kind, _ in t.plan):
            return None
        cell_rects = operator.itemgetter(*members)(self.rects)  # each cell's references
        refs = self._references(t, cell_rects)
        if refs is None:
            return None
        inside = np.zeros(len(self.n_text), dtype=bool)
        inside[members] = True
        slots = []
        for kind, x in t.plan:
            if kind == REF and refs[x][0] in ("cells", "rows"):
                owners = self._slot_owners(refs[x])
                if inside[owners[owners >= 0]].any():  # a cell of the column itself
                    return None
                slots.append(refs[x])
                continue
            rect = refs[x][1] if kind == REF else x if kind == CONST else None
            if rect is not None:
                ids = self._ids_in(rect)
                if ids.size and inside[ids].any():
                    return None
            slots.append(refs[x] if kind == REF else None)
        return slots

    def _references(self, t, cell_rects) -> dict | None:
        """Each reference of the cells (``cell_rects``: each cell's rectangles): the same
        rectangle in every cell ("same", rect), one cell each on one sheet ("cells",
        sheet, rows, cols), or one row each of the same columns ("rows", ...); None for
        anything else (a taller range per cell, cells on several sheets). Looked at with ``map``, ``chain`` and list slices over the cells, not a
        Python loop per cell; still a few passes over every cell's tuples, which is most
        of the cost of forming the groups of a big sheet."""
        refs = {}
        for kind, x in t.plan:
            if kind != REF or x in refs:
                continue
            rects = list(map(operator.itemgetter(x), cell_rects))
            first = rects[0]
            if rects[1] == first and rects.count(first) == len(rects):
                refs[x] = ("same", first)
                continue
            # the rects' fields (sheet, r1, c1, r2, c2) as lists, compared whole: one
            # pass over the tuples, then slices of the flat list
            flat = list(itertools.chain.from_iterable(rects))
            if len(flat) != 5 * len(rects):
                return None
            sheets_, r1, c1, r2, c2 = (flat[f::5] for f in range(5))
            if not (r1 == r2 and sheets_.count(first[0]) == len(rects)):
                return None
            if c1 == c2:
                refs[x] = ("cells", self.sheet_index.get(first[0]),
                           np.array(r1, dtype=np.int64), np.array(c1, dtype=np.int64))
                continue
            # one row each, the same columns: $V10:$AB10 filled down
            s = self.sheet_index.get(first[0])
            if s is None or c1.count(first[2]) != len(rects) or \
                    c2.count(first[4]) != len(rects) or \
                    not 0 < first[4] - first[2] < MAX_ROW_RANGE or first[4] == MAX_COL:
                return None  # (a range to the sheet's edge is cut to the used area)
            refs[x] = ("rows", s, np.array(r1, dtype=np.int64), first[2], first[4],
                       first[0])
        return refs

    def _slot_owners(self, slot) -> np.ndarray:
        """The formula nodes filling the cells a "cells" or "rows" slot reads (-1 for
        none), one gather per column of the slot."""
        if slot[0] == "cells":
            return self._owners(slot[1], slot[2], slot[3])
        _, s, rows, c1, c2, _ = slot
        return np.concatenate([self._owners(s, rows, np.full_like(rows, c))
                               for c in range(c1, c2 + 1)])

    def _evaluate_group(self, members: np.ndarray):
        """Evaluate one column group: its first cell as usual (which checks the compiled
        program), the others in one :func:`run_columns`; cell by cell if that fails."""
        members = members.tolist()
        self._evaluate(members[0])
        rest = members[1:]
        t = self.template[members[0]]
        result = None
        if t.program is not None and not t.exact_only and t.checked:
            gathered = self._column_args(rest, t, self._slots_of[members[0]])
            if gathered is not None:
                def note(k, err):  # the label made only for a cell with a reason
                    self.reasons.setdefault(self.n_label[rest[k]], (err.code, err.reason))
                try:
                    result = run_columns(t.program, *gathered, len(rest), note,
                                         self.factor_memo)
                except Exception:  # NotStraight, or a function that failed on a column
                    result = None
        if result is None:
            for i in rest:
                self._evaluate(i)
            return
        self.columnar_cells += len(rest)
        if self.check:
            self._compare_with_cells(rest, result)
        self._scatter(rest, _cell_values(result[:, 0].tolist()))

    def _scatter(self, rest, values):
        """Each cell of ``rest`` gets its value (one fancy assignment per dense sheet)."""
        pick = operator.itemgetter(*rest) if len(rest) > 1 else lambda a: (a[rest[0]],)
        sheets = set(pick(self.n_sheet))
        if len(sheets) == 1 and self.grids[next(iter(sheets))].dense:
            grid = self.grids[next(iter(sheets))]
            rows = np.array(pick(self.n_row), dtype=np.int64)
            cols = np.array(pick(self.n_col), dtype=np.int64)
            if rows.max() <= grid.rows and cols.max() <= grid.cols:
                column = np.empty(len(rest), dtype=object)
                column[:] = values
                grid.a[rows - 1, cols - 1] = column
                return
        for i, v in zip(rest, values):
            self.grids[self.n_sheet[i]].set(self.n_row[i], self.n_col[i], v)

    def _compare_with_cells(self, rest, result):
        """``ZVMPLAN_ENGINE_CHECK=1``: evaluate the cells one by one too; keep those values
        and list the cells where the column run differed."""
        for k, i in enumerate(rest):
            self._evaluate(i)
            cell = self.grids[self.n_sheet[i]].get(self.n_row[i], self.n_col[i])
            mine = scalar(result[k, 0])
            if not same(cell, mine):
                self.column_mismatches.append((self.n_label[i], cell, mine))
            result[k, 0] = cell

    def _column_args(self, rest, t, slots):
        """The inputs of ``t``'s program for the cells ``rest`` (all of the group but its
        first): (args, kinds)."""
        n = len(rest)
        args, kinds = [], []
        cell_lits = None
        for (kind, x), slot in zip(t.plan, slots):
            if kind == REF:
                if slot[0] == "same":
                    args.append(self._ranges(slot[1]))
                    kinds.append(0)
                elif slot[0] == "rows":
                    _, s, rows, c1, c2, sheet = slot
                    args.append(RowRanges(sheet, self.grids[s], rows[1:], c1, c2))
                    kinds.append(ROWS_COLUMN)
                else:
                    args.append(self._cells(slot[1], slot[2][1:], slot[3][1:]))
                    kinds.append(REF_COLUMN)
            elif kind == LIT:
                if cell_lits is None:  # each cell's literals
                    cell_lits = operator.itemgetter(*rest)(self.lits) if n > 1 else \
                        (self.lits[rest[0]],)
                lits = list(map(operator.itemgetter(x), cell_lits))
                first = lits[0]
                if lits.count(first) == n and set(map(type, lits)) == {type(first)}:
                    args.append(first)
                    kinds.append(0)
                else:
                    col = np.empty((n, 1), dtype=object)
                    col[:, 0] = lits
                    args.append(col)
                    kinds.append(LIT_COLUMN)
            elif kind == CONST:
                args.append(self._ranges(x))
                kinds.append(0)
            elif kind == NAME:
                args.append(self.name_values.get(x, XL["#NAME?"]) if x is not None
                            else XL["#NAME?"])
                kinds.append(0)
            elif kind == RAW:
                args.append(x)
                kinds.append(0)
            else:
                return None
        return args, kinds

    def _cells(self, s, rows, cols) -> np.ndarray:
        """The values of cells (``rows``, ``cols``) of sheet ``s`` as an ``(n, 1)`` column."""
        n = rows.size
        out = np.empty((n, 1), dtype=object)
        if s is None:
            out.fill(XL["#REF!"])
            return out
        grid = self.grids[s]
        if grid.dense:
            inside = (rows <= grid.rows) & (cols <= grid.cols)
            if inside.all():
                out[:, 0] = grid.a[rows - 1, cols - 1]
                return out
            out.fill(sh.EMPTY)
            out[inside, 0] = grid.a[rows[inside] - 1, cols[inside] - 1]
            return out
        for k, (r, c) in enumerate(zip(rows.tolist(), cols.tolist())):
            out[k, 0] = grid.get(r, c)
        return out

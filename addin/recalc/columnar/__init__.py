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
* ``SUMIFS``, ``COUNTIFS``, ``AVERAGEIF``, ``MAXIFS`` ... with a criterion per cell over
  ranges every cell shares group the ranges' rows by their keys in one pass and read each
  cell's answer from its group (:mod:`.conditional`); a criterion that is not plain
  equality (``">=5"``, ``"a*"``) is left to :func:`_per_distinct`;
* ``RANK`` of a column over one range every cell shares sorts the range once and finds
  each number by binary search (:mod:`.rank`);
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
So is a running total's range (``E$2:E10``, from a fixed first row to the cell's own:
:class:`~.prefix.PrefixRanges`): SUM, MAX, MIN, COUNT and COUNTIF over it are one pass
over the rows (:mod:`.prefix`); anything else over it sends the cells one by one.

Errors stay per cell: an error value in one cell's input is an error in that cell's
result only, and a zvmplan function's reason is kept for every cell it belongs to. A run
whose result is not one value per cell (an array result) returns None and the engine
evaluates those cells one by one, as it does for formulas that read their own column.

Which cells form a group is :mod:`.groups`' business; gathering a group's inputs and
scattering its results back, :mod:`.columns`'. This module computes on columns only.

The module is a package by concern: :mod:`.vectors` (how a column input is held),
:mod:`.numeric` (the numpy paths), :mod:`.distinct` (a step once per distinct
combination), :mod:`.zvmplan` (registry functions over a column), :mod:`.keys`
(hashable keys of values), :mod:`.conditional` (conditional aggregates by groups); this
module runs a program step by step and picks the path.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import schedula as sh

from ...calls import resolve
from ...errors import ExcelError
from ...prefixes import spellings
from ..excel.numbers import near_zero_column
from ..legacy import may_give_several_cells
from ..program import MISSING, NotStraight, Program
from ..values import NOT_ONE, one_value
from .conditional import FUNCTIONS as CONDITIONAL_FUNCTIONS, conditional_step
from .distinct import _cell_by_cell, _distinct, _per_distinct
from .numeric import PLAIN_RESULTS, _fast
from .prefix import PrefixRanges, prefix_step
from .rank import RANK_FUNCTIONS, rank_step
from .vectors import (LIT_COLUMN, PREFIX_COLUMN, REF_COLUMN, ROWS_COLUMN, STEP_COLUMN, _WHOLE,
                      RowRanges, _as_column)
from .zvmplan import _zvmplan_column


_OPERATORS = ("+", "-", "*", "/", "^", "&", "=", "<>", "<", ">", "<=", ">=", "u-", "u+",
              "%")


_ANY = None


# function -> the argument positions that may hold a column (None: every argument)
ELEMENTWISE: dict[str, frozenset | None] = {
    **{op: _ANY for op in _OPERATORS},
    **{spelled: _ANY for name in (
        "IF", "IFERROR", "IFNA", "ISERROR", "ISERR", "ISNA", "ISNUMBER", "ISTEXT",
        "ISNONTEXT", "ISBLANK", "ISLOGICAL", "NOT", "ABS", "ROUND", "ROUNDUP", "ROUNDDOWN",
        "INT", "SQRT", "EXP", "LN", "LOG10", "LEN", "UPPER", "LOWER", "TRIM")
       for spelled in spellings(name, builtin=True)},
    "VLOOKUP": frozenset({0}), "HLOOKUP": frozenset({0}), "MATCH": frozenset({0}),
    "INDEX": frozenset({1, 2}),
}


def run_columns(program: Program, args: list, kinds: list, n: int,
                note: Callable[[int, ExcelError], None],
                memo: list | None = None, codes: list | None = None) -> np.ndarray | None:
    """Run ``program`` once for ``n`` cells: ``args`` are its inputs, each a value all
    cells share (``kinds[k]`` 0) or a column of ``n`` values (``REF_COLUMN``: a column of
    single-cell references; ``LIT_COLUMN``: of literals; ``ROWS_COLUMN``: a
    :class:`RowRanges`). Returns an ``(n, 1)`` object
    array of results, or None when the result is not one value per cell. ``note(k,
    err)`` receives the reason of an error a zvmplan function gave cell ``k``. ``memo``:
    where the distinct combinations of zvmplan functions' arguments are kept for the
    next column that reads the very same values (:func:`_factorize_once`). ``codes``:
    per input, None or a function giving the codes of its cells' values in the grid
    (:class:`~.codes.ColumnCodes`), which the zvmplan functions' factorisations read."""
    values = dict(zip(program.inputs, args))
    column = {name: kind for name, kind in zip(program.inputs, kinds) if kind}
    coded = {name: c for name, c in zip(program.inputs, codes) if c is not None} \
        if codes else None
    shared, cache, names = program.shared, program.cache, program.names
    plain: set = set()  # ids of step columns known to hold plain values (numeric.PLAIN_RESULTS)
    made: dict = {}  # id of a column _per_distinct gave -> (it, its combinations)
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
                got = _column_step(names.get(v), a, b, values, column, n, note, memo,
                                   coded, plain, made)
                if got is None:
                    return None
                result, column[v] = got
            if result is sh.NONE:
                raise NotStraight(v)
            values[v] = result
        else:
            value = values.get(v, a)
            if value is MISSING or b and column.get(v) in (ROWS_COLUMN, PREFIX_COLUMN):
                raise NotStraight(v)
            if b and coded:  # a filtered input no longer holds the grid's values
                coded.pop(v, None)
            for flt in b:
                value = flt(value)
            values[v] = value
    out = values[program.output]
    if column.get(program.output) in _WHOLE:  # an array per cell: a spill each
        return None
    if program.last_sum is not None and program.output in column:
        op, (x, y) = program.last_sum
        col = _as_column(out, n)
        if col is not None:
            out = near_zero_column(op, values[x], values[y], col)
    if program.output not in column:  # the same in every cell
        out = one_value(out)
        if out is NOT_ONE:
            return None
        col = np.empty((n, 1), dtype=object)
        col.fill(out)
        return col
    return _as_column(out, n)


def _column_step(name, func, inputs, values, column, n, note, memo=None, codes=None,
                 plain=None, made=None):
    """One step with a column among its inputs: (its ``(n, 1)`` result, the kind of
    column it is), or None when the run cannot go on as a column. The cheapest path
    that gives formulas' answer for each cell: numpy (:func:`_fast`), a zvmplan function
    or an elementwise function once per distinct argument combination, formulas' own
    elementwise call on the whole columns, and else :func:`_per_distinct`."""
    if getattr(func, "_zvm_per_cell", False) and \
            may_give_several_cells([values[k] for k in inputs[2:]]):
        raise NotStraight(name)  # INDEX(B1:B8,0) read as one value: cut cell by cell
    if any(column.get(k) == PREFIX_COLUMN for k in inputs):  # a running total
        result = prefix_step(name, [values[k] for k in inputs],
                             [column.get(k) for k in inputs], n, func=func)
        if result is None:
            raise NotStraight(name)  # anything else over such ranges: cell by cell
        return result, STEP_COLUMN
    if any(column.get(k) in _WHOLE for k in inputs):
        return _per_distinct(func, inputs, values, column, n, note, codes, made)
    if isinstance(name, str) and name.upper() in CONDITIONAL_FUNCTIONS:  # SUMIFS ...
        result = conditional_step(name, func, inputs, values, column, n, note)
        if result is not None:
            return result, STEP_COLUMN
    if name in RANK_FUNCTIONS:  # one sort of the range, a binary search a cell
        result = rank_step(func, inputs, values, column, n, note)
        if result is not None:
            return result, STEP_COLUMN
    positions = {p for p, k in enumerate(inputs) if k in column}
    fn = resolve(name) if isinstance(name, str) else None
    if fn is not None:
        # a function that spills (ZVM_RANGE) gives an array per cell, which the registry
        # path leaves to _per_distinct anyway: it goes there at once
        result = None if fn.spill else \
            _zvmplan_column(fn, inputs, values, column, n, note, memo, codes)
        if result is not None:
            return result, STEP_COLUMN
        return _per_distinct(func, inputs, values, column, n, note, codes,
                             made)  # an array per cell
    allowed = ELEMENTWISE.get(name, ()) if isinstance(name, str) else ()
    if allowed is _ANY or (allowed and positions <= allowed):
        args = [values[k] for k in inputs]
        result = _fast(name, args, n, plain)
        if result is not None and plain is not None and name in PLAIN_RESULTS:
            plain.add(id(result))  # held in values for the run: the id stays its own
        if result is None:
            result = _distinct(name, func, args, [k in column for k in inputs], n,
                               _codes_of(codes, inputs))
        if result is None:
            result = _as_column(func(*args), n, unwrap=name == "INDEX")
        if result is not None:
            return result, STEP_COLUMN
    return _per_distinct(func, inputs, values, column, n, note, codes, made)


def _codes_of(codes, inputs) -> list | None:
    """Per input, the function giving its cells' codes (:class:`~.codes.ColumnCodes`)
    or None; None when no input has one."""
    if not codes:
        return None
    got = [codes.get(k) for k in inputs]
    return got if any(c is not None for c in got) else None


__all__ = ["run_columns", "RowRanges", "PrefixRanges", "PREFIX_COLUMN", "ELEMENTWISE", "REF_COLUMN", "LIT_COLUMN"]

"""A column step called once per distinct combination of its column arguments:
:func:`_factorize` finds the combinations (each value keyed by its type too),
:func:`_distinct` calls an elementwise function on them, :func:`_per_distinct` any
other function with each combination's own values, :func:`_cell_by_cell` a volatile
one once per cell."""
from __future__ import annotations

import operator

import numpy as np
import schedula as sh
from formulas.ranges import Ranges

from ...errors import ExcelError
from ..excel.values import first_appearance
from ..install import _elem_from_formulas
from ..runlog import Reasons
from ..values import NOT_ONE, one_value
from .codes import combine
from .keys import _TOKEN_TYPES, _TOKENS, _needs_type, _negative_zero, _token_keyed, _typed
from .vectors import (ARRAY_COLUMN, REF_COLUMN, ROWS_COLUMN, STEP_COLUMN, RowKeyAt, _as_column,
                      _cell_value)


#: an elementwise step whose columns hold at most this share of distinct combinations is
#: called once on the distinct ones (a lookup of a planner's few site codes)
DISTINCT_SHARE = 0.25


#: lookups key an int and a float of equal value as one number (they find the same row)
DISTINCT_FUNCTIONS = frozenset({"VLOOKUP", "HLOOKUP", "MATCH", "INDEX"})


def _distinct(name, func, args, is_column, n, codes=None):
    """An elementwise function (:data:`ELEMENTWISE`: ``$B10=""``, ``IF``, ``IFNA``, a
    lookup) called once on the distinct combinations of its column arguments
    (:func:`_factorize`: each value keyed by its type too, so 1, TRUE and "1" differ),
    the results scattered back with numpy: the same values as the call on the whole
    columns, since each element's result depends on that element alone. A planner's
    text columns (transport, workload, unit) hold a handful of values, so
    ``$B10="GUEST_LAN"`` over 5,000 cells is a few calls. None when the columns hold too
    many distinct combinations (or unhashable values) to gain. ``codes``: per argument,
    None or a function giving its cells' codes in the grid (:class:`~.codes.ColumnCodes`)."""
    lookup = name in DISTINCT_FUNCTIONS
    cols, col_codes = [], []
    for p, (a, c) in enumerate(zip(args, is_column)):
        if c:
            if not isinstance(a, np.ndarray) or isinstance(a, Ranges) or a.shape != (n, 1):
                return None
            cols.append(a.reshape(-1).tolist())
            col_codes.append(codes[p]() if codes is not None and codes[p] is not None
                             else None)
    if not cols:
        return None
    found = _factorize(cols, n, strict=not lookup, codes=col_codes)
    if found is None or len(found[0]) > int(n * DISTINCT_SHARE):
        return None
    picks, inverse = found
    m = len(picks)
    small = [a.reshape(-1)[picks].reshape(m, 1) if c else a for a, c in zip(args, is_column)]
    result = _as_column(func(*small), m, unwrap=name == "INDEX")
    if result is None:
        return None
    return result[inverse]


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


def _per_distinct(func, inputs, values, column, n, note, codes=None, made=None):
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
    formulas could not give. ``codes``: input name -> a function giving its cells' codes
    in the grid (:class:`~.codes.ColumnCodes`), or None. ``made``: id of a column this
    function gave in the run -> (the column, its cells' combinations): cells of one
    combination hold the very same object, so those are codes of that column; the
    column it gives now is added."""
    keys, key_codes = [], []
    for name in inputs:
        kind = column.get(name)
        give = codes.get(name) if codes and kind in (REF_COLUMN, ROWS_COLUMN) else None
        c = give() if give is not None else None
        if c is None and made and kind in (ARRAY_COLUMN, STEP_COLUMN):
            kept = made.get(id(values[name]))
            c = kept[1] if kept is not None and kept[0] is values[name] else None
        if kind == ROWS_COLUMN:
            keys.append(values[name].keys() if c is None else RowKeyAt(values[name].block))
        elif kind is not None:
            flat = values[name].reshape(-1).tolist()
            keys.append(list(map(id, flat)) if kind == ARRAY_COLUMN else flat)
        if kind is not None:
            key_codes.append(c)
    found = None if None in keys else _factorize(keys, n, strict=True, codes=key_codes)
    picks, inverse = found if found is not None else (np.arange(n), np.arange(n))
    m = len(picks)
    out = np.empty(m, dtype=object)
    raw = np.empty(m, dtype=object)  # the results as the step gave them
    arrays = False
    reasons = Reasons()  # each combination's first reason, as a cell keeps its first
    with reasons.active():
        for j, k in enumerate(picks.tolist()):
            reasons.cell = j
            result = func(*[_cell_value(values, column, name, k) for name in inputs])
            if result is sh.NONE:
                return None
            raw[j] = result
            out[j] = one_value(result)
            arrays = arrays or out[j] is NOT_ONE
    log = reasons.log
    if arrays:  # every result kept as the step gave it, for the step that reads it
        out = raw
    if log:
        _note_cells(note, inverse, m, {j: ExcelError(*why) for j, why in log.items()})
    result = out[inverse].reshape(n, 1)
    if made is not None:
        made[id(result)] = (result, inverse)
    return result, ARRAY_COLUMN if arrays else STEP_COLUMN


def _note_cells(note, inverse: np.ndarray, m: int, errors: dict) -> None:
    """Note ``errors[j]`` (the ExcelError of combination ``j`` of ``m``) for each cell ``k`` whose
    combination ``inverse[k]`` has one, in the order of the cells: in one call
    ``note.many(cells, errors)`` when the note has it (the engine's: the cells' labels
    made in one pass), else ``note(k, err)`` cell by cell."""
    has = np.zeros(m, dtype=bool)
    has[list(errors)] = True
    cells = np.flatnonzero(has[inverse])
    theirs = list(map(errors.__getitem__, inverse[cells].tolist()))
    cells = cells.tolist()
    many = getattr(note, "many", None)
    if many is not None:
        many(cells, theirs)
        return
    for k, err in zip(cells, theirs):
        note(k, err)


def _raw_column(value) -> list:
    """A column input -> the raw values the registry takes, one per cell (a plain list:
    numbers and text as they are, only other values converted one by one)."""
    flat = value.reshape(-1).tolist()
    types = set(map(type, flat))
    if types <= _RAW_AS_IS:
        return flat
    if types <= _RAW_BY_IDENTITY:  # TRUE/FALSE as they are, the tokens swapped in C
        raw = _raw_tokens()
        out = list(map(raw.get, map(id, flat), flat))
        if set(map(type, out)).isdisjoint(_TOKEN_TYPES):  # every token was one of those
            return out
    return [v if type(v) in _RAW_AS_IS else _elem_from_formulas(v) for v in flat]


def _raw_value(v):
    """One value -> the raw value the registry takes (:func:`_raw_column`'s rule for
    one value: numbers and text as they are, anything else converted)."""
    return v if type(v) in _RAW_AS_IS else _elem_from_formulas(v)


class RawAt:
    """A column of formulas' values read as raw values (:func:`_raw_value`) one index
    at a time: only the cells asked for are converted."""

    __slots__ = ("flat",)

    def __init__(self, flat):
        self.flat = flat

    def __getitem__(self, k):
        return _raw_value(self.flat[k])


_RAW_AS_IS = frozenset({float, str, int})


_RAW_BY_IDENTITY = _RAW_AS_IS | {bool} | _TOKEN_TYPES


def _raw_tokens() -> dict:
    """id of the empty cell and of each of formulas' error values -> its raw value
    (:func:`_elem_from_formulas`: None, an ExcelError), made for one column: the cells
    holding one token share its raw value, as they share one combination."""
    raw = {}
    for token in _TOKENS:
        try:
            raw[id(token)] = _elem_from_formulas(token)
        except ValueError:  # a code ExcelError does not take: cell by cell says so
            pass
    return raw


def _factorize(columns: list, n: int, strict: bool = False, codes: list | None = None):
    """The distinct combinations of the values of ``columns`` (lists of ``n`` values):
    (``picks``, ``inverse``) with ``picks`` the first cell of each combination (int64,
    in order of first appearance) and ``inverse[k]`` the combination of cell ``k``;
    None when a value is unhashable. Values are keyed by type too (TRUE is not 1, the
    text "#N/A" is not the error), except that an int and a float of equal value are
    one number unless ``strict`` (then they differ, and a column holding -0.0, which
    equals 0.0, is not factorised); the combinations found by
    :func:`~..excel.values.first_appearance`. ``codes``: for each column, None or its
    cells' codes from the grid (:class:`~.codes.ColumnCodes`): then
    :func:`_factorize_coded` gives the same answer."""
    if codes is not None and any(c is not None for c in codes):
        return _factorize_coded(columns, n, strict, codes)
    types = [set(map(type, col)) for col in columns]  # once: both checks read them
    columns = list(map(_token_keyed, columns, types))
    if strict and any(map(_negative_zero, columns, types)):
        return None
    keyed = [_typed(col, {} if strict else None) if _needs_type(col, strict, kinds) else col
             for col, kinds in zip(columns, types)]
    keys = keyed[0] if len(keyed) == 1 else zip(*keyed)
    try:
        return first_appearance(keys, n)
    except TypeError:  # an unhashable value
        return None


def _factorize_coded(columns: list, n: int, strict: bool, codes: list):
    """:func:`_factorize` of ``columns`` where some have ``codes`` (a partition of their
    cells at least as fine as this factorisation's: :class:`~.codes.ColumnCodes`): the
    columns without codes factorised together, and the codes combined in numpy
    (:func:`~.codes.combine`), and the one representative cell of each combination
    factorised as :func:`_factorize` does; every cell takes its representative's
    combination. The same combinations in the same order: cells of one combination of
    codes hold the same values, and the combinations come in order of first
    appearance, so the first cell of each final combination is a representative."""
    parts = [c for c in codes if c is not None]  # columns: lists, or RawAt with codes
    uncoded = [col for col, c in zip(columns, codes) if c is None]
    if uncoded:  # the columns without codes factorised together, one code a cell
        found = _factorize(uncoded, n, strict)
        if found is None:  # -0.0 (strict) or an unhashable value: as all columns
            return None
        parts.append(found[1])
    picks, inverse = combine(parts, n)
    take = picks.tolist()
    found = _factorize([list(map(col.__getitem__, take)) for col in columns], len(take),
                       strict)
    if found is None:
        return None
    return picks[found[0]], found[1][inverse]


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



"""Conditional aggregates filled down a column over ranges every cell shares:
``=SUMIFS($C$2:$C$9001,$A$2:$A$9001,A2,$B$2:$B$9001,B2)``, ``=COUNTIF($A$2:$A$9001,A2)``,
``=AVERAGEIF(...)``, ``=MAXIFS(...)`` ..., a criterion per row (or one for all), computed
from one pass over the ranges (:func:`conditional_step`), not one pass per distinct
criterion, so a column of n cells over n rows costs n, not n².

Each row of the ranges is keyed by what an exact criterion would pick it for
(:func:`~..excel.criteria.value_keys`: a number by its value at 15 significant digits, text
by its :func:`~..excel.criteria.text_key` (casefolded, the dotless i read as i) and, if it
reads as a number, by that number too, TRUE/FALSE by itself), and the rows are grouped by the combination of their keys, one group per
combination some cell asks for, in the order the ranges are read (row by row, as the
cell's own call reads them). A cell whose criteria are all exact
(:func:`~..excel.criteria.exact_key`: a number, TRUE/FALSE, text with no operator but ``=``
and no wildcard) takes its group's answer: the count of its rows, or the values of the sum range
on its rows given to :func:`~..excel.criteria.aggregate`, the very arithmetic of the
cell's own call (Excel and the engine add the picked numbers left to right in the order
of the range; the first error picked is the answer; text and TRUE/FALSE are passed over).

A COUNTIF(S) one of whose criteria orders by a number (``">"&C2``, the rank idiom:
:func:`~..excel.criteria.numeric_order`), the others exact (a rank within a group), picks
only numbers there: its count comes from that range's numbers on the rows the exact
criteria pick, sorted once per combination, by two binary searches at 15 significant
digits (:func:`_ordered_answers`).

What the keys cannot say is left to the engine's own call (:func:`~.distinct._per_distinct`,
once per distinct combination of the cells' criteria): a cell whose criterion has an
operator, a wildcard, is ``""``, an error or an empty cell is computed so, the others
still from the groups; and the whole column is (None) when a range holds a value the keys
cannot say (a value of another type than numbers, text, TRUE/FALSE, errors and the empty
cell), when a group's sum overflows (#NUM! with its reason), when the ranges differ in
shape (#VALUE! with its reason, as the cell's own call gives it), when a range is not one
every cell shares, or when a criterion is an array (an array of answers)."""
from __future__ import annotations

import inspect
import itertools
import math

import numpy as np

from ..excel import criteria as _criteria
from ..excel.numbers import compare_columns
from .distinct import _per_distinct
from .prefix import criteria_column
from .vectors import ARRAY_COLUMN, LIT_COLUMN, REF_COLUMN, STEP_COLUMN

#: function -> (what it gives: "count" or an :func:`~..excel.criteria.aggregate` kind,
#: its argument layout: "if" (range, criterion[, sum range]), "ifs" (sum range, range,
#: criterion, ...), "counts" (range, criterion, ...))
FUNCTIONS = {
    "COUNTIF": ("count", "counts"), "COUNTIFS": ("count", "counts"),
    "SUMIF": ("sum", "if"), "SUMIFS": ("sum", "ifs"),
    "AVERAGEIF": ("average", "if"), "AVERAGEIFS": ("average", "ifs"),
    "MAXIFS": ("max", "ifs"), "_XLFN.MAXIFS": ("max", "ifs"),
    "MINIFS": ("min", "ifs"), "_XLFN.MINIFS": ("min", "ifs"),
}

_CRITERIA_COLUMNS = (REF_COLUMN, LIT_COLUMN, STEP_COLUMN)


def conditional_step(name, func, inputs, values, column, n, note) -> np.ndarray | None:
    """The ``(n, 1)`` results of the step ``func`` (the engine's ``name``, one of
    :data:`FUNCTIONS`) over its ``inputs`` for each of ``n`` cells, computed as the
    module's docstring says, or None when the column is left to the engine's own call
    on every cell. ``note(k, err)``: the reason of an error the engine's call gives cell
    ``k`` (for the cells computed so)."""
    name = name.upper() if isinstance(name, str) else name  # _xlfn.MAXIFS as written
    spec = FUNCTIONS.get(name)
    if spec is None or inspect.unwrap(func) is not _criteria.FUNCTIONS[name]:
        return None  # another function by that name: its own call
    kind, layout = spec
    args = [values[k] for k in inputs]
    kinds = [column.get(k) for k in inputs]
    found = _layout(layout, len(args))
    if found is None:
        return None
    target_at, pairs = found
    if any(kinds[p] is not None for p, _ in pairs) or \
            (target_at is not None and kinds[target_at] is not None) or \
            any(kinds[c] not in (None, *_CRITERIA_COLUMNS) for _, c in pairs):
        return None  # a range per cell, or a criterion of another kind
    ranges = [_criteria._range(args[p]) for p, _ in pairs]
    shape = ranges[0].shape
    if any(r.shape != shape for r in ranges):
        return None  # #VALUE! with its reason: the engine's call gives it
    target = None
    if kind != "count":
        if target_at is None:
            target = ranges[0]
        else:
            target = _criteria._range(args[target_at])
            if layout == "if" and target.shape[0] >= shape[0] and target.shape[1] >= shape[1]:
                target = target[:shape[0], :shape[1]]  # read over the criteria's shape
            if target.shape != shape:
                return None
        target = target.reshape(-1).tolist()
    row_keys = []
    for r in ranges:
        keys = _range_keys(r)
        if keys is None:
            return None
        row_keys.append(keys)
    criteria = []  # per pair, each cell's criterion
    for _, c in pairs:
        got = criteria_column(args[c], kinds[c], n)
        if got is None:
            return None
        criteria.append(got)
    wanted = [_criteria_keys(got) for got in criteria]  # per pair, each cell's key or None
    cells = list(zip(*wanted))
    exact = [k for k, combo in enumerate(cells) if None not in combo]
    ordered = _ordered_answers(kind, ranges, row_keys, criteria, wanted, target, n, exact)
    if not exact and not ordered:
        return None
    answers = _group_answers(row_keys, {cells[k] for k in exact}, kind, target)
    if not all(math.isfinite(v) for v in itertools.chain(answers.values(), ordered.values())
               if type(v) is float):
        return None  # an overflow: #NUM! with its reason (install._finite), as the call
    out = np.empty(n, dtype=object)
    none = None
    for k in exact:
        got = answers.get(cells[k])
        if got is None:
            if none is None:
                none = 0 if kind == "count" else _criteria.aggregate(kind, [])
            got = none
        out[k] = got
    for k, got in ordered.items():
        out[k] = got
    if len(exact) + len(ordered) < n:
        rest = np.setdiff1d(np.arange(n), exact + list(ordered))
        got = _by_the_engine(func, inputs, values, column, rest, note)
        if got is None:
            return None
        out[rest] = got
    return out.reshape(n, 1)


def _ordering_asks(raws: list, wanted: list, n: int, exact: list) -> dict:
    """Each cell not in ``exact`` one of whose criteria (``raws[p][k]``, pair ``p``'s in
    cell ``k``) orders by a number (:func:`~..excel.criteria.numeric_order`: ``">"&C2``)
    and whose others are exact (``wanted[p][k]``, their keys) -> (that pair, the other
    pairs' keys, the operator, the number)."""
    skip = set(exact)
    asks = {}
    for k in range(n):
        if k in skip:
            continue
        orders = [_criteria.numeric_order(raw[k]) for raw in raws]
        at = [p for p, order in enumerate(orders) if order is not None]
        if len(at) != 1:
            continue
        others = tuple(wanted[p][k] for p in range(len(raws)) if p != at[0])
        if None not in others:
            asks[k] = (at[0], others, *orders[at[0]])
    return asks


def _rows_asked(asks: dict, ranges: list, row_keys: list, numbers_only: bool) -> dict:
    """(ordering pair ``j``, the other pairs' keys) asked -> the rows (in the order the
    ranges are read) the other pairs' exact criteria pick whose value in range ``j`` is
    a number: ``(row, that number)`` each (only the number with ``numbers_only``)."""
    out: dict = {}
    for j in {j for j, _, _, _ in asks.values()}:
        rest = [keys for p, keys in enumerate(row_keys) if p != j]
        want = {others for jj, others, _, _ in asks.values() if jj == j}
        for i, v in enumerate(ranges[j].reshape(-1).tolist()):
            if _criteria.is_number(v):
                for combo in itertools.product(*(keys[i] for keys in rest)):
                    if combo in want:
                        out.setdefault((j, combo), []).append(v if numbers_only else (i, v))
    return out


def _ordered_answers(kind: str, ranges: list, row_keys: list, criteria: list,
                     wanted: list, target: list | None, n: int, exact: list) -> dict:
    """cell -> its answer, for each cell of :func:`_ordering_asks` (one criterion ordering
    by a number, the others exact): such a criterion picks only numbers. A count: that
    range's numbers on the rows the exact criteria pick, sorted once per combination,
    and two binary searches a cell. Another aggregate: those rows' numbers compared at
    15 significant digits at once (:func:`~..excel.numbers.compare_columns`), the sum
    range's values on the rows picked handed, in row order, to
    :func:`~..excel.criteria.aggregate` (the arithmetic of the cell's own call); {} when
    no cell asks so."""
    asks = _ordering_asks(criteria, wanted, n, exact)
    if not asks:
        return {}
    if kind == "count":
        numbers = _rows_asked(asks, ranges, row_keys, numbers_only=True)
        for got in numbers.values():
            got.sort()
        return {k: _criteria.count_ordered(numbers.get((j, others), []), op, x)
                for k, (j, others, op, x) in asks.items()}
    rows = {combo: (np.array([i for i, _ in got], dtype=np.int64),
                    np.array([float(v) for _, v in got], dtype=float))
            for combo, got in _rows_asked(asks, ranges, row_keys, numbers_only=False).items()}
    out = {}
    for k, (j, others, op, x) in asks.items():
        at, values = rows.get((j, others), (np.empty(0, dtype=np.int64), np.empty(0)))
        picked = at[compare_columns(op, values, float(x))].tolist() if len(at) else []
        out[k] = _criteria.aggregate(kind, [target[i] for i in picked])
    return out


def _layout(layout: str, count: int):
    """(the position of the sum range or None, [(range position, criterion position)])
    of a call with ``count`` arguments, or None for a count the function does not take
    (the engine's call says what it gives)."""
    if layout == "if":
        if count not in (2, 3):
            return None
        return (2 if count == 3 else None), [(0, 1)]
    if layout == "ifs":
        if count < 3 or count % 2 == 0:
            return None
        return 0, [(p, p + 1) for p in range(1, count, 2)]
    if count < 2 or count % 2:
        return None
    return None, [(p, p + 1) for p in range(0, count, 2)]


def _range_keys(values: np.ndarray) -> list | None:
    """For each value of a criteria range (read row by row), the tuple of its keys
    (:func:`~..excel.criteria.value_keys`), found once per distinct value; None when a
    value's keys cannot say what picks it."""
    try:
        distinct, inverse = _criteria._distinct_once(values)
    except TypeError:  # an unhashable value: the engine's call says what it gives
        return None
    keys = list(map(_criteria.value_keys, distinct))
    if None in keys:
        return None
    return list(map(keys.__getitem__, inverse.tolist()))


def _criteria_keys(criteria: list) -> list:
    """Each criterion's key (:func:`~..excel.criteria.exact_key`, None for a criterion
    that is not exact), found once per distinct criterion."""
    memo: dict = {}
    out = []
    for v in criteria:
        key = (type(v), v)
        try:
            got = memo[key]
        except KeyError:
            got = memo[key] = _criteria.exact_key(v)
        except TypeError:  # unhashable: keyed on its own
            got = _criteria.exact_key(v)
        out.append(got)
    return out


def _group_answers(row_keys: list, wanted: set, kind: str, target: list | None) -> dict:
    """Each combination of keys in ``wanted`` that some row holds (one key per criteria
    range, ``row_keys[j][i]`` the keys of row ``i`` of range ``j``) -> its answer: the
    number of its rows (``kind`` "count"), else :func:`~..excel.criteria.aggregate` of
    the values of ``target`` on its rows, in row order. One pass over the rows."""
    rows: dict = {}
    if len(row_keys) == 1:
        for i, keys in enumerate(row_keys[0]):
            for key in keys:
                combo = (key,)
                if combo in wanted:
                    rows.setdefault(combo, []).append(i)
    else:
        for i, per_range in enumerate(zip(*row_keys)):
            if not all(per_range):
                continue  # an error or an empty cell: no exact criterion picks it
            for combo in itertools.product(*per_range):
                if combo in wanted:
                    rows.setdefault(combo, []).append(i)
    if kind == "count":
        return {combo: len(picked) for combo, picked in rows.items()}
    aggregate = _criteria.aggregate
    return {combo: aggregate(kind, list(map(target.__getitem__, picked)))
            for combo, picked in rows.items()}


class _Subset:
    """A step's ``note`` seen by the cells ``cells`` of the column alone: cell ``k``
    there is cell ``cells[k]`` of the column."""

    def __init__(self, note, cells: list):
        self.note, self.cells = note, cells

    def __call__(self, k, err):
        self.note(self.cells[k], err)

    def many(self, ks, errs):
        many = getattr(self.note, "many", None)
        if many is not None:
            many([self.cells[k] for k in ks], errs)
            return
        for k, err in zip(ks, errs):
            self.note(self.cells[k], err)


def _by_the_engine(func, inputs, values, column, cells: np.ndarray, note):
    """The engine's own call's results for the cells ``cells`` of the column (a list),
    once per distinct combination of their values (:func:`~.distinct._per_distinct`), or
    None when some result is an array."""
    sub = {name: values[name][cells] if column.get(name) else values[name]
           for name in inputs}
    got = _per_distinct(func, inputs, sub, column, len(cells), _Subset(note, cells.tolist()))
    if got is None or got[1] == ARRAY_COLUMN:
        return None
    return got[0].reshape(-1)

"""Running totals on a column: ``=SUM(E$2:E2)`` filled down (each cell reads the rows
from one fixed first row down to its own) computed from one pass over the rows, not one
pass per cell (:func:`prefix_step`), so a column of n cells costs n, not n²/2.

The values are those of each cell's own call, exactly:

* SUM adds its numbers left to right (as Excel does, and as the engine's SUM does:
  :func:`~..install.left_to_right_sum`), so the running sum after a row is the very
  double that cell's own SUM gives; empty cells add nothing;
* MAX and MIN are the running maximum and minimum of the numbers (0 before the first
  number), COUNT the number of numbers so far, COUNTA of the values that are not an
  empty cell (text, "", TRUE/FALSE and errors too), AVERAGE the running sum over the
  count (the left-to-right sum over the count, as a cell's own AVERAGE computes it:
  :func:`~..install.left_to_right_mean`; #DIV/0! before the first number);
* text and TRUE/FALSE in the range are passed over, as Excel's SUM, MAX, MIN and COUNT
  pass them over in a reference (:mod:`..excel.coercion`);
* an error in the range is the result of SUM, MAX, MIN and AVERAGE from its row on (the
  first error in the order the range is read, row by row); COUNT passes it over;
* COUNTIF over such a range with a criterion per cell (``=COUNTIF(E$2:E10,E10)``, the
  how-manieth of its value a row is) or one for all counts with the engine's own
  criteria (:mod:`..excel.criteria`): a criterion that picks by equality with one key
  (:func:`~..excel.criteria.exact_key`: a number picks numbers and numeric text equal to
  it at 15 significant digits; a plain text, ``=COUNTIF($A$2:A9,A9)`` over names, the
  text equal to it without regard to case; TRUE/FALSE) is counted in one pass down the
  rows, each value under the keys that pick it (:func:`~..excel.criteria.value_keys`; a
  dict of counts, the cells' answers read as the pass reaches their last row); any other
  criterion (``"a*"``, ``">=0"``, an error, an empty cell) is one mask of the range a
  distinct criterion, by the very matcher a cell's own COUNTIF uses, and a running count
  of it.

* SUMIF, SUMIFS, COUNTIFS, AVERAGEIF and AVERAGEIFS over running ranges of the same
  rows (``=SUMIF($A$2:A9,A9,$C$2:C9)``, a running total per LPAR), every criterion one
  that picks by equality with one key (a number, numeric text, plain text, TRUE/FALSE:
  :func:`~..excel.criteria.exact_key`): one pass down the rows, each row counted and
  its number added (left to right, as the cell's own call adds:
  :func:`~..excel.criteria.added`) under every combination of keys its values are picked
  by; the first error picked in the summed range is the answer from its row on.

* MATCH with match type 0 (``=MATCH(A9,$A$2:A9,0)``, where a name first stands): the
  first position matching in a cell's rows is the first in the tallest range if it lies
  within them, else there is none (#N/A); the step's own MATCH over the tallest range is
  asked once per distinct value.

A range holding anything else (-0.0 for MAX and MIN; a sum SUM cannot hold as a finite
double) is not taken here: :func:`prefix_step` returns None and the engine
evaluates the cells one by one, which gives the reference answer for those too. So does
any other function, SUM with more arguments than the range, or a COUNTIF column with
more than :data:`COUNTIF_MASKS` distinct criteria that are not keyed."""
from __future__ import annotations

import numpy as np
import schedula as sh
from formulas.tokens.operand import Error, XlError

from ..excel import criteria as _criteria
from ..excel.values import is_collection, single, values_of
from ..values import NOT_ONE, make_ranges, one_value
from .vectors import LIT_COLUMN, PREFIX_COLUMN, REF_COLUMN, STEP_COLUMN

#: the functions :func:`prefix_step` computes from one pass
PREFIX_FUNCTIONS = frozenset({"SUM", "MAX", "MIN", "COUNT", "COUNTA", "AVERAGE", "COUNTIF"})
#: MATCH over a running range with match type 0: the first position in the tallest range
MATCH_FUNCTIONS = frozenset({"MATCH"})
_NA = Error.errors["#N/A"]
#: conditional aggregates over running ranges whose criteria are all keyed (a number or
#: plain text): function -> (where the range/criterion pairs start, where the summed
#: range is: None for the first criteria range, -1 for none (a count), k its position)
KEYED = {"SUMIF": (0, 2), "AVERAGEIF": (0, 2), "COUNTIFS": (0, -1),
         "SUMIFS": (1, 0), "AVERAGEIFS": (1, 0)}

#: a COUNTIF column is counted on the column path with at most this many distinct
#: criteria that are not keyed (each one mask of the range); beyond, cell by cell
COUNTIF_MASKS = 64

_NUMBER = (float, int)
_DIV0 = Error.errors["#DIV/0!"]  # AVERAGE of no number, as formulas' own
#: the kinds of value the functions pass over in a range (text, TRUE/FALSE, empty cells)
#: or add up
_SKIPPED = frozenset({float, int, str, bool, type(sh.EMPTY)})


class PrefixRanges:
    """A reference per cell to the rows ``r1`` .. ``rows[k]`` of columns ``c1`` .. ``c2``
    (``E$2:E10`` for the cell in row 10): the block of the tallest range gathered once
    from the grid; a cell's own range (for a function called on one cell) made only on
    demand."""

    def __init__(self, sheet: str, grid, r1: int, rows: np.ndarray, c1: int, c2: int):
        self.sheet, self.r1, self.rows, self.c1, self.c2 = sheet, r1, rows, c1, c2
        self.block = grid.block(r1, c1, int(rows.max()), c2) if rows.size else \
            np.empty((0, c2 - c1 + 1), dtype=object)

    def ranges(self, k: int):
        r = int(self.rows[k])
        return make_ranges(self.sheet, self.r1, self.c1, r, self.c2,
                           self.block[:r - self.r1 + 1].copy())


def prefix_step(name: str, args: list, kinds: list, n: int, func=None) -> np.ndarray | None:
    """The ``(n, 1)`` results of ``name`` (one of :data:`PREFIX_FUNCTIONS`) called for
    each of its ``n`` cells with one argument, a :class:`PrefixRanges` (``kinds[k]``: the
    kind of column argument ``k`` is, None for a value all cells share), or for COUNTIF
    with a criterion too, :data:`KEYED` aggregates, or MATCH with match type 0 (``func``:
    the step's function); None for anything else (then the cells are evaluated one by
    one)."""
    if name in MATCH_FUNCTIONS:
        return _first_match(func, args, kinds, n)
    if name == "COUNTIF" and len(args) == 2 and kinds[0] == PREFIX_COLUMN \
            and kinds[1] != PREFIX_COLUMN:
        return _countif(args[0], args[1], kinds[1], n)
    if name in KEYED:
        return _keyed(name, args, kinds, n)
    if name not in PREFIX_FUNCTIONS or name == "COUNTIF" or len(args) != 1 \
            or kinds[0] != PREFIX_COLUMN:
        return None
    pr = args[0]
    flat = pr.block.reshape(-1).tolist()
    kinds = set(map(type, flat))
    if kinds - _SKIPPED - {XlError}:
        return None  # a value of another kind (an array, a numpy scalar): cell by cell
    errors = [k for k, v in enumerate(flat) if type(v) is XlError] \
        if XlError in kinds else []
    is_number = np.fromiter((type(v) in _NUMBER for v in flat), dtype=bool,
                            count=len(flat))
    numbers = np.array([v for v in flat if type(v) in _NUMBER], dtype=float)
    if name in ("MAX", "MIN") and np.signbit(numbers[numbers == 0]).any():
        return None  # -0.0 beside 0.0: which zero max() keeps, cell by cell
    width = pr.c2 - pr.c1 + 1
    ends = (pr.rows - pr.r1 + 1) * width  # how many of the values each cell reads
    seen = np.concatenate(([0], np.cumsum(is_number)))[ends]  # numbers among them
    n = ends.size
    out = np.empty(n, dtype=object)
    if name == "COUNT":
        out[:] = seen.tolist()
        return out.reshape(n, 1)
    if name == "COUNTA":  # every value but the empty cell: text, "", TRUE, errors too
        filled = np.fromiter((v is not sh.EMPTY for v in flat), dtype=bool, count=len(flat))
        out[:] = np.concatenate(([0], np.cumsum(filled)))[ends].tolist()
        return out.reshape(n, 1)
    if name in ("SUM", "AVERAGE"):
        running = np.add.accumulate(numbers)
        if not np.isfinite(running).all():
            return None  # an overflow: #NUM! with its reason, cell by cell
        start = 0.0
    else:
        running = (np.maximum if name == "MAX" else np.minimum).accumulate(numbers)
        start = 0.0
    values = np.where(seen > 0, running[np.maximum(seen - 1, 0)] if numbers.size
                      else start, start)
    if name == "AVERAGE":  # the running sum over the count; no number yet: #DIV/0!
        with np.errstate(invalid="ignore", divide="ignore"):
            values = values / seen
        out[:] = values.tolist()
        out[seen == 0] = _DIV0
    else:
        out[:] = values.tolist()
    if errors:
        first = errors[0]
        out[ends > first] = flat[first]
    return out.reshape(n, 1)


def criteria_column(arg, kind, n: int) -> list | None:
    """The criterion each of ``n`` cells gives COUNTIF, SUMIFS ... (its one value, as
    :func:`~..excel.criteria.countif` reads a one-cell argument), or None when a cell's
    criterion is an array (an array of answers: cell by cell) or a column of another
    kind. Also :mod:`.conditional`'s reading."""
    if kind in (REF_COLUMN, LIT_COLUMN, STEP_COLUMN):
        if not isinstance(arg, np.ndarray) or arg.shape != (n, 1):
            return None
        flat = arg.reshape(-1).tolist()
        if any(isinstance(v, np.ndarray) for v in flat):
            return None
        return flat
    if kind is not None:
        return None
    if is_collection(arg):
        values = values_of(arg)
        if values.size != 1:
            return None
        arg = values
    one = single(arg)
    return None if isinstance(one, np.ndarray) else [one] * n


def _countif(pr: PrefixRanges, criterion, kind, n: int) -> np.ndarray | None:
    """``COUNTIF(E$2:E{r}, criterion)`` for each cell: see the module's docstring. The
    answers are ints, as COUNTIF's own."""
    crit = criteria_column(criterion, kind, n)
    if crit is None:
        return None
    flat = pr.block.reshape(-1).tolist()
    if set(map(type, flat)) - _SKIPPED - {XlError}:
        return None  # a value of another kind (an array, a numpy scalar): cell by cell
    width = pr.c2 - pr.c1 + 1
    ends = ((pr.rows - pr.r1 + 1) * width).tolist()  # how many values each cell reads
    out = [0] * n
    keyed, others = [], {}  # keyed: counted by key in one pass; others: one mask each
    for k, c in enumerate(crit):
        key = _criteria.exact_key(c)
        if key is not None:
            keyed.append((k, key))
        else:
            others.setdefault((type(c), c), []).append(k)
    if len(others) > COUNTIF_MASKS:
        return None
    if keyed:
        memo: dict = {}
        keys = [_value_keys(v, memo) for v in flat]
        keyed.sort(key=lambda kw: ends[kw[0]])
        counts: dict = {}
        done = 0
        for k, wanted in keyed:
            end = ends[k]
            for picked_by in keys[done:end]:
                for key in picked_by:
                    counts[key] = counts.get(key, 0) + 1
            done = max(done, end)
            out[k] = counts.get(wanted, 0)
    for (_, c), cells in others.items():
        picked = _criteria.picks(flat, c)
        running = np.concatenate(([0], np.cumsum(picked, dtype=np.int64))).tolist()
        for k in cells:
            out[k] = running[ends[k]]
    column = np.empty((n, 1), dtype=object)
    column[:, 0] = out
    return column


def _value_keys(v, memo: dict):
    """:func:`~..excel.criteria.value_keys` of a value of a criteria range, remembered
    per distinct value (keyed by its type too)."""
    got = memo.get((type(v), v), memo)
    if got is memo:
        got = memo[(type(v), v)] = _criteria.value_keys(v)
    return got


def _keyed(name: str, args: list, kinds: list, n: int) -> np.ndarray | None:
    """``SUMIF(A$2:A9, A9, C$2:C9)``, ``COUNTIFS``, ``SUMIFS``, ``AVERAGEIF(S)`` filled
    down, every range a running range over the same rows and every criterion a number or
    plain text: one pass down the rows, each row counted (and its number added, left to
    right, as :func:`~..excel.criteria.added`) under every combination of keys its
    values are picked by; each cell's answer read as the pass reaches its last row. An
    error in the summed range picked for a cell is its answer (the first, in row order);
    AVERAGE of no number is #DIV/0!. None for anything else (cell by cell)."""
    start, at = KEYED[name]
    rest = len(args) - start  # the range/criterion pairs' arguments
    if name in ("SUMIF", "AVERAGEIF"):
        if len(args) not in (2, 3):
            return None
        pairs, target = [(0, 1)], (2 if len(args) == 3 else 0)
    else:
        if rest < 2 or rest % 2:
            return None
        pairs = [(k, k + 1) for k in range(start, len(args), 2)]
        target = None if at == -1 else at
    ranges = [args[r] for r, _ in pairs] + ([] if target is None else [args[target]])
    if any(kinds[r] != PREFIX_COLUMN or kinds[c] == PREFIX_COLUMN for r, c in pairs) or \
            (target is not None and kinds[target] != PREFIX_COLUMN):
        return None
    first = ranges[0]
    if any(not isinstance(pr, PrefixRanges) or pr.c1 != pr.c2 or pr.r1 != first.r1 or
           pr.rows.shape != first.rows.shape or not np.array_equal(pr.rows, first.rows)
           for pr in ranges):
        return None
    wanted = []
    for _, c in pairs:
        crit = criteria_column(args[c], kinds[c], n)
        if crit is None:
            return None
        keys = [_criteria.exact_key(x) for x in crit]
        if any(k is None for k in keys):
            return None
        wanted.append(keys)
    columns = [pr.block.reshape(-1).tolist() for pr in ranges]
    if any(set(map(type, col)) - _SKIPPED - {XlError} for col in columns):
        return None
    criteria_columns = columns[:len(pairs)]
    summed = columns[len(pairs)] if target is not None else None
    ends = (first.rows - first.r1 + 1).tolist()
    memo: dict = {}
    counts: dict = {}
    sums: dict = {}
    numbers: dict = {}
    errors: dict = {}
    out = [0] * n
    done = 0
    for k in sorted(range(n), key=ends.__getitem__):
        end = ends[k]
        for i in range(done, end):
            combos = [()]
            for col in criteria_columns:
                keys = _value_keys(col[i], memo)
                if keys is None:
                    return None  # a value the keys cannot speak for: cell by cell
                combos = [c + (key,) for c in combos for key in keys]
            if not combos:
                continue
            v = summed[i] if summed is not None else None
            for combo in combos:
                counts[combo] = counts.get(combo, 0) + 1
                if summed is None:
                    continue
                if type(v) is XlError:
                    errors.setdefault(combo, v)
                elif type(v) in _NUMBER:
                    sums[combo] = sums.get(combo, 0.0) + float(v)
                    numbers[combo] = numbers.get(combo, 0) + 1
        done = max(done, end)
        combo = tuple(keys[k] for keys in wanted)
        if summed is None:
            out[k] = counts.get(combo, 0)
        elif combo in errors:
            out[k] = errors[combo]
        elif name.startswith("SUM"):
            out[k] = sums.get(combo, 0.0)
        else:
            m = numbers.get(combo, 0)
            out[k] = sums[combo] / m if m else _DIV0
    column = np.empty((n, 1), dtype=object)
    column[:, 0] = out
    return column


def _first_match(func, args: list, kinds: list, n: int) -> np.ndarray | None:
    """``MATCH(A9, $A$2:A9, 0)`` filled down (where a value first stands, the first
    occurrence of a repeated name): an exact match answers the first position of the
    range whose value matches, and each cell's range is the first rows of the tallest
    one, so a cell's answer is the step's own answer over the tallest range when that
    position is within the cell's rows, else #N/A. One call per distinct lookup value
    (keyed by type too), each through the lookups' hash index
    (:mod:`..excel.lookuptables`); an error looked up is its own answer. None for another
    match type, a range of several columns, any other answer that is not a position or
    #N/A, or an array per cell."""
    if func is None or len(args) != 3 or kinds[1] != PREFIX_COLUMN or \
            kinds[0] == PREFIX_COLUMN or kinds[2] is not None:
        return None
    match_type = one_value(args[2])
    if not ((type(match_type) in _NUMBER and match_type == 0) or match_type is False):
        return None
    pr = args[1]
    if not isinstance(pr, PrefixRanges) or pr.c1 != pr.c2 or not pr.rows.size:
        return None
    looked = criteria_column(args[0], kinds[0], n)
    if looked is None:
        return None
    ends = (pr.rows - pr.r1 + 1).tolist()
    tallest = pr.ranges(int(np.argmax(pr.rows)))
    found: dict = {}
    out = np.empty((n, 1), dtype=object)
    for k, v in enumerate(looked):
        key = (type(v), v)
        got = found.get(key)
        if got is None:
            r = one_value(func(v, tallest, args[2]))
            if r is NOT_ONE or r is sh.NONE:
                return None
            if isinstance(r, XlError):
                if str(r) != "#N/A" and not (type(v) is XlError and str(v) == str(r)):
                    return None  # (an error looked up is the answer whatever the range)
                got = (None, r)
            elif isinstance(r, (int, float, np.integer, np.floating)) and \
                    not isinstance(r, (bool, np.bool_)):
                got = (r, r)
            else:
                return None
            found[key] = got
        position, answer = got
        out[k, 0] = answer if position is None or position <= ends[k] else _NA
    return out


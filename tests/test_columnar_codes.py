"""A grid column factorised once per pass (``columnar.codes``) gives every column step
the distinct combinations it would find value by value: the same combinations in the
same order, for strict steps (TRUE, 1 and 1.0 apart, -0.0 refused), for lookups and
zvmplan functions (1 and 1.0 one number; the registry's raw values, where the error
#N/A equals its text), with the empty cell, formulas' errors, text that reads as a
number, NaN and infinities; and a kept factorisation is dropped as soon as a cell of
its range holds another object. The general paths are the ones without codes."""
from __future__ import annotations

import random

import numpy as np
import pytest
import schedula as sh

import zvmplan_addin.functions  # noqa: F401  (fills the registry)
from zvmplan_addin.calls import resolve
from zvmplan_addin.recalc.columnar.codes import ColumnCodes, combine, strict_codes
from zvmplan_addin.recalc.columnar.distinct import (RawAt, _distinct, _factorize,
                                                    _per_distinct, _raw_column)
from zvmplan_addin.recalc.columnar.vectors import LIT_COLUMN, REF_COLUMN
from zvmplan_addin.recalc.columnar.zvmplan import _zvmplan_column
from zvmplan_addin.recalc.excel.values import first_appearance
from zvmplan_addin.recalc.values import XL

_NAN = float("nan")
_POOL = [0, 0.0, 1, 1.0, True, False, 2.5, "", "1", "1.0", "TRUE", "a", "#N/A", "empty",
         XL["#N/A"], XL["#VALUE!"], XL["#DIV/0!"], sh.EMPTY, _NAN, float("inf"),
         float("-inf"), 10 ** 20, 1e20, 9000.0, 9000, "9000"]


class _Grid:
    """A dense grid of one column holding ``values`` (rows 1..n)."""
    dense = True

    def __init__(self, values):
        self.a = np.empty((len(values), 1), dtype=object)
        self.a[:, 0] = values
        self.rows, self.cols = len(values), 1


def _gathered(rng, pool, rows_in_grid, n):
    """A grid column of ``rows_in_grid`` values and ``n`` rows read from it (repeats and
    gaps, as a group of several columns reads one row's input several times)."""
    grid = [rng.choice(pool) for _ in range(rows_in_grid)]
    rows = np.array(sorted(rng.randint(1, rows_in_grid) for _ in range(n)), dtype=np.int64)
    return grid, rows, [grid[r - 1] for r in rows.tolist()]


@pytest.mark.parametrize("seed", range(60))
def test_combine_is_first_appearance_of_the_code_tuples(seed):
    """Codes folded in numpy number the combinations as a dict of the tuples does, also
    when the codes are too large to fold without renumbering."""
    rng = random.Random(seed)
    n = rng.randint(0, 80)
    k = rng.randint(1, 4)
    big = seed % 3 == 0
    codes = [np.array([rng.randrange(3) * (1 << 40 if big else 1) + rng.randrange(2)
                       for _ in range(n)], dtype=np.int64) for _ in range(k)]
    picks, inverse = combine(codes, n)
    want = first_appearance(list(zip(*[c.tolist() for c in codes])), n)
    assert picks.tolist() == want[0].tolist() and inverse.tolist() == want[1].tolist()


@pytest.mark.parametrize("seed", range(200))
@pytest.mark.parametrize("strict", [False, True])
def test_factorize_with_grid_codes_agrees_with_value_by_value(seed, strict):
    """One to three gathered columns (with codes) beside a column without: the same
    combinations in the same order as without codes; None exactly when it is None
    (-0.0 under a strict step, found in the column without codes or refused by the
    codes)."""
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    pool = _POOL + ([-0.0] if seed % 5 == 0 else [])
    columns, codes = [], []
    for _ in range(rng.randint(1, 3)):
        grid, rows, col = _gathered(rng, pool, rng.randint(1, 20), n)
        columns.append(col)
        grid_codes = strict_codes(grid)
        codes.append(None if grid_codes is None else grid_codes[rows - 1])
    columns.append([rng.choice(pool) for _ in range(n)])
    codes.append(None)
    want = _factorize(columns, n, strict)
    got = _factorize(columns, n, strict, codes=codes)
    if want is None:
        assert got is None
    else:
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_codes_keep_kinds_apart_that_compare_equal():
    """TRUE, 1 and 1.0; the text "1"; the error #N/A and the text "#N/A"; the empty cell
    and the text "": each its own code; 9000 and 9000.0 too (a step that merges them
    does so on the representatives)."""
    col = [True, 1, 1.0, "1", XL["#N/A"], "#N/A", sh.EMPTY, "", 9000, 9000.0, True, "1"]
    assert strict_codes(col).tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 3]
    assert strict_codes([1.0, -0.0]) is None
    assert strict_codes([[1.0]]) is None  # unhashable


@pytest.mark.parametrize("seed", range(100))
def test_raw_values_with_codes_agree_with_the_whole_raw_column(seed):
    """A zvmplan function's column read through its grid codes, converted to raw values
    only at the representatives (RawAt), gives the combinations of the whole column
    converted (the error #N/A then equals its text but is keyed apart by type; 9000
    and 9000.0 are one number)."""
    rng = random.Random(seed)
    n = rng.randint(1, 50)
    grid, rows, col = _gathered(rng, _POOL, rng.randint(1, 15), n)
    flat = np.empty((n, 1), dtype=object)
    flat[:, 0] = col
    other = [rng.choice(["IUCV", "VCTC", None, 1.0]) for _ in range(n)]
    want = _factorize([_raw_column(flat), other], n)
    got = _factorize([RawAt(flat.reshape(-1)), other], n,
                     codes=[strict_codes(grid)[rows - 1], None])
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_raw_values_with_codes_raise_as_the_whole_column():
    """An error code Excel lacks (#GETTING_DATA) raises in the conversion with codes as
    without: the column then goes cell by cell."""
    col = [1.0, XL["#GETTING_DATA"], 1.0]
    flat = np.empty(3, dtype=object)
    flat[:] = col
    with pytest.raises(ValueError):
        _raw_column(flat.reshape(3, 1))
    with pytest.raises(ValueError):
        _factorize([RawAt(flat)], 3, codes=[strict_codes(col)])


def test_kept_codes_are_dropped_when_a_cell_changes():
    """The codes of a grid range are kept while it holds the very same objects; a cell
    written since (another object, even an equal one of another type) is seen."""
    values = [1.0, 2.0, 1.0, "x"]
    grid = _Grid(values)
    kept = ColumnCodes()
    rows = np.array([1, 2, 3, 4, 1], dtype=np.int64)
    assert kept.of(grid, 0, rows, 1).tolist() == [0, 1, 0, 2, 0]
    first = kept.kept[(0, 1, 1, 4)]
    assert kept.of(grid, 0, rows, 1).tolist() == [0, 1, 0, 2, 0]
    assert kept.kept[(0, 1, 1, 4)] is first  # the same objects: not factorised again
    grid.a[1, 0] = 1  # an int equal to 1.0: another type, another code
    assert kept.of(grid, 0, rows, 1).tolist() == [0, 1, 0, 2, 0]
    grid.a[1, 0] = 1.0 + 0.0 * len(values)  # an equal float, another object
    assert kept.of(grid, 0, rows, 1).tolist() == [0, 0, 0, 1, 0]
    grid.a[3, 0] = -0.0
    assert kept.of(grid, 0, rows, 1) is None


def _column(values):
    col = np.empty((len(values), 1), dtype=object)
    col[:, 0] = values
    return col


def _same_values(a, b):
    return all(x is y or (type(x) is type(y) and (x == y or x != x and y != y))
               for x, y in zip(a.reshape(-1).tolist(), b.reshape(-1).tolist()))


class _Notes:
    def __init__(self):
        self.seen = []

    def __call__(self, k, err):
        self.seen.append((k, err.code, err.reason))


@pytest.mark.parametrize("seed", range(40))
def test_zvmplan_function_with_codes_agrees_with_the_general_path(seed):
    """CPCPU_PER_MB over columns of transports, sizes and levels (text, numbers, text
    that reads as a number, TRUE, the empty cell, errors): the same value and the same
    reason in every cell with the grid's codes as without."""
    rng = random.Random(seed)
    n = rng.randint(8, 60)
    fn = resolve("CPCPU_PER_MB")
    pools = [["IUCV", "VCTC", "GUEST_LAN", "", sh.EMPTY, XL["#N/A"], "iucv", 1.0],
             [9000.0, 1500, "9000", sh.EMPTY, True, 32764.0, XL["#VALUE!"], _NAN, 9000],
             ["3.1.0", "5.1.0", sh.EMPTY, "", 4.4, "4.4.0"]]
    inputs = ["T", "S", "L"]
    values, codes = {}, {}
    for name, pool in zip(inputs, pools):
        grid, rows, col = _gathered(rng, pool, rng.randint(1, 12), n)
        values[name] = _column(col)
        grid_codes = strict_codes(grid)
        codes[name] = (lambda c=grid_codes, r=rows: None if c is None else c[r - 1])
    column = dict.fromkeys(inputs, REF_COLUMN)
    want_notes, got_notes = _Notes(), _Notes()
    want = _zvmplan_column(fn, inputs, values, column, n, want_notes, [])
    got = _zvmplan_column(fn, inputs, values, column, n, got_notes, [], codes)
    assert want is not None and got is not None
    assert _same_values(got, want)
    assert got_notes.seen == want_notes.seen


def _describe(*args):
    """A pure step that tells its arguments apart by type and value, element by element."""
    return np.frompyfunc(lambda *v: repr([(type(x).__name__, x) for x in v]),
                         len(args), 1)(*args)


@pytest.mark.parametrize("seed", range(60))
def test_distinct_and_per_distinct_with_codes_agree_with_the_general_paths(seed):
    """An elementwise step (strict, and as a lookup) and a step called per combination:
    the same value in every cell, and the same calls, with the grid's codes as without."""
    rng = random.Random(seed)
    n = rng.randint(8, 60)
    few = rng.sample(_POOL, 5)
    grid, rows, col = _gathered(rng, few, rng.randint(1, 10), n)
    other = _column([rng.choice(few) for _ in range(n)])
    args = [_column(col), other]
    grid_codes = strict_codes(grid)

    def code():
        return None if grid_codes is None else grid_codes[rows - 1]
    for name in ("=", "MATCH"):
        want = _distinct(name, _describe, args, [True, True], n)
        got = _distinct(name, _describe, args, [True, True], n, [code, None])
        assert (want is None) == (got is None)
        if want is not None:
            assert _same_values(got, want)
    def step(a, b):
        return repr([(type(x).__name__, x) for x in (a[0, 0], b)])
    values = {"A": args[0], "B": other}
    column = {"A": REF_COLUMN, "B": 2}  # a column of single cells, a column of literals
    want = _per_distinct(step, ["A", "B"], values, column, n, _Notes())
    got = _per_distinct(step, ["A", "B"], values, column, n, _Notes(), {"A": code})
    assert _same_values(got[0], want[0]) and got[1] == want[1]


def _literal_arg_general(cell_lits, x, n):
    """The rule value by value: literal ``x`` is one value when every cell holds the
    same object or an equal one of the same type, else a column of each cell's."""
    lits = [t[x] for t in cell_lits]
    first = lits[0]
    if lits.count(first) == n and set(map(type, lits)) == {type(first)}:
        return first, 0
    col = np.empty((n, 1), dtype=object)
    col[:, 0] = lits
    return col, LIT_COLUMN


@pytest.mark.parametrize("seed", range(100))
def test_literals_looked_at_once_per_tuple_agree_with_each_cell(seed):
    """Cells sharing tuples of literals (a run of a column shares one; tuples equal but
    not the same object; 1, 1.0 and TRUE; "1" and 1; errors; NaN): each literal is one
    value or a column exactly as looking at every cell says, holding the same objects."""
    from zvmplan_addin.recalc.columns import _literal_arg, _literal_tuples
    rng = random.Random(seed)
    width = rng.randint(1, 4)
    pool = [1, 1.0, True, "1", "IUCV", "", XL["#N/A"], _NAN, 1000, 9000.0]
    shapes = [tuple(rng.choice(pool) for _ in range(width))
              for _ in range(rng.randint(1, 4))]
    shapes += [tuple(shapes[0])]  # equal to the first, another object
    n = rng.randint(1, 40)
    cell_lits = [rng.choice(shapes) for _ in range(n)]
    tuples, which = _literal_tuples(cell_lits)
    assert [tuples[k] for k in which.tolist()] == cell_lits
    for x in range(width):
        want, want_kind = _literal_arg_general(cell_lits, x, n)
        got, got_kind = _literal_arg(tuples, which, x)
        assert got_kind == want_kind
        if want_kind:
            assert all(a is b for a, b in zip(got[:, 0].tolist(), want[:, 0].tolist()))
            assert got.shape == (n, 1)
        else:
            assert got is want


class _Block:
    """A dense grid of ``rows`` x ``cols`` values."""
    dense = True

    def __init__(self, a):
        self.a, (self.rows, self.cols) = a, a.shape


@pytest.mark.parametrize("seed", range(80))
def test_row_ranges_with_codes_call_a_step_as_the_row_keys_do(seed):
    """A range of one row per cell (``$V10:$AB10``, COUNTIF or MINIFS over it): the
    grid's codes of its columns combined give the calls and the values the rows' own
    keys give -- rows equal value by value and type by type share a call; -0.0 or a
    new error object in a column keeps the general path."""
    from zvmplan_addin.recalc.columnar.vectors import ROWS_COLUMN, RowRanges
    rng = random.Random(seed)
    w, height = rng.randint(1, 4), rng.randint(1, 12)
    pool = rng.sample(_POOL, 4) + [sh.EMPTY] + ([-0.0] if seed % 7 == 0 else [])
    a = np.empty((height, w + 1), dtype=object)
    for r in range(height):
        for c in range(w + 1):
            a[r, c] = rng.choice(pool)
    grid = _Block(a)
    n = rng.randint(8, 40)
    rows = np.array(sorted(rng.randint(1, height) for _ in range(n)), dtype=np.int64)
    ranges = RowRanges("S", grid, rows, 2, w + 1)
    kept = ColumnCodes()

    def run(codes):
        calls = []

        def step(r):
            calls.append(1)
            return repr([(type(v).__name__, v) for v in r.value.reshape(-1).tolist()])
        got = _per_distinct(step, ["R"], {"R": ranges}, {"R": ROWS_COLUMN}, n, _Notes(),
                            codes)
        return got, len(calls)
    (want, kind), want_calls = run(None)
    (got, got_kind), got_calls = run({"R": lambda: kept.of_rows(grid, 0, rows, 2, w + 1)})
    assert (got_kind, got_calls) == (kind, want_calls)
    assert _same_values(got, want)


_VALUES = [0.0, 1.0, -2.5, 1e308, 9000, True, False, "", "1", "IUCV", XL["#N/A"],
           XL["#DIV/0!"], sh.EMPTY, float("inf"), _NAN, "x" * 40000]


@pytest.mark.parametrize("seed", range(120))
def test_steps_said_plain_give_plain_columns(seed):
    """What :data:`PLAIN_RESULTS` promises, on numbers, TRUE/FALSE, text, errors, the
    empty cell, overflow (1e308*10), NaN and infinity: every column those steps give
    through numpy holds finite numbers, TRUE/FALSE, errors and text within Excel's
    limit, and no empty cell."""
    from zvmplan_addin.recalc.columnar.numeric import PLAIN_RESULTS, _fast, _plain_results
    rng = random.Random(seed)
    n = rng.randint(1, 30)
    numbers = [0.0, 1.0, -2.5, 1e308, 9000, sh.EMPTY, 10.0]
    for name in sorted(PLAIN_RESULTS):
        pool = _VALUES if name == "IF" else numbers
        arity = 1 if name in ("u-", "U-", "%") else rng.choice([2, 3]) if name == "IF" else 2
        args = [_column([rng.choice(pool) for _ in range(n)]) for _ in range(arity)]
        got = _fast(name, args, n)
        if got is not None:
            flat = got.reshape(-1).tolist()
            assert _plain_results(flat) and not any(v is sh.EMPTY for v in flat)


@pytest.mark.parametrize("seed", range(150))
def test_if_over_columns_known_plain_agrees_with_looking_again(seed):
    """IF whose value columns are known plain (their ids given) picks the same objects,
    and refuses the same cases, as IF that looks at its result again; a known-plain
    column beside an empty cell, an infinity or text over the limit still looks."""
    from zvmplan_addin.recalc.columnar.numeric import _fast_if, _plain_results
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    plain_pool = [v for v in _VALUES if _plain_results([v]) and v is not sh.EMPTY]
    cond = _column([rng.choice([True, False, 1.0, 0.0, 2]) for _ in range(n)])
    x = _column([rng.choice(plain_pool) for _ in range(n)])
    y = rng.choice([_column([rng.choice(plain_pool) for _ in range(n)]),
                    _column([rng.choice(_VALUES) for _ in range(n)]),
                    rng.choice(_VALUES), "no"])
    known = {id(x)} | ({id(y)} if isinstance(y, np.ndarray) and
                       _plain_results(y.reshape(-1).tolist()) and
                       not any(v is sh.EMPTY for v in y.reshape(-1).tolist()) else set())
    want = _fast_if(cond, x, y, n=n)
    got = _fast_if(cond, x, y, n=n, plain=known)
    assert (got is None) == (want is None)
    if want is not None:
        assert all(a is b for a, b in zip(got[:, 0].tolist(), want[:, 0].tolist()))


class _Labels:
    """Node -> label, one by one and many at once (as :class:`~.read.Labels`)."""

    def __getitem__(self, i):
        return f"S!A{i}"

    def many(self, ids):
        return [self[i] for i in ids]


@pytest.mark.parametrize("seed", range(100))
def test_group_notes_skip_only_what_setdefault_would_not_change(seed):
    """A column run's notes (one at a time and in batches, cells noted again by a later
    step, cells with a reason from before the run): the reasons and their order are
    those of noting every pair with ``setdefault``."""
    from zvmplan_addin.errors import ExcelError
    from zvmplan_addin.recalc.columns import GroupNotes
    rng = random.Random(seed)
    n = rng.randint(1, 30)
    rest = rng.sample(range(100, 200), n)
    before = {f"S!A{i}": ("#N/A", "old") for i in rng.sample(rest, rng.randint(0, 3))}
    errors = [ExcelError(rng.choice(["#N/A", "#NUM!"]), f"why {j}") for j in range(4)]
    calls = []
    for _ in range(rng.randint(1, 6)):
        ks = sorted(rng.sample(range(n), rng.randint(0, n)))
        calls.append((rng.random() < 0.3, ks, [rng.choice(errors) for _ in ks]))
    want = dict(before)
    for _, ks, errs in calls:
        for k, e in zip(ks, errs):
            want.setdefault(f"S!A{rest[k]}", (e.code, e.reason))
    got = dict(before)
    notes = GroupNotes(got, _Labels(), rest)
    for one_by_one, ks, errs in calls:
        if one_by_one:
            for k, e in zip(ks, errs):
                notes(k, e)
        else:
            notes.many(ks, errs)
    assert list(got.items()) == list(want.items())


@pytest.mark.parametrize("seed", range(60))
def test_a_step_over_columns_a_step_made_uses_their_combinations_as_codes(seed):
    """A step called per combination over a column another such step gave (INDEX over
    ZVM_RANGE's arrays, a step over a result holding -0.0, NaN, errors, TRUE and 1):
    the combinations of the step that made it serve as codes, with the same calls and
    values as keying that column's values (or the arrays' identities) again."""
    from zvmplan_addin.recalc.columnar.vectors import ARRAY_COLUMN, STEP_COLUMN
    rng = random.Random(seed)
    n = rng.randint(8, 50)
    pool = [1.0, 1, True, -0.0, 0.0, _NAN, XL["#N/A"], "x", sh.EMPTY]
    base = _column([rng.choice(pool[:rng.randint(2, len(pool))]) for _ in range(n)])
    arrays = seed % 2 == 0
    shared = {}

    def first(a):  # an array per combination (one object shared), or the value itself
        v = a[0, 0]
        if not arrays:
            return v
        return shared.setdefault((type(v), repr(v)), np.array([[v, "band"]], dtype=object))

    def run(made):
        calls = []

        def second(a):
            calls.append(1)
            return repr(a) if arrays else repr((type(a).__name__, a))
        values, column = {"A": base}, {"A": REF_COLUMN}
        values["B"], column["B"] = _per_distinct(first, ["A"], values, column, n,
                                                 _Notes(), None, made)
        assert column["B"] == (ARRAY_COLUMN if arrays else STEP_COLUMN)
        got = _per_distinct(second, ["B"], values, column, n, _Notes(), None, made)
        return got, len(calls)
    (want, kind), want_calls = run(None)
    (got, got_kind), got_calls = run({})
    assert (got_kind, got_calls) == (kind, want_calls)
    assert _same_values(got, want)

"""The columnar engine's shortcuts for finding distinct combinations and noting reasons
give exactly what the general, value-by-value paths give: the same -0.0 verdict (a
column holding -0.0 is never factorised strictly, since Excel's =1/A2 tells -0.0 from
0.0 only through an operation), the same combinations in the same order, and the same
reason for each cell in the same order. The general paths are written out here as the
one-value-at-a-time definitions they replace."""
from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
import schedula as sh

from zvmplan_addin.errors import ExcelError
from zvmplan_addin.recalc.columnar.distinct import _factorize, _note_cells
from zvmplan_addin.recalc.columnar.keys import _NUMBER_TYPE, _negative_zero
from zvmplan_addin.recalc.values import XL


def _negative_zero_general(col) -> bool:
    """The definition: some value is the float -0.0."""
    return any(type(v) is float and v == 0.0 and math.copysign(1.0, v) < 0 for v in col)


def _factorize_general(columns, n, strict=False):
    """The definition: each cell's combination keyed value by value by its type (int as
    float unless ``strict``), combinations numbered in order of first appearance; None
    when strict and -0.0 is present."""
    if strict and any(map(_negative_zero_general, columns)):
        return None
    merge = {} if strict else _NUMBER_TYPE
    first, codes = {}, []
    for k in range(n):
        key = tuple((merge.get(type(c[k]), type(c[k])), c[k]) for c in columns)
        codes.append(first.setdefault(key, len(first)))
    picks = [0] * len(first)
    for k in reversed(range(n)):
        picks[codes[k]] = k
    return picks, codes


_NAN = float("nan")
_POOL = [0, 0.0, -0.0, 1, 1.0, True, False, 2.5, -2.5, "", "1", "a", "A", "#N/A",
         XL["#N/A"], XL["#VALUE!"], sh.EMPTY, _NAN, float("inf"), 10 ** 20, 1e20]


def _columns(seed):
    """Random mixed columns, and single-type columns (floats with zeros, text, TRUE/FALSE)."""
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    mixed = [rng.choice(_POOL) for _ in range(n)]
    floats = [rng.choice([0.0, -0.0, 1.0, 2.5, _NAN]) for _ in range(n)]
    plus = [rng.choice([0.0, 1.0, 2.5, 0, False]) for _ in range(n)]
    text = [rng.choice(["GUEST_LAN", "VSWITCH", "", "#N/A"]) for _ in range(n)]
    bools = [rng.choice([True, False]) for _ in range(n)]
    return n, [mixed, floats, plus, text, bools]


@pytest.mark.parametrize("seed", range(200))
def test_negative_zero_shortcut_agrees_with_the_definition(seed):
    """-0.0 is found among ints, FALSE, +0.0, errors, text and the empty cell, with and
    without the column's set of types given."""
    _, cols = _columns(seed)
    for col in cols:
        want = _negative_zero_general(col)
        assert _negative_zero(col) is want or _negative_zero(col) == want
        assert bool(_negative_zero(col, set(map(type, col)))) == want


def test_negative_zero_in_a_column_of_zeros_alone():
    """A column of +0.0, 0 and FALSE has no -0.0; one -0.0 anywhere is found; text that
    reads "-0" is text."""
    assert not _negative_zero([0.0] * 50 + [0, False])
    assert _negative_zero([0.0] * 50 + [-0.0] + [0, False])
    assert not _negative_zero(["-0", "-0.0", 0.0, sh.EMPTY])
    assert _negative_zero([XL["#N/A"], -0.0, "x"])
    assert not _negative_zero([1.0, 2.0], {float})
    assert not _negative_zero([-0.0], {str})  # the types given say: no float here


@pytest.mark.parametrize("seed", range(200))
@pytest.mark.parametrize("strict", [False, True])
def test_factorize_agrees_with_the_definition(seed, strict):
    """One, two and three columns of mixed kinds: the same combinations in the same
    order (1 and 1.0 one number unless strict; TRUE, "1" and the error apart)."""
    n, cols = _columns(seed)
    for chosen in ([cols[0]], [cols[1]], [cols[2]], [cols[3], cols[0]],
                   [cols[4], cols[2], cols[1]]):
        want = _factorize_general(chosen, n, strict)
        got = _factorize(chosen, n, strict)
        if want is None:
            assert got is None
        else:
            assert got[0].tolist() == want[0] and got[1].tolist() == want[1]


class _Recorder:
    """A note with ``many``: records what each path notes."""

    def __init__(self, batched):
        self.seen = []
        if batched:
            self.many = lambda ks, errs: self.seen.extend(
                (k, e.code, e.reason) for k, e in zip(ks, errs))

    def __call__(self, k, err):
        self.seen.append((k, err.code, err.reason))


@pytest.mark.parametrize("seed", range(50))
def test_batched_notes_agree_with_cell_by_cell(seed):
    """Each cell of a combination with a reason is noted once, in the order of the
    cells, with that combination's error, whether the note takes them in one call or
    one by one."""
    rng = random.Random(seed)
    m = rng.randint(1, 8)
    n = rng.randint(m, 80)
    inverse = np.array(list(range(m)) + [rng.randrange(m) for _ in range(n - m)])
    rng.shuffle(inverse)
    errors = {j: ExcelError(rng.choice(["#N/A", "#NUM!"]), f"why {j}")
              for j in range(m) if rng.random() < 0.5}
    want = [(k, errors[j].code, errors[j].reason) for k, j in enumerate(inverse.tolist())
            if j in errors]
    for batched in (False, True):
        rec = _Recorder(batched)
        _note_cells(rec, inverse, m, errors)
        assert rec.seen == want


def test_engine_labels_in_one_pass_are_the_labels_one_by_one():
    """``Labels.many`` gives each cell's ``Sheet!A1`` exactly as ``Labels[i]`` (quoted
    sheet names, columns past Z, a defined name's own name)."""
    from zvmplan_addin.recalc.read import Labels
    rows = [1, 10, 99999, 2, 7, 1048576, 3]
    cols = [1, 26, 27, 702, 703, 16384, 2]
    sheets = [0, 1, 0, 1, 0, 1, 0]
    labels = Labels(["Plan", "my sheet's"], sheets, rows, cols)
    ids = list(range(7))
    assert labels.many(ids) == [labels[i] for i in ids]
    assert labels.many(ids)[1] == "'my sheet''s'!Z10"
    labels.names[3] = "Rate"
    assert labels.many(ids) == [labels[i] for i in ids] and labels.many([3])[0] == "Rate"


def _row_keys_general(block):
    """The definition of a row's key: its values, each beside its type; None when a
    value is -0.0."""
    flat = block.reshape(-1).tolist()
    if _negative_zero_general(flat):
        return None
    return [tuple((type(v), v) for v in row) for row in block.tolist()]


def _same_partition(a, b):
    """Do two lists of keys put the same cells together, in the same order?"""
    first_a, first_b = {}, {}
    return [first_a.setdefault(k, len(first_a)) for k in a] == \
        [first_b.setdefault(k, len(first_b)) for k in b]


@pytest.mark.parametrize("seed", range(150))
def test_row_keys_shortcut_agrees_with_the_definition(seed):
    """A running row of cells per cell (``$V10:$AB10``): rows holding the same values
    of the same types (the empty cell only itself) share a key, in order, whatever the
    row width; -0.0 anywhere gives no keys."""
    from zvmplan_addin.recalc.columnar.vectors import RowRanges
    rng = random.Random(seed)
    n, w = rng.randint(0, 40), rng.randint(1, 4)
    few = rng.sample(_POOL, 4) + [sh.EMPTY, XL["#N/A"]]
    block = np.empty((n, w), dtype=object)
    for k in range(n):
        for c in range(w):
            block[k, c] = rng.choice(few)
    ranges = RowRanges.__new__(RowRanges)
    ranges.block = block
    got, want = ranges.keys(), _row_keys_general(block)
    if want is None:
        assert got is None
    else:
        assert len(got) == n and _same_partition(got, want)
        picks, inverse = _factorize([got], n, strict=True)
        want_picks, want_inverse = _factorize_general([[k for k in want]], n, strict=True)
        assert picks.tolist() == want_picks and inverse.tolist() == want_inverse


def test_the_empty_cell_is_keyed_apart_from_the_text_empty():
    """The empty cell is not the text "" nor the text "empty" (schedula's Token prints
    as its name): three combinations, and the same again after a row of each."""
    col = [sh.EMPTY, "", "empty", sh.EMPTY, "", 0.0, "empty"]
    for strict in (False, True):
        picks, inverse = _factorize([col], len(col), strict)
        assert picks.tolist() == [0, 1, 2, 5] and inverse.tolist() == [0, 1, 2, 0, 1, 3, 2]


def test_error_values_are_keyed_apart_from_their_text_and_each_other():
    """formulas' error values equal themselves alone: #N/A is not the text "#N/A", nor
    #NUM!, nor a new error object of the same code (Token equality is identity)."""
    from formulas.tokens.operand import XlError
    other = XlError("#N/A")  # not formulas' #N/A object: not equal to it
    col = [XL["#N/A"], "#N/A", XL["#NUM!"], XL["#N/A"], other, sh.EMPTY, other, 1.0]
    for strict in (False, True):
        picks, inverse = _factorize([col], len(col), strict)
        assert picks.tolist() == [0, 1, 2, 4, 5, 7]
        assert inverse.tolist() == [0, 1, 2, 0, 3, 4, 3, 5]
        want = _factorize_general([col], len(col), strict)
        assert (picks.tolist(), inverse.tolist()) == want


@pytest.mark.parametrize("seed", range(100))
def test_if_over_true_false_conditions_picks_as_element_by_element(seed):
    """IF over a column of TRUE/FALSE (bool, or numpy's from a comparison) picks each
    cell's own object from the value or the alternative, the empty cell as 0 (formulas'
    IF element by element): numpy's pick
    agrees with the element-by-element rule on text, errors, the empty cell and numbers,
    and so does the whole column step."""
    from zvmplan_addin.recalc.columnar.numeric import _any_if, _if_by_mask, _if_one
    rng = random.Random(seed)
    n = rng.randint(0, 50)
    pool = [v for v in _POOL if not (isinstance(v, float) and v != v)]
    cond = [rng.choice([True, False, np.True_, np.False_][:4 if seed % 2 else 2])
            for _ in range(n)]
    x = [rng.choice(pool) for _ in range(n)]
    y = [rng.choice(pool) for _ in range(n)]
    want = list(map(_if_one, cond, x, y))
    got = _if_by_mask(cond, x, y, n=n)
    assert len(got) == n
    assert all(a is b or (type(a) is type(b) and a == b) for a, b in zip(got, want))

    def column(values):
        col = np.empty((n, 1), dtype=object)
        col[:, 0] = values
        return col
    whole = _any_if(column(cond), column(x), column(y), n=n)
    if whole is not None:  # None: a result formulas turns into an error (inf): its call
        assert all(a is b or (type(a) is type(b) and a == b)
                   for a, b in zip(whole[:, 0].tolist(), want))


def _raw_general(flat):
    """The definition: each value converted on its own (_elem_from_formulas)."""
    from zvmplan_addin.recalc.install import _elem_from_formulas
    return [v if type(v) in (float, str, int) else _elem_from_formulas(v) for v in flat]


@pytest.mark.parametrize("seed", range(100))
def test_raw_column_shortcut_agrees_with_value_by_value(seed):
    """A zvmplan function's column argument: text and numbers as they are, TRUE/FALSE as
    they are, the empty cell None and each error an ExcelError of its code, the same as
    converting value by value; a token it does not know (a new XlError, #GETTING_DATA)
    goes value by value."""
    from formulas.tokens.operand import XlError
    from zvmplan_addin.recalc.columnar.distinct import _raw_column
    rng = random.Random(seed)
    n = rng.randint(0, 40)
    pool = _POOL + ([XlError("#N/A")] if seed % 3 == 0 else [])
    flat = [rng.choice(pool) for _ in range(n)]
    col = np.empty((n, 1), dtype=object)
    col[:, 0] = flat
    got, want = _raw_column(col), _raw_general(flat)
    assert len(got) == n
    for a, b in zip(got, want):
        assert type(a) is type(b) and (a is b or a == b or (a != a and b != b))
        if isinstance(a, ExcelError):
            assert (a.code, a.reason) == (b.code, b.reason)


def test_raw_column_of_an_error_code_excel_lacks_fails_as_value_by_value():
    """#GETTING_DATA (formulas' own) is no Excel error: the column conversion raises as
    the value-by-value one does (the column then goes cell by cell)."""
    from zvmplan_addin.recalc.columnar.distinct import _raw_column
    col = np.empty((2, 1), dtype=object)
    col[:, 0] = [XL["#N/A"], XL["#GETTING_DATA"]]
    with pytest.raises(ValueError):
        _raw_general(col[:, 0].tolist())
    with pytest.raises(ValueError):
        _raw_column(col)

"""COUNTIF/SUMIF-like criteria are tested once per distinct value of a range, and a
range handed again (the same array: the engine's range read by many totals) is not
gone through again; the cells picked are those the criterion's own test picks, one
value at a time, as Excel picks them (docs in addin/recalc/excel/criteria.py)."""
import numpy as np
import schedula as sh

from zvmplan_addin.recalc.excel import criteria
from zvmplan_addin.recalc.excel.values import XL

#: values a criteria range may hold: numbers (int, float, -0.0), their text, TRUE and
#: FALSE (never equal to 1 and 0 here), errors, empty cells and empty text
VALUES = [1, 1.0, True, "1", 0, -0.0, False, "0", "yes", "YES", "total only", "",
          sh.EMPTY, XL["#N/A"], XL["#DIV/0!"], "#N/A", 2.5, "2.5", "ß", "ss", "a*b", None]
CRITERIA = [1, "1", ">=0", "<1", "<>1", True, "TRUE", "<>FALSE", "yes", "y*", "?es",
            "<>yes", "", "=", "<>", "#N/A", XL["#N/A"], "ss", "a~*b", ">a", 0, "=0"]


def one_at_a_time(flat, criterion):
    hit = criteria.matcher(criterion)
    return [bool(hit(v)) for v in flat]


def test_picks_is_the_test_of_each_value():
    """Over a column of every kind of value, repeated and shuffled, each criterion picks
    exactly the cells its test picks one at a time (1, 1.0 and TRUE told apart)."""
    rng = np.random.default_rng(19)
    flat = [VALUES[k] for k in rng.integers(0, len(VALUES), 500)]
    for criterion in CRITERIA:
        assert criteria.picks(flat, criterion) == one_at_a_time(flat, criterion), criterion


def test_a_range_handed_again_is_not_gone_through_again(monkeypatch):
    """The same array twice: its distinct values are found once; a copy (another
    array with the same values) is found again, and both give the same counts."""
    calls = []
    real = criteria._distinct
    monkeypatch.setattr(criteria, "_distinct", lambda flat: calls.append(1) or real(flat))
    monkeypatch.setattr(criteria, "_RECENT", [])
    column = np.array([["yes"], ["no"], ["total only"], ["yes"], [sh.EMPTY]] * 40,
                      dtype=object)
    counts = [criteria.countif(column, c) for c in ("yes", "total only", "no", "<>")]
    assert counts == [80, 40, 40, 160]
    assert len(calls) == 1
    copy = column.copy()
    assert [criteria.countif(copy, c) for c in ("yes", "total only", "no", "<>")] == counts
    assert len(calls) == 2
    assert criteria.FUNCTIONS["SUMIFS"](np.arange(200, dtype=float).reshape(200, 1).astype(object),
                           column, "yes") == float(sum(range(0, 200, 5)) + sum(range(3, 200, 5)))
    assert len(calls) == 2


def test_a_small_range_is_not_kept(monkeypatch):
    monkeypatch.setattr(criteria, "_RECENT", [])
    criteria.countif(np.array([[1, 2, 3]], dtype=object), ">1")
    assert criteria._RECENT == []


def test_nothing_is_kept_after_the_range_is_gone(monkeypatch):
    """The memo holds its ranges weakly: once the engine lets a range's values go, its
    entry goes too (no memory kept after a run, no identity handed to another array)."""
    monkeypatch.setattr(criteria, "_RECENT", [])
    column = np.array([["yes"], ["no"]] * 50, dtype=object)
    assert criteria.countif(column, "yes") == 50
    assert len(criteria._RECENT) == 1
    del column
    import gc
    gc.collect()
    assert criteria._RECENT == []

"""The single-value shortcut around formulas' ``wrap_ufunc`` functions (``IF``, ``ABS``,
``ROUND`` ... :data:`zvmplan_addin.recalc.scalar.SCALAR_FUNCTIONS`) gives what the
function itself gives: the same result type, shape, dtype and attributes, each element of
the same type and value (errors the very same object), the same warnings, for every
function taken and many combinations of values -- numbers, -0.0, overflowing numbers,
TRUE/FALSE, texts that are and are not numbers, error values, empty cells -- each as a
plain value, a 0-d and a (1, 1) array and one cell's ``Ranges``. Excel computes these
functions on each cell's value; the results are formulas' (and zvmplan's Excel rules'),
unchanged: the shortcut only leaves out ``np.vectorize`` around one call."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import schedula as sh
from formulas.functions import get_functions, wrap_ufunc
from test_scalar_operators import BASE, _element, _forms

from zvmplan_addin.recalc import scalar
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.values import XL

# the numbers of arguments each function is tried with
ARITY = {"IF": (2, 3), "IFERROR": (2,), "IFNA": (2,), "_XLFN.IFNA": (2,), "NOT": (1,),
         "ABS": (1,), "SIGN": (1,), "INT": (1,), "TRUNC": (1, 2), "ROUND": (2,),
         "ROUNDUP": (2,), "ROUNDDOWN": (2,), "MOD": (2,), "SQRT": (1,), "EXP": (1,),
         "LN": (1,), "LOG10": (1,), "POWER": (2,), "LEFT": (1, 2), "RIGHT": (1, 2),
         "MID": (3,), "LEN": (1,), "UPPER": (1,), "LOWER": (1,), "EXACT": (2,),
         "FIND": (2, 3), "SEARCH": (2, 3), "SUBSTITUTE": (3, 4), "REPT": (2,),
         "CONCATENATE": (1, 2, 3), "_XLFN.CONCATENATE": (2,)}
# values for two and more arguments: numbers of each kind, texts, an error, an empty cell
PAIRS = [0, 1, -3, 2.5, -0.0, 1e308, 710, "", "empty", "abc", "aBc", "b", "2", " 2 ", True, False,
         XL["#N/A"], XL["#DIV/0!"], sh.EMPTY, np.float64(3.0), np.int64(2)]
TRIPLES = [0, 2, -1.5, 1e308, "", "empty", "abcb", "b", "1", True, XL["#N/A"], sh.EMPTY]


@pytest.fixture(scope="module")
def table():
    install_functions()
    return get_functions()


def _shortcut(entry):
    """The shortcut inside a table entry (under the wrappers put around it later)."""
    g = entry["function"] if isinstance(entry, dict) else entry
    while g is not None and getattr(g, "__code__", None) is not _SHORTCUT_CODE:
        g = getattr(g, "__wrapped__", None)
    return g


_SHORTCUT_CODE = scalar.scalar_operator(wrap_ufunc(lambda x: x)).__code__  # every shortcut's


def _described(result):
    """Type, shape, dtype, attributes and each element (a plain ndarray has no
    attributes: formulas' ``#VALUE!`` for an exception)."""
    if isinstance(result, np.ndarray):
        flat = np.ndarray.reshape(result, -1)
        return (type(result), result.shape, result.dtype, dict(getattr(result, "__dict__", {})),
                [_element(flat[k]) for k in range(flat.size)])
    return type(result), _element(result)


def _both(fast, *args):
    out = []
    for f in (fast, fast.__wrapped__):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with np.errstate(all="warn"):
                got = f(*args)
        out.append((_described(got), [w.category for w in caught]))
    return out


def test_the_functions_listed_are_taken_and_others_are_not(table):
    """Each function of the list is formulas' own and gets the shortcut; a function the
    list does not name (ATAN2, CHOOSE) or one zvmplan's Excel rules replaced (SUM) has
    none."""
    assert set(ARITY) == set(scalar.SCALAR_FUNCTIONS)
    for name in scalar.SCALAR_FUNCTIONS:
        assert getattr(table[name]["function"] if isinstance(table[name], dict) else
                       table[name], "_zvm_scalar", False), name
        assert _shortcut(table[name]) is not None, name
    for name in ("ATAN2", "CHOOSE", "SUM", "VLOOKUP"):
        entry = table[name]
        assert not getattr(entry["function"] if isinstance(entry, dict) else entry,
                           "_zvm_scalar", False), name
    assert scalar.install_functions(table) == []  # idempotent


@pytest.mark.parametrize("name", sorted(ARITY))
def test_functions_agree_with_formulas_own_path(table, name):
    fast = _shortcut(table[name])
    checked = 0
    for k in ARITY[name]:
        if k == 1:
            calls = [(form,) for v in BASE for form in _forms(v)]
        elif k == 2:
            calls = list(itertools.product(PAIRS, PAIRS))
            calls += [(f, g) for v, w in itertools.product(PAIRS[::3], PAIRS[1::3])
                      for f, g in zip(_forms(v)[1:], _forms(w)[1:])]
        else:
            calls = list(itertools.product(*[TRIPLES] * 3))
            if k == 4:
                calls = [c + (v,) for c in calls[::7] for v in (1, 2, "x", sh.EMPTY)]
            calls += [tuple(_forms(v)[3] for v in c) for c in calls[::11]]
        for args in calls:
            got, want = _both(fast, *args)
            assert got == want, (name, args)
            checked += 1
    assert checked > 100


def test_the_shortcut_is_taken_for_single_values(table, monkeypatch):
    """One value per argument never reaches np.vectorize; a column does, and gives
    formulas' own result."""
    calls = []
    real = np.vectorize

    class Counting(real):
        def __call__(self, *a, **k):
            calls.append(1)
            return super().__call__(*a, **k)

    monkeypatch.setattr(np, "vectorize", Counting)
    f = table["IF"]["function"]
    assert f(True, 1, 2)[()] == 1 and f(0, "a", "b")[()] == "b"
    assert table["ROUND"]["function"](2.345, 2)[()] == 2.35 if isinstance(
        table["ROUND"], dict) else table["ROUND"](2.345, 2)[()] == 2.35
    assert calls == []
    column = np.array([[True], [False]], dtype=object)
    got = f(column, 1, 2)
    assert calls and got.shape == (2, 1) and got[0, 0] == 1 and got[1, 0] == 2


def test_empty_cells_and_the_text_empty_in_every_form(table):
    """formulas' default argument parser makes an empty cell 0 (and leaves the text
    "empty" alone) in a plain value, a 0-d and a (1, 1) array and one cell alike; the
    shortcut does the same without building the arrays."""
    values = ("empty", sh.EMPTY, "", 0, "EMPTY")
    for name in ("IF", "LEN", "CONCATENATE", "ABS", "EXACT"):
        fast = _shortcut(table[name])
        k = max(ARITY[name])
        for v, w in itertools.product(values, values):
            for form in range(4):
                args = [_forms(v)[form]] + [_forms(w)[(form + j) % 4] for j in range(1, k)]
                got, want = _both(fast, *args)
                assert got == want, (name, args)

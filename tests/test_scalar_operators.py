"""The single-value shortcut around formulas' operators (``recalc/scalar.py``) gives what
the operator itself gives: the same result type, shape, dtype and attributes, each
element of the same type and value (errors the very same object), the same warnings,
over every operator and many pairs of values -- numbers, -0.0, overflowing numbers,
TRUE/FALSE, texts that are and are not numbers, error values, empty cells -- each as a
plain value, a 0-d and a (1, 1) array and one cell's ``Ranges``; and anything else
(a column, a range of several cells, a ``Ranges`` subclass) is handed to the operator
itself. Excel computes each operator on each cell's value; these are formulas' (and
zvmplan's Excel rules') results, unchanged."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
import schedula as sh
from formulas.functions import Array
from formulas.functions.info import TrueArray
from formulas.functions.operators import OPERATORS
from formulas.ranges import Ranges

from zvmplan_addin.recalc import scalar
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.values import XL

BASE = [0, 1, -3, 2.5, -0.0, 0.1 + 0.2, 0.3, 1e308, -1e308, 1e-320, 1.7976931348623157e308,
        -1.7976931348623157e308, "1e400", "1.79769313486232e+308", 10, 0.5, -2, True, False, "", "abc",
        "ABC", "1,234", " 2 ", "TRUE", "1e3", "-0", XL["#DIV/0!"], XL["#N/A"], XL["#VALUE!"],
        sh.EMPTY, np.float64(3.0), np.float64("nan"), np.int64(2), np.bool_(True)]
FEW = [0, 2.5, -0.0, "abc", "1e3", True, XL["#N/A"], sh.EMPTY, 1e308]
BINARY = ["+", "-", "*", "/", "^", "&", "=", "<>", "<", ">", "<=", ">="]
UNARY = ["U-", "U+", "%", "U--"]


def _forms(v) -> list:
    """``v`` as a plain value, a 0-d object array, a (1, 1) object Array and one cell."""
    cell = np.empty((1, 1), dtype=object)
    cell[0, 0] = v
    zero = np.empty((), dtype=object)
    zero[()] = v
    return [v, zero.view(Array), cell.view(Array),
            Ranges().push("SHEET1!B2", cell.copy())]


def _element(x):
    """A comparable form of one value: its type and its value (NaN and -0.0 kept
    apart, errors by identity)."""
    if isinstance(x, float) and math.isnan(x):
        return type(x), "nan"
    if isinstance(x, float):
        return type(x), repr(float(x))
    if isinstance(x, str) and type(x) is not str:  # formulas' error tokens, EMPTY
        return type(x), id(x)
    return type(x), x


def _described(result):
    if isinstance(result, np.ndarray):
        flat = np.ndarray.reshape(result, -1)
        return (type(result), result.shape, result.dtype, dict(vars(result)),
                [_element(flat[k]) for k in range(flat.size)])
    return type(result), _element(result)


def _both(name, *args):
    """(the shortcut's result, the operator's own), each with its warnings."""
    fast = OPERATORS[name]
    general = fast.__wrapped__
    out = []
    for op in (fast, general):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = op(*args)
        out.append((_described(got), [w.category for w in caught]))
    return out


@pytest.fixture(scope="module", autouse=True)
def _installed():
    install_functions()


def test_every_operator_formulas_makes_is_taken():
    """Each arithmetic, comparison and text operator has the shortcut (the wrappers are
    formulas' own); the reference operators (``,`` ``:`` and the intersection) have none."""
    for name in BINARY + UNARY:
        assert getattr(OPERATORS[name], "_zvm_scalar", False), name
    for name in (",", ":", " "):
        assert not getattr(OPERATORS[name], "_zvm_scalar", False), name


@pytest.mark.parametrize("name", BINARY)
def test_binary_operators_agree(name):
    """Every pair of plain values, and every form of each value against a few others
    (both ways round): the same result as the operator's own path."""
    pairs = list(itertools.product(BASE, BASE))
    for v in BASE:
        for w in FEW:
            for k, (form, other) in enumerate(zip(_forms(v), _forms(w))):
                pairs += [(form, other), (other, form), (form, w), (w, form)] if k else []
    for x, y in pairs:
        fast, general = _both(name, x, y)
        assert fast == general, (name, x, y)


@pytest.mark.parametrize("name", UNARY)
def test_unary_operators_agree(name):
    for v in BASE:
        for form in _forms(v):
            fast, general = _both(name, form)
            assert fast == general, (name, v)


def test_results_are_formulas_shapes():
    """What formulas gives, kept: a 0-d Array for plain values, (1, 1) when one operand
    is a (1, 1) array or one cell; errors from the operator as formulas' own objects."""
    assert OPERATORS["+"](1, 2).shape == () and float(OPERATORS["+"](1, 2)) == 3.0
    one = Ranges().push("SHEET1!A1", np.array([[4.0]], dtype=object))
    got = OPERATORS["-"](one, 1)
    assert type(got) is Array and got.shape == (1, 1) and got[0, 0] == 3.0
    assert OPERATORS["/"](1, 0)[()] is XL["#DIV/0!"]
    assert OPERATORS["&"]("a", 1)[()] == "a1"
    assert OPERATORS["="]("abc", "ABC")[()] is True


def test_anything_else_goes_the_general_way(monkeypatch):
    """Plain values and single cells never reach ``np.vectorize``, nor do a column and a
    range of several cells of plain numbers (:mod:`.arrayops` computes them whole); a
    column holding text, a float array, a ``Ranges`` subclass, an error or an overflow
    do (the operator itself), and give its own result."""
    class Sub(Ranges):
        pass

    column = np.array([[1], [2.5]], dtype=object).view(Array)
    two = Ranges().push("SHEET1!A1:A2", np.array([[1], [2]], dtype=object))
    sub = Sub().push("SHEET1!A1", np.array([[1]], dtype=object))
    floats = np.array([[1.0]])
    true = np.array([[True]], dtype=object).view(TrueArray)
    one = Ranges().push("SHEET1!A1", np.array([[4.0]], dtype=object))
    texts = np.array([[1], ["a"]], dtype=object).view(Array)
    general = [(texts, 1), (sub, 1), (floats, 1), (XL["#N/A"], 1), (1e308, 1e308),
               ("a", 2.5)]
    for args in general + [(true, 1), (one, 2), (column, 1), (two, 1)]:
        fast, own = _both("+", *args)
        assert fast == own, args
    real = np.vectorize
    vectorized = []

    def spy(*a, **k):
        vectorized.append(a)
        return real(*a, **k)
    monkeypatch.setattr(np, "vectorize", spy)
    for args in [(1, 2), (one, 2), (true, one), (2.5, "3"), (column, 1), (two, 1)]:
        OPERATORS["+"](*args)
    assert vectorized == []
    for args in general:
        OPERATORS["+"](*args)
    assert len(vectorized) == len(general)


def test_an_operator_of_other_wrappers_is_left_as_it_is():
    """An entry that is not formulas' three wrappers around ``wrap_ufunc`` (a plain
    function, formulas' reference operators) is returned unchanged."""
    def plain(x, y):
        return x + y
    assert scalar.scalar_operator(plain) is plain
    assert scalar.scalar_operator(OPERATORS[":"]) is OPERATORS[":"]
    assert scalar.scalar_operator(OPERATORS["+"]) is OPERATORS["+"]  # idempotent

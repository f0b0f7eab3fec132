"""The whole-array path of formulas' operators (``recalc/arrayops.py``) gives what the
operator itself gives element by element: the same result type, shape, dtype and each
element's type and value, over arrays of numbers (15-digit neighbours such as 0.1+0.2
and 0.3, -0.0, overflowing products), TRUE/FALSE, empty cells, texts in other cases,
numeric text and errors, as ranges and object arrays of several shapes, with a (1, 1)
array or a plain value beside them; what it does not compute (an error, text in
arithmetic, a division by zero, an overflow, mixed kinds in a comparison) goes the
operator's own way. Excel computes the operator on each element; these are the
engine's results, unchanged, ~50 times faster on a range of a thousand cells."""
from __future__ import annotations

import random

import numpy as np
import pytest
import schedula as sh
from formulas.functions import Array
from formulas.ranges import Ranges

from zvmplan_addin.recalc import arrayops
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.values import XL

from test_scalar_operators import _both

NUMBERS = [0, 1, -3, 2.5, -0.0, 0.1 + 0.2, 0.3, 1e308, 3e-320, 10, 7.0000000000000001e-5, 7e-5]
POOLS = {
    "numbers": NUMBERS,
    "with bools": NUMBERS + [True, False],
    "with empty": NUMBERS + [sh.EMPTY],
    "texts": ["abc", "ABC", "Abc ", "straße", "STRASSE", "x", "ı", "I", ""],
    "numeric text": NUMBERS + ["2", "abc"],
    "errors": NUMBERS + [XL["#N/A"]],
}
SHAPES = [(5, 1), (1, 4), (3, 2)]
BINARY = ["+", "-", "*", "/", "=", "<>", "<", ">", "<=", ">="]


@pytest.fixture(scope="module", autouse=True)
def _installed():
    install_functions()


def _array(values, shape, rng, as_range):
    a = np.empty(shape, dtype=object)
    a[...] = np.array([rng.choice(values) for _ in range(a.size)] + [None],
                      dtype=object)[:-1].reshape(shape)
    if as_range:
        return Ranges().push(f"SHEET1!A1:{chr(64 + shape[1])}{shape[0]}", a)
    return a.view(Array)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("pool", sorted(POOLS))
def test_binary_operators_on_arrays_agree(name, pool):
    rng = random.Random(f"{name}{pool}")
    values = POOLS[pool]
    for shape in SHAPES:
        for _ in range(12):
            x = _array(values, shape, rng, rng.random() < 0.5)
            y = _array(values, shape, rng, rng.random() < 0.5)
            one = np.empty((1, 1), dtype=object)
            one[0, 0] = rng.choice(values)
            for a, b in ((x, y), (x, rng.choice(values)), (rng.choice(values), y),
                         (x, one.view(Array)), (one.view(Array), y)):
                fast, general = _both(name, a, b)
                assert fast == general, (name, a, b)


@pytest.mark.parametrize("name", ["U-", "%"])
def test_unary_operators_on_arrays_agree(name):
    rng = random.Random(name)
    for pool in POOLS.values():
        for shape in SHAPES:
            fast, general = _both(name, _array(pool, shape, rng, True))
            assert fast == general


def test_the_whole_array_path_is_taken_for_plain_arrays():
    """Numbers against numbers, text against text: computed here; an error or text in
    arithmetic, a zero divisor, an overflow and ranges of two shapes: not."""
    col = np.array([[1.0], [2.0], [0.5]], dtype=object)
    texts = np.array([["a"], ["B"], ["c"]], dtype=object)
    got = arrayops.array_operator("*", (col, True), Array)
    assert got.tolist() == [[1.0], [2.0], [0.5]] and type(got[0, 0]) is float
    assert arrayops.array_operator("=", (texts, "b"), Array).tolist() == [[False], [True],
                                                                        [False]]
    assert arrayops.array_operator("=", (col, 0.5), Array)[2, 0] is True
    big = np.array([[1e308], [2.0], [3.0]], dtype=object)
    for name, args in (("+", (col, XL["#N/A"])), ("+", (texts, 1.0)), ("/", (col, 0.0)),
                       ("*", (big, 10.0)), ("=", (col, "a")),
                       ("+", (col, np.empty((2, 1), dtype=object)))):
        assert arrayops.array_operator(name, args, Array) is None, name


def test_sumproduct_of_plain_numbers_is_formulas_sum():
    """SUMPRODUCT over arrays of plain numbers takes a path without formulas' per-element
    steps: the very float formulas' own gives (its products, then numpy's sum of them),
    over many sizes and magnitudes; with TRUE, an empty cell, text or an error among
    them it is formulas' own way (text as 0)."""
    from formulas.functions.math import xsumproduct
    from zvmplan_addin.recalc.excel.coercion import sumproduct
    rng = np.random.default_rng(7)
    for size in (1, 3, 8, 9, 17, 130, 1000):
        for scale in (1.0, 1e-9, 1e15):
            x = (rng.normal(size=(size, 1)) * scale).astype(object)
            y = rng.integers(-5, 5, size=(size, 1)).astype(object)
            y[:, 0] = [int(v) for v in y[:, 0]]
            want = xsumproduct(x, y)
            got = sumproduct(x.view(Array), y.view(Array))
            assert type(got) is type(want) and got == want, (size, scale)
    mixed = np.array([[1.5], [True], [sh.EMPTY], ["5"]], dtype=object)
    assert sumproduct(mixed.view(Array), np.array([[2.0], [3.0], [4.0], [5.0]],
                                                  dtype=object).view(Array)) == 3.0

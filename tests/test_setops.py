"""zvmplan.setops: numpy's ``unique`` and ``isin``, without importing ``numpy.ma``."""
from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest

from zvmplan.setops import isin, unique

ARRAYS = [np.array([], dtype=np.int64), np.array([7]), np.array([3, 1, 3, 2, 1, 1]),
          np.array([-5, 2**62, -5, 0], dtype=np.int64), np.array([True, False, True]),
          np.array([4, 4, 4], dtype=np.int32), np.arange(50)[::-1] % 7,
          np.array([2.5, 1.0, 2.5]), np.array([[1, 2], [2, 1]])]  # (the last two: numpy's)


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_unique_is_numpys_unique(a):
    """Every combination of the three flags gives numpy's arrays, dtypes and shapes."""
    for flags in itertools.product((False, True), repeat=3):
        want, got = np.unique(a, *flags), unique(a, *flags)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for x, y in zip(got, want):
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)


@pytest.mark.parametrize("values", [np.array([]), np.array([2.0]), np.array([3, 1, 3, 2]),
                                    np.array([0.0, np.nan, 7.5, 1e300]), np.arange(40.0)],
                         ids=lambda v: f"{v.size}")
def test_isin_is_numpys_isin(values):
    """Membership as numpy finds it, by comparison: -0.0 is 0.0, NaN is in nothing,
    an integer array against float values, values beyond both ends."""
    for a in (np.array([]), np.array([-0.0, 0.0, 2.0, np.nan]), np.arange(-3, 45) * 1.0,
              np.array([1, 2, 3, 7]), np.array([-np.inf, np.inf, 1e300])):
        want, got = np.isin(a, values), isin(a, values)
        assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


def test_neither_imports_numpy_ma():
    code = ("import sys, numpy as np\n"
            "from zvmplan.setops import isin, unique\n"
            "unique(np.array([3, 1, 3]), True, True, True)\n"
            "isin(np.arange(100.0), np.arange(50.0))\n"
            "print('numpy.ma' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "False"

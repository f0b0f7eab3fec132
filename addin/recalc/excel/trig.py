"""SIN, COS and TAN near their zeros as Excel computes them.

Excel's trigonometric functions reduce the argument with pi rounded to the 64-bit
mantissa of the x87's extended precision (``0xC90FDAA22168C235 * 2**-62``, 5.0E-20
above pi: the FLDPI constant), not
with pi itself: ``COS(RADIANS(90))`` is 6.1257422745431E-17 in Excel, not the
6.123233995736766E-17 of a correctly reduced cosine, and ``SIN(RADIANS(180))``
1.22514845490862E-16 (Excel's values in Apache POI's test-data/spreadsheet/47813.xlsx,
Numbers!C92 and B182; each further multiple of pi/2 adds 2.5E-20 the same
way; "COS(RADIANS(90)) returns 6.12574E-17" is the answer people report from Excel
2007 on). The difference is only visible where the result is near 0; there the argument is
reduced here with that pi, exactly (fractions), and elsewhere numpy's values stand.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from formulas.functions import wrap_ufunc

#: pi rounded to the x87's 64-bit mantissa (FLDPI)
X87_PI = Fraction(0xC90FDAA22168C235, 2 ** 62)
_HALF_PI = X87_PI / 2
#: a result below this is recomputed with the x87 reduction
NEAR_ZERO = 1e-9


def _reduced(x: float):
    """(quadrant k mod 4, r) with x = k * pi_x87/2 + r, |r| <= pi/4, r rounded once."""
    k = round(Fraction(x) / _HALF_PI)
    return k % 4, float(Fraction(x) - k * _HALF_PI)


def x87_sin(x: float) -> float:
    k, r = _reduced(x)
    return (math.sin(r), math.cos(r), -math.sin(r), -math.cos(r))[k]


def x87_cos(x: float) -> float:
    k, r = _reduced(x)
    return (math.cos(r), -math.sin(r), -math.cos(r), math.sin(r))[k]


def x87_tan(x: float) -> float:
    k, r = _reduced(x)
    return math.tan(r) if k % 2 == 0 else -1.0 / math.tan(r)


def _near_zero_by(exact, plain):
    def func(x):
        y = plain(x)
        if np.ndim(y) == 0:
            y = float(y)
            return exact(float(x)) if math.isfinite(y) and abs(y) < NEAR_ZERO else y
        out = np.array(y, dtype=float)
        idx = np.flatnonzero(np.isfinite(out) & (np.abs(out) < NEAR_ZERO))
        flat, xs = out.reshape(-1), np.asarray(x, dtype=float).reshape(-1)
        for i in idx.tolist():
            flat[i] = exact(float(xs[i]))
        return out
    func.__name__ = plain.__name__
    return func


def install(table, put) -> None:
    table["SIN"] = wrap_ufunc(_near_zero_by(x87_sin, np.sin))
    table["COS"] = wrap_ufunc(_near_zero_by(x87_cos, np.cos))
    table["TAN"] = wrap_ufunc(_near_zero_by(x87_tan, np.tan))

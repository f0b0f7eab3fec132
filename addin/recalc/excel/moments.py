"""SKEW and SKEW.P computed in Excel's order of operations, so that a skewness that is
0 in exact arithmetic shows Excel's own rounding residue, not another one.

Microsoft's SKEW page: ``n / ((n-1)(n-2)) * sum(((x - mean) / s)^3)`` with ``s`` the
sample standard deviation; SKEW.P: ``sum(((x - mean) / sigma)^3) / n`` with ``sigma``
the population one. Excel computes the mean as the left-to-right sum over n, the
deviations' sum of squares in a second pass, each standardised deviation ``z`` once and
its cube as ``z*z*z``: for 0, 0.1, 0.2, 0.3, -0.1 that gives SKEW -1.1102230246251565E-15
and SKEW.P -6.217248937900876E-16, the values Excel saved in formulas' test.xlsx
(STATISTICAL!AH92, AH93; and -1.199040866595169E-15, -5.921189464667501E-16 for
0, 0.1, 0.1, 0.2, 0.2, 0.3 at R92, R93). formulas (scipy's moments) gave
-7.3E-16 and -4.9E-16. Fewer than 3 numbers (SKEW; 1 for SKEW.P) or no spread is
#DIV/0!. The arguments are read as the other aggregates read theirs
(:mod:`.coercion`: a range gives only its numbers, a direct value is coerced).
"""
from __future__ import annotations

import math

import numpy as np
from formulas.tokens.operand import XlError

from .coercion import numeric_arguments
from .values import XL, is_number


def _numbers(args):
    """The numbers of the (already coerced) arguments in order, or the first error."""
    out = []
    for a in args:
        flat = a.reshape(-1).tolist() if isinstance(a, np.ndarray) else [a]
        for v in flat:
            if isinstance(v, XlError):
                return v
            if is_number(v):
                out.append(float(v))
    return out


def _standardised_cubes(xs, ddof: int):
    """sum(z*z*z) for z = (x - mean) / s, s with ``ddof`` (1 sample, 0 population);
    None when s is 0."""
    n = len(xs)
    mean = sum(xs) / n
    ss = sum((x - mean) * (x - mean) for x in xs)
    s = math.sqrt(ss / (n - ddof))
    if s == 0:
        return None
    total = 0.0
    for x in xs:
        z = (x - mean) / s
        total += z * z * z
    return total


def skew(*args):
    xs = _numbers(args)
    if isinstance(xs, XlError):
        return xs
    n = len(xs)
    if n < 3:
        return XL["#DIV/0!"]
    cubes = _standardised_cubes(xs, 1)
    return XL["#DIV/0!"] if cubes is None else n / ((n - 1) * (n - 2)) * cubes


def skew_p(*args):
    xs = _numbers(args)
    if isinstance(xs, XlError):
        return xs
    if not xs:
        return XL["#DIV/0!"]
    cubes = _standardised_cubes(xs, 0)
    return XL["#DIV/0!"] if cubes is None else cubes / len(xs)


def install(table, put) -> None:
    for names, func in ((("SKEW", "_XLFN.SKEW"), skew),
                        (("SKEW.P", "_XLFN.SKEW.P"), skew_p)):
        for name in names:
            put(table, name, numeric_arguments(func, XL))

"""Statistics of a sample as Excel computes them: SKEW and SKEW.P in Excel's order of
operations, MODE, MODE.SNGL and MODE.MULT with Excel's reading of their arguments.

SKEW and SKEW.P: a skewness that is 0 in exact arithmetic shows Excel's own rounding
residue, not another one.

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

MODE, MODE.SNGL: the value occurring most often, the first to occur among equals; #N/A
when none occurs twice. MODE.MULT: every such value, in the order they first occur, as a
column (formulas answered #VALUE! for any MODE.MULT: ``MODE.MULT(F2:F10)`` is 2 in
ClosedXML's functions-excel-2010.xlsx, ``MODE.MULT(C87:I87)`` 8 in SheetJS's
formula_stress_test.xlsx). A range gives its numbers only. A value given directly must
be a number for the legacy MODE -- ``MODE(B8,"1",2,3)`` and ``MODE("1",1,#DIV/0!,2,3)``
are #VALUE! -- and a single empty cell given to it is #VALUE! too (``MODE(B9,2,D7)``
with D7 empty: Excel's values in NPOI's FormulaEvalTestData_Copy.xlsx,
EverythingTests!H936, K936, M936); MODE.SNGL and MODE.MULT coerce a direct value and
pass over empty text, and an argument left empty (``MODE.MULT(A1:A3,)``) is #VALUE!
(formulas' test.xlsx STATISTICAL!S71, AG69).
"""
from __future__ import annotations

import math

import numpy as np
import schedula as sh
from formulas.functions import Array
from formulas.tokens.operand import XlError

from .coercion import numeric_arguments, to_number
from .values import (LEFT_OUT, XL, is_collection, is_number, is_reference, single,
                     values_of)


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


def _mode_numbers(args, legacy: bool):
    """The numbers MODE reads from ``args`` in order, or the error it answers."""
    out = []
    for a in args:
        if is_collection(a) or is_reference(a):
            values = values_of(a)
            flat = values.reshape(-1).tolist()
            if legacy and len(flat) == 1 and flat[0] is sh.EMPTY:
                return XL["#VALUE!"]
            for v in flat:
                if isinstance(v, XlError):
                    return v
                if is_number(v):
                    out.append(float(v))
            continue
        v = single(a)
        if isinstance(v, XlError):
            return v
        if any(v is x for x in LEFT_OUT) or v is sh.EMPTY:
            return XL["#VALUE!"]
        if isinstance(v, str) and not legacy and v == "":
            continue
        if legacy and isinstance(v, str):
            return XL["#VALUE!"]
        x = to_number(v)
        if x is None or isinstance(x, XlError):
            return x if isinstance(x, XlError) else XL["#VALUE!"]
        out.append(float(x))
    return out


def _modes(xs) -> list:
    counts = {}
    for x in xs:
        counts[x] = counts.get(x, 0) + 1
    top = max(counts.values(), default=0)
    return [] if top < 2 else [x for x, c in counts.items() if c == top]


def mode(*args, legacy=False):
    xs = _mode_numbers(args, legacy)
    if isinstance(xs, XlError):
        return xs
    modes = _modes(xs)
    return modes[0] if modes else XL["#N/A"]


def legacy_mode(*args):
    return mode(*args, legacy=True)


def mode_mult(*args):
    xs = _mode_numbers(args, False)
    if isinstance(xs, XlError):
        return xs
    modes = _modes(xs)
    if not modes:
        return XL["#N/A"]
    out = np.empty((len(modes), 1), dtype=object)
    out[:, 0] = modes
    return out.view(Array)


def install(table, put) -> None:
    put(table, "MODE", legacy_mode)
    for name in ("MODE.SNGL", "_XLFN.MODE.SNGL"):
        put(table, name, mode)
    for name in ("MODE.MULT", "_XLFN.MODE.MULT"):
        put(table, name, mode_mult)
    for names, func in ((("SKEW", "_XLFN.SKEW"), skew),
                        (("SKEW.P", "_XLFN.SKEW.P"), skew_p)):
        for name in names:
            put(table, name, numeric_arguments(func, XL))

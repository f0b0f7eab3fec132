"""Functions that came from Excel's Analysis ToolPak add-in refuse a reference of several
cells where they take one value.

Excel computes them for an array but not for a range: in an array or dynamic-array
formula, ``=HEX2BIN(C26:J26)``, ``=YEARFRAC(C27:E27,D27:F27,E27:G27)`` and
``=MROUND(C45:G45,2)`` are ``#VALUE!`` in every cell of the result (Excel 365's cached
values in formulas' ``test/test_files/test.xlsx``, ENGINEERING!AH26:AN28,
'DATE & TIME'!AH27:AW27, 'MATH & TRIG'), as are BESSELI, EDATE, EOMONTH, ERF, ISEVEN,
the IM* functions ... there, which the engine already answered so; the well-known way
round it is an array (``=EDATE(A1:A10+0,1)``). formulas lifts these over the range's
cells, which gave a plausible value per cell. Here: the base conversions (BIN2DEC ...
OCT2HEX, one family in Excel), YEARFRAC and MROUND give ``#VALUE!`` when an argument is a
reference of more than one cell. (In a legacy formula a value parameter is intersected
before: :mod:`..legacy`.)"""
from __future__ import annotations

import functools

from formulas.ranges import Ranges

from ..values import range_cells
from .values import XL

#: the Analysis ToolPak functions handled here (see the module docstring)
REFUSING_RANGES = tuple(
    [f"{a}2{b}" for a in ("BIN", "DEC", "HEX", "OCT") for b in ("BIN", "DEC", "HEX", "OCT")
     if a != b] + ["YEARFRAC", "MROUND"])


def refusing_ranges(func):
    """``func`` giving #VALUE! when an argument is a reference of more than one cell."""
    @functools.wraps(func)
    def call(*args):
        if any(isinstance(a, Ranges) and range_cells(a) > 1 for a in args):
            return XL["#VALUE!"]
        return func(*args)
    return call


def install(table, put) -> None:
    for name in REFUSING_RANGES:
        entry = table.get(name)
        if callable(entry):
            put(table, name, refusing_ranges(entry))

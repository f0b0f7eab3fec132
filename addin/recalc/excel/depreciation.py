"""VDB as Excel computes it, fractional periods included.

Microsoft's VDB page: the declining-balance depreciation of each period is
``min(value * factor / life, value - salvage)``, and unless ``no_switch`` is TRUE the
method "switches to straight-line depreciation when depreciation is greater than the
declining balance calculation" (the straight line spreads ``value - salvage`` over the
life left). For whole periods that is formulas' (and LibreOffice's) answer. For a
fractional ``start_period``, Excel's saved values (xlcalculator's VDB.xlsx, cost 1,
salvage 0, life 14, factor 1.25) show that its periods are laid from the start's
fraction: the periods run ``f, f+1, f+2, ...`` with ``f = start - INT(start)``, the
value at ``f`` is the cost less ``f`` of the first period's declining balance, and the
switch to the straight line is decided on those periods. So ``VDB(1,0,14,3.5,4.5,1.25)``
is the straight line from 3.5, ``value(3.5) / 10.5`` = 0.06872629045468406, and
``VDB(1,0,14,13.5,14,1.25)`` half of it, 0.03436314522734203 (Excel's cells D27 and
F23); formulas and LibreOffice prorate the whole periods (0.0686678993837795 and
0.0343339496918897). A last period cut by ``end_period`` counts its share.
``start < 0``, ``end < start``, ``end > life``, ``life <= 0``, a negative cost or
salvage, or ``factor <= 0`` is #NUM!.
"""
from __future__ import annotations

import math

from formulas.tokens.operand import XlError

from .coercion import to_number
from .values import XL, first_value, is_left_out


def vdb_amount(cost: float, salvage: float, life: float, start: float, end: float,
               factor: float = 2.0, no_switch: bool = False) -> float:
    """The depreciation from ``start`` to ``end`` (periods, as the module docstring)."""
    rate = min(factor / life, 1.0)
    offset = start - math.floor(start)
    value = cost - offset * min(cost * rate, max(cost - salvage, 0.0))
    t, total, line = offset, 0.0, None
    while t < end - 1e-12:
        ddb = max(min(value * rate, value - salvage), 0.0)
        if line is None and not no_switch:
            left = life - t
            sl = (value - salvage) / left if left > 0 else 0.0
            if sl > ddb:
                line = sl
        step = line if line is not None else ddb
        lo, hi = max(t, start), min(t + 1.0, end)
        if hi > lo:
            total += step * (hi - lo)
        value -= step
        t += 1.0
    return total


def _number(a, default=None):
    v = first_value(a) if a is not None else None
    if v is None or is_left_out(v):
        if default is None:
            raise _Error(XL["#VALUE!"])
        return default
    if isinstance(v, XlError):
        raise _Error(v)
    x = to_number(v)
    if x is None or isinstance(x, XlError):
        raise _Error(x if isinstance(x, XlError) else XL["#VALUE!"])
    return float(x)


class _Error(Exception):
    def __init__(self, err):
        self.err = err


def vdb(cost, salvage, life, start_period, end_period, factor=None, no_switch=None):
    """VDB(cost, salvage, life, start_period, end_period, [factor], [no_switch])."""
    try:
        c, s, n = _number(cost), _number(salvage), _number(life)
        a, b = _number(start_period), _number(end_period)
        f = _number(factor, 2.0)
        ns = bool(_number(no_switch, 0.0))
    except _Error as e:
        return e.err
    if a < 0 or b < a or n <= 0 or b > n or c < 0 or s < 0 or f <= 0:
        return XL["#NUM!"]
    return vdb_amount(c, s, n, a, b, f, ns)


def install(table, put) -> None:
    put(table, "VDB", vdb)

"""VDB, the variable declining balance depreciation, as Excel computes it (formulas'
answered #VALUE! when the last period reached the life, and other values for a period
that starts or ends within a year).

``VDB(cost, salvage, life, start_period, end_period, [factor], [no_switch])``
(Microsoft's VDB page): the depreciation from ``start_period`` to ``end_period`` by the
declining balance at ``factor`` (default 2) times the straight-line rate, switching to
straight-line depreciation of what is left when that is larger, unless ``no_switch``.
#NUM! when ``start_period < 0``, ``end_period < start_period``, ``end_period > life``,
``cost < 0``, ``salvage > cost`` or ``factor <= 0``.

A start within a period: Excel's schedule then starts that fraction of a period in --
the asset after that fraction of its first period, depreciated from there in whole
periods, the switch to straight line counted on the life left -- and the depreciation
from start to end is read off it (found against every value of VDB.xlsx below; the
page does not say). The values Excel saved in xlcalculator's VDB.xlsx (life 14,
factor 1.25): ``VDB(1,0,14,0,0.5,1.25,FALSE)`` 0.044642857142857144,
``VDB(1,0,14,2.5,3.5,1.25,FALSE)`` 0.07074765193864536,
``VDB(1,0,14,13.5,14,1.25,FALSE)`` 0.03436314522734203, and (cost 575000, salvage
5000, life 10, factor 1.5) ``VDB(...,9,10,1.5)`` 49192.265625 after the switch.
"""
from __future__ import annotations

import math

from .lacking import _Error, _num, _scalar
from .values import XL, first_value, is_left_out
from .coercion import to_number

_TINY = 1e-12


def _near_int(x: float) -> float | None:
    r = round(x)
    return float(r) if abs(x - r) <= _TINY * max(1.0, abs(x)) else None


def _floor(x: float) -> float:
    r = _near_int(x)
    return r if r is not None else float(math.floor(x))


def _ceil(x: float) -> float:
    r = _near_int(x)
    return r if r is not None else float(math.ceil(x))


def _declining(book: float, salvage: float, life: float, factor: float) -> float:
    """One period's declining-balance depreciation of an asset whose book value is
    ``book``: ``book * factor / life`` (the whole book at a rate of 1 or more), never
    below 0 nor taking the book below the salvage value (DDB). The book value goes down
    period by period, ``book * rate`` each: Excel's last digits (SheetJS's
    formula_stress_test.xlsx Finance!B60 ``VDB(2400,300,3650,5,9)`` is
    5.24156794233124 so, 1E-13 off by powers of 1 - rate)."""
    rate = min(factor / life, 1.0)
    return max(min(book * rate, book - salvage), 0.0)


def _switching(cost: float, salvage: float, life: float, left: float, periods: float,
               factor: float, skip: int = 0) -> float:
    """Depreciation over the first ``periods`` periods (the last one a fraction when
    ``periods`` is not whole) of an asset worth ``cost`` with ``left`` periods of its life
    left, switching to straight line when that is more; the first ``skip`` periods left
    out of the sum (added one after the other, as Excel's last digits show)."""
    last = int(_ceil(periods))
    remaining = cost - salvage
    straight = None
    total = 0.0
    for i in range(1, last + 1):
        if straight is None:
            declining = _declining(remaining + salvage, salvage, life, factor)
            line = remaining / (left - (i - 1))
            if line > declining:
                term = straight = line
            else:
                term = declining
                remaining -= declining
        else:
            term = straight
        if i == last:
            term *= periods + 1.0 - last
        if i > skip:
            total += term
    return total


def _flag(a) -> bool:
    if a is None:
        return False
    v = first_value(a)
    if is_left_out(v):
        return False
    if isinstance(v, bool):
        return v
    x = to_number(v)
    if x is None:
        raise _Error(XL["#VALUE!"])
    return x != 0


@_scalar
def vdb(cost, salvage, life, start_period, end_period, factor=None, no_switch=None):
    cost, salvage, life = _num(cost), _num(salvage), _num(life)
    start, end = _num(start_period), _num(end_period)
    factor = _num(factor, 2.0)
    fixed = _flag(no_switch)
    if start < 0 or end < start or end > life or cost < 0 or salvage > cost or factor <= 0:
        return XL["#NUM!"]
    first, last = _floor(start), _ceil(end)
    if fixed:
        total, book = 0.0, cost
        for i in range(1, int(last) + 1):
            term = _declining(book, salvage, life, factor)
            book -= term
            if i <= first:
                continue
            if i == int(first) + 1:
                term *= min(end, first + 1.0) - start
            elif i == int(last):
                term *= end + 1.0 - last
            total += term
        return total
    # the schedule starts a fraction of a period in when the start does: the asset after
    # that fraction of its first period, depreciated from there in whole periods
    shift = 0.0 if _near_int(start) is not None else start - first
    value = cost - _switching(cost, salvage, life, life, shift, factor) if shift else cost

    return _switching(value, salvage, life, life - shift, end - shift, factor, int(first))

def install(table, put) -> None:
    put(table, "VDB", vdb)

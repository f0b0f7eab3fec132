"""Functions Excel has that formulas does not, among those common in workbooks:

* SEQUENCE(rows, [columns], [start], [step]): the numbers start, start+step, ... by
  rows (Microsoft's SEQUENCE page); a count below 1 is #CALC! in Excel, #VALUE! here
  (the engine has no #CALC!), with the reason;
* RANDARRAY([rows], [columns], [min], [max], [whole_number]): uniform numbers in
  [min, max), whole numbers from min to max inclusive when ``whole_number`` is TRUE;
  min above max is #VALUE! (Microsoft's RANDARRAY page);
* HYPERLINK(link_location, [friendly_name]): the cell shows ``friendly_name``, or the
  link when there is none (Microsoft's HYPERLINK page); the link itself is not
  followed.

And where formulas has the function: SORT's arguments left empty take their defaults
(``SORT(A1:A5,,-1)`` sorts by the first column, descending: EPPlus's
ArrayFormulas.xlsx B1:B5, saved by Excel, 5 4 3 2 1); formulas read them as 0, #VALUE!.
"""
from __future__ import annotations

import math

import numpy as np
import schedula as sh
from formulas.functions import Array
from formulas.tokens.operand import XlError

from .coercion import to_number
from .values import XL, error, first_value, is_collection, is_left_out, single, values_of

MAX_CELLS = 1_048_576 * 16_384  # a sheet


def _scalar(a, default):
    if a is None:
        return default
    v = first_value(a)
    if is_left_out(v):
        return default
    if isinstance(v, XlError):
        raise _Error(v)
    x = to_number(v)
    if x is None:
        raise _Error(XL["#VALUE!"])
    return float(x)


class _Error(Exception):
    def __init__(self, err):
        self.err = err


def _reason(err, reason):
    return error(str(err), reason)


def sequence(rows, columns=None, start=None, step=None):
    try:
        n = math.trunc(_scalar(rows, 1.0))
        m = math.trunc(_scalar(columns, 1.0))
        first, by = _scalar(start, 1.0), _scalar(step, 1.0)
    except _Error as e:
        return e.err
    if n < 1 or m < 1:
        return _reason(XL["#VALUE!"], "SEQUENCE: fewer than one row or column (#CALC! "
                                      "in Excel)")
    if n * m > MAX_CELLS:
        return _reason(XL["#NUM!"], "SEQUENCE: more cells than a sheet holds")
    out = first + by * np.arange(n * m, dtype=float).reshape(n, m)
    return out.astype(object).view(Array)


def randarray(rows=None, columns=None, low=None, high=None, whole=None):
    try:
        n = math.trunc(_scalar(rows, 1.0))
        m = math.trunc(_scalar(columns, 1.0))
        lo, hi = _scalar(low, 0.0), _scalar(high, 1.0)
        integer = bool(_scalar(whole, 0.0))
    except _Error as e:
        return e.err
    if n < 1 or m < 1:
        return _reason(XL["#VALUE!"], "RANDARRAY: fewer than one row or column (#CALC! "
                                      "in Excel)")
    if lo > hi:
        return XL["#VALUE!"]
    if integer:
        if lo != math.floor(lo) or hi != math.floor(hi):
            return XL["#VALUE!"]
        out = np.random.randint(int(lo), int(hi) + 1, size=(n, m)).astype(float)
    else:
        out = lo + (hi - lo) * np.random.rand(n, m)
    return out.astype(object).view(Array)


def hyperlink(link, friendly=None):
    shown = link if friendly is None or single(friendly) is sh.EMPTY and \
        not is_collection(friendly) else friendly
    v = single(values_of(shown)) if is_collection(shown) else single(shown)
    return 0.0 if v is sh.EMPTY else v


def _with_defaults(func, defaults: dict):
    """``func`` with each argument left empty (``F(1,,2)``, not an empty cell) given the
    default of ``defaults`` (position -> value)."""
    from .values import LEFT_OUT

    def call(*args):
        return func(*(defaults[k] if k in defaults and any(a is x for x in LEFT_OUT) else a
                      for k, a in enumerate(args)))
    call.__name__ = getattr(func, "__name__", "call")
    return call


def install(table, put) -> None:
    for name, func in (("SEQUENCE", sequence), ("RANDARRAY", randarray),
                       ("HYPERLINK", hyperlink)):
        put(table, name, func)
        table["_XLFN." + name] = table[name]
    sort = table.get("SORT")
    if callable(sort):
        table["SORT"] = _with_defaults(sort, {1: 1, 2: 1})
        for spelled in ("_XLFN._XLWS.SORT", "_XLWS.SORT", "_XLFN.SORT"):
            if table.get(spelled) is sort:
                table[spelled] = table["SORT"]

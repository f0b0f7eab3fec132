"""Approximate lookups and SWITCH as Excel answers them.

* MATCH with match_type 1 or -1, and LOOKUP, VLOOKUP and HLOOKUP with an approximate
  match, search by halving (Microsoft: "the values in the lookup_array must be placed
  in ascending order"; the search is binary, which is why unsorted data gives answers a
  linear scan does not). Among equal values the last is found (the largest position
  whose value is <= the lookup value), and values of another type than the lookup
  value (text among numbers, errors, empty cells) are passed over, so the idiom
  ``LOOKUP(2,1/(A1:A9="x"),B1:B9)`` finds the last "x". formulas scanned the values
  one by one and stopped at the first equal value. On unsorted data this search
  visits other positions than a scan; Microsoft does not publish the probes of its
  own search, so on unsorted data a result may still differ from Excel's.
* SWITCH compares text without regard to case (``SWITCH("a","A",1,2)`` is 1), as
  Excel's ``=`` does, and a number only with a number.
"""
from __future__ import annotations

import numpy as np
from formulas.functions import get_error, wrap_ufunc
from formulas.tokens.operand import XlError

from .numbers import compare_numbers
from .values import XL, is_number, is_text

_ORIGINAL = {}


def xmatch(lookup_value_type, lookup_value, lookup_value_raw, lookup_array_index,
           lookup_array_type, lookup_array, lookup_array_raw, match_type=1):
    """formulas' ``xmatch`` (same arguments), with a binary search for match_type 1
    and -1; exact matches (0) are formulas' own."""
    if not match_type:
        return _ORIGINAL["xmatch"](lookup_value_type, lookup_value, lookup_value_raw,
                                   lookup_array_index, lookup_array_type, lookup_array,
                                   lookup_array_raw, match_type)
    keep = lookup_array_type == lookup_value_type
    index = lookup_array_index[keep].tolist()
    array = lookup_array[keep].tolist()
    number = lookup_value_type == 0
    ascending = match_type > 0

    def before_or_at(x):  # x <= value (ascending), x >= value (descending)
        c = compare_numbers(x, lookup_value) if number else \
            (x > lookup_value) - (x < lookup_value)
        return c <= 0 if ascending else c >= 0

    lo, hi, best = 0, len(array) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        if before_or_at(array[mid]):
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    return XL["#N/A"] if best is None else index[best]


def _switch_equal(value, case) -> bool:
    if is_number(value):
        return is_number(case) and compare_numbers(float(value), float(case)) == 0
    if is_text(value):
        return is_text(case) and value.casefold() == case.casefold()
    if isinstance(value, (bool, np.bool_)):
        return isinstance(case, (bool, np.bool_)) and bool(value) == bool(case)
    return False


def switch(value, *args):
    """SWITCH(expression, value1, result1, ..., [default])."""
    for case, result in zip(args[::2], args[1::2]):
        if isinstance(case, XlError):
            return case
        if _switch_equal(value, case):
            return result
    return args[-1] if len(args) % 2 else XL["#N/A"]


def install(table, put) -> None:
    import formulas.functions.look as look
    from formulas.functions.look import args_parser_match_array
    if "xmatch" not in _ORIGINAL:
        _ORIGINAL["xmatch"] = look.xmatch
    look.xmatch = xmatch  # LOOKUP, VLOOKUP and HLOOKUP call it by this name
    match = wrap_ufunc(xmatch, check_error=lambda *a: get_error(a[1]),
                       excluded={3, 4, 5, 6, 7}, args_parser=args_parser_match_array,
                       input_parser=lambda *a: a)
    match._zvm_excel = True
    table["MATCH"] = match
    entry = wrap_ufunc(switch, input_parser=lambda *a: a,
                       check_error=lambda first, *a: get_error(first))
    entry._zvm_excel = True
    table["SWITCH"] = table["_XLFN.SWITCH"] = {"function": entry}

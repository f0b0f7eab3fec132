"""SUBTOTAL and AGGREGATE, which formulas lacks: an aggregate of references that leaves
out hidden rows, rows a filter hid, and the cells that are themselves SUBTOTAL or
AGGREGATE.

SUBTOTAL(function_num, ref1, [ref2], ...) (Microsoft's SUBTOTAL page): 1-11 are
AVERAGE, COUNT, COUNTA, MAX, MIN, PRODUCT, STDEV, STDEVP, SUM, VAR, VARP over the
references, including the rows hidden by hand; 101-111 the same functions leaving those
rows out; "filtered-out cells are always excluded"; "if there are other subtotals
within ref1, ref2,... (or nested subtotals), these nested subtotals are ignored to
avoid double counting"; a function_num outside 1-11 and 101-111 is #VALUE!; a hidden
column never matters ("designed for columns of data, or vertical ranges").

AGGREGATE(function_num, options, ref1, [ref2], ...) for function_num 1-13 (AVERAGE,
COUNT, COUNTA, MAX, MIN, PRODUCT, STDEV.S, STDEV.P, SUM, VAR.S, VAR.P, MEDIAN,
MODE.SNGL) and AGGREGATE(function_num, options, array, k) for 14-19 (LARGE, SMALL,
PERCENTILE.INC, QUARTILE.INC, PERCENTILE.EXC, QUARTILE.EXC) (Microsoft's AGGREGATE
page): options 0 (or left out) ignores nested SUBTOTAL and AGGREGATE; 1 hidden rows and
nested; 2 error values and nested; 3 hidden rows, error values and nested; 4 nothing;
5 hidden rows; 6 error values; 7 hidden rows and error values. The reference form takes
references only ("invalid types: actual data, arrays", the WorksheetFunction.Aggregate
page): anything else is #VALUE!. The array form takes a computed array too, and then
"doesn't ignore hidden rows, nested subtotals or nested aggregates" (only error
values); a missing k is #VALUE!. A row a filter hid counts as hidden for AGGREGATE's
options (its page speaks of hidden rows only).

Which rows are hidden, and by whom, is :class:`~..facts.BookFacts`' rule. Each kept
value reaches the aggregate as a reference's would (only numbers count), by the
function of formulas' table that Excel's other rules (:mod:`.coercion`) already
follow.
"""
from __future__ import annotations

import math

import numpy as np
import schedula as sh
from formulas.functions import Array
from formulas.ranges import Ranges
from formulas.tokens.operand import XlError

from ..facts import current
from .coercion import to_number
from .values import error, is_left_out, single, values_of

SUBTOTAL_FUNCTIONS = {1: "AVERAGE", 2: "COUNT", 3: "COUNTA", 4: "MAX", 5: "MIN",
                      6: "PRODUCT", 7: "STDEV", 8: "STDEVP", 9: "SUM", 10: "VAR",
                      11: "VARP"}
AGGREGATE_FUNCTIONS = {1: "AVERAGE", 2: "COUNT", 3: "COUNTA", 4: "MAX", 5: "MIN",
                       6: "PRODUCT", 7: "STDEV.S", 8: "STDEV.P", 9: "SUM", 10: "VAR.S",
                       11: "VAR.P", 12: "MEDIAN", 13: "MODE.SNGL"}
AGGREGATE_ARRAY_FUNCTIONS = {14: "LARGE", 15: "SMALL", 16: "PERCENTILE.INC",
                             17: "QUARTILE.INC", 18: "PERCENTILE.EXC", 19: "QUARTILE.EXC"}
#: AGGREGATE's options -> (ignore hidden rows, ignore error values, ignore nested)
AGGREGATE_OPTIONS = {0: (False, False, True), 1: (True, False, True),
                     2: (False, True, True), 3: (True, True, True),
                     4: (False, False, False), 5: (True, False, False),
                     6: (False, True, False), 7: (True, True, False)}

_TABLE: list = []   # formulas' function table, for the aggregates themselves


class _Error(Exception):
    def __init__(self, err):
        self.err = err


def _whole_number(a, what: str) -> int:
    """A function_num or options argument as a whole number (truncated, as Excel
    does); an error is that error; text that is not a number is #VALUE!."""
    v = single(values_of(a)) if isinstance(a, (Ranges, np.ndarray)) else a
    if isinstance(v, XlError):
        raise _Error(v)
    if is_left_out(v):
        v = 0.0
    x = to_number(v)
    if x is None or isinstance(x, XlError):
        raise _Error(error("#VALUE!", f"{what} is not a number"))
    return math.trunc(float(x))


def _kept(rng: Ranges, hidden: bool, nested: bool, errors: bool,
          aggregate: bool = False) -> np.ndarray:
    """The values of reference ``rng`` the aggregate takes, as a 2-D object array (a
    cell left out is an empty cell): without the rows hidden by hand (``hidden``), the
    rows a filter hid (always for SUBTOTAL; for AGGREGATE with ``hidden``), the cells
    calling SUBTOTAL or AGGREGATE (``nested``), the error values (``errors``).
    AGGREGATE over rows a filter hid with an option that keeps hidden rows is #VALUE!
    with the reason: Microsoft does not say whether Excel keeps them."""
    facts = current()
    parts = []
    for geom in rng.ranges:
        values = np.array(Ranges((geom,), rng.values).value, dtype=object, ndmin=2)
        if facts is not None:
            sheet = geom["sheet"]
            r1, c1 = int(geom["r1"]) or 1, int(geom["n1"]) or 1
            r2 = r1 + values.shape[0] - 1
            c2 = c1 + values.shape[1] - 1
            filtered = [r for r in facts.filtered_rows(sheet) if r1 <= r <= r2]
            if filtered and aggregate and not hidden:
                raise _Error(error("#VALUE!", "AGGREGATE over rows a filter hid, with an "
                                   "option that keeps hidden rows: Excel's rule is not "
                                   "published"))
            gone = filtered + ([r for r in facts.manual_rows(sheet) if r1 <= r <= r2]
                               if hidden else [])
            cells = [(r, c) for r, c in facts.subtotal_cells(sheet)
                     if r1 <= r <= r2 and c1 <= c <= c2] if nested else ()
            if gone or cells:
                values = values.copy()
                if gone:
                    values[[r - r1 for r in gone], :] = sh.EMPTY
                for r, c in cells:
                    values[r - r1, c - c1] = sh.EMPTY
        parts.append(values.reshape(1, -1))
    out = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
    if errors:
        out = _without_errors(out)
    return out


def _without_errors(values: np.ndarray) -> np.ndarray:
    flat = values.reshape(-1).tolist()
    if not any(isinstance(v, XlError) for v in flat):
        return values
    out = np.empty(len(flat), dtype=object)
    out[:] = [sh.EMPTY if isinstance(v, XlError) else v for v in flat]
    return out.reshape(values.shape)


def _reference(a, name: str):
    """``a`` if it is a reference; the first error it holds if it is an error or holds
    one (``#REF!:B4``); else #VALUE! (the reference forms of SUBTOTAL and AGGREGATE
    take references only)."""
    if isinstance(a, Ranges):
        return a
    flat = values_of(a).reshape(-1).tolist() if isinstance(a, np.ndarray) else [a]
    err = next((v for v in flat if isinstance(v, XlError)), None)
    if err is not None:
        raise _Error(err)
    raise _Error(error("#VALUE!", f"{name} takes references (ranges), not values or "
                                  "arrays"))


def _run(name: str, arrays: list, *more):
    """formulas' ``name`` (with Excel's rules installed) over ``arrays``, each read as a
    reference's values (one of fewer than two values padded with empty cells, which
    count for none of the functions: formulas reads a 1x1 array as a single value)."""
    func = _TABLE[0][name]
    args = []
    for arr in arrays:
        if arr.size < 2:
            pad = np.empty((1, 2), dtype=object)
            pad.fill(sh.EMPTY)
            pad[0, :arr.size] = arr.reshape(-1)
            arr = pad
        args.append(arr.view(Array))
    return func(*args, *more)


def subtotal(function_num, *refs):
    try:
        fn = _whole_number(function_num, "SUBTOTAL's function_num")
        hidden = fn > 100
        name = SUBTOTAL_FUNCTIONS.get(fn - 100 if hidden else fn)
        if name is None:
            return error("#VALUE!", f"SUBTOTAL's function_num {fn} is not 1-11 or 101-111")
        if not refs:
            return error("#VALUE!", "SUBTOTAL needs a reference")
        arrays = [_kept(_reference(r, "SUBTOTAL"), hidden, True, False) for r in refs]
    except _Error as e:
        return e.err
    return _run(name, arrays)


def aggregate(function_num, options, *args):
    try:
        fn = _whole_number(function_num, "AGGREGATE's function_num")
        opt = 0 if options is None else _whole_number(options, "AGGREGATE's options")
        if opt not in AGGREGATE_OPTIONS:
            return error("#VALUE!", f"AGGREGATE's options {opt} is not 0-7")
        hidden, errors, nested = AGGREGATE_OPTIONS[opt]
        if fn in AGGREGATE_FUNCTIONS:
            if not args:
                return error("#VALUE!", "AGGREGATE needs a reference")
            arrays = [_kept(_reference(r, "AGGREGATE"), hidden, nested, errors, True)
                      for r in args]
            return _run(AGGREGATE_FUNCTIONS[fn], arrays)
        if fn in AGGREGATE_ARRAY_FUNCTIONS:
            if len(args) != 2 or not isinstance(args[1], Ranges) and \
                    is_left_out(single(args[1])):
                return error("#VALUE!", f"AGGREGATE({fn}, ...) takes an array and k")
            array, k = args
            if isinstance(array, Ranges):
                values = _kept(array, hidden, nested, errors, True)
            else:   # a computed array: only its errors may be left out
                values = np.array(values_of(array), dtype=object, ndmin=2)
                if errors:
                    values = _without_errors(values)
            return _run(AGGREGATE_ARRAY_FUNCTIONS[fn], [values], k)
        return error("#VALUE!", f"AGGREGATE's function_num {fn} is not 1-19")
    except _Error as e:
        return e.err


def install(table, put) -> None:
    _TABLE[:] = [table]
    put(table, "SUBTOTAL", subtotal)
    put(table, "AGGREGATE", aggregate)
    table["_XLFN.AGGREGATE"] = table["AGGREGATE"]

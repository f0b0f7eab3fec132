"""Approximate lookups and SWITCH as Excel answers them.

* MATCH with match_type 1, and LOOKUP, VLOOKUP and HLOOKUP with an approximate
  match, search by halving, as Excel's do (match_type -1 reads from the first value
  on: :func:`descending_scan`) (Microsoft: "the values in the lookup_array
  must be placed in ascending order"; on data that is not, the answer is where the
  halving leads). The search (:func:`binary_search`) probes the middle of the range,
  rounded down; an equal value ends it, text as a number (Apache POI's
  FormulaEvalTestData_Copy.xlsx, saved by Excel: ``LOOKUP("DOUBLE",C6:G6,C9:G9)`` is
  C9, the first probe that holds "DOUBLE" once the search has dropped the right half,
  and ``HLOOKUP("STRING",$B$6:$H$12,6,TRUE)`` the column of "STRING", the first probe;
  the rule that equal text goes on to the right, taken from formulas' own expectation
  ``MATCH("ß",{"ß","ss"})`` 2, no workbook saved by Excel shows); a value of another
  type than the lookup value (text among numbers, an error, an empty cell) is passed
  over toward the larger values (to the right in ascending order, to the left in
  descending order) until a comparable one is found in the range, else that half is
  dropped. This reproduces every approximate MATCH/LOOKUP case of formulas' own tests
  (test/test_cell.py, which hold Excel's answers, e.g. ``MATCH(4.1,{4.1,"b","a",1.1})``
  4 but ``MATCH(4.1,{"b",4.1,"a",1.1})`` 2) and keeps the idioms:
  ``LOOKUP(2,1/(A1:A9="x"),B1:B9)`` finds the last "x", ``MATCH(9.99E+307,A:A)`` the last
  number. formulas scanned the values one by one.
* The searched row or column of a table is prepared once per table and evaluation pass
  (:mod:`.lookuptables`), for every cell and every column run that looks into it, and an
  exact match (match_type 0, FALSE; XLOOKUP and XMATCH in match mode 0) looks each value
  up in a hash index of it built once (the first position of each (type, value), text
  lower-cased as formulas compares it; the last for XLOOKUP/XMATCH searching from the
  end), not by a scan of the table per value; the answers are formulas' own (first
  match wins, a number never equals text or TRUE/FALSE); a lookup value with a wildcard
  (``*``, ``?``, ``~``; XLOOKUP/XMATCH in match mode 2) is scanned with the wildcards
  read as COUNTIF reads them (:func:`wildcard_scan`: ``~~`` a tilde, ``~*`` an
  asterisk), as Microsoft's "Using wildcard characters" lists them. An array a formula computes
  (``MATCH(1,(A:A="x")*(B:B="y"),0)`` down a column) has its index built per column run
  (:class:`ExactIndex`).
* VLOOKUP and HLOOKUP with a column or row number below 1 are #VALUE! when the value
  is found, #N/A when not (Microsoft's VLOOKUP page; Excel's saved values in EPPlus's
  FormulaTest.xlsx); formulas read 0 as the last column.
* LOOKUP's array form, ``LOOKUP(value, array)`` with a two-dimensional array
  (Microsoft's LOOKUP page): "if array covers an area that is wider than it is tall
  (more columns than rows), LOOKUP searches for the value of lookup_value in the first
  row"; if it "is square or is taller than it is wide (more rows than columns), LOOKUP
  searches in the first column", and the result is the same position's value in the
  last row or column, or in the result vector (which must be one row or column: Excel
  answers #N/A for a larger one). formulas searched the array's values in reading
  order and gave the value found.
* SWITCH compares text without regard to case (``SWITCH("a","A",1,2)`` is 1), as
  Excel's ``=`` does, and a number only with a number.
"""
from __future__ import annotations

import functools
import re

import numpy as np
from formulas.functions import get_error, wrap_ufunc
from formulas.tokens.operand import XlError

from .lookuptables import (INDEXED_TYPES, SCAN, TABLES, first_positions, match_arguments,
                           table_arguments, vector_arguments, xlookup_arguments,
                           xmatch_arguments)
from .criteria import wildcard_regex
from .numbers import compare_numbers
from .values import XL, is_number, is_text

_ORIGINAL = {}


def binary_search(value, value_type, values: list, types: list, ascending: bool):
    """The 0-based position Excel's approximate search finds for ``value`` (of formulas'
    type id ``value_type``) among ``values`` (type ids ``types``), or None."""
    number = value_type == 0

    def order(x) -> int:  # -1, 0, 1: x below, equal to, above the lookup value
        if number:
            return compare_numbers(x, value)
        return (x > value) - (x < value)

    lo, hi, best = 0, len(values) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        j = mid
        if ascending:
            while j <= hi and types[j] != value_type:
                j += 1
            if j > hi:
                hi = mid - 1
                continue
        else:
            while j >= lo and types[j] != value_type:
                j -= 1
            if j < lo:
                lo = mid + 1
                continue
        c = order(values[j])
        if c == 0:  # an equal value ends the search
            return j
        if ascending:
            if c < 0:
                best, lo = j, j + 1
            else:
                hi = mid - 1
        elif c > 0:
            best, lo = j, mid + 1
        else:
            hi = j - 1
    return best


def xmatch(lookup_value_type, lookup_value, lookup_value_raw, lookup_array_index,
           lookup_array_type, lookup_array, lookup_array_raw, match_type=1):
    """formulas' ``xmatch`` (same arguments: text already lower-cased), with Excel's
    binary search for match_type 1 and -1; exact matches (0) are formulas' own, from
    the searched vector's hash index when it is a prepared one (:mod:`.lookuptables`)
    or when many values are looked up in one table at once (:class:`ExactIndex`)."""
    vector = TABLES.known(lookup_array)
    if not match_type:
        if vector is not None:
            found = vector.find(lookup_value_type, lookup_value)
        else:
            found = _EXACT.find(lookup_value_type, lookup_value, lookup_array_index,
                                lookup_array_type, lookup_array)
        if found is not SCAN:
            return found
        if int(lookup_value_type) == 1 and any(w in lookup_value for w in "*?~"):
            return wildcard_scan(lookup_value_raw, lookup_array_index, lookup_array_type,
                                 lookup_array_raw)
        return _ORIGINAL["xmatch"](lookup_value_type, lookup_value, lookup_value_raw,
                                   lookup_array_index, lookup_array_type, lookup_array,
                                   lookup_array_raw, match_type)
    values, types = vector.lists() if vector is not None else \
        (lookup_array.tolist(), lookup_array_type.tolist())
    if match_type > 0:
        found = binary_search(lookup_value, int(lookup_value_type), values, types, True)
    else:
        found = descending_scan(lookup_value, int(lookup_value_type), values, types)
    return XL["#N/A"] if found is None else int(lookup_array_index[found])


def descending_scan(value, value_type, values: list, types: list):
    """The 0-based position MATCH with match_type -1 finds for ``value`` (of formulas'
    type id ``value_type``), or None: the values are read from the first while they are
    not smaller than ``value`` (values of another type passed over), an equal number or
    logical value ending the search; the last one read is the answer. Excel's values:
    pycel's lookup.xlsx (Lookup!C32:G32, ``MATCH(x,{0;1;2;3;4},-1)`` on ascending data is
    #N/A for 0.5, 2, 3 and 4.5, but 1 for 0, where a search by halving would answer
    5) and formulas' test_cell.py (``MATCH(4.1,{4.1,"b","a",5.1},-1)`` 1,
    ``MATCH(2.1,{4.1,2.1,3.1,1.1},-1)`` 2)."""
    number = value_type == 0
    best = None
    for j, (x, t) in enumerate(zip(values, types)):
        if t != value_type:
            continue
        c = compare_numbers(x, value) if number else (x > value) - (x < value)
        if c < 0:
            break
        if c == 0 and value_type != 1:
            return j
        best = j
    return best


@functools.lru_cache(maxsize=256)
def _lookup_pattern(pattern: str):
    return re.compile(wildcard_regex(pattern) + r"\Z", re.I | re.S).match


def wildcard_scan(pattern, positions, types, raw, last: bool = False):
    """The position of the first (``last``: the last) text matching ``pattern`` with
    Excel's wildcards, read as COUNTIF reads them (:func:`.criteria.wildcard_regex`:
    ``~`` takes the next character literally, so ``"gamma~~x"`` finds "gamma~x"), any
    case (compared as formulas compares it, without case folding: "ß?" does not match
    "ssa"); #N/A if none. formulas' own pattern left ``~~`` and ``~x`` as written."""
    match = _lookup_pattern(str(np.ravel(pattern)[0]))
    items = list(zip(positions.tolist(), types.tolist(), raw.tolist()))
    for position, kind, value in reversed(items) if last else items:
        if kind == 1 and match(value):
            return position
    return XL["#N/A"]


def xxmatch(lookup_value_type, lookup_value, lookup_value_raw, lookup_array_index,
            lookup_array_type, lookup_array, lookup_array_raw, match_mode=0, search_mode=1):
    """formulas' ``xxmatch`` (XMATCH and XLOOKUP; same arguments, text case-folded): an
    exact match (match mode 0) searching first to last (search mode 1) or last to first
    (-1) from the prepared vector's hash index, anything else formulas' own."""
    if lookup_value is not None and match_mode == 2 and search_mode in (1, -1) and \
            int(lookup_value_type) == 1:
        return wildcard_scan(lookup_value_raw, lookup_array_index, lookup_array_type,
                             lookup_array_raw, last=search_mode == -1)
    if lookup_value is not None and match_mode == 0 and search_mode in (1, -1):
        vector = TABLES.known(lookup_array)
        if vector is not None:
            found = vector.find(lookup_value_type, lookup_value, last=search_mode == -1)
            if found is not SCAN:
                return found
    return _ORIGINAL["xxmatch"](lookup_value_type, lookup_value, lookup_value_raw,
                                lookup_array_index, lookup_array_type, lookup_array,
                                lookup_array_raw, match_mode, search_mode)


def table_lookup(lookup_value_type, lookup_value, lookup_value_raw, lookup_array_index,
                 lookup_array_type, lookup_array, lookup_array_raw, match_type=1,
                 result_vec=None):
    """VLOOKUP and HLOOKUP (formulas' ``xlookup`` on :func:`.lookuptables.
    table_arguments`): with a column or row number below 1 (``result_vec`` None) a
    value found is #VALUE! (Microsoft's VLOOKUP page: "If col_index_num is less than 1,
    VLOOKUP returns the #VALUE! error value"; formulas read 0 as the last column) and a
    value not found #N/A, as Excel saved ``VLOOKUP(8,B3:B7,FALSE)`` and
    ``VLOOKUP(8,I10:I28,0,FALSE)`` in EPPlus's FormulaTest.xlsx."""
    r = xmatch(lookup_value_type, lookup_value, lookup_value_raw, lookup_array_index,
               lookup_array_type, lookup_array, lookup_array_raw, match_type)
    if isinstance(r, XlError):
        return r
    if result_vec is None:
        return XL["#VALUE!"]
    return np.asarray(result_vec[r - 1], object).ravel()[0]


class ExactIndex:
    """A hash index of the last lookup table an exact match searched that is not a
    prepared vector (an array a formula computed): (type id, value) -> the first
    position holding it. formulas hands each lookup value of one call the very same
    parsed table arrays, so the index is built on the second value looked up in them
    (a single lookup keeps formulas' one scan) and used for the rest; the arrays are
    held, so their identity cannot pass to another table."""

    def __init__(self):
        self.arrays: tuple = ()
        self.seen = 0
        self.index: dict | None = None

    def find(self, value_type, value, positions, types, values):
        """The position of the first (type, value) match in the table, #N/A if none, or
        :data:`~.lookuptables.SCAN` when formulas' scan must answer (the first value
        looked up in a table, a wildcard, an unhashable value)."""
        arrays = (positions, types, values)
        if len(self.arrays) != 3 or any(a is not b for a, b in zip(arrays, self.arrays)):
            self.arrays, self.seen, self.index = arrays, 0, None
        self.seen += 1
        if self.seen < 2:
            return SCAN
        vtype = int(value_type)
        if vtype not in INDEXED_TYPES or vtype == 1 and any(w in value for w in "*~?"):
            return SCAN  # a wildcard (formulas' pattern match), an empty lookup value
        if self.index is None:
            self.index = first_positions(positions, types, values)
            if self.index is None:
                return SCAN
        try:
            found = self.index.get((vtype, value))
        except TypeError:
            return SCAN
        return XL["#N/A"] if found is None else positions[found - 1]  # as the scan gives it


_EXACT = ExactIndex()


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


def lookup_arguments(lookup_value, lookup_vector, result_vector=None, match_type=1):
    """formulas' LOOKUP arguments: a two-dimensional array searched in its first row
    (a wide array) or column (a square or tall one), answering from its last row or
    column, or from ``result_vector``; a ``result_vector`` of more than one row and
    column answers #N/A (Excel's saved values in pycel's lookup.xlsx). The searched
    vector is prepared once per array (:mod:`.lookuptables`)."""
    array = np.asarray(lookup_vector, dtype=object)
    searched = None
    if array.ndim == 2 and min(array.shape) > 1:
        wide = array.shape[1] > array.shape[0]
        searched = ("row", 0) if wide else ("col", 0)
        if result_vector is None:
            result_vector = array[-1, :] if wide else array[:, -1]
    if result_vector is not None:
        result = np.asarray(result_vector, dtype=object)
        if result.ndim == 2 and min(result.shape) > 1:
            na = np.empty(result.size, dtype=object)
            na.fill(XL["#N/A"])  # np.full would make the error a plain str
            result = na
    result = np.ravel(array if result_vector is None else result)
    return vector_arguments(lookup_value, lookup_vector, searched, match_type) + (result,)


def areas(ref):
    """AREAS: the number of areas of a reference -- 1 for one cell handed over from a
    column of single-cell references (a :class:`~.values.CellSlice`; formulas read its
    ``ranges`` and answered #VALUE!, e.g. ``=AREAS(J4)`` filled along a row, Excel 1 in
    formulas' test.xlsx LOOKUP!Y4:AF4); #VALUE! for a value that is no reference."""
    from formulas.ranges import Ranges

    from .values import CellSlice
    if isinstance(ref, CellSlice):
        return 1
    if isinstance(ref, Ranges):
        return len(ref.ranges) or XL["#NULL!"]
    return XL["#VALUE!"]


def rows_returned(xlookup, xmatch_entry):
    """XLOOKUP whose return array has several columns (a vertical lookup) or rows (a
    horizontal one): Excel gives the whole row or column at the position found
    (``=XLOOKUP(B2,B5:B14,C5:D14)`` over C2:D2 is the name and the department of the
    row found: POI's xlookup.xlsx, saved by Excel 365); formulas took the element of the
    flattened array at that position, another row's value. A return array of another
    height (width) than the lookup array, or several lookup values, is #VALUE!; a
    one-column return array goes to ``xlookup`` (formulas' own, whose answer is right)."""
    from formulas.functions import Array

    from .values import single, values_of

    @functools.wraps(xlookup)
    def call(value, array, return_array, *rest):
        ret = np.atleast_2d(values_of(return_array)) if isinstance(return_array, np.ndarray) \
            or hasattr(return_array, "ranges") else None
        look = np.atleast_2d(values_of(array)) if isinstance(array, np.ndarray) \
            or hasattr(array, "ranges") else None
        if ret is None or look is None or ret.size == 1 or \
                (look.shape[1] == 1 and ret.shape[1] == 1) or \
                (look.shape[0] == 1 and look.shape[1] > 1 and ret.shape[0] == 1):
            return xlookup(value, array, return_array, *rest)
        if look.shape[0] > 1 and look.shape[1] > 1:
            return xlookup(value, array, return_array, *rest)  # formulas' #VALUE!
        vertical = look.shape[1] == 1
        if (ret.shape[0] if vertical else ret.shape[1]) != look.size or \
                isinstance(single(value), np.ndarray):
            return XL["#VALUE!"]
        if_not_found = rest[0] if rest else XL["#N/A"]
        position = xmatch_entry(value, array, *rest[1:3])
        position = single(position)
        if isinstance(position, XlError):
            if position != XL["#N/A"] or type(if_not_found).__name__ == "_Skipped":
                return position  # Microsoft: if_not_found missing, #N/A
            return if_not_found
        k = int(position) - 1
        got = ret[k:k + 1, :] if vertical else ret[:, k:k + 1]
        return got.copy().view(Array)
    return call


def install(table, put) -> None:
    put(table, "AREAS", areas)
    import formulas.functions.look as look
    for name in ("xmatch", "xxmatch"):
        _ORIGINAL.setdefault(name, getattr(look, name))
    look.xmatch = xmatch  # LOOKUP, VLOOKUP and HLOOKUP call them by these names
    look.xxmatch = xxmatch  # XLOOKUP
    excluded = {3, 4, 5, 6, 7}
    entries = {
        ("MATCH",): wrap_ufunc(xmatch, check_error=lambda *a: get_error(a[1]),
                               excluded=excluded, args_parser=match_arguments,
                               input_parser=lambda *a: a),
        ("LOOKUP",): wrap_ufunc(look.xlookup, input_parser=lambda *a: a,
                                args_parser=lookup_arguments,
                                check_error=lambda *a: get_error(a[1]),
                                excluded=excluded | {8}),
        ("VLOOKUP",): wrap_ufunc(table_lookup, input_parser=lambda *a: a,
                                 args_parser=functools.partial(table_arguments,
                                                               transpose=True),
                                 check_error=lambda *a: get_error(a[1]),
                                 excluded=excluded | {8}),
        ("HLOOKUP",): wrap_ufunc(table_lookup, input_parser=lambda *a: a,
                                 args_parser=table_arguments,
                                 check_error=lambda *a: get_error(a[1]),
                                 excluded=excluded | {8}),
        ("XMATCH", "_XLFN.XMATCH"): wrap_ufunc(
            xxmatch, check_error=lambda *a: get_error(a[1]), excluded={3, 4, 5, 6},
            args_parser=xmatch_arguments, input_parser=look.input_parser_xmatch),
        ("XLOOKUP", "_XLFN.XLOOKUP"): wrap_ufunc(
            look.xxlookup, check_error=lambda *a: get_error(a[1]),
            excluded={3, 4, 5, 6, 10}, args_parser=xlookup_arguments,
            input_parser=look.input_parser_xlookup),
    }
    xlookup = entries[("XLOOKUP", "_XLFN.XLOOKUP")]
    entries[("XLOOKUP", "_XLFN.XLOOKUP")] = rows_returned(
        xlookup, entries[("XMATCH", "_XLFN.XMATCH")])
    for names, entry in entries.items():
        entry._zvm_excel = True
        for name in names:
            table[name] = entry
    entry = wrap_ufunc(switch, input_parser=lambda *a: a,
                       check_error=lambda first, *a: get_error(first))
    entry._zvm_excel = True
    table["SWITCH"] = table["_XLFN.SWITCH"] = {"function": entry}

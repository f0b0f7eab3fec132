"""How Excel turns an argument into numbers: a reference or an array gives only its
numbers; a value typed or computed as the argument itself is coerced.

Microsoft's documentation of SUM, AVERAGE, MAX, MIN, COUNT (and the statistical
functions that follow them): "If an argument is an array or reference, only numbers in
that array or reference are counted. Empty cells, logical values, or text in the array
or reference are ignored" -- a cell holding the text "1" adds nothing to ``SUM(A1:A3)``
-- while "logical values and text representations of numbers that you type directly
into the list of arguments are counted": ``SUM("1",TRUE)`` is 2, and a direct text
that is not a number is #VALUE! (COUNT does not count it). An error, in a range or
not, is the result (COUNT skips it).

A reference reaches a function as formulas' ``Ranges`` (or, in a column run, a cell's
slice marked :class:`CellSlice`); an array of more than one value (``{1,"1"}``,
``A1:A3*1``) is read like a reference. A single value computed by an expression
(``A1&""``) is coerced like a typed one.
"""
from __future__ import annotations

import functools

import numpy as np
import schedula as sh
from formulas.functions import Array, get_error
from formulas.tokens.operand import XlError

from .parse import number_from_text
from .values import XL, first_value, is_collection, is_number, is_reference, single, values_of

VALUE_ERROR = "#VALUE!"

_PLAIN = frozenset({float, int, np.float64})


def numbers_only(values: np.ndarray) -> np.ndarray:
    """``values`` with text and logical values made empty cells (numbers and errors
    kept): what a function that counts numbers sees of a reference or array."""
    flat = values.reshape(-1).tolist()
    kinds = set(map(type, flat))
    if kinds <= _PLAIN:
        return values
    out = [v if is_number(v) or isinstance(v, XlError) else sh.EMPTY for v in flat]
    arr = np.empty(len(out), dtype=object)
    arr[:] = out
    return arr.reshape(values.shape)


def to_number(v):
    """A directly given value coerced to a number as Excel does (a bool is 0/1, text is
    read by :func:`~.parse.number_from_text`); an error stays that error; None for
    text that is not a number (#VALUE!)."""
    if isinstance(v, XlError) or v is sh.EMPTY:
        return v
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, str):
        return number_from_text(v)
    return v


def numeric_arguments(func, errors):
    """``func`` (a formulas aggregate) given its arguments as Excel reads them: the
    numbers of each reference or array; each direct value coerced."""
    @functools.wraps(func)
    def call(*args):
        out = []
        for a in args:
            if is_collection(a):
                out.append(numbers_only(values_of(a)))
                continue
            v = to_number(single(a))
            if v is None:
                return errors[VALUE_ERROR]
            if isinstance(v, XlError):
                return v
            out.append(v)
        return func(*out)
    return call


def count(*args):
    """COUNT: the numbers in references and arrays; direct values that are numbers,
    logical values or text that reads as a number."""
    n = 0
    for a in args:
        if is_collection(a):
            n += sum(map(is_number, values_of(a).reshape(-1).tolist()))
        else:
            v = single(a)
            if not isinstance(v, XlError) and v is not sh.EMPTY and \
                    to_number(v) is not None:
                n += 1
    return n


def isnumber(a):
    """ISNUMBER: TRUE for a number only -- not for the text "1", not for TRUE."""
    values = values_of(a) if is_collection(a) else None
    if values is not None and values.size > 1:
        out = np.empty(values.shape, dtype=object)
        out.reshape(-1)[:] = [is_number(v) for v in values.reshape(-1).tolist()]
        return out.view(Array)
    return is_number(single(values if values is not None else a))


def n_of(a):
    """N: a number is itself, TRUE 1 and FALSE 0, an error stays, anything else 0
    (a reference or array gives its first value)."""
    v = first_value(a)
    if isinstance(v, XlError):
        return v
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    return v if is_number(v) else 0.0


def isref(a):
    """ISREF: TRUE for any reference, whatever it holds -- also a cell handed over from a
    column of single-cell references (a :class:`~.values.CellSlice`: formulas answered
    FALSE there, e.g. ``=ISREF(E17)`` filled along a row, Excel TRUE in formulas'
    test.xlsx INFORMATION!T17:AE17)."""
    return is_reference(a)


def text_as_logical(text: str):
    """The logical value a text stands for where IF and NOT want one: TRUE for "TRUE" and
    FALSE for "FALSE" in any case, None (#VALUE!) for any other text. Excel's values:
    ``IF("tRue","A","B")`` is "A" in Apache POI's FormulaEvalTestData_Copy.xlsx
    (EverythingTests!M732), and NOT of a cell holding the text "0" #VALUE! in formulas'
    test.xlsx (LOGICAL!X20). AND, OR and XOR pass text over, given directly too, as
    formulas does: Excel 365 saved TRUE for ``AND(TRUE,"0")`` (formulas' test.xlsx
    LOGICAL!AT3), though the older Excel of POI's workbook saved #VALUE! for
    ``AND("1",1)``."""
    upper = text.upper()
    return True if upper == "TRUE" else False if upper == "FALSE" else None


def if_(condition, x, y=False):
    """IF of one condition: text reads as :func:`text_as_logical` (#VALUE! for other
    text); formulas answered #VALUE! for any text."""
    if isinstance(condition, str) and not isinstance(condition, XlError):
        condition = text_as_logical(condition)
        if condition is None:
            return XL[VALUE_ERROR]
    return x if condition else y


def not_(value):
    """NOT of one value: text reads as :func:`text_as_logical` (``NOT("TRUE")`` FALSE,
    #VALUE! for other text)."""
    if isinstance(value, str) and not isinstance(value, XlError):
        value = text_as_logical(value)
        if value is None:
            return XL[VALUE_ERROR]
    return np.logical_not(value)


#: aggregates whose range arguments give only their numbers and whose direct
#: arguments are coerced (Microsoft's documentation of each says so)
NUMERIC_AGGREGATES = (
    "SUM", "PRODUCT", "SUMSQ", "AVERAGE", "MAX", "MIN", "MEDIAN", "STDEV", "STDEV.S",
    "STDEV.P", "STDEVP", "VAR", "VAR.S", "VAR.P", "VARP", "GEOMEAN", "HARMEAN",
    "AVEDEV", "DEVSQ", "KURT", "SKEW", "MODE", "MODE.SNGL")

#: functions of one data array then numbers (PERCENTILE(array, k)): the array's text and
#: TRUE/FALSE are passed over, as in the aggregates above (Microsoft's pages: "array --
#: the array or range of data"; Excel, like LibreOffice, answers
#: PERCENTILE(A1:A7,0.5) over 1.5, "5", "x", 3, -2 with 1.5); the numbers after it are
#: read as before
DATA_FIRST = ("PERCENTILE", "PERCENTILE.INC", "PERCENTILE.EXC", "QUARTILE", "QUARTILE.INC",
              "QUARTILE.EXC")


def numeric_data(func):
    """``func`` given its first argument's numbers only when that argument is a
    reference or an array (the other arguments as they are)."""
    @functools.wraps(func)
    def call(data, *rest):
        if is_collection(data):
            data = numbers_only(values_of(data))
        return func(data, *rest)
    return call


def zero_without_numbers(func):
    """``func`` (formulas' PRODUCT, given numbers only), but 0 when no argument holds a
    number: Excel's PRODUCT of empty cells is 0, as its SUM is, not the empty product 1
    (LibreOffice agrees)."""
    @functools.wraps(func)
    def call(*args):
        for a in args:
            flat = a.reshape(-1).tolist() if isinstance(a, np.ndarray) else [a]
            if any(is_number(v) or isinstance(v, XlError) for v in flat):
                return func(*args)
        return 0.0
    return call


def sumproduct(*args):
    """SUMPRODUCT: formulas' (the arrays' elements multiplied position by position, the
    products summed; an error in them the answer; arrays of other sizes #VALUE!), with
    every text in an array -- numeric text too -- a zero: Microsoft's SUMPRODUCT page,
    "SUMPRODUCT treats non-numeric array entries as if they were zeros", and LibreOffice
    gives ``=SUMPRODUCT(A1:A2,B1:B2)`` = 12 for A1 the text "5", A2 3, B1 2, B2 4
    (formulas read the text as 5: 22). TRUE and FALSE were zeros already. The operators
    inside (``SUMPRODUCT((A1:A2)*B1:B2)``) coerce numeric text as they do anywhere."""
    from formulas.functions.math import xsumproduct
    arrays = [_text_as_zero(values_of(a)) if is_collection(a) else a for a in args]
    numbers = _plain_float_arrays(arrays)
    if numbers is not None:  # formulas' arithmetic without its per-element steps
        return np.sum(np.prod(numbers, axis=0))
    return xsumproduct(*arrays)


def _plain_float_arrays(arrays):
    """The arrays as one ``(len(arrays), size)`` float array when every one is an array
    of finite floats and ints only, all of one size: what formulas' SUMPRODUCT makes of
    them (its error search, empty-cell filter and conversion change nothing there);
    else None (TRUE/FALSE, empty cells, errors, a plain value: formulas' own way)."""
    rows = []
    for a in arrays:
        if not isinstance(a, np.ndarray):
            return None
        if a.dtype == object:
            flat = a.reshape(-1).tolist()
            if not set(map(type, flat)) <= {float, int}:
                return None
            a = np.array(flat, dtype=float)
        elif a.dtype != np.float64:
            return None
        rows.append(a.reshape(-1))
    if not rows or len({r.size for r in rows}) != 1:
        return None
    out = np.stack(rows)
    return out if np.isfinite(out).all() else None


def _text_as_zero(values: np.ndarray) -> np.ndarray:
    """``values`` with each plain text (not an error, not the empty cell) 0.0."""
    if values.dtype != object:
        return values
    flat = values.reshape(-1).tolist()
    if str not in set(map(type, flat)):
        return values
    out = np.empty(len(flat), dtype=object)
    out[:] = [0.0 if type(v) is str else v for v in flat]
    return out.reshape(values.shape)


def install(table, put) -> None:
    """Put the functions above in formulas' function table ``table`` through
    ``put(table, name, function)``."""
    for name in NUMERIC_AGGREGATES:
        for alias in (name, "_XLFN." + name):
            if alias in table:
                func = table[alias]
                if name == "PRODUCT":
                    func = zero_without_numbers(func)
                put(table, alias, numeric_arguments(func, XL))
    for name in DATA_FIRST:
        for alias in (name, "_XLFN." + name):
            if alias in table:
                put(table, alias, numeric_data(table[alias]))
    put(table, "COUNT", count)
    from formulas.functions import wrap_ufunc
    if isinstance(table.get("IF"), dict):
        table["IF"] = dict(table["IF"], function=wrap_ufunc(
            if_, input_parser=lambda *a: a, check_nan=False,
            check_error=lambda cond, *a: get_error(cond)))
    if isinstance(table.get("NOT"), dict):
        table["NOT"] = dict(table["NOT"], function=wrap_ufunc(
            not_, input_parser=lambda *a: a))
    put(table, "SUMPRODUCT", sumproduct)
    put(table, "N", n_of)
    put(table, "ISNUMBER", isnumber)
    put(table, "ISREF", isref)

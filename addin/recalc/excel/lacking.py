"""Worksheet functions formulas does not have (#NAME? before), as Microsoft's page of
each defines them:

* COMBIN(n, k) = n! / (k! (n-k)!) with both truncated; #NUM! for n < 0, k < 0 or
  n < k (``COMBIN(8,2)`` is 28);
* COMBINA(n, k) = COMBIN(n+k-1, k), combinations with repetition (``COMBINA(4,3)``
  20); #NUM! for n < 0 or k < 0;
* QUOTIENT(numerator, denominator): the integer part of the quotient, toward zero
  (``QUOTIENT(-10,3)`` is -3); #DIV/0! for a zero denominator;
* SERIESSUM(x, n, m, coefficients) = sum of a_i * x^(n + i*m);
* BASE(number, radix, [min_length]): the digits of a whole number 0 .. 2^53 in base
  2 .. 36, upper case, padded with zeros (``BASE(15,2,10)`` "0000001111"); #NUM! outside;
* DOLLAR(number, [decimals]): the number as text in the currency format
  ``$#,##0.00_);($#,##0.00)`` of en-US Excel, rounded to ``decimals`` (left of the point
  when negative): ``DOLLAR(-1234.567,-2)`` is "($1,200)"; USDOLLAR, a legacy Excel
  function kept for old workbooks (BIFF function 204, not in ECMA-376's list), is DOLLAR
  with the dollar sign whatever the locale (Excel's values in NPOI's
  FormulaEvalTestData_Copy.xlsx, EverythingTests: ``USDOLLAR(-1)`` "($1.00)").

* BAHTTEXT(number): the number in Thai words, baht and satang (see :func:`bahttext`).

A range or array given where a number is expected (``COMBIN(E13:G13,2)``) gives one
result per cell, an array (:func:`~.values.elementwise`): formulas' first value was a
silent wrong answer (NPOI's FormulaEvalTestData_Copy.xlsx EverythingTests!L260,
``COMBIN(23,D259:D261)`` in row 260: Excel 253, the row's own cell).
"""
from __future__ import annotations

import math

import schedula as sh
from formulas.tokens.operand import XlError

from .coercion import to_number
from .values import (XL, each, elementwise, first_value, is_collection, is_left_out, single,
                     values_of)


class _Error(Exception):
    def __init__(self, err):
        self.err = err


def _num(a, default=None):
    if a is None:
        if default is None:
            raise _Error(XL["#VALUE!"])
        return default
    v = first_value(a)
    if isinstance(v, XlError):
        raise _Error(v)
    if is_left_out(v):
        return default if default is not None else 0.0
    x = to_number(v)
    if x is None:
        raise _Error(XL["#VALUE!"])
    return float(x)


def _scalar(func):
    def call(*args):
        try:
            return func(*args)
        except _Error as e:
            return e.err
        except (OverflowError, ValueError):
            return XL["#NUM!"]
    call.__name__ = func.__name__
    return call


@_scalar
def combin(number, chosen):
    n, k = math.trunc(_num(number)), math.trunc(_num(chosen))
    if n < 0 or k < 0 or n < k:
        return XL["#NUM!"]
    return float(math.comb(n, k))


@_scalar
def combina(number, chosen):
    n, k = math.trunc(_num(number)), math.trunc(_num(chosen))
    if n < 0 or k < 0:
        return XL["#NUM!"]
    if n == 0 and k == 0:
        return 1.0
    return float(math.comb(n + k - 1, k))


@_scalar
def quotient(numerator, denominator):
    a, b = _num(numerator), _num(denominator)
    if b == 0:
        return XL["#DIV/0!"]
    return float(math.trunc(a / b))


@_scalar
def seriessum(x, n, m, coefficients):
    x, n, m = _num(x), _num(n), _num(m)
    coeffs = values_of(coefficients).reshape(-1).tolist() if is_collection(coefficients) \
        else [single(coefficients)]
    total = 0.0
    for i, a in enumerate(coeffs):
        if isinstance(a, XlError):
            return a
        c = to_number(a) if a is not sh.EMPTY else None
        if c is None:
            return XL["#VALUE!"]
        total += float(c) * x ** (n + i * m)
    return total


_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@_scalar
def base(number, radix, min_length=None):
    x, r = math.trunc(_num(number)), math.trunc(_num(radix))
    length = math.trunc(_num(min_length, 0.0))
    if x < 0 or x >= 2 ** 53 or not 2 <= r <= 36 or length < 0 or length > 255:
        return XL["#NUM!"]
    out = []
    while True:
        x, d = divmod(x, r)
        out.append(_DIGITS[d])
        if not x:
            break
    return "".join(reversed(out)).rjust(length, "0")


def dollar(number, decimals=None):
    """DOLLAR of each value of a range or array ``number`` (an array, as Excel's
    DOLLAR(A1:A3) entered over three cells; a legacy formula's one cell takes its own
    by implicit intersection), else of the one value."""
    if is_collection(number):
        return each(lambda v: _dollar(v, decimals), number)
    return _dollar(number, decimals)


@_scalar
def _dollar(number, decimals=None):
    from .textformat import format_value
    x, d = _num(number), math.trunc(_num(decimals, 2.0))
    if d > 127:
        return XL["#VALUE!"]
    if d < 0:
        scale = 10.0 ** -d
        x = _round_half_up(x / scale) * scale
        code = "$#,##0_);($#,##0)"
    else:
        code = "$#,##0" + ("." + "0" * d if d else "") + "_);($#,##0" + \
            ("." + "0" * d if d else "") + ")"
    return format_value(x, code).rstrip()


def _round_half_up(x: float) -> float:
    from decimal import ROUND_HALF_UP, Decimal
    return float(Decimal(f"{x:.15g}").quantize(Decimal(1), rounding=ROUND_HALF_UP))


_THAI_DIGITS = ["ศูนย์", "หนึ่ง", "สอง", "สาม", "สี่", "ห้า", "หก", "เจ็ด", "แปด", "เก้า"]
_THAI_PLACES = ["", "สิบ", "ร้อย", "พัน", "หมื่น", "แสน"]
_MILLION, _BAHT, _SATANG, _EXACT, _MINUS = "ล้าน", "บาท", "สตางค์", "ถ้วน", "ลบ"


def _thai_below_million(n: int, after: bool) -> str:
    """0 < n < 1,000,000 in Thai words; ``after``: a higher group precedes (a last 1
    is then "เอ็ด" too)."""
    digits = str(n)
    out = []
    for k, ch in enumerate(digits):
        d, place = int(ch), len(digits) - 1 - k
        if d == 0:
            continue
        if place == 1 and d == 1:
            out.append(_THAI_PLACES[1])
        elif place == 1 and d == 2:
            out.append("ยี่" + _THAI_PLACES[1])
        elif place == 0 and d == 1 and (n > 9 or after):
            out.append("เอ็ด")
        else:
            out.append(_THAI_DIGITS[d] + _THAI_PLACES[place])
    return "".join(out)


def _thai_number(n: int) -> str:
    """A whole number >= 0 in Thai words, by groups of six digits joined by ล้าน."""
    if n == 0:
        return _THAI_DIGITS[0]
    groups = []
    while n:
        n, g = divmod(n, 1_000_000)
        groups.append(g)
    out = []
    for i, g in enumerate(reversed(groups)):
        if g:
            out.append(_thai_below_million(g, after=i > 0))
        if i < len(groups) - 1:
            out.append(_MILLION)
    return "".join(out)


@_scalar
def bahttext(number):
    """BAHTTEXT: the number as Thai text, baht and satang (Microsoft's BAHTTEXT page:
    ``BAHTTEXT(1234)`` is หนึ่งพันสองร้อยสามสิบสี่บาทถ้วน), rounded to the satang;
    "ถ้วน" (exactly) when there are no satang, "ลบ" before a negative amount. Excel's
    values in formulas' test.xlsx TEXT!R6:Y6: 0 ศูนย์บาทถ้วน, 157
    หนึ่งร้อยห้าสิบเจ็ดบาทถ้วน, 65.8 หกสิบห้าบาทแปดสิบสตางค์, -1 ลบหนึ่งบาทถ้วน,
    TRUE หนึ่งบาทถ้วน, text #VALUE!."""
    x = _num(number, 0.0)
    satang_total = int(_round_half_up(abs(x) * 100))
    baht, satang = divmod(satang_total, 100)
    sign = _MINUS if x < 0 and satang_total else ""
    if satang == 0:
        return f"{sign}{_thai_number(baht)}{_BAHT}{_EXACT}"
    words = f"{_thai_number(satang)}{_SATANG}"
    return f"{sign}{_thai_number(baht)}{_BAHT}{words}" if baht else sign + words


FUNCTIONS = {"COMBIN": elementwise(combin), "COMBINA": elementwise(combina),
             "QUOTIENT": elementwise(quotient), "SERIESSUM": seriessum,
             "BASE": elementwise(base), "DOLLAR": dollar, "USDOLLAR": dollar,
             "BAHTTEXT": elementwise(bahttext)}


def install(table, put) -> None:
    for name, func in FUNCTIONS.items():
        put(table, name, func)
        table["_XLFN." + name] = table[name]

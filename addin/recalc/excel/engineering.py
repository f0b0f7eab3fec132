"""BIN2DEC, DEC2HEX, HEX2BIN and the other conversions between bases 2, 8, 10 and 16,
with the errors Microsoft's pages of each give.

* A binary, octal or hexadecimal number has at most 10 digits; the tenth digit's top
  bit is the sign (two's complement): ``BIN2DEC("1111111111")`` is -1. More digits or a
  digit outside the base is #NUM!.
* The result must fit 10 digits of the target base (DEC2BIN takes -512 to 511) or it
  is #NUM!. A negative result is written with 10 digits and ``places`` is ignored
  (``DEC2BIN(-1,2)`` is "1111111111"); for a positive one, ``places`` pads with zeros,
  and is #NUM! when too small. ``places`` itself must be 1 to 10 (truncated when
  fractional) or the result is #NUM!, #VALUE! when it is not a number, and this is
  checked before the number (Excel's saved values in xlcalculator's BASES.xlsx:
  ``DEC2BIN(-25,0)`` and ``DEC2BIN(-25,11)`` are #NUM!, ``DEC2BIN("E",0)`` #NUM!,
  ``DEC2BIN("E",1)`` #VALUE!).
* A decimal number is truncated; TRUE/FALSE or text that is not a number is #VALUE!.
* A range or array of numbers gives an array, one conversion each (formulas took its
  first value: ``=HEX2BIN(C26:J26)`` in a column outside C:J was "0" where Excel shows
  #VALUE!, formulas' test.xlsx ENGINEERING!AH26).

The complex numbers of COMPLEX and the IM functions are written as Excel writes them:
each part as a number joined to text (:func:`.text.general`): 15 significant digits, in
decimals from 1E-5 to 1E+15 (Excel writes
"0.0000692442674613868" but "2.24044486393732E-06", ENGINEERING!S35, V39), else with an
exponent as ``E-22``; the
imaginary unit alone for a coefficient of 1 or -1, a zero part left out
(``IMCOS(...)`` "27142327967.109-23653126953.379j", ``IMCOT(...)``
"3.82126757337684E-22-j": Excel's values in formulas' test.xlsx ENGINEERING!R33, R35).
formulas wrote Python's shortest repr, 17 digits ("27142327967.108967-...").
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from .coercion import to_number
from .text import general
from .values import XL, each, is_collection, single, values_of

BASES = {"BIN": 2, "OCT": 8, "DEC": 10, "HEX": 16}
_DIGITS = "0123456789ABCDEF"


def _from_base(text, base: int):
    """A BIN/OCT/HEX argument -> int, or an error value."""
    if isinstance(text, XlError):
        return text
    if isinstance(text, (bool, np.bool_)):
        return XL["#VALUE!"]
    if text is sh.EMPTY:
        return 0
    if isinstance(text, (int, float, np.integer, np.floating)):
        if float(text) != math.floor(float(text)) or text < 0:
            return XL["#NUM!"]
        text = str(int(text))
    s = str(text).strip().upper()
    if len(s) > 10 or any(ch not in _DIGITS[:base] for ch in s):
        return XL["#NUM!"]
    if not s:
        return 0
    n = int(s, base)
    top = base ** 10
    return n - top if len(s) == 10 and n >= top // 2 else n


def _from_decimal(number):
    if isinstance(number, XlError):
        return number
    if isinstance(number, (bool, np.bool_)):
        return XL["#VALUE!"]
    x = to_number(number)
    if x is None:
        return XL["#VALUE!"]
    return int(x) if x is not sh.EMPTY else 0


def _places(places):
    """``places`` as a whole number 1-10, None when left out, or the error it gives:
    an error stays, TRUE/FALSE or text that is no number is #VALUE!, a number below 1
    or above 10 #NUM! (also for a negative number, whose result ignores places)."""
    if places is None or places is sh.EMPTY:
        return None
    if isinstance(places, XlError):
        return places
    if isinstance(places, (bool, np.bool_)):
        return XL["#VALUE!"]
    p = to_number(places)
    if p is None:
        return XL["#VALUE!"]
    p = int(p)
    if p < 1 or p > 10:
        return XL["#NUM!"]
    return p


def _to_base(n: int, base: int, places):
    top = base ** 10
    if not -top // 2 <= n < top // 2:
        return XL["#NUM!"]
    if n < 0:
        return _digits(n + top, base)
    s = _digits(n, base)
    if places is None:
        return s
    if places < len(s):
        return XL["#NUM!"]
    return s.zfill(places)


def _digits(n: int, base: int) -> str:
    if n == 0:
        return "0"
    out = []
    while n:
        n, r = divmod(n, base)
        out.append(_DIGITS[r])
    return "".join(reversed(out))


def converter(source: str, target: str):
    """The Excel function SOURCE2TARGET (e.g. HEX2BIN)."""
    def convert(number, places=None):
        if is_collection(number):  # each value: an array (a legacy cell intersects it)
            return each(lambda v: convert(v, places), number)
        number = single(number)
        if places is not None:
            places = single(values_of(places)) if is_collection(places) else single(places)
        if isinstance(number, XlError):
            return number
        if target != "DEC":
            places = _places(places)
            if isinstance(places, XlError):  # checked before the number is read
                return places
        n = _from_decimal(number) if source == "DEC" else _from_base(number, BASES[source])
        if isinstance(n, XlError):
            return n
        if target == "DEC":
            return float(n)
        return _to_base(n, BASES[target], places)
    convert.__name__ = f"{source}2{target}"
    return convert


def complex_text(real: float, imag: float, suffix: str = "i") -> str:
    """A complex number as the IM functions write it (see the module docstring)."""
    from formulas.errors import FoundError
    if not (math.isfinite(real) and math.isfinite(imag)):
        raise FoundError(err=XL["#NUM!"])
    re_text = general(real) if real != 0 else ""
    if imag == 0:
        return re_text or "0"
    coef = "" if abs(imag) == 1 else general(abs(imag))
    sign = "-" if imag < 0 else ("+" if re_text else "")
    return f"{re_text}{sign}{coef}{suffix}"


def install(table, put) -> None:
    import formulas.functions.eng as eng
    eng._fmt_complex = complex_text  # COMPLEX and every IM function call it by this name
    for source, target in itertools.permutations(BASES, 2):
        put(table, f"{source}2{target}", converter(source, target))

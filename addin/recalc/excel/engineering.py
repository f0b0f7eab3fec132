"""BIN2DEC, DEC2HEX, HEX2BIN and the other conversions between bases 2, 8, 10 and 16,
with the errors Microsoft's pages of each give.

* A binary, octal or hexadecimal number has at most 10 digits; the tenth digit's top
  bit is the sign (two's complement): ``BIN2DEC("1111111111")`` is -1. More digits or a
  digit outside the base is #NUM!.
* The result must fit 10 digits of the target base (DEC2BIN takes -512 to 511) or it
  is #NUM!. A negative result is written with 10 digits and ``places`` is ignored
  (``DEC2BIN(-1,2)`` is "1111111111"); for a positive one, ``places`` pads with zeros,
  and is #NUM! when too small or negative, #VALUE! when not a number, truncated when
  fractional.
* A decimal number is truncated; TRUE/FALSE or text that is not a number is #VALUE!.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from .coercion import to_number
from .values import XL, is_collection, single, values_of

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


def _to_base(n: int, base: int, places):
    top = base ** 10
    if not -top // 2 <= n < top // 2:
        return XL["#NUM!"]
    if n < 0:
        return _digits(n + top, base)
    s = _digits(n, base)
    if places is None or places is sh.EMPTY:
        return s
    if isinstance(places, XlError):
        return places
    if isinstance(places, (bool, np.bool_)):
        return XL["#VALUE!"]
    p = to_number(places)
    if p is None:
        return XL["#VALUE!"]
    p = int(p)
    if p < 0 or p > 10 or p < len(s):
        return XL["#NUM!"]
    return s.zfill(p)


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
        number = single(values_of(number)) if is_collection(number) else single(number)
        if places is not None:
            places = single(values_of(places)) if is_collection(places) else single(places)
        n = _from_decimal(number) if source == "DEC" else _from_base(number, BASES[source])
        if isinstance(n, XlError):
            return n
        if target == "DEC":
            return float(n)
        return _to_base(n, BASES[target], places)
    convert.__name__ = f"{source}2{target}"
    return convert


def install(table, put) -> None:
    for source, target in itertools.permutations(BASES, 2):
        put(table, f"{source}2{target}", converter(source, target))

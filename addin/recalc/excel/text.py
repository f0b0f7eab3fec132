"""Numbers as text, and the text functions where formulas answers otherwise.

* A number becomes text as Excel's General format writes it when a formula joins it to
  text (``&``, CONCATENATE, LEN, LEFT, ...): at most 15 significant digits, no trailing
  zeros, scientific notation from 1E+15 up and below 1E-5 (``(0.1+0.2)&""`` is "0.3",
  ``1E20&""`` is "1E+20"); TRUE and FALSE are "TRUE" and "FALSE" (:func:`text_of`,
  put in the place of formulas' own ``_str``, which every text function calls);
* CHAR and CODE use Windows-1252, Excel's character set on Windows (``CHAR(128)`` is
  "€", ``CODE("€")`` 128; a character outside it has CODE 63, "?"); in a workbook
  saved by Excel for Mac they use Mac Roman, as that Excel does (``CHAR(128)`` is
  "Ä"): :func:`mac_roman`, which the engine sets from docProps/app.xml;
* TRIM removes leading and trailing spaces and leaves one space between words
  (Microsoft: "removes all spaces from text except for single spaces between words");
* TEXTJOIN skips empty cells and empty text when ``ignore_empty`` is TRUE, keeps both
  (as "") when FALSE, and cycles through a range of delimiters;
* SEARCH reads ``*``, ``?`` and ``~`` in ``find_text`` as wildcards (Microsoft's SEARCH
  page: "A question mark matches any single character; an asterisk matches any sequence
  of characters. If you want to find an actual question mark or asterisk, type a tilde
  (~) before the character"), as COUNTIF's criteria do; formulas searched for them
  literally (``SEARCH("a*c","xabc")`` was #VALUE!, Excel's 2), and reads a number in
  ``within_text`` as the General format shows it;
* SUBSTITUTE with an empty ``old_text`` returns the text unchanged (Excel's saved
  "testblankmatch" for ``SUBSTITUTE("testblankmatch","","!",1)`` in Apache POI's
  FormulaEvalTestData_Copy.xlsx EverythingTests!P1312; formulas put the new text between
  every two characters, or answered #VALUE! with an instance number);
* REPT with a negative count is #VALUE! (LibreOffice agrees; formulas gave "").
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import re

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from ..during import during
from .values import XL, each, elementwise, is_collection, is_number, single, values_of
from .parse import number_from_text
from .criteria import wildcard_regex


def general(x: float) -> str:
    """A number as text as Excel writes it when a formula joins it to text: 15 significant
    digits without trailing zeros, in decimals from 1E-5 up to 1E+15, else with an
    exponent of at least two digits (``1E+20``, ``1.28233995888454E-06``). The same rule
    writes the parts of the IM functions' complex numbers (:mod:`.engineering`, Excel's
    "0.0000692442674613868" but "2.24044486393732E-06"); poi's FormulaEvalTestData
    ``SEARCH(B8,C8)``, 1 in 1E-05, is 7 as Excel saved it: "0.00001"."""
    x = float(x)
    if x == 0:
        return "0"
    mantissa, _, power = ("%.14e" % x).partition("e")
    exp = int(power)
    if -5 <= exp < 15:
        text = "%.*f" % (14 - exp, x)
        return text.rstrip("0").rstrip(".") if "." in text else text
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}E{power[0]}{power[1:].lstrip('0').zfill(2)}"


def text_of(v) -> str:
    """Any cell value as a text function reads it (formulas' ``_str``)."""
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return str(v)
    if is_number(v):
        return general(v)
    return str(v)


_MAC: contextvars.ContextVar[bool] = contextvars.ContextVar("zvmplan_mac_roman",
                                                            default=False)


@contextlib.contextmanager
def mac_roman(active: bool):
    """CHAR and CODE in Mac Roman while the block runs, if ``active``: the character
    set of Excel for Mac, for a workbook it saved (docProps/app.xml names "Microsoft
    Macintosh Excel"). Its values were computed so -- formulas' test.xlsx, saved by
    Excel 16 for Mac, caches CHAR(128) as "Ä", Windows-1252's "€" -- and Excel for Mac
    recalculating it gives them again."""
    with during(_MAC, bool(active)):
        yield


def _charset() -> tuple[dict, dict]:
    return _character_tables(_MAC.get())


@functools.cache
def _character_tables(mac: bool) -> tuple[dict, dict]:
    """CHAR's table (code 1-255 to character) and CODE's (character to code) for
    Windows-1252 (a code it leaves undefined stands for itself) or, if ``mac``, Mac
    Roman; built on first use, not at every start-up."""
    if mac:
        chars = {n: bytes([n]).decode("mac_roman") for n in range(1, 256)}
    else:
        chars = {n: bytes([n]).decode("cp1252", errors="ignore") or chr(n)
                 for n in range(1, 256)}
    return chars, {ch: n for n, ch in chars.items()}


def char(number):
    if is_collection(number):
        return each(char, number)
    number = single(number)
    if isinstance(number, XlError):
        return number
    n = _number(number)
    if n is None or not 1 <= int(n) <= 255:
        return XL["#VALUE!"]
    return _charset()[0][int(n)]


def code(text):
    if is_collection(text):
        return each(code, text)
    text = single(text)
    if isinstance(text, XlError):
        return text
    s = "" if text is sh.EMPTY else text_of(text)
    if not s:
        return XL["#VALUE!"]
    return float(_charset()[1].get(s[0], 63))


@elementwise
def unichar(number):
    """UNICHAR as Microsoft's page for it says: #VALUE! for 0 and for numbers outside
    1..1114111 (U+10FFFF), #N/A for a partial surrogate (55296..57343, U+D800..U+DFFF,
    which is no character and could not be written to the file), the number truncated."""
    if isinstance(number, XlError):
        return number
    n = _number(number)
    if n is None or not 1 <= n < 1114112:
        return XL["#VALUE!"]
    n = int(n)
    if 0xD800 <= n <= 0xDFFF:
        return XL["#N/A"]
    return chr(n)


def trim(text):
    if is_collection(text):
        return each(trim, text)
    text = single(text)
    if isinstance(text, XlError):
        return text
    s = "" if text is sh.EMPTY else text_of(text)
    return re.sub(" {2,}", " ", s.strip(" "))


def search(find_text, within_text, start_num=1):
    """SEARCH of single values (formulas' own broadcasting around it), each read as text
    as Excel reads it (:func:`text_of`: formulas' SEARCH alone took Python's ``str``, so
    ``SEARCH("4",0.1+0.2)`` found the 4 of 0.30000000000000004): without a wildcard
    character in ``find_text``, formulas' SEARCH; with one, the first match at or after
    ``start_num``, case-insensitive, its position counted from 1."""
    find, within = text_of(find_text), text_of(within_text)
    if not ("*" in find or "?" in find or "~" in find):
        from formulas.functions.text import xsearch  # loaded by install() already
        return xsearch(find, within, start_num)
    n = int(start_num - 1)
    if n < 0 or n > len(within):
        return XL["#VALUE!"]
    found = re.compile(wildcard_regex(find), re.I | re.S).search(within, n)
    return XL["#VALUE!"] if found is None else found.start() + 1


def textjoin(delimiter, ignore_empty, *texts):
    if not texts:
        return XL["#VALUE!"]
    delimiters = [v for v in _flat(delimiter)]
    flag = single(values_of(ignore_empty)) if is_collection(ignore_empty) else \
        single(ignore_empty)
    for v in delimiters + [flag]:
        if isinstance(v, XlError):
            return v
    if isinstance(flag, str) and flag is not sh.EMPTY:
        flag = {"TRUE": True, "FALSE": False}.get(flag.upper(), number_from_text(flag))
        if flag is None:
            return XL["#VALUE!"]
    skip = bool(flag) if flag is not sh.EMPTY else False
    seps = ["" if d is sh.EMPTY else text_of(d) for d in delimiters] or [""]
    items = []
    for t in texts:
        for v in _flat(t):
            if isinstance(v, XlError):
                return v
            s = "" if v is sh.EMPTY else text_of(v)
            if skip and s == "":
                continue
            items.append(s)
    out = []
    for k, s in enumerate(items):
        if k:
            out.append(seps[(k - 1) % len(seps)])
        out.append(s)
    return "".join(out)


def _number(v):
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if v is sh.EMPTY:
        return 0.0
    if isinstance(v, str):
        return number_from_text(v)
    return float(v)


def _flat(a) -> list:
    if is_collection(a):
        return values_of(a).reshape(-1).tolist()
    return [single(a)]


FUNCTIONS = {
    "CHAR": char, "CODE": code, "TRIM": trim,
    "UNICHAR": unichar, "_XLFN.UNICHAR": unichar,
    "TEXTJOIN": textjoin, "_XLFN.TEXTJOIN": textjoin,
}


def substitute(text, old_text, new_text, instance_num=None):
    """SUBSTITUTE: formulas' own, but an empty ``old_text`` leaves the text as it is."""
    import formulas.functions.text as ftext
    if text_of(old_text) == "":
        if instance_num is not None and (isinstance(instance_num, (bool, np.bool_, str))
                                         or instance_num < 1):
            return XL["#VALUE!"]
        return text_of(text)
    return ftext.xsubstitute(text, old_text, new_text, instance_num)


def rept(text, number_times):
    """REPT: formulas' own, #VALUE! for a negative count."""
    import formulas.functions.text as ftext
    from formulas.functions import replace_empty
    if float(replace_empty(number_times)) < 0:
        return XL["#VALUE!"]
    return ftext.xrept(text, number_times)


def install(table, put) -> None:
    import formulas.functions.operators as operators
    import formulas.functions.text as text
    text._str = operators._str = text_of
    for name, func in FUNCTIONS.items():
        put(table, name, func)
    from formulas.functions import replace_empty, wrap_ufunc
    table["SUBSTITUTE"] = wrap_ufunc(
        substitute, input_parser=lambda *a: a,
        args_parser=lambda *a: (replace_empty(v, "") for v in a))
    table["REPT"] = wrap_ufunc(rept, **text._kw0)
    # formulas' own wrapping of its SEARCH (arguments, arrays, errors), our single values
    table["SEARCH"] = table["SEARCHB"] = wrap_ufunc(search, **text._kw0)

"""TEXT(value, format_text): Excel's number formats, as Microsoft's "Number format
codes" page describes them and as Excel saved them in public test workbooks (apache
poi's NumberFormatTests, NumberFormatApproxTests, GeneralFormatTests,
ElapsedFormatTests, FormatConditionTests and TextFormatTests; pycel's text.xlsx;
formulas' test.xlsx) and as borgar/numfmt's tests, conformed to Excel 16 for Mac, show
them (``tests/test_text_formats.py`` names the source of each value).

* Up to four sections ``positive;negative;zero;text``; a negative number shown by the
  second section loses its sign (``TEXT(-5,"0;(0)")`` is "(5)"), one shown by the
  first gets a minus in front of everything. A section holding ``@`` is the text
  section (``w;x@`` has one number section); ``[>100]``-style conditions (spaces
  allowed) pick a section; a number the one conditional section does not take is
  written as General, one that two conditional sections leave out is #VALUE! (a
  cell shows ######). A number in a format of only a text section is General.
  A text that reads as a number is formatted as that number (``TEXT("1.5","0.00")``
  is "1.50"; "0:59:99" is a time), other text and TRUE/FALSE take the text section,
  ``@`` standing for them, or come back as they are.
* Numbers (:mod:`.numberformat`): digit codes ``0`` ``#`` ``?`` with literal text kept
  where it stands among them, thousands separators, scaling commas, ``%``,
  scientific formats (``E+``/``E-``/``e+``/``e-``, engineering exponents), fractions
  (``# ?/?``, ``?/???``, ``# ?/8``), rounded half away from zero at the digits shown,
  the number taken as Excel holds it (15 significant digits: ``TEXT(0.285,"0.00")``
  is "0.29").
* ``General``: the number in at most 11 characters besides its sign, as in a cell of
  the standard width (``TEXT(1/3,"General")`` is "0.333333333").
* Dates and times: ``yy yyyy e m mm mmm mmmm mmmmm d dd ddd dddd h hh m mm s ss``
  (``m`` after ``h`` or ``s``, or before ``s``, is minutes), ``AM/PM`` ``A/P``, elapsed
  ``[h]`` ``[m]`` ``[s]`` (``TEXT(1.5,"[h]:mm")`` is "36:00"; beside ``[h]`` a plain
  ``h`` counts hours too), fractions of a second ``ss.00`` (also after another code:
  ``hh.000``); the time is rounded to the
  smallest unit shown; AM/PM is written in capitals whatever the case of the code, A/P
  in the case written. English month and day names; any other letter stands for
  itself (``TEXT(2,"xxx")`` is "xxx"). A date code after 31 December 9999 is #VALUE!;
  a negative time is #VALUE! unless the format is one elapsed count
  (``TEXT(-1,"[h]")`` is "-24") or the workbook counts dates from 1904, where Excel
  shows it with a minus.
* ``[Red]``-style colours are dropped; ``[$€-2]`` shows "€", ``[$-409]`` nothing;
  ``_x`` is a space, ``*x`` (a fill to the column's width) nothing.

A format this module does not read -- other calendars (``b``, ``g``, ``[DBNum1]``),
another locale's separators (``# ##0,00``), digits beside date codes -- is #VALUE!
with the reason, never a guess.
"""
from __future__ import annotations

import math
import re
from decimal import Decimal

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from .numberformat import FormatError, fraction, number, round_half_up
from .parse import number_from_text, serial_date
from .values import XL, each, error, is_collection, is_number, single, values_of
from ...lazyre import lazy_pattern

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def _sections(code: str) -> list[str]:
    out, cur, k, quoted = [], [], 0, False
    while k < len(code):
        ch = code[k]
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "\\_*" and k + 1 < len(code):
            cur.append(code[k:k + 2])
            k += 2
            continue
        elif not quoted and ch == ";":
            out.append("".join(cur))
            cur = []
            k += 1
            continue
        cur.append(ch)
        k += 1
    out.append("".join(cur))
    return out


_COND = lazy_pattern(r"\[\s*(<=|>=|<>|<|>|=)\s*(-?[0-9.]+)\s*\]")


def _condition(section: str):
    """(test, section without it) for a ``[>100]``-style condition (spaces allowed
    inside: ``[< 10]``); (None, section) without one."""
    m = _COND().search(section)
    if m is None:
        return None, section
    op, x = m.group(1), float(m.group(2))
    test = {"<": float.__lt__, "<=": float.__le__, ">": float.__gt__, ">=": float.__ge__,
            "=": float.__eq__, "<>": float.__ne__}[op]
    return (lambda v: test(float(v), x)), section[:m.start()] + section[m.end():]


def _tokens(section: str) -> list[tuple[str, str]]:
    """(kind, text): kind "lit" for literal text, else the code character(s)."""
    out, k = [], 0
    while k < len(section):
        ch = section[k]
        if ch == '"':
            end = section.find('"', k + 1)
            if end < 0:
                raise FormatError("a quote without its end")
            out.append(("lit", section[k + 1:end]))
            k = end + 1
        elif ch == "\\" and k + 1 < len(section):
            out.append(("lit", section[k + 1]))
            k += 2
        elif ch == "_" and k + 1 < len(section):
            out.append(("lit", " "))
            k += 2
        elif ch == "*" and k + 1 < len(section):
            k += 2
        elif ch == "[":
            end = section.find("]", k)
            if end < 0:
                raise FormatError(section)
            inner = section[k + 1:end].lower()
            if re.fullmatch(r"h+|m+|s+", inner):
                out.append(("elapsed", inner))
            elif inner.startswith("$"):  # currency and locale: [$€-2] shows "€"
                out.append(("lit", section[k + 2:end].split("-")[0]))
            elif not (inner in ("red", "black", "blue", "green",
                                                        "white", "yellow", "magenta",
                                                        "cyan") or inner.startswith("color")):
                raise FormatError(section)
            k = end + 1
        elif section[k:k + 5].upper() == "AM/PM":
            out.append(("ampm", section[k:k + 5]))
            k += 5
        elif section[k:k + 3].upper() == "A/P":
            out.append(("ap", section[k:k + 3]))
            k += 3
        elif ch.lower() in "ymdhs":
            j = k
            while j < len(section) and section[j].lower() == ch.lower():
                j += 1
            out.append((ch.lower(), section[k:j].lower()))
            k = j
        elif ch in "0#?.,%/@" or ch in "Ee" and k + 1 < len(section) and section[k + 1] in "+-":
            if ch in "Ee":
                out.append(("E", section[k:k + 2]))
                k += 2
            else:
                out.append((ch, ch))
                k += 1
        elif ch.upper() == "G" and section[k:k + 7].lower() == "general":
            out.append(("general", section[k:k + 7]))
            k += 7
        elif ch in "eE":  # the year of the era: in English Excel the year, "1977"
            j = k
            while j < len(section) and section[j] in "eE":
                j += 1
            out.append(("y", "yyyy"))
            k = j
        elif ch.isalpha() and ch.lower() in "bgn":
            raise FormatError(section)  # codes of other calendars and locales
        else:  # any other character, letters among them, stands for itself
            out.append(("lit", ch))
            k += 1
    return out


def _check(tokens) -> None:
    """FormatError for a section that mixes digit codes with date or time codes (other
    than a fraction of the second, ``.000``)."""
    groups = _second_fractions(tokens)
    inside = {i + 1 + n for i, length in groups.items() for n in range(length)}
    if _is_datetime(tokens) and any(kind in "0#?" and i not in inside
                                    for i, (kind, _) in enumerate(tokens)):
        raise FormatError("digits beside a date or time")


def _second_fractions(tokens) -> dict[int, int]:
    """{position of "." : how many 0 follow it} for each ``.0``, ``.00``, ``.000`` of a
    date or time format: the fraction of the second, after ``ss`` or after any other
    code (``hh.000`` writes 0.70707 as "16.848": borgar/numfmt's tests, Excel 16 for
    Mac), each shown to its length of the time rounded to the longest."""
    out = {}
    for i, (kind, _) in enumerate(tokens):
        if kind == "." and i + 1 < len(tokens) and tokens[i + 1][0] == "0":
            j = i + 1
            while j < len(tokens) and tokens[j][0] == "0":
                j += 1
            out[i] = j - i - 1
    return out


def _is_datetime(tokens) -> bool:
    return any(kind in ("y", "m", "d", "h", "s", "elapsed", "ampm", "ap")
               for kind, _ in tokens)


def _has_at(section: str) -> bool:
    try:
        return any(kind == "@" for kind, _ in _tokens(_condition(section)[1]))
    except FormatError:
        return False


def split_sections(code: str) -> tuple[list[str], str | None]:
    """(number sections, text section): the text section is the fourth, or a section
    holding ``@`` (``w;x@`` has one number section, "w"); at most three number
    sections."""
    sections = _sections(code)
    text_section = sections[3] if len(sections) >= 4 else None
    numeric = sections[:3]
    at = [k for k, sec in enumerate(numeric) if _has_at(sec)]
    if at:
        if text_section is not None or len(at) > 1:
            raise FormatError("more than one text section")
        text_section = numeric.pop(at[0])
    if text_section is not None and any(
            kind in "0#?" for kind, _ in _tokens(_condition(text_section)[1])):
        # pycel's text.xlsx: TEXT(,"#,#""ZZ""#.0""YY""00@") is #VALUE!
        raise FormatError("digits in the text section")
    return numeric or [""], text_section


def format_value(value, code: str) -> str:
    """``value`` (a number) as TEXT(value, code) writes it."""
    sections, text_section = split_sections(code)
    x = float(value)
    if sections == [""] and text_section is not None:
        return _general(x)  # only a text section: a number shows as General ("@")
    chosen, negative_section = None, False
    parsed = [_condition(s) for s in sections]
    if any(c is not None for c, _ in parsed):
        for k, (cond, s) in enumerate(parsed):
            if cond is None and k == len(parsed) - 1 and k or \
                    cond is not None and cond(x):
                chosen = s
                negative_section = k == 1 and x < 0
                break
        if chosen is None:
            if len(parsed) > 1:  # Excel shows ###### in a cell; TEXT's answer unknown
                raise FormatError("no section takes the number")
            # one conditional section that does not take the number: General
            # (apache poi's FormatConditionTests.xlsx: '[<10]#" Wow"' of 10 is "10")
            return _general(x)
    else:
        texts = [s for _, s in parsed]
        if len(texts) >= 2 and x < 0:
            chosen, negative_section = texts[1], True
        elif len(texts) >= 3 and x == 0:
            chosen = texts[2]
        else:
            chosen = texts[0]
    if negative_section:
        x = -x
    tokens = _tokens(chosen)
    if not tokens:
        return "-" if x < 0 else ""
    if any(kind == "general" for kind, _ in tokens):
        return ("-" if x < 0 else "") + "".join(
            _general(abs(x)) if kind == "general" else text_
            for kind, text_ in tokens if kind in ("general", "lit"))
    if _is_datetime(tokens):
        if x < 0:
            # only a lone elapsed count takes a sign: TEXT(-1,"[h]") is "-24",
            # TEXT(-1,"[h]:m") and TEXT(-1,"[s].000") #VALUE! (pycel's text.xlsx,
            # saved by Excel 16 for Windows)
            # In the 1904 date system Excel shows any negative time with its sign
            # (apache poi's ElapsedFormatTests.xlsx: "[h]:m:s.000" of -3.14159 is
            # "-75:23:53.376").
            if [k for k, _ in tokens if k != "lit"] != ["elapsed"] and \
                    not _date1904():
                raise FormatError("a negative date or time")
            return "-" + _datetime(-x, tokens)
        return _datetime(x, tokens)
    if any(kind == "/" for kind, _ in tokens) and any(k in "0#?" for k, _ in tokens):
        return fraction(x, tokens)
    return number(x, tokens)


GENERAL_WIDTH = 11  # characters a General number takes in TEXT, its sign aside


def _general(x: float) -> str:
    """``General`` in TEXT: the number in at most 11 characters besides its sign, as
    Excel writes it in a cell of the standard width (apache poi's
    GeneralFormatTests.xlsx, saved by Excel: 1.2345678912 is "1.234567891",
    112345900000 "1.12346E+11", 1E-9 "0.000000001", 1.123451E-10 "1.12345E-10").

    From 1E-4 up to 1E+11 the number is written in decimals rounded to fit; from 1E-9
    to 1E-4 in decimals only when all its digits fit; otherwise in scientific notation
    with as many decimals as fit (trailing zeros dropped, two exponent digits at
    least)."""
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    v = Decimal(f"{abs(x):.15g}")
    power = v.adjusted()
    if -4 <= power <= 10:
        decimals = max(0, GENERAL_WIDTH - 1 - max(power + 1, 1))
        text = _strip(f"{round_half_up(float(v), decimals):f}")
        if len(text) <= GENERAL_WIDTH:
            return sign + text
    elif -9 <= power <= -5:
        text = _strip(f"{v:f}")
        if len(text) <= GENERAL_WIDTH:
            return sign + text
    return sign + _general_scientific(v)


def _general_scientific(v: Decimal) -> str:
    power = v.adjusted()
    for _ in range(2):
        e_text = f"E{'-' if power < 0 else '+'}{abs(power):02d}"
        decimals = max(0, GENERAL_WIDTH - len(e_text) - 2)
        mantissa = round_half_up(float(v.scaleb(-power)), decimals)
        if mantissa < 10:
            break
        power += 1
    return _strip(f"{mantissa:f}") + e_text


def _strip(text: str) -> str:
    """A decimal text without trailing zeros after its point, nor a bare point."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _date1904() -> bool:
    from ..datesystem import is_active
    return is_active()


LAST_DATE = 2958465  # 31 December 9999, the last date Excel writes


def _datetime(x: float, tokens) -> str:
    """Dates, times and elapsed times; a date or time code for a serial number after
    :data:`LAST_DATE` is #VALUE! (``TEXT(2958466,"h")``), an elapsed count is not
    (``TEXT(71003160,"[hh]")`` is "1704075840"): pycel's text.xlsx, saved by Excel."""
    kinds = [k for k, _ in tokens]
    groups = _second_fractions(tokens)
    frac_digits = max(groups.values(), default=0)
    unit = 10 ** -frac_digits  # seconds
    total = round(x * 86400 / unit) * unit  # seconds, rounded to the unit shown
    day = int(total // 86400)
    secs = total - day * 86400
    h, rem = divmod(secs, 3600)
    mi, s = divmod(rem, 60)
    h, mi = int(h), int(mi)
    calendar = [k for k in kinds if k in ("y", "m", "d", "h", "s", "ampm", "ap")]
    if calendar and day > LAST_DATE:
        raise FormatError("a date after 31 December 9999")
    y, mo, d = serial_date(day) if calendar else (0, 0, 0)
    weekday = (day + 6) % 7
    twelve = "ampm" in kinds or "ap" in kinds
    elapsed_units = {t[0] for k, t in tokens if k == "elapsed"}
    out, k = [], 0
    minutes_ctx = [False] * len(tokens)
    for i, (kind, t) in enumerate(tokens):
        if kind == "m" and len(t) <= 2:
            prev = next((tokens[j] for j in range(i - 1, -1, -1)
                         if tokens[j][0] not in ("lit", ".", "0")), None)
            nxt = next((tokens[j] for j in range(i + 1, len(tokens))
                        if tokens[j][0] not in ("lit", ".", "0")), None)
            if prev is not None and (prev[0] in ("h", "s") or prev[0] == "elapsed" and
                                     prev[1][0] in "hs") or \
                    nxt is not None and (nxt[0] == "s" or nxt[0] == "elapsed" and
                                         nxt[1].startswith("s")):
                minutes_ctx[i] = True
    while k < len(tokens):
        kind, t = tokens[k]
        if kind == "y":
            out.append(str(y) if len(t) > 2 else f"{y % 100:02d}")
        elif kind == "m":
            if minutes_ctx[k]:
                out.append(f"{mi:02d}" if len(t) == 2 else str(mi))
            elif len(t) == 1:
                out.append(str(mo))
            elif len(t) == 2:
                out.append(f"{mo:02d}")
            elif len(t) == 3:
                out.append(_MONTHS[mo - 1][:3])
            elif len(t) == 5:
                out.append(_MONTHS[mo - 1][0])
            else:
                out.append(_MONTHS[mo - 1])
        elif kind == "d":
            if len(t) == 1:
                out.append(str(d))
            elif len(t) == 2:
                out.append(f"{d:02d}")
            elif len(t) == 3:
                out.append(_DAYS[weekday][:3])
            else:
                out.append(_DAYS[weekday])
        elif kind == "h" and "h" in elapsed_units:  # beside [h], h counts hours too
            out.append(str(int(total // 3600)).rjust(len(t), "0"))
        elif kind == "s" and "s" in elapsed_units:
            out.append(str(int(total)).rjust(len(t), "0"))
        elif kind == "h":
            hh = (h % 12 or 12) if twelve else h
            out.append(f"{hh:02d}" if len(t) >= 2 else str(hh))
        elif kind == "s":
            out.append(f"{int(s):02d}" if len(t) >= 2 else str(int(s)))
        elif kind == "elapsed":
            n = {"h": total // 3600, "m": total // 60, "s": total}[t[0]]
            out.append(str(int(n)).rjust(len(t), "0"))
        elif k in groups:  # ".000": the fraction of the second, at its own length
            fraction = round(total - math.floor(total), frac_digits)
            out.append("." + f"{fraction:.{frac_digits}f}"[2:2 + groups[k]])
            k += 1 + groups[k]
            continue
        elif kind == "ampm":
            out.append("PM" if h >= 12 else "AM")  # whatever case the code is in
        elif kind == "ap":
            pm = h >= 12
            letter = t[2] if pm else t[0]
            out.append(letter)
        elif kind == "lit":
            out.append(t)
        elif kind in ".,/":
            out.append(t)
        elif kind in "0#?":
            raise FormatError("digits beside a date or time")
        else:
            out.append(t)
        k += 1
    return "".join(out)


def text(value, format_text):
    """TEXT(value, format_text)."""
    if is_collection(value):
        return each(lambda v: text(v, format_text), value)
    if is_collection(format_text):  # a format in a cell (or several: one result each)
        formats = values_of(format_text)
        if formats.size != 1:
            return each(lambda f: text(value, f), formats)
        format_text = formats.reshape(-1)[0]
    v = single(value)
    code = single(format_text)
    for x in (v, code):
        if isinstance(x, XlError):
            return x
    code = "" if code is sh.EMPTY else (code if isinstance(code, str) else
                                        _plain_text(code))
    if isinstance(v, (bool, np.bool_)):  # TRUE and FALSE take the text section
        return _text_section(code, "TRUE" if v else "FALSE")
    if v is sh.EMPTY:
        v = 0.0
    if isinstance(v, str):
        number = number_from_text(v)
        if number is None:
            return _text_section(code, v)
        v = number
    if not is_number(v):
        return XL["#VALUE!"]
    try:
        return format_value(float(v), code)
    except (FormatError, ValueError, ArithmeticError, IndexError):
        _note(f"TEXT: the format {code!r} is not one the engine reads")
        return XL["#VALUE!"]


def _text_section(code: str, v: str):
    """A text (or TRUE/FALSE) in ``code``: its text section with ``@`` standing for
    the text (``TEXT("jello",";;;-@-")`` is "-jello-"), else the text as it is; a
    format that does not read is #VALUE!."""
    try:
        sections, text_section = split_sections(code)
        for section in sections:
            _check(_tokens(_condition(section)[1]))
        if text_section is None:
            return v
        return "".join(v if kind == "@" else t for kind, t in _tokens(text_section))
    except FormatError:
        _note(f"TEXT: the format {code!r} is not one the engine reads")
        return XL["#VALUE!"]


def _note(reason: str) -> None:
    """Leave the reason behind an error for the run's report."""
    error("#VALUE!", reason)


def _plain_text(v) -> str:
    from .text import text_of
    return text_of(v)


def install(table, put) -> None:
    put(table, "TEXT", text)

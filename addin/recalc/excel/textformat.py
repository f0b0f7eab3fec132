"""TEXT(value, format_text): Excel's number formats, as Microsoft's "Number format
codes" page describes them.

* Up to four sections ``positive;negative;zero;text``; a negative number shown by the
  second section loses its sign (``TEXT(-5,"0;(0)")`` is "(5)"); ``[>100]``-style
  conditions pick a section; ``@`` is the text. A text that reads as a number is
  formatted as that number (``TEXT("1.5","0.00")`` is "1.50"), other text comes back
  as it is; TRUE/FALSE come back as "TRUE"/"FALSE".
* Digits ``0`` ``#`` ``?``, a decimal point, thousands separators (``#,##0``) and
  scaling by a trailing comma (``0,`` shows thousands), ``%``, ``E+00``/``E-00``;
  literal text in quotes, ``\\x``, ``_x`` (a space) and ``*x`` (no fill in a formula).
  The number is rounded half away from zero at the digits shown, taking it as Excel
  holds it (15 significant digits: ``TEXT(0.285,"0.00")`` is "0.29").
* Fractions ``# ?/?``, ``# ??/??``, ``?/8``: the closest fraction with at most that many
  denominator digits (or that fixed denominator).
* Dates and times: ``yy yyyy m mm mmm mmmm mmmmm d dd ddd dddd h hh m mm s ss``
  (``m`` after ``h`` or before ``s`` is minutes), ``AM/PM`` ``A/P``, elapsed ``[h]``
  ``[m]`` ``[s]`` (``TEXT(1.5,"[h]:mm")`` is "36:00"), fractions of a second ``ss.00``;
  the time is rounded to the smallest unit shown; AM/PM is written in capitals whatever
  the case of the code, A/P in the case written. English month and day names; any other
  letter stands for itself (``TEXT(2,"xxx")`` is "xxx").

Two decimal points in a section, or thousands separators with text among the digits,
are #VALUE! with the reason: Excel's placement there is not published.
``General`` writes a number as Excel's General format when that takes at most 11
characters ("0.5", "1234.5"); beyond, Excel shortens it by width rules it does not
publish, and the answer is #VALUE! with the reason, as for any format this module does
not read -- never a guess.
"""
from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from .parse import number_from_text, serial_date
from .values import XL, each, error, is_collection, is_number, single, values_of

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


class FormatError(ValueError):
    """A format code TEXT does not read."""


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


_COND = re.compile(r"\[(<=|>=|<>|<|>|=)(-?[0-9.]+)\]")
_BRACKET = re.compile(r"\[[^\]]*\]")


def _condition(section: str):
    m = _COND.search(section)
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
            elif not (inner.startswith("$") or inner in ("red", "black", "blue", "green",
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
        elif ch.isalpha() and ch.lower() in "begn":
            raise FormatError(section)  # codes of other calendars and locales
        else:  # any other character, letters among them, stands for itself
            out.append(("lit", ch))
            k += 1
    return out


def _check(tokens) -> None:
    """FormatError for a section that mixes digit codes with date or time codes."""
    if _is_datetime(tokens) and any(kind in "0#?" for kind, _ in tokens):
        raise FormatError("digits beside a date or time")


def _is_datetime(tokens) -> bool:
    return any(kind in ("y", "m", "d", "h", "s", "elapsed", "ampm", "ap")
               for kind, _ in tokens)


def format_value(value, code: str) -> str:
    """``value`` (a number) as TEXT(value, code) writes it."""
    sections = _sections(code)
    x = float(value)
    chosen, negative_section = None, False
    parsed = [_condition(s) for s in sections[:4]]
    if any(c is not None for c, _ in parsed):
        numeric = [(c, s) for c, s in parsed[:3]]
        for k, (cond, s) in enumerate(numeric):
            if cond is None and k == len(numeric) - 1 or cond is not None and cond(x):
                chosen = s
                negative_section = k == 1 and x < 0
                break
        if chosen is None:
            chosen = numeric[-1][1]
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
    if any(kind == "general" for kind, _ in tokens):
        return "".join(_general(x) if kind == "general" else text_
                       for kind, text_ in tokens if kind in ("general", "lit"))
    if _is_datetime(tokens):
        if x < 0:
            raise FormatError("a negative date or time")
        return _datetime(x, tokens)
    if any(kind == "/" for kind, _ in tokens) and any(k in "0#?" for k, _ in tokens):
        return _fraction(x, tokens)
    return _number(x, tokens)


GENERAL_WIDTH = 11  # characters: a General number that needs more is not written here


def _general(x: float) -> str:
    """``General`` for a number whose 15-digit text has at most 11 characters (Excel
    then writes exactly that); a longer one Excel shortens by rules of width that are
    not published: FormatError."""
    from .text import general
    text = general(x)
    if len(text) > GENERAL_WIDTH:
        raise FormatError("General for a number of more than 11 characters")
    return text


def _round(x: float, digits: int) -> Decimal:
    return Decimal(f"{x:.15g}").quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def _number(x: float, tokens) -> str:
    kinds = [k for k, _ in tokens]
    if "E" in kinds:
        return _scientific(x, tokens)
    percent = kinds.count("%")
    point = kinds.index(".") if "." in kinds else None
    digits_at = [i for i, k in enumerate(kinds) if k in "0#?"]
    last_digit = digits_at[-1] if digits_at else -1
    scale = 0  # commas right after the last digit (before the point or the end)
    int_end = point if point is not None else len(kinds)
    if point is not None:
        j = point
        while j - 1 >= 0 and kinds[j - 1] == ",":
            scale += 1
            j -= 1
    else:
        j = last_digit + 1
        while j < len(kinds) and kinds[j] == ",":
            scale += 1
            j += 1
    scaling_commas = set(range(j, j + scale))
    grouping = any(k == "," and i < int_end and i not in scaling_commas and
                   any(d < i for d in digits_at) for i, k in enumerate(kinds))
    if kinds.count(".") > 1:
        raise FormatError("more than one decimal point")
    if grouping and any(kind == "lit" and digits_at[0] < i < last_digit
                        for i, (kind, _) in enumerate(tokens)):
        raise FormatError("thousands separators with text among the digits")
    value = x * 100 ** percent / 1000 ** scale
    int_codes = [tokens[i][1] for i in digits_at if i < int_end]
    dec_codes = [tokens[i][1] for i in digits_at if point is not None and i > point]
    rounded = _round(abs(value), len(dec_codes))
    negative = value < 0 and rounded != 0
    text = f"{rounded:f}"
    int_part, _, dec_part = text.partition(".")
    int_part = int_part.lstrip("0")
    int_at = [i for i in digits_at if i < int_end]
    placed = _integer_digits(int_part, int_codes, grouping)  # position -> its text
    dec_str = ""
    for k, c in enumerate(dec_codes):
        d = dec_part[k] if k < len(dec_part) else "0"
        dec_str += d
    # trailing '#' digits drop zeros, '?' become spaces
    chars = list(dec_str)
    for k in range(len(dec_codes) - 1, -1, -1):
        if chars[k] != "0" or dec_codes[k] == "0":
            break
        chars[k] = "" if dec_codes[k] == "#" else " "
    dec_at = [i for i in digits_at if point is not None and i > point]
    dec_text = dict(zip(dec_at, chars))
    out = []
    for i, (kind, text_) in enumerate(tokens):
        if kind in "0#?":
            out.append(placed[int_at.index(i)] if i in int_at else dec_text.get(i, ""))
        elif kind == ".":
            if not int_at and i == point and int_part:
                out.append(int_part)
            out.append(".")
        elif kind == ",":
            continue
        elif kind == "%":
            out.append("%")
        elif kind == "@":
            raise FormatError("@ in a number section")
        else:
            out.append(text_)
    body = "".join(out)
    return ("-" + body) if negative else body


def _integer_digits(digits: str, codes: list[str], grouping: bool) -> list[str]:
    """The text each integer digit code shows: digits fill the codes from the right;
    a code left over shows 0 ("0"), a space ("?") or nothing ("#"); the leftmost code
    takes the digits beyond the codes. With thousands separators the whole integer
    goes to the first code."""
    if not codes:
        return []
    if grouping:
        need = sum(1 for c in codes if c == "0")
        text = digits.rjust(need, "0") if len(digits) < need else digits
        text = f"{int(text):,}" if text else ""
        if len(text) < len(codes):
            text = "".join(" " if c == "?" else "" for c in codes[:len(codes) - len(text)]) \
                + text
        return [text] + [""] * (len(codes) - 1)
    out = [""] * len(codes)
    rest = digits
    for k in range(len(codes) - 1, -1, -1):
        if rest:
            out[k], rest = rest[-1], rest[:-1]
        else:
            out[k] = {"0": "0", "?": " ", "#": ""}[codes[k]]
    if rest:
        out[0] = rest + out[0]
    return out


def _scientific(x: float, tokens) -> str:
    kinds = [k for k, _ in tokens]
    e_at = kinds.index("E")
    mant_tokens, exp_tokens = tokens[:e_at], tokens[e_at + 1:]
    mk = [k for k, _ in mant_tokens]
    point = mk.index(".") if "." in mk else None
    int_digits = [t for i, (k, t) in enumerate(mant_tokens) if k in "0#?" and
                  (point is None or i < point)]
    dec_digits = [t for i, (k, t) in enumerate(mant_tokens) if k in "0#?" and
                  point is not None and i > point]
    exp_digits = [t for k, t in exp_tokens if k in "0#?"]
    n_int = max(1, len(int_digits))
    if x == 0:
        exponent = 0
        mantissa = Decimal(0)
    else:
        exponent = math.floor(math.log10(abs(x))) - (n_int - 1)
        mantissa = _round(abs(x) / 10 ** exponent, len(dec_digits))
        if mantissa >= Decimal(10) ** n_int:
            exponent += 1
            mantissa = _round(abs(x) / 10 ** exponent, len(dec_digits))
    m_text = f"{mantissa:f}"
    int_part, _, dec_part = m_text.partition(".")
    dec_part = dec_part.ljust(len(dec_digits), "0")
    sign = tokens[e_at][1][1]
    e_sign = "-" if exponent < 0 else ("+" if sign == "+" else "")
    e_text = str(abs(exponent)).rjust(sum(1 for c in exp_digits if c == "0"), "0")
    out = ("-" if x < 0 else "") + int_part
    if dec_digits:
        out += "." + dec_part
    lits = "".join(t for k, t in mant_tokens if k == "lit")
    return lits + out + tokens[e_at][1][0].upper() + e_sign + e_text


def _fraction(x: float, tokens) -> str:
    """``# ?/?``-style codes: the whole part (if the code has one), then the numerator
    right-aligned and the denominator left-aligned in as many places as their codes."""
    kinds = [k for k, _ in tokens]
    slash = kinds.index("/")
    den_tokens = tokens[slash + 1:]
    den_codes = sum(1 for k, _ in den_tokens if k in "0#?")
    fixed = re.match(r"\s*(\d+)", "".join(t for _, t in den_tokens))
    runs, cur = [], []  # runs of digit codes before "/": [whole,] numerator
    for i, (k, _) in enumerate(tokens[:slash]):
        if k in "0#?":
            cur.append(i)
        elif cur:
            runs.append(cur)
            cur = []
    if cur:
        runs.append(cur)
    has_whole = len(runs) >= 2
    num_codes = len(runs[-1]) if runs else 1
    negative, x = x < 0, abs(x)
    whole = math.floor(x) if has_whole else 0
    rest = x - whole
    if fixed and not den_codes:
        den = int(fixed.group(1))
        num = int(_round(rest * den, 0))
        width = len(fixed.group(1))
    else:
        frac = Fraction(rest).limit_denominator(10 ** den_codes - 1)
        num, den = frac.numerator, frac.denominator
        width = den_codes
    if num == den and has_whole:
        whole, num = whole + 1, 0
    sign = "-" if negative and (whole or num) else ""
    if has_whole and num == 0:
        return sign + str(whole) + " " * (num_codes + 1 + width + 1)
    head = (str(whole) if whole else "") + " " if has_whole else ""
    return f"{sign}{head}{str(num).rjust(num_codes)}/{str(den).ljust(width)}"


def _datetime(x: float, tokens) -> str:
    kinds = [k for k, _ in tokens]
    frac_digits = 0
    for i, (k, t) in enumerate(tokens):
        if k == "s" or k == "elapsed" and t.startswith("s"):
            if i + 2 < len(tokens) and tokens[i + 1][0] == "." and tokens[i + 2][0] == "0":
                j = i + 2
                while j < len(tokens) and tokens[j][0] == "0":
                    j += 1
                frac_digits = j - i - 2
    unit = 10 ** -frac_digits  # seconds
    total = round(x * 86400 / unit) * unit  # seconds, rounded to the unit shown
    day = int(total // 86400)
    secs = total - day * 86400
    h, rem = divmod(secs, 3600)
    mi, s = divmod(rem, 60)
    h, mi = int(h), int(mi)
    y, mo, d = serial_date(day)
    weekday = (day + 6) % 7
    twelve = "ampm" in kinds or "ap" in kinds
    out, k = [], 0
    minutes_ctx = [False] * len(tokens)
    for i, (kind, t) in enumerate(tokens):
        if kind == "m" and len(t) <= 2:
            prev = next((tokens[j] for j in range(i - 1, -1, -1)
                         if tokens[j][0] not in ("lit", ".", "0")), None)
            nxt = next((tokens[j] for j in range(i + 1, len(tokens))
                        if tokens[j][0] not in ("lit", ".", "0")), None)
            if prev is not None and (prev[0] == "h" or prev[0] == "elapsed" and
                                     prev[1].startswith("h")) or \
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
        elif kind == "h":
            hh = (h % 12 or 12) if twelve else h
            out.append(f"{hh:02d}" if len(t) >= 2 else str(hh))
        elif kind == "s":
            out.append(f"{int(s):02d}" if len(t) >= 2 else str(int(s)))
            if frac_digits and k + 1 < len(tokens) and tokens[k + 1][0] == ".":
                fraction = round(s - int(s), frac_digits)
                out.append("." + f"{fraction:.{frac_digits}f}"[2:])
                k += 2 + frac_digits
                continue
        elif kind == "elapsed":
            n = {"h": total // 3600, "m": total // 60, "s": total}[t[0]]
            out.append(str(int(n)).rjust(len(t), "0"))
            if t[0] == "s" and frac_digits and k + 1 < len(tokens) and \
                    tokens[k + 1][0] == ".":
                fraction = round(total - int(total), frac_digits)
                out.append("." + f"{fraction:.{frac_digits}f}"[2:])
                k += 2 + frac_digits
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
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if v is sh.EMPTY:
        v = 0.0
    if isinstance(v, str):
        number = number_from_text(v)
        if number is None:
            sections = _sections(code)
            try:
                for section in sections:
                    _check(_tokens(_condition(section)[1]))
            except FormatError:
                _note(f"TEXT: the format {code!r} is not one the engine reads")
                return XL["#VALUE!"]
            if len(sections) >= 4:
                return "".join(t if k != "@" else v for k, t in _tokens(sections[3]))
            return v
        v = number
    if not is_number(v):
        return XL["#VALUE!"]
    if code == "":
        return ""
    try:
        return format_value(float(v), code)
    except (FormatError, ValueError, OverflowError, IndexError):
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

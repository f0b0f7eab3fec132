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
from decimal import ROUND_HALF_UP, Decimal, localcontext
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


_COND = re.compile(r"\[\s*(<=|>=|<>|<|>|=)\s*(-?[0-9.]+)\s*\]")


def _condition(section: str):
    """(test, section without it) for a ``[>100]``-style condition (spaces allowed
    inside: ``[< 10]``); (None, section) without one."""
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
    """FormatError for a section that mixes digit codes with date or time codes."""
    if _is_datetime(tokens) and any(kind in "0#?" for kind, _ in tokens):
        raise FormatError("digits beside a date or time")


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
    return numeric or [""], text_section


def format_value(value, code: str) -> str:
    """``value`` (a number) as TEXT(value, code) writes it."""
    sections, _ = split_sections(code)
    x = float(value)
    chosen, negative_section = None, False
    parsed = [_condition(s) for s in sections]
    if any(c is not None for c, _ in parsed):
        for k, (cond, s) in enumerate(parsed):
            if cond is None and k == len(parsed) - 1 and k or \
                    cond is not None and cond(x):
                chosen = s
                negative_section = k == 1 and x < 0
                break
        if chosen is None:  # no section takes the number: General
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
        return _fraction(x, tokens)
    return _number(x, tokens)


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
        text = _strip(f"{_round(float(v), decimals):f}")
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
        mantissa = _round(float(v.scaleb(-power)), decimals)
        if mantissa < 10:
            break
        power += 1
    return _strip(f"{mantissa:f}") + e_text


def _strip(text: str) -> str:
    """A decimal text without trailing zeros after its point, nor a bare point."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _round(x: float, digits: int) -> Decimal:
    """``x`` as Excel holds it (15 significant digits), rounded half away from zero to
    ``digits`` decimals."""
    with localcontext() as ctx:
        ctx.prec = 400
        return Decimal(f"{x:.15g}").quantize(Decimal(1).scaleb(-digits),
                                             rounding=ROUND_HALF_UP)


_DIGIT = "0#?"
_PAD = {"0": "0", "?": " ", "#": ""}  # what a digit code shows where no digit falls


def _is_digit(token) -> bool:
    return token[0] in _DIGIT


def _commas(tokens, scientific: bool = False):
    """Each comma's role, and the tokens without the commas that vanish.

    A comma between two digit codes turns on thousands separators; a run of commas
    after a digit code that is followed by the decimal point, or by no further digit
    code, divides the number by 1000 each (``0,`` shows thousands, ``0.0,,`` millions);
    one after a digit code with more digits to come later is dropped; a comma after
    anything else is literal text (``,0`` shows ",1234567"). In a scientific format a
    comma never scales. Returns (tokens, grouping, scale)."""
    out, grouping, scale, k = [], False, 0, 0
    point = next((i for i, (kind, _) in enumerate(tokens) if kind in ".E"), len(tokens))
    while k < len(tokens):
        kind = tokens[k][0]
        if kind != ",":
            out.append(tokens[k])
            k += 1
            continue
        run_end = k
        while run_end < len(tokens) and tokens[run_end][0] == ",":
            run_end += 1
        after_digit = k > 0 and (_is_digit(tokens[k - 1]) or
                                 scientific and tokens[k - 1][0] == ".")
        if not after_digit:
            out.extend(("lit", ",") for _ in range(k, run_end))
        elif run_end < len(tokens) and _is_digit(tokens[run_end]):
            grouping = grouping or k < point  # among decimals a comma is dropped
        elif scientific:
            pass
        elif (run_end < len(tokens) and tokens[run_end][0] == "." or
              not any(_is_digit(t) for t in tokens[run_end:])):
            scale += run_end - k
        k = run_end
    return out, grouping, scale


def _place_integer(digits: str, tokens, grouping: bool) -> list[str]:
    """The integer part written into its tokens (digit codes and literal text).

    The digits fill the digit codes from the right; the leftmost code takes any digits
    beyond the codes; a code left over shows "0" (``0``), a space (``?``) or nothing
    (``#``). Thousands separators go after every third place from the right, digits
    and padding alike: a comma after a "0", a space after a ``?`` space
    (``?,?????????`` writes 1234567 as "    1,234,567"). Returns the text of each
    token."""
    codes = [i for i, t in enumerate(tokens) if _is_digit(t)]
    slots: dict[int, list[tuple[str, str]]] = {}  # token -> [(char, kind)]
    rest = digits
    for n, i in enumerate(reversed(codes)):
        first = n == len(codes) - 1
        if rest:
            take = rest if first else rest[-1]
            rest = "" if first else rest[:-1]
            slots[i] = [(c, "d") for c in take]
        else:
            slots[i] = [(_PAD[tokens[i][0]], tokens[i][0])]
    chars = [(i, c, kind) for i in codes for c, kind in slots[i]]
    total = len(chars)
    text = {i: "" for i in range(len(tokens))}
    for n, (i, c, kind) in enumerate(chars):
        text[i] += c
        place = total - 1 - n
        if grouping and place and place % 3 == 0:
            text[i] += {"d": ",", "0": ",", "?": " ", "#": ""}[kind]
    for i, t in enumerate(tokens):
        if not _is_digit(t):
            text[i] = _literal(t)
    return [text[i] for i in range(len(tokens))]


def _place_decimals(digits: str, tokens) -> list[str]:
    """The decimals written into their tokens: one digit to each code, left to right;
    a zero after the last significant digit shows "0" (``0``), a space (``?``) or
    nothing (``#``), each code on its own (``#.#####00#0`` writes .456789 as
    ".45678900")."""
    codes = [i for i, t in enumerate(tokens) if _is_digit(t)]
    significant = len(digits.rstrip("0"))
    text = [_literal(t) for t in tokens]
    for n, i in enumerate(codes):
        d = digits[n] if n < len(digits) else "0"
        text[i] = d if n < significant else _PAD[tokens[i][0]]
    return text


def _literal(token) -> str:
    kind, t = token
    if kind in ("lit", "%", "/", "."):
        return t
    if kind == "@":
        raise FormatError("@ in a number section")
    if kind in ("currency",):
        return t
    return t


def _refuse_locale_spaces(tokens) -> None:
    """FormatError for ``# ##0,00``: a space between integer digit codes and a comma
    followed only by ``0`` codes at the end -- the thousands space and decimal comma of
    locales such as French or Swedish, which Excel in those locales reads so (EPPlus's
    FormulaTest.xlsx, saved by a Swedish Excel: "349 578 723 238,40"). Excel in
    English reads spaces as literal text and the comma as thousands
    (``0,## ##, ##`` writes 1234567890 as "1,234,56 7,8 90", formulas' test.xlsx).
    The engine reads formats as English Excel does and cannot tell which was meant
    here."""
    kinds = [k for k, _ in tokens]
    if "," not in kinds or "." in kinds:
        return
    last = len(kinds) - 1 - kinds[::-1].index(",")
    tail = kinds[last + 1:]
    spaced = any(tokens[i] == ("lit", " ") and _is_digit(tokens[i + 1]) and
                 any(_is_digit(t) for t in tokens[:i]) for i in range(1, last))
    if spaced and tail and set(tail) == {"0"} and last and kinds[last - 1] == "0":
        raise FormatError("a space between digits and a decimal comma: a locale's "
                          "separators")


def _split_point(tokens):
    """(integer tokens, decimal tokens or None): the first point divides; any later
    point is literal text among the decimals (``#.###.#`` writes "890123.456.8")."""
    kinds = [k for k, _ in tokens]
    if "." not in kinds:
        return tokens, None
    p = kinds.index(".")
    dec = [("lit", ".") if k == "." else (k, t) for k, t in tokens[p + 1:]]
    return tokens[:p], dec


def _number(x: float, tokens) -> str:
    """A number in a format of digit codes, a decimal point, commas, percent signs and
    literal text, all kept in their places; the sign goes in front."""
    if any(k == "E" for k, _ in tokens):
        return _scientific(x, tokens)
    _refuse_locale_spaces(tokens)
    tokens, grouping, scale = _commas(tokens)
    percent = sum(1 for k, _ in tokens if k == "%")
    int_tokens, dec_tokens = _split_point(tokens)
    n_dec = sum(1 for t in (dec_tokens or []) if _is_digit(t))
    value = _round(abs(x) * 100 ** percent / 1000 ** scale, n_dec) if x else Decimal(0)
    int_digits, _, dec_digits = f"{value:f}".partition(".")
    int_digits = int_digits.lstrip("0")
    body = _integer_text(int_digits, int_tokens, grouping, dec_tokens is not None)
    if dec_tokens is not None:
        body += "." + "".join(_place_decimals(dec_digits, dec_tokens))
    negative = x < 0 and value != 0
    return ("-" + body) if negative else body


def _integer_text(int_digits: str, int_tokens, grouping: bool, has_point: bool) -> str:
    if not any(_is_digit(t) for t in int_tokens):
        # no integer digit codes: the integer part stands before the point, or at the
        # end of a format without a point
        head = "".join(_literal(t) for t in int_tokens)
        if has_point:
            return head + (_group(int_digits) if grouping else int_digits)
        return head
    return "".join(_place_integer(int_digits, int_tokens, grouping))


def _group(digits: str) -> str:
    return f"{int(digits):,}" if digits else ""


def _scientific(x: float, tokens) -> str:
    """``0.00E+00``-style formats: the mantissa has as many integer digits as its codes
    allow, the exponent is a multiple of that number (``##0.0E+0`` writes engineering
    notation), literal text stays where it stands, ``%`` shows without scaling, the
    exponent's sign stands before its digits (``E-`` shows only a minus)."""
    tokens, grouping, _ = _commas(tokens, scientific=True)
    e_at = next(i for i, (k, _) in enumerate(tokens) if k == "E")
    mant, exp_tokens = tokens[:e_at], tokens[e_at + 1:]
    if any(k == "." for k, _ in exp_tokens):
        # formulas' test.xlsx: Excel answers #VALUE! for "0##e+8800###  .  #"
        raise FormatError("a decimal point in the exponent")
    int_tokens, dec_tokens = _split_point(mant)
    n_int = max(1, sum(1 for t in int_tokens if _is_digit(t)))
    n_dec = sum(1 for t in (dec_tokens or []) if _is_digit(t))
    if x == 0:
        exponent, mantissa = 0, Decimal(0)
    else:
        v = Decimal(f"{abs(x):.15g}")
        exponent = (v.adjusted() // n_int) * n_int
        mantissa = _round(float(v.scaleb(-exponent)), n_dec)
        if mantissa >= Decimal(10) ** n_int:
            exponent += n_int
            mantissa = _round(float(v.scaleb(-exponent)), n_dec)
    int_digits, _, dec_digits = f"{mantissa:f}".partition(".")
    int_digits = int_digits.lstrip("0")
    if x == 0:  # a zero mantissa shows a 0 in every integer code
        int_tokens = [("0", "0") if _is_digit(t) else t for t in int_tokens]
    out = ("-" if x < 0 else "") + _integer_text(int_digits, int_tokens, grouping,
                                                  dec_tokens is not None)
    if dec_tokens is not None:
        out += "." + "".join(_place_decimals(dec_digits, dec_tokens))
    e_text = tokens[e_at][1]
    out += e_text[0]
    sign = "-" if exponent < 0 else ("+" if e_text[1] == "+" else "")
    exp_codes = [i for i, t in enumerate(exp_tokens) if _is_digit(t)]
    exp_text = _place_integer(str(abs(exponent)), exp_tokens, False)
    if exp_codes and not str(abs(exponent)).strip("0") and \
            not "".join(exp_text[i] for i in exp_codes).strip():
        exp_text[exp_codes[-1]] = "0"  # an exponent of 0 shows at least "0"
    elif exp_codes and "".join(exp_text[i] for i in exp_codes).strip() == "":
        exp_text[exp_codes[-1]] = str(abs(exponent))
    first = exp_codes[0] if exp_codes else len(exp_tokens)
    exp_text = [(sign + t) if i == first else t for i, t in enumerate(exp_text)]
    if not exp_codes:
        exp_text.append(sign)
    return out + "".join(exp_text)


def _fraction(x: float, tokens) -> str:
    """``# ?/?``-style formats. The numerator is the last run of digit codes before the
    slash; digit codes before it hold the whole number, with the literal text between
    them kept; literal text around the slash stays. The denominator is the best with at
    most as many digits as its codes (or the fixed one written, ``# ?/8``). A whole
    number of zero leaves its codes and the text after them out (``#``), as spaces
    (``?``) or as "0" (``0``). A number with no fraction shows the whole number and,
    for the rest, as many spaces as it has characters if any code is ``?``, else
    nothing -- unless the numerator has a ``0`` code, which shows "0/1"."""
    slash = next(i for i, (k, _) in enumerate(tokens) if k == "/")
    before, after = tokens[:slash], tokens[slash + 1:]
    codes = [i for i, t in enumerate(before) if _is_digit(t)]
    num_run = [codes[-1]]
    for i in reversed(codes[:-1]):
        if i == num_run[0] - 1:
            num_run.insert(0, i)
        else:
            break
    whole_codes = [i for i in codes if i < num_run[0]]
    has_whole = bool(whole_codes)
    # the denominator: a fixed number, or the first run of digit codes
    k = 0
    while k < len(after) and after[k][0] == "lit" and not after[k][1].isdigit():
        k += 1
    fixed_text, j = "", k
    while j < len(after) and (after[j][0] == "lit" and after[j][1].isdigit() or
                              after[j][0] == "0" and fixed_text):
        fixed_text += after[j][1]
        j += 1
    if fixed_text and fixed_text[0] != "0":
        den_span = (k, j)
        den_codes = None
        fixed = int(fixed_text)
    else:
        fixed = None
        dcodes = [i for i, t in enumerate(after) if _is_digit(t)]
        if not dcodes:
            raise FormatError("a fraction without a denominator")
        run = [dcodes[0]]
        for i in dcodes[1:]:
            if i == run[-1] + 1:
                run.append(i)
            else:
                break
        den_span = (run[0], run[-1] + 1)
        den_codes = [after[i][0] for i in run]
    negative, v = x < 0, float(Decimal(f"{abs(x):.15g}"))
    whole = math.floor(v) if has_whole else 0
    rest = v - whole
    if fixed is not None:
        den = fixed
        num = int(_round(rest * den, 0))
    else:
        frac = Fraction(rest).limit_denominator(10 ** len(den_codes) - 1)
        num, den = frac.numerator, frac.denominator
    if has_whole and num == den:
        whole, num = whole + 1, 0
    all_codes = [before[i][0] for i in codes] + (den_codes or [])
    num_codes = [before[i][0] for i in num_run]
    sign = "-" if negative and (whole or num) else ""
    head = [_literal(t) for t in before[:whole_codes[0]]] if has_whole else \
        [_literal(t) for t in before[:num_run[0]]]
    tail = [_literal(t) for t in after[den_span[1]:]]
    if has_whole:
        whole_tokens = before[whole_codes[0]:whole_codes[-1] + 1]
        separator = "".join(_literal(t) for t in before[whole_codes[-1] + 1:num_run[0]])
    out = list(head)
    if has_whole:
        whole_text = _place_integer(str(whole) if whole else "", whole_tokens, False)
        last = max(i for i, t in enumerate(whole_tokens) if _is_digit(t))
        kinds = [t[0] for t in whole_tokens if _is_digit(t)]
        if num == 0 and "0" not in num_codes:  # no fraction to show
            if not whole:
                whole_text[last] = "0"
            width = len(separator) + sum(
                1 if _is_digit(t) else len(_literal(t))
                for t in before[num_run[0]:] + [tokens[slash]] + after[:den_span[1]])
            fill = " " * width if "?" in all_codes else ""
            return sign + "".join(out + whole_text) + fill + "".join(tail)
        if whole:
            out += whole_text + [separator]
        elif num == 0:  # "0/1" follows
            if kinds[-1] != "#":
                whole_text[last] = "0"
                out += whole_text + [separator]
            else:
                out += whole_text
        else:
            out += whole_text
            if "0" in kinds:
                out.append(separator)
            elif "?" in kinds or "?" in num_codes:
                out.append(" " * len(separator))
    num_text = _place_integer(str(num) if num else "", before[num_run[0]:num_run[-1] + 1],
                              False)
    if num == 0:
        num_text[-1] = "0"
    out += num_text
    out += [_literal(t) for t in before[num_run[-1] + 1:]] + ["/"]
    out += [_literal(t) for t in after[:den_span[0]]]
    if fixed is not None:
        out.append(fixed_text)
    else:
        d = str(den)
        zeros = den_codes.count("0")
        d = d.rjust(zeros, "0")
        d = d.ljust(zeros + den_codes.count("?"))
        out.append(d)
    return sign + "".join(out + tail)


def _date1904() -> bool:
    from ..datesystem import is_active
    return is_active()


LAST_DATE = 2958465  # 31 December 9999, the last date Excel writes


def _datetime(x: float, tokens) -> str:
    """Dates, times and elapsed times; a date or time code for a serial number after
    :data:`LAST_DATE` is #VALUE! (``TEXT(2958466,"h")``), an elapsed count is not
    (``TEXT(71003160,"[hh]")`` is "1704075840"): pycel's text.xlsx, saved by Excel."""
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
    except (FormatError, ValueError, OverflowError, IndexError):
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

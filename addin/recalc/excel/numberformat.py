"""Numbers in TEXT's formats of digit codes: plain numbers, scientific notation and
fractions, as Excel writes them (apache poi's NumberFormatTests.xlsx and
NumberFormatApproxTests.xlsx, pycel's text.xlsx and formulas' test.xlsx, all saved by
Excel; ``tests/test_text_formats.py`` names the cell of each value).

A section arrives as tokens (kind, text) from :func:`.textformat._tokens`: digit codes
``0`` ``#`` ``?``, ``.``, ``,``, ``%``, ``/``, ``E`` (``E+`` ``E-`` ``e+`` ``e-``) and
literal text ("lit"). Every literal keeps its place among the digits; the minus sign
goes in front of everything.

* Integer digits fill the digit codes from the right, the leftmost code taking any
  beyond; a code left over shows "0" (``0``), a space (``?``) or nothing (``#``).
* A comma between two integer digit codes turns on thousands separators, which fall
  after every third place wherever the digits go, padding included
  (``?,?????????`` writes 1234567 as "    1,234,567"); commas after the last digit
  code, before the point or at the end, divide by 1000 each (``0.#,`` "1234.6"); a
  comma after anything but a digit code is literal text (``,0`` ",1234567").
* The first point is the decimal point, any later one literal text among the decimals
  (``#.###.##.#`` "890123.456.78.9"); each trailing decimal zero shows per its own code.
* Scientific: the exponent is a multiple of the mantissa's integer digit codes
  (engineering notation for three), ``%`` shows without scaling, the exponent's sign
  stands before its digits.
* Fractions: the numerator is the last run of digit codes before "/", the codes before
  it hold the whole number; the denominator is the best with at most as many digits as
  its codes, or the fixed one written (``# ?/8``).
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, localcontext


class FormatError(ValueError):
    """A format code TEXT does not read."""


def round_half_up(x: float, digits: int) -> Decimal:
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


def _digit_like(token) -> bool:
    """A digit code, or a literal digit 1-9, which Excel counts as a digit when it
    reads the commas beside it (``01,`` scales: "12351"; ``0, 9`` does not)."""
    return _is_digit(token) or token[0] == "lit" and token[1] in "123456789"


def _commas(tokens, scientific: bool = False):
    """Each comma's role, and the tokens without the commas that vanish.

    A run of commas after a digit (or after the point) is a thousands separator when a
    digit follows it at once, divides the number by 1000 for each comma when the point
    or no further digit follows (``0,`` shows thousands, ``0.0,,`` millions,
    ``0.,`` "1235."), and is dropped when a digit comes later (``0,x0``); a comma after
    anything else is literal text (``,0`` shows ",1234567", ``0 ,,`` "1234568 ,"). A
    comma among the decimals never groups, one in a scientific format never scales
    (apache poi's NumberFormatTests and NumberFormatApproxTests; borgar/numfmt's
    comma tests, conformed to Excel 16 for Mac). Returns (tokens, grouping, scale)."""
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
        after_digit = k > 0 and (_digit_like(tokens[k - 1]) or tokens[k - 1][0] == ".")
        if not after_digit:
            out.append(("lit", ","))
        elif run_end < len(tokens) and _digit_like(tokens[run_end]):
            grouping = grouping or k < point  # among decimals a comma is dropped
        elif scientific:
            pass
        elif (run_end < len(tokens) and tokens[run_end][0] == "." or
              not any(_digit_like(t) for t in tokens[run_end:])):
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


def number(x: float, tokens) -> str:
    """A number in a format of digit codes, a decimal point, commas, percent signs and
    literal text, all kept in their places; the sign goes in front."""
    if any(k == "E" for k, _ in tokens):
        return scientific(x, tokens)
    _refuse_locale_spaces(tokens)
    tokens, grouping, scale = _commas(tokens)
    percent = sum(1 for k, _ in tokens if k == "%")
    int_tokens, dec_tokens = _split_point(tokens)
    n_dec = sum(1 for t in (dec_tokens or []) if _is_digit(t))
    value = round_half_up(abs(x) * 100 ** percent / 1000 ** scale, n_dec) if x else Decimal(0)
    int_digits, _, dec_digits = f"{value:f}".partition(".")
    int_digits = int_digits.lstrip("0")
    body = _integer_text(int_digits, int_tokens, grouping, n_dec > 0)
    if dec_tokens is not None:
        body += "." + "".join(_place_decimals(dec_digits, dec_tokens))
    # the minus goes where a digit shows other than 0, or where no digit code is
    # (borgar/numfmt's issue 1 on Excel: TEXT(-0.01,"0.0") is "0.0", TEXT(-0.01,"x")
    # "-x")
    negative = x < 0 and (value != 0 or not any(_is_digit(t) for t in tokens))
    return ("-" + body) if negative else body


def _integer_text(int_digits: str, int_tokens, grouping: bool, has_point: bool) -> str:
    if not any(_is_digit(t) for t in int_tokens):
        # no integer digit codes: the integer part stands before the point when
        # decimal codes follow (".00" writes 12.5 as "12.50"; "." alone is ".")
        head = "".join(_literal(t) for t in int_tokens)
        if has_point:
            return head + (_group(int_digits) if grouping else int_digits)
        return head
    return "".join(_place_integer(int_digits, int_tokens, grouping))


def _group(digits: str) -> str:
    return f"{int(digits):,}" if digits else ""


def scientific(x: float, tokens) -> str:
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
    n_int = sum(1 for t in int_tokens if _is_digit(t))
    n_dec = sum(1 for t in (dec_tokens or []) if _is_digit(t))
    if x == 0:
        exponent, mantissa = 0, Decimal(0)
    else:
        v = Decimal(f"{abs(x):.15g}")
        if n_int:
            exponent = (v.adjusted() // n_int) * n_int
        else:  # no integer code: the mantissa below 1 (".0E+0" writes 1 as ".1E+1")
            exponent = v.adjusted() + 1
        step = max(n_int, 1)
        mantissa = round_half_up(float(v.scaleb(-exponent)), n_dec)
        if mantissa >= Decimal(10) ** n_int:
            exponent += step
            mantissa = round_half_up(float(v.scaleb(-exponent)), n_dec)
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
        exp_text.insert(0, sign)  # "0.0E+1": the sign, then the literal 1
    return out + "".join(exp_text)


def fraction(x: float, tokens) -> str:
    """``# ?/?``-style formats. The numerator is the last run of digit codes before the
    slash; digit codes before it hold the whole number, with the literal text between
    them kept; literal text around the slash stays. The fraction is Excel's convergent
    (:func:`convergent`) with at most as many denominator digits as its codes, or over
    the fixed denominator written (``# ?/8``, not reduced: 123.45 is "123 4/8"). A whole
    number of zero leaves its codes and the text after them out (``#``), as spaces
    (``?``) or as "0" (``0``). A number with no fraction shows the whole number and,
    for the rest, as many spaces as it has characters if any code is ``?``, else
    nothing -- unless the numerator has a ``0`` code, which shows "0/1"."""
    slash = next(i for i, (k, _) in enumerate(tokens) if k == "/")
    before, after = tokens[:slash], tokens[slash + 1:]
    codes = [i for i, t in enumerate(before) if _is_digit(t)]
    if not codes:
        raise FormatError("a fraction without a numerator")
    num_run = [codes[-1]]
    for i in reversed(codes[:-1]):
        if i == num_run[0] - 1:
            num_run.insert(0, i)
        else:
            break
    if any(k == "," for k, _ in before[max(num_run[0] - 1, 0):] + after):
        # borgar/numfmt's comma tests (Excel 16 for Mac): "0,0/0" and "0/0,0" are
        # not formats Excel takes
        raise FormatError("a comma beside a fraction's numerator or denominator")
    whole_codes = [i for i in codes if i < num_run[0]]
    has_whole = bool(whole_codes)
    grouping = False
    if has_whole:  # commas among the whole number's codes separate thousands
        whole_part, grouping, _ = _commas(before[:num_run[0]])
        before = whole_part + before[num_run[0]:]
        tokens = before + [tokens[slash]] + after
        slash = len(before)
        codes = [i for i, t in enumerate(before) if _is_digit(t)]
        num_run = codes[-len(num_run):]
        whole_codes = codes[:-len(num_run)]
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
    rest = v - whole  # in binary, as Excel takes it: 12.3 - 12 is 0.3000000000000007
    if fixed is not None:
        den = fixed
        num = int(round_half_up(rest * den, 0))
    else:
        num, den = convergent(rest, 10 ** len(den_codes) - 1)
    if has_whole and num == den:
        whole, num = whole + 1, 0
    all_codes = [before[i][0] for i in codes] + (den_codes or [])
    num_codes = [before[i][0] for i in num_run]
    sign = "-" if negative else ""  # even where 0 shows (borgar/numfmt's issue 1)
    head = [_literal(t) for t in before[:whole_codes[0]]] if has_whole else \
        [_literal(t) for t in before[:num_run[0]]]
    # a digit code after the denominator's shows a space (?) or 0 (0 #): "00 00/? ?"
    # writes 12345.67 as "12345 02/3  " (borgar/numfmt's tests, Excel 16 for Mac)
    tail = [{"?": " ", "0": "0", "#": "0"}[t[0]] if _is_digit(t) else _literal(t)
            for t in after[den_span[1]:]]
    if has_whole:
        whole_tokens = before[whole_codes[0]:whole_codes[-1] + 1]
        separator = "".join(_literal(t) for t in before[whole_codes[-1] + 1:num_run[0]])
    out = list(head)
    if has_whole:
        whole_text = _place_integer(str(whole) if whole else "", whole_tokens, grouping)
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


#: a fraction this close to the number ends the search: 0.123251512342345 in
#: ``# ??/?????????`` is 480894/3901729 (3.7E-15 off), not the next convergent
#: 8425007/68356216 (borgar/numfmt's tests, conformed to Excel 16 for Mac); fitted to
#: that one published case, it matters only for denominators of six digits or more
CLOSE_ENOUGH = 1e-14


def convergent(x: float, most: int) -> tuple[int, int]:
    """(numerator, denominator): the last convergent of ``x``'s continued fraction
    whose denominator is at most ``most``, the continued fraction worked out in binary
    floating point as Excel works it. Excel takes a convergent, not the closest
    fraction, and the rounding of binary arithmetic shows: 1.3 in ``# ?/?`` is
    "1 1/3", 0.3 is " 2/7" (borgar/numfmt's tests, conformed to Excel 16 for Mac)."""
    p0, q0, p1, q1 = 0, 1, 1, 0  # the convergents before the first
    rest = x
    while True:
        a = math.floor(rest)
        p, q = a * p1 + p0, a * q1 + q0
        if q > most:
            return (p1, q1) if q1 else (round(x), 1)
        p0, q0, p1, q1 = p1, q1, p, q
        if rest == a or abs(x - p / q) < CLOSE_ENOUGH:
            return p, q
        rest = 1 / (rest - a)

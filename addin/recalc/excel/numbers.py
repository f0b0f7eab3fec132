"""Excel's 15 significant digits, and the arithmetic operators' coercion of text.

Microsoft, "Floating-point arithmetic may give inaccurate results in Excel": Excel
keeps 15 significant digits of precision. So:

* comparisons (``=``, ``<>``, ``<``, ...) and COUNTIF's criteria compare numbers at 15
  significant digits: ``0.1+0.2=0.3`` is TRUE (:func:`compare_numbers`; rounding is
  monotonic, so it can only make two numbers equal, never swap their order);
* ROUND, ROUNDUP, ROUNDDOWN and TRUNC round the number as Excel shows it (15 digits):
  ``ROUND(0.285,2)`` is 0.29 although the double 0.285 is 0.28499999...;
* MROUND rounds a half away from zero (``MROUND(1.3,0.2)`` is 1.4);
* FLOOR, CEILING and their .MATH/.PRECISE forms and ISO.CEILING count multiples of the
  significance at 15 digits (``FLOOR(0.3,0.1)`` is 0.3, not 0.2) and keep the sign of
  a negative number as Microsoft's documentation of each says (``FLOOR.MATH(-2.5)`` is
  -3, ``CEILING.MATH(-5.5)`` is -5, ``FLOOR.PRECISE(-3.2,-1)`` is -4);
* ``0^0`` is #NUM! (Microsoft's POWER documentation) and ``0^-1`` #DIV/0!;
* FACT, FACTDOUBLE and POISSON.DIST truncate their count to a whole number and answer
  a double (:func:`fact`, :func:`factdouble`, :func:`poisson`);
* a comparison reads an empty cell as the other operand's type: "" beside text, FALSE
  beside TRUE/FALSE (``=FALSE=D7`` with D7 empty is TRUE: Excel's saved value in Apache
  POI's FormulaEvalTestData_Copy.xlsx EverythingTests!N35), else 0;
* an arithmetic operator coerces text as VALUE reads it (``"1,234"+0`` is 1234) and a
  text that is not a number is #VALUE!;
* RANDBETWEEN returns a whole number from ``bottom`` rounded up to ``top`` rounded down;
* a formula whose last operation is ``+`` or ``-`` gives 0 when its two operands are
  equal at 15 significant digits (``=0.1+0.2-0.3`` is 0, not 5.55E-17), the rule
  Microsoft's page states ("Example when a value reaches zero": Excel 97 and later
  compensate when an addition or subtraction results in a value at or very close to
  zero; ``=1*(.5-.4-.1)``, whose last operation is the product, keeps -2.78E-17) and
  Apache POI's ExcelArithmetic reads as "the two magnitudes are equal to Excel (same 15
  significant digits)". The formula as a whole in parentheses keeps the residue
  (``=(1.333+1.225-1.333-1.225)`` is -2.22E-16 in Excel: its last token is the
  parenthesis). :func:`mark_last_sum` marks that operation when a formula is compiled;
  :func:`near_zero_column` applies the rule to a column run;
* a double minus coerces: ``--TRUE`` is 1 and ``SUMPRODUCT(--(A1:A9>0))`` counts the
  TRUEs, while ``+TRUE`` stays TRUE. formulas' tokenizer folds a run of signs into one
  (``--`` becomes a unary plus, which returns its operand as it is, so SUMPRODUCT saw
  TRUE/FALSE and gave 0); :func:`install_double_negation` keeps the run's coercion as
  the operator ``u--``: each value as a number, as a minus sign makes it.
"""
from __future__ import annotations

import math
from decimal import ROUND_DOWN, ROUND_HALF_UP, ROUND_UP, Decimal

import numpy as np
import schedula as sh
from formulas.functions import Error, wrap_ufunc

from .coercion import to_number

XL = Error.errors
DIGITS = 15


def round15(x: float) -> float:
    """``x`` rounded to Excel's 15 significant digits."""
    return float(f"{x:.15g}")


def compare_numbers(a, b) -> int:
    """-1, 0 or 1 as ``a`` is less than, equal to or greater than ``b`` at 15
    significant digits."""
    if a == b:
        return 0
    if round15(a) == round15(b):
        return 0
    return -1 if a < b else 1


def equal_columns(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Element by element ``x = y`` at 15 significant digits (float arrays, broadcast):
    exact equality, and a Python check only where two numbers differ in their last
    digits."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    eq = x == y
    with np.errstate(all="ignore"):
        near = ~eq & (np.abs(x - y) <= 1e-14 * np.maximum(np.abs(x), np.abs(y)))
    for idx in zip(*np.nonzero(near)):
        eq[idx] = round15(float(x[idx])) == round15(float(y[idx]))
    return eq


def compare_columns(name: str, x, y) -> np.ndarray:
    """A comparison operator on float arrays, at 15 significant digits."""
    eq = equal_columns(x, y)
    if name == "=":
        return eq
    if name == "<>":
        return ~eq
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    if name == "<":
        return (x < y) & ~eq
    if name == ">":
        return (x > y) & ~eq
    if name == "<=":
        return (x < y) | eq
    return (x > y) | eq  # ">="


def _decimal(x: float) -> Decimal:
    return Decimal(f"{x:.15g}")


def _round(x, digits, mode=ROUND_HALF_UP):
    d = int(digits)
    if not math.isfinite(x):
        return x
    dec = _decimal(x)
    if dec.as_tuple().exponent >= -d:  # no digit beyond the one asked for: as it is
        return float(dec)              # (quantize would need more than 28 digits)
    return float(dec.quantize(Decimal(1).scaleb(-d), rounding=mode))


def _multiple(num, sig, up: bool):
    """``num`` to the multiple ``k * sig`` with ``k`` the ceiling (``up``) or floor of
    ``num / sig`` counted at 15 digits (``FLOOR(-2.5,-2)`` is 1 * -2)."""
    q = round15(num / sig)
    k = math.ceil(q) if up else math.floor(q)
    return round15(k * sig)


def floor_(num, sig):
    """FLOOR: #NUM! for a positive number and a negative significance, #DIV/0! for a
    zero significance (0 for a zero number)."""
    if num == 0:
        return 0.0
    if sig == 0:
        return XL["#DIV/0!"]
    if num > 0 > sig:
        return XL["#NUM!"]
    return _multiple(num, sig, up=False)


def ceiling_(num, sig):
    """CEILING: 0 for a zero significance, #NUM! for a positive number and a negative
    significance."""
    if sig == 0 or num == 0:
        return 0.0
    if num > 0 > sig:
        return XL["#NUM!"]
    return _multiple(num, sig, up=True)


def mround(num, multiple):
    """MROUND: to the nearest multiple, a half away from zero (``MROUND(1.3,0.2)`` is
    1.4, Microsoft's page; formulas rounded halves to even: 1.2); #NUM! when the signs
    differ; 0 for a zero multiple."""
    if multiple == 0 or num == 0:
        return 0.0
    if (num < 0) != (multiple < 0):
        return XL["#NUM!"]
    q = Decimal(f"{num / multiple:.15g}").quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return round15(float(q) * multiple)


def floor_math(num, sig=1.0, mode=0.0):
    """FLOOR.MATH: down (toward -inf) to a multiple of |sig|; a negative number toward
    zero when ``mode`` is not 0."""
    if sig == 0 or num == 0:
        return 0.0
    return _multiple(num, abs(sig), up=num < 0 and mode != 0)


def ceiling_math(num, sig=1.0, mode=0.0):
    """CEILING.MATH: up (toward +inf) to a multiple of |sig|; a negative number away
    from zero when ``mode`` is not 0."""
    if sig == 0 or num == 0:
        return 0.0
    return _multiple(num, abs(sig), up=not (num < 0 and mode != 0))


def floor_precise(num, sig=1.0):
    """FLOOR.PRECISE: down to a multiple of |sig| whatever the signs."""
    if sig == 0 or num == 0:
        return 0.0
    return _multiple(num, abs(sig), up=False)


def ceiling_precise(num, sig=1.0):
    """CEILING.PRECISE and ISO.CEILING: up to a multiple of |sig| whatever the signs."""
    if sig == 0 or num == 0:
        return 0.0
    return _multiple(num, abs(sig), up=True)


def power(x, y):
    if x == 0:
        if y == 0:
            return XL["#NUM!"]
        if y < 0:
            return XL["#DIV/0!"]
    if x < 0 and not float(y).is_integer():
        return XL["#NUM!"]
    try:
        return math.pow(x, y)
    except OverflowError:
        return XL["#NUM!"]


def randbetween(bottom, top):
    low, high = math.ceil(bottom), math.floor(top)
    if low > high:
        return XL["#NUM!"]
    return float(np.random.randint(low, high + 1)) if high - low < 2 ** 62 else \
        float(low + math.floor(np.random.rand() * (high - low + 1)))


#: the largest n whose factorial is a finite double: FACT(171) is #NUM! in Excel
LAST_FACTORIAL = 170


def fact(number):
    """FACT: the factorial of ``number`` truncated (Microsoft's FACT page: "If number is
    not an integer, it is truncated"; negative #NUM!), as a double: FACT(170) is
    7.257415615308E+306 and FACT(171) #NUM!. formulas returned Python's exact integer,
    which no cell holds past 2^63, so FACT(21) and above were #VALUE!."""
    if number < 0:  # before truncating: FACT(-0.5) is #NUM!
        return XL["#NUM!"]
    n = math.trunc(number)
    if n > LAST_FACTORIAL:
        return XL["#NUM!"]
    return float(math.factorial(n))


def factdouble(number):
    """FACTDOUBLE: n(n-2)(n-4)... of ``number`` truncated, 1 for 0 and -1, #NUM! below -1
    (-1.1 too: formulas' test.xlsx, saved by Excel, 'MATH & TRIG'!T31) or past a
    double's range (FACTDOUBLE(300) is 8.15E+307, 301 #NUM!); TRUE/FALSE #VALUE! as
    formulas had it. formulas multiplied in 64-bit integers, which wrapped:
    FACTDOUBLE(300) was 0."""
    from formulas.functions import flatten, raise_errors
    raise_errors(number)
    x = next(flatten(number, None))
    if x is sh.EMPTY:
        x = 0
    if isinstance(x, (bool, np.bool_)):
        return XL["#VALUE!"]
    x = to_number(x)
    if x is None:
        return XL["#VALUE!"]
    if float(x) < -1:  # before truncating: Excel's FACTDOUBLE(-1.1) is #NUM!
        return XL["#NUM!"]
    n = math.trunc(float(x))
    try:
        return float(math.prod(range(n, 0, -2)))
    except OverflowError:
        return XL["#NUM!"]


def poisson(x, mean, cumulative):
    """POISSON.DIST (and POISSON) with ``x`` truncated (Microsoft's POISSON.DIST page:
    "If x is not an integer, it is truncated"): ``POISSON.DIST(F6,G6,0)`` with F6 4/3
    and G6 2 is 0.2706705664732254, Excel's saved value in ClosedXML's
    functions-excel-2010.xlsx Sheet1!B58; scipy's probability of a non-integer count,
    which formulas returned, is 0. x or mean below 0 is #NUM!."""
    from scipy import stats
    if x < 0 or mean < 0:
        return XL["#NUM!"]
    k = math.floor(x)
    return float(stats.poisson.cdf(k, mean) if cumulative else stats.poisson.pmf(k, mean))


def _as_numbers(*values):
    """Each argument as an arithmetic operator or a math function reads it."""
    out = []
    for v in values:
        if v is sh.EMPTY:
            out.append(0.0)
            continue
        x = to_number(v)
        if x is None:
            raise ValueError("not a number")
        out.append(float(x))
    return out


def _ufunc(func):
    return wrap_ufunc(func, input_parser=_as_numbers)


_ROUNDING = {
    "ROUND": lambda x, d=0: _round(x, d),
    "ROUNDUP": lambda x, d=0: _round(x, d, ROUND_UP),
    "ROUNDDOWN": lambda x, d=0: _round(x, d, ROUND_DOWN),
    "TRUNC": lambda x, d=0: _round(x, d, ROUND_DOWN),
    "FLOOR": floor_, "CEILING": ceiling_,
    "FLOOR.MATH": floor_math, "_XLFN.FLOOR.MATH": floor_math,
    "CEILING.MATH": ceiling_math, "_XLFN.CEILING.MATH": ceiling_math,
    "FLOOR.PRECISE": floor_precise, "_XLFN.FLOOR.PRECISE": floor_precise,
    "CEILING.PRECISE": ceiling_precise, "_XLFN.CEILING.PRECISE": ceiling_precise,
    "ISO.CEILING": ceiling_precise, "_XLFN.ISO.CEILING": ceiling_precise,
    "POWER": power, "MROUND": mround,
}

_ARITHMETIC = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: (x / y) if y else XL["#DIV/0!"],
    "^": power,
    "U-": lambda x: -x,
    "%": lambda x: x / 100.0,
}


def _logic_input(x, y):
    """A comparison's operands as formulas' ``logic_input_parser`` types them, an empty
    cell beside TRUE/FALSE read as FALSE (beside text as "", else as 0) and two numbers
    equal at 15 significant digits made equal."""
    from formulas.functions.operators import logic_input_parser
    if x is sh.EMPTY and isinstance(y, (bool, np.bool_)):
        x = False
    elif y is sh.EMPTY and isinstance(x, (bool, np.bool_)):
        y = False
    (xt, x), (yt, y) = logic_input_parser(x, y)
    if xt == yt == 0 and x != y:
        x, y = float(x), float(y)
        if round15(x) == round15(y):
            y = x
    return (xt, x), (yt, y)


def _number(v):
    """The plain number an operand stands for (a single cell's or value's, coerced as
    the operators coerce it), or None (an array, an error, text that is no number)."""
    if hasattr(v, "ranges") and hasattr(v, "value"):  # formulas' Ranges
        try:
            v = v.value
        except Exception:  # noqa: BLE001 - not one readable value: no rule
            return None
    if isinstance(v, np.ndarray):
        if v.size != 1:
            return None
        v = v.reshape(-1)[0]
    if v is sh.EMPTY:
        return 0.0
    x = to_number(v)
    if x is None or isinstance(x, str) or not isinstance(x, (int, float, np.number)):
        return None
    return float(x)


def near_zero(op: str, func):
    """``func``, formulas' binary ``op`` (``+`` or ``-``), as the last operation of a
    formula: 0 where the operands are equal at 15 significant digits (``-``) or
    opposite (``+``); see the module docstring."""
    def last_sum(x, y):
        result = func(x, y)
        r = _number(result) if not isinstance(result, str) else None
        if r is None or r == 0 or not math.isfinite(r):
            return result
        a, b = _number(x), _number(y)
        if a is None or b is None:
            return result
        if round15(a) == round15(-b if op == "+" else b):
            return 0.0
        return result
    last_sum._zvm_near_zero = op
    return last_sum


def mark_last_sum(tokens, builder) -> None:
    """If the formula parsed into ``tokens`` (in order, parentheses included) and
    ``builder`` (formulas' AST builder, before compiling) ends with a binary ``+`` or
    ``-`` outside parentheses, that operation's function becomes :func:`near_zero`'s."""
    root = builder[-1] if len(builder) else None
    op = getattr(root, "name", None)
    if op not in ("+", "-") or type(root).__name__ != "OperatorToken":
        return
    if _parenthesized(tokens):
        return
    dsp = builder.dsp
    producers = list(dsp.dmap.pred.get(builder.get_node_id(root), ()))
    if len(producers) != 1:
        return
    node = dsp.nodes[producers[0]]
    if len(node.get("inputs", ())) == 2 and not hasattr(node["function"], "_zvm_near_zero"):
        node["function"] = near_zero(op, node["function"])


def _parenthesized(tokens) -> bool:
    """The whole formula is one expression in parentheses: ``(1+2-3)``."""
    depth = 0
    for k, t in enumerate(tokens):
        if type(t).__name__ != "Parenthesis":
            if depth == 0:
                return False
            continue
        depth += 1 if t.name == "(" else -1
        if depth == 0:
            return k == len(tokens) - 1
    return False


def near_zero_column(op: str, x, y, result) -> np.ndarray:
    """:func:`near_zero`'s rule on a column run: ``result`` (``(n, 1)``) with 0 where the
    columns (or shared values) ``x`` and ``y`` are equal (``-``) or opposite (``+``) at
    15 significant digits."""
    out = np.array(result, dtype=object).reshape(-1)
    try:
        xs = np.broadcast_to(np.asarray(x, dtype=float).reshape(-1), out.shape)
        ys = np.broadcast_to(np.asarray(y, dtype=float).reshape(-1), out.shape)
        rs = out.astype(float)
    except (TypeError, ValueError):  # text, errors, ranges: one by one
        n = out.size
        xs_, ys_ = _each(x, n), _each(y, n)
        for k in range(n):
            out[k] = near_zero(op, lambda a, b, r=out[k]: r)(xs_[k], ys_[k])
        return out.reshape(np.shape(result))
    hit = (rs != 0) & np.isfinite(rs) & equal_columns(xs, -ys if op == "+" else ys)
    if hit.any():
        out[hit] = 0.0
    return out.reshape(np.shape(result))


def _each(v, n: int) -> list:
    """``v`` per cell of a run of ``n``: a column's values, or the one shared value."""
    if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == n and v.size == n:
        return v.reshape(-1).tolist()
    return [v] * n


def install_operators(operators) -> None:
    """The arithmetic and comparison operators in formulas' operator table."""
    from formulas.functions.operators import LOGIC_OPERATORS
    if getattr(operators["="], "_zvm_excel", False):
        return
    for name, func in _ARITHMETIC.items():
        operators[name] = _ufunc(func)
    for name, func in LOGIC_OPERATORS.items():
        operators[name] = wrap_ufunc(func, input_parser=_logic_input,
                                     args_parser=lambda *a: a)
    for name in list(_ARITHMETIC) + list(LOGIC_OPERATORS):
        operators[name]._zvm_excel = True


def negate_twice(x):
    """``--x``: ``x`` as a number (TRUE 1, "1,234" 1234); an error stays."""
    return x


def install_double_negation(operators) -> None:
    """Teach formulas' tokenizer that an even run of minus signs before an operand is
    ``u--`` (see the module docstring)."""
    from formulas.tokens import operator as tokens
    token, base = tokens.OperatorToken, tokens.Operator
    if getattr(token.process, "_zvm_excel", False):
        return
    process, update_name, set_expr = token.process, base.update_name, base.set_expr

    def process_run(self, match, context=None, parser=None):
        attr = process(self, match, context=context, parser=parser)
        if attr.get("sum_minus", "").count("-") >= 2 and attr.get("name") == "+":
            attr["negated_twice"] = True
        return attr

    def name_unary(self, tokens_, stack):
        update_name(self, tokens_, stack)
        if self.attr.get("negated_twice") and self.attr.get("name") == "u+":
            self.attr["name"] = "u--"

    def expr(self, *tokens_):
        if self.name == "u--":
            self.attr["expr"] = "--{}".format(*[t.get_expr for t in tokens_])
        else:
            set_expr(self, *tokens_)

    process_run._zvm_excel = True
    process_run._zvm_pure_over = process  # a function of the match only, as process is
    token.process = process_run
    base.update_name = name_unary
    base.set_expr = expr
    base._precedences["u--"] = base._precedences["u-"]
    base._n_args["u--"] = 1
    operators["U--"] = _ufunc(negate_twice)


def install(table, put) -> None:
    for name, func in _ROUNDING.items():
        table[name] = _ufunc(func)
        table[name]._zvm_excel = True
    table["RANDBETWEEN"] = _ufunc(randbetween)
    table["RANDBETWEEN"]._zvm_excel = True
    table["FACT"] = _ufunc(fact)
    table["FACT"]._zvm_excel = True
    from formulas.functions import wrap_func
    table["FACTDOUBLE"] = wrap_func(factdouble)
    table["FACTDOUBLE"]._zvm_excel = True
    from formulas.functions.stat import _convert_args, _parse_cumulative
    entry = wrap_ufunc(poisson, input_parser=lambda *a: tuple(
        map(_convert_args, a[:-1])) + tuple(map(_parse_cumulative, a[-1:])))
    entry._zvm_excel = True
    for name in ("POISSON", "POISSON.DIST", "_XLFN.POISSON.DIST"):
        table[name] = entry
    from formulas.functions.operators import OPERATORS
    install_operators(OPERATORS)
    install_double_negation(OPERATORS)

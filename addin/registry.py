"""The worksheet-function registry: the single source of truth for every front door.

A worksheet function is declared once, in :mod:`zvmplan_addin.functions`, with
:func:`worksheet_function`. The declaration records its Excel name, help text,
arguments (with units and converters) and an example, and applies xlwings'
``func``/``arg`` decorators. Off Windows those decorators do nothing, so the
headless engine, ``zvmplan functions``, the README table, the workbook's function
list and the xlwings Lite export all read :data:`REGISTRY` instead.

Calling a registered function (``REGISTRY["CPCPU_PER_MB"]("IUCV", 9000)``) never
raises: it converts the raw cell values, delegates to the model and returns a
finite number, text of at most 32,767 characters, a 2-D object array (for a range
argument) or an :class:`ExcelError`.

Raw cell values, as every front door delivers them:

* ``None`` (an empty cell; classic xlwings also passes ``None`` for an argument left
  out), ``""`` and :data:`MISSING` (a skipped argument, ``=F(a,,c)``, from the formula
  engine and ``zvmplan eval``) all mean "left out": an optional argument takes its
  default, a required one is ``#VALUE!`` with the reason;
* text is a number only as Excel's VALUE reads it in every locale
  (:func:`as_number`); an error code as text (``"#N/A"``) is that error.
"""
from __future__ import annotations

import inspect
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from zvmplan.answer import Answer
from zvmplan.errors import ArgumentTypeError, OutOfRangeError, ZvmplanError

from .errors import CODES, NA, NUM, VALUE, ExcelError, to_excel_error
from .lazyre import lazy_pattern

# Each function is decorated for classic xlwings only when xlwings is already loaded: its
# UDF server imports xlwings before the functions module ("Import Functions"), and
# xlwings Lite's main.py decorates its own functions. Everything else (``zvmplan calc``,
# ``fill``, ``eval``) does without the import, which loads matplotlib: about 0.4 s.
if "xlwings" in sys.modules:
    try:  # the import that also works in xlwings Lite
        from xlwings import arg as _xw_arg, func as _xw_func
    except Exception:  # pragma: no cover - xlwings broken: registry still works
        _xw_func = _xw_arg = None
else:
    _xw_func = _xw_arg = None

CATEGORY = "zvmplan"
# Office.js / xlwings Lite custom functions live in this namespace: a file stores a call
# of CPCPU_PER_MB as _xldudf_ZVMPLAN_CPCPU_PER_MB.
NAMESPACE = "ZVMPLAN"
#: Excel's limit on the length of a text value (a cell holds at most 32,767 characters).
MAX_TEXT = 32_767


class _Missing:
    """The type of :data:`MISSING`: one instance, falsy, printed as ``MISSING``."""
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "MISSING"

    def __bool__(self):
        return False

    def __reduce__(self):
        return "MISSING"


#: A skipped argument, as in ``=CPCPU_PER_MB("IUCV",9000,,2)``. Excel hands an add-in
#: function a skipped argument as *missing* (classic xlwings turns it into the
#: argument's default, ``None``), never as 0 or "": the formula engine and ``zvmplan
#: eval`` pass this sentinel, and every registry function treats it as left out.
MISSING = _Missing()


@dataclass(frozen=True)
class Param:
    """One argument of a worksheet function."""
    name: str
    help: str
    convert: Callable[[Any], Any]
    unit: str = ""
    optional: bool = False
    vector: bool = False  # a range here gives a result of the same shape


@dataclass(frozen=True)
class WorksheetFunction:
    name: str
    description: str
    params: tuple[Param, ...]
    impl: Callable[..., Any]
    example: str
    returns: str
    spill: bool = False
    udf: Callable[..., Any] = field(default=None, compare=False, repr=False)

    def __call__(self, *raw):
        """Evaluate from raw cell values; never raises."""
        try:
            return excel_value(self._call(raw), self.name)
        except Exception as exc:  # every failure becomes an Excel error with its reason
            return to_excel_error(exc)

    @property
    def unit(self) -> str:
        """The unit of a numeric answer: the bracketed end of the description
        (``"Data rate of a streaming transfer [MB/s]"`` -> ``"MB/s"``), or the last bracket
        before a trailing note (``"... [CPU-s/MB]; ESCON_CTC: ..."``); "" if none."""
        units = re.findall(r"\[([^\[\]]+)\]", self.description)
        return units[-1] if units else ""

    def _call(self, raw, explain=False):
        if len(raw) > len(self.params):
            raise ArgumentTypeError(f"{self.name} takes {_arity(self)}; got {len(raw)}: "
                                    f"{self.signature()}")
        raw = list(raw) + [MISSING] * (len(self.params) - len(raw))
        raw = [as_error(v) for v in raw]
        for value in raw:  # an error given as input passes through
            if isinstance(value, ExcelError):
                return value
        kwargs, vectors = {}, {}
        for p, value in zip(self.params, raw):
            if p.vector and _is_range(value):
                vectors[p.name] = np.asarray(value, dtype=object)
                continue
            if isinstance(value, np.ndarray):  # a 1x1 range is a scalar
                value = value.reshape(-1)[0] if value.size == 1 else _not_a_range(self, p)
            if is_empty(value):
                if not p.optional:
                    how = "was left out" if value is MISSING else "is empty"
                    raise ArgumentTypeError(f"{self.name}: argument {p.name} is required "
                                            f"and {how} ({p.help})")
                kwargs[p.name] = None
                continue
            kwargs[p.name] = p.convert(value)
        if not vectors:
            result = self.impl(**kwargs)
            if explain:
                return result
            if hasattr(result, "to_excel"):  # a zvmplan.answer.Pair: low and high across
                return result.to_excel()
            return result.value if isinstance(result, Answer) else result
        if explain:
            raise ArgumentTypeError(f"{self.name}: the basis is explained for one value at a "
                                    "time; give a single cell, not a range")
        return self._call_vector(kwargs, vectors)

    def explain(self, *raw) -> str:
        """The basis of the answer for these arguments, or the reason for the error."""
        try:
            result = self._call(raw, explain=True)
        except Exception as exc:
            err = to_excel_error(exc)
            return f"{err.code} {err.reason}"
        if isinstance(result, ExcelError):
            return f"{result.code} {result.reason}"
        value = excel_value(result.to_excel() if hasattr(result, "to_excel") else
                            result.value if isinstance(result, Answer) else result, self.name)
        if isinstance(value, ExcelError):  # an overflow has no basis, only a reason
            return f"{value.code} {value.reason}"
        if isinstance(value, np.ndarray) and any(isinstance(v, ExcelError) for v in value.flat):
            bad = next(v for v in value.flat if isinstance(v, ExcelError))
            return f"{bad.code} {bad.reason}"
        return result.explain() if hasattr(result, "explain") else "computed"

    def explain_each(self, *raw):
        """:meth:`explain` for each element of the answer: a str for a one-value call, a
        2-D object array of str (the shape of the answer) when a range argument makes the
        answer an array."""
        raw = list(raw)
        where = [i for i, (p, v) in enumerate(zip(self.params, raw)) if p.vector and _is_range(v)]
        if not where:
            return self.explain(*raw)
        shape, flat = _broadcast([np.asarray(raw[i], dtype=object) for i in where])
        out = np.empty(len(flat[0]), dtype=object)
        for k in range(len(out)):
            for i, col in zip(where, flat):
                raw[i] = col[k]
            out[k] = self.explain(*raw)
        return out.reshape(shape)

    def _call_vector(self, kwargs, vectors):
        names = list(vectors)
        shape, flat = _broadcast([vectors[n] for n in names])
        params = {p.name: p for p in self.params}
        out = np.empty(len(flat[0]), dtype=object)
        converted = {n: np.empty(len(flat[0]), dtype=float) for n in names}
        bad = np.zeros(len(flat[0]), dtype=bool)
        for n, col in zip(names, flat):
            for i, value in enumerate(col):
                value = as_error(value)
                if isinstance(value, ExcelError):
                    out[i], bad[i] = value, True
                    continue
                try:
                    if is_empty(value):
                        raise ArgumentTypeError(f"{n} is empty")
                    converted[n][i] = params[n].convert(value)
                except Exception as exc:
                    if not bad[i]:
                        out[i], bad[i] = to_excel_error(exc), True
        ok = np.flatnonzero(~bad)
        if ok.size:
            many = self.impl(**kwargs, **{n: converted[n][ok] for n in names})
            for j, value in zip(ok, many.values):
                out[j] = float(value)
            for k, exc in many.errors.items():
                out[ok[k]] = to_excel_error(exc)
        return out.reshape(shape)

    def signature(self) -> str:
        parts = [f"[{p.name}]" if p.optional else p.name for p in self.params]
        return f"{self.name}({', '.join(parts)})"


def _arity(fn) -> str:
    required = sum(not p.optional for p in fn.params)
    if required == len(fn.params):
        n = len(fn.params)
        return "no arguments" if n == 0 else f"{n} argument" + ("s" if n > 1 else "")
    return f"{required} to {len(fn.params)} arguments"


def _broadcast(arrays):
    """Pair up the elements of several ranges as Excel does for a function that takes one
    value where a range is given: the answer is as tall as the tallest and as wide as the
    widest; a range of one row (column) repeats down (across); a cell beyond a smaller
    range is #N/A. Returns (shape, one flat object array per input)."""
    arrays = [np.atleast_2d(np.asarray(a, dtype=object)) for a in arrays]
    rows = max(a.shape[0] for a in arrays)
    cols = max(a.shape[1] for a in arrays)
    flat = []
    beyond = ExcelError(NA, "the ranges given differ in size; this cell is beyond the smaller")
    for a in arrays:
        out = np.full((rows, cols), beyond, dtype=object)
        r = rows if a.shape[0] == 1 else a.shape[0]
        c = cols if a.shape[1] == 1 else a.shape[1]
        out[:r, :c] = np.broadcast_to(a, (r, c))
        flat.append(out.reshape(-1))
    return (rows, cols), flat


def _is_range(value) -> bool:
    return isinstance(value, (list, tuple, np.ndarray)) and np.asarray(value, dtype=object).size > 1


def _not_a_range(fn, p):
    raise ArgumentTypeError(f"{fn.name}: argument {p.name} takes a single value, not a range")


def is_empty(value) -> bool:
    """Left out: an empty cell (None from classic xlwings, Lite and formulas; '' as text)
    or a skipped argument (:data:`MISSING`)."""
    return value is None or value is MISSING or (isinstance(value, str) and value.strip() == "")


def excel_value(result, name: str = ""):
    """A function's result as Excel can hold it: a non-finite number is ``#NUM!`` (Excel
    has no infinity or NaN; an overflowing calculation is #NUM!), a text longer than
    Excel's 32,767 characters is ``#VALUE!``; arrays element by element. Everything else
    is returned unchanged."""
    if isinstance(result, np.ndarray):
        out = np.empty(result.shape, dtype=object)
        for idx, v in np.ndenumerate(result):
            out[idx] = excel_value(v, name)
        return out
    who = f"{name}: " if name else ""
    if isinstance(result, (float, np.floating)) and not math.isfinite(result):
        what = "not a number (NaN)" if math.isnan(result) else "beyond Excel's number range"
        return ExcelError(NUM, f"{who}the result is not a finite number: {what}")
    if isinstance(result, str) and len(result) > MAX_TEXT:
        return ExcelError(VALUE, f"{who}the text result has {len(result):,} characters, more "
                          f"than the {MAX_TEXT:,} an Excel cell holds")
    return result


REGISTRY: dict[str, WorksheetFunction] = {}


def worksheet_function(*, description: str, example: str, returns: str, params: list[Param],
                       spill: bool = False):
    """Declare a worksheet function. The decorated Python function is the implementation:
    it receives converted arguments (vector arguments as 1-D float arrays) and returns a
    value, or a :class:`zvmplan.Many` for vector arguments. Its name is the Excel name."""
    def decorate(impl):
        name = impl.__name__.upper()
        if name in REGISTRY:
            raise ValueError(f"worksheet function {name} declared twice")
        fn = WorksheetFunction(name, description, tuple(params), impl, example, returns, spill)
        object.__setattr__(fn, "udf", _make_udf(fn))
        REGISTRY[name] = fn
        return fn.udf
    return decorate


def _make_udf(fn: WorksheetFunction):
    """A plain function with the real argument names, for xlwings (classic, Lite)."""
    def udf(*args):
        return for_xlwings(fn(*args))
    udf.__name__ = udf.__qualname__ = fn.name
    udf.__doc__ = fn.description
    udf.__signature__ = inspect.Signature([
        inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=None if p.optional else inspect.Parameter.empty)
        for p in fn.params])
    if _xw_func is not None:
        for p in reversed(fn.params):
            try:
                # err_to_str: an error cell arrives as "#N/A" (not None, which means "left out")
                udf = _xw_arg(p.name, doc=f"{p.help}" + (f" [{p.unit}]" if p.unit else ""),
                              err_to_str=True)(udf)
            except Exception:  # pragma: no cover - differing xlwings flavours
                pass
        try:
            udf = _xw_func(category=CATEGORY)(udf)
        except TypeError:  # pragma: no cover - xlwings Lite's func takes no category
            udf = _xw_func(udf)
    return udf


def for_xlwings(result):
    """A registry result as an xlwings function returns it (classic and Lite alike).

    Classic xlwings writes an exception's text into the cell (xlwings issue 776), and
    cannot return an error value. Return the closest thing it can show: the error code as
    text (e.g. ``#N/A``), never a traceback; xlwings Lite turns exactly that text into a
    real error cell. Arrays become lists of lists."""
    if isinstance(result, ExcelError):
        return result.code
    if isinstance(result, np.ndarray):
        return [[v.code if isinstance(v, ExcelError) else v for v in row]
                for row in result.tolist()]
    return result


def as_error(value):
    """An error cell as classic xlwings (``err_to_str``) or a CSV delivers it: its code as text."""
    if isinstance(value, str) and value.strip().upper() in CODES:
        return ExcelError(value.strip().upper(), "an argument is an error value")
    return value


# Text that is a number to Excel's VALUE in every locale: optional spaces, a sign, ASCII
# digits with one "." as decimal point, an exponent, a trailing percent sign.
_TEXT_NUMBER = lazy_pattern(r" *([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)(%?) *")


def as_number(value, what: str) -> float:
    """Convert a cell value to a finite float.

    A number is taken as it is (``#NUM!`` if it is not finite: Excel has no infinity or
    NaN, so one can only come from an overflow). TRUE/FALSE are refused, as Excel refuses
    them where a function wants a number from a cell.

    Text: Excel's VALUE (and its automatic text-to-number conversion) reads "any of the
    constant number, date, or time formats" of the user's locale (Microsoft's VALUE
    reference; ECMA-376 Part 1, VALUE): ``VALUE("$1,000")`` is 1000 in en-US, and
    ``"1,5"`` is 15 there but 1.5 in de-DE. A worksheet function cannot know the locale
    of the cell's author, so it reads only the forms VALUE reads alike everywhere:
    ``"1000"``, ``" 1000 "`` (spaces around), ``"+1.5"``, ``".5"``, ``"1e3"``/``"1E+3"``,
    ``"50%"`` (0.5). Everything else is ``#VALUE!`` with the reason: grouping separators
    and decimal commas, currency, dates and times, and what Python's ``float()`` takes
    but no Excel does -- underscores (``"1_000"``), digits other than 0-9 (full-width,
    Arabic-Indic), ``"nan"``/``"inf"``, other white space (a non-breaking space)."""
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{what} must be a number, not TRUE/FALSE")
    if isinstance(value, str):
        m = _TEXT_NUMBER().fullmatch(value)
        if m is None:
            hint = ""
            if "," in value:
                hint = " (write it without a thousands separator, with \".\" as decimal point)"
            raise ArgumentTypeError(f"{what} must be a number; got text {_short(value)}{hint}")
        number = float(m.group(1)) / (100 if m.group(2) else 1)
        if not math.isfinite(number):
            raise ArgumentTypeError(f"{what}: {_short(value)} is beyond Excel's number range")
        return number
    if not isinstance(value, (int, float, np.integer, np.floating)):
        raise ArgumentTypeError(f"{what} must be a number; got {_short(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int beyond a float's range
        number = math.inf
    if not math.isfinite(number):
        raise OutOfRangeError(f"{what} must be a finite number; got {number}")
    return number


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


__all__ = ["REGISTRY", "WorksheetFunction", "Param", "worksheet_function", "as_number",
           "is_empty", "excel_value", "for_xlwings", "MISSING", "MAX_TEXT", "CATEGORY",
           "NAMESPACE", "ExcelError", "ZvmplanError"]

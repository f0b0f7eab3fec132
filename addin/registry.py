"""The worksheet-function registry: the single source of truth for every front door.

A worksheet function is declared once, in :mod:`zvmplan_addin.functions`, with
:func:`worksheet_function`. The declaration records its Excel name, help text,
arguments (with units and converters) and an example, and applies xlwings'
``func``/``arg`` decorators. Off Windows those decorators do nothing, so the
headless engine, ``zvmplan functions``, the README table, the workbook's function
list and the xlwings Lite export all read :data:`REGISTRY` instead.

Calling a registered function (``REGISTRY["CPCPU_PER_MB"]("IUCV", 9000)``) never
raises: it converts the raw cell values, delegates to the model and returns a
number, text, a 2-D object array (for a range argument) or an :class:`ExcelError`.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from zvmplan.answer import Answer
from zvmplan.errors import ArgumentTypeError, ZvmplanError

from .errors import CODES, ExcelError, to_excel_error

try:  # the import that also works in xlwings Lite
    from xlwings import arg as _xw_arg, func as _xw_func
except Exception:  # pragma: no cover - xlwings missing or broken: registry still works
    _xw_func = _xw_arg = None

CATEGORY = "zvmplan"
# Office.js / xlwings Lite custom functions live in this namespace: a file stores a call
# of CPCPU_PER_MB as _xldudf_ZVMPLAN_CPCPU_PER_MB.
NAMESPACE = "ZVMPLAN"


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
            return self._call(raw)
        except Exception as exc:  # every failure becomes an Excel error with its reason
            return to_excel_error(exc)

    def _call(self, raw, explain=False):
        if len(raw) > len(self.params):
            raise ArgumentTypeError(f"{self.name} takes at most {len(self.params)} arguments "
                                    f"({self.signature()}); got {len(raw)}")
        raw = list(raw) + [None] * (len(self.params) - len(raw))
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
                    raise ArgumentTypeError(f"{self.name}: argument {p.name} is required "
                                            f"({p.help})")
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
        return result.explain() if hasattr(result, "explain") else "computed"

    def _call_vector(self, kwargs, vectors):
        names = list(vectors)
        arrays = np.broadcast_arrays(*[np.atleast_2d(vectors[n]) for n in names])
        shape = arrays[0].shape
        flat = [a.reshape(-1) for a in arrays]
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


def _is_range(value) -> bool:
    return isinstance(value, (list, tuple, np.ndarray)) and np.asarray(value, dtype=object).size > 1


def _not_a_range(fn, p):
    raise ArgumentTypeError(f"{fn.name}: argument {p.name} takes a single value, not a range")


def is_empty(value) -> bool:
    """An empty cell: None (classic xlwings, formulas) or '' (text)."""
    return value is None or (isinstance(value, str) and value.strip() == "")


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
        result = fn(*args)
        return _for_xlwings(result)
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


def _for_xlwings(result):
    """Classic xlwings writes an exception's text into the cell (xlwings issue 776), and
    cannot return an error value. Return the closest thing it can show: the error code as
    text (e.g. ``#N/A``), never a traceback. Arrays become lists of lists."""
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


def as_number(value, what: str) -> float:
    """Convert a cell value to a finite float (bools and text refused)."""
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{what} must be a number, not TRUE/FALSE")
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise ArgumentTypeError(f"{what} must be a number; got text {value!r}") from None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{what} must be a number; got {value!r}") from None
    if not math.isfinite(number):
        raise ArgumentTypeError(f"{what} must be a finite number; got {number}")
    return number


__all__ = ["REGISTRY", "WorksheetFunction", "Param", "worksheet_function", "as_number",
           "is_empty", "CATEGORY", "NAMESPACE", "ExcelError", "ZvmplanError"]

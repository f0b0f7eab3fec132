"""The worksheet functions inside formulas: every registry function is installed in
formulas' function table (:func:`install_functions`) through an adapter that converts
formulas' values to the raw cell values the registry takes and back, and leaves the
reason behind each error a zvmplan function returns (:class:`Reasons`)."""
from __future__ import annotations

import numpy as np
import schedula as sh
from formulas.functions import Array, get_functions, wrap_func
from formulas.tokens.operand import XlError as FXlError

from ..errors import ExcelError
from ..evaluate import excel_names, load_functions
from ..registry import REGISTRY
from .values import XL


class Reasons:
    """Where the adapters leave the reason behind each error a zvmplan function returns."""
    cell: str | None = None
    log: dict[str, tuple[str, str]] | None = None

    @classmethod
    def note(cls, err: ExcelError) -> None:
        if cls.log is not None and err.reason and cls.cell is not None:
            cls.log.setdefault(cls.cell, (err.code, err.reason))


def _from_formulas(value):
    """A value as formulas hands it to a function -> the raw value the registry takes."""
    if isinstance(value, np.ndarray):
        if value.size == 1:
            return _elem_from_formulas(value.reshape(-1)[0])
        arr = np.atleast_2d(np.asarray(value, dtype=object))
        out = np.empty(arr.shape, dtype=object)
        flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
        for k in range(flat_in.size):
            flat_out[k] = _elem_from_formulas(flat_in[k])
        return out
    return _elem_from_formulas(value)


def _elem_from_formulas(v):
    if isinstance(v, FXlError):
        return ExcelError(str(v)) if str(v) in XL else ExcelError("#VALUE!")
    if v is sh.EMPTY or v is None:
        return None
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, str):
        return str(v)
    return v


def _to_formulas(result):
    """A registry result -> what formulas expects (errors as formulas' error values)."""
    if isinstance(result, ExcelError):
        Reasons.note(result)
        return XL[result.code]
    if isinstance(result, np.ndarray):
        arr = np.atleast_2d(np.asarray(result, dtype=object))
        out = np.empty(arr.shape, dtype=object)
        flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
        for k in range(flat_in.size):
            v = flat_in[k]
            if isinstance(v, ExcelError):
                Reasons.note(v)
                v = XL[v.code]
            elif v is None:
                v = sh.EMPTY
            flat_out[k] = v
        return out.view(Array)
    if result is None:
        return sh.EMPTY
    return result


def _adapter(fn):
    def call(*args):
        return _to_formulas(fn(*[_from_formulas(a) for a in args]))
    call.__name__ = call.__qualname__ = fn.name
    call.__doc__ = fn.description
    return wrap_func(call)


def install_functions() -> int:
    """Put every registry function into formulas' function table under each of its
    :func:`~zvmplan_addin.evaluate.excel_names`; returns how many functions."""
    load_functions()
    table = get_functions()
    for name, fn in REGISTRY.items():
        adapter = _adapter(fn)
        for alias in excel_names(name):
            table[alias] = adapter
    return len(REGISTRY)

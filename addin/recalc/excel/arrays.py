"""Dynamic-array functions whose errors must stay errors.

WRAPROWS and WRAPCOLS pad the last row or column with ``pad_with`` (#N/A by default,
Microsoft's pages of both). formulas pads with ``numpy.pad``, which turns the #N/A
error value into the plain text "#N/A": ISERROR, ISNA and IFERROR did not see it, and
the file held the text. Here the padding is made in an object array, so each pad is
the error itself (or whatever value ``pad_with`` gives).
"""
from __future__ import annotations

import functools

import numpy as np
from formulas.functions import get_error, replace_empty, return_2d_func, wrap_ufunc

from .coercion import to_number
from .values import XL


def wrap(array, wrap_count, pad_with, cols=True):
    """The values of ``array`` (flattened) in rows of ``wrap_count`` (columns when
    ``cols``), the last one padded with ``pad_with``."""
    if wrap_count <= 0:
        return XL["#NUM!"]
    values = list(array)
    rows = -(-len(values) // wrap_count)
    out = np.empty(rows * wrap_count, dtype=object)
    out[:len(values)] = values
    out[len(values):] = [pad_with] * (out.size - len(values))
    out = out.reshape(rows, wrap_count)
    return (out.T if cols else out).tolist()


def _count(v) -> int:
    x = to_number(v)
    if x is None:
        raise ValueError("not a number")
    return int(x)


def _wrap_function(cols: bool):
    func = wrap_ufunc(
        functools.partial(wrap, cols=cols),
        input_parser=lambda arr, wrap_count, pad_with: (arr, _count(wrap_count), pad_with),
        check_error=lambda arr, wrap_count, pad_with: get_error(wrap_count),
        args_parser=lambda arr, wrap_count, pad_with=XL["#N/A"]: (
            np.asarray(arr, object).ravel(), replace_empty(wrap_count), pad_with),
        return_func=return_2d_func, check_nan=False, excluded={0})
    func._zvm_excel = True
    return func


def install(table, put) -> None:
    for name, cols in (("WRAPROWS", False), ("WRAPCOLS", True)):
        table[name] = table["_XLFN." + name] = _wrap_function(cols)

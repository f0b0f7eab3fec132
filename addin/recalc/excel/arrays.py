"""Dynamic-array functions whose errors must stay errors.

SCAN and MAP collect each LAMBDA call's value in ``numpy.asarray(out)``: when every
value is an error (``SCAN("ciao",{1;3},LAMBDA(a,b,a+b^2))``: #VALUE! twice, Excel's
values in formulas' test.xlsx LOGICAL!Y18:Y19), numpy makes an array of *text*, and the
cells held the text "#VALUE!". Here they are collected in an object array, as written.

WRAPROWS and WRAPCOLS pad the last row or column with ``pad_with`` (#N/A by default,
Microsoft's pages of both). formulas pads with ``numpy.pad``, which turns the #N/A
error value into the plain text "#N/A": ISERROR, ISNA and IFERROR did not see it, and
the file held the text. Here the padding is made in an object array, so each pad is
the error itself (or whatever value ``pad_with`` gives).
"""
from __future__ import annotations

import functools

import numpy as np
from formulas.functions import (Array, flatten, get_error, replace_empty, return_2d_func,
                                wrap_func, wrap_ufunc)

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


def _first(v):
    return v.ravel()[0] if isinstance(v, np.ndarray) else v


def scan(initial_value, array, func):
    """SCAN: ``func(accumulator, value)`` over the values of ``array`` row by row, each
    accumulator in the cell of its value."""
    array = np.atleast_2d(np.asarray(array, dtype=object))
    out = np.empty(array.size, dtype=object)
    acc = replace_empty(initial_value)
    for k, x in enumerate(flatten(array, None)):
        acc = func(acc, x)
        out[k] = _first(acc)
    return out.reshape(array.shape).view(Array)


def map_(array, func, *arrays):
    """MAP: the LAMBDA (the last argument) of the values at the same place of each
    array; #VALUE! for arrays of different shapes."""
    if arrays:
        arrays = (func,) + arrays
        func, arrays = arrays[-1], arrays[:-1]
    first = np.atleast_2d(np.asarray(array, dtype=object))
    each_array = [first] + [np.atleast_2d(np.asarray(a, dtype=object)) for a in arrays]
    if any(a.shape != first.shape for a in each_array):
        return XL["#VALUE!"]
    out = np.empty(first.size, dtype=object)
    for k, args in enumerate(zip(*(flatten(a, None) for a in each_array))):
        out[k] = _first(func(*args))
    return out.reshape(first.shape).view(Array)


def install(table, put) -> None:
    table["SCAN"] = table["_XLFN.SCAN"] = wrap_func(scan)
    table["MAP"] = table["_XLFN.MAP"] = wrap_func(map_)
    for name, cols in (("WRAPROWS", False), ("WRAPCOLS", True)):
        table[name] = table["_XLFN." + name] = _wrap_function(cols)

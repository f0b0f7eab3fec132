"""The numpy paths of a column step: arithmetic and comparison operators on columns of
plain numbers, ``&`` on columns of text, ``IF`` over a condition column
(:func:`_fast`), with no Python call per cell and the values formulas gives cell by
cell."""
from __future__ import annotations

import itertools
import operator

import numpy as np
import schedula as sh
from formulas.ranges import Ranges
from formulas.tokens.operand import XlError as FXlError

from ..excel.coercion import text_as_logical
from ..excel.numbers import compare_columns
from ..values import MAX_TEXT, XL, one_value
from .vectors import _column_list


_ARITHMETIC = {"+": np.add, "-": np.subtract, "*": np.multiply}


_COMPARE = {"=": np.equal, "<>": np.not_equal, "<": np.less, ">": np.greater,
            "<=": np.less_equal, ">=": np.greater_equal}


_NUMBER_TYPES = (float, int)


#: the steps whose column :func:`_fast` gives holds plain values only (finite numbers,
#: TRUE/FALSE, errors, text within Excel's limit: :func:`_plain_results`, no empty cell)
PLAIN_RESULTS = frozenset({*_ARITHMETIC, "/", "u-", "U-", "%", *_COMPARE, "IF"})


def _fast(name, args, n, plain=None):
    """The arithmetic and comparison operators on columns of plain numbers, and ``&`` on
    columns of text, with numpy: what formulas' element-by-element operators compute,
    without a Python call per element. None: not such a case (formulas decides).
    ``plain``: the ids of argument columns known to hold plain values only (results of
    :data:`PLAIN_RESULTS` steps), which IF need not look at again."""
    if name in _ARITHMETIC or name == "/" or name in ("u-", "U-", "%"):
        nums = [_numbers(a, n, empty=True) for a in args]
        if any(x is None for x in nums):
            return None
        if name == "/":
            x, y = nums
            zero = np.broadcast_to(y == 0, (n,))
            with np.errstate(all="ignore"):
                out = _finite_column(np.divide(x, np.where(y == 0, 1.0, y)), n)
            out[zero] = XL["#DIV/0!"]
            return out.reshape(n, 1)
        with np.errstate(all="ignore"):
            if name in ("u-", "U-"):
                result = np.negative(nums[0])
            elif name == "%":
                result = nums[0] / 100.0
            else:
                result = _ARITHMETIC[name](*nums)
        return _finite_column(result, n).reshape(n, 1)
    if name in _COMPARE:
        nums = [_numbers(a, n, empty=False) for a in args]
        if any(x is None for x in nums):
            return None
        out = np.empty(n, dtype=object)
        out[:] = np.broadcast_to(compare_columns(name, *nums), (n,)).tolist()
        return out.reshape(n, 1)
    if name == "IF" and len(args) in (2, 3):
        result = _fast_if(*args, n=n, plain=plain)
        return result if result is not None else _any_if(*args, n=n)
    if name == "&":
        texts = [_texts(a, n) for a in args]
        if any(x is None for x in texts):
            return None
        return np.add(*texts).reshape(n, 1)  # str + str for each element, in numpy's loop
    return None


def _fast_if(condition, x, y=False, *, n, plain=None):
    """``IF`` over columns with numpy: a condition column of TRUE/FALSE or numbers picks
    each cell's value from ``x`` or ``y`` (``np.where``), an empty cell picked being 0,
    which is what formulas' IF does element by element for such a condition. None
    (:func:`_any_if` decides) when the condition holds text, an error or an empty cell,
    or a result is one formulas would change (:func:`_plain_results`). ``plain``: ids
    of columns known to hold plain values only (no empty cell, nothing formulas would
    change): taken as they are; when both values are such (or one plain value), the
    result is not looked at again."""
    cond = _column_list(condition, n)
    if cond is None or not isinstance(cond, list) or \
            not set(map(type, cond)) <= _CONDITION_TYPES:
        return None
    picked = []
    known = True  # both values plain: so is every pick
    for a in (x, y):
        if plain and id(a) in plain:
            picked.append(a.reshape(-1))
            continue
        values = _column_list(a, n)
        if values is None:
            return None
        column = np.empty(n, dtype=object)
        if isinstance(values, list):
            column[:] = values
            blank = np.fromiter(map(operator.is_, values, itertools.repeat(sh.EMPTY)),
                                dtype=bool, count=n)
            column[blank] = 0  # by identity: EMPTY is a str to numpy's ==
            known = False
        else:
            one = 0 if values[0] is sh.EMPTY else values[0]
            column.fill(one)
            known = known and _plain_results([one])
        picked.append(column)
    out = np.where(np.array(cond, dtype=bool), *picked)
    return out.reshape(n, 1) if known or _plain_results(out.tolist()) else None


def _any_if(condition, x, y=False, *, n):
    """``IF`` over columns of any values, element by element as formulas' IF does it (an
    empty cell is 0 in each argument; an error condition is its result, a text condition
    :func:`~..excel.coercion.text_as_logical`: "TRUE"/"FALSE" in any case, else
    #VALUE!), with a plain ``map`` over the elements instead of formulas' wrapper per
    element. None (formulas decides) for an input that is not a column or one value,
    or a result formulas would turn into #NUM! or #VALUE! (a number that is not finite,
    a text over Excel's limit)."""
    columns = []
    for a in (condition, x, y):
        values = _column_list(a, n)
        if values is None:
            return None
        columns.append(values if isinstance(values, list) else values * n)
    if set(map(type, columns[0])) <= _TRUE_FALSE:  # TRUE/FALSE conditions: numpy picks
        out = _if_by_mask(*columns, n=n)
    else:
        try:
            out = list(map(_if_one, *columns))
        except Exception:  # a value formulas' IF answers otherwise (#VALUE!): let it
            return None
    if not _plain_results(out):
        return None
    col = np.empty((n, 1), dtype=object)
    col[:, 0] = out
    return col


def _if_by_mask(condition: list, x: list, y: list, *, n) -> list:
    """:func:`_if_one` over conditions that are all TRUE/FALSE (bool or numpy's), in C: ``np.where``
    picks each element's object from ``x`` or ``y`` (object arrays, no conversion), the
    empty cell then swapped for 0 by identity."""
    picked = np.where(np.fromiter(condition, dtype=bool, count=n),
                      np.fromiter(x, dtype=object, count=n),
                      np.fromiter(y, dtype=object, count=n)).tolist()
    return list(map(_EMPTY_AS_ZERO.get, map(id, picked), picked))


_EMPTY_AS_ZERO = {id(sh.EMPTY): 0}


_TRUE_FALSE = frozenset({bool, np.bool_})  # a comparison's result: numpy's bool too


def _if_one(condition, x, y):
    if condition is sh.EMPTY:
        condition = 0
    if isinstance(condition, FXlError):
        return condition
    if isinstance(condition, str):
        condition = text_as_logical(condition)
        if condition is None:
            return XL["#VALUE!"]
    picked = x if condition else y
    return 0 if picked is sh.EMPTY else picked


def _plain_results(values: list) -> bool:
    """Are these finite numbers, TRUE/FALSE, errors and text within Excel's limit, which
    formulas' check of every function's result leaves as they are?"""
    types = set(map(type, values))
    if not types <= _PLAIN_TYPES:
        return False
    if float in types:
        floats = values if types == {float} else [v for v in values if type(v) is float]
        if not np.isfinite(np.array(floats, dtype=float)).all():
            return False
    if str in types:
        texts = values if types == {str} else [v for v in values if type(v) is str]
        if max(map(len, texts)) > MAX_TEXT:
            return False
    return True


_PLAIN_TYPES = frozenset({bool, int, float, str, type(XL["#N/A"])})


_CONDITION_TYPES = frozenset({bool, float, int})


_EMPTY_TYPE = type(sh.EMPTY)


_NUMBER_OR_EMPTY = (float, int, _EMPTY_TYPE)


def _finite_column(result, n) -> np.ndarray:
    """Floats -> an object column, every non-finite number #NUM! (as formulas does)."""
    result = np.broadcast_to(np.asarray(result, dtype=float), (n,))
    out = np.empty(n, dtype=object)
    out[:] = result.tolist()
    bad = ~np.isfinite(result)
    if bad.any():
        out[bad] = XL["#NUM!"]
    return out


def _numbers(a, n, empty):
    """A column (or one value) of plain numbers as floats; EMPTY as 0 if ``empty``;
    None if anything else is in it (text, TRUE/FALSE, errors)."""
    if isinstance(a, np.ndarray) and not isinstance(a, Ranges) and a.shape == (n, 1):
        flat = a.reshape(-1)
        if n and type(flat[0]) not in (_NUMBER_OR_EMPTY if empty else _NUMBER_TYPES):
            return None  # the first value says it already (text, TRUE/FALSE, an error)
        values = flat.tolist()
        types = set(map(type, values))
        if not types <= {float, int, type(sh.EMPTY)} or (not empty and type(sh.EMPTY) in types):
            return None
        if type(sh.EMPTY) in types:  # by identity: EMPTY is a str to numpy's ==
            blank = np.fromiter(map(operator.is_, values, itertools.repeat(sh.EMPTY)),
                                dtype=bool, count=len(values))
            flat = np.where(blank, 0.0, flat)
        return flat.astype(float)
    v = one_value(a)
    if type(v) in _NUMBER_TYPES or isinstance(v, (np.floating, np.integer)):
        return np.float64(v)  # a shared step's result may be numpy's (SUM gives float64)
    if empty and v is sh.EMPTY:
        return np.float64(0.0)
    return None


def _texts(a, n):
    """A column (or one value) of text as an object array of n strings; None if not
    all text."""
    if isinstance(a, np.ndarray) and not isinstance(a, Ranges) and a.shape == (n, 1):
        flat = a.reshape(-1)
        if n and type(flat[0]) is not str:
            return None  # the first value says it already
        return flat if set(map(type, flat.tolist())) == {str} else None
    v = one_value(a)
    if type(v) is not str:
        return None
    out = np.empty(n, dtype=object)
    out.fill(v)
    return out

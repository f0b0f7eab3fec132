"""formulas' arithmetic and comparison operators on whole ranges and arrays, in numpy.

An operator given ranges (``($A$2:$A$10001=A2)*$C$2:$C$10001`` inside SUMPRODUCT, a
planner's conditional sum) runs formulas' ``safe_eval`` once per element through
``np.vectorize``: ~15 µs an element, so a column of 10,000 such cells over 10,000 rows
takes hours. :func:`array_operator` computes the same result with one numpy operation
for the cases whose every element is plain (:mod:`.scalar` takes single values):

* ``+ - * /`` (and ``U-``, ``%``) over numbers, TRUE/FALSE (1 and 0, as the operators
  coerce them: :func:`~.excel.coercion.to_number`) and empty cells (0): the IEEE result
  of the floats, as ``x + y`` on the coerced floats gives it;
* ``= <> < > <= >=`` between numbers, compared at 15 significant digits
  (:func:`~.excel.numbers.compare_columns`, the rule of the engine's ``_logic_input``),
  or between texts, compared as their upper-case forms (formulas' rule).

Each argument is a plain value (an int, a float, a bool for arithmetic, a str for a
comparison) or an object array / ``Ranges`` whose values are all of the kinds above; the
arrays have one shape (a ``(1, 1)`` among them broadcasts, as ``np.vectorize`` does).
Anything else -- an error, text in arithmetic, a number beside a text in a comparison,
an empty cell in a comparison, a numpy scalar, a non-finite result, a division by zero,
another shape -- returns None and the operator runs as formulas runs it. The result is
what ``np.vectorize`` builds: an object array of the broadcast shape holding Python
floats or bools, viewed as the operator's ``otype``. ``tests/test_array_operators.py``
compares both ways element by element.
"""
from __future__ import annotations

import numpy as np
import schedula as sh
from formulas.ranges import Ranges

from .excel.numbers import compare_columns

_ARITHMETIC = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}
_UNARY = {"U-": np.negative, "%": lambda x: x / 100.0}
_COMPARE = frozenset({"=", "<>", "<", ">", "<=", ">="})
_TEXT_COMPARE = {"=": np.equal, "<>": np.not_equal, "<": np.less, ">": np.greater,
                 "<=": np.less_equal, ">=": np.greater_equal}
#: operators this module computes
OPERATORS = frozenset({*_ARITHMETIC, *_UNARY, *_COMPARE})

_EMPTY = type(sh.EMPTY)
_NUMBERS = frozenset({float, int})
_COERCED = frozenset({float, int, bool, _EMPTY})  # what arithmetic reads as a number
_SCALARS = frozenset({float, int, bool, str})


def array_operator(name: str, args: tuple, otype):
    """The result of formulas' operator ``name`` on ``args`` (its arguments as the
    operator is called with them), or None for anything the module docstring leaves to
    formulas. At least one argument must be an array of more than one element."""
    if name not in OPERATORS:
        return None
    got = _arrays(args)
    if got is None:
        return None
    values, shape = got
    if name in _COMPARE:
        result = _compare(name, values)
    else:
        result = _arithmetic(name, values)
    if result is None:
        return None
    out = np.empty(shape, dtype=object)
    out[...] = np.broadcast_to(result, shape).tolist()
    return out.view(otype)


def _arrays(args):
    """(each argument as a list of its values in an array of its shape, or the plain
    value; the broadcast shape), or None."""
    values, shapes = [], []
    for a in args:
        t = type(a)
        if t in _SCALARS:
            values.append(a)
            continue
        if t is Ranges:
            try:
                a = a.value
            except Exception:  # noqa: BLE001 - formulas reads it its own way
                return None
        if not isinstance(a, np.ndarray) or a.dtype != object or a.ndim != 2:
            return None
        values.append(a)
        shapes.append(a.shape)
    big = {s for s in shapes if s != (1, 1)}
    if len(big) != 1:
        return None  # no range of several cells, or ranges of several shapes
    return values, big.pop()


def _kinds(v) -> frozenset:
    if isinstance(v, np.ndarray):
        return frozenset(map(type, v.reshape(-1).tolist()))
    return frozenset({type(v)})


def _floats(v):
    """The numbers arithmetic reads: TRUE 1, FALSE 0, an empty cell 0."""
    if isinstance(v, np.ndarray):
        flat = [0.0 if x is sh.EMPTY else float(x) for x in v.reshape(-1).tolist()]
        return np.array(flat, dtype=float).reshape(v.shape)
    return np.float64(float(v))


def _arithmetic(name, values):
    if any(not _kinds(v) <= _COERCED for v in values):
        return None
    nums = [_floats(v) for v in values]
    if name in _UNARY:
        if len(nums) != 1:
            return None
        with np.errstate(all="ignore"):
            result = _UNARY[name](nums[0])
    else:
        if len(nums) != 2:
            return None
        if name == "/" and not np.all(nums[1] != 0):
            return None  # #DIV/0! in some element: formulas' way
        with np.errstate(all="ignore"):
            result = _ARITHMETIC[name](nums[0], nums[1])
    if not np.all(np.isfinite(result)):
        return None  # #NUM! (or NaN) in some element: formulas' way
    return np.asarray(result, dtype=float)


def _compare(name, values):
    if len(values) != 2:
        return None
    kinds = [_kinds(v) for v in values]
    if all(k <= _NUMBERS for k in kinds):
        x, y = (np.asarray(v, dtype=float) if isinstance(v, np.ndarray) else float(v)
                for v in values)
        return compare_columns(name, x, y)
    if all(k == {str} for k in kinds):
        x, y = (_upper(v) for v in values)
        return _TEXT_COMPARE[name](x, y).astype(bool)
    return None


def _upper(v):
    if isinstance(v, np.ndarray):
        out = np.empty(v.shape, dtype=object)
        out[...] = [[s.upper() for s in row] for row in v.tolist()]
        return out
    return v.upper()

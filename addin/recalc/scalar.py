"""formulas' operators (``+``, ``-``, ``=``, ``&`` ...) and its ``wrap_ufunc`` functions
(``IF``, ``ABS`` ...: :func:`install_functions`) called on single values without their
array machinery.

Each operator in formulas' table is three wrappers deep: the outer one reads each
``Ranges`` argument's value (``parse_ranges``), the middle one turns an exception into
``#VALUE!``, the inner one (``wrap_ufunc``) runs its ``args_parser`` over the arguments
and then the operator's ``safe_eval`` element by element through ``np.vectorize``. A cell
evaluated on its own hands an operator one value per argument (a number, a text, one
cell's ``Ranges``), and building the vectorized function around one call costs several
times the call itself.

:func:`scalar_operator` gives the same operator with a shortcut for exactly that case:
each argument a plain value (:data:`SCALAR_TYPES`) or one cell (a ``Ranges`` or an object
array of shape ``(1, 1)`` or ``()``). It calls the same ``args_parser`` and the same ``safe_eval``
(taken from the wrappers' closures) on the same objects ``np.vectorize`` would hand it,
inside the same ``np.errstate``, and builds the result as ``np.vectorize`` builds it: a
0-d object array for plain values and 0-d arrays, ``(1, 1)`` when a ``(1, 1)`` is among
them, viewed as the
operator's ``otype``. Anything else -- another shape or dtype, a ``Ranges`` subclass, a
keyword, an exception anywhere, a result of another type -- goes the general way, the
wrapped operator itself, which recomputes from the start (the operators are pure).

The shortcut is made only for an operator whose three wrappers are formulas' own (their
code objects compared with those of an operator built here by ``wrap_ufunc``) and whose
inner wrapper returns its result unchanged (``return_func`` formulas' default); any
other entry is left as it is. Arguments that are whole ranges or arrays go to
:mod:`.arrayops` first (the arithmetic and comparison operators over plain numbers or
texts, in numpy), then to the operator itself.
``tests/test_scalar_operators.py`` compares both paths
over every operator and pairs of many values: the result's type, shape, dtype and each
element's type and value, errors by identity.
"""
from __future__ import annotations

import functools
import inspect
import math

import numpy as np
import schedula as sh
from formulas.functions import wrap_ufunc
from formulas.ranges import Ranges
from formulas.tokens.operand import XlError

from . import arrayops

# plain values np.asanyarray(v, dtype=object) keeps as the very object (no sequence)
SCALAR_TYPES = frozenset({int, float, bool, str, XlError, type(sh.EMPTY), np.float64,
                          np.int64, np.bool_})
# results taken as they are; an error value or a non-finite number (an overflow, which
# np.vectorize would also report as a floating-point warning) goes the general way
RESULT_TYPES = frozenset({int, float, bool, str, np.float64, np.int64, np.bool_})
_INNER_KEYS = ("args_parser", "kw", "otype", "return_func", "safe_eval")


def _closure(f) -> dict:
    """The free variables of function ``f`` by name ({} for anything else)."""
    code, cells = getattr(f, "__code__", None), getattr(f, "__closure__", None)
    if code is None or not cells:
        return {}
    return dict(zip(code.co_freevars, (c.cell_contents for c in cells)))


@functools.lru_cache(maxsize=None)
def _reference():
    """(outer, middle, inner code objects, formulas' default ``return_func``) of an
    operator made by formulas' ``wrap_ufunc`` in this process."""
    outer = wrap_ufunc(lambda x: x)
    middle = _closure(outer)["func"]
    inner = _closure(middle)["func"]
    return outer.__code__, middle.__code__, inner.__code__, _closure(inner)["return_func"]


def _parts(op) -> dict | None:
    """The inner wrapper's closure of operator ``op`` if ``op`` is formulas' three
    wrappers around ``wrap_ufunc`` with the default ``return_func``; else None."""
    outer_code, middle_code, inner_code, default_return = _reference()
    if getattr(op, "__code__", None) is not outer_code:
        return None
    middle = _closure(op).get("func")
    if getattr(middle, "__code__", None) is not middle_code:
        return None
    inner = _closure(middle).get("func")
    if getattr(inner, "__code__", None) is not inner_code:
        return None
    parts = _closure(inner)
    if not all(k in parts for k in _INNER_KEYS) or parts["return_func"] is not default_return \
            or parts["kw"] != {"otypes": [object]}:
        return None
    return parts


def scalar_operator(op, name: str | None = None):
    """``op`` (an entry of formulas' operator table) with the single-value shortcut of
    the module docstring, or ``op`` itself when its wrappers are not formulas' own.
    ``name``: the operator's, whose whole-array shortcut (:mod:`.arrayops`) is tried
    for arguments that are not single values."""
    if getattr(op, "_zvm_scalar", False):
        return op
    parts = _parts(op)
    if parts is None:
        return op
    parse, evaluate, otype = parts["args_parser"], parts["safe_eval"], parts["otype"]
    plain_parse = parse is _default_args_parser()
    arrays = name in arrayops.OPERATORS

    def call(*args, **kwargs):
        if kwargs:
            return op(*args, **kwargs)
        got = _single_values(args) if len(args) < 32 else None  # (32: another branch)
        if got is None:
            if arrays:
                try:
                    whole = arrayops.array_operator(name, args, otype)
                except Exception:  # noqa: BLE001 - the general way decides what it gives
                    whole = None
                if whole is not None:
                    return whole
            return op(*args)
        try:
            cell = False
            elements = []
            if plain_parse:  # replace_empty on each, as the default args_parser does
                for v in got:
                    if type(v) in SCALAR_TYPES:
                        elements.append(0 if v is sh.EMPTY else v)
                    elif _one_value(v):
                        cell = cell or v.ndim == 2
                        elements.append(_empty_as_zero(np.ndarray.item(v)))
                    else:
                        return op(*args)
            else:
                for v in parse(*got):
                    if type(v) in SCALAR_TYPES:
                        elements.append(v)
                    elif _one_value(v):
                        cell = cell or v.ndim == 2
                        elements.append(np.ndarray.item(v))  # an object array's very object
                    else:
                        return op(*args)
            # an overflow raises here and goes the general way, which warns of it once
            with np.errstate(divide="ignore", invalid="ignore", over="raise"):
                r = evaluate(*elements)
        except Exception:  # noqa: BLE001 - the general way decides what it gives
            return op(*args)
        t = type(r)
        if t not in RESULT_TYPES or (t is float or t is np.float64) and not math.isfinite(r):
            return op(*args)  # an error or an overflow: the general way, warnings and all
        if cell:
            res = np.empty((1, 1), dtype=object)
            res[0, 0] = r
        else:
            res = np.asanyarray(r, dtype=object)
        return res.view(otype)

    functools.update_wrapper(call, op)  # its marks (_zvm_excel ...) kept
    call._zvm_scalar = True
    return call


@functools.lru_cache(maxsize=None)
def _default_args_parser():
    """``wrap_ufunc``'s default ``args_parser`` (``replace_empty`` on each argument)."""
    return inspect.signature(wrap_ufunc).parameters["args_parser"].default


def _empty_as_zero(element):
    """The element of a one-value object array after formulas' ``replace_empty`` (its
    ``empty`` 0): replaced when the array ``contains`` the empty cell (``element ==
    EMPTY``) and ``np.where``'s mask (``EMPTY == element``) holds, the two comparisons
    numpy makes, in its order; an exception goes the general way."""
    return 0 if element == sh.EMPTY and sh.EMPTY == element else element


def _single_values(args) -> list | None:
    """Each argument as formulas' ``parse_ranges`` reads it, if each is a plain value or
    one cell; else None."""
    out = []
    for a in args:
        t = type(a)
        if t in SCALAR_TYPES:
            out.append(a)
        elif t is Ranges:
            try:
                v = a.value
            except Exception:  # noqa: BLE001 - the general way reads it
                return None
            if not _one_value(v):
                return None
            out.append(v)
        elif _one_value(a):
            out.append(a)
        else:
            return None
    return out


def _one_value(v) -> bool:
    """An object array of shape (1, 1) or () (np.vectorize hands on its element as it
    is; the result has the shape of the largest)."""
    return isinstance(v, np.ndarray) and v.dtype == object and v.shape in ((1, 1), ())


def install(operators) -> None:
    """Every operator of formulas' ``operators`` table that :func:`scalar_operator` can
    take, with its shortcut (idempotent)."""
    for name, op in list(operators.items()):
        operators[name] = scalar_operator(op, name)


#: functions of formulas' table given the single-value shortcut (:func:`install_functions`):
#: pure ones a plan uses often, each compared with formulas' own path by
#: ``tests/test_scalar_functions.py``
SCALAR_FUNCTIONS = frozenset({
    "IF", "IFERROR", "IFNA", "_XLFN.IFNA", "NOT", "ABS", "SIGN", "INT", "TRUNC", "ROUND",
    "ROUNDUP", "ROUNDDOWN", "MOD", "SQRT", "EXP", "LN", "LOG10", "POWER", "LEFT", "RIGHT",
    "MID", "LEN", "UPPER", "LOWER", "EXACT", "FIND", "SEARCH", "SUBSTITUTE", "REPT",
    "CONCATENATE", "_XLFN.CONCATENATE"})


def install_functions(table) -> list[str]:
    """The same single-value shortcut for each function of :data:`SCALAR_FUNCTIONS` in
    formulas' function ``table`` that is formulas' own ``wrap_ufunc`` as it stands (the
    three wrappers and the default ``return_func``; a function zvmplan's Excel rules
    replaced or wrapped is not, and is left as it is); a dict entry keeps its other keys
    (``solve_cycle``). The names taken; idempotent."""
    taken = []
    for name in sorted(SCALAR_FUNCTIONS & set(table)):
        entry = table[name]
        func = entry["function"] if isinstance(entry, dict) else entry
        fast = scalar_operator(func)
        if fast is func:
            continue
        table[name] = {**entry, "function": fast} if isinstance(entry, dict) else fast
        taken.append(name)
    return taken

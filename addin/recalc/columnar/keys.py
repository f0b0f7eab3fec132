"""Hashable keys of column values, for finding the distinct combinations of a step's
arguments: a value keyed by its type where two values of different types can be equal
(TRUE, 1 and 1.0), -0.0 (equal to 0.0, told apart by an operation) found, and the
empty cell and formulas' error values (equal to themselves alone, with Python hash and
equality methods) swapped for stand-ins hashed in C."""
from __future__ import annotations

import functools
import itertools
import math
import operator

import schedula as sh

from ..values import XL


def _needs_type(col, strict: bool, types: set | None = None) -> bool:
    """Must the values of ``col`` be keyed by their type too? Only where two values of
    different types can be equal: TRUE, 1 and 1.0 (unless not ``strict``: 1 and 1.0 are
    one number), or types other than text, numbers, TRUE/FALSE, errors and the empty
    cell. Text, formulas' errors, its empty cell and None (a zvmplan function's empty
    argument) equal no value of another type (an error, the empty cell or None only
    itself), so a column of text, numbers and None needs no type key; zvmplan's own
    :class:`~zvmplan_addin.errors.ExcelError` equals the text of its code, so it does. ``types``: the set of the types in ``col``, when the caller has it."""
    if types is None:
        types = set(map(type, col))
    if len(types) <= 1:
        return False
    if not types <= _KEYED_APART:
        return True
    numbers = types & _NUMBER_KINDS
    return len(numbers) > 1 and (strict or not numbers <= {int, float})


_NUMBER_KINDS = frozenset({bool, int, float})


#: types whose values equal no value of another type among these (None, a zvmplan
#: function's empty argument, equals only None); numbers equal each other across kinds
_KEYED_APART = _NUMBER_KINDS | {str, type(sh.EMPTY), type(XL["#N/A"]), type(None)}


def _typed(col, merge=None) -> list:
    """Each value of ``col`` keyed by its type (int as float: one number type, unless
    ``merge`` is given another map)."""
    merge = _NUMBER_TYPE if merge is None else merge
    types = list(map(type, col))
    return list(zip(map(merge.get, types, types), col))


def _negative_zero(col, types: set | None = None) -> bool:
    """Does ``col`` hold -0.0 (a number equal to 0.0 that an operation tells apart)?
    ``types``: the set of the types in ``col``, when the caller has it (no float, no
    -0.0). The values equal to 0.0 are picked out in C (``filter``); when they are all
    plain numbers (int, float, TRUE/FALSE) one ``math.copysign`` over them finds a
    negative one (+1.0 for an int or FALSE), else each is looked at as its type says."""
    if types is not None and float not in types:
        return False
    if not col.count(0.0):  # == : 0, 0.0, -0.0 and FALSE
        return False
    zeros = list(filter(_EQUALS_ZERO, col))
    if set(map(type, zeros)) <= _NUMBER_KINDS:
        return min(map(math.copysign, itertools.repeat(1.0, len(zeros)), zeros)) < 0
    return any(type(v) is float and v == 0.0 and math.copysign(1.0, v) < 0 for v in zeros)


_EQUALS_ZERO = functools.partial(operator.eq, 0.0)


_NUMBER_TYPE = {int: float}


def _stand_ins(tokens) -> dict:
    """id of each token -> an object of its own, equal to itself alone and hashed in C."""
    return {id(t): object() for t in tokens}


_TOKENS = (sh.EMPTY, *XL.values())  # the empty cell and formulas' error values
_TO_KEY = _stand_ins(_TOKENS)
_TOKEN_TYPES = frozenset(map(type, _TOKENS))


def _token_keyed(col, types: set) -> list:
    """``col`` with the empty cell (``sh.EMPTY``) and formulas' error values (schedula
    Tokens, equal to themselves alone, whose ``__eq__`` and ``__hash__`` are Python
    methods: a Python call per cell in a dict or a ``count``) each swapped for an object
    of its own (:data:`_TO_KEY`), found by identity in C: keys that are equal exactly
    when the values are. ``col`` itself when ``types`` holds no such Token."""
    if types.isdisjoint(_TOKEN_TYPES):
        return col
    return list(map(_TO_KEY.get, map(id, col), col))

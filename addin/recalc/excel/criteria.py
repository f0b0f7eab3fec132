"""COUNTIF, COUNTIFS, SUMIF, SUMIFS, AVERAGEIF, AVERAGEIFS, MAXIFS and MINIFS: which
cells a criterion picks, as Excel picks them.

A criterion is a value (``5``, ``TRUE``, ``#N/A``) or a text: an optional operator
(``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``) and an operand that is read as a number
or date if it can be (``">=1/1/2024"``), as TRUE/FALSE, as an error, else as text.

* A number with ``=`` picks numbers equal to it and text that reads as that number
  (Excel's COUNTIF converts numeric text for equality: the "COUNTIF bug" on long
  numeric codes); with ``<``, ``>``, ... it picks numbers only -- never text, never
  TRUE/FALSE (``COUNTIF(A1:A3,">=0")`` does not count a TRUE cell); with ``<>`` it
  picks every cell that ``=`` does not.
* TRUE/FALSE picks logical values only, an error that error only.
* Text with ``=`` picks text cells that match it case-insensitively (casefolded: "ß"
  matches "ss", as in formulas' tests of Excel's answers), with ``*``
  (any characters), ``?`` (one) and ``~`` (the next one literally); ``<>`` every other
  cell; ``<``/``>`` text cells by case-insensitive order.
* ``""`` picks empty cells and empty text; ``"="`` empty cells only; ``"<>"`` every
  cell that is not empty.

The cells summed, averaged or compared (the sum range) give only their numbers: text
and TRUE/FALSE there are skipped, an error picked is the result. An array of criteria
gives an array of results. Ranges must have one shape (a larger sum range is read from
its top-left corner over the criteria range's shape); otherwise #VALUE!.
"""
from __future__ import annotations

import bisect
import functools
import operator
import re
import weakref

import numpy as np
import schedula as sh
from formulas.functions import Array
from formulas.tokens.operand import XlError

from .values import (XL, error, first_appearance, is_collection, is_number, is_text,
                     single, values_of)
from .numbers import compare_numbers, round15
from .parse import number_from_text

_OPERATORS = (">=", "<=", "<>", ">", "<", "=")
_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def matcher(criterion):
    """A function ``cell value -> bool`` for one criterion."""
    if isinstance(criterion, (bool, np.bool_)):
        return _same_kind("=", bool(criterion), lambda v: isinstance(v, (bool, np.bool_)))
    if isinstance(criterion, XlError):
        return lambda v: isinstance(v, XlError) and str(v) == str(criterion)
    if criterion is sh.EMPTY:
        return lambda v: False
    if is_number(criterion):
        return _numeric("=", float(criterion))
    op, operand = _split(str(criterion))
    if operand == "":
        if op == "":
            return lambda v: v is sh.EMPTY or v == ""
        if op == "=":
            return lambda v: v is sh.EMPTY
        if op == "<>":
            return lambda v: v is not sh.EMPTY
    op = op or "="
    number = number_from_text(operand)
    if number is not None:
        return _numeric(op, number)
    if operand.upper() in ("TRUE", "FALSE"):
        return _same_kind(op, operand.upper() == "TRUE",
                          lambda v: isinstance(v, (bool, np.bool_)))
    if operand.upper() in XL:
        code = operand.upper()
        hit = lambda v: isinstance(v, XlError) and str(v) == code  # noqa: E731
        return hit if op == "=" else (lambda v: not hit(v)) if op == "<>" else \
            (lambda v: False)
    if op in ("=", "<>"):
        match = _wildcard(operand.casefold())
        hit = lambda v: is_text(v) and match(v.casefold()) is not None  # noqa: E731
        return hit if op == "=" else (lambda v: not hit(v))
    key = operand.casefold()
    compare = _ORDER[op]
    return lambda v: is_text(v) and compare(v.casefold(), key)


def text_equality_key(criterion) -> str | None:
    """The :func:`text_key` of the cells ``criterion`` picks when what it picks is exactly
    the text cells of that key -- a text, with no operator but ``=``, no wildcard
    (``*`` ``?`` ``~``), that reads as no number or date, no TRUE/FALSE and no error
    (``"abc"``, ``"=Abc"``); None for any other criterion. (A column of COUNTIFs then
    counts by key in one pass: :mod:`..columnar.prefix`.)"""
    key = equality_key(criterion) if type(criterion) is str else None
    return key[1] if key is not None and key[0] == "t" else None


def equality_key(criterion) -> tuple | None:
    """``("n", x)`` when ``criterion`` picks exactly the numbers and numeric text equal
    to the number ``x`` (a number, or a text with no operator but ``=`` that reads as a
    number or date: ``"5"``, ``"=1/2/2024"``), ``("t", key)`` when it picks exactly the
    text cells of that :func:`text_key` (:func:`text_equality_key`), None for any other
    criterion."""
    if type(criterion) in (float, int):
        return ("n", float(criterion))
    if type(criterion) is not str:
        return None
    op, operand = _split(criterion)
    if op not in ("", "=") or operand == "":
        return None
    number = number_from_text(operand)
    if number is not None:
        return ("n", float(number))
    if any(ch in operand for ch in "*?~") or operand.upper() in ("TRUE", "FALSE") or \
            operand.upper() in XL:
        return None
    return ("t", text_key(operand))


def _split(text: str) -> tuple[str, str]:
    """(the criterion's operator, "" for none; its operand)."""
    op = next((o for o in _OPERATORS if text.startswith(o)), "")
    return op, text[len(op):]


def numeric_order(criterion) -> tuple | None:
    """``(op, x)`` when ``criterion`` picks exactly the numbers ``v`` with
    ``compare_numbers(v, x) op 0`` -- a text of an ordering operator and a number
    (``">5"``, ``"<=1E3"``, ``">="&A2`` of a number): :func:`matcher`'s reading of it,
    which no text, TRUE/FALSE, error or empty cell passes --; None for any other."""
    if type(criterion) is not str:
        return None
    op, operand = _split(criterion)
    if op not in _ORDER or operand == "":
        return None
    number = number_from_text(operand)
    return None if number is None else (op, number)


def count_ordered(numbers: list, op: str, x) -> int:
    """How many of ``numbers`` (sorted ascending) compare to ``x`` by ``op`` at 15
    significant digits (:func:`~.numbers.compare_numbers`, which grows with the number
    compared: two binary searches)."""
    at = lambda v: compare_numbers(v, x)  # noqa: E731
    below = bisect.bisect_left(numbers, 0, key=at)      # first not less than x
    not_above = bisect.bisect_left(numbers, 1, key=at)  # first greater than x
    n = len(numbers)
    return {">": n - not_above, ">=": n - below, "<": below, "<=": not_above}[op]


def text_key(text: str) -> str:
    """What text is compared by for equality: casefolded, as :func:`matcher` folds both
    sides, and the dotless i (U+0131) read as i -- the one pair of casefolded characters
    the case-insensitive regular expression it then matches with equates
    (``tests/test_engine_running_shapes.py``)."""
    return text.casefold().replace("\u0131", "i")


def _numeric(op, number):
    def equal(v):
        if is_number(v):
            return compare_numbers(v, number) == 0
        if is_text(v):
            x = number_from_text(v)
            return x is not None and compare_numbers(x, number) == 0
        return False
    if op == "=":
        return equal
    if op == "<>":
        return lambda v: not equal(v)
    compare = _ORDER[op]
    return lambda v: is_number(v) and compare(compare_numbers(v, number), 0)


def _same_kind(op, operand, kind):
    if op == "=":
        return lambda v: kind(v) and v == operand
    if op == "<>":
        return lambda v: not (kind(v) and v == operand)
    compare = _ORDER[op]
    return lambda v: kind(v) and compare(v, operand)


def wildcard_regex(pattern: str) -> str:
    """Excel's wildcards as a regular expression: ``*`` any characters, ``?`` one, ``~``
    the next character literally; everything else literally."""
    out, k = [], 0
    while k < len(pattern):
        ch = pattern[k]
        if ch == "~" and k + 1 < len(pattern):
            out.append(re.escape(pattern[k + 1]))
            k += 2
            continue
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
        k += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def _wildcard(pattern: str):
    """The match function of a criterion's text (``wildcard_regex``, the whole text, any
    case): one per distinct text, as a column of COUNTIFs asks the same few again."""
    return re.compile(wildcard_regex(pattern) + r"\Z", re.I | re.S).match


def exact_key(criterion):
    """The key of a criterion that picks exactly the cells holding that key among their
    :func:`value_keys`, or None for any other criterion: :func:`equality_key`'s (a number
    at 15 significant digits, ``("n", x)``: ``5``, ``"5"``, ``"=1/2/2024"``; a plain text,
    ``("t", its text_key)``: ``"abc"``, ``"=Abc"``), and TRUE or FALSE as a value or as
    text with no operator (``("b", it)``). Not keyed (:func:`matcher` alone says what they
    pick): another operator (``"<>x"``, ``">=5"``), ``*``, ``?`` or ``~``, ``""``, an
    error as value or text, an empty cell, any other value."""
    if isinstance(criterion, (bool, np.bool_)):
        return ("b", bool(criterion))
    if is_number(criterion):
        return ("n", round15(float(criterion)))
    key = equality_key(criterion)
    if key is not None:
        return ("n", round15(key[1])) if key[0] == "n" else key
    if type(criterion) is str and criterion.upper() in ("TRUE", "FALSE"):
        return ("b", criterion.upper() == "TRUE")
    return None


def value_keys(v) -> tuple | None:
    """The keys of :func:`exact_key` that pick the value ``v`` of a criteria range: a
    number its ``("n", ...)``, TRUE/FALSE its ``("b", ...)``, text its :func:`text_key`
    and, if it reads as a number, that number's key; an error or an empty cell none (no
    keyed criterion picks them). None for a value of another type (the keys cannot say
    what picks it)."""
    if isinstance(v, (bool, np.bool_)):
        return (("b", bool(v)),)
    if is_number(v):
        return (("n", round15(float(v))),)
    if isinstance(v, XlError) or v is sh.EMPTY:
        return ()
    if type(v) is not str:
        return None
    number = number_from_text(v)
    text = ("t", text_key(v))
    return (text,) if number is None else (text, ("n", round15(number)))


def picks(flat: list, criterion) -> list[bool]:
    """Whether ``criterion`` picks each of the values ``flat``: the criterion's test run
    once per distinct value (a type and its value: 1 and TRUE are told apart)."""
    distinct, inverse = _distinct(flat)
    return _hits(distinct, criterion)[inverse].tolist()


def _distinct(flat: list) -> tuple[list, np.ndarray]:
    """(the distinct values of ``flat``, in order of first appearance; for each value of
    ``flat`` the index of its distinct value), each value keyed by its type too (1, 1.0
    and TRUE differ), as :func:`picks` tells them apart (:func:`.values.first_appearance`).
    A value that cannot be hashed raises TypeError."""
    picks, inverse = first_appearance(zip(map(type, flat), flat), len(flat))
    return [flat[k] for k in picks.tolist()], inverse


def _hits(distinct: list, criterion) -> np.ndarray:
    """Whether ``criterion`` picks each of the ``distinct`` values (a boolean array)."""
    hit = matcher(criterion)
    return np.fromiter((bool(hit(v)) for v in distinct), dtype=bool, count=len(distinct))


#: ranges whose distinct values were found lately: [(a weak reference to the values,
#: (distinct, inverse))], the newest first, compared by identity. A range's values are a
#: new array each time the engine reads the cells (``Grid.block`` copies), never
#: written after, and the same array only when the engine hands the same range again (a
#: range read by many formulas in one pass, as ``Planner!$U$6:$U$10005`` is by every
#: total): so a criteria range read again costs one pass over its distinct values, not
#: one over its cells. (The engine's own range cache, ``CellEvaluator.ranges``, rests on
#: the same rule: a range's values are not written once made.) The reference is weak,
#: as the lookup tables' (:mod:`.lookuptables`): nothing is kept after the run, and an
#: entry goes with its array, so its identity cannot pass to another.
_RECENT: list = []
RECENT_SIZE = 8
#: ranges smaller than this are not kept (their pass is as cheap as the look-up)
RECENT_CELLS = 64


def _distinct_once(values: np.ndarray) -> tuple[list, np.ndarray]:
    """:func:`_distinct` of ``values`` (any shape, read flat), kept for the same array."""
    if values.size < RECENT_CELLS:
        return _distinct(values.reshape(-1).tolist())
    for kept, found in list(_RECENT):
        if kept() is values:
            return found
    found = _distinct(values.reshape(-1).tolist())
    _RECENT.insert(0, (weakref.ref(values, _forget), found))
    del _RECENT[RECENT_SIZE:]
    return found


def _forget(ref) -> None:
    """An array kept in :data:`_RECENT` is gone: its entry too."""
    _RECENT[:] = [entry for entry in _RECENT if entry[0] is not ref]


def _picked(ranges: list, criteria: list) -> np.ndarray:
    """The boolean mask of cells every (range, criterion) pair picks."""
    mask = None
    for values, criterion in zip(ranges, criteria):
        distinct, inverse = _distinct_once(values)
        m = _hits(distinct, criterion)[inverse].reshape(values.shape)
        mask = m if mask is None else mask & m
    return mask


class _ShapeError(Exception):
    pass


def _over(ranges, criteria, reduce):
    """``reduce(mask)`` for each criterion (criteria may be arrays: one result each)."""
    shape = ranges[0].shape
    if any(r.shape != shape for r in ranges):
        raise _ShapeError
    arrays = [values_of(c) if is_collection(c) else None for c in criteria]
    criteria = [single(a) if a is not None and a.size == 1 else c
                for a, c in zip(arrays, criteria)]
    arrays = [a if a is not None and a.size != 1 else None for a in arrays]
    if all(a is None for a in arrays):
        return reduce(_picked(ranges, [single(c) for c in criteria]))
    out_shape = next(a.shape for a in arrays if a is not None)
    out = np.empty(out_shape, dtype=object)
    for idx in np.ndindex(out_shape):
        picks = [a[idx] if a is not None and a.shape == out_shape else
                 (single(c) if a is None else XL["#N/A"])
                 for a, c in zip(arrays, criteria)]
        out[idx] = reduce(_picked(ranges, picks))
    return out.view(Array)


def _range(a) -> np.ndarray:
    return np.atleast_2d(values_of(a)) if is_collection(a) else \
        np.array([[single(a)]], dtype=object)


def _fit(target: np.ndarray, shape) -> np.ndarray:
    """A sum range read over the criteria range's shape from its top-left corner."""
    if target.shape == shape:
        return target
    if target.shape[0] >= shape[0] and target.shape[1] >= shape[1]:
        return target[:shape[0], :shape[1]]
    raise _ShapeError


def aggregate(kind: str, picked: list):
    """SUMIF's, AVERAGEIF's, MAXIFS' or MINIFS' answer (``kind`` "sum", "average",
    "max" or "min") over the values ``picked`` from the sum range, in the order the
    range is read (row by row): the first error among them is the answer; else the
    numbers, added left to right (:func:`added`), that sum over their count, or their
    maximum or minimum (0 with none; AVERAGE of none #DIV/0!); text and TRUE/FALSE are
    passed over. The one place of this arithmetic: the column path
    (:mod:`..columnar.conditional`) calls it with each group's values."""
    for v in picked:
        if isinstance(v, XlError):
            return v
    nums = [float(v) for v in picked if is_number(v)]
    if kind == "sum":
        return added(nums)
    if kind == "average":
        # the left-to-right sum over the count, as Excel's AVERAGE
        return added(nums) / len(nums) if nums else XL["#DIV/0!"]
    if kind == "max":
        return max(nums) if nums else 0.0
    return min(nums) if nums else 0.0


def added(nums: list) -> float:
    """The numbers added one after the other from 0.0, as Excel adds them (Python 3.12's
    ``sum`` of floats compensates, which Excel does not). Not SUM's
    :func:`~..install.left_to_right_sum`, which starts from the first number: a lone -0.0
    is 0.0 here (as the ``sum`` this replaces gave), -0.0 there."""
    total = 0.0
    for x in nums:
        total += x
    return total


def _aggregate(kind):
    def reduce_with(target):
        def reduce(mask):
            return aggregate(kind, target[mask].tolist())
        return reduce
    return reduce_with


def _guard(func):
    def call(*args):
        try:
            return func(*args)
        except _ShapeError:
            name = call.__name__.upper()
            why = "#VALUE! in Excel too" if name.endswith("S") else \
                "Excel reads a smaller sum range as if extended to the criteria " \
                "range's shape; not done here"
            return error("#VALUE!", f"{name}: the ranges differ in shape ({why})")
    call.__name__ = func.__name__
    return call


@_guard
def countif(rng, criterion):
    return _over([_range(rng)], [criterion], lambda m: int(m.sum()))


@_guard
def countifs(*pairs):
    if not pairs or len(pairs) % 2:
        return XL["#VALUE!"]
    return _over([_range(r) for r in pairs[0::2]], list(pairs[1::2]),
                 lambda m: int(m.sum()))


def _if(kind):
    @_guard
    def one(rng, criterion, target=None):
        values = _range(rng)
        target = values if target is None else _fit(_range(target), values.shape)
        return _over([values], [criterion], _aggregate(kind)(target))
    one.__name__ = kind + "if"
    return one


def _ifs(kind):
    @_guard
    def many(target, *pairs):
        if not pairs or len(pairs) % 2:
            return XL["#VALUE!"]
        ranges = [_range(r) for r in pairs[0::2]]
        target = _range(target)
        if target.shape != ranges[0].shape:
            raise _ShapeError
        return _over(ranges, list(pairs[1::2]), _aggregate(kind)(target))
    many.__name__ = kind + "ifs"
    return many


FUNCTIONS = {
    "COUNTIF": countif, "COUNTIFS": countifs,
    "SUMIF": _if("sum"), "SUMIFS": _ifs("sum"),
    "AVERAGEIF": _if("average"), "AVERAGEIFS": _ifs("average"),
    "MAXIFS": _ifs("max"), "_XLFN.MAXIFS": _ifs("max"),
    "MINIFS": _ifs("min"), "_XLFN.MINIFS": _ifs("min"),
}


def install(table, put) -> None:
    for name, func in FUNCTIONS.items():
        put(table, name, func)

"""The database functions DSUM, DCOUNT, DCOUNTA, DAVERAGE, DMAX, DMIN, DPRODUCT, DGET,
DSTDEV, DSTDEVP, DVAR and DVARP (Microsoft's pages of each; "Examples of complex
criteria" for the criteria range).

``database`` is a range whose first row holds the column labels; ``field`` a label
(without regard to case) or a column number from 1; ``criteria`` a range whose first
row holds labels of the database and whose other rows hold conditions: the conditions of
one row must all hold (AND), any row may (OR); an empty condition holds for every
record. A condition is read as COUNTIF's (:mod:`.criteria`), except that a text without
an operator matches the text that *begins* with it ("Bev" finds "Beverages"), as
Microsoft's page says; ``"=Bev"`` matches "Bev" only.

The function then takes the field's values of the matching records as a range: DSUM
adds their numbers, DCOUNT counts numbers, DCOUNTA non-empty cells, DGET gives the one
value (#VALUE! for none, #NUM! for more than one). A criteria label that is no label of
the database (a computed criterion, ``=B2>AVERAGE(B:B)`` under a new label) is #VALUE!
with the reason: it is not computed here.
"""
from __future__ import annotations

import math
import statistics

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from .criteria import matcher
from .values import XL, error, is_collection, is_number, is_text, single, values_of


class _Unsupported(Exception):
    pass


def _note(reason: str):
    return error("#VALUE!", reason)


def _label(v) -> str | None:
    if v is sh.EMPTY:
        return None
    if is_text(v):
        return v.casefold()
    from .text import text_of
    return text_of(v).casefold()


def _column(labels: list, field):
    if isinstance(field, XlError):
        raise _Error(field)
    if is_number(field):
        k = int(field)
        if not 1 <= k <= len(labels):
            raise _Error(XL["#VALUE!"])
        return k - 1
    key = _label(field)
    if key is None or key not in labels:
        raise _Error(XL["#VALUE!"])
    return labels.index(key)


class _Error(Exception):
    def __init__(self, err):
        self.err = err


def _condition(v):
    """A database condition cell -> a matcher, or None for "every record"."""
    if v is sh.EMPTY or v == "":
        return None
    if is_text(v) and not v.startswith(("=", "<", ">")):
        return matcher(v + "*")
    return matcher(v)


def records(database, criteria) -> tuple[list, np.ndarray]:
    """(the database's labels, the rows of the records the criteria pick)."""
    db, cr = np.atleast_2d(values_of(database)), np.atleast_2d(values_of(criteria))
    if db.shape[0] < 1 or cr.shape[0] < 1:
        raise _Error(XL["#VALUE!"])
    labels = [_label(v) for v in db[0].tolist()]
    body = db[1:]
    names = [_label(v) for v in cr[0].tolist()]
    rows = cr[1:]
    if rows.shape[0] == 0:
        return labels, body
    picked = np.zeros(body.shape[0], dtype=bool)
    for row in rows:
        ok = np.ones(body.shape[0], dtype=bool)
        for name, cell in zip(names, row.tolist()):
            hit = _condition(cell)
            if hit is None:
                continue
            if name is None or name not in labels:
                raise _Unsupported("a criteria label that is not a database label "
                                   "(a computed criterion) is not supported")
            col = body[:, labels.index(name)].tolist()
            ok &= np.array([bool(hit(v)) for v in col], dtype=bool)
        picked |= ok
    return labels, body[picked]


def _values(database, field, criteria) -> list:
    if not (is_collection(database) and is_collection(criteria)):
        raise _Error(XL["#VALUE!"])
    field = single(values_of(field)) if is_collection(field) else single(field)
    labels, picked = records(database, criteria)
    col = _column(labels, field)
    return picked[:, col].tolist() if picked.size else []


def _numbers(values: list) -> list:
    for v in values:
        if isinstance(v, XlError):
            raise _Error(v)
    return [float(v) for v in values if is_number(v)]


def _function(name, reduce):
    def call(database, field, criteria):
        try:
            return reduce(_values(database, field, criteria))
        except _Error as e:
            return e.err
        except _Unsupported as e:
            return _note(f"{name}: {e}")
    call.__name__ = name.lower()
    return call


def _dget(values):
    if not values:
        return XL["#VALUE!"]
    if len(values) > 1:
        return XL["#NUM!"]
    v = values[0]
    return 0.0 if v is sh.EMPTY else v


def _spread(func, minimum):
    def reduce(values):
        nums = _numbers(values)
        if len(nums) < minimum:
            return XL["#DIV/0!"]
        return func(nums)
    return reduce


FUNCTIONS = {
    "DSUM": lambda vs: math.fsum(_numbers(vs)),
    "DCOUNT": lambda vs: float(sum(1 for v in vs if is_number(v))),
    "DCOUNTA": lambda vs: float(sum(1 for v in vs if v is not sh.EMPTY)),
    "DAVERAGE": _spread(statistics.fmean, 1),
    "DMAX": lambda vs: max(_numbers(vs), default=0.0),
    "DMIN": lambda vs: min(_numbers(vs), default=0.0),
    "DPRODUCT": lambda vs: math.prod(_numbers(vs)) if _numbers(vs) else 0.0,
    "DGET": _dget,
    "DSTDEV": _spread(statistics.stdev, 2),
    "DSTDEVP": _spread(statistics.pstdev, 1),
    "DVAR": _spread(statistics.variance, 2),
    "DVARP": _spread(statistics.pvariance, 1),
}


def install(table, put) -> None:
    for name, reduce in FUNCTIONS.items():
        put(table, name, _function(name, reduce))

"""OFFSET and INDIRECT: references made while a formula runs.

formulas has neither (#NAME? before). Both need the workbook's values at a reference
known only when the formula runs, so :func:`install` puts in formulas' table functions
that ask the evaluation in progress (:func:`active`, given ``ranges(rect)`` -> the
rectangle's value as formulas passes a reference, and the workbook's sheets and defined
names). The order stage sees only the references written in the formula, so the engine
evaluates a workbook using them again until no formula cell changes (``engine.py``):
what OFFSET or INDIRECT point to is computed before the value is kept.

Excel's rules (Microsoft's OFFSET and INDIRECT pages): OFFSET(reference, rows, cols,
[height], [width]) is the reference moved and resized (height and width default to the
reference's; a result off the sheet, or a height or width of 0, is #REF!); INDIRECT(text,
[a1]) is the reference the text names -- an A1 reference with or without its sheet (the
formula's own sheet then) or a defined name, or with a1 FALSE an R1C1 reference (relative
parts from the formula's own cell, :func:`r1c1_rect`); another workbook or text that
names nothing is #REF!.
"""
from __future__ import annotations

import collections
import contextlib
import contextvars
import re

import numpy as np
import schedula as sh
from formulas.cell import CELL
from formulas.functions import wrap_func
from formulas.ranges import Ranges

from .during import during
from ..prefixes import spellings
from ..xlsx.references import MAX_COL, MAX_ROW, REFERENCE, reference_parts
from . import shapes
from .values import XL, one_value
from ..lazyre import lazy_pattern

_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("zvmplan_dynamic", default=None)
DYNAMIC = frozenset(spelled for name in ("OFFSET", "INDIRECT")
                    for spelled in spellings(name, builtin=True))


@contextlib.contextmanager
def active(ranges, sheet_index: dict, names):
    """While the block runs, ``ranges(rect)`` gives a rectangle's value, ``sheet_index``
    maps a sheet key to its index and ``names`` (a :class:`~.names.NameTable`) resolves
    INDIRECT's names."""
    with during(_ACTIVE, (ranges, sheet_index, names)):
        yield


def _rect(rng: Ranges):
    g = rng.ranges[0]
    r1, r2 = sorted((int(g["r1"]), int(g["r2"])))
    c1, c2 = sorted((int(g["n1"]), int(g["n2"])))
    return (shapes.sheet_key(g.get("sheet_id") or g.get("sheet") or ""), r1, c1, r2, c2)


def _integer(v):
    """An argument of OFFSET as a whole number; None when left out in the formula
    (``OFFSET(r,0,0,1,)``: the engine's SKIPPED, an int itself, is the reference's own
    width); an empty cell reads as 0, as Excel reads it."""
    v = one_value(v)
    if type(v).__name__ == "_Skipped":
        return None
    if v is sh.EMPTY:
        return 0
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        if v is None or v == "":
            return None
        if isinstance(v, bool):
            return int(v)
        raise ValueError
    return int(np.floor(v))


def offset(ref, rows, cols, height=None, width=None):
    """Excel's OFFSET (see the module docstring)."""
    got = _ACTIVE.get()
    if got is None or not isinstance(ref, Ranges) or len(ref.ranges) != 1:
        return XL["#VALUE!"]
    for arg in (rows, cols, height, width):
        if type(one_value(arg)).__name__ == "XlError":
            return one_value(arg)
    try:
        dr, dc = _integer(rows) or 0, _integer(cols) or 0
        h, w = _integer(height), _integer(width)
    except ValueError:
        return XL["#VALUE!"]
    sheet, r1, c1, r2, c2 = _rect(ref)
    h = r2 - r1 + 1 if h is None else h
    w = c2 - c1 + 1 if w is None else w
    if h == 0 or w == 0:
        return XL["#REF!"]
    top, left = r1 + dr, c1 + dc
    bottom, right = top + h - 1 if h > 0 else top, left + w - 1 if w > 0 else left
    if h < 0:
        top = top + h + 1
    if w < 0:
        left = left + w + 1
    if top < 1 or left < 1 or bottom > MAX_ROW or right > MAX_COL:
        return XL["#REF!"]
    return got[0]((sheet, top, left, bottom, right))


def indirect(cell, text, a1=True):
    """Excel's INDIRECT (see the module docstring); ``cell``: the formula's own cell."""
    got = _ACTIVE.get()
    text, a1 = one_value(text), one_value(a1)
    if type(text).__name__ == "XlError":
        return text
    if got is None or not isinstance(text, str):
        return XL["#REF!"]
    ranges, sheet_index, names = got
    where = _rect(cell) if isinstance(cell, Ranges) and cell.ranges else ("", 1, 1, 1, 1)
    host = where[0]
    text = text.strip()
    if a1 is False or a1 == 0:  # R1C1 text, relative to the formula's own cell
        rect = r1c1_rect(text, host, where[1], where[2])
        if rect is None or rect[0] not in sheet_index:
            return XL["#REF!"]
        return ranges(rect)
    if names and REFERENCE.fullmatch(text) is None and "!" not in text:
        s = sheet_index.get(host, 0)
        moved = names.inline(text, s, 1, 1)
        if moved != text:
            text = moved.strip("()").strip()
    m = REFERENCE.fullmatch(text)
    if m is None:
        return XL["#REF!"]
    parts = reference_parts(m)
    if parts is None:
        return XL["#REF!"]
    _, rows, cols = parts
    sheet = shapes.sheet_key(m.group("sheet")[:-1]) if m.group("sheet") else host
    if sheet not in sheet_index:
        return XL["#REF!"]
    r1, r2 = sorted((rows[0].value, rows[1].value))
    c1, c2 = sorted((cols[0].value, cols[1].value))
    return ranges((sheet, r1, c1, r2, c2))


_SPEC = r"(\[-?\d+\]|\d+)?"
#: one end of an R1C1 reference: a cell, a row, a column (case does not matter)
_R1C1_PARTS = (("cell", re.compile(f"R{_SPEC}C{_SPEC}", re.I)),
               ("rows", re.compile(f"R{_SPEC}", re.I)),
               ("cols", re.compile(f"C{_SPEC}", re.I)))


def r1c1_rect(text: str, host: str, row: int, col: int):
    """The rectangle (sheet, r1, c1, r2, c2) that R1C1 ``text`` names from the cell at
    ``row``, ``col`` of sheet ``host`` (Microsoft's INDIRECT page, a1 FALSE): ``R2C3``
    (absolute), ``R[1]C[-2]`` (relative; ``R``/``C`` alone: the own row or column),
    ``R1C1:R3C2``, whole rows ``R2``/``R1:R3`` and columns ``C2``/``C1:C3``, with or
    without ``Sheet!``; None for any other text or a reference off the sheet.

    >>> r1c1_rect("R2C3", "S", 5, 5), r1c1_rect("r[1]c[-1]", "S", 5, 5)
    (('S', 2, 3, 2, 3), ('S', 6, 4, 6, 4))
    >>> r1c1_rect("'My Sheet'!C2:C3", "S", 5, 5), r1c1_rect("R1:R[-1]", "S", 5, 5)
    (('MY SHEET', 1, 2, 1048576, 3), ('S', 1, 1, 4, 16384))
    >>> r1c1_rect("RC", "S", 5, 5), r1c1_rect("R1C1:R2", "S", 5, 5)
    (('S', 5, 5, 5, 5), None)
    >>> r1c1_rect("A1", "S", 5, 5) is None, r1c1_rect("R0C1", "S", 5, 5) is None
    (True, True)
    """
    sheet, bang, area = text.rpartition("!")
    if bang:
        quoted = sheet[:1] == "'"
        if not sheet or quoted != (len(sheet) > 1 and sheet[-1] == "'"):
            return None
        host = shapes.sheet_key(sheet)
    parts = area.split(":")
    if len(parts) > 2:
        return None
    got = []
    for part in parts:
        for kind, pattern in _R1C1_PARTS:
            m = pattern.fullmatch(part)
            if m is not None:
                break
        else:
            return None
        if kind == "cell":
            got.append((kind, _r1c1_at(m.group(1), row), _r1c1_at(m.group(2), col)))
        elif kind == "rows":
            got.append((kind, _r1c1_at(m.group(1), row), None))
        else:
            got.append((kind, None, _r1c1_at(m.group(1), col)))
    if len({kind for kind, _, _ in got}) != 1:
        return None
    kind = got[0][0]
    rows = [r for _, r, _ in got] if kind != "cols" else [1, MAX_ROW]
    cols = [c for _, _, c in got] if kind != "rows" else [1, MAX_COL]
    if not all(1 <= r <= MAX_ROW for r in rows) or not all(1 <= c <= MAX_COL for c in cols):
        return None
    r1, r2 = sorted((rows[0], rows[-1]))
    c1, c2 = sorted((cols[0], cols[-1]))
    return (host, r1, c1, r2, c2)


def _r1c1_at(spec, own: int):
    """A row or column number from an R1C1 spec: ``None`` (own), ``3``, ``[-1]``."""
    if spec is None or spec == "":
        return own
    if spec.startswith("["):
        return own + int(spec[1:-1])
    return int(spec)


_FORMULAS_EXPAND = None  # formulas' own range operator, kept by :func:`install`
#: functions whose result may be a reference, so an end of Excel's range operator
REFERENCE_FUNCTIONS = ("INDEX", "OFFSET", "INDIRECT", "CHOOSE", "IF", "IFS", "SWITCH",
                       "XLOOKUP", "LET")
_CALL = "(?:_XLFN\\.|_XLWS\\.)*(?:" + "|".join(REFERENCE_FUNCTIONS) + ")\\("
#: a range operator with a function's result for an end: ``INDEX(r,2):A4``,
#: ``A1:OFFSET(A1,2,0)`` (upper case, as the read stage looks); anchored on the colon,
#: so that it costs ~0.04 CPU-s over the 100,000-row sheet's 900,000 formulas (0.19
#: looking for a parenthesis first)
RANGE_OPERATOR = re.compile(rf":(?:(?<=\):)|(?<=\s:)|\s*{_CALL})")
#: the literals :data:`RANGE_OPERATOR` matches, spaces after the colon aside
RANGE_OPERATOR_LITERALS = ["):", " :"] + [f":{p}{name}(" for name in REFERENCE_FUNCTIONS
                                          for p in ("", "_XLFN.")]
_SPACE_IT = lazy_pattern(rf"\)\s*:\s*|\s*:\s*(?={_CALL})", re.I)


def spaced_range_operators(text: str) -> str:
    """``text`` with a space each side of a range operator that has a function's result
    for an end (``INDEX(r,2) : A4``, ``Data!A1 : INDEX(r,3)``), outside string literals.
    formulas' parser misreads both unspaced: ``INDEX(r,2):A4`` as INDEX's result beside a
    reference ``:A4`` (12 where Excel gives 9 for A2:A4 of 1..10), ``Data!A1:INDEX(...)``
    as ``A1`` of the formula's own sheet, ``Data!$A$1:INDEX(...)`` not at all; spaced,
    it reads the operator, and the shape stage sees ``A4`` as the reference it is.

    >>> spaced_range_operators('SUM(INDEX(A1:A9,2):A4)&":)"')
    'SUM(INDEX(A1:A9,2) : A4)&":)"'
    >>> spaced_range_operators("SUM(D!A1:_xlfn.XLOOKUP(1,B:B,C:C)) + SUM(A1:B2)")
    'SUM(D!A1 : _xlfn.XLOOKUP(1,B:B,C:C)) + SUM(A1:B2)'
    """
    pieces = text.split('"')
    for k in range(0, len(pieces), 2):  # outside string literals
        if ":" in pieces[k]:
            pieces[k] = _SPACE_IT().sub(lambda m: ") : " if m.group(0)[0] == ")" else " : ",
                                      pieces[k])
    return '"'.join(pieces)


def expand(x, y):
    """Excel's range operator on two references (``A1:OFFSET(A1,2,0)``,
    ``INDEX(r,2):INDEX(r,4)``): the smallest rectangle holding both, on their sheet,
    with every cell's value read from the workbook. formulas' own operator assembles only
    the values its operands carried: ``SUM(A1:OFFSET(A1,2,0))`` added A1 and A3 and left
    A2 out (4 where Excel gives 6). Outside an evaluation (the compile stage), or for
    operands it does not know, it is formulas' own."""
    got = _ACTIVE.get()
    if got is not None and isinstance(x, Ranges) and isinstance(y, Ranges) and \
            len(x.ranges) == 1 and len(y.ranges) == 1:
        a, b = _rect(x), _rect(y)
        if a[0] == b[0] and a[0] in got[1]:
            return got[0]((a[0], min(a[1], b[1]), min(a[2], b[2]), max(a[3], b[3]),
                           max(a[4], b[4])))
    return _FORMULAS_EXPAND(x, y)


def install(table: dict) -> None:
    """OFFSET and INDIRECT (every spelling) in formulas' function ``table``, and the
    range operator (:func:`expand`) in formulas' operators."""
    global _FORMULAS_EXPAND
    from formulas.functions.operators import OPERATORS
    if not getattr(OPERATORS[":"], "_zvm_expand", False):
        _FORMULAS_EXPAND = OPERATORS[":"]
        ours = wrap_func(expand, ranges=True)
        ours._zvm_expand = True
        OPERATORS[":"] = ours
    off = wrap_func(offset, ranges=True)
    ind = {"extra_inputs": collections.OrderedDict([(CELL, None)]),
           "function": wrap_func(indirect, ranges=True)}
    for spelled in spellings("OFFSET", builtin=True):
        table[spelled] = off
    for spelled in spellings("INDIRECT", builtin=True):
        table[spelled] = ind


__all__ = ["DYNAMIC", "active", "indirect", "install", "offset"]

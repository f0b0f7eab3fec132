"""A1 references in formula text: the *shape* of a formula, and shifting it.

A planner sheet repeats one formula down thousands of rows (``=CPCPU_PER_MB(A2,B2)``,
``=CPCPU_PER_MB(A3,B3)``, ...). Compiling each with the ``formulas`` parser costs about a
millisecond, so the engine compiles each distinct *shape* once. A shape is the formula
text with every A1 reference rewritten relative to the cell holding it (``$`` parts stay
absolute), plus the holding sheet. Two cells with the same shape hold the same formula
up to a copy/fill, so they can share one compiled function; each cell keeps its own
resolved references (:attr:`Shape.rects`, in the order they appear in the text).

This module only *finds* references (outside string literals) -- it is not a formula
parser; the ``formulas`` package parses and evaluates. Text that it cannot be sure
about (external workbooks, structured references) gives no shape, and the engine
compiles that cell on its own. Imports nothing beyond the standard library.
"""
from __future__ import annotations

import re
from typing import NamedTuple

MAX_ROW, MAX_COL = 1_048_576, 16_384

# A reference, not preceded by anything that would make it part of a longer name, a
# number, a 3-D reference (Sheet1:Sheet3!A1) or an error literal (#REF!).
_REF = re.compile(r"""
    (?<![\w.$:!'\]\#])
    (?P<sheet>(?:'(?:[^']|'')+'|[^\W\d][\w.]*)!)?
    (?:
        (?P<c1>\$?[A-Za-z]{1,3})(?P<r1>\$?[0-9]{1,7})
        (?::(?P<c2>\$?[A-Za-z]{1,3})(?P<r2>\$?[0-9]{1,7}))?
      | (?P<cc1>\$?[A-Za-z]{1,3}):(?P<cc2>\$?[A-Za-z]{1,3})
      | (?P<rr1>\$?[0-9]{1,7}):(?P<rr2>\$?[0-9]{1,7})
    )
    (?![\w.(!:\[])
    """, re.VERBOSE)

Rect = tuple  # (SHEET_UPPER, r1, c1, r2, c2), 1-based, r1 <= r2, c1 <= c2


class Shape(NamedTuple):
    key: str                 # equal keys: same formula up to a relative shift
    rects: tuple[Rect, ...]  # each reference in text order, resolved for this cell


def sheet_key(name: str) -> str:
    """The case-insensitive key of a sheet name, quoted (``'My Sheet'``) or not."""
    if len(name) >= 2 and name[0] == name[-1] == "'":
        name = name[1:-1].replace("''", "'")
    return name.upper()


def col_number(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def col_letters(n: int) -> str:
    s = ""
    while n:
        n, rem = divmod(n - 1, 26)
        s = chr(65 + rem) + s
    return s


_COLS: dict[str, int] = {}  # column letters (with any $) -> number


def _split_strings(text: str) -> list[str]:
    """Even items are outside string literals, odd items inside (``""`` escapes work out)."""
    return text.split('"')


class _Part(NamedTuple):
    absolute: bool
    value: int


def _parts(m):
    """The four coordinates of a reference match, each (absolute?, value); None if it is
    not a reference after all (a column beyond XFD, row 0)."""
    g = m.groupdict()
    if g["c1"]:
        c1, r1 = g["c1"], g["r1"]
        c2, r2 = (g["c2"], g["r2"]) if g["c2"] else (c1, r1)
        cols = [_Part(c.startswith("$"), col_number(c.lstrip("$"))) for c in (c1, c2)]
        rows = [_Part(r.startswith("$"), int(r.lstrip("$"))) for r in (r1, r2)]
        kind = "cell"
    elif g["cc1"]:
        cols = [_Part(c.startswith("$"), col_number(c.lstrip("$"))) for c in (g["cc1"], g["cc2"])]
        rows = [_Part(True, 1), _Part(True, MAX_ROW)]
        kind = "cols"
    else:
        rows = [_Part(r.startswith("$"), int(r.lstrip("$"))) for r in (g["rr1"], g["rr2"])]
        cols = [_Part(True, 1), _Part(True, MAX_COL)]
        kind = "rows"
    if not all(1 <= p.value <= MAX_COL for p in cols) or \
            not all(1 <= p.value <= MAX_ROW for p in rows):
        return None
    return kind, rows, cols


def shape(text: str, sheet: str, row: int, col: int) -> Shape | None:
    """The shape of formula ``text`` (without or with its leading ``=``) held in cell
    (``row``, ``col``) of ``sheet``; None when the text has external or structured
    references, which the engine then compiles on their own."""
    host = sheet_key(sheet)
    pieces = _split_strings(text)
    key, rects = [host, "\x01"], []
    for i, piece in enumerate(pieces):
        if i % 2:
            key.append('"' + piece + '"')
            continue
        if "[" in piece:
            return None
        pos = 0
        for m in _REF.finditer(piece):
            c1s, r1s, ref_sheet = m.group("c1", "r1", "sheet")
            if c1s is not None and m.group("c2") is None:  # one cell: the common case
                ca, ra = c1s[0] == "$", r1s[0] == "$"
                cv = _COLS.get(c1s)
                if cv is None:
                    cv = _COLS[c1s] = col_number(c1s.lstrip("$"))
                rv = int(r1s[1:] if ra else r1s)
                if cv > MAX_COL or not 1 <= rv <= MAX_ROW:
                    continue
                target = sheet_key(ref_sheet[:-1]) if ref_sheet else host
                re_ = f"${rv}" if ra else f"~{rv - row}"
                ce = f"${cv}" if ca else f"~{cv - col}"
                key.append(piece[pos:m.start()])
                key.append(f"\x00{target if ref_sheet else ''}!cell{re_},{ce}\x00")
                pos = m.end()
                rects.append((target, rv, cv, rv, cv))
                continue
            parts = _parts(m)
            if parts is None:
                continue
            kind, rows, cols = parts
            ref_sheet = m.group("sheet")
            target = sheet_key(ref_sheet[:-1]) if ref_sheet else host
            enc = []
            for p, origin in ((rows[0], row), (cols[0], col), (rows[1], row), (cols[1], col)):
                enc.append(f"${p.value}" if p.absolute else f"~{p.value - origin}")
            key.append(piece[pos:m.start()])
            key.append(f"\x00{target if ref_sheet else ''}!{kind}{','.join(enc)}\x00")
            pos = m.end()
            r1, r2 = sorted((rows[0].value, rows[1].value))
            c1, c2 = sorted((cols[0].value, cols[1].value))
            rects.append((target, r1, c1, r2, c2))
        key.append(piece[pos:])
    return Shape("".join(key), tuple(rects))


def translate(text: str, rows: int, cols: int) -> str:
    """``text`` as it reads when copied ``rows`` down and ``cols`` right (what Excel does to
    the master of a shared formula); a reference pushed off the sheet becomes ``#REF!``."""
    pieces = _split_strings(text)
    out = []
    for i, piece in enumerate(pieces):
        if i % 2:
            out.append(piece)
            continue
        out.append(_REF.sub(lambda m: _shift(m, rows, cols), piece))
    return '"'.join(out)


def _shift(m, rows: int, cols: int) -> str:
    parts = _parts(m)
    if parts is None:
        return m.group(0)
    kind, rs, cs = parts
    moved_r = [p if p.absolute else _Part(False, p.value + rows) for p in rs]
    moved_c = [p if p.absolute else _Part(False, p.value + cols) for p in cs]
    if kind != "cols" and not all(1 <= p.value <= MAX_ROW for p in moved_r) or \
            kind != "rows" and not all(1 <= p.value <= MAX_COL for p in moved_c):
        return "#REF!"
    sheet = m.group("sheet") or ""

    def c(p):
        return ("$" if p.absolute else "") + col_letters(p.value)

    def r(p):
        return ("$" if p.absolute else "") + str(p.value)
    if kind == "cols":
        return f"{sheet}{c(moved_c[0])}:{c(moved_c[1])}"
    if kind == "rows":
        return f"{sheet}{r(moved_r[0])}:{r(moved_r[1])}"
    first = c(moved_c[0]) + r(moved_r[0])
    if m.group("c2"):
        return f"{sheet}{first}:{c(moved_c[1])}{r(moved_r[1])}"
    return sheet + first


def reference(text: str) -> Rect | None:
    """The rectangle of ``text`` if it is exactly one sheet-qualified reference
    (``'My Sheet'!$A$1:$B$4``, as a defined name holds it), else None."""
    m = _REF.fullmatch(text.strip())
    if m is None or not m.group("sheet"):
        return None
    parts = _parts(m)
    if parts is None:
        return None
    _, rows, cols = parts
    r1, r2 = sorted((rows[0].value, rows[1].value))
    c1, c2 = sorted((cols[0].value, cols[1].value))
    return (sheet_key(m.group("sheet")[:-1]), r1, c1, r2, c2)


def a1(row: int, col: int) -> str:
    return f"{col_letters(col)}{row}"


def parse_a1(ref: str) -> tuple[int, int]:
    """``"D12"`` -> (12, 4)."""
    m = re.fullmatch(r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})", ref.strip())
    if not m:
        raise ValueError(f"not a cell reference: {ref!r}")
    return int(m.group(2)), col_number(m.group(1))


def parse_area(ref: str) -> tuple[int, int, int, int]:
    """``"D2:F4"`` -> (2, 4, 4, 6) as (r1, c1, r2, c2); a single cell gives a 1x1 area."""
    first, _, last = ref.partition(":")
    r1, c1 = parse_a1(first)
    r2, c2 = parse_a1(last) if last else (r1, c1)
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


__all__ = ["Shape", "shape", "translate", "reference", "sheet_key", "col_number", "col_letters", "a1",
           "parse_a1", "parse_area", "MAX_ROW", "MAX_COL"]

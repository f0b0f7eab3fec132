"""A1 references inside formula text: found (outside string literals) and shifted.

:func:`translate` is what Excel does to the master text of a shared formula for each
cell that shares it (the xlsx reader needs it to give every cell its own text); the
engine's *shapes* (:mod:`zvmplan_addin.recalc.shapes`) find references with the same
pattern. Standard library only, plus the A1 grammar of :mod:`.cells`."""
from __future__ import annotations

import re
from typing import NamedTuple

from .cells import col_letters, col_number

MAX_ROW, MAX_COL = 1_048_576, 16_384   # Excel's last row and column

# A reference, not preceded by anything that would make it part of a longer name, a
# number, a 3-D reference (Sheet1:Sheet3!A1) or an error literal (#REF!).
REFERENCE = re.compile(r"""
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


def split_strings(text: str) -> list[str]:
    """Even items are outside string literals, odd items inside (``""`` escapes work out)."""
    return text.split('"')


class Part(NamedTuple):
    absolute: bool
    value: int


def reference_parts(m):
    """The four coordinates of a reference match, each (absolute?, value); None if it is
    not a reference after all (a column beyond XFD, row 0)."""
    g = m.groupdict()
    if g["c1"]:
        c1, r1 = g["c1"], g["r1"]
        c2, r2 = (g["c2"], g["r2"]) if g["c2"] else (c1, r1)
        cols = [Part(c.startswith("$"), col_number(c.lstrip("$"))) for c in (c1, c2)]
        rows = [Part(r.startswith("$"), int(r.lstrip("$"))) for r in (r1, r2)]
        kind = "cell"
    elif g["cc1"]:
        cols = [Part(c.startswith("$"), col_number(c.lstrip("$"))) for c in (g["cc1"], g["cc2"])]
        rows = [Part(True, 1), Part(True, MAX_ROW)]
        kind = "cols"
    else:
        rows = [Part(r.startswith("$"), int(r.lstrip("$"))) for r in (g["rr1"], g["rr2"])]
        cols = [Part(True, 1), Part(True, MAX_COL)]
        kind = "rows"
    if not all(1 <= p.value <= MAX_COL for p in cols) or \
            not all(1 <= p.value <= MAX_ROW for p in rows):
        return None
    return kind, rows, cols


def translate(text: str, rows: int, cols: int, wrap: bool = False) -> str:
    """``text`` as it reads when copied ``rows`` down and ``cols`` right (what Excel does to
    the master of a shared formula); a reference pushed off the sheet becomes ``#REF!``,
    or with ``wrap`` comes back from the other edge (what Excel does to the relative
    references of a defined name, stored relative to A1, in the cell using it)."""
    return sub_references(text, lambda m: _shift(m, rows, cols, wrap))


def sub_references(text: str, repl) -> str:
    """``text`` with each reference outside string literals replaced by ``repl(match)``."""
    pieces = split_strings(text)
    return '"'.join(piece if i % 2 else REFERENCE.sub(repl, piece) for i, piece in enumerate(pieces))


def _shift(m, rows: int, cols: int, wrap: bool = False) -> str:
    parts = reference_parts(m)
    if parts is None:
        return m.group(0)
    kind, rs, cs = parts
    moved_r = [p if p.absolute else Part(False, p.value + rows) for p in rs]
    moved_c = [p if p.absolute else Part(False, p.value + cols) for p in cs]
    if wrap:
        moved_r = [Part(p.absolute, (p.value - 1) % MAX_ROW + 1) for p in moved_r]
        moved_c = [Part(p.absolute, (p.value - 1) % MAX_COL + 1) for p in moved_c]
        if kind == "cell" and m.group("c2") and (moved_r[0].value > moved_r[1].value or
                                                moved_c[0].value > moved_c[1].value):
            return "#REF!"  # a range torn apart by the edge: Excel has no such range
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


__all__ = ["MAX_ROW", "MAX_COL", "REFERENCE", "Part", "reference_parts", "split_strings",
           "sub_references", "translate"]

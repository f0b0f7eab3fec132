"""Defined names, read as Excel reads them: each use of a name in a formula is replaced by
its definition, moved to the cell that uses it (:class:`NameTable`, used by the read
stage), so every later stage sees plain references.

Excel's rules (ECMA-376 Part 1, 18.2.5 ``definedName``; Microsoft's "Define and use
names in formulas"):

* a name is global, or local to one sheet (``localSheetId``); in a formula of that sheet
  the local one wins, elsewhere it is reached as ``Sheet!name`` (``=Other!rate`` reads
  sheet Other's own ``rate``, whatever the calling sheet defines);
* the relative parts of a name's references are stored relative to cell A1 and move
  with the cell that uses the name: ``ROWVAL = S!$D1`` used in row 3 reads ``S!$D3``;
  a reference moved past the sheet's last row or column wraps around to its first, as
  Excel's do;
* a name may use other names; ``[0]!name`` is a name of this workbook; a name that uses itself (directly or through others) is
  not replaced and reads as an unknown name (``#NAME?``).

The cost is the names a formula uses: one scan of its text and a dictionary look-up per
word, never the whole table per formula (a workbook of 20,000 names whose formulas use
none costs nothing more).
"""
from __future__ import annotations

import re

from ..xlsx.references import translate
from . import shapes
from ..lazyre import lazy_pattern

# A word that may be a name: not part of a longer word, number, reference, error literal,
# structured reference or function call; optionally qualified by its sheet. After ":" only
# when a cell's row number is before it (``B2:E5:f`` is B2:E5 to the range named f, as
# Excel reads it; ``A:f`` is columns A to F).
_WORD = lazy_pattern(r"""
    (?P<error>\#(?:N/A|NULL!|DIV/0!|VALUE!|REF!|NAME\?|NUM!|GETTING_DATA|SPILL!|CALC!))|
    (?<![\w.\\$!'\]\#\[@?])(?<!(?<!\d):)
    (?P<sheet>(?:'(?:[^']|'')+'|[^\W\d][\w.]*)!)?
    (?P<name>[^\W\d][\w.\\?]*|\\[\w.\\?]*)
    (?![\w.\\?(!\[\]$:])
    """, re.VERBOSE)
_OWN_BOOK = lazy_pattern(r"(?<![\w\]])\[0\]!")   # [0]!Name: a name of this workbook
_SINGLE = lazy_pattern(r"""(?:'(?:[^']|'')+'|[^\W\d][\w.]*)![$A-Za-z0-9:]+|-?[0-9.]+(?:[eE][+-]?[0-9]+)?
                         |"(?:[^"]|"")*"|\{[^}]*\}|\#[A-Z/0!?]+[!?A]?|TRUE|FALSE""", re.X | re.I)
_LAMBDA = lazy_pattern(r"\s*(?:_xlfn\.)?LAMBDA\s*\(", re.I)
MAX_DEPTH = 32          # names within names, deeper than any real workbook


class NameTable:
    """The defined names of a workbook (global and sheet-local), ready to be put in place
    of their uses in formula text (:meth:`inline`). ``names``: (name, definition text,
    index of its sheet or None) each; ``sheet_names``: the workbook's sheets in order."""

    def __init__(self, names, sheet_names: list[str]):
        self.sheet_index = {shapes.sheet_key(n): k for k, n in enumerate(sheet_names)}
        self.table: dict[tuple, str] = {}     # (sheet or None, NAME) -> definition
        for name, text, sheet in names:
            key = name.upper()
            text = text.strip()
            if key.startswith("_XLNM.") or not text:
                continue
            if sheet is not None and not 0 <= sheet < len(sheet_names):
                continue
            self.table[(sheet, key)] = text[1:] if text.startswith("=") else text
        self._words = {key for _, key in self.table}

    def __bool__(self) -> bool:
        return bool(self.table)

    def lambdas(self):
        """(sheet or None, NAME, definition) of each name that is a LAMBDA, which a
        formula calls as a function (``=MYLAMBDA(2,1)``): these are not replaced but
        evaluated as names of their own."""
        return [(sheet, name, text) for (sheet, name), text in self.table.items()
                if _LAMBDA().match(text)]

    def inline(self, text: str, sheet: int, row: int, col: int) -> str:
        """``text`` (a formula without its ``=``, in cell (``row``, ``col``) of sheet
        index ``sheet``) with each defined name replaced by its definition moved to that
        cell, in parentheses unless it is one reference or literal."""
        if not self.table:
            return text
        return self._inline(text, sheet, row, col, ())

    def _inline(self, text: str, sheet: int, row: int, col: int, seen: tuple) -> str:
        pieces = text.split('"')
        changed = False
        for k in range(0, len(pieces), 2):  # outside string literals
            piece = pieces[k]
            if not piece:
                continue
            if "[0]!" in piece:
                piece = pieces[k] = _OWN_BOOK().sub("", piece)
                changed = True
            new = _WORD().sub(lambda m: self._replace(m, sheet, row, col, seen), piece)
            if new is not piece and new != piece:
                pieces[k], changed = new, True
        return '"'.join(pieces) if changed else text

    def _replace(self, m, sheet: int, row: int, col: int, seen: tuple) -> str:
        if m.group("error") or m.group("name").upper() not in self._words:
            return m.group(0)  # an error literal (#N/A), or no name
        name = m.group("name").upper()
        if name not in self._words:
            return m.group(0)
        qualifier = m.group("sheet")
        if qualifier:
            scope = self.sheet_index.get(shapes.sheet_key(qualifier[:-1]))
            if scope is None:
                return m.group(0)
            key = (scope, name) if (scope, name) in self.table else (None, name)
        else:
            key = (sheet, name) if (sheet, name) in self.table else (None, name)
        definition = self.table.get(key)
        if definition is None or key in seen or len(seen) >= MAX_DEPTH:
            return m.group(0)
        moved = translate(definition, row - 1, col - 1, wrap=True) \
            if row > 1 or col > 1 else definition
        # names inside the definition: in the scope of a local name's own sheet
        inner = self._inline(moved, key[0] if key[0] is not None else sheet, row, col,
                             seen + (key,))
        after_colon = m.start() > 0 and m.string[m.start() - 1] == ":"  # A1:name
        return inner if _SINGLE().fullmatch(inner.strip()) and not after_colon else f"({inner})"


__all__ = ["NameTable", "MAX_DEPTH"]

"""Structured references to Excel tables (``Table1[Col]``, ``Table1[[#This Row],[Col]]``,
``[@Col]``, ``Table1[#Totals]``, ``Table1[#All]``), read as Excel reads them: each is
replaced in the read stage by the A1 reference it stands for (:class:`TableRefs`), so the
later stages see plain references.

Excel's rules (Microsoft, "Using structured references with Excel tables"): a table's
range holds its header rows (``headerRowCount``, 1 unless 0), its data and its totals
rows (``totalsRowCount``); ``Table1`` and ``Table1[]`` are the data, ``[Col]`` one
column of it and ``[[Col1]:[Col2]]`` several; the item specifiers ``#All``, ``#Data``,
``#Headers``, ``#Totals`` and ``#This Row`` (``@``) choose the rows, several may be
combined (``[[#Headers],[#Data],[Col]]``); a reference without a table name is to the
table holding the formula. In a column name ``'`` escapes ``[``, ``]``, ``#`` and ``'``.
A reference Excel could not resolve (an unknown column, ``#Totals`` of a table with
none, ``#This Row`` outside the data rows) is ``#REF!`` (``#VALUE!`` for #This Row).
"""
from __future__ import annotations

import re

from ..xlsx.cells import col_letters
from .values import display
from ..lazyre import lazy_pattern

_START = lazy_pattern(r"(?<![\w.\\\]])((?:[A-Za-z_\\][\w.\\]*)?)\[")
_SPECIAL = {"#ALL", "#DATA", "#HEADERS", "#TOTALS", "#THIS ROW"}


class TableRefs:
    """The tables of a workbook (``tables``: :class:`~zvmplan_addin.xlsx.sheet.Table`
    each; ``sheet_names``: the sheets in order), for :meth:`inline`."""

    def __init__(self, tables, sheet_names: list[str]):
        self.by_name = {t.name.upper(): t for t in tables if t.name}
        self.tables = list(tables)
        self.sheet_names = sheet_names
        names = "|".join(re.escape(n) for n in sorted(self.by_name, key=len, reverse=True))
        self._bare = re.compile(r"(?<![\w.\\!'\]\[])(?:%s)(?![\w.\\(!\[])" % names, re.I) \
            if names else re.compile(r"(?!x)x")

    def __bool__(self) -> bool:
        return bool(self.tables)

    def inline(self, text: str, sheet: int, row: int, col: int) -> str:
        """``text`` (a formula without ``=`` in cell (``row``, ``col``) of sheet index
        ``sheet``) with each structured reference replaced by its A1 reference."""
        if not self.tables:
            return text
        pieces = text.split('"')
        for k in range(0, len(pieces), 2):
            if "[" in pieces[k]:
                pieces[k] = self._inline(pieces[k], sheet, row, col)
            if self._bare.search(pieces[k]):  # a table's name alone: its data
                pieces[k] = self._bare.sub(
                    lambda m: self._resolve(self.by_name[m.group(0).upper()], "", row),
                    pieces[k])
        return '"'.join(pieces)

    def _inline(self, piece: str, sheet: int, row: int, col: int) -> str:
        out, pos = [], 0
        for m in _START().finditer(piece):
            if m.start() < pos:
                continue
            end = _closing(piece, m.end() - 1)
            if end is None:
                break
            name, inner = m.group(1), piece[m.end():end]
            table = self.by_name.get(name.upper()) if name else self._holding(sheet, row, col)
            if table is None or (not name and re.fullmatch(r"[0-9]+", inner)):
                continue  # not a table (an external workbook's [1], a name)
            out.append(piece[pos:m.start()])
            out.append(self._resolve(table, inner, row))
            pos = end + 1
        out.append(piece[pos:])
        return "".join(out)

    def _holding(self, sheet: int, row: int, col: int):
        for t in self.tables:
            r1, c1, r2, c2 = t.area
            if t.sheet == sheet and r1 <= row <= r2 and c1 <= col <= c2:
                return t
        return None

    def _resolve(self, t, inner: str, row: int) -> str:
        items = _items(inner)
        if items is None:
            return "#REF!"
        specials = {i for i in items if isinstance(i, str) and i in _SPECIAL}
        columns = [i for i in items if not (isinstance(i, str) and i in _SPECIAL)]
        r1, c1, r2, c2 = t.area
        first_data, last_data = r1 + t.header_rows, r2 - t.totals_rows
        if "#ALL" in specials:
            rows = (r1, r2)
        elif "#THIS ROW" in specials:
            if not first_data <= row <= last_data:
                return "#VALUE!"
            rows = (row, row)
        else:
            chosen = specials or {"#DATA"}
            if "#HEADERS" in chosen and not t.header_rows or \
                    "#TOTALS" in chosen and not t.totals_rows:
                return "#REF!"
            top = r1 if "#HEADERS" in chosen else first_data if "#DATA" in chosen else r2
            bottom = r2 if "#TOTALS" in chosen else last_data if "#DATA" in chosen else r1
            rows = (top, bottom)
        if not columns:
            cols = (c1, c2)
        else:
            at = []
            for item in columns:
                for name in (item if isinstance(item, tuple) else (item,)):
                    k = _column(t, name)
                    if k is None:
                        return "#REF!"
                    at.append(c1 + k)
            cols = (min(at), max(at))
        if rows[0] > rows[1]:
            return "#REF!"
        sheet = display(self.sheet_names[t.sheet]) + "!"
        # the formula's own row is relative (``$B7``): the reference of every row of a
        # filled column is then the first one's moved, as fill-down recognises it
        row = "" if "#THIS ROW" in specials and "#ALL" not in specials else "$"
        first = f"${col_letters(cols[0])}{row}{rows[0]}"
        if rows[0] == rows[1] and cols[0] == cols[1]:
            return sheet + first
        return f"{sheet}{first}:${col_letters(cols[1])}{row}{rows[1]}"


def _column(t, name: str):
    key = name.strip().upper()
    for k, col in enumerate(t.columns):
        if col.upper() == key or col.upper().strip() == key:
            return k
    return None


def _closing(text: str, start: int):
    """The index of the ``]`` closing the ``[`` at ``start`` (``'`` escapes one)."""
    depth, k = 0, start
    while k < len(text):
        ch = text[k]
        if ch == "'":
            k += 2
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return None


def _unescape(name: str) -> str:
    return re.sub(r"'(.)", r"\1", name)


def _items(inner: str):
    """The specifiers of a structured reference's brackets: special item names upper-case
    (``#THIS ROW``), a column name, or (first, last) for a column range; None if it does
    not parse."""
    inner = inner.strip()
    if inner.startswith("@"):  # Excel's short form of [#This Row],...
        rest = inner[1:].strip()
        if rest.startswith("["):  # [@[Col]], [@[Col1]:[Col2]]: bracketed items
            items = _items(rest)
            return None if items is None else ["#THIS ROW"] + items
        return ["#THIS ROW"] + ([_unescape(rest)] if rest else [])
    if not inner.startswith("["):
        if inner.upper() in _SPECIAL:
            return [inner.upper()]
        return [_unescape(inner)] if inner else []
    items, k = [], 0
    while k < len(inner):
        if inner[k] in " ,":
            k += 1
            continue
        if inner[k] != "[":
            return None
        end = _closing(inner, k)
        if end is None:
            return None
        first = inner[k + 1:end]
        k = end + 1
        if k < len(inner) and inner[k] == ":":
            if k + 1 >= len(inner) or inner[k + 1] != "[":
                return None
            end2 = _closing(inner, k + 1)
            if end2 is None:
                return None
            items.append((_unescape(first), _unescape(inner[k + 2:end2])))
            k = end2 + 1
            continue
        name = _unescape(first)
        special = name.upper().replace("  ", " ")
        items.append(special if special in _SPECIAL else name)
    return items


__all__ = ["TableRefs"]

"""What a few of Excel's functions read of the workbook besides cell values: which rows
are hidden, which of them a filter hid, and which cells hold a SUBTOTAL or AGGREGATE
(:class:`BookFacts`). SUBTOTAL and AGGREGATE (:mod:`.excel.subtotals`) read them.

The file does not say whether a hidden row was hidden by hand or by a filter: both are
written ``<row hidden="1">``. Microsoft's SUBTOTAL page: "1-11 includes manually-hidden
rows, while 101-111 excludes them; filtered-out cells are always excluded". The rule
here is the one Excel's own saved values show (EPPlus's ``SubtotalFilters.xlsx``, Apache
POI's ``ConditionalFormattingSamples.xlsx``, both in the corpus of Excel-saved
workbooks): on a sheet with no filter in effect every hidden row is hidden by hand; on a
sheet with a filter in effect (``<sheetPr filterMode="1">``, an autoFilter with a
``filterColumn``, or a table whose autoFilter has one) a hidden row is the filter's,
also outside the filter's range, unless it has a custom height (``customHeight="1"``),
which Excel keeps for a row hidden by hand.

Like :class:`~.runlog.Reasons`, the facts of the workbook being recalculated are made
active (a context variable) for the functions, which formulas calls without the run.
"""
from __future__ import annotations

import contextlib
import contextvars
import re

from .during import during
from . import shapes
from ..lazyre import lazy_pattern

_ACTIVE: contextvars.ContextVar["BookFacts | None"] = contextvars.ContextVar(
    "zvmplan_book_facts", default=None)
#: a call of SUBTOTAL or AGGREGATE in a formula's text
_NESTED = lazy_pattern(r"(?<![A-Za-z0-9_.])(?:_xlfn\.)?(?:SUBTOTAL|AGGREGATE)\s*\(", re.I)
_EMPTY: frozenset = frozenset()


class BookFacts:
    """The hidden rows of each sheet (by :func:`~.shapes.sheet_key`), split into those
    hidden by hand (:meth:`manual_rows`) and those a filter hid (:meth:`filtered_rows`),
    and the cells whose formula calls SUBTOTAL or AGGREGATE (:meth:`subtotal_cells`,
    found in the formula texts the first time a function asks)."""

    def __init__(self, sheets, formula_cells):
        """``sheets``: the workbook's :class:`~zvmplan_addin.xlsx.SheetData`;
        ``formula_cells()``: an iterable of (sheet index, row, col, text, area) of every
        formula cell, called only if a function asks which cells hold SUBTOTAL."""
        self._keys = [shapes.sheet_key(s.name) for s in sheets]
        self._manual, self._filtered = {}, {}
        for key, sheet in zip(self._keys, sheets):
            hidden = sheet.hidden_rows
            if not hidden:
                continue
            if sheet.filter_active:
                self._manual[key] = frozenset(r for r, custom in hidden.items() if custom)
                self._filtered[key] = frozenset(r for r, custom in hidden.items() if not custom)
            else:
                self._manual[key] = frozenset(hidden)
        self._formula_cells = formula_cells
        self._nested: dict | None = None

    def manual_rows(self, sheet: str) -> frozenset:
        """The rows of ``sheet`` hidden by hand."""
        return self._manual.get(shapes.sheet_key(sheet), _EMPTY)

    def filtered_rows(self, sheet: str) -> frozenset:
        """The rows of ``sheet`` a filter hid."""
        return self._filtered.get(shapes.sheet_key(sheet), _EMPTY)

    def subtotal_cells(self, sheet: str) -> frozenset:
        """The (row, col) of the cells of ``sheet`` whose formula calls SUBTOTAL or
        AGGREGATE (every cell of such an array formula's range)."""
        if self._nested is None:
            nested: dict = {}
            for s, r, c, text, area in self._formula_cells():
                if _NESTED().search(text):
                    cells = nested.setdefault(self._keys[s], set())
                    if area is None:
                        cells.add((r, c))
                    else:
                        cells.update((rr, cc) for rr in range(area[0], area[2] + 1)
                                     for cc in range(area[1], area[3] + 1))
            self._nested = {k: frozenset(v) for k, v in nested.items()}
        return self._nested.get(shapes.sheet_key(sheet), _EMPTY)

    @contextlib.contextmanager
    def active(self):
        """Where :func:`current` finds these facts while the block runs."""
        with during(_ACTIVE, self, self):
            yield self


def current() -> BookFacts | None:
    """The facts of the workbook being recalculated, if any."""
    return _ACTIVE.get()

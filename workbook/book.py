"""What the builder records while it lays out the template, for the tests and the fill tool.

The template checks itself: every published number sits beside a live formula. The
builder also keeps, for each such pair, the tolerance within which they must agree
(:class:`Check`), and names the cells other sheets refer to (``refs``), so the tests
read the same layout the builder wrote instead of guessing cell addresses.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from openpyxl import Workbook


@dataclass(frozen=True)
class Check:
    """A published number and the live formula that must reproduce it."""
    sheet: str
    published: str   # cell holding the number as printed
    live: str        # cell holding the live formula
    tolerance: float  # |published - live| allowed: half the last printed digit, plus the
    #                   rounding carried by the live formula's own inputs where it has any
    ref: str         # the source: document, table, row, column
    expect: str = ""  # non-empty: the sheet says this one is not reproduced, and why


@dataclass
class Book:
    wb: Workbook
    checks: list[Check] = field(default_factory=list)
    refs: dict[str, str] = field(default_factory=dict)   # key -> "'sheet'!$C$5"
    # (sheet, cell) -> why an error value is expected there
    expected_errors: dict[tuple[str, str], str] = field(default_factory=dict)

    def ref(self, key: str, ws, cell: str) -> str:
        """Record ``cell`` of ``ws`` under ``key``; returns the absolute reference."""
        col = "".join(ch for ch in cell if ch.isalpha())
        row = "".join(ch for ch in cell if ch.isdigit())
        full = f"{quote(ws.title)}!${col}${row}"
        self.refs[key] = full
        return full


def quote(sheet: str) -> str:
    """A sheet name as it must appear in a formula."""
    return sheet if sheet.isidentifier() and not sheet[0].isdigit() else f"'{sheet}'"

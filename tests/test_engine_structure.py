"""Workbook structure as Excel reads it (issue 16): sheet names, defined names, implicit
intersection, legacy array formulas, the 1904 date system, ROW/COLUMN of the cell
itself, structured, OFFSET/INDIRECT and external references. Each test builds its own
small workbook; the expected values are Excel's documented behaviour (the docstrings say
which), cross-checked with LibreOffice headless where it agrees with Excel."""
from __future__ import annotations

import openpyxl
import pytest

from zvmplan_addin import recalc as engine

from builders import save, values_of

#: sheet names that must be quoted in a reference, and some that need not be
SHEET_NAMES = ("Q1-2024", "HS1-XYZ", "A1", "R1C1", "TRUE", "My Sheet", "O'Brien", "Ünï",
               "Q1 2024", "Plan.v2", "2024")


def sheet_names_book(path):
    """Sheet ``Q1-2024`` reads F57 of itself with and without its name, and B2 and A1 of
    each sheet of :data:`SHEET_NAMES`; each of those sheets holds B2 = 5, A1 = B2*3 and
    A2 = SUM(B1:B3)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = SHEET_NAMES[0]
    ws["F57"] = 21
    ws["A1"] = "=F57*2"
    ws["A2"] = "='Q1-2024'!F57+1"
    ws["A3"] = "=SUM(F56:F58)"
    for k, name in enumerate(SHEET_NAMES[1:]):
        other = wb.create_sheet(name)
        other["B2"] = 5
        other["A1"] = "=B2*3"
        other["A2"] = "=SUM(B1:B3)"
        quoted = "'" + name.replace("'", "''") + "'"
        ws.cell(row=10 + k, column=1, value=f"={quoted}!B2+{quoted}!A1+{quoted}!A2")
    return save(wb, path)


def test_sheet_names_that_read_like_references(tmp_path):
    """Excel quotes a sheet name in a reference unless it is letters, digits, ``_`` and
    ``.`` starting with a letter and not itself a reference (``'Q1-2024'!F57``,
    ``'A1'!B2``), and reads a sheet's own unqualified references from that sheet: in
    sheet ``Q1-2024``, ``=F57*2`` is 42 when F57 holds 21 (it read as empty, 0, when
    formulas wrote the name back unquoted and parsed ``Q1`` out of it)."""
    out = tmp_path / "out.xlsx"
    report = engine.calc(sheet_names_book(tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Q1-2024")
    assert [ws["A1"].value, ws["A2"].value, ws["A3"].value] == [42, 22, 21]
    assert [ws.cell(row=10 + k, column=1).value for k in range(len(SHEET_NAMES) - 1)] == \
        [25] * (len(SHEET_NAMES) - 1)
    for name in SHEET_NAMES[1:]:
        other = values_of(out, name)
        assert (other["A1"].value, other["A2"].value) == (15, 5), name
    assert not report.warnings and not report.unsupported


def test_row_and_column_of_the_cell_itself_are_not_circular(tmp_path):
    """ROW, COLUMN, ROWS, COLUMNS and ISREF read where a reference is, never its value,
    so Excel computes ``=ROW(A2)*10`` in A2 (20) without a circular-reference warning;
    the same for a range holding the cell. A value read beside them still counts."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A2"] = "=ROW(A2)*10"
    ws["B3"] = "=COLUMN(B3)+ROWS(A1:C5)*100+COLUMNS(B1:B9)"
    ws["D5"] = "=IF(ISREF(D5),1,2)"
    ws["E1"] = "=ROW(E1)+E2"
    ws["E2"] = 7
    ws["F1"] = "=ROW(F1)+F1"          # reads its own value too: circular, 0 as in Excel
    out = tmp_path / "out.xlsx"
    report = engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Sheet")
    assert [ws[c].value for c in ("A2", "B3", "D5", "E1", "F1")] == [20, 503, 1, 8, 0]
    assert report.circular == ["Sheet!F1"]

"""References the engine resolves as Excel does: defined names, sheet names that need
quoting, whole columns, and empty cells inside the used area."""
from __future__ import annotations

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName

from zvmplan_addin import recalc as engine

from builders import save, values_of

pytestmark = pytest.mark.usefixtures("zt_functions")


def test_names_sheets_and_whole_columns(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "My Plan"
    other = wb.create_sheet("O'Brien")
    other["A1"] = 5
    ws["A1"], ws["A2"], ws["A3"] = 1, 2, 3
    ws["B1"] = "=SUM(A:A)"
    ws["B2"] = "='O''Brien'!A1*2"
    ws["B3"] = "=Tax*A1"                 # a constant name
    ws["B4"] = "=Double"                 # a formula name reading a formula cell
    ws["B5"] = "=LocalRate"              # a sheet-local name
    ws["B6"] = "=SUM(C1:C3)"             # reads a spilled range
    ws["C1"] = "=ZT_SCALE(A1:A3,10)"     # spills into C2:C3
    ws["B7"] = "='My Plan'!A2+'O''Brien'!A1"
    ws["B8"] = "=Inputs+1"               # a range name on a quoted sheet
    wb.defined_names["Tax"] = DefinedName("Tax", attr_text="0.25")
    wb.defined_names["Double"] = DefinedName("Double", attr_text="'My Plan'!$B$7*2")
    wb.defined_names["Inputs"] = DefinedName("Inputs", attr_text="'O''Brien'!$A$1")
    ws.defined_names["LocalRate"] = DefinedName("LocalRate", attr_text="'My Plan'!$A$3")
    path = save(wb, tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    report = engine.calc(path, out)
    ws = values_of(out, "My Plan")
    assert [ws[f"B{r}"].value for r in range(1, 9)] == [6, 10, 0.25, 14, 3, 60, 7, 6]
    assert [ws[f"C{r}"].value for r in (1, 2, 3)] == [10, 20, 30]
    assert not report.unsupported and not report.warnings


def test_empty_cells_inside_the_used_area(tmp_path):
    """An empty cell is "" to comparisons and None to a zvmplan function (np.full once
    turned formulas' empty token into the text 'empty')."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["C3"] = 1                                   # A1, B2 lie inside the used area
    ws["D1"] = '=IF(A1="","empty","full")'
    ws["D2"] = "=ZT_NAME(B2)"                      # a required argument, empty
    ws["D3"] = "=ZT_SCALE(3,B2)"                   # an optional argument, empty
    ws["D4"] = "=ISBLANK(A1)"
    ws["D5"] = "=A1+1"
    ws["D6"] = '=A1&"x"'
    path = save(wb, tmp_path / "in.xlsx")
    report = engine.calc(path, tmp_path / "out.xlsx")
    ws = values_of(tmp_path / "out.xlsx", "Sheet")
    assert [ws[f"D{r}"].value for r in range(1, 7)] == ["empty", "#VALUE!", 3, True, 1, "x"]
    assert "required" in report.errors["Sheet!D2"][1]

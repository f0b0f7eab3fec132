"""The headless engine's contract with the file: ``calc`` caches the values of builtins
and registry functions, keeps the formulas, leaves everything else in the file alone,
never touches its input, and gives the same values when run on its own output."""
from __future__ import annotations

import os
import zipfile

import openpyxl
import pytest
from openpyxl.styles import Font
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.formula import ArrayFormula

from zvmplan_addin import recalc as engine

from builders import file_digest, formulas_of, save, values_of

pytestmark = pytest.mark.usefixtures("zt_functions")


def test_calc_caches_builtin_and_registry_values(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    ws = values_of(out)
    assert [ws[f"C{r}"].value for r in range(2, 7)] == [2, 4, "#NUM!", 8, 10]
    assert [ws[f"D{r}"].value for r in range(2, 7)] == [3, 6, "#NUM!", 12, 15]
    assert [ws[f"E{r}"].value for r in range(2, 7)] == [2, 4, "neg", 8, 10]
    assert [ws[f"F{r}"].value for r in range(2, 7)] == [False, False, True, False, False]
    assert ws["G2"].value == 11
    assert ws["G3"].value == 7          # cross-sheet reference
    assert ws["G4"].value == 3          # cross-sheet, builtin
    assert ws["G5"].value == "#NUM!"    # an error inside a range propagates through SUM
    assert ws["G6"].value == 12
    assert ws["J2"].value == "#N/A"
    assert ws["J3"].value == "#VALUE!"
    assert ws["J4"].value == "#VALUE!"  # a required argument left empty
    assert ws["J5"].value == 4
    assert [ws["K2"].value, ws["K3"].value, ws["K4"].value] == [3, 4, 5]
    assert [ws["N2"].value, ws["N3"].value, ws["N4"].value] == [10, 5, 4]
    assert ws["P2"].value == "IUCV-1"
    assert ws["Q2"].value is True
    assert [ws["R2"].value, ws["R3"].value, ws["R4"].value] == ["#N/A", "#DIV/0!", "#DIV/0!"]
    assert ws["T2"].value is True
    assert ws["T3"].value == -1
    assert ws["U2"].value == 2
    assert report.error_cells >= 8
    assert report.errors["Plan!J2"] == ("#N/A", "no data for 'missing'")
    assert report.errors["Plan!C4"][0] == "#NUM!"
    assert "Plan!E4" not in report.errors and "Plan!T3" not in report.errors  # IFERROR caught them


def test_calc_keeps_formulas(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    engine.calc(planner, out)
    before, after = formulas_of(planner), formulas_of(out)
    for row in before.iter_rows():
        for cell in row:
            if cell.data_type == "f" and not isinstance(cell.value, ArrayFormula):
                kept = after[cell.coordinate].value
                if isinstance(kept, ArrayFormula):  # a spilled result: same text
                    kept = kept.text
                assert kept == cell.value, cell.coordinate
    assert after["C2"].value == "=ZT_SCALE(A2,B2)"
    assert after["K2"].value == "=_xldudf_ZVMPLAN_ZT_SCALE(3)"
    assert isinstance(after["L2"].value, ArrayFormula)
    assert after["L2"].value.ref == "L2:L4"


def test_input_is_never_modified(planner, tmp_path):
    digest = file_digest(planner)
    mtime = os.stat(planner).st_mtime_ns
    engine.calc(planner, tmp_path / "out.xlsx")
    assert file_digest(planner) == digest
    assert os.stat(planner).st_mtime_ns == mtime


def test_output_equal_to_input_needs_in_place(planner):
    digest = file_digest(planner)
    with pytest.raises(engine.EngineError, match="in-place"):
        engine.calc(planner, planner)
    assert file_digest(planner) == digest
    engine.calc(planner, in_place=True)
    assert file_digest(planner) != digest
    assert values_of(planner)["C2"].value == 2
    assert not [p for p in os.listdir(os.path.dirname(planner)) if p.endswith(".tmp")]


def test_everything_else_is_kept(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    ws["A1"], ws["B1"] = 3, "=ZT_SCALE(A1,2)"
    ws["B1"].font = Font(bold=True, color="FF0000")
    ws["B1"].number_format = "0.000"
    dv = DataValidation(type="list", formula1='"IUCV,VCTC"', allow_blank=True)
    ws.add_data_validation(dv)
    dv.add("C1:C10")
    ws.protection.sheet = True
    ws.column_dimensions["B"].width = 33
    wb.defined_names["Size"] = DefinedName("Size", attr_text="Plan!$A$1")
    path = save(wb, tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    engine.calc(path, out)
    ws2 = openpyxl.load_workbook(out)["Plan"]
    assert ws2["B1"].font.bold and ws2["B1"].font.color.rgb == "00FF0000"
    assert ws2["B1"].number_format == "0.000"
    assert len(ws2.data_validations.dataValidation) == 1
    assert str(ws2.data_validations.dataValidation[0].sqref) == "C1:C10"
    assert ws2.protection.sheet
    assert ws2.column_dimensions["B"].width == 33
    assert "Size" in ws2.parent.defined_names
    assert values_of(out)["B1"].value == 6
    # every part except the sheet and workbook.xml is byte for byte the same
    with zipfile.ZipFile(path) as a, zipfile.ZipFile(out) as b:
        assert a.namelist() == b.namelist()
        for name in a.namelist():
            if name not in ("xl/worksheets/sheet1.xml", "xl/workbook.xml"):
                assert a.read(name) == b.read(name), name


def test_calc_pr_lets_spreadsheets_show_the_cached_values(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    assert not report.full_calc_on_load
    wb_xml = zipfile.ZipFile(out).read("xl/workbook.xml").decode()
    assert 'calcId="191029"' in wb_xml and "fullCalcOnLoad" not in wb_xml


def test_recalculating_the_output_gives_the_same_values(planner, tmp_path):
    out1, out2 = tmp_path / "out1.xlsx", tmp_path / "out2.xlsx"
    engine.calc(planner, out1)
    engine.calc(out1, out2)
    a, b = values_of(out1), values_of(out2)
    for row in a.iter_rows():
        for cell in row:
            assert b[cell.coordinate].value == cell.value, cell.coordinate

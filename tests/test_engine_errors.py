"""Errors in the engine: cycles, a builtin ``formulas`` lacks, non-finite results,
skipped arguments, formulas and texts beyond Excel's limits; every error is a real Excel
error with its reason, in ``calc`` and ``eval`` alike."""
from __future__ import annotations

import zipfile

import openpyxl
import pytest

from zvmplan_addin import recalc as engine

from builders import calc_cells, save, values_of

pytestmark = pytest.mark.usefixtures("zt_functions")


def test_circular_references_are_zero_and_reported(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    ws = values_of(out)
    assert ws["O2"].value == 0 and ws["O3"].value == 0
    assert set(report.circular) == {"Plan!O2", "Plan!O3"}


def test_a_builtin_formulas_lacks_asks_excel_to_recalculate(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=NOSUCHFUNCTION(1)"
    wb.active["A2"] = "=1+1"
    path = save(wb, tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    report = engine.calc(path, out)
    assert "NOSUCHFUNCTION" in report.unsupported and report.full_calc_on_load
    assert 'fullCalcOnLoad="1"' in zipfile.ZipFile(out).read("xl/workbook.xml").decode()
    ws = values_of(out, "Sheet")
    assert ws["A1"].value == "#NAME?" and ws["A2"].value == 2


def test_evaluate_formula_uses_the_registry_and_keeps_reasons():
    assert engine.evaluate_formula("=ZT_SCALE(2,3)*2") == 12
    err = engine.evaluate_formula('=ZT_NAME("missing")&"x"')
    assert err.code == "#N/A" and "missing" in err.reason
    assert engine.evaluate_formula("=A1+1").code == "#REF!"
    arr = engine.evaluate_formula("=ZT_SCALE({1;2},3)")
    assert arr.shape == (2, 1) and list(arr[:, 0]) == [3, 6]


def test_non_finite_results_are_real_errors(tmp_path):
    """Excel shows #NUM! for an overflow, and ISNUMBER/ISERROR/IFERROR see it as an
    error, whichever function produced it (builtin or add-in)."""
    wb = openpyxl.Workbook()
    cells = {"A1": "=ISNUMBER(SUM(1E308,1E308))", "A2": '=IFERROR(PRODUCT(1E200,1E200),"x")',
             "A3": "=ISERROR(AVERAGE(1E308,1E308))", "A4": "=ISNUMBER(ZT_SCALE(1E308,10))",
             "A5": '=IFERROR(ZT_SCALE(1E308,10),"x")', "A6": "=ZT_SCALE(1E308,10)",
             "A7": "=EXP(1000)"}
    got, report = calc_cells(wb, tmp_path, cells, sheet="Sheet")
    assert got == {"A1": False, "A2": "x", "A3": True, "A4": False, "A5": "x", "A6": "#NUM!",
                   "A7": "#NUM!"}
    assert "finite" in report.errors["Sheet!A6"][1]
    assert engine.evaluate_formula("=ISNUMBER(ZT_SCALE(1E308,10))") is False
    assert engine.evaluate_formula("=ZT_SCALE(1E308,10)").code == "#NUM!"


def test_a_skipped_argument_is_left_out(tmp_path):
    """Excel passes a skipped argument (F(1,,2)) to an add-in function as missing, so an
    optional argument takes its default; builtins read it as 0 (IF(FALSE,1,) is 0)."""
    wb = openpyxl.Workbook()
    cells = {"A1": "=ZT_SCALE3(3,,2)", "A2": "=ZT_SCALE(3,)*2", "A3": "=ZT_SCALE3(3,)+ZT_SCALE3(1,,)",
             "A4": "=IF(FALSE,1,)", "A5": "=ZT_SCALE(,2)", "A6": "=ZT_SCALE3(A9,,B9)"}
    got, _ = calc_cells(wb, tmp_path, cells, sheet="Sheet")
    assert got == {"A1": 5, "A2": 6, "A3": 4, "A4": 0, "A5": "#VALUE!", "A6": "#VALUE!"}
    assert engine.evaluate_formula("=ZT_SCALE3(3,,2)+0") == 5


def test_formulas_beyond_excels_limits_are_refused_before_parsing(tmp_path):
    """Excel refuses a formula longer than 8,192 characters or with more than 64 nested
    levels; here such a cell is #VALUE! with that reason, decided before any parser runs
    (60,000 nested parentheses once took 45 s and 7 GB)."""
    wb = openpyxl.Workbook()
    deep = "(" * 30_000 + "1" + ")" * 30_000
    cells = {"A1": "=" + deep, "A2": "=1" + "+1" * 4_200, "A3": "=" + "(" * 64 + "1" + ")" * 64,
             "A4": "=" + "(" * 65 + "1" + ")" * 65, "A5": '=LEN("((((((((")'}
    got, report = calc_cells(wb, tmp_path, cells, sheet="Sheet")
    assert got == {"A1": "#VALUE!", "A2": "#VALUE!", "A3": 1, "A4": "#VALUE!", "A5": 8}
    assert "8,192" in report.errors["Sheet!A1"][1] and "8,192" in report.errors["Sheet!A2"][1]
    assert "65 levels" in report.errors["Sheet!A4"][1]
    for text in (deep, "(" * 65 + "1" + ")" * 65):
        err = engine.evaluate_formula("=" + text)
        assert err.code == "#VALUE!" and "Excel's limit" in err.reason


def test_text_longer_than_excel_allows_is_an_error(tmp_path):
    """A cell holds at most 32,767 characters in Excel (REPT beyond that is #VALUE!)."""
    wb = openpyxl.Workbook()
    cells = {"A1": '=REPT("a",40000)', "A2": '=REPT("a",20000)&REPT("b",20000)',
             "A3": '=LEN(REPT("a",32767))'}
    got, report = calc_cells(wb, tmp_path, cells, sheet="Sheet")
    assert got == {"A1": "#VALUE!", "A2": "#VALUE!", "A3": 32767}
    assert "32,767" in report.errors["Sheet!A1"][1]
    assert engine.evaluate_formula('=REPT("a",40000)').code == "#VALUE!"


def test_eval_and_calc_read_a_formula_alike():
    """``zvmplan eval`` goes through calc's stages: what a cell computes, eval computes."""
    assert engine.evaluate_formula("=ABS(1E7)") == 1e7
    assert engine.evaluate_formula("ABS(-2)+ZT_SCALE(1,2)") == 4
    assert engine.evaluate_formula("=ROWS(ZT_COLUMN())") == 3
    assert engine.evaluate_formula("=COLUMNS(ZT_COLUMN())") == 1
    err = engine.evaluate_formula("=NOSUCH(1)")
    assert err.code == "#NAME?" and "NOSUCH" in err.reason
    assert engine.evaluate_formula("=1+").code == "#NAME?"

"""3-D references (``Sheet1:Sheet3!A1``): the same cell or range on each sheet from the
first to the last in tab order, as an argument of SUM, AVERAGE, COUNT, COUNTA, MIN,
MAX, ... (``addin/recalc/threed.py``).

The first test rebuilds poi's 55906-MultiSheetRefs.xlsx (Apache POI's test data, saved
by Excel; /work/corpus, outside git) cell for cell: its values are the ones Excel saved.
Before, the engine could not parse a 3-D reference: COUNTA of one gave 1 and COUNT 0,
plausible wrong answers, and SUM/AVERAGE/MIN/MAX were not computed."""
from __future__ import annotations

import openpyxl
import pytest

from zvmplan_addin.cli import main as cli
from zvmplan_addin.recalc.threed import ThreeD


def _calc(tmp_path, sheets: dict, out_sheet: str, formulas: dict) -> dict:
    """Sheets (name -> {ref: value or formula}) in this order; the values of
    ``formulas`` (on ``out_sheet``) after ``zvmplan calc``."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for name, cells in sheets.items():
        ws = wb.create_sheet(name)
        for ref, v in cells.items():
            ws[ref] = v
    for ref, f in formulas.items():
        wb[out_sheet][ref] = f
    src, out = tmp_path / "in.xlsx", tmp_path / "out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out), "-q"]) == 0
    got = openpyxl.load_workbook(out, data_only=True)[out_sheet]
    return {ref: got[ref].value for ref in formulas}


def test_excel_saved_values_of_poi_55906(tmp_path):
    """Excel's saved values: SUM of A1 over three sheets 66, AVERAGE 22, COUNTA of
    three texts 3 (of three empty cells 0), SUM of A1:B2 110 (Sheet2's B1 is 44),
    AVERAGE 27.5, MIN 11, MAX 33 and 44, COUNT 3 and 4; ``A$1`` and ``$A$1:$B$2``."""
    sheets = {"Sheet1": {"A1": 11, "C1": "Hello!", "E1": "Sh1"},
              "Sheet2": {"A1": 22, "B1": 44, "C1": "Middle!", "E1": "Sh2"},
              "Sheet3": {"A1": 33, "C1": "Bye!", "E1": "Sh3"}}
    formulas = {"A3": "=SUM(Sheet1:Sheet3!A1)", "B3": "=AVERAGE(Sheet1:Sheet3!A1)",
                "C3": "=COUNTA(Sheet1:Sheet3!C1)", "D3": "=COUNTA(Sheet1:Sheet3!D1)",
                "E3": "=COUNTA(Sheet1:Sheet3!E1)", "H3": "=SUM(Sheet1:Sheet3!A1:B2)",
                "I3": "=AVERAGE(Sheet1:Sheet3!A1:B2)", "B4": "=MIN(Sheet1:Sheet3!A$1)",
                "I4": "=MIN(Sheet1:Sheet3!A$1:B$2)", "B5": "=MAX(Sheet1:Sheet3!A$1)",
                "I5": "=MAX(Sheet1:Sheet3!A$1:B$2)", "B6": "=COUNT(Sheet1:Sheet3!A$1)",
                "I6": "=COUNT(Sheet1:Sheet3!$A$1:$B$2)"}
    assert _calc(tmp_path, sheets, "Sheet1", formulas) == {
        "A3": 66, "B3": 22, "C3": 3, "D3": 0, "E3": 3, "H3": 110, "I3": 27.5,
        "B4": 11, "I4": 11, "B5": 33, "I5": 44, "B6": 3, "I6": 4}


def test_tab_order_quoted_names_and_formula_cells(tmp_path):
    """The sheets are those between the two names in tab order (not by name), in either
    order of the names; a quoted pair (``'Q 1:Q 3'!B2``) works as a plain one; cells the
    3-D reference reads are computed first (they are its dependencies): the per-LPAR
    sheets of a plan summed on a summary sheet."""
    sheets = {"Sum": {}, "Q 1": {"A1": 1, "B2": "=A1*10"}, "Q 3": {"A1": 3, "B2": "=A1*10"},
              "Q 2": {"A1": 2, "B2": "=A1*10"}, "Other": {"B2": 1000}}
    formulas = {"A1": "=SUM('Q 1:Q 2'!B2)", "A2": "=SUM('Q 2:Q 1'!B2)",
                "A3": "=SUM('Q 1:Other'!B2)", "A4": "=_xlfn.STDEV.S('Q 1:Q 2'!A1)",
                "A5": "=SUM('Q 3:Q 2'!A1,5)"}
    got = _calc(tmp_path, sheets, "Sum", formulas)
    assert got == {"A1": 60, "A2": 60, "A3": 1060, "A4": pytest.approx(1.0), "A5": 10}


def test_a_3d_reference_outside_an_accepting_function_is_not_computed(tmp_path, capsys):
    """Excel takes a 3-D reference only as an argument of SUM, COUNT, ... (a bare
    ``=Sheet1:Sheet2!A1`` is #VALUE! there). Elsewhere the engine leaves it as written:
    the cell shows an error, never a number, and the run says why (it said "not an Excel
    function: a VBA or add-in function ...: SHEET1")."""
    wb = openpyxl.Workbook()
    wb.active.title = "Sheet1"
    wb.create_sheet("Sheet2")["A1"] = 2
    wb["Sheet1"]["A1"] = 1
    wb["Sheet1"]["B1"] = "=Sheet1:Sheet2!A1"
    wb["Sheet1"]["B2"] = "=VLOOKUP(1,Sheet1:Sheet2!A1:B2,2)"
    src, out = tmp_path / "bare.xlsx", tmp_path / "o.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "a 3-D reference across sheets, which the engine does not read: SHEET1:..." in printed
    assert "VBA" not in printed
    got = openpyxl.load_workbook(out, data_only=True)["Sheet1"]
    assert all(isinstance(got[c].value, str) and got[c].value.startswith("#")
               for c in ("B1", "B2"))  # an error, whichever


def test_expand_rewrites_only_whole_arguments_of_accepting_functions():
    t = ThreeD(["Sheet1", "Sheet2", "Sheet3", "O'B"])
    assert t.expand("SUM(Sheet1:Sheet3!A1)") == "SUM('Sheet1'!A1,'Sheet2'!A1,'Sheet3'!A1)"
    assert t.expand("COUNTA( Sheet2:Sheet1!$C:$C ,1)") == "COUNTA( 'Sheet1'!$C:$C,'Sheet2'!$C:$C ,1)"
    assert t.expand("SUM('Sheet3:O''B'!B2)") == "SUM('Sheet3'!B2,'O''B'!B2)"
    for unchanged in ("Sheet1:Sheet3!A1", "SUM(Sheet1:Sheet3!A1*2)",
                      "VLOOKUP(1,Sheet1:Sheet3!A1:B2,2)", 'SUM("Sheet1:Sheet3!A1")',
                      "SUM(A1:Sheet2!B2)", "SUM(X:Y!A1)", "SUM(IF(1,Sheet1:Sheet2!A1))",
                      "SUM(Sheet1!A1:B2)"):
        assert t.expand(unchanged) == unchanged
    assert t.expand('SUM("(",Sheet1:Sheet2!A1)') == "SUM(\"(\",'Sheet1'!A1,'Sheet2'!A1)"


def test_maybe_looks_for_the_books_own_sheet_names_after_a_colon():
    """The read stage looks through all formula text (60 MB at 10,000 links) for a
    possible 3-D reference once; the pattern is a colon and one of the book's sheet names
    then ``!`` (or ``'!``), in upper case as the read stage joins the texts."""
    from zvmplan_addin.recalc.threed import maybe
    found = maybe(["Sheet1", "Sheet3", "Q 3", "O'B"]).search
    for text in ("SUM(SHEET1:SHEET3!A1)", "SUM('Q 1:Q 3'!B2)", "SUM('SHEET1:O''B'!A1)",
                 "COUNTA(X:SHEET1!C:C)"):
        assert found(text), text
    for text in ("SUM(SHEET1!A1:B2)", "SUM(A1:B2)", "SUM(SHEET1:OTHER!A1)",
                 "SUM('Q 3'!A1:B2)", "A1:SHEET3"):
        assert not found(text), text
    assert not maybe([]).search("SUM(A:B!C1)")

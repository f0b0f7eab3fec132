"""Arrays in the engine: array formulas fill their range, a spill becomes an array
formula with cached values (or an error where it is blocked), whole-column and
to-the-last-row ranges keep Excel's size, and a zvmplan function given a whole column
answers every cell."""
from __future__ import annotations

import zipfile

import pytest
from openpyxl.worksheet.formula import ArrayFormula

from zvmplan_addin import recalc as engine

from builders import calc_cells, formulas_of, make_xlsx, values_of

pytestmark = pytest.mark.usefixtures("zt_functions")


def test_array_formula_fills_its_range(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    engine.calc(planner, out)
    ws = values_of(out)
    assert [ws[f"L{r}"].value for r in (2, 3, 4)] == [2, 4, -2]


def test_spill_becomes_array_formula_with_cached_values(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    ws = values_of(out)
    assert [ws[f"H{r}"].value for r in (2, 3, 4)] == [10, 20, "#NUM!"]
    f = formulas_of(out)["H2"].value
    assert isinstance(f, ArrayFormula) and f.ref == "H2:H4" and f.text == "=ZT_SCALE(A2:A4,10)"
    assert report.spills == 1


def test_blocked_spill_is_an_error_and_a_warning(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    ws = values_of(out)
    assert ws["I2"].value == "#VALUE!"
    assert ws["I3"].value == "in the way"
    assert any("Plan!I2" in w and "spill" in w for w in report.warnings)


def test_spill_into_rows_that_do_not_exist_yet(tmp_path):
    rows = '<row r="1"><c r="A1"><f>ZT_COLUMN()</f></c></row>'
    path = make_xlsx(tmp_path / "in.xlsx", rows)
    out = tmp_path / "out.xlsx"
    engine.calc(path, out)
    ws = values_of(out)
    assert [ws["A1"].value, ws["A2"].value, ws["A3"].value] == ["a", "b", "c"]
    sheet = zipfile.ZipFile(out).read("xl/worksheets/sheet1.xml").decode()
    assert '<f t="array" ref="A1:A3">ZT_COLUMN()</f>' in sheet
    assert '<dimension ref="A1:C4"/>' in sheet


WHOLE_COLUMN_FORMS = ["A:A", "$A:$A", "A1:A1048576", "$A$1:$A$1048576", "A$1:A$1048576"]


@pytest.mark.parametrize("col", WHOLE_COLUMN_FORMS)
def test_whole_column_references_give_excels_answers(data_book, tmp_path, col):
    """Excel reads A:A, A1:A1048576 and their absolute forms as the whole column (the
    formulas parser reads A1:A1048576 as A1): ROWS is 1,048,576, COUNTBLANK counts every
    empty cell of the column, and the aggregates see all 100 values."""
    other = col.replace("A", "B")
    keys = col.replace("A", "C")
    wide = col.replace("$A", "$C").replace("A", "C") if ":" in col else col
    table = col.split(":")[0] + ":" + col.split(":")[1].replace("A", "C")
    cells = {
        "A1": f"=SUM(Data!{col})", "A2": f"=COUNT(Data!{col})", "A3": f"=COUNTA(Data!{keys})",
        "A4": f"=COUNTBLANK(Data!{col})", "A5": f"=MAX(Data!{col})", "A6": f"=MIN(Data!{col})",
        "A7": f"=ROWS(Data!{col})", "A8": f"=MATCH(77,Data!{col},0)",
        "A9": f"=INDEX(Data!{other},10)", "A10": f"=VLOOKUP(30,Data!{table},3,FALSE)",
        "A11": f'=SUMIF(Data!{col},">50",Data!{other})',
        "A12": f'=SUMIFS(Data!{other},Data!{col},">50")',
        "A13": f"=SUMPRODUCT(Data!{col},Data!{other})", "A14": f"=COLUMNS(Data!{wide})",
        "A15": f"=INDEX(Data!{other},5000)",
    }
    got, _ = calc_cells(data_book, tmp_path, cells)
    assert got == {"A1": 5050, "A2": 100, "A3": 100, "A4": 1_048_576 - 100, "A5": 100,
                   "A6": 1, "A7": 1_048_576, "A8": 77, "A9": 20, "A10": "k30",
                   "A11": 2 * sum(range(51, 101)), "A12": 2 * sum(range(51, 101)),
                   "A13": sum(2 * r * r for r in range(1, 101)), "A14": 1, "A15": 0}


def test_a_zvmplan_function_given_a_whole_column_answers_every_cell(data_book, tmp_path):
    """In Excel an add-in function given A1:A1048576 gets every cell of the column; its
    empty cells give errors, so a SUM over the answers is an error, not the sum of the
    filled rows."""
    cells = {"A1": "=IFERROR(SUM(ZT_SCALE(Data!A1:A1048576)),ROWS(ZT_SCALE(Data!A1:A1048576)))",
             "A2": "=SUM(ZT_SCALE(Data!A1:A100))"}
    got, _ = calc_cells(data_book, tmp_path, cells)
    assert got == {"A1": 1_048_576, "A2": 5050}


def test_ranges_to_the_last_row_or_column_keep_their_size(data_book, tmp_path):
    """A2:A1048576, 1:1, A1:XFD1 and A1:XFD1048576 as Excel reads them; ranges of
    different sizes in SUMPRODUCT are #VALUE! in Excel."""
    cells = {"A1": "=SUM(Data!A2:A1048576)", "A2": "=ROWS(Data!A2:A1048576)",
             "A3": "=COLUMNS(Data!1:1)", "A4": "=SUM(Data!1:1)", "A5": "=COLUMNS(Data!A1:XFD1)",
             "A6": "=SUM(Data!A1:XFD1)", "A7": "=MAX(Data!A1:XFD1048576)",
             "A8": "=COUNTBLANK(Data!$1:$1)",
             "A9": "=SUMPRODUCT(Data!A2:A1048576,Data!B1:B1048576)",
             "A10": "=ROWS(Data!A1048576)", "A11": "=SUM(Data!A99:A1048576)"}
    got, _ = calc_cells(data_book, tmp_path, cells)
    assert got == {"A1": 5049, "A2": 1_048_575, "A3": 16_384, "A4": 1 + 2 + 7, "A5": 16_384,
                   "A6": 10, "A7": 200, "A8": 16_384 - 4, "A9": "#VALUE!", "A10": 1,
                   "A11": 199}


def test_an_empty_formula_in_an_array_range_is_the_arrays_cell(tmp_path):
    """Excel writes ``<f ca="1"/>`` (the "calculate always" flag, no formula) in each cell
    of a volatile array formula's range but the first (formulas' circular.xlsx DATA!D9,
    pycel's lookup.xlsx Offset!F18, where Excel cached the array's elements there): the
    cell is the array's, computed with it, not a formula the engine cannot evaluate."""
    rows = ('<row r="1"><c r="A1"><v>1</v></c><c r="B1" cm="1">'
            '<f t="array" ref="B1:B2" ca="1">A1:A2*2</f><v>0</v></c></row>'
            '<row r="2"><c r="A2"><v>5</v></c><c r="B2"><f ca="1"/><v>0</v></c></row>')
    path = make_xlsx(tmp_path / "in.xlsx", rows)
    report = engine.calc(path, tmp_path / "out.xlsx", keep_stale=False)
    ws = values_of(tmp_path / "out.xlsx")
    assert [ws["B1"].value, ws["B2"].value] == [2, 10]
    assert report.stale == {} and report.warnings == []


def test_anchorarray_and_sort_with_an_argument_left_empty(tmp_path):
    """EPPlus's ArrayFormulas.xlsx (saved by Excel): over A1:A5 = 1..5,
    ``=SORT(A1:A5,,-1)`` in B1:B5 is 5 4 3 2 1 (the order's argument left empty takes its
    default, 1) and ``=SORT(ANCHORARRAY(B1))`` in C1:C5 (Excel's ``B1#``, the range the
    array in B1 fills) is 1 2 3 4 5; formulas' test.xlsx ``=ANCHORARRAY(AC4)+3``."""
    rows = "".join(
        f'<row r="{r}"><c r="A{r}"><v>{r}</v></c>' + (
            '<c r="B1" cm="1"><f t="array" ref="B1:B5">_xlfn._xlws.SORT(A1:A5,,-1)</f>'
            '<v>0</v></c><c r="C1" cm="1"><f t="array" ref="C1:C5">'
            '_xlfn._xlws.SORT(_xlfn.ANCHORARRAY(B1))</f><v>0</v></c>'
            '<c r="D1" cm="1"><f t="array" ref="D1:D5">_xlfn.ANCHORARRAY(B1)+3</f>'
            '<v>0</v></c>' if r == 1 else "") + "</row>" for r in range(1, 6))
    path = make_xlsx(tmp_path / "in.xlsx", rows)
    engine.calc(path, tmp_path / "out.xlsx")
    ws = values_of(tmp_path / "out.xlsx")
    assert [[ws[f"{c}{r}"].value for r in range(1, 6)] for c in "BCD"] == [
        [5, 4, 3, 2, 1], [1, 2, 3, 4, 5], [8, 7, 6, 5, 4]]

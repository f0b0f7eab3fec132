"""SUBTOTAL and AGGREGATE as Excel computes them (issue 16; the engine's
:mod:`zvmplan_addin.recalc.excel.subtotals` and :mod:`zvmplan_addin.recalc.facts`):
rows hidden by hand, rows a filter hid, nested subtotals, AGGREGATE's options and its
array form. Each case is a small workbook made with openpyxl and recalculated by
``zvmplan calc``; the expected values follow Microsoft's SUBTOTAL and AGGREGATE pages,
and where the file leaves a row's reason for being hidden open, the values Excel saved
in EPPlus's ``src/EPPlusTest/Workbooks/SubtotalFilters.xlsx`` (EPPlusSoftware/EPPlus)
and Apache POI's ``test-data/spreadsheet/ConditionalFormattingSamples.xlsx``
(apache/poi), both in the corpus of Excel-saved workbooks.
"""
import openpyxl
import pytest
from openpyxl.worksheet.filters import AutoFilter
from openpyxl.worksheet.table import Table

from zvmplan_addin.cli import main as cli
from zvmplan_addin.xlsx import read_workbook, safe_open_xlsx


def recalc(tmp_path, wb, name="book") -> openpyxl.Workbook:
    src, out = tmp_path / f"{name}.xlsx", tmp_path / f"{name}_out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out)]) == 0
    return openpyxl.load_workbook(out, data_only=True)


def fill(ws, cells: dict) -> None:
    for ref, value in cells.items():
        ws[ref] = value


# Sheet "Hidden": no filter; row 3 hidden by hand. B2:B4 = 10, 20, 40; C2:C4 = #DIV/0!,
# 5, 7; D2:D4 = the text "5", TRUE, 3; E2:G2 = 1, 2, 4 with column F hidden; E3:G3 the
# same in the hidden row; B5, B6, B7 a SUBTOTAL, a SUBTOTAL over it and an AGGREGATE.
HIDDEN = {
    "B2": 10, "B3": 20, "B4": 40, "C2": "=1/0", "C3": 5, "C4": 7,
    "D2": "5", "D3": True, "D4": 3, "E2": 1, "F2": 2, "G2": 4, "E3": 1, "F3": 2, "G3": 4,
    "B5": "=SUBTOTAL(9,B2:B4)", "B6": "=SUBTOTAL(9,B2:B5)", "B7": "=AGGREGATE(9,4,B2:B4)",
}
CASES = {
    # "1-11 includes manually-hidden rows, while 101-111 excludes them"
    "=SUBTOTAL(9,B2:B4)": 70, "=SUBTOTAL(109,B2:B4)": 50, "=SUBTOTAL(101,B2:B4)": 25,
    "=SUBTOTAL(1,B2:B4)": 70 / 3, "=SUBTOTAL(2,B2:B4)": 3, "=SUBTOTAL(102,B2:B4)": 2,
    "=SUBTOTAL(104,B2:B4)": 40, "=SUBTOTAL(105,B2:B4)": 10, "=SUBTOTAL(6,B2:B4)": 8000,
    "=SUBTOTAL(106,B2:B4)": 400, "=SUBTOTAL(110,B2:B4)": 450, "=SUBTOTAL(111,B2:B4)": 225,
    "=SUBTOTAL(9,B2:B4,B2)": 80, "=SUBTOTAL(109,B3)": 0,
    # "these nested subtotals are ignored to avoid double counting" (AGGREGATE too)
    "=SUBTOTAL(9,B2:B7)": 70, "=SUBTOTAL(3,B2:B7)": 3, "=B6": 70,
    # a range's text and logical values count for COUNTA only
    "=SUBTOTAL(9,D2:D4)": 3, "=SUBTOTAL(3,D2:D4)": 3, "=SUBTOTAL(103,D2:D4)": 2,
    # "designed for columns of data": a hidden column does not matter, a hidden row does
    "=SUBTOTAL(109,E2:G2)": 7, "=SUBTOTAL(109,E3:G3)": 0, "=SUBTOTAL(9,E3:G3)": 7,
    # AGGREGATE's options: 0 nested, 1 hidden + nested, 2 errors + nested, 3 all three,
    # 4 nothing, 5 hidden, 6 errors, 7 hidden + errors
    "=AGGREGATE(9,0,B2:B7)": 70, "=AGGREGATE(9,1,B2:B7)": 50, "=AGGREGATE(9,4,B2:B7)": 280,
    "=AGGREGATE(9,5,B2:B7)": 260, "=AGGREGATE(9,6,C2:C4)": 12, "=AGGREGATE(9,7,C2:C4)": 7,
    "=AGGREGATE(4,3,C2:C4)": 7, "=AGGREGATE(3,6,C2:C4)": 2, "=AGGREGATE(3,4,B2:B7)": 6,
    "=AGGREGATE(12,4,B2:B4)": 20, "=AGGREGATE(13,4,B5:B7)": 70,
    # the array form: LARGE, SMALL, PERCENTILE.INC, QUARTILE.INC ... with k
    "=AGGREGATE(14,4,B2:B4,2)": 20, "=AGGREGATE(14,5,B2:B4,2)": 10,
    "=AGGREGATE(15,6,C2:C4,1)": 5, "=AGGREGATE(16,4,B2:B4,0.5)": 20,
    "=AGGREGATE(17,4,B2:B4,1)": 15, "=AGGREGATE(14,6,C2:C4,1)": 7,
    # a computed array: "doesn't ignore hidden rows, nested subtotals or nested
    # aggregates", only errors
    "=AGGREGATE(14,5,B2:B4*1,2)": 20, "=AGGREGATE(15,6,B2:B4/(B2:B4>15),1)": 20,
    # errors
    "=SUBTOTAL(9,C2:C4)": "#DIV/0!", "=AGGREGATE(9,4,C2:C4)": "#DIV/0!",
    "=SUBTOTAL(12,B2:B4)": "#VALUE!", "=SUBTOTAL(0,B2:B4)": "#VALUE!",
    "=AGGREGATE(20,0,B2:B4)": "#VALUE!", "=AGGREGATE(9,8,B2:B4)": "#VALUE!",
    "=AGGREGATE(14,4,B2:B4)": "#VALUE!", "=AGGREGATE(9,0,{1,2})": "#VALUE!",
    "=SUBTOTAL(101,B3)": "#DIV/0!", "=SUBTOTAL(1,#REF!)": "#REF!",
}


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Hidden"
    fill(ws, HIDDEN)
    ws["D2"].data_type = "s"
    ws.row_dimensions[3].hidden = True
    ws.column_dimensions["F"].hidden = True
    refs = {}
    for k, formula in enumerate(CASES, start=1):
        ws[f"K{k}"] = formula
        refs[formula] = f"K{k}"
    got = recalc(tmp_path_factory.mktemp("hidden"), wb)["Hidden"]
    return {formula: got[ref].value for formula, ref in refs.items()}


@pytest.mark.parametrize("formula", list(CASES))
def test_subtotal_and_aggregate_as_excel(hidden, formula):
    """Excel's values of SUBTOTAL and AGGREGATE over a row hidden by hand (row 3),
    nested subtotals, errors, text, a hidden column (Microsoft's pages)."""
    expected = CASES[formula]
    got = hidden[formula]
    if isinstance(expected, str):
        assert got == expected
    else:
        assert got == pytest.approx(expected, rel=1e-15), formula


def test_rows_a_filter_hid(tmp_path):
    """"Filtered-out cells are always excluded" by SUBTOTAL, 1-11 too. The file writes
    rows a filter hid and rows hidden by hand alike (``hidden="1"``); Excel's saved
    values in EPPlus's SubtotalFilters.xlsx (sheets HiddenByAutoFilter, Sheet1,
    HiddenRowWithAutoFilterNoFilter, HiddenByTableFilter) show its rule: with a filter
    in effect every hidden row is the filter's (also outside its range) except one with
    a custom height; with an autoFilter that filters nothing, a hidden row is hidden
    by hand."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Filtered"
    fill(ws, {"A1": "key", "B1": "n", "A2": "x", "B2": 10, "A3": "y", "B3": 20,
              "A4": "x", "B4": 40, "B7": 1, "B8": 2, "B9": 100, "B10": 200,
              "D1": "=SUBTOTAL(9,B2:B4)", "D2": "=SUBTOTAL(109,B2:B4)",
              "D3": "=SUBTOTAL(9,B7:B8)", "D4": "=SUBTOTAL(109,B7:B8)",
              "D5": "=SUBTOTAL(9,B9:B10)", "D6": "=AGGREGATE(9,5,B2:B4)",
              "D7": "=AGGREGATE(9,4,B2:B4)", "D8": "=AGGREGATE(9,4,B7:B8)"})
    ws.auto_filter.ref = "A1:B4"
    ws.auto_filter.add_filter_column(0, ["x"])
    ws.sheet_properties.filterMode = True
    ws.row_dimensions[3].hidden = True            # the filter's
    ws.row_dimensions[8].hidden = True            # by hand: a custom height
    ws.row_dimensions[8].height = 20
    ws.row_dimensions[10].hidden = True           # the filter's, outside its range
    no_filter = wb.create_sheet("AutoFilterNoFilter")
    fill(no_filter, {"A1": "key", "B1": "n", "B2": 10, "B3": 20, "B4": 40,
                     "D1": "=SUBTOTAL(9,B2:B4)", "D2": "=SUBTOTAL(109,B2:B4)"})
    no_filter.auto_filter.ref = "A1:B4"
    no_filter.row_dimensions[3].hidden = True
    table = wb.create_sheet("TableFilter")
    fill(table, {"A1": "key", "B1": "n", "A2": "x", "B2": 10, "A3": "y", "B3": 20,
                 "A4": "x", "B4": 40, "D1": "=SUBTOTAL(9,B2:B4)",
                 "D2": "=SUBTOTAL(109,B2:B4)"})
    t = Table(displayName="T1", ref="A1:B4")
    t.autoFilter = AutoFilter(ref="A1:B4")
    t.autoFilter.add_filter_column(0, ["x"])
    table.add_table(t)
    table.row_dimensions[3].hidden = True
    got = recalc(tmp_path, wb)
    f = got["Filtered"]
    assert [f[f"D{k}"].value for k in range(1, 9)] == [50, 50, 3, 1, 100, 50, "#VALUE!", 3]
    assert [got["AutoFilterNoFilter"][c].value for c in ("D1", "D2")] == [70, 50]
    assert [got["TableFilter"][c].value for c in ("D1", "D2")] == [50, 50]


def test_the_reader_notes_hidden_rows_and_filters(tmp_path):
    """The reader keeps each hidden row (with whether its height is custom) and whether
    a filter is in effect; a custom view's autoFilter is not the sheet's."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = 1
    ws.row_dimensions[2].hidden = True
    ws.row_dimensions[5].hidden = True
    ws.row_dimensions[5].height = 30
    src = tmp_path / "rows.xlsx"
    wb.save(src)
    with safe_open_xlsx(src, parse_sheets=False) as pkg:
        sheet = read_workbook(pkg).sheets[0]
    assert sheet.hidden_rows == {2: False, 5: True}
    assert sheet.filter_active is False

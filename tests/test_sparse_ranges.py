"""A large range over a nearly empty sheet costs what the sheet holds (issue 19).

The hostile-file round found a 1.8 KB workbook of two values and one ``SUM`` over
``A1:Z1000000`` taking 19 s and 1.8 GB, and a whole-sheet range ending in
"MemoryError ... (this is a bug)". Excel reads such a range as the cells in it, the rest
empty: the values below are what Excel gives (an empty cell is skipped by SUM, COUNT,
MAX, ...; COUNTBLANK counts the 17,179,869,184 cells of a sheet less the filled ones;
INDEX of an empty cell shows 0; MATCH and VLOOKUP find the first equal cell by row).
"""
from __future__ import annotations

import resource

import openpyxl
import pytest

from zvmplan_addin.cli import main as cli

SHEET_CELLS = 1_048_576 * 16_384


def _calc(tmp_path, values: dict, formulas: dict, name="sparse") -> dict:
    """``values`` on sheet S, ``formulas`` on sheet T; T's values after ``zvmplan calc``."""
    wb = openpyxl.Workbook()
    s = wb.active
    s.title = "S"
    for ref, v in values.items():
        s[ref] = v
    t = wb.create_sheet("T")
    for ref, f in formulas.items():
        t[ref] = f
    src, out = tmp_path / f"{name}.xlsx", tmp_path / f"{name}_out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out), "-q"]) == 0
    got = openpyxl.load_workbook(out, data_only=True)["T"]
    return {ref: got[ref].value for ref in formulas}


CORNERS = {"A1": 3, "B2": "x", "XFD1048576": 4}
WHOLE = "S!A1:XFD1048576"


def test_whole_sheet_aggregates_read_the_stored_cells(tmp_path):
    """SUM, COUNT, ... over a whole sheet holding 3 at A1, "x" at B2 and 4 at XFD1048576:
    Excel's answers, computed (no dense grid of 17 billion cells, no MemoryError)."""
    got = _calc(tmp_path, CORNERS, {
        "A1": f"=SUM({WHOLE})", "A2": f"=COUNT({WHOLE})", "A3": f"=COUNTA({WHOLE})",
        "A4": f"=COUNTBLANK({WHOLE})", "A5": f"=MAX({WHOLE})", "A6": f"=MIN({WHOLE})",
        "A7": f"=AVERAGE({WHOLE})", "A8": f"=PRODUCT({WHOLE})", "A9": f"=SUMSQ({WHOLE})",
        "A10": f"=MEDIAN({WHOLE})", "A11": f"=SUM({WHOLE},10)", "A12": f"=MAXA({WHOLE})",
        "A13": f"=AVERAGEA({WHOLE})", "A14": f"=ROWS({WHOLE})*COLUMNS({WHOLE})"})
    assert got == {"A1": 7, "A2": 2, "A3": 3, "A4": SHEET_CELLS - 3, "A5": 4, "A6": 3,
                   "A7": 3.5, "A8": 12, "A9": 25, "A10": 3.5, "A11": 17, "A12": 4,
                   "A13": 7 / 3, "A14": SHEET_CELLS}


def test_two_value_sheet_countblank(tmp_path):
    """The issue's case: two values; COUNTBLANK of the whole sheet is 17179869182."""
    got = _calc(tmp_path, {"A1": 3, "XFD1048576": 4},
                {"A1": f"=SUM({WHOLE})", "A2": f"=COUNTBLANK({WHOLE})"})
    assert got == {"A1": 7, "A2": 17_179_869_182}


def test_lookups_read_only_the_stored_cells(tmp_path):
    """INDEX of a cell inside the range (an empty one shows 0), MATCH with match type 0
    (the row of the first equal cell; #N/A when none), VLOOKUP and HLOOKUP with FALSE
    (the value in the found row or column; #REF! past the range, #VALUE! below 1)."""
    got = _calc(tmp_path, {**CORNERS, "A1048576": 4, "C1048576": "far"}, {
        "A1": f"=INDEX({WHOLE},1048576,16384)", "A2": f"=INDEX({WHOLE},2,2)",
        "A3": f"=INDEX({WHOLE},5,5)", "A4": "=MATCH(4,S!A1:A1048576,0)",
        "A5": '=MATCH("X",S!B1:B1048576,0)', "A6": "=MATCH(5,S!A1:A1048576,0)",
        "A7": f"=VLOOKUP(4,{WHOLE},3,FALSE)", "A8": f"=VLOOKUP(3,{WHOLE},2,FALSE)",
        "A9": f"=VLOOKUP(9,{WHOLE},2,FALSE)", "A10": "=VLOOKUP(3,S!A1:C1048576,4,FALSE)",
        "A11": "=INDEX(S!A1:A1048576,1048576)", "A12": "=MATCH(4,S!A1048576:XFD1048576,0)",
        "A13": f"=HLOOKUP(3,{WHOLE},1048576,FALSE)", "A14": f"=HLOOKUP(4,{WHOLE},1,FALSE)",
        "A15": f"=HLOOKUP(3,{WHOLE},2,FALSE)", "A16": "=HLOOKUP(3,S!A1:C3,4,FALSE)",
        "A17": f"=VLOOKUP(3,{WHOLE},0,FALSE)"})
    assert got == {"A1": 4, "A2": "x", "A3": 0, "A4": 1_048_576, "A5": 2, "A6": "#N/A",
                   "A7": "far", "A8": 0, "A9": "#N/A", "A10": "#REF!", "A11": 4,
                   "A12": 1, "A13": 4, "A14": "#N/A", "A15": 0, "A16": "#REF!",
                   "A17": "#VALUE!"}


def test_a_range_too_large_as_an_array_is_an_error_with_its_reason(tmp_path, capsys):
    """SUMPRODUCT needs the range as an array: 17 billion cells is #VALUE! with the reason,
    never a MemoryError or "this is a bug"."""
    wb = openpyxl.Workbook()
    s = wb.active
    s.title = "S"
    s["A1"], s["XFD1048576"] = 3, 4
    wb.create_sheet("T")["A1"] = f"=SUMPRODUCT({WHOLE})"
    src, out = tmp_path / "big.xlsx", tmp_path / "big_out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out)]) == 0
    said = capsys.readouterr()
    assert "T!A1: #VALUE!" in said.out + said.err
    assert "sparse sheet" in said.out + said.err
    assert "bug" not in said.out + said.err
    assert openpyxl.load_workbook(out, data_only=True)["T"]["A1"].value == "#VALUE!"


def test_sum_over_a_million_rows_of_a_two_value_sheet_stays_small(tmp_path):
    """SUM over A1:Z1000000 with values at both corners (26 million cells; 19 s and 1.8 GB
    before): 7, computed, and the process's peak memory grows by far less than a dense
    grid of those cells would take (26 million object pointers are 208 MB alone)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    got = _calc(tmp_path, {"A1": 3, "Z1000000": 4},
                {"A1": "=SUM(S!A1:Z1000000)", "A2": "=COUNT(S!A1:Z1000000)",
                 "A3": "=COUNTBLANK(S!A1:Z1000000)"})
    grew_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert got == {"A1": 7, "A2": 2, "A3": 26_000_000 - 2}
    assert grew_kb < 100_000


@pytest.mark.parametrize("formula, value", [
    ("=SUMPRODUCT(S!A1:Z1000000*2)", "#VALUE!"),  # an array of 26 million cells: refused
    ("=SUMPRODUCT(S!A1:Z1000000)", "#VALUE!"),
    ("=SUM(S!A1:Z1000000*2)", 6),   # legacy formula: implicit intersection with T!A1 (S!A1)
    ("=S!A1:Z1000000+0", 3),
    ("=ISERROR(SUMPRODUCT(S!A1:Z1000000))", True)])
def test_arrays_of_a_huge_sparse_range(tmp_path, formula, value):
    """A function that needs the range as an array of 26 million cells gets #VALUE! (over
    the dense limit), not a crash; Excel's implicit intersection still reads one cell."""
    got = _calc(tmp_path, {"A1": 3, "Z1000000": 4}, {"A1": formula})
    assert got == {"A1": value}


def test_whole_columns_and_rows_reaching_the_sheet_edge(tmp_path):
    """``A:XFD`` (every column) and ``1:1048576`` (every row) are the whole sheet, as
    ``A1:XFD1048576`` is: Excel gives the same answers for each. formulas reads them as
    ``A:`` and ``1:``; the engine gave #NAME? ("not an Excel function: S!A:"), and when
    two cells of one column shared the shape, both got the first cell's wrong count
    (COUNTA 1, COUNT 0: a plausible wrong answer). ``XFD:XFD`` and ``1048576:1048576``
    are the last column and row."""
    formulas = {"A1": "=COUNTA(S!A:XFD)", "A2": "=COUNTA(S!A:C)", "A3": "=COUNT(S!A:XFD)",
                "A4": "=COUNT(S!1:5)", "A5": "=SUM(S!A:XFD)", "A6": "=SUM(S!$A:$XFD)",
                "A7": "=SUM(S!1:1048576)", "A8": "=SUM(S!$1:$1048576)",
                "A9": "=SUM(S!XFD:XFD)", "A10": "=SUM(S!1048576:1048576)",
                "A11": "=SUM(S!A:A,S!A:XFD)", "A12": "=MAX(S!B:XFD)",
                "A13": "=ROWS(S!A:XFD)", "A14": "=COLUMNS(S!1:1048576)",
                "A15": "=COUNTBLANK(S!2:1048576)"}
    want = {"A1": 3, "A2": 2, "A3": 2, "A4": 1, "A5": 7, "A6": 7, "A7": 7, "A8": 7,
            "A9": 4, "A10": 4, "A11": 10, "A12": 4, "A13": 1_048_576, "A14": 16_384,
            "A15": SHEET_CELLS - 16_384 - 2}
    assert _calc(tmp_path, CORNERS, formulas) == want


def test_whole_sheet_range_over_a_small_sheet_of_a_huge_book(tmp_path):
    """A range over the whole of a small sheet, in a book where another sheet uses
    XFD1048576, is cut to the book's used area: 17 billion cells, which the dense path
    built -- "MemoryError ... (this is a bug)". It is read as the cells it holds, as
    over a sparse sheet: SUM 14 (10 + 4), COUNTA 3, INDEX of D2 4, ROWS 1048576."""
    wb = openpyxl.Workbook()
    wb.active.title = "S"
    wb.active["XFD1048576"] = 4
    small = wb.create_sheet("Small")
    small["A1"], small["B7"], small["D2"] = 10, "t", 4
    t = wb.create_sheet("T")
    formulas = {"A1": "=SUM(Small!A:XFD)", "A2": "=COUNTA(Small!A:XFD)",
                "A3": "=INDEX(Small!A:XFD,2,4)", "A4": "=ROWS(Small!A:XFD)",
                "A5": "=SUM(Small!A1:XFD1048576)", "A6": "=MATCH(4,Small!D:D,0)"}
    for ref, f in formulas.items():
        t[ref] = f
    src, out = tmp_path / "book.xlsx", tmp_path / "book_out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out), "-q"]) == 0
    got = openpyxl.load_workbook(out, data_only=True)["T"]
    assert {ref: got[ref].value for ref in formulas} == {
        "A1": 14, "A2": 3, "A3": 4, "A4": 1_048_576, "A5": 14, "A6": 2}

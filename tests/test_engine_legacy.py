"""Legacy formulas (a plain ``<f>``, not ``t="array"``) in one cell: a range given to a
value parameter is implicitly intersected, and an array result shows its top-left
element, as Excel shows them (addin/recalc/legacy.py; docs/engine.md)."""
from __future__ import annotations

import math

import openpyxl
from openpyxl.worksheet.formula import ArrayFormula

from zvmplan_addin import recalc as engine
from zvmplan_addin.recalc import legacy

from builders import recalc_cells, save


def test_an_array_result_shows_its_top_left_element(tmp_path):
    """Excel's cached values: ``={1,2;1,2}`` as a plain formula is 1 (formulas' test.xlsx
    CORE!K6), ``=ERROR.TYPE({1,2,3})`` #N/A and ``=ISNA({1,2,3})`` FALSE (SheetJS's
    ErrorTypes.xlsx RawErrors!F14, I14), ``=COLUMN(B11:D11)`` 2 in G252 and
    ``=COLUMN(1:2)`` 1 (POI's FormulaEvalTestData_Copy.xlsx EverythingTests!G252,
    E252), ``=MMULT(C1:D2,E1:F2)`` the product's first element (SheetJS's
    formula_stress_test.xlsx Math!B35; here 1*5+2*7 = 19), a dynamic-array function's
    too (``SORT``, Excel 365 shows such a plain formula as ``=@SORT(...)``). Nothing
    spills."""
    got = recalc_cells(tmp_path, {
        "C1": 1, "D1": 2, "C2": 3, "D2": 4, "E1": 5, "F1": 6, "E2": 7, "F2": 8,
        "A5": "={1,2;1,2}", "A6": "=ERROR.TYPE({1,2,3})", "A7": "=ISNA({1,2,3})",
        "G9": "=COLUMN(B11:D11)", "A10": "=COLUMN(1:2)", "A11": "=MMULT(C1:D2,E1:F2)",
        "A12": "=TRANSPOSE(C1:D2)", "A13": "=_xlfn._xlws.SORT(C1:D2,,-1)"})
    assert got == {"A5": 1, "A6": "#N/A", "A7": False, "G9": 2, "A10": 1, "A11": 19,
                   "A12": 1, "A13": 3}


def test_a_value_parameter_reads_the_ranges_cell_in_the_formulas_row_or_column(tmp_path):
    """POI's FormulaEvalTestData_Copy.xlsx (saved by Excel), EverythingTests: ``=ABS(K9:N9)``
    in N96 is ABS(N9) = 345, ``=ABS(N88:N96)`` in O96 is ABS(N96),
    ``=ATAN2(I167:I169,I11:K11)`` in J168 reads I168 and J11, ``=ISBLANK(J14:K14)`` in
    J772 reads J14, ``=CONCATENATE(G10:J10,F263:F265)`` in I264 reads I10 and F264.
    Beside the range it is #VALUE!. Inside SUM the value parameter still intersects
    (``=SUM(ABS(A1:D1))``), inside SUMPRODUCT (an array argument) it does not."""
    got = recalc_cells(tmp_path, {
        "A1": -1, "B1": -2, "C1": -3, "D1": -4, "F1": -10, "F2": -20, "F3": -30,
        "C5": "=ABS(A1:D1)", "G2": "=ABS(F1:F3)", "C3": "=ATAN2(F1:F3,A1:D1)",
        "E6": "=ABS(A1:D1)", "C7": "=SUM(ABS(A1:D1))", "C8": "=SUMPRODUCT(ABS(A1:D1))",
        "B9": '=CONCATENATE(A1:D1,"/",F1:F3)', "B10": "=ISBLANK(A1:D1)"})
    assert got == {"C5": 3, "G2": 20, "C3": math.atan2(-3, -30), "E6": "#VALUE!", "C7": 3,
                   "C8": 10, "B9": "#VALUE!", "B10": False}  # ATAN2(x, y) is atan2(y, x)


def test_if_returns_the_reference_it_is_given(tmp_path):
    """IF returns the reference of its chosen branch: as a legacy formula's result it is
    intersected (koala's basic.xlsx: ``=IF(A1>1,B1:B3,0)`` in P1 and P2 shows 0 when
    A1 is 1), also through an IF inside it (Q3: B3*2; Q6 beside the range), given to SUM it is summed whole
    (P7, also through CHOOSE); LibreOffice gives the same."""
    got = recalc_cells(tmp_path, {
        "A1": 2, "B1": 10, "B2": 20, "B3": 30,
        "P1": "=IF(A1>1,B1:B3,0)", "P2": "=IF(A1>1,B1:B3,0)", "P3": "=IF(A1>5,B1:B3,0)",
        "P4": "=SUM(IF(A1>1,B1:B3,0))", "P5": "=IF(A1>1,B1:B3,0)*2",
        "Q3": "=IF(A1>1,IF(A1>0,B1:B3,0),0)*2", "Q6": "=IF(A1>1,IF(A1>0,B1:B3,0),0)*2",
        "P7": "=SUM(IF(A1>1,CHOOSE(1,B1:B3),0))"})
    assert got == {"P1": 10, "P2": 20, "P3": 0, "P4": 60, "P5": "#VALUE!", "Q3": 60,
                   "Q6": "#VALUE!", "P7": 60}


def test_index_offset_indirect_give_a_reference_read_as_its_one_cell(tmp_path):
    """INDEX, OFFSET and INDIRECT return a reference. Where a legacy formula reads it as one
    value -- the formula's result, an operator's operand, a value parameter, what IF or
    CHOOSE returns -- Excel intersects it with the formula's row or column, as it does a
    range written in the formula: Microsoft's "Implicit intersection operator: @" ("if the
    value is a range, then return the value from the cell on the same row or column as the
    formula"; such functions are shown with ``@`` in Excel 365). ``=INDEX(B1:B8,0)`` in C3
    is B3 (30), beside the range (row 20) #VALUE!; given to SUM, MAX, COUNTIF or
    SUMPRODUCT it stays whole; ISREF of it is TRUE. LibreOffice computes every one of
    these cells alike. (Before: each showed B1's 10, and ISREF FALSE.)"""
    cells = {f"B{r}": 10 * r for r in range(1, 9)}
    cells.update({"G12": 1, "H12": 2, "I12": 3, "J12": 4, "K12": 5})
    formulas = {
        "C3": "=INDEX(B1:B8,0)", "D3": "=OFFSET(B1,0,0,8,1)", "E3": "=INDEX(B1:B8,0)*1",
        "F3": "=IF(TRUE,INDEX(B1:B8,0))", "G3": "=SUM(INDEX(B1:B8,0)*1)",
        "H3": "=SUM(INDEX(B1:B8,0))", "I3": '=INDIRECT("B1:B8")+0', "J3": "=INDEX(B:B,0)",
        "K3": "=INDEX(B1:C8,0,1)", "L3": "=CHOOSE(1,OFFSET(B1,0,0,8,1))",
        "M3": "=ISREF(INDEX(B1:B8,0))", "N3": "=ROWS(INDEX(B1:B8,0))",
        "O3": "=ABS(INDEX(B1:B8,0))", "P3": '=INDEX(B1:B8,0)&"x"',
        "Q3": "=SUMPRODUCT(INDEX(B1:B8,0)*1)", "R3": "=MAX(INDEX(B1:B8,0))",
        "S3": '=COUNTIF(INDEX(B1:B8,0),">30")', "T3": "=-INDEX(B1:B8,0)",
        "U3": "=ISREF(INDEX(B1:B8,0)*1)",
        "C20": "=INDEX(B1:B8,0)", "D20": "=OFFSET(B1,0,0,8,1)", "E20": "=INDEX(B1:B8,0)*1",
        "F20": "=IFERROR(INDEX(B1:B8,0),-1)", "G20": "=INDEX(B:B,0)+1",
        "I14": "=INDEX(G12:K12,0)", "J14": "=INDEX(G12:K12,1,0)+0",
        "K14": "=OFFSET(G12,0,0,1,5)", "Q14": "=INDEX(G12:K12,0)"}
    got = recalc_cells(tmp_path, {**cells, **formulas})
    assert got == {
        "C3": 30, "D3": 30, "E3": 30, "F3": 30, "G3": 30, "H3": 360, "I3": 30, "J3": 30,
        "K3": 30, "L3": 30, "M3": True, "N3": 8, "O3": 30, "P3": "30x", "Q3": 360,
        "R3": 80, "S3": 5, "T3": -30, "U3": False,
        "C20": "#VALUE!", "D20": "#VALUE!", "E20": "#VALUE!", "F20": -1, "G20": 1,
        "I14": 3, "J14": 4, "K14": 5, "Q14": "#VALUE!"}


def test_a_reference_cut_per_cell_down_a_column_and_whole_in_an_array_formula(tmp_path):
    """The same INDEX filled down a column (one compiled shape for every cell, never
    computed once for all of them) reads each row's cell, also where the position is a
    cell's value, 0 in some rows (INDEX gives the whole column there: those rows read
    their own cell, the others the cell at the position); entered as an array formula
    (Ctrl+Shift+Enter) over C1:C4 it is the whole column, not cut."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r in range(1, 9):
        ws[f"B{r}"] = 10 * r
        ws[f"D{r}"] = "=INDEX($B$1:$B$8,0)*2"
        ws[f"E{r}"] = "=OFFSET($B$1,0,0,8,1)"
        ws[f"G{r}"] = (0, 2, 5, 0)[r % 4]
        ws[f"F{r}"] = f"=INDEX($B$1:$B$8,G{r})"
    ws["D9"] = "=INDEX($B$1:$B$8,0)*2"
    ws["C1"] = ArrayFormula("C1:C4", "=INDEX(B1:B8,0)")
    path = save(wb, tmp_path / "in.xlsx")
    engine.calc(path, tmp_path / "out.xlsx")
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Plan"]
    assert [out[f"D{r}"].value for r in range(1, 10)] == \
        [20 * r for r in range(1, 9)] + ["#VALUE!"]
    assert [out[f"E{r}"].value for r in range(1, 9)] == [10 * r for r in range(1, 9)]
    assert [out[f"C{r}"].value for r in range(1, 5)] == [10, 20, 30, 40]
    assert [out[f"F{r}"].value for r in range(1, 9)] == [20, 50, 30, 40, 20, 50, 70, 80]


def test_a_one_cell_array_formula_shows_the_top_left_element(tmp_path):
    """``{=ABS(A1:D1)}`` entered with Ctrl+Shift+Enter in one cell evaluates the whole
    range and shows its first element (the result cropped to the formula's range);
    over five cells of a row it shows the four elements and #N/A beyond them."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for c, v in zip("ABCD", (-1, -2, -3, -4)):
        ws[f"{c}1"] = v
    ws["C5"] = ArrayFormula("C5", "=ABS(A1:D1)")
    ws["A7"] = ArrayFormula("A7:E7", "=ABS(A1:D1)")
    path = save(wb, tmp_path / "in.xlsx")
    engine.calc(path, tmp_path / "out.xlsx")
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Plan"]
    assert out["C5"].value == 1
    assert [out[f"{c}7"].value for c in "ABCDE"] == [1, 2, 3, 4, "#N/A"]


def test_a_range_given_to_a_function_not_known_is_not_guessed(tmp_path, monkeypatch):
    """A function whose parameter classes the engine does not know (here GAMMA taken out
    of legacy.PARAMETERS), given a range in a legacy formula: Excel may intersect it
    (it does for GAMMA, whose parameter is a number); the engine answers #VALUE! with
    the reason, never the array's first element."""
    monkeypatch.delitem(legacy.PARAMETERS, "GAMMA")
    report = engine.calc(_book(tmp_path, {"A1": 0.5, "A2": 1, "A3": 2,
                                          "B2": "=_xlfn.GAMMA(A1:A3)"}), tmp_path / "out.xlsx")
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Plan"]
    assert out["B2"].value == "#VALUE!"
    assert "GAMMA" in report.errors["Plan!B2"][1]


def _book(tmp_path, cells):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for ref, v in cells.items():
        ws[ref] = v
    return save(wb, tmp_path / "in.xlsx")


def _intersected_one_by_one(pipe) -> frozenset:
    """:func:`~zvmplan_addin.recalc.legacy.intersected_inputs` with each function's
    value context found afresh each time it is asked (no memo)."""
    succ = pipe.dsp.dmap.succ
    return frozenset(
        k for k, key in enumerate(pipe.inputs)
        if (succ.get(key) and all(legacy._intersects(pipe, f, key) for f in succ[key]))
        or (not succ.get(key) and key in pipe.outputs))


def test_the_inputs_intersected_are_found_alike_with_the_memo(monkeypatch, tmp_path):
    """The compile stage asks each function's value context once per formula (a memo by
    function and depth): the inputs found are those found asking afresh each time, on
    every formula the template compiles, on legacy formulas of each kind, and on a chain
    of operations deeper than the 64 levels followed."""
    from zvmplan_addin import cli
    from zvmplan_addin.recalc import compile as compile_stage
    from zvmplan_addin.recalc import legacy as legacy_module
    from zvmplan_workbook import build
    pipes = []
    original = compile_stage.FormulaCompiler._parse

    def keep(self, *args, **kw):
        got = original(self, *args, **kw)
        if got is not None:
            pipes.append(got[1])
        return got
    monkeypatch.setattr(compile_stage.FormulaCompiler, "_parse", keep)
    assert cli.main(["calc", str(build.TEMPLATE), "-o", str(tmp_path / "t.xlsx"), "-q"]) \
        in (0, None)
    deep = "+".join(["A1:A3"] * 3) + "".join(["*1"] * 70)
    texts = ["A1:A3+1", "IF(A1>1,B1:B3,0)", "SUM(A1:A3)+A1:A3", "ABS(A1:A3)*2&B1:B3",
             "INDEX(A1:A3,1):B4+1", "CHOOSE(1,A1:A3,B1:B3)+1", "-(-(A1:A3))", deep,
             "(" * 60 + "A1:A3" + ")" * 60 + "+1", "VLOOKUP(A1:A3,B1:C9,2,FALSE)*C1:C3"]
    recalc_cells(tmp_path, {f"E{k + 1}": "=" + t for k, t in enumerate(texts)})
    assert len(pipes) >= 150 + len(texts)
    found = [legacy_module.intersected_inputs(p) for p in pipes]
    assert found == [_intersected_one_by_one(p) for p in pipes]
    assert any(found)

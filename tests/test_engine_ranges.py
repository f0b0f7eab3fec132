"""Ranges written with an unusual end: a defined name after ``:`` and ``#REF!`` (a row
or column deleted under a range), read as Excel reads them."""
from __future__ import annotations

import openpyxl
from openpyxl.workbook.defined_name import DefinedName

from zvmplan_addin import recalc as engine

from builders import save


def test_a_name_after_a_colon_and_a_dead_range_end(tmp_path):
    """formulas' test.xlsx (saved by Excel): ``CORE!D9 =SUM(B2:E5:f)`` with ``f`` the name
    of CORE!$G$2:$H$5 is 81, the sum over B2:H5 (the range operator spans both); EPPlus's
    FormulaTest.xlsx ValidateFormulas!H10 ``=SUM(#REF!:B4)`` and H41 ``=#REF!:#REF!`` are
    #REF!, and so is PhpSpreadsheet's issue.3453.xlsx ``=SUM(#REF!:#REF!)``. A text
    holding "#REF!:B4" is text."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for ref, v in {"A1": 1, "B1": 2, "A2": 3, "B2": 4, "C3": 5, "D5": 100}.items():
        ws[ref] = v
    wb.defined_names["zz"] = DefinedName("zz", attr_text="S!$C$3")
    cells = {"E1": "=SUM(A1:B2:zz)", "E2": "=SUM(A1:zz)", "E3": "=SUM(#REF!:B4)",
             "E4": "=#REF!:#REF!", "E5": '="#REF!:B4"', "E6": "=SUM(A1:#REF!)"}
    for ref, text in cells.items():
        ws[ref] = text
    report = engine.calc(save(wb, tmp_path / "in.xlsx"), tmp_path / "out.xlsx")
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["S"]
    assert {ref: out[ref].value for ref in cells} == {
        "E1": 15, "E2": 15, "E3": "#REF!", "E4": "#REF!", "E5": "#REF!:B4", "E6": "#REF!"}
    assert report.warnings == []

"""Classes of disagreement with Excel found on the corpus of Excel-saved workbooks
(issue 16; ``build/corpus_score.py``), each fixed at its rule and pinned here with a
small workbook of its own. Each docstring says what Excel does and which corpus file
(repository and path, as ``/work/corpus/MANIFEST.tsv`` lists it) showed the class; no
test reads a corpus file.
"""
import openpyxl
import pytest

from zvmplan_addin.cli import main as cli


def recalc(tmp_path, cells: dict, name="book") -> dict:
    """``cells``: ref -> value or formula ("=..."); returns ref -> cached value of each
    formula cell after ``zvmplan calc`` (as openpyxl reads the output)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    for ref, value in cells.items():
        ws[ref] = value
        if isinstance(value, str) and not value.startswith("="):
            ws[ref].data_type = "s"
    src, out = tmp_path / f"{name}.xlsx", tmp_path / f"{name}_out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out)]) == 0
    got = openpyxl.load_workbook(out, data_only=True).active
    return {ref: got[ref].value for ref, v in cells.items()
            if isinstance(v, str) and v.startswith("=")}


def test_round_of_a_large_number_to_many_places(tmp_path):
    """ROUND, ROUNDUP and ROUNDDOWN of a number that has no digit at the place asked
    for give the number (Excel: ``ROUND(H22,12)=ROUND(H33,12)`` is TRUE for
    4.573698186081024E+17 in LibreOffice's ``functions-excel-2010.xlsx``, ClosedXML's
    ``ClosedXML.Tests/Resource/TryToLoad/LO/xlsx/functions-excel-2010.xlsx``); it was
    #VALUE! (the decimal rounding ran out of its 28 digits)."""
    got = recalc(tmp_path, {"A1": 4.573698186081024e17, "B1": "=ROUND(A1,12)=A1",
                            "B2": "=ROUNDUP(A1,12)", "B3": "=ROUNDDOWN(-A1,20)",
                            "B4": "=ROUND(1.5,400)", "B5": "=ROUND(0.285,2)"})
    assert got["B1"] is True
    assert got["B2"] == pytest.approx(4.573698186081024e17, rel=1e-15)
    assert got["B3"] == pytest.approx(-4.573698186081024e17, rel=1e-15)
    assert got["B4"] == 1.5 and got["B5"] == 0.29


def test_product_of_no_numbers_is_zero(tmp_path):
    """PRODUCT over cells that hold no number is 0 in Excel, as SUM is (LibreOffice
    agrees), not the empty product 1; so is SUBTOTAL(6, ...) of such cells (found
    while pinning SUBTOTAL, which computes with PRODUCT)."""
    got = recalc(tmp_path, {"A1": "x", "B1": "=PRODUCT(Z1:Z3)", "B2": "=PRODUCT(A1:A2)",
                            "B3": "=SUBTOTAL(6,Z1:Z3)", "B4": "=PRODUCT(Z1:Z3,4)",
                            "B5": "=PRODUCT(Z1:Z3,NA())", "B6": '=PRODUCT("a")'})
    assert [got[f"B{k}"] for k in range(1, 7)] == [0, 0, 0, 4, "#N/A", "#VALUE!"]

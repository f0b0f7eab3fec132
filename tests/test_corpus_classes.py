"""Classes of disagreement with Excel found on the corpus of Excel-saved workbooks
(issue 16; ``build/corpus_score.py``), each fixed at its rule and pinned here with a
small workbook of its own. Each docstring says what Excel does and which corpus file
(repository and path, as ``/work/corpus/MANIFEST.tsv`` lists it) showed the class; no
test reads a corpus file.
"""
import pytest

from builders import recalc_cells


recalc = recalc_cells


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


NEAR_ZERO = {
    # the last operation is + or -, its operands equal at 15 significant digits: 0
    "=0.1+0.2-0.3": 0, "=0.3-0.2-0.1": 0, "=1.333+1.225-1.333-1.225": 0,
    "=B1+B2-B3": 0,
    # the operands differ at 15 digits (40026.4400000001 and 40026.44): the residue
    "=B1-B3+B2": 5.820766091346741e-11,
    # the last operation is not that + or -: the residue stays
    "=1*(0.5-0.4-0.1)": -2.7755575615628914e-17,
    "=(1.333+1.225-1.333-1.225)": -2.220446049250313e-16,
    "=0.1+0.2-0.3+0": 5.551115123125783e-17,
    "=-(0.1+0.2-0.3)": -5.551115123125783e-17,
}


def test_near_zero_after_a_last_addition_or_subtraction(tmp_path):
    """Microsoft, "Floating-point arithmetic may give inaccurate results in Excel",
    example "when a value reaches zero": when the last operation of a formula is + or -
    and the result is at or very close to zero, Excel 97 and later show 0 --
    ``=0.1+0.2-0.3`` is 0 -- while ``=1*(.5-.4-.1)`` keeps -2.78E-17 (its last
    operation is the product). "Very close" is the operands' equality at 15
    significant digits (Apache POI's ExcelArithmetic): 818562.54-778536.1+(-40026.44)
    keeps 5.82E-11 in Excel and 818562.54+(-40026.44)-778536.1 is 0 (a report on
    Microsoft's forum); the whole formula in parentheses keeps its residue (its last
    token is the parenthesis: ``=(1.333+1.225-1.333-1.225)`` is -2.22E-16), and so
    does adding a zero at the end."""
    cells = {"B1": 818562.54, "B2": -40026.44, "B3": 778536.1}
    refs = {}
    for k, formula in enumerate(NEAR_ZERO, start=1):
        cells[f"D{k}"] = formula
        refs[formula] = f"D{k}"
    got = recalc(tmp_path, cells)
    for formula, expected in NEAR_ZERO.items():
        assert got[refs[formula]] == expected, formula


def test_near_zero_down_a_column(tmp_path):
    """The same rule when a formula filled down a column is evaluated as one column
    run (numpy) and cell by cell: ``=A2+B2-C2`` over 0.1, 0.2 and 0.3 is 0 (IEEE
    5.55E-17), over 0.1, 0.2 and 0.35 the difference."""
    cells = {}
    for r in range(2, 402):
        cells[f"A{r}"] = 0.1
        cells[f"B{r}"] = 0.2
        cells[f"C{r}"] = 0.3 if r % 2 else 0.35
        cells[f"D{r}"] = f"=A{r}+B{r}-C{r}"
    got = recalc(tmp_path, cells)
    for r in range(2, 402):
        if r % 2:
            assert got[f"D{r}"] == 0, r
        else:
            assert got[f"D{r}"] == pytest.approx(-0.05, rel=1e-12) != 0, r


def test_lookup_array_form_searches_the_first_row_or_column(tmp_path):
    """LOOKUP(value, array) with a two-dimensional array (Microsoft's LOOKUP page):
    a wider than tall array is searched in its first row and answers from its last
    row; a square or taller one in its first column, answering from its last column;
    with a result vector, a two-dimensional lookup range is searched the same way, and
    a result vector of more than one row and column is #N/A in Excel. Found in pycel's
    ``tests/fixtures/lookup.xlsx`` (dgorissen/pycel), sheet Lookup, rows 20-30, where
    formulas gave the searched value itself (0 for "a")."""
    cells = {"B1": 0, "C1": 1, "D1": 2, "E1": 3, "F1": 4,
             "B2": "a", "C2": "e", "D2": "i", "E2": "o", "F2": "u",
             "H1": 0, "I1": "a", "H2": 1, "I2": "e", "H3": 2, "I3": "i",
             "A5": "=LOOKUP(2,B1:F2)", "A6": "=LOOKUP(3.5,B1:F2)", "A7": "=LOOKUP(-1,B1:F2)",
             "A8": "=LOOKUP(1,H1:I3)", "A9": "=LOOKUP(2,H1:I3,I1:I3)",
             "A10": "=LOOKUP(2,H1:I3,B1:C3)", "A11": "=LOOKUP(2,B1:F1,B2:F2)"}
    got = recalc(tmp_path, cells)
    assert [got[f"A{k}"] for k in range(5, 12)] == ["i", "o", "#N/A", "e", "i", "#N/A", "i"]


def test_text_with_its_format_in_a_cell(tmp_path):
    """TEXT(value, format_text) reads format_text from a cell as Excel does (it was
    #VALUE!, "the format <Ranges>... is not one the engine reads": the reference was
    not read). Found in pycel's
    ``tests/fixtures/text.xlsx`` (dgorissen/pycel), ``=TEXT(A21,B21)`` with "#.#" in B21
    (Excel "890123.5")."""
    got = recalc(tmp_path, {"A1": 890123.456789, "B1": "#.#", "B2": "0.00", "B3": "#,##0",
                            "C1": "=TEXT(A1,B1)", "C2": "=TEXT(A1,B2)", "C3": "=TEXT(A1,B3)",
                            "C4": '=TEXT(A1,"#.#")'})
    assert [got[f"C{k}"] for k in range(1, 5)] == ["890123.5", "890123.46", "890,123",
                                                  "890123.5"]


def test_base_conversion_places_are_checked_first(tmp_path):
    """DEC2BIN, DEC2OCT, DEC2HEX (and BIN2OCT ...): ``places`` must be 1 to 10, also
    for a negative number whose result ignores it, and it is checked before the number
    (Microsoft: "If places is negative, DEC2BIN returns the #NUM! error value"). Excel's
    saved values in xlcalculator's ``tests/resources/BASES.xlsx`` (bradbase/xlcalculator):
    ``DEC2BIN(-25,0)`` #NUM! (was "1111100111"), ``DEC2BIN(-25,1)`` "1111100111",
    ``DEC2BIN(-25,11)`` #NUM!, ``DEC2BIN("E",0)`` #NUM! (was #VALUE!),
    ``DEC2BIN("E",1)`` #VALUE!."""
    got = recalc(tmp_path, {"A1": -25, "A2": "E",
                            "B1": "=DEC2BIN(A1,0)", "B2": "=DEC2BIN(A1,1)",
                            "B3": "=DEC2BIN(A1,11)", "B4": "=DEC2BIN(A2,0)",
                            "B5": "=DEC2BIN(A2,1)", "B6": "=DEC2HEX(A1,4)",
                            "B7": "=DEC2OCT(10,3)", "B8": "=DEC2BIN(10,3)",
                            "B9": "=DEC2BIN(-1,-1)", "B10": '=DEC2BIN(3,"a")'})
    assert [got[f"B{k}"] for k in range(1, 11)] == [
        "#NUM!", "1111100111", "#NUM!", "#NUM!", "#VALUE!", "FFFFFFFFE7", "012", "#NUM!",
        "#NUM!", "#VALUE!"]


def test_yearfrac_reads_its_basis_first(tmp_path):
    """YEARFRAC answers for a bad basis whatever its dates are: an error given as the
    basis is that error, text or TRUE #VALUE!, a number outside 0-4 #NUM! (also when a
    date is an error); a date beyond 31 December 9999 (serial 2958465) is #NUM!. Excel's
    saved values in pycel's ``tests/fixtures/yearfrac.xlsx`` (dgorissen/pycel): it gave
    #DIV/0! for ``YEARFRAC(1/0,200,-1)`` (Excel #NUM!) and #VALUE! for a date of
    2958466 (Excel #NUM!)."""
    got = recalc(tmp_path, {"A1": "=1/0", "A2": "plugh", "A3": 2958466,
                            "B1": "=YEARFRAC(A1,200,-1)", "B2": "=YEARFRAC(A1,200,5)",
                            "B3": "=YEARFRAC(A1,200,0)", "B4": "=YEARFRAC(1,200,A2)",
                            "B5": "=YEARFRAC(1,200,NA())", "B6": "=YEARFRAC(A3,200,0)",
                            "B7": "=YEARFRAC(1,200,TRUE)", "B8": "=YEARFRAC(1,200,3)"})
    assert [got[f"B{k}"] for k in range(1, 9)] == [
        "#NUM!", "#NUM!", "#DIV/0!", "#VALUE!", "#N/A", "#NUM!", "#VALUE!",
        pytest.approx(199 / 365, rel=1e-15)]

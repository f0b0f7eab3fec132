"""Excel's rules where the formulas package answers otherwise (issue 16; the engine's
:mod:`zvmplan_addin.recalc.excel`), one section per module. Each case is a small
workbook made with openpyxl and recalculated by ``zvmplan calc``; each expected value is
what Microsoft's documentation of the function says Excel returns.
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
            ws[ref].data_type = "s"  # text, even when it reads as a number
    src, out = tmp_path / f"{name}.xlsx", tmp_path / f"{name}_out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out)]) == 0
    got = openpyxl.load_workbook(out, data_only=True).active
    return {ref: got[ref].value for ref, v in cells.items()
            if isinstance(v, str) and v.startswith("=")}


def same(got, expected) -> bool:
    """``got`` is ``expected``, a logical value only if ``expected`` is one."""
    return isinstance(got, bool) == isinstance(expected, bool) and got == expected


def cases(tmp_path_factory, formulas: dict, data: dict, name: str) -> dict:
    """Each formula of ``formulas`` (name -> formula) in column C over ``data``; returns
    name -> its value."""
    cells = dict(data)
    cells.update({f"C{k}": f for k, f in enumerate(formulas.values(), start=1)})
    got = recalc(tmp_path_factory.mktemp(name), cells, name)
    return {case: got[f"C{k}"] for k, case in enumerate(formulas, start=1)}


# ------------------------------------------------------------------ coercion ----
# A reference or array gives only its numbers to SUM, COUNT, AVERAGE, MAX, MIN and the
# *IF functions; a value given directly is coerced.

# A1 the text "1", A2 the number 2, A3 TRUE, A4 the text "abc", A5 the number 0
DATA = {"A1": "1", "A2": 2, "A3": True, "A4": "abc", "A5": 0}


@pytest.fixture(scope="module")
def coercion(tmp_path_factory):
    return cases(tmp_path_factory, COERCION, DATA, "coercion")


COERCION = {
    # "If an argument is an array or reference, only numbers in that array or reference
    # are counted. Empty cells, logical values, or text ... are ignored" (SUM, AVERAGE,
    # MAX, MIN, COUNT, MEDIAN, STDEV ...)
    "sum_range": "=SUM(A1:A5)",
    "sum_one_text_cell": "=SUM(A1)",
    "count_range": "=COUNT(A1:A5)",
    "average_range": "=AVERAGE(A1:A5)",
    "max_range": "=MAX(A1:A5)",
    "min_range": "=MIN(A1:A4)",
    "median_range": "=MEDIAN(A1:A4)",
    "product_range": "=PRODUCT(A1:A4)",
    "sum_array_constant": '=SUM({1,"1",TRUE})',
    # "logical values and text representations of numbers that you type directly into
    # the list of arguments are counted"
    "sum_direct": '=SUM("1",TRUE)',
    "count_direct": '=COUNT("1",TRUE,"a")',
    "max_direct": '=MAX("3",1)',
    "sum_expression": '=SUM(A2&"")',
    "sum_direct_text": '=SUM("a")',
    "sum_error": "=SUM(1,NA())",
    "count_error": "=COUNT(A1:A5,NA())",
    # ISNUMBER: TRUE for a number only; N: TRUE is 1, text 0
    "isnumber_text": '=ISNUMBER("1")',
    "isnumber_cell": "=ISNUMBER(A1)",
    "isnumber_number": "=ISNUMBER(A2)",
    "n_true": "=N(TRUE)",
    "n_text_cell": "=N(A1)",
    # COUNTIF and friends: a relational criterion picks numbers only (never TRUE, never
    # the text "1"); "=" picks numeric text too; the summed cells give their numbers
    "countif_ge0": '=COUNTIF(A1:A5,">=0")',
    "countif_eq1": '=COUNTIF(A1:A5,"1")',
    "countif_true": "=COUNTIF(A1:A5,TRUE)",
    "countif_wildcard": '=COUNTIF(A1:A5,"A*")',
    "countif_not_empty": '=COUNTIF(A1:A5,"<>")',
    "countif_not_text": '=COUNTIF(A1:A5,"<>abc")',
    "sumif_ge0": '=SUMIF(A1:A5,">=0")',
    "sumif_text_sum_range": '=SUMIF(A1:A5,"<>abc",A1:A5)',
    "sumifs": '=SUMIFS(A1:A5,A1:A5,"<>abc")',
    "averageif": '=AVERAGEIF(A1:A5,">=0")',
    "countifs": '=COUNTIFS(A1:A5,">=0",A1:A5,"<2")',
    "maxifs": '=MAXIFS(A1:A5,A1:A5,"<>abc")',
    "minifs_none": '=MINIFS(A1:A5,A1:A5,">5")',
    "averageif_none": '=AVERAGEIF(A1:A5,">5")',
}

COERCION_EXPECTED = {
    "sum_range": 2, "sum_one_text_cell": 0, "count_range": 2, "average_range": 1,
    "max_range": 2, "min_range": 2, "median_range": 2, "product_range": 2,
    "sum_array_constant": 1, "sum_direct": 2, "count_direct": 2, "max_direct": 3,
    "sum_expression": 2, "sum_direct_text": "#VALUE!", "sum_error": "#N/A",
    "count_error": 2, "isnumber_text": False, "isnumber_cell": False,
    "isnumber_number": True, "n_true": 1, "n_text_cell": 0,
    "countif_ge0": 2, "countif_eq1": 1, "countif_true": 1, "countif_wildcard": 1,
    "countif_not_empty": 5, "countif_not_text": 4, "sumif_ge0": 2,
    "sumif_text_sum_range": 2, "sumifs": 2, "averageif": 1, "countifs": 1,
    "maxifs": 2, "minifs_none": 0, "averageif_none": "#DIV/0!",
}


@pytest.mark.parametrize("case", list(COERCION))
def test_excel_reads_references_and_direct_values(coercion, case):
    """Each formula of COERCION gives what Excel gives over DATA."""
    assert same(coercion[case], COERCION_EXPECTED[case])


def test_a_column_of_references_reads_as_cell_by_cell(tmp_path):
    """A formula filled down a column (evaluated as one column run) still reads each
    row's cell as a reference: SUM(A2) of the text "2" is 0 in Excel, COUNT(A2,1) is 1,
    while A2+1 coerces the text (3) and ISNUMBER(A2) is FALSE."""
    cells = {}
    for r in range(1, 31):
        cells[f"A{r}"] = str(r) if r % 2 == 0 else r
        cells[f"B{r}"] = f"=SUM(A{r})"
        cells[f"C{r}"] = f"=COUNT(A{r},1)"
        cells[f"D{r}"] = f"=A{r}+1"
        cells[f"E{r}"] = f"=ISNUMBER(A{r})"
    got = recalc(tmp_path, cells)
    for r in range(1, 31):
        text = r % 2 == 0
        assert got[f"B{r}"] == (0 if text else r)
        assert got[f"C{r}"] == (1 if text else 2)
        assert got[f"D{r}"] == r + 1
        assert got[f"E{r}"] is (not text)

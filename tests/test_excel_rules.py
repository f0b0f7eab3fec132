"""Excel's rules where the formulas package answers otherwise (issue 16; the engine's
:mod:`zvmplan_addin.recalc.excel`), one section per module. Each case is a small
workbook made with openpyxl and recalculated by ``zvmplan calc``; each expected value is
what Microsoft's documentation of the function says Excel returns.
"""
import zipfile

import openpyxl
import pytest

from zvmplan_addin.cli import main as cli
from builders import recalc_cells


recalc = recalc_cells


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
    "casefolded": '=SUMIFS({1,2},{"ß","ss"},"ß")',  # formulas' tests (Excel's answer)
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
    "maxifs": 2, "minifs_none": 0, "casefolded": 3, "averageif_none": "#DIV/0!",
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


# ------------------------------------------------------------------- numbers ----
# Excel keeps 15 significant digits (Microsoft, "Floating-point arithmetic may give
# inaccurate results in Excel"); FLOOR/CEILING and their forms as their pages say.
NUMBERS = {
    "equal_at_15_digits": "=0.1+0.2=0.3",
    "less_at_15_digits": "=0.1+0.2<0.3",
    "greater_equal_at_15": "=0.3>=0.1+0.2",
    "not_equal_at_15": "=0.1+0.2<>0.3",
    "if_branch": '=IF(0.1+0.2=0.3,"same","differ")',
    "really_different": "=0.3000000000001=0.3",
    "round_half_up": "=ROUND(0.285,2)",
    "round_negative": "=ROUND(-2.5,0)",
    "round_tens": "=ROUND(1234.5,-2)",
    "roundup_at_15": "=ROUNDUP(0.1+0.2,1)",
    "rounddown": "=ROUNDDOWN(-3.14159,3)",
    "trunc": "=TRUNC(8.9)",
    "floor_at_15": "=FLOOR(0.3,0.1)",
    "floor_docs_1": "=FLOOR(3.7,2)",
    "floor_docs_2": "=FLOOR(-2.5,-2)",
    "floor_docs_3": "=FLOOR(2.5,-2)",
    "floor_docs_4": "=FLOOR(1.58,0.1)",
    "ceiling_docs_1": "=CEILING(2.5,1)",
    "ceiling_docs_2": "=CEILING(-2.5,-2)",
    "ceiling_docs_3": "=CEILING(-2.5,2)",
    "ceiling_docs_4": "=CEILING(1.5,0.1)",
    "floor_math_docs_1": "=FLOOR.MATH(24.3,5)",
    "floor_math_docs_2": "=FLOOR.MATH(6.7)",
    "floor_math_docs_3": "=FLOOR.MATH(-8.1,2)",
    "floor_math_docs_4": "=FLOOR.MATH(-5.5,2,-1)",
    "floor_math_negative": "=FLOOR.MATH(-2.5)",
    "ceiling_math_docs_1": "=CEILING.MATH(24.3,5)",
    "ceiling_math_docs_2": "=CEILING.MATH(6.7)",
    "ceiling_math_docs_3": "=CEILING.MATH(-8.1,2)",
    "ceiling_math_docs_4": "=CEILING.MATH(-5.5,2,-1)",
    "floor_precise_docs_1": "=FLOOR.PRECISE(-3.2,-1)",
    "floor_precise_docs_2": "=FLOOR.PRECISE(3.2,1)",
    "floor_precise_docs_3": "=FLOOR.PRECISE(-3.2,1)",
    "floor_precise_docs_4": "=FLOOR.PRECISE(3.2,-1)",
    "floor_precise_docs_5": "=FLOOR.PRECISE(3.2)",
    "ceiling_precise_docs_1": "=CEILING.PRECISE(4.3)",
    "ceiling_precise_docs_2": "=CEILING.PRECISE(-4.3)",
    "ceiling_precise_docs_3": "=CEILING.PRECISE(4.3,2)",
    "ceiling_precise_docs_4": "=CEILING.PRECISE(4.3,-2)",
    "ceiling_precise_docs_5": "=CEILING.PRECISE(-4.3,2)",
    "ceiling_precise_docs_6": "=CEILING.PRECISE(-4.3,-2)",
    "iso_ceiling_docs_1": "=ISO.CEILING(-4.3,2)",
    "iso_ceiling_docs_2": "=ISO.CEILING(4.3,-2)",
    "zero_to_zero": "=0^0",
    "power_zero_zero": "=POWER(0,0)",
    "zero_to_negative": "=0^-1",
    "negative_root": "=(-8)^(1/3)",
    "text_plus": '="1,234"+1',
    "time_text_plus": '="12:00"+0',
    "bad_text_plus": '="a"+1',
    "logical_plus": "=TRUE+1",
    "mround_docs_1": "=MROUND(10,3)",
    "mround_docs_2": "=MROUND(-10,-3)",
    "mround_docs_3": "=MROUND(1.3,0.2)",
    "mround_docs_4": "=MROUND(5,-2)",
    "mround_half": "=MROUND(2.5,1)",
}
NUMBERS_EXPECTED = {
    "equal_at_15_digits": True, "less_at_15_digits": False, "greater_equal_at_15": True,
    "not_equal_at_15": False, "if_branch": "same", "really_different": False,
    "round_half_up": 0.29, "round_negative": -3, "round_tens": 1200,
    "roundup_at_15": 0.3, "rounddown": -3.141, "trunc": 8,
    "floor_at_15": 0.3, "floor_docs_1": 2, "floor_docs_2": -2, "floor_docs_3": "#NUM!",
    "floor_docs_4": 1.5, "ceiling_docs_1": 3, "ceiling_docs_2": -4, "ceiling_docs_3": -2,
    "ceiling_docs_4": 1.5, "floor_math_docs_1": 20, "floor_math_docs_2": 6,
    "floor_math_docs_3": -10, "floor_math_docs_4": -4, "floor_math_negative": -3,
    "ceiling_math_docs_1": 25, "ceiling_math_docs_2": 7, "ceiling_math_docs_3": -8,
    "ceiling_math_docs_4": -6, "floor_precise_docs_1": -4, "floor_precise_docs_2": 3,
    "floor_precise_docs_3": -4, "floor_precise_docs_4": 3, "floor_precise_docs_5": 3,
    "ceiling_precise_docs_1": 5, "ceiling_precise_docs_2": -4,
    "ceiling_precise_docs_3": 6, "ceiling_precise_docs_4": 6,
    "ceiling_precise_docs_5": -4, "ceiling_precise_docs_6": -4,
    "iso_ceiling_docs_1": -4, "iso_ceiling_docs_2": 6,
    "zero_to_zero": "#NUM!", "power_zero_zero": "#NUM!", "zero_to_negative": "#DIV/0!",
    "negative_root": "#NUM!", "text_plus": 1235, "time_text_plus": 0.5,
    "bad_text_plus": "#VALUE!", "logical_plus": 2, "mround_docs_1": 9,
    "mround_docs_2": -9, "mround_docs_3": 1.4, "mround_docs_4": "#NUM!", "mround_half": 3,
}


@pytest.fixture(scope="module")
def numbers(tmp_path_factory):
    return cases(tmp_path_factory, NUMBERS, {}, "numbers")


@pytest.mark.parametrize("case", list(NUMBERS))
def test_excel_15_digits_and_rounding(numbers, case):
    """Each formula of NUMBERS gives what Excel gives (the FLOOR/CEILING cases are the
    examples of Microsoft's page of each function)."""
    assert same(numbers[case], NUMBERS_EXPECTED[case])


def test_factorials_and_poisson_truncate_their_count(tmp_path):
    """FACT and FACTDOUBLE give a double up to the largest that fits (Microsoft's FACT
    page: a non-integer is truncated; FACT(170) 7.257415615308E+306, FACT(171) #NUM!),
    and POISSON.DIST truncates x ("If x is not an integer, it is truncated"): Excel
    saved 0.27067056647322535 for ``POISSON.DIST(F6,G6,0)`` with F6 4/3 and G6 2 in
    ClosedXML's functions-excel-2010.xlsx (Sheet1!B58). formulas gave #VALUE! for FACT(21)
    and above, 0 for FACTDOUBLE(300) (64-bit overflow) and 0 for a non-integer x."""
    got = recalc(tmp_path, {
        "F6": "=4/3", "A1": "=FACT(20)", "A2": "=FACT(21)", "A3": "=FACT(170)",
        "A4": "=FACT(171)", "A5": "=FACT(5.9)", "A6": "=FACT(-1)",
        "A7": "=FACTDOUBLE(300)", "A8": "=FACTDOUBLE(301)", "A9": "=FACTDOUBLE(7)",
        "A10": "=POISSON.DIST(F6,2,0)", "A11": "=POISSON(2.5,3,FALSE)",
        "A12": "=POISSON.DIST(1.9,2,TRUE)", "A13": "=POISSON.DIST(-1,2,TRUE)",
        "A14": "=FACTDOUBLE(-1.1)", "A15": "=FACTDOUBLE(-1)", "A16": "=FACT(-0.5)"})
    assert got["A1"] == 2432902008176640000 and got["A2"] == float(51090942171709440000)
    assert got["A3"] == pytest.approx(7.257415615307999e+306, rel=1e-15)
    assert (got["A4"], got["A5"], got["A6"]) == ("#NUM!", 120, "#NUM!")
    assert got["A7"] == pytest.approx(8.154414069380586e+307, rel=1e-15)
    assert (got["A8"], got["A9"]) == ("#NUM!", 105)
    assert got["A10"] == pytest.approx(0.27067056647322535, rel=1e-14)
    assert got["A11"] == pytest.approx(0.22404180765538775, rel=1e-14)  # P(x=2 | 3)
    assert got["A12"] == pytest.approx(0.4060058497098381, rel=1e-14)   # P(x<=1 | 2)
    assert got["A13"] == "#NUM!"
    # Excel saved #NUM! for FACTDOUBLE(-1.1) and 1 for FACTDOUBLE(-1) in formulas'
    # test.xlsx ('MATH & TRIG'!T31, V31): the sign is read before truncating
    assert (got["A14"], got["A15"], got["A16"]) == ("#NUM!", 1, "#NUM!")


def test_comparison_down_a_column_is_at_15_digits(tmp_path):
    """The column run's numpy comparison agrees with the cell's: =A1+0.2=B1 over rows
    holding 0.1 and 0.3 is TRUE in every row, as in Excel; a real difference stays."""
    cells = {}
    for r in range(1, 31):
        cells[f"A{r}"], cells[f"B{r}"] = 0.1, 0.3 if r % 3 else 0.31
        cells[f"C{r}"] = f"=A{r}+0.2=B{r}"
        cells[f"D{r}"] = f"=A{r}+0.2<B{r}"
    got = recalc(tmp_path, cells)
    for r in range(1, 31):
        assert got[f"C{r}"] is bool(r % 3)
        assert got[f"D{r}"] is (not r % 3)


def test_randbetween_is_a_whole_number(tmp_path):
    """RANDBETWEEN returns an integer between bottom and top (Microsoft's page), and
    #NUM! when bottom is above top."""
    cells = {f"A{r}": "=RANDBETWEEN(1,6)" for r in range(1, 41)}
    cells["B1"] = "=RANDBETWEEN(5,1)"
    cells["B2"] = "=RANDBETWEEN(1.5,2.5)"
    got = recalc(tmp_path, cells)
    assert all(float(got[f"A{r}"]).is_integer() and 1 <= got[f"A{r}"] <= 6
               for r in range(1, 41))
    assert got["B1"] == "#NUM!"
    assert got["B2"] == 2


# ---------------------------------------------------------------------- text ----
# A number joined to text is written as Excel's General format (15 significant digits);
# CHAR/CODE in Windows-1252; TRIM; TEXTJOIN.
TEXT_DATA = {"A1": "a", "A2": None, "A4": 5}
TEXT = {
    "sum_as_text": '=(0.1+0.2)&""',
    "big_as_text": '=1E20&""',
    "sixteen_digits": '=2^50&""',
    "third_as_text": '=1/3&""',
    "len_of_third": "=LEN(1/3)",
    "concatenate": '=CONCATENATE(0.1+0.2,"x")',
    "left_of_number": "=LEFT(123.456,5)",
    "logical_as_text": '=TRUE&""',
    "integer_as_text": '=9000&" bytes"',
    "negative_as_text": '=-0.5&""',
    "char_euro": "=CHAR(128)",
    "char_a": "=CHAR(65)",
    "char_zero": "=CHAR(0)",
    "code_euro": '=CODE("€")',
    "code_outside_1252": '=CODE("Ā")',
    "code_of_number": "=CODE(1)",
    "code_empty": '=CODE("")',
    "trim_inner": '=TRIM("  a   b  c ")',
    "textjoin_ignore": '=TEXTJOIN(",",TRUE,A1:A4)',
    "textjoin_keep": '=TEXTJOIN(",",FALSE,A1:A4)',
    "textjoin_delimiters": '=TEXTJOIN({"-","+"},TRUE,1,2,3)',
    "small_as_text": '=1E-05&""',
    "small_digits_as_text": '=0.0000692442674613868&""',
    "smaller_as_text": '=-1.28233995888454E-06&""',
    "search_in_small": '=SEARCH(1,1E-05)',
}
TEXT_EXPECTED = {
    "sum_as_text": "0.3", "big_as_text": "1E+20", "sixteen_digits": "1.12589990684262E+15",
    "third_as_text": "0.333333333333333", "len_of_third": 17, "concatenate": "0.3x",
    "left_of_number": "123.4", "logical_as_text": "TRUE", "integer_as_text": "9000 bytes",
    "negative_as_text": "-0.5", "char_euro": "€", "char_a": "A", "char_zero": "#VALUE!",
    "code_euro": 128, "code_outside_1252": 63, "code_of_number": 49,
    "code_empty": "#VALUE!", "trim_inner": "a b c", "textjoin_ignore": "a,5",
    "textjoin_keep": "a,,,5", "textjoin_delimiters": "1-2+3",
    # decimals down to 1E-5, as the IM functions write their parts (formulas' test.xlsx
    # ENGINEERING!S35 "0.0000692442674613868", V39 "2.24044486393732E-06"); poi's
    # FormulaEvalTestData EverythingTests!H1216, SEARCH(B8,C8) of 1 in 1E-05, is 7
    "small_as_text": "0.00001", "small_digits_as_text": "0.0000692442674613868",
    "smaller_as_text": "-1.28233995888454E-06", "search_in_small": 7,
}


@pytest.fixture(scope="module")
def text(tmp_path_factory):
    data = {k: v for k, v in TEXT_DATA.items() if v is not None}
    return cases(tmp_path_factory, TEXT, data, "text")


@pytest.mark.parametrize("case", list(TEXT))
def test_excel_numbers_as_text_and_text_functions(text, case):
    """Each formula of TEXT gives what Excel gives (A1 "a", A2 and A3 empty, A4 5)."""
    assert same(text[case], TEXT_EXPECTED[case])


# ---------------------------------------------------------------------- VALUE ----
# Text read as a number, date or time as Excel (en-US) reads it; never today's date.
PARSE = {
    "thousands": '=VALUE("1,234")',
    "bad_grouping": '=VALUE("1,23")',
    "currency": '=VALUE("$1,234.5")',
    "percent": '=VALUE("50%")',
    "parentheses": '=VALUE("(5)")',
    "exponent": '=VALUE("1e3")',
    "spaces": '=VALUE(" 12 ")',
    "noon": '=VALUE("12:00")',
    "three_pm": '=VALUE("3 PM")',
    "past_24h": '=VALUE("25:00")',
    "fraction_of_second": '=VALUE("12:00:00.5")',
    "iso_date": '=VALUE("2024-01-05")',
    "date_and_time": '=VALUE("2024-01-01 12:00")',
    "not_a_day": '=DATEVALUE("2024-02-30")',
    "month_name": '=DATEVALUE("1-Jan-2024")',
    "long_month": '=DATEVALUE("January 5, 2024")',
    "us_date": '=DATEVALUE("1/5/2024")',
    "two_digit_year": '=DATEVALUE("1/5/29")',
    "two_digit_year_1900s": '=DATEVALUE("1/5/30")',
    "leap_day_1900": '=DATEVALUE("1900-02-29")',
    "date_ignores_time": '=DATEVALUE("2024-01-05 12:00")',
    "time_ignores_date": '=TIMEVALUE("2024-01-01 6:00 PM")',
    "timevalue": '=TIMEVALUE("2:24 AM")',
    "value_of_logical": "=VALUE(TRUE)",
    "datevalue_of_number": "=DATEVALUE(45000)",
    "not_text": '=VALUE("abc")',
    "text_in_arithmetic": '="1,234"*2',
}
PARSE_EXPECTED = {
    "thousands": 1234, "bad_grouping": "#VALUE!", "currency": 1234.5, "percent": 0.5,
    "parentheses": -5, "exponent": 1000, "spaces": 12, "noon": 0.5, "three_pm": 0.625,
    "past_24h": 25 / 24, "fraction_of_second": 0.5 + 0.5 / 86400, "iso_date": 45296,
    "date_and_time": 45292.5, "not_a_day": "#VALUE!", "month_name": 45292,
    "long_month": 45296, "us_date": 45296, "two_digit_year": 47123,
    "two_digit_year_1900s": 10963, "leap_day_1900": 60, "date_ignores_time": 45296,
    "time_ignores_date": 0.75, "timevalue": 0.1, "value_of_logical": "#VALUE!",
    "datevalue_of_number": "#VALUE!", "not_text": "#VALUE!", "text_in_arithmetic": 2468,
}


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    return cases(tmp_path_factory, PARSE, {}, "parse")


@pytest.mark.parametrize("case", list(PARSE))
def test_excel_reads_text_as_numbers_dates_and_times(parsed, case):
    """Each formula of PARSE gives what Excel gives: numbers with separators, currency,
    percent; dates in the 1900 system (serial 60 is Excel's 29 February 1900); times as
    a fraction of a day with no date added, so the result never depends on today."""
    expected = PARSE_EXPECTED[case]
    if isinstance(expected, float):
        assert parsed[case] == pytest.approx(expected, rel=1e-15)
    else:
        assert same(parsed[case], expected)


# --------------------------------------------------------------- writing back ----
def test_text_results_read_back_unchanged(tmp_path):
    """A text result is cached so that Excel reads back the very text: a CR as
    ``_x000D_`` (a raw CR in XML is read as LF) and a literal ``_x0041_`` as
    ``_x005F_x0041_`` (else it reads as "A"), as Excel itself writes them (ECMA-376
    Part 1, 22.9.2.19 ST_Xstring). Read back with the engine's reader, which unescapes
    as Excel does."""
    from zvmplan_addin import xlsx as xlsxio
    from zvmplan_addin.xlsx.cellxml import escape_text
    from zvmplan_addin.xlsx.sheet import unescape_ooxml

    formulas = {"A1": '="a"&CHAR(13)&"b"', "A2": '="_x0041_"', "A3": '="x_x00"&"41_y"',
                "A4": '="a"&CHAR(10)&"b"', "A5": '=CHAR(1)&"_x005F_"',
                "A6": '="_X0041_ and _x12_"'}
    texts = {"A1": "a\rb", "A2": "_x0041_", "A3": "x_x0041_y", "A4": "a\nb",
             "A5": "\x01_x005F_", "A6": "_X0041_ and _x12_"}
    recalc(tmp_path, formulas)
    with zipfile.ZipFile(tmp_path / "book_out.xlsx") as z:
        raw = z.read("xl/worksheets/sheet1.xml")
    with xlsxio.safe_open_xlsx(tmp_path / "book_out.xlsx") as pkg:
        sheet = xlsxio.read_workbook(pkg).sheets[0]
    for ref, text in texts.items():
        r, c = int(ref[1:]), 1
        assert sheet.cached[(r, c)] == text, ref
        assert unescape_ooxml(escape_text(text)) == text
    assert b"<v>a_x000D_b</v>" in raw and b"<v>_x005F_x0041_</v>" in raw


# ----------------------------------------------------------------- functions ----
def test_unichar_as_excel_and_a_surrogate_is_an_error(tmp_path):
    """Microsoft's UNICHAR page: a partial surrogate (U+D800..U+DFFF) gives #N/A, 0 and
    numbers past U+10FFFF give #VALUE!, and the number is truncated. Before, the engine
    returned the lone surrogate itself and ``calc`` failed writing it ("this is a bug")."""
    got = recalc_cells(tmp_path, {"A1": "=UNICHAR(55296)", "A2": "=UNICHAR(57343)",
                                  "A3": "=UNICHAR(65.9)", "A4": "=UNICHAR(0)",
                                  "A5": "=UNICHAR(1114112)", "A6": "=UNICHAR(9731)",
                                  "A7": "=UNICHAR(-1)", "A8": '=UNICHAR("66")'})
    assert got == {"A1": "#N/A", "A2": "#N/A", "A3": "A", "A4": "#VALUE!",
                   "A5": "#VALUE!", "A6": "\u2603", "A7": "#VALUE!", "A8": "B"}


def test_substitute_of_empty_text_and_a_negative_rept(tmp_path):
    """SUBSTITUTE with an empty old_text leaves the text as it is: Excel saved
    "testblankmatch" for ``SUBSTITUTE("testblankmatch","","!",1)`` in Apache POI's
    FormulaEvalTestData_Copy.xlsx (EverythingTests!P1312); formulas answered #VALUE!
    there and "xaxbxcx" for ``SUBSTITUTE("abc","","x")``. REPT with a negative count is
    #VALUE! (LibreOffice agrees), 0 gives "" and 2.9 repeats twice."""
    got = recalc(tmp_path, {
        "A1": '=SUBSTITUTE("testblankmatch","","!",1)', "A2": '=SUBSTITUTE("abc","","x")',
        "A3": '=SUBSTITUTE("abc","","x",0)', "A4": '=SUBSTITUTE("a-b-c","-","+",2)',
        "A5": '=REPT("ab",-1)', "A6": '=LEN(REPT("ab",0))', "A7": '=REPT("ab",2.9)'})
    assert got == {"A1": "testblankmatch", "A2": "abc", "A3": "#VALUE!", "A4": "a-b+c",
                   "A5": "#VALUE!", "A6": 0, "A7": "abab"}


def test_search_reads_excels_wildcards(tmp_path):
    """Microsoft's SEARCH page: in find_text "a question mark matches any single character;
    an asterisk matches any sequence of characters", and a tilde before either finds it
    literally; the search ignores case and starts at start_num. formulas searched for
    the characters literally: SEARCH("a*c","xabc") was #VALUE! where Excel gives 2.
    A number is searched as Excel shows it in General format: 0.1+0.2 is "0.3" (formulas
    searched Python's "0.30000000000000004" and found a 4), 1E+20 "1E+20". Without a
    wildcard SEARCH is otherwise as before (the corpus's SEARCH cells, saved by Excel)."""
    got = recalc_cells(tmp_path, {
        "A1": "xabc", "A2": "a*b", "A3": "Printer",
        "B1": '=SEARCH("a*c",A1)', "B2": '=SEARCH("?C",A1)', "B3": '=SEARCH("~*",A2)',
        "B4": '=SEARCH("B?",A1,3)', "B5": '=SEARCH("z*",A1)', "B6": '=SEARCH("*",A1,2)',
        "B7": '=SEARCH("b?",A1,4)', "B8": '=SEARCH("N",A3)', "B9": '=SEARCH("a*",A1,0)',
        "B10": '=FIND("a*c",A1)', "B11": '=SEARCHB("p?I",A3)',
        "B12": '=ISNUMBER(SEARCH("*INT*",A3))', "A4": "=0.1+0.2",
        "B13": '=SEARCH("4",A4)', "B14": '=SEARCH(".3",A4)', "B15": '=SEARCH("e+2",1E+20)'})
    assert {k: v for k, v in got.items() if k.startswith("B")} == {
        "B1": 2, "B2": 3, "B3": 2, "B4": 3, "B5": "#VALUE!", "B6": 2, "B7": "#VALUE!",
        "B8": 4, "B9": "#VALUE!", "B10": "#VALUE!", "B11": 1, "B12": True,
        "B13": "#VALUE!", "B14": 2, "B15": 2}


LOOKUPS_DATA = {"A1": "x", "A2": 1, "A3": "y", "A4": "x", "A5": 3,
                "B1": 10, "B2": 20, "B3": 30, "B4": 40, "B5": 50,
                # the header row of Apache POI's FormulaEvalTestData_Copy.xlsx
                # EverythingTests!C6:G6 (unsorted) and B6:H6 with a row under it
                "D1": "DOUBLE", "D2": "BLANK", "D3": "STRING", "D4": "REF",
                "D5": "AREA (rows)", "E1": "INTEGRAL", "F1": "DOUBLE", "G1": "BLANK",
                "H1": "STRING", "I1": "REF", "J1": "AREA (rows)", "E2": "a", "F2": "b",
                "G2": "c", "H2": "hit", "I2": "e", "J2": "f", "K2": "g"}
LOOKUPS = {
    "last_x_idiom": '=LOOKUP(2,1/(A1:A5="x"),B1:B5)',
    "last_number_idiom": "=MATCH(9.99E+307,A1:A5)",
    "last_text_idiom": '=MATCH("zzzz",A1:A5)',
    "unsorted_first_exact": '=MATCH(4.1,{4.1,"b","a",1.1})',
    "unsorted_second_exact": '=MATCH(4.1,{"b",4.1,"a",1.1})',
    "unsorted_not_found": "=MATCH(1.1,{4.1,2.1,3.1,1.1})",
    "unsorted_descending": '=MATCH(4.1,{4.1,"b","a",5.1},-1)',
    "descending_exact": "=MATCH(2.1,{4.1,2.1,3.1,1.1},-1)",
    "lookup_unsorted": '=LOOKUP(4,{4.1,2.1,3.1,1.1},{"L","ML","MR","R"})',
    "lookup_empty_text": '=LOOKUP(1,{1,"",3,4},{"L","ML","MR","R"})',
    "equal_text_ends": '=LOOKUP("DOUBLE",D1:D5,B1:B5)',
    "equal_text_first_probe": '=HLOOKUP("STRING",E1:K2,2,TRUE)',
    "descending": "=MATCH(3,{5,4,3,2,1},-1)",
    "descending_on_ascending": "=MATCH(0.5,{0;1;2;3;4},-1)",
    "descending_on_ascending_equal": "=MATCH(0,{0;1;2;3;4},-1)",
    "below_first": "=MATCH(0,{1,2})",
    "vlookup_between": "=VLOOKUP(35,B1:B5,1)",
    "exact": '=MATCH("B",{"a","b","c"},0)',
    "switch_case": '=SWITCH("a","A",1,2)',
    "switch_type": '=SWITCH(1,"1","text",1,"number")',
    "switch_default": "=SWITCH(3,1,10,2,20)",
}
LOOKUPS_EXPECTED = {
    "last_x_idiom": 40, "last_number_idiom": 5, "last_text_idiom": 4,
    "unsorted_first_exact": 4, "unsorted_second_exact": 2, "unsorted_not_found": "#N/A",
    "unsorted_descending": 1, "descending_exact": 2, "lookup_unsorted": "R",
    "lookup_empty_text": "L", "equal_text_ends": 10, "equal_text_first_probe": "hit", "descending": 3,
    "descending_on_ascending": "#N/A", "descending_on_ascending_equal": 1,
    "below_first": "#N/A", "vlookup_between": 30,
    "exact": 2, "switch_case": 1, "switch_type": "number",
    "switch_default": "#N/A",
}


@pytest.fixture(scope="module")
def lookups(tmp_path_factory):
    return cases(tmp_path_factory, LOOKUPS, LOOKUPS_DATA, "lookups")


@pytest.mark.parametrize("case", list(LOOKUPS))
def test_excel_approximate_lookups_and_switch(lookups, case):
    """Approximate MATCH/LOOKUP/VLOOKUP search by halving as Excel's do; the unsorted
    cases are those of formulas' own tests (test/test_cell.py), which hold Excel's
    answers; other types are passed over (the LOOKUP(2,1/(...)) and 9.99E+307 idioms
    find the last match); MATCH with -1 reads from the first value while they are not
    smaller (pycel's lookup.xlsx, saved by Excel: ``MATCH(0.5,{0;1;2;3;4},-1)`` #N/A,
    ``MATCH(0,...,-1)`` 1); equal text ends the search as an equal number does (Apache
    POI's FormulaEvalTestData_Copy.xlsx, saved by Excel: EverythingTests!E872
    ``LOOKUP("DOUBLE",C6:G6,C9:G9)`` is 1.1, the first column, and G716
    ``HLOOKUP("STRING",$B$6:$H$12,6,TRUE)`` the "STRING" column; the search went on to
    the right and answered the blank after "BLANK", 0, and "blanksIncl");
    SWITCH compares text without regard to case."""
    assert same(lookups[case], LOOKUPS_EXPECTED[case])


def test_lookup_wildcards_read_a_tilde_as_countif_does(tmp_path):
    """Microsoft's "Using wildcard characters in searches": "~ (tilde) followed by ?, *,
    or ~" finds "a question mark, asterisk, or tilde" -- in MATCH, VLOOKUP, HLOOKUP and
    XLOOKUP/XMATCH (match mode 2) as in COUNTIF. ``MATCH("gamma~~x",...)`` finds the
    text gamma~x (LibreOffice 7.4 agrees on every MATCH/VLOOKUP/HLOOKUP case here);
    formulas' own pattern kept ``~~`` as two tildes and answered #N/A."""
    got = recalc(tmp_path, {
        "A1": "Zeta", "A2": "alpha", "A3": "gamma~x", "A4": "a*b", "A5": "a?c",
        "A6": "a~b", "B1": 10, "B2": 20, "B3": 30, "B4": 40, "B5": 50, "B6": 60,
        "C1": '=MATCH("gamma~~x",A1:A6,0)', "C2": '=VLOOKUP("gamma~~x",A1:B6,2,FALSE)',
        "C3": '=MATCH("a~*b",A1:A6,0)', "C4": '=MATCH("a~?c",A1:A6,0)',
        "C5": '=MATCH("a~~b",A1:A6,0)', "C6": '=COUNTIF(A1:A6,"gamma~~x")',
        "C7": '=XLOOKUP("gamma~~x",A1:A6,B1:B6,"none",2)',
        "C8": '=XMATCH("a~*b",A1:A6,2,-1)', "C9": '=XMATCH("a*",A1:A6,2,-1)',
        "C10": '=MATCH("A*C",A1:A6,0)', "C11": '=XLOOKUP("q*",A1:A6,B1:B6,"none",2)'})
    assert got == {"C1": 3, "C2": 30, "C3": 4, "C4": 5, "C5": 6, "C6": 1, "C7": 30,
                   "C8": 4, "C9": 6, "C10": 5, "C11": "none"}


# Excel's values, from PhpSpreadsheet's tests/data/Calculation/DateTime/YEARFRAC.php
# (MIT licence): (expected, start, end, basis)
YEARFRAC_EXCEL = [
    (0.025, "2007-1-1", "2007-1-10", 0), (0.02465753424658, "2007-1-1", "2007-1-10", 1),
    (1.0, "2007-1-1", "2007-12-31", 0), (0.9972602739726, "2007-1-1", "2007-12-31", 1),
    (1.01111111111111, "2007-1-1", "2007-12-31", 2),
    (0.99722222222222, "2007-1-1", "2007-12-31", 4),
    (1.49658002735978, "2007-1-1", "2008-7-1", 1), (1.4986301369863, "2007-1-1", "2008-7-1", 3),
    (0.15833333333333, "2007-1-1", "2007-2-28", 0),
    (0.08611111111111, "2007-1-31", "2007-3-1", 0),
    (0.08055555555556, "2007-1-31", "2007-3-1", 2),
    (0.16666666666667, "2007-1-31", "2007-3-31", 0),
    (0.66666666666667, "2008-1-1", "2008-9-1", 1),
    (1.16279069767442, "2007-2-1", "2008-4-1", 1),
    (47.525, "1960-12-19", "2008-6-28", 0), (47.5216225276567, "1960-12-19", "2008-6-28", 1),
    (25.5571892111134, "1982-12-7", "2008-6-28", 1),
    (0.163934426, "1960-01-01", "1960-03-01", 1), (1.086183311, "1960-01-01", "1961-02-01", 1),
    (0.841530055, "2020-02-28", "2021-01-01", 1), (0.838797814, "2023-04-28", "2024-02-29", 1),
    (0.838356164, "2023-04-28", "2024-02-28", 1), (0.99726776, "2020-02-28", "2021-02-27", 1),
    (1.002739726, "2022-04-27", "2023-04-28", 1), (0.084699454, "2024-04-27", "2024-05-28", 1),
    (2.085766423, "2023-04-27", "2025-05-28", 1), (0.161643836, "1963-03-01", "1963-01-01", 1),
]


def test_yearfrac_as_excel(tmp_path):
    """YEARFRAC of each basis gives Excel's value (to the digits the source holds); an
    end of February under basis 0 counts as the 30th when the start is one too."""
    cells = {f"A{k}": f'=YEARFRAC("{s}","{e}",{b})'
             for k, (_, s, e, b) in enumerate(YEARFRAC_EXCEL, start=1)}
    cells["B1"] = "=YEARFRAC(DATE(2023,2,28),DATE(2024,2,29),0)"
    cells["B2"] = "=YEARFRAC(DATE(2024,1,1),DATE(2024,2,1),5)"
    cells["B3"] = "=YEARFRAC(0,4382,1)"        # formulas' tests: serial 0 is in 1900
    cells["B4"] = "=YEARFRAC(0,345,TRUE)"
    got = recalc(tmp_path, cells)
    for k, (expected, s, e, b) in enumerate(YEARFRAC_EXCEL, start=1):
        assert got[f"A{k}"] == pytest.approx(expected, abs=1e-9), (s, e, b)
    assert got["B1"] == 1.0
    assert got["B2"] == "#NUM!"
    assert got["B3"] == 12 and got["B4"] == "#VALUE!"


def test_datedif_reads_its_unit_in_any_case(tmp_path):
    """Excel reads DATEDIF's unit in any case ("d" is "D"; Microsoft's DATEDIF page lists
    them in upper case): 9 days from 1 to 10 January 2024, 2 whole months to 10 March,
    2 months past the whole years to 10 March 2025; a start after the end and an unknown
    unit are #NUM!. formulas compared "D" before upper-casing, so "d" was #NUM!."""
    got = recalc(tmp_path, {
        "A1": '=DATEDIF(DATE(2024,1,1),DATE(2024,1,10),"d")',
        "A2": '=DATEDIF(DATE(2024,1,1),DATE(2024,1,10),"D")',
        "A3": '=DATEDIF(DATE(2024,1,1),DATE(2024,3,10),"m")',
        "A4": '=DATEDIF(DATE(2024,1,1),DATE(2025,3,10),"yM")',
        "A5": '=DATEDIF(DATE(2024,1,10),DATE(2024,1,1),"d")',
        "A6": '=DATEDIF(DATE(2024,1,1),DATE(2024,1,10),"x")'})
    assert got == {"A1": 9, "A2": 9, "A3": 2, "A4": 2, "A5": "#NUM!", "A6": "#NUM!"}


def test_datedif_md_and_days360_at_the_end_of_a_month(tmp_path):
    """Excel's values in PhpSpreadsheet's tests/data/Calculation/DateTime/DATEDIF.php and
    DAYS360.php (MIT licence), LibreOffice agreeing: DATEDIF "MD" counts from the start's
    day in the month before the end's, so it is -2 from 31 January to 1 March 2007
    (Microsoft's DATEDIF page: "MD" "may result in a negative number") and 20 from 25
    December 2007 to 17 March 2010; DAYS360's US method makes a start on the last day of
    February the 30th before it reads the end's 31st: 29 February to 31 March 2000 is
    30 (33 from 28 February 2000, not the last day; 31 with the European method).
    formulas answered 1, 22 and 31."""
    got = recalc(tmp_path, {
        "A1": '=DATEDIF("2007-1-31","2007-3-1","MD")',
        "A2": '=DATEDIF("2007-12-25","2010-3-17","MD")',
        "A3": '=DATEDIF("2007-1-1","2007-1-10","md")',
        "A4": '=DATEDIF(DATE(2023,12,31),DATE(2025,1,1),"MD")',
        "A5": '=DAYS360("2000-2-29","2000-3-31")',
        "A6": '=DAYS360("2000-2-28","2000-3-31")',
        "A7": '=DAYS360("2000-2-29","2000-3-31",TRUE)',
        "A8": "=DAYS360(DATE(2023,2,28),DATE(2023,3,31))",
        "A9": '=DAYS360("2007-1-31","2007-3-1")', "A10": '=DAYS360("2007-1-1","2007-2-28")'})
    assert got == {"A1": -2, "A2": 20, "A3": 9, "A4": 1, "A5": 30, "A6": 33, "A7": 31,
                   "A8": 30, "A9": 31, "A10": 57}


def test_hour_minute_second_are_one_clock_reading(tmp_path):
    """SECOND is "an integer in the range 0 (zero) to 59" (Microsoft's SECOND page): the
    time of day is rounded to the nearest second once and HOUR, MINUTE and SECOND read
    that one clock time, the one TEXT(x,"hh:mm:ss") shows -- 59.6 seconds after
    midnight is 0:01:00. formulas floored hours and minutes but rounded seconds and
    answered SECOND 60 beside MINUTE 0. Whole-second times read as before
    (PhpSpreadsheet's HOUR/MINUTE/SECOND.php cases agree)."""
    got = recalc(tmp_path, {
        "A1": "=TIME(0,0,59)+0.6/86400", "A2": "=TIME(0,0,59)+0.4/86400",
        "B1": "=SECOND(A1)", "B2": "=MINUTE(A1)", "B3": '=TEXT(A1,"hh:mm:ss")',
        "B4": "=SECOND(A2)", "B5": "=MINUTE(A2)", "B6": "=HOUR(0.1+0.2)",
        "B7": "=MINUTE(0.1+0.2)", "B8": "=SECOND(0.2339930556)",
        "B9": "=HOUR(TIME(23,59,59)+0.6/86400)", "B10": "=HOUR(-0.5)",
        "B11": '=SECOND("11-Nov-1918 11:15:35")'})
    assert {k: v for k, v in got.items() if k.startswith("B")} == {
        "B1": 0, "B2": 1, "B3": "00:01:00", "B4": 59, "B5": 0, "B6": 7, "B7": 12,
        "B8": 57, "B9": 0, "B10": "#NUM!", "B11": 35}


def test_an_empty_cell_compares_as_false_beside_a_logical_value(tmp_path):
    """Excel compares an empty cell with TRUE/FALSE as FALSE: Apache POI's
    FormulaEvalTestData_Copy.xlsx (saved by Excel) holds TRUE for EverythingTests!N35
    ``=FALSE=D7``, D7 empty. Beside a number it is 0 and beside text "" as before;
    COUNTIF(...,FALSE) still counts only the cells that hold FALSE. formulas read the
    empty cell as 0, which is below every logical value, so ``=A1=FALSE`` was FALSE."""
    got = recalc(tmp_path, {
        "A2": False, "A3": True,
        "B1": "=A1=FALSE", "B2": "=FALSE=A1", "B3": "=A1<>FALSE", "B4": "=A1<TRUE",
        "B5": "=A1>FALSE", "B6": "=A1=0", "B7": '=A1=""', "B8": "=A1=TRUE",
        "B9": "=SUMPRODUCT(--(A1:A3=FALSE))", "B10": "=COUNTIF(A1:A3,FALSE)",
        "B11": "=IF(A1=FALSE,\"off\",\"on\")"})
    assert got == {"B1": True, "B2": True, "B3": False, "B4": True, "B5": False,
                   "B6": True, "B7": True, "B8": False, "B9": 2, "B10": 1, "B11": "off"}


def test_text_where_a_logical_value_is_wanted(tmp_path):
    """Excel reads the text "TRUE"/"FALSE" (any case) as a logical value where IF and NOT
    want one, any other text as #VALUE!: Apache POI's FormulaEvalTestData_Copy.xlsx
    (saved by Excel) holds "A" for EverythingTests!M732 ``IF("tRue","A","B")``, and
    formulas' test.xlsx #VALUE! for ``NOT(I20)`` with I20 the text "0" (LOGICAL!X20).
    AND, OR and XOR pass text over, given directly too: Excel 365 saved TRUE for
    ``AND(TRUE,"0")`` (formulas' test.xlsx LOGICAL!AT3). formulas answered #VALUE! for
    IF("tRue",..)."""
    got = recalc(tmp_path, {
        "A1": "x", "A2": "TRUE", "A3": "0",
        "B1": '=IF("tRue","A","B")', "B2": '=IF("FALSE",1,0)', "B3": '=IF("yes",1,0)',
        "B4": '=AND(TRUE,"0")', "B5": "=AND(A1,TRUE)", "B6": "=IF(A2,1,0)",
        "B7": '=NOT("TRUE")', "B8": "=NOT(A3)", "B9": '=AND(1/0,"x")', "B10": "=OR(A1)"})
    assert got == {
        "B1": "A", "B2": 0, "B3": "#VALUE!", "B4": True, "B5": True, "B6": 1,
        "B7": False, "B8": "#VALUE!", "B9": "#DIV/0!", "B10": "#VALUE!"}


def test_workday_from_a_day_off(tmp_path):
    """Excel's WORKDAY counts from a start that is itself a weekend day or a holiday:
    SheetJS's formula_stress_test.xlsx (saved by Excel) holds ``WORKDAY(C20,C26)`` 41605
    for a Sunday start (9 June 2013) and 123 days, and ClosedXML's
    functions-excel-2010.xlsx holds, from Tuesday 11 March 2014 with holidays 16 and 20
    March, 4 April and 1 January, ``WORKDAY.INTL(F44,24,,G44:G47)`` 41745 (a weekend left
    out is 1), 41740 with weekend 13 (Tuesday off: the start is a day off) and 41754
    with "0101010". The first working day after the start is day 1 (before it for
    negative days), 0 days is the start itself, and days are truncated (Microsoft's
    WORKDAY page). formulas answered #VALUE! for every start on a day off and #NUM!
    for a weekend left out."""
    got = recalc(tmp_path, {
        "G1": "=DATE(2014,3,16)", "G2": "=DATE(2014,4,4)", "G3": "=DATE(2014,3,20)",
        "G4": "=DATE(2014,1,1)", "F1": "=DATE(2014,3,11)",
        "A1": "=WORKDAY(DATE(2013,6,9),123)",
        "A2": "=WORKDAY.INTL(F1,24,,G1:G4)", "A3": "=WORKDAY.INTL(F1,24,13,G1:G4)",
        "A4": '=WORKDAY.INTL(F1,24,"0101010",G1:G4)',
        "A5": "=WORKDAY(DATE(2024,3,2),1)",      # Saturday -> Monday 4 March 2024
        "A6": "=WORKDAY(DATE(2024,3,2),-1)",     # -> Friday 1 March
        "A7": "=WORKDAY(DATE(2024,3,2),0)",      # the start itself
        "A8": "=WORKDAY(DATE(2024,3,2),2.7)",    # 2 days: Tuesday 5 March
        "A9": "=WORKDAY(DATE(2024,12,25),1,DATE(2024,12,25))",  # a holiday start
        "A10": "=WORKDAY.INTL(F1,24,0)", "A11": '=WORKDAY.INTL(F1,1,"1111111")',
        "A12": "=WORKDAY(DATE(2024,3,4),5)"})    # a Monday: as before
    assert {k: v for k, v in got.items() if k.startswith("A")} == {
        "A1": 41605, "A2": 41745, "A3": 41740, "A4": 41754, "A5": 45355, "A6": 45352,
        "A7": 45353, "A8": 45356, "A9": 45652, "A10": "#NUM!", "A11": "#VALUE!",
        "A12": 45362}


#: apache poi's test-data/spreadsheet/FormulaEvalTestData_Copy.xlsx (Apache License 2.0),
#: sheet EverythingTests: the cells its row 180 averages (D8:D16 are empty)
POI_AVERAGE_CELLS = {
    "B7": 0, "C7": 0, "B8": 1, "C8": 1e-05, "B9": 2, "C9": 1.1, "B10": 534, "C10": 1.00001,
    "B11": 9999999999, "C11": 2.99999, "B12": -9999999999, "C12": 999999.99999, "B13": -534,
    "C13": -999999.99999, "B14": -2, "C14": -2.99999, "B15": -1, "C15": -1.00001,
    "B16": True, "C16": -1.1, "B17": False, "C17": -1e-05}


def test_average_adds_left_to_right_as_excel(tmp_path):
    """Excel's AVERAGE is the left-to-right sum of the numbers over their count: poi's
    EverythingTests!D180 ``=AVERAGE(B7:C15,B16:C17,D8:D16)`` over 20 numbers that nearly
    cancel (TRUE/FALSE in a range are passed over) is -4.089355473190933e-09 as Excel
    saved it; numpy's pairwise mean gave 2.3161457843812586e-08. AVERAGEA and AVERAGEIF
    add the same way (AVERAGEA counts TRUE as 1 and FALSE as 0: 22 values)."""
    got = recalc(tmp_path, {**POI_AVERAGE_CELLS,
                            "D180": "=AVERAGE(B7:C15,B16:C17,D8:D16)",
                            "E180": "=AVERAGEA(B7:C15,B16:C17)",
                            "F180": '=AVERAGEIF(B7:C17,"<>0")'})
    numbers = [v for v in POI_AVERAGE_CELLS.values() if type(v) in (int, float)]
    total = 0.0
    for v in numbers:  # row by row, left to right
        total += v
    total_a = 0.0
    for v in POI_AVERAGE_CELLS.values():  # AVERAGEA: TRUE and FALSE in their places
        total_a += float(v)
    assert got["D180"] == -4.089355473190933e-09 == total / 20
    assert got["E180"] == total_a / 22
    nonzero = [v for v in numbers if v != 0]
    assert got["F180"] == sum(nonzero) / len(nonzero)


def test_sumproduct_reads_text_in_its_arrays_as_zero(tmp_path):
    """Microsoft's SUMPRODUCT page: "SUMPRODUCT treats non-numeric array entries as if
    they were zeros" -- numeric text in a cell too: with A1 the text "5", A2 3, B1 2,
    B2 4, ``SUMPRODUCT(A1:A2,B1:B2)`` is 12 (LibreOffice agrees; formulas read "5" as 5
    and gave 22), ``SUMPRODUCT(A1:A2)`` 3, and an array constant's text is 0 too; an
    operator inside coerces the text as it does anywhere (``(A1:A2)*B1:B2``: 22);
    arrays of other sizes are #VALUE!."""
    got = recalc(tmp_path, {"A1": "5", "A2": 3, "B1": 2, "B2": 4,
                            "C1": "=SUMPRODUCT(A1:A2,B1:B2)", "C2": "=SUMPRODUCT(A1:A2)",
                            "C3": '=SUMPRODUCT({"5",3},{2,4})',
                            "C4": "=SUMPRODUCT((A1:A2)*B1:B2)",
                            "C5": "=SUMPRODUCT(A1:A2,B1:B3)", "C6": "=SUMPRODUCT(A1:B2)"})
    assert {k: v for k, v in got.items() if k.startswith("C")} == {
        "C1": 12, "C2": 3, "C3": 12, "C4": 22, "C5": "#VALUE!", "C6": 9}


def test_percentile_and_quartile_pass_over_text_in_their_data(tmp_path):
    """Excel passes over text and TRUE/FALSE in PERCENTILE's and QUARTILE's data range,
    as in its other statistical functions (LibreOffice agrees: over 1.5, "5", "x", 3, -2
    PERCENTILE(...,0.5) is 1.5 and QUARTILE(...,1) -0.25); they were #VALUE!. k is read
    as before: "0.5" given or in a cell is 0.5, beyond 0..1 is #NUM!."""
    got = recalc(tmp_path, {"A1": 1.5, "A2": "5", "A3": "x", "A5": 3, "A6": -2, "A7": True,
                            "B1": "0.5",
                            "C1": "=PERCENTILE(A1:A7,0.5)", "C2": "=QUARTILE(A1:A7,1)",
                            "C3": "=PERCENTILE.INC(A1:A7,0.25)", "C4": "=QUARTILE.EXC(A1:A7,2)",
                            "C5": "=PERCENTILE(A1:A7,B1)", "C6": "=PERCENTILE(A1:A7,2)",
                            "C7": "=PERCENTILE.EXC(A1:A7,0.5)", "C8": "=QUARTILE.INC(A1:A7,3)"})
    assert [got[f"C{k}"] for k in range(1, 9)] == [1.5, -0.25, -0.25, 1.5, 1.5, "#NUM!",
                                                   1.5, 2.25]


def test_wrap_pads_with_a_real_error(tmp_path):
    """WRAPROWS/WRAPCOLS pad the last row or column with #N/A (Microsoft's pages), an
    error ISERROR/ISNA see and the file holds as an error, not the text "#N/A"."""
    got = recalc(tmp_path, {
        "A1": "=ISERROR(INDEX(_xlfn.WRAPROWS({1,2,3},2),2,2))",
        "A2": "=ISNA(INDEX(_xlfn.WRAPCOLS({1,2,3},2),2,2))",
        "A3": '=INDEX(_xlfn.WRAPROWS({1,2,3},2,"x"),2,2)',
        "A4": "=INDEX(_xlfn.WRAPROWS({1,2,3},2),2,1)",
        "A5": "=_xlfn.WRAPROWS({1,2,3},0)",
        "A6": "=ISTEXT(INDEX(_xlfn.WRAPROWS({1,2,3},2),2,2))"})
    assert got == {"A1": True, "A2": True, "A3": "x", "A4": 3, "A5": "#NUM!", "A6": False}


BASES = {
    # the examples of Microsoft's page of each function
    '=DEC2BIN(9,4)': "1001", "=DEC2BIN(-100)": "1110011100", "=DEC2HEX(100,4)": "0064",
    "=DEC2HEX(-54)": "FFFFFFFFCA", "=DEC2OCT(-100)": "7777777634",
    '=HEX2BIN("F",8)': "00001111", '=HEX2BIN("FFFFFFFE00")': "1000000000",
    '=HEX2DEC("A5")': 165, '=HEX2DEC("FFFFFFFF5B")': -165,
    '=OCT2DEC("7777777533")': -165, '=OCT2HEX("7777777533")': "FFFFFFFF5B",
    '=BIN2DEC("1111111111")': -1, "=BIN2DEC(1100100)": 100,
    '=BIN2OCT("1111111111")': "7777777777", '=BIN2HEX("1110",6)': "00000E",
    # a negative result ignores places; errors of the pages' "Remarks"
    "=DEC2BIN(-1,2)": "1111111111", '=BIN2OCT("1111111111",3)': "7777777777",
    "=DEC2BIN(9,2)": "#NUM!", "=DEC2BIN(512)": "#NUM!", "=DEC2BIN(-513)": "#NUM!",
    "=DEC2BIN(9,-1)": "#NUM!", '=DEC2BIN("abc")': "#VALUE!", '=DEC2BIN(9,"a")': "#VALUE!",
    "=DEC2BIN(TRUE)": "#VALUE!", '=HEX2BIN("FFFFFFFDFF")': "#NUM!",
    '=HEX2BIN("200")': "#NUM!", '=HEX2DEC("G")': "#NUM!", '=BIN2DEC("2")': "#NUM!",
    '=BIN2DEC("11111111111")': "#NUM!", "=DEC2OCT(536870912)": "#NUM!",
}


def test_base_conversions_and_their_errors(tmp_path):
    """DEC2BIN, HEX2BIN, BIN2OCT, ... give the values and errors of Microsoft's pages."""
    cells = {f"A{k}": f for k, f in enumerate(BASES, start=1)}
    got = recalc(tmp_path, cells)
    for k, (formula, expected) in enumerate(BASES.items(), start=1):
        assert same(got[f"A{k}"], expected), formula


def test_a_range_given_to_a_base_conversion_is_converted_cell_by_cell(tmp_path):
    """HEX2DEC(C1:E1) converts each cell: a dynamic array F, 1, A -> 15, 1, 10 (so a
    legacy cell outside columns C:E has no value to intersect and is #VALUE!, as Excel
    shows in formulas' test.xlsx ENGINEERING!AH26). formulas took the first value."""
    got = recalc(tmp_path, {"C1": "F", "D1": "1", "E1": "A", "G1": "=HEX2DEC(C1:E1)",
                            "E2": "=HEX2DEC(C1:E1)"})
    assert got["G1"] == "#VALUE!" and got["E2"] == 10
    # COMBIN of a range likewise: one value per cell, never the first cell's alone
    got = recalc(tmp_path, {"A1": 2, "A2": 3, "B1": "=COMBIN(4,A1:A2)",
                            "B2": "=COMBIN(4,A1:A2)"}, "combin")
    assert got["B1"] == 6 and got["B2"] == 4


COMPLEX_TEXT = {
    # Excel's values in formulas' test.xlsx ENGINEERING!R33, R39, S35, V39 (the
    # arguments written out): each part with 15 significant digits
    '=IMCOS("7+25j")': "27142327967.109-23653126953.379j",
    '=IMEXP("7+25j")': "1086.98587021701-145.141317733255j",
    '=_xlfn.IMCOT("13+5j")': "0.0000692442674613868-1.00005873951153j",
    '=IMEXP("-13+25j")': "2.24044486393732E-06-2.99158552811404E-07j",
    '=COMPLEX(0,-1)': "-i", '=COMPLEX(1E+20,0.5)': "1E+20+0.5i", '=COMPLEX(0,0)': "0",
    '=IMSUM("1+2i","0.1+0.2i")': "1.1+2.2i",
}


def test_complex_numbers_written_with_15_significant_digits(tmp_path):
    """The IM functions write each part with 15 significant digits as Excel does, the
    unit alone for a coefficient of 1 and no zero part (Microsoft's COMPLEX page:
    COMPLEX(0,-1) "-i")."""
    cells = {f"A{k}": f for k, f in enumerate(COMPLEX_TEXT, start=1)}
    got = recalc(tmp_path, cells)
    for k, (formula, expected) in enumerate(COMPLEX_TEXT.items(), start=1):
        assert got[f"A{k}"] == expected, formula


TEXT_FORMATS = {
    # the examples of Microsoft's TEXT page
    ("=TEXT(1234.567,\"$#,##0.00\")"): "$1,234.57",
    '=TEXT(0.285,"0.0%")': "28.5%",
    '=TEXT(4.34,"# ?/?")': "4 1/3",
    '=TRIM(TEXT(0.34,"# ?/?"))': "1/3",
    '=TEXT(12200000,"0.00E+00")': "1.22E+07",
    '=TEXT(1234567898,"[<=9999999]###-####;(###) ###-####")': "(123) 456-7898",
    '=TEXT(1234,"0000000")': "0001234",
    "=TEXT(123456,\"##0° 00' 00''\")": "12° 34' 56''",
    # 15 digits, sections, scaling, elapsed time, fractions of a second
    '=TEXT(0.285,"0.00")': "0.29",
    '=TEXT(-5,"0;(0)")': "(5)",
    '=TEXT(0,"0;-0;""zero""")': "zero",
    '=TEXT(12345678,"#,##0,,")': "12",
    '=TEXT(1.5,"[h]:mm")': "36:00",
    '=TEXT(90.5/1440,"[m]:ss")': "90:30",
    '=TEXT(0.75,"h:mm:ss.00")': "18:00:00.00",
    '=TEXT(0.5,"h:mm AM/PM")': "12:00 PM",
    '=TEXT(45292.75,"dddd, mmmm d, yyyy h:mm")': "Monday, January 1, 2024 18:00",
    '=TEXT(45292,"mmm-yy")': "Jan-24",
    '=TEXT("1.5","0.00")': "1.50",
    '=TEXT("abc","0.00")': "abc",
    '=TEXT(0.5,"General")': "0.5",
    '=TEXT(-1234.5,"General")': "-1234.5",
    # formulas' own tests (Excel's answers): AM/PM in capitals, letters as themselves,
    # exponent digits, a format mixing digits and a date code even for text
    '=TEXT(45141.2,"A/P a/P A/p a/p am/pm")': "A a A a AM",
    '=TEXT(2,"[<=1]x;[=2]xx;xxx")': "xx",
    '=TEXT(0.000122,"0.00E-##")': "1.22E-4",
    '=TEXT(12200000,"0.00E-00")': "1.22E07",
    '=TEXT(1234,"5000700")': "5012734",
    '=TEXT(10.93,"#"" ""°F"" """)': "11 °F ",
    '=TEXT(130.33332,"hm hmm hmmm hmmmm")': "759 759 7May 7May",
    '=TEXT("a","#mm")': "#VALUE!",
    '=TEXT(1.23,"#""°F""""")': "#VALUE!",
    '=TEXT(1234567890,"0,## ##, ##")': "1,234,56 7,8 90",  # formulas' test.xlsx
    '=TEXT(1/3,"General")': "0.333333333",
}


def test_text_formats(tmp_path):
    """TEXT writes numbers, dates, times, elapsed times and fractions as Excel does
    (Microsoft's TEXT page for the first group); a format it does not read is #VALUE!,
    never a guess."""
    cells = {f"A{k}": f for k, f in enumerate(TEXT_FORMATS, start=1)}
    got = recalc(tmp_path, cells)
    for k, (formula, expected) in enumerate(TEXT_FORMATS.items(), start=1):
        assert got[f"A{k}"] == expected, formula


def test_linest_statistics_in_excels_layout(tmp_path):
    """LINEST(y, x1:x4, TRUE, TRUE) over Microsoft's LINEST page, example 4 (office
    buildings) gives the page's table: coefficients m4..m1, b; their standard errors in
    the same order; r2 and se_y; F and df; ss_reg and ss_resid; #N/A elsewhere."""
    from openpyxl.worksheet.formula import ArrayFormula
    cols = ([2310, 2333, 2356, 2379, 2402, 2425, 2448, 2471, 2494, 2517, 2540],
            [2, 2, 3, 3, 2, 4, 2, 2, 3, 4, 2],
            [2, 2, 1.5, 2, 3, 2, 1.5, 2, 3, 4, 3],
            [20, 12, 33, 43, 53, 23, 99, 34, 23, 55, 22],
            [142000, 144000, 151000, 150000, 139000, 169000, 126000, 142900, 163000,
             169000, 149000])
    wb = openpyxl.Workbook()
    ws = wb.active
    for j, col in enumerate(cols, start=1):
        for i, v in enumerate(col, start=1):
            ws.cell(row=i, column=j, value=v)
    ws["G1"] = ArrayFormula("G1:K5", "=LINEST(E1:E11,A1:D11,TRUE,TRUE)")
    ws["G8"] = ArrayFormula("G8:H9", "=LINEST(E1:E11,A1:A11,FALSE,TRUE)")
    wb.save(tmp_path / "linest.xlsx")
    assert cli(["calc", str(tmp_path / "linest.xlsx"), "-o", str(tmp_path / "out.xlsx")]) == 0
    o = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True).active
    got = [[o.cell(row=r, column=c).value for c in range(7, 12)] for r in range(1, 6)]
    page = [[-234.2371645, 2553.21066, 12529.76817, 27.64138737, 52317.83051],
            [13.26801148, 530.6691519, 400.0668382, 5.429374042, 12237.3616],
            [0.996747993, 970.5784629, "#N/A", "#N/A", "#N/A"],
            [459.7536742, 6, "#N/A", "#N/A", "#N/A"],
            [1732393319, 5652135.316, "#N/A", "#N/A", "#N/A"]]
    for row_got, row_page in zip(got, page):
        for g, p in zip(row_got, row_page):
            assert g == p if isinstance(p, str) else g == pytest.approx(p, rel=1e-9)
    assert o["H9"].value == "#N/A"  # no constant: no standard error of b


def test_linest_and_trend_as_excel_fits(tmp_path):
    """Excel's own values of pycel's tests/fixtures/stats.xlsx (Stats sheet): ``const``
    left out is TRUE ("If const is TRUE or omitted, b is calculated normally"); an x
    column collinear with the constant is removed, with m 0 and b the mean of y
    (Microsoft: "Removed X columns ... 0 coefficients in addition to 0 se values"); an
    exact fit has ss_resid 0 and F #NUM!; TREND over a row of y gives a row, one value
    per new x; a y range one cell longer than x is #REF! before its empty cell is #VALUE!.
    """
    from openpyxl.worksheet.formula import ArrayFormula
    wb = openpyxl.Workbook()
    ws = wb.active
    rows = {3: [1, 2.1, 3.1, 4.1, 5.1], 4: [-2, -4, -7, -9, -11], 5: [1, 3, 6, 9, 12],
            6: [1, 1, 1, 1, 1]}
    for r, values in rows.items():
        for c, v in enumerate(values, start=10):
            ws.cell(row=r, column=c, value=v)
    for r, (b, c) in enumerate([(1, 2), (2, 3), (3, 4)], start=33):
        ws.cell(row=r, column=2, value=b)
        ws.cell(row=r, column=3, value=c)
    ws["E2"], ws["F2"] = 2.5, 3.5
    ws["G3"] = ArrayFormula("G3:H3", "=LINEST(J5:N5,J6:N6)")
    ws["Q16"] = ArrayFormula("Q16:R20", "=LINEST(J3:N3,J4:N4,,TRUE)")
    ws["D45"] = ArrayFormula("D45:E49", "=LINEST(B33:B35,C33:C35,TRUE,TRUE)")
    ws["E8"] = ArrayFormula("E8:F8", "=TREND(J3:N3,J5:N5,E2:F2)")
    ws["E10"] = ArrayFormula("E10:F10", "=TREND(J5:N5,J6:N6,E2:F2)")
    ws["B28"] = ArrayFormula("B28", "=LINEST(B33:B36,C33:C35)")
    ws["B29"] = ArrayFormula("B29", "=LINEST(B33:B36,C33:C36)")
    wb.save(tmp_path / "fit.xlsx")
    assert cli(["calc", str(tmp_path / "fit.xlsx"), "-o", str(tmp_path / "out.xlsx")]) == 0
    o = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True).active

    def block(ref):
        return [[c.value for c in row] for row in o[ref]]
    assert block("G3:H3") == [[0, pytest.approx(6.2, rel=5e-15)]]
    excel = [[-0.4409774436090227, 0.16954887218045034],
             [0.01981575107847483, 0.14588484603131655],
             [0.9939787497182618, 0.1445327793643257],
             [495.2353929214176, 3], [10.345330827067666, 0.06266917293233057]]
    for got, want in zip(block("Q16:R20"), excel):
        assert got == pytest.approx(want, rel=5e-15)
    exact = block("D45:E49")
    assert exact[0] == [pytest.approx(1, rel=5e-15), pytest.approx(-1, rel=5e-15)]
    assert exact[1:] == [[0, 0], [1, 0], ["#NUM!", 1], [pytest.approx(2, rel=5e-15), 0]]
    assert block("E8:F8") == [[pytest.approx(1.7408629441624364, rel=5e-15),
                               pytest.approx(2.1027918781725887, rel=5e-15)]]
    assert block("E10:F10") == [[pytest.approx(6.2, rel=5e-15)] * 2]
    assert o["B28"].value == "#REF!" and o["B29"].value == "#VALUE!"


def test_scan_and_map_keep_errors_as_errors(tmp_path):
    """SCAN whose every step is an error (``SCAN("ciao",{1;3},LAMBDA(a,b,a+b^2))``)
    shows #VALUE! in both cells, the error itself: ISERROR sees it (Excel's values in
    formulas' test.xlsx LOGICAL!Y18:Y19); so does MAP's error step. Before, numpy turned
    an all-error result into the text "#VALUE!"."""
    got = recalc(tmp_path, {
        "A1": "ciao",
        "B1": "=_xlfn.SCAN(A1,{1;3},_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2))",
        "B3": "=ISERROR(B1)",
        "B4": "=ISERROR(INDEX(_xlfn.SCAN(A1,{1;3},_xlfn.LAMBDA(_xlpm.a,_xlpm.b,"
              "_xlpm.a+_xlpm.b^2)),2))",
        "C1": "=_xlfn.SCAN(1,{1;3},_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2))",
        "D1": '=_xlfn.MAP({"x"},_xlfn.LAMBDA(_xlpm.a,_xlpm.a+1))', "D2": "=ISERROR(D1)",
        "E1": "=INDEX(_xlfn.MAP({1,2;3,3},_xlfn.LAMBDA(_xlpm.a,_xlpm.a+1)),2,2)"})
    assert got["B3"] is True and got["B4"] is True
    assert got["C1"] == 2 and got["D2"] is True and got["E1"] == 4


def test_skew_in_excels_order_of_operations(tmp_path):
    """SKEW and SKEW.P of data whose skewness is 0 in exact arithmetic show Excel's own
    rounding residue (the values Excel saved in formulas' test.xlsx, STATISTICAL!AH92,
    AH93, R92, R93), and Microsoft's SKEW example (3,4,5,2,3,4,5,6,4,7: 0.359543) and
    SKEW.P example (0.303193); fewer than 3 numbers is #DIV/0!."""
    cells = {f"A{k}": v for k, v in enumerate([0, 0.1, 0.2, 0.3, -0.1], start=1)}
    cells.update({f"B{k}": v for k, v in enumerate([3, 4, 5, 2, 3, 4, 5, 6, 4, 7], start=1)})
    cells.update({"C1": "=SKEW(A1:A5)", "C2": "=_xlfn.SKEW.P(A1:A5)",
                  "C3": "=SKEW(A1:A2,A2:A3,A3:A4)", "C4": "=_xlfn.SKEW.P(A1:A2,A2:A3,A3:A4)",
                  "C5": "=SKEW(B1:B10)", "C6": "=_xlfn.SKEW.P(B1:B10)", "C7": "=SKEW(1,2)"})
    got = recalc(tmp_path, cells)
    assert got["C1"] == -1.1102230246251565e-15 and got["C2"] == -6.217248937900876e-16
    assert got["C3"] == -1.199040866595169e-15 and got["C4"] == -5.921189464667501e-16
    assert round(got["C5"], 6) == 0.359543 and round(got["C6"], 6) == 0.303193
    assert got["C7"] == "#DIV/0!"


def test_isref_is_true_for_every_reference(tmp_path):
    """ISREF is TRUE for a reference whatever the cell holds (a number, text, an error,
    nothing) and FALSE for a value (Microsoft's IS functions page; Excel's values in
    formulas' test.xlsx INFORMATION!S17:AE17, where a row of ISREF(cell) formulas gave
    FALSE after the first)."""
    cells = {"A1": 0, "B1": 1, "C1": "x", "D1": "=1/0"}
    cells.update({f"{c}3": f"=ISREF({c}1)" for c in "ABCDEFGH"})
    cells.update({"A4": '=ISREF("")', "B4": "=ISREF(0)", "C4": "=ISREF(A1:B2)"})
    got = recalc(tmp_path, cells)
    assert all(got[f"{c}3"] is True for c in "ABCDEFGH")
    assert (got["A4"], got["B4"], got["C4"]) == (False, False, True)


def test_yearfrac_over_ranges_gives_one_value_per_pair(tmp_path):
    """YEARFRAC over two arrays pairs them cell by cell (30/360 from 2020-01-01 to
    2022-07-01 is 2.5, from 2021-01-01 to 2023-01-01 is 2); over two references of several
    cells it is #VALUE! where they are evaluated whole (an Analysis ToolPak function:
    Excel 365's array formula 'DATE & TIME'!AH27:AW27 of formulas' test.xlsx, all
    #VALUE!; :mod:`zvmplan_addin.recalc.excel.toolpak`), and a legacy cell outside their
    columns has nothing to intersect and shows #VALUE! as in Excel ('DATE & TIME'!AG27);
    formulas gave the first pair's value."""
    got = recalc(tmp_path, {"A1": "=DATE(2020,1,1)", "B1": "=DATE(2021,1,1)",
                            "A2": "=DATE(2022,7,1)", "B2": "=DATE(2023,1,1)",
                            "A4": "=INDEX(YEARFRAC(A1:B1+0,A2:B2+0),1,1)",
                            "B4": "=INDEX(YEARFRAC(A1:B1+0,A2:B2+0),1,2)",
                            "C4": "=INDEX(YEARFRAC(A1:B1,A2:B2),1,1)",
                            "D4": "=YEARFRAC(A1:B1,A2:B2)"})
    assert got["A4"] == 2.5 and got["B4"] == 2 and got["C4"] == "#VALUE!" and \
        got["D4"] == "#VALUE!"


def test_time_and_timevalue_round_as_excel(tmp_path):
    """TIME divides the total seconds by 86400 once (``TIME(32767.99,-1,67)``
    0.29174768518510064) and TIMEVALUE of a date and time takes the fraction of the whole
    serial (``TIMEVALUE("1/1/1987 05:00 AM")`` 0.20833333333212067): Excel's values in
    formulas' test.xlsx 'DATE & TIME'!R19 and X20. Microsoft's TIME page: arguments are
    truncated, a negative time or an argument above 32767 is #NUM!, TIME(0,1,0) is a
    minute; TIMEVALUE("2:24 AM") 0.1."""
    got = recalc(tmp_path, {
        "A1": "=TIME(32767.99,-1,67)", "A2": "=TIME(0,1,0)", "A3": "=TIME(0,-1,0)",
        "A4": "=TIME(0.9,0.9,0.9)", "A5": "=TIME(32768,0,0)",
        "A6": '=TIMEVALUE("1/1/1987 05:00 AM")', "A7": '=TIMEVALUE("2:24 AM")'})
    assert got == {"A1": 0.29174768518510064, "A2": 60 / 86400, "A3": "#NUM!", "A4": 0,
                   "A5": "#NUM!", "A6": 0.20833333333212067, "A7": 0.1}


def test_areas_of_a_cell_in_a_filled_row(tmp_path):
    """AREAS of one cell is 1, also for a formula filled along a row (Excel's values in
    formulas' test.xlsx LOOKUP!Y4:AF4; the engine's column path hands the cell over as
    a slice of a column of references, where formulas answered #VALUE!); AREAS of a
    union of two ranges is 2 (Microsoft's AREAS page: AREAS((B2:D4,E5,F6:I9)) is 3)."""
    cells = {f"{c}1": 1 for c in "ABCDEFGHIJKL"}
    cells.update({f"{c}3": f"=AREAS({c}1)" for c in "ABCDEFGHIJKL"})
    cells["A4"] = "=AREAS((B2:D4,E5,F6:I9))"
    got = recalc(tmp_path, cells)
    assert [got[f"{c}3"] for c in "ABCDEFGHIJKL"] == [1] * 12 and got["A4"] == 3


VDB_CASES = {
    # Microsoft's VDB page (cost 2400, salvage 300, life 10 years), to its 2 decimals
    "=VDB(2400,300,3650,0,1)": 1.32, "=VDB(2400,300,120,0,1)": 40.00,
    "=VDB(2400,300,10,0,1)": 480.00, "=VDB(2400,300,120,6,18)": 396.31,
    "=VDB(2400,300,120,6,18,1.5)": 311.81, "=VDB(2400,300,10,0,0.875,1.5)": 315.00,
    # Excel's values in xlcalculator's VDB.xlsx, every digit: whole periods with the
    # switch to the straight line, and fractional ones laid from the start's fraction
    "=VDB(575000,5000,10,9,10,1.5)": 49192.265625,
    "=VDB(575000,5000,10,3,5,1.5,FALSE)": 102160.546875,
    "=VDB(1,0,14,0.5,1.5,1.25,FALSE)": 0.08529974489795919,
    "=VDB(1,0,14,2.5,3.5,1.25,FALSE)": 0.07074765193864536,
    "=VDB(1,0,14,3.5,4.5,1.25,FALSE)": 0.06872629045468406,
    "=VDB(1,0,14,13.5,14,1.25,FALSE)": 0.03436314522734203,
    "=VDB(1,0,14,13,14,1.25,FALSE)": 0.06866789938377948,
    "=VDB(1,0,14,5,4)": "#NUM!", "=VDB(1,0,14,0,15)": "#NUM!",
}


def test_vdb_as_excel_including_fractional_periods(tmp_path):
    """VDB gives Microsoft's examples and Excel's saved values (module
    :mod:`zvmplan_addin.recalc.excel.depreciation`): formulas gave #VALUE! for the last
    period with the switch (VDB.xlsx F16) and prorated whole periods for fractional
    ones."""
    cells = {f"A{k}": f for k, f in enumerate(VDB_CASES, start=1)}
    got = recalc(tmp_path, cells)
    for k, (formula, expected) in enumerate(VDB_CASES.items(), start=1):
        value = got[f"A{k}"]
        if isinstance(expected, str) or formula.startswith("=VDB(2400"):
            assert (round(value, 2) if not isinstance(value, str) else value) == \
                expected, formula
        else:
            assert value == pytest.approx(expected, rel=5e-15), formula


def test_sin_and_cos_near_zero_show_excels_residue(tmp_path):
    """Excel reduces SIN/COS arguments with the x87's 64-bit pi: COS(RADIANS(90)) is
    6.1257422745431E-17 and SIN(RADIANS(180)) 1.22514845490862E-16, COS(RADIANS(630))
    -4.28801959218017E-16 (Excel's values in Apache POI's 47813.xlsx, Numbers!C92, B182,
    C632); elsewhere the ordinary values (SIN(1) 0.8414709848078965)."""
    got = recalc(tmp_path, {"A1": "=COS(RADIANS(90))", "A2": "=SIN(RADIANS(180))",
                            "A3": "=COS(RADIANS(630))", "A4": "=SIN(1)"})
    assert got["A1"] == pytest.approx(6.1257422745431e-17, rel=5e-15)
    assert got["A2"] == pytest.approx(1.22514845490862e-16, rel=5e-15)
    assert got["A3"] == pytest.approx(-4.28801959218017e-16, rel=5e-15)
    assert got["A4"] == 0.8414709848078965


def test_mode_mode_sngl_and_mode_mult(tmp_path):
    """MODE.MULT gives every most frequent value in the order they occur, as a column
    (Microsoft's MODE.MULT example: 1,2,3,4,3,2,1,2,3,5,6,1 -> 1;2;3; formulas gave
    #VALUE!); the legacy MODE takes a direct value only if it is a number and a single
    empty cell is #VALUE! (Excel's values in NPOI's FormulaEvalTestData_Copy.xlsx,
    EverythingTests!H936, K936, M936); no value twice is #N/A; MODE.SNGL passes over
    "" and an argument left empty is #VALUE! (formulas' test.xlsx STATISTICAL!S71,
    AG69)."""
    data = [1, 2, 3, 4, 3, 2, 1, 2, 3, 5, 6, 1]
    cells = {f"A{k}": v for k, v in enumerate(data, start=1)}
    cells.update({"B1": "=INDEX(_xlfn.MODE.MULT(A1:A12),1)",
                  "C1": "=INDEX(_xlfn.MODE.MULT(A1:A12),2)",
                  "C2": "=INDEX(_xlfn.MODE.MULT(A1:A12),3)",
                  "D1": '=MODE(A1,"1",2,3)', "D2": "=MODE(A2,2,F9)",
                  "D3": '=MODE("1",1,#DIV/0!,2,3)', "D4": '=_xlfn.MODE.SNGL(A1:A12,"")',
                  "D5": "=_xlfn.MODE.MULT(A1:A12,)", "D6": "=MODE(1,2,3)",
                  "D7": "=MODE(5.6,4,4,3,2,4)"})
    got = recalc(tmp_path, cells)
    assert (got["B1"], got["C1"], got["C2"]) == (1, 2, 3)
    assert got["D1"] == got["D2"] == got["D3"] == got["D5"] == "#VALUE!"
    assert (got["D4"], got["D6"], got["D7"]) == (1, "#N/A", 4)


def test_negative_numbers_in_array_constants(tmp_path):
    """{1,-1,2} holds three numbers: SUM 2, COUNT 3, MAX({-5,-1,-2}) -1 (formulas hands
    the -1 over as an array inside the array; it was skipped as not a number)."""
    got = recalc(tmp_path, {"A1": "=SUM({1,-1,2})", "A2": "=COUNT({1,-1,2})",
                            "A3": "=MAX({-5,-1,-2})", "A4": '=COUNTIF({1,-1,2},"<0")'})
    assert got == {"A1": 2, "A2": 3, "A3": -1, "A4": 1}


GROUPS = {
    # the expected layouts of formulas' own tests (test/test_cell.py), which hold
    # Excel's answers; and the common forms with a range and _xleta.SUM
    '=_xlfn.GROUPBY({"r1";2;2;3},{"v1";-1;5;3},_xleta.AVERAGE)':
        [[2, 2], [3, 3], ["Total", 7 / 3]],
    '=_xlfn.GROUPBY({"r1";2;2;3},{"v1";1;5;3},_xleta.SUM,3)':
        [["r1", "v1"], [2, 6], [3, 3], ["Total", 9]],
    "=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},_xleta.SUM)":
        [["", 1, 2, "Total"], [2, 1, 2, 3], [3, "", 3, 3], ["Total", 1, 5, 6]],
    "=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x,1)))":
        [["", 1, 2, "Total"], [2, 2, 3, 4], [3, "", 4, 4], ["Total", 2, 6, 7]],
    '=_xlfn.PIVOTBY({"r1";2;2;3},{"c1";1;1;2},{"v1";1;5;3},_xleta.SUM,1,1,1,1,1,{"a";1;0;2})':
        [["", 1, 2, "Total"], [2, 1, "", 1], [3, "", 3, 3], ["Total", 1, 3, 4]],
    "=_xlfn.GROUPBY(A1:A4,B1:B4,_xleta.SUM)": [["a", 5], ["B", 2], ["c", 3], ["Total", 10]],
    "=_xlfn.GROUPBY(A1:A4,B1:B4,_xleta.COUNT,,0,-2)": [["a", 2], ["B", 1], ["c", 1]],
    "=_xlfn.GROUPBY(A1:A4,B1:B4,_xleta.MAX,,-1)": [["Total", 4], ["a", 4], ["B", 2],
                                                    ["c", 3]],
}
GROUP_DATA = {"A1": "a", "A2": "B", "A3": "c", "A4": "A", "B1": 1, "B2": 2, "B3": 3, "B4": 4}


def test_groupby_and_pivotby_common_forms(tmp_path):
    """GROUPBY/PIVOTBY with one field column, an eta function or a LAMBDA: groups
    (text keys without regard to case) sorted ascending, a Total of all the values,
    "" where a PIVOTBY row and column meet no value; sort and total options."""
    from openpyxl.worksheet.formula import ArrayFormula
    wb = openpyxl.Workbook()
    ws = wb.active
    for ref, v in GROUP_DATA.items():
        ws[ref] = v
    anchors = []
    for k, (formula, table) in enumerate(GROUPS.items()):
        top = 10 + 6 * k
        ref = f"D{top}:{chr(ord('D') + len(table[0]) - 1)}{top + len(table) - 1}"
        ws[f"D{top}"] = ArrayFormula(ref, formula)
        anchors.append((top, table))
    wb.save(tmp_path / "groups.xlsx")
    assert cli(["calc", str(tmp_path / "groups.xlsx"), "-o", str(tmp_path / "out.xlsx")]) == 0
    o = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True).active
    for (top, table), formula in zip(anchors, GROUPS):
        got = [[o.cell(row=top + i, column=4 + j).value for j in range(len(table[0]))]
               for i in range(len(table))]
        got = [[("" if v is None else v) for v in line] for line in got]
        assert got == [[pytest.approx(v) if isinstance(v, float) else v for v in line]
                       for line in table], formula


def test_sequence_randarray_hyperlink(tmp_path):
    """SEQUENCE, RANDARRAY and HYPERLINK answer as Microsoft's pages say: SEQUENCE(2,3,
    10,-1) is {10,9,8;7,6,5}; RANDARRAY's whole numbers lie in [min, max]; HYPERLINK
    shows its friendly name, else the link."""
    got = recalc(tmp_path, {
        "A1": "=SUM(_xlfn.SEQUENCE(100))", "A2": "=INDEX(_xlfn.SEQUENCE(2,3,10,-1),2,3)",
        "A3": "=ROWS(_xlfn.SEQUENCE(4,2))", "A4": "=_xlfn.SEQUENCE(0)",
        "A5": '=HYPERLINK("https://example.com","label")',
        "A6": '=HYPERLINK("https://example.com")',
        "A7": "=_xlfn.LET(_xlpm.r,_xlfn.RANDARRAY(50,1,1,6,TRUE),"
              "SUM(--(_xlpm.r=INT(_xlpm.r))))",
        "A8": "=_xlfn.LET(_xlpm.r,_xlfn.RANDARRAY(50,1,1,6,TRUE),"
              "AND(MIN(_xlpm.r)>=1,MAX(_xlpm.r)<=6))",
        "A9": "=_xlfn.RANDARRAY(1,1,5,1)"})
    assert got == {"A1": 5050, "A2": 5, "A3": 4, "A4": "#VALUE!", "A5": "label",
                   "A6": "https://example.com", "A7": 50, "A8": True, "A9": "#VALUE!"}


def test_double_minus_coerces(tmp_path):
    """``--`` turns TRUE/FALSE and numeric text into numbers (the SUMPRODUCT(--(...))
    idiom counts the TRUEs), as a single minus does; a unary plus does not (+TRUE is
    TRUE in Excel); in a column run too."""
    cells = {"A1": "=--TRUE", "A2": "=+TRUE", "A3": "=---TRUE",
             "A4": "=SUMPRODUCT(--({1;2;3}>1))", "A5": '=--"1,234"', "A6": "=-+-TRUE",
             "A7": "=1--1", "A8": '=--"a"', "A9": "=SUM(--(B1:B20>10))"}
    for r in range(1, 21):
        cells[f"B{r}"] = r
        cells[f"C{r}"] = f"=--(B{r}>10)"
    got = recalc(tmp_path, cells)
    assert {k: got[k] for k in list(cells)[:9]} == {
        "A1": 1, "A2": True, "A3": -1, "A4": 2, "A5": 1234, "A6": 1, "A7": 2,
        "A8": "#VALUE!", "A9": 10}
    assert [got[f"C{r}"] for r in range(1, 21)] == [0] * 10 + [1] * 10
    assert all(type(got[f"C{r}"]) is not bool for r in range(1, 21))


def test_date_functions_read_text_as_value_does(tmp_path):
    """DAY, MONTH, YEAR, HOUR, SECOND, EOMONTH, PMT ... read a text argument as VALUE
    does: MONTH("2024-02-30") is #VALUE!, YEAR("1,234") is YEAR(1234) = 1903, DAY("12:30")
    is DAY(0.52) = 0, "5%" is 0.05."""
    got = recalc(tmp_path, {
        "A1": '=MONTH("2024-02-30")', "A2": '=YEAR("1,234")', "A3": '=DAY("12:30")',
        "A4": '=HOUR("12:30")', "A5": '=SECOND("12:30:45")', "A6": '=DAY("1/5/2024")',
        "A7": '=EOMONTH("2024-02-30",0)', "A8": '=EOMONTH("2024-01-15",1)',
        "A9": '=ROUND(PMT("5%",10,1000),6)'})
    assert got == {"A1": "#VALUE!", "A2": 1903, "A3": 0, "A4": 12, "A5": 45, "A6": 5,
                   "A7": "#VALUE!", "A8": 45351, "A9": -129.504575}


# Microsoft's example of the database functions (the DAVERAGE ... DVARP pages): the
# criteria in A1:F3, the database in A5:E11
DATABASE = {
    "A1": "Tree", "B1": "Height", "C1": "Age", "D1": "Yield", "E1": "Profit",
    "F1": "Height", "A2": '="=Apple"', "B2": ">10", "F2": "<16", "A3": '="=Pear"',
    "A5": "Tree", "B5": "Height", "C5": "Age", "D5": "Yield", "E5": "Profit",
    "K1": "Tree", "K2": "App",  # a text without operator: the trees beginning with "App"
}
for _r, _row in enumerate([("Apple", 18, 20, 14, 105), ("Pear", 12, 12, 10, 96),
                           ("Cherry", 13, 14, 9, 105), ("Apple", 14, 15, 10, 75),
                           ("Pear", 9, 8, 8, 76.8), ("Apple", 8, 9, 6, 45)], start=6):
    DATABASE.update({f"{c}{_r}": v for c, v in zip("ABCDE", _row)})
DATABASE_EXPECTED = {
    '=DCOUNT(A5:E11,"Age",A1:F2)': 1, '=DCOUNTA(A5:E11,"Profit",A1:F2)': 1,
    '=DMAX(A5:E11,"Profit",A1:A3)': 105, '=DMIN(A5:E11,"Profit",A1:B2)': 75,
    '=DSUM(A5:E11,"Profit",A1:A2)': 225, '=DSUM(A5:E11,"Profit",A1:F2)': 75,
    '=DPRODUCT(A5:E11,"Yield",A1:F2)': 10, '=DAVERAGE(A5:E11,"Yield",A1:B2)': 12,
    "=DAVERAGE(A5:E11,3,A5:E11)": 13, '=DSTDEV(A5:E11,"Yield",A1:A3)': 2.96647939,
    '=DSTDEVP(A5:E11,"Yield",A1:A3)': 2.65329983, '=DVAR(A5:E11,"Yield",A1:A3)': 8.8,
    '=DVARP(A5:E11,"Yield",A1:A3)': 7.04, '=DGET(A5:E11,"Yield",A1:A3)': "#NUM!",
    '=DGET(A5:E11,"Yield",A1:F2)': 10, '=DSUM(A5:E11,"Profit",K1:K2)': 225,
    '=DSUM(A5:E11,"Nothing",A1:A2)': "#VALUE!",
}


def test_database_functions(tmp_path):
    """DSUM, DCOUNT, DGET ... over Microsoft's example give its answers: rows of the
    criteria are OR, columns AND, "=Apple" matches Apple only."""
    cells = dict(DATABASE)
    cells.update({f"H{k}": f for k, f in enumerate(DATABASE_EXPECTED, start=1)})
    got = recalc(tmp_path, cells)
    for k, (formula, expected) in enumerate(DATABASE_EXPECTED.items(), start=1):
        value = got[f"H{k}"]
        if isinstance(expected, str):
            assert value == expected, formula
        else:
            assert value == pytest.approx(expected, rel=1e-8), formula


LACKING = {
    # the examples of Microsoft's page of each function
    "=COMBIN(8,2)": 28, "=COMBIN(2,8)": "#NUM!", "=COMBINA(4,3)": 20,
    "=COMBINA(10,3)": 220, "=QUOTIENT(5,2)": 2, "=QUOTIENT(4.5,3.1)": 1,
    "=QUOTIENT(-10,3)": -3, "=QUOTIENT(1,0)": "#DIV/0!", "=BASE(7,2)": "111",
    "=BASE(100,16)": "64", "=BASE(15,2,10)": "0000001111",
    "=DOLLAR(1234.567,2)": "$1,234.57", "=DOLLAR(-1234.567,-2)": "($1,200)",
    "=DOLLAR(-0.123,4)": "($0.1230)", "=DOLLAR(99.888)": "$99.89",
    # USDOLLAR, legacy: Excel's values in NPOI's FormulaEvalTestData_Copy.xlsx
    # (EverythingTests!D420, H420)
    "=USDOLLAR(0)": "$0.00", "=USDOLLAR(-1)": "($1.00)", '=USDOLLAR("x")': "#VALUE!",
    "=ROUND(SERIESSUM(PI()/4,0,2,{1,-0.5,0.041666667,-0.001388889}),8)": 0.70710321,
    # BAHTTEXT: Microsoft's example, and Excel's values in formulas' test.xlsx TEXT!R6:Y6
    "=BAHTTEXT(1234)": "หนึ่งพันสองร้อยสามสิบสี่บาทถ้วน", "=BAHTTEXT(0)": "ศูนย์บาทถ้วน",
    "=BAHTTEXT(157)": "หนึ่งร้อยห้าสิบเจ็ดบาทถ้วน", "=BAHTTEXT(65.8)": "หกสิบห้าบาทแปดสิบสตางค์",
    "=BAHTTEXT(-1)": "ลบหนึ่งบาทถ้วน", "=BAHTTEXT(TRUE)": "หนึ่งบาทถ้วน",
    '=BAHTTEXT("ciao")': "#VALUE!",
}


def test_functions_formulas_lacks(tmp_path):
    """COMBIN, COMBINA, QUOTIENT, BASE, DOLLAR and SERIESSUM give the examples of
    Microsoft's pages (#NAME? before); USDOLLAR is DOLLAR; BAHTTEXT writes Thai."""
    cells = {f"A{k}": f for k, f in enumerate(LACKING, start=1)}
    got = recalc(tmp_path, cells)
    for k, (formula, expected) in enumerate(LACKING.items(), start=1):
        assert got[f"A{k}"] == (pytest.approx(expected) if isinstance(expected, float)
                                else expected), formula


def test_toolpak_functions_refuse_a_range_of_several_cells(tmp_path):
    """Excel 365 saved #VALUE! in every cell of the array formulas ``=HEX2BIN(C26:J26)``,
    ``=HEX2DEC(C27:J27)``, ``=HEX2OCT(C28:J28)`` (ENGINEERING!AH26:AN28),
    ``=YEARFRAC(C27:E27,D27:F27,E27:G27)`` ('DATE & TIME'!AH27:AW27) and
    ``=MROUND(C45:G45,2)`` in formulas' test/test_files/test.xlsx: these Analysis ToolPak
    functions do not lift over a reference of several cells (an array they do:
    ``A2:D2+0``). In a legacy cell YEARFRAC's parameters are values, intersected with the
    cell's column (Microsoft's YEARFRAC page: start_date, end_date, basis)."""
    from openpyxl.worksheet.formula import ArrayFormula
    wb = openpyxl.Workbook()
    ws = wb.active
    for c, v in zip("ABCD", (1, 10, 11, 101)):
        ws[f"{c}1"] = v
    for c, v in zip("ABCD", (45000, 45100, 45200, 45300)):
        ws[f"{c}2"] = v
    arrays = {4: "=HEX2BIN(A1:D1)", 5: "=BIN2DEC(A1:D1)", 6: "=YEARFRAC(A2:D2,45500)",
              7: "=MROUND(A1:D1,2)", 8: "=YEARFRAC(A2:D2+0,45500)",
              9: '=HEX2DEC(A1:D1&"")'}
    for r, text in arrays.items():
        ws[f"A{r}"] = ArrayFormula(f"A{r}:D{r}", text)
    ws["B11"] = "=YEARFRAC(A2:D2,45500)"
    ws["F11"] = "=YEARFRAC(A2:D2,45500)"
    ws["A12"] = "=DEC2HEX(B1)"
    src = tmp_path / "in.xlsx"
    wb.save(src)
    from zvmplan_addin.cli import main as cli
    assert cli(["calc", str(src), "-o", str(tmp_path / "out.xlsx"), "-q"]) == 0
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True).active
    row = lambda r: [out.cell(r, c).value for c in range(1, 5)]  # noqa: E731
    for r in (4, 5, 6, 7):
        assert row(r) == ["#VALUE!"] * 4, arrays[r]
    # US 30/360: 15 Mar 2023 to 27 Jul 2024 is 360 + 4 x 30 + 12 = 492 days of 360
    assert row(8) == pytest.approx([492 / 360, 394 / 360, 296 / 360, 198 / 360], rel=1e-15)
    assert row(9) == [1, 16, 17, 257]
    assert out["B11"].value == pytest.approx(out.cell(8, 2).value)
    assert out["F11"].value == "#VALUE!"
    assert out["A12"].value == "A"


def test_xlookup_returns_the_row_of_a_wide_return_array(tmp_path):
    """``=XLOOKUP(B2,B5:B14,C5:D14)`` over C2:D2 shows the name and the department of the
    row found (POI's xlookup.xlsx, saved by Excel 365: "Dianne Pugh", "Finance"); the
    engine gave "Margo Hendrix" in both, formulas' element of the flattened array at the
    position. A horizontal lookup gives the column; not found, the if_not_found value
    (an empty cell's: 0; #N/A only when the argument is left out);
    a return array of another height is #VALUE!; one column as before."""
    from openpyxl.worksheet.formula import ArrayFormula
    wb = openpyxl.Workbook()
    ws = wb.active
    rows = [(4390, "Ned", "Marketing"), (8604, "Margo", "Sales"), (8389, "Dianne", "Finance")]
    for r, (k, name, dept) in enumerate(rows, start=5):
        ws[f"B{r}"], ws[f"C{r}"], ws[f"D{r}"] = k, name, dept
        ws.cell(10, r, k)
        ws.cell(11, r, name)
        ws.cell(12, r, dept)
    ws["B2"] = 8389
    ws["C2"] = ArrayFormula("C2:D2", "=_xlfn.XLOOKUP(B2,B5:B7,C5:D7)")
    ws["C3"] = ArrayFormula("C3:C4", "=_xlfn.XLOOKUP(8604,E10:G10,E11:G12)")
    ws["F2"] = ArrayFormula("F2:G2", '=_xlfn.XLOOKUP(1,B5:B7,C5:D7,"none")')
    ws["H2"] = ArrayFormula("H2:I2", "=_xlfn.XLOOKUP(8389,B5:B7,C5:D6)")
    ws["J2"] = "=_xlfn.XLOOKUP(8389,B5:B7,D5:D7)"
    ws["K2"] = ArrayFormula("K2:L2", "=_xlfn.XLOOKUP(1,B5:B7,C5:D7)")
    ws["M2"] = ArrayFormula("M2:N2", "=_xlfn.XLOOKUP(1,B5:B7,C5:D7,Z99)")  # Z99 empty
    src = tmp_path / "in.xlsx"
    wb.save(src)
    from zvmplan_addin.cli import main as cli
    assert cli(["calc", str(src), "-o", str(tmp_path / "out.xlsx"), "-q"]) == 0
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True).active
    got = [out[c].value for c in ("C2", "D2", "C3", "C4", "F2", "H2", "J2", "K2", "M2")]
    assert got == ["Dianne", "Finance", "Margo", "Sales", "none", "#VALUE!", "Finance", "#N/A",
                   0]

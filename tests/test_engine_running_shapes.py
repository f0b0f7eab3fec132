"""More cumulative shapes on the column path (issue 19): the running count of a row's own
text (``=COUNTIF($A$2:A9,A9)``, how a planner flags a repeated link or site name), the
running COUNTA and the running AVERAGE. Each is one pass down the rows, gives exactly the
values of the engine cell by cell (ZVMPLAN_ENGINE_CELLWISE=1; ZVMPLAN_ENGINE_CHECK finds
no column cell that differs from its own evaluation) and runs on the column path."""
from __future__ import annotations

import openpyxl
import pytest
import schedula as sh

from zvmplan_addin import recalc as engine
from zvmplan_addin.recalc.excel import criteria

from builders import checked_engine, column_letters_run, save, values_of

#: names as a planner types them: case differences, the dotless i and sharp s (Excel
#: compares text without regard to case), wildcard and operator characters, numeric
#: text, "=abc", an empty text (a formula's ""), TRUE, an error, an empty cell and numbers
A_VALUES = ["LPAR1", "lpar1", "Lpar2", "x*", "xy", "?", "~x", "LPAR1", "LİNK", "lınk",
            "link", "straße", "STRASSE", "12", 12, "=abc", "abc", "=\"\"", True, "=1/0", None,
            "<>a", "a", ">a", "lpar2", 12.000000000000001, "TRUE", "#N/A", "x*"]


def _book(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    last = len(A_VALUES) + 1
    for r, v in enumerate(A_VALUES, start=2):
        if v is not None:
            ws[f"A{r}"] = v
            if isinstance(v, str) and v not in ('=""', "=1/0"):
                ws[f"A{r}"].data_type = "s"  # typed text, "=abc" and "12" too
        ws[f"C{r}"] = [0.1, 0.2, "x", 0.7, None, 1e16, 1.0, -1e16, True][r % 9]
        ws[f"D{r}"] = f"=COUNTIF($A$2:A{r},A{r})"
        ws[f"E{r}"] = f"=COUNTA($A$2:A{r})"
        ws[f"F{r}"] = f"=AVERAGE(C$2:C{r})"
        ws[f"G{r}"] = f"=AVERAGE($A$2:A{r})"
        ws[f"H{r}"] = f'=COUNTIF(A$2:A{r},"lpar1")'
    ws[f"C{last + 1}"] = "end"
    return save(wb, path)


def _column_values(tmp_path, monkeypatch, path):
    """(the column path's output sheet, after asserting its cell values are those of
    the engine cell by cell)."""
    got = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        out = tmp_path / f"out{mode}.xlsx"
        engine.calc(path, out)
        got.append(values_of(out))
    column, cellwise = ([[c.value for c in row] for row in ws.iter_rows()] for ws in got)
    assert column == cellwise
    return got[0]


def test_running_countif_counta_and_average_as_cell_by_cell(tmp_path, monkeypatch):
    """Excel: COUNTIF with a text picks the text cells equal to it without regard to case
    ("LPAR1" and "lpar1"; "STRASSE" is "straße" casefolded); "x*" is a wildcard, so
    A30's own "x*" counts "x*" and "xy"; "~x" matches "x" only; "=abc" as a criterion is
    "abc"; "12" as a criterion is the number 12 and numeric text; "" picks empty cells
    and empty text; "<>a" every cell but "a". COUNTA counts every value but the empty
    cell (errors, "" and TRUE too). AVERAGE is the left-to-right sum of the numbers so
    far over their count (text and TRUE in a range passed over), #DIV/0! before the
    first number."""
    path = _book(tmp_path / "in.xlsx")
    ws = _column_values(tmp_path, monkeypatch, path)
    d = {r: ws[f"D{r}"].value for r in range(2, len(A_VALUES) + 2)}
    # LPAR1 lpar1 Lpar2 x* xy ? ~x LPAR1 LİNK lınk link straße STRASSE ("LİNK" casefolds
    # to "li̇nk", with a combining dot: not "link")
    assert [d[r] for r in range(2, 15)] == [1, 2, 1, 1, 1, 1, 0, 3, 1, 1, 2, 1, 2]
    assert d[26] == 2  # "lpar2": "Lpar2" too
    assert d[27] == 3  # 12.000000000000001 is 12 at 15 digits: "12", 12 and itself
    assert d[30] == 3  # "x*": "x*", "xy", "x*"
    assert ws["E21"].value == 20 and ws["E22"].value == 20  # A22 empty: not counted
    # C2.. is "x", 0.7, empty, 1e16, 1.0, -1e16, TRUE, 0.1, ...: added left to right
    assert ws["F2"].value == "#DIV/0!" and ws["F3"].value == 0.7
    assert ws["F7"].value == (0.7 + 1e16 + 1.0 + -1e16) / 4 != 0.7 / 4
    assert ws["G2"].value == "#DIV/0!" and ws["H30"].value == 3


def test_the_running_shapes_run_on_the_column_path(tmp_path, monkeypatch):
    """Every cell of D..H but each column's first runs on the column path, and
    ZVMPLAN_ENGINE_CHECK=1 finds none that differs from the cell's own evaluation."""
    e = checked_engine(_book(tmp_path / "in.xlsx"), monkeypatch)
    assert e.column_mismatches == []
    cols, runnable = column_letters_run(e)
    assert cols == set("DEFGH")
    assert e.columnar_cells == runnable >= 5 * (len(A_VALUES) - 2)


TRICKY = ["abc", "ABC", "Abc ", "ı", "i", "I", "İ", "i̇", "ß", "ss", "SS", "ẞ", "ς", "σ", "Σ",
          "K", "k", "K", "µ", "μ", "ſ", "s", "ǅ", "ǆ", "Ǆ", "ﬁ", "fi", "", "x", "1", "TRUE"]


@pytest.mark.parametrize("crit", ["abc", "=ı", "i", "İ", "ß", "=ss", "Σ", "K", "µ", "ſ", "ǅ",
                                  "ﬁ", "x"])
def test_a_plain_text_criterion_picks_its_key(crit):
    """A plain text criterion picks exactly the text cells whose key (casefolded, the
    dotless i read as i) is its own: the matcher every COUNTIF uses and the key the
    running COUNTIF counts by agree on letters whose case folding is not one to one."""
    key = criteria.text_equality_key(crit)
    assert key is not None
    match = criteria.matcher(crit)
    for v in TRICKY:
        assert match(v) == (criteria.text_key(v) == key), (crit, v)


@pytest.mark.parametrize("crit", ["a*", "?", "~x", "<>a", ">a", "12", "1/2/2024", "TRUE",
                                  "#N/A", "", "=", 5, True])
def test_other_criteria_have_no_text_key(crit):
    assert criteria.text_equality_key(crit) is None


#: (A, B, C) rows: keys in other cases, numbers and numeric text as keys, an error,
#: an empty cell and TRUE among the keys; numbers, text, TRUE, an error and an empty
#: cell among the values summed
KEYED_ROWS = [("lpar1", "x", 0.1), ("LPAR1", "X", 0.2), ("lpar2", "x", 0.7), (5, "y", 1e16),
              ("5", "y", 1.0), ("lpar1", "x", -1e16), (None, "x", 3.0), (True, "x", 4.0),
              ("lpar1", "x", "text"), ("=1/0", "x", 2.0), ("lpar2", "y", "=1/0"),
              ("lpar2", "x", 0.5), (5.000000000000001, "y", True), ("Lpar1", None, 0.25),
              ("lpar1", "x", None), ("a*", "x", 9.0), ("ab", "x", 8.0)]


def _keyed_book(path, rows=KEYED_ROWS):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r, (a, b, c) in enumerate(rows, start=2):
        for col, v in zip("ABC", (a, b, c)):
            if v is not None:
                ws[f"{col}{r}"] = v
                if v == "5":
                    ws[f"{col}{r}"].data_type = "s"
        ws[f"D{r}"] = f"=SUMIF($A$2:A{r},A{r},$C$2:C{r})"
        ws[f"E{r}"] = f"=COUNTIFS($A$2:A{r},A{r},$B$2:B{r},B{r})"
        ws[f"F{r}"] = f"=SUMIFS($C$2:C{r},$A$2:A{r},A{r},$B$2:B{r},B{r})"
        ws[f"G{r}"] = f"=AVERAGEIF($A$2:A{r},A{r},$C$2:C{r})"
        ws[f"H{r}"] = f"=AVERAGEIFS(C$2:C{r},A$2:A{r},A{r})"
        ws[f"I{r}"] = f"=SUMIF(A$2:A{r},A{r})"
    return save(wb, path)


def test_running_conditional_sums_and_counts_as_cell_by_cell(tmp_path, monkeypatch):
    """Excel: SUMIF/SUMIFS add the numbers of the rows every criterion picks, left to
    right (text and TRUE in the summed range passed over; an error picked is the
    answer); COUNTIFS counts the rows every criterion picks; AVERAGEIF(S) is that sum
    over the count of its numbers, #DIV/0! for none. A number criterion picks numbers
    and numeric text equal at 15 digits ("5" and 5.000000000000001 for 5); text picks
    text in any case; a criterion from an error or an empty cell, or a wildcard ("a*"),
    is left to the cells one by one. Each column gives the values cell by cell."""
    path = _keyed_book(tmp_path / "in.xlsx")
    ws = _column_values(tmp_path, monkeypatch, path)
    d = {r: ws[f"D{r}"].value for r in range(2, len(KEYED_ROWS) + 2)}
    assert d[3] == 0.1 + 0.2 and d[7] == 0.1 + 0.2 + -1e16  # lpar1 rows, left to right
    assert d[6] == 1e16 + 1.0  # 5 and "5"
    assert d[4] == 0.7 and d[12] == d[13] == "#DIV/0!"  # lpar2: C12's error from row 12 on
    assert ws["E3"].value == 2 and ws["E16"].value == 5  # lpar1/x, LPAR1/X, ..., lpar1/x
    assert ws["G4"].value == 0.7 and ws["H8"].value == "#DIV/0!"  # A8 empty: picks none
    assert ws["G10"].value == (0.1 + 0.2 + -1e16) / 3  # "text" in C10 not counted


def test_running_conditional_aggregates_run_on_the_column_path(tmp_path, monkeypatch):
    """With every criterion a number or plain text (the rows whose A or B is empty, or A
    TRUE, an error or a wildcard, left out: such a criterion sends its column cell by
    cell), each
    column runs on the column path and ZVMPLAN_ENGINE_CHECK=1 finds no cell that differs
    from its own evaluation."""
    keyed = [row for row in KEYED_ROWS if row[0] is not None and row[1] is not None
             and row[0] is not True and row[0] not in ("=1/0", "a*")]
    e = checked_engine(_keyed_book(tmp_path / "in.xlsx", keyed), monkeypatch)
    assert e.column_mismatches == []
    cols, runnable = column_letters_run(e)
    assert cols == set("DEFGHI")
    assert e.columnar_cells == runnable >= 6 * (len(keyed) - 2)


@pytest.mark.parametrize("crit", [5, 5.0, "5", "=5", " 5 ", "1/2/2024", "=0.30000000000000004",
                                  "abc", "=ABC"])
def test_an_equality_criterion_picks_its_key(crit):
    """A number, or a text reading as one (a date too), picks the numbers and numeric text
    equal to it at 15 significant digits; plain text the text of its key: the matcher
    and the key the running aggregates count by agree."""
    from zvmplan_addin.recalc.excel.numbers import round15
    from zvmplan_addin.recalc.excel.parse import number_from_text
    kind, key = criteria.equality_key(crit)
    match = criteria.matcher(crit)
    for v in [5, 5.000000000000001, 5.1, "5", "5.0", " 5", "abc", "ABC", 45293, "45293",
              0.3, 0.1 + 0.2, "2024-01-02", True, "", sh.EMPTY, "x"]:
        if kind == "n":
            x = v if type(v) in (int, float) else number_from_text(v) if type(v) is str \
                else None
            want = x is not None and round15(float(x)) == round15(key)
        else:
            want = type(v) is str and criteria.text_key(v) == key
        assert match(v) == want, (crit, v)


#: looked up down the column: names in other cases, numbers, numeric text, a wildcard
#: pattern, TRUE, an empty cell and an error
MATCH_VALUES = ["lpar1", "LPAR2", 5, "5", "lpar2", "Lpar1", "lp*", 5.0, True, None, "=1/0",
                "x?", "xy", 7, "lpar3", "LPAR3", 5]


def _match_book(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r, v in enumerate(MATCH_VALUES, start=2):
        if v is not None:
            ws[f"A{r}"] = v
            if v == "5":
                ws[f"A{r}"].data_type = "s"
        ws[f"B{r}"] = f"=MATCH(A{r},$A$2:A{r},0)"
        ws[f"C{r}"] = f'=IF(ISNA(MATCH(A{r},$A$1:A{r - 1},FALSE)),"new","repeat")'
    return save(wb, path)


def test_running_match_is_the_first_occurrence(tmp_path, monkeypatch):
    """Excel's exact MATCH answers the first position whose value matches (text without
    regard to case, a wildcard pattern matching text, the number 5 never the text "5",
    5 and 5.0 one number); over the rows from the first down to its own a value is
    found at its first occurrence, a wildcard pattern at the first text it matches.
    The column path gives the values cell by cell, and runs for every cell of B and C
    but each column's first."""
    path = _match_book(tmp_path / "in.xlsx")
    ws = _column_values(tmp_path, monkeypatch, path)
    b = [ws[f"B{r}"].value for r in range(2, len(MATCH_VALUES) + 2)]
    # lpar1 LPAR2 5 "5" lpar2 Lpar1 lp* 5.0 TRUE empty #DIV/0! x? xy 7 lpar3 LPAR3 5
    assert b[:9] == [1, 2, 3, 4, 2, 1, 1, 3, 9]
    assert b[10:] == ["#DIV/0!", 12, 13, 14, 15, 15, 3]  # "x?" matches itself
    c = [ws[f"C{r}"].value for r in range(2, len(MATCH_VALUES) + 2)]
    assert c[:8] == ["new", "new", "new", "new", "repeat", "repeat", "repeat", "repeat"]
    e = checked_engine(path, monkeypatch)
    assert e.column_mismatches == []
    cols, runnable = column_letters_run(e)
    assert cols == set("BC") and e.columnar_cells == runnable

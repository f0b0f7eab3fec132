"""More cumulative shapes on the column path (issue 19): the running count of a row's own
text (``=COUNTIF($A$2:A9,A9)``, how a planner flags a repeated link or site name), the
running COUNTA and the running AVERAGE. Each is one pass down the rows, gives exactly the
values of the engine cell by cell (ZVMPLAN_ENGINE_CELLWISE=1; ZVMPLAN_ENGINE_CHECK finds
no column cell that differs from its own evaluation) and runs on the column path."""
from __future__ import annotations

import openpyxl
import pytest

from zvmplan_addin import recalc as engine, xlsx as xlsxio
from zvmplan_addin.recalc.excel import criteria

from builders import save, values_of

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


def _values(tmp_path, monkeypatch, path, mode):
    monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
    out = tmp_path / f"out{mode}.xlsx"
    engine.calc(path, out)
    ws = values_of(out)
    return ws, [[c.value for c in row] for row in ws.iter_rows()]


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
    ws, column = _values(tmp_path, monkeypatch, path, "")
    _, cellwise = _values(tmp_path, monkeypatch, path, "1")
    assert column == cellwise
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
    from zvmplan_addin.recalc.engine import Engine
    path = _book(tmp_path / "in.xlsx")
    monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", "")
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    engine.install_functions()
    with xlsxio.safe_open_xlsx(path) as pkg:
        book = xlsxio.read_workbook(pkg)
    e = Engine(book)
    e.recalculate()
    assert e.column_mismatches == []
    groups = e._column_groups()
    cols = {e.n_label[int(i)].split("!")[1].rstrip("0123456789") for g in groups for i in g}
    assert cols == set("DEFGH")
    assert e.columnar_cells == sum(len(g) - 1 for g in groups) >= 5 * (len(A_VALUES) - 2)


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

"""Columnar evaluation: a formula filled down a column runs once over the column and
gives exactly the values and reasons of cell-by-cell evaluation, over rows of mixed
inputs; numpy paths, distinct-argument keys and the vector path of a zvmplan function."""
from __future__ import annotations

import numpy as np
import openpyxl
import pytest

from zvmplan_addin import recalc as engine, xlsx as xlsxio

from builders import save, values_of

pytestmark = pytest.mark.usefixtures("zt_functions")


def _column_book(path, rows=40):
    """One formula per column over rows of mixed inputs: numbers, zero, negatives, text,
    empty cells, TRUE/FALSE and error values, so every column path meets every kind."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    lookup = wb.create_sheet("Rates")
    for r, (key, rate, name) in enumerate([("a", 1.5, "Alpha"), ("b", 2, "Beta"),
                                           ("c", 0, "Gamma")], start=1):
        lookup[f"A{r}"], lookup[f"B{r}"], lookup[f"C{r}"] = key, rate, name
    kinds = [3, 0, -2, "7", "x", None, True, "#N/A", 2.5, 1e308]
    last = rows + 1
    for r in range(2, last + 1):
        k = r - 2
        a = kinds[k % len(kinds)]
        if a == "#N/A":
            ws[f"A{r}"] = "=NA()"  # an error value as input (computed first)
        elif a is not None:
            ws[f"A{r}"] = a
        ws[f"B{r}"] = (k % 7) - 2
        ws[f"C{r}"] = "abc"[k % 3] if k % 5 else None
        cells = {
            "D": f"=A{r}*B{r}+1", "E": f"=A{r}/B{r}", "F": f"=A{r}>B{r}", "G": f'=C{r}&"-"&A{r}',
            "H": f'=IF(B{r}>0,A{r},"neg")', "I": f'=IFERROR(A{r}/B{r},"div")',
            "J": f"=ISERROR(E{r})", "K": f"=VLOOKUP(C{r},Rates!$A$1:$C$3,2,FALSE)",
            "L": f"=INDEX(Rates!$C$1:$C$3,MATCH(C{r},Rates!$A$1:$A$3,0))",
            "M": f"=ROUND(B{r}/3,2)", "N": f"=LEN(C{r})", "O": f"=ZT_SCALE(B{r},A{r})",
            "P": f"=ZT_NAME(C{r})", "Q": f"=SUM(A{r},B{r})", "R": f"=B{r}/SUM(B$2:B${last})",
            "S": f"=SUM(B$2:B{r})", "T": f"=-B{r}%", "U": f"=ZT_SCALE(B{r},2)*{k % 3}",
            "V": f"=A{r}^2", "X": f'=IF(B{r}>0,B{r}/4,"neg")', "Y": f'=N{r}&"|"&M{r}&"."',
            # running totals: over numbers, over text and TRUE (cell by cell), over errors
            "Z": f"=SUM(A$2:A{r})", "AA": f"=MAX(B$2:B{r})", "AB": f"=COUNT(A$2:A{r})",
            "AC": f"=MIN(E$2:E{r})", "AD": f"=SUM(B$2:D{r})", "AE": f"=COUNT(E$2:E{r})",
        }
        for col, text in cells.items():
            ws[f"{col}{r}"] = text
        ws[f"W{r}"] = 1 if r == 2 else f"=W{r - 1}+B{r}"  # reads its own column
    return save(wb, path)


@pytest.mark.parametrize("rows", [40, 9])
def test_columns_give_the_values_of_cell_by_cell(tmp_path, monkeypatch, rows):
    """The columnar path (one run per formula column) and the engine cell by cell
    (ZVMPLAN_ENGINE_CELLWISE=1) write the same values and the same reasons."""
    path = _column_book(tmp_path / "in.xlsx", rows)
    results = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        out = tmp_path / f"out{mode}.xlsx"
        report = engine.calc(path, out)
        ws = values_of(out)
        results.append(([[c.value for c in row] for row in ws.iter_rows()], report.errors,
                         report.error_cells))
    assert results[0] == results[1]
    ws = values_of(tmp_path / "out.xlsx")
    assert ws["O2"].value == "#NUM!" and ws["E4"].value == "#DIV/0!"  # errors stay per cell
    assert "x must be >= 0" in results[0][1]["Plan!O2"][1]
    assert ws["D2"].value == 3 * -2 + 1 and ws[f"W{rows + 1}"].value == \
        1 + sum((k % 7) - 2 for k in range(1, rows))


def test_columns_checked_cell_by_cell_agree(tmp_path, monkeypatch):
    """ZVMPLAN_ENGINE_CHECK=1 evaluates every column cell by cell too and lists any cell
    where the two differ: none do, and the columns did run (not everything fell back)."""
    from zvmplan_addin.recalc.engine import Engine
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    path = _column_book(tmp_path / "in.xlsx")
    engine.install_functions()
    with xlsxio.safe_open_xlsx(path) as pkg:
        book = xlsxio.read_workbook(pkg)
    e = Engine(book)
    e.recalculate()
    assert e.column_mismatches == []
    grouped = {e.n_label[int(g[0])].split("!")[1].rstrip("0123456789")
               for g in e._column_groups()}
    running = {"S", "Z", "AA", "AB", "AC", "AD", "AE"}
    assert set("DEFGHIJKLMNOPQRTUVXY") | running <= grouped and "W" not in grouped
    # all but each first cell; Z (1E308+1E308 in A: #NUM! with its reason) and AC
    # (MIN over -0.0 and 0.0 in E) go cell by cell
    on_columns = len("DEFGHIJKLMNOPQRTUVXY") + len(running - {"Z", "AC"})
    assert e.columnar_cells == on_columns * 39


def test_columns_of_one_kind_take_the_numpy_paths(tmp_path, monkeypatch):
    """IF over a TRUE/FALSE column and ``&`` over text columns run in numpy and give the
    values cell by cell gives (Excel: IF returns its second argument where the condition
    is TRUE, else its third; ``&`` joins the texts)."""
    from zvmplan_addin.recalc.columnar import numeric as columnar
    col = np.empty((4, 1), dtype=object)
    col[:, 0] = [True, False, 2.0, 0.0]
    x = np.empty((4, 1), dtype=object)
    x[:, 0] = [1.0, 2.0, 3.0, 4.0]
    got = columnar._fast("IF", [col, x, "no"], 4)
    assert got[:, 0].tolist() == [1.0, "no", 3.0, "no"]
    texts = np.empty((2, 1), dtype=object)
    texts[:, 0] = ["a", "b"]
    assert columnar._fast("&", [texts, "-x"], 2)[:, 0].tolist() == ["a-x", "b-x"]
    empty = x.copy()
    empty[0, 0] = columnar.sh.EMPTY  # an empty cell picked is 0, as formulas' IF makes it
    cond = col.copy()
    cond[3, 0] = "text"  # a text condition is #VALUE! (Excel too)
    got = columnar._fast("IF", [cond, empty, "no"], 4)[:, 0].tolist()
    assert got == [0, "no", 3.0, columnar.XL["#VALUE!"]]
    from formulas.functions import get_functions
    assert got == get_functions()["IF"]["function"](cond, empty, "no")[:, 0].tolist()


def test_distinct_combinations_are_keyed_by_type():
    """A zvmplan function or a lookup is called once per distinct combination of its
    arguments: 1 and 1.0 are one number, but TRUE, the text "1" and the text "#N/A" are
    not the number 1 or the error #N/A (Excel compares values of different types as
    different)."""
    from zvmplan_addin.errors import ExcelError
    from zvmplan_addin.recalc.columnar.distinct import _factorize
    values = [1, 1.0, True, "1", ExcelError("#N/A"), "#N/A", 1.0, "1"]
    picks, inverse = _factorize([values], len(values))
    assert picks.tolist() == [0, 2, 3, 4, 5]
    assert inverse.tolist() == [0, 0, 1, 2, 3, 4, 0, 2]
    picks, inverse = _factorize([["a", "a", "b", "a"], [1.0, 2.0, 1.0, 1.0]], 4)
    assert picks.tolist() == [0, 1, 2] and inverse.tolist() == [0, 1, 2, 0]


def test_a_zvmplan_column_of_many_distinct_values_takes_the_vector_path(tmp_path, monkeypatch):
    """Beyond SCALAR_DISTINCT distinct arguments a zvmplan function is called once with
    all of them (its vector path); the values are those of cell by cell, errors per cell."""
    from zvmplan_addin.recalc.columnar.zvmplan import SCALAR_DISTINCT
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    rows = SCALAR_DISTINCT + 50
    for r in range(1, rows + 1):
        ws[f"A{r}"] = -1 if r == 7 else r * 1.5
        ws[f"B{r}"] = f"=ZT_SCALE(A{r},2)+1"
    path = save(wb, tmp_path / "in.xlsx")
    got = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        report = engine.calc(path, tmp_path / f"out{mode}.xlsx")
        out = values_of(tmp_path / f"out{mode}.xlsx")
        got.append(([out[f"B{r}"].value for r in range(1, rows + 1)], report.errors))
    assert got[0] == got[1]
    assert got[0][0][6] == "#NUM!" and got[0][0][9] == 10 * 1.5 * 2 + 1
    assert "x must be >= 0" in got[0][1]["Plan!B7"][1]


def _running_book(path, rows=30):
    """E2:E{rows+1}: tenths (whose left-to-right sum differs in the last bit from a
    pairwise one), an error in E5, an empty E8, the text "x" in E9 and TRUE in E10; running totals in
    F..I over E$2:E{r} and a running SUM in J over the error-free K column."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r in range(2, rows + 2):
        if r == 5:
            ws[f"E{r}"] = "=1/0"
        elif r in (9, 10):
            ws[f"E{r}"] = "x" if r == 9 else True
        elif r != 8:
            ws[f"E{r}"] = 0.1 * (r % 7) + 0.1
        ws[f"K{r}"] = 0.1 if r % 3 else 1e-17 * r
        ws[f"F{r}"] = f"=SUM(E$2:E{r})"
        ws[f"G{r}"] = f"=COUNT(E$2:E{r})"
        ws[f"H{r}"] = f"=MAX(K$2:K{r})"
        ws[f"I{r}"] = f"=MIN(K$2:K{r})"
        ws[f"J{r}"] = f"=SUM(K$2:K{r})"
    return save(wb, path)


def test_running_totals_are_computed_once_down_the_column(tmp_path, monkeypatch):
    """``=SUM(E$2:E2)`` filled down (a running total), and COUNT, MAX and MIN so, run as
    one pass down the column and give each cell's own answer. Excel: SUM's result is
    the first error in its range, so an error in E5 is every later total too; COUNT
    skips errors, empty cells, text and TRUE/FALSE in a range; SUM adds left to right, so a running total is
    the left-to-right sum of its range to the last bit (not numpy's pairwise sum)."""
    import functools
    import operator
    from zvmplan_addin.recalc.engine import Engine
    path = _running_book(tmp_path / "in.xlsx")
    engine.install_functions()
    with xlsxio.safe_open_xlsx(path) as pkg:
        book = xlsxio.read_workbook(pkg)
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    e = Engine(book)
    e.recalculate()
    assert e.column_mismatches == []
    assert e.columnar_cells == 5 * 29  # every column on the column path
    monkeypatch.delenv("ZVMPLAN_ENGINE_CHECK")
    engine.calc(path, tmp_path / "out.xlsx")
    ws = values_of(tmp_path / "out.xlsx")
    given = values_of(path)
    e_values = [given[f"E{r}"].value for r in (2, 3, 4)]
    assert [ws[f"F{r}"].value for r in (2, 3, 4)] == list(itertools_accumulate(e_values))
    assert {ws[f"F{r}"].value for r in range(5, 32)} == {"#DIV/0!"}
    assert [ws[f"G{r}"].value for r in (4, 5, 8, 9, 10)] == [3, 3, 5, 5, 5]
    k = [given[f"K{r}"].value for r in range(2, 32)]
    sums = [ws[f"J{r}"].value for r in range(2, 32)]
    assert sums == list(itertools_accumulate(k))
    assert sums[-1] == functools.reduce(operator.add, k) != float(np.sum(k))
    assert ws["H31"].value == 0.1 and ws["I31"].value == 1e-17 * 3


def itertools_accumulate(values):
    """Running left-to-right sums of ``values``."""
    import itertools
    return itertools.accumulate(values)


def test_exact_lookups_of_a_column_use_one_index_of_the_table(tmp_path, monkeypatch):
    """VLOOKUP(...,FALSE) and MATCH(...,0) filled down look their values up in one hash
    index of the table and answer as formulas' scan (Excel's exact match): the first
    match wins, text is compared without regard to case, the number 1 matches neither
    the text "1" nor TRUE, an error in the table matches nothing, a value not there is
    #N/A, and ``*``/``?`` are wildcards. The column path equals cell by cell, and each
    builds one index per table: cell by cell, every cell looks into the same prepared
    table (the engine hands them the very same range)."""
    from zvmplan_addin.recalc.excel import lookuptables
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    table = ["abc", 1, "1", True, "=1/0", "ABC", 2.5, "x?z", "dup", "dup"]
    for r, key in enumerate(table, start=1):
        ws[f"A{r}"], ws[f"B{r}"] = key, r * 10
    wanted = ["ABC", 1, "1", True, 2.5, "a*", "x?z", "dup", "none", 3, "Abc", "x"]
    for r, key in enumerate(wanted, start=2):
        ws[f"D{r}"] = key
        ws[f"E{r}"] = f"=VLOOKUP(D{r},$A$1:$B$10,2,FALSE)"
        ws[f"F{r}"] = f"=MATCH(D{r},$A$1:$A$10,0)"
    path = save(wb, tmp_path / "in.xlsx")
    real = lookuptables.first_positions
    results, builds = [], []
    for mode in ("", "1"):
        calls = []
        monkeypatch.setattr(lookuptables, "first_positions",
                            lambda *a, **k: calls.append(1) or real(*a, **k))
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        engine.calc(path, tmp_path / f"out{mode}.xlsx")
        out = values_of(tmp_path / f"out{mode}.xlsx")
        results.append([(out[f"E{r}"].value, out[f"F{r}"].value) for r in range(2, 14)])
        builds.append(len(calls))
    assert results[0] == results[1]
    assert [m for _, m in results[0]] == [1, 2, 3, 4, 7, 1, 8, 9, "#N/A", "#N/A", 1, "#N/A"]
    assert [v for v, _ in results[0]][:4] == [10, 20, 30, 40]
    assert builds == [2, 2]  # one index per table (A1:B10, A1:A10), column or cell by cell


def _two_sheet_book(path, rows=12):
    """One formula per column, written alike on two sheets (the same template on both,
    as the template's source sheets hold their pub - zvmplan difference columns): mixed
    inputs, and near-equal operands whose difference is 0 at 15 digits."""
    wb = openpyxl.Workbook()
    kinds = [3, 0, -2, "7", "x", None, True, 0.1 + 0.2, 2.5, 1e308]
    for title in ("One", "Two"):
        ws = wb.active if title == "One" else wb.create_sheet(title)
        ws.title = title
        for r in range(2, rows + 2):
            k = r - 2
            a = kinds[k % len(kinds)] if title == "One" else kinds[(k + 3) % len(kinds)]
            if a is not None:
                ws[f"A{r}"] = a
            ws[f"B{r}"] = 0.3 if a == 0.1 + 0.2 else (k % 7) - 2
            ws[f"D{r}"] = f"=A{r}-B{r}"
            ws[f"E{r}"] = f"=A{r}/B{r}"
            ws[f"F{r}"] = f'=IF(B{r}>0,A{r}&"",B{r}*2)'
    return save(wb, path)


def test_a_formula_on_several_sheets_forms_a_group_per_sheet(tmp_path, monkeypatch):
    """One template in the same column of two sheets (several sheets: no single group)
    is evaluated as one column per sheet, with exactly the values and reasons cell by
    cell gives (ZVMPLAN_ENGINE_CELLWISE=1), and the cell-by-cell cross-check
    (ZVMPLAN_ENGINE_CHECK=1) finds no cell that differs. Excel computes each cell on its
    own; ``0.1+0.2-0.3`` as the last operation shows 0 (15 significant digits)."""
    from zvmplan_addin.recalc.engine import Engine
    path = _two_sheet_book(tmp_path / "in.xlsx")
    results = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        out = tmp_path / f"out{mode}.xlsx"
        report = engine.calc(path, out)
        book = openpyxl.load_workbook(out, data_only=True)
        results.append(([[c.value for c in row] for ws in book for row in ws.iter_rows()],
                         report.errors, report.error_cells))
    assert results[0] == results[1]
    book = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)
    assert book["One"]["D9"].value == 0 and book["One"]["E4"].value == "#DIV/0!"
    monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", "")
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    engine.install_functions()
    with xlsxio.safe_open_xlsx(path) as pkg:
        e = Engine(xlsxio.read_workbook(pkg))
    e.recalculate()
    assert e.column_mismatches == []
    grouped = sorted(e.n_label[int(g[0])].rstrip("0123456789") for g in e._column_groups())
    assert grouped == ["One!D", "One!E", "One!F", "Two!D", "Two!E", "Two!F"]
    assert e.columnar_cells == 6 * 11

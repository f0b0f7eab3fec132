"""The columnar engine on the Planner's kind of column (workbook/planner.py): OR and AND
of a row's tests, text compared with ``=``, IF over text and empty cells, and
``INDEX(ZVM_RANGE(...),1,1)``, whose inner step gives an array per cell.

Each runs as one column (no cell falls back to the cell-by-cell path), called once per
distinct combination of its inputs (columnar ``_per_distinct`` and ``_distinct``), and
must give exactly what the engine gives cell by cell (``ZVMPLAN_ENGINE_CELLWISE=1``),
errors and their reasons included, and the values Excel shows (in each docstring).
So must COUNTIF, MINIFS and MATCH over a range of the cell's own row (``$V10:$AB10``,
the Planner's S and T columns); a random function is never shared between cells."""
from __future__ import annotations

import openpyxl
import pytest

from zvmplan_addin import recalc as engine, xlsx as xlsxio
from zvmplan_addin.recalc import columnar
from zvmplan_addin.recalc.engine import Engine
from zvmplan_addin.recalc.values import quiet

from builders import values_of, write_book

ROWS = range(2, 42)
TRANSPORTS = ["IUCV", "iucv", None, "OSA_GBE", "IUVC"]
SIZES = [9000, 1500, None, -3, "text"]
FLAGS = [True, False, 0, 2, None, "x", "=NA()"]
FORMULAS = {
    "D": '=OR(A{r}="",C{r})',
    "E": "=AND(ISNUMBER(B{r}),B{r}>0)",
    "F": '=IF(A{r}="IUCV","yes",IF(A{r}="","",B{r}))',
    "G": '=INDEX(ZVM_RANGE("CPCPU_PER_MB",A{r},B{r}),1,1)',
    "H": '=IF(A{r}="","",INDEX(ZVM_RANGE("CPCPU_PER_MB",A{r},9000),1,2))',
}


def _book(path):
    cells = {}
    for k, r in enumerate(ROWS):
        for col, cycle in (("A", TRANSPORTS), ("B", SIZES), ("C", FLAGS)):
            v = cycle[k % len(cycle)]
            if v is not None:
                cells[f"{col}{r}"] = v
        for col, text in FORMULAS.items():
            cells[f"{col}{r}"] = text.format(r=r)
    return write_book(path, {"Plan": cells})


def _cells(path):
    ws = values_of(path)
    return {f"{c}{r}": ws[f"{c}{r}"].value for c in FORMULAS for r in ROWS}


def test_planner_columns_give_the_values_and_reasons_of_cell_by_cell(tmp_path, monkeypatch):
    """Column by column and cell by cell write the same values and the same reasons.
    What Excel shows: ``"iucv"="IUCV"`` is TRUE (text compares without case), so F3 is
    "yes"; OR ignores text in a referenced cell (D7: OR(FALSE,"x") = FALSE) and passes an
    error on (D8: #N/A); INDEX(..,1,1) of IUCV's band at MTU 9000 is the low end of
    0.012367 CPU-s/MB as printed (0.0123665), the high end 0.0123675."""
    path = _book(tmp_path / "in.xlsx")
    results = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        out = tmp_path / f"out{mode}.xlsx"
        report = engine.calc(path, out)
        results.append((_cells(out), report.errors))
    assert results[0] == results[1]
    got, errors = results[0]
    assert [got[f"F{r}"] for r in (2, 3, 4, 5)] == ["yes", "yes", None, -3]  # "" reads back as None
    assert [got[f"D{r}"] for r in (2, 3, 4, 7, 8)] == [True, False, True, False, "#N/A"]
    assert [got[f"E{r}"] for r in (2, 3, 4, 5, 6)] == [True, True, False, False, False]
    assert got["G2"] == pytest.approx(0.0123665, abs=1e-12) and got["G2"] == got["G27"]
    assert got["H2"] == pytest.approx(0.0123675, abs=1e-12) and got["H4"] is None
    # ZVM_RANGE's error (IUVC: #VALUE!, MTU -3: #NUM!) given to INDEX comes back as that
    # error, as in Excel (formulas alone would answer #REF!), cell by cell and in the column
    assert {got[f"G{r}"] for r in (4, 5, 6, 11, 41)} == {"#VALUE!", "#NUM!"}
    assert got["F6"] == "text" and got["E7"] is True


def test_planner_columns_run_whole_and_once_per_distinct_row(tmp_path, monkeypatch):
    """Every column is one run (none falls back cell by cell), ZVMPLAN_ENGINE_CHECK=1
    finds no cell where it differs, and OR is called once per distinct pair of values,
    not once per cell."""
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    calls = []
    real = columnar._per_distinct

    def counting(func, inputs, values, column, n, note, *more):  # more: codes, ...
        made = []

        def counted(*args):
            made.append(1)
            return func(*args)
        got = real(counted, inputs, values, column, n, note, *more)
        calls.append((n, len(made)))
        return got
    monkeypatch.setattr(columnar, "_per_distinct", counting)
    engine.install_functions()
    with xlsxio.safe_open_xlsx(_book(tmp_path / "in.xlsx")) as pkg:
        book = xlsxio.read_workbook(pkg)
    e = Engine(book)
    e.recalculate()
    assert e.column_mismatches == []
    assert e.columnar_cells == len(FORMULAS) * (len(ROWS) - 1)
    assert calls and all(n == len(ROWS) - 1 for n, _ in calls)
    # D's OR over (A, C): 5 x 7 values cycle, at most 35 pairs in 39 rows; G's INDEX over
    # (IUCV, iucv, empty, OSA_GBE, IUVC) x 5 sizes: each distinct band once
    assert all(made <= 35 for _, made in calls) and min(made for _, made in calls) <= 10


# ------------------------------------------------------ a range of one row per cell ----
ROW_VALUES = [(3.0, -1.0, "x", 0.5), (None, 2.0, 7.0, "=NA()"), (-4.0, None, "y", -2.0),
              (1.0, 1.0, 1.0, None)]
ROW_FORMULAS = {
    "G": '=COUNTIF($B{r}:$E{r},">=0")',
    "H": '=IF(COUNTIF($B{r}:$E{r},">=0")=0,"none",MINIFS($B{r}:$E{r},$B{r}:$E{r},">=0"))',
    "I": '=IFERROR(MATCH(MINIFS($B{r}:$E{r},$B{r}:$E{r},">=0"),$B{r}:$E{r},0),"-")',
    "J": "=SUM($B{r}:$F{r})",
}


def _row_book(path):
    """B:E hold the values of :data:`ROW_VALUES` in turn; F is a formula (=B*10) that the
    row ranges of J read, so F must be evaluated before J."""
    cells = {}
    for k, r in enumerate(ROWS):
        for c, v in zip("BCDE", ROW_VALUES[k % len(ROW_VALUES)]):
            if v is not None:
                cells[f"{c}{r}"] = v
        cells[f"F{r}"] = f"=B{r}*10"
        for col, text in ROW_FORMULAS.items():
            cells[f"{col}{r}"] = text.format(r=r)
    return write_book(path, {"Plan": cells})


def test_a_range_of_one_row_per_cell_is_a_column(tmp_path, monkeypatch):
    """COUNTIF, MINIFS and MATCH over ``$B{r}:$E{r}`` filled down run as columns (once
    per distinct row of values) with the values of cell by cell. What Excel shows:
    COUNTIF(..,">=0") counts the numbers >= 0 only (text and errors are not
    numbers): row 2 (3,-1,"x",0.5) 2, row 3 (empty,2,7,#N/A) 2, row 4 (-4,empty,"y",-2)
    0, row 5 (1,1,1,empty) 3; the least of them 0.5, 2, "none", 1; MATCH finds it at 4,
    1, "-" (MINIFS of nothing is 0, not in the row), 1; SUM over B:F adds F = B*10:
    row 2 3-1+0.5+30 = 32.5."""
    path = _row_book(tmp_path / "in.xlsx")
    got = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        engine.calc(path, tmp_path / f"out{mode}.xlsx")
        ws = openpyxl.load_workbook(tmp_path / f"out{mode}.xlsx", data_only=True)["Plan"]
        got.append({f"{c}{r}": ws[f"{c}{r}"].value for c in ROW_FORMULAS for r in ROWS})
    assert got[0] == got[1]
    cols = {c: [got[0][f"{c}{r}"] for r in range(2, 6)] for c in ROW_FORMULAS}
    assert cols["G"] == [2, 2, 0, 3] and cols["H"] == [0.5, 2, "none", 1]
    assert cols["I"] == [4, 2, "-", 1] and cols["J"][0] == 32.5
    monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", "")
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    engine.install_functions()
    with xlsxio.safe_open_xlsx(path) as pkg:
        book = xlsxio.read_workbook(pkg)
    e = Engine(book)
    with quiet():
        e.run()
    assert e.column_mismatches == []
    # every column but its first cell, F (=B*10 over numbers and empty cells) and the
    # ten =NA() of E too
    assert e.columnar_cells == (len(ROW_FORMULAS) + 1) * (len(ROWS) - 1) + 9


def test_a_random_function_of_a_column_is_called_for_every_cell(tmp_path):
    """RANDBETWEEN(1,1E9+A{r}*0) with the same A in every row: each cell draws its own
    number (Excel recalculates each cell's RANDBETWEEN on its own), never one number per
    distinct argument set; 39 draws out of a billion all equal is (1E-9)^38."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r in ROWS:
        ws[f"A{r}"] = 1
        ws[f"B{r}"] = f"=RANDBETWEEN(1,1000000000+A{r}*0)"
    wb.save(tmp_path / "in.xlsx")
    engine.calc(tmp_path / "in.xlsx", tmp_path / "out.xlsx")
    got = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Plan"]
    draws = [got[f"B{r}"].value for r in ROWS]
    assert all(isinstance(v, (int, float)) and 1 <= v <= 1e9 for v in draws)
    assert len(set(draws)) > len(draws) // 2  # not one number for all but the first


def test_a_random_function_of_shared_arguments_is_called_for_every_cell(tmp_path,
                                                                          monkeypatch):
    """RANDBETWEEN(1,1E9) down a column, column by column and cell by cell: each cell
    draws its own number, as in Excel (formulas does not mark RANDBETWEEN volatile, so
    its call must not be kept for the other cells as a constant part would be)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r in ROWS:
        ws[f"B{r}"] = "=RANDBETWEEN(1,1000000000)"
    wb.save(tmp_path / "in.xlsx")
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        engine.calc(tmp_path / "in.xlsx", tmp_path / "out.xlsx")
        got = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Plan"]
        draws = [got[f"B{r}"].value for r in ROWS]
        assert len(set(draws)) > len(draws) // 2


def test_only_volatile_steps_run_cell_by_cell_in_a_column(tmp_path, monkeypatch):
    """INDEX (which formulas flags as reading its compile state, so it is never shared
    between cells) is still a pure function: a column of INDEX/MATCH runs once per
    distinct argument set, and only RAND/RANDBETWEEN/NOW-style steps are called once per
    cell. Pins the values too: INDEX of MATCH finds each site's text (Excel: exact
    MATCH with 0), and RAND() gives each cell its own number in [0, 1)."""
    from zvmplan_addin.recalc import columnar
    calls = []
    real = columnar._cell_by_cell

    def counting(func, inputs, values, column, n):
        calls.append(n)
        return real(func, inputs, values, column, n)

    monkeypatch.setattr(columnar, "_cell_by_cell", counting)
    wb = openpyxl.Workbook()
    ws = wb.active
    sites = ["S1", "S2", "S3"]
    for r, (code, name) in enumerate(zip(sites, ["Zurich", "Hursley", "Boeblingen"]), 1):
        ws.cell(r, 5, code)
        ws.cell(r, 6, name)
    for r in range(1, 41):
        ws.cell(r, 1, sites[r % 3])
        ws.cell(r, 2, f"=INDEX($F$1:$F$3,MATCH(A{r},$E$1:$E$3,0))")
    path = tmp_path / "index.xlsx"
    wb.save(path)
    from zvmplan_addin.recalc.engine import calc
    calc(path, tmp_path / "out.xlsx")
    assert calls == []  # no per-cell step for INDEX/MATCH
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True).active
    expect = {"S1": "Zurich", "S2": "Hursley", "S3": "Boeblingen"}
    assert [out.cell(r, 2).value for r in range(1, 41)] == \
        [expect[sites[r % 3]] for r in range(1, 41)]
    for r in range(1, 41):
        ws.cell(r, 3, "=RAND()")
    wb.save(path)
    calc(path, tmp_path / "out2.xlsx")
    assert len(calls) == 1 and calls[0] >= 39  # the RAND column's run, once per cell
    out = openpyxl.load_workbook(tmp_path / "out2.xlsx", data_only=True).active
    rand = [out.cell(r, 3).value for r in range(1, 41)]
    assert len(set(rand)) == 40 and all(0 <= v < 1 for v in rand)


@pytest.mark.parametrize("formula, expect", [
    ("=INDEX(NA(),1,1)", "#N/A"),
    ("=INDEX(1/0,1,1)", "#DIV/0!"),
    ('=INDEX(ZVM_RANGE("CPCPU_PER_MB","GUEST_LAN",9000,"3.1.0"),1,1)', "#N/A"),
])
def test_index_of_an_error_is_that_error(formula, expect):
    """Excel: an error given to INDEX as its array comes back as that error
    (INDEX(NA(),1,1) is #N/A, so ISNA and IFNA see it); the formulas package answers
    #REF!, which would turn a "not published" into a broken reference."""
    from zvmplan_addin.recalc import evaluate_formula
    result = evaluate_formula(formula)
    assert str(result).startswith(expect)
    assert bool(evaluate_formula(f"=ISNA({formula[1:]})")) == (expect == "#N/A")

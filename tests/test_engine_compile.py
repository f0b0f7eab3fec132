"""The engine's compile stage on formulas filled down a column (addin/recalc/filldown.py).

A cell whose text is the column's first formula moved to its row is compiled with that
first cell, all at once; any other cell must be shaped and compiled on its own. Each
test checks which cells the fast path took (and which it refused), that the compiled
data of every node is exactly what the cell-by-cell path gives, and cell values that
Excel shows for the same formulas (worked out by hand in each docstring)."""
from __future__ import annotations

import zipfile

import numpy as np
import openpyxl
import pytest

from zvmplan_addin import xlsx as xlsxio
from zvmplan_addin.recalc import filldown, shapes
from zvmplan_addin.recalc.engine import Engine, calc
from zvmplan_addin.recalc.install import install_functions

MAX_ROW = shapes.MAX_ROW


# ------------------------------------------------------------------ helpers ----
def _book(formulas: dict, values: dict | None = None, name: str = "Plan") -> xlsxio.Workbook:
    """A one-sheet workbook as the reader gives it: ``formulas`` {(r, c): text}."""
    values = values or {}
    cells = list(formulas) + list(values)
    sheet = xlsxio.SheetData(
        name=name, part="", values=dict(values),
        formulas={rc: xlsxio.FormulaCell(t) for rc, t in sorted(formulas.items())},
        max_row=max(r for r, _ in cells), max_col=max(c for _, c in cells))
    return xlsxio.Workbook(sheets=[sheet], names=[], other_sheets=[])


def _run(book, runs: bool = True, monkeypatch=None) -> Engine:
    """Compile and evaluate ``book``; with ``runs=False`` every cell is shaped and
    compiled on its own (the compile stage without :mod:`filldown`)."""
    install_functions()
    if not runs:
        monkeypatch.setattr(filldown, "find_runs", lambda *args: {})
    e = Engine(book)
    try:
        e.recalculate()
    finally:
        if not runs:
            monkeypatch.undo()
    return e


def _compiled(e: Engine) -> dict:
    """What the compile stage hands the later stages, for comparing two engines: per
    node its rects, literals, what it reads, and which nodes share a template (and what
    that template's program computes once for all of them)."""
    groups: dict[int, list] = {}
    for i, t in enumerate(e.code.template):
        groups.setdefault(id(t), []).append(i)
    shared = []
    for members in groups.values():
        t = e.code.template[members[0]]
        shared.append((members, sorted(map(str, t.program.shared)) if t.program else None))
    return {"rects": e.code.rects, "lits": e.code.lits, "used": e.code.used, "names": e.code.name_deps,
            "reads": e.code.reads, "templates": sorted(shared), "compiled": e.compiler.compiled}


def _values(e: Engine, col: int, rows) -> list:
    return [e.nodes.grids[0].get(r, col) for r in rows]


def _followers(book) -> set:
    """(row, col) of the cells that some run takes after its first cell."""
    e = Engine(book)
    shaper = shapes.Shaper(book.sheets[0].name)
    runs = filldown.find_runs(e.nodes.n_sheet, e.nodes.n_row, e.nodes.n_col, e.nodes.n_text, e.nodes.cells,
                              lambda s: shaper)
    return {(e.nodes.n_row[i], e.nodes.n_col[i]) for run in runs.values() for i in run.members.tolist()}


def _same_as_cell_by_cell(book_factory, monkeypatch) -> Engine:
    fast = _run(book_factory())
    slow = _run(book_factory(), runs=False, monkeypatch=monkeypatch)
    assert _compiled(fast) == _compiled(slow)
    assert np.array_equal(fast.nodes.grids[0].a, slow.nodes.grids[0].a)
    return fast


def _column(pattern: str, rows, col: int = 2, values=None, **fields) -> xlsxio.Workbook:
    """``pattern`` (``{r}`` is the row) in column ``col`` of ``rows``; A holds r * 1.5."""
    formulas = {(r, col): pattern.format(r=r, **{k: f(r) for k, f in fields.items()})
                for r in rows}
    values = values if values is not None else {(r, 1): r * 1.5 for r in range(1, max(rows) + 2)}
    return _book(formulas, values)


# ------------------------------------------------------------------ tests ----
def test_a_filled_column_is_one_run_with_the_values_of_cell_by_cell(monkeypatch):
    """=A{r}*2+A{r+1} filled down B2:B40: all but B2 follow it; B7 = 7*1.5*2 + 8*1.5 =
    33 as Excel computes it."""
    book = lambda: _column("A{r}*2+A{n}", range(2, 41), n=lambda r: r + 1)  # noqa: E731
    assert _followers(book()) == {(r, 2) for r in range(3, 41)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [2, 7, 40]) == [2 * 1.5 * 2 + 3 * 1.5, 33.0, 40 * 1.5 * 2 + 41 * 1.5]
    assert e.compiler.compiled == 1


def test_a_row_in_the_middle_whose_formula_differs_ends_the_run(monkeypatch):
    """B10 holds =A10+1 in a column of =A{r}*2: B10 is compiled on its own and the cells
    after it start a new run; B10 = 10*1.5+1 = 16, B11 = 11*1.5*2 = 33."""
    def book():
        b = _column("A{r}*2", range(2, 21))
        b.sheets[0].formulas[(10, 2)] = xlsxio.FormulaCell("A10+1")
        return b
    assert _followers(book()) == {(r, 2) for r in range(3, 21)} - {(10, 2), (11, 2)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [9, 10, 11]) == [27.0, 16.0, 33.0]


def test_absolute_references_stay_in_every_row(monkeypatch):
    """=$A$1*A{r}+A$2 filled down: the $ rows do not move (Excel's fill); B5 = 1.5*7.5+3
    = 14.25."""
    book = lambda: _column("$A$1*A{r}+A$2", range(1, 30))  # noqa: E731
    assert _followers(book()) == {(r, 2) for r in range(2, 30)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [1, 5]) == [1.5 * 1.5 + 3, 14.25]
    rects = e.code.rects[e.nodes.n_row.index(5)]
    assert rects == (("PLAN", 1, 1, 1, 1), ("PLAN", 5, 1, 5, 1), ("PLAN", 2, 1, 2, 1))


def _held(e: Engine) -> set:
    """(sheet, row, col) of the cells whose references a run holds as row arrays (taken
    with the run's first cell by the compile stage, not shaped one by one)."""
    block_of = e.code.rects.block_of
    if block_of is None:
        return set()
    nodes = e.nodes
    return {(nodes.sheet_names[nodes.n_sheet[i]], nodes.n_row[i], nodes.n_col[i])
            for i in np.flatnonzero(block_of >= 0).tolist()}


def _same_on_every_sheet(book_factory, monkeypatch) -> Engine:
    """Compiled alike and the same values on every sheet, with runs and cell by cell."""
    fast = _run(book_factory())
    slow = _run(book_factory(), runs=False, monkeypatch=monkeypatch)
    assert _compiled(fast) == _compiled(slow)
    for a, b in zip(fast.nodes.grids, slow.nodes.grids):
        assert np.array_equal(a.a, b.a)
    return fast


def _moving(pattern: str, rows, col: int = 2, **fields):
    """A one-sheet book factory: ``pattern`` down ``rows``, A holding r * 1.5 (rows 1-99)."""
    return lambda: _column(pattern, rows, col, values={(r, 1): r * 1.5 for r in range(1, 100)},
                           **fields)


def test_absolute_rows_that_move_with_the_row_are_a_fill(monkeypatch):
    """=$A${r+3}*2+$A$1 down B2:B30 (a table naming the row beside it with $ rows, so
    that sorting it keeps its links: the fill's own copies would all read $A$5): the
    $ row that moves with the row moves in every copy, the other stays; every cell after
    B2 is taken with B2, compiled once, its references those of its own text. B5 =
    A8*2 + A1 = 12*2 + 1.5 = 25.5 as Excel computes it."""
    book = _moving("$A${n}*2+$A$1", range(2, 31), n=lambda r: r + 3)
    assert _followers(book()) == {(r, 2) for r in range(3, 31)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _held(e) == {("Plan", r, 2) for r in range(3, 31)}
    assert _values(e, 2, [2, 5, 30]) == [5 * 1.5 * 2 + 1.5, 25.5, 33 * 1.5 * 2 + 1.5]
    assert e.code.rects[e.nodes.n_row.index(5)] == (("PLAN", 8, 1, 8, 1), ("PLAN", 1, 1, 1, 1))
    assert e.compiler.compiled == 1
    pattern = shapes.Shaper("Plan").fill_pattern("$A$5*2+$A$1", 2, 2, ("$A$6*2+$A$1", 3))
    assert pattern.text_at(9) == "$A$12*2+$A$1" and pattern.last_row() == MAX_ROW - 3


def test_a_table_naming_the_planner_row_beside_it_is_a_fill(monkeypatch):
    """The Scenarios sheet's kind of row (workbook/planner.py, scenario_row): row r reads
    Planner!$B$(r+10) and $C$(r+10) with $ rows, its own C{r}, and the fixed
    Planner!$C$2; rows 5-40 are one run, the same values as cell by cell, and
    ZVMPLAN_ENGINE_CHECK=1 finds no cell of the column where it differs. Row 7:
    Planner B17 = 17 is not "", so 2*17 * 7 / 4 = 59.5; row 9 reads Planner B19 = ""."""
    def book():
        planner = {(r, 2): float(r) for r in range(11, 51) if r != 19}
        planner.update({(r, 3): 2.0 * r for r in range(11, 51)})
        planner[(2, 3)] = 4.0
        scen = {(r, 4): 'IF(Planner!$B${p}="","",Planner!$C${p}*C{r}/Planner!$C$2)'.format(
            r=r, p=r + 10) for r in range(5, 41)}
        return _sheets(Scen=(scen, {(r, 3): float(r) for r in range(5, 41)}),
                       Planner=({(1, 9): "1"}, planner))
    e = _same_on_every_sheet(book, monkeypatch)
    assert _held(e) == {("Scen", r, 4) for r in range(6, 41)}
    grid = e.nodes.grids[0]
    assert (grid.get(7, 4), grid.get(9, 4)) == (59.5, "")
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    checked = _run(book())
    assert checked.column_mismatches == [] and checked.columnar_cells >= 35


@pytest.mark.parametrize("pattern, fields, held", [
    # the $ row moves by twice the rows: no fill writes that
    ("$A${n}*2", {"n": lambda r: 2 * r}, set()),
    # two $ rows, one moving with the row, one by twice the rows
    ("$A${r}+$A${n}", {"n": lambda r: 2 * r}, set()),
    # a literal that changes with the row beside a $ row that moves
    ("$A${r}*{r}", {}, set()),
    # the offset changes at row 10: two runs, B10 leads the second
    ("$A${n}*2", {"n": lambda r: r + 3 if r < 10 else r + 4},
     set(range(3, 10)) | set(range(11, 31))),
    # $ on one end of a range only, both ends moving: a fill of the same cells
    ("SUM($A${r}:A{n})", {"n": lambda r: r + 2}, set(range(3, 31))),
])
def test_absolute_rows_that_do_not_move_as_a_fill_are_shaped_one_by_one(
        monkeypatch, pattern, fields, held):
    """Near misses of a fill whose $ rows move: a cell is taken with the first only if
    its text is exactly the first's with every moving row moved by the rows between
    them; otherwise it is shaped and compiled on its own, and either way the values and
    compiled data are those of cell by cell (B5 of $A$(2r)*2: A10*2 = 30)."""
    book = _moving(pattern, range(2, 31), **fields)
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _held(e) == {("Plan", r, 2) for r in held}
    if pattern == "$A${n}*2" and not held:
        assert _values(e, 2, [5]) == [30.0]


def test_a_cell_an_earlier_compiled_form_accepts_keeps_it(monkeypatch):
    """C1 =A7+$A$7 is compiled first (reading one cell twice); B2:B10 =A{r}+$A$5 is a
    fill whose B5 reads A5 twice, as C1's compiled form does, so cell by cell B5 gets
    that form and the other rows B2's: the run is not taken whole (each cell is compiled
    as cell by cell compiles it). B5 = 7.5 + 7.5 = 15, B6 = 9 + 7.5 = 16.5, C1 = 21."""
    def book():
        formulas = {(r, 2): f"A{r}+$A$5" for r in range(2, 11)}
        formulas[(1, 3)] = "A7+$A$7"
        return _book(formulas, {(r, 1): r * 1.5 for r in range(1, 12)})
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _held(e) == set()
    assert _values(e, 2, [5, 6]) == [15.0, 16.5] and e.nodes.grids[0].get(1, 3) == 21.0
    b5, b6 = e.nodes.n_row.index(5), e.nodes.n_row.index(6)
    assert e.code.template[b5] is e.code.template[0] and e.code.template[b6] is not e.code.template[0]


def test_a_moving_absolute_whole_row_is_not_a_fill(monkeypatch):
    """=SUM(Data!${r}:${r}) down B2:B9 (a whole row, $ rows moving with the row) is not
    taken as a fill: each cell is shaped on its own; B4 = 4 + 40 = 44 (Data!A4, Data!C4)."""
    def book():
        plan = {(r, 2): f"SUM(Data!${r}:${r})" for r in range(2, 10)}
        data = {(r, 1): float(r) for r in range(1, 11)}
        data.update({(r, 3): 10.0 * r for r in range(1, 11)})
        return _sheets(Plan=(plan, {(1, 1): 0.0}), Data=({(20, 1): "1"}, data))
    e = _same_on_every_sheet(book, monkeypatch)
    assert _held(e) == set()
    assert e.nodes.grids[0].get(4, 2) == 44.0


def test_no_run_of_moving_absolute_rows_reaches_past_the_last_row():
    """=$A${r+1} in the last three rows: the copy in row 1,048,576 would read row
    1,048,577, no reference, so it is not a follower."""
    rows = [MAX_ROW - 2, MAX_ROW - 1, MAX_ROW]
    book = _column("$A${n}", rows, n=lambda r: r + 1, values={(1, 1): 1.0})
    assert _followers(book) == {(MAX_ROW - 1, 2)}


def test_a_run_whose_first_cell_reads_differently_is_led_by_the_next(monkeypatch):
    """=COUNTIF($A$2:$A{r},$A{r}) down B2:B30 (the Plan sheet's ranks): in row 2 the
    range $A$2:$A2 is the cell $A2 itself, so B2's compiled form cannot serve the rows
    below; B3 leads them instead, and B4:B30 are taken with it. A holds r mod 3, so B8
    counts A2, A5, A8: 3 as Excel computes it."""
    def book():
        return _column("COUNTIF($A$2:$A{r},$A{r})", range(2, 31),
                       values={(r, 1): float(r % 3) for r in range(1, 32)})
    assert _followers(book()) == {(r, 2) for r in range(3, 31)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _held(e) == {("Plan", r, 2) for r in range(4, 31)}
    assert _values(e, 2, [2, 3, 8]) == [1.0, 1.0, 3.0]
    assert e.compiler.compiled == 2


def test_a_literal_that_changes_by_row_is_not_a_copy(monkeypatch):
    """=A{r}*{r}: the literal is the row number, which a fill would not change, so no cell
    follows another; each gets its own literal: B6 = 6*1.5*6 = 54."""
    book = lambda: _column("A{r}*{r}", range(2, 12))  # noqa: E731
    assert _followers(book()) == set()
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [2, 6]) == [6.0, 54.0]


def test_row_digits_inside_a_string_are_text(monkeypatch):
    """="row {r}"&A{r} is not a fill (the string changes), ="row 2"&A{r} is; B5 shows
    "row 57.5" and "row 27.5" (Excel's & writes 7.5 as 7.5)."""
    moving = lambda: _column('"row {r}"&A{r}', range(2, 9))  # noqa: E731
    fixed = lambda: _column('"row 2"&A{r}', range(2, 9))  # noqa: E731
    assert _followers(moving()) == set()
    assert _followers(fixed()) == {(r, 2) for r in range(3, 9)}
    assert _values(_same_as_cell_by_cell(moving, monkeypatch), 2, [5]) == ["row 57.5"]
    assert _values(_same_as_cell_by_cell(fixed, monkeypatch), 2, [5]) == ["row 27.5"]


def test_no_run_reaches_past_the_last_row():
    """=A{r+1} in the last three rows: the copy in row 1,048,576 would read row
    1,048,577, which is no reference (Excel writes #REF!), so it is not a follower."""
    rows = [MAX_ROW - 2, MAX_ROW - 1, MAX_ROW]
    book = _column("A{n}", rows, n=lambda r: r + 1, values={(1, 1): 1.0})
    assert _followers(book) == {(MAX_ROW - 1, 2)}
    pattern = shapes.Shaper("Plan").fill_pattern(f"A{MAX_ROW - 1}", MAX_ROW - 2, 2)
    assert pattern.last_row() == MAX_ROW - 1
    assert pattern.text_at(MAX_ROW - 1) == f"A{MAX_ROW}"


def test_a_range_with_one_fixed_end_is_ordered_in_every_row(monkeypatch):
    """=SUM(A$5:A{r}) down B1:B9: above row 5 the moving end is r1, below it r2 (Excel
    reads A$5:A2 as A2:A5). B2 = (2+3+4+5)*1.5 = 21, B9 = (5+...+9)*1.5 = 52.5."""
    book = lambda: _column("SUM(A$5:A{r})", range(1, 10))  # noqa: E731
    assert _followers(book()) == {(r, 2) for r in range(2, 10)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [2, 5, 9]) == [21.0, 7.5, 52.5]
    assert e.code.rects[e.nodes.n_row.index(2)] == (("PLAN", 2, 1, 5, 1),)
    assert e.code.rects[e.nodes.n_row.index(9)] == (("PLAN", 5, 1, 9, 1),)


def test_references_that_coincide_in_one_row_only(monkeypatch):
    """=A{r}+$A$3 from row 3: in row 3 both references are A3, so its compiled form reads
    one cell twice and cannot serve the rows below, which are compiled apart (as cell by
    cell does). B3 = 4.5+4.5 = 9, B4 = 6+4.5 = 10.5."""
    book = lambda: _column("A{r}+$A$3", range(3, 12))  # noqa: E731
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [3, 4]) == [9.0, 10.5]
    assert e.code.template[0] is not e.code.template[1] and e.code.template[1] is e.code.template[2]


def test_a_cell_read_twice_in_every_row_follows(monkeypatch):
    """=IF(A{r}>3,A{r},0): the same cell twice in every row, so every copy accepts the
    first cell's template; B2 = 0 (3 > 3 is FALSE), B3 = 4.5."""
    book = lambda: _column("IF(A{r}>3,A{r},0)", range(2, 12))  # noqa: E731
    assert _followers(book()) == {(r, 2) for r in range(3, 12)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [2, 3]) == [0, 4.5]
    assert len({id(t) for t in e.code.template}) == 1


def test_formulas_reading_their_own_position_share_one_compiled_form(monkeypatch):
    """=ROW()*A{r} depends on its own position: the formula's cell is an input of the
    compiled formula (each cell brings its own), so the run shares one compiled form and
    each cell reads its own row, as Excel's ROW() does: B{r} = r * 1.5r (B4 = 4*6 = 24,
    B7 = 7*10.5 = 73.5). Never evaluated as a column (whose inputs are values)."""
    book = lambda: _column("ROW()*A{r}", range(2, 12))  # noqa: E731
    assert _followers(book()) == {(r, 2) for r in range(3, 12)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, range(2, 12)) == [r * r * 1.5 for r in range(2, 12)]
    assert e.compiler.compiled == 1
    assert e.columnar_cells == 0


def _sheets(**sheets) -> xlsxio.Workbook:
    """A workbook of ``sheets`` {name: ({(r, c): formula}, {(r, c): value})}."""
    out = []
    for name, (formulas, values) in sheets.items():
        cells = list(formulas) + list(values)
        out.append(xlsxio.SheetData(
            name=name, part="", values=dict(values),
            formulas={rc: xlsxio.FormulaCell(t) for rc, t in sorted(formulas.items())},
            max_row=max(r for r, _ in cells), max_col=max(c for _, c in cells)))
    return xlsxio.Workbook(sheets=out, names=[], other_sheets=[])


def test_position_functions_read_their_own_cell_with_one_compiled_form():
    """One compiled form per shape, each cell its own position, as Excel answers:
    =ROW()+$A$1 down B1:B10 is r + 100 (ROW() never computed once for the column, though
    $A$1 is the same in every cell); =COLUMN()*2 across C12:L12 is 2c (C12 = 6,
    L12 = 24); =INDIRECT("A"&ROW()) in D1:D10 reads A of its own row (D3 = A3 = 3 --
    A1 holds 100); and the same INDIRECT("E1") in two sheets reads each sheet's own E1
    (Plan 7, Other 8), since INDIRECT's text names a cell of the formula's sheet."""
    plan = {(r, 2): "ROW()+$A$1" for r in range(1, 11)}
    plan.update({(12, c): "COLUMN()*2" for c in range(3, 13)})
    plan.update({(r, 4): 'INDIRECT("A"&ROW())' for r in range(1, 11)})
    plan[(1, 6)] = 'INDIRECT("E1")'
    values = {(1, 1): 100.0, **{(r, 1): float(r) for r in range(2, 11)}, (1, 5): 7.0}
    book = _sheets(Plan=(plan, values), Other=({(1, 6): 'INDIRECT("E1")'}, {(1, 5): 8.0}))
    e = _run(book)
    plan_grid, other_grid = e.nodes.grids
    assert [plan_grid.get(r, 2) for r in range(1, 11)] == [r + 100.0 for r in range(1, 11)]
    assert [plan_grid.get(12, c) for c in range(3, 13)] == [2.0 * c for c in range(3, 13)]
    assert [plan_grid.get(r, 4) for r in range(1, 11)] == [100.0] + [float(r) for r in range(2, 11)]
    assert (plan_grid.get(1, 6), other_grid.get(1, 6)) == (7.0, 8.0)
    assert e.compiler.compiled == 4  # one per shape: ROW()+$A$1, COLUMN()*2, INDIRECT x2


def test_mixed_columns_and_braces_and_text_without_digits(monkeypatch):
    """Several columns at once: an array constant (braces in the text), a formula with
    no digit, a range per row whose divisor changes every fifth row, braces inside a
    string; every node compiles to what cell by cell gives. B3 = 1+2+3 = 6,
    D2 = (2+B2)/7 = (2+5)/7, D5 = (5+8)/9, E2 = 2&"-{x}"&D2."""
    def book():
        f = {}
        for r in range(1, 25):
            f[(r, 2)] = f"SUM({{1,2}})+A{r}"
            f[(r, 3)] = "SUM(A:A)"
            f[(r, 4)] = f"SUM(A{r}:B{r})/{7 if r % 5 else 9}"
            f[(r, 5)] = f"A{r}&\"-{{x}}\"&D{r}"
        return _book(f, {(r, 1): float(r) for r in range(1, 26)})
    e = _same_as_cell_by_cell(book, monkeypatch)
    grid = e.nodes.grids[0]
    assert grid.get(3, 2) == 6.0 and grid.get(3, 3) == sum(range(1, 26))
    assert grid.get(2, 4) == (2 + 5) / 7 and grid.get(5, 4) == (5 + 8) / 9
    assert grid.get(2, 5) == "2-{x}1"  # Excel's & writes the number 1 as 1


def test_shared_formulas_from_the_file_are_a_run(tmp_path):
    """A shared formula B1:B6 (master =A1*10+$A$1, as Excel stores a fill): the reader
    moves the master to each cell, the engine follows all but B1; B4 = 40+1 = 41."""
    wb = openpyxl.Workbook()
    wb.active.title = "Plan"
    src = tmp_path / "src.xlsx"
    wb.save(src)
    rows = "".join(
        f'<row r="{r}"><c r="A{r}"><v>{r}</v></c><c r="B{r}">'
        + ('<f t="shared" ref="B1:B6" si="0">A1*10+$A$1</f>' if r == 1 else
           '<f t="shared" si="0"/>') + "</c></row>" for r in range(1, 7))
    sheet = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.'
             f'openxmlformats.org/spreadsheetml/2006/main"><sheetData>{rows}</sheetData>'
             '</worksheet>')
    path = tmp_path / "in.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(path, "w") as zout:
        for item in zin.infolist():
            data = sheet.encode() if item.filename == "xl/worksheets/sheet1.xml" \
                else zin.read(item)
            zout.writestr(item, data)
    with xlsxio.safe_open_xlsx(path) as pkg:
        book = xlsxio.read_workbook(pkg)
    assert [book.sheets[0].formulas[(r, 2)].text for r in (1, 4)] == ["A1*10+$A$1",
                                                                      "A4*10+$A$1"]
    assert _followers(book) == {(r, 2) for r in range(2, 7)}
    calc(path, tmp_path / "out.xlsx")
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Plan"]
    assert [out[f"B{r}"].value for r in range(1, 7)] == [11, 21, 31, 41, 51, 61]


def test_fill_pattern_is_the_text_excel_writes_at_another_row():
    """The predicted copy moves relative rows only: Excel's fill of
    =SUM(I$2:I3)+LOG10(C3)*'Q1 2024'!B3 from row 3 to row 10."""
    text = "SUM(I$2:I3)+LOG10(C3)*'Q1 2024'!B3"
    pattern = shapes.Shaper("Plan").fill_pattern(text, 3, 9)
    assert pattern.text_at(3) == text
    assert pattern.text_at(10) == "SUM(I$2:I10)+LOG10(C10)*'Q1 2024'!B10"
    assert pattern.moves == ((2, False, 3, True), (3, True, 3, True), (3, True, 3, True))


def test_nodes_are_in_row_then_column_order_whatever_order_the_reader_gives():
    """Formula cells given out of order (a reader may list them so) become nodes by row,
    then column, and a column of them is still one run; an error value read from a cell
    (t="e") is formulas' error in the grid. B3 = A3*2 = 9, C1 = #N/A + 1 = #N/A."""
    formulas = {(3, 2): "A3*2", (1, 3): "A1+1", (1, 2): "A1*2", (2, 2): "A2*2"}
    sheet = xlsxio.SheetData(
        name="Plan", part="", values={(r, 1): r * 1.5 for r in (2, 3)} | {
            (1, 1): xlsxio.XlError("#N/A")},
        formulas={rc: xlsxio.FormulaCell(t) for rc, t in formulas.items()},
        max_row=3, max_col=3)
    book = xlsxio.Workbook(sheets=[sheet], names=[], other_sheets=[])
    e = Engine(book)
    assert list(zip(e.nodes.n_row, e.nodes.n_col)) == [(1, 2), (1, 3), (2, 2), (3, 2)]
    assert _followers(book) == {(2, 2), (3, 2)}
    e = _run(book)
    assert [str(e.nodes.grids[0].get(1, c)) for c in (2, 3)] == ["#N/A", "#N/A"]
    assert e.nodes.grids[0].get(3, 2) == 9.0 and e.nodes.taken[0].mask.sum() == 7


def test_a_copy_grown_past_the_longest_formula_is_refused_on_its_own(monkeypatch):
    """=A9&"xx...x" is 8,192 characters with its =, Excel's limit; its copy in row 10 is
    one character longer, so it is not a follower and gets #VALUE! with the reason (as
    Excel refuses to enter it), while B9 = 9*1.5 & the text = "13.5xx...x"."""
    filler = "x" * (shapes.MAX_FORMULA_CHARS - 6)
    pattern = 'A{r}&"' + filler + '"'
    assert len(pattern.format(r=9)) + 1 == shapes.MAX_FORMULA_CHARS
    book = lambda: _column(pattern, range(8, 12))  # noqa: E731
    assert _followers(book()) == {(9, 2)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert e.nodes.grids[0].get(9, 2) == "13.5" + filler
    assert [str(v) for v in _values(e, 2, [10, 11])] == ["#VALUE!", "#VALUE!"]
    assert "8,193 characters" in e.reasons["Plan!B10"][1]


def test_a_column_of_differing_formulas_is_tried_less_and_less(monkeypatch):
    """Alternating =A{r}*2 / =A{r}+1 has no copies (each cell is shaped on its own);
    three different formulas above a fill cost two tries before the fill is found in
    row 4. B7 = 7*1.5*2 = 21 and B8 = 8*1.5+1 = 13 alternating; C5 = 5*1.5*3 = 22.5."""
    def book():
        f = {(r, 2): f"A{r}*2" if r % 2 else f"A{r}+1" for r in range(1, 41)}
        f.update({(1, 3): "A1", (2, 3): "A2*5", (3, 3): "A3-1"})
        f.update({(r, 3): f"A{r}*3" for r in range(4, 34)})
        return _book(f, {(r, 1): r * 1.5 for r in range(1, 41)})
    assert _followers(book()) == {(r, 3) for r in range(5, 34)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [7, 8]) == [21.0, 13.0] and e.nodes.grids[0].get(5, 3) == 22.5


def test_a_runs_references_as_arrays_are_its_cells_tuples(monkeypatch):
    """The column groups read a reference of all their cells as arrays
    (:meth:`PerNode.columns`): a run's from its row arrays, a lone cell's from its tuple.
    =A{r}*2+SUM(A$2:A{r}) down B3:B40 with B20 written =A20*2+SUM(A$2:A19) (a cell no
    fill writes: the run breaks there) gives the same rows and columns as the cells'
    own rects, and the same values as cell by cell."""
    def book():
        b = _column("A{r}*2+SUM(A$2:A{r})", range(3, 41))
        b.sheets[0].formulas[(20, 2)] = xlsxio.FormulaCell("A20*2+SUM(A$2:A19)")
        return b
    e = _same_as_cell_by_cell(book, monkeypatch)
    members = np.arange(e.nodes.cells, dtype=np.int64)
    assert e.code.rects.blocks  # some cells are held by a run
    for x in range(2):
        sheet, r1, c1, r2, c2 = e.code.rects.columns(members, x)
        tuples = [e.code.rects[i][x] for i in members.tolist()]
        assert sheet == "PLAN"
        assert [tuple(v) for v in zip(r1.tolist(), c1.tolist(), r2.tolist(), c2.tolist())] \
            == [t[1:] for t in tuples]
    # B19 = 19*1.5*2 + (2+...+19)*1.5 = 57 + 283.5; B20 = 60 + 283.5; B21 = 63 + 345
    assert _values(e, 2, [19, 20, 21]) == [340.5, 343.5, 408.0]


def test_fill_texts_with_percent_signs_and_braces_are_predicted_in_bulk(monkeypatch):
    """A run's texts are predicted a chunk at a time by one ``%`` format
    (:func:`filldown._printf`): a ``%`` or a brace in the text is text, and a cell in the
    middle of a long chunk that differs ends the run there, as the text-by-text compare
    does. ="50%{x}"&A{r} down B2:B60 with B45 ="50%{x}"&A44: followers 3..44, 46..60;
    B45 shows 50%{x}66."""
    def book():
        b = _column('"50%{{x}}"&A{r}&"%d"', range(2, 61))
        b.sheets[0].formulas[(45, 2)] = xlsxio.FormulaCell('"50%{x}"&A44&"%d"')
        return b
    assert _followers(book()) == {(r, 2) for r in range(3, 61)} - {(45, 2), (46, 2)}
    e = _same_as_cell_by_cell(book, monkeypatch)
    assert _values(e, 2, [44, 45, 60]) == ["50%{x}66%d", "50%{x}66%d", "50%{x}90%d"]
    pct, fields = filldown._printf("A{0}*B{1}+A{0}&\"{{%}}\"", (0, 1))
    assert (pct, fields.tolist()) == ('A%d*B%d+A%d&"{%%}"', [0, 1, 0])


def test_words_are_found_in_any_slice_of_the_texts(monkeypatch):
    """read._holding looks through the texts joined a slice at a time: a word in the last
    text of a slice, in the first of the next, or in lower case is found; a word cut
    by the join is not invented."""
    from zvmplan_addin.recalc import read
    monkeypatch.setattr(read, "_SLICE", 3)
    texts = ["A1", "B2", "#REF!+1", "C3", "_xlfn.anchorarray(B1)", "D4", "#RE", "F!"]
    words = ("#REF!", "ANCHORARRAY")
    assert read._holding(texts, 3, words) == [True, False]
    assert read._holding(texts, 2, words) == [False, False]
    assert read._holding(texts, len(texts), words) == [True, True]
    assert read._holding(texts[3:], 5, words) == [False, True]


def test_the_templates_cells_are_sorted_out_alike_few_or_many():
    """groups.cells_by_template takes each template's cells out in turn while there are
    few templates, and sorts once when there are many: both give each template (in order
    of its first cell) with its cells in order, as a dict filled cell by cell would."""
    import random
    from zvmplan_addin.recalc.groups import FEW_TEMPLATES, cells_by_template
    rng = random.Random(19)
    for count in (1, 3, FEW_TEMPLATES, FEW_TEMPLATES + 1, 50):
        templates = [object() for _ in range(count)]
        cells = [rng.choice(templates) for _ in range(600)] + [None]
        want: dict = {}
        for i, t in enumerate(cells):
            want.setdefault(id(t), (t, []))[1].append(i)
        got = cells_by_template(cells)
        assert [(t, c.tolist()) for t, c in got] == list(want.values())


def test_sum_of_plain_numbers_is_xsums_sum_to_the_bit():
    """SUM over arguments that are only numbers (``SUM(I$2:I$100001)`` over a column of
    results) skips formulas' step per element and gives xsum's very double, added left
    to right as Excel adds; anything else (TRUE, text, an error, an empty cell, a
    bool array) goes through xsum itself, with the same answer."""
    from formulas.functions.math import xsum
    from zvmplan_addin.recalc.install import _plain_numbers, left_to_right_sum, \
        sum_left_to_right
    import schedula as sh
    rng = np.random.default_rng(19)

    def column(values):
        out = np.empty((len(values), 1), dtype=object)
        out[:, 0] = values
        return out
    floats = column((rng.random(5000) * 1e6 - 5e5).tolist())
    ints = column([3, 1.5, 7, 2 ** 40, 0.1])
    mixed = column([1.0, sh.EMPTY, "7", True, 2.5])
    cases = [(floats,), (floats, 2.5, ints), (ints, 1), (np.array([[0.1, 0.2], [0.3, 1e16]]),),
             (column([]),), (mixed,), (np.array([True, False]),), (1.5, True), (float("nan"), 1.0)]
    for args in cases:
        want = xsum(*args, func=left_to_right_sum)
        got = sum_left_to_right(*args)
        assert type(got) is type(want) and (got == want or (got != got and want != want)), args
    assert _plain_numbers((mixed,)) is None and _plain_numbers((1.5, True)) is None
    assert float(sum_left_to_right(column([1e16, 1.0, 1.0]))) == 1e16  # not pairwise

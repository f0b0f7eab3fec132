"""A column group evaluated at once from explicit inputs (:mod:`.columnar`,
:mod:`.columns`) gives each cell what that cell's formula gives on its own: the values
Excel shows for the same formulas filled down a column."""
from __future__ import annotations

import numpy as np
import pytest
import schedula as sh

from zvmplan_addin import xlsx
from builders import one_sheet_book
from zvmplan_addin.recalc.cells import CellEvaluator, Results
from zvmplan_addin.recalc.columnar import REF_COLUMN, run_columns
from zvmplan_addin.recalc.columns import ColumnEvaluator
from zvmplan_addin.recalc.compile import FormulaCompiler, compile_nodes
from zvmplan_addin.recalc.groups import cells_by_template, column_groups
from zvmplan_addin.recalc.index import CellIndex
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.options import Options
from zvmplan_addin.recalc.order import EvaluationOrder
from zvmplan_addin.recalc.program import LIT, REF
from zvmplan_addin.recalc.read import read_nodes
from zvmplan_addin.recalc.runlog import RunLog
from zvmplan_addin.recalc.values import XL, quiet

ROWS = range(1, 13)


def _compiled(formulas: dict, values: dict, check: bool = False):
    """Read and compile a one-sheet book: (nodes, code, compiler, log, options)."""
    install_functions()
    log = RunLog()
    nodes = read_nodes(one_sheet_book(formulas, values), log)
    options = Options(check=check)
    compiler = FormulaCompiler(nodes, options, log)
    return nodes, compile_nodes(nodes, compiler, log), compiler, log, options


def _column(values: list) -> np.ndarray:
    col = np.empty((len(values), 1), dtype=object)
    col[:, 0] = values
    return col


def test_run_columns_from_explicit_inputs():
    """``=IF(A1>10,A1/4,"small")`` filled down, run once over a column of inputs: a
    number above 10 is divided (Excel: 12 -> 3, 40 -> 10), one at or below is "small",
    text compares greater than any number (Excel: "x">10 is TRUE, so "x"/4 is
    #VALUE!), an error passes through (#N/A stays #N/A), an empty cell is 0."""
    formulas = {(r, 2): f'IF(A{r}>10,A{r}/4,"small")' for r in ROWS}
    nodes, code, _, log, _ = _compiled(formulas, {(r, 1): float(r) for r in ROWS})
    t = code.template[0]
    assert all(code.template[i] is t for i in range(len(ROWS)))  # one compiled formula
    # its inputs: A of the row, then the literals 10, 4 and "small" (shared by all cells)
    assert t.plan == [(REF, 0), (LIT, 0), (LIT, 1), (LIT, 2)]
    assert code.lits[0] == (10, 4, "small")
    inputs = [12.0, 40.0, 10.0, 4.0, "x", XL["#N/A"], sh.EMPTY, -3.0]
    args = [_column(inputs)] + list(code.lits[0])
    notes = []
    with quiet():
        out = run_columns(t.program, args, [REF_COLUMN, 0, 0, 0], len(inputs),
                          lambda k, err: notes.append((k, err)))
    got = out[:, 0].tolist()
    assert got[:4] == [3.0, 10.0, "small", "small"]
    assert str(got[4]) == "#VALUE!" and str(got[5]) == "#N/A"
    assert got[6] == "small" and got[7] == "small"
    assert notes == []


def _evaluate(formulas: dict, values: dict, check: bool):
    """Every node evaluated in order; column groups by :class:`ColumnEvaluator`."""
    nodes, code, compiler, log, options = _compiled(formulas, values, check)
    results = Results()
    cells = CellEvaluator(nodes, code, compiler, results, log, options)
    columns = ColumnEvaluator(cells, check=check)
    index = CellIndex(nodes, results.spill_area)
    groups = column_groups(nodes, code, index, cells_by_template(code.template))
    order = EvaluationOrder(nodes, code, index, groups, results.circular)
    cells.begin_pass(order.final)
    with log.reasons.active(), quiet():
        for step in order:
            if step >= 0:
                cells.evaluate(step)
            else:
                columns.evaluate(groups[~step])
    return nodes, groups, columns, log


# a planner's row: transport, size, a number, an optional cell
PLAN = {(r, 1): ["IUCV", "VCTC", "IUCV", "NOPE"][r % 4] for r in ROWS}
PLAN.update({(r, 2): [9000.0, 1500.0, 32764.0][r % 3] for r in ROWS})
PLAN.update({(r, 3): float(r) for r in ROWS if r != 5})
FORMULAS = {
    4: "C{r}*2+1",                          # numpy arithmetic
    5: 'IF(C{r}>6,"big",C{r})',             # IF over numbers, text results
    6: 'A{r}&"/"&B{r}',                     # text joined with a number
    7: "MB_PER_SEC(A{r},B{r},\"4.4.0\")",   # a zvmplan function, once per combination
    8: "IFERROR(G{r}/C{r},-1)",             # reads the zvmplan column, errors caught
}


@pytest.mark.parametrize("check", [False, True])
def test_a_column_group_equals_cell_by_cell(check):
    """The same book evaluated by column groups and (``check``) each group's cells one by
    one too: no cell differs, every cell but each group's first was a column run, and
    the values are Excel's."""
    formulas = {(r, c): f.format(r=r) for c, f in FORMULAS.items() for r in ROWS}
    nodes, groups, columns, log = _evaluate(formulas, PLAN, check)
    assert len(groups) == len(FORMULAS)
    assert columns.mismatches == []
    assert columns.columnar_cells == len(FORMULAS) * (len(ROWS) - 1)
    grid = nodes.grids[0]
    assert [grid.get(r, 4) for r in (1, 4, 5)] == [3.0, 9.0, 1.0]  # C5 empty: 0*2+1
    assert [grid.get(r, 5) for r in (6, 7, 5)] == [6.0, "big", 0.0]
    assert grid.get(2, 6) == "IUCV/32764" and grid.get(5, 6) == "VCTC/32764"
    nope = [grid.get(r, 7) for r in ROWS if PLAN[(r, 1)] == "NOPE"]
    assert nope and all(str(v) == "#VALUE!" for v in nope)
    assert all(log.reasons.log.get(f"Plan!G{r}") for r in ROWS if PLAN[(r, 1)] == "NOPE")
    assert all(grid.get(r, 8) == -1.0 for r in ROWS if PLAN[(r, 1)] == "NOPE")
    iucv = [r for r in ROWS if PLAN[(r, 1)] == "IUCV" and r != 5]
    assert all(isinstance(grid.get(r, 7), float) and grid.get(r, 7) > 0 for r in iucv)
    assert all(grid.get(r, 8) == grid.get(r, 7) / grid.get(r, 3) for r in iucv)


def test_the_same_book_cell_by_cell_gives_the_same_values():
    """Options(cellwise=True)'s path -- every cell on its own -- against the groups."""
    formulas = {(r, c): f.format(r=r) for c, f in FORMULAS.items() for r in ROWS}
    nodes, _, _, _ = _evaluate(formulas, PLAN, check=False)
    install_functions()
    sheet = xlsx.SheetData(name="Plan", part="", values=dict(PLAN),
                           formulas={rc: xlsx.FormulaCell(t) for rc, t in sorted(formulas.items())},
                           max_row=max(ROWS), max_col=8)
    log = RunLog()
    one = read_nodes(xlsx.Workbook(sheets=[sheet], names=[], other_sheets=[]), log)
    options = Options(cellwise=True)
    compiler = FormulaCompiler(one, options, log)
    code = compile_nodes(one, compiler, log)
    cells = CellEvaluator(one, code, compiler, Results(), log, options)
    order = EvaluationOrder(one, code, CellIndex(one, {}), None, set())
    cells.begin_pass(order.final)
    with log.reasons.active(), quiet():
        for step in order:
            cells.evaluate(step)
    a, b = nodes.grids[0].a, one.grids[0].a
    assert a.shape == b.shape
    for (r, c), v in np.ndenumerate(a):
        w = b[r, c]
        assert type(v) is type(w) and (v == w or str(v) == str(w)), (r + 1, c + 1, v, w)

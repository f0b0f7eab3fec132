"""The order stage on its own (:mod:`zvmplan_addin.recalc.order`): given the nodes, their
compiled templates, the index of formula cells and the column groups, the steps come
in an order where every node follows the formula cells it reads, a column group is one
step, and the cells of a circular reference are listed (Excel, with iterative
calculation off, shows 0 in each and warns of the circular reference)."""
from __future__ import annotations

from builders import one_sheet_book
from zvmplan_addin.recalc.compile import FormulaCompiler, compile_nodes
from zvmplan_addin.recalc.groups import cells_by_template, column_groups
from zvmplan_addin.recalc.index import CellIndex
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.options import Options
from zvmplan_addin.recalc.order import EvaluationOrder, spills_are_read
from zvmplan_addin.recalc.read import read_nodes
from zvmplan_addin.recalc.runlog import RunLog


def _stages(formulas: dict, values: dict | None = None, cellwise: bool = False):
    """Read, compile, index and group a one-sheet book ``formulas`` {(r, c): text}:
    (nodes, code, index, groups), each made by its own stage from explicit inputs."""
    install_functions()
    values = values or {}
    log = RunLog()
    nodes = read_nodes(one_sheet_book(formulas, values), log)
    options = Options(cellwise=cellwise)
    code = compile_nodes(nodes, FormulaCompiler(nodes, options, log), log)
    index = CellIndex(nodes, {})
    groups = None if cellwise else column_groups(nodes, code, index,
                                                 cells_by_template(code.template))
    return nodes, code, index, groups


def _labels(nodes, steps, groups) -> list:
    """Each step as the cell labels it evaluates (a group: the list of its cells)."""
    out = []
    for step in steps:
        if step >= 0:
            out.append(nodes.n_label[step].split("!")[1])
        else:
            out.append([nodes.n_label[i].split("!")[1] for i in groups[~step].members.tolist()])
    return out


def test_each_cell_comes_after_the_cells_it_reads():
    """A chain written backwards (C1 reads B1, which reads A1's formula) is ordered
    forwards; a cell reading a range waits for every formula cell in it."""
    nodes, code, index, groups = _stages(
        {(1, 3): "B1*2", (1, 2): "A1+1", (1, 1): "10", (2, 1): "SUM(A1:C1)"})
    circular: set = set()
    steps = list(EvaluationOrder(nodes, code, index, groups, circular))
    order = _labels(nodes, steps, groups)
    assert sorted(order) == ["A1", "A2", "B1", "C1"]
    assert order.index("A1") < order.index("B1") < order.index("C1") < order.index("A2")
    assert circular == set()


def test_a_filled_column_is_one_step_after_its_inputs():
    """Ten cells of one formula filled down a column, reading a column of formulas: the
    inputs come first (one group of their own), then the whole column as one step."""
    formulas = {(r, 1): f"{r}*3" for r in range(1, 11)}        # A: one generic shape
    formulas.update({(r, 2): f"A{r}+1" for r in range(1, 11)})  # B reads A of its row
    formulas[(1, 3)] = "SUM(B1:B10)"
    nodes, code, index, groups = _stages(formulas)
    steps = list(EvaluationOrder(nodes, code, index, groups, set()))
    order = _labels(nodes, steps, groups)
    column_b = [f"B{r}" for r in range(1, 11)]
    assert column_b in order                   # the ten cells of B are one step
    assert order.index(column_b) < order.index("C1")
    a_steps = [s for s in order if s != "C1" and s != column_b]
    flat_a = [c for s in a_steps for c in (s if isinstance(s, list) else [s])]
    assert sorted(flat_a) == sorted(f"A{r}" for r in range(1, 11))
    assert all(order.index(s) < order.index(column_b) for s in a_steps)


def test_cellwise_gives_every_cell_its_own_step_in_the_same_dependency_order():
    formulas = {(r, 2): f"A{r}+1" for r in range(1, 11)}
    formulas.update({(r, 1): str(r) for r in range(1, 11)})
    nodes, code, index, groups = _stages(formulas, cellwise=True)
    assert groups is None
    steps = list(EvaluationOrder(nodes, code, index, groups, set()))
    assert all(step >= 0 for step in steps) and sorted(steps) == list(range(20))
    order = _labels(nodes, steps, groups)
    assert all(order.index(f"A{r}") < order.index(f"B{r}") for r in range(1, 11))


def test_a_circular_reference_lists_exactly_its_cells():
    """D1 and E1 read each other: both are circular; F1, which reads D1, is not (it
    comes after them); B1, outside the cycle, is not either."""
    nodes, code, index, groups = _stages(
        {(1, 2): "A1+1", (1, 4): "E1+B1", (1, 5): "D1*2", (1, 6): "D1+1"}, {(1, 1): 5.0})
    circular: set = set()
    steps = list(EvaluationOrder(nodes, code, index, groups, circular))
    order = _labels(nodes, steps, groups)
    assert sorted(nodes.n_label[i].split("!")[1] for i in circular) == ["D1", "E1"]
    assert sorted(order) == ["B1", "D1", "E1", "F1"]   # every node once
    assert order.index("B1") < order.index("D1") and order.index("F1") > order.index("D1")


def test_a_cell_reading_itself_is_circular():
    nodes, code, index, groups = _stages({(1, 1): "A1+1", (2, 1): "A1*2"})
    circular: set = set()
    steps = list(EvaluationOrder(nodes, code, index, groups, circular))
    assert [nodes.n_label[i] for i in circular] == ["Plan!A1"]
    assert _labels(nodes, steps, groups) == ["A1", "A2"]


def test_final_ranges_are_those_whose_formula_cells_came_before():
    """:attr:`EvaluationOrder.final` holds a range once every formula cell in it has been
    given (its value can be cached), and never before."""
    nodes, code, index, groups = _stages(
        {(1, 2): "A1+1", (2, 2): "A2+1", (3, 2): "SUM(B1:B2)", (4, 2): "SUM(B1:B2)*2"},
        {(1, 1): 1.0, (2, 1): 2.0})
    order = EvaluationOrder(nodes, code, index, groups, set())
    seen = []
    for step in order:
        seen.append((nodes.n_label[step], ("PLAN", 1, 2, 2, 2) in order.final))
    assert seen[-2:] == [("Plan!B3", True), ("Plan!B4", True)]
    assert all(not final for label, final in seen if label in ("Plan!B1", "Plan!B2"))


def test_spills_are_read_only_when_a_formula_reads_a_spilled_cell():
    """B1 spills into B1:B3 (its anchor is its own); A5 reads B2, a spilled cell."""
    nodes, code, index, groups = _stages({(1, 2): "ZVM_TRANSPORTS()", (5, 1): "B1+1"})
    spill = {0: (1, 2, 3, 2)}  # node 0 (B1) spilled over B1:B3
    assert nodes.n_label[0] == "Plan!B1"
    assert not spills_are_read(nodes, code, CellIndex(nodes, spill), spill)
    nodes, code, index, groups = _stages({(1, 2): "ZVM_TRANSPORTS()", (5, 1): "B2+1"})
    assert nodes.n_label[0] == "Plan!B1"
    assert spills_are_read(nodes, code, CellIndex(nodes, spill), spill)

"""The compile stage's :class:`~zvmplan_addin.recalc.program.DeferredPipe`: formulas'
``DispatchPipe`` is built only when it is called, and :class:`~.program.Program` runs
each formula's functions in the order schedula gives from one run of its own
``Solution``. These tests pin that the order is the very order of the ``DispatchPipe``
the same arguments build, and that every value (with its type) and every error's reason
is the same whether the engine runs the programs or formulas' own pipes."""
from __future__ import annotations

import numpy as np
import pytest

from zvmplan_addin import xlsx as xlsxio
from zvmplan_addin.recalc.engine import Engine
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.options import Options
from zvmplan_addin.recalc import lightgraph, program
from zvmplan_addin.recalc.program import DeferredPipe, pipe_order
from zvmplan_addin.recalc.values import XL

# values in A1:D4: numbers, text, booleans, errors and blanks (B3, D4 empty)
VALUES = {
    (1, 1): 2.0, (2, 1): -3.5, (3, 1): 0.0, (4, 1): 1e308,
    (1, 2): "abc", (2, 2): "10", (4, 2): "",
    (1, 3): True, (2, 3): False, (3, 3): XL["#DIV/0!"], (4, 3): XL["#N/A"],
    (1, 4): 7.0, (2, 4): 8.0, (3, 4): 9.0,
}
# each formula in column F (row = position + 1), a plain (legacy) formula: a range where
# one value is wanted is read at the formula's row (implicit intersection)
FORMULAS = [
    "A1+A2*A3-A4/2", "A1^2&B1", "-A2%", "A1/A3", "B1+1", "B2*2", "C1+C2", "B3+A1",
    "B3&B3", "A4*10", "C3+1", "IFERROR(C3,\"x\")", "IF(A1>A2,B1,C4)", "A1:A4*2",
    "SUM(A1:D4)", "SUM(A1:A4,C1:C2,5)", "COUNT(A1:D4)+COUNTA(A1:D4)",
    "A1=B1", "B1<>\"ABC\"", "B1=\"ABC\"", "C1=TRUE", "A3<B3", "INDEX(A1:D4,2,1)",
    "INDEX(D1:D3,A1)*D1", "ROW()+COLUMN(A1)", "ROWS(A1:D4)*COLUMNS(A1:D4)",
    "ISERROR(C4)+ISNUMBER(A1)", "IF(ISBLANK(B3),\"blank\",B3)", "MAX(A1:A3)-MIN(D1:D3)",
    "AND(C1,C2)", "OR(A1>1,B1=\"abc\")", "LEN(B1)&LEFT(B1,2)", "SUM({1,2;3,4}*2)",
    "INDEX({1,2;3,4},2,2)", "A1+{1,2,3}", "VLOOKUP(8,D1:D3,1,FALSE)",
    "MATCH(\"abc\",B1:B4,0)", "ABS(A2)+ROUND(A2,0)", "T.INV.2T(0.05,10)",
    "CPCPU_PER_MB(\"NOSUCH\",9000)+VCPU_PER_MB(\"NOSUCH2\",1)",
    "VCPU_PER_MB(\"NOSUCH2\",1)&CPCPU_PER_MB(B1,A1)",
    "IFERROR(MB_PER_SEC(\"VCTC\",A1),-1)", "CPCPU_PER_MB(\"VCTC\",D1:D3*1000)",
    "SUM(CPCPU_PER_MB(\"VCTC\",{1000,2000}))", "(A1+A2)*(D1+D2)/(D3-A1)",
    # two errors with reasons in one cell: the first function run leaves its reason
    "CPCPU_PER_MB(B2,D1)+VCPU_PER_MB(B1,A1)", "VCPU_PER_MB(B1,D1)&CPCPU_PER_MB(B2,A1)",
]


def _book() -> xlsxio.Workbook:
    formulas = {(k + 1, 6): xlsxio.FormulaCell(text) for k, text in enumerate(FORMULAS)}
    sheet = xlsxio.SheetData(name="S", part="", values=dict(VALUES), formulas=formulas,
                             max_row=len(FORMULAS), max_col=6)
    return xlsxio.Workbook(sheets=[sheet], names=[], other_sheets=[])


def _typed(v):
    """A cell's value with its type, arrays element by element."""
    if isinstance(v, np.ndarray):
        return ("array", v.shape, [_typed(x) for x in v.ravel().tolist()])
    return (type(v).__name__, repr(v))


def _engine(options: Options) -> Engine:
    install_functions()
    engine = Engine(_book(), options=options)
    engine.recalculate()
    return engine


def test_program_order_is_the_dispatch_pipes_order():
    """For every formula compiled, the order the program runs (from one ``Solution``
    run) is the order of the ``DispatchPipe`` formulas builds from the same graph."""
    engine = _engine(Options(cellwise=True))
    templates = {id(t): t for t in engine.code.template if t is not None}
    deferred = [t for t in templates.values() if isinstance(t.pipe, DeferredPipe)]
    assert len(deferred) >= len(FORMULAS) - 5  # nearly every formula is one shape
    for t in deferred:
        assert t.pipe.order == pipe_order(t.pipe.real)
        assert t.program is not None


@pytest.mark.parametrize("options", [Options(), Options(cellwise=True)])
def test_programs_give_what_formulas_pipes_give(options):
    """Every cell's value, type included (TRUE is not 1, an error is the same error),
    and every error's reason is the same as when each formula runs through formulas'
    own ``DispatchPipe`` (``Options(pipe=True)``)."""
    ours, theirs = _engine(options), _engine(Options(pipe=True, cellwise=options.cellwise))
    grid_ours, grid_theirs = ours.nodes.grids[0], theirs.nodes.grids[0]
    for k, text in enumerate(FORMULAS):
        got, expected = grid_ours.get(k + 1, 6), grid_theirs.get(k + 1, 6)
        assert _typed(got) == _typed(expected), text
    assert ours.log.reasons.log == theirs.log.reasons.log
    assert len(ours.log.reasons.log) >= 4  # the unknown transports leave their reasons


def test_the_pipe_is_built_only_when_called():
    """A formula the program runs never builds formulas' ``DispatchPipe``."""
    engine = _engine(Options())
    built = [t for t in {id(t): t for t in engine.code.template}.values()
             if isinstance(t.pipe, DeferredPipe) and t.pipe._real is not None]
    programs = [t for t in engine.code.template if t is not None and t.program is not None]
    assert programs and len(built) < len(programs)


@pytest.mark.parametrize("missing", [AttributeError, TypeError])
def test_a_schedula_without_the_internals_read_gives_the_pipes_own_order(monkeypatch,
                                                                          missing):
    """schedula>=1.5 is allowed, and the order is read from its Solution's internals: on
    a schedula whose internals differ (an attribute gone, other arguments) the order is
    the DispatchPipe's own, built at once, and every value and reason is as before.
    (On a schedula :mod:`~zvmplan_addin.recalc.pipeorder` does not know, its search gives
    None and the Solution run is read.)"""
    def moved(self):
        raise missing("schedula's internals moved")

    expected = _engine(Options())
    monkeypatch.setattr(lightgraph, "_usable", [False])  # formulas' builder, DeferredPipe
    monkeypatch.setattr(program, "straight_order", lambda *args: None)
    monkeypatch.setattr(DeferredPipe, "_order", moved)
    got = _engine(Options())
    deferred = [t for t in {id(t): t for t in got.code.template if t is not None}.values()
                if isinstance(t.pipe, DeferredPipe)]
    assert deferred and all(t.pipe._real is not None and
                            t.pipe.order == pipe_order(t.pipe.real) for t in deferred)
    for k, text in enumerate(FORMULAS):
        assert _typed(got.nodes.grids[0].get(k + 1, 6)) == \
            _typed(expected.nodes.grids[0].get(k + 1, 6)), text
    assert got.log.reasons.log == expected.log.reasons.log

"""The stages composed: :class:`Engine` recalculates one workbook read by
:func:`zvmplan_addin.xlsx.read_workbook`; :func:`calc` does it for one file.

Read top to bottom, a run is::

    nodes = read_nodes(book, log)                     # 1 read
    code = compile_nodes(nodes, compiler, log)        # 2 shape and compile
    index = CellIndex(nodes, spills)                  # 3 index the formula cells
    groups = column_groups(nodes, code, index, ...)   # 4 order: column groups, then
    for step in EvaluationOrder(nodes, code, index, groups, circular):
        columns.evaluate(groups[~step]) or cells.evaluate(step)   # 5 evaluate
    updates(nodes, results, formula_values(nodes, code))          # 6 write

(a second pass from 3 when a spilled array landed on cells that other formulas read).
Each stage takes what the ones before it made and gives its own result; none calls a
later one."""
from __future__ import annotations

import contextlib
import gc
import os
import time
from typing import Callable

import numpy as np

from .. import xlsx
from . import cycles, datesystem, dynamic, formulacells
from .cells import CellEvaluator, Results
from .columns import ColumnEvaluator
from .compile import Compiled, FormulaCompiler, compile_nodes
from .groups import cells_by_template, column_groups
from .index import CellIndex
from .install import install_functions
from .options import Options
from .order import EvaluationOrder, spills_are_read
from .read import read_nodes, release
from .runlog import RunLog
from .excel import text as characters
from .values import quiet, same
from .write import CalcReport, WrittenPart, fill_report, formula_values, updates


DYNAMIC_PASSES = 4          # passes after the first for OFFSET/INDIRECT to settle


class EngineError(Exception):
    """The recalculation could not be done; the message is one line."""


class StaleValues(EngineError):
    """Some formula cells could not be computed and would keep the value cached in the
    file (:attr:`CalcReport.stale`); nothing was written. ``calc(..., keep_stale=True)``
    writes them (flagged for recalculation on open)."""

    def __init__(self, report: CalcReport):
        self.report = report
        n = len(report.stale)
        super().__init__(f"{n} formula cell{'s' if n != 1 else ''} could not be computed "
                         f"and would keep the value cached in {os.path.basename(report.in_path)}"
                         "; nothing written (--keep-stale writes them)")


class Engine:
    """Recalculate one workbook ``book``: :meth:`recalculate`, then :meth:`updates` and
    :meth:`report`. ``progress(done, total)`` is called as nodes are evaluated;
    ``options`` default to :meth:`Options.from_environ` (the tests set them so).

    The named collaborators, each made by one stage: :attr:`nodes` (read), :attr:`code`
    (compile, None before :meth:`run`), :attr:`compiler`, :attr:`results` (what
    evaluating leaves besides the grids' values), :attr:`log` (reasons, warnings)."""

    def __init__(self, book: xlsx.Workbook, progress: Callable[[int, int], None] | None = None,
                 options: Options | None = None):
        self.options = Options.from_environ() if options is None else options
        self.progress = progress
        self.log = RunLog()
        self.nodes = read_nodes(book, self.log)
        self.compiler = FormulaCompiler(self.nodes, self.options, self.log)
        self.results = Results()
        self.code: Compiled | None = None
        self._by_template: list = []   # cells_by_template(code.template), made by run
        self.columnar_cells = 0        # cells a column run computed
        self.column_mismatches: list = []  # options.check: column != cell by cell
        self._values: dict | None = None
        self._position = None          # each node's step in the last pass (cycles.py)

    def recalculate(self) -> None:
        """:meth:`run` with each error's reason logged in :attr:`log`, the ``formulas``
        package's warnings silenced, the workbook's date system and its facts (hidden rows,
        SUBTOTAL cells) in force: how every caller runs the engine."""
        facts = self.nodes.facts.active() if self.nodes.facts is not None else \
            contextlib.nullcontext()
        with self.log.reasons.active(), facts, quiet(), datesystem.active(self.nodes.date1904), \
                formulacells.active(self._is_formula), \
                characters.mac_roman(getattr(self.nodes, "mac", False)):
            self.run()

    def _is_formula(self, sheet: str, r: int, c: int) -> bool:
        """Does cell (``r``, ``c``) of the sheet keyed ``sheet`` hold a formula (or lie in
        an array formula's range)? For ISFORMULA; the set is made at its first call."""
        cells = self.__dict__.get("_formula_cells")
        if cells is None:
            nodes = self.nodes
            cells = set(zip(nodes.n_sheet[:nodes.cells], nodes.n_row[:nodes.cells],
                            nodes.n_col[:nodes.cells]))
            for i, area in enumerate(nodes.n_area[:nodes.cells]):
                if area is not None:
                    s = nodes.n_sheet[i]
                    cells.update((s, rr, cc) for rr in range(area[0], area[2] + 1)
                                 for cc in range(area[1], area[3] + 1))
            self._formula_cells = cells
        return (self.nodes.sheet_index.get(sheet), r, c) in cells

    def run(self) -> None:
        """Compile every node, then evaluate them in dependency order; a second pass when
        a spilled array landed on cells that other formulas read."""
        nodes, results = self.nodes, self.results
        self.code = code = compile_nodes(nodes, self.compiler, self.log)
        self._by_template = cells_by_template(code.template)  # the same in every pass
        cells = CellEvaluator(nodes, code, self.compiler, results, self.log, self.options)
        columns = ColumnEvaluator(cells, check=self.options.check)
        with dynamic.active(cells.ranges, nodes.sheet_index, nodes.names):
            self._pass(cells, columns, CellIndex(nodes, results.spill_area))
            if results.spill_area:
                index = CellIndex(nodes, results.spill_area)  # now with the spilled cells
                if spills_are_read(nodes, code, index, results.spill_area):
                    self._pass(cells, columns, index)
            if any(t is not None and t.dynamic for t, _ in self._by_template):
                self._settle(cells, columns)
            if results.circular:  # what Excel shows of them (iterating if the book asks)
                cycles.resolve(nodes, code, CellIndex(nodes, results.spill_area), cells,
                               results, self.log, self._position)
        self.columnar_cells = columns.columnar_cells
        self._by_template = []  # (each template's cells: made again by a later run)
        self.column_mismatches = columns.mismatches

    def _settle(self, cells: CellEvaluator, columns: ColumnEvaluator) -> None:
        """OFFSET and INDIRECT read cells the order stage could not see: evaluate again
        until no formula cell changes (at most :data:`DYNAMIC_PASSES` more passes), so
        what they point to is computed first; a workbook still changing is reported."""
        nodes = self.nodes
        for _ in range(DYNAMIC_PASSES):
            before = self._cell_values()
            self._pass(cells, columns, CellIndex(nodes, self.results.spill_area))
            if all(map(same, before, self._cell_values())):
                return
        self.log.warnings.append(
            f"OFFSET/INDIRECT: values still changed after {DYNAMIC_PASSES + 1} passes "
            "(a circular reference through them?); they may not be final")

    def _cell_values(self) -> list:
        nodes = self.nodes
        return [nodes.grids[s].get(r, c) for s, r, c in
                zip(nodes.n_sheet[:nodes.cells], nodes.n_row[:nodes.cells],
                    nodes.n_col[:nodes.cells])]

    def _pass(self, cells: CellEvaluator, columns: ColumnEvaluator, index: CellIndex) -> None:
        """Evaluate every node once, in the order of :class:`~.order.EvaluationOrder`."""
        nodes, code = self.nodes, self.code
        by_template = self._by_template
        for t, _ in by_template:
            if t is not None and t.program is not None:
                t.program.cache = {}
        groups = None if self.options.cellwise else \
            column_groups(nodes, code, index, by_template)
        order = EvaluationOrder(nodes, code, index, groups, self.results.circular)
        cells.begin_pass(order.final)
        columns.begin_pass()
        done, total, progress = 0, len(nodes), self.progress
        position = self._position = np.zeros(total, dtype=np.int64)  # each node's step
        for k, step in enumerate(order):
            if step >= 0:
                cells.evaluate(step)
                position[step] = k
                count = 1
            else:
                group = groups[~step]
                columns.evaluate(group)
                position[group.members] = k
                count = len(group.members)
            before, done = done, done + count
            if progress is not None and (before >> 8 != done >> 8 or done == total):
                progress(done, total)

    def release_compiled(self) -> None:
        """Let go of what only compiling, ordering and evaluating read (see
        :meth:`~.compile.Compiled.released`) before the values are written."""
        self.code = self.code.released()

    def updates(self) -> dict[int, object]:
        """sheet -> the values to cache (:func:`~.write.updates`)."""
        return updates(self.nodes, self.results, self._formula_values())

    def report(self, report: CalcReport) -> CalcReport:
        """``report`` filled (:func:`~.write.fill_report`)."""
        out = fill_report(report, self.nodes, self.results, self.log, self.compiler.compiled,
                          self._formula_values())
        self._values = None  # a later run gathers afresh
        return out

    def _formula_values(self) -> dict:
        if self._values is None:
            self._values = formula_values(self.nodes, self.code)
        return self._values

    # what the tests look at
    @property
    def n_label(self):
        return self.nodes.n_label

    @property
    def reasons(self) -> dict:
        return self.log.reasons.log

    def _column_groups(self) -> list:
        """The members of each column group, as the last pass formed them."""
        index = CellIndex(self.nodes, self.results.spill_area)
        return [g.members for g in column_groups(self.nodes, self.code, index,
                                                 cells_by_template(self.code.template))]


def calc(in_path, out_path=None, *, in_place: bool = False,
         progress: Callable[[int, int], None] | None = None,
         package: xlsx.XlsxPackage | None = None, options: Options | None = None,
         keep_stale: bool = True, written: dict | None = None) -> CalcReport:
    """Recalculate every formula of ``in_path`` and write ``out_path`` with the formulas
    kept and their values cached. ``in_path`` is never modified unless ``in_place``
    (then ``out_path`` must be None or the same file). ``package``: ``in_path`` already
    opened with :func:`~zvmplan_addin.xlsx.safe_open_xlsx` (closed on return). Raises
    :class:`~zvmplan_addin.xlsx.UnsafeWorkbookError` for a file it refuses and
    :class:`EngineError` for a bad request. ``options``: how the engine runs (default
    :meth:`Options.from_environ`, the one place the environment is read). A formula
    the engine cannot compute keeps the value cached in the file (listed in the report's
    ``stale``; the file is flagged for recalculation on open); with ``keep_stale=False``
    such a cell raises :class:`StaleValues` instead and nothing is written (``zvmplan
    calc`` does so unless given ``--keep-stale``). ``written``: sheet name -> None for the
    sheets whose written part the caller will read; each one the workbook has is set to
    its :class:`~.write.WrittenPart` (``fill`` reads its results from them)."""
    in_path = os.fspath(in_path)
    if options is None:
        options = Options.from_environ()
    try:
        return _calc(in_path, out_path, in_place, progress, package, options, keep_stale,
                     written)
    finally:
        if package is not None:
            package.close()


def _calc(in_path, out_path, in_place, progress, package, options,
          keep_stale=True, written=None) -> CalcReport:
    if in_place:
        if out_path is not None and not _same_file(in_path, os.fspath(out_path)):
            raise EngineError("--in-place writes the input file; do not also give -o")
        out_path = os.path.realpath(in_path)  # through a symlink, to the real file
    elif out_path is None:
        raise EngineError("no output file: give -o OUT.xlsx, or --in-place")
    else:
        out_path = os.fspath(out_path)
        if _same_file(in_path, out_path):
            raise EngineError(f"{out_path} is the input file; use --in-place to overwrite it")
    out_dir = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(out_dir):
        raise EngineError(f"{out_dir}: no such directory")
    report = CalcReport(in_path, out_path)
    t0 = time.perf_counter()
    with (package or xlsx.safe_open_xlsx(in_path, parse_sheets=False)) as pkg:
        t1 = time.perf_counter()
        book = xlsx.read_workbook(pkg)
        t2 = time.perf_counter()
        install_functions()
        engine = Engine(book, progress, options)
        release(book)  # the engine holds what it needs: let the cell dicts go
        with _no_gc():
            engine.recalculate()
            engine.release_compiled()  # before writing: the write stage reads the grids
            t3 = time.perf_counter()
            replaced = {}
            for s, rows in engine.updates().items():
                sheet = book.sheets[s]  # the part's bytes as read (expat checked the UTF-8)
                data = pkg.read(sheet.part)
                replaced[sheet.part] = xlsx.rewrite_sheet_blocks(  # made while written
                    data, rows, sheet.part, layout=sheet.layout)
                if written is not None and sheet.name in written:
                    written[sheet.name] = WrittenPart(sheet.part, data, rows, sheet.layout)
            for sheet in book.sheets if written is not None else ():
                if sheet.name in written and written[sheet.name] is None:
                    written[sheet.name] = WrittenPart(sheet.part, pkg.read(sheet.part), None,
                                                      None)
        engine.report(report)
        if report.stale and not keep_stale:
            raise StaleValues(report)
        xlsx.write_package(pkg, out_path, replaced, report.full_calc_on_load)
        t4 = time.perf_counter()
    report.seconds = t4 - t0
    report.timings = {"check": t1 - t0, "read": t2 - t1, "evaluate": t3 - t2, "write": t4 - t3}
    return report


@contextlib.contextmanager
def _no_gc():
    """The objects alive when the engine starts (the grids, a few per formula cell) are
    frozen out of the cyclic garbage collector's view while it works: they live until
    the end, and the collector would otherwise rescan them again and again as the engine
    makes more. New objects are still collected."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)

"""``calc(in_path, out_path)``: the stages in order, on one workbook."""
from __future__ import annotations

import contextlib
import gc
import os
import time
from typing import Callable

import numpy as np

from .. import xlsxio
from .columnar import Columns
from .compile import Compiler, FormulaCompiler
from .evaluate import Evaluator
from .index import CellIndex
from .install import Reasons, install_functions
from .order import Order
from .read import Nodes, release
from .values import quiet
from .write import CalcReport, Results


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


class Engine(Nodes, Compiler, FormulaCompiler, CellIndex, Order, Evaluator, Columns, Results):
    """Recalculate one workbook read by :func:`zvmplan_addin.xlsxio.read_workbook`:
    :meth:`run`, then :meth:`updates` and :meth:`report`."""

    def __init__(self, book: xlsxio.Workbook, progress: Callable[[int, int], None] | None = None):
        self.progress = progress
        self.reasons: dict[str, tuple[str, str]] = {}
        self.warnings: list[str] = []
        self.unsupported: set[str] = set()
        self._read(book)
        self._setup_compile()
        n = len(self.n_text)
        self.status = np.zeros(n, dtype=np.int8)
        self.circular: set[int] = set()
        self.spill_area: dict[int, tuple] = {}
        self.claimed: dict[tuple, int] = {}
        self.name_values: dict = {}
        # ZVMPLAN_ENGINE_CELLWISE=1: every cell on its own (the engine before columns)
        self.cellwise = bool(os.environ.get("ZVMPLAN_ENGINE_CELLWISE"))
        self.column_mismatches: list = []  # ZVMPLAN_ENGINE_CHECK=1: column != cell by cell
        self.columnar_cells = 0            # cells evaluated in a column run

    def recalculate(self) -> None:
        """:meth:`run` with each error's reason logged in :attr:`reasons` and the
        ``formulas`` package's warnings silenced: how every caller runs the engine."""
        Reasons.log = self.reasons
        try:
            with quiet():
                self.run()
        finally:
            Reasons.log = Reasons.cell = None


def calc(in_path, out_path=None, *, in_place: bool = False,
         progress: Callable[[int, int], None] | None = None,
         package: xlsxio.XlsxPackage | None = None, keep_stale: bool = True) -> CalcReport:
    """Recalculate every formula of ``in_path`` and write ``out_path`` with the formulas
    kept and their values cached. ``in_path`` is never modified unless ``in_place``
    (then ``out_path`` must be None or the same file). ``package``: ``in_path`` already
    opened with :func:`~zvmplan_addin.xlsxio.safe_open_xlsx` (closed on return). Raises
    :class:`~zvmplan_addin.xlsxio.UnsafeWorkbookError` for a file it refuses and
    :class:`EngineError` for a bad request. A formula the engine cannot compute keeps
    the value cached in the file (listed in the report's ``stale``, and the file is
    flagged for recalculation on open); with ``keep_stale=False`` such a cell raises
    :class:`StaleValues` instead and nothing is written (``zvmplan calc`` does so unless
    given ``--keep-stale``)."""
    in_path = os.fspath(in_path)
    try:
        return _calc(in_path, out_path, in_place, progress, package, keep_stale)
    finally:
        if package is not None:
            package.close()


def _calc(in_path, out_path, in_place, progress, package, keep_stale=True) -> CalcReport:
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
    with (package or xlsxio.safe_open_xlsx(in_path, parse_sheets=False)) as pkg:
        t1 = time.perf_counter()
        book = xlsxio.read_workbook(pkg)
        t2 = time.perf_counter()
        install_functions()
        engine = Engine(book, progress)
        release(book)  # the engine holds what it needs: let the cell dicts go
        with _no_gc():
            engine.recalculate()
            engine.release_compiled()  # before writing: the write stage reads the grids
            t3 = time.perf_counter()
            replaced = {}
            for s, rows in engine.updates().items():
                sheet = book.sheets[s]  # the part's bytes as read (expat checked the UTF-8)
                replaced[sheet.part] = xlsxio.rewrite_sheet_blocks(  # made while written
                    pkg.read(sheet.part), rows, sheet.part, layout=sheet.layout)
        engine.report(report)
        if report.stale and not keep_stale:
            raise StaleValues(report)
        xlsxio.write_package(pkg, out_path, replaced, report.full_calc_on_load)
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

"""Stage 6, write back: the value to cache for every formula cell (and the cells its
array result fills), in the form :func:`zvmplan_addin.xlsxio.rewrite_sheet` takes, and
the report of what was done."""
from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field

import numpy as np
from formulas.tokens.operand import XlError as FXlError

from .. import xlsxio
from ..xlsx.rewrite import CellValues
from . import shapes
from .values import for_file


@dataclass
class CalcReport:
    """What ``calc`` did. ``errors`` maps a cell (``Sheet!A1``) to (code, reason) for
    the errors zvmplan functions returned (the first 1000)."""
    in_path: str
    out_path: str
    formulas: int = 0
    compiled: int = 0
    seconds: float = 0.0
    errors: dict = field(default_factory=dict)
    error_cells: int = 0
    circular: list = field(default_factory=list)
    spills: int = 0
    warnings: list = field(default_factory=list)
    unsupported: set = field(default_factory=set)
    full_calc_on_load: bool = False
    timings: dict = field(default_factory=dict)
    sheets: list = field(default_factory=list)    # the workbook's worksheet names
    #: formula cells the engine could not compute, which keep the value cached in the
    #: file (``Sheet!A1`` -> why): *stale* values, which ``calc`` writes only when asked
    stale: dict = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"{self.formulas} formula cells recalculated in {self.seconds:.2f} s "
                 f"({self.compiled} compiled)"]
        if self.error_cells:
            parts.append(f"{self.error_cells} show an error")
        if self.circular:
            parts.append(f"{len(self.circular)} on circular references (set to 0)")
        if self.spills:
            parts.append(f"{self.spills} spilled arrays")
        return "; ".join(parts)


#: how the engine's warning about a formula it could not compute ends
KEPT_CACHED = "kept its cached value"


def stale_cells(warnings) -> dict:
    """``Sheet!A1`` -> why, for each warning that a formula cell kept its cached value
    (a formula the engine cannot compile, a data table)."""
    out = {}
    for line in warnings:
        cell, sep, why = line.partition(": ")
        if sep and why.endswith(KEPT_CACHED):
            out[cell] = why[:-len(KEPT_CACHED)].rstrip("; ")
    return out


class Results:
    """The results (a mixin of :class:`~zvmplan_addin.recalc.calc.Engine`)."""

    def updates(self) -> dict[int, object]:
        """sheet -> the values to cache. For a sheet whose formula cells are all plain
        (the common case) a :class:`~zvmplan_addin.xlsx.rewrite.CellValues`: rows,
        columns and values gathered with one numpy fancy index per dense sheet. Where
        there are array formulas or spills, row -> col -> value: a bare value for a plain
        formula cell, an :class:`~zvmplan_addin.xlsxio.CellUpdate` for the cells of an
        array formula or a spill (array_ref set on a spilled anchor)."""
        areas = self.n_area[:self.cells]
        if self.spill_area or any(map(operator.is_not, areas, itertools.repeat(None))):
            return self._updates_by_cell(self._formula_ids())
        out: dict[int, object] = {}
        kept = (float, str, bool)
        for s, (_, rows, cols, values) in self._formula_values().items():
            out[s] = CellValues(rows, cols, [v if type(v) in kept else for_file(v)
                                             for v in values])
        return out

    def _formula_ids(self) -> np.ndarray:
        """The nodes that are formula cells the engine compiled (an uncompiled one keeps
        its cached value and is not written)."""
        pipes = map(operator.attrgetter("pipe"), self.template[:self.cells])
        compiled = np.fromiter(map(operator.is_not, pipes, itertools.repeat(None)),
                               dtype=bool, count=self.cells)
        return np.flatnonzero(compiled)

    def _formula_values(self) -> dict[int, tuple]:
        """sheet -> (node ids, rows, cols, values) of the compiled formula cells: numpy
        arrays, the values (an object array) gathered by one fancy index on a dense
        grid. Gathered once after the run for :meth:`updates` and :meth:`report` (which
        lets it go)."""
        gathered = getattr(self, "_gathered", None)
        if gathered is None:
            gathered = self._gathered = self._gather(self._formula_ids())
        return gathered

    def _gather(self, ids: np.ndarray) -> dict[int, tuple]:
        sheet = np.asarray(self.n_sheet[:self.cells], dtype=np.int64)[ids]
        rows = np.asarray(self.n_row[:self.cells], dtype=np.int64)[ids]
        cols = np.asarray(self.n_col[:self.cells], dtype=np.int64)[ids]
        out = {}
        for s in np.unique(sheet).tolist():
            mine = sheet == s
            rr, cc = rows[mine], cols[mine]
            grid = self.grids[s]
            if grid.dense and rr.max() <= grid.rows and cc.max() <= grid.cols:
                values = grid.a[rr - 1, cc - 1]
            else:
                values = np.empty(len(rr), dtype=object)
                values[:] = [grid.get(r, c) for r, c in zip(rr.tolist(), cc.tolist())]
            out[s] = (ids[mine], rr, cc, values)
        return out

    def _updates_by_cell(self, ids) -> dict[int, dict]:
        out: dict[int, dict] = {}
        for i in ids.tolist():
            s, r, c = self.n_sheet[i], self.n_row[i], self.n_col[i]
            area = self.n_area[i]
            spill = self.spill_area.get(i) if area is None else None
            grid = self.grids[s]
            rows = out.setdefault(s, {})
            if spill is not None:
                ref = f"{shapes.a1(spill[0], spill[1])}:{shapes.a1(spill[2], spill[3])}"
                for rr in range(spill[0], spill[2] + 1):
                    for cc in range(spill[1], spill[3] + 1):
                        rows.setdefault(rr, {})[cc] = xlsxio.CellUpdate(
                            for_file(grid.get(rr, cc)), ref if (rr, cc) == (r, c) else None)
                continue
            area = area or (r, c, r, c)
            for rr in range(area[0], area[2] + 1):
                for cc in range(area[1], area[3] + 1):
                    rows.setdefault(rr, {})[cc] = xlsxio.CellUpdate(for_file(grid.get(rr, cc)))
        return out

    def report(self, report: CalcReport) -> CalcReport:
        report.formulas = self.cells - self.kept_cached
        report.sheets = [sheet.name for sheet in self.book.sheets]
        report.compiled = self.compiled
        report.circular = sorted(self.n_label[i] for i in self.circular)
        report.spills = len(self.spill_area)
        report.warnings = list(self.warnings)
        report.stale = stale_cells(self.warnings)
        report.unsupported = set(self.unsupported)
        bad = []            # the formula cells that show an error, in node order
        for s, (mine, _, _, values) in self._formula_values().items():
            bad.append(mine[[isinstance(v, FXlError) for v in values]])
        bad = np.sort(np.concatenate(bad)) if bad else np.zeros(0, dtype=np.int64)
        errors, shown = len(bad), {}
        for i in bad.tolist():
            if len(shown) >= 1000:
                break
            label = self.n_label[i]
            why = self.reasons.get(label)
            if why is not None and why[0] == str(self.grids[self.n_sheet[i]].get(
                    self.n_row[i], self.n_col[i])):
                shown[label] = why  # only errors the cell still shows
        report.error_cells = errors
        report.errors = shown
        self._gathered = None           # a later run gathers afresh
        report.full_calc_on_load = bool(self.kept_cached or self.unsupported)
        return report

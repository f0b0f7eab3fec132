"""Stage 6, write back: the value to cache for every formula cell (and the cells its
array result fills), in the form :func:`zvmplan_addin.xlsxio.rewrite_sheet` takes, and
the report of what was done."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from formulas.tokens.operand import XlError as FXlError

from .. import xlsxio
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


class Results:
    """The results (a mixin of :class:`~zvmplan_addin.recalc.calc.Engine`)."""

    def updates(self) -> dict[int, dict[int, dict[int, object]]]:
        """sheet -> row -> col -> the value to cache: a bare value for a plain formula
        cell, an :class:`~zvmplan_addin.xlsxio.CellUpdate` for the cells of an array
        formula or a spill (array_ref set on a spilled anchor)."""
        out: dict[int, dict] = {}
        plain: dict[int, list] = {}  # sheet -> the plain formula cells, gathered at once
        simple = not self.spill_area and all(a is None for a in self.n_area[:self.cells])
        for i in range(self.cells):
            if self.template[i].pipe is None:
                continue
            s, r, c = self.n_sheet[i], self.n_row[i], self.n_col[i]
            if simple:
                plain.setdefault(s, []).append(i)
                continue
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
        for s, ids in plain.items():
            rows = out.setdefault(s, {})
            grid = self.grids[s]
            rr = [self.n_row[i] for i in ids]
            cc = [self.n_col[i] for i in ids]
            if grid.dense:
                values = grid.a[np.array(rr) - 1, np.array(cc) - 1].tolist()
            else:
                values = [grid.get(r, c) for r, c in zip(rr, cc)]
            kept = (float, str, bool)
            for r, c, v in zip(rr, cc, values):
                cells = rows.get(r)
                if cells is None:
                    cells = rows[r] = {}
                cells[c] = v if type(v) in kept else for_file(v)
        return out

    def report(self, report: CalcReport) -> CalcReport:
        report.formulas = self.cells - self.kept_cached
        report.sheets = [sheet.name for sheet in self.book.sheets]
        report.compiled = self.compiled
        report.circular = sorted(self.n_label[i] for i in self.circular)
        report.spills = len(self.spill_area)
        report.warnings = list(self.warnings)
        report.unsupported = set(self.unsupported)
        errors, shown = 0, {}
        for i in range(self.cells):
            if self.template[i].pipe is None:
                continue
            v = self.grids[self.n_sheet[i]].get(self.n_row[i], self.n_col[i])
            if isinstance(v, FXlError):
                errors += 1
                why = self.reasons.get(self.n_label[i])
                if why is not None and why[0] == str(v) and len(shown) < 1000:
                    shown[self.n_label[i]] = why  # only errors the cell still shows
        report.error_cells = errors
        report.errors = shown
        report.full_calc_on_load = bool(self.kept_cached or self.unsupported)
        return report

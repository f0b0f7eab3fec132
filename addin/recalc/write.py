"""Stage 6, write back: the value to cache for every formula cell (and the cells its
array result fills), in the form :func:`zvmplan_addin.xlsx.rewrite_sheet` takes
(:func:`updates`), and the report of what was done (:func:`fill_report`)."""
from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from formulas.tokens.operand import XlError as FXlError

from .. import xlsx
from ..xlsx import CellValues
from ..xlsx.valuetexts import per_object
from . import shapes
from .cells import Results
from .compile import Compiled
from .read import Nodes
from .runlog import RunLog
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


class WrittenPart(NamedTuple):
    """What the writer was given for one sheet part: ``data``, the part's bytes as read;
    ``updates``, the values cached into it (:func:`updates`' form; None: the part is
    written unchanged); ``layout``, where its formula cells sit
    (:class:`~zvmplan_addin.xlsx.sheet.Layout`, or None). The written part is a function
    of these, so a caller that knows the writer's rules can have the values it holds
    without reading the file back (``zvmplan_workbook.readback``)."""
    part: str
    data: bytes
    updates: object
    layout: object


def formula_values(nodes: Nodes, code: Compiled) -> dict[int, tuple]:
    """sheet -> (node ids, rows, cols, values) of the compiled formula cells (an
    uncompiled one keeps its cached value and is not written): numpy arrays, the values
    (an object array) gathered by one fancy index on a dense grid. Gathered once after
    the evaluation for :func:`updates` and :func:`fill_report`."""
    n = nodes.cells
    pipes = map(operator.attrgetter("pipe"), code.template[:n])
    compiled = np.fromiter(map(operator.is_not, pipes, itertools.repeat(None)),
                           dtype=bool, count=n)
    ids = np.flatnonzero(compiled)
    sheet, rows, cols = (a[ids] for a in nodes.where())  # copies: the writer keeps them
    out = {}
    sheets = np.flatnonzero(np.bincount(sheet)).tolist() if len(sheet) else []
    for s in sheets:
        mine = sheet == s if len(sheets) > 1 else slice(None)
        rr, cc = rows[mine], cols[mine]
        grid = nodes.grids[s]
        if grid.dense and rr.max() <= grid.rows and cc.max() <= grid.cols:
            values = grid.a[rr - 1, cc - 1]
        else:
            values = np.empty(len(rr), dtype=object)
            values[:] = [grid.get(r, c) for r, c in zip(rr.tolist(), cc.tolist())]
        out[s] = (ids[mine], rr, cc, values)
    return out


def _of_types(values: np.ndarray, chosen) -> np.ndarray:
    """A mask of ``values`` (an object array): True where ``chosen(type)`` is, the test
    made once per distinct type."""
    listed = values.tolist()
    kinds = set(map(type, listed))
    picked = [k for k in kinds if chosen(k)]
    if len(picked) == len(kinds):
        return np.ones(len(listed), dtype=bool)
    if not picked:
        return np.zeros(len(listed), dtype=bool)
    return np.fromiter(map(set(picked).__contains__, map(type, listed)), dtype=bool,
                       count=len(listed))


def updates(nodes: Nodes, results: Results, values: dict) -> dict[int, object]:
    """sheet -> the values to cache (``values``: :func:`formula_values`). For a sheet whose
    formula cells are all plain (the common case) a
    :class:`~zvmplan_addin.xlsx.CellValues`: rows, columns and values as numpy arrays.
    Where there are array formulas or spills, row -> col -> value: an
    :class:`~zvmplan_addin.xlsx.CellUpdate` for each cell of an array formula or a spill
    (array_ref set on a spilled anchor)."""
    if results.spill_area or nodes.in_area().any():
        return _updates_by_cell(nodes, results, values)
    out: dict[int, object] = {}
    kept = (float, str, bool)
    for s, (_, rows, cols, cached) in values.items():
        other = np.flatnonzero(_of_types(cached, lambda k: k not in kept))
        if len(other):          # formulas' errors, an empty result: as the file writes them
            cached = cached.copy()
            converted = np.empty(len(other), dtype=object)
            converted[:] = per_object(for_file, cached[other].tolist())
            cached[other] = converted
        out[s] = CellValues(rows, cols, cached)
    return out


def _updates_by_cell(nodes: Nodes, results: Results, values: dict) -> dict[int, dict]:
    ids = np.sort(np.concatenate([v[0] for v in values.values()])) if values else \
        np.zeros(0, dtype=np.int64)
    out: dict[int, dict] = {}
    for i in ids.tolist():
        s, r, c = nodes.n_sheet[i], nodes.n_row[i], nodes.n_col[i]
        area = nodes.n_area[i]
        spill = results.spill_area.get(i) if area is None else None
        grid = nodes.grids[s]
        rows = out.setdefault(s, {})
        if spill is not None:
            ref = f"{shapes.a1(spill[0], spill[1])}:{shapes.a1(spill[2], spill[3])}"
            for rr in range(spill[0], spill[2] + 1):
                for cc in range(spill[1], spill[3] + 1):
                    rows.setdefault(rr, {})[cc] = xlsx.CellUpdate(
                        for_file(grid.get(rr, cc)), ref if (rr, cc) == (r, c) else None)
            continue
        area = area or (r, c, r, c)
        for rr in range(area[0], area[2] + 1):
            for cc in range(area[1], area[3] + 1):
                rows.setdefault(rr, {})[cc] = xlsx.CellUpdate(for_file(grid.get(rr, cc)))
    return out


#: how the engine's warning about a formula it could not compute ends
KEPT_CACHED = "kept its cached value"


def stale_cells(warnings) -> dict:
    """``Sheet!A1`` -> why, for each warning that a formula cell kept its cached value
    (a formula the engine cannot compile, a data table: :attr:`RunLog.kept_cached`)."""
    out = {}
    for line in warnings:
        cell, sep, why = line.partition(": ")
        if sep and why.endswith(KEPT_CACHED):
            out[cell] = why[:-len(KEPT_CACHED)].rstrip("; ")
    return out


def fill_report(report: CalcReport, nodes: Nodes, results: Results, log: RunLog,
                compiled: int, values: dict) -> CalcReport:
    """``report`` filled with what the run did (``compiled``: formulas compiled;
    ``values``: :func:`formula_values`)."""
    report.formulas = nodes.cells - log.kept_cached
    report.sheets = list(nodes.sheet_names)
    report.compiled = compiled
    report.circular = sorted(nodes.n_label[i] for i in results.circular)
    report.spills = len(results.spill_area)
    report.warnings = list(log.warnings)
    report.stale = stale_cells(log.warnings)
    report.unsupported = set(log.unsupported)
    bad = []            # the formula cells that show an error, in node order
    for s, (mine, _, _, cached) in values.items():
        bad.append(mine[_of_types(cached, lambda k: issubclass(k, FXlError))])
    bad = np.sort(np.concatenate(bad)) if bad else np.zeros(0, dtype=np.int64)
    errors, shown = len(bad), {}
    reasons = log.reasons.log
    for i in bad.tolist():
        if len(shown) >= 1000:
            break
        label = nodes.n_label[i]
        why = reasons.get(label)
        if why is not None and why[0] == str(nodes.grids[nodes.n_sheet[i]].get(
                nodes.n_row[i], nodes.n_col[i])):
            shown[label] = why  # only errors the cell still shows
    report.error_cells = errors
    report.errors = shown
    report.full_calc_on_load = bool(log.kept_cached or log.unsupported)
    return report

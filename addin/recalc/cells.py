"""Stage 5b, evaluate cell by cell: one node's inputs gathered from the grids
(:meth:`CellEvaluator.args`), its compiled program run, its result stored in the grid
(a spill or an array formula's range too). :mod:`.columns` evaluates a column group at
once and comes here for what it cannot do."""
from __future__ import annotations

import logging
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np
import schedula as sh
from formulas.ranges import Ranges

from . import shapes, sparse
from .compile import Compiled, FormulaCompiler
from .legacy import intersection, keeping_whole, reading_at
from .options import Options
from .program import CONST, HOST, LIT, NAME, MISSING, REF, UNION, Template
from .read import Nodes
from .runlog import RunLog
from .shapes import rect_of
from .values import XL, filled, fit, host_ranges, make_ranges, plain_result, same, scalar

log = logging.getLogger("zvmplan_addin.recalc")
BIG_RANGE = 4_000_000               # a larger range is cut to the sheet's used area


@dataclass(eq=False)
class Results:
    """What evaluating leaves besides the values in the grids, kept across the passes:
    ``spill_area`` (node -> (r1, c1, r2, c2) its array result spilled into),
    ``claimed`` ((sheet, row, col) -> the node whose spill fills the cell),
    ``name_values`` (defined-name node -> its value), ``circular`` (the nodes on
    circular references, set to 0), ``exact`` (node -> its formula compiled as written,
    for a shape whose generic form differs), ``seed`` (a circular node -> the value the
    file cached for it), ``iterated`` (node -> the passes of Excel's iterative
    calculation that computed it, :mod:`.cycles`)."""
    spill_area: dict = field(default_factory=dict)
    claimed: dict = field(default_factory=dict)
    name_values: dict = field(default_factory=dict)
    circular: set = field(default_factory=set)
    exact: dict = field(default_factory=dict)
    seed: dict = field(default_factory=dict)
    iterated: dict = field(default_factory=dict)


LEGACY = ("plain", "shared")  # formulas stored without t="array": Excel's legacy evaluation
DYNAMIC = "dynamic"  # a formula entered as in Excel 365 (zvmplan eval): arrays spill


class CellEvaluator:
    """Evaluates node ``i`` (:meth:`evaluate`) of ``nodes`` with its template of ``code``,
    storing its value in the grid of ``nodes`` and what else it leaves in ``results``;
    ``compiler`` compiles a formula as written when its shape needs it; reasons and
    warnings go to ``log``. :meth:`begin_pass` before each pass."""

    def __init__(self, nodes: Nodes, code: Compiled, compiler: FormulaCompiler,
                 results: Results, log: RunLog, options: Options):
        self.nodes, self.code, self.compiler = nodes, code, compiler
        self.results, self.log, self.options = results, log, options
        self.final: set = set()
        self._rcache: dict = {}
        self.iterating = False  # .cycles evaluates a circular reference's cells: no 0

    def begin_pass(self, final: set) -> None:
        """A new pass: ``final`` is the set of rectangles whose formula cells are all
        evaluated (filled by the order stage as it goes), whose values may be cached."""
        self.final = final
        self._rcache = {}

    def ranges(self, rect) -> Ranges:
        """The value of a rectangle as formulas passes a reference to its functions."""
        cached = self._rcache.get(rect)
        if cached is not None:
            return cached
        sheet, r1, c1, r2, c2 = rect
        s = self.nodes.sheet_index.get(sheet)
        if s is not None:
            grid = self.nodes.grids[s]
            if r1 == r2 and c1 == c2:
                value = np.empty((1, 1), dtype=object)
                value[0, 0] = grid.get(r1, c1)
                return make_ranges(sheet, r1, c1, r2, c2, value)
            # A range to the sheet's edge (A:A, A2:A1048576, 1:1) or a huge one holds only
            # empty cells beyond the used area of the book: its value stops there (the
            # same for every sheet, so A:A and Other!B:B still pair up); its geometry,
            # which ROWS, COLUMNS and COUNTBLANK read, stays whole.
            big = (r2 - r1 + 1) * (c2 - c1 + 1) > BIG_RANGE
            vr2, vc2 = r2, c2
            if big or r2 == shapes.MAX_ROW:
                vr2 = max(r1, min(r2, max(g.rows for g in self.nodes.grids)))
            if big or c2 == shapes.MAX_COL:
                vc2 = max(c1, min(c2, max(g.cols for g in self.nodes.grids)))
            cells = (vr2 - r1 + 1) * (vc2 - c1 + 1)
            # a dict-kept sheet, or a dense one whose cut range is still larger than any
            # dense array the engine builds (A:XFD while another sheet uses XFD1048576)
            if cells > (sparse.MAX_DENSE_CELLS if grid.dense else sparse.SPARSE_CELLS):
                rng = sparse.SparseRanges(rect, grid.stored(r1, c1, vr2, vc2),
                                          (vr2 - r1 + 1, vc2 - c1 + 1))
                if rect in self.final and self.code.reads.get(rect, 0) > 1:
                    self._rcache[rect] = rng
                return rng
            value = grid.block(r1, c1, vr2, vc2)
        else:
            value = filled((min(r2 - r1 + 1, 1000), min(c2 - c1 + 1, 1000)), XL["#REF!"],
                            dtype=object)
            r2, c2 = r1 + value.shape[0] - 1, c1 + value.shape[1] - 1
        rng = make_ranges(sheet, r1, c1, r2, c2, value)
        if rect in self.final and self.code.reads.get(rect, 0) > 1:
            self._rcache[rect] = rng  # final, and read again (not a running total's range)
        return rng

    def args(self, i, t: Template) -> list:
        """The inputs of ``t``'s program for node ``i``."""
        args = []
        rects = self.code.rects[i]
        cut = t.intersect and self.nodes.n_kind[i] in LEGACY and i < self.nodes.cells
        for k, (kind, x) in enumerate(t.plan):
            if cut and k in t.intersect and kind in (REF, CONST):
                rect = intersection(rects[x] if kind == REF else x, self.nodes.n_row[i],
                                    self.nodes.n_col[i])
                args.append(XL["#VALUE!"] if rect is None else self.ranges(rect))
            elif kind == REF:
                args.append(self.ranges(rects[x]))
            elif kind == CONST:
                args.append(self.ranges(x))
            elif kind == NAME:
                args.append(self.results.name_values.get(x, XL["#NAME?"]) if x is not None else XL["#NAME?"])
            elif kind == LIT:
                args.append(self.code.lits[i][x])
            elif kind == HOST:  # the formula's own cell, for ROW(), INDIRECT ...
                nodes, s = self.nodes, self.nodes.n_sheet[i]
                args.append(host_ranges(nodes.sheet_names[s].upper() if s is not None else "",
                                        nodes.n_row[i] or 1, nodes.n_col[i] or 1))
            elif kind == UNION:
                parts = [self.ranges(rect) for rect in x]
                union = Ranges(sum((p.ranges for p in parts), ()), {})
                for p in parts:
                    union.values.update(p.values)
                args.append(union)
            else:
                args.append(x)
        return args

    def evaluate(self, i):
        """Evaluate node ``i`` and store its result."""
        t = self.code.template[i]
        if t.pipe is None:      # could not compile: the cached value stays
            return
        nodes, results, reasons = self.nodes, self.results, self.log.reasons
        reasons.cell = nodes.n_label[i]
        ran = t
        # INDEX, OFFSET, INDIRECT giving a range where a legacy cell reads one value
        cell = nullcontext() if not t.cuts else keeping_whole() \
            if i >= nodes.cells or nodes.n_kind[i] not in LEGACY or nodes.n_area[i] is not None \
            else reading_at(nodes.n_row[i], nodes.n_col[i], self.ranges)
        try:
            with cell:
                if self.options.check and not t.checked and t.literals and t.shareable:
                    result = self._first_generic(i, t)
                elif t.exact_only:
                    exact = ran = results.exact.get(i) or \
                        self.compiler.compile(i, None, exact=True)
                    results.exact[i] = exact
                    result = exact.run(self.args(i, exact)) if exact.pipe is not None else \
                        XL["#VALUE!"]
                else:
                    result = t.run(self.args(i, t))
        finally:
            reasons.cell = None
        if i < nodes.cells and nodes.n_area[i] is None and nodes.n_kind[i] in LEGACY and \
                not ran.spills and isinstance(result, (Ranges, np.ndarray)):
            result = self._one_cell(i, ran, result)
        if isinstance(result, Ranges):
            result = result.value
        if i >= nodes.cells:  # a defined name
            results.name_values[i] = result
            return
        s, r, c = nodes.n_sheet[i], nodes.n_row[i], nodes.n_col[i]
        grid, area = nodes.grids[s], nodes.n_area[i]
        if i in results.circular and not self.iterating:
            results.seed.setdefault(i, grid.get(r, c))  # what the file cached, for .cycles
            result = 0.0
        if area is not None:
            shape = (area[2] - area[0] + 1, area[3] - area[1] + 1)
            arr = np.atleast_2d(np.asarray(result, dtype=object))
            arr = fit(arr, shape)
            for dr in range(shape[0]):
                for dc in range(shape[1]):
                    grid.set(area[0] + dr, area[1] + dc, scalar(arr[dr, dc]))
            return
        if isinstance(result, np.ndarray) and result.size > 1:
            self._spill(i, np.atleast_2d(result))
            return
        if isinstance(result, np.ndarray):
            result = result.reshape(-1)[0] if result.size else sh.EMPTY
        grid.set(r, c, scalar(result))

    def _one_cell(self, i, t: Template, result):
        """What the one cell of legacy formula ``i`` shows of its array or reference
        ``result`` (:mod:`.legacy`): a reference's cell in the formula's row or column, an
        array's top-left element; #VALUE! with the reason where a range reached a
        function whose parameters :mod:`.legacy` does not know."""
        nodes = self.nodes
        if isinstance(result, Ranges):
            if len(result.ranges) != 1:
                return XL["#VALUE!"]
            rect = intersection(rect_of(result.ranges[0]), nodes.n_row[i], nodes.n_col[i])
            return XL["#VALUE!"] if rect is None else self.ranges(rect).value
        if result.size <= 1:
            return result
        for k, function in (t.unknown or {}).items():
            kind, x = t.plan[k]
            rect = self.code.rects[i][x] if kind == REF else x if kind == CONST else None
            if rect is not None and (rect[1] != rect[3] or rect[2] != rect[4]):
                why = (f"a legacy formula (not an array formula) giving an array; Excel may "
                       f"read the range {shapes.a1(rect[1], rect[2])}:"
                       f"{shapes.a1(rect[3], rect[4])} given to {function} as one cell, "
                       "which the engine does not know")
                self.log.reasons.log.setdefault(nodes.n_label[i], ("#VALUE!", why))
                return XL["#VALUE!"]
        return np.atleast_2d(result)[0, 0]

    def _first_generic(self, i, t):
        """The first cell of a shape compiled with its literals as inputs: evaluated also
        from the formula as written; if they differ, every cell of the shape is compiled
        as written (slower, never wrong)."""
        result = t.run(self.args(i, t))
        exact = self.compiler.compile(i, None, exact=True)
        expected = exact.run(self.args(i, exact)) if exact.pipe is not None else MISSING
        if not same(plain_result(result), plain_result(expected)):
            t.exact_only = True
            self.results.exact[i] = exact
            log.debug("%s: =%s differs with its literals as inputs; compiling its shape "
                      "cell by cell", self.nodes.n_label[i], self.nodes.n_text[i])
            return expected if expected is not MISSING else result
        return result

    def _spill(self, i, arr):
        nodes, results = self.nodes, self.results
        s, r, c = nodes.n_sheet[i], nodes.n_row[i], nodes.n_col[i]
        h, w = arr.shape
        area = (r, c, r + h - 1, c + w - 1)
        grid = nodes.grids[s]
        blocked = area[2] > shapes.MAX_ROW or area[3] > shapes.MAX_COL
        if nodes.n_kind[i] not in ("plain", DYNAMIC):  # a shared formula: cannot be one
            blocked = True
        if not blocked:
            for rr in range(r, area[2] + 1):
                for cc in range(c, area[3] + 1):
                    if (rr, cc) == (r, c):
                        continue
                    if (rr, cc) in nodes.taken[s] or \
                            results.claimed.get((s, rr, cc), i) != i:
                        blocked = True
                        break
                if blocked:
                    break
        if blocked:
            self.log.warnings.append(f"{nodes.n_label[i]}: the {h}x{w} result cannot spill into "
                                 f"{shapes.a1(r, c)}:{shapes.a1(area[2], area[3])} (not empty); "
                                 "the cell shows #VALUE! (#SPILL! in Excel 365)")
            grid.set(r, c, XL["#VALUE!"])
            return
        old = results.spill_area.get(i)
        if old is not None and old != area:  # the result changed shape: free the old cells
            for rr in range(old[0], old[2] + 1):
                for cc in range(old[1], old[3] + 1):
                    if results.claimed.get((s, rr, cc)) == i:
                        del results.claimed[(s, rr, cc)]
                        grid.set(rr, cc, sh.EMPTY)
        results.spill_area[i] = area
        for dr in range(h):
            for dc in range(w):
                results.claimed[(s, r + dr, c + dc)] = i
                grid.set(r + dr, c + dc, scalar(arr[dr, dc]))

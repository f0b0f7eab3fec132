"""Stage 5, evaluate: one node's inputs gathered from the grids (:meth:`Evaluator._args`),
its compiled program run, its result stored (a spill or an array formula's range too)."""
from __future__ import annotations

import logging

import numpy as np
import schedula as sh
from formulas.ranges import Ranges

from . import shapes
from .install import Reasons
from .program import CONST, LIT, NAME, MISSING, REF, UNION, Template
from .values import XL, filled, fit, make_ranges, plain_result, same, scalar

log = logging.getLogger("zvmplan_addin.engine")
BIG_RANGE = 4_000_000               # a larger range is cut to the sheet's used area


class Evaluator:
    """Evaluate nodes (a mixin of :class:`~zvmplan_addin.recalc.engine.Engine`)."""

    def _ranges(self, rect) -> Ranges:
        """The value of a rectangle as formulas passes a reference to its functions."""
        cached = self._rcache.get(rect)
        if cached is not None:
            return cached
        sheet, r1, c1, r2, c2 = rect
        s = self.sheet_index.get(sheet)
        if s is not None:
            grid = self.grids[s]
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
                vr2 = max(r1, min(r2, max(g.rows for g in self.grids)))
            if big or c2 == shapes.MAX_COL:
                vc2 = max(c1, min(c2, max(g.cols for g in self.grids)))
            value = grid.block(r1, c1, vr2, vc2)
        else:
            value = filled((min(r2 - r1 + 1, 1000), min(c2 - c1 + 1, 1000)), XL["#REF!"],
                            dtype=object)
            r2, c2 = r1 + value.shape[0] - 1, c1 + value.shape[1] - 1
        rng = make_ranges(sheet, r1, c1, r2, c2, value)
        if rect in self._done_rects and self._reads.get(rect, 0) > 1:
            self._rcache[rect] = rng  # final, and read again (not a running total's range)
        return rng

    def _args(self, i, t: Template) -> list:
        args = []
        rects = self.rects[i]
        for kind, x in t.plan:
            if kind == REF:
                args.append(self._ranges(rects[x]))
            elif kind == CONST:
                args.append(self._ranges(x))
            elif kind == NAME:
                args.append(self.name_values.get(x, XL["#NAME?"]) if x is not None else XL["#NAME?"])
            elif kind == LIT:
                args.append(self.lits[i][x])
            elif kind == UNION:
                parts = [self._ranges(rect) for rect in x]
                union = Ranges(sum((p.ranges for p in parts), ()), {})
                for p in parts:
                    union.values.update(p.values)
                args.append(union)
            else:
                args.append(x)
        return args

    def _evaluate(self, i):
        t = self.template[i]
        if t.pipe is None:      # could not compile: the cached value stays
            return
        Reasons.cell = self.n_label[i]
        try:
            if self.check and not t.checked and t.literals and t.shareable:
                result = self._first_generic(i, t)
            elif t.exact_only:
                exact = self.exact.get(i) or self._compile(i, None, exact=True)
                self.exact[i] = exact
                result = exact.run(self._args(i, exact)) if exact.pipe is not None else \
                    XL["#VALUE!"]
            else:
                result = t.run(self._args(i, t))
        finally:
            Reasons.cell = None
        if isinstance(result, Ranges):
            result = result.value
        if i >= self.cells:  # a defined name
            self.name_values[i] = result
            return
        s, r, c = self.n_sheet[i], self.n_row[i], self.n_col[i]
        grid, area = self.grids[s], self.n_area[i]
        if i in self.circular:
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

    def _first_generic(self, i, t):
        """The first cell of a shape compiled with its literals as inputs: evaluated also
        from the formula as written; if they differ, every cell of the shape is compiled
        as written (slower, never wrong)."""
        result = t.run(self._args(i, t))
        exact = self._compile(i, None, exact=True)
        expected = exact.run(self._args(i, exact)) if exact.pipe is not None else MISSING
        if not same(plain_result(result), plain_result(expected)):
            t.exact_only = True
            self.exact[i] = exact
            log.debug("%s: =%s differs with its literals as inputs; compiling its shape "
                      "cell by cell", self.n_label[i], self.n_text[i])
            return expected if expected is not MISSING else result
        return result

    def _spill(self, i, arr):
        s, r, c = self.n_sheet[i], self.n_row[i], self.n_col[i]
        h, w = arr.shape
        area = (r, c, r + h - 1, c + w - 1)
        grid = self.grids[s]
        blocked = area[2] > shapes.MAX_ROW or area[3] > shapes.MAX_COL
        if self.n_kind[i] != "plain":  # a shared formula's master or copy: cannot be one
            blocked = True
        if not blocked:
            for rr in range(r, area[2] + 1):
                for cc in range(c, area[3] + 1):
                    if (rr, cc) == (r, c):
                        continue
                    if (rr, cc) in self.taken[s] or \
                            self.claimed.get((s, rr, cc), i) != i:
                        blocked = True
                        break
                if blocked:
                    break
        if blocked:
            self.warnings.append(f"{self.n_label[i]}: the {h}x{w} result cannot spill into "
                                 f"{shapes.a1(r, c)}:{shapes.a1(area[2], area[3])} (not empty); "
                                 "the cell shows #VALUE! (#SPILL! in Excel 365)")
            grid.set(r, c, XL["#VALUE!"])
            return
        old = self.spill_area.get(i)
        if old is not None and old != area:  # the result changed shape: free the old cells
            for rr in range(old[0], old[2] + 1):
                for cc in range(old[1], old[3] + 1):
                    if self.claimed.get((s, rr, cc)) == i:
                        del self.claimed[(s, rr, cc)]
                        grid.set(rr, cc, sh.EMPTY)
        self.spill_area[i] = area
        for dr in range(h):
            for dc in range(w):
                self.claimed[(s, r + dr, c + dc)] = i
                grid.set(r + dr, c + dc, scalar(arr[dr, dc]))

"""Stage 4, order: evaluate every node after the formula cells it reads.

First by units (:meth:`Order._in_unit_order`): a column group -- the cells of one
formula filled down a column that do not read each other -- is one unit, every other
node its own; the units are evaluated in a topological order, each group at once by
:mod:`.columnar`. What that order cannot place (circular references and what depends on
them) is then walked depth first cell by cell (:meth:`Order._depth_first`): from each
node to the formula cells inside its input ranges (a per-column index of formula rows,
so a range costs a binary search, not a scan); a node met again while it is still open
is on a circular reference."""
from __future__ import annotations

from collections import deque

import numpy as np

from .columnar import cells_by_template
from .index import NO_IDS
from .program import CONST, REF

PENDING, ACTIVE, DONE = 0, 1, 2
UNIT_EDGES = 5_000_000  # beyond this many unit dependencies, order cell by cell


class Order:
    """Dependency order (a mixin of :class:`~zvmplan_addin.recalc.engine.Engine`; finds
    formula cells through :class:`~.index.CellIndex`)."""

    def _unfinished(self, i) -> np.ndarray:
        out = []
        status = self.status
        for rect in self.used[i]:
            if rect in self._done_rects:
                continue
            ids = self._ids_in(rect)
            if ids.size:
                ids = ids[status[ids] != DONE]
            if ids.size:
                out.append(ids)
            else:
                self._done_rects.add(rect)
        for nid in self.name_deps[i]:
            if nid is not None and status[nid] != DONE:
                out.append(np.array([nid], dtype=np.int64))
        if not out:
            return NO_IDS
        return out[0] if len(out) == 1 else np.concatenate(out)

    def run(self):
        """Evaluate every node in dependency order; a second pass when a spilled array
        landed on cells that other formulas read."""
        self.compile_all()
        self._pass()
        if self.spill_area and self._spills_are_read():
            self._pass()

    def release_compiled(self):
        """Let go of what only compiling, ordering and evaluating read -- each cell's
        reference rectangles, literals, ranges read and the column groups, a few tuples
        per cell and reference that are the largest part of a big plan's memory -- once
        :meth:`run` is done and before the values are written (which reads the grids
        and each cell's template only)."""
        self.rects = self.lits = self.used = self.name_deps = None
        self._reads = self._rcache = self.by_template = None
        self.group_slots = self._slots_of = self.factor_memo = None

    def _spills_are_read(self) -> bool:
        """Does some formula read a cell that a spill filled (other than its anchor)?"""
        self._build_index()  # now with the spilled cells, owned by their anchors
        spills = self.spill_area
        for i in range(len(self.n_text)):
            for rect in self.used[i]:
                for j in self._ids_in(rect).tolist():
                    area = spills.get(j)
                    if j == i or area is None:
                        continue
                    _, r1, c1, r2, c2 = rect
                    rows = range(max(r1, area[0]), min(r2, area[2]) + 1)
                    cols = range(max(c1, area[1]), min(c2, area[3]) + 1)
                    if len(rows) * len(cols) > 1 or (rows and cols and (
                            rows[0], cols[0]) != (self.n_row[j], self.n_col[j])):
                        return True
        return False

    def _pass(self):
        self._build_index()
        self.by_template = cells_by_template(self.template)
        for t, _ in self.by_template:
            if t is not None and t.program is not None:
                t.program.cache = {}
        self._done_rects: set = set()
        self._rcache: dict = {}
        self.factor_memo: list = []  # columnar's distinct argument combinations
        self.status[:] = PENDING
        self._done = 0
        if not self.cellwise:
            self._in_unit_order()
        self._depth_first()

    def _tick(self, count=1):
        before, self._done = self._done, self._done + count
        total = len(self.n_text)
        if self.progress is not None and (before >> 8 != self._done >> 8 or self._done == total):
            self.progress(self._done, total)

    # --- columns first: a topological order of units --------------------------
    def _in_unit_order(self):
        """Evaluate what can be ordered with each column group (:meth:`_column_groups`)
        as one unit: Kahn's algorithm over units. Units on or after a circular reference
        (or two column groups that read each other row by row) stay PENDING for
        :meth:`_depth_first`, which evaluates them cell by cell."""
        groups = self._column_groups()
        n = len(self.n_text)
        unit_of = np.arange(n, dtype=np.int64)
        self._slots_of = {}
        for g, members in enumerate(groups):
            unit_of[members] = n + g
            self._slots_of[int(members[0])] = self.group_slots[g]
        units = np.flatnonzero(unit_of == np.arange(n)).tolist() + \
            [n + g for g in range(len(groups))]
        rect_units: dict = {}
        deps: dict[int, set] = {}
        budget = UNIT_EDGES
        sheet_index = self.sheet_index

        def units_in(rect) -> set:
            got = rect_units.get(rect)
            if got is None:
                ids = self._ids_in(rect)
                got = rect_units[rect] = set(np.unique(unit_of[ids]).tolist()) \
                    if ids.size else set()
            return got

        for u in units:
            found: set = set()
            if u < n:
                for rect in self.used[u]:
                    sheet, r1, c1, r2, c2 = rect
                    if r1 == r2 and c1 == c2:  # one cell: its owner, if a formula holds it
                        i = self._owner(sheet_index.get(sheet), r1, c1)
                        if i is not None:
                            found.add(int(unit_of[i]))
                    else:
                        found |= units_in(rect)
                names = self.name_deps[u]
            else:
                first = int(groups[u - n][0])
                t = self.template[first]
                for (kind, x), slot in zip(t.plan, self.group_slots[u - n]):
                    if kind == CONST:
                        found |= units_in(x)
                    elif kind == REF and slot[0] == "same":
                        found |= units_in(slot[1])
                    elif kind == REF:
                        owners = self._slot_owners(slot)
                        found.update(np.unique(unit_of[owners[owners >= 0]]).tolist())
                names = self.name_deps[first]
            found.update(int(unit_of[nid]) for nid in names if nid is not None)
            deps[u] = found  # a unit that reads itself is on a cycle: never ready
            budget -= len(found)
            if budget < 0:  # too tangled to be worth it: all cell by cell
                return
        indegree = {u: len(deps[u]) for u in units}
        dependents: dict[int, list] = {}
        for u in units:
            for d in deps[u]:
                dependents.setdefault(d, []).append(u)
        ready = deque(u for u in units if indegree[u] == 0)
        while ready:
            u = ready.popleft()
            if u < n:
                self._done_rects.update(self.used[u])  # every formula cell in them is final
            if u < n:
                self._evaluate(u)
                self.status[u] = DONE
                self._tick()
            else:
                self._evaluate_group(groups[u - n])
                self.status[groups[u - n]] = DONE
                self._tick(len(groups[u - n]))
            for v in dependents.get(u, ()):
                indegree[v] -= 1
                if indegree[v] == 0:
                    ready.append(v)

    # --- cell by cell: depth first ----------------------------------------------
    def _depth_first(self):
        status = self.status
        for start in np.flatnonzero(status != DONE).tolist():  # what the units left
            if status[start] == DONE:
                continue
            stack = [start]
            while stack:
                i = stack[-1]
                st = status[i]
                if st == DONE:
                    stack.pop()
                    continue
                if st == PENDING:
                    status[i] = ACTIVE
                    deps = self._unfinished(i)
                    if deps.size:
                        dst = status[deps]
                        if (dst == ACTIVE).any():
                            self._cycle(stack, set(deps[dst == ACTIVE].tolist()))
                        pending = deps[dst == PENDING]
                        if pending.size:
                            stack.extend(pending[::-1].tolist())
                            continue
                self._evaluate(i)
                status[i] = DONE
                stack.pop()
                self._tick()

    def _cycle(self, stack, active):
        members = []
        for j in reversed(stack):
            if self.status[j] == ACTIVE:
                members.append(j)
                if j in active:
                    break
        self.circular.update(members)

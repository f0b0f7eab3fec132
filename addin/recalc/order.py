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

from . import shapes
from .program import CONST, REF

PENDING, ACTIVE, DONE = 0, 1, 2
NO_IDS = np.empty(0, dtype=np.int64)
UNIT_EDGES = 5_000_000  # beyond this many unit dependencies, order cell by cell


class Order:
    """Dependency order (a mixin of :class:`~zvmplan_addin.recalc.calc.Engine`)."""

    def _build_index(self):
        """Per sheet and column: the sorted rows holding formula cells, and their nodes
        (the anchor's node for every cell of an array formula or a spill); and per sheet
        the owner of each cell (a numpy grid of node ids, -1 for none, or a dict for a
        huge sparse sheet). Built with numpy sorts, not a Python call per cell."""
        n = self.cells
        sheets = np.array(self.n_sheet[:n], dtype=np.int64)
        rows = np.array(self.n_row[:n], dtype=np.int64)
        cols = np.array(self.n_col[:n], dtype=np.int64)
        ids = np.arange(n, dtype=np.int64)
        extra = []  # the cells of array formulas and spills beyond their anchors
        for i in [i for i in range(n) if self.n_area[i] is not None] + list(self.spill_area):
            area = self.n_area[i] or self.spill_area[i]
            for rr in range(area[0], area[2] + 1):
                for cc in range(area[1], area[3] + 1):
                    extra.append((self.n_sheet[i], rr, cc, i))
        if extra:
            more = np.array(extra, dtype=np.int64).reshape(-1, 4)
            sheets, rows, cols, ids = (np.concatenate([a, more[:, k]]) for k, a in
                                       enumerate((sheets, rows, cols, ids)))
        by_id = np.argsort(ids, kind="stable")  # the first node claiming a cell owns it
        sheets, rows, cols, ids = sheets[by_id], rows[by_id], cols[by_id], ids[by_id]
        key = (sheets * (shapes.MAX_COL + 1) + cols) * (shapes.MAX_ROW + 1) + rows
        _, first = np.unique(key, return_index=True)  # sorted by sheet, column, row
        sheets, rows, cols, ids = sheets[first], rows[first], cols[first], ids[first]
        self.fcols = [dict() for _ in self.book.sheets]
        self.owners = []
        starts = np.flatnonzero(np.diff(sheets * (shapes.MAX_COL + 1) + cols,
                                        prepend=-1)) if sheets.size else NO_IDS
        ends = np.append(starts[1:], sheets.size)
        for a, b in zip(starts.tolist(), ends.tolist()):
            self.fcols[int(sheets[a])][int(cols[a])] = (rows[a:b], ids[a:b])
        self.fcol_keys = [np.array(sorted(d), dtype=np.int64) for d in self.fcols]
        for s, grid in enumerate(self.grids):
            mine = sheets == s
            r, c, i = rows[mine], cols[mine], ids[mine]
            if grid.dense:
                shape = (max(grid.rows, int(r.max(initial=0))), max(grid.cols, int(c.max(initial=0))))
                owner = np.full(shape, -1, dtype=np.int64)
                owner[r - 1, c - 1] = i
            else:
                owner = dict(zip(zip(r.tolist(), c.tolist()), i.tolist()))
            self.owners.append(owner)

    def _owner(self, s, r, c):
        """The node whose formula fills cell (``r``, ``c``) of sheet ``s``, or None."""
        if s is None:
            return None
        owner = self.owners[s]
        if isinstance(owner, dict):
            return owner.get((r, c))
        if r > owner.shape[0] or c > owner.shape[1]:
            return None
        i = owner[r - 1, c - 1]
        return None if i < 0 else int(i)

    def _owners(self, s, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """:meth:`_owner` of many cells of sheet ``s`` at once (-1 for none)."""
        owner = self.owners[s] if s is not None else {}
        if isinstance(owner, dict):
            return np.array([owner.get((r, c), -1) for r, c in zip(rows.tolist(), cols.tolist())],
                            dtype=np.int64)
        out = np.full(rows.shape, -1, dtype=np.int64)
        inside = (rows <= owner.shape[0]) & (cols <= owner.shape[1])
        out[inside] = owner[rows[inside] - 1, cols[inside] - 1]
        return out

    def _ids_in(self, rect) -> np.ndarray:
        sheet, r1, c1, r2, c2 = rect
        s = self.sheet_index.get(sheet)
        if s is None:
            return NO_IDS
        if r1 == r2 and c1 == c2:
            i = self._owner(s, r1, c1)
            return NO_IDS if i is None else np.array([i], dtype=np.int64)
        keys = self.fcol_keys[s]
        lo, hi = np.searchsorted(keys, c1, "left"), np.searchsorted(keys, c2, "right")
        parts = []
        for c in keys[lo:hi]:
            rows, ids = self.fcols[s][int(c)]
            a, b = np.searchsorted(rows, r1, "left"), np.searchsorted(rows, r2, "right")
            if b > a:
                parts.append(ids[a:b])
        if not parts:
            return NO_IDS
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

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
        for t in {id(t): t for t in self.template}.values():
            if t is not None and t.program is not None:
                t.program.cache = {}
        self._done_rects: set = set()
        self._rcache: dict = {}
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
        units = [i for i in range(n) if unit_of[i] == i] + [n + g for g in range(len(groups))]
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
                        owners = self._owners(slot[1], slot[2], slot[3])
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
        for start in range(len(self.n_text)):
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

"""Stage 4, order: every node after the formula cells it reads (:class:`EvaluationOrder`).

First by units: a column group (:mod:`.groups`) -- the cells of one formula filled down a
column that do not read each other -- is one unit, every other node its own; the units
come in a topological order (Kahn's algorithm). What that order cannot place (circular
references and what depends on them) then comes depth first, cell by cell: from each
node to the formula cells inside its input ranges (:class:`~.index.CellIndex`: a range
costs a binary search, not a scan); a node met again while it is still open is on a
circular reference.

The order depends on the formulas' references alone, never on values: the evaluate
stage iterates over it and evaluates each step as it comes."""
from __future__ import annotations

from collections import deque
from typing import Iterator

import numpy as np
from zvmplan.setops import unique

from .compile import Compiled
from .groups import ColumnGroup, slot_owners
from .index import NO_IDS, CellIndex
from .program import CONST, REF
from .read import Nodes

PENDING, ACTIVE, DONE = 0, 1, 2
UNIT_EDGES = 5_000_000  # beyond this many unit dependencies, order cell by cell


class EvaluationOrder:
    """The order of one pass over ``nodes``. Iterating gives the steps: a node id
    (``>= 0``), evaluated on its own, or ``~g`` (``< 0``) for column group ``groups[g]``,
    evaluated at once. ``groups`` None: no units, every cell depth first (the engine's
    cell-by-cell mode). As it goes it fills :attr:`final`, the rectangles whose formula
    cells all come before the current step (their values are final: worth caching), and
    adds to ``circular`` the nodes on a circular reference (each before its step)."""

    def __init__(self, nodes: Nodes, code: Compiled, index: CellIndex,
                 groups: list[ColumnGroup] | None, circular: set):
        self.nodes, self.code, self.index, self.groups = nodes, code, index, groups
        self.circular = circular
        self.final: set = set()
        self.status = np.zeros(len(nodes.n_text), dtype=np.int8)

    def __iter__(self) -> Iterator[int]:
        if self.groups is not None:
            yield from self._in_unit_order()
        yield from self._depth_first()

    # --- columns first: a topological order of units --------------------------
    def _unit_deps(self, unit_of: np.ndarray, units: list) -> dict[int, set] | None:
        """Unit -> the units it reads (a unit that reads itself is on a cycle); None when
        there are more than :data:`UNIT_EDGES` (too tangled to be worth it)."""
        nodes, code, index, groups = self.nodes, self.code, self.index, self.groups
        n = len(nodes.n_text)
        rect_units: dict = {}
        deps: dict[int, set] = {}
        budget = UNIT_EDGES
        sheet_index = nodes.sheet_index

        def units_in(rect) -> set:
            got = rect_units.get(rect)
            if got is None:
                ids = index.ids_in(rect)
                got = rect_units[rect] = set(unique(unit_of[ids]).tolist()) \
                    if ids.size else set()
            return got

        for u in units:
            found: set = set()
            if u < n:
                for rect in code.used[u]:
                    sheet, r1, c1, r2, c2 = rect
                    if r1 == r2 and c1 == c2:  # one cell: its owner, if a formula holds it
                        i = index.owner(sheet_index.get(sheet), r1, c1)
                        if i is not None:
                            found.add(int(unit_of[i]))
                    else:
                        found |= units_in(rect)
                names = code.name_deps[u]
            else:
                group = groups[u - n]
                first = int(group.members[0])
                t = code.template[first]
                for (kind, x), slot in zip(t.plan, group.slots):
                    if kind == CONST:
                        found |= units_in(x)
                    elif kind == REF and slot[0] == "same":
                        found |= units_in(slot[1])
                    elif kind == REF:
                        owners = slot_owners(index, slot, last=True)
                        found.update(unique(unit_of[owners[owners >= 0]]).tolist())
                names = code.name_deps[first]
            found.update(int(unit_of[nid]) for nid in names if nid is not None)
            deps[u] = found
            budget -= len(found)
            if budget < 0:
                return None
        return deps

    def _in_unit_order(self) -> Iterator[int]:
        """Kahn's algorithm over units. Units on or after a circular reference (or two
        column groups that read each other row by row) stay PENDING for
        :meth:`_depth_first`."""
        groups, used, status = self.groups, self.code.used, self.status
        n = len(self.nodes.n_text)
        unit_of = np.arange(n, dtype=np.int64)
        for g, group in enumerate(groups):
            unit_of[group.members] = n + g
        units = np.flatnonzero(unit_of == np.arange(n)).tolist() + \
            [n + g for g in range(len(groups))]
        deps = self._unit_deps(unit_of, units)
        if deps is None:  # all cell by cell
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
                self.final.update(used[u])  # every formula cell in them is final
                status[u] = DONE
                yield u
            else:
                status[groups[u - n].members] = DONE
                yield ~(u - n)
            for v in dependents.get(u, ()):
                indegree[v] -= 1
                if indegree[v] == 0:
                    ready.append(v)

    # --- cell by cell: depth first ----------------------------------------------
    def _unfinished(self, i) -> np.ndarray:
        """The nodes ``i`` reads that are not yet DONE (a rectangle with none is final)."""
        out = []
        status, final, index = self.status, self.final, self.index
        for rect in self.code.used[i]:
            if rect in final:
                continue
            ids = index.ids_in(rect)
            if ids.size:
                ids = ids[status[ids] != DONE]
            if ids.size:
                out.append(ids)
            else:
                final.add(rect)
        for nid in self.code.name_deps[i]:
            if nid is not None and status[nid] != DONE:
                out.append(np.array([nid], dtype=np.int64))
        if not out:
            return NO_IDS
        return out[0] if len(out) == 1 else np.concatenate(out)

    def _depth_first(self) -> Iterator[int]:
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
                status[i] = DONE
                yield i
                stack.pop()

    def _cycle(self, stack, active):
        members = []
        for j in reversed(stack):
            if self.status[j] == ACTIVE:
                members.append(j)
                if j in active:
                    break
        self.circular.update(members)


def spills_are_read(nodes: Nodes, code: Compiled, index: CellIndex, spills: dict) -> bool:
    """Does some formula read a cell that a spill filled (other than its anchor)?
    ``index``: made with the spilled cells (owned by their anchors); ``spills``: node ->
    its spilled area (r1, c1, r2, c2)."""
    for i in range(len(nodes.n_text)):
        for rect in code.used[i]:
            for j in index.ids_in(rect).tolist():
                area = spills.get(j)
                if j == i or area is None:
                    continue
                _, r1, c1, r2, c2 = rect
                rows = range(max(r1, area[0]), min(r2, area[2]) + 1)
                cols = range(max(c1, area[1]), min(c2, area[3]) + 1)
                if len(rows) * len(cols) > 1 or (rows and cols and (
                        rows[0], cols[0]) != (nodes.n_row[j], nodes.n_col[j])):
                    return True
    return False

"""Where the formula cells are: per sheet and column the sorted rows holding formula
cells, and per cell the node that fills it -- so the order stage finds the formula cells
inside a range with a binary search, not a scan."""
from __future__ import annotations

import numpy as np

from . import shapes

NO_IDS = np.empty(0, dtype=np.int64)


class CellIndex:
    """The index of the formula cells of ``nodes`` (:class:`~.read.Nodes`) with the cells
    of ``spill_area`` (node -> (r1, c1, r2, c2) of its spilled result) owned by their
    anchors; made at the start of each pass of the evaluation."""

    def __init__(self, nodes, spill_area: dict):
        """Per sheet and column: the sorted rows holding formula cells, and their nodes
        (the anchor's node for every cell of an array formula or a spill); and per sheet
        the owner of each cell (a numpy grid of node ids, -1 for none, or a dict for a
        huge sparse sheet). Built with numpy sorts, not a Python call per cell."""
        self.sheet_index = nodes.sheet_index
        n = nodes.cells
        sheets, rows, cols = nodes.where()
        ids = np.arange(n, dtype=np.int64)
        extra = []  # the cells of array formulas and spills beyond their anchors
        in_area = nodes.in_area()
        for i in np.flatnonzero(in_area).tolist() + list(spill_area):
            area = nodes.n_area[i] or spill_area[i]
            for rr in range(area[0], area[2] + 1):
                for cc in range(area[1], area[3] + 1):
                    extra.append((nodes.n_sheet[i], rr, cc, i))
        if extra:
            more = np.array(extra, dtype=np.int64).reshape(-1, 4)
            sheets, rows, cols, ids = (np.concatenate([a, more[:, k]]) for k, a in
                                       enumerate((sheets, rows, cols, ids)))
            by_id = np.argsort(ids, kind="stable")  # the first node claiming a cell owns it
            sheets, rows, cols, ids = sheets[by_id], rows[by_id], cols[by_id], ids[by_id]
        key = (sheets * (shapes.MAX_COL + 1) + cols) * (shapes.MAX_ROW + 1) + rows
        if extra:
            _, first = np.unique(key, return_index=True)  # sorted by sheet, column, row
        else:  # one node per cell: sorting is enough
            first = np.argsort(key, kind="stable")
        del key
        sheets, rows, cols, ids = sheets[first], rows[first], cols[first], ids[first]
        del first
        self.fcols = [dict() for _ in nodes.grids]
        self.owners = []
        starts = np.flatnonzero(np.diff(sheets * (shapes.MAX_COL + 1) + cols,
                                        prepend=-1)) if sheets.size else NO_IDS
        ends = np.append(starts[1:], sheets.size)
        for a, b in zip(starts.tolist(), ends.tolist()):
            self.fcols[int(sheets[a])][int(cols[a])] = (rows[a:b], ids[a:b])
        self.fcol_keys = [np.array(sorted(d), dtype=np.int64) for d in self.fcols]
        bounds = np.searchsorted(sheets, np.arange(len(nodes.grids) + 1))  # sorted by sheet
        for s, grid in enumerate(nodes.grids):
            a, b = int(bounds[s]), int(bounds[s + 1])
            r, c, i = rows[a:b], cols[a:b], ids[a:b]
            if grid.dense:
                shape = (max(grid.rows, int(r.max(initial=0))), max(grid.cols, int(c.max(initial=0))))
                owner = np.full(shape, -1, dtype=np.int64)
                owner[r - 1, c - 1] = i
            else:
                owner = dict(zip(zip(r.tolist(), c.tolist()), i.tolist()))
            self.owners.append(owner)

    def owner(self, s, r, c):
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

    def owners_of(self, s, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """:meth:`owner` of many cells of sheet ``s`` at once (-1 for none)."""
        owner = self.owners[s] if s is not None else {}
        if isinstance(owner, dict):
            return np.array([owner.get((r, c), -1) for r, c in zip(rows.tolist(), cols.tolist())],
                            dtype=np.int64)
        out = np.full(rows.shape, -1, dtype=np.int64)
        inside = (rows <= owner.shape[0]) & (cols <= owner.shape[1])
        out[inside] = owner[rows[inside] - 1, cols[inside] - 1]
        return out

    def ids_in(self, rect) -> np.ndarray:
        """The nodes whose formulas fill the cells of ``rect`` (sheet, r1, c1, r2, c2)."""
        sheet, r1, c1, r2, c2 = rect
        s = self.sheet_index.get(sheet)
        if s is None:
            return NO_IDS
        if r1 == r2 and c1 == c2:
            i = self.owner(s, r1, c1)
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

"""Per-node data of the compile stage held per block: the references of a formula
filled down a column (:class:`~.filldown.Run`) are kept as the run's row arrays
(:class:`~.filldown.RunRefs`), not as a tuple per cell and reference; a cell's own
tuple is made only when a later stage asks for that one cell (:class:`PerNode`), and
the column groups read a reference of all their cells as numpy arrays
(:meth:`PerNode.columns`)."""
from __future__ import annotations

import itertools
import operator

import numpy as np
from zvmplan.setops import unique

_IN_BLOCK = object()  # the entry of a node whose value its block holds


class PerNode:
    """A list of one value per node (``n`` of them, ``fill`` at first) in which a block
    (:meth:`hold`) holds the values of its nodes: ``table[i]`` gives node ``i``'s value
    either way, made by the block when asked (``block.at(what, k)`` for its ``k``-th
    node) and never stored. ``what``: which of the block's values (``"rects"`` or
    ``"used"``)."""

    def __init__(self, n: int, fill, what: str):
        self.items = [fill] * n
        self.what = what
        self.blocks: list = []
        self.block_of = None   # node -> its block (-1: none), when there are blocks
        self.place = None      # node -> its position in its block

    def hold(self, ids: np.ndarray, block) -> None:
        """Let ``block`` hold the values of nodes ``ids`` (its members, in its order)."""
        if self.block_of is None:
            self.block_of = np.full(len(self.items), -1, dtype=np.int32)
            self.place = np.zeros(len(self.items), dtype=np.int32)
        self.block_of[ids] = len(self.blocks)
        self.place[ids] = np.arange(len(ids), dtype=np.int32)
        self.blocks.append(block)
        _scatter_same(self.items, ids, _IN_BLOCK)

    def __getitem__(self, i):
        v = self.items[i]
        if v is _IN_BLOCK:
            block = self.blocks[self.block_of[i]]
            return block.at(self.what, int(self.place[i]))
        return v

    def __setitem__(self, i, v) -> None:
        if self.items[i] is _IN_BLOCK:  # given its own value: no longer the block's
            self.block_of[i] = -1
        self.items[i] = v

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return map(self.__getitem__, range(len(self.items)))

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def columns(self, members: np.ndarray, x: int):
        """Reference ``x`` of each node of ``members`` (:attr:`what` ``"rects"``) as
        ``(sheet, r1, c1, r2, c2)``: ``sheet`` the sheet key they all name (None if they
        name several), the others int64 arrays; each block's part taken from its arrays,
        the other nodes' from their tuples. None when some node has no reference ``x``."""
        n = len(members)
        blocks = self.block_of[members] if self.block_of is not None else None
        alone = np.arange(n) if blocks is None else np.flatnonzero(blocks < 0)
        out = [np.empty(n, dtype=np.int64) for _ in range(4)]  # apart: a slot keeps two
        sheets = set()
        if alone.size:
            pick = operator.itemgetter(x)
            ids = members[alone].tolist()
            try:
                rects = list(map(pick, operator.itemgetter(*ids)(self.items)
                                 if len(ids) > 1 else (self.items[ids[0]],)))
            except (IndexError, TypeError):
                return None
            flat = list(itertools.chain.from_iterable(rects))
            if len(flat) != 5 * len(rects):
                return None
            for f in range(4):
                out[f][alone] = flat[f + 1::5]
            sheets.update(flat[0::5])
        if blocks is not None:
            held = blocks[blocks >= 0]
            one = held.size and int(held.min()) == int(held.max())  # the usual: one run
            for b in ([int(held[0])] if one else unique(held).tolist()):
                where = np.flatnonzero(blocks >= 0) if one else np.flatnonzero(blocks == b)
                sheet, fields = self.blocks[b].columns(x, self.place[members[where]])
                for f in range(4):
                    out[f][where] = fields[f]
                sheets.add(sheet)
        return (sheets.pop() if len(sheets) == 1 else None), out[0], out[1], out[2], out[3]


def _scatter_same(into: list, ids: np.ndarray, value) -> None:
    """``into[i] = value`` for each ``i`` of ``ids`` (one slice assignment when they are
    evenly spaced)."""
    ids = np.asarray(ids)
    if len(ids) > 1:
        step = int(ids[1] - ids[0])
        if step > 0 and int(ids[-1]) == int(ids[0]) + step * (len(ids) - 1) and \
                (len(ids) == 2 or bool((np.diff(ids) == step).all())):
            into[int(ids[0]):int(ids[-1]) + 1:step] = [value] * len(ids)
            return
    for i in ids.tolist():
        into[i] = value


def pick(items: list, ids: np.ndarray) -> list:
    """``[items[i] for i in ids]``: one slice when the ids are evenly spaced (a column of
    a sheet whose rows hold the same columns), else one ``itemgetter``."""
    if len(ids) == 1:
        return [items[int(ids[0])]]
    first, last = int(ids[0]), int(ids[-1])
    step = int(ids[1]) - first
    if step > 0 and last == first + step * (len(ids) - 1) and \
            (len(ids) == 2 or bool((np.diff(ids) == step).all())):
        return items[first:last + 1:step]
    return list(operator.itemgetter(*ids.tolist())(items))

"""Stage 4a, column groups: which cells of one compiled formula can be evaluated as one
column (:func:`column_groups`), the unit the order stage places and
:mod:`.columns` evaluates at once.

A group is the cells of one template (a formula filled down a column) that are plain
formula cells whose compiled program runs as a straight line, whose references are per
cell single cells or shared by all, and which read none of each other. Forming the
groups is numpy work: the cells are sorted into templates with one ``unique`` (:mod:`.uniq`) over
the templates' ids (:func:`cells_by_template`), and each reference is checked on numpy
arrays of its rows and columns in every cell, which a formula filled down a column
holds as such (:class:`~.filldown.RunRefs`): no tuple per cell is made or read."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from zvmplan.setops import unique

from .compile import Compiled
from .index import CellIndex
from .program import CONST, REF, UNION
from .read import Nodes
from .shapes import MAX_COL, MAX_ROW

MIN_COLUMN = 8       # fewer cells of one formula are evaluated one by one
MAX_ROW_RANGE = 256  # a wider range per row keeps its cells one by one


class ColumnGroup(NamedTuple):
    """The cells of one group (``members``, sorted node ids) and, per input of their
    template's plan, how the cells read it (``slots``): ("same", rect) for a reference
    every cell shares, ("cells", sheet, rows, cols) for one cell each, ("rows", sheet,
    rows, c1, c2, sheet name) for one row of the same columns each (``$V10:$AB10``), or
    None (a literal, a name, a constant)."""
    members: np.ndarray
    slots: list


def cells_by_template(templates: list) -> list[tuple]:
    """(template, its cells as a sorted int64 array) for each distinct template in
    ``templates`` (None included), in order of first appearance: numpy over the
    templates' ids (the first template's cells taken out, then the next's, while they
    are few; else one ``unique``) instead of a dict filled cell by cell.

    >>> a, b = object(), object()
    >>> [(t is a, cells.tolist()) for t, cells in cells_by_template([a, b, a])]
    [(True, [0, 2]), (False, [1])]
    """
    if not templates:
        return []
    ids = np.fromiter(map(id, templates), dtype=np.int64, count=len(templates))
    out, where, left = [], np.arange(len(ids)), ids
    while len(out) < FEW_TEMPLATES:  # the first template left, its cells taken out
        if not left.size:
            return out
        mine = left == left[0]
        out.append((templates[int(where[0])], where[mine]))
        where, left = where[~mine], left[~mine]
    _, first, inverse, counts = unique(ids, return_index=True, return_inverse=True,
                                       return_counts=True)
    by_template = np.argsort(inverse.reshape(-1), kind="stable")  # cells in order per template
    parts = np.split(by_template, np.cumsum(counts)[:-1])
    return [(templates[int(first[j])], parts[j]) for j in np.argsort(first, kind="stable")]


FEW_TEMPLATES = 16  # up to this many distinct templates are sorted out without a sort


def column_groups(nodes: Nodes, code: Compiled, index: CellIndex,
                  by_template: list) -> list[ColumnGroup]:
    """The column groups of ``nodes``: per template of ``by_template``
    (:func:`cells_by_template` of ``code.template``) its cells, if they form a group.
    Only each template, not each cell, is looked at in Python."""
    n = nodes.cells
    in_area = nodes.in_area()
    groups = []
    for t, members in by_template:
        members = members[:np.searchsorted(members, n)]  # cells, not defined names
        if len(members) < MIN_COLUMN or t is None or t.pipe is None or \
                t.program is None or not t.shareable or not t.columnar or t.exact_only:
            continue
        if in_area[members].any():  # an array formula's cells: each on its own
            members = members[~in_area[members]]
            if len(members) < MIN_COLUMN:
                continue
        slots = _slots(nodes, code, index, members)
        if slots is not None:
            groups.append(ColumnGroup(members, slots))
            continue
        # one template in several columns (SUM(A$2:A2) and SUM(B$2:B2)) or on several
        # sheets (a difference column on each source sheet): a group per sheet and column
        sheets, _, cols = nodes.where()
        cols = sheets[members] * (MAX_COL + 1) + cols[members]
        for c in unique(cols).tolist() if cols.min() != cols.max() else ():
            part = members[cols == c]
            if len(part) >= MIN_COLUMN:
                slots = _slots(nodes, code, index, part)
                if slots is not None:
                    groups.append(ColumnGroup(part, slots))
    return groups


def _slots(nodes: Nodes, code: Compiled, index: CellIndex, members: np.ndarray) -> list | None:
    """The group's inputs (see :class:`ColumnGroup`); None if its cells read each other or
    a range per cell that is not one row of the same columns."""
    t = code.template[int(members[0])]
    if any(kind == UNION for kind, _ in t.plan):
        return None
    refs = _references(nodes, t, code.rects, members)
    if refs is None:
        return None
    for k in t.intersect:  # implicit intersection of a range: cell by cell (cells.py)
        kind, x = t.plan[k]
        rect = x if kind == CONST else refs[x][1] if kind == REF and refs[x][0] == "same" \
            else None
        if (kind == REF and refs[x][0] not in ("same", "cells")) or \
                (rect is not None and (rect[1] != rect[3] or rect[2] != rect[4])):
            return None
    inside = np.zeros(len(nodes.n_text), dtype=bool)
    inside[members] = True
    slots = []
    for kind, x in t.plan:
        if kind == REF and refs[x][0] in ("cells", "rows", "prefix"):
            owners = slot_owners(index, refs[x])
            if inside[owners[owners >= 0]].any():  # a cell of the column itself
                return None
            slots.append(refs[x])
            continue
        rect = refs[x][1] if kind == REF else x if kind == CONST else None
        if rect is not None:
            ids = index.ids_in(rect)
            if ids.size and inside[ids].any():
                return None
        slots.append(refs[x] if kind == REF else None)
    return slots


def _references(nodes: Nodes, t, rects, members: np.ndarray) -> dict | None:
    """Each reference of the cells ``members`` (``rects``: every node's rectangles, a
    :class:`~.pernode.PerNode`): the same rectangle in every cell ("same", rect), one
    cell each on one sheet ("cells", sheet, rows, cols), or one row each of the same
    columns ("rows", ...); None for anything else (a taller range per cell, cells on
    several sheets). Looked at as numpy arrays of the rectangles' rows and columns
    (:meth:`~.pernode.PerNode.columns`: a run's from its row arrays), not per cell."""
    refs = {}
    sheet_index = nodes.sheet_index
    for kind, x in t.plan:
        if kind != REF or x in refs:
            continue
        got = rects.columns(members, x)
        if got is None:
            return None
        sheet, r1, c1, r2, c2 = got
        if sheet is None:  # several sheets
            return None
        first = (sheet, int(r1[0]), int(c1[0]), int(r2[0]), int(c2[0]))
        if (r1 == first[1]).all() and (c1 == first[2]).all() and (r2 == first[3]).all() \
                and (c2 == first[4]).all():
            refs[x] = ("same", first)
            continue
        if (r1 != r2).any():
            prefix = _prefix(sheet_index.get(sheet), first, r1, c1, r2, c2)
            if prefix is None:
                return None
            refs[x] = prefix
            continue
        if (c1 == c2).all():
            refs[x] = ("cells", sheet_index.get(sheet), r1, c1)
            continue
        # one row each, the same columns: $V10:$AB10 filled down
        s = sheet_index.get(sheet)
        if s is None or not (c1 == first[2]).all() or not (c2 == first[4]).all() or \
                not 0 < first[4] - first[2] < MAX_ROW_RANGE or first[4] == MAX_COL:
            return None  # (a range to the sheet's edge is cut to the used area)
        refs[x] = ("rows", s, r1, first[2], first[4], sheet)
    return refs


def _prefix(s, first, r1, c1, r2, c2):
    """("prefix", ...) when every cell reads the rows from one fixed first row down to
    its own last row, of the same columns (``SUM(E$2:E10)`` filled down: a running
    total); None otherwise. The last rows need not grow by one a row. ``r1`` ... ``c2``:
    the cells' rectangles as int64 arrays."""
    if s is None or not (r1 == first[1]).all() or not (c1 == first[2]).all() or \
            not (c2 == first[4]).all() or not 0 <= first[4] - first[2] < MAX_ROW_RANGE or \
            first[4] == MAX_COL:
        return None
    if r2.max() >= MAX_ROW:  # a range to the sheet's edge is cut to the used area
        return None
    return ("prefix", s, first[1], r2, first[2], first[4], first[0])


def slot_owners(index: CellIndex, slot, last: bool = False) -> np.ndarray:
    """The formula nodes filling the cells a "cells", "rows" or "prefix" slot reads
    (-1 for none), one gather per column of the slot (for "prefix", the formula cells
    of the tallest of its ranges). Worked out once per slot object of at most
    :data:`KEEP_OWNERS` cells: the group's check (:func:`_slots`) and the evaluation
    order ask the same slot of the same index; the answer is kept on the index, with the
    slot (so its id is not reused), until a ``last`` ask. A longer slot is worked out at
    each ask (numpy does it in few steps, and keeping it would add to the peak memory of
    a large sheet). Read only: callers never write into it."""
    kept = index.__dict__.setdefault("_slot_owners", {})
    got = kept.pop(id(slot), None) if last else kept.get(id(slot))
    if got is not None and got[0] is slot:
        return got[1]
    owners = _slot_owners(index, slot)
    if not last and owners.size <= KEEP_OWNERS:
        kept[id(slot)] = (slot, owners)
    return owners


#: the longest slot (cells) whose owners :func:`slot_owners` keeps between its asks
KEEP_OWNERS = 4096


def _slot_owners(index: CellIndex, slot) -> np.ndarray:
    """:func:`slot_owners`, worked out."""
    if slot[0] == "prefix":
        _, s, r1, rows, c1, c2, sheet = slot
        return index.ids_in((sheet, r1, c1, int(rows.max()), c2))
    if slot[0] == "cells":
        return index.owners_of(slot[1], slot[2], slot[3])
    _, s, rows, c1, c2, _ = slot
    return np.concatenate([index.owners_of(s, rows, np.full_like(rows, c))
                           for c in range(c1, c2 + 1)])

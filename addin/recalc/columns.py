"""Stage 5a, evaluate a column group at once (:class:`ColumnEvaluator`): its first cell
as usual (which checks the compiled program), the others in one
:func:`~.columnar.run_columns` over inputs gathered once for all of them -- a column of
single cells is one numpy gather from the sheet's grid -- and the results scattered
back with one fancy assignment; cell by cell (:class:`~.cells.CellEvaluator`) if the
run cannot be done as a column."""
from __future__ import annotations

import functools
import itertools

import numpy as np
import schedula as sh

from ..errors import ExcelError
from ..xlsx.valuetexts import per_object
from .cells import CellEvaluator
from .columnar import (LIT_COLUMN, PREFIX_COLUMN, REF_COLUMN, ROWS_COLUMN, PrefixRanges,
                       RowRanges, run_columns)
from .columnar.codes import ColumnCodes
from .columnar.vectors import _cell_values
from .groups import ColumnGroup
from .pernode import pick
from .program import CONST, LIT, NAME, RAW, REF
from .values import XL, same, scalar


class ColumnEvaluator:
    """Evaluates column groups with ``cells`` (whose nodes, templates, results and log it
    shares). ``check`` (:attr:`~.options.Options.check`): each group also evaluated cell
    by cell, those values kept and the cells where the two differ listed in
    :attr:`mismatches` (label, cell by cell, column). :attr:`columnar_cells`: how many
    cells a column run computed."""

    def __init__(self, cells: CellEvaluator, check: bool = False):
        self.cells, self.check = cells, check
        self.mismatches: list = []
        self.columnar_cells = 0
        self.factor_memo: list = []
        self.codes = ColumnCodes()

    def begin_pass(self) -> None:
        """A new pass: the distinct argument combinations of the last one let go."""
        self.factor_memo = []
        self.codes = ColumnCodes()

    def evaluate(self, group: ColumnGroup) -> None:
        """Evaluate ``group``: its first cell as usual, the others in one
        :func:`~.columnar.run_columns`; cell by cell if that fails."""
        cells = self.cells
        members = group.members.tolist()
        cells.evaluate(members[0])
        rest = members[1:]
        t = cells.code.template[members[0]]
        result = None
        if t.program is not None and not t.exact_only and t.checked:
            gathered = self._column_args(rest, group.members[1:], t, group.slots)
            if gathered is not None:
                note = GroupNotes(cells.log.reasons.log, cells.nodes.n_label, rest)
                try:
                    result = run_columns(t.program, *gathered, len(rest), note,
                                         self.factor_memo, self._codes(group.slots))
                except Exception:  # NotStraight, or a function that failed on a column
                    result = None
        if result is None:
            for i in rest:
                cells.evaluate(i)
            return
        self.columnar_cells += len(rest)
        if self.check:
            self._compare_with_cells(rest, result)
        self._scatter(rest, group.members[1:], _cell_values(result[:, 0].tolist()))

    def _scatter(self, rest, ids, values):
        """Each cell of ``rest`` (``ids``: the same as an array) gets its value (one fancy
        assignment per dense sheet)."""
        nodes = self.cells.nodes
        sheets, rows, cols = (a[ids] for a in nodes.where())
        s = int(sheets[0])
        if (sheets == s).all() and nodes.grids[s].dense:
            grid = nodes.grids[s]
            if rows.max() <= grid.rows and cols.max() <= grid.cols:
                column = np.empty(len(rest), dtype=object)
                column[:] = values
                block = _one_column(rows, cols)
                if block is None:
                    grid.a[rows - 1, cols - 1] = column
                else:
                    grid.a[block[0] - 1:block[1], block[2] - 1] = column
                return
        for i, v in zip(rest, values):
            nodes.grids[nodes.n_sheet[i]].set(nodes.n_row[i], nodes.n_col[i], v)

    def _codes(self, slots) -> list:
        """Per slot of a group: for a column of single cells of one column of a dense
        sheet, a function giving their values' codes (:meth:`~.columnar.codes.ColumnCodes.of`,
        asked only by a step that factorises the column), else None."""
        grids, out = self.cells.nodes.grids, []
        for slot in slots:
            made = None
            if slot is not None and slot[0] == "cells" and slot[1] is not None:
                grid, rows, cols = grids[slot[1]], slot[2][1:], slot[3][1:]
                if grid.dense and rows.size and (cols == cols[0]).all() and \
                        rows.max() <= grid.rows and cols[0] <= grid.cols:
                    made = functools.cache(functools.partial(self.codes.of, grid, slot[1],
                                                             rows, int(cols[0])))
            elif slot is not None and slot[0] == "rows":
                _, s, rows, c1, c2, _ = slot
                grid, rows = grids[s], rows[1:]
                if grid.dense and rows.size and rows.max() <= grid.rows and \
                        c2 <= grid.cols:
                    made = functools.cache(functools.partial(self.codes.of_rows, grid, s, rows,
                                                             c1, c2))
            out.append(made)
        return out

    def _compare_with_cells(self, rest, result):
        """``check``: evaluate the cells one by one too; keep those values and list the
        cells where the column run differed."""
        cells, nodes = self.cells, self.cells.nodes
        for k, i in enumerate(rest):
            cells.evaluate(i)
            cell = nodes.grids[nodes.n_sheet[i]].get(nodes.n_row[i], nodes.n_col[i])
            mine = scalar(result[k, 0])
            if not same(cell, mine):
                self.mismatches.append((nodes.n_label[i], cell, mine))
            result[k, 0] = cell

    def _column_args(self, rest, ids, t, slots):
        """The inputs of ``t``'s program for the cells ``rest`` (all of the group but its
        first; ``ids``: the same as an array): (args, kinds)."""
        cells = self.cells
        grids, lits_of, name_values = cells.nodes.grids, cells.code.lits, \
            cells.results.name_values
        args, kinds = [], []
        cell_lits = None
        for (kind, x), slot in zip(t.plan, slots):
            if kind == REF:
                if slot[0] == "same":
                    args.append(cells.ranges(slot[1]))
                    kinds.append(0)
                elif slot[0] == "prefix":
                    _, s, r1, rows, c1, c2, sheet = slot
                    args.append(PrefixRanges(sheet, grids[s], r1, rows[1:], c1, c2))
                    kinds.append(PREFIX_COLUMN)
                elif slot[0] == "rows":
                    _, s, rows, c1, c2, sheet = slot
                    args.append(RowRanges(sheet, grids[s], rows[1:], c1, c2))
                    kinds.append(ROWS_COLUMN)
                else:
                    args.append(_gather(grids, slot[1], slot[2][1:], slot[3][1:]))
                    kinds.append(REF_COLUMN)
            elif kind == LIT:
                if cell_lits is None:  # the distinct tuples of the cells' literals
                    cell_lits = _literal_tuples(pick(lits_of, ids))
                arg, k = _literal_arg(*cell_lits, x)
                args.append(arg)
                kinds.append(k)
            elif kind == CONST:
                args.append(cells.ranges(x))
                kinds.append(0)
            elif kind == NAME:
                args.append(name_values.get(x, XL["#NAME?"]) if x is not None
                            else XL["#NAME?"])
                kinds.append(0)
            elif kind == RAW:
                args.append(x)
                kinds.append(0)
            else:
                return None
        return args, kinds


class GroupNotes:
    """The note a column run of the cells ``rest`` is given: ``note(k, err)`` keeps the
    reason of ``err`` for cell ``k`` unless the cell has one (``reasons``: label ->
    (code, reason), ``labels``: node -> label), ``note.many(ks, errs)`` the same for
    each pair in order. A cell noted once in this run has its label in ``reasons``
    already, so a later note of it changes nothing: it is skipped before its label is
    made (both branches of an IF call a zvmplan function for every cell)."""

    def __init__(self, reasons: dict, labels, rest: list):
        self.reasons, self.labels, self.rest = reasons, labels, rest
        self.noted = np.zeros(len(rest), dtype=bool)

    def __call__(self, k: int, err: ExcelError) -> None:
        if not self.noted[k]:
            self.reasons.setdefault(self.labels[self.rest[k]], (err.code, err.reason))
            self.noted[k] = True

    def many(self, ks: list, errs: list) -> None:
        cells = np.asarray(ks, dtype=np.int64)
        fresh = ~self.noted[cells]
        if not fresh.all():
            keep = fresh.tolist()
            ks = list(itertools.compress(ks, keep))
            errs = list(itertools.compress(errs, keep))
        self.noted[cells] = True
        reasons = self.reasons
        for label, why in zip(self.labels.many(list(map(self.rest.__getitem__, ks))),
                              per_object(lambda e: (e.code, e.reason), errs)):
            reasons.setdefault(label, why)


def _literal_tuples(cell_lits: list) -> tuple[list, np.ndarray]:
    """The cells' tuples of literals (a run of cells shares one tuple object): (the
    distinct tuple objects in order of first appearance, each cell's index into them),
    found by identity in C, so that a literal is looked at once per tuple, not once per
    cell: a literal is the same in every cell when it is so in every tuple (equal, of one
    type), and else a column picked from the tuples' by the cells' indexes."""
    by_id = dict(zip(map(id, cell_lits), cell_lits))  # id -> tuple, first appearance
    tuples = list(by_id.values())
    if len(tuples) == 1:
        return tuples, np.zeros(len(cell_lits), dtype=np.int64)
    index = {i: k for k, i in enumerate(by_id)}
    which = np.fromiter(map(index.__getitem__, map(id, cell_lits)), dtype=np.int64,
                        count=len(cell_lits))
    return tuples, which


def _literal_arg(tuples: list, which: np.ndarray, x: int):
    """Literal ``x`` of the cells whose tuples of literals are ``tuples[which[k]]``
    (:func:`_literal_tuples`): (the value, 0) when it is one value in every cell (the
    same object, or equal and of one type), else (the ``(n, 1)`` column, LIT_COLUMN)."""
    if len(tuples) == 1:  # the same literal object in every cell
        return tuples[0][x], 0
    lits = [t[x] for t in tuples]  # each tuple's: one of them per cell
    first = lits[0]
    if lits.count(first) == len(lits) and set(map(type, lits)) == {type(first)}:
        return first, 0
    held = np.empty(len(lits), dtype=object)
    held[:] = lits
    return held[which].reshape(-1, 1), LIT_COLUMN


def _gather(grids: list, s, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The values of cells (``rows``, ``cols``) of sheet ``s`` (an index into ``grids``,
    None for a sheet that does not exist) as an ``(n, 1)`` column."""
    n = rows.size
    out = np.empty((n, 1), dtype=object)
    if s is None:
        out.fill(XL["#REF!"])
        return out
    grid = grids[s]
    if grid.dense:
        inside = (rows <= grid.rows) & (cols <= grid.cols)
        if inside.all():
            block = _one_column(rows, cols)
            out[:, 0] = grid.a[rows - 1, cols - 1] if block is None else \
                grid.a[block[0] - 1:block[1], block[2] - 1]
            return out
        out.fill(sh.EMPTY)
        out[inside, 0] = grid.a[rows[inside] - 1, cols[inside] - 1]
        return out
    for k, (r, c) in enumerate(zip(rows.tolist(), cols.tolist())):
        out[k, 0] = grid.get(r, c)
    return out


def _one_column(rows: np.ndarray, cols: np.ndarray):
    """(first row, last row, column) when the cells (``rows``, ``cols``) are consecutive
    rows of one column, in order (a formula filled down): a slice of the grid, not a
    gather; else None."""
    n = rows.size
    if n < 2 or int(rows[-1]) - int(rows[0]) != n - 1 or not (np.diff(rows) == 1).all() \
            or not (cols == cols[0]).all():
        return None
    return int(rows[0]), int(rows[-1]), int(cols[0])

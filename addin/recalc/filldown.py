"""Part of stage 3, compile: the cells of a formula filled down a column, found at once.

Most formula cells of a planner are a few formulas, each filled down its column
(``=F2*D2/86400``, ``=F3*D3/86400``, ...). A fill moves only the relative row numbers,
so the text each later cell holds, if it is a copy of the first, is known in advance:
one ``str.format`` of its row (:class:`~.shapes.FillPattern`). :func:`find_runs` walks
each column once and compares every cell's text with that prediction -- string
equality, no scan of the text -- and a :class:`Run` is a first cell (the *leader*) and
the cells after it that match. The first cell that does not match (another formula, a
literal that changes by row, a row number inside a string, a reference that would move
off the sheet, a text grown past Excel's 8,192 characters) ends the run and leads the
next one. A column whose ``$`` rows move with the row (``Planner!$B$5000`` in row 5000,
a table naming the row beside it so that sorting it keeps its links) is no fill, but its
second cell tells which ``$`` rows move (:meth:`~.shapes.Shaper.fill_pattern` with
``after``), and then its cells are predicted and compared the same way. Equal text means
an equal shape up to the moved rows, so :class:`RunRefs`
holds the references of all its cells as numpy row arrays, instead of a shape and a
tuple per cell; the compiler (:func:`~.compile.compile_nodes`) gives them the leader's
compiled template when that template can be shared, and otherwise shapes and compiles
them one by one.
"""
from __future__ import annotations

import functools
import string
from typing import NamedTuple

import numpy as np

from ..xlsx.errors import UnsafeWorkbookError
from .pernode import pick
from .shapes import MAX_COL, MAX_FORMULA_CHARS, FillPattern, Shaper

FIRST_CHUNK = 4  # cells compared before the chunk doubles (a short run costs little)
MAX_SKIP = 63    # cells passed over after a cell that leads no run, at most
# a longer text (its row numbers grown by a digit) is left to the compiler to refuse
_LONGEST = MAX_FORMULA_CHARS - 1


class Run(NamedTuple):
    """One formula filled down: the leader node, and the later nodes of its column
    (in row order) whose text is the leader's moved to their row."""
    leader: int
    members: np.ndarray     # node ids
    rows: np.ndarray        # the members' rows
    pattern: FillPattern

    def one_cell(self, k: int) -> bool:
        """Is reference ``k`` one cell in every member?"""
        move, rect = self.pattern.moves[k], self.pattern.shape.rects[k]
        if move is None:
            return rect[1] == rect[3] and rect[2] == rect[4]
        return move[:2] == move[2:] and rect[2] == rect[4]

    def varying(self) -> frozenset:
        """The references that differ between the cells of the run."""
        return frozenset(k for k, move in enumerate(self.pattern.moves) if move is not None)


class RunRefs:
    """The references of a run's members held as the run's row arrays (a block of
    :class:`~.pernode.PerNode`): each reference that moves is two int64 arrays (its
    first and last row in each member), one that does not is its rect. :meth:`at`
    makes one member's tuples when a later stage asks for that cell; ``refs`` and
    ``fixed``: what the template reads (:meth:`~.program.Template.inputs_read`), for
    the member's ``used``."""

    def __init__(self, run: Run, refs: tuple, fixed: tuple):
        self.pattern, self.refs, self.fixed = run.pattern, refs, fixed
        self.delta = run.rows - run.pattern.row
        self._ends: dict = {}

    def ends(self, k: int, keep: bool = True):
        """(first rows, last rows) of reference ``k`` in each member; None if it does
        not move (the first row is the smaller end). Kept for the next call if ``keep``
        (:meth:`at` asks once per cell; :meth:`columns` once per group)."""
        got = self._ends.get(k)
        if got is None:
            move = self.pattern.moves[k]
            if move is None:
                return None
            a, a_moves, b, b_moves = move
            delta = self.delta
            if a_moves and b_moves:
                first = min(a, b) + delta
                last = first if a == b else max(a, b) + delta
            else:
                ra, rb = (a + delta) if a_moves else a, (b + delta) if b_moves else b
                first, last = np.minimum(ra, rb), np.maximum(ra, rb)
            got = (first, last)
            if keep:
                self._ends[k] = got
        return got

    def rect(self, k: int, j: int) -> tuple:
        """Reference ``k`` of member ``j``."""
        ends = self.ends(k)
        rect = self.pattern.shape.rects[k]
        if ends is None:
            return rect
        return (rect[0], int(ends[0][j]), rect[2], int(ends[1][j]), rect[4])

    def at(self, what: str, j: int) -> tuple:
        """Member ``j``'s rects (``what`` "rects") or the rects it reads ("used")."""
        if what == "rects":
            return tuple([self.rect(k, j) for k in range(len(self.pattern.moves))])
        return tuple([self.rect(x, j) for x in self.refs]) + self.fixed

    def rect_list(self, k: int) -> list:
        """Reference ``k`` of every member, as rects."""
        return [self.rect(k, j) for j in range(len(self.delta))]

    def columns(self, k: int, places: np.ndarray) -> tuple:
        """(sheet, (r1, c1, r2, c2)) of reference ``k`` in the members at ``places``,
        the four as arrays (or numbers, the same in each)."""
        rect = self.pattern.shape.rects[k]
        ends = self.ends(k, keep=False)
        if ends is None:
            return rect[0], rect[1:]
        return rect[0], (ends[0][places], rect[2], ends[1][places], rect[4])

    def same(self, j: int, j0: int) -> bool:
        """Do references ``j`` and ``j0`` resolve alike in every member?"""
        return bool(np.all(self.same_each(j, j0)))

    def same_each(self, j: int, j0: int):
        """Do references ``j`` and ``j0`` resolve alike, in each member (a bool array,
        or one bool when neither moves)?"""
        a, b = self.pattern.shape.rects[j], self.pattern.shape.rects[j0]
        if (a[0], a[2], a[4]) != (b[0], b[2], b[4]):
            return False
        ea, eb = self.ends(j, keep=False), self.ends(j0, keep=False)
        ea = ea if ea is not None else (a[1], a[3])
        eb = eb if eb is not None else (b[1], b[3])
        return (np.asarray(ea[0]) == eb[0]) & (np.asarray(ea[1]) == eb[1])

    def accepted_by_any(self, dups: list) -> bool:
        """Would a template whose references ``dups`` pair up (:meth:`~.program.Template.
        accepts`) accept any member?"""
        each = True
        for j, j0 in dups:
            each = each & self.same_each(j, j0)
            if not np.any(each):
                return False
        return bool(np.any(each))


def find_runs(n_sheet, n_row, n_col, n_text, cells: int, shaper_of, fills=None,
              check: bool = False) -> dict[int, Run]:
    """The runs of the first ``cells`` nodes (formula cells, in row-then-column order
    per sheet), by leader; ``shaper_of(sheet)`` gives the :class:`~.shapes.Shaper` of a
    sheet. Linear: each cell's text is compared once, each leader scanned once.

    ``fills``: (sheet, column) -> :class:`~zvmplan_addin.xlsx.knownrows.FilledColumn`,
    cells a writer made as one formula filled down (``Nodes.fills``). Where a run's
    prediction reaches such cells and is the same rule, and the cells hold the very
    texts the rule made, they are taken without predicting and comparing each text
    (:func:`_claimed`); anything else is compared as usual. ``check``: each such run is
    also found the usual way, a difference an error (``ZVMPLAN_ENGINE_CHECK``)."""
    if cells < 2:
        return {}
    fills = fills or {}
    sheets = np.asarray(n_sheet[:cells], dtype=np.int64)
    cols = np.asarray(n_col[:cells], dtype=np.int64)
    rows = np.asarray(n_row[:cells], dtype=np.int64)
    order = np.argsort(sheets * (MAX_COL + 1) + cols, kind="stable")  # by column, rows kept
    key = (sheets * (MAX_COL + 1) + cols)[order]
    bounds = np.flatnonzero(np.diff(key)) + 1
    runs: dict[int, Run] = {}
    for ids in np.split(order, bounds):
        if len(ids) < 2:
            continue
        s, col = int(sheets[ids[0]]), int(cols[ids[0]])
        texts = pick(n_text, ids)
        filled = fills.get((s, col))
        extent = _extent if filled is None else functools.partial(
            _extent_claimed, filled=filled, check=check)
        _column_runs(shaper_of(s), ids, rows[ids], col, texts, runs, extent)
    return runs


def _column_runs(shaper: Shaper, ids, rows, col: int, texts: list, runs: dict,
                 extent=None) -> None:
    """The runs of one column: ``ids`` its nodes, ``rows`` (increasing) and ``texts``.
    A cell that the next one does not copy leads no run; after it the search skips
    cells, twice as many each time it fails again (up to :data:`MAX_SKIP`), so a column
    of differing formulas costs a few tries, not one per cell (the cells skipped are
    shaped one by one, as any cell outside a run). ``extent``: :func:`_extent`, or
    that with a column's claim (:func:`_extent_claimed`)."""
    extent = extent or _extent
    n, pos, skip = len(ids), 0, 0
    row_list = rows.tolist()
    while pos < n - 1:
        pattern = shaper.fill_pattern(texts[pos], row_list[pos], col)
        end = pos + 1 if pattern is None else extent(pattern, rows, texts, pos + 1)
        if end == pos + 1:  # perhaps a fill whose $ rows move with the row
            pattern = shaper.fill_pattern(texts[pos], row_list[pos], col,
                                          (texts[pos + 1], row_list[pos + 1]))
            if pattern is not None:
                end = extent(pattern, rows, texts, pos + 1)
        if end > pos + 1:
            runs[int(ids[pos])] = Run(int(ids[pos]), ids[pos + 1:end], rows[pos + 1:end],
                                      pattern)
            pos, skip = end, 0
        else:
            pos, skip = pos + 1 + skip, min(2 * skip + 1, MAX_SKIP)


def _extent(pattern: FillPattern, rows, texts: list, start: int, claim=None) -> int:
    """The first position from ``start`` whose text is not ``pattern`` at its row
    (compared a chunk at a time, the chunk doubling, so a short run costs little). A
    chunk's texts are predicted all at once, one ``%`` format of the chunk's rows
    (:func:`_printf`), and compared joined, as one string; a chunk that differs is
    compared text by text to find where. ``claim``: (position, function) -- at that
    position the function (:func:`_claimed`) gives where the cells a writer made by
    ``pattern``'s own rule end, or None (then they are compared as any others)."""
    stop_all = min(len(texts), int(np.searchsorted(rows, pattern.last_row(), side="right")))
    end, chunk = start, FIRST_CHUNK
    at, claimed = claim if claim is not None else (-1, None)
    printf = _printf(pattern.fmt, pattern.offsets) if pattern.offsets else None
    while end < stop_all:
        if end == at:
            got = claimed(stop_all)
            if got is not None and got > end:
                end = got
                continue
        stop = min(stop_all, end + chunk)
        if end < at < stop:  # the chunk ends where the claimed cells begin
            stop = at
        if printf is not None and stop - end > FIRST_CHUNK:
            pct, fields = printf
            values = (rows[end:stop, None] + fields).ravel().tolist()
            # the rows grow, so the last text is the longest
            if (_SEP.join([pct] * (stop - end)) % tuple(values) == _SEP.join(texts[end:stop])
                    and len(pct % tuple(values[-len(fields):])) <= _LONGEST):
                end, chunk = stop, chunk * 2
                continue
        if pattern.offsets:
            fields = [(rows[end:stop] + d).tolist() for d in pattern.offsets]
            want = list(map(pattern.fmt.format, *fields))
        else:
            want = [pattern.text_at(0)] * (stop - end)
        got = texts[end:stop]
        if want != got or max(map(len, want)) > _LONGEST:
            return end + next(k for k, (a, b) in enumerate(zip(want, got))
                              if a != b or len(a) > _LONGEST)
        end, chunk = stop, chunk * 2
    return end


def _extent_claimed(pattern: FillPattern, rows, texts: list, start: int, filled,
                    check: bool = False) -> int:
    """:func:`_extent`, the cells of ``filled`` (a
    :class:`~zvmplan_addin.xlsx.knownrows.FilledColumn` of this column) taken at once
    when ``pattern``'s rule is ``filled``'s (:func:`_claimed`). ``check``: the extent
    found the usual way too, and a difference raised."""
    if _rule(pattern.fmt, pattern.offsets) != (filled.pieces, filled.offsets):
        return _extent(pattern, rows, texts, start)
    p0 = int(np.searchsorted(rows, filled.first_row))
    at = max(start, p0)
    end = _extent(pattern, rows, texts, start,
                  (at, functools.partial(_claimed, filled, rows, texts, p0, at)))
    if check:
        usual = _extent(pattern, rows, texts, start)
        if usual != end:
            raise FillClaimMismatch(
                f"column {filled.col}: the cells a writer said were one formula filled "
                f"down from row {filled.first_row} end at position {end}, compared one "
                f"by one at {usual} (ZVMPLAN_ENGINE_CHECK)")
    return end


def _claimed(filled, rows, texts: list, p0: int, at: int, stop_all: int):
    """Where the cells of ``filled`` from position ``at`` on end (``p0``: the position
    of its first row; ``stop_all``: no further), when each of them is in its row (one a
    row, from ``filled.first_row``) and holds the very text ``filled``'s rule made
    (equal texts: compared by identity first, in C) within Excel's length; else None."""
    n = len(filled.texts)
    stop = min(p0 + n, stop_all, len(texts))
    if not 0 <= p0 <= at < stop:
        return None
    first = filled.first_row + (at - p0)
    if not np.array_equal(rows[at:stop], np.arange(first, first + stop - at)):
        return None
    made = filled.texts[at - p0:stop - p0]
    if tuple(texts[at:stop]) != made or max(map(len, made)) > _LONGEST:
        return None
    return stop


@functools.lru_cache(maxsize=256)
def _rule(fmt: str, offsets: tuple):
    """``fmt`` (a :class:`~.shapes.FillPattern`'s ``str.format`` text) as the literal
    pieces between its fields and each field's row offset, in order (the form of a
    :class:`~zvmplan_addin.xlsx.knownrows.FilledColumn`); None if a field is not a plain
    ``{k}``."""
    pieces, fields = [""], []
    for literal, name, spec, conversion in string.Formatter().parse(fmt):
        pieces[-1] += literal
        if name is None:
            continue
        if spec or conversion or not name.isdigit():
            return None
        fields.append(offsets[int(name)])
        pieces.append("")
    return tuple(pieces), tuple(fields)


class FillClaimMismatch(UnsafeWorkbookError):
    """Cells a writer described as one formula filled down are not one, compared text
    by text (only looked for with ``ZVMPLAN_ENGINE_CHECK``): a fault of the writer's
    description, shown, never used."""


_SEP = "\x00"  # between texts compared joined (XML 1.0 has no NUL: no text holds one)


@functools.lru_cache(maxsize=256)
def _printf(fmt: str, offsets: tuple):
    """``fmt`` (a :class:`~.shapes.FillPattern`'s ``str.format`` text) as a ``%`` format
    and the row offset of each of its ``%d`` in order, so one ``%`` makes many texts;
    None if the text holds a NUL or a field is not a plain ``{k}``."""
    pieces, fields = [], []
    for literal, name, spec, conversion in string.Formatter().parse(fmt):
        if _SEP in literal:
            return None
        pieces.append(literal.replace("%", "%%"))
        if name is None:
            continue
        if spec or conversion or not name.isdigit():
            return None
        pieces.append("%d")
        fields.append(offsets[int(name)])
    if not fields:
        return None
    return "".join(pieces), np.array(fields, dtype=np.int64)


__all__ = ["Run", "RunRefs", "find_runs"]

"""Stage 1, read: the workbook as :mod:`zvmplan_addin.xlsx` reads it -> :class:`Nodes`
(:func:`read_nodes`): one value grid per sheet (:class:`Grid`) and the *nodes* to
evaluate: every formula cell, each use of a defined name in it replaced by the name's
definition moved to the cell (:mod:`.names`), each structured reference by its A1
reference (:mod:`.tables`) and each reference to another workbook by the value Excel
cached for it (:mod:`.external`).
"""
from __future__ import annotations

import itertools
import operator
import re
from dataclasses import dataclass, field
from typing import NamedTuple
from itertools import chain, repeat

import numpy as np
import schedula as sh

from .. import xlsx
from ..xlsx.size import DENSE_CELLS
from . import dynamic, shapes, threed
from .external import ExternalRefs
from .names import NameTable
from .tables import TableRefs
from .facts import BookFacts
from .runlog import RunLog
from .values import display, filled, input_value
from ..lazyre import lazy_pattern

DENSE_LIMIT = DENSE_CELLS  # cells in a sheet's bounding box held as a dense grid


def coords(cells: dict) -> np.ndarray:
    """The ``(row, col)`` keys of ``cells`` as an ``(n, 2)`` int64 array, in one pass
    over the keys (a sheet's cell dicts hold up to millions of them, and each pass over
    those scattered tuples costs more than the numpy work after it)."""
    flat = np.fromiter(chain.from_iterable(cells), dtype=np.int64, count=2 * len(cells))
    return flat.reshape(-1, 2)


class SheetCells:
    """One sheet's cells as the read stage takes them: in columns, each
    ``(rows, cols)`` a pair of int64 arrays. ``value_at``, ``values`` (an object array):
    the cells without a formula; ``formula_at``, ``texts`` (a list), ``kinds`` (a list,
    or None: every formula plain): the formula cells; ``cached_at``, ``cached``: the
    values cached in formula cells; ``formulas``: the sheet's formula dict when the
    columns were made from the dicts (None otherwise); ``areas``: the array formulas'
    ranges.

    Made from the reader's own columns when it handed them over
    (:attr:`~zvmplan_addin.xlsx.SheetData.columns`: no dict made nor walked), else from
    the sheet's dicts, one pass over each: both give the same columns (a test checks
    it), so the rest of the stage has one path."""

    __slots__ = ("max_row", "max_col", "value_at", "values", "formula_at", "texts",
                 "kinds", "cached_at", "cached", "formulas", "areas")

    def __init__(self, sheet: xlsx.SheetData):
        self.max_row, self.max_col = sheet.max_row, sheet.max_col
        columns = sheet.columns
        if columns is not None:   # the bulk reader's: in order, every formula plain
            self.value_at = (columns.value_rows, columns.value_cols)
            self.values = columns.values
            rows, cols = self.formula_at = (columns.formula_rows, columns.formula_cols)
            self.texts, self.kinds, self.formulas, self.areas = columns.texts, None, None, []
            held = columns.cached_index
            self.cached_at = (rows[held], cols[held])
            self.cached = columns.cached
            return
        values, formulas = sheet.values, sheet.formulas
        self.value_at = _pair(coords(values))
        self.values = np.fromiter(values.values(), dtype=object, count=len(values))
        self.formula_at = _pair(coords(formulas))
        self.texts = list(map(operator.attrgetter("text"), formulas.values()))
        self.kinds = list(map(operator.attrgetter("kind"), formulas.values()))
        self.formulas = formulas
        self.areas = [f.area for f in formulas.values() if f.area] \
            if "array" in self.kinds else []
        # until recalculated, a formula cell holds its cached value
        cached = {rc: v for rc, v in sheet.cached.items() if rc in formulas}
        self.cached_at = _pair(coords(cached))
        self.cached = np.fromiter(cached.values(), dtype=object, count=len(cached))

    def keys(self, at: tuple) -> set:
        """The ``(row, col)`` of the cells ``at`` (a pair of :attr:`value_at`'s kind), as
        a set."""
        return set(zip(at[0].tolist(), at[1].tolist()))


def _pair(at: np.ndarray) -> tuple:
    """``(rows, cols)`` of the :func:`coords` ``at``."""
    return at[:, 0], at[:, 1]


class Grid:
    """The values of one sheet: a dense object array over its used area (or a dict for a
    huge, sparse one), filled from its :class:`SheetCells`. Missing cells are
    ``sh.EMPTY``; until recalculated, a formula cell holds its cached value."""

    def __init__(self, cells: SheetCells):
        rows = max(cells.max_row, 1)
        cols = max(cells.max_col, 1)
        for area in cells.areas:   # (an array formula's range may reach beyond)
            rows, cols = max(rows, area[2]), max(cols, area[3])
        self.rows, self.cols = rows, cols
        self.dense = rows * cols <= DENSE_LIMIT
        if self.dense:
            self.a = filled((rows, cols), sh.EMPTY, dtype=object)
        else:
            self.d = {}
        for at, values in ((cells.value_at, cells.values), (cells.cached_at, cells.cached)):
            if self.dense and len(values):
                self._fill(values, at)
            else:
                for r, c, v in zip(at[0].tolist(), at[1].tolist(), values):
                    self.set(r, c, input_value(v))

    def _fill(self, values: np.ndarray, at: tuple):
        """Set many cells at once (numpy fancy indexing, not a Python call per cell):
        ``values`` (an object array) at ``at`` (rows, cols)."""
        kinds = np.fromiter(map(type, values), dtype=object, count=len(values))
        distinct = set(kinds.tolist())
        if xlsx.XlError in distinct:  # error values are rare: only they are converted
            erring = np.zeros(len(values), dtype=bool)
            for kind in distinct:
                if issubclass(kind, xlsx.XlError):  # (input_value's isinstance)
                    erring |= kinds == kind
            converted = np.empty(int(erring.sum()), dtype=object)
            converted[:] = list(map(input_value, values[erring].tolist()))
            values = values.copy()
            values[erring] = converted
        self.a[at[0] - 1, at[1] - 1] = values

    def get(self, r, c):
        if self.dense:
            if r <= self.rows and c <= self.cols:
                return self.a[r - 1, c - 1]
            return sh.EMPTY
        return self.d.get((r, c), sh.EMPTY)

    def set(self, r, c, v):
        if self.dense:
            if r > self.rows or c > self.cols:
                self._grow(r, c)
            self.a[r - 1, c - 1] = v
        else:
            self.d[(r, c)] = v

    def _grow(self, r, c):
        rows, cols = max(r, self.rows), max(c, self.cols)
        a = filled((rows, cols), sh.EMPTY, dtype=object)
        a[:self.rows, :self.cols] = self.a
        self.a, self.rows, self.cols = a, rows, cols

    def stored(self, r1, c1, r2, c2) -> list:
        """(row, column, value) of each cell the grid holds in the rectangle, by row then
        column: for a sparse grid (``not self.dense``) in time proportional to the cells
        it holds, for a dense one to the part of its array in the rectangle."""
        if self.dense:
            rr, cc = min(r2, self.rows), min(c2, self.cols)
            if rr < r1 or cc < c1:
                return []
            part = self.a[r1 - 1:rr, c1 - 1:cc]
            held = np.fromiter((v is not sh.EMPTY for v in part.flat), dtype=bool,
                               count=part.size).reshape(part.shape)
            return [(int(i) + r1, int(j) + c1, part[i, j]) for i, j in zip(*held.nonzero())]
        return sorted((r, c, v) for (r, c), v in self.d.items()
                      if r1 <= r <= r2 and c1 <= c <= c2 and v is not sh.EMPTY)

    def block(self, r1, c1, r2, c2) -> np.ndarray:
        out = filled((r2 - r1 + 1, c2 - c1 + 1), sh.EMPTY, dtype=object)
        if self.dense:
            rr, cc = min(r2, self.rows), min(c2, self.cols)
            if rr >= r1 and cc >= c1:
                out[:rr - r1 + 1, :cc - c1 + 1] = self.a[r1 - 1:rr, c1 - 1:cc]
        elif out.size <= len(self.d):
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    v = self.d.get((r, c))
                    if v is not None:
                        out[r - r1, c - c1] = v
        else:
            for (r, c), v in self.d.items():
                if r1 <= r <= r2 and c1 <= c <= c2:
                    out[r - r1, c - c1] = v
        return out


class _Taken:
    """Which cells of a sheet the file fills (an input value or a formula): what a spill
    may not overwrite. A boolean grid (or a set for a huge sparse sheet), so the sheet's
    cells can be let go once read."""

    def __init__(self, cells: SheetCells, grid: Grid):
        where = (cells.value_at, cells.formula_at)
        if grid.dense:
            self.mask = np.zeros((grid.rows, grid.cols), dtype=bool)
            for rows, cols in where:
                self.mask[rows - 1, cols - 1] = True
            self.cells = None
        else:
            self.mask = None
            self.cells = cells.keys(where[0]) | cells.keys(where[1])

    def __contains__(self, rc) -> bool:
        if self.mask is None:
            return rc in self.cells
        r, c = rc
        return r <= self.mask.shape[0] and c <= self.mask.shape[1] and bool(self.mask[r - 1, c - 1])


def release(book: xlsx.Workbook) -> None:
    """Let go of the cells of ``book``'s sheets (their dicts, or the reader's columns)
    once an engine has read them (a 100,000-row planner holds 1.4 million); calc does
    this."""
    for sheet in book.sheets:
        sheet.columns = None
        sheet.values, sheet.formulas, sheet.cached = {}, {}, {}


def _in_order(cells: dict):
    """The items of ``cells`` by row, then column (a reader gives them so: no sort then)."""
    keys = list(cells)
    if keys == sorted(keys):  # timsort: linear when in order
        return cells.items()
    return sorted(cells.items())


class Labels:
    """``Sheet!A1`` of node ``i`` (a defined name's own name), made when asked: a
    workbook of a million formula cells needs few of them."""

    def __init__(self, sheet_names: list[str], n_sheet: list, n_row: list, n_col: list):
        self.names: dict[int, str] = {}
        self._sheet_names = sheet_names
        self._cells = n_sheet, n_row, n_col
        self._prefixes: dict = {}

    def __getitem__(self, i: int) -> str:
        name = self.names.get(i)
        if name is not None:
            return name
        n_sheet, n_row, n_col = self._cells
        return self.cell(n_sheet[i], n_row[i], n_col[i])

    def many(self, ids: list) -> list[str]:
        """``[self[i] for i in ids]`` in fewer Python steps: each (sheet, column)'s
        ``Sheet!D`` made once, the row numbers appended in one ``map``."""
        if self.names and not self.names.keys().isdisjoint(ids):
            return [self[i] for i in ids]
        n_sheet, n_row, n_col = self._cells
        sheets = list(map(n_sheet.__getitem__, ids))
        cols = list(map(n_col.__getitem__, ids))
        heads = {sc: self.cell(sc[0], 1, sc[1])[:-1] for sc in set(zip(sheets, cols))}
        return list(map(str.__add__, map(heads.__getitem__, zip(sheets, cols)),
                        map(str, map(n_row.__getitem__, ids))))

    def cell(self, s: int, r: int, c: int) -> str:
        """``Sheet!A1`` of cell (``r``, ``c``) of sheet ``s``."""
        prefix = self._prefixes.get(s)
        if prefix is None:
            prefix = self._prefixes[s] = display(self._sheet_names[s]) + "!"
        return prefix + shapes.a1(r, c)


@dataclass(frozen=True, eq=False)
class Nodes:
    """What the read stage hands the others: the workbook's values and the nodes to
    evaluate. Node ``i`` is described by the parallel lists ``n_sheet``, ``n_row``,
    ``n_col``, ``n_text``, ``n_area`` (an array formula's range), ``n_kind`` and
    ``n_label``; the first ``cells`` nodes are formula cells, the rest defined names
    that are formulas. ``grids``: each sheet's values (formula cells hold their cached
    value until evaluated); ``taken``: each sheet's filled cells; ``sheet_index``:
    :func:`~.shapes.sheet_key` -> sheet. Defined names are already replaced by their
    definitions in each formula's text (:mod:`.names`), so ``refs`` (per sheet, the
    names formulas is told of), ``name_nodes`` (formula names evaluated as nodes) and
    ``scopes`` (sheets with local names) are empty: the later stages see plain
    references only. ``date1904``: the workbook counts dates from 1904
    (:mod:`.datesystem`); ``facts``: the hidden rows and the SUBTOTAL cells
    (:class:`~.facts.BookFacts`); ``iteration``: (count, delta) when the workbook asks
    for iterative calculation (:mod:`.cycles`)."""
    sheet_names: list
    sheet_index: dict
    grids: list
    taken: list
    n_sheet: list
    n_row: list
    n_col: list
    n_text: list
    n_area: list
    n_kind: list
    n_label: Labels
    cells: int
    refs: list
    name_nodes: dict
    scopes: dict
    date1904: bool = False
    mac: bool = False               # saved by Excel for Mac: CHAR/CODE in Mac Roman
    names: object = None            # the NameTable (INDIRECT reads names by their text)
    facts: BookFacts | None = None
    iteration: tuple | None = None  # (count, delta) of Excel's iterative calculation, or off
    cell_at: tuple | None = None    # n_sheet, n_row, n_col of the cells as int64 arrays
    any_area: bool = True           # False: no cell is an array formula (n_area all None)
    #: (sheet, column) -> :class:`~zvmplan_addin.xlsx.knownrows.FilledColumn`: cells a
    #: writer says are one formula filled down (:func:`~.filldown.find_runs` checks it)
    fills: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.n_text)

    def where(self) -> tuple:
        """(sheets, rows, cols) of the formula cells (the first :attr:`cells` nodes) as
        int64 arrays, for the stages that look at all of them at once."""
        if self.cell_at is None:
            n = self.cells
            object.__setattr__(self, "cell_at", tuple(
                np.array(a[:n], dtype=np.int64) for a in (self.n_sheet, self.n_row, self.n_col)))
        return self.cell_at

    def in_area(self) -> np.ndarray:
        """Which formula cells anchor an array formula's range (``n_area`` not None), as
        a boolean array (made once)."""
        got = self.__dict__.get("_in_area")
        if got is None:
            n = self.cells
            got = np.zeros(n, dtype=bool) if not self.any_area else \
                np.fromiter(map(operator.is_not, self.n_area[:n], itertools.repeat(None)),
                            dtype=bool, count=n)
            self.__dict__["_in_area"] = got
        return got


class _NodeLists:
    """The parallel per-node lists of :class:`Nodes`, filled by :func:`read_nodes`."""

    def __init__(self, sheet_names: list[str]):
        self.sheet, self.row, self.col, self.text, self.area, self.kind = [], [], [], [], [], []
        self.labels = Labels(sheet_names, self.sheet, self.row, self.col)
        self.arrays: list | None = []  # (sheets, rows, cols) of each extend; None after add
        self.any_area = False

    def where(self) -> tuple | None:
        """The cells' (sheets, rows, cols) as int64 arrays, if every cell came in by
        :meth:`extend` (else None: :meth:`Nodes.where` makes them from the lists)."""
        if self.arrays is None or not self.arrays:
            return None
        if len(self.arrays) == 1:   # one sheet of formulas: its arrays as they are
            return self.arrays[0]
        return tuple(np.concatenate([a[k] for a in self.arrays]) for k in range(3))

    def add(self, s, r, c, text, area, label=None, kind="name") -> int:
        self.arrays = None  # (:meth:`where` is asked before the names come)
        self.any_area = self.any_area or area is not None
        self.kind.append(kind)
        self.sheet.append(s)
        self.row.append(r)
        self.col.append(c)
        self.text.append(text)
        self.area.append(area)
        if label:
            self.labels.names[len(self.text) - 1] = label
        return len(self.text) - 1

    def extend(self, s: int, rows: np.ndarray, cols: np.ndarray, texts: list,
               kinds: list | None):
        """A sheet's formula cells at once (by row, then column); ``kinds`` None: every
        one plain."""
        n = len(texts)
        if self.arrays is not None:
            self.arrays.append((np.full(n, s, dtype=np.int64), rows, cols))
        self.kind.extend(kinds if kinds is not None else repeat("plain", n))
        self.sheet.extend([s] * n)
        self.row.extend(_shared_ints(rows))
        self.col.extend(cols.tolist())  # (small numbers: Python keeps one object each)
        self.text.extend(texts)
        self.area.extend([None] * n)


def _shared_ints(values: np.ndarray) -> list:
    """``values.tolist()`` with one int object per distinct number (a row number is held
    by every formula cell of the row: a 100,000-row planner keeps 100,000 objects for
    its 900,000 cells, not 900,000)."""
    if not values.size:
        return []
    low, high = int(values.min()), int(values.max())
    if high - low > 2 * values.size:  # sparse: nothing to share
        return values.tolist()
    ints = list(range(low, high + 1))
    return list(map(ints.__getitem__, (values - low).tolist()))


def read_nodes(book: xlsx.Workbook, log: RunLog) -> Nodes:
    """The :class:`Nodes` of ``book``: each sheet's formula cells by row, then column,
    then the defined names that are formulas. A data table's cells keep their cached
    value (noted in ``log``)."""
    sheet_names = [s.name for s in book.sheets]
    # each sheet's cells in columns, shared by what follows
    cells = [SheetCells(s) for s in book.sheets]
    grids = [Grid(c) for c in cells]
    taken = [_Taken(c, g) for c, g in zip(cells, grids)]
    lists = _NodeLists(sheet_names)
    fills = {s: one.fills for s, one in enumerate(book.sheets) if getattr(one, "fills", ())}
    claimed = []  # (first, stop) of the nodes whose texts are fills' texts, those fills
    for s, sheet_cells in enumerate(cells):
        first = len(lists.text)
        _formula_cells(lists, s, sheet_cells, log)
        if s in fills:
            claimed += _claimed_texts(lists.text, first, len(lists.text), fills[s])
    del cells
    n_cells = len(lists.text)
    cell_at = lists.where()
    lists.arrays = None  # (the facts' closure below keeps the lists: not these arrays too)
    names = NameTable([(dn.name, dn.text, dn.sheet) for dn in book.names], sheet_names)
    tables = TableRefs(getattr(book, "tables", ()), sheet_names)
    external = ExternalRefs(getattr(book, "external", ()))
    text, sheet, row, col = lists.text, lists.sheet, lists.row, lists.col
    # each name and structured reference: its A1 reference; another workbook's: its value
    for table in (names, tables, external):
        if table:
            inline = table.inline
            text[:] = [inline(text[i], sheet[i], row[i], col[i]) for i in range(n_cells)]
    dead, anchored, three_d, range_ops = _holding(
        text, n_cells, ("#REF!", "ANCHORARRAY", Literals(threed.maybe(sheet_names),
                                                         threed.maybe_literals(sheet_names)),
                        Literals(dynamic.RANGE_OPERATOR, dynamic.RANGE_OPERATOR_LITERALS)),
        claimed)
    if range_ops:  # INDEX(r,2):A4 spaced, so formulas reads the range operator
        text[:n_cells] = [dynamic.spaced_range_operators(t) if ":" in t else t
                          for t in text[:n_cells]]
    if three_d and len(sheet_names) > 1:  # Sheet1:Sheet3!A1 as each sheet's A1
        expand = threed.ThreeD(sheet_names).expand
        text[:n_cells] = [expand(t) for t in text[:n_cells]]
    if dead:
        text[:n_cells] = [dead_ranges(t) if "#REF!" in t else t for t in text[:n_cells]]
    if anchored:
        spilled = SpilledRanges(sheet_names, sheet[:n_cells], row[:n_cells], col[:n_cells],
                                lists.area[:n_cells])
        text[:n_cells] = [spilled.inline(t, sheet[i]) for i, t in enumerate(text[:n_cells])]
    name_nodes, refs, scopes = {}, [{} for _ in book.sheets] or [{}], {}
    for scope, key, definition in names.lambdas():  # called as functions: name nodes
        s = scope if scope is not None else 0
        nid = lists.add(s if book.sheets else None, 0, 0, definition, None, label=key)
        name_nodes[(scope, key)] = nid
        for k, ref in enumerate(refs):
            if scope is None or scope == k:
                ref[key] = None
    return Nodes(sheet_names=sheet_names,
                 sheet_index={shapes.sheet_key(name): i for i, name in enumerate(sheet_names)},
                 grids=grids, taken=taken, n_sheet=lists.sheet, n_row=lists.row,
                 n_col=lists.col, n_text=lists.text, n_area=lists.area, n_kind=lists.kind,
                 n_label=lists.labels, cells=n_cells, refs=refs, name_nodes=name_nodes,
                 scopes=scopes, date1904=getattr(book, "date1904", False),
                 mac=getattr(book, "mac", False), names=names,
                 facts=BookFacts(book.sheets, lambda: zip(
                     lists.sheet[:n_cells], lists.row[:n_cells], lists.col[:n_cells],
                     lists.text[:n_cells], lists.area[:n_cells])),
                 iteration=getattr(book, "iteration", None), cell_at=cell_at,
                 any_area=lists.any_area,
                 fills={(s, f.col): f for s, some in fills.items() for f in some})


class Literals(NamedTuple):
    """A pattern that matches the texts ``literals`` (upper case) and nothing else, for
    :func:`_holding`."""
    pattern: re.Pattern
    literals: list


def _holding(texts: list, n: int, words: tuple, claimed: list = ()) -> list:
    """For each of ``words`` (upper case, or a :class:`Literals`): might one of the
    first ``n`` texts hold it, in any case? Looked through joined and upper-cased a
    slice of texts at a time (a few C calls and a few megabytes, not a call per text
    nor a copy of them all). A text holding a word in lower case answers True too: the
    caller then looks text by text, as for any text holding it.

    ``claimed``: (first, stop, rules) of runs of texts that are filled-down columns'
    texts (:func:`_claimed_texts`), each its rule's pieces (``rules``: each column's)
    with a row number between each two. A word that does not overlap a row number in
    such a text lies within a piece, so the rules' skeletons (the pieces joined by
    ``0``) are looked through instead of the texts: a word without a digit never does;
    a literal might only where a piece ends with its first character (``:``) and the
    next begins with its last (``!``) close enough (:func:`_across_numbers`); such a
    word is in a skeleton exactly when it is in one of the texts. Any other word is
    looked for in the texts themselves, unless found elsewhere."""
    found = [False] * len(words)
    rules = [rule for *_, some in claimed for rule in some]
    by_skeleton = [not any(ch.isdigit() for ch in w) if isinstance(w, str) else
                   not _across_numbers(w.literals, rules) for w in words]

    def look(some: list, asked=None) -> list:
        joined = "\n".join(some).upper()
        return [f or (asked is None or asked[k]) and (
                    w in joined if isinstance(w, str) else w.pattern.search(joined) is not None)
                for k, (f, w) in enumerate(zip(found, words))]
    spans, at = [], 0
    for first, stop, _ in sorted(claimed):
        spans.append((at, min(first, n)))
        at = max(at, stop)
    spans.append((at, n))
    slices = [texts[k:min(stop, k + _SLICE)] for start, stop in spans
              for k in range(start, stop, _SLICE)]
    for some in slices:
        found = look(some)
        if all(found):
            return found
    found = look(["0".join(rule) for rule in rules], by_skeleton)
    for first, stop, _ in claimed:  # the words the skeletons do not decide
        for k in range(first, min(stop, n), _SLICE):
            if all(f or b for f, b in zip(found, by_skeleton)):
                return found
            found = look(texts[k:min(stop, n, k + _SLICE)])
    return found


def _across_numbers(literals: list, rules: list) -> bool:
    """Might one of ``literals`` (upper case, each beginning and ending with a character
    that is no digit) overlap a row number in a text of one of the ``rules`` (pieces,
    a non-negative row number between each two)? Never one without a digit (the range
    operator's ``):``, a sheet name of letters): it lies within one piece, in the
    skeleton as in the texts; one with a digit (``:Q40!``) only where its first character lies
    within its length before the number and its last within its length after: looked
    for in the rule's skeleton (each number written ``0``, the shortest a number is, so
    that no character lies farther from a number there than in a text)."""
    for literal in literals:
        if not any(ch.isdigit() for ch in literal):
            continue  # no digit: never part of a row number, so within one piece
        reach, head, tail = len(literal) - 1, literal[0], literal[-1]
        if head.isdigit() or tail.isdigit():
            return True
        for pieces in rules:
            upper = [p.upper() for p in pieces]
            skeleton = "0".join(upper)
            at = 0
            for piece in upper[:-1]:
                at += len(piece)            # the number's 0
                if head in skeleton[max(0, at - reach):at] and \
                        tail in skeleton[at + 1:at + 1 + reach]:
                    return True
                at += 1
    return False


def _claimed_texts(texts: list, first: int, stop: int, fills: tuple) -> list:
    """``[(start, stop, rules)]`` when the last texts of ``texts[first:stop]`` (one
    sheet's formula cells, by row then column) are the texts of the columns ``fills``
    (:class:`~zvmplan_addin.xlsx.knownrows.FilledColumn`, all of one rows, every row
    number they write at least 0), by row then column, the very texts each made by its
    rule (compared, by identity first); else ``[]``. ``rules``: each column's rule's
    pieces (see :func:`_holding`)."""
    fills = sorted(fills, key=lambda f: f.col)
    k, n = len(fills), len(fills[0].texts) if fills else 0
    if not n or n * k > stop - first or any(
            len(f.texts) != n or f.first_row != fills[0].first_row
            or f.first_row + min(f.offsets, default=0) < 0 for f in fills):
        return []
    tail = texts[stop - n * k:stop]
    if not all(tail[j::k] == list(f.texts) for j, f in enumerate(fills)):
        return []
    return [(stop - n * k, stop, [f.pieces for f in fills])]


_SLICE = 32_768  # texts joined at once by _holding


_REF_END = r"""(?:(?:'(?:[^']|'')+'|[^\W\d][\w.]*)!)?(?:\#REF!|\$?[A-Za-z]{1,3}\$?[0-9]+
               |\$?[A-Za-z]{1,3}(?![\w(])|\$?[0-9]+(?![\w.]))"""
_DEAD_RANGE = lazy_pattern(rf"(?:(?:'(?:[^']|'')+'|[^\W\d][\w.]*)!)?\#REF!:{_REF_END}"
                         rf"|(?<![\w.$'!]){_REF_END}:(?:(?:'(?:[^']|'')+'|[^\W\d][\w.]*)!)?\#REF!",
                         re.X)


def dead_ranges(text: str) -> str:
    """``text`` with each range that has ``#REF!`` for an end (``#REF!:B4``, a row or
    column deleted under it) read as ``#REF!``, as Excel reads it (``SUM(#REF!:B4)`` is
    #REF!: EPPlus's FormulaTest.xlsx ValidateFormulas!H10, saved by Excel; formulas'
    parser made the range operator of an error #VALUE!). String literals are left
    alone."""
    pieces = text.split('"')
    for k in range(0, len(pieces), 2):  # outside string literals
        while "#REF!" in pieces[k]:
            new = _DEAD_RANGE().sub("#REF!", pieces[k])
            if new == pieces[k]:
                break
            pieces[k] = new
    return '"'.join(pieces)


_ANCHOR = lazy_pattern(r"_xlfn\.ANCHORARRAY\(\s*((?:'(?:[^']|'')+'|[^\W\d][\w.]*)!)?"
                     r"\$?([A-Za-z]{1,3})\$?([0-9]+)\s*\)", re.I)


class SpilledRanges:
    """``ANCHORARRAY(B1)`` (Excel's ``B1#``, the range an array formula anchored in B1
    fills) read as that range, written out (``B1:B5``): the range the workbook stores
    for the array formula, which the engine fills (formulas' test.xlsx CORE!AD4
    ``=ANCHORARRAY(AC4)+3`` over AC4:AC5; EPPlus's ArrayFormulas.xlsx). A cell that
    anchors no array formula is left as written."""

    def __init__(self, sheet_names, sheets, rows, cols, areas):
        self.sheet_names = sheet_names
        self.index = {shapes.sheet_key(n): k for k, n in enumerate(sheet_names)}
        self.areas = {(s, r, c): a for s, r, c, a in zip(sheets, rows, cols, areas)
                      if a is not None}

    def inline(self, text: str, s: int) -> str:
        if "ANCHORARRAY" not in text.upper():
            return text
        pieces = text.split('"')
        for k in range(0, len(pieces), 2):  # outside string literals
            pieces[k] = _ANCHOR().sub(lambda m: self._range(m, s), pieces[k])
        return '"'.join(pieces)

    def _range(self, m, s: int) -> str:
        qualifier = m.group(1)
        target = s if not qualifier else self.index.get(shapes.sheet_key(qualifier[:-1]))
        if target is None:
            return m.group(0)
        area = self.areas.get((target, int(m.group(3)), shapes.col_number(m.group(2))))
        if area is None:
            return m.group(0)
        return (qualifier or "") + shapes.a1(area[0], area[1]) + ":" + shapes.a1(area[2], area[3])


def _formula_cells(lists: _NodeLists, s: int, cells: SheetCells, log: RunLog) -> None:
    """Sheet ``s``'s formula cells as nodes, by row, then column."""
    kinds = cells.kinds
    if kinds is not None and ("dataTable" in kinds or "array" in kinds):
        areas = [f.area for f in cells.formulas.values() if f.kind == "array" and f.area]
        for (r, c), f in _in_order(cells.formulas):
            if f.kind == "dataTable":
                log.kept_cached += 1
                log.warnings.append(f"{lists.labels.cell(s, r, c)}: a data table; kept its "
                                    "cached value")
                continue
            if f.kind == "plain" and not f.text.strip() and _inside(areas, r, c):
                continue  # <f ca="1"/>: an array formula's cell, which the array fills
            lists.add(s, r, c, f.text, f.area if f.kind == "array" else None, kind=f.kind)
        return
    # the usual sheet (plain and shared formulas): the node lists extended at once
    texts = cells.texts
    rows, cols = cells.formula_at
    step_r, step_c = np.diff(rows), np.diff(cols)
    if not ((step_r > 0) | ((step_r == 0) & (step_c > 0))).all():  # not as read
        order = np.lexsort((cols, rows))
        rows, cols = rows[order], cols[order]
        texts = [texts[k] for k in order.tolist()]
        kinds = None if kinds is None else [kinds[k] for k in order.tolist()]
    lists.extend(s, rows, cols, texts, kinds)


def _inside(areas: list, r: int, c: int) -> bool:
    """Is cell (``r``, ``c``) in one of the array formulas' ``areas``? Excel writes an empty
    ``<f ca="1"/>`` in each cell of a volatile array formula's range but the first: the
    "calculate always" flag, not a formula of its own (formulas' circular.xlsx DATA!D9,
    pycel's lookup.xlsx Offset!F18)."""
    return any(a[0] <= r <= a[2] and a[1] <= c <= a[3] for a in areas)

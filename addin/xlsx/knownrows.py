"""Rows a writer appended to a sheet part, handed to the reader already read.

``zvmplan fill`` appends thousands of rows to the template's Planner table
(:mod:`zvmplan_workbook.rows`), each made from the template's last row with its row
number and its inputs put in: it knows every cell it wrote, and where in the bytes. It
describes them as :class:`KnownRows` (the cells as the bulk reader's
:class:`~.bulksheet.CellColumns` hold them, and the layout of their formula cells) and
attaches that to the package (``pkg.known_rows``: part -> :class:`KnownRows`), so that
:func:`read_known` reads the rest of the part (the template's own rows and what lies
outside ``<sheetData>``, a few hundred kilobytes) with :func:`~.sheet.read_sheet` and
adds the described rows, instead of parsing the whole part (88 MB at 10,000 links)
back.

It is only ever a faster way to what :func:`~.sheet.read_sheet` gives for the same
bytes, and falls back to it on anything it does not know:

* the description applies only to the very bytes object it was made for (``data``);
* the rest of the part must be read by the bulk reader as columns (every formula
  plain, cells in order), end before the added rows and leave no formula cell, nor the
  dimension, beyond them; the added rows must come after its last cell; the budget of
  cells and other elements must hold them all -- else the whole part is read as any
  other (which words its own refusals);
* each formula cell's layout is checked against the bytes (its ``<c r="``, its
  ``<v>``, its ``</c>``);
* with ``check`` (``ZVMPLAN_ENGINE_CHECK``) the part is also read whole and the two
  compared, cell by cell and layout byte by byte: a difference is an error
  (:class:`KnownRowsMismatch`), never a silent answer. ``tests/test_knownrows.py``
  compares both on plans of several shapes.

A description may also say of a formula column that its texts are one formula filled
down (:class:`FilledColumn`: the texts made by one rule from the row numbers). The
sheet read then carries that (``SheetData.fills``), so that the engine's search for
filled-down formulas (:func:`~zvmplan_addin.recalc.filldown.find_runs`) can take those
cells as a run once its own prediction is the same rule and the cells still hold the
very texts the rule made -- not compare each text with its prediction again.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from . import sheet as S
from .cells import a1
from .bulksheet import _LAYOUT, CellColumns, starts_with
from .errors import UnsafeWorkbookError


class KnownRowsMismatch(UnsafeWorkbookError):
    """The rows a writer described read otherwise from the part's bytes (only looked
    for with ``check``): a fault of the writer's description, shown, never used."""


_SEP = "\x00"  # between texts made at once (XML 1.0 has no NUL: no formula holds one)


@dataclass(frozen=True, eq=False)
class FilledColumn:
    """The formula cells of column ``col`` in rows ``first_row``,
    ``first_row + 1``, ... (one a row, ``len(texts)`` of them) whose texts are one rule
    of the row ``r``: ``pieces[0] + str(r + offsets[0]) + pieces[1] + ... +
    pieces[-1]`` (:meth:`text_at`). ``texts``: those texts, made from the rule by
    :func:`filled_columns`, never given (a tuple: they stay what the rule made)."""
    col: int
    first_row: int
    pieces: tuple
    offsets: tuple
    texts: tuple

    def text_at(self, row: int) -> str:
        """The rule's text at ``row`` (one at a time; :func:`filled_columns` makes
        them all)."""
        out = [self.pieces[0]]
        for d, piece in zip(self.offsets, self.pieces[1:]):
            out += [str(row + d), piece]
        return "".join(out)


def filled_columns(cols: list, first_row: int, n: int, rules: list):
    """(the :class:`FilledColumn` of each of the columns ``cols``, their texts by row
    then column) for ``n`` rows from ``first_row``, column ``cols[j]``'s texts made by
    the rule ``rules[j]`` ((pieces, offsets)); None if a piece holds a NUL or a rule's
    pieces do not fit its offsets. A row's texts are made as one text (the rules' pieces
    joined by NULs, the row numbers put between them: one C call a row when every field
    is the row plus one offset) and cut at the NULs."""
    rules = [(tuple(p), tuple(int(d) for d in o)) for p, o in rules]
    if n < 1 or any(len(p) != len(o) + 1 or any(_SEP in x for x in p) for p, o in rules):
        return None
    k = len(cols)
    between, which = [""], []  # the row's pieces, joined across columns; each field's offset
    for j, (pieces, offsets) in enumerate(rules):
        between[-1] += (_SEP if j else "") + pieces[0]
        for d, piece in zip(offsets, pieces[1:]):
            which.append(d)
            between.append(piece)
    rows = np.arange(first_row, first_row + n, dtype=np.int64)
    nums = {d: list(map(str, (rows + d).tolist())) for d in set(which)}
    if not which:
        texts = between[0].split(_SEP) * n if k else []
    elif len(nums) == 1:
        texts = list(itertools.chain.from_iterable(map(
            str.split, map(str.join, nums[which[0]], itertools.repeat(between, n)),
            itertools.repeat(_SEP, n))))
    else:
        out = [""] * (2 * len(between) - 1)
        out[::2] = between
        texts = []
        for i in range(n):
            out[1::2] = [nums[d][i] for d in which]
            texts += "".join(out).split(_SEP)
    if len(texts) != n * k:  # pragma: no cover - no piece holds a NUL (checked above)
        return None
    return [FilledColumn(c, first_row, *rule, tuple(texts[j::k]))
            for j, (c, rule) in enumerate(zip(cols, rules))], texts


@dataclass(eq=False)
class KnownRows:
    """Rows appended to a sheet part, as the bulk reader reads them.

    ``data``: the part's bytes; ``start``, ``stop``: the byte span of the added rows
    (the ``<row>`` elements, nothing else); ``rows``, ``cells``, ``inline``: the
    ``<row>`` elements, the ``<c>`` elements (empty ones too) and the inline-string
    cells among them (what they spend of the reader's budget). The cells without a
    formula that the reader files (``value_rows``, ``value_cols``, ``values``: an
    object array) and the formula cells (``formula_rows``, ``formula_cols``, ``texts``),
    in document order, each formula cell caching ``cached``; ``layout``: their
    :data:`~.bulksheet._LAYOUT` records (offsets into ``data``); ``max_row``,
    ``max_col``: the extent of the filed cells. ``check``: also read the part whole
    and compare (:func:`read_known`)."""
    data: bytes
    start: int
    stop: int
    rows: int
    cells: int
    inline: int
    value_rows: np.ndarray
    value_cols: np.ndarray
    values: np.ndarray
    formula_rows: np.ndarray
    formula_cols: np.ndarray
    texts: list
    cached: object
    layout: np.ndarray
    max_row: int
    max_col: int
    check: bool = False
    #: formula columns whose texts are a :class:`FilledColumn` rule's (``texts`` holds
    #: the very same text objects, by row then column)
    fills: tuple = ()

    def read(self, data: bytes, sheet: "S.SheetData", strings: list, name: str,
             budget: "S.Budget") -> "S.Layout":
        """:func:`read_known` of these rows (how :func:`~.sheet.read_workbook` calls
        it, without importing this module)."""
        return read_known(data, sheet, strings, name, budget, self)

    def first_key(self) -> int:
        """``row << 15 | column`` of the first filed cell (as :class:`~.bulksheet._Sink`
        orders cells), or -1 when none is filed."""
        keys = [int(r[0]) << 15 | int(c[0]) for r, c in
                ((self.value_rows, self.value_cols), (self.formula_rows, self.formula_cols))
                if len(r)]
        return min(keys) if keys else -1

    def in_order(self) -> bool:
        """Are the described cells each after the one before, in document order, and
        every layout record a formula cell's, in the same order?"""
        ok = True
        for r, c in ((self.value_rows, self.value_cols),
                     (self.formula_rows, self.formula_cols)):
            key = r << 15 | c
            ok = ok and bool(np.all(key[1:] > key[:-1]))
        return ok and np.array_equal(self.layout["r"], self.formula_rows) and \
            np.array_equal(self.layout["c"], self.formula_cols) and \
            len(self.texts) == len(self.formula_rows) == len(self.layout) and \
            len(self.values) == len(self.value_rows) == len(self.value_cols)

    def spelt(self) -> bool:
        """Does each layout record point at its cell in ``data``: ``<c r="`` at its
        start, the ``<v>`` it names, ``</c>`` right after it?"""
        lay = self.layout
        if not len(lay):
            return True
        c0, v0, v1 = (lay[k].astype(np.int64) for k in ("c0", "v0", "v1"))
        if not (np.all(c0 >= self.start) and np.all(v0 > c0) and np.all(v1 > v0)
                and int(v1.max()) + 4 <= self.stop and int(v1.max()) < len(self.data) - 7):
            return False
        data = self.data
        return starts_with(data, c0, b'<c r="') and starts_with(data, v0, b"<v>") and \
            starts_with(data, v1 - 4, b"</v>") and starts_with(data, v1, b"</c>")


def read_known(data: bytes, sheet: "S.SheetData", strings: list, name: str,
               budget: "S.Budget", known: KnownRows) -> "S.Layout":
    """Fill ``sheet`` as :func:`~.sheet.read_sheet` would from ``data``, the rows
    ``known`` describes taken as described when every condition of the module holds,
    else the whole part read by :func:`~.sheet.read_sheet`. Returns the layout."""
    got = _read_known(data, sheet, strings, name, budget, known) \
        if known.data is data else None
    if got is None:
        return S.read_sheet(data, sheet, strings, name, budget)
    if known.check:
        whole = S.SheetData(sheet.name, sheet.part)
        again = S.Budget(budget.limit)
        again.cells, again.others = list(got[1]), list(got[2])
        layout = S.read_sheet(data, whole, strings, name, again)
        _compare(sheet, got[0], whole, layout, name, again, budget)
        S._LAYOUTS[hash(data)] = got[0]     # (the whole read noted its own)
    return got[0]


def _read_known(data, sheet, strings, name, budget, known):
    """(layout, budget's cells and others before) having filled ``sheet``, or None
    (``sheet`` and ``budget`` untouched) when a condition does not hold."""
    if sheet.values or sheet.formulas or sheet.cached or sheet.columns is not None:
        return None
    if not (0 < known.start <= known.stop <= len(data)) or not known.in_order() \
            or not known.spelt():
        return None
    trial = S.Budget(budget.limit)
    trial.cells, trial.others = list(budget.cells), list(budget.others)
    rest = S.SheetData(sheet.name, sheet.part)
    try:
        head = S.read_sheet(data[:known.start] + data[known.stop:], rest, strings, name, trial)
    except UnsafeWorkbookError:
        return None     # the whole part read, which words its own refusal
    cols = rest.columns
    if cols is None or rest.hidden_rows or head.prefix or head.dimension >= known.start:
        return None
    lay = np.frombuffer(bytes(head.cells), dtype=_LAYOUT)
    if len(lay) and int(lay["c0"].max()) >= known.start:
        return None     # a formula cell after the added rows: not where they were put
    last = max([-1] + [int(r[-1]) << 15 | int(c[-1]) for r, c in
                       ((cols.value_rows, cols.value_cols), (cols.formula_rows, cols.formula_cols))
                       if len(r)])
    first = known.first_key()
    if first >= 0 and first <= last:
        return None
    cells_left = trial.cells[0] - known.cells
    others_left = trial.others[0] - known.rows - 2 * known.inline
    if cells_left < 1 or others_left < 1:
        return None
    n_before = len(cols.texts)
    cached = np.empty(len(known.texts), dtype=object)
    cached[:] = [known.cached] * len(known.texts)
    sheet.columns = CellColumns(
        np.concatenate([cols.value_rows, known.value_rows]).astype(np.int64),
        np.concatenate([cols.value_cols, known.value_cols]).astype(np.int64),
        np.concatenate([cols.values, known.values]),
        np.concatenate([cols.formula_rows, known.formula_rows]).astype(np.int64),
        np.concatenate([cols.formula_cols, known.formula_cols]).astype(np.int64),
        cols.texts + known.texts,
        np.concatenate([cols.cached_index,
                        np.arange(n_before, n_before + len(known.texts), dtype=np.int64)]),
        np.concatenate([cols.cached, cached]))
    filed = len(known.values) + len(known.texts)
    sheet.max_row = max(rest.max_row, known.max_row if filed else 0)
    sheet.max_col = max(rest.max_col, known.max_col if filed else 0)
    sheet.filter_active = rest.filter_active
    sheet.fills = known.fills
    layout = S.Layout(len(data))
    layout.prefix, layout.dimension = head.prefix, head.dimension
    layout.cells = head.cells + known.layout.tobytes()
    sheet.layout = layout
    S._LAYOUTS[hash(data)] = layout
    before = (list(budget.cells), list(budget.others))
    budget.cells[0], budget.others[0] = cells_left, others_left
    return layout, before[0], before[1]


def _compare(sheet, layout, whole, whole_layout, name, whole_budget, budget) -> None:
    """Raise :class:`KnownRowsMismatch` at the first difference between ``sheet`` (read
    with the described rows) and ``whole`` (the part read whole)."""
    def cells(s):
        if s.columns is not None:
            v, f, c = s.columns.dicts()
        else:
            v, f, c = s.values, s.formulas, s.cached
        return [[(k, type(x), x) for k, x in d.items()] for d in (v, f, c)]
    mine, theirs = cells(sheet), cells(whole)
    for what, a, b in zip(("value", "formula", "cached value"), mine, theirs):
        if a != b:
            at = next((x[0] for x, y in zip(a, b) if x != y), None) or \
                (a[len(b)][0] if len(a) > len(b) else b[len(a)][0])
            raise KnownRowsMismatch(f"{name}: the added rows' {what} at {a1(*at)} differs "
                                    "from the part's bytes read whole (ZVMPLAN_ENGINE_CHECK)")
    for what, a, b in (("layout", bytes(layout.cells), bytes(whole_layout.cells)),
                       ("dimension", layout.dimension, whole_layout.dimension),
                       ("extent", (sheet.max_row, sheet.max_col),
                        (whole.max_row, whole.max_col)),
                       ("hidden rows", sheet.hidden_rows, whole.hidden_rows),
                       ("filter", sheet.filter_active, whole.filter_active),
                       ("budget", (budget.cells[0], budget.others[0]),
                        (whole_budget.cells[0], whole_budget.others[0]))):
        if a != b:
            raise KnownRowsMismatch(f"{name}: the added rows' {what} differs from the "
                                    "part's bytes read whole (ZVMPLAN_ENGINE_CHECK)")

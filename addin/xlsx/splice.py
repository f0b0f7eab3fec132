"""The fast path of :func:`~.rewrite.rewrite_sheet`: new cached values spliced into a
sheet part at the byte offsets the reader noted (:class:`~.sheet.Layout`), with numpy.

:func:`splice_by_layout` applies when every update is an existing formula cell with a
``<v>`` that the reader noted once; it never parses the part again. Anything else (a
new cell or row, an array formula, an unusual cell) makes it return None, and the
general scan of :mod:`.rewrite` does the work. Both give the same bytes
(``tests/test_xlsx_sheet.py`` checks it on generated sheets).
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from . import xml as xmlparse
from .cellxml import CellValues, dimension_edit, set_attr
from .sheet import Layout
from .valuetexts import ValueTexts, value_texts

#: one record of :attr:`.sheet.Layout.cells` (``"<IIIiiB"``, 21 bytes) as a numpy dtype
LAYOUT_DTYPE = np.dtype([("r", "<u4"), ("c", "<u4"), ("c0", "<u4"), ("v0", "<i4"),
                         ("v1", "<i4"), ("flags", "u1")])
_COL_BITS = 15                      # a cell's key: row << 15 | column (columns < 32768)
#: cells spliced at a time: bounds what is held at once. A block is deflated on threads
#: while the next is made, so two or three are alive; at 1 << 16 cells (~21 MB of the
#: 10,000-link Planner) fill's peak was 498-518 MB, at 1 << 14 (~5 MB) 467 MB with less
#: CPU, and the 100,000-row sheet 528-531 MB against 541-543 (same XML either way)
_BLOCK = 1 << 14


def splice_by_layout(data: bytes, updates, layout: Layout) -> bytes | None:
    """The new part in one piece (:func:`splice_blocks` joined), or None."""
    blocks = splice_blocks(data, updates, layout)
    return None if blocks is None else b"".join(blocks)


def splice_blocks(data: bytes, updates, layout: Layout) -> Iterator[bytes] | None:
    """The fast path: every update is an existing formula cell the reader noted, so the
    new ``<v>`` elements (and ``t`` attributes) are spliced at its offsets without
    parsing the part again. ``updates`` is a :class:`CellValues` or the row -> col ->
    value form. Returns None if some update needs the general path (a new cell or row,
    an array formula, a cell without ``<v>``, an unusual cell, a cell noted twice);
    else an iterator over the new part's bytes in blocks, each made when asked for
    (so a writer can deflate one block while the next is made). Everything that can
    send an update to the general path is checked before the first block.

    What is vectorised: matching updates to layout records (numpy sort and search on
    row/column keys, skipped when the updates are the noted cells in document order,
    as the engine gives them), the checks that each noted offset still starts a
    ``<c``/``<v`` tag in order, finding the end of start tags that get a ``t``, the
    texts of the values (each distinct value formatted once, :mod:`.valuetexts`), and
    the splice itself (one ``%`` format per block, :func:`_splice`): no Python runs per
    cell unless a start tag must be parsed. Cells are done :data:`_BLOCK` at a time,
    each block made when asked for, so that only one block's edits exist at a time."""
    if not isinstance(updates, CellValues):
        updates = CellValues.from_dict(updates)
        if updates is None:
            return None
    found = match_cells(data, updates, layout)
    if found is None:
        return None
    head = written_head(data, updates, layout, int(found[0][0]))
    if head is None:
        return None
    return _blocks(data, head[1], head[0], found, layout.prefix.encode())


def written_head(data: bytes, updates: CellValues, layout: Layout,
                 first: int) -> tuple[list, int] | None:
    """(the pieces the new part starts with, the offset of ``data`` they stand for):
    the ``<dimension>`` grown to cover the updated cells; None if its edit reaches
    ``first``, the first updated cell (the general path then writes the part)."""
    head: list = []
    pos = 0
    if layout.dimension >= 0:       # <dimension> comes before <sheetData>
        corners = {int(updates.rows.min()): {int(updates.cols.min()): None}}
        corners.setdefault(int(updates.rows.max()), {})[int(updates.cols.max())] = None
        dim: list = []
        dimension_edit(data, layout.dimension, corners, dim)
        for start, end, new in dim:
            if end > first:
                return None
            head += (data[pos:start], new)
            pos = end
    return head, pos


def _blocks(data: bytes, pos: int, head: list, found, prefix: bytes) -> Iterator[bytes]:
    """The part's bytes: ``head`` joined, then the cells :data:`_BLOCK` at a time (a
    bytearray each), then the rest of the part."""
    c0, v0, v1, flags, values = found
    texts = value_texts(values, b"<" + prefix + b"v>", b"</" + prefix + b"v>")
    yield b"".join(head)
    for a in range(0, len(c0), _BLOCK):
        cells = slice(a, a + _BLOCK)
        starts, ends, pieces = _edits(data, c0[cells], v0[cells], v1[cells], flags[cells],
                                      texts.codes[cells], texts)
        yield _splice(data, pos, starts, ends, pieces)
        pos = int(ends.max())
    yield data[pos:]


def _edits(data: bytes, c0, v0, v1, flags, codes, texts: ValueTexts):
    """(starts, ends, new bytes) of the edits of some cells, in document order: each
    cell's ``<v>`` element becomes its piece (``codes`` into ``texts``), and its start
    tag changes where ``t`` must change or ``vm`` go (as :func:`~.rewrite._render`
    does). A start tag without ``t`` or ``vm`` (the reader's flag 1 clear) whose value
    needs a ``t`` gets it inserted before its ``>``, found with numpy
    (:func:`_tag_ends`); the others take the start-tag parser, one cell at a time.
    Every edit replaces at least two bytes (see :func:`_splice`): an inserted ``t``
    takes the byte before the ``>`` and the ``>`` itself."""
    t = texts.t_codes[codes]
    given = (flags & 1) == 1
    plain = np.flatnonzero(~given & (t != 0))           # t to add, none to drop
    gt = _tag_ends(data, c0[plain])
    found = gt >= 0
    at, gt = plain[found], gt[found]
    names = len(texts.t_names)
    kinds = np.frombuffer(data, dtype=np.uint8)[gt - 1].astype(np.int64) * names + t[at]
    inserted = np.empty(256 * names, dtype=object)     # by (byte before >, t)
    for k in np.flatnonzero(np.bincount(kinds, minlength=len(inserted))).tolist():
        inserted[k] = bytes((k // names,)) + b' t="' + texts.t_names[k % names] + b'">'
    parse = given.copy()
    parse[plain[~found]] = True
    parsed = _parsed_tags(data, np.flatnonzero(parse), c0, t, texts.t_names)
    tagged = np.concatenate((at, parsed[0]))            # cells whose start tag changes
    n = len(c0)
    has_tag = np.zeros(n, dtype=bool)
    has_tag[tagged] = True
    v_slot = np.arange(n) + np.cumsum(has_tag)          # a start tag's edit comes first
    t_slot = v_slot[tagged] - 1
    starts = np.empty(n + len(tagged), dtype=np.int64)
    ends = np.empty_like(starts)
    pieces = np.empty(len(starts), dtype=object)
    starts[v_slot], ends[v_slot], pieces[v_slot] = v0, v1, texts.pieces[codes]
    starts[t_slot] = np.concatenate((gt - 1, parsed[1]))
    ends[t_slot] = np.concatenate((gt + 1, parsed[2]))
    pieces[t_slot] = np.concatenate((inserted[kinds], parsed[3]))
    return starts, ends, pieces


def match_cells(data: bytes, updates: CellValues, layout: Layout):
    """(c0, v0, v1, flags, values) of the updated cells in document order (numpy
    arrays), or None if some update is not a formula cell with a ``<v>`` that the
    layout noted exactly once, or a noted offset does not start the expected tag."""
    n = len(updates)
    recs = np.frombuffer(layout.cells, dtype=LAYOUT_DTYPE)
    if n == 0 or len(recs) < n or updates.cols.min() < 1 or \
            updates.cols.max() >= 1 << _COL_BITS or updates.rows.min() < 1:
        return None
    keys = (updates.rows << _COL_BITS) | updates.cols
    noted = (recs["r"].astype(np.int64) << _COL_BITS) | recs["c"].astype(np.int64)
    values = updates.values
    if len(recs) != n or np.any(keys[1:] <= keys[:-1]) or np.any(keys != noted):
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        at = np.minimum(np.searchsorted(sorted_keys, noted), n - 1)
        hit = sorted_keys[at] == noted
        which = order[at[hit]]      # the update of each noted cell hit, document order
        if len(which) != n or np.any(np.bincount(which, minlength=n) != 1):
            return None             # an update not noted, or a cell noted twice
        recs, values = recs[hit], values[which]
    # else every noted cell is updated, in the same order (the engine's usual case)
    c0, v0, v1 = (recs[k].astype(np.int64) for k in ("c0", "v0", "v1"))
    flags = recs["flags"]
    if np.any(flags & 2) or np.any(v0 < 0):
        return None
    if np.any(v0 <= c0) or np.any(v1 - v0 < 4) or np.any(c0[1:] < v1[:-1]):
        return None                 # not one cell after another (or no room for <v/>)
    raw = np.frombuffer(data, dtype=np.uint8)
    prefix = layout.prefix.encode()
    for tag, where in ((b"<" + prefix + b"c", c0), (b"<" + prefix + b"v", v0)):
        if np.any(where + len(tag) > len(data)):
            return None
        for j, byte in enumerate(tag):
            if np.any(raw[where + j] != byte):
                return None
    return c0, v0, v1, flags, values


def _parsed_tags(data: bytes, which, c0, t, t_names: list):
    """(cells, starts, ends, new start tags) of those of the cells ``which`` whose start
    tag changes when parsed: ``t`` set to the new value's (``t`` codes into
    ``t_names``), ``vm`` dropped."""
    cells, starts, ends, pieces = [], [], [], []
    for k in which.tolist():
        name = t_names[t[k]]
        tag = xmlparse.start_tag(data, int(c0[k]))
        attrs = tag.group(2)
        if name is not None or b"t" in attrs:
            attrs = set_attr(attrs, b"t", name)
        if b"vm" in attrs:
            attrs = set_attr(attrs, b"vm", None)
        new = b"<" + tag.group(1) + attrs + b">"
        if new != tag.group(0):
            cells.append(k)
            starts.append(tag.start())
            ends.append(tag.end())
            pieces.append(new)
    out = np.empty(len(pieces), dtype=object)
    out[:] = pieces
    return (np.array(cells, dtype=np.int64), np.array(starts, dtype=np.int64),
            np.array(ends, dtype=np.int64), out)


_WINDOW = 48                        # bytes of a start tag looked at by _tag_ends
_FIRST_WINDOW = 16                  # ... first (most tags are shorter: less to compare)


def _tag_ends(data: bytes, c0) -> "np.ndarray":
    """For each ``<c`` start tag at ``c0``: the offset of its closing ``>`` when that is
    within :data:`_WINDOW` bytes, no attribute value before it is quoted with ``'``,
    the ``"`` before it pair up (so the ``>`` is outside every value) and neither ``/``
    nor white space precedes it; else -1 (the caller parses that tag). The tags are
    looked at :data:`_FIRST_WINDOW` bytes first, those not found in that many again
    in :data:`_WINDOW` (what is found depends only on the bytes up to the first ``>``,
    so the same either way)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    out = _tag_ends_within(raw, c0, _FIRST_WINDOW)
    again = np.flatnonzero(out < 0)
    if len(again):
        out[again] = _tag_ends_within(raw, c0[again], _WINDOW)
    return out


def _tag_ends_within(raw, c0, width: int) -> "np.ndarray":
    """:func:`_tag_ends` looking ``width`` bytes from each tag's start."""
    if len(c0) == 0 or len(raw) < width:
        return np.full(len(c0), -1, dtype=np.int64)
    inside = c0 <= len(raw) - width
    window = np.lib.stride_tricks.sliding_window_view(raw, width)[np.where(inside, c0, 0)]
    close = window == ord(">")
    first = np.argmax(close, axis=1)
    rows = np.arange(len(c0))
    before = np.arange(width) < first[:, None]
    ok = inside & close[rows, first]
    ok &= ((window == ord('"')) & before).sum(axis=1) % 2 == 0
    ok &= ~((window == ord("'")) & before).any(axis=1)
    ok &= ~np.isin(window[rows, np.maximum(first - 1, 0)], np.frombuffer(b"/ \t\r\n", np.uint8))
    return np.where(ok, c0 + first, -1)


def _splice(data: bytes, pos: int, starts, ends, pieces) -> bytearray:
    """``data[pos:]`` up to the last edit, with the bytes ``[starts[i], ends[i])``
    replaced by ``pieces[i]`` (an object array of bytes), the edits in order. The edits
    of a cell lie inside it (its start tag, its ``<v>``) and :func:`match_cells` proved the
    cells in order, so edits never overlap.

    Done by one ``%`` format in C rather than a slice per kept run: the bytes are copied
    once, each edit's bytes overwritten with a ``%b`` conversion padded with ``-`` flags
    to the edit's length (``%---b``: left-justified, no width, so the piece exactly), any
    ``%`` of the input doubled first, and the pieces given as the format's arguments.
    So every edit must replace at least two bytes."""
    if starts[0] < pos or np.any(ends - starts < 2) or np.any(starts[1:] < ends[:-1]):
        raise AssertionError("overlapping edits")   # pragma: no cover - see match_cells
    stop = int(ends[-1])
    starts, ends = starts - pos, ends - pos
    if data.find(b"%", pos, stop) >= 0:
        percent = np.flatnonzero(np.frombuffer(data, dtype=np.uint8, count=stop - pos,
                                               offset=pos) == ord("%"))
        starts = starts + np.searchsorted(percent, starts)
        ends = ends + np.searchsorted(percent, ends)
        form = bytearray(data[pos:stop].replace(b"%", b"%%"))
    else:
        form = bytearray(memoryview(data)[pos:stop])
    _conversions(np.frombuffer(form, dtype=np.uint8), starts, ends)
    return form % tuple(pieces.tolist())


_BY_OFFSET = 64                     # edits this long or less are padded with numpy only


def _conversions(raw, starts, ends) -> None:
    """``%-...-b`` over each ``[starts, ends)`` of ``raw``: ``%`` and ``b`` at its ends,
    ``-`` between, with numpy one offset at a time up to :data:`_BY_OFFSET` (a
    filled-down column's edits are mostly of one or a few short lengths), the rest of a
    longer edit by a slice of its own."""
    raw[starts] = ord("%")
    raw[ends - 1] = ord("b")
    inner = ends - starts - 2           # bytes to fill in each
    for j in range(min(int(inner.max()), _BY_OFFSET)):
        raw[starts[inner > j] + (1 + j)] = ord("-")
    for k in np.flatnonzero(inner > _BY_OFFSET).tolist():
        raw[int(starts[k]) + 1 + _BY_OFFSET:int(ends[k]) - 1] = ord("-")

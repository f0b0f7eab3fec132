"""The fast path of :func:`~.rewrite.rewrite_sheet`: new cached values spliced into a
sheet part at the byte offsets the reader noted (:class:`~.sheet.Layout`), with numpy.

:func:`splice_by_layout` applies when every update is an existing formula cell with a
``<v>`` that the reader noted once; it never parses the part again. Anything else (a
new cell or row, an array formula, an unusual cell) makes it return None, and the
general scan of :mod:`.rewrite` does the work. Both give the same bytes
(``tests/test_xlsx_sheet.py`` checks it on generated sheets).
"""
from __future__ import annotations

import itertools
import operator
from typing import Iterator

import numpy as np

from . import xml as xmlparse
from .cellxml import CellValues, dimension_edit, encode_value, escape_many, set_attr
from .sheet import Layout

#: one record of :attr:`.sheet.Layout.cells` (``"<IIIiiB"``, 21 bytes) as a numpy dtype
LAYOUT_DTYPE = np.dtype([("r", "<u4"), ("c", "<u4"), ("c0", "<u4"), ("v0", "<i4"),
                         ("v1", "<i4"), ("flags", "u1")])
_COL_BITS = 15                      # a cell's key: row << 15 | column (columns < 32768)
_BLOCK = 1 << 16                    # cells spliced at a time (bounds what is held at once)


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
    row/column keys), the checks that each noted offset still starts a ``<c``/``<v``
    tag in order, finding the end of start tags that get a ``t``, and the bytes of the
    float values (one ``%r`` format per value, in C), which are most of a planner
    sheet. Text is escaped all at once. Cells are done :data:`_BLOCK` at a time, each
    block joined to bytes with the input's bytes between its edits, so that the pieces
    of only one block exist at a time."""
    if not isinstance(updates, CellValues):
        updates = CellValues.from_dict(updates)
        if updates is None:
            return None
    found = _match(data, updates, layout)
    if found is None:
        return None
    head: list = []
    pos = 0
    if layout.dimension >= 0:       # <dimension> comes before <sheetData>
        corners = {int(updates.rows.min()): {int(updates.cols.min()): None}}
        corners.setdefault(int(updates.rows.max()), {})[int(updates.cols.max())] = None
        dim: list = []
        dimension_edit(data, layout.dimension, corners, dim)
        for start, end, new in dim:
            if end > found[0][0]:
                return None
            head += (data[pos:start], new)
            pos = end
    return _blocks(data, pos, head, found, layout.prefix.encode())


def _blocks(data: bytes, pos: int, head: list, found, prefix: bytes) -> Iterator[bytes]:
    c0, v0, v1, flags, values = found
    v_open, v_close = b"<" + prefix + b"v>", b"</" + prefix + b"v>"
    yield b"".join(head)
    for a in range(0, len(c0), _BLOCK):
        cells = slice(a, a + _BLOCK)
        starts, ends, pieces = _edits(data, c0[cells], v0[cells], v1[cells], flags[cells],
                                      values[cells], v_open, v_close)
        yield _splice(data, pos, starts, ends, pieces)
        pos = int(ends.max())
    yield data[pos:]


def _edits(data: bytes, c0, v0, v1, flags, values, v_open: bytes, v_close: bytes):
    """(starts, ends, new bytes) of the edits of some cells: a float in a start tag
    without ``t`` or ``vm`` (the reader's flag 1) only gets its ``<v>``; the others go
    to :func:`_cell_edits`."""
    bulk = np.array([k is float for k in map(type, values)], dtype=bool) & ((flags & 1) == 0)
    fmt = v_open.replace(b"%", b"%%") + b"%r" + v_close.replace(b"%", b"%%")
    pieces = list(map(fmt.__mod__, values[bulk]))
    rest = np.flatnonzero(~bulk)
    if not len(rest):
        return v0, v1, pieces
    starts, ends, more = _cell_edits(data, rest, c0, v0, v1, flags, values, v_open, v_close)
    return np.concatenate((v0[bulk], starts)), np.concatenate((v1[bulk], ends)), pieces + more


def _match(data: bytes, updates: CellValues, layout: Layout):
    """(c0, v0, v1, flags, values) of the updated cells in document order (numpy
    arrays), or None if some update is not a formula cell with a ``<v>`` that the
    layout noted exactly once, or a noted offset does not start the expected tag."""
    n = len(updates)
    recs = np.frombuffer(layout.cells, dtype=LAYOUT_DTYPE)
    if n == 0 or len(recs) < n or updates.cols.min() < 1 or \
            updates.cols.max() >= 1 << _COL_BITS or updates.rows.min() < 1:
        return None
    keys = (updates.rows << _COL_BITS) | updates.cols
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    noted = (recs["r"].astype(np.int64) << _COL_BITS) | recs["c"].astype(np.int64)
    at = np.minimum(np.searchsorted(sorted_keys, noted), n - 1)
    hit = sorted_keys[at] == noted
    which = order[at[hit]]          # the update of each noted cell hit, document order
    if len(which) != n or np.any(np.bincount(which, minlength=n) != 1):
        return None                 # an update not noted, or a cell noted twice
    recs = recs[hit]
    c0, v0, v1 = (recs[k].astype(np.int64) for k in ("c0", "v0", "v1"))
    flags = recs["flags"]
    if np.any(flags & 2) or np.any(v0 < 0):
        return None
    if np.any(v0 <= c0) or np.any(v1 <= v0) or np.any(c0[1:] < v1[:-1]):
        return None                 # not one cell after another: no splice in order
    raw = np.frombuffer(data, dtype=np.uint8)
    prefix = layout.prefix.encode()
    for tag, where in ((b"<" + prefix + b"c", c0), (b"<" + prefix + b"v", v0)):
        if np.any(where + len(tag) > len(data)):
            return None
        for j, byte in enumerate(tag):
            if np.any(raw[where + j] != byte):
                return None
    return c0, v0, v1, flags, updates.values[which]


def _cell_edits(data: bytes, rest, c0, v0, v1, flags, values, v_open: bytes,
                v_close: bytes):
    """(starts, ends, new bytes) for the cells ``rest`` (indices into the arrays): a
    value other than a float, or a start tag with ``t`` or ``vm``. Each gets its new
    ``<v>``; its start tag changes where ``t`` must change or ``vm`` go (as
    :func:`~.rewrite._render` does). Text is escaped all at once (most of these cells
    are text); a start tag without ``t`` or ``vm`` (what the reader noted in ``flags``)
    gets ``t`` inserted before its ``>``, found with numpy (:func:`_tag_ends`); the
    others take the start-tag parser, one cell at a time."""
    chosen = values[rest].tolist()
    is_text = [type(v) is str for v in chosen]
    ts: list = ["str"] * len(chosen)    # the t attribute of each (None for a number)
    texts: list = [None] * len(chosen)  # the text of each <v>
    for k in itertools.compress(range(len(chosen)), map(operator.not_, is_text)):
        ts[k], texts[k] = encode_value(chosen[k])
    text_at = list(itertools.compress(range(len(chosen)), is_text))
    for k, v in zip(text_at, escape_many([chosen[k] for k in text_at])):
        texts[k] = v
    starts = [v0[rest]]
    ends = [v1[rest]]
    pieces = [v_open + v.encode("utf-8") + v_close for v in texts]
    t_attr = np.fromiter(map(operator.is_not, ts, itertools.repeat(None)), dtype=bool,
                         count=len(ts))
    plain = np.flatnonzero(t_attr & ((flags[rest] & 1) == 0))   # t to add, none to drop
    gt = _tag_ends(data, c0[rest[plain]])
    found = gt >= 0
    starts.append(gt[found])
    ends.append(gt[found])
    pieces += [b' t="' + ts[k].encode() + b'"' for k in plain[found].tolist()]
    other = np.ones(len(rest), dtype=bool)
    other[plain[found]] = False
    other &= t_attr | ((flags[rest] & 1) == 1)
    tag_starts, tag_ends = [], []
    for k in np.flatnonzero(other).tolist():
        t = ts[k]
        tag = xmlparse.start_tag(data, int(c0[rest[k]]))
        attrs = tag.group(2)
        if t is not None or b"t" in attrs:
            attrs = set_attr(attrs, b"t", None if t is None else t.encode())
        if b"vm" in attrs:
            attrs = set_attr(attrs, b"vm", None)
        tag_starts.append(tag.start())
        tag_ends.append(tag.end())
        pieces.append(b"<" + tag.group(1) + attrs + b">")
    starts.append(np.array(tag_starts, dtype=np.int64))
    ends.append(np.array(tag_ends, dtype=np.int64))
    return np.concatenate(starts), np.concatenate(ends), pieces


_WINDOW = 48                        # bytes of a start tag looked at by _tag_ends


def _tag_ends(data: bytes, c0) -> "np.ndarray":
    """For each ``<c`` start tag at ``c0``: the offset of its closing ``>`` when that is
    within :data:`_WINDOW` bytes, no attribute value before it is quoted with ``'``,
    the ``"`` before it pair up (so the ``>`` is outside every value) and neither ``/``
    nor white space precedes it; else -1 (the caller parses that tag)."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if len(c0) == 0 or len(raw) < _WINDOW:
        return np.full(len(c0), -1, dtype=np.int64)
    inside = c0 <= len(raw) - _WINDOW
    window = np.lib.stride_tricks.sliding_window_view(raw, _WINDOW)[np.where(inside, c0, 0)]
    close = window == ord(">")
    first = np.argmax(close, axis=1)
    rows = np.arange(len(c0))
    before = np.arange(_WINDOW) < first[:, None]
    ok = inside & close[rows, first]
    ok &= ((window == ord('"')) & before).sum(axis=1) % 2 == 0
    ok &= ~((window == ord("'")) & before).any(axis=1)
    ok &= ~np.isin(window[rows, np.maximum(first - 1, 0)], np.frombuffer(b"/ \t\r\n", np.uint8))
    return np.where(ok, c0 + first, -1)


def _splice(data: bytes, pos: int, starts, ends, pieces: list) -> bytes:
    """``data[pos:]`` up to the last edit, with the bytes ``[starts[i], ends[i])``
    replaced by ``pieces[i]``. The edits of a cell lie inside it (its start tag, its
    ``<v>``) and :func:`_match` proved the cells in order, so edits never overlap."""
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    if starts[0] < pos or np.any(ends < starts) or np.any(starts[1:] < ends[:-1]):
        raise AssertionError("overlapping edits")   # pragma: no cover - see _match
    kept = list(map(data.__getitem__, map(slice, [pos] + ends[:-1].tolist(), starts.tolist())))
    out = [None] * (2 * len(kept))
    out[0::2] = kept
    out[1::2] = [pieces[i] for i in order.tolist()]
    return b"".join(out)

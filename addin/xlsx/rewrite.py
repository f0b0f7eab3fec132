"""Writing cached values into a worksheet part, byte for byte faithful.

:func:`rewrite_sheet` reads the part once with the defused expat parser (:mod:`.xml`),
noting the byte offsets (expat's ``CurrentByteIndex``) of the rows and of the cells it
must change, then splices new bytes into the original: each updated cell becomes
``<c attrs><f..>..</f><v>value</v></c>`` (its ``t`` set for the value, ``vm`` dropped,
its formula and any ``extLst`` kept), cells and rows that do not exist yet are inserted
in order, and ``<dimension>`` is widened if needed. Everything else -- namespace
prefixes, ``mc:Ignorable``, attribute order and quoting, whitespace -- is the input's
own bytes. When the part was read by :func:`~.sheet.read_sheet` and every update is an
existing formula cell, the offsets it noted are used and the part is not parsed again.
:func:`rewrite_workbook` and :func:`remove_elements` edit ``<calcPr>`` and the
calculation chain's references the same way.
"""
from __future__ import annotations

import re
from typing import Iterable, NamedTuple

from . import xml as xmlparse
from .cells import a1, col_number
from .errors import UnsafeWorkbookError
from .cellxml import (CellUpdate, CellValues, dimension_edit, encode_value,  # noqa: F401
                      get_attr, set_attr)
from .sheet import Layout, layout_of

CURRENT_CALC_ID = "191029"          # what Excel 2016..365 writes in <calcPr calcId=...>
REL_CALC_CHAIN = "/calcChain"


def utf8(data: bytes, name: str) -> bytes:
    """``data`` itself if it is a UTF-8 XML part (what Excel writes), else refused: the
    spliced bytes are UTF-8."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise UnsafeWorkbookError(f"{name} is not UTF-8 XML; open and save the workbook in "
                                  "Excel first")
    m = re.match(rb"""(?:\xef\xbb\xbf)?<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)""",
                 data[:200])
    if m and m.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        raise UnsafeWorkbookError(f"{name} is not UTF-8 XML ({m.group(1).decode()}); open and "
                                  "save the workbook in Excel first")
    return data


# ------------------------------------------------------------------ scan ----
_SHEETDATA, _ROW, _C, _F, _EXT, _DIMENSION = range(1, 7)
_CODES = {"sheetData": _SHEETDATA, "row": _ROW, "c": _C, "f": _F, "extLst": _EXT,
          "dimension": _DIMENSION}
_DIGITS = "0123456789"


class _Cell:
    __slots__ = ("col", "start", "end", "has_r", "qname", "f", "ext")

    def __init__(self, col, start, has_r, qname):
        self.col, self.start, self.has_r, self.qname = col, start, has_r, qname
        self.end = self.f = self.ext = None


class _Row:
    __slots__ = ("row", "start", "end", "qname", "cells")

    def __init__(self, row, start, qname, cells):
        self.row, self.start, self.qname, self.cells = row, start, qname, cells
        self.end = None


class _Scan(NamedTuple):
    sheet_data: tuple | None        # (start, end index, qname)
    rows: list                      # (row number, start) of every row, in order
    changed: list                   # _Row of every row with updates, with its cells
    dimension: int | None           # start of <dimension>


def _scan(data: bytes, updates: dict, name: str) -> _Scan:
    p = xmlparse.parser()
    codes: dict[str, int] = {}
    rows: list = []
    changed: list = []
    sd: list = []
    dim: list = []
    in_data = False
    row = col = 0
    cur = None              # the _Row being changed, or None
    cell = None             # the _Cell being read (in a changed row), or None
    depth = 0               # depth inside any cell
    inner = [None, 0]       # (open child kind, its start) inside a changed cell

    def start(qname, attrs):
        nonlocal in_data, row, col, cur, cell, depth
        k = codes.get(qname)
        if k is None:
            k = codes[qname] = _CODES.get(xmlparse.local(qname), 0)
        if depth:
            depth += 1
            if depth == 2 and cell is not None and (k == _F or k == _EXT):
                inner[0], inner[1] = k, p.CurrentByteIndex
            return
        if not in_data:
            if k == _SHEETDATA:
                in_data = True
                sd[:] = [p.CurrentByteIndex, None, qname]
            elif k == _DIMENSION and not dim:
                dim.append(p.CurrentByteIndex)
            return
        if k == _C:
            depth = 1
            ref = attrs.get("r")
            has_r = False
            if ref:
                letters = ref.rstrip(_DIGITS)
                if 0 < len(letters) <= 3 and letters.isalpha() and letters.isascii():
                    col, has_r = col_number(letters), True
                else:
                    col += 1
            else:
                col += 1
            if cur is not None:
                cell = _Cell(col, p.CurrentByteIndex, has_r, qname)
                cur.cells.append(cell)
        elif k == _ROW:
            r = attrs.get("r")
            row = int(r) if r and r.isdigit() and r.isascii() else row + 1
            col = 0
            start_at = p.CurrentByteIndex
            rows.append((row, start_at))
            if row in updates and (not changed or changed[-1].row != row):
                cur = _Row(row, start_at, qname, [])
                changed.append(cur)

    def end(qname):
        nonlocal in_data, cur, cell, depth
        if depth:
            if cell is not None:
                if depth == 2 and inner[0] is not None:
                    stop = xmlparse.element_end(data, inner[1], p.CurrentByteIndex)[1]
                    if inner[0] == _F:
                        cell.f = (inner[1], stop)
                    elif cell.ext is None:
                        cell.ext = (inner[1], stop)
                    inner[0] = None
                elif depth == 1:
                    cell.end = p.CurrentByteIndex
                    cell = None
            depth -= 1
            return
        k = codes[qname]
        if k == _ROW and cur is not None:
            cur.end = p.CurrentByteIndex
            cur = None
        elif k == _SHEETDATA and in_data:
            in_data = False
            sd[1] = p.CurrentByteIndex

    p.StartElementHandler, p.EndElementHandler = start, end
    xmlparse.parse(p, data, name)
    return _Scan(tuple(sd) if sd else None, rows, changed, dim[0] if dim else None)


# ----------------------------------------------------------------- render ----
def _render(prefix: bytes, tag_name: bytes, attrs: bytes, f: bytes, ext: bytes,
            upd) -> bytes:
    if type(upd) is not CellUpdate:  # a bare value
        upd = CellUpdate(upd)
    t, v = encode_value(upd.value)
    if b"t" in attrs or t is not None:
        attrs = set_attr(attrs, b"t", None if t is None else t.encode())
    if b"vm" in attrs:
        attrs = set_attr(attrs, b"vm", None)
    if f and upd.array_ref:
        m = xmlparse.start_tag(f, 0)
        f_attrs = set_attr(set_attr(m.group(2), b"t", b"array"), b"ref",
                           upd.array_ref.encode())
        f = b"<" + m.group(1) + f_attrs + (b"/>" if m.group(3) else b">") + f[m.end():]
    return b"".join((b"<", tag_name, attrs, b">", f, b"<", prefix, b"v>", v.encode("utf-8"),
                     b"</", prefix, b"v>", ext, b"</", tag_name, b">"))


def _new_cell(prefix: bytes, row: int, col: int, upd: CellUpdate) -> bytes:
    return _render(prefix, prefix + b"c", b' r="' + a1(row, col).encode() + b'"', b"", b"", upd)


def _new_row(prefix: bytes, row: int, cells: dict) -> bytes:
    body = b"".join(_new_cell(prefix, row, c, cells[c]) for c in sorted(cells))
    return b"<" + prefix + b'row r="' + str(row).encode() + b'">' + body + b"</" + prefix + b"row>"


def _row_edits(data: bytes, rec: _Row, cells: dict, edits: list) -> None:
    """The edits of one existing row: its updated cells, new cells, its start tag."""
    row = rec.row
    prefix = rec.qname[:-3].encode()
    tag, stop = xmlparse.element_end(data, rec.start, rec.end)
    empty = bool(tag.group(3))
    content_end = tag.end() if empty else rec.end
    pending = sorted(cells)
    existing = {c.col for c in rec.cells}
    inserting = any(c not in existing for c in pending)
    body: list = []          # edits inside the row, in order
    i = 0
    for cell in rec.cells:
        while i < len(pending) and pending[i] < cell.col:
            body.append((cell.start, cell.start, _new_cell(prefix, row, pending[i], cells[pending[i]])))
            i += 1
        if i < len(pending) and pending[i] == cell.col:
            ctag, cstop = xmlparse.element_end(data, cell.start, cell.end)
            attrs = ctag.group(2)
            if inserting and not cell.has_r:
                attrs = set_attr(attrs, b"r", a1(row, cell.col).encode())
            f = data[cell.f[0]:cell.f[1]] if cell.f else b""
            ext = data[cell.ext[0]:cell.ext[1]] if cell.ext else b""
            cq = cell.qname.encode()
            body.append((cell.start, cstop, _render(cq[:-1], cq, attrs, f, ext, cells[cell.col])))
            i += 1
        elif inserting and not cell.has_r:
            ctag = xmlparse.start_tag(data, cell.start)
            attrs = set_attr(ctag.group(2), b"r", a1(row, cell.col).encode())
            end = ctag.end() - (2 if ctag.group(3) else 1)
            body.append((cell.start, end, b"<" + ctag.group(1) + attrs))
    tail = [_new_cell(prefix, row, c, cells[c]) for c in pending[i:]]
    rattrs = tag.group(2)
    if inserting:
        rattrs = set_attr(rattrs, b"spans", None)
    if get_attr(rattrs, b"r") is None:
        rattrs = set_attr(rattrs, b"r", str(row).encode())
    new_tag = b"<" + tag.group(1) + rattrs + b">"
    if empty:   # <row .../> becomes <row ...>cells</row>
        edits.append((rec.start, stop, new_tag + b"".join(tail) + b"</" + tag.group(1) + b">"))
        return
    if new_tag != data[rec.start:tag.end()]:
        edits.append((rec.start, tag.end(), new_tag))
    edits.extend(body)
    if tail:
        edits.append((content_end, content_end, b"".join(tail)))


def rewrite_sheet(xml: str | bytes, updates: "dict[int, dict[int, CellUpdate]] | CellValues",
                  name: str = "sheet", layout: Layout | None = None) -> str | bytes:
    """The sheet part with the cached values of ``updates`` (row -> col -> a
    :class:`CellUpdate`, or the bare value when there is no ``array_ref``; or the same
    as :class:`CellValues` columns) written in; cells and rows that do not exist yet
    are created in order. Given bytes (UTF-8), returns bytes; given text, returns text.

    ``layout``: the :class:`~.sheet.Layout` :func:`~.sheet.read_sheet` returned for these
    bytes (also found by itself for the bytes :func:`~.sheet.read_workbook` read). When
    every update is an existing formula cell with a ``<v>``, the new values are spliced
    at the noted offsets without parsing again; otherwise the part is scanned."""
    if not updates:
        return xml
    if isinstance(xml, str):
        raw = getattr(xml, "raw", None)     # decode_xml's text keeps the part's bytes
        data = raw if raw is not None else xml.encode("utf-8")
        return rewrite_sheet(data, updates, name, layout).decode("utf-8")
    return b"".join(rewrite_sheet_blocks(xml, updates, name, layout))


def rewrite_sheet_blocks(data: bytes, updates, name: str = "sheet",
                         layout: Layout | None = None) -> Iterable[bytes]:
    """:func:`rewrite_sheet` of a part's bytes, in blocks that join to the same bytes.
    Where the splice at noted offsets applies, each block is made when the caller asks
    for it (the package writer deflates one block on other threads while this one
    makes the next: :func:`~.zipwrite.write_package`); else the whole part is one
    block, made now."""
    if not updates:
        return [data]
    data = utf8(data, name)
    if layout is None:
        layout = layout_of(data)
    if layout is not None and layout.size == len(data):
        from .splice import splice_blocks   # numpy, loaded only when a sheet is written
        blocks = splice_blocks(data, updates, layout)
        if blocks is not None:
            return blocks
    return [_rewrite_by_scan(data, updates, name)]


def _rewrite_by_scan(data: bytes, updates, name: str) -> bytes:
    """The general path: the part scanned with the parser, each change spliced in."""
    if isinstance(updates, CellValues):
        updates = updates.as_dict()
    scan = _scan(data, updates, name)
    if scan.sheet_data is None:
        raise UnsafeWorkbookError("cannot write values into a sheet without <sheetData>")
    sd_start, sd_end, sd_qname = scan.sheet_data
    prefix = sd_qname[:-9].encode()
    edits: list = []
    pending = sorted(updates)
    changed = {rec.row: rec for rec in scan.changed}
    i = 0
    done = set()
    for row, start in scan.rows:
        while i < len(pending) and pending[i] < row:
            if pending[i] not in changed:
                edits.append((start, start, _new_row(prefix, pending[i], updates[pending[i]])))
            i += 1
        if i < len(pending) and pending[i] == row:
            i += 1
        if row in changed and row not in done and changed[row].start == start:
            done.add(row)
            _row_edits(data, changed[row], updates[row], edits)
    rest = [r for r in pending[i:] if r not in changed]
    if rest:
        new_rows = b"".join(_new_row(prefix, r, updates[r]) for r in rest)
        tag, stop = xmlparse.element_end(data, sd_start, sd_end)
        if tag.group(3):   # <sheetData/>
            edits.append((sd_start, stop, b"<" + tag.group(1) + tag.group(2) + b">" + new_rows
                          + b"</" + tag.group(1) + b">"))
        else:
            edits.append((sd_end, sd_end, new_rows))
    if scan.dimension is not None:
        dimension_edit(data, scan.dimension, updates, edits)
    edits.sort(key=lambda e: e[0])
    out, pos = [], 0
    for s, e, new in edits:
        out.append(data[pos:s])
        out.append(new)
        pos = e
    out.append(data[pos:])
    return b"".join(out)


# ---------------------------------------------------------- workbook part ----
_CALCPR_ORDER = ("sheets", "functionGroups", "externalReferences", "definedNames")


def rewrite_workbook(xml: str | bytes, full_calc_on_load: bool) -> str | bytes:
    """Adjust ``<calcPr>``: the cached values are now current, so Excel should show them
    rather than recalculate on open (which, without the add-in, would turn every
    zvmplan cell into #NAME?). ``calcId`` is set to the current Excel engine's, since
    Excel fully recalculates files last calculated by an older engine;
    ``fullCalcOnLoad="1"`` is set only when ``full_calc_on_load`` (some builtin that
    the engine lacks left an error that Excel would fix)."""
    if isinstance(xml, str):
        return rewrite_workbook(xml.encode("utf-8"), full_calc_on_load).decode("utf-8")
    data = utf8(xml, "workbook")
    found = xmlparse.elements(data, "workbook", {"workbook", "calcPr", *_CALCPR_ORDER})
    full = b"1" if full_calc_on_load else None
    for loc, _, start, stop, tag in found:
        if loc == "calcPr":
            attrs = set_attr(set_attr(tag.group(2), b"calcId", CURRENT_CALC_ID.encode()),
                             b"fullCalcOnLoad", full)
            new = b"<" + tag.group(1) + attrs + (b"/>" if tag.group(3) else b">")
            return data[:start] + new + data[tag.end():]
    book = next((f for f in found if f[0] == "workbook"), None)
    if book is None:
        return data
    prefix = book[4].group(1)[:-len(b"workbook")]
    new = b"<" + prefix + b'calcPr calcId="' + CURRENT_CALC_ID.encode() + b'"' + \
        (b' fullCalcOnLoad="1"' if full_calc_on_load else b"") + b"/>"
    # schema order: ... sheets, functionGroups, externalReferences, definedNames, calcPr, ...
    last = max((stop for loc, _, _, stop, _ in found if loc in _CALCPR_ORDER), default=None)
    if last is None:
        return data
    return data[:last] + new + data[last:]


def remove_elements(data: bytes, name: str, local: str, match) -> bytes:
    """``data`` without the ``local`` elements whose attributes satisfy ``match``."""
    out, pos = [], 0
    for _, attrs, start, stop, _ in xmlparse.elements(data, name, {local}):
        if match(attrs):
            out.append(data[pos:start])
            pos = stop
    out.append(data[pos:])
    return b"".join(out)



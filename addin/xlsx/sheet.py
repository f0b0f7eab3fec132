"""Reading a workbook's cells: sheets, shared strings, defined names.

A worksheet part is read in one pass of the defused expat parser (:mod:`.xml`), in time
linear in its size, with a few lines of Python per element: no regular expression runs
over the markup. Only cells inside rows inside ``<sheetData>`` are read; within a cell,
the formula ``<f>``, the cached value ``<v>`` and an inline string ``<is>`` (phonetic
runs ``<rPh>`` skipped). Their text is cut from the bytes between the offsets expat
reports, and the offsets of every formula cell are noted (:class:`Layout`) so that the
rewrite can splice new values in without a second parse. Shared formulas are expanded
(each dependent gets its master's text moved by its offset), and cells without ``r``
take the next position, as Excel does. A workbook whose sheets hold more than :data:`MAX_CELLS` cells or
:data:`MAX_OTHER_ELEMENTS` other elements in all is refused, which bounds time and memory.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import gc
import re
import struct
import weakref
from dataclasses import dataclass, field
from typing import Any

from . import xml as xmlparse
from .cells import col_number, parse_area
from .errors import UnsafeWorkbookError, one_line
from .package import XlsxPackage

#: cells in all the sheets of a workbook together (the 100,000-row planner of the benchmarks
#: has 1.4 million): a budget shared by the sheets, so that many sheets each under it cannot
#: add up (a 7.9 MB file of 16 sheets of 2 million cells each took 270 s and 6.4 GB)
MAX_CELLS = 2_000_000
#: rows and elements other than a cell's <c>, <v> and <f>, in all the sheets together
MAX_OTHER_ELEMENTS = 4_000_000
REL_WORKSHEET = "/worksheet"
REL_SHARED_STRINGS = "/sharedStrings"
ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")


class XlError(str):
    """An error value read from a cell (``t="e"``); the engine maps it to formulas'."""
    __slots__ = ()


@dataclass
class FormulaCell:
    text: str                       # without the leading "="
    kind: str = "plain"             # plain | shared | array | dataTable
    area: tuple | None = None       # (r1, c1, r2, c2) of an array formula


@dataclass
class SheetData:
    name: str
    part: str
    values: dict = field(default_factory=dict)    # (r, c) -> float | str | bool | XlError
    formulas: dict = field(default_factory=dict)  # (r, c) -> FormulaCell
    cached: dict = field(default_factory=dict)    # (r, c) -> cached value of formula cells
    max_row: int = 0
    max_col: int = 0
    layout: Any = field(default=None, repr=False, compare=False)  # sheet.Layout of the part


@dataclass
class DefinedName:
    name: str
    text: str
    sheet: int | None               # index of the sheet for a sheet-local name


@dataclass
class Workbook:
    sheets: list[SheetData]
    names: list[DefinedName]
    other_sheets: list[str]         # chart sheets, macro sheets: not evaluated


def _translate(text: str, rows: int, cols: int) -> str:
    """A shared formula's master text moved to a dependent (the engine's reference
    shifter; imported late so this layer does not depend on where the engine keeps it)."""
    try:
        from ..shapes import translate
    except ImportError:  # pragma: no cover - the engine moved it
        from ..recalc.shapes import translate
    return translate(text, rows, cols)


# ---------------------------------------------------------------- workbook ----
def read_workbook(pkg: XlsxPackage) -> Workbook:
    """Sheets (cell values and formulas), defined names; shared formulas expanded."""
    rels = {rid: (rtype, target) for rid, rtype, target in pkg.rels(pkg.main)}
    strings: list[str] = []
    for rtype, target in rels.values():
        if rtype.endswith(REL_SHARED_STRINGS) and target in pkg.infos:
            strings = read_shared_strings(pkg.read(target), target)
    sheets, others = [], []
    budget = Budget()
    book = _read_book_part(pkg.read(pkg.main), pkg.main)
    for name, rid in book["sheets"]:
        rtype, target = rels.get(rid, ("", ""))
        if rtype.endswith(REL_WORKSHEET) and target in pkg.infos:
            sheet = SheetData(name, target)
            read_sheet(pkg.read(target), sheet, strings, target, budget)
            sheets.append(sheet)
        else:
            others.append(name)
    return Workbook(sheets, book["names"], others)


def _read_book_part(data: bytes, name: str) -> dict:
    """(name, relationship id) of each sheet, and the defined names, of workbook.xml."""
    p = xmlparse.parser()
    p.buffer_text = True
    sheets, names = [], []
    current: list = []      # the definedName being read: [name, local, text]

    def start(qname, attrs):
        loc = xmlparse.local(qname)
        if loc == "sheet":
            rid = next((v for k, v in attrs.items() if xmlparse.local(k) == "id"), None)
            sheets.append((attrs.get("name", ""), rid))
        elif loc == "definedName":
            current[:] = [attrs.get("name", ""), attrs.get("localSheetId"), ""]

    def end(qname):
        if current and xmlparse.local(qname) == "definedName":
            local = current[1]
            names.append(DefinedName(current[0], current[2],
                                     int(local) if local is not None and local.isdigit() else None))
            current.clear()

    def chars(text):
        if current:
            current[2] += text

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    xmlparse.parse(p, data, name)
    return {"sheets": sheets, "names": names}


def read_shared_strings(data: bytes, name: str) -> list[str]:
    """The shared string table: each ``<si>``'s text (runs joined, phonetic runs skipped)."""
    p = xmlparse.parser()
    p.buffer_text = True
    out: list[str] = []
    state = {"si": None, "t": False, "rph": 0}

    def start(qname, attrs):
        loc = xmlparse.local(qname)
        if loc == "si":
            state["si"] = []
        elif loc == "rPh":
            state["rph"] += 1
        elif loc == "t" and state["si"] is not None and not state["rph"]:
            state["t"] = True

    def end(qname):
        loc = xmlparse.local(qname)
        if loc == "si":
            out.append(unescape_ooxml("".join(state["si"] or ())))
            state["si"] = None
        elif loc == "rPh":
            state["rph"] -= 1
        elif loc == "t":
            state["t"] = False

    def chars(text):
        if state["t"]:
            state["si"].append(text)

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    xmlparse.parse(p, data, name)
    return out


_OOXML_ESC = re.compile(r"_x([0-9A-Fa-f]{4})_")
# the references XML itself defines (expat has refused any other)
_ENTITY = re.compile(r"&(#x[0-9A-Fa-f]+|#[0-9]+|lt|gt|amp|quot|apos);")
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _entity(m: re.Match) -> str:
    e = m.group(1)
    if e[0] == "#":
        return chr(int(e[2:], 16) if e[1] in "xX" else int(e[1:]))
    return _ENTITIES[e]


def unescape_ooxml(s: str) -> str:
    """SpreadsheetML's ``_xHHHH_`` escapes of characters XML cannot hold."""
    return _OOXML_ESC.sub(lambda m: chr(int(m.group(1), 16)), s) if "_x" in s else s


class PartText(str):
    """The text of a part, keeping its bytes (``raw``): handing it back to
    :func:`~.rewrite.rewrite_sheet` costs no re-encoding, and finds the part's layout."""
    __slots__ = ("raw",)


def decode_xml(data: bytes, name: str) -> str:
    """The text of an XML part that zvmplan edits: UTF-8 (what Excel writes), else refused."""
    try:
        text = PartText(data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8"))
        text.raw = data
        return text
    except UnicodeDecodeError:
        raise UnsafeWorkbookError(f"{name} is not UTF-8 XML; open and save the workbook in "
                                  "Excel first") from None


# ------------------------------------------------------------------- sheet ----
# element codes (by local name); anything else is 0
_SHEETDATA, _ROW, _C, _F, _V, _IS, _T, _R, _RPH, _DIMENSION = range(1, 11)
_CODES = {"sheetData": _SHEETDATA, "row": _ROW, "c": _C, "f": _F, "v": _V, "is": _IS,
          "t": _T, "r": _R, "rPh": _RPH, "dimension": _DIMENSION}
_DIGITS = "0123456789"


class _Columns(dict):
    """Column letters -> number, filled on first use."""

    def __missing__(self, letters: str) -> int | None:
        ok = 0 < len(letters) <= 3 and letters.isalpha() and letters.isascii()
        n = col_number(letters) if ok else None
        self[letters] = n
        return n


col_of = _Columns()


def _serial(iso: str):
    try:
        moment = dt.datetime.fromisoformat(iso.strip().replace("Z", "+00:00"))
    except ValueError:
        return iso
    if moment.tzinfo is not None:
        moment = moment.replace(tzinfo=None)
    delta = moment - dt.datetime(1899, 12, 30)
    return delta.days + delta.seconds / 86400 + delta.microseconds / 86400e6


def cell_value(t: str, raw: str | None, strings: list[str]) -> Any:
    """The value of a cell of type ``t`` whose ``<v>`` holds ``raw`` (None: no ``<v>``)."""
    if raw is None:
        return None
    if t == "n":
        try:
            return float(raw)
        except ValueError:
            return None if raw.strip() == "" else raw
    if t == "s":
        try:
            return strings[int(raw)]
        except (ValueError, IndexError):
            return XlError("#REF!")
    if t == "str":
        return unescape_ooxml(raw)
    if t == "d":  # an ISO 8601 date: Excel's serial day number
        return _serial(raw)
    if t == "b":
        return raw.strip() in ("1", "true")
    if t == "e":
        raw = raw.strip()
        return XlError(raw if raw in ERROR_CODES else "#VALUE!")
    try:
        return float(raw)
    except ValueError:
        return None if raw.strip() == "" else raw


class Layout:
    """Where each formula cell of a sheet part sits in its bytes, noted while reading, so
    that :func:`~.rewrite.rewrite_sheet` can splice new cached values without parsing the
    part again. ``cells`` packs, per formula cell in document order (21 bytes a cell,
    :data:`_LAYOUT`): row, column, start of ``<c``, start and stop of its ``<v>`` element
    (-1: none), and flags (1: the start tag has ``t`` or ``vm``; 2: the cell needs the
    general path: an inline string, an ``extLst``, another prefix)."""

    __slots__ = ("size", "prefix", "cells", "dimension", "__weakref__")

    def __init__(self, size: int):
        self.size = size
        self.prefix = ""
        self.cells = bytearray()
        self.dimension = -1

    def __iter__(self):
        """(row, col, c0, v0, v1, flags) of each formula cell."""
        return _LAYOUT.iter_unpack(self.cells)


_LAYOUT = struct.Struct("<IIIiiB")   # parts are at most 256 MiB: offsets fit in 31 bits
# the layouts of the parts read, by the hash of the bytes (cached by the bytes object):
# held only while their SheetData holds them
_LAYOUTS: "weakref.WeakValueDictionary[int, Layout]" = weakref.WeakValueDictionary()


def layout_of(data: bytes) -> Layout | None:
    """The layout :func:`read_sheet` noted for these bytes, if it is still held."""
    layout = _LAYOUTS.get(hash(data))
    return layout if layout is not None and layout.size == len(data) else None


@contextlib.contextmanager
def _no_gc():
    """The cyclic garbage collector paused: reading creates millions of objects and no
    cycles, and the collector would otherwise rescan them all again and again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _slow_text(raw: bytes) -> str:
    """The character data of element content holding markup (CDATA, comments), CRs or
    references: parsed, never guessed."""
    p = xmlparse.parser()
    p.buffer_text = True
    out: list[str] = []
    p.CharacterDataHandler = out.append
    xmlparse.parse(p, b"<x>" + raw + b"</x>", "a cell")
    return "".join(out)


class Budget:
    """What the sheets of one workbook may still hold: :data:`MAX_CELLS` cells and
    :data:`MAX_OTHER_ELEMENTS` other elements in all of them together."""

    def __init__(self):
        self.cells = [MAX_CELLS + 1]
        self.others = [MAX_OTHER_ELEMENTS + 1]


def read_sheet(data: bytes, sheet: SheetData, strings: list[str], name: str = "sheet",
               budget: Budget | None = None) -> Layout:
    """Fill ``sheet`` from the worksheet part ``data``; returns the :class:`Layout` of its
    formula cells (also kept as ``sheet.layout``).

    Text is cut from the bytes between the offsets expat reports (so no character-data
    callback runs for every cell); content with markup, CRs or references is decoded by
    the parser itself (:func:`_slow_text`)."""
    values, formulas, cached = sheet.values, sheet.formulas, sheet.cached
    masters: dict[str, tuple[int, int, str]] = {}
    dependents: list[tuple[int, int, str]] = []
    codes: dict[str, int] = {}
    layout = Layout(len(data))
    L_add = layout.cells.extend
    pack = _LAYOUT.pack
    row_text = ""
    p = xmlparse.parser()
    find = data.find
    in_data = in_row = False
    junk = 0                # depth inside elements out of place in sheetData (ignored)
    row = col = 0           # position of the current (or last) cell
    depth = 0               # depth inside the current cell (0: not in a cell)
    child = sub = 0         # codes of the open child of the cell, and of its child
    t = "n"
    flags = 0
    c0 = v0 = v1 = t0 = 0
    v_raw = f_attrs = f_text = is_text = None
    max_row = max_col = 0
    prefix = None

    def text(start: int, end: int, qlen: int) -> bytes:
        te = find(b">", start) + 1
        if te - start != qlen + 2:
            te = xmlparse.start_tag(data, start).end()
        return data[te:end]

    def decoded(raw: bytes) -> str:
        if b"<" in raw or b"\r" in raw:
            return _slow_text(raw)
        s = raw.decode("utf-8")
        return _ENTITY.sub(_entity, s) if "&" in s else s

    # the names of the common elements as this part spells them (set at <sheetData>):
    # compared first, so the usual cell costs no lookup; any other spelling of the same
    # element takes the general path through ``codes``
    cq = vq = fq = rowq = "\0"
    budget = budget or Budget()
    cells = budget.cells            # cells left (in the workbook) before it is refused
    others = budget.others

    def count_other():
        others[0] -= 1
        if not others[0]:
            raise UnsafeWorkbookError(f"more than {MAX_OTHER_ELEMENTS:,} rows and other elements "
                                      f"in the sheets (at {name}); refused")

    def start(qname, attrs):
        nonlocal in_data, row, col, depth, child, sub, t, flags, c0, v0, t0, f_attrs, \
            v_raw, f_text, is_text, prefix, cq, vq, fq, rowq, row_text, in_row, junk
        if depth:
            depth += 1
            if depth == 2:
                if qname == vq:
                    child, v0 = _V, p.CurrentByteIndex
                    return
                if qname == fq:
                    child, f_attrs, t0 = _F, attrs, p.CurrentByteIndex
                    return
                k = codes.get(qname)
                if k is None:
                    k = codes[qname] = _CODES.get(xmlparse.local(qname), 0)
                count_other()
                child = k
                if k == _V:
                    v0 = p.CurrentByteIndex
                elif k == _F:
                    f_attrs, t0 = attrs, p.CurrentByteIndex
                elif k == _IS:
                    is_text, flags = "", flags | 2
                else:           # extLst, or anything unusual: the general path
                    flags |= 2
                return
            k = codes.get(qname)
            if k is None:
                k = codes[qname] = _CODES.get(xmlparse.local(qname), 0)
            count_other()
            if depth == 3:
                sub = k
                if child == _IS and k == _T:
                    t0 = p.CurrentByteIndex
            elif depth == 4 and child == _IS and sub == _R and k == _T:
                t0 = p.CurrentByteIndex
            return
        if qname != cq:
            k = codes.get(qname)
            if k is None:
                k = codes[qname] = _CODES.get(xmlparse.local(qname), 0)
            if k != _C:
                count_other()
                if not in_data:
                    if k == _SHEETDATA:
                        in_data = True
                        pre = qname[:-len("sheetData")]
                        cq, vq, fq, rowq = pre + "c", pre + "v", pre + "f", pre + "row"
                        prefix = pre
                    elif k == _DIMENSION and layout.dimension < 0:
                        layout.dimension = p.CurrentByteIndex
                elif k == _ROW and not in_row and not junk:
                    in_row = True
                    r = attrs.get("r")
                    row = int(r) if r and r.isdigit() and r.isascii() else row + 1
                    row_text = str(row)
                    col = 0
                else:           # not where SpreadsheetML puts it: neither a row nor cells
                    junk += 1
                return
        if not in_row or junk:
            if in_data:
                junk += 1
        else:
            cells[0] -= 1
            if not cells[0]:
                raise UnsafeWorkbookError(f"more than {MAX_CELLS:,} cells in the sheets (at "
                                          f"{name}); refused")
            depth, child, c0 = 1, 0, p.CurrentByteIndex
            t = attrs.get("t", "n")
            flags = 1 if ("t" in attrs or "vm" in attrs) else 0
            if qname != cq:
                flags |= 2
            v0 = -1
            v_raw = f_attrs = f_text = is_text = None
            ref = attrs.get("r")
            if ref:
                if ref.endswith(row_text):      # the usual case: the cell's own row
                    c = col_of[ref[:-len(row_text)]]
                    if c is not None:
                        col = c
                        return
                letters = ref.rstrip(_DIGITS)
                digits = ref[len(letters):]
                if 0 < len(letters) <= 3 and letters.isalpha() and letters.isascii() \
                        and digits.isdigit() and digits.isascii():
                    col = col_number(letters)
                    row = int(digits)
                    return
            col += 1

    def end(qname):
        nonlocal in_data, in_row, junk, depth, child, v1, v_raw, f_text, is_text, max_row, \
            max_col
        if not depth:
            if junk:
                junk -= 1
            elif in_row:
                in_row = False
            elif in_data:
                in_data = False
            return
        if depth == 2:
            # a bare start tag is "<" name ">"; anything else (attributes, "/>") is
            # measured by the tag pattern
            if child == _V:
                idx = p.CurrentByteIndex
                lq = len(qname)
                te = v0 + lq + 2
                if data[te - 1] != 62:
                    te = xmlparse.start_tag(data, v0).end()
                v_raw = data[te:idx]
                if te == idx and data[idx - 2:idx] == b"/>":
                    v1 = idx
                else:
                    v1 = idx + lq + 3
                    if data[v1 - 1] != 62:
                        v1 = find(b">", idx) + 1
            elif child == _F:
                idx = p.CurrentByteIndex
                te = t0 + len(qname) + 2
                if data[te - 1] != 62:
                    te = xmlparse.start_tag(data, t0).end()
                raw = data[te:idx]
                if b"<" in raw or b"\r" in raw:
                    f_text = _slow_text(raw)
                else:
                    f_text = raw.decode("utf-8")
                    if "&" in f_text:
                        f_text = _ENTITY.sub(_entity, f_text)
            child = 0
        elif child == _IS and codes.get(qname) == _T and (depth == 3 or sub == _R):
            is_text += decoded(text(t0, p.CurrentByteIndex, len(qname)))
        depth -= 1
        if depth:
            return
        # the end of a cell
        if v_raw is None:
            value = None if t != "inlineStr" or is_text is None else unescape_ooxml(is_text)
        elif t == "n":
            if not v_raw:       # <v></v>: what a writer leaves for a value to compute
                value = None
            else:
                try:
                    value = float(v_raw)
                except ValueError:
                    value = cell_value(t, decoded(v_raw), strings)
        elif t == "s":
            try:
                value = strings[int(v_raw)]
            except (ValueError, IndexError):
                value = XlError("#REF!")
        elif t == "inlineStr":
            value = None if is_text is None else unescape_ooxml(is_text)
        else:
            value = cell_value(t, decoded(v_raw), strings)
        r, c = row, col
        key = (r, c)
        if f_attrs is None:
            if value is None:
                return
            values[key] = value
        else:
            kind = f_attrs.get("t")
            text_ = f_text or ""
            if kind is None or kind == "normal":
                formulas[key] = FormulaCell(text_)
            elif kind == "shared":
                si = f_attrs.get("si", "")
                if text_.strip():
                    masters[si] = (r, c, text_)
                    formulas[key] = FormulaCell(text_, "shared")
                else:
                    dependents.append((r, c, si))
            elif kind == "array":
                try:
                    area = parse_area(f_attrs["ref"]) if f_attrs.get("ref") else (r, c, r, c)
                except ValueError:
                    area = (r, c, r, c)
                formulas[key] = FormulaCell(text_, "array", area)
            elif kind == "dataTable":
                formulas[key] = FormulaCell(text_, "dataTable")
            else:
                formulas[key] = FormulaCell(text_)
            if value is not None:
                cached[key] = value
            L_add(pack(r, c, c0, v0, v1 if v0 >= 0 else -1, flags))
        if r > max_row:
            max_row = r
        if c > max_col:
            max_col = c

    p.StartElementHandler, p.EndElementHandler = start, end
    with _no_gc():
        try:
            xmlparse.parse(p, data, name)
        except (ValueError, OverflowError, struct.error) as exc:
            raise UnsafeWorkbookError(f"{name}: cannot read a cell ({one_line(exc)})") from None
    for r, c, si in dependents:
        if si in masters:
            mr, mc, text_ = masters[si]
            formulas[(r, c)] = FormulaCell(_translate(text_, r - mr, c - mc), "shared")
        else:
            formulas[(r, c)] = FormulaCell("#REF!", "shared")
    layout.prefix = prefix or ""
    sheet.max_row = max(sheet.max_row, max_row)
    sheet.max_col = max(sheet.max_col, max_col)
    sheet.layout = layout
    _LAYOUTS[hash(data)] = layout
    return layout

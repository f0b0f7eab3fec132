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
import itertools
import re
import string
import struct
import weakref
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from . import size
from . import xml as xmlparse
from .cells import col_number, parse_area
from .errors import UnsafeWorkbookError, one_line
from .package import XlsxPackage
from .references import translate
from ..lazyre import lazy_pattern

#: cells in all the sheets of a workbook together, whatever the memory (:mod:`.size`,
#: which defines it): a budget shared by the sheets, so that many sheets each under it
#: cannot add up
MAX_CELLS = size.MAX_CELLS
#: rows and elements other than a cell's <c>, <v> and <f>, in all the sheets together
MAX_OTHER_ELEMENTS = 4_000_000
REL_WORKSHEET = "/worksheet"
REL_SHARED_STRINGS = "/sharedStrings"
REL_TABLE = "/table"
ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")


class XlError(str):
    """An error value read from a cell (``t="e"``); the engine maps it to formulas'."""
    __slots__ = ()


class FormulaCell(NamedTuple):
    """A cell's formula. A named tuple: the fast reader makes a million of them in C
    (``tuple.__new__``), where a class's ``__init__`` would run Python for each."""
    text: str                       # without the leading "="
    kind: str = "plain"             # plain | shared | array | dataTable
    area: tuple | None = None       # (r1, c1, r2, c2) of an array formula


@dataclass
class SheetData:
    """One worksheet as read. Its cells are three dicts keyed ``(row, column)``:
    ``values`` (cells without a formula: float | str | bool | XlError), ``formulas``
    (:class:`FormulaCell`) and ``cached`` (the value cached in a formula cell).

    The bulk reader (:mod:`.bulksheet`) hands a sheet's cells over as ``columns``
    instead (:class:`~.bulksheet.CellColumns`: arrays and lists in document order, no
    dict entry per cell), which the engine's read stage takes as they are; the dicts are
    then made from them the first time something asks for ``values``, ``formulas`` or
    ``cached`` (and ``columns`` is None from then on: the dicts are the sheet)."""
    name: str
    part: str
    values: dict = field(default_factory=dict)    # (r, c) -> float | str | bool | XlError
    formulas: dict = field(default_factory=dict)  # (r, c) -> FormulaCell
    cached: dict = field(default_factory=dict)    # (r, c) -> cached value of formula cells
    max_row: int = 0
    max_col: int = 0
    layout: Any = field(default=None, repr=False, compare=False)  # sheet.Layout of the part
    #: rows written ``hidden="1"`` -> whether the row also has ``customHeight="1"``
    hidden_rows: dict = field(default_factory=dict)
    #: a filter is in effect on the sheet: ``<sheetPr filterMode="1">``, an autoFilter
    #: with a ``filterColumn``, or a table on the sheet whose autoFilter has one
    filter_active: bool = False
    #: the cells as the bulk reader's columns, until the dicts are asked for (see above)
    columns: Any = field(default=None, repr=False, compare=False)
    #: formula columns a writer made as one formula filled down
    #: (:class:`~.knownrows.FilledColumn`, from :class:`~.knownrows.KnownRows`): a
    #: claim the engine checks against the cells' texts before it takes it
    fills: tuple = field(default=(), repr=False, compare=False)

    def cell_counts(self) -> tuple[int, int]:
        """(cells without a formula, formula cells), without making the dicts."""
        if self.columns is not None:
            return self.columns.counts()
        return len(self.values), len(self.formulas)


def _cell_dict(slot: str) -> property:
    """The property of :class:`SheetData` named by ``slot``: the dict, made from the
    sheet's ``columns`` (all three at once) the first time it is read or set."""
    index = ("values", "formulas", "cached").index(slot)

    def get(sheet: SheetData) -> dict:
        if sheet.columns is not None:
            _made_dicts(sheet)
        return sheet.__dict__["_" + slot]

    def put(sheet: SheetData, cells: dict) -> None:
        if sheet.__dict__.get("columns") is not None:
            _made_dicts(sheet)
        sheet.__dict__["_" + slot] = cells

    get.__doc__ = f"The sheet's {slot} dict (element {index} of what the columns make)."
    return property(get, put)


def _made_dicts(sheet: SheetData) -> None:
    columns, sheet.columns = sheet.columns, None
    d = sheet.__dict__
    d["_values"], d["_formulas"], d["_cached"] = columns.dicts()


# (set after the class is made: the dataclass's __init__, __repr__ and __eq__ go through
# them, so a sheet made or compared as before behaves as the three plain fields did)
for _slot in ("values", "formulas", "cached"):
    setattr(SheetData, _slot, _cell_dict(_slot))


@dataclass
class Table:
    """An Excel table (``xl/tables/tableN.xml``): its name, the sheet index holding it,
    its range (r1, c1, r2, c2, 1-based), header and totals row counts and column names."""
    name: str
    sheet: int
    area: tuple
    header_rows: int
    totals_rows: int
    columns: list


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
    date1904: bool = False          # workbookPr date1904: serial 0 is 1904-01-01
    tables: list = field(default_factory=list)  # Table each
    #: per external workbook [n] (n-1 here): {SHEET (upper): {(r, c): value}}, the values
    #: Excel cached in xl/externalLinks/externalLinkN.xml
    external: list = field(default_factory=list)
    #: calcPr iterate="1": (iterateCount, iterateDelta) of iterative calculation, which
    #: Excel then uses for circular references (defaults 100 and 0.001); None when off
    iteration: tuple | None = None
    #: docProps/app.xml names Microsoft Macintosh Excel as the application that saved it
    #: (CHAR and CODE then use Mac Roman, as that Excel does)
    mac: bool = False


# ---------------------------------------------------------------- workbook ----
def read_workbook(pkg: XlsxPackage) -> Workbook:
    """Sheets (cell values and formulas), defined names; shared formulas expanded."""
    rels = {rid: (rtype, target) for rid, rtype, target in pkg.rels(pkg.main)}
    strings: list[str] = []
    for rtype, target in rels.values():
        if rtype.endswith(REL_SHARED_STRINGS) and target in pkg.infos:
            strings = read_shared_strings(pkg.read(target), target)
    sheets, others, tables = [], [], []
    book = _read_book_part(pkg.read(pkg.main), pkg.main)
    budget = _budget(pkg, [rels.get(rid, ("", "")) for _, rid in book["sheets"]])
    for name, rid in book["sheets"]:
        rtype, target = rels.get(rid, ("", ""))
        if rtype.endswith(REL_WORKSHEET) and target in pkg.infos:
            sheet = SheetData(name, target)
            known = getattr(pkg, "known_rows", {}).pop(target, None)
            if known is None:
                read_sheet(pkg.read(target), sheet, strings, target, budget)
            else:   # rows a writer added and described (fill's): .knownrows.KnownRows
                known.read(pkg.read(target), sheet, strings, target, budget)
            tables.extend(_read_tables(pkg, target, len(sheets)))
            if sheet.hidden_rows and not sheet.filter_active:
                sheet.filter_active = _table_filter_active(pkg, target)
            sheets.append(sheet)
        else:
            others.append(name)
    # the cells and each sheet's bounding box now known: the memory they need, again
    size.check_memory(size.estimate_read(sheets, sum(len(pkg.read(s.part)) for s in sheets)),
                      pkg.label)
    external = [_read_external(pkg, rels.get(rid, ("", ""))[1]) for rid in book["external"]]
    return Workbook(sheets, book["names"], others, book["date1904"], tables, external,
                    iteration=book["iteration"], mac=saved_on_mac(pkg))


_MAC_EXCEL = re.compile(rb"<(?:\w+:)?Application>\s*Microsoft Macintosh Excel")


def saved_on_mac(pkg: XlsxPackage) -> bool:
    """Does docProps/app.xml name Microsoft Macintosh Excel as the application that
    saved the workbook? (Read as bytes: the part is not parsed.)"""
    part = "docProps/app.xml"
    return part in pkg.infos and bool(_MAC_EXCEL.search(pkg.read(part)))


def _read_external(pkg: XlsxPackage, part: str) -> dict:
    """{SHEET NAME (upper): {(row, col): value}} cached in an external-link part ({} if
    it is missing)."""
    if not part or part not in pkg.infos:
        return {}
    names, data, sheet, cell = [], {}, [None], [None, None, ""]
    p = xmlparse.parser()
    p.buffer_text = True

    def start(qname, attrs):
        loc = xmlparse.local(qname)
        if loc == "sheetName":
            names.append(attrs.get("val", "").upper())
        elif loc == "sheetData":
            k = attrs.get("sheetId", "")
            sheet[0] = data.setdefault(names[int(k)], {}) \
                if k.isdigit() and int(k) < len(names) else None
        elif loc == "cell" and sheet[0] is not None:
            try:
                cell[:] = [parse_area(attrs.get("r", ""))[:2], attrs.get("t", "n"), ""]
            except ValueError:
                cell[:] = [None, None, ""]
        elif loc == "v":
            cell[2] = ""

    def end(qname):
        if xmlparse.local(qname) == "cell" and cell[0] is not None and sheet[0] is not None:
            t, raw = cell[1], cell[2]
            try:
                value = (XlError(raw) if t == "e" else raw == "1" if t == "b" else raw
                         if t in ("str", "s", "inlineStr") else float(raw))
            except ValueError:
                value = None
            if value is not None:
                sheet[0][cell[0]] = value
            cell[:] = [None, None, ""]

    def chars(text):
        if cell[0] is not None:
            cell[2] += text

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    xmlparse.parse(p, pkg.read(part), part)
    return data


def _read_tables(pkg: XlsxPackage, sheet_part: str, sheet: int) -> list[Table]:
    """The tables of the sheet in ``sheet_part`` (its relationships of type table)."""
    out = []
    for _, rtype, target in pkg.rels(sheet_part):
        if not rtype.endswith(REL_TABLE) or target not in pkg.infos:
            continue
        head, columns = None, []
        for loc, attrs, *_ in xmlparse.elements(pkg.read(target), target,
                                                 {"table", "tableColumn"}):
            if loc == "table":
                head = attrs if head is None else head  # (an extension's own <table> too)
            else:
                columns.append(attrs.get("name", ""))
        if head is None or not head.get("ref"):
            continue
        try:
            area = parse_area(head["ref"])
            header = int(head.get("headerRowCount", "1"))
            totals = int(head.get("totalsRowCount", "0"))
        except ValueError:
            continue
        out.append(Table(head.get("displayName") or head.get("name", ""), sheet, area,
                         header, totals, columns))
    return out


REL_TABLE = "/table"


def _table_filter_active(pkg: XlsxPackage, sheet_part: str) -> bool:
    """Whether a table on the sheet ``sheet_part`` has a filter in effect (its
    ``autoFilter`` holds a ``filterColumn``): then the sheet's hidden rows are the
    filter's (see :class:`SheetData`)."""
    for _, rtype, target in pkg.rels(sheet_part):
        if rtype.endswith(REL_TABLE) and target in pkg.infos:
            if any(True for _ in xmlparse.elements(pkg.read(target), target, {"filterColumn"})):
                return True
    return False


def _read_book_part(data: bytes, name: str) -> dict:
    """(name, relationship id) of each sheet, the defined names and the date system
    (``date1904``) of workbook.xml."""
    p = xmlparse.parser()
    p.buffer_text = True
    sheets, names, date1904, external, iteration = [], [], [], [], []
    current: list = []      # the definedName being read: [name, local, text]

    def start(qname, attrs):
        loc = xmlparse.local(qname)
        if loc == "workbookPr":
            date1904.append(attrs.get("date1904", "0").strip().lower() in ("1", "true"))
        elif loc == "calcPr":
            iteration.append(_iteration(attrs))
        elif loc == "externalReference":
            external.append(next((v for k, v in attrs.items() if xmlparse.local(k) == "id"), ""))
        elif loc == "sheet":
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
    return {"sheets": sheets, "names": names, "date1904": any(date1904), "external": external,
            "iteration": iteration[0] if iteration else None}


def _iteration(attrs: dict) -> tuple | None:
    """``<calcPr iterate="1" iterateCount=".." iterateDelta="..">`` -> (count, delta) of
    Excel's iterative calculation (ECMA-376 Part 1, 18.2.2: defaults 100 and 0.001);
    None when iterate is off (its default) or the numbers are not numbers."""
    if attrs.get("iterate", "0").strip().lower() not in ("1", "true"):
        return None
    try:
        count = int(attrs.get("iterateCount", "100"))
        delta = float(attrs.get("iterateDelta", "0.001"))
    except ValueError:
        return None
    return (max(count, 0), max(delta, 0.0))


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


_OOXML_ESC = lazy_pattern(r"_x([0-9A-Fa-f]{4})_")
# the references XML itself defines (expat has refused any other)
_ENTITY = lazy_pattern(r"&(#x[0-9A-Fa-f]+|#[0-9]+|lt|gt|amp|quot|apos);")
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


def _entity(m: re.Match) -> str:
    e = m.group(1)
    if e[0] == "#":
        return chr(int(e[2:], 16) if e[1] in "xX" else int(e[1:]))
    return _ENTITIES[e]


def unescape_ooxml(s: str) -> str:
    """SpreadsheetML's ``_xHHHH_`` escapes of characters XML cannot hold."""
    return _OOXML_ESC().sub(lambda m: chr(int(m.group(1), 16)), s) if "_x" in s else s


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
_SHEETDATA, _ROW, _C, _F, _V, _IS, _T, _R, _RPH, _DIMENSION, _SHEETPR, _FILTERCOLUMN, \
    _CUSTOMSHEETVIEW = range(1, 14)
_CODES = {"sheetData": _SHEETDATA, "row": _ROW, "c": _C, "f": _F, "v": _V, "is": _IS,
          "t": _T, "r": _R, "rPh": _RPH, "dimension": _DIMENSION, "sheetPr": _SHEETPR,
          "filterColumn": _FILTERCOLUMN, "customSheetView": _CUSTOMSHEETVIEW}
_TRUE = ("1", "true")
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
    cycles, and the collector would otherwise rescan them all again and again. At the
    end they go straight to the oldest generation (frozen and unfrozen at once, which
    moves whole lists without scanning them): re-enabled as it was, the collector's first
    young collection would otherwise scan every one of them (0.2 s at 100,000 rows) only
    to find them alive. Skipped when something else keeps objects frozen."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
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
    """What the sheets of one workbook may still hold: ``cells`` cells (default
    :data:`MAX_CELLS`) and :data:`MAX_OTHER_ELEMENTS` other elements in all of them
    together."""

    def __init__(self, cells: int | None = None):
        self.limit = MAX_CELLS if cells is None else cells
        self.cells = [self.limit + 1]
        self.others = [MAX_OTHER_ELEMENTS + 1]


def _budget(pkg: XlsxPackage, sheet_rels: list) -> Budget:
    """The :class:`Budget` of ``pkg``'s worksheets (``sheet_rels``: (type, target) of
    each sheet), after refusing, from their bytes and before any is parsed, a workbook of
    more than :data:`MAX_CELLS` cells or one the memory available cannot hold
    (:mod:`.size`)."""
    parts = [pkg.read(target) for rtype, target in sheet_rels
             if rtype.endswith(REL_WORKSHEET) and target in pkg.infos]
    est = size.estimate(parts)
    if est.cells > MAX_CELLS:
        raise UnsafeWorkbookError(
            f"{pkg.label}: more than {MAX_CELLS:,} cells in the sheets ({est.cells:,}); "
            "refused: split the workbook (docs/engine.md)")
    size.check_memory(est, pkg.label)
    held = size.cell_budget()
    return Budget(MAX_CELLS if held is None else min(MAX_CELLS, held))


# where the reader is: outside any cell, in a cell between its children, in its <v>, in
# its <f>, in its <is>, in a <t> of that <is>, or anywhere else in the cell (the general
# state, which tracks its depth)
_OUT, _CELL, _IN_V, _IN_F, _IN_IS, _IN_T, _GENERAL = range(7)


#: the reader :func:`read_sheet` tries first: :func:`.fastsheet.read_fast`, set by the
#: package (``xlsx/__init__.py``) because it builds on this module, which so does not
#: import it; it returns None for a part it leaves to :func:`read_general`
FAST_READER = None


def read_sheet(data: bytes, sheet: SheetData, strings: list[str], name: str = "sheet",
               budget: Budget | None = None) -> Layout:
    """Fill ``sheet`` from the worksheet part ``data``; returns the :class:`Layout` of its
    formula cells (also kept as ``sheet.layout``).

    A part in the usual spelling is read by :data:`FAST_READER` (one regular expression
    match a cell); any other by :func:`read_general`. Both give the same cells, values
    and layout."""
    budget = budget or Budget()
    layout = None
    if FAST_READER is not None:
        with _no_gc():
            try:
                layout = FAST_READER(data, sheet, strings, name, budget)
            except (ValueError, OverflowError, struct.error) as exc:
                raise UnsafeWorkbookError(f"{name}: cannot read a cell ({one_line(exc)})") \
                    from None
    if layout is None:
        layout = read_general(data, sheet, strings, name, budget)
    sheet.layout = layout
    _LAYOUTS[hash(data)] = layout
    return layout


def read_general(data: bytes, sheet: SheetData, strings: list[str], name: str = "sheet",
                 budget: Budget | None = None) -> Layout:
    """Fill ``sheet`` from the worksheet part ``data``, whatever its spelling; returns the
    :class:`Layout` of its formula cells.

    Two expat callbacks do the work, one per start tag and one per end tag, called for
    each of the millions of elements; what runs there is kept short. They share their
    state in closure cells (faster here than the attributes of an object), chiefly
    ``state`` (``_OUT`` ... ``_GENERAL``): the usual elements (a cell's ``<v>``, ``<f>``,
    ``<is><t>`` under the names this part uses) each cost one test of ``state`` and one
    name comparison; anything else takes the general state, which tracks its depth in
    the cell and looks each distinct name's local name up once. The next cell of a row is
    recognised by comparing its ``r`` with the reference expected there. Text is cut from
    the bytes between the offsets expat reports (no character-data callback runs); a
    ``<v>`` is converted when it closes, a formula decoded when its ``<f>`` closes, and the
    cell filed when ``</c>`` closes it, while its bytes are still in the cache.

    Measured and not taken (issue 11, 100,000-row planner, 1.4 million cells, CPU time):
    a start handler only, reading where texts and cells end from the bytes and proving
    the part follows the usual grammar there, is no faster (4.5 s against 4.5 s): the
    end callbacks it saves (0.3 s) go to the checks that replace them. The floor is the
    Python run per cell: with no callback at all, a bare scan of the bytes after expat
    has checked them still takes 3.1 s, of which 0.8 s files the formulas and the
    layout."""
    values, formulas, cached = sheet.values, sheet.formulas, sheet.cached
    masters: dict[str, tuple[int, int, str]] = {}      # shared formulas: si -> (r, c, text)
    dependents: list[tuple[int, int, str]] = []         # (r, c, si) of their dependents
    codes: dict[str, int] = {}
    layout = Layout(len(data))
    note = layout.cells.extend
    pack = _LAYOUT.pack
    p = xmlparse.parser()
    find = data.find
    col_get = col_of.get
    col_names = _column_letters()
    state = _OUT
    in_data = in_row = False
    views_seen = False      # a customSheetView started (its autoFilter is not the sheet's)
    junk = 0                # depth inside elements out of place in sheetData (ignored)
    row = col = 0           # position of the current (or last) cell
    row_text, row_cut = "", 0   # str(row), and -len of it (to cut the letters off a ref)
    depth = child = sub = 0     # general state: depth in the cell, codes of its open
    #                             child and of that child's open child
    t = "n"                 # the cell's type
    flags = 0
    c0 = v0 = v1 = t0 = 0   # offsets: <c, <v, past </v>, the open <f or <t
    value = f_attrs = f_text = is_text = None
    max_row = max_col = 0
    prefix = None
    # the names of the common elements as this part spells them (set at <sheetData>);
    # any other spelling of the same element takes the general path through ``codes``
    cq = vq = fq = isq = tq = "\0"
    budget = budget or Budget()
    cells_left = budget.cells[0]      # cells left (in the workbook) before it is refused
    others_left = budget.others[0]    # other elements left

    def code(qname: str) -> int:
        k = codes.get(qname)
        if k is None:
            k = codes[qname] = _CODES.get(xmlparse.local(qname), 0)
        return k

    def other_refused():
        raise UnsafeWorkbookError(f"more than {MAX_OTHER_ELEMENTS:,} rows and other elements "
                                  f"in the sheets (at {name}); refused")

    def start(qname, attrs):
        nonlocal state, junk, row, col, depth, child, sub, t, flags, c0, v0, t0, value, \
            f_attrs, is_text, cells_left, others_left
        if state == _CELL:      # a child of the cell
            if qname == vq:
                state, v0 = _IN_V, p.CurrentByteIndex
                return
            if qname == fq:
                state, f_attrs, t0 = _IN_F, attrs, p.CurrentByteIndex
                return
            others_left -= 1
            if not others_left:
                other_refused()
            k = _IS if qname == isq else code(qname)
            if k == _V:
                state, v0 = _IN_V, p.CurrentByteIndex
            elif k == _F:
                state, f_attrs, t0 = _IN_F, attrs, p.CurrentByteIndex
            elif k == _IS:
                state, is_text, flags = _IN_IS, "", flags | 2
            else:               # extLst, or anything unusual: the general path
                state, child, depth, flags = _GENERAL, k, 2, flags | 2
            return
        if state == _OUT:
            if qname != cq:
                k = code(qname)
                if k != _C:
                    _outside(qname, k, attrs)
                    return
            if not in_row or junk:
                if in_data:
                    junk += 1
                return
            # a cell
            cells_left -= 1
            if not cells_left:
                raise UnsafeWorkbookError(f"more than {budget.limit:,} cells in the sheets (at "
                                          f"{name}); refused")
            state, c0, v0 = _CELL, p.CurrentByteIndex, -1
            value = f_attrs = is_text = None
            t = attrs.get("t")
            if t is None:
                t, flags = "n", 1 if "vm" in attrs else 0
            else:
                flags = 1
            if qname != cq:
                flags |= 2
            ref = attrs.get("r")
            if ref:
                if col < _LAST_COL and ref == col_names[col + 1] + row_text:
                    col += 1                    # the usual case: the next cell of the row
                    return
                if ref.endswith(row_text):      # a cell of the row      # the usual case: the cell's own row
                    c = col_get(ref[:row_cut])
                    if c is None:
                        c = col_of[ref[:row_cut]]
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
            return
        # an element inside a child of the cell
        others_left -= 1
        if not others_left:
            other_refused()
        if state == _IN_IS:
            k = _T if qname == tq else code(qname)
            if k == _T:
                state, t0 = _IN_T, p.CurrentByteIndex
            else:               # a rich text run, a phonetic run
                state, child, depth, sub = _GENERAL, _IS, 3, k
            return
        if state != _GENERAL:   # markup inside <v>, <f> or an inline string's <t>
            child, depth, sub = _CHILD_OF[state], 3, code(qname)
            if state == _IN_T:
                depth, sub = 4, _T
            state = _GENERAL
            return
        depth += 1
        k = code(qname)
        if depth == 3:
            sub = k
            if k == _T and child == _IS:
                t0 = p.CurrentByteIndex
        elif depth == 4 and k == _T and sub == _R and child == _IS:
            t0 = p.CurrentByteIndex

    def _outside(qname, k, attrs):
        """An element outside any cell: sheetData, a row, the dimension, or something
        out of place (junk, whose cells are ignored)."""
        nonlocal in_data, in_row, junk, row, col, row_text, row_cut, prefix, cq, vq, fq, \
            isq, tq, others_left, views_seen
        others_left -= 1
        if not others_left:
            other_refused()
        if not in_data:
            if k == _SHEETDATA:
                in_data = True
                prefix = qname[:-len("sheetData")]
                cq, vq, fq, isq, tq = (prefix + n for n in ("c", "v", "f", "is", "t"))
            elif k == _DIMENSION and layout.dimension < 0:
                layout.dimension = p.CurrentByteIndex
            elif k == _SHEETPR and attrs.get("filterMode") in _TRUE:
                sheet.filter_active = True
            elif k == _FILTERCOLUMN and not views_seen:
                # the sheet's own autoFilter (a custom view's comes after it)
                sheet.filter_active = True
            elif k == _CUSTOMSHEETVIEW:
                views_seen = True
        elif k == _ROW and not in_row and not junk:
            in_row = True
            r = attrs.get("r")
            row = int(r) if r and r.isdigit() and r.isascii() else row + 1
            if attrs.get("hidden") in _TRUE:
                sheet.hidden_rows[row] = attrs.get("customHeight") in _TRUE
            row_text = str(row)
            row_cut = -len(row_text)
            col = 0
        else:           # not where SpreadsheetML puts it: neither a row nor cells
            junk += 1

    def end(qname):
        nonlocal state, in_data, in_row, junk, depth, v1, value, f_text, is_text, max_row, \
            max_col
        if state == _IN_V:
            state = _CELL
            idx = p.CurrentByteIndex
            lq = len(qname)
            if data[v0 + lq + 1] == 62:         # <v>text</v>
                raw = data[v0 + lq + 2:idx]
                v1 = idx + lq + 3
                if data[v1 - 1] != 62:
                    v1 = find(b">", idx) + 1
            elif data[v0 + lq + 1:idx] in _EMPTY_TAILS:     # <v/>
                raw, v1 = b"", idx
            else:
                raw, v1 = _inner(data, v0, idx, find)
            if t == "n":
                if not raw:         # <v></v>: what a writer leaves for a value to compute
                    value = None
                else:
                    try:
                        value = float(raw)
                    except ValueError:
                        value = cell_value(t, _decoded(raw), strings)
            elif t == "s":
                try:
                    value = strings[int(raw)]
                except (ValueError, IndexError):
                    value = XlError("#REF!")
            elif t != "inlineStr":
                value = cell_value(t, _decoded(raw), strings)
            return
        if state == _CELL:      # the end of the cell: file it
            state = _OUT
            if t == "inlineStr":
                value = None if is_text is None else unescape_ooxml(is_text)
            r, c = row, col
            if f_attrs is None:
                if value is None:
                    return
                values[r, c] = value
            else:
                if f_attrs:
                    _file_formula(formulas, masters, dependents, r, c, f_attrs, f_text)
                else:
                    formulas[r, c] = FormulaCell(f_text)
                if value is not None:
                    cached[r, c] = value
                note(pack(r, c, c0, v0, v1 if v0 >= 0 else -1, flags))
            if r > max_row:
                max_row = r
            if c > max_col:
                max_col = c
            return
        if state == _IN_F:
            state = _CELL
            idx = p.CurrentByteIndex
            te = t0 + len(qname) + 2
            raw = data[te:idx] if data[te - 1] == 62 else _inner(data, t0, idx, find)[0]
            if _LT in raw or _CR in raw:
                f_text = _slow_text(raw)
            else:
                f_text = raw.decode("utf-8")
                if "&" in f_text:
                    f_text = _unescaped(f_text)
            return
        if state == _IN_T:
            state = _IN_IS
            idx = p.CurrentByteIndex
            te = t0 + len(qname) + 2
            is_text += _decoded(data[te:idx] if data[te - 1] == 62
                                else _inner(data, t0, idx, find)[0])
            return
        if state == _IN_IS:
            state = _CELL
            return
        if state == _GENERAL:
            if depth == 2:      # the end of the cell's child: as if it had had no markup
                state = _STATE_OF.get(child, _CELL)
                if state != _CELL:
                    end(qname)
                return
            if child == _IS and (depth == 3 or depth == 4 and sub == _R) \
                    and code(qname) == _T:
                idx = p.CurrentByteIndex
                is_text += _decoded(_inner(data, t0, idx, find)[0])
            depth -= 1
        elif junk:
            junk -= 1
        elif in_row:
            in_row = False
        elif in_data:
            in_data = False

    p.StartElementHandler, p.EndElementHandler = start, end
    with _no_gc():
        try:
            xmlparse.parse(p, data, name)
            budget.cells[0], budget.others[0] = cells_left, others_left
            _file_dependents(formulas, masters, dependents)
        except (ValueError, OverflowError, struct.error) as exc:
            raise UnsafeWorkbookError(f"{name}: cannot read a cell ({one_line(exc)})") from None
    layout.prefix = prefix or ""
    sheet.max_row = max(sheet.max_row, max_row)
    sheet.max_col = max(sheet.max_col, max_col)
    return layout


# the general state's child code for a fast state it leaves, and back
_CHILD_OF = {_IN_V: _V, _IN_F: _F, _IN_T: _IS}
_STATE_OF = {_V: _IN_V, _F: _IN_F, _IS: _IN_IS}


_LAST_COL = 18278      # ZZZ: the last column with at most three letters
_LETTERS: list[str] = []


def _column_letters() -> list[str]:
    """The letters of each column by number (1: "A" ... 18278: "ZZZ"; the entries before
    and after are never a reference), built on first use."""
    if not _LETTERS:
        az = string.ascii_uppercase
        _LETTERS.append("\0")
        for n in (1, 2, 3):
            _LETTERS.extend(map("".join, itertools.product(az, repeat=n)))
        _LETTERS.append("\0")
    return _LETTERS


# bytes searched for as numbers: ``b"<" in raw`` would first try the needle as an index
# and raise (and format) a TypeError inside, which costs more than the search
_LT, _CR = ord("<"), ord("\r")
#: what follows the name of an empty element's tag (``<v/>``, ``<v />``)
_EMPTY_TAILS = (b"/>", b" />")


def _inner(data: bytes, start: int, idx: int, find) -> tuple[bytes, int]:
    """(content, end offset) of the element whose start tag begins at ``start`` and whose
    end handler saw ``idx`` (the start of its end tag, or the end of an empty element),
    for a tag with attributes or odd spacing: the tag is measured by its pattern."""
    te = xmlparse.start_tag(data, start).end()
    if te == idx and data[idx - 2:idx] == b"/>":
        return b"", idx
    return data[te:idx], find(b">", idx) + 1


def _decoded(raw: bytes) -> str:
    """Element content as text: markup (CDATA, comments) and CRs are left to the parser
    (:func:`_slow_text`); the five XML entities and character references are replaced."""
    if _LT in raw or _CR in raw:
        return _slow_text(raw)
    s = raw.decode("utf-8")
    return _unescaped(s) if "&" in s else s


def _unescaped(s: str) -> str:
    """Text with the references XML defines replaced (expat has refused any other)."""
    if "&#" in s:
        return _ENTITY().sub(_entity, s)
    # each "&" starts one of these five; "&amp;" goes last so that the "&" it gives back
    # is never read as the start of another
    return (s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&apos;", "'").replace("&amp;", "&"))


def _file_dependents(formulas: dict, masters: dict, dependents: list) -> None:
    """File the dependents of shared formulas (no text of their own): their master's
    text moved by their offset from it, or ``#REF!`` when no master has their ``si``."""
    for r, c, si in dependents:
        if si in masters:
            mr, mc, text = masters[si]
            formulas[r, c] = FormulaCell(translate(text, r - mr, c - mc), "shared")
        else:
            formulas[r, c] = FormulaCell("#REF!", "shared")


def _file_formula(formulas: dict, masters: dict, dependents: list, r: int, c: int,
                  attrs: dict, text: str) -> None:
    """File the formula of cell (r, c) by the kind its ``<f>`` attributes give; a shared
    formula's dependent (no text) waits in ``dependents`` for its master."""
    kind = attrs.get("t")
    if kind is None or kind == "normal":
        formulas[r, c] = FormulaCell(text)
    elif kind == "shared":
        si = attrs.get("si", "")
        if text.strip():
            masters[si] = (r, c, text)
            formulas[r, c] = FormulaCell(text, "shared")
        else:
            dependents.append((r, c, si))
    elif kind == "array":
        try:
            area = parse_area(attrs["ref"]) if attrs.get("ref") else (r, c, r, c)
        except ValueError:
            area = (r, c, r, c)
        formulas[r, c] = FormulaCell(text, "array", area)
    elif kind == "dataTable":
        formulas[r, c] = FormulaCell(text, "dataTable")
    else:
        formulas[r, c] = FormulaCell(text)

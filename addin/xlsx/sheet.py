"""Reading a workbook's cells: sheets, shared strings, defined names.

A worksheet part is read in one pass of the defused expat parser (:mod:`.xml`), in time
linear in its size, with a few lines of Python per element: no regular expression runs
over the markup. Only ``<sheetData>`` is read; within a cell, the formula ``<f>``, the
cached value ``<v>`` and an inline string ``<is>`` (phonetic runs ``<rPh>`` skipped).
Shared formulas are expanded (each dependent gets its master's text moved by its
offset), cells without ``r`` take the next position, as Excel does.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from . import xml as xmlparse
from .cells import col_number, parse_area
from .errors import UnsafeWorkbookError, one_line
from .package import XlsxPackage

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
    book = _read_book_part(pkg.read(pkg.main), pkg.main)
    for name, rid in book["sheets"]:
        rtype, target = rels.get(rid, ("", ""))
        if rtype.endswith(REL_WORKSHEET) and target in pkg.infos:
            sheet = SheetData(name, target)
            read_sheet(pkg.read(target), sheet, strings, target)
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


def unescape_ooxml(s: str) -> str:
    """SpreadsheetML's ``_xHHHH_`` escapes of characters XML cannot hold."""
    return _OOXML_ESC.sub(lambda m: chr(int(m.group(1), 16)), s) if "_x" in s else s


def decode_xml(data: bytes, name: str) -> str:
    """The text of an XML part that zvmplan edits: UTF-8 (what Excel writes), else refused."""
    try:
        return data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8")
    except UnicodeDecodeError:
        raise UnsafeWorkbookError(f"{name} is not UTF-8 XML; open and save the workbook in "
                                  "Excel first") from None


# ------------------------------------------------------------------- sheet ----
# element codes (by local name); anything else is 0
_SHEETDATA, _ROW, _C, _F, _V, _IS, _T, _R, _RPH = range(1, 10)
_CODES = {"sheetData": _SHEETDATA, "row": _ROW, "c": _C, "f": _F, "v": _V, "is": _IS,
          "t": _T, "r": _R, "rPh": _RPH}
_DIGITS = "0123456789"


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


def read_sheet(data: bytes, sheet: SheetData, strings: list[str], name: str = "sheet") -> None:
    """Fill ``sheet`` from the worksheet part ``data``."""
    values, formulas, cached = sheet.values, sheet.formulas, sheet.cached
    masters: dict[str, tuple[int, int, str]] = {}
    dependents: list[tuple[int, int, str]] = []
    codes: dict[str, int] = {}
    p = xmlparse.parser()
    p.buffer_text = True
    p.buffer_size = 1 << 16
    # parser state: kept in closure variables, the cheapest state Python has
    in_data = False
    row = col = 0           # position of the current (or last) cell
    depth = 0               # depth inside the current cell (0: not in a cell)
    child = sub = 0         # codes of the open child of the cell, and of its child
    t = "n"
    collect = False
    buf = ""
    v_text = f_attrs = f_text = is_text = None
    max_row = max_col = 0

    def start(qname, attrs):
        nonlocal in_data, row, col, depth, child, sub, t, collect, buf, v_text, f_attrs, \
            f_text, is_text
        k = codes.get(qname)
        if k is None:
            k = codes[qname] = _CODES.get(xmlparse.local(qname), 0)
        if depth:
            depth += 1
            if depth == 2:
                child = k
                if k == _V or k == _F:
                    collect, buf = True, ""
                    if k == _F:
                        f_attrs = attrs
                elif k == _IS:
                    is_text = ""
            elif depth == 3:
                sub = k
                if child == _IS and k == _T:
                    collect, buf = True, ""
            elif depth == 4 and child == _IS and sub == _R and k == _T:
                collect, buf = True, ""
            return
        if not in_data:
            if k == _SHEETDATA:
                in_data = True
            return
        if k == _C:
            depth, child, t = 1, 0, attrs.get("t", "n")
            v_text = f_attrs = f_text = is_text = None
            ref = attrs.get("r")
            if ref:
                letters = ref.rstrip(_DIGITS)
                digits = ref[len(letters):]
                if 0 < len(letters) <= 3 and letters.isalpha() and letters.isascii() \
                        and digits.isdigit() and digits.isascii():
                    col = col_number(letters)
                    row = int(digits)
                    return
            col += 1
        elif k == _ROW:
            r = attrs.get("r")
            row = int(r) if r and r.isdigit() and r.isascii() else row + 1
            col = 0

    def end(qname):
        nonlocal in_data, depth, child, sub, collect, v_text, f_text, is_text, max_row, max_col
        if not depth:
            if codes[qname] == _SHEETDATA:
                in_data = False
            return
        if depth == 2:
            if child == _V:
                v_text, collect = buf, False
            elif child == _F:
                f_text, collect = buf, False
            child = 0
        elif collect:           # the end of an inline string's <t>
            is_text += buf
            collect = False
        depth -= 1
        if depth:
            return
        # the end of a cell
        if t == "inlineStr":
            value = None if is_text is None else unescape_ooxml(is_text)
        elif t == "n" and v_text is not None:
            try:
                value = float(v_text)
            except ValueError:
                value = cell_value(t, v_text, strings)
        else:
            value = cell_value(t, v_text, strings)
        r, c = row, col
        if f_attrs is not None:
            text = f_text or ""
            kind = f_attrs.get("t", "normal")
            if kind == "normal":
                formulas[(r, c)] = FormulaCell(text)
            elif kind == "shared":
                si = f_attrs.get("si", "")
                if text.strip():
                    masters[si] = (r, c, text)
                    formulas[(r, c)] = FormulaCell(text, "shared")
                else:
                    dependents.append((r, c, si))
            elif kind == "array":
                try:
                    area = parse_area(f_attrs["ref"]) if f_attrs.get("ref") else (r, c, r, c)
                except ValueError:
                    area = (r, c, r, c)
                formulas[(r, c)] = FormulaCell(text, "array", area)
            elif kind == "dataTable":
                formulas[(r, c)] = FormulaCell(text, "dataTable")
            else:
                formulas[(r, c)] = FormulaCell(text)
            if value is not None:
                cached[(r, c)] = value
        elif value is not None:
            values[(r, c)] = value
        else:
            return
        if r > max_row:
            max_row = r
        if c > max_col:
            max_col = c

    def chars(text):
        nonlocal buf
        if collect:
            buf += text

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    try:
        xmlparse.parse(p, data, name)
    except (ValueError, OverflowError) as exc:  # pragma: no cover - defensive
        raise UnsafeWorkbookError(f"{name}: cannot read a cell ({one_line(exc)})") from None
    for r, c, si in dependents:
        if si in masters:
            mr, mc, text = masters[si]
            formulas[(r, c)] = FormulaCell(_translate(text, r - mr, c - mc), "shared")
        else:
            formulas[(r, c)] = FormulaCell("#REF!", "shared")
        max_row, max_col = max(max_row, r), max(max_col, c)
    sheet.max_row = max(sheet.max_row, max_row)
    sheet.max_col = max(sheet.max_col, max_col)

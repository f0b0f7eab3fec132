"""Reading and writing .xlsx packages for the headless engine: safely, and faithfully.

Reading
    :func:`safe_open_xlsx` refuses anything that is not a plain, well-formed .xlsx
    before any other code touches it: a missing or empty file, an OLE/CFB container
    (a password-protected workbook or a legacy .xls), a damaged or truncated zip, a
    zip bomb (declared sizes and compression ratios are checked before anything is
    decompressed, and :mod:`zipfile` never inflates past the declared size), and XML
    with a DTD or entities (every XML part is parsed with :mod:`defusedxml` before it
    is used). Refusals raise :class:`UnsafeWorkbookError` with a one-line message.

Writing
    The output is the input package with the smallest possible change: every part is
    copied as is, except that each recalculated cell's ``<v>`` (cached value) and
    ``t`` (value type) are replaced in the sheet XML, ``xl/calcChain.xml`` is dropped
    (Excel rebuilds it) and ``<calcPr>`` in ``xl/workbook.xml`` is adjusted (see
    :func:`rewrite_workbook`). Styles, charts, data validation, defined names,
    protection, comments and everything else are untouched. Files are written to a
    temporary file in the target directory and moved into place with
    :func:`os.replace`, so a reader never sees half a file.

The sheet XML is edited as text: :mod:`defusedxml` first proves the part well formed
(no DTD, no entities); the cell elements are then found with regular expressions,
which is safe for SpreadsheetML (``<c>`` elements do not nest and their text is
escaped) and keeps namespace prefixes and ``mc:Ignorable`` declarations byte for
byte, which an ElementTree round trip would not.
"""
from __future__ import annotations

import functools
import os
import posixpath
import re
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any, Iterator, NamedTuple
from xml.sax.handler import ContentHandler

from .shapes import a1, col_number, parse_area, translate

# ------------------------------------------------------------------ limits ----
MAX_FILE_BYTES = 512 * 2**20        # the .xlsx itself
MAX_ENTRIES = 10_000                # parts in the zip
MAX_PART_BYTES = 256 * 2**20        # one part, uncompressed
MAX_TOTAL_BYTES = 1024 * 2**20      # all parts, uncompressed
MAX_RATIO = 200                     # uncompressed / compressed, for parts over RATIO_FLOOR
RATIO_FLOOR = 2**20

CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
MAIN_TYPES = ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
              "application/vnd.ms-excel.sheet.macroEnabled.main+xml",
              "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml",
              "application/vnd.ms-excel.template.macroEnabled.main+xml")
REL_OFFICE_DOCUMENT = "/officeDocument"
REL_WORKSHEET = "/worksheet"
REL_SHARED_STRINGS = "/sharedStrings"
REL_CALC_CHAIN = "/calcChain"
CURRENT_CALC_ID = "191029"          # what Excel 2016..365 writes in <calcPr calcId=...>

ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")


class UnsafeWorkbookError(Exception):
    """A file that zvmplan refuses to read; the message is one line, fit for a user."""


class XlError(str):
    """An error value read from a cell (``t="e"``); the engine maps it to formulas'."""
    __slots__ = ()


# ------------------------------------------------------------- safe open ----
class _Defused(ContentHandler):
    pass


def _parse_check(name: str, data: bytes) -> None:
    """Prove an XML part well formed, without DTD or entities (defusedxml)."""
    import defusedxml.sax
    from defusedxml import DefusedXmlException
    from xml.sax import SAXException
    try:
        defusedxml.sax.parseString(data, _Defused(), forbid_dtd=True, forbid_entities=True,
                                   forbid_external=True)
    except DefusedXmlException as exc:
        raise UnsafeWorkbookError(f"{name} declares a DTD or XML entities "
                                  f"({type(exc).__name__}); refused as a possible XML bomb") from None
    except (SAXException, ValueError) as exc:
        raise UnsafeWorkbookError(f"{name} is not well-formed XML ({_one_line(exc)})") from None


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _has_dtd(data: bytes) -> bool:
    head = data
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        head = data.decode("utf-16", "replace").encode("utf-8", "replace")
    low = head.lower()
    return b"<!doctype" in low or b"<!entity" in low


class XlsxPackage:
    """A validated .xlsx: its zip entries and the relationships that locate its parts.

    Use as a context manager (it holds the zip open). ``read(name)`` returns the bytes
    of a part; every XML part has already been checked."""

    def __init__(self, path: str):
        self.path = path
        self.zip: zipfile.ZipFile | None = None
        self.infos: dict[str, zipfile.ZipInfo] = {}
        self._cache: dict[str, bytes] = {}
        self.main = ""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.zip is not None:
            self.zip.close()
            self.zip = None

    def read(self, name: str) -> bytes:
        if name not in self._cache:
            if name not in self.infos:
                raise UnsafeWorkbookError(f"{self.path}: part {name} is missing")
            try:
                data = self.zip.read(name)
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
                raise UnsafeWorkbookError(f"{self.path}: part {name} is damaged "
                                          f"({_one_line(exc)})") from None
            if len(data) > MAX_PART_BYTES:  # pragma: no cover - zipfile stops at file_size
                raise UnsafeWorkbookError(f"{self.path}: part {name} is too large")
            self._cache[name] = data
        return self._cache[name]

    def forget(self, name: str) -> None:
        self._cache.pop(name, None)

    def rels(self, part: str) -> list[tuple[str, str, str]]:
        """(Id, Type, resolved target) of the relationships of ``part`` ("" = package)."""
        folder, base = posixpath.split(part)
        rels_name = posixpath.join(folder, "_rels", base + ".rels")
        if rels_name not in self.infos:
            return []
        out = []
        for el in _xml(self.read(rels_name), rels_name):
            if _local(el.tag) != "Relationship" or el.get("TargetMode") == "External":
                continue
            target = el.get("Target", "")
            if target.startswith("/"):
                resolved = target.lstrip("/")
            else:
                resolved = posixpath.normpath(posixpath.join(folder, target))
            out.append((el.get("Id", ""), el.get("Type", ""), resolved))
        return out


def _xml(data: bytes, name: str):
    import defusedxml.ElementTree as DET
    try:
        return DET.fromstring(data, forbid_dtd=True)
    except Exception as exc:
        raise UnsafeWorkbookError(f"{name}: cannot read XML ({_one_line(exc)})") from None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def safe_open_xlsx(path: str | os.PathLike) -> XlsxPackage:
    """Open ``path`` as an .xlsx after checking that it is safe to read.

    Raises :class:`UnsafeWorkbookError` (one-line message) for a missing, empty,
    encrypted, legacy, truncated, non-xlsx or hostile file. Returns an open
    :class:`XlsxPackage` whose XML parts have all been parsed with defusedxml."""
    path = os.fspath(path)
    name = os.path.basename(path) or path
    if not os.path.exists(path):
        raise UnsafeWorkbookError(f"{path}: no such file")
    if not os.path.isfile(path):
        raise UnsafeWorkbookError(f"{path}: not a regular file")
    size = os.path.getsize(path)
    if size == 0:
        raise UnsafeWorkbookError(f"{name}: the file is empty")
    if size > MAX_FILE_BYTES:
        raise UnsafeWorkbookError(f"{name}: the file is larger than {MAX_FILE_BYTES >> 20} MiB")
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
            if head == CFB_MAGIC:
                blob = head + fh.read()
                if "EncryptionInfo".encode("utf-16-le") in blob or \
                        "EncryptedPackage".encode("utf-16-le") in blob:
                    raise UnsafeWorkbookError(
                        f"{name}: the workbook is password-protected (encrypted); open it in "
                        "Excel, remove the password and save it again as .xlsx")
                raise UnsafeWorkbookError(
                    f"{name}: an OLE compound file (legacy .xls?), not an .xlsx; save it as "
                    ".xlsx in Excel")
    except OSError as exc:
        raise UnsafeWorkbookError(f"{path}: cannot read ({_one_line(exc)})") from None
    if head[:4] not in ZIP_MAGIC:
        raise UnsafeWorkbookError(f"{name}: not an .xlsx file (no zip signature)")
    pkg = XlsxPackage(path)
    try:
        _check_zip(pkg, name)
        _check_parts(pkg, name)
    except BaseException:
        pkg.close()
        raise
    return pkg


def _check_zip(pkg: XlsxPackage, name: str) -> None:
    try:
        pkg.zip = zipfile.ZipFile(pkg.path)
        infos = pkg.zip.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise UnsafeWorkbookError(f"{name}: damaged or truncated zip ({_one_line(exc)})") from None
    if len(infos) > MAX_ENTRIES:
        raise UnsafeWorkbookError(f"{name}: too many parts ({len(infos)} > {MAX_ENTRIES})")
    total = 0
    for info in infos:
        if info.filename in pkg.infos:
            raise UnsafeWorkbookError(f"{name}: part {info.filename} appears twice in the zip")
        if info.flag_bits & 0x1:
            raise UnsafeWorkbookError(f"{name}: part {info.filename} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise UnsafeWorkbookError(f"{name}: part {info.filename} uses an unsupported "
                                      f"compression method ({info.compress_type})")
        if info.file_size > MAX_PART_BYTES:
            raise UnsafeWorkbookError(
                f"{name}: part {info.filename} would inflate to {info.file_size >> 20} MiB "
                f"(limit {MAX_PART_BYTES >> 20} MiB); refused as a possible zip bomb")
        if info.file_size > RATIO_FLOOR and \
                info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise UnsafeWorkbookError(
                f"{name}: part {info.filename} is compressed {info.file_size // max(info.compress_size, 1)}:1 "
                f"(limit {MAX_RATIO}:1); refused as a possible zip bomb")
        total += info.file_size
        pkg.infos[info.filename] = info
    if total > MAX_TOTAL_BYTES:
        raise UnsafeWorkbookError(f"{name}: the parts would inflate to {total >> 20} MiB "
                                  f"(limit {MAX_TOTAL_BYTES >> 20} MiB); refused as a possible zip bomb")


def _check_parts(pkg: XlsxPackage, name: str) -> None:
    if "[Content_Types].xml" not in pkg.infos:
        raise UnsafeWorkbookError(f"{name}: not an .xlsx (a zip without [Content_Types].xml)")
    for part in pkg.infos:
        low = part.lower()
        if low.endswith((".xml", ".rels")):
            data = pkg.read(part)
            _parse_check(f"{name}: {part}", data)
            if low.startswith(("xl/worksheets/", "xl/sharedstrings")):
                continue  # kept in memory for the engine
            pkg.forget(part)
        elif low.endswith(".vml"):  # legacy VML is not always well formed; it may not hide a DTD
            if _has_dtd(pkg.read(part)):
                raise UnsafeWorkbookError(f"{name}: {part} declares a DTD; refused")
            pkg.forget(part)
    main = [t for _, t_type, t in pkg.rels("") if t_type.endswith(REL_OFFICE_DOCUMENT)]
    if not main or main[0] not in pkg.infos:
        raise UnsafeWorkbookError(f"{name}: not an .xlsx (no workbook part)")
    pkg.main = main[0]
    types = _xml(pkg.read("[Content_Types].xml"), "[Content_Types].xml")
    overrides = {el.get("PartName", "").lstrip("/"): el.get("ContentType", "")
                 for el in types if _local(el.tag) == "Override"}
    if overrides.get(pkg.main) not in MAIN_TYPES:
        raise UnsafeWorkbookError(f"{name}: not an Excel workbook (main part is "
                                  f"{overrides.get(pkg.main) or 'of unknown type'})")


# -------------------------------------------------------------- workbook ----
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


def read_workbook(pkg: XlsxPackage) -> Workbook:
    """Sheets (cell values and formulas), defined names; shared formulas expanded."""
    wb_xml = _xml(pkg.read(pkg.main), pkg.main)
    rels = {rid: (rtype, target) for rid, rtype, target in pkg.rels(pkg.main)}
    strings: list[str] = []
    for rtype, target in rels.values():
        if rtype.endswith(REL_SHARED_STRINGS) and target in pkg.infos:
            strings = _shared_strings(pkg.read(target), target)
    sheets, others = [], []
    for el in wb_xml.iter():
        if _local(el.tag) != "sheet":
            continue
        rid = next((v for k, v in el.attrib.items() if _local(k) == "id"), None)
        rtype, target = rels.get(rid, ("", ""))
        if rtype.endswith(REL_WORKSHEET) and target in pkg.infos:
            sheet = SheetData(el.get("name", ""), target)
            _read_sheet(decode_xml(pkg.read(target), target), sheet, strings)
            sheets.append(sheet)
        else:
            others.append(el.get("name", ""))
    names = []
    for el in wb_xml.iter():
        if _local(el.tag) == "definedName":
            local = el.get("localSheetId")
            names.append(DefinedName(el.get("name", ""), el.text or "",
                                     int(local) if local is not None and local.isdigit() else None))
    return Workbook(sheets, names, others)


def decode_xml(data: bytes, name: str) -> str:
    """The text of an XML part that zvmplan edits: UTF-8 (what Excel writes), else refused."""
    try:
        return data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8")
    except UnicodeDecodeError:
        raise UnsafeWorkbookError(f"{name} is not UTF-8 XML; open and save the workbook in "
                                  "Excel first") from None


def _shared_strings(data: bytes, name: str) -> list[str]:
    out = []
    for si in _xml(data, name):
        if _local(si.tag) != "si":
            continue
        parts = []
        for child in si:
            tag = _local(child.tag)
            if tag == "t":
                parts.append(child.text or "")
            elif tag == "r":
                parts.extend(t.text or "" for t in child if _local(t.tag) == "t")
        out.append(_unescape_ooxml("".join(parts)))
    return out


_OOXML_ESC = re.compile(r"_x([0-9A-Fa-f]{4})_")


def _unescape_ooxml(s: str) -> str:
    return _OOXML_ESC.sub(lambda m: chr(int(m.group(1), 16)), s) if "_x" in s else s


# --- the sheet scanner (shared by reading and writing) ---
_ATTRS = r"""((?:[^>"']|"[^"]*"|'[^']*')*?)"""
_SHEETDATA = re.compile(r"<((?:[\w.-]+:)?)sheetData\b" + _ATTRS + r"(/?)>", re.S)
_ROW = re.compile(r"<((?:[\w.-]+:)?)row\b" + _ATTRS + r"(?:/>|>(.*?)</\1row>)", re.S)
_CELL = re.compile(r"<((?:[\w.-]+:)?)c\b" + _ATTRS + r"(?:/>|>(.*?)</\1c>)", re.S)
_F = re.compile(r"<((?:[\w.-]+:)?)f\b" + _ATTRS + r"(?:/>|>(.*?)</\1f>)", re.S)
_V = re.compile(r"<((?:[\w.-]+:)?)v\b" + _ATTRS + r"(?:/>|>(.*?)</\1v>)", re.S)
_IS = re.compile(r"<((?:[\w.-]+:)?)is\b" + _ATTRS + r"(?:/>|>(.*?)</\1is>)", re.S)
_T = re.compile(r"<((?:[\w.-]+:)?)t\b" + _ATTRS + r"(?:/>|>(.*?)</\1t>)", re.S)
_RPH = re.compile(r"<((?:[\w.-]+:)?)rPh\b.*?</\1rPh>", re.S)
_EXT = re.compile(r"<((?:[\w.-]+:)?)extLst\b.*?</\1extLst>", re.S)
_ATTR = re.compile(r"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_COMMENT = re.compile(r"<!--.*?-->|<\?.*?\?>", re.S)
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.S)
_ENTITY = re.compile(r"&(#x[0-9A-Fa-f]+|#[0-9]+|lt|gt|amp|quot|apos);")
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_REF = re.compile(r"([A-Za-z]{1,3})([0-9]+)")
_R_ATTR = re.compile(r"""(?:^|\s)r\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_T_ATTR = re.compile(r"""(?:^|\s)t\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _attr(pattern: re.Pattern, attrs: str) -> str | None:
    m = pattern.search(attrs)
    if m is None:
        return None
    return m.group(1) if m.group(1) is not None else m.group(2)


def _serial(iso: str):
    import datetime as dt
    try:
        moment = dt.datetime.fromisoformat(iso.strip().replace("Z", "+00:00"))
    except ValueError:
        return iso
    if moment.tzinfo is not None:
        moment = moment.replace(tzinfo=None)
    delta = moment - dt.datetime(1899, 12, 30)
    return delta.days + delta.seconds / 86400 + delta.microseconds / 86400e6


def _unescape(s: str | None) -> str:
    if not s:
        return ""
    if "<![CDATA[" in s:
        return "".join(_unescape(p) if i % 2 == 0 else p
                       for i, p in enumerate(_CDATA.split(s)))
    if "&" not in s:
        return s

    def sub(m):
        e = m.group(1)
        if e[0] == "#":
            return chr(int(e[2:], 16) if e[1] in "xX" else int(e[1:]))
        return _ENTITIES[e]
    return _ENTITY.sub(sub, s)


def _attrs(s: str) -> dict[str, str]:
    return {m.group(1): _unescape(m.group(2) if m.group(2) is not None else m.group(3))
            for m in _ATTR.finditer(s)}


class _Span(NamedTuple):
    start: int
    end: int


def _sheet_data(xml: str) -> tuple[_Span, _Span] | None:
    """(whole sheetData element, its content) spans; None if the sheet has no sheetData."""
    m = _SHEETDATA.search(xml)
    if m is None:
        return None
    if m.group(3):  # <sheetData/>
        return _Span(m.start(), m.end()), _Span(m.end(), m.end())
    close = f"</{m.group(1)}sheetData>"
    end = xml.find(close, m.end())
    if end < 0:
        raise UnsafeWorkbookError("sheet XML without </sheetData>")
    return _Span(m.start(), end + len(close)), _Span(m.end(), end)


def _iter_rows(content: str) -> Iterator[tuple[int, re.Match]]:
    row = 0
    for m in _ROW.finditer(content):
        r = _attr(_R_ATTR, m.group(2))
        row = int(r) if r and r.isdigit() else row + 1
        yield row, m


def _iter_cells(row_content: str | None, row: int) -> Iterator[tuple[int, int, re.Match]]:
    col = 0
    for m in _CELL.finditer(row_content or ""):
        ref = _attr(_R_ATTR, m.group(2))
        mm = _REF.fullmatch(ref) if ref else None
        if mm:
            col = col_number(mm.group(1))
            r = int(mm.group(2))
        else:
            col, r = col + 1, row
        yield r, col, m


def _read_sheet(xml: str, sheet: SheetData, strings: list[str]) -> None:
    spans = _sheet_data(xml)
    if spans is None:
        return
    content = xml[spans[1].start:spans[1].end]
    if "<!--" in content or "<?" in content:
        content = _COMMENT.sub("", content)
    masters: dict[str, tuple[int, int, str]] = {}
    dependents: list[tuple[int, int, str]] = []
    for row, rm in _iter_rows(content):
        for r, c, cm in _iter_cells(rm.group(3), row):
            inner = cm.group(3) or ""
            value = _cell_value(_attr(_T_ATTR, cm.group(2)) or "n", inner, strings)
            fm = _F.search(inner) if "f" in inner else None
            if fm is not None:
                f_attrs = _attrs(fm.group(2))
                text = _unescape(fm.group(3))
                kind = f_attrs.get("t", "normal")
                if kind == "shared":
                    si = f_attrs.get("si", "")
                    if text.strip():
                        masters[si] = (r, c, text)
                        sheet.formulas[(r, c)] = FormulaCell(text, "shared")
                    else:
                        dependents.append((r, c, si))
                elif kind == "array":
                    area = parse_area(f_attrs["ref"]) if f_attrs.get("ref") else (r, c, r, c)
                    sheet.formulas[(r, c)] = FormulaCell(text, "array", area)
                elif kind == "dataTable":
                    sheet.formulas[(r, c)] = FormulaCell(text, "dataTable")
                else:
                    sheet.formulas[(r, c)] = FormulaCell(text)
                if value is not None:
                    sheet.cached[(r, c)] = value
            elif value is not None:
                sheet.values[(r, c)] = value
            else:
                continue
            sheet.max_row = max(sheet.max_row, r)
            sheet.max_col = max(sheet.max_col, c)
    for r, c, si in dependents:
        if si in masters:
            mr, mc, text = masters[si]
            sheet.formulas[(r, c)] = FormulaCell(translate(text, r - mr, c - mc), "shared")
        else:
            sheet.formulas[(r, c)] = FormulaCell("#REF!", "shared")


def _cell_value(t: str, inner: str, strings: list[str]) -> Any:
    if t == "inlineStr":
        m = _IS.search(inner)
        if not m:
            return None
        body = _RPH.sub("", m.group(3) or "")
        return _unescape_ooxml("".join(_unescape(tm.group(3)) for tm in _T.finditer(body)))
    m = _V.search(inner) if "v" in inner else None
    if m is None or m.group(3) is None:
        return None
    raw = _unescape(m.group(3))
    if t == "s":
        try:
            return strings[int(raw)]
        except (ValueError, IndexError):
            return XlError("#REF!")
    if t == "str":
        return _unescape_ooxml(raw)
    if t == "d":  # an ISO 8601 date: Excel's serial day number
        return _serial(raw)
    if t == "b":
        return raw.strip() in ("1", "true")
    if t == "e":
        raw = raw.strip()
        return XlError(raw if raw in ERROR_CODES else "#VALUE!")
    if raw.strip() == "":
        return None
    try:
        return float(raw)
    except ValueError:
        return raw


# ---------------------------------------------------------------- writing ----
class CellUpdate(NamedTuple):
    value: Any                          # float | str | bool | XlError-like (has .code or str '#..')
    array_ref: str | None = None        # turn a plain formula into an array formula over this


_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _escape(s: str) -> str:
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if _ILLEGAL_XML.search(s):
        s = _ILLEGAL_XML.sub(lambda m: f"_x{ord(m.group(0)):04X}_", s)
    return s


def encode_value(value) -> tuple[str | None, str]:
    """(``t`` attribute or None for a number, text of ``<v>``) for a computed value."""
    if isinstance(value, bool):
        return "b", "1" if value else "0"
    if isinstance(value, (int, float)):
        return None, repr(float(value))
    code = getattr(value, "code", None)
    if code is None and isinstance(value, XlError):
        code = str(value)
    if code is not None:
        return "e", code
    return "str", _escape(str(value))


@functools.lru_cache(maxsize=None)
def _attr_pattern(name: str) -> re.Pattern:
    return re.compile(r"\s+" + re.escape(name) + r"""\s*=\s*(?:"[^"]*"|'[^']*')""")


def _set_attr(attrs: str, name: str, value: str | None) -> str:
    """Set, replace or (value None) remove one attribute in a start tag's attribute text."""
    if name in attrs:
        attrs = _attr_pattern(name).sub("", attrs)
    if value is not None:
        attrs = attrs.rstrip() + f' {name}="{value}"'
    return attrs


def _render_cell(prefix: str, attrs: str, inner: str, upd: CellUpdate) -> str:
    t, v = encode_value(upd.value)
    attrs = _set_attr(_set_attr(attrs, "t", t), "vm", None)
    f_text = ""
    fm = _F.search(inner) if inner else None
    if fm is not None:
        f_text = fm.group(0)
        if upd.array_ref:
            f_attrs = _set_attr(_set_attr(fm.group(2), "t", "array"), "ref", upd.array_ref)
            body = fm.group(3)
            f_text = (f"<{fm.group(1)}f{f_attrs}>{body}</{fm.group(1)}f>" if body is not None
                      else f"<{fm.group(1)}f{f_attrs}/>")
    ext = _EXT.search(inner) if inner and "extLst" in inner else None
    return (f"<{prefix}c{attrs}>{f_text}<{prefix}v>{v}</{prefix}v>"
            f"{ext.group(0) if ext else ''}</{prefix}c>")


def rewrite_sheet(xml: str, updates: dict[int, dict[int, CellUpdate]]) -> str:
    """The sheet XML with the cached values of ``updates`` (row -> col -> update)
    written in; cells and rows that do not exist yet are created in order."""
    if not updates:
        return xml
    spans = _sheet_data(xml)
    if spans is None:
        raise UnsafeWorkbookError("cannot write values into a sheet without <sheetData>")
    whole, inner_span = spans
    content = xml[inner_span.start:inner_span.end]
    prefix = _SHEETDATA.search(xml, whole.start).group(1)
    pending_rows = sorted(updates)
    out, pos, i = [], 0, 0
    for row, rm in _iter_rows(content):
        while i < len(pending_rows) and pending_rows[i] < row:
            out.append(content[pos:rm.start()])
            pos = rm.start()
            out.append(_new_row(prefix, pending_rows[i], updates[pending_rows[i]]))
            i += 1
        if i < len(pending_rows) and pending_rows[i] == row:
            out.append(content[pos:rm.start()])
            out.append(_rewrite_row(rm, row, updates[row]))
            pos = rm.end()
            i += 1
    out.append(content[pos:])
    for r in pending_rows[i:]:
        out.append(_new_row(prefix, r, updates[r]))
    new_content = "".join(out)
    if spans[0].end == spans[1].end:  # was <sheetData/>
        head = xml[whole.start:whole.end - 2] + ">"
        new_whole = f"{head}{new_content}</{prefix}sheetData>"
        xml = xml[:whole.start] + new_whole + xml[whole.end:]
    else:
        xml = xml[:inner_span.start] + new_content + xml[inner_span.end:]
    return _extend_dimension(xml, updates)


def _new_row(prefix: str, row: int, cells: dict[int, CellUpdate]) -> str:
    body = "".join(_render_cell(prefix, f' r="{a1(row, c)}"', "", cells[c]) for c in sorted(cells))
    return f'<{prefix}row r="{row}">{body}</{prefix}row>'


def _rewrite_row(rm: re.Match, row: int, cells: dict[int, CellUpdate]) -> str:
    rprefix, rattrs, rcontent = rm.group(1), rm.group(2), rm.group(3) or ""
    pending = sorted(cells)
    found = list(_iter_cells(rcontent, row))
    existing = {c for _, c, _ in found}
    inserting = any(c not in existing for c in pending)
    out, pos, i = [], 0, 0
    for _, col, cm in found:
        while i < len(pending) and pending[i] < col:
            out.append(rcontent[pos:cm.start()])
            pos = cm.start()
            out.append(_render_cell(rprefix, f' r="{a1(row, pending[i])}"', "", cells[pending[i]]))
            i += 1
        attrs = cm.group(2)
        if inserting and _attr(_R_ATTR, attrs) is None:
            attrs = _set_attr(attrs, "r", a1(row, col))
        if i < len(pending) and pending[i] == col:
            out.append(rcontent[pos:cm.start()])
            out.append(_render_cell(cm.group(1), attrs, cm.group(3) or "", cells[col]))
            pos = cm.end()
            i += 1
        elif attrs != cm.group(2):
            head = len(cm.group(1)) + 2 + len(cm.group(2))  # "<" prefix "c" attrs
            out.append(rcontent[pos:cm.start()])
            out.append(f"<{cm.group(1)}c{attrs}{cm.group(0)[head:]}")
            pos = cm.end()
    out.append(rcontent[pos:])
    for c in pending[i:]:
        out.append(_render_cell(rprefix, f' r="{a1(row, c)}"', "", cells[c]))
    if inserting:
        rattrs = _set_attr(rattrs, "spans", None)
    if _attr(_R_ATTR, rattrs) is None:
        rattrs = _set_attr(rattrs, "r", str(row))
    return f"<{rprefix}row{rattrs}>{''.join(out)}</{rprefix}row>"


_DIMENSION = re.compile(r"""(<(?:[\w.-]+:)?dimension\b[^>]*?\bref\s*=\s*")([^"]*)(")""")


def _extend_dimension(xml: str, updates) -> str:
    m = _DIMENSION.search(xml)
    if not m:
        return xml
    try:
        r1, c1, r2, c2 = parse_area(m.group(2))
    except ValueError:
        return xml
    rows = list(updates)
    cols = [c for cells in updates.values() for c in cells]
    nr1, nc1 = min([r1] + rows), min([c1] + cols)
    nr2, nc2 = max([r2] + rows), max([c2] + cols)
    if (nr1, nc1, nr2, nc2) == (r1, c1, r2, c2):
        return xml
    ref = a1(nr1, nc1) + ("" if (nr1, nc1) == (nr2, nc2) else ":" + a1(nr2, nc2))
    return xml[:m.start(2)] + ref + xml[m.end(2):]


_CALCPR = re.compile(r"<((?:[\w.-]+:)?)calcPr\b" + _ATTRS + r"(/?)>", re.S)


def rewrite_workbook(xml: str, full_calc_on_load: bool) -> str:
    """Adjust ``<calcPr>``: the cached values are now current, so Excel should show them
    rather than recalculate on open (which, without the add-in, would turn every
    zvmplan cell into #NAME?). ``calcId`` is set to the current Excel engine's, since
    Excel fully recalculates files last calculated by an older engine;
    ``fullCalcOnLoad="1"`` is set only when ``full_calc_on_load`` (some builtin that
    the engine lacks left an error that Excel would fix)."""
    m = _CALCPR.search(xml)
    if m:
        attrs = _set_attr(m.group(2), "calcId", CURRENT_CALC_ID)
        attrs = _set_attr(attrs, "fullCalcOnLoad", "1" if full_calc_on_load else None)
        tag = f"<{m.group(1)}calcPr{attrs}{'/' if m.group(3) else ''}>"
        return xml[:m.start()] + tag + xml[m.end():]
    prefix = re.search(r"<((?:[\w.-]+:)?)workbook\b", xml).group(1)
    full = ' fullCalcOnLoad="1"' if full_calc_on_load else ""
    tag = f'<{prefix}calcPr calcId="{CURRENT_CALC_ID}"{full}/>'
    # schema order: ... sheets, functionGroups, externalReferences, definedNames, calcPr, ...
    last = None
    for el in ("sheets", "functionGroups", "externalReferences", "definedNames"):
        for mm in re.finditer(rf"</{re.escape(prefix)}{el}>|<{re.escape(prefix)}{el}\b[^>]*/>", xml):
            last = mm.end() if last is None or mm.end() > last else last
    if last is None:
        return xml
    return xml[:last] + tag + xml[last:]


def _drop_calc_chain(pkg: XlsxPackage, replaced: dict[str, bytes]) -> set[str]:
    """Remove xl/calcChain.xml and the two references to it; returns parts to skip."""
    chain = [(rid, t) for rid, rtype, t in pkg.rels(pkg.main) if rtype.endswith(REL_CALC_CHAIN)]
    if not chain:
        return set()
    folder, base = posixpath.split(pkg.main)
    rels_name = posixpath.join(folder, "_rels", base + ".rels")
    rels = pkg.read(rels_name).decode("utf-8")
    for rid, _ in chain:
        rels = re.sub(r"<(?:[\w.-]+:)?Relationship\b[^>]*\bId\s*=\s*[\"']" + re.escape(rid)
                      + r"[\"'][^>]*?(?:/>|>\s*</(?:[\w.-]+:)?Relationship>)", "", rels)
    replaced[rels_name] = rels.encode("utf-8")
    types = replaced.get("[Content_Types].xml", pkg.read("[Content_Types].xml")).decode("utf-8")
    for _, target in chain:
        types = re.sub(r"<(?:[\w.-]+:)?Override\b[^>]*\bPartName\s*=\s*[\"']/"
                       + re.escape(target) + r"[\"'][^>]*?/>", "", types)
    replaced["[Content_Types].xml"] = types.encode("utf-8")
    return {t for _, t in chain}


def write_package(pkg: XlsxPackage, out_path: str, replaced: dict[str, bytes],
                  full_calc_on_load: bool = False) -> None:
    """Write the package to ``out_path`` (atomically) with ``replaced`` parts swapped in,
    calcChain dropped and calcPr adjusted."""
    replaced = dict(replaced)
    skip = _drop_calc_chain(pkg, replaced)
    wb = replaced.get(pkg.main, pkg.read(pkg.main)).decode("utf-8")
    replaced[pkg.main] = rewrite_workbook(wb, full_calc_on_load).encode("utf-8")
    out_path = os.path.abspath(out_path)
    folder = os.path.dirname(out_path)
    fd, tmp = tempfile.mkstemp(prefix=".zvmplan-", suffix=".xlsx.tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as zout:
                for info in pkg.zip.infolist():
                    if info.filename in skip:
                        continue
                    data = replaced.get(info.filename)
                    if data is None:
                        data = pkg.read(info.filename)
                        pkg.forget(info.filename)
                    new = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                    new.compress_type = info.compress_type
                    new.external_attr = info.external_attr
                    new.create_system = info.create_system
                    new.comment = info.comment
                    zout.writestr(new, data)
            fh.flush()
            os.fsync(fh.fileno())
        pkg.close()  # Windows cannot replace a file that is open (--in-place)
        if os.path.exists(out_path):
            try:
                os.chmod(tmp, os.stat(out_path).st_mode & 0o7777)
            except OSError:  # pragma: no cover
                pass
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, out_path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


__all__ = ["safe_open_xlsx", "XlsxPackage", "UnsafeWorkbookError", "read_workbook", "Workbook", "decode_xml",
           "SheetData", "FormulaCell", "DefinedName", "CellUpdate", "rewrite_sheet",
           "rewrite_workbook", "write_package", "encode_value", "XlError"]

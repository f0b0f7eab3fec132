"""Opening an .xlsx package safely: every byte inflated under a cap, every part checked.

:func:`safe_open_xlsx` refuses, with one line (:class:`UnsafeWorkbookError`), anything
that is not a plain, well-formed SpreadsheetML package before any other code reads it:
a missing or empty file, an OLE/CFB container (a password-protected workbook or a legacy
.xls), a damaged or truncated zip, a zip bomb, and XML with a DTD or entities.

Bounds (named constants below, stated in docs/engine.md):

* the file itself: at most :data:`MAX_FILE_BYTES`; at most :data:`MAX_ENTRIES` parts;
* each part is inflated here, with :mod:`zlib` and a hard byte cap, never by
  :mod:`zipfile` (which inflates past a member's declared size): a part may inflate to
  its declared size and not one byte more, and the declared sizes are checked first --
  at most :data:`MAX_PART_BYTES` a part, at most :data:`MAX_TOTAL_BYTES` for all parts
  together, and at most :data:`MAX_RATIO`:1 compression for any part over
  :data:`RATIO_FLOOR`. A part that inflates to more or less than it declares, or whose
  CRC differs, is refused as damaged;
* every part read as XML -- by its name (``.xml``, ``.rels``, ``.vml``), by the content
  type [Content_Types].xml gives it or its extension, or by its first bytes -- is
  searched for a document type or entity declaration (in UTF-8 and UTF-16); binary
  media are not (a Mac JPEG's XMP metadata holds a plist DOCTYPE). Every ``.xml`` and ``.rels`` part is parsed with the defused
  expat parser of :mod:`.xml` (no DTD, no entities), so a bomb is refused before use
  (the calculator leaves the parse of sheets and shared strings to the reader, which
  uses the same parser: ``safe_open_xlsx(parse_sheets=False)``).

The package kind (workbook, macro-enabled workbook, template, macro-enabled template)
comes from the content type of its main part (:attr:`XlsxPackage.kind`); the writer
refuses to give a package a file name of another kind (Excel refuses to open those).
"""
from __future__ import annotations

import os
import posixpath
import re
import struct
import zipfile
import zlib

from . import xml as xmlparse
from .errors import UnsafeWorkbookError, one_line

# ------------------------------------------------------------------ limits ----
MAX_FILE_BYTES = 256 * 2**20        #: the .xlsx file itself
MAX_ENTRIES = 10_000                #: parts in the zip
MAX_PART_BYTES = 256 * 2**20        #: one part, inflated (offsets into it fit in 31 bits)
MAX_TOTAL_BYTES = 512 * 2**20       #: all parts together, inflated
MAX_RATIO = 200                     #: inflated / compressed, for parts over RATIO_FLOOR
RATIO_FLOOR = 2**20                 #: parts smaller than this inflated are not ratio-checked
READ_CHUNK = 2**20                  #: compressed bytes read from the file at a time

CFB_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")   # zip local file header, 30 bytes

#: content type of the main part -> the file extension Excel expects for it
MAIN_TYPES = {
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml": ".xlsx",
    "application/vnd.ms-excel.sheet.macroEnabled.main+xml": ".xlsm",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml": ".xltx",
    "application/vnd.ms-excel.template.macroEnabled.main+xml": ".xltm",
}
KIND_NAMES = {".xlsx": "a workbook", ".xlsm": "a macro-enabled workbook",
              ".xltx": "a template", ".xltm": "a macro-enabled template"}
REL_OFFICE_DOCUMENT = "/officeDocument"

# a document type or entity declaration, in UTF-8/ASCII or UTF-16 (either byte order)
_DTD = re.compile(
    rb"<!(?:[Dd][Oo][Cc][Tt][Yy][Pp][Ee]|[Ee][Nn][Tt][Ii][Tt][Yy])"
    rb"|<\x00!\x00(?:[Dd]\x00[Oo]\x00[Cc]\x00[Tt]\x00[Yy]\x00[Pp]\x00[Ee]"
    rb"|[Ee]\x00[Nn]\x00[Tt]\x00[Ii]\x00[Tt]\x00[Yy])")


class XlsxPackage:
    """A validated .xlsx: its zip entries and the relationships that locate its parts.

    Use as a context manager (it holds the file open). ``read(name)`` returns the bytes
    of a part, inflated under the caps; every part has already been checked."""

    def __init__(self, path: str):
        self.path = path
        self.zip: zipfile.ZipFile | None = None
        self.infos: dict[str, zipfile.ZipInfo] = {}
        self._cache: dict[str, bytes] = {}
        self._fh = None
        self.main = ""
        self.kind = ".xlsx"         # the extension matching the main part's content type
        self.inflated = 0           # bytes inflated so far (all reads)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.zip is not None:
            self.zip.close()
            self.zip = None
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    @property
    def label(self) -> str:
        return os.path.basename(self.path) or self.path

    def read(self, name: str) -> bytes:
        if name not in self._cache:
            if name not in self.infos:
                raise UnsafeWorkbookError(f"{self.label}: part {name} is missing")
            self._cache[name] = self._inflate(self.infos[name])
        return self._cache[name]

    def forget(self, name: str) -> None:
        self._cache.pop(name, None)

    def _inflate(self, info: zipfile.ZipInfo) -> bytes:
        """The part's bytes: at most its declared size is ever produced."""
        where = f"{self.label}: part {info.filename}"
        cap = info.file_size
        try:
            fh = self._fh
            fh.seek(info.header_offset)
            head = fh.read(LOCAL_HEADER.size)
            if len(head) < LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
                raise UnsafeWorkbookError(f"{where} is damaged (no local header)")
            fields = LOCAL_HEADER.unpack(head)
            fh.seek(info.header_offset + LOCAL_HEADER.size + fields[-2] + fields[-1])
            left = info.compress_size
            out: list[bytes] = []
            size = 0
            crc = 0

            def take(chunk: bytes) -> None:  # never more than the declared size
                nonlocal size, crc
                size += len(chunk)
                if size > cap:
                    raise UnsafeWorkbookError(
                        f"{where} inflates beyond its declared {cap:,} bytes; refused as a "
                        "possible zip bomb")
                crc = zlib.crc32(chunk, crc)
                out.append(chunk)

            d = zlib.decompressobj(-15) if info.compress_type == zipfile.ZIP_DEFLATED else None
            while left > 0 or (d is not None and d.unconsumed_tail):
                if d is not None and d.unconsumed_tail:
                    take(d.decompress(d.unconsumed_tail, cap + 1 - size))
                else:
                    raw = fh.read(min(READ_CHUNK, left))
                    if not raw:
                        raise UnsafeWorkbookError(f"{where} is truncated")
                    left -= len(raw)
                    take(raw if d is None else d.decompress(raw, cap + 1 - size))
                if d is not None and d.eof:
                    break
            if d is not None and not d.eof:
                take(d.flush(cap + 1 - size))
        except zlib.error as exc:
            raise UnsafeWorkbookError(f"{where} is damaged ({one_line(exc)})") from None
        except OSError as exc:
            raise UnsafeWorkbookError(f"{where}: cannot read ({one_line(exc)})") from None
        if size != cap:
            raise UnsafeWorkbookError(f"{where} is damaged (inflates to {size:,} bytes, "
                                      f"declares {cap:,})")
        if crc != info.CRC:
            raise UnsafeWorkbookError(f"{where} is damaged (CRC mismatch)")
        self.inflated += size
        return b"".join(out)

    def head(self, name: str, size: int) -> bytes:
        """The first ``size`` inflated bytes of part ``name`` (fewer if it is shorter),
        inflating no more than that: a sample of a part too large to inflate yet."""
        info = self.infos[name]
        where = f"{self.label}: part {name}"
        try:
            fh = self._fh
            fh.seek(info.header_offset)
            fields = LOCAL_HEADER.unpack(fh.read(LOCAL_HEADER.size))
            fh.seek(info.header_offset + LOCAL_HEADER.size + fields[-2] + fields[-1])
            raw = fh.read(min(info.compress_size, size))
            if info.compress_type != zipfile.ZIP_DEFLATED:
                return raw[:size]
            return zlib.decompressobj(-15).decompress(raw, size)
        except (zlib.error, struct.error) as exc:
            raise UnsafeWorkbookError(f"{where} is damaged ({one_line(exc)})") from None
        except OSError as exc:
            raise UnsafeWorkbookError(f"{where}: cannot read ({one_line(exc)})") from None

    def rels(self, part: str) -> list[tuple[str, str, str]]:
        """(Id, Type, resolved target) of the internal relationships of ``part`` ("" =
        the package)."""
        name = rels_name(part)
        if name not in self.infos:
            return []
        folder = posixpath.dirname(part)
        out = []
        for loc, attrs, *_ in xmlparse.elements(self.read(name), name, {"Relationship"}):
            if attrs.get("TargetMode") == "External":
                continue
            target = attrs.get("Target", "")
            if target.startswith("/"):
                resolved = target.lstrip("/")
            else:
                resolved = posixpath.normpath(posixpath.join(folder, target))
            out.append((attrs.get("Id", ""), attrs.get("Type", ""), resolved))
        return out

    def content_types(self) -> dict[str, str]:
        """Part name (without the leading /) -> content type, from the overrides."""
        name = "[Content_Types].xml"
        return {a.get("PartName", "").lstrip("/"): a.get("ContentType", "")
                for _, a, *_ in xmlparse.elements(self.read(name), name, {"Override"})}


def rels_name(part: str) -> str:
    """The relationships part of ``part`` ("" = the package's own)."""
    folder, base = posixpath.split(part)
    return posixpath.join(folder, "_rels", base + ".rels")


def safe_open_xlsx(path: str | os.PathLike, *, parse_sheets: bool = True) -> XlsxPackage:
    """Open ``path`` as an .xlsx after checking that it is safe to read.

    Raises :class:`UnsafeWorkbookError` (one-line message) for a missing, empty,
    encrypted, legacy, truncated, non-xlsx or hostile file. Returns an open
    :class:`XlsxPackage` whose parts have all been checked.

    ``parse_sheets=False`` (the calculator): worksheet and shared-strings parts are
    inflated under the caps and searched for a DTD like every part, but not parsed
    here: :func:`~.sheet.read_workbook` parses each one it uses with the same defused
    parser before anything else reads it (so a malformed one is refused there, in one
    line), and the writer copies the others unread. This saves parsing the largest
    parts twice. Every other caller gets every XML part proven well-formed here. The
    calculator's workbook is also priced from a sample of each sheet part before any
    part is inflated (:func:`.size.check_sampled`)."""
    path = os.fspath(path)
    name = os.path.basename(path) or path
    if not os.path.exists(path):
        raise UnsafeWorkbookError(f"{path}: no such file")
    if not os.path.isfile(path):
        raise UnsafeWorkbookError(f"{path}: not a regular file")
    try:
        size = os.path.getsize(path)
        if size == 0:
            raise UnsafeWorkbookError(f"{name}: the file is empty")
        if size > MAX_FILE_BYTES:
            raise UnsafeWorkbookError(f"{name}: the file is larger than "
                                      f"{MAX_FILE_BYTES >> 20} MiB")
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
        raise UnsafeWorkbookError(f"{path}: cannot read ({one_line(exc)})") from None
    if head[:4] not in ZIP_MAGIC:
        raise UnsafeWorkbookError(f"{name}: not an .xlsx file (no zip signature)")
    pkg = XlsxPackage(path)
    try:
        _check_zip(pkg, name)
        if not parse_sheets:  # the calculator: what it will cost, before any inflating
            from . import size
            size.check_sampled(pkg)
        _check_parts(pkg, name, parse_sheets)
    except BaseException:
        pkg.close()
        raise
    return pkg


def _check_zip(pkg: XlsxPackage, name: str) -> None:
    try:
        pkg._fh = open(pkg.path, "rb")
        pkg.zip = zipfile.ZipFile(pkg._fh)
        infos = pkg.zip.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
            struct.error) as exc:
        raise UnsafeWorkbookError(f"{name}: damaged or truncated zip ({one_line(exc)})") from None
    _check_entries(pkg, name, infos)


def _check_entries(pkg: XlsxPackage, name: str, infos: list[zipfile.ZipInfo]) -> None:
    """The zip entries ``infos`` of ``pkg`` against the bounds (count, names, methods,
    sizes, ratios), each kept in ``pkg.infos``."""
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
                f"{name}: part {info.filename} is compressed "
                f"{info.file_size // max(info.compress_size, 1)}:1 (limit {MAX_RATIO}:1); "
                "refused as a possible zip bomb")
        total += info.file_size
        if total > MAX_TOTAL_BYTES:
            raise UnsafeWorkbookError(
                f"{name}: the parts would inflate to more than {MAX_TOTAL_BYTES >> 20} MiB "
                "in total; refused as a possible zip bomb")
        pkg.infos[info.filename] = info


class MemoryPackage(XlsxPackage):
    """A package whose parts are given in memory (``fill`` makes one from a template),
    checked as :func:`safe_open_xlsx` checks a file's (:func:`open_parts`) without
    being deflated into a zip and inflated again. Its zip entries are those
    :func:`~.zipwrite.write_zip` would write for the parts (one timestamp, ``rw-r--r--``,
    deflated), so :func:`~.zipwrite.write_package` writes what it writes for that file."""

    def __init__(self, label: str, parts: list[tuple[str, bytes]], date_time):
        super().__init__(label)
        infos = []
        for part, data in parts:
            info = zipfile.ZipInfo(part, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            info.file_size = info.compress_size = len(data)
            infos.append(info)
        self._infolist = infos
        self._parts = dict(parts)
        self.zip = self                 # write_package lists the entries from pkg.zip
        #: part -> :class:`~.knownrows.KnownRows`: rows its maker described, which
        #: :func:`~.sheet.read_workbook` takes as described (see there)
        self.known_rows: dict = {}

    def infolist(self) -> list[zipfile.ZipInfo]:
        return list(self._infolist)

    def read(self, name: str) -> bytes:
        if name not in self.infos:
            raise UnsafeWorkbookError(f"{self.label}: part {name} is missing")
        return self._parts[name]

    def forget(self, name: str) -> None:
        """Kept: the parts are the package (the file's are inflated again)."""

    def head(self, name: str, size: int) -> bytes:
        return self._parts[name][:size]

    def close(self):
        self.zip = None
        self._parts = {}


def open_parts(label: str, parts: list[tuple[str, bytes]], date_time) -> MemoryPackage:
    """The package of ``parts`` (zip path, bytes), checked as
    ``safe_open_xlsx(path, parse_sheets=False)`` checks the file :func:`~.zipwrite.write_zip`
    would make of them (``date_time`` its timestamp): the same bounds, sample pricing,
    DTD search and XML checks, the same one-line refusals, named ``label``."""
    pkg = MemoryPackage(label, parts, date_time)
    try:
        if len({p for p, _ in parts}) != len(parts):
            raise UnsafeWorkbookError(f"{label}: a part appears twice")
        _check_entries(pkg, label, pkg.infolist())
        from . import size
        size.check_sampled(pkg)
        _check_parts(pkg, label, parse_sheets=False)
    except BaseException:
        pkg.close()
        raise
    return pkg


#: extensions whose parts are XML whatever [Content_Types].xml says
_XML_EXTENSIONS = ("xml", "rels", "vml")
#: what an XML part may start with: a byte order mark, then white space, then "<"
_XML_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*<"
                        rb"|(?:\xff\xfe)?(?:[ \t\r\n]\x00)*<\x00"
                        rb"|(?:\xfe\xff)?(?:\x00[ \t\r\n])*\x00<")


def _xml_types(data: bytes, where: str) -> set[str]:
    """The parts (names without the leading /) and extensions (lower case, no dot) that
    [Content_Types].xml declares with an XML content type (``.../xml`` or ``...+xml``),
    and the extensions that are XML by name (:data:`_XML_EXTENSIONS`)."""
    xmlparse.check(data, where)
    out = set(_XML_EXTENSIONS)
    for _, attrs, *_ in xmlparse.elements(data, where, {"Default", "Override"}):
        kind = attrs.get("ContentType", "").split(";")[0].strip().lower()
        if not (kind.endswith("+xml") or kind.endswith("/xml")):
            continue
        if "PartName" in attrs:
            out.add(attrs["PartName"].lstrip("/"))
        elif "Extension" in attrs:
            out.add(attrs["Extension"].lower().lstrip("."))
    return out


def _sniffed_xml(data: bytes) -> bool:
    """Does ``data`` begin as XML does (a "<" after a byte order mark and white space,
    in UTF-8 or UTF-16)? A JPEG, PNG or other binary part does not, even with XML
    (XMP metadata, an Apple plist and its DOCTYPE) inside."""
    return _XML_START.match(data[:4096]) is not None


def _refuse_dtd(data: bytes, name: str, part: str) -> None:
    if _DTD.search(data):
        raise UnsafeWorkbookError(f"{name}: {part} declares a DTD or an XML entity; "
                                  "refused as a possible XML bomb")


def _check_parts(pkg: XlsxPackage, name: str, parse_sheets: bool = True) -> None:
    if "[Content_Types].xml" not in pkg.infos:
        raise UnsafeWorkbookError(f"{name}: not an .xlsx (a zip without [Content_Types].xml)")
    types = "[Content_Types].xml"
    _refuse_dtd(pkg.read(types), name, types)
    xml_types = _xml_types(pkg.read(types), f"{name}: {types}")
    for part in pkg.infos:
        data = pkg.read(part)
        if part in xml_types or _sniffed_xml(data) or \
                posixpath.splitext(part)[1].lower().lstrip(".") in xml_types:
            _refuse_dtd(data, name, part)
        low = part.lower()
        if low.endswith((".xml", ".rels")):
            for_reader = low.startswith(("xl/worksheets/", "xl/sharedstrings"))
            if parse_sheets or not for_reader:
                xmlparse.check(data, f"{name}: {part}")
            if for_reader:
                continue  # kept in memory for the reader
        pkg.forget(part)
    main = [t for _, t_type, t in pkg.rels("") if t_type.endswith(REL_OFFICE_DOCUMENT)]
    if not main or main[0] not in pkg.infos:
        raise UnsafeWorkbookError(f"{name}: not an .xlsx (no workbook part)")
    pkg.main = main[0]
    main_type = pkg.content_types().get(pkg.main)
    if main_type not in MAIN_TYPES:
        raise UnsafeWorkbookError(f"{name}: not an Excel workbook (main part is "
                                  f"{main_type or 'of unknown type'})")
    pkg.kind = MAIN_TYPES[main_type]


def check_output_name(pkg: XlsxPackage, out_path: str) -> None:
    """Refuse to write ``pkg`` under a name Excel would reject: an .xlsx, .xlsm, .xltx or
    .xltm name must match the package's kind (Excel opens neither a macro-enabled package
    named .xlsx nor the reverse). Other names are not judged."""
    ext = os.path.splitext(os.fspath(out_path))[1].lower()
    if ext in KIND_NAMES and ext != pkg.kind:
        raise UnsafeWorkbookError(
            f"{out_path}: {pkg.label} is {KIND_NAMES[pkg.kind]}, which Excel opens only "
            f"under a {pkg.kind} name; write OUT as {pkg.kind} (nothing written)")

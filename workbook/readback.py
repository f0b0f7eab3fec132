"""The cached values of a few sheets of a plan ``fill`` has just written, read as
openpyxl reads them, without openpyxl's per-cell cost.

:func:`~.results.read` reads the Planner and the Scenarios sheets with openpyxl
(``load_workbook(read_only=True, data_only=True)``, ``iter_rows(values_only=True)``):
on a 10,000-link plan that is about 5 CPU-s, more than growing and writing the plan.
:func:`sheet_rows` gives the same rows -- the same tuples of the same Python values,
typed as openpyxl types them -- from one regular-expression pass over each sheet part's
``<sheetData>``, for the XML the engine's writer and the template builder write: cells
``<c r=".." s=".." t="..">`` with attributes in that order, an optional ``<f>``, a
``<v>`` or a plain inline string ``<is><t>..</t></is>``, and rows ``<row r="..">``.

Anything else -- another attribute, a rich or self-closed inline string, a character
reference, a carriage return, a number in a date format, a comment, a prefixed or
another namespace, a sheet that is not a worksheet part, a value openpyxl would refuse
-- returns None, and the caller reads the file with openpyxl (the general path; both
give the same rows on every plan, ``tests/test_fill_readback.py``). The file is the
one the engine wrote (``fill``'s plan, or ``calc``'s output of a plan, whose other
parts are copied from a file that passed the package guards,
:func:`~zvmplan_addin.xlsx.safe_open_xlsx`); across the 491 Excel-saved workbooks of
the corpus this reader gave openpyxl's rows on 287 and handed 202 back to openpyxl, and
differed on none. Any other workbook is read by openpyxl alone.
"""
from __future__ import annotations

import re
import zipfile
from io import BytesIO

MAIN_NS = b"http://schemas.openxmlformats.org/spreadsheetml/2006/main"
SHARED_STRINGS = ("application/vnd.openxmlformats-officedocument.spreadsheetml"
                  ".sharedStrings+xml")

#: one token of ``<sheetData>``: a row's start, a row's end, a cell in the written
#: forms, whitespace between elements; anything else is one ``junk`` character. An
#: inline string is captured with its ``<t>`` tag, so that an empty one is told from none.
_TOKEN = re.compile(
    rb'<row r="(?P<row>[0-9]+)"(?: [^<>]*?)?(?P<empty>/?)>'
    rb'|(?P<end></row>)'
    rb'|<c r="(?P<col>[A-Z]{1,3})[0-9]+"(?: s="(?P<s>[0-9]+)")?(?: t="(?P<t>[a-zA-Z]+)")?'
    rb'(?: ?/>|>(?:<f>[^<]*</f>|<f [^<>]*?/>|<f [^<>]*>[^<]*</f>)?'
    rb'(?:<v>(?P<v>[^<]*)</v>|<v/>|<is>(?P<inline><t(?: xml:space="preserve")?>[^<]*)</t></is>)?'
    rb'</c>)'
    rb'|[ \t\n]+'
    rb'|(?P<junk>.)', re.S)
_ENTITY = re.compile(rb"&(?:amp|lt|gt|quot|apos);")
_ENTITIES = {b"&amp;": b"&", b"&lt;": b"<", b"&gt;": b">", b"&quot;": b'"', b"&apos;": b"'"}
_ROW_TAG = re.compile(rb"<row[\s/>]")
_DIMENSION = re.compile(rb'<dimension ref="([A-Z]{1,3}[0-9]+(?::[A-Z]{1,3}[0-9]+)?)"\s*/>')
_XML_DECL = re.compile(rb'(?:<\?xml version="1\.0" encoding="(?:UTF|utf)-8"'
                       rb'(?: standalone="yes")?\?>\s*)?<worksheet\b[^>]*\sxmlns="([^"]*)"')


class _Unknown(Exception):
    """Something the fast reader does not read as openpyxl would: use openpyxl."""


def sheet_rows(path, names) -> dict[str, list[tuple]] | None:
    """Sheet name -> its rows as ``[tuple(r) for r in ws.iter_rows(values_only=True)]``
    of openpyxl's read-only, data-only workbook, for each of ``names`` the workbook has
    (a name it has not is left out); None when any part holds what this reader does
    not know (then read the file with openpyxl)."""
    try:
        with zipfile.ZipFile(path) as z:
            return _read(z, names)
    except (_Unknown, KeyError, ValueError, IndexError, TypeError, zipfile.BadZipFile,
            OSError, UnicodeDecodeError):
        return None


def _worksheets(z: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> zip path of its part, for the sheets whose relationship is a
    worksheet's (as :func:`.rows.sheet_paths` finds them)."""
    from defusedxml import ElementTree
    from .rows import _MAIN, _PKG, _REL
    rels = ElementTree.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    target = {r.get("Id"): (r.get("Type") or "", r.get("Target") or "")
              for r in rels.iter(f"{_PKG}Relationship")}
    out = {}
    for sh in ElementTree.fromstring(z.read("xl/workbook.xml")).iter(f"{_MAIN}sheet"):
        kind, t = target[sh.get(f"{_REL}id")]
        if not kind.endswith("/relationships/worksheet"):
            raise _Unknown("a sheet that is not a worksheet part")
        t = t.lstrip("/")
        out[sh.get("name")] = t if t.startswith("xl/") else "xl/" + t
    return out


def _read(z: zipfile.ZipFile, names) -> dict[str, list[tuple]]:
    from openpyxl.reader.strings import read_string_table
    from openpyxl.styles.stylesheet import Stylesheet
    from openpyxl.xml.functions import fromstring
    paths = _worksheets(z)
    types = z.read("[Content_Types].xml").decode("utf-8")
    strings_at = re.findall(r'PartName="/([^"]+)"\s+ContentType="' + re.escape(SHARED_STRINGS)
                            + '"', types)
    if types.count(SHARED_STRINGS) != len(strings_at) or len(strings_at) > 1:
        raise _Unknown("shared strings declared in another form")
    strings = read_string_table(BytesIO(z.read(strings_at[0]))) if strings_at else []
    styles = Stylesheet.from_tree(fromstring(z.read("xl/styles.xml")))
    dates = set(styles.date_formats) | set(styles.timedelta_formats)
    return {name: _rows(z.read(paths[name]), strings, dates)
            for name in names if name in paths}


def _text(raw: bytes) -> str:
    """A ``<v>`` or ``<t>`` text as the XML parser gives it."""
    if b"\r" in raw:
        raise _Unknown("a carriage return (the XML parser makes it a line feed)")
    if b"&" in raw:
        if raw.count(b"&") != len(_ENTITY.findall(raw)):
            raise _Unknown("a character reference")
        raw = _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], raw)
    return raw.decode("utf-8")


def _value(t: bytes, v: bytes, inline: bytes, s: bytes, strings, dates):
    """A cell's value as openpyxl's ``WorkSheetParser.parse_cell`` gives it (data only);
    ``b""`` for each part the cell has not."""
    if t == b"inlineStr":
        return _text(inline[inline.index(b">") + 1:]) if inline else None
    if inline:
        raise _Unknown("an inline string in a cell of another type")
    if not v:  # no <v>, or an empty one
        return None
    if not t or t == b"n":
        if int(s or 0) in dates:
            raise _Unknown("a number in a date or time format")
        text = v.decode("ascii")
        return float(text) if ("." in text or "E" in text or "e" in text) else int(text)
    if t == b"s":
        return strings[int(v)]
    if t == b"str" or t == b"e":
        return _text(v)
    if t == b"b":
        return bool(int(v))
    raise _Unknown(f"a cell of type {t!r}")


def _rows(part: bytes, strings, dates) -> list[tuple]:
    """The rows of one worksheet part, as openpyxl's read-only ``_cells_by_row`` yields
    them from ``min_col=1, min_row=1`` to the part's dimension."""
    at = part.find(b"<sheetData>")
    stop = part.find(b"</sheetData>")
    if at < 0 or stop < at or part.count(b"<sheetData") != 1:
        raise _Unknown("no <sheetData> of the written form")
    head = part[:at]
    root = _XML_DECL.match(head)
    if root is None or root.group(1) != MAIN_NS or b"<!" in head or _ROW_TAG.search(head):
        raise _Unknown("not a worksheet in the main namespace")
    dims = _DIMENSION.findall(head)
    if len(dims) > 1 or (not dims and b"<dimension" in head):
        raise _Unknown("a dimension in another form")
    max_col = max_row = None
    if dims:
        from openpyxl.utils.cell import range_boundaries
        _, _, max_col, max_row = range_boundaries(dims[0].decode("ascii"))
    if _ROW_TAG.search(part, stop):
        raise _Unknown("a row after <sheetData>")
    parsed: list[tuple[int, list]] = []
    cells = None
    known: dict[bytes, int] = {}  # column letters -> number, filled by index()
    index = _column_index(known)
    numeric: dict[bytes, bool] = {}  # cell format -> a number in it is read as a number
    width = max_col
    for row, empty, end, col, s, t, v, inline, junk in _tokens(part, at + 11, stop):
        if col:
            if cells is None:
                raise _Unknown("a cell outside a row")
            if not v and not inline:  # no value: empty, whatever its type
                value = None
            elif not t:  # a number, as parse_cell's _cast_number, unless a date's format
                ok = numeric.get(s)
                if ok is None:
                    ok = numeric[s] = int(s or 0) not in dates
                value = (float(v) if (b"." in v or b"E" in v or b"e" in v) else int(v)) \
                    if ok else _value(t, v, inline, s, strings, dates)
            elif (t == b"str" or t == b"e") and v and b"&" not in v and b"\r" not in v:
                value = v.decode("utf-8")  # a formula's text or error, as _text
            else:
                value = _value(t, v, inline, s, strings, dates)
            k = known.get(col) or index(col)
            if width is None:
                cells.append((k, value))
            elif k <= width:  # as _get_row: a cell beyond the dimension is not read
                cells[k - 1] = value
        elif row:
            if cells is not None:
                raise _Unknown("a row inside a row")
            parsed.append((int(row), [] if width is None else [None] * width))
            cells = None if empty else parsed[-1][1]
        elif end:
            if cells is None:
                raise _Unknown("a row's end without its start")
            cells = None
        elif junk:
            raise _Unknown("XML not of the written form")
    if cells is not None:
        raise _Unknown("a row without its end")
    return _padded(parsed, max_col, max_row)


#: bytes of ``<sheetData>`` tokenised at a time (cut after a ``</row>``)
CHUNK = 1 << 22


def _tokens(part: bytes, start: int, stop: int):
    """:data:`_TOKEN`'s matches in ``part[start:stop]``, a chunk of rows at a time."""
    while start < stop:
        cut = part.find(b"</row>", min(start + CHUNK, stop), stop)
        end = stop if cut < 0 else cut + 6
        yield from _TOKEN.findall(part, start, end)
        start = end


def _column_index(known: dict[bytes, int]):
    """Column letters -> number (A = 1), remembered in ``known``."""
    from openpyxl.utils.cell import column_index_from_string

    def index(letters: bytes) -> int:
        n = known.get(letters)
        if n is None:
            n = known[letters] = column_index_from_string(letters.decode("ascii"))
        return n
    return index


def _padded(parsed, max_col, max_row) -> list[tuple]:
    """openpyxl's ``ReadOnlyWorksheet._cells_by_row(1, 1, max_col, max_row, True)`` over
    the parsed rows (row number, [(column, value)]): rows missing before a row are
    empty, a row out of order or repeated is dropped, each row is as wide as the
    dimension (or as its last cell, without one)."""
    out: list[tuple] = []
    empty_row = () if max_col is None else (None,) * max_col
    counter, idx = 1, 1
    for idx, cells in parsed:
        if max_row is not None and idx > max_row:
            break
        if idx > counter:
            out += [empty_row] * (idx - counter)
            counter = idx
        if counter <= idx:  # (with the dimension, the row was filled as it was read)
            out.append(_get_row(cells, max_col) if max_col is None else tuple(cells))
            counter += 1
    if max_row is not None and max_row < idx:
        out += [empty_row] * max(0, max_row + 1 - counter)
    return out


def _get_row(cells, max_col) -> tuple:
    """openpyxl's ``ReadOnlyWorksheet._get_row(row, 1, max_col, values_only=True)``."""
    if not cells and not max_col:
        return ()
    width = max_col or cells[-1][0]
    row = [None] * width
    for column, value in cells:
        if 1 <= column <= width:
            row[column - 1] = value
    return tuple(row)

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

``fill`` does not even read its plan's two big parts: the engine hands it what its writer
was given for them (``calc(..., written=...)``), and :func:`_written_rows` makes from
that the rows the written part reads back as -- the part as read with the updated
formula cells cut out, read as above, and each updated cell's value what this reader
reads of the text the writer writes for it (``tests/test_fill_readback_written.py``:
the same rows as the file's, by this reader and by openpyxl, on plans of several
shapes; under ``ZVMPLAN_ENGINE_CHECK`` :func:`~.results.read` reads the file too and
compares).
"""
from __future__ import annotations

import contextlib
import gc
import re
import zipfile

import numpy as np

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


def sheet_rows(path, names, written: dict | None = None) -> dict[str, list[tuple]] | None:
    """Sheet name -> its rows as ``[tuple(r) for r in ws.iter_rows(values_only=True)]``
    of openpyxl's read-only, data-only workbook, for each of ``names`` the workbook has
    (a name it has not is left out); None when any part holds what this reader does
    not know (then read the file with openpyxl). ``written``: sheet name ->
    :class:`~zvmplan_addin.recalc.write.WrittenPart`, what the engine's writer was given
    for that sheet of ``path`` (``calc(..., written=...)``): its rows are then made from
    it (:func:`_written_rows`) instead of inflating and reading the part (and read from
    the part if that does not know it)."""
    try:
        with zipfile.ZipFile(path) as z, _no_gc():
            return _read(z, names, written or {})
    except (_Unknown, KeyError, ValueError, IndexError, TypeError, zipfile.BadZipFile,
            OSError, UnicodeDecodeError):
        return None


@contextlib.contextmanager
def _no_gc():
    """The cyclic garbage collector paused while the rows are made: they hold no cycles,
    and a collection would otherwise scan everything the process holds again and again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _worksheets(z: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> zip path of its part, for the sheets whose relationship is a
    worksheet's (as :func:`.rows.sheet_paths` finds them)."""
    from defusedxml import ElementTree
    from .xlsxio import NS_MAIN, NS_PKG_REL, NS_REL
    rels = ElementTree.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    target = {r.get("Id"): (r.get("Type") or "", r.get("Target") or "")
              for r in rels.iter(f"{{{NS_PKG_REL}}}Relationship")}
    out = {}
    for sh in ElementTree.fromstring(z.read("xl/workbook.xml")).iter(f"{{{NS_MAIN}}}sheet"):
        kind, t = target[sh.get(f"{{{NS_REL}}}id")]
        if not kind.endswith("/relationships/worksheet"):
            raise _Unknown("a sheet that is not a worksheet part")
        t = t.lstrip("/")
        out[sh.get("name")] = t if t.startswith("xl/") else "xl/" + t
    return out


def _read(z: zipfile.ZipFile, names, written: dict) -> dict[str, list[tuple]]:
    paths = _worksheets(z)
    types = z.read("[Content_Types].xml").decode("utf-8")
    strings_at = re.findall(r'PartName="/([^"]+)"\s+ContentType="' + re.escape(SHARED_STRINGS)
                            + '"', types)
    if types.count(SHARED_STRINGS) != len(strings_at) or len(strings_at) > 1:
        raise _Unknown("shared strings declared in another form")
    strings = _shared_strings(z.read(strings_at[0]), strings_at[0]) if strings_at else []
    dates = date_styles(z.read("xl/styles.xml"))
    out = {}
    for name in names:
        if name not in paths:
            continue
        part = written.get(name)
        if part is None:
            out[name] = _rows(z.read(paths[name]), strings, dates)
        elif part.part.lstrip("/") != paths[name]:
            raise _Unknown("the engine wrote that sheet to another part")
        elif part.updates is None:  # written as it was read
            out[name] = _rows(part.data, strings, dates)
        else:
            try:
                out[name] = _written_rows(part, strings, dates)
            except _Unknown:  # read from the file, as without it
                out[name] = _rows(z.read(paths[name]), strings, dates)
    return out


def _text(raw: bytes) -> str:
    """A ``<v>`` or ``<t>`` text as the XML parser gives it."""
    if b"\r" in raw:
        raise _Unknown("a carriage return (the XML parser makes it a line feed)")
    if b"&" in raw:
        if raw.count(b"&") != len(_ENTITY.findall(raw)):
            raise _Unknown("a character reference")
        raw = _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], raw)
    return raw.decode("utf-8")


def _shared_strings(data: bytes, name: str) -> list[str]:
    """The shared string table as openpyxl's ``read_string_table`` reads it. Read by the
    engine's own reader (:func:`~zvmplan_addin.xlsx.sheet.read_shared_strings`, the text
    of each ``<si>``'s runs, phonetic runs left out), which reads ``_xHHHH_`` escapes as
    Excel does where openpyxl keeps them (dropping only ``x005F_``): a table holding
    ``_x`` anywhere is left to openpyxl (None from :func:`sheet_rows`)."""
    if b"_x" in data:
        raise _Unknown("an _xHHHH_ escape in the shared strings")
    if not _SST.match(data):  # openpyxl reads the transitional namespace only
        raise _Unknown("shared strings in another namespace or form")
    from zvmplan_addin.xlsx.sheet import read_shared_strings
    return read_shared_strings(data, name)


_SST = re.compile(rb'(?:<\?xml[^>]*\?>\s*)?<sst\b[^>]*\sxmlns="' + re.escape(MAIN_NS) + rb'"')
#: built-in number formats that are dates or times in some locale (ECMA-376 18.8.30:
#: 14-22 and 45-47; 27-36 and 50-58 are the East Asian locales' dates)
_BUILTIN_DATE_IDS = frozenset([*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)])
_QUOTED = re.compile(r'"[^"]*"')
_DATE_LETTER = re.compile(r"[dmhysDMHYS]")
_STYLE_TAG = re.compile(rb"<(/?)(?:[A-Za-z_][\w.-]*:)?(numFmts?|cellXfs|xf)\b([^>]*?)(/?)>")
_ATTR = re.compile(rb'\b(numFmtId|formatCode)="([^"]*)"')


def date_styles(styles: bytes) -> set[int]:
    """The indexes of ``styles.xml``'s cell formats (``<cellXfs>``) whose number format
    openpyxl reads as a date or a time (``Stylesheet.date_formats`` and
    ``timedelta_formats``), or more: a built-in date id of any locale, or a custom code
    with a date or time letter (``d m h y s``) anywhere but in a quoted literal, in any
    section (openpyxl looks at the first only, and leaves out bracketed and escaped
    letters too). A cell counted here that openpyxl does not count is only read by
    openpyxl instead (:func:`_value`); one openpyxl counts is never left out."""
    from zvmplan_addin.xlsx.sheet import _unescaped  # XML's references read, as expat does
    if b"<!--" in styles or b"<![CDATA[" in styles:
        raise _Unknown("a comment or CDATA in the styles")
    custom, ids, in_xfs, in_fmts = {}, [], False, False
    for m in _STYLE_TAG.finditer(styles):
        closing, tag, attrs, empty = m.groups()
        if tag == b"cellXfs":
            in_xfs = not closing and not empty
            continue
        if tag == b"numFmts":  # (a differential format's own numFmt is not one of them)
            in_fmts = not closing and not empty
            continue
        got = dict(_ATTR.findall(attrs))
        if tag == b"numFmt" and in_fmts and not closing:
            custom[int(got[b"numFmtId"])] = _unescaped(got.get(b"formatCode", b"").decode())
        elif tag == b"xf" and in_xfs and not closing:
            ids.append(int(got.get(b"numFmtId", b"0")))
    out = set()
    for k, fmt in enumerate(ids):
        if fmt in custom:
            if _DATE_LETTER.search(_QUOTED.sub("", custom[fmt])):
                out.add(k)
        elif fmt in _BUILTIN_DATE_IDS:
            out.add(k)
    return out


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
    return _padded(*_parse(part, strings, dates))


_CORNER = re.compile(rb"([A-Z]{1,3})([0-9]+)")


def _dimension_end(ref: bytes) -> tuple[int, int]:
    """The last column and row of a ``<dimension ref="A1:C6">`` (or of ``"C6"``), as
    openpyxl's ``range_boundaries`` gives them; a range whose first corner is not above
    and left of its last, or a row 0, is left to openpyxl."""
    from zvmplan_addin.xlsx.cells import col_number
    corners = [(col_number(m.group(1).decode("ascii")), int(m.group(2)))
               for m in map(_CORNER.fullmatch, ref.split(b":"))]
    (c0, r0), (c1, r1) = corners[0], corners[-1]
    if c0 > c1 or r0 > r1 or r0 < 1:
        raise _Unknown("a dimension in another form")
    return c1, r1


def _parse(part: bytes, strings, dates, taken: list | None = None):
    """(the rows of ``part`` as read: (row number, values), the dimension's last column
    and row or None): with the dimension, each row's values are a list as wide as it.
    ``taken``: the (row's index << 16 | column) of every value put in such a list, then
    the value, are appended to it."""
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
        max_col, max_row = _dimension_end(dims[0])
    if _ROW_TAG.search(part, stop):
        raise _Unknown("a row after <sheetData>")
    parsed: list[tuple[int, list]] = []
    cells = None
    known: dict[bytes, int] = {}  # column letters -> number, filled by index()
    index = _column_index(known)
    numeric: dict[bytes, bool] = {}  # cell format -> a number in it is read as a number
    width = max_col
    row_at = 0  # the current row's index << 16
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
            elif t == b"inlineStr" and inline and b"&" not in inline and b"\r" not in inline:
                value = inline[inline.index(b">") + 1:].decode("utf-8")  # as _value
            else:
                value = _value(t, v, inline, s, strings, dates)
            k = known.get(col) or index(col)
            if width is None:
                cells.append((k, value))
            elif k <= width:  # as _get_row: a cell beyond the dimension is not read
                cells[k - 1] = value
                if taken is not None:
                    taken.append(row_at | k)
                    taken.append(value)
        elif row:
            if cells is not None:
                raise _Unknown("a row inside a row")
            row_at = len(parsed) << 16
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
    return parsed, max_col, max_row


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
    from zvmplan_addin.xlsx.cells import col_number

    def index(letters: bytes) -> int:  # (letters: 1 to 3 of A-Z, as _TOKEN reads them)
        n = known.get(letters)
        if n is None:
            n = known[letters] = col_number(letters.decode("ascii"))
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


# ------------------------------------------------- the engine's written part ----
#: a row's start tag (``empty``: self-closed) or end, as :data:`_TOKEN` reads them
_ROW_MARK = re.compile(rb'<row r="(?P<row>[0-9]+)"(?: [^<>]*?)?(?P<empty>/?)>|</row>')


def _written_rows(written, strings, dates) -> list[tuple]:
    """The rows of a sheet part as the engine's writer writes it, from what the writer
    was given (``written``: the part as read, the values cached, the layout of its
    formula cells), without reading the written part: the rows :func:`_rows` reads
    from the file.

    The writer (:func:`~zvmplan_addin.xlsx.splice.splice_blocks`) changes only the
    updated formula cells -- each one's ``<v>`` and ``t`` -- and the ``<dimension>``;
    every other byte is the part as read. So the part as read, with the dimension
    written and the updated cells cut out, is read by :func:`_parse` (the cells that
    are not formulas, and formulas not updated: the file's own bytes), and each
    updated cell's value is what :func:`_value` reads of the ``t`` and ``<v>`` text
    :func:`~zvmplan_addin.xlsx.encode_value` writes for it (:func:`_cached_as_read`),
    put in the row that encloses it. Anything else -- an update the splice would not
    write, a cell whose ``r`` is not its noted column or whose row is not its enclosing
    row's, a formula cell and another cell in one place, a number format of a date
    anywhere, no dimension -- raises :class:`_Unknown` (the caller reads the file)."""
    from zvmplan_addin.xlsx import CellValues
    from zvmplan_addin.xlsx.bulksheet import starts_with
    from zvmplan_addin.xlsx.splice import LAYOUT_DTYPE, match_cells, written_head
    data, updates, layout = written.data, written.updates, written.layout
    if dates:
        raise _Unknown("a number format of a date: the formula cells' formats not read")
    if layout is None or layout.size != len(data) or layout.prefix:
        raise _Unknown("no layout of the part as read")
    if not isinstance(updates, CellValues):
        updates = CellValues.from_dict(updates)
        if updates is None:
            raise _Unknown("an array formula")
    found = match_cells(data, updates, layout)
    if found is None:
        raise _Unknown("updates the splice does not write")
    c0, _, v1, _, values = found
    head = written_head(data, updates, layout, int(c0[0]))
    if head is None:
        raise _Unknown("a dimension the splice does not write")
    pieces, pos = head
    end = v1 + 4                                    # each cell ends with its </c>
    if not starts_with(data, v1, b"</c>"):
        raise _Unknown("a formula cell with more than its <f> and <v>")
    rec = np.frombuffer(layout.cells, dtype=LAYOUT_DTYPE)
    at = np.minimum(np.searchsorted(rec["c0"], c0), len(rec) - 1)
    if np.any(rec["c0"][at] != c0):
        raise _Unknown("a cell the layout did not note")   # pragma: no cover - matched
    row_of, col_of = rec["r"][at].astype(np.int64), rec["c"][at].astype(np.int64)
    _check_columns(data, c0, col_of)
    # the part with the updated cells cut out: the runs between them kept
    run_start = np.concatenate(([pos], end))
    run_stop = np.concatenate((c0, [len(data)]))
    lengths = run_stop - run_start
    kept = lengths > 0
    pieces += map(data.__getitem__, map(slice, run_start[kept].tolist(),
                                        run_stop[kept].tolist()))
    cut = b"".join(pieces)
    where = len(cut) - int(lengths.sum()) + np.cumsum(lengths)[:-1]  # each cell's place
    del pieces
    taken: list = []
    parsed, max_col, max_row = _parse(cut, strings, dates, taken)
    if max_col is None:
        raise _Unknown("no dimension")
    row_index = _enclosing_rows(cut, where, parsed)
    if np.any(np.array([r for r, _ in parsed], dtype=np.int64)[row_index] != row_of):
        raise _Unknown("a formula cell noted in another row than its enclosing row's")
    inside = col_of <= max_col                      # as _get_row: beyond it, not read
    width = max_col
    if len(parsed) * width > 4 * (len(c0) + len(taken)) + (1 << 20):
        raise _Unknown("a dimension far beyond the cells")  # (read as before, no arrays)
    place = row_index[inside] * width + col_of[inside] - 1
    taken_at = np.array(taken[::2], dtype=np.int64)
    taken_at = (taken_at >> 16) * width + (taken_at & 0xFFFF) - 1
    used = np.zeros(len(parsed) * width, dtype=bool)
    used[taken_at] = True
    if used[place].any() or np.any(taken_at[1:] <= taken_at[:-1]) or not (
            np.all(place[1:] > place[:-1]) or len(np.unique(place)) == len(place)):
        raise _Unknown("two cells in one place")
    flat = np.empty(len(parsed) * width, dtype=object)   # None but where a value is
    constants = np.empty(len(taken_at), dtype=object)
    constants[:] = taken[1::2]
    flat[taken_at] = constants
    flat[place] = _cached_as_read(values, strings, dates)[inside]
    grid = map(tuple, flat.reshape(len(parsed), width).tolist()) if parsed else ()
    return _padded([(r, cells) for (r, _), cells in zip(parsed, grid)], max_col, max_row)


def _check_columns(data: bytes, c0, col_of) -> None:
    """Each cell at ``c0`` starts ``<c r="`` then the letters of its noted column and a
    digit (the column openpyxl takes from ``r`` is the one the engine noted)."""
    from zvmplan_addin.xlsx.bulksheet import byte_words, starts_with
    from zvmplan_addin.xlsx.cells import col_letters
    lead = b'<c r="'
    if not starts_with(data, c0, lead):
        raise _Unknown("a formula cell without its r first")
    spelled = np.zeros(int(col_of.max()) + 1, dtype=np.uint64)  # by column: its letters
    size = np.zeros(len(spelled), dtype=np.int64)
    for c in np.flatnonzero(np.bincount(col_of)).tolist():
        if not 1 <= c <= 18278:  # (A to ZZZ: openpyxl's columns)
            raise _Unknown("a column outside A:ZZZ")
        letters = col_letters(c).encode("ascii")
        spelled[c], size[c] = int.from_bytes(letters, "little"), len(letters)
    words = byte_words(data, 4)             # the letters and the digit after them
    at = c0 + len(lead)
    if int(at.max()) >= len(words):
        raise _Unknown("a formula cell cut short")
    got = words[at].astype(np.uint64)
    n = size[col_of].astype(np.uint64)
    letters = got & ((np.uint64(1) << (np.uint64(8) * n)) - np.uint64(1))
    digit = (got >> (np.uint64(8) * n)) & np.uint64(0xFF)
    if np.any(letters != spelled[col_of]) or np.any(digit < ord("0")) or \
            np.any(digit > ord("9")):
        raise _Unknown("a formula cell whose r is not its noted column")


def _enclosing_rows(cut: bytes, where, parsed) -> np.ndarray:
    """The index in ``parsed`` of the row enclosing each place ``where`` of ``cut``
    (the rows :func:`_parse` read from it, found again with their offsets)."""
    opens, closes, numbers = [], [], []
    for m in _ROW_MARK.finditer(cut):
        if m.group(1) is None:
            closes.append(m.start())
        else:
            opens.append(m.end())
            numbers.append(int(m.group(1)))
            if m.group(2):  # self-closed: nothing lies inside it
                closes.append(m.start())
    if numbers != [r for r, _ in parsed] or len(closes) != len(opens):
        raise _Unknown("rows not found again")      # pragma: no cover - parsed them
    opens_a, closes_a = np.array(opens, np.int64), np.array(closes, np.int64)
    index = np.searchsorted(opens_a, where, side="right") - 1
    if np.any(index < 0) or np.any(where > closes_a[np.maximum(index, 0)]):
        raise _Unknown("a formula cell outside a row")
    return index


def _cached_as_read(values, strings, dates) -> np.ndarray:
    """What :func:`_value` reads of each cached value as the writer writes it
    (:func:`~zvmplan_addin.xlsx.encode_value`'s ``t`` and ``<v>`` text): a float is
    written as its ``repr``, which reads back as the same float (one without a finite
    value raises :class:`_Unknown`, as :func:`_value` does on its text); any other value
    is written and read once per distinct value."""
    from zvmplan_addin.xlsx import XlError
    listed = values.tolist()
    out = np.empty(len(listed), dtype=object)
    kinds = np.fromiter(map(type, listed), dtype=object, count=len(listed))
    for kind in set(kinds.tolist()):
        mine = np.equal(kinds, kind).astype(bool)
        if kind is float:
            floats = values[mine]
            if not np.isfinite(np.asarray(floats, dtype=np.float64)).all():
                raise _Unknown("a number that is not finite")
            out[mine] = floats
            continue
        chosen = values[mine].tolist()
        if kind in (str, bool, XlError):    # equal values of one of these: the same text
            read = dict.fromkeys(chosen)
            for value in read:
                read[value] = _written_read(value, strings, dates)
            chosen = list(map(read.__getitem__, chosen))
        else:
            chosen = [_written_read(value, strings, dates) for value in chosen]
        got = np.empty(len(chosen), dtype=object)
        got[:] = chosen
        out[mine] = got
    return out


def _written_read(value, strings, dates):
    """:func:`_value` of the ``t`` and ``<v>`` text the writer writes for ``value``."""
    from zvmplan_addin.xlsx import encode_value
    t, text = encode_value(value)
    return _value((t or "").encode(), text.encode("utf-8"), b"", b"", strings, dates)

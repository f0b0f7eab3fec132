"""The template's zip-level needs, on the shared xlsx layer (:mod:`zvmplan_addin.xlsx`):
reproducible builds (fixed timestamps) and writing values into a template's input cells,
without openpyxl's load/save round trip (which drops charts).

Every template is opened with :func:`~zvmplan_addin.xlsx.safe_open_xlsx`, so a template
given to ``zvmplan fill`` passes the same guards as a workbook given to ``calc`` (zip
bombs, truncated files, legacy .xls, DTDs: one-line refusals), and is read with the same
defused XML parser; worksheets are found through the workbook relationships, cells by
their A1 reference, strings are written inline.
"""
from __future__ import annotations

import bisect
import datetime as dt
import zipfile

from zvmplan_addin.xlsx import safe_open_xlsx
from zvmplan_addin.xlsx import write_zip as _write_zip
from zvmplan_addin.xlsx import xml as xmlparse
from zvmplan_addin.xlsx.sheet import REL_WORKSHEET, _read_book_part

NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NS_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"


def escape(text: str) -> str:
    """``text`` with XML's markup characters written as references (``&`` ``<`` ``>``),
    as ``xml.sax.saxutils.escape`` writes them; that module imports ``urllib.request``
    (with http, email and ssl: ~15 ms of every ``calc`` of a plan, which reads this
    module)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def read_zip(path) -> list[tuple[zipfile.ZipInfo, bytes]]:
    """Every part of the package at ``path`` (checked and inflated under the caps)."""
    with safe_open_xlsx(path) as pkg:
        return [(info, pkg.read(info.filename)) for info in pkg.zip.infolist()]


def write_zip(path, entries: list[tuple[str, bytes]], when: dt.datetime):
    """Write ``entries`` atomically with one fixed timestamp (reproducible bytes)."""
    _write_zip(path, entries, when)


def normalize(path, when: dt.datetime):
    """Fix document timestamps and zip entry times so rebuilding gives the same bytes."""
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    entries = []
    for info, data in read_zip(path):
        if info.filename == "docProps/core.xml":
            edits = [(start, stop, tag) for loc, _, start, stop, tag in xmlparse.elements(
                data, info.filename, {"created", "modified"})]
            out, pos = [], 0
            for start, stop, tag in edits:
                qname = tag.group(1)
                head = b"<" + qname + tag.group(2) + b">"
                out += [data[pos:start], head, stamp, b"</" + qname + b">"]
                pos = stop
            data = b"".join(out) + data[pos:]
        entries.append((info.filename, data))
    write_zip(path, entries, when)


# ------------------------------------------------------------ sheet lookup ----
def _sheet_paths(pkg) -> dict[str, str]:
    """Sheet name -> part name of its worksheet."""
    rels = {rid: (rtype, target) for rid, rtype, target in pkg.rels(pkg.main)}
    out = {}
    for name, rid in _read_book_part(pkg.read(pkg.main), pkg.main)["sheets"]:
        rtype, target = rels.get(rid, ("", ""))
        if rtype.endswith(REL_WORKSHEET):
            out[name] = target
    return out


def unlocked_styles(styles: bytes) -> set[int]:
    """Indexes of the cell formats (``cellXfs``) whose protection leaves the cell unlocked."""
    found = xmlparse.elements(styles, "xl/styles.xml", {"cellXfs", "xf", "protection"})
    boxes = [(start, stop) for loc, _, start, stop, _ in found if loc == "cellXfs"]
    if not boxes:
        return set()
    lo, hi = boxes[0]
    xfs = [(start, stop) for loc, _, start, stop, _ in found if loc == "xf" and lo < start < hi]
    unlocked = set()
    for loc, attrs, start, _, _ in found:
        if loc == "protection" and attrs.get("locked") in ("0", "false"):
            for i, (a, b) in enumerate(xfs):
                if a < start < b:
                    unlocked.add(i)
    return unlocked


# ------------------------------------------------------------- cell write ----
class NotAnInputCell(ValueError):
    """The template cell is locked (an output or a label), or missing."""


def set_cells(sheet_xml: bytes, values: dict[str, object], unlocked: set[int],
              name: str = "sheet") -> bytes:
    """Write ``values`` (A1 ref -> str / number / None) into existing unlocked cells.

    Each cell keeps its style; a string is written inline, a number as a number, None
    empties the cell. A ref that is not an unlocked cell of the sheet raises
    :class:`NotAnInputCell`: the template's inputs are its unlocked cells.
    """
    found = xmlparse.elements(sheet_xml, name, {"c", "f"})
    formula_at = sorted(start for loc, _, start, _, _ in found if loc == "f")
    cells = {}
    for loc, attrs, start, stop, _ in found:
        if loc == "c" and attrs.get("r"):
            cells[attrs["r"]] = (attrs, start, stop)
    edits = []
    for ref, value in values.items():
        if ref not in cells:
            raise NotAnInputCell(f"cell {ref} is not an input cell of the template")
        attrs, start, stop = cells[ref]
        style = attrs.get("s", "0")
        s = int(style) if style.isdigit() else -1
        k = bisect.bisect_right(formula_at, start)  # the first <f> after the cell's start
        if s not in unlocked or (k < len(formula_at) and formula_at[k] < stop):
            raise NotAnInputCell(f"cell {ref} is not an input cell of the template")
        edits.append((start, stop, cell_xml(ref, s, value).encode("utf-8")))
    edits.sort()
    out, pos = [], 0
    for start, stop, new in edits:
        out += [sheet_xml[pos:start], new]
        pos = stop
    out.append(sheet_xml[pos:])
    return b"".join(out)


def cell_xml(ref: str, style: int, value) -> str:
    """The XML of input cell ``ref`` holding ``value`` (str / number / None: empty) in
    cell format ``style``: a number as a number, a string inline."""
    if value is None or value == "":
        return f'<c r="{ref}" s="{style}"/>'
    if isinstance(value, bool):
        raise TypeError("booleans are not written")
    if isinstance(value, (int, float)):
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            value = int(value)
        return f'<c r="{ref}" s="{style}"><v>{value!r}</v></c>'
    text = escape(str(value))
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f'<c r="{ref}" s="{style}" t="inlineStr"><is><t{space}>{text}</t></is></c>'


#: the timestamp of every part of a filled workbook's zip (reproducible bytes)
WHEN = dt.datetime(2024, 1, 1)


def write_inputs(template, out, cells: dict[str, dict[str, object]],
                 when: dt.datetime | None = None, prepare=None):
    """Copy ``template`` to ``out`` with ``cells`` (sheet -> {ref: value}) written into its
    input cells (:func:`input_parts`); every other byte of every other part is copied
    unchanged."""
    write_zip(out, input_parts(template, cells, prepare), when or WHEN)


def input_parts(template, cells: dict[str, dict[str, object]],
                prepare=None) -> list[tuple[str, bytes]]:
    """The parts (zip path, bytes, in the template's order) of ``template`` with ``cells``
    (sheet -> {ref: value}) written into its input cells; every other byte of every
    other part unchanged. The template passes the same guards as any workbook zvmplan
    reads. ``prepare(entries)``, if given, may then change the unpacked parts (zip path
    -> bytes) in place, e.g. add table rows (after the cells are written: they are found
    and checked in the template's own parts, which are small)."""
    with safe_open_xlsx(template) as pkg:
        raw = [(info, pkg.read(info.filename)) for info in pkg.zip.infolist()]
        paths = _sheet_paths(pkg)
        styles = next((t for _, rtype, t in pkg.rels(pkg.main) if rtype.endswith("/styles")),
                      None)
        unlocked = unlocked_styles(pkg.read(styles)) if styles in pkg.infos else set()
    entries = {info.filename: data for info, data in raw}
    names = [info.filename for info, _ in raw]
    del raw
    for sheet, values in cells.items():
        if sheet not in paths:
            raise NotAnInputCell(f"the template has no sheet {sheet!r}")
        p = paths[sheet]
        entries[p] = set_cells(entries[p], values, unlocked, p)
    if prepare is not None:
        prepare(entries)
    return [(name, entries[name]) for name in names]

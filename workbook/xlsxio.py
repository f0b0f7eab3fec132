"""Zip-level reading and writing of .xlsx files, without openpyxl's load/save round trip
(which drops charts): fixed timestamps for reproducible builds, and writing values into
existing input cells of a template.

Only what the template needs: worksheets are found through the workbook relationships,
cells are addressed by their A1 reference, strings are written inline.
"""
from __future__ import annotations

import datetime as dt
import os
import re
import tempfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NS_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"


def read_zip(path) -> list[tuple[zipfile.ZipInfo, bytes]]:
    with zipfile.ZipFile(path) as z:
        return [(info, z.read(info.filename)) for info in z.infolist()]


def write_zip(path, entries: list[tuple[str, bytes]], when: dt.datetime):
    """Write ``entries`` atomically with one fixed timestamp (reproducible bytes)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(suffix=".xlsx", dir=path.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in entries:
                info = zipfile.ZipInfo(name, date_time=when.timetuple()[:6])
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                z.writestr(info, data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def normalize(path, when: dt.datetime):
    """Fix document timestamps and zip entry times so rebuilding gives the same bytes."""
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    entries = []
    for info, data in read_zip(path):
        if info.filename == "docProps/core.xml":
            text = data.decode("utf-8")
            for tag in ("dcterms:created", "dcterms:modified"):
                text = re.sub(rf"(<{tag}[^>]*>)[^<]*(</{tag}>)", rf"\g<1>{stamp}\g<2>", text)
            data = text.encode("utf-8")
        entries.append((info.filename, data))
    write_zip(path, entries, when)


# ------------------------------------------------------------ sheet lookup ----
def sheet_paths(entries: dict[str, bytes]) -> dict[str, str]:
    """Sheet name -> zip path of its worksheet XML."""
    wb = entries["xl/workbook.xml"].decode("utf-8")
    rels = entries["xl/_rels/workbook.xml.rels"].decode("utf-8")
    targets = {m.group("id"): m.group("target") for m in re.finditer(
        r'<Relationship\b(?=[^>]*\bId="(?P<id>[^"]+)")(?=[^>]*\bTarget="(?P<target>[^"]+)")[^>]*/?>',
        rels)}
    out = {}
    for m in re.finditer(r"<sheet\b[^>]*/>", wb):
        tag = m.group(0)
        name = re.search(r'\bname="([^"]*)"', tag).group(1)
        rid = re.search(r'\br:id="([^"]*)"', tag) or re.search(r'\bid="([^"]*)"', tag)
        target = targets[rid.group(1)]
        target = target.lstrip("/")
        if not target.startswith("xl/"):
            target = "xl/" + target
        out[_unescape(name)] = target
    return out


def _unescape(text: str) -> str:
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
            .replace("&apos;", "'").replace("&amp;", "&"))


def unlocked_styles(entries: dict[str, bytes]) -> set[int]:
    """Indexes of the cell formats (cellXfs) whose protection leaves the cell unlocked."""
    styles = entries["xl/styles.xml"].decode("utf-8")
    m = re.search(r"<cellXfs\b[^>]*>(.*?)</cellXfs>", styles, re.S)
    xfs = re.findall(r"<xf\b[^>]*?(?:/>|>.*?</xf>)", m.group(1), re.S)
    return {i for i, xf in enumerate(xfs) if re.search(r'<protection\b[^>]*locked="0"', xf)}


# ------------------------------------------------------------- cell write ----
_CELL = re.compile(r'<c\b[^>]*\br="(?P<ref>[A-Z]+[0-9]+)"[^>]*?(?:/>|>.*?</c>)', re.S)


def _col_index(col: str) -> int:
    n = 0
    for ch in col:
        n = n * 26 + ord(ch) - 64
    return n


def _split(ref: str) -> tuple[str, int]:
    m = re.fullmatch(r"([A-Z]+)([0-9]+)", ref)
    return m.group(1), int(m.group(2))


class NotAnInputCell(ValueError):
    """The template cell is locked (an output or a label), or missing."""


def set_cells(sheet_xml: str, values: dict[str, object], unlocked: set[int]) -> str:
    """Write ``values`` (A1 ref -> str / number / None) into existing unlocked cells.

    Each cell keeps its style; a string is written inline, a number as a number, None
    empties the cell. A ref that is not an unlocked cell of the sheet raises
    :class:`NotAnInputCell`: the template's inputs are its unlocked cells.
    """
    found = {}
    for m in _CELL.finditer(sheet_xml):
        found[m.group("ref")] = m
    pieces, pos = [], 0
    for ref in sorted(values, key=lambda r: found[r].start() if r in found else -1):
        if ref not in found:
            raise NotAnInputCell(f"cell {ref} is not an input cell of the template")
        m = found[ref]
        tag = m.group(0)
        style = re.search(r'\bs="([0-9]+)"', tag)
        s = int(style.group(1)) if style else 0
        if s not in unlocked or "<f>" in tag or "<f " in tag:
            raise NotAnInputCell(f"cell {ref} is not an input cell of the template")
        pieces.append(sheet_xml[pos:m.start()])
        pieces.append(_cell_xml(ref, s, values[ref]))
        pos = m.end()
    pieces.append(sheet_xml[pos:])
    return "".join(pieces)


def _cell_xml(ref: str, style: int, value) -> str:
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


def write_inputs(template, out, cells: dict[str, dict[str, object]], when: dt.datetime | None = None):
    """Copy ``template`` to ``out`` with ``cells`` (sheet -> {ref: value}) written into its
    input cells; every other byte of every other part is copied unchanged."""
    raw = read_zip(template)
    entries = {info.filename: data for info, data in raw}
    paths = sheet_paths(entries)
    unlocked = unlocked_styles(entries)
    for sheet, values in cells.items():
        if sheet not in paths:
            raise NotAnInputCell(f"the template has no sheet {sheet!r}")
        p = paths[sheet]
        entries[p] = set_cells(entries[p].decode("utf-8"), values, unlocked).encode("utf-8")
    when = when or dt.datetime(2024, 1, 1)
    write_zip(out, [(info.filename, entries[info.filename]) for info, _ in raw], when)

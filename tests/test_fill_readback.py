"""The fast read-back of a filled plan (:mod:`zvmplan_workbook.readback`) gives the rows
openpyxl gives, value for value and type for type, on real plans, and gives way to
openpyxl on anything it does not know (then :func:`results.read` is openpyxl's)."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from builders import openpyxl_rows, same_rows as same
from zvmplan_workbook import fill, readback, results
from zvmplan_workbook.rows import sheet_paths

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def plans(tmp_path_factory):
    """Plans filled by ``fill``: the example with its scenarios, and links whose names
    hold what XML escapes, spaces at the ends and letters beyond ASCII, without."""
    tmp = tmp_path_factory.mktemp("readback")
    odd = tmp / "odd.csv"
    rows = (EXAMPLES / "links.csv").read_text(encoding="utf-8").splitlines()
    names = ['a & b <c> "d" \'e\'', "  padded  ", "Zürich→Genève 漢字 😀", "=1+2", "#N/A",
             "x]]>y", "tab\u00a0nbsp"]
    body = [f'"{n}",{r.split(",", 1)[1]}' if '"' not in n else
            '"' + n.replace('"', '""') + '",' + r.split(",", 1)[1]
            for n, r in zip(names, rows[1:] * 3)]
    odd.write_text("\n".join([rows[0], *body]) + "\n", encoding="utf-8")
    out = {}
    for name, links, scen in (("example", EXAMPLES / "links.csv", EXAMPLES / "scenarios.toml"),
                              ("odd", odd, None)):
        path = tmp / f"{name}.xlsx"
        fill.fill(None, links, path, scen)
        out[name] = path
    return out


@pytest.mark.parametrize("name", ["example", "odd"])
def test_fast_rows_are_openpyxl_rows(plans, name):
    """Every sheet of a filled plan: the same tuples of the same values as openpyxl's
    read-only ``iter_rows(values_only=True)`` (numbers int or float as written, the
    formulas' text and errors as text, inline strings unescaped)."""
    slow = openpyxl_rows(plans[name])
    fast = readback.sheet_rows(plans[name], list(slow))
    assert fast is not None, "a plan fill writes is read by the fast reader"
    assert same(fast, slow)
    if name == "odd":  # the names came back as typed
        links = [r[0] for r in fast["Planner"][14:21]]
        assert links[0] == 'a & b <c> "d" \'e\'' and links[1] == "padded"  # csv strips
        assert links[2] == "Zürich→Genève 漢字 😀"


def test_results_read_is_the_same_either_way(plans):
    """results.read with the fast reader gives the Results openpyxl's rows give."""
    for path in plans.values():
        assert results.read(path, written=True) == results.read(path)


def test_fill_reads_back_without_openpyxl(plans, tmp_path, monkeypatch):
    """fill takes the fast path on its own plan: with openpyxl's load_workbook broken
    the answer is still read."""
    import openpyxl

    def refused(*a, **k):
        raise AssertionError("openpyxl read the plan")
    monkeypatch.setattr(openpyxl, "load_workbook", refused)
    rep = fill.fill(None, EXAMPLES / "links.csv", tmp_path / "p.xlsx")
    assert rep.results is not None and len(rep.results.links) == len(
        [ln for ln in (EXAMPLES / "links.csv").read_text().splitlines()[1:] if ln.strip()])


def _edit(src: Path, dst: Path, sheet: str, change) -> Path:
    """``src`` with sheet ``sheet``'s part passed through ``change(bytes) -> bytes``."""
    with zipfile.ZipFile(src) as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    part = sheet_paths(entries)[sheet]
    new = change(entries[part])
    assert new != entries[part], "the edit changed nothing"
    entries[part] = new
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return dst


def first(pattern: bytes, repl: bytes):
    return lambda b: re.sub(pattern, repl, b, count=1)


# what the fast reader does not read: each makes it give way to openpyxl
UNKNOWN = {
    "rich inline string": first(rb"<is><t>([^<]*)</t></is>",
                                rb"<is><r><t>\1</t></r><r><t>!</t></r></is>"),
    "character reference": first(rb"<is><t>Link</t></is>", rb"<is><t>Li&#110;k</t></is>"),
    "carriage return": first(rb"<is><t>Link</t></is>", b"<is><t>Li\r\nk</t></is>"),
    "comment": first(rb"</row>", rb"</row><!-- a note -->"),
    "another attribute": first(rb'<c r="([A-Z]+[0-9]+)" s="', rb'<c r="\1" cm="1" s="'),
    "attributes in another order": first(rb'<c r="([A-Z]+[0-9]+)" s="([0-9]+)" t="str"',
                                         rb'<c t="str" r="\1" s="\2"'),
    "a row without its number": first(rb'<row r="[0-9]+"', rb"<row"),
    "a CDATA value": first(rb"<v>MB/s</v>", rb"<v><![CDATA[MB/s]]></v>"),
    "a prefixed namespace": lambda b: b.replace(b"<c ", b"<x:c ").replace(b"</c>", b"</x:c>"),
    "an unknown type": first(rb't="str"(><f>[^<]*</f><v>[^<])', rb't="x"\1'),
}


@pytest.mark.parametrize("what", sorted(UNKNOWN))
def test_unknown_xml_gives_way_to_openpyxl(plans, tmp_path, what):
    """A Planner holding what the fast reader does not know: it returns None, and
    results.read(written=True) is what openpyxl reads (or fails as openpyxl fails)."""
    path = _edit(plans["example"], tmp_path / "edited.xlsx", "Planner", UNKNOWN[what])
    assert readback.sheet_rows(path, ["Planner", "Scenarios"]) is None
    try:
        want = results.read(path)
    except Exception as exc:  # openpyxl refuses it: so does the fast path's fallback
        with pytest.raises(type(exc)):
            results.read(path, written=True)
    else:
        assert results.read(path, written=True) == want


def test_a_number_in_a_date_format_gives_way(plans, tmp_path):
    """A number in a date format is a datetime to openpyxl: the fast reader gives way
    (openpyxl's own stylesheet says which cell formats are dates)."""
    with zipfile.ZipFile(plans["example"]) as z:
        part = z.read(sheet_paths({n: z.read(n) for n in (
            "xl/workbook.xml", "xl/_rels/workbook.xml.rels")})["Planner"])
    style = int(re.search(rb'<c r="[A-Z]+[0-9]+" s="([0-9]+)"><v>[0-9]+</v>', part).group(1))

    def dated(styles):  # that cell format's number format made a date (builtin 14)
        xfs = re.search(rb"<cellXfs[^>]*>(.*?)</cellXfs>", styles, re.S)
        xf = list(re.finditer(rb"<xf\b[^>]*?/?>", xfs.group(1)))[style]
        at = xfs.start(1) + xf.start()
        tag = re.sub(rb'numFmtId="[0-9]+"', b'numFmtId="14"', xf.group(0))
        if b"numFmtId" not in tag:
            tag = tag.replace(b"<xf ", b'<xf numFmtId="14" ')
        tag = tag.replace(b'applyNumberFormat="0"', b"") if b"applyNumberFormat" in tag else tag
        return styles[:at] + tag + styles[at + len(xf.group(0)):]
    path = _edit_part(plans["example"], tmp_path / "d.xlsx", "xl/styles.xml", dated)
    assert readback.sheet_rows(path, ["Planner"]) is None
    assert results.read(path, written=True) == results.read(path)


STYLES = (  # number formats openpyxl reads as dates or times, and some it does not
    b'<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    b'<numFmts count="6"><numFmt numFmtId="164" formatCode="0.00&quot;d&quot;"/>'
    b'<numFmt numFmtId="165" formatCode="[h]:mm"/><numFmt numFmtId="166" formatCode="yyyy\\-mm"/>'
    b'<numFmt numFmtId="167" formatCode="0.0;[Red]-0.0"/>'
    b'<numFmt numFmtId="168" formatCode="&#100;&#100;/mm"/><numFmt numFmtId="169" formatCode="0%"/>'
    b'</numFmts><cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs>'
    b'<cellXfs count="11"><xf numFmtId="0"/><xf numFmtId="14"><alignment/></xf>'
    b'<xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="166"/><xf numFmtId="167"/>'
    b'<xf numFmtId="168"/><xf numFmtId="169"/><xf numFmtId="22"/><xf numFmtId="4"/>'
    b'<xf/></cellXfs><dxfs count="1"><dxf><numFmt numFmtId="169" formatCode="yyyy"/></dxf>'
    b'</dxfs></styleSheet>')


def test_date_styles_hold_every_date_format_openpyxl_sees():
    """The cell formats whose numbers openpyxl reads as dates or times (built-in 14 and
    22, ``[h]:mm``, ``yyyy\\-mm``, a character reference spelling ``dd/mm``) are all
    counted; ``[Red]`` is counted too (a letter d: such a cell is only left to openpyxl);
    a quoted "d", a percentage, a plain number and a differential format's own
    ``numFmt`` (which is no cell format's) are not."""
    from openpyxl.styles.stylesheet import Stylesheet
    from openpyxl.xml.functions import fromstring
    sheet = Stylesheet.from_tree(fromstring(STYLES))
    theirs = set(sheet.date_formats) | set(sheet.timedelta_formats)
    assert theirs == {1, 3, 4, 6, 8}
    assert readback.date_styles(STYLES) == theirs | {5}


def test_shared_strings_as_openpyxl_reads_them():
    """Runs joined, phonetic runs left out, entities read: openpyxl's strings; a table
    with an ``_xHHHH_`` escape (openpyxl keeps it, Excel reads it) or in another
    namespace (Strict OOXML, which openpyxl does not read) is left to openpyxl."""
    from io import BytesIO
    from openpyxl.reader.strings import read_string_table
    ns = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    table = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst ' + ns +
             b' count="3"><si><t xml:space="preserve"> a &amp; b </t></si><si><r><t>x</t></r>'
             b'<r><rPr><b/></rPr><t>y</t></r><rPh sb="0" eb="1"><t>Z</t></rPh></si><si><t/></si></sst>')
    assert readback._shared_strings(table, "s") == read_string_table(BytesIO(table)) \
        == [" a & b ", "xy", ""]
    for other in (table.replace(b"<t>x</t>", b"<t>_x0041_</t>"),
                  table.replace(b"2006/main", b"2006/x")):
        with pytest.raises(readback._Unknown):
            readback._shared_strings(other, "s")


def _edit_part(src: Path, dst: Path, name: str, change) -> Path:
    """``src`` with the part ``name`` passed through ``change(bytes) -> bytes``."""
    with zipfile.ZipFile(src) as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    entries[name] = change(entries[name])
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in entries.items():
            z.writestr(n, data)
    return dst


SHAPES = {  # rows missing, out of order, repeated, beyond the dimension; no dimension
    "gaps": (b'<dimension ref="A1:C6"/>', b'<row r="2"><c r="B2"><v>1</v></c></row>'
             b'<row r="5"><c r="A5" t="str"><v>x</v></c><c r="C5"><v>2.5</v></c></row>'),
    "out of order": (b'<dimension ref="A1:B4"/>', b'<row r="3"><c r="A3"><v>3</v></c></row>'
                     b'<row r="1"><c r="A1"><v>1</v></c></row>'
                     b'<row r="3"><c r="B3"><v>4</v></c></row>'
                     b'<row r="4"><c r="B4" t="b"><v>1</v></c></row>'),
    "beyond": (b'<dimension ref="A1:B2"/>', b'<row r="1"><c r="A1"><v>1</v></c>'
               b'<c r="D1"><v>9</v></c></row><row r="3"><c r="A3"><v>3</v></c></row>'),
    "no dimension": (b"", b'<row r="2"><c r="C2"><v>1E+3</v></c><c r="A2"><v>-0</v></c></row>'
                     b'<row r="4"/><row r="6"><c r="B6" t="e"><v>#DIV/0!</v></c></row>'),
    "empty cells": (b'<dimension ref="A1:C2"/>', b'<row r="1" spans="1:3" ht="15">'
                    b'<c r="A1" t="inlineStr"/><c r="B1" t="str"><f>A1</f><v></v></c>'
                    b'<c r="C1" t="inlineStr"><is><t></t></is></c></row>'
                    b'<row r="2"><c r="A2" s="0" t="n" /><c r="B2"><v/></c></row>'),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_row_shapes_as_openpyxl(plans, tmp_path, shape):
    """openpyxl's read-only rows of odd sheets -- missing rows filled, a row out of
    order or repeated dropped, cells beyond the dimension cut, rows as wide as their
    last cell without one, empty values -- are the fast reader's."""
    dim, data = SHAPES[shape]

    def change(part):
        part = re.sub(rb"<dimension [^>]*/>", dim, part, count=1)
        return re.sub(rb"<sheetData>.*</sheetData>", b"<sheetData>" + data.replace(
            b"\\", b"\\\\") + b"</sheetData>", part, count=1, flags=re.S)
    path = _edit(plans["example"], tmp_path / "s.xlsx", "Upgrade", change)
    fast = readback.sheet_rows(path, ["Upgrade"])
    assert fast is not None
    assert same(fast, {"Upgrade": openpyxl_rows(path)["Upgrade"]})

"""Reading and rewriting sheet parts with the defused expat parser: what the reader
sees (and does not: comments, other namespaces' elements, phonetic runs), and the fast
splice at noted offsets giving the same bytes as the general scan."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given, settings, strategies as st

from zvmplan_addin.xlsx import CellUpdate, SheetData, XlError, read_sheet, rewrite_sheet
from zvmplan_addin.xlsx import rewrite as rw, splice
from zvmplan_addin.xlsx.cells import a1, parse_a1
from zvmplan_addin.xlsx.splice import splice_by_layout

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
HEAD = (f'<?xml version="1.0" encoding="UTF-8"?><x:worksheet xmlns:x="{NS}" '
        'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" '
        'mc:Ignorable="x14ac"><x:dimension ref="A1:C3"/><x:sheetData>')
TAIL = "</x:sheetData><x:extLst><x:ext><xm:f xmlns:xm=\"m\">A1</xm:f></x:ext></x:extLst></x:worksheet>"


def _read(xml: str, strings=("zero", "one")) -> SheetData:
    sheet = SheetData("S", "p")
    read_sheet(xml.encode(), sheet, list(strings))
    return sheet


def test_the_reader_takes_cells_only_from_sheet_data():
    """Prefixed names, comments that look like cells, CDATA, references, an inline string
    with a phonetic run, implied positions, and an <xm:f> outside sheetData."""
    xml = (HEAD + '<x:row r="1" x14ac:dyDescent="0.25"><x:c r="A1" t="s"><x:v>1</x:v></x:c>'
           '<!-- <x:c r="B1"><x:v>99</x:v></x:c> --><x:c r="B1"><x:f>A1&amp;"&lt;"</x:f>'
           '<x:v><![CDATA[one<]]></x:v></x:c><x:c t="inlineStr"><x:is><x:r><x:t>ab</x:t></x:r>'
           '<x:rPh><x:t>PH</x:t></x:rPh><x:t>_x0041_</x:t></x:is></x:c></x:row>'
           '<x:row><x:c><x:v> 2.5 </x:v></x:c><x:c t="e"><x:v>#N/A</x:v></x:c>'
           '<x:c t="b"><x:v>1</x:v></x:c><x:c t="str"><x:f t="shared" ref="D2:D3" si="0">'
           'A2*2</x:f><x:v>&#65;&#x42;</x:v></x:c></x:row>'
           '<x:row r="3"><x:c r="D3"><x:f t="shared" si="0"/><x:v/></x:c></x:row>' + TAIL)
    sheet = _read(xml)
    assert sheet.values == {(1, 1): "one", (1, 3): "abA", (2, 1): 2.5, (2, 2): XlError("#N/A"),
                            (2, 3): True}
    assert {k: (f.text, f.kind) for k, f in sheet.formulas.items()} == {
        (1, 2): ('A1&"<"', "plain"), (2, 4): ("A2*2", "shared"), (3, 4): ("A3*2", "shared")}
    assert sheet.cached == {(1, 2): "one<", (2, 4): "AB"}
    assert (sheet.max_row, sheet.max_col) == (3, 4)


def _scan_only(data: bytes, updates) -> bytes:
    """The general path, bypassing any noted layout."""
    return rw._rewrite_by_scan(data, updates, "sheet")


VALUES = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32), st.booleans(),
                   st.text(alphabet="ab<&\"' \x01é%", max_size=5),
                   st.sampled_from([XlError("#N/A"), XlError("#DIV/0!")]))


@settings(max_examples=150, deadline=None)
@given(cells=st.dictionaries(st.tuples(st.integers(1, 5), st.integers(1, 5)),
                             st.tuples(st.sampled_from(["", ' t="str"', ' vm="1"', ' s="3"']),
                                       st.booleans()), min_size=1, max_size=15),
       data=st.data())
def test_the_splice_at_noted_offsets_equals_the_general_rewrite(cells, data):
    """Formula cells with and without t/vm/s, some without <v>: every update of existing
    formula cells gives the same bytes by the layout as by the scan, and ElementTree
    reads each new value back in its cell."""
    rows = []
    for r in sorted({r for r, _ in cells}):
        body = "".join(
            f'<x:c r="{a1(r, c)}"{attr}><x:f>ROW()+{c}</x:f>{"<x:v>7</x:v>" if has_v else ""}</x:c>'
            for (rr, c), (attr, has_v) in sorted(cells.items()) if rr == r)
        rows.append(f'<x:row r="{r}">{body}</x:row>')
    xml = (HEAD + "".join(rows) + TAIL).encode()
    keys = sorted(cells)
    chosen = data.draw(st.lists(st.sampled_from(keys), min_size=1, unique=True))
    updates: dict = {}
    for r, c in chosen:
        updates.setdefault(r, {})[c] = CellUpdate(data.draw(VALUES))
    general = _scan_only(xml, updates)
    sheet = SheetData("S", "p")
    read_sheet(xml, sheet, [])
    fast = rewrite_sheet(xml, updates, layout=sheet.layout)
    assert fast == general
    spliced = splice_by_layout(xml, updates, sheet.layout)
    assert (spliced is None) == any(not cells[k][1] for k in chosen)  # no <v>: general path
    root = ET.fromstring(fast)
    for c in root.iter(f"{{{NS}}}c"):
        r, col = parse_a1(c.get("r"))
        if col in updates.get(r, {}):
            t, v = rw.encode_value(updates[r][col].value)
            assert c.get("t") == t and c.get("vm") is None
            got = c.find(f"{{{NS}}}v").text or ""
            assert got == ET.fromstring(f"<v>{v}</v>").text or (got == "" and v == "")
    assert b'mc:Ignorable="x14ac"' in fast and b"<xm:f" in fast


def test_a_str_given_returns_a_str_and_new_cells_go_in_order():
    xml = HEAD + '<x:row r="2"><x:c r="B2"><x:v>1</x:v></x:c></x:row>' + TAIL
    out = rewrite_sheet(xml, {1: {1: CellUpdate(1.0)}, 2: {1: CellUpdate("a"), 3: CellUpdate(True)},
                              4: {2: CellUpdate(2.0)}})
    assert isinstance(out, str)
    assert ('<x:sheetData><x:row r="1"><x:c r="A1"><x:v>1.0</x:v></x:c></x:row>'
            '<x:row r="2"><x:c r="A2" t="str"><x:v>a</x:v></x:c><x:c r="B2"><x:v>1</x:v></x:c>'
            '<x:c r="C2" t="b"><x:v>1</x:v></x:c></x:row>'
            '<x:row r="4"><x:c r="B4"><x:v>2.0</x:v></x:c></x:row></x:sheetData>') in out
    assert '<x:dimension ref="A1:C4"/>' in out


def test_row_like_elements_are_neither_rows_nor_slow():
    """Elements whose names begin like a row or a cell (``row-x``, ``rows``, ``cx``) and
    deep nesting inside a cell: the regex scanner matched such names as rows and went
    quadratic; the parser sees only real rows and cells."""
    junk = '<x:row-x r="9"><x:cx r="Z9"><x:v>9</x:v></x:cx></x:row-x>' * 300
    deep = "<x:extLst>" + "<x:e>" * 200 + "</x:e>" * 200 + "</x:extLst>"
    xml = (HEAD + junk + f'<x:row r="2"><x:c r="B2"><x:v>4</x:v>{deep}</x:c></x:row>' + junk
           + '<x:rows r="3"><x:c r="C3"><x:v>5</x:v></x:c></x:rows>' + TAIL)
    sheet = _read(xml)
    assert sheet.values == {(2, 2): 4.0} and sheet.formulas == {}
    out = rewrite_sheet(xml.encode(), {2: {2: CellUpdate(8.0)}})
    assert out.count(b"<x:v>9</x:v>") == 600 and b"<x:v>5</x:v>" in out
    assert b"<x:c r=\"B2\"><x:v>8.0</x:v><x:extLst>" in out


def test_a_cell_beyond_any_sheet_is_refused_in_one_line():
    import pytest
    from zvmplan_addin.xlsx import UnsafeWorkbookError
    xml = HEAD + '<x:row r="99999999999"><x:c><x:f>1</x:f><x:v>1</x:v></x:c></x:row>' + TAIL
    with pytest.raises(UnsafeWorkbookError, match="cannot read a cell"):
        _read(xml)


def test_the_calculators_text_round_trip_uses_the_noted_layout(tmp_path, monkeypatch):
    """The engine hands back decode_xml's text: the splice at noted offsets serves it,
    and gives the same text as the general rewrite."""
    import zipfile
    from zvmplan_addin import xlsx as xlsxio
    path = tmp_path / "b.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.'
                   'openxmlformats.org/package/2006/content-types"><Override PartName="/xl/'
                   'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                   'spreadsheetml.sheet.main+xml"/></Types>')
        z.writestr("_rels/.rels", '<Relationships xmlns="http://schemas.openxmlformats.org/package/'
                   '2006/relationships"><Relationship Id="r1" Type="http://schemas.openxmlformats.'
                   'org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
                   '</Relationships>')
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{NS}" xmlns:r="http://schemas.openxml'
                   'formats.org/officeDocument/2006/relationships"><sheets><sheet name="S" '
                   'sheetId="1" r:id="r1"/></sheets></workbook>')
        z.writestr("xl/_rels/workbook.xml.rels", '<Relationships xmlns="http://schemas.openxml'
                   'formats.org/package/2006/relationships"><Relationship Id="r1" Type="http://'
                   'schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
                   'Target="worksheets/sheet1.xml"/></Relationships>')
        z.writestr("xl/worksheets/sheet1.xml", HEAD + '<x:row r="1"><x:c r="A1"><x:v>2</x:v></x:c>'
                   '<x:c r="B1" t="str"><x:f>A1*2</x:f><x:v>old</x:v></x:c></x:row>' + TAIL)
    calls = []
    real = splice.splice_blocks
    monkeypatch.setattr(splice, "splice_blocks", lambda *a: calls.append(1) or real(*a))
    with xlsxio.safe_open_xlsx(path) as pkg:
        book = xlsxio.read_workbook(pkg)
        part = book.sheets[0].part
        text = xlsxio.decode_xml(pkg.read(part), part)
        new = xlsxio.rewrite_sheet(text, {1: {2: CellUpdate(4.0)}})
        assert calls == [1] and isinstance(new, str)
        assert '<x:c r="B1"><x:f>A1*2</x:f><x:v>4.0</x:v></x:c>' in new
        assert new.encode() == _scan_only(pkg.read(part), {1: {2: CellUpdate(4.0)}})


def test_the_xlsx_layer_imports_no_heavy_package():
    """calc refuses a bad file before loading the engine: the layer is standard library."""
    import subprocess
    import sys
    code = ("import sys, zvmplan_addin.xlsx; "
            "print(sorted(m for m in ('formulas', 'numpy', 'openpyxl', 'defusedxml', 'lxml') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_each_spelling_of_v_and_f_reads_the_same():
    """The reader's quick paths (a bare ``<v>``, an empty ``<v/>`` or ``<v />`` as openpyxl
    writes it, a bare ``<f>``) and the general one (tags with attributes or spaces) give
    the same values; text ending in "/>" is text, not an empty tag; the five XML entities,
    character references, CDATA and a CR-LF (read as LF, as XML says) in formulas."""
    xml = (HEAD + '<x:row r="1"><x:c r="A1"><x:v>1</x:v></x:c><x:c r="B1"><x:v >2</x:v >'
           '</x:c><x:c r="C1"><x:v xml:space="preserve"> 3 </x:v></x:c><x:c r="D1"><x:v/>'
           '</x:c><x:c r="E1"><x:v /></x:c><x:c r="F1"><x:v></x:v></x:c>'
           '<x:c r="G1" t="str"><x:v>/></x:v></x:c><x:c r="H1" t="str"><x:v>a/></x:v></x:c>'
           '</x:row><x:row r="2"><x:c r="A2"><x:f>A1&gt;0&amp;"&lt;&quot;&apos;"</x:f><x:v /></x:c>'
           '<x:c r="B2"><x:f >B1&#43;&#x31;</x:f><x:v/></x:c>'
           '<x:c r="C2"><x:f><![CDATA[C1<2]]></x:f><x:v></x:v></x:c>'
           '<x:c r="D2"><x:f>"a\r\nb"</x:f><x:v>x</x:v></x:c><x:c r="E2"><x:f/></x:c>'
           '<x:c r="F2"><x:f xml:space="preserve"> F1 </x:f><x:v>4</x:v></x:c></x:row>' + TAIL)
    sheet = _read(xml)
    assert sheet.values == {(1, 1): 1.0, (1, 2): 2.0, (1, 3): 3.0, (1, 7): "/>", (1, 8): "a/>"}
    assert {k: f.text for k, f in sheet.formulas.items()} == {
        (2, 1): 'A1>0&"<"\'"', (2, 2): "B1+1", (2, 3): "C1<2", (2, 4): '"a\nb"', (2, 5): "",
        (2, 6): " F1 "}
    assert sheet.cached == {(2, 4): "x", (2, 6): 4.0}   # no number: kept as text
    # each formula cell's <v> noted where it is (start, and just past its end)
    data = xml.encode()
    noted = {(r, c): data[v0:v1] for r, c, _, v0, v1, _ in sheet.layout}
    assert noted == {(2, 1): b"<x:v />", (2, 2): b"<x:v/>", (2, 3): b"<x:v></x:v>",
                     (2, 4): b"<x:v>x</x:v>", (2, 5): b"", (2, 6): b"<x:v>4</x:v>"}


def test_cells_are_placed_by_r_or_next_to_the_last():
    """The next column of the row (the usual case), a jump, a step back, lower case, a
    cell naming another row, a cell without ``r``, and an ``r`` that is no reference
    (four letters): Excel places the last two after the cell before them."""
    xml = (HEAD + '<x:row r="3"><x:c r="A3"><x:v>1</x:v></x:c><x:c r="B3"><x:v>2</x:v></x:c>'
           '<x:c r="E3"><x:v>3</x:v></x:c><x:c r="C3"><x:v>4</x:v></x:c><x:c r="d3"><x:v>5</x:v>'
           '</x:c><x:c><x:v>6</x:v></x:c><x:c r="ZZZZ3"><x:v>7</x:v></x:c><x:c r="A9"><x:v>8'
           '</x:v></x:c><x:c r="AB9"><x:v>9</x:v></x:c><x:c r="AC9"><x:v>10</x:v></x:c></x:row>'
           + TAIL)
    sheet = _read(xml)
    assert sheet.values == {(3, 1): 1.0, (3, 2): 2.0, (3, 5): 3.0, (3, 3): 4.0, (3, 4): 5.0,
                            (3, 5): 6.0, (3, 6): 7.0, (9, 1): 8.0, (9, 28): 9.0, (9, 29): 10.0}
    assert (sheet.max_row, sheet.max_col) == (9, 29)


def test_inline_strings_rich_text_and_types():
    """Inline strings: one run, rich text runs (with run properties), a phonetic run
    skipped, an empty ``<t/>``, an ``<is>`` without runs (the empty string, as Excel shows
    it), escapes; and the other types of ``<v>`` beside them."""
    xml = (HEAD + '<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>plain &amp; simple</x:t>'
           '</x:is></x:c><x:c r="B1" t="inlineStr"><x:is><x:r><x:rPr><x:b/></x:rPr><x:t>bo'
           '</x:t></x:r><x:r><x:t xml:space="preserve">ld </x:t></x:r><x:rPh sb="0" eb="1">'
           '<x:t>PH</x:t></x:rPh></x:is></x:c><x:c r="C1" t="inlineStr"><x:is><x:t/></x:is>'
           '</x:c><x:c r="D1" t="inlineStr"><x:is></x:is></x:c><x:c r="E1" t="inlineStr">'
           '<x:is><x:t>_x0031__x000D_</x:t></x:is></x:c><x:c r="F1" t="inlineStr"/>'
           '<x:c r="G1" t="s"><x:v>1</x:v></x:c><x:c r="H1" t="s"><x:v>7</x:v></x:c>'
           '<x:c r="I1" t="b"><x:v>0</x:v></x:c><x:c r="J1" t="e"><x:v>#DIV/0!</x:v></x:c>'
           '<x:c r="K1" t="d"><x:v>1900-01-01T12:00:00</x:v></x:c>'
           '<x:c r="L1" t="str"><x:v>&#x20AC; _x0041_</x:v></x:c></x:row>' + TAIL)
    sheet = _read(xml)
    assert sheet.values == {(1, 1): "plain & simple", (1, 2): "bold ", (1, 3): "",
                            (1, 4): "", (1, 5): "1\r", (1, 7): "one", (1, 8): XlError("#REF!"),
                            (1, 9): False, (1, 10): XlError("#DIV/0!"), (1, 11): 2.5,
                            (1, 12): "€ A"}


def test_shared_array_and_table_formulas_keep_document_order():
    """Formulas of every kind are filed in the order of the part, shared formulas'
    dependents (moved from their master) after them, as before the quick paths."""
    xml = (HEAD + '<x:row r="1"><x:c r="A1"><x:f>1+1</x:f><x:v>2</x:v></x:c>'
           '<x:c r="B1"><x:f t="shared" ref="B1:B2" si="0">A1*2</x:f><x:v>4</x:v></x:c>'
           '<x:c r="C1"><x:f t="array" ref="C1:D1">A1:B1</x:f><x:v>2</x:v></x:c>'
           '<x:c r="E1"><x:f t="dataTable" ref="E1" dt2D="0" dtr="0" r1="A1"/></x:c></x:row>'
           '<x:row r="2"><x:c r="B2"><x:f t="shared" si="0"/><x:v>4</x:v></x:c>'
           '<x:c r="C2"><x:f t="shared" si="9"/></x:c><x:c r="D2"><x:f>B2</x:f></x:c></x:row>'
           + TAIL)
    sheet = _read(xml)
    assert [(k, f.text, f.kind, f.area) for k, f in sheet.formulas.items()] == [
        ((1, 1), "1+1", "plain", None), ((1, 2), "A1*2", "shared", None),
        ((1, 3), "A1:B1", "array", (1, 3, 1, 4)), ((1, 5), "", "dataTable", None),
        ((2, 4), "B2", "plain", None), ((2, 2), "A2*2", "shared", None),
        ((2, 3), "#REF!", "shared", None)]
    assert sheet.cached == {(1, 1): 2.0, (1, 2): 4.0, (1, 3): 2.0, (2, 2): 4.0}


def test_the_splice_serves_cells_written_as_openpyxl_writes_them():
    """``<v />`` (with a space) after an ``<f>``: the noted offsets give the same bytes as
    the general rewrite."""
    xml = (HEAD + '<x:row r="1"><x:c r="A1" t="n"><x:v>9000</x:v></x:c><x:c r="B1"><x:f>A1*2'
           '</x:f><x:v /></x:c><x:c r="C1"><x:f>A1&gt;0</x:f><x:v/></x:c><x:c r="D1" '
           't="inlineStr"><x:is><x:t>IUCV</x:t></x:is></x:c></x:row>' + TAIL).encode()
    updates = {1: {2: CellUpdate(18000.0), 3: CellUpdate(True)}}
    sheet = SheetData("S", "p")
    read_sheet(xml, sheet, [])
    fast = splice_by_layout(xml, updates, sheet.layout)
    assert fast is not None and fast == _scan_only(xml, updates)
    assert b'<x:c r="B1"><x:f>A1*2</x:f><x:v>18000.0</x:v></x:c>' in fast

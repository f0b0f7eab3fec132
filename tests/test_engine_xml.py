"""Sheet XML the engine reads and writes by hand: shared formulas, inline strings and
implied cell positions (what openpyxl never writes), dates as serial numbers, Excel's
dynamic-array metadata, and the writer putting every value in its cell."""
from __future__ import annotations

import zipfile
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from zvmplan_addin import recalc as engine, xlsx as xlsxio
from zvmplan_addin.recalc import shapes

from builders import SHEET_XML, make_xlsx, values_of

pytestmark = pytest.mark.usefixtures("zt_functions")


def test_shared_formulas_inline_strings_and_implied_positions(tmp_path):
    rows = ('<row r="1" spans="1:3" x14ac:dyDescent="0.25"><c r="A1"><v>1</v></c>'
            '<c r="B1"><f t="shared" ref="B1:B3" si="0">A1*10</f><v>0</v></c>'
            '<c r="C1" t="inlineStr"><is><t>IUCV</t></is></c></row>'
            '<row r="2"><c><v>2</v></c><c><f t="shared" si="0"/></c>'  # no r: A2, B2
            '<c t="b"><v>1</v></c></row>'
            '<row r="3"><c r="A3"><v>3</v></c><c r="B3"><f t="shared" si="0"/><v>0</v></c>'
            '<c r="C3" t="e"><v>#N/A</v></c></row>'
            '<row r="4"><c r="A4"><f>C1&amp;"&lt;"&amp;C2</f></c><c r="B4"><f>ISNA(C3)</f></c></row>')
    path = make_xlsx(tmp_path / "in.xlsx", rows, calc_chain=True)
    out = tmp_path / "out.xlsx"
    engine.calc(path, out)
    ws = values_of(out)
    assert [ws["B1"].value, ws["B2"].value, ws["B3"].value] == [10, 20, 30]
    assert ws["A4"].value == "IUCV<TRUE"
    assert ws["B4"].value is True
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        sheet = z.read("xl/worksheets/sheet1.xml").decode()
        assert "xl/calcChain.xml" not in names
        assert "calcChain" not in z.read("[Content_Types].xml").decode()
        assert "calcChain" not in z.read("xl/_rels/workbook.xml.rels").decode()
        assert 'mc:Ignorable="x14ac"' in sheet and 'x14ac:dyDescent="0.25"' in sheet
        assert '<f t="shared" si="0"/><v>20.0</v>' in sheet
        assert '<c r="A4" t="str"><f>C1&amp;"&lt;"&amp;C2</f><v>IUCV&lt;TRUE</v></c>' in sheet


def test_date_cells_are_serial_numbers(tmp_path):
    rows = ('<row r="1"><c r="A1" t="d"><v>2024-01-31T00:00:00</v></c>'
            '<c r="B1"><f>A1+1</f></c><c r="C1"><f>YEAR(A1)</f></c></row>')
    path = make_xlsx(tmp_path / "in.xlsx", rows)
    out = tmp_path / "out.xlsx"
    engine.calc(path, out)
    sheet = zipfile.ZipFile(out).read("xl/worksheets/sheet1.xml").decode()
    assert "<f>A1+1</f><v>45323.0</v>" in sheet and "<f>YEAR(A1)</f><v>2024.0</v>" in sheet


def test_excel_style_xml_round_trips(tmp_path):
    """Dynamic-array metadata (cm), rows without spans, cells without r, a horizontal
    spill (a zvmplan function's: a plain formula of builtins shows one value,
    tests/test_engine_legacy.py) into a row that has later cells: OUT is valid and every
    value lands in place."""
    rows = ('<row r="1" spans="1:4"><c r="A1"><v>1</v></c><c r="B1" cm="1">'
            '<f t="array" ref="B1:B2" aca="false">A1:A2*2</f><v>0</v></c>'
            '<c r="F1"><v>1</v></c><c r="G1"><v>2</v></c><c r="H1"><v>3</v></c></row>'
            '<row r="2"><c r="A2"><v>5</v></c><c r="B2"><v>0</v></c></row>'
            '<row r="3"><c><f>ZT_SCALE(F1:H1)</f></c><c r="D3"/><c><v>7</v></c></row>')
    path = make_xlsx(tmp_path / "in.xlsx", rows)
    out = tmp_path / "out.xlsx"
    engine.calc(path, out)
    xlsxio.safe_open_xlsx(out).close()  # well formed, by the same checks as any input
    ws = values_of(out)
    assert [ws["B1"].value, ws["B2"].value] == [2, 10]
    assert [ws["A3"].value, ws["B3"].value, ws["C3"].value, ws["D3"].value, ws["E3"].value] == \
        [1, 2, 3, None, 7]
    sheet = zipfile.ZipFile(out).read("xl/worksheets/sheet1.xml").decode()
    assert '<c r="B1" cm="1"><f t="array" ref="B1:B2" aca="false">A1:A2*2</f><v>2.0</v></c>' in sheet
    assert '<c r="A3"><f t="array" ref="A3:C3">ZT_SCALE(F1:H1)</f><v>1.0</v></c>' \
        '<c r="B3"><v>2.0</v></c>' \
        '<c r="C3"><v>3.0</v></c><c r="D3"/><c r="E3"><v>7</v></c>' in sheet


_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def _read_back(xml):
    """Cell values by position, read with ElementTree (independently of the scanner),
    honouring implied positions; and whether rows and cells are in order."""
    root = ET.fromstring(xml)
    values, ordered, row_no = {}, True, 0
    for row in root.iter(_NS + "row"):
        r = int(row.get("r")) if row.get("r") else row_no + 1
        ordered &= r > row_no
        row_no, col = r, 0
        for c in row.findall(_NS + "c"):
            ref = c.get("r")
            nc = shapes.parse_a1(ref)[1] if ref else col + 1
            ordered &= nc > col
            col = nc
            v = c.find(_NS + "v")
            values[(r, nc)] = None if v is None else v.text
    return values, ordered


@settings(max_examples=200, deadline=None)
@given(existing=st.dictionaries(st.tuples(st.integers(1, 6), st.integers(1, 6)),
                                st.tuples(st.integers(0, 99), st.booleans()), max_size=20),
       updates=st.dictionaries(st.tuples(st.integers(1, 7), st.integers(1, 7)),
                               st.integers(100, 199), max_size=12))
def test_rewrite_sheet_puts_every_value_in_its_cell(existing, updates):
    rows = []
    for r in sorted({r for r, _ in existing}):
        cells, prev = [], 0
        for c in sorted(c for rr, c in existing if rr == r):
            value, explicit = existing[(r, c)]
            # a cell may omit r only if it directly follows the previous one
            attr = f' r="{shapes.a1(r, c)}"' if explicit or c != prev + 1 else ""
            cells.append(f"<c{attr}><v>{value}</v></c>")
            prev = c
        rows.append(f'<row r="{r}">{"".join(cells)}</row>')
    xml = SHEET_XML.format(rows="".join(rows))
    by_row = {}
    for (r, c), v in updates.items():
        by_row.setdefault(r, {})[c] = xlsxio.CellUpdate(float(v))
    new = xlsxio.rewrite_sheet(xml, by_row)
    values, ordered = _read_back(new)
    assert ordered
    expected = {k: str(v) for k, (v, _) in existing.items()}
    expected.update({k: repr(float(v)) for k, v in updates.items()})
    assert values == expected

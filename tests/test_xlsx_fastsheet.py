"""The fast sheet reader (:mod:`zvmplan_addin.xlsx.fastsheet`) against the general one: the
same cells, values, formulas, hidden rows, extent, layout offsets and budget on every part
it takes, and each part spelt otherwise handed back untouched to the general reader."""
from __future__ import annotations

import pytest

from zvmplan_addin.xlsx import SheetData, XlError, read_sheet
from zvmplan_addin.xlsx import sheet as S
from zvmplan_addin.xlsx.fastsheet import read_fast
from zvmplan_addin.xlsx.splice import splice_by_layout
from zvmplan_addin.xlsx.cellxml import CellValues

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
HEAD = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
        f'<worksheet xmlns="{NS}" xmlns:x14ac="http://schemas.microsoft.com/office/'
        'spreadsheetml/2009/9/ac"><sheetPr filterMode="{fm}"/><dimension ref="A1:D9"/>'
        '<sheetData>')
TAIL = '</sheetData><pageMargins left="0.7" right="0.7"/></worksheet>'
STRINGS = ["zero", "one", "two"]


def _state(sheet: SheetData, layout: S.Layout, budget: S.Budget) -> tuple:
    return (repr(sheet.values), repr(sheet.formulas), repr(sheet.cached), sheet.hidden_rows,
            sheet.filter_active, sheet.max_row, sheet.max_col, bytes(layout.cells),
            layout.dimension, layout.prefix, budget.cells, budget.others)


def _both(xml: str, fm: str = "0"):
    """(fast sheet, its layout, general sheet, its layout); the fast one None if handed
    back. Asserts they agree."""
    data = (HEAD.replace("{fm}", fm) + xml + TAIL).encode()
    fast, general = SheetData("S", "p"), SheetData("S", "p")
    fb, gb = S.Budget(), S.Budget()
    got = read_fast(data, fast, STRINGS, "p", fb)
    want = S.read_general(data, general, STRINGS, "p", gb)
    if got is None:
        assert (fast.values, fast.formulas, fast.cached, fast.hidden_rows) == ({}, {}, {}, {})
        assert fb.cells == S.Budget().cells
        return None, None, general, want
    assert _state(fast, got, fb) == _state(general, want, gb)
    return fast, got, general, want


def test_the_usual_spelling_is_read_fast_with_every_value_kind():
    """Numbers, shared strings (one out of range: #REF!), booleans, errors, str, inline
    strings with references and _xHHHH_ escapes, empty <v/>, formulas with &amp; and
    &gt;, shared formulas (master and dependent), an array formula, styled empty cells
    (not filed, no extent), hidden rows and whitespace between rows."""
    xml = ('<row r="1" spans="1:4" x14ac:dyDescent="0.25"><c r="A1" t="s"><v>1</v></c>'
           '<c r="B1" s="2"><v>2.5</v></c><c r="C1" t="b"><v>1</v></c>'
           '<c r="D1" t="e"><v>#N/A</v></c></row>\n'
           '<row r="2" hidden="1" customHeight="1"><c r="A2" t="inlineStr"><is><t>a&amp;b_x0041_'
           '</t></is></c><c r="B2"><f>IF(A1&gt;0,A1&amp;"x",1)</f><v>3</v></c>'
           '<c r="C2" t="str"><f>A1&amp;""</f><v>one</v></c><c r="D2" t="s"><v>7</v></c></row>'
           '<row r="3"><c r="A3"><f t="shared" ref="A3:A4" si="0">B2*2</f><v>6</v></c>'
           '<c r="B3"><f t="array" ref="B3:B3">SUM(B1:B2)</f><v>5.5</v></c>'
           '<c r="C3" s="1"/><c r="D3"><f>B1</f><v /></c></row>'
           '<row r="4" hidden="1"><c r="A4"><f t="shared" si="0"/><v></v></c></row>'
           '<row r="9" s="1" customFormat="1"><c r="Z9" s="3"/></row>')
    fast, layout, _, _ = _both(xml, fm="1")
    assert fast is not None
    assert fast.values == {(1, 1): "one", (1, 2): 2.5, (1, 3): True, (1, 4): XlError("#N/A"),
                           (2, 1): "a&bA", (2, 4): XlError("#REF!")}
    assert fast.formulas[(2, 2)].text == 'IF(A1>0,A1&"x",1)'
    assert fast.formulas[(4, 1)] == S.FormulaCell("B3*2", "shared")
    assert fast.formulas[(3, 2)].area == (3, 2, 3, 2)
    assert fast.cached == {(2, 2): 3.0, (2, 3): "one", (3, 1): 6.0, (3, 2): 5.5}
    assert fast.hidden_rows == {2: True, 4: False}
    assert fast.filter_active and (fast.max_row, fast.max_col) == (4, 4)
    assert len(layout.cells) == 6 * S._LAYOUT.size    # B2 C2 A3 B3 D3 A4


@pytest.mark.parametrize("xml", [
    '<row r="1"><c r="A1"><v>1</v></c></row><!-- a comment --><row r="2"/>',
    '<row r="1"><c r="A1" t="inlineStr"><is><r><t>rich</t></r></is></c></row>',
    '<row r="1"><c r="A1"><v>1</v><extLst/></c></row>',
    '<row r="1"><c s="1" r="A1"><v>1</v></c></row>',           # r not first
    '<row r="1"><c r="a1"><v>1</v></c></row>',                 # lower-case reference
    '<row r="1"><c r="A1"><v>1</v></c><c><v>2</v></c></row>',  # a cell without r
    '<c r="A1"><v>1</v></c>',                                  # a cell outside a row
    '<row r="1"><row r="2"/></row>',
    '<row r="1"><c r="A1"><f ref="A1 &amp;">1</f></c></row>',  # a reference in an attribute
    '<row r="1"><c r="A1"><v><![CDATA[1]]></v></c></row>',
])
def test_any_other_spelling_goes_to_the_general_reader(xml):
    """Handed back untouched (no cell filed, budget unspent), and the general reader's
    answer stands."""
    fast, _, general, _ = _both(xml)
    assert fast is None
    sheet = SheetData("S", "p")
    read_sheet((HEAD.replace("{fm}", "0") + xml + TAIL).encode(), sheet, STRINGS)
    assert repr(sheet.values) == repr(general.values)


def test_a_second_sheet_data_goes_to_the_general_reader():
    data = (HEAD.replace("{fm}", "0") + '<row r="1"><c r="A1"><v>1</v></c></row></sheetData>'
            '<sheetData><row r="2"><c r="A2"><v>2</v></c></row>' + TAIL).encode()
    assert read_fast(data, SheetData("S", "p"), [], "p", S.Budget()) is None
    sheet = SheetData("S", "p")
    read_sheet(data, sheet, [])
    assert sheet.values == {(1, 1): 1.0, (2, 1): 2.0}


def test_carriage_returns_in_a_formula_are_read_as_expat_reads_them():
    fast, _, _, _ = _both('<row r="1"><c r="A1"><f>1+\r\n2</f><v>3</v></c></row>')
    assert fast.formulas[(1, 1)].text == "1+\n2"


def test_the_cell_budget_refuses_as_the_general_reader_does(monkeypatch):
    monkeypatch.setattr(S, "MAX_CELLS", 3)
    data = (HEAD.replace("{fm}", "0") + "<row r=\"1\">" +
            "".join(f'<c r="{c}1"><v>1</v></c>' for c in "ABCD") + "</row>" + TAIL).encode()
    for reader in (read_fast, S.read_general):
        with pytest.raises(S.UnsafeWorkbookError, match="more than 3 cells"):
            reader(data, SheetData("S", "p"), [], "p", S.Budget())


def test_the_fast_layout_splices_new_values():
    """The offsets the fast reader notes are the ones the splice writes at."""
    xml = ('<row r="1"><c r="A1"><v>2</v></c><c r="B1"><f>A1*2</f><v /></c>'
           '<c r="C1" t="str"><f>"x"&amp;A1</f><v>old</v></c></row>')
    data = (HEAD.replace("{fm}", "0") + xml + TAIL).encode()
    sheet = SheetData("S", "p")
    layout = read_sheet(data, sheet, [])
    assert read_fast(data, SheetData("S", "p"), [], "p", S.Budget()) is not None
    out = splice_by_layout(data, CellValues.from_dict({1: {2: 4.0, 3: "x2"}}), layout)
    assert b'<c r="B1"><f>A1*2</f><v>4.0</v></c>' in out
    assert b'<c r="C1" t="str"><f>"x"&amp;A1</f><v>x2</v></c>' in out

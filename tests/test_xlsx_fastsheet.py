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
            layout.dimension, layout.prefix, budget.cells, budget.others,
            [type(v).__name__ for v in sheet.values.values()],     # an XlError is a str
            [type(v).__name__ for v in sheet.cached.values()])


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


# ------------------------------------------------------------------ the bulk path ----
# (xlsx/bulksheet.py: the usual spelling read with numpy, well-formedness proved from
# the tokens; anything else goes to expat and the regex loop, the path before it)

def _outcome(data: bytes, bulk: bool, monkeypatch, strings=STRINGS, budget=None):
    """What read_sheet makes of ``data``, with the bulk path or without it: the state,
    or the one-line error."""
    from zvmplan_addin.xlsx import bulksheet
    with monkeypatch.context() as m:
        if not bulk:
            m.setattr(bulksheet, "read_bulk", lambda *a: None)
        sheet, b = SheetData("S", "p"), budget() if budget else S.Budget()
        try:
            layout = read_sheet(data, sheet, strings, "p", b)
        except S.UnsafeWorkbookError as exc:
            return "refused: " + str(exc)
        return _state(sheet, layout, b)


def _bulk_taken(data: bytes) -> bool:
    from zvmplan_addin.xlsx.bulksheet import read_bulk
    if data.count(b"<sheetData>") != 1 or data.count(b"</sheetData>") != 1:
        return False
    body = data.index(b"<sheetData>") + len(b"<sheetData>")
    return read_bulk(data, body, data.index(b"</sheetData>"), STRINGS, {}, {}, {},
                     (10**6, 10**6)) is not None


def _part(xml: str, fm: str = "0") -> bytes:
    return (HEAD.replace("{fm}", fm) + xml + TAIL).encode("utf-8")


USUAL = ('<row r="1" spans="1:5" x14ac:dyDescent="0.25"><c r="A1" t="s"><v>1</v></c>'
         '<c r="B1" s="2"><v>2.5</v></c><c r="C1" t="b"><v>1</v></c>'
         '<c r="D1" t="e"><v>#N/A</v></c><c r="E1" t="str"><v> x&amp;y </v></c></row>'
         '<row r="2"><c r="A2" t="inlineStr"><is><t>a&amp;b_x0041_</t></is></c>'
         '<c r="B2"><f>IF(A1&gt;0,A1&amp;"x",1)</f><v>3</v></c>'
         '<c r="C2" t="str"><f>A1&amp;""</f><v>one</v></c><c r="D2" t="s"><v>7</v></c>'
         '<c r="E2" t="inlineStr"><is><t xml:space="preserve"> sp </t></is></c></row>'
         '<row r="3"><c r="A3" s="1"/><c r="B3"><f>B1</f><v /></c><c r="C3"><f>C1</f><v/></c>'
         '<c r="D3" t="s"><v/></c><c r="E3"><v></v></c><c r="F3"><v>1e3</v></c>'
         '<c r="G3"><v>abc</v></c><c r="H3" t="d"><v>2020-01-02T12:00:00</v></c></row>'
         '<row r="4" s="1" customFormat="1"/><row r="7"><c r="ZZ7" s="3" /></row>'
         '<row r="9"><c r="AAA9"><f>1+\n2</f><v>3</v></c><c r="B9" t="str"><f>"&lt;"</f>'
         '<v>&lt;</v></c><c r="C9" t="inlineStr"><f>"q"</f><v>old</v>'
         '<is><t>&quot;q&apos;</t></is></c></row>'
         '<row r="1048576"><c r="XFD1048576"><v>-0.5E-3</v></c></row>')


def test_the_bulk_path_reads_the_usual_spelling_as_the_loop_does(monkeypatch):
    """Every value type, empty <v/> and <v />, styled empty cells, references and
    _xHHHH_ escapes, an empty row, a line feed in a formula, an inline string with a
    formula: the bulk path takes it and gives what the loop and the general reader
    give (dicts in the same order, layout offsets, budget, extent)."""
    data = _part(USUAL)
    assert _bulk_taken(data)
    bulk = _outcome(data, True, monkeypatch)
    assert bulk == _outcome(data, False, monkeypatch)
    sheet, general = SheetData("S", "p"), S.Budget()
    want = S.read_general(data, sheet, STRINGS, "p", general)
    assert bulk == _state(sheet, want, general)
    assert "(2, 4): '#REF!'" in bulk[0] and "'a&bA'" in bulk[0] and "' sp '" in bulk[0]
    assert bulk[-2].count("XlError") == 3 and "(9, 2): '<'" in bulk[2]


def _chunked_part(monkeypatch, cached: bool) -> bytes:
    """399 rows of a text, a number and a formula (its cached value ``<v>r</v>`` or an
    empty ``<v />``), read with CHUNK made small so they span many chunks."""
    from zvmplan_addin.xlsx import bulksheet
    monkeypatch.setattr(bulksheet, "CHUNK", 200)
    return _part("".join(
        f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>k{r}</t></is></c>'
        f'<c r="B{r}"><v>{r / 7}</v></c><c r="C{r}"><f>B{r}*2&amp;""</f>'
        + (f'<v>{r}</v>' if cached else '<v />') + '</c></row>' for r in range(1, 400)))


def test_the_bulk_path_reads_a_large_part_in_chunks(monkeypatch):
    """Rows across several chunks (CHUNK made small): the same as the loop."""
    data = _chunked_part(monkeypatch, cached=False)
    assert _bulk_taken(data)
    assert _outcome(data, True, monkeypatch) == _outcome(data, False, monkeypatch)


@pytest.mark.parametrize("xml", [
    '<row r="1"><c r="A1"><v>1</v></c></row>\n<row r="2"/>',          # white space
    '<row r="1" hidden="1"><c r="A1"><v>1</v></c></row>',               # a hidden row
    '<row r="1"><c r="A1"><f t="shared" si="0" t="array">1</f></c></row>',
    '<row r="1"><c r="A1"><f >1</f></c></row>',
    '<row r="1"><c r="A1"><v>&#49;</v></c></row>',                      # a character reference
    '<row r="1"><c r="A1"><f>1+\r\n2</f><v>3</v></c></row>',            # a CR
    '<row><c r="A1"><v>1</v></c></row>',                                # a row without r
    '<row r="1"><c r="A1" t="n" t="s"><v>1</v></c></row>',             # twice the same
    '<row r="1"><c r="A1" r="B1"><v>1</v></c></row>',
    '<row r="1"><c r="AAAA1"><v>1</v></c></row>',
    '<row r="1"><c r="A12345678"><v>1</v></c></row>',
])
def test_the_bulk_path_leaves_other_spellings_to_the_loop(xml, monkeypatch):
    """Not taken by the bulk path; the loop (or the general reader, or expat's refusal)
    gives the answer it gave before."""
    data = _part(xml)
    assert not _bulk_taken(data)
    assert _outcome(data, True, monkeypatch) == _outcome(data, False, monkeypatch)


HOSTILE = [
    '<row r="1"><c r="A1"><v>1\x01</v></c></row>',          # control characters
    '<row r="1"><c r="A1"><v>1\x0b</v></c></row>',
    '<row r="1"><c r="A1"><f>\x0c</f></c></row>',
    '<row r="1"><c r="A1"><v>a&b</v></c></row>',            # a bare &
    '<row r="1"><c r="A1"><v>&foo;</v></c></row>',          # an undeclared entity
    '<row r="1"><c r="A1"><v>&amp</v></c></row>',
    '<row r="1"><c r="A1"><v>&#0;</v></c></row>',           # references to no character
    '<row r="1"><c r="A1"><v>&#xFFFE;</v></c></row>',
    '<row r="1"><c r="A1"><v>&#x110000;</v></c></row>',
    '<row r="1"><c r="A1"><v>a]]>b</v></c></row>',          # ]]> in character data
    '<row r="1"><c r="A1"><v>a>b</v></c></row>',            # > is fine there
    '<row r="1"><c r="A1" s="<"><v>1</v></c></row>',        # < in an attribute value
    '<row r="1"><c r="A1" s="1" s="2"><v>1</v></c></row>',  # an attribute twice
    '<row r="1"><c r="A1" s=1><v>1</v></c></row>',          # unquoted
    '<row r="1"><c r="A1"><v>1</v></row>',                  # unbalanced
    '<row r="1"><c r="A1"><v>1</c></v></row>',              # crossed
    '<row r="1"><c r="A1"><v>1</v></c>',                    # unclosed row
    '<row r="1"><c r="A1"><v>1</v></c></row></row>',
    '<row r="1"><c r="A1"><v>1</v></c></row><',
    '<row r="1"><c r="A1"><v>\xff</v></c></row>',           # (made invalid UTF-8 below)
    '<row r="1"><c r="A1"><v>\ufffe</v></c></row>',         # not an XML character
    '<row r="1"><c r="A1"><v>\ud800</v></c></row>',         # (a surrogate, encoded below)
    '<row r="1"><c r="A1"><v>1</v></c></row><!DOCTYPE x>',
    '<row r="1"><c r="A1"><v>1</v></c></row><?pi x?>',
    '<row r="1"><c r="A1"><v><![CDATA[1]]></v></c></row>',
    '<row r="1"><c r="A1"><v>1</v></c></row><!-- -- -->',
    '<row r="1"><c r="A1" t="inlineStr"><is><t xml:space=preserve"> a</t></is></c></row>',
    '<row r="1"><c r="A1" t="inlineStr"><is><t xml:space="preserve" > a</t></is></c></row>',
]


def _hostile(xml: str) -> bytes:
    if "\xff" in xml:
        return _part(xml.replace("\xff", "")).replace(b"<v></v>", b"<v>\xff</v>")
    if "\ud800" in xml:
        return _part(xml.replace("\ud800", "")).replace(b"<v></v>", b"<v>\xed\xa0\x80</v>")
    return _part(xml)


@pytest.mark.parametrize("xml", HOSTILE)
def test_malformed_content_is_refused_as_expat_refuses_it(xml, monkeypatch):
    """Whatever expat refuses in <sheetData> (the bulk path proves the rest well formed
    itself) is refused with expat's one line, as before; what expat takes is read as
    before."""
    from zvmplan_addin.xlsx import xml as xmlparse
    data = _hostile(xml)
    got = _outcome(data, True, monkeypatch)
    assert got == _outcome(data, False, monkeypatch)
    try:
        xmlparse.check(data, "p")
    except S.UnsafeWorkbookError as exc:
        assert got == "refused: " + str(exc)
        assert "\n" not in got and "bug" not in got
    else:
        assert not isinstance(got, str)


def test_mutated_parts_give_what_they_gave_before(monkeypatch):
    """A thousand random byte edits of the usual spelling, ASCII and not (seeded): each
    part is refused with the same line, or read into the same state, with the bulk path
    as without it."""
    import random
    rng = random.Random(19)
    bases = [_part(USUAL), _part(USUAL.replace(" sp ", " s\u00e9\U0001F600 ")),
             _part(SHARED + USUAL.replace('"1"', '"11"'))]
    pieces = [b"<", b">", b"/", b"&", b";", b'"', b" ", b"\x01", b"\r", b"\n", b"]]>",
              b"&#", b"x", b"1", b"A", b"=", b"\xc3\xa9", b"\xff", b"<v>", b"</c>",
              b"<row r=\"5\">", b"</row>", b"<f>", b"&amp;", b"&lt;", b' t="s"', b' r="B1"',
              b"9", b"Z", b"\t", b"<v/>", b"<is>", b"<t>", b"/>", b'<c r="A1">', b"\x00",
              b"\xef\xbf\xbf", b"\xe2\x82", b"\xf0\x9f\x98\x80", b"\xc3", b' t="shared"', b' si="0"', b"<f/>",
              b'<f t="shared" si="1"/>', b' ref="A1:B2"']
    taken = 0
    for i in range(1000):
        base = bases[i % 3]
        body = base.index(b"<sheetData>") + len(b"<sheetData>")
        stop = base.index(b"</sheetData>")
        data = bytearray(base)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(body, stop)
            how = rng.random()
            if how < 0.4:
                data[at:at + 1] = b""
            elif how < 0.7:
                data[at:at] = rng.choice(pieces)
            else:
                data[at:at + 1] = rng.choice(pieces)
        data = bytes(data)
        assert _outcome(data, True, monkeypatch) == _outcome(data, False, monkeypatch), data
        taken += _bulk_taken(data)
    assert taken > 40       # many edits stay in the spelling the bulk path takes


def test_the_budgets_refuse_as_before_on_the_bulk_path(monkeypatch):
    """A part that spends the cell or the other-element budget is refused with the
    same line as before."""
    data = _part(USUAL)
    for cells in (3, 10):
        budget = lambda: S.Budget(cells)     # noqa: E731
        got = _outcome(data, True, monkeypatch, budget=budget)
        assert got == _outcome(data, False, monkeypatch, budget=budget)
        assert got.startswith("refused: more than")
    monkeypatch.setattr(S, "MAX_OTHER_ELEMENTS", 4)
    got = _outcome(data, True, monkeypatch)
    assert got == _outcome(data, False, monkeypatch) and "other elements" in got


def test_an_unforeseen_error_in_the_bulk_path_falls_back_to_the_loop(monkeypatch):
    """An exception inside the bulk reader (here forced) leaves the dicts empty and the
    part to the loop, which reads it as before."""
    from zvmplan_addin.xlsx import bulksheet
    data = _part(USUAL)
    want = _outcome(data, False, monkeypatch)

    def broken(*args):
        raise IndexError("forced")

    monkeypatch.setattr(bulksheet, "_cells", broken)
    assert not _bulk_taken(data)
    assert _outcome(data, True, monkeypatch) == want


def test_text_beyond_ascii_is_read_in_bulk_as_the_loop_reads_it(monkeypatch):
    """UTF-8 text (an accent, an emoji, Arabic-Indic digits, which ``float`` and ``int``
    read from text but not from bytes) in formulas, values and inline strings: read in
    bulk, with what the loop gives, layout offsets counted in bytes."""
    xml = ('<row r="1"><c r="A1" t="inlineStr"><is><t>Z\u00fcrich \U0001F600 &amp;</t></is></c>'
           '<c r="B1"><f>"\u00e9"&amp;A1</f><v>x</v></c><c r="C1" t="s"><v>\u0661</v></c>'
           '<c r="D1"><v>\u0661\u0662</v></c><c r="E1" t="str"><f>"\u00e9"</f><v>\u00e9</v></c>'
           '<c r="F1"><f>1</f><v>1</v></c></row>')
    data = _part(xml)
    assert _bulk_taken(data)
    got = _outcome(data, True, monkeypatch)
    assert got == _outcome(data, False, monkeypatch)
    assert "(1, 3): '#REF!'" in got[0] and "(1, 4): 12.0" in got[0]


@pytest.mark.parametrize("encoding, expat_takes", [("ISO-8859-1", True),
                                                   ("windows-1252", False)])
def test_text_beyond_ascii_under_another_declared_encoding_goes_to_the_loop(
        encoding, expat_takes, monkeypatch):
    """Declared in another encoding, the bytes are not read in bulk: expat reads them as
    that encoding (refusing "\u0101" as windows-1252), the loop as before."""
    data = _part('<row r="1"><c r="A1" t="inlineStr"><is><t>\u0101</t></is></c></row>')
    data = data.replace(b'encoding="UTF-8"', f'encoding="{encoding}"'.encode())
    assert not _bulk_taken(data)
    got = _outcome(data, True, monkeypatch)
    assert got == _outcome(data, False, monkeypatch)
    assert isinstance(got, str) != expat_takes


SHARED = ('<row r="1"><c r="A1"><f t="shared" si="1"/><v>1</v></c>'
           '<c r="B1"><f t="shared" ref="B1:B3" si="0">A1*2</f><v>2</v></c>'
           '<c r="C1"><f>B1</f><v>2</v></c></row>'
           '<row r="2"><c r="A2"><f t="shared" ref="A1:A2" si="1">C2+1</f><v /></c>'
           '<c r="B2"><f t="shared" si="0"/><v>4</v></c><c r="C2"><f ca="1">NOW()</f><v>5</v>'
           '</c><c r="D2"><f t="array" ref="D2:D3">A1:A2</f><v>1</v></c></row>'
           '<row r="3"><c r="B3"><f t="shared" si="0" /></c><c r="C3"><f/></c>'
           '<c r="D3"><f t="shared" si="9"/></c><c r="E3"><f t="dataTable" ref="E3" dt2D="0" '
           'dtr="0" r1="A1"/><v>0</v></c></row>')


def test_formulas_with_attributes_are_read_in_bulk_as_the_loop_reads_them(monkeypatch):
    """Shared formulas (masters, dependents before and after their master, one with no
    master: #REF!), an array formula, a data table, a volatile ``ca`` formula, ``<f/>``
    and ``<f />``, beside plain ones: the order of the formulas dict too."""
    data = _part(SHARED)
    assert _bulk_taken(data)
    got = _outcome(data, True, monkeypatch)
    assert got == _outcome(data, False, monkeypatch)
    sheet, general = SheetData("S", "p"), S.Budget()
    assert got == _state(sheet, S.read_general(data, sheet, STRINGS, "p", general), general)
    assert "(3, 2): FormulaCell(text='A3*2', kind='shared'" in got[1]
    assert "(3, 4): FormulaCell(text='#REF!', kind='shared'" in got[1]


# ------------------------------------------------------ the cells handed over as columns ----
# (bulksheet.CellColumns: a sheet of plain formulas, each cell after the one before, is
# handed to the engine as arrays; the dicts are made from them only when asked for)

def _columns_or_dicts(data: bytes):
    """(the sheet's columns as read_sheet left them, the sheet's state after asking for
    its dicts, that state with the bulk path's columns refused)."""
    sheet, budget = SheetData("S", "p"), S.Budget()
    layout = read_sheet(data, sheet, STRINGS, "p", budget)
    columns = sheet.columns
    return columns, _state(sheet, layout, budget), sheet


def test_plain_cells_are_handed_over_as_columns_and_make_the_same_dicts(monkeypatch):
    """The usual spelling with plain formulas only: read_sheet leaves columns (no dict
    made); the dicts made from them when asked for are those the general reader and the
    loop give, in the same order, and the columns are gone then (the dicts are the
    sheet)."""
    data = _part(USUAL.replace('r="AAA9"', 'r="A9"'))    # (AAA9 before B9: out of order)
    columns, state, sheet = _columns_or_dicts(data)
    assert columns is not None and sheet.columns is None
    assert columns.counts() == (len(sheet.values), len(sheet.formulas)) == (13, 7)
    assert columns.texts[0] == 'IF(A1>0,A1&"x",1)'
    assert list(zip(columns.formula_rows, columns.formula_cols)) == list(sheet.formulas)
    assert state == _outcome(data, False, monkeypatch)
    general, budget = SheetData("S", "p"), S.Budget()
    assert state == _state(general, S.read_general(data, general, STRINGS, "p", budget), budget)


def test_columns_across_chunks_make_the_same_dicts(monkeypatch):
    """Rows over many chunks (CHUNK made small): one set of columns, the same dicts."""
    data = _chunked_part(monkeypatch, cached=True)
    columns, state, _ = _columns_or_dicts(data)
    assert columns is not None and columns.counts() == (798, 399)
    assert list(columns.cached[:2]) == [1.0, 2.0] and list(columns.cached_index[:3]) == [0, 1, 2]
    assert state == _outcome(data, False, monkeypatch)


@pytest.mark.parametrize("xml", [
    SHARED,                                                             # <f> attributes
    '<row r="1"><c r="B1"><v>1</v></c><c r="A1"><f>1</f></c></row>',    # out of order
    '<row r="1"><c r="A1"><v>1</v></c><c r="A1"><f>2</f><v>2</v></c></row>',   # twice
    '<row r="1"><c r="A1"><f>1</f></c><c r="A1"><f>2</f></c></row>',
    '<row r="2"><c r="A2"><f>1</f></c></row><row r="1"><c r="A1"><v>3</v></c></row>',
    '<row r="1"><c r="A1"><f>1</f></c></row><row r="1"><c r="A1"><v>3</v></c></row>',
])
def test_other_sheets_are_handed_over_as_dicts(xml, monkeypatch):
    """Formulas with attributes, a cell out of order or given twice: the bulk path files
    the dicts as before (no columns), which hold what the loop gives."""
    data = _part(xml)
    assert _bulk_taken(data)
    columns, state, _ = _columns_or_dicts(data)
    assert columns is None
    assert state == _outcome(data, False, monkeypatch)


@pytest.mark.parametrize("at", [0, 1, 2, 5])
def test_a_sheet_out_of_order_in_a_later_chunk_is_handed_over_as_dicts(at, monkeypatch):
    """Columns taken for the first chunks, then a cell out of order (or a shared
    formula) in a later one: the columns so far filed in the dicts, in order, and the
    rest after them, as the loop gives."""
    from zvmplan_addin.xlsx import bulksheet
    monkeypatch.setattr(bulksheet, "CHUNK", 200)
    rows = [f'<row r="{r}"><c r="A{r}"><v>{r}</v></c><c r="B{r}"><f>A{r}+1</f></c></row>'
            for r in range(1, 60)]
    rows[at * 10 + 3] = '<row r="2"><c r="C2"><f>A1</f></c></row>' if at % 2 else \
        '<row r="99"><c r="A99"><f t="shared" ref="A99:A99" si="0">1</f></c></row>'
    data = _part("".join(rows))
    columns, state, _ = _columns_or_dicts(data)
    assert columns is None
    assert state == _outcome(data, False, monkeypatch)

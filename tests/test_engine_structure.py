"""Workbook structure as Excel reads it (issue 16): sheet names, defined names, implicit
intersection, legacy array formulas, the 1904 date system, ROW/COLUMN of the cell
itself, structured, OFFSET/INDIRECT and external references. Each test builds its own
small workbook; the expected values are Excel's documented behaviour (the docstrings say
which), cross-checked with LibreOffice headless where it agrees with Excel."""
from __future__ import annotations

import openpyxl
import pytest

from zvmplan_addin import recalc as engine

from builders import save, values_of

#: sheet names that must be quoted in a reference, and some that need not be
SHEET_NAMES = ("Q1-2024", "HS1-XYZ", "A1", "R1C1", "TRUE", "My Sheet", "O'Brien", "Ünï",
               "Q1 2024", "Plan.v2", "2024")


def sheet_names_book(path):
    """Sheet ``Q1-2024`` reads F57 of itself with and without its name, and B2 and A1 of
    each sheet of :data:`SHEET_NAMES`; each of those sheets holds B2 = 5, A1 = B2*3 and
    A2 = SUM(B1:B3)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = SHEET_NAMES[0]
    ws["F57"] = 21
    ws["A1"] = "=F57*2"
    ws["A2"] = "='Q1-2024'!F57+1"
    ws["A3"] = "=SUM(F56:F58)"
    for k, name in enumerate(SHEET_NAMES[1:]):
        other = wb.create_sheet(name)
        other["B2"] = 5
        other["A1"] = "=B2*3"
        other["A2"] = "=SUM(B1:B3)"
        quoted = "'" + name.replace("'", "''") + "'"
        ws.cell(row=10 + k, column=1, value=f"={quoted}!B2+{quoted}!A1+{quoted}!A2")
    return save(wb, path)


def test_sheet_names_that_read_like_references(tmp_path):
    """Excel quotes a sheet name in a reference unless it is letters, digits, ``_`` and
    ``.`` starting with a letter and not itself a reference (``'Q1-2024'!F57``,
    ``'A1'!B2``), and reads a sheet's own unqualified references from that sheet: in
    sheet ``Q1-2024``, ``=F57*2`` is 42 when F57 holds 21 (it read as empty, 0, when
    formulas wrote the name back unquoted and parsed ``Q1`` out of it)."""
    out = tmp_path / "out.xlsx"
    report = engine.calc(sheet_names_book(tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Q1-2024")
    assert [ws["A1"].value, ws["A2"].value, ws["A3"].value] == [42, 22, 21]
    assert [ws.cell(row=10 + k, column=1).value for k in range(len(SHEET_NAMES) - 1)] == \
        [25] * (len(SHEET_NAMES) - 1)
    for name in SHEET_NAMES[1:]:
        other = values_of(out, name)
        assert (other["A1"].value, other["A2"].value) == (15, 5), name
    assert not report.warnings and not report.unsupported


def test_row_and_column_of_the_cell_itself_are_not_circular(tmp_path):
    """ROW, COLUMN, ROWS, COLUMNS and ISREF read where a reference is, never its value,
    so Excel computes ``=ROW(A2)*10`` in A2 (20) without a circular-reference warning;
    the same for a range holding the cell. A value read beside them still counts."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A2"] = "=ROW(A2)*10"
    ws["B3"] = "=COLUMN(B3)+ROWS(A1:C5)*100+COLUMNS(B1:B9)"
    ws["D5"] = "=IF(ISREF(D5),1,2)"
    ws["E1"] = "=ROW(E1)+E2"
    ws["E2"] = 7
    ws["F1"] = "=ROW(F1)+F1"          # reads its own value too: circular, 0 as in Excel
    out = tmp_path / "out.xlsx"
    report = engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Sheet")
    assert [ws[c].value for c in ("A2", "B3", "D5", "E1", "F1")] == [20, 503, 1, 8, 0]
    assert report.circular == ["Sheet!F1"]


def names_book(path):
    """Sheet S holds 10, 20, 30 in D1:D3 and rate 0.5 local to it; sheet Other holds its
    own local rate (0.25, in B1); the global rate is 2. Sheet S: ``=ROWVAL`` in E1:E3
    (``ROWVAL = S!$D1``, relative rows), ``=Other!rate``, ``=rate``, a name of names,
    a formula name with a relative reference and one that uses itself."""
    from openpyxl.workbook.defined_name import DefinedName
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    other = wb.create_sheet("Other")
    other["B1"] = 0.25
    for r, v in enumerate((10, 20, 30), start=1):
        ws[f"D{r}"] = v
        ws[f"E{r}"] = "=ROWVAL"
        ws[f"F{r}"] = "=NEXTROW*2"
    ws["A1"] = "=Other!rate"
    ws["A2"] = "=rate"
    ws["A3"] = "=Doubled"
    ws["A4"] = "=SUM(Block)"
    ws["A5"] = "=Loop"
    other["A1"] = "=rate"
    wb.defined_names["ROWVAL"] = DefinedName("ROWVAL", attr_text="S!$D1")
    wb.defined_names["NEXTROW"] = DefinedName("NEXTROW", attr_text="S!$D2+0")
    wb.defined_names["rate"] = DefinedName("rate", attr_text="2")
    wb.defined_names["Doubled"] = DefinedName("Doubled", attr_text="rate*ROWVAL")
    wb.defined_names["Block"] = DefinedName("Block", attr_text="S!$D$1:$D$3")
    wb.defined_names["Loop"] = DefinedName("Loop", attr_text="Loop+1")
    ws.defined_names["rate"] = DefinedName("rate", attr_text="0.5")
    other.defined_names["rate"] = DefinedName("rate", attr_text="Other!$B$1")
    return save(wb, path)


def test_defined_names_relative_and_sheet_local(tmp_path):
    """Excel stores a name's relative references relative to A1 and moves them to the
    cell using the name (``ROWVAL = S!$D1`` in E1:E3 gives 10, 20, 30, not 10, 10, 10);
    in a sheet its own local name wins over the global one, and ``Other!rate`` reads
    sheet Other's local ``rate`` (0.25), not the caller's (0.5); names inside a name are
    read in the same cell (``Doubled = rate*ROWVAL`` in S!A3: 0.5 * 30); a name that
    uses itself is #NAME? here (Excel reports a circular reference)."""
    out = tmp_path / "out.xlsx"
    engine.calc(names_book(tmp_path / "in.xlsx"), out)
    ws = values_of(out, "S")
    assert [ws[f"E{r}"].value for r in (1, 2, 3)] == [10, 20, 30]
    assert [ws[f"F{r}"].value for r in (1, 2)] == [40, 60]
    assert [ws[f"A{r}"].value for r in (1, 2, 3, 4)] == [0.25, 0.5, 15, 60]
    assert ws["A5"].value == "#NAME?"
    assert values_of(out, "Other")["A1"].value == 0.25


def test_implicit_intersection_in_legacy_formulas(tmp_path):
    """A formula stored as a plain ``<f>`` (no ``t="array"``) is evaluated as Excel did
    before dynamic arrays, and as Excel 365 still does for such a formula (it shows it
    with ``@``): a range read by an operator, or as the whole result, is the one cell in
    the formula's row (a column) or column (a row), #VALUE! beside it. ``=B:B*2`` in C5
    is B5*2; ``=A1:A5`` in D3 is A3; ``SUM(A1:A5*1)`` in row 4 is 4; a function taking
    a range (``SUM(A1:A5)``) and an array argument (``SUMPRODUCT((A1:A5>2)*A1:A5)``)
    keep the whole range; an array formula (``t="array"``) is not intersected."""
    from openpyxl.worksheet.formula import ArrayFormula
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 6):
        ws[f"A{r}"], ws[f"B{r}"] = r, r * 10
    ws["C5"] = "=B:B*2"
    ws["D3"] = "=A1:A5"
    ws["E4"] = "=SUM(A1:A5*1)"
    ws["F2"] = "=SUM(A1:A5)"
    ws["G7"] = "=A1:A5*2"                       # beside A1:A5: #VALUE!
    ws["H1"] = '=A:A&"/"&B:B'
    ws["I2"] = "=-A1:A5"
    ws["J2"] = "=SUMPRODUCT((A1:A5>2)*A1:A5)"
    ws["C8"], ws["D8"] = 3, 4
    ws["D9"] = "=C8:E8+1"                        # a row: the cell in the same column
    ws["K1"] = ArrayFormula("K1", "=SUM(A1:A5*1)")
    out = tmp_path / "out.xlsx"
    engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Sheet")
    got = [ws[c].value for c in ("C5", "D3", "E4", "F2", "G7", "H1", "I2", "J2", "D9", "K1")]
    assert got == [100, 3, 4, 15, "#VALUE!", "1/10", -2, 12, 5, 15]


def test_legacy_array_formula_fills_each_cell_with_its_own_element(tmp_path):
    """A multi-cell array formula (Ctrl+Shift+Enter, ``t="array"`` over H1:J1) shows
    element k of its result in its k-th cell. INDEX with a column number 0 is the whole
    row and with a row number 0 the whole column (Microsoft's INDEX page), so
    ``{=INDEX(K1:M1,1,0)}`` over H1:J1 is 1, 2, 3 (it showed K1 three times), and
    ``=SUM(INDEX(K1:M2,0,2))`` adds column L; past the edge it is #REF!."""
    from openpyxl.worksheet.formula import ArrayFormula
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["K1"], ws["L1"], ws["M1"] = 1, 2, 3
    ws["K2"], ws["L2"], ws["M2"] = 4, 5, 6
    ws["H1"] = ArrayFormula("H1:J1", "=INDEX(K1:M1,1,0)")
    ws["H3"] = ArrayFormula("H3:H4", "=INDEX(K1:M2,0,3)")
    ws["A1"] = "=SUM(INDEX(K1:M2,0,2))"
    ws["A2"] = "=SUM(INDEX(K1:M2,2,0))"
    ws["A3"] = "=INDEX(K1:M2,0,4)"
    out = tmp_path / "out.xlsx"
    engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Sheet")
    assert [ws[c].value for c in ("H1", "I1", "J1", "H3", "H4")] == [1, 2, 3, 3, 6]
    assert [ws[c].value for c in ("A1", "A2", "A3")] == [7, 15, "#REF!"]


def dates_book(path, date1904: bool):
    """A1 = 0, A2 = 45000 and formulas turning serials into dates and back, in a
    workbook of the 1904 date system or of the 1900 one."""
    from openpyxl.utils.datetime import CALENDAR_MAC_1904
    wb = openpyxl.Workbook()
    if date1904:
        wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    ws["A1"], ws["A2"] = 0, 45000
    formulas = ["=DATE(2024,1,15)", "=YEAR(A1)", '=DATEVALUE("2024-01-15")',
                '=TEXT(A2,"yyyy-mm-dd")', '=MONTH(A2)&"/"&DAY(A2)', "=WEEKDAY(A1)",
                "=EOMONTH(A2,1)", "=DATE(1900,1,1)", "=B1-A2", "=YEAR(B1)",
                '=TEXT(B1,"d mmm yyyy")', '=TEXT(A2,"0.0")']
    for r, text in enumerate(formulas, start=1):
        ws[f"B{r}"] = text
    return save(wb, path)


def test_the_1904_date_system(tmp_path):
    """In a workbook saved with ``<workbookPr date1904="1"/>`` serial 0 is 1 January 1904
    (a Friday), which is serial 1,462 of the 1900 system (Microsoft, "Date systems in
    Excel"): DATE(2024,1,15) is 43844 (45306 in a 1900 book), YEAR(0) 1904, 45000 shows
    as 2027-03-16, a date before 1904 is #NUM!; arithmetic and number formats are the
    same in both. A 1900 book evaluated afterwards is not affected."""
    out = tmp_path / "out1904.xlsx"
    engine.calc(dates_book(tmp_path / "in1904.xlsx", True), out)
    ws = values_of(out, "Sheet")
    assert [ws[f"B{r}"].value for r in range(1, 13)] == [
        43844, 1904, 43844, "2027-03-16", "3/16", 6, 45045, "#NUM!", -1156, 2024,
        "15 Jan 2024", "45000.0"]
    out = tmp_path / "out1900.xlsx"
    engine.calc(dates_book(tmp_path / "in1900.xlsx", False), out)
    ws = values_of(out, "Sheet")
    assert [ws[f"B{r}"].value for r in range(1, 13)] == [
        45306, 1900, 45306, "2023-03-15", "3/15", 7, 45046, 1, 306, 2024,
        "15 Jan 2024", "45000.0"]


def tables_book(path):
    """Sheet Data holds table Sales over A1:C6: a header row (Region, Amount, Cost), four
    data rows and a totals row (SUM of each column); formulas on Data and on Report use
    structured references of each kind."""
    from openpyxl.worksheet.table import Table
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["Region", "Amount", "Cost"])
    for row in (("N", 10, 4), ("S", 20, 5), ("E", 30, 6), ("W", 40, 7)):
        ws.append(row)
    ws.append(["Total", "=SUBTOTAL(109,Sales[Amount])", "=SUM(Sales[Cost])"])
    table = Table(displayName="Sales", ref="A1:C6", totalsRowCount=1)
    ws.add_table(table)
    for r in range(2, 6):
        ws[f"D{r}"] = "=Sales[[#This Row],[Amount]]-Sales[[#This Row],[Cost]]"
    report = wb.create_sheet("Report")
    report["A1"] = "=SUM(Sales[Amount])"
    report["A2"] = "=ROWS(Sales[#All])"
    report["A3"] = "=SUM(Sales[[Amount]:[Cost]])"
    report["A4"] = "=INDEX(Sales[#Totals],1,3)"
    report["A5"] = "=Sales[[#Headers],[Cost]]"
    report["A6"] = "=ROWS(Sales)"
    report["A7"] = "=SUM(Sales[Nope])"
    report["A8"] = '=COUNTIF(Sales[Region],"S")'
    return save(wb, path)


def test_structured_references(tmp_path):
    """Excel reads ``Sales[Amount]`` as the column's data rows (B2:B5: 100),
    ``Sales[#All]`` as the whole table with header and totals (6 rows),
    ``Sales[[Amount]:[Cost]]`` as two columns (122), ``Sales[#Totals]`` as the totals
    row, ``Sales[[#Headers],[Cost]]`` as the header ("Cost"), ``Sales`` alone as the
    data (4 rows), ``Sales[[#This Row],[Amount]]`` as the cell of the formula's row; a
    column the table does not have is #REF! (Microsoft, "Using structured references
    with Excel tables")."""
    out = tmp_path / "out.xlsx"
    engine.calc(tables_book(tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Report")
    assert [ws[f"A{r}"].value for r in range(1, 9)] == [100, 6, 122, 22, "Cost", 4, "#REF!", 1]
    data = values_of(out, "Data")
    assert [data[f"D{r}"].value for r in range(2, 6)] == [6, 15, 24, 33]
    assert data["C6"].value == 22


def test_this_row_is_read_as_the_formula_rows_reference_moving_with_it(tmp_path):
    """``Sales[[#This Row],[Amount]]`` in row 3 is B3 of the table's sheet (Excel: "the
    cell in the same row as the formula"); written with its row relative (``$B3``),
    so a column of such formulas is one formula filled down, compiled once. ``#All``
    and the data rows stay absolute. D{r} = 2r - (r mod 7): D2 = 2, D9 = 16, D41 = 76."""
    from openpyxl.worksheet.table import Table as OpenpyxlTable
    from zvmplan_addin import xlsx
    from zvmplan_addin.recalc import filldown, shapes
    from zvmplan_addin.recalc.engine import Engine
    from zvmplan_addin.recalc.install import install_functions
    from zvmplan_addin.recalc.tables import TableRefs
    from zvmplan_addin.xlsx.sheet import Table
    refs = TableRefs([Table("Sales", 0, (1, 1, 6, 3), 1, 1, ["Region", "Amount", "Cost"])],
                     ["Data", "Report"])
    this_row = "Sales[[#This Row],[Amount]]-Sales[@Cost]+SUM(Sales[[#This Row],[Amount]:[Cost]])"
    assert refs.inline(this_row, 0, 3, 4) == "Data!$B3-Data!$C3+SUM(Data!$B3:$C3)"
    # Excel writes [[#This Row],[Amount]:[Cost]] as [@[Amount]:[Cost]] (and [@[Cost]] for
    # a column whose name needs brackets): the same cells of the formula's row
    assert refs.inline("SUM(Sales[@[Amount]:[Cost]])+Sales[@[Cost]]", 0, 3, 4) == \
        "SUM(Data!$B3:$C3)+Data!$C3"
    assert refs.inline("SUM(Sales[@[Amount]:[Nope]])", 0, 3, 4) == "SUM(#REF!)"
    assert refs.inline("ROWS(Sales[#All])+SUM(Sales[Amount])", 1, 9, 1) == \
        "ROWS(Data!$A$1:$C$6)+SUM(Data!$B$2:$B$5)"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["Region", "Amount", "Cost"])
    for r in range(2, 42):
        ws.append(["N", r, r % 7])
        ws[f"D{r}"] = "=Sales[[#This Row],[Amount]]*2-Sales[[#This Row],[Cost]]"
    ws.add_table(OpenpyxlTable(displayName="Sales", ref="A1:C41"))
    with xlsx.safe_open_xlsx(save(wb, tmp_path / "rows.xlsx"), parse_sheets=False) as pkg:
        book = xlsx.read_workbook(pkg)
    install_functions()
    e = Engine(book)
    e.recalculate()
    assert [e.nodes.grids[0].get(r, 4) for r in (2, 9, 41)] == [2.0, 16.0, 76.0]
    assert e.compiler.compiled == 1
    shaper = shapes.Shaper("Data")  # D3:D41 follow D2, as a fill down
    runs = filldown.find_runs(e.nodes.n_sheet, e.nodes.n_row, e.nodes.n_col, e.nodes.n_text,
                              e.nodes.cells, lambda s: shaper)
    assert sorted(e.nodes.n_row[i] for run in runs.values() for i in run.members) == \
        list(range(3, 42))


def test_isformula(tmp_path):
    """ISFORMULA is TRUE for a cell holding a formula and FALSE for a value or an empty
    cell (Microsoft's ISFORMULA page), on any sheet; it reads no value, so asking about
    the cell itself is not circular."""
    wb = openpyxl.Workbook()
    ws = wb.active
    other = wb.create_sheet("Q1-2024")
    other["A1"] = "=1+1"
    ws["A1"], ws["A2"] = 5, "=A1*2"
    ws["B1"] = "=ISFORMULA(A1)"
    ws["B2"] = "=ISFORMULA(A2)"
    ws["B3"] = "=ISFORMULA(A9)"
    ws["B4"] = "=ISFORMULA(B4)"
    ws["B5"] = "=ISFORMULA('Q1-2024'!A1)"
    out = tmp_path / "out.xlsx"
    report = engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Sheet")
    assert [ws[f"B{r}"].value for r in range(1, 6)] == [False, True, False, True, True]
    assert not report.circular


_EXTERNAL_LINK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    '<externalBook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    ' r:id="rId1"><sheetNames><sheetName val="Rates"/><sheetName val="My Sheet"/></sheetNames>'
    '<sheetDataSet><sheetData sheetId="0"><row r="1"><cell r="A1"><v>2</v></cell>'
    '<cell r="B1" t="str"><v>east</v></cell></row><row r="2"><cell r="A2"><v>-3.5</v></cell>'
    '<cell r="B2" t="b"><v>1</v></cell></row></sheetData><sheetData sheetId="1"><row r="1">'
    '<cell r="A1" t="e"><v>#N/A</v></cell></row></sheetData></sheetDataSet></externalBook>'
    '</externalLink>')


def external_book(path):
    """A workbook whose formulas read workbook [1] (rates.xlsx, not present), with the
    values Excel cached for it in xl/externalLinks/externalLink1.xml, written by hand
    (openpyxl writes no external links of its own)."""
    import zipfile
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "=[1]Rates!$A$1*10"
    ws["A2"] = "=[1]Rates!A1+[1]Rates!A2"
    ws["A3"] = "=SUM([1]Rates!A1:A2)"
    ws["A4"] = "=[1]Rates!B1&\"-\"&[1]Rates!B2"
    ws["A5"] = "=ISNA('[1]My Sheet'!A1)"
    ws["A6"] = "=[1]Rates!C9"                    # not cached: an error, never 0
    plain = save(wb, path.with_name("plain.xlsx"))
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/workbook.xml":
                data = data.replace(b"</sheets>", b'</sheets><externalReferences>'
                                    b'<externalReference r:id="rIdX1"/></externalReferences>')
            elif item.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(b"</Relationships>", (
                    b'<Relationship Id="rIdX1" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/externalLink" '
                    b'Target="externalLinks/externalLink1.xml"/></Relationships>'))
            elif item.filename == "[Content_Types].xml":
                data = data.replace(b"</Types>", (
                    b'<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType='
                    b'"application/vnd.openxmlformats-officedocument.spreadsheetml.'
                    b'externalLink+xml"/></Types>'))
            dst.writestr(item, data)
        dst.writestr("xl/externalLinks/externalLink1.xml", _EXTERNAL_LINK)
        dst.writestr("xl/externalLinks/_rels/externalLink1.xml.rels", (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
            'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type='
            '"http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'externalLinkPath" Target="rates.xlsx" TargetMode="External"/></Relationships>'))
    return path


def test_external_references_read_the_values_excel_cached(tmp_path):
    """Without the other workbook open, Excel computes a reference to it (``[1]Rates!A1``)
    from the values it cached in the external-link part (sheetDataSet): numbers, text,
    booleans and errors, a range as an array; a cell it did not cache is an error here
    (#REF!), never a silent 0."""
    out = tmp_path / "out.xlsx"
    engine.calc(external_book(tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Sheet")
    assert [ws[f"A{r}"].value for r in range(1, 7)] == [20, -1.5, -1.5, "east-TRUE", True,
                                                         "#REF!"]


def test_offset_and_indirect(tmp_path):
    """OFFSET moves and resizes a reference (Microsoft's OFFSET page: SUM(OFFSET(B1,1,0,
    3,1)) adds B2:B4; off the sheet is #REF!); INDIRECT reads the reference its text
    names, on the formula's sheet unless the text names one, or a defined name (text
    naming nothing is #REF!). What they point to is computed before they read it, also
    when the order of the formulas says otherwise (D8 reads D9 = INDIRECT("E1"), and E1
    is computed from D3)."""
    from openpyxl.workbook.defined_name import DefinedName
    wb = openpyxl.Workbook()
    ws = wb.active
    other = wb.create_sheet("Q1-2024")
    for r in range(1, 6):
        ws[f"A{r}"], ws[f"B{r}"] = r, f"=A{r}*10"
    other["C3"] = 7
    cells = {"D1": "=SUM(OFFSET(B1,1,0,3,1))", "D2": "=OFFSET(A1,2,1)",
             "D3": '=INDIRECT("B"&A4)', "D4": "=INDIRECT(\"'Q1-2024'!C3\")*2",
             "D5": '=SUM(INDIRECT("f"))', "D6": "=OFFSET(A1,-1,0)",
             "D7": '=INDIRECT("nowhere")', "D8": "=D9+1", "D9": '=INDIRECT("E1")',
             "E1": "=D3*2", "D10": "=ROWS(OFFSET(A1,0,0,4,2))*10+COLUMNS(OFFSET(A1,0,0,4,2))"}
    for ref, text in cells.items():
        ws[ref] = text
    wb.defined_names["f"] = DefinedName("f", attr_text="Sheet!$A$1:$A$5")
    out = tmp_path / "out.xlsx"
    report = engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Sheet")
    assert [ws[f"D{r}"].value for r in range(1, 11)] == [90, 30, 40, 14, 15, "#REF!", "#REF!",
                                                         81, 80, 42]
    assert not report.unsupported and not report.warnings


def test_offset_arguments_left_out(tmp_path):
    """An OFFSET argument left empty is left out: ``SUM(OFFSET(K7:L8, 0,0,1,))`` is K7+L7
    (height 1, the reference's own width 2): Excel saved 2.001 in POI's
    FormulaEvalTestData_Copy.xlsx EverythingTests!I1008 (the engine gave #REF!, reading
    the empty width as 0). A height of 0 given is still #REF!, and so is a height read
    from an empty cell, which counts as 0 (it gave the reference's own height); an empty
    cell as the rows moves by 0."""
    from builders import recalc_cells
    got = recalc_cells(tmp_path, {
        "K7": 1, "L7": 1.001, "K8": 5, "L8": 7,
        "A1": "=SUM(OFFSET(K7:L8, 0,0,1,))", "A2": "=SUM(OFFSET(K7:L8,0,0,,1))",
        "A3": "=SUM(OFFSET(K7:L8,,1,1,1))", "A4": "=SUM(OFFSET(K7:L8,0,0,0,1))",
        "A5": "=SUM(OFFSET(K7:L8,0,0,B1,1))", "A6": "=SUM(OFFSET(K7:L8,B1,0,1,1))"})
    assert got == {"A1": 2.001, "A2": 6, "A3": 1.001, "A4": "#REF!", "A5": "#REF!", "A6": 1}


def test_indirect_reads_r1c1_text(tmp_path):
    """INDIRECT(text, FALSE) reads R1C1 text (Microsoft's INDIRECT page): ``R2C2`` is B2,
    ``R[-2]C[1]`` the cell two rows up and one column right of the formula's own, ``R``
    or ``C`` alone the own row or column, ``R1C1:R3C1`` a range, ``C2`` and ``R2:R3``
    whole columns and rows, with or without a sheet; A1 text, row 0 and a sheet that
    does not exist are #REF!. It was #REF! for every R1C1 text."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "D"
    for r in range(1, 11):
        ws[f"A{r}"], ws[f"B{r}"] = r, r * 10
    t = wb.create_sheet("T")
    cells = {"A1": '=INDIRECT("D!R2C2",FALSE)', "A2": '=SUM(INDIRECT("D!R1C1:R3C1",FALSE))',
             "A3": '=INDIRECT("R[-2]C[2]",0)', "A4": '=SUM(INDIRECT("D!C2",FALSE))',
             "A5": '=SUM(INDIRECT("D!R2:R3",FALSE))', "A6": '=INDIRECT("A1",FALSE)',
             "A7": '=INDIRECT("D!R0C1",FALSE)', "A8": '=INDIRECT("x!R1C1",FALSE)',
             "A9": '=ROWS(INDIRECT("D!C1",FALSE))', "A10": '=INDIRECT("rc[2]",FALSE)',
             "A11": "=INDIRECT(\"'D'!r[-1]C2\",FALSE)"}
    for ref, text in cells.items():
        t[ref] = text
    t["C1"], t["C10"] = 77, 5
    out = tmp_path / "out.xlsx"
    engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    t = values_of(out, "T")
    assert [t[f"A{r}"].value for r in range(1, 12)] == [
        20, 6, 77, 550, 55, "#REF!", "#REF!", "#REF!", 1_048_576, 5, 100]


def test_range_operator_with_a_function_for_an_end(tmp_path):
    """Excel's range operator makes the rectangle holding both its ends, also when an end
    is a function's reference (Microsoft's "calculation operators" page; the dynamic
    range ``A1:INDEX(A:A,COUNTA(A:A))``). Each was wrong before, without a warning:
    ``SUM(A1:OFFSET(A1,2,0))`` 4 (A1 + A3: formulas' operator kept only its ends'
    values), ``SUM(INDEX(A1:A10,2):A4)`` 12 (formulas read ``:A4`` as a reference of its
    own), ``D!A1:INDEX(...)`` from another sheet read the formula's own A1, and
    ``INDEX(..A..):INDEX(..C..)`` left out column B's formula cell, computed after it."""
    wb = openpyxl.Workbook()
    d = wb.active
    d.title = "D"
    for r in range(1, 11):
        d[f"A{r}"], d[f"C{r}"] = r, r * 1000
    d["B3"] = "=D!A3*100"
    t = wb.create_sheet("T")
    cells = {"A1": "=SUM(D!A1:OFFSET(D!A1,2,0))", "A2": "=SUM(INDEX(D!A1:A10,2):D!A4)",
             "A3": "=SUM(D!A1:INDEX(D!A1:A10,3))", "A4": "=SUM(D!$A$1:INDEX(D!$A:$A,3))",
             "A5": "=SUM(INDEX(D!A1:A10,2):INDEX(D!C1:C10,4))",
             "A6": "=SUM(D!A1:INDEX(D!A:A,COUNTA(D!A:A)))", "A7": '=")"&":"&"A1:IF("',
             "A8": "=ROWS(D!A2:INDEX(D!A1:A10,5))"}
    for ref, text in cells.items():
        t[ref] = text
    d["E1"] = "=SUM(INDEX(A1:A10,2):A4)"   # on its own sheet, unqualified
    d["E2"] = "=SUM(A1:OFFSET(A1,2,0))"
    out = tmp_path / "out.xlsx"
    report = engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    t, d = values_of(out, "T"), values_of(out, "D")
    assert [t[f"A{r}"].value for r in range(1, 9)] == [6, 9, 6, 6, 9309, 55, "):A1:IF(", 4]
    assert (d["E1"].value, d["E2"].value) == (9, 6)
    assert not report.warnings


def test_one_letter_names_leave_references_alone(tmp_path):
    """Names ``b`` and ``d`` (legal in Excel) do not take the place of the columns of
    ``B$2``, ``Other!B$2`` or ``B:B``, nor of the A of ``#N/A``; ``[0]!rate`` is this
    workbook's ``rate``."""
    from openpyxl.workbook.defined_name import DefinedName
    wb = openpyxl.Workbook()
    ws = wb.active
    other = wb.create_sheet("Other")
    ws["B2"], ws["D2"], other["B2"] = 3, 4, 5
    ws["A1"] = "=B$2+D$2+Other!B$2+SUM(B:B)"
    ws["A2"] = "=b*[0]!rate"
    ws["A3"] = "=IFERROR(#N/A,d)"               # the A of #N/A is no name
    wb.defined_names["b"] = DefinedName("b", attr_text="Sheet!$D$2")
    wb.defined_names["d"] = DefinedName("d", attr_text="Sheet!$B$2")
    wb.defined_names["rate"] = DefinedName("rate", attr_text="10")
    out = tmp_path / "out.xlsx"
    engine.calc(save(wb, tmp_path / "in.xlsx"), out)
    ws = values_of(out, "Sheet")
    assert (ws["A1"].value, ws["A2"].value, ws["A3"].value) == (15, 40, 3)

"""``zvmplan check``: recalculate in memory, compare with the values Excel saved.

The workbooks are written here cell by cell as SpreadsheetML, with the cached ``<v>``
(and its ``t`` type) each test needs: what Excel writes for a number (``<v>3</v>``),
text (``t="str"``), a boolean (``t="b"``), an error (``t="e"``), an array formula
(``<f t="array" ref=...>`` on the first cell, values alone in the others).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from xml.sax.saxutils import escape

import openpyxl
import pytest

from zvmplan_addin import cli
from zvmplan_addin.check import (EXIT_AGREE, EXIT_DIFFERS, EXIT_NOT_COMPUTED, ErrorCode,
                                 check, excel_saved, same_value)
from zvmplan_addin.recalc import StaleValues, calc
from zvmplan_addin.recalc.write import stale_cells

_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
</Types>"""
_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>"""
_BOOK = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"""
_BOOK_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
</Relationships>"""


def workbook(path, cells: dict, excel: bool = False) -> str:
    """An .xlsx whose one sheet ``S`` holds ``cells``: ref -> a number or text (an input),
    or ``(formula, t, cached)`` (``cached`` None: no ``<v>``), or ``(formula, t, cached,
    ref)`` for an array formula over ``ref``, or bytes: the cell's own XML. ``excel``: with
    the marks of a file Excel saved (app.xml naming it, ``<fileVersion appName="xl">``)."""
    from zvmplan_addin.recalc.shapes import parse_area
    rows: dict[int, list] = {}
    for ref, spec in cells.items():
        r, c, _, _ = parse_area(ref)
        if isinstance(spec, bytes):
            xml = spec.decode()
        elif isinstance(spec, tuple):
            formula, t, cached, *area = spec
            f = (f'<f t="array" ref="{area[0]}">{escape(formula)}</f>' if area
                 else f"<f>{escape(formula)}</f>" if formula is not None else "")
            v = "" if cached is None else f"<v>{escape(str(cached))}</v>"
            xml = f'<c r="{ref}"' + (f' t="{t}"' if t else "") + f">{f}{v}</c>"
        elif isinstance(spec, str):
            xml = f'<c r="{ref}" t="inlineStr"><is><t>{escape(spec)}</t></is></c>'
        else:
            xml = f'<c r="{ref}"><v>{spec!r}</v></c>'
        rows.setdefault(r, []).append((c, xml))
    body = "".join(f'<row r="{r}">' + "".join(x for _, x in sorted(rows[r])) + "</row>"
                   for r in sorted(rows))
    sheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
             '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
             f"<sheetData>{body}</sheetData></worksheet>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _TYPES)
        z.writestr("_rels/.rels", _RELS)
        book = _BOOK.replace("<sheets>", '<fileVersion appName="xl" lastEdited="7"/><sheets>')
        z.writestr("xl/workbook.xml", book if excel else _BOOK)
        if excel:
            z.writestr("docProps/app.xml", APP.format(app="Microsoft Excel"))
        z.writestr("xl/_rels/workbook.xml.rels", _BOOK_RELS)
        z.writestr("xl/worksheets/sheet1.xml", sheet)
    return str(path)


AGREEING = {"A1": 1, "A2": 2,
            "A3": ("A1+A2", None, 3),
            "B1": ('A1&"x"', "str", "1x"),
            "C1": ("A1>0", "b", 1),
            "D1": ("1/0", "e", "#DIV/0!"),
            "E1": ("0.1+0.2", None, 0.3)}


def run(*args):
    return cli.main(["check", *args])


def test_a_workbook_that_agrees_exits_0(tmp_path, capsys):
    path = workbook(tmp_path / "ok.xlsx", AGREEING)
    assert run(path) == EXIT_AGREE
    out = capsys.readouterr().out
    assert "5 formula cells compared: 5 agree" in out
    assert "0 differ, 0 could not be computed" in out
    # written here, not by Excel: said, so nobody takes the comparison for one with Excel
    assert "note: Excel did not save these values" in out


def test_a_tampered_value_is_listed_and_exits_4(tmp_path, capsys):
    path = workbook(tmp_path / "bad.xlsx", {**AGREEING, "A3": ("A1+A2", None, 4)})
    assert run(path) == EXIT_DIFFERS
    out = capsys.readouterr().out
    assert "S!A3  =A1+A2  saved 4  recalculated 3" in out
    assert "1 differ" in out


def test_json_lists_the_cells(tmp_path, capsys):
    path = workbook(tmp_path / "bad.xlsx", {**AGREEING, "D1": ("1/0", "e", "#N/A")})
    assert run(path, "--json") == EXIT_DIFFERS
    doc = json.loads(capsys.readouterr().out)
    assert doc["compared"] == 5 and doc["agreeing"] == 4 and doc["differing"] == 1
    assert doc["exit_code"] == EXIT_DIFFERS and doc["saved_by_excel"] is False
    assert doc["cells"] == [{"cell": "S!D1", "formula": "=1/0", "saved": {"error": "#N/A"},
                             "recalculated": {"error": "#DIV/0!"}, "computed": True,
                             "reason": ""}]


def test_in_is_never_written(tmp_path):
    path = workbook(tmp_path / "bad.xlsx", {**AGREEING, "A3": ("A1+A2", None, 4)})
    before = (os.stat(path).st_mtime_ns, hashlib.sha256(open(path, "rb").read()).digest())
    run(path)
    assert (os.stat(path).st_mtime_ns,
            hashlib.sha256(open(path, "rb").read()).digest()) == before
    assert sorted(os.listdir(tmp_path)) == ["bad.xlsx"]


@pytest.mark.parametrize("saved, got, agree", [
    (0.3, 0.1 + 0.2, True),                 # 0.30000000000000004: equal to 15 digits
    (1234567.890123451, 1234567.890123452, True),  # the 16th digit
    (1234567.89012345, 1234567.89012346, False),  # the 15th digit
    (0.3, 0.30000000000001, False),         # the 14th digit differs: Excel shows it
    (0.0, 2.7755575615628914e-17, False),   # Excel's 0 is not a tiny residue
    (1.0, True, False),                     # a boolean is never a number
    (True, True, True),
    ("a", "A", False),                      # text exactly: case counts
    ("a ", "a", False),
    (0.0, "", False),                       # an empty result (0) is not empty text
    (ErrorCode("#N/A"), ErrorCode("#N/A"), True),
    (ErrorCode("#N/A"), "#N/A", False),     # an error is not the text that reads alike
    (ErrorCode("#N/A"), ErrorCode("#VALUE!"), False),
])
def test_comparison_rules(saved, got, agree):
    """Excel keeps 15 significant digits of a number; text, booleans and error codes
    are compared exactly (docs/engine.md, "Checking a workbook")."""
    assert same_value(saved, got) is agree


def test_a_formula_the_engine_cannot_compute_exits_5(tmp_path, capsys):
    """CUBEVALUE (an OLAP query) is not implemented: the cell is 'not computed', with why,
    and a formula reading it is compared with what the engine computed from it (the
    value Excel saved in the file is never read)."""
    path = workbook(tmp_path / "g.xlsx", {
        "A1": 1, "A2": 2,
        "B1": ('CUBEVALUE("Sales","[Measures].[Units]")', None, 1),
        "C1": ("ISERROR(B1)", "b", 0),
        "D1": ("A1+A2", None, 3)})
    assert run(path) == EXIT_NOT_COMPUTED
    out = capsys.readouterr().out
    assert 'S!B1  =CUBEVALUE("Sales","[Measures].[Units]")  saved 1  not computed  ' \
        '(not implemented by the engine: CUBEVALUE)' in out
    assert "S!C1  =ISERROR(B1)  saved FALSE  recalculated TRUE" in out
    assert "3 formula cells compared: 1 agree" in out


def test_a_vba_function_of_the_workbook_is_not_computed_and_says_so(tmp_path):
    """SROUND is no Excel function (not in ECMA-376's list, no ``_xlfn.`` prefix): in Apache
    POI's stress002.xlsx it is a VBA ``Function`` of the workbook's xl/vbaProject.bin,
    which Excel runs and the engine cannot. Such a cell is "not computed", with that
    reason, never a plausible value; an Excel function the engine lacks (CUBEVALUE) keeps
    its own reason."""
    path = workbook(tmp_path / "vba.xlsx", {
        "A1": 2.5,
        "B1": ("SROUND(A1)", None, 3),
        "C1": ("CUBEVALUE(\"Sales\")", None, 1)})
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("xl/vbaProject.bin", b"\xd0\xcf\x11\xe0")  # the part's name is the sign
    report = check(path)
    why = {m.cell: (m.computed, m.reason) for m in report.mismatches}
    assert why["S!B1"] == (False, "a VBA function of the workbook, which the engine does "
                                  "not run: SROUND")
    assert why["S!C1"] == (False, "not implemented by the engine: CUBEVALUE")
    from zvmplan_addin.recalc.excel.unknown import not_computed_reason
    # =A9.High, a linked data type's field, is _FV(A9,"High") in the file: Excel's own
    assert not_computed_reason({"_FV"}, '_FV(A9,"High")', vba=True) == \
        "not implemented by the engine: _FV"
    # COUNTA(Sheet1:Sheet3!C1): formulas reads the 3-D reference's first sheet as a name
    assert not_computed_reason({"SHEET1"}, "COUNTA(Sheet1:Sheet3!C1)") == \
        "a 3-D reference across sheets, which the engine does not read: SHEET1:..."
    plain = workbook(tmp_path / "plain.xlsx", {"A1": 2.5, "B1": ("SROUND(A1)", None, 3)})
    assert [m.reason for m in check(plain).mismatches] == [
        "not an Excel function: a VBA or add-in function, which the engine does not run: "
        "SROUND"]


def test_saved_values_are_not_read_by_other_formulas(tmp_path):
    """B1's saved 10 is taken out before the engine runs: C1 =B1*2 is computed from
    the engine's B1 (2), not from the 10 in the file, so both are listed."""
    path = workbook(tmp_path / "s.xlsx", {"A1": 1, "B1": ("A1*2", None, 10),
                                          "C1": ("B1*2", None, 20)})
    report = check(path)
    assert [(m.cell, m.saved, m.recalculated) for m in report.mismatches] == \
        [("S!B1", 10.0, 2.0), ("S!C1", 20.0, 4.0)]


def test_array_formulas_compare_every_cell(tmp_path):
    cells = {"A1": 1, "A2": 2, "B1": ("A1:A2*2", None, 2, "B1:B2"), "B2": 4}
    assert check(workbook(tmp_path / "a.xlsx", cells)).exit_code() == EXIT_AGREE
    report = check(workbook(tmp_path / "b.xlsx", {**cells, "B2": 5}))
    assert [(m.cell, m.saved, m.recalculated) for m in report.mismatches] == \
        [("S!B2", 5.0, 4.0)]
    assert report.compared == 2


def test_cells_without_a_saved_value_are_counted_not_compared(tmp_path, capsys):
    path = workbook(tmp_path / "n.xlsx", {"A1": 1, "B1": ("A1*2", None, None),
                                          "C1": ("A1*3", None, 3)})
    assert run(path) == EXIT_AGREE
    assert "1 formula cells have no saved value to compare" in capsys.readouterr().out


def test_volatile_cells_are_read_as_saved_and_not_compared(tmp_path, capsys):
    """RAND and TODAY cannot give Excel's value again: Excel's draw is read as an input,
    so a formula reading it is compared on the same draw (C1 = 2 * 0.25)."""
    path = workbook(tmp_path / "v.xlsx", {"A1": ("RAND()", None, 0.25),
                                          "B1": ("TODAY()-1", None, 45000),
                                          "C1": ("A1*2", None, 0.5),
                                          "D1": ('"RAND()"&"x"', "str", "RAND()x")})
    assert run(path) == EXIT_AGREE
    out = capsys.readouterr().out
    assert "2 formula cells compared: 2 agree" in out
    assert "(2 formula cells call RAND/RANDBETWEEN/RANDARRAY/NOW/TODAY: not compared" in out


def test_a_refused_file_is_one_line_and_exit_1(tmp_path, capsys):
    path = tmp_path / "x.xlsx"
    path.write_bytes(b"not a zip")
    assert run(str(path)) == 1
    err = capsys.readouterr().err
    assert err.startswith("zvmplan: error:") and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------------------------
# Never a stale value: a formula the engine cannot compute keeps the value cached in
# the file only when the user asks (``zvmplan calc --keep-stale``); otherwise nothing
# is written, the cells are listed with why and the exit code is 3.

#: a one-variable data table (What-If Analysis): Excel's TABLE(), which the engine
#: does not compute; Excel cached 10 and 20 in B2:B3
DATA_TABLE = {"A1": 1, "C1": ("A1*10", None, 10), "A2": 1, "A3": 2,
              "B2": b'<c r="B2"><f t="dataTable" ref="B2:B3" dt2D="0" dtr="0" r1="A1"/>'
                    b"<v>10</v></c>",
              "B3": 20.0}


def test_calc_refuses_to_write_stale_values(tmp_path, capsys):
    src = workbook(tmp_path / "dt.xlsx", DATA_TABLE)
    out = tmp_path / "out.xlsx"
    assert cli.main(["calc", src, "-o", str(out)]) == cli.EXIT_STALE == 3
    err = capsys.readouterr().err
    assert "1 formula cell could not be computed" in err
    assert "nothing written (--keep-stale writes them)" in err
    assert "  S!B2: a data table" in err
    assert not out.exists() and sorted(os.listdir(tmp_path)) == ["dt.xlsx"]


def test_in_place_refusal_leaves_the_input_as_it_was(tmp_path):
    src = workbook(tmp_path / "dt.xlsx", DATA_TABLE)
    before = open(src, "rb").read()
    assert cli.main(["calc", src, "--in-place", "-q"]) == cli.EXIT_STALE
    assert open(src, "rb").read() == before


def test_keep_stale_writes_them_and_still_lists_them(tmp_path, capsys):
    src = workbook(tmp_path / "dt.xlsx", DATA_TABLE)
    out = tmp_path / "out.xlsx"
    assert cli.main(["calc", src, "-o", str(out), "--keep-stale", "-q"]) == 0
    err = capsys.readouterr().err
    assert "1 formula cells could not be computed and keep the value cached" in err
    assert "  S!B2: a data table" in err
    ws = openpyxl.load_workbook(out, data_only=True)["S"]
    assert (ws["B2"].value, ws["C1"].value) == (10, 10)


def test_the_api_raises_only_when_asked(tmp_path):
    src = workbook(tmp_path / "dt.xlsx", DATA_TABLE)
    with pytest.raises(StaleValues) as info:
        calc(src, tmp_path / "a.xlsx", keep_stale=False)
    assert info.value.report.stale == {"S!B2": "a data table"}
    assert not (tmp_path / "a.xlsx").exists()
    report = calc(src, tmp_path / "b.xlsx")
    assert report.stale == {"S!B2": "a data table"} and report.full_calc_on_load


def test_stale_cells_read_the_engines_warnings():
    """Both ways the engine keeps a cached value are listed, and only those."""
    warnings = ["S!B2: a data table; kept its cached value",
                "S!C9: cannot evaluate =Table1[Col] (FormulaError); kept its cached value",
                "S!D1: the 3x1 result cannot spill into D1:D3 (not empty)"]
    assert stale_cells(warnings) == {"S!B2": "a data table",
                                     "S!C9": "cannot evaluate =Table1[Col] (FormulaError)"}


def test_a_workbook_without_stale_cells_exits_0(tmp_path):
    src = workbook(tmp_path / "ok.xlsx", {"A1": 1, "B1": ("A1*2", None, 0)})
    assert cli.main(["calc", src, "-o", str(tmp_path / "o.xlsx"), "-q"]) == 0


# ------------------------------------------------------------------------------------
# Which workbooks Excel saved with its values (build/corpus.py keeps only those)
APP = ('<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/'
       'extended-properties"><Application>{app}</Application></Properties>')
BOOK = ('<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        '<fileVersion appName="xl" lastEdited="7" lowestEdited="7" rupBuild="27328"/>'
        '<calcPr {calc}/></workbook>')
SHEET = ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
         '<sheetData><row r="1"><c r="A1"><v>1</v></c><c r="B1"><f>A1*3</f>{v}</c>'
         '<c r="C1"><f t="shared" ref="C1:D1" si="0">A1+1</f><v>2</v></c>'
         '<c r="D1"><f t="shared" si="0"/><v>3</v></c></row></sheetData></worksheet>')


def xlsx(app="Microsoft Excel", calc='calcId="191029"', v="<v>3</v>") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("docProps/app.xml", APP.format(app=app))
        z.writestr("xl/workbook.xml", BOOK.format(calc=calc))
        z.writestr("xl/worksheets/sheet1.xml", SHEET.format(v=v))
    return out.getvalue()


def test_an_excel_saved_workbook_counts_its_cached_formula_cells():
    assert excel_saved(xlsx()) == 3        # B1, and the shared formula's C1 and D1
    assert excel_saved(xlsx(v="")) == 2    # B1 carries no value
    assert excel_saved(xlsx(app="Microsoft Macintosh Excel")) == 3


@pytest.mark.parametrize("kwargs", [
    {"app": "LibreOffice/7.4"},
    {"calc": 'calcId="124519" fullCalcOnLoad="1"'},   # XlsxWriter, openpyxl
    {"calc": 'calcId="999999"'},                      # PhpSpreadsheet
])
def test_workbooks_other_programs_wrote_are_left_out(kwargs):
    assert excel_saved(xlsx(**kwargs)) == 0


def test_check_knows_a_workbook_excel_saved(tmp_path, capsys):
    path = workbook(tmp_path / "e.xlsx", AGREEING, excel=True)
    assert run(path) == EXIT_AGREE
    assert "5 agree" in (out := capsys.readouterr().out) and "note:" not in out
    assert check(path).saved_by_excel


def test_a_workbook_openpyxl_wrote_is_left_out(tmp_path):
    """openpyxl writes "Microsoft Excel" into app.xml, and no cached values."""
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["B1"] = 1, "=A1*2"
    wb.save(tmp_path / "o.xlsx")
    assert excel_saved((tmp_path / "o.xlsx").read_bytes()) == 0
    assert excel_saved(b"not a zip") == 0

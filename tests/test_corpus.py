"""build/corpus.py keeps only workbooks Excel saved with their formulas' values cached;
build/corpus_score.py sorts the disagreements into classes."""
from __future__ import annotations

import importlib.util
import io
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest

BUILD = Path(__file__).resolve().parents[1] / "build"


def _load(name):
    if str(BUILD) not in sys.path:
        sys.path.insert(0, str(BUILD))
    spec = importlib.util.spec_from_file_location(f"_build_{name}", BUILD / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


corpus = _load("corpus")
score = _load("corpus_score")

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
    assert corpus.excel_saved(xlsx()) == 3        # B1, and the shared formula's C1 and D1
    assert corpus.excel_saved(xlsx(v="")) == 2    # B1 carries no value
    assert corpus.excel_saved(xlsx(app="Microsoft Macintosh Excel")) == 3


@pytest.mark.parametrize("kwargs", [
    {"app": "LibreOffice/7.4"},
    {"calc": 'calcId="124519" fullCalcOnLoad="1"'},   # XlsxWriter, openpyxl
    {"calc": 'calcId="999999"'},                      # PhpSpreadsheet
])
def test_workbooks_other_programs_wrote_are_left_out(kwargs):
    assert corpus.excel_saved(xlsx(**kwargs)) == 0


def test_a_workbook_openpyxl_wrote_is_left_out(tmp_path):
    """openpyxl writes "Microsoft Excel" into app.xml, and no cached values."""
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["B1"] = 1, "=A1*2"
    wb.save(tmp_path / "o.xlsx")
    assert corpus.excel_saved((tmp_path / "o.xlsx").read_bytes()) == 0
    assert corpus.excel_saved(b"not a zip") == 0


def test_the_manifest_reads_back(tmp_path):
    (tmp_path / "MANIFEST.tsv").write_text(
        "file\trepository\tcommit\tpath\tlicence\tblob\tformula_cells\n"
        "a+b/t.xlsx\ta/b\tc0ffee\tt.xlsx\tMIT\tbeef\t12\n", encoding="utf-8")
    assert corpus.read_manifest(tmp_path) == [{
        "file": "a+b/t.xlsx", "repository": "a/b", "commit": "c0ffee", "path": "t.xlsx",
        "licence": "MIT", "blob": "beef", "formula_cells": 12}]


def test_disagreements_are_classed_by_kind_and_function():
    from zvmplan_addin.check import ErrorCode
    kind = score.kind_of(2.0, 1.0, True, "")
    assert kind == "silent wrong value" and score.is_silent(kind)
    assert score.kind_of(ErrorCode("#N/A"), 1.0, True, "") == \
        "silent value where Excel has an error"
    assert score.kind_of(1.0, ErrorCode("#VALUE!"), True, "") == "error where Excel has a value"
    assert score.class_of("silent wrong value", "IF(A1,TEXT(B1,\"0.0\"),1)", "") == \
        "silent wrong value: TEXT"
    assert score.class_of("not computed", "SUM(Table1[Col])", "cannot evaluate ...") == \
        "not computed: a structured reference (Table[Column])"
    assert score.class_of("not computed", "OFFSET(A1,1,1)",
                          "not implemented by the engine: OFFSET") == \
        "not computed: not implemented: OFFSET"
    assert score.functions_in('_xlfn.XLOOKUP(A1,B:B,C:C)+Sheet1!A1') == ["XLOOKUP"]

"""The headless engine: ``calc`` recalculates builtins and registry functions, keeps the
formulas, caches the values, leaves everything else in the file alone and never touches
its input. Workbooks are built with openpyxl in each test; the functions under test are
declared here (``ZT_*``) so these tests do not depend on the model's numbers."""
from __future__ import annotations

import hashlib
import os
import zipfile

import numpy as np
import openpyxl
import pytest
from openpyxl.styles import Font
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.formula import ArrayFormula

from zvmplan import Many
from zvmplan.errors import NoDataError, OutOfRangeError, UnknownNameError
from zvmplan_addin import recalc as engine, xlsx as xlsxio
from zvmplan_addin.recalc import shapes
from zvmplan_addin.recalc.values import make_ranges
from zvmplan_addin.registry import REGISTRY, Param, as_number, worksheet_function


# ---------------------------------------------------------- test functions ----
def _declare():
    if "ZT_SCALE" in REGISTRY:
        return

    @worksheet_function(description="x times factor; x < 0 is out of range", example="=ZT_SCALE(2,3)",
                        returns="number", params=[
                            Param("x", "a number; a range gives an array",
                                  lambda v: as_number(v, "x"), vector=True),
                            Param("factor", "multiplier, default 1",
                                  lambda v: as_number(v, "factor"), optional=True)])
    def zt_scale(x, factor=None):
        f = 1.0 if factor is None else factor
        if isinstance(x, np.ndarray):
            errors = {i: OutOfRangeError(f"x must be >= 0; got {v}") for i, v in enumerate(x) if v < 0}
            return Many(np.where(x < 0, np.nan, x * f), errors)
        if x < 0:
            raise OutOfRangeError(f"x must be >= 0; got {x}")
        return x * f

    @worksheet_function(description="the length of a name", example='=ZT_NAME("abc")',
                        returns="count", params=[Param("name", "a name", str)])
    def zt_name(name):
        if name == "missing":
            raise NoDataError("no data for 'missing'")
        if name == "bad":
            raise UnknownNameError("unknown name 'bad'; valid: anything else")
        return float(len(name))

    @worksheet_function(description="x times factor plus add", example="=ZT_SCALE3(1,2,3)",
                        returns="number", params=[
                            Param("x", "a number", lambda v: as_number(v, "x")),
                            Param("factor", "default 1", lambda v: as_number(v, "factor"),
                                  optional=True),
                            Param("add", "default 0", lambda v: as_number(v, "add"),
                                  optional=True)])
    def zt_scale3(x, factor=None, add=None):
        return x * (1.0 if factor is None else factor) + (add or 0.0)

    @worksheet_function(description="three names down a column", example="=ZT_COLUMN()",
                        returns="text column", params=[], spill=True)
    def zt_column():
        return np.array([["a"], ["b"], ["c"]], dtype=object)


@pytest.fixture(autouse=True, scope="module")
def zt_functions():
    """The ZT_ functions, in the registry for this module's tests only (other tests list
    the registry)."""
    _declare()
    yield
    for name in ("ZT_SCALE", "ZT_NAME", "ZT_COLUMN", "ZT_SCALE3"):
        REGISTRY.pop(name, None)


# ------------------------------------------------------------------ helpers ----
def _save(wb, path):
    wb.save(path)
    return path


def _digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def _values(path, sheet="Plan"):
    return openpyxl.load_workbook(path, data_only=True)[sheet]


def _formulas(path, sheet="Plan"):
    return openpyxl.load_workbook(path)[sheet]


@pytest.fixture
def planner(tmp_path):
    """Builtins and ZT_ functions, IFERROR, ranges, a defined name, a cross-sheet
    reference, an array formula, a spill, a blocked spill, a cycle, errors as input."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    inputs = wb.create_sheet("Inputs")
    inputs["A1"], inputs["B1"], inputs["B2"] = "rate", 1.5, 7
    wb.defined_names["Rate"] = DefinedName("Rate", attr_text="Inputs!$B$1")
    ws.append(["x", "factor", "scaled", "rounded", "iferror", "iserror"])
    for r, x in zip(range(2, 7), [1, 2, -1, 4, 5]):
        ws[f"A{r}"], ws[f"B{r}"] = x, 2
        ws[f"C{r}"] = f"=ZT_SCALE(A{r},B{r})"
        ws[f"D{r}"] = f"=ROUND(C{r}*Rate,2)"
        ws[f"E{r}"] = f'=IFERROR(ZT_SCALE(A{r},B{r}),"neg")'
        ws[f"F{r}"] = f"=ISERROR(C{r})"
    ws["G2"] = "=SUM(A2:A6)"
    ws["G3"] = "=ZT_SCALE(Inputs!B2)"
    ws["G4"] = "=Inputs!B1*2"
    ws["G5"] = "=SUM(C2:C6)"
    ws["G6"] = '=SUMPRODUCT((A2:A6>0)*A2:A6)'
    ws["H2"] = "=ZT_SCALE(A2:A4,10)"            # spills into H3:H4
    ws["I2"] = "=ZT_COLUMN()"                   # blocked by I3
    ws["I3"] = "in the way"
    ws["J2"] = '=ZT_NAME("missing")'
    ws["J3"] = '=ZT_NAME("bad")'
    ws["J4"] = "=ZT_NAME(A99)"
    ws["J5"] = '=ZT_NAME("abcd")'
    ws["K2"] = "=_xldudf_ZVMPLAN_ZT_SCALE(3)"
    ws["K3"] = "=_xludf.ZT_SCALE(4)"
    ws["K4"] = "=ZVMPLAN.ZT_SCALE(5)"
    ws["L2"] = ArrayFormula("L2:L4", "=A2:A4*2")
    ws["N2"], ws["N3"], ws["N4"] = "=N3*2", "=N4+1", "=A5"   # computed bottom-up
    ws["O2"], ws["O3"] = "=O3+1", "=O2+1"                    # a cycle
    ws["P2"] = '="IUCV"&"-"&A2'
    ws["Q2"] = "=A2>0"
    ws["R2"] = "=ZT_SCALE(#N/A)"
    ws["R3"] = "=ZT_SCALE(1/0)"
    ws["R4"] = "=ZT_SCALE(S2)"                               # an error cell as input
    ws["S2"] = "=1/0"
    ws["T2"] = "=ISERROR(ZT_NAME(\"missing\"))"
    ws["T3"] = "=IFERROR(ZT_NAME(\"bad\"),-1)"
    ws["U2"] = "=ZT_SCALE(A2)+ZT_SCALE(A2)"                  # one reference twice
    return _save(wb, tmp_path / "planner.xlsx")


# ------------------------------------------------------------------- calc ----
def test_calc_caches_builtin_and_registry_values(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    ws = _values(out)
    assert [ws[f"C{r}"].value for r in range(2, 7)] == [2, 4, "#NUM!", 8, 10]
    assert [ws[f"D{r}"].value for r in range(2, 7)] == [3, 6, "#NUM!", 12, 15]
    assert [ws[f"E{r}"].value for r in range(2, 7)] == [2, 4, "neg", 8, 10]
    assert [ws[f"F{r}"].value for r in range(2, 7)] == [False, False, True, False, False]
    assert ws["G2"].value == 11
    assert ws["G3"].value == 7          # cross-sheet reference
    assert ws["G4"].value == 3          # cross-sheet, builtin
    assert ws["G5"].value == "#NUM!"    # an error inside a range propagates through SUM
    assert ws["G6"].value == 12
    assert ws["J2"].value == "#N/A"
    assert ws["J3"].value == "#VALUE!"
    assert ws["J4"].value == "#VALUE!"  # a required argument left empty
    assert ws["J5"].value == 4
    assert [ws["K2"].value, ws["K3"].value, ws["K4"].value] == [3, 4, 5]
    assert [ws["N2"].value, ws["N3"].value, ws["N4"].value] == [10, 5, 4]
    assert ws["P2"].value == "IUCV-1"
    assert ws["Q2"].value is True
    assert [ws["R2"].value, ws["R3"].value, ws["R4"].value] == ["#N/A", "#DIV/0!", "#DIV/0!"]
    assert ws["T2"].value is True
    assert ws["T3"].value == -1
    assert ws["U2"].value == 2
    assert report.error_cells >= 8
    assert report.errors["Plan!J2"] == ("#N/A", "no data for 'missing'")
    assert report.errors["Plan!C4"][0] == "#NUM!"
    assert "Plan!E4" not in report.errors and "Plan!T3" not in report.errors  # IFERROR caught them


def test_calc_keeps_formulas(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    engine.calc(planner, out)
    before, after = _formulas(planner), _formulas(out)
    for row in before.iter_rows():
        for cell in row:
            if cell.data_type == "f" and not isinstance(cell.value, ArrayFormula):
                kept = after[cell.coordinate].value
                if isinstance(kept, ArrayFormula):  # a spilled result: same text
                    kept = kept.text
                assert kept == cell.value, cell.coordinate
    assert after["C2"].value == "=ZT_SCALE(A2,B2)"
    assert after["K2"].value == "=_xldudf_ZVMPLAN_ZT_SCALE(3)"
    assert isinstance(after["L2"].value, ArrayFormula)
    assert after["L2"].value.ref == "L2:L4"


def test_array_formula_fills_its_range(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    engine.calc(planner, out)
    ws = _values(out)
    assert [ws[f"L{r}"].value for r in (2, 3, 4)] == [2, 4, -2]


def test_spill_becomes_array_formula_with_cached_values(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    ws = _values(out)
    assert [ws[f"H{r}"].value for r in (2, 3, 4)] == [10, 20, "#NUM!"]
    f = _formulas(out)["H2"].value
    assert isinstance(f, ArrayFormula) and f.ref == "H2:H4" and f.text == "=ZT_SCALE(A2:A4,10)"
    assert report.spills == 1


def test_blocked_spill_is_an_error_and_a_warning(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    ws = _values(out)
    assert ws["I2"].value == "#VALUE!"
    assert ws["I3"].value == "in the way"
    assert any("Plan!I2" in w and "spill" in w for w in report.warnings)


def test_circular_references_are_zero_and_reported(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    ws = _values(out)
    assert ws["O2"].value == 0 and ws["O3"].value == 0
    assert set(report.circular) == {"Plan!O2", "Plan!O3"}


def test_input_is_never_modified(planner, tmp_path):
    digest = _digest(planner)
    mtime = os.stat(planner).st_mtime_ns
    engine.calc(planner, tmp_path / "out.xlsx")
    assert _digest(planner) == digest
    assert os.stat(planner).st_mtime_ns == mtime


def test_output_equal_to_input_needs_in_place(planner):
    digest = _digest(planner)
    with pytest.raises(engine.EngineError, match="in-place"):
        engine.calc(planner, planner)
    assert _digest(planner) == digest
    engine.calc(planner, in_place=True)
    assert _digest(planner) != digest
    assert _values(planner)["C2"].value == 2
    assert not [p for p in os.listdir(os.path.dirname(planner)) if p.endswith(".tmp")]


def test_everything_else_is_kept(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    ws["A1"], ws["B1"] = 3, "=ZT_SCALE(A1,2)"
    ws["B1"].font = Font(bold=True, color="FF0000")
    ws["B1"].number_format = "0.000"
    dv = DataValidation(type="list", formula1='"IUCV,VCTC"', allow_blank=True)
    ws.add_data_validation(dv)
    dv.add("C1:C10")
    ws.protection.sheet = True
    ws.column_dimensions["B"].width = 33
    wb.defined_names["Size"] = DefinedName("Size", attr_text="Plan!$A$1")
    path = _save(wb, tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    engine.calc(path, out)
    ws2 = openpyxl.load_workbook(out)["Plan"]
    assert ws2["B1"].font.bold and ws2["B1"].font.color.rgb == "00FF0000"
    assert ws2["B1"].number_format == "0.000"
    assert len(ws2.data_validations.dataValidation) == 1
    assert str(ws2.data_validations.dataValidation[0].sqref) == "C1:C10"
    assert ws2.protection.sheet
    assert ws2.column_dimensions["B"].width == 33
    assert "Size" in ws2.parent.defined_names
    assert _values(out)["B1"].value == 6
    # every part except the sheet and workbook.xml is byte for byte the same
    with zipfile.ZipFile(path) as a, zipfile.ZipFile(out) as b:
        assert a.namelist() == b.namelist()
        for name in a.namelist():
            if name not in ("xl/worksheets/sheet1.xml", "xl/workbook.xml"):
                assert a.read(name) == b.read(name), name


def test_calc_pr_lets_spreadsheets_show_the_cached_values(planner, tmp_path):
    out = tmp_path / "out.xlsx"
    report = engine.calc(planner, out)
    assert not report.full_calc_on_load
    wb_xml = zipfile.ZipFile(out).read("xl/workbook.xml").decode()
    assert 'calcId="191029"' in wb_xml and "fullCalcOnLoad" not in wb_xml


def test_a_builtin_formulas_lacks_asks_excel_to_recalculate(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=NOSUCHFUNCTION(1)"
    wb.active["A2"] = "=1+1"
    path = _save(wb, tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    report = engine.calc(path, out)
    assert "NOSUCHFUNCTION" in report.unsupported and report.full_calc_on_load
    assert 'fullCalcOnLoad="1"' in zipfile.ZipFile(out).read("xl/workbook.xml").decode()
    ws = _values(out, "Sheet")
    assert ws["A1"].value == "#NAME?" and ws["A2"].value == 2


def test_recalculating_the_output_gives_the_same_values(planner, tmp_path):
    out1, out2 = tmp_path / "out1.xlsx", tmp_path / "out2.xlsx"
    engine.calc(planner, out1)
    engine.calc(out1, out2)
    a, b = _values(out1), _values(out2)
    for row in a.iter_rows():
        for cell in row:
            assert b[cell.coordinate].value == cell.value, cell.coordinate


def test_many_rows_share_one_compiled_formula(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    n = 300
    for r in range(1, n + 1):
        ws[f"A{r}"] = r
        ws[f"B{r}"] = f"=ZT_SCALE(A{r},2)+$A$1"
        ws[f"C{r}"] = f"=B{r}/SUM(B$1:B${n})"
        ws[f"D{r}"] = f"=SUM(A$1:A{r})"           # running total: a growing range
    ws["E1"] = f"=SUM(C1:C{n})"
    path = _save(wb, tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    report = engine.calc(path, out)
    assert report.compiled <= 6
    ws = _values(out, "Plan")
    total = sum(2 * r + 1 for r in range(1, n + 1))
    for r in (1, 2, 150, n):
        assert ws[f"B{r}"].value == 2 * r + 1
        assert ws[f"C{r}"].value == pytest.approx((2 * r + 1) / total, rel=1e-12)
        assert ws[f"D{r}"].value == r * (r + 1) / 2
    assert ws["E1"].value == pytest.approx(1.0, rel=1e-12)


CORPUS = ['=IF(A{r}>2,"big","small")', "=IFERROR(1/(A{r}-3),-1)", "=MAX(A{r},B{r})*2",
          '=TEXT(A{r},"0.00")&"x"', "=AND(A{r}>1,B{r}<5)", "=CHOOSE(MOD(A{r},3)+1,A{r},B{r},7)",
          "=INDEX($A$1:$B$5,A{r},1)", "=VLOOKUP(A{r},$A$1:$B$5,2,FALSE)", "=ZT_SCALE(A{r},B{r})",
          '=IFERROR(ZT_NAME(IF(A{r}=2,"missing","ok")),"none")', "=ROW()+COLUMN()",
          "=SUM(A$1:A{r})", "=ABS(-A{r})^2", "=ISNUMBER(A{r})", "=-A{r}%",
          '=COUNTIF($A$1:$A$5,">"&A{r})', '=SUMIF($A$1:$A$5,"<"&A{r},$B$1:$B$5)', "=1.5E+3*A{r}+.5",
          '=SUM({{1,2}})+A{r}&"a""b"', '=SUM(A{r},"3",TRUE)', "=ROWS($A$1:A{r})", "=SUM(A{r}:B{r} B1:B5)",
          "=SUM((A1,B{r}))", "=SUM(A1:INDEX(A1:A5,{r}))", "=DATE(2024,A{r},1)", '=LEN("x"&A{r}*10)',
          "=A{r}/2-B{r}*0.25", '=IF(A{r}=3,"#N/A",#N/A)', "=ZT_SCALE(A{r}+{r},2)", "=Q{r}"]


@pytest.mark.parametrize("mode", ["ZVMPLAN_ENGINE_PIPE", "ZVMPLAN_ENGINE_EXACT",
                                  "ZVMPLAN_ENGINE_CHECK"])
def test_fast_paths_agree_with_formulas_own_evaluation(tmp_path, monkeypatch, mode):
    """The engine runs formulas' compiled graph as a straight line (not its pipe) and
    compiles one generic shape for formulas that differ only in their references and
    literals. The values must be those of formulas' own pipe and of a compile of each
    formula exactly as written."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r in range(1, 6):
        ws[f"A{r}"], ws[f"B{r}"] = r, 6 - r
        for k, case in enumerate(CORPUS):
            ws.cell(r, 3 + k).value = case.format(r=r)
    path = _save(wb, tmp_path / "in.xlsx")
    fast = engine.calc(path, tmp_path / "fast.xlsx")
    monkeypatch.setenv(mode, "1")
    other = engine.calc(path, tmp_path / "other.xlsx")
    assert other.compiled > fast.compiled or mode == "ZVMPLAN_ENGINE_PIPE"
    a, b = _values(tmp_path / "fast.xlsx"), _values(tmp_path / "other.xlsx")
    for row in b.iter_rows():
        for cell in row:
            assert a[cell.coordinate].value == cell.value, cell.coordinate
    assert a["C3"].value == "big" and a["M2"].value == 15 and a["K4"].value == 8
    assert a["L2"].value == "none" and a["L3"].value == 2
    assert a["W5"].value == 5 and a["T2"].value == 3000.5 and a["U1"].value == '4a"b'
    assert a["X2"].value == 4 and a["Y3"].value == 4 and a["Z4"].value == 10


def test_make_ranges_matches_formulas_range2parts():
    from formulas.tokens.operand import range2parts
    for sheet, rect in [("PLAN", (2, 1, 2, 1)), ("MY SHEET", (3, 2, 9, 4)), ("O'BRIEN", (1, 28, 1, 28))]:
        r1, c1, r2, c2 = rect
        mine = make_ranges(sheet, r1, c1, r2, c2, np.empty((r2 - r1 + 1, c2 - c1 + 1), object))
        theirs = range2parts(("name", "n1", "n2"), sheet=sheet, c1=shapes.col_letters(c1), r1=str(r1),
                             c2=shapes.col_letters(c2), r2=str(r2))
        assert mine.ranges[0] == theirs


# ------------------------------------------------------ hand-written XML ----
_CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
       '<Default Extension="xml" ContentType="application/xml"/>'
       '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
       '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
       '{extra}</Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
_WB = ('<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
       '<sheet name="Plan" sheetId="1" r:id="rId1"/></sheets><calcPr calcId="124519" fullCalcOnLoad="1"/></workbook>')
_WB_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
            '{extra}</Relationships>')
_SHEET = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
          'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
          'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" mc:Ignorable="x14ac">'
          '<dimension ref="A1:C4"/><sheetData>{rows}</sheetData></worksheet>')


def make_xlsx(path, rows, calc_chain=False):
    extra_ct = extra_rels = ""
    if calc_chain:
        extra_ct = ('<Override PartName="/xl/calcChain.xml" '
                    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"/>')
        extra_rels = ('<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                      'relationships/calcChain" Target="calcChain.xml"/>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CT.format(extra=extra_ct))
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", _WB)
        z.writestr("xl/_rels/workbook.xml.rels", _WB_RELS.format(extra=extra_rels))
        z.writestr("xl/worksheets/sheet1.xml", _SHEET.format(rows=rows))
        if calc_chain:
            z.writestr("xl/calcChain.xml", '<?xml version="1.0"?><calcChain xmlns="http://schemas.'
                       'openxmlformats.org/spreadsheetml/2006/main"><c r="B1" i="1"/></calcChain>')
    return path


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
    ws = _values(out)
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


def test_spill_into_rows_that_do_not_exist_yet(tmp_path):
    rows = '<row r="1"><c r="A1"><f>ZT_COLUMN()</f></c></row>'
    path = make_xlsx(tmp_path / "in.xlsx", rows)
    out = tmp_path / "out.xlsx"
    engine.calc(path, out)
    ws = _values(out)
    assert [ws["A1"].value, ws["A2"].value, ws["A3"].value] == ["a", "b", "c"]
    sheet = zipfile.ZipFile(out).read("xl/worksheets/sheet1.xml").decode()
    assert '<f t="array" ref="A1:A3">ZT_COLUMN()</f>' in sheet
    assert '<dimension ref="A1:C4"/>' in sheet


# ------------------------------------------------------------------ shapes ----
def test_rows_of_one_formula_have_one_shape():
    a = shapes.shape("ZT_SCALE(A2,$B$1)*Plan!C2", "Plan", 2, 4)
    b = shapes.shape("ZT_SCALE(A3,$B$1)*Plan!C3", "Plan", 3, 4)
    c = shapes.shape("ZT_SCALE(A3,$B$2)*Plan!C3", "Plan", 3, 4)
    assert a.key == b.key != c.key
    assert b.rects == (("PLAN", 3, 1, 3, 1), ("PLAN", 1, 2, 1, 2), ("PLAN", 3, 3, 3, 3))


def test_shape_ignores_text_and_function_names():
    s = shapes.shape('LOG10(A1)&"B2"&\'My Sheet\'!$C$3:D4', "Plan", 1, 1)
    assert s.rects == (("PLAN", 1, 1, 1, 1), ("MY SHEET", 3, 3, 4, 4))
    assert shapes.shape("[1]Sheet1!A1", "Plan", 1, 1) is None


def test_translate_moves_relative_parts_only():
    assert shapes.translate('A1+$B$2+C$3+$D4+"A1"+SUM(E:E)', 2, 1) == \
        'B3+$B$2+D$3+$D6+"A1"+SUM(F:F)'
    assert shapes.translate("A1+B2", -1, 0) == "#REF!+B1"


# ------------------------------------------------------------ eval engine ----
def test_evaluate_formula_uses_the_registry_and_keeps_reasons():
    assert engine.evaluate_formula("=ZT_SCALE(2,3)*2") == 12
    err = engine.evaluate_formula('=ZT_NAME("missing")&"x"')
    assert err.code == "#N/A" and "missing" in err.reason
    assert engine.evaluate_formula("=A1+1").code == "#REF!"
    arr = engine.evaluate_formula("=ZT_SCALE({1;2},3)")
    assert arr.shape == (2, 1) and list(arr[:, 0]) == [3, 6]


def test_names_sheets_and_whole_columns(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "My Plan"
    other = wb.create_sheet("O'Brien")
    other["A1"] = 5
    ws["A1"], ws["A2"], ws["A3"] = 1, 2, 3
    ws["B1"] = "=SUM(A:A)"
    ws["B2"] = "='O''Brien'!A1*2"
    ws["B3"] = "=Tax*A1"                 # a constant name
    ws["B4"] = "=Double"                 # a formula name reading a formula cell
    ws["B5"] = "=LocalRate"              # a sheet-local name
    ws["B6"] = "=SUM(C1:C3)"             # reads a spilled range
    ws["C1"] = "=ZT_SCALE(A1:A3,10)"     # spills into C2:C3
    ws["B7"] = "='My Plan'!A2+'O''Brien'!A1"
    ws["B8"] = "=Inputs+1"               # a range name on a quoted sheet
    wb.defined_names["Tax"] = DefinedName("Tax", attr_text="0.25")
    wb.defined_names["Double"] = DefinedName("Double", attr_text="'My Plan'!$B$7*2")
    wb.defined_names["Inputs"] = DefinedName("Inputs", attr_text="'O''Brien'!$A$1")
    ws.defined_names["LocalRate"] = DefinedName("LocalRate", attr_text="'My Plan'!$A$3")
    path = _save(wb, tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    report = engine.calc(path, out)
    ws = _values(out, "My Plan")
    assert [ws[f"B{r}"].value for r in range(1, 9)] == [6, 10, 0.25, 14, 3, 60, 7, 6]
    assert [ws[f"C{r}"].value for r in (1, 2, 3)] == [10, 20, 30]
    assert not report.unsupported and not report.warnings


def test_impure_functions_are_not_shared_between_cells(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 21):
        ws[f"A{r}"] = "=RAND()+$B$1"
    ws["B1"] = 0
    path = _save(wb, tmp_path / "in.xlsx")
    engine.calc(path, tmp_path / "out.xlsx")
    values = {_values(tmp_path / "out.xlsx", "Sheet")[f"A{r}"].value for r in range(1, 21)}
    assert len(values) == 20 and all(0 <= v < 1 for v in values)


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
    spill into a row that has later cells: OUT is valid and every value lands in place."""
    rows = ('<row r="1" spans="1:4"><c r="A1"><v>1</v></c><c r="B1" cm="1">'
            '<f t="array" ref="B1:B2" aca="false">A1:A2*2</f><v>0</v></c></row>'
            '<row r="2"><c r="A2"><v>5</v></c><c r="B2"><v>0</v></c></row>'
            '<row r="3"><c><f>{1,2,3}</f></c><c r="D3"/><c><v>7</v></c></row>')
    path = make_xlsx(tmp_path / "in.xlsx", rows)
    out = tmp_path / "out.xlsx"
    engine.calc(path, out)
    xlsxio.safe_open_xlsx(out).close()  # well formed, by the same checks as any input
    ws = _values(out)
    assert [ws["B1"].value, ws["B2"].value] == [2, 10]
    assert [ws["A3"].value, ws["B3"].value, ws["C3"].value, ws["D3"].value, ws["E3"].value] == \
        [1, 2, 3, None, 7]
    sheet = zipfile.ZipFile(out).read("xl/worksheets/sheet1.xml").decode()
    assert '<c r="B1" cm="1"><f t="array" ref="B1:B2" aca="false">A1:A2*2</f><v>2.0</v></c>' in sheet
    assert '<c r="A3"><f t="array" ref="A3:C3">{1,2,3}</f><v>1.0</v></c><c r="B3"><v>2.0</v></c>' \
        '<c r="C3"><v>3.0</v></c><c r="D3"/><c r="E3"><v>7</v></c>' in sheet


# --------------------------------------------------------- the XML writer ----
from hypothesis import given, settings, strategies as st  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402

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
    xml = _SHEET.format(rows="".join(rows))
    by_row = {}
    for (r, c), v in updates.items():
        by_row.setdefault(r, {})[c] = xlsxio.CellUpdate(float(v))
    new = xlsxio.rewrite_sheet(xml, by_row)
    values, ordered = _read_back(new)
    assert ordered
    expected = {k: str(v) for k, (v, _) in existing.items()}
    expected.update({k: repr(float(v)) for k, v in updates.items()})
    assert values == expected


def test_empty_cells_inside_the_used_area(tmp_path):
    """An empty cell is "" to comparisons and None to a zvmplan function (np.full once
    turned formulas' empty token into the text 'empty')."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["C3"] = 1                                   # A1, B2 lie inside the used area
    ws["D1"] = '=IF(A1="","empty","full")'
    ws["D2"] = "=ZT_NAME(B2)"                      # a required argument, empty
    ws["D3"] = "=ZT_SCALE(3,B2)"                   # an optional argument, empty
    ws["D4"] = "=ISBLANK(A1)"
    ws["D5"] = "=A1+1"
    ws["D6"] = '=A1&"x"'
    path = _save(wb, tmp_path / "in.xlsx")
    report = engine.calc(path, tmp_path / "out.xlsx")
    ws = _values(tmp_path / "out.xlsx", "Sheet")
    assert [ws[f"D{r}"].value for r in range(1, 7)] == ["empty", "#VALUE!", 3, True, 1, "x"]
    assert "required" in report.errors["Sheet!D2"][1]


# ------------------------------------------- Excel's answers (issue 8 §1) ----
WHOLE_COLUMN_FORMS = ["A:A", "$A:$A", "A1:A1048576", "$A$1:$A$1048576", "A$1:A$1048576"]


@pytest.fixture
def data_book():
    """Data!A1:A100 = 1..100, B = 2*A, C = "k<n>"; row 1 also has D1 = 7."""
    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "Data"
    for r in range(1, 101):
        data.cell(r, 1, r)
        data.cell(r, 2, 2 * r)
        data.cell(r, 3, f"k{r}")
    data["D1"] = 7
    return wb


def _calc_cells(wb, tmp_path, cells, sheet="Out"):
    out_ws = wb[sheet] if sheet in wb.sheetnames else wb.create_sheet(sheet)
    for ref, text in cells.items():
        out_ws[ref] = text
    path = _save(wb, tmp_path / "in.xlsx")
    report = engine.calc(path, tmp_path / "out.xlsx")
    ws = _values(tmp_path / "out.xlsx", sheet)
    return {ref: ws[ref].value for ref in cells}, report


@pytest.mark.parametrize("col", WHOLE_COLUMN_FORMS)
def test_whole_column_references_give_excels_answers(data_book, tmp_path, col):
    """Excel reads A:A, A1:A1048576 and their absolute forms as the whole column (the
    formulas parser reads A1:A1048576 as A1): ROWS is 1,048,576, COUNTBLANK counts every
    empty cell of the column, and the aggregates see all 100 values."""
    other = col.replace("A", "B")
    keys = col.replace("A", "C")
    wide = col.replace("$A", "$C").replace("A", "C") if ":" in col else col
    table = col.split(":")[0] + ":" + col.split(":")[1].replace("A", "C")
    cells = {
        "A1": f"=SUM(Data!{col})", "A2": f"=COUNT(Data!{col})", "A3": f"=COUNTA(Data!{keys})",
        "A4": f"=COUNTBLANK(Data!{col})", "A5": f"=MAX(Data!{col})", "A6": f"=MIN(Data!{col})",
        "A7": f"=ROWS(Data!{col})", "A8": f"=MATCH(77,Data!{col},0)",
        "A9": f"=INDEX(Data!{other},10)", "A10": f"=VLOOKUP(30,Data!{table},3,FALSE)",
        "A11": f'=SUMIF(Data!{col},">50",Data!{other})',
        "A12": f'=SUMIFS(Data!{other},Data!{col},">50")',
        "A13": f"=SUMPRODUCT(Data!{col},Data!{other})", "A14": f"=COLUMNS(Data!{wide})",
        "A15": f"=INDEX(Data!{other},5000)",
    }
    got, _ = _calc_cells(data_book, tmp_path, cells)
    assert got == {"A1": 5050, "A2": 100, "A3": 100, "A4": 1_048_576 - 100, "A5": 100,
                   "A6": 1, "A7": 1_048_576, "A8": 77, "A9": 20, "A10": "k30",
                   "A11": 2 * sum(range(51, 101)), "A12": 2 * sum(range(51, 101)),
                   "A13": sum(2 * r * r for r in range(1, 101)), "A14": 1, "A15": 0}


def test_a_zvmplan_function_given_a_whole_column_answers_every_cell(data_book, tmp_path):
    """In Excel an add-in function given A1:A1048576 gets every cell of the column; its
    empty cells give errors, so a SUM over the answers is an error, not the sum of the
    filled rows."""
    cells = {"A1": "=IFERROR(SUM(ZT_SCALE(Data!A1:A1048576)),ROWS(ZT_SCALE(Data!A1:A1048576)))",
             "A2": "=SUM(ZT_SCALE(Data!A1:A100))"}
    got, _ = _calc_cells(data_book, tmp_path, cells)
    assert got == {"A1": 1_048_576, "A2": 5050}


def test_ranges_to_the_last_row_or_column_keep_their_size(data_book, tmp_path):
    """A2:A1048576, 1:1, A1:XFD1 and A1:XFD1048576 as Excel reads them; ranges of
    different sizes in SUMPRODUCT are #VALUE! in Excel."""
    cells = {"A1": "=SUM(Data!A2:A1048576)", "A2": "=ROWS(Data!A2:A1048576)",
             "A3": "=COLUMNS(Data!1:1)", "A4": "=SUM(Data!1:1)", "A5": "=COLUMNS(Data!A1:XFD1)",
             "A6": "=SUM(Data!A1:XFD1)", "A7": "=MAX(Data!A1:XFD1048576)",
             "A8": "=COUNTBLANK(Data!$1:$1)",
             "A9": "=SUMPRODUCT(Data!A2:A1048576,Data!B1:B1048576)",
             "A10": "=ROWS(Data!A1048576)", "A11": "=SUM(Data!A99:A1048576)"}
    got, _ = _calc_cells(data_book, tmp_path, cells)
    assert got == {"A1": 5049, "A2": 1_048_575, "A3": 16_384, "A4": 1 + 2 + 7, "A5": 16_384,
                   "A6": 10, "A7": 200, "A8": 16_384 - 4, "A9": "#VALUE!", "A10": 1,
                   "A11": 199}


def test_non_finite_results_are_real_errors(tmp_path):
    """Excel shows #NUM! for an overflow, and ISNUMBER/ISERROR/IFERROR see it as an
    error, whichever function produced it (builtin or add-in)."""
    wb = openpyxl.Workbook()
    cells = {"A1": "=ISNUMBER(SUM(1E308,1E308))", "A2": '=IFERROR(PRODUCT(1E200,1E200),"x")',
             "A3": "=ISERROR(AVERAGE(1E308,1E308))", "A4": "=ISNUMBER(ZT_SCALE(1E308,10))",
             "A5": '=IFERROR(ZT_SCALE(1E308,10),"x")', "A6": "=ZT_SCALE(1E308,10)",
             "A7": "=EXP(1000)"}
    got, report = _calc_cells(wb, tmp_path, cells, sheet="Sheet")
    assert got == {"A1": False, "A2": "x", "A3": True, "A4": False, "A5": "x", "A6": "#NUM!",
                   "A7": "#NUM!"}
    assert "finite" in report.errors["Sheet!A6"][1]
    assert engine.evaluate_formula("=ISNUMBER(ZT_SCALE(1E308,10))") is False
    assert engine.evaluate_formula("=ZT_SCALE(1E308,10)").code == "#NUM!"


def test_a_skipped_argument_is_left_out(tmp_path):
    """Excel passes a skipped argument (F(1,,2)) to an add-in function as missing, so an
    optional argument takes its default; builtins read it as 0 (IF(FALSE,1,) is 0)."""
    wb = openpyxl.Workbook()
    cells = {"A1": "=ZT_SCALE3(3,,2)", "A2": "=ZT_SCALE(3,)*2", "A3": "=ZT_SCALE3(3,)+ZT_SCALE3(1,,)",
             "A4": "=IF(FALSE,1,)", "A5": "=ZT_SCALE(,2)", "A6": "=ZT_SCALE3(A9,,B9)"}
    got, _ = _calc_cells(wb, tmp_path, cells, sheet="Sheet")
    assert got == {"A1": 5, "A2": 6, "A3": 4, "A4": 0, "A5": "#VALUE!", "A6": "#VALUE!"}
    assert engine.evaluate_formula("=ZT_SCALE3(3,,2)+0") == 5


def test_formulas_beyond_excels_limits_are_refused_before_parsing(tmp_path):
    """Excel refuses a formula longer than 8,192 characters or with more than 64 nested
    levels; here such a cell is #VALUE! with that reason, decided before any parser runs
    (60,000 nested parentheses once took 45 s and 7 GB)."""
    wb = openpyxl.Workbook()
    deep = "(" * 30_000 + "1" + ")" * 30_000
    cells = {"A1": "=" + deep, "A2": "=1" + "+1" * 4_200, "A3": "=" + "(" * 64 + "1" + ")" * 64,
             "A4": "=" + "(" * 65 + "1" + ")" * 65, "A5": '=LEN("((((((((")'}
    got, report = _calc_cells(wb, tmp_path, cells, sheet="Sheet")
    assert got == {"A1": "#VALUE!", "A2": "#VALUE!", "A3": 1, "A4": "#VALUE!", "A5": 8}
    assert "8,192" in report.errors["Sheet!A1"][1] and "8,192" in report.errors["Sheet!A2"][1]
    assert "65 levels" in report.errors["Sheet!A4"][1]
    for text in (deep, "(" * 65 + "1" + ")" * 65):
        err = engine.evaluate_formula("=" + text)
        assert err.code == "#VALUE!" and "Excel's limit" in err.reason


def test_text_longer_than_excel_allows_is_an_error(tmp_path):
    """A cell holds at most 32,767 characters in Excel (REPT beyond that is #VALUE!)."""
    wb = openpyxl.Workbook()
    cells = {"A1": '=REPT("a",40000)', "A2": '=REPT("a",20000)&REPT("b",20000)',
             "A3": '=LEN(REPT("a",32767))'}
    got, report = _calc_cells(wb, tmp_path, cells, sheet="Sheet")
    assert got == {"A1": "#VALUE!", "A2": "#VALUE!", "A3": 32767}
    assert "32,767" in report.errors["Sheet!A1"][1]
    assert engine.evaluate_formula('=REPT("a",40000)').code == "#VALUE!"


def test_eval_and_calc_read_a_formula_alike():
    """``zvmplan eval`` goes through calc's stages: what a cell computes, eval computes."""
    assert engine.evaluate_formula("=ABS(1E7)") == 1e7
    assert engine.evaluate_formula("ABS(-2)+ZT_SCALE(1,2)") == 4
    assert engine.evaluate_formula("=ROWS(ZT_COLUMN())") == 3
    assert engine.evaluate_formula("=COLUMNS(ZT_COLUMN())") == 1
    err = engine.evaluate_formula("=NOSUCH(1)")
    assert err.code == "#NAME?" and "NOSUCH" in err.reason
    assert engine.evaluate_formula("=1+").code == "#NAME?"


# ------------------------------------------------- columnar evaluation ----
def _column_book(path, rows=40):
    """One formula per column over rows of mixed inputs: numbers, zero, negatives, text,
    empty cells, TRUE/FALSE and error values, so every column path meets every kind."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    lookup = wb.create_sheet("Rates")
    for r, (key, rate, name) in enumerate([("a", 1.5, "Alpha"), ("b", 2, "Beta"),
                                           ("c", 0, "Gamma")], start=1):
        lookup[f"A{r}"], lookup[f"B{r}"], lookup[f"C{r}"] = key, rate, name
    kinds = [3, 0, -2, "7", "x", None, True, "#N/A", 2.5, 1e308]
    last = rows + 1
    for r in range(2, last + 1):
        k = r - 2
        a = kinds[k % len(kinds)]
        if a == "#N/A":
            ws[f"A{r}"] = "=NA()"  # an error value as input (computed first)
        elif a is not None:
            ws[f"A{r}"] = a
        ws[f"B{r}"] = (k % 7) - 2
        ws[f"C{r}"] = "abc"[k % 3] if k % 5 else None
        cells = {
            "D": f"=A{r}*B{r}+1", "E": f"=A{r}/B{r}", "F": f"=A{r}>B{r}", "G": f'=C{r}&"-"&A{r}',
            "H": f'=IF(B{r}>0,A{r},"neg")', "I": f'=IFERROR(A{r}/B{r},"div")',
            "J": f"=ISERROR(E{r})", "K": f"=VLOOKUP(C{r},Rates!$A$1:$C$3,2,FALSE)",
            "L": f"=INDEX(Rates!$C$1:$C$3,MATCH(C{r},Rates!$A$1:$A$3,0))",
            "M": f"=ROUND(B{r}/3,2)", "N": f"=LEN(C{r})", "O": f"=ZT_SCALE(B{r},A{r})",
            "P": f"=ZT_NAME(C{r})", "Q": f"=SUM(A{r},B{r})", "R": f"=B{r}/SUM(B$2:B${last})",
            "S": f"=SUM(B$2:B{r})", "T": f"=-B{r}%", "U": f"=ZT_SCALE(B{r},2)*{k % 3}",
            "V": f"=A{r}^2", "X": f'=IF(B{r}>0,B{r}/4,"neg")', "Y": f'=N{r}&"|"&M{r}&"."',
        }
        for col, text in cells.items():
            ws[f"{col}{r}"] = text
        ws[f"W{r}"] = 1 if r == 2 else f"=W{r - 1}+B{r}"  # reads its own column
    return _save(wb, path)


@pytest.mark.parametrize("rows", [40, 9])
def test_columns_give_the_values_of_cell_by_cell(tmp_path, monkeypatch, rows):
    """The columnar path (one run per formula column) and the engine cell by cell
    (ZVMPLAN_ENGINE_CELLWISE=1) write the same values and the same reasons."""
    path = _column_book(tmp_path / "in.xlsx", rows)
    results = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        out = tmp_path / f"out{mode}.xlsx"
        report = engine.calc(path, out)
        ws = _values(out)
        results.append(([[c.value for c in row] for row in ws.iter_rows()], report.errors,
                         report.error_cells))
    assert results[0] == results[1]
    ws = _values(tmp_path / "out.xlsx")
    assert ws["O2"].value == "#NUM!" and ws["E4"].value == "#DIV/0!"  # errors stay per cell
    assert "x must be >= 0" in results[0][1]["Plan!O2"][1]
    assert ws["D2"].value == 3 * -2 + 1 and ws[f"W{rows + 1}"].value == \
        1 + sum((k % 7) - 2 for k in range(1, rows))


def test_columns_checked_cell_by_cell_agree(tmp_path, monkeypatch):
    """ZVMPLAN_ENGINE_CHECK=1 evaluates every column cell by cell too and lists any cell
    where the two differ: none do, and the columns did run (not everything fell back)."""
    from zvmplan_addin.recalc.engine import Engine
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    path = _column_book(tmp_path / "in.xlsx")
    engine.install_functions()
    with xlsxio.safe_open_xlsx(path) as pkg:
        book = xlsxio.read_workbook(pkg)
    e = Engine(book)
    e.recalculate()
    assert e.column_mismatches == []
    grouped = {e.n_label[int(g[0])].split("!")[1].rstrip("0123456789")
               for g in e._column_groups()}
    assert set("DEFGHIJKLMNOPQRTUVXY") <= grouped and not grouped & {"S", "W"}
    assert e.columnar_cells == len("DEFGHIJKLMNOPQRTUVXY") * 39  # all but each first cell


def test_columns_of_one_kind_take_the_numpy_paths(tmp_path, monkeypatch):
    """IF over a TRUE/FALSE column and ``&`` over text columns run in numpy and give the
    values cell by cell gives (Excel: IF returns its second argument where the condition
    is TRUE, else its third; ``&`` joins the texts)."""
    from zvmplan_addin.recalc.columnar import numeric as columnar
    col = np.empty((4, 1), dtype=object)
    col[:, 0] = [True, False, 2.0, 0.0]
    x = np.empty((4, 1), dtype=object)
    x[:, 0] = [1.0, 2.0, 3.0, 4.0]
    got = columnar._fast("IF", [col, x, "no"], 4)
    assert got[:, 0].tolist() == [1.0, "no", 3.0, "no"]
    texts = np.empty((2, 1), dtype=object)
    texts[:, 0] = ["a", "b"]
    assert columnar._fast("&", [texts, "-x"], 2)[:, 0].tolist() == ["a-x", "b-x"]
    empty = x.copy()
    empty[0, 0] = columnar.sh.EMPTY  # an empty cell picked is 0, as formulas' IF makes it
    cond = col.copy()
    cond[3, 0] = "text"  # a text condition is #VALUE! (Excel too)
    got = columnar._fast("IF", [cond, empty, "no"], 4)[:, 0].tolist()
    assert got == [0, "no", 3.0, columnar.XL["#VALUE!"]]
    from formulas.functions import get_functions
    assert got == get_functions()["IF"]["function"](cond, empty, "no")[:, 0].tolist()


def test_distinct_combinations_are_keyed_by_type():
    """A zvmplan function or a lookup is called once per distinct combination of its
    arguments: 1 and 1.0 are one number, but TRUE, the text "1" and the text "#N/A" are
    not the number 1 or the error #N/A (Excel compares values of different types as
    different)."""
    from zvmplan_addin.errors import ExcelError
    from zvmplan_addin.recalc.columnar.distinct import _factorize
    values = [1, 1.0, True, "1", ExcelError("#N/A"), "#N/A", 1.0, "1"]
    picks, inverse = _factorize([values], len(values))
    assert picks.tolist() == [0, 2, 3, 4, 5]
    assert inverse.tolist() == [0, 0, 1, 2, 3, 4, 0, 2]
    picks, inverse = _factorize([["a", "a", "b", "a"], [1.0, 2.0, 1.0, 1.0]], 4)
    assert picks.tolist() == [0, 1, 2] and inverse.tolist() == [0, 1, 2, 0]


@pytest.mark.parametrize("pattern", [
    "IF(G{r}>0,D{r}/G{r}/3600,0)", "LOG10(A{r})+'Q1 2024'!B{r}*1E6+$A$1:B{r}",
    "SUM(I$2:I{r})+{r}", '"x1"&A{r}&2.5', "A{r}:B{r}+3:{r}", "$A${r}+A$1*{r}",
    "VLOOKUP(E{r},Rates!$A$2:$C$6,2,FALSE)", "Sheet2!A{r}+{r}.5"])
def test_the_fast_shape_of_a_filled_column_is_the_full_one(pattern):
    """Shaper substitutes a formula's digits into the scan of the first formula of the
    same skeleton; it must give exactly what a full scan gives, at every row."""
    shaper = shapes.Shaper("Plan")
    for r in (2, 3, 9, 10, 99, 100, 12345, 1_048_576):
        text = pattern.format(r=r)
        fast = shaper(text, r, 7)
        full = shapes.shape(text, "Plan", r, 7, generic=True)
        assert (fast.key, fast.rects, fast.literals) == (full.key, full.rects, full.literals)


def test_a_zvmplan_column_of_many_distinct_values_takes_the_vector_path(tmp_path, monkeypatch):
    """Beyond SCALAR_DISTINCT distinct arguments a zvmplan function is called once with
    all of them (its vector path); the values are those of cell by cell, errors per cell."""
    from zvmplan_addin.recalc.columnar.zvmplan import SCALAR_DISTINCT
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    rows = SCALAR_DISTINCT + 50
    for r in range(1, rows + 1):
        ws[f"A{r}"] = -1 if r == 7 else r * 1.5
        ws[f"B{r}"] = f"=ZT_SCALE(A{r},2)+1"
    path = _save(wb, tmp_path / "in.xlsx")
    got = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        report = engine.calc(path, tmp_path / f"out{mode}.xlsx")
        out = _values(tmp_path / f"out{mode}.xlsx")
        got.append(([out[f"B{r}"].value for r in range(1, rows + 1)], report.errors))
    assert got[0] == got[1]
    assert got[0][0][6] == "#NUM!" and got[0][0][9] == 10 * 1.5 * 2 + 1
    assert "x must be >= 0" in got[0][1]["Plan!B7"][1]

"""Shapes: rows of one formula share one shape and one compiled formula, the fast
paths agree with ``formulas``' own evaluation, and an impure function is never shared."""
from __future__ import annotations

import numpy as np
import openpyxl
import pytest

from zvmplan_addin import recalc as engine
from zvmplan_addin.recalc import shapes
from zvmplan_addin.recalc.values import make_ranges

from builders import save, values_of

pytestmark = pytest.mark.usefixtures("zt_functions")


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
    path = save(wb, tmp_path / "in.xlsx")
    out = tmp_path / "out.xlsx"
    report = engine.calc(path, out)
    assert report.compiled <= 6
    ws = values_of(out, "Plan")
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
    path = save(wb, tmp_path / "in.xlsx")
    fast = engine.calc(path, tmp_path / "fast.xlsx")
    monkeypatch.setenv(mode, "1")
    other = engine.calc(path, tmp_path / "other.xlsx")
    assert other.compiled > fast.compiled or mode == "ZVMPLAN_ENGINE_PIPE"
    a, b = values_of(tmp_path / "fast.xlsx"), values_of(tmp_path / "other.xlsx")
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


def test_impure_functions_are_not_shared_between_cells(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 21):
        ws[f"A{r}"] = "=RAND()+$B$1"
    ws["B1"] = 0
    path = save(wb, tmp_path / "in.xlsx")
    engine.calc(path, tmp_path / "out.xlsx")
    values = {values_of(tmp_path / "out.xlsx", "Sheet")[f"A{r}"].value for r in range(1, 21)}
    assert len(values) == 20 and all(0 <= v < 1 for v in values)


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


@pytest.mark.parametrize("pattern,fixed", [
    ("'{f}'!G{r}-'{f}'!G{s}", ["000", "003", "001", "003", "004", "000"]),
    ('TX_PER_SEC("OSA_GBE","RR",1492,{r},"4.{f}.0")', ["3", "4", "3", "4"]),
    ("LOG{f}(A{r})*Sheet{f}!B{s}", ["10", "2", "10", "2", "10"])])
def test_texts_of_one_skeleton_whose_fixed_digits_differ_shape_as_in_full(pattern, fixed):
    """Texts alike but for digits that are no row or literal (a sheet named '003', a
    function LOG10, a text "4.3.0") each get the recipe of an earlier text with the same
    such digits, or a full scan: always exactly what a full scan gives, and a fill
    pattern only where a full scan's recipe gives one."""
    shaper = shapes.Shaper("Plan")
    for k, f in enumerate(fixed * 3):
        r = 5 + 7 * k
        text = pattern.format(f=f, r=r, s=r - 1)
        fast = shaper(text, r, 7)
        full = shapes.shape(text, "Plan", r, 7, generic=True)
        assert (fast.key, fast.rects, fast.literals) == (full.key, full.rects, full.literals)
        filled = shaper.fill_pattern(text, r, 7)
        assert filled is not None and filled.text_at(r) == text
        assert (filled.shape.key, filled.shape.rects) == (full.key, full.rects)
    assert 1 <= len(shaper.others[next(iter(shaper.recipes))]) <= len(set(fixed)) - 1


def test_a_generic_shape_with_its_text_is_the_full_scan_in_any_cell():
    """The compile stage asks the sheet's Shaper for a shape's generic text
    (:meth:`~zvmplan_addin.recalc.shapes.Shaper.with_generic`), from the scan that made
    a recipe: it is exactly what a full scan of the text in the cell gives (key, rects,
    literals, generic text), for every formula of the template, before and after the
    Shaper has seen it in another cell."""
    from zvmplan_addin import xlsx
    from zvmplan_workbook import build
    with xlsx.safe_open_xlsx(str(build.TEMPLATE), parse_sheets=False) as pkg:
        book = xlsx.read_workbook(pkg)
    checked = 0
    for sheet in book.sheets:
        shaper = shapes.Shaper(sheet.name)
        for (r, c), cell in sorted(sheet.formulas.items()):
            full = shapes.shape(cell.text, sheet.name, r, c, generic=True)
            assert shaper.with_generic(cell.text) == full
            got = shaper(cell.text, r + 3, c + 1)
            assert got is None if full is None else \
                (got.key, got.rects, got.literals) == (full.key, full.rects, full.literals)
            assert shaper.with_generic(cell.text) == full
            checked += 1
    assert checked > 1000

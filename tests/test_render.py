"""``zvmplan render``: what LibreOffice prints is what zvmplan computed.

LibreOffice has no zvmplan functions. Printing the workbook as it is, it recalculates the
volatile warning cell (which then fires: "zvmplan functions unavailable") and shows
``#NAME?`` in every cell whose cached value is an error. The render prints a copy whose
formulas are replaced by their cached values, so the picture shows the numbers and the
real error codes. These tests read the text of the PDF LibreOffice printed."""
from __future__ import annotations

import shutil

import pytest

from zvmplan_workbook import build, planner, render

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
pytestmark = pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")


def pdf_text(path) -> str:
    """The text of every page of the PDF at ``path`` (PDFium's text layer)."""
    pdfium = pytest.importorskip("pypdfium2")
    doc = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(doc[i].get_textpage().get_text_bounded() for i in range(len(doc)))
    finally:
        doc.close()


@pytest.fixture(scope="module")
def template_pdfs(tmp_path_factory):
    """Sheet -> text of the PDF LibreOffice printed of the committed (recalculated)
    template, for the planning sheets."""
    pytest.importorskip("pypdfium2")
    pytest.importorskip("PIL")
    out = tmp_path_factory.mktemp("render")
    files = render.render(build.TEMPLATE, out, dpi=30, pdf=True,
                          sheets=["Planner", "Upgrade", "Scenarios", "Plan"])
    return {p.stem.split("_", 1)[1]: pdf_text(p) for p in files if p.suffix == ".pdf"}


def test_render_shows_no_warning(template_pdfs):
    """The file holds zvmplan's values: the picture must not say they are not computed."""
    for sheet, text in template_pdfs.items():
        assert "zvmplan functions unavailable" not in text, sheet
        assert "#NAME?" not in text, sheet


def test_render_shows_the_computed_totals(template_pdfs):
    """The Planner's totals as zvmplan calc cached them (0.770, 1.171, 1.936 engines,
    96.8% of the LPAR's 2 engines, read back with openpyxl) are in the printed text."""
    import openpyxl
    ws = openpyxl.load_workbook(build.TEMPLATE, data_only=True)[planner.PLANNER]
    text = template_pdfs["Planner"]
    for col, fmt in (("M", "{:.3f}"), ("N", "{:.3f}"), ("O", "{:.3f}"), ("P", "{:.1%}")):
        value = ws[f"{col}{planner.TOTAL_ROW}"].value
        assert isinstance(value, float)
        assert fmt.format(value) in text, (col, value)
    assert "1.936" in text and "96.8%" in text


def test_render_shows_the_real_error_codes(template_pdfs):
    """A transport not measured at a link's configuration caches #N/A or #NUM! (e.g. the
    IUCV example at MTU 9000 carried by ESCON_CTC: #N/A); the picture shows those codes."""
    import openpyxl
    ws = openpyxl.load_workbook(build.TEMPLATE, data_only=True)[planner.PLANNER]
    cached = {ws.cell(r, c).value for r in range(planner.FIRST_ROW, planner.FIRST_ROW + 4)
              for c in range(planner.CAND_COL0, planner.CAND_COL0 + len(planner.CANDIDATES))}
    assert {"#N/A", "#NUM!"} <= cached
    text = template_pdfs["Planner"]
    assert "#N/A" in text and "#NUM!" in text


def test_cached_only_replaces_formulas_by_their_values():
    """Numbers, formula strings, errors and booleans keep their cached value and type; a
    formula without a cached value becomes an empty cell; other cells are untouched."""
    xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
           b'<sheetData><row r="1">'
           b'<c r="A1" s="3"><f>1+1</f><v>2</v></c>'
           b'<c r="B1" s="4" t="str"><f>"a"&amp;"&lt;"</f><v>a&lt;</v></c>'
           b'<c r="C1" t="e"><f>NA()</f><v>#N/A</v></c>'
           b'<c r="D1" t="b"><f>TRUE</f><v>1</v></c>'
           b'<c r="E1"><f>X()</f></c>'
           b'<c r="F1" s="2"><v>7</v></c>'
           b'<c r="G1" t="str"><f t="shared" si="0" ref="G1:G2">A1</f><v></v></c>'
           b'</row></sheetData></worksheet>')
    out = render.cached_only(xml)
    assert b"<f" not in out
    assert b'<c r="A1" s="3"><v>2</v></c>' in out
    assert (b'<c r="B1" s="4" t="inlineStr"><is><t xml:space="preserve">a&lt;</t></is></c>'
            in out)
    assert b'<c r="C1" t="e"><v>#N/A</v></c>' in out
    assert b'<c r="D1" t="b"><v>1</v></c>' in out
    assert b'<c r="E1"/>' in out
    assert b'<c r="F1" s="2"><v>7</v></c>' in out
    assert b'<c r="G1" t="inlineStr"><is><t xml:space="preserve"></t></is></c>' in out


def test_sheet_names_ignore_case(tmp_path):
    """``--sheet planner`` prints the Planner, as Excel's sheet names ignore case."""
    pytest.importorskip("pypdfium2")
    pytest.importorskip("PIL")
    files = render.render(build.TEMPLATE, tmp_path, dpi=20, sheets=["pLANNER"])
    assert [p.name for p in files] == ["02_Planner.png"]
    with pytest.raises(render.RenderError, match="no sheet 'Plannr'; sheets: About, Planner"):
        render.render(build.TEMPLATE, tmp_path, dpi=20, sheets=["Plannr"])

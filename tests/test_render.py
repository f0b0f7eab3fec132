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
    formula without a cached value (none, or an empty one that is not text) shows
    "(not computed)" -- never a blank that reads as nothing -- and is listed; other cells
    are untouched."""
    xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
           b'<sheetData><row r="1">'
           b'<c r="A1" s="3"><f>1+1</f><v>2</v></c>'
           b'<c r="B1" s="4" t="str"><f>"a"&amp;"&lt;"</f><v>a&lt;</v></c>'
           b'<c r="C1" t="e"><f>NA()</f><v>#N/A</v></c>'
           b'<c r="D1" t="b"><f>TRUE</f><v>1</v></c>'
           b'<c r="E1"><f>X()</f></c>'
           b'<c r="H1"><f>1+1</f><v /></c>'
           b'<c r="F1" s="2"><v>7</v></c>'
           b'<c r="G1" t="str"><f t="shared" si="0" ref="G1:G2">A1</f><v></v></c>'
           b'</row></sheetData></worksheet>')
    missing = []
    out = render.cached_only(xml, missing=missing)
    assert missing == ["E1", "H1"]
    assert b"<f" not in out
    assert b'<c r="A1" s="3"><v>2</v></c>' in out
    assert (b'<c r="B1" s="4" t="inlineStr"><is><t xml:space="preserve">a&lt;</t></is></c>'
            in out)
    assert b'<c r="C1" t="e"><v>#N/A</v></c>' in out
    assert b'<c r="D1" t="b"><v>1</v></c>' in out
    for ref in (b"E1", b"H1"):
        assert (b'<c r="' + ref + b'" t="inlineStr"><is><t xml:space="preserve">(not computed)'
                b'</t></is></c>') in out
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


# ------------------------------------------------------- a 42-link plan ----
DATA = __import__("pathlib").Path(__file__).with_name("data")


@pytest.fixture(scope="module")
def shop42(tmp_path_factory):
    """The 42-link shop (HiperSockets, OSA, IUCV, VCTC, LCS, ESCON CTC; five scenarios)
    filled into the template: (path, values as cached)."""
    import openpyxl
    from zvmplan_workbook import fill
    out = tmp_path_factory.mktemp("shop42") / "shop42.xlsx"
    fill.fill(build.TEMPLATE, DATA / "shop42_links.csv", out,
              DATA / "shop42_scenarios.toml", engines=8)
    return out, openpyxl.load_workbook(out, data_only=True)


def test_plan_sheet_charts_the_heaviest_links_of_a_long_plan(shop42):
    """With 42 links the Plan shows the 15 with the most total CPU, heaviest first -- the
    three heaviest are the Planner's last three rows -- and sums the other 27 as "all
    others"; the every-link table grew to 42 rows."""
    from zvmplan_workbook import charts
    _, wb = shop42
    pl, ws = wb[planner.PLANNER], wb[charts.PLAN]
    # no target machine: not normalised, so each name says whose engines its figures are
    assert pl[f"{planner.ON_COL}{planner.TOTAL_ROW}"].value == planner.NOT_NORMALISED
    links = [(pl[f"O{r}"].value, f'{pl[f"A{r}"].value} [{pl[f"{planner.ON_COL}{r}"].value}]',
              pl[f"M{r}"].value, pl[f"N{r}"].value)
             for r in range(planner.FIRST_ROW, planner.FIRST_ROW + 42)]
    assert all(pl[f"{planner.STATUS_COL}{planner.FIRST_ROW + i}"].value == "yes"
               for i in range(42))
    heaviest = sorted(links, key=lambda x: -x[0])
    assert [h[1] for h in heaviest[:3]] == [
        "core db replication [2084-C24 (z990)]", "nightly backup to z/OS [9672-XZ7]",
        "web farm to app tier [2084-C24 (z990)]"]
    for k, (tot, name, cp, v) in enumerate(heaviest[:charts.PLAN_TOP]):
        r = charts.PLAN_TOP_FIRST + k
        assert (ws[f"A{r}"].value, ws[f"B{r}"].value, ws[f"C{r}"].value, ws[f"E{r}"].value) \
            == (name, cp, v, tot)
    r = charts.PLAN_OTHERS_ROW
    assert ws[f"A{r}"].value == "all others (27 links) [NOT NORMALISED]"
    rest = heaviest[charts.PLAN_TOP:]
    assert ws[f"B{r}"].value == pytest.approx(sum(x[2] for x in rest), rel=1e-12)
    assert ws[f"C{r}"].value == pytest.approx(sum(x[3] for x in rest), rel=1e-12)
    assert ws[f"E{r}"].value == pytest.approx(sum(x[0] for x in rest), rel=1e-12)
    assert ws[f"A{charts.PLAN_NOTE_ROW}"].value == "42 links in the totals, heaviest first."
    last = charts.PLAN_EVERY_FIRST + 41
    assert ws[f"A{last}"].value == "nightly backup to z/OS [9672-XZ7]"
    assert ws[f"{charts.PLAN_RANK}{last}"].value == 2
    assert sorted(ws[f"{charts.PLAN_RANK}{r}"].value
                  for r in range(charts.PLAN_EVERY_FIRST, last + 1)) == list(range(1, 43))


def test_plan_sheet_leaves_out_a_link_without_an_answer(tmp_path):
    """A link the sources cannot answer (Guest LAN at MTU 1492: 002 measured 57344 only)
    is In totals = no on the Planner: on the Plan it has no bar and no rank, and the
    note under the table counts it."""
    import openpyxl
    from zvmplan_workbook import charts, fill
    links = tmp_path / "links.csv"
    links.write_text("link,transport,workload,size_bytes,connections,level,speed_factor,load\n"
                     "db,VCTC,STREAM,32764,,,,12\n"
                     "guest lan web,GUEST_LAN,RR,1492,20,4.3.0,,500\n"
                     "web,OSA_GBE,RR,8992,50,4.4.0,,4000\n", encoding="utf-8")
    fill.fill(build.TEMPLATE, links, tmp_path / "out.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)[charts.PLAN]
    top = [ws[f"A{charts.PLAN_TOP_FIRST + k}"].value for k in range(3)]
    assert "guest lan web" not in top and top[2] in (None, "")
    assert ws[f"{charts.PLAN_RANK}{charts.PLAN_EVERY_FIRST + 1}"].value in (None, "")
    assert ws[f"A{charts.PLAN_NOTE_ROW}"].value == (
        "2 links in the totals, heaviest first; 1 link(s) with no answer are left out "
        "(In totals = no on the Planner).")


def test_the_executable_says_what_to_do_without_the_render_libraries(monkeypatch):
    """A frozen executable has no pip: instead of "pip install 'zvmplan[render]'" it says
    how to get an executable that bundles them (and build/zvmplan.spec bundles them)."""
    import sys
    from pathlib import Path
    monkeypatch.setitem(sys.modules, "pypdfium2", None)   # import pypdfium2 fails
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    with pytest.raises(render.RenderError) as err:
        render._tools()
    msg = str(err.value)
    assert msg.startswith("this zvmplan executable was built without pypdfium2")
    assert "build/build_exe.py" in msg
    monkeypatch.delattr(sys, "frozen")
    with pytest.raises(render.RenderError, match=r"needs pypdfium2: pip install 'zvmplan\[render\]'"):
        render._tools()
    # the spec's text, read (never imported: tests import nothing from build/)
    spec = Path(__file__).resolve().parents[1].joinpath("build/zvmplan.spec").read_text()
    assert 'RENDER = ("pypdfium2", "pypdfium2_raw")' in spec and '"PIL.Image"' in spec
    assert "binaries=binaries" in spec


# ---------------------------------------------------------------- prints ----
def _pages(path) -> list:
    pdfium = pytest.importorskip("pypdfium2")
    return pdfium.PdfDocument(str(path))


def _font_size_of(page, text: str) -> float:
    """The font size [pt] of the first character of ``text`` as printed on ``page``."""
    import pypdfium2.raw as raw
    tp = page.get_textpage()
    found = tp.search(text).get_next()
    assert found is not None, text
    return raw.FPDFText_GetFontSize(tp.raw, found[0])


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """Every printed page of the template's Planner, Upgrade and Assumptions (PDFs)."""
    pytest.importorskip("pypdfium2")
    pytest.importorskip("PIL")
    out = tmp_path_factory.mktemp("printed")
    files = render.render(build.TEMPLATE, out, dpi=20, pdf=True, all_pages=True,
                          sheets=["Planner", "Upgrade", "Assumptions", "Plan"])
    return {p.stem.split("_", 1)[1]: p for p in files if p.suffix == ".pdf"}


def test_printed_planner_is_legible(printed):
    """The Planner prints on A4 landscape in four column groups, one page each across, at
    one scale: body text of about 8.6 points (it was ~3.4 with ~45 columns on one page),
    the Link column and the headings on every page."""
    doc = _pages(printed["Planner"])
    assert len(doc) == 4
    texts = [doc[i].get_textpage().get_text_bounded() for i in range(4)]
    w, h = doc[0].get_size()
    assert (round(w), round(h)) == (842, 595)  # A4 landscape [pt]
    link = planner.EXAMPLES[0][0]
    for i, (text, heading) in enumerate(zip(texts, ("Required", "Cheapest", "VCTC",
                                                    "Basis of the total CPU"))):
        assert link in text and "Link" in text and heading in text, i
        assert _font_size_of(doc[i], link) >= 8, i
    # the cheapest transport whole, the totals' sentence, the candidates' error codes
    assert f"{planner.NOT_NORMALISED}; lowest as published: HIPERSOCKETS" in texts[1]
    assert "Total CPU counts 4 of 4 links" in texts[1]
    assert "#N/A" in texts[2] and "Required" not in texts[2]


def test_printed_totals_of_a_plan_on_several_processors_read_whole(shop42, tmp_path):
    """A plan adding engines of several processors (the 42-link shop, no machine named)
    prints the totals' NOT NORMALISED sentence whole on the page of the totals: it ran on
    one line from column Q over the next page's columns and ended under the processor
    basis cell, so the printed page cut it mid-word and the rest was hidden. It is wrapped
    in Q..T beside the totals now. The subtotals' labels, in the Link column that repeats
    on every page, are wrapped too: beside a subtotal they were cut after ~35 characters
    ("of which as measured on the 2084-C24 (z990) (OSA_GBE, HIPERSOCKETS)"). The cell
    saying whose engines a total is, on the Planner and each scenario, holds "not
    normalised: measured on different processors" in a column of 16: it printed "not
    normalised: me" and is wrapped in three 8-point lines now."""
    path, values = shop42
    text = values[planner.PLANNER][f"Q{planner.TOTAL_ROW}"].value
    assert text.startswith("NOT NORMALISED: the total adds engines of different processors")
    pdf = render.render(path, tmp_path, dpi=20, pdf=True, all_pages=True,
                        sheets=["Planner", "Scenarios"])
    docs = {p.stem.split("_", 1)[1]: _pages(p) for p in pdf if p.suffix == ".pdf"}
    for sheet, doc in docs.items():
        for i in range(len(doc)):
            page = " ".join(doc[i].get_textpage().get_text_bounded().split())
            assert page.count(planner.NOT_NORMALISED) == page.count("not normalised: me"), \
                (sheet, i)
        assert any(planner.NOT_NORMALISED in " ".join(doc[i].get_textpage()
                                                      .get_text_bounded().split())
                   for i in range(len(doc))), sheet
    doc = docs["Planner"]
    pages = [" ".join(doc[i].get_textpage().get_text_bounded().split())
             for i in range(len(doc))]
    totals_page = next(i for i, t in enumerate(pages) if "Total CPU counts" in t)
    assert " ".join(text.split()) in pages[totals_page]
    assert all("NOT NORMALISED: the total" not in t for i, t in enumerate(pages)
               if i != totals_page)
    labels = [planner.subtotal_label(b) for b in planner.BASES]
    assert max(map(len, labels)) > 60
    for i, page in enumerate(pages):
        if planner.subtotal_label(planner.BASES[1]) in page or "of which" in page:
            for label in labels:
                assert label in page, (i, label)
    assert sum("of which" in t for t in pages) >= 4  # on every page of the first rows


def _lines(text: str, width: float, bold: bool, size: float) -> int:
    import math
    per_line = max(1, int(width * (1.0 if bold else 1.1) * 11 / size))
    return sum(math.ceil(max(len(p), 1) / per_line) for p in text.split("\n"))


def _overfull(ws, rows) -> list:
    """Wrapped texts (not merged) taller than their row, by the layout's own measure:
    ~1.1 characters of 11-point text per unit of column width (1.0 in bold), 15 points a
    line (12 for 9-point text)."""
    merged = {c.coordinate for rng in ws.merged_cells.ranges for row in ws[rng.coord]
              for c in (row if isinstance(row, tuple) else (row,))}
    bad = []
    for r in rows:
        for cell in ws[r]:
            text = cell.value
            if not isinstance(text, str) or text.startswith("=") or cell.coordinate in merged:
                continue
            if not (cell.alignment and cell.alignment.wrap_text):
                continue
            width = ws.column_dimensions[cell.column_letter].width or 8.43
            size = (cell.font.sz if cell.font and cell.font.sz else 11)
            line = 12 if size <= 9 else 15
            need = _lines(text, width, bool(cell.font and cell.font.b), size) * line
            if need > (ws.row_dimensions[r].height or 15) + 3:
                bad.append((ws.title, cell.coordinate, text))
    return bad


def test_headings_fit_their_rows():
    """No heading is cut on the Planner, Upgrade, Scenarios or Plan and no wrapped text
    on the Assumptions runs over the next row: each row is as tall as its texts need."""
    import openpyxl
    from zvmplan_workbook import charts
    wb = openpyxl.load_workbook(build.TEMPLATE)
    bad = []
    bad += _overfull(wb[planner.PLANNER], range(planner.HEAD_ROW - 1, planner.HEAD_ROW + 2))
    bad += _overfull(wb[planner.UPGRADE], range(planner.UPGRADE_HEAD - 1,
                                                 planner.UPGRADE_HEAD + 2))
    bad += _overfull(wb[planner.SCENARIOS], range(planner.SCEN_HEAD_ROW,
                                                   planner.SCEN_HEAD_ROW + 2))
    bad += _overfull(wb[charts.PLAN], (charts.PLAN_HEAD, charts.PLAN_HEAD + 1,
                                       charts.PLAN_SCEN_HEAD, charts.PLAN_EVERY_HEAD))
    ws = wb[planner.ASSUMPTIONS]
    bad += _overfull(ws, range(1, ws.max_row + 1))
    ws = wb[planner.UPGRADE]
    stack = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 3).value == "Throughput low")
    bad += _overfull(ws, (stack,))
    assert bad == []


def test_printed_upgrade_shows_each_basis(printed):
    """The Upgrade's bases print whole (the longest example basis, 003 HiperSockets STRG,
    ends with its hardware section) and the what-if names repeat on every page across."""
    doc = _pages(printed["Upgrade"])
    texts = [doc[i].get_textpage().get_text_bounded() for i in range(len(doc))]
    assert len(doc) == 6    # three across, two down; across first
    assert all("OSA web tier, RR" in t for t in texts[:3])
    assert "Before" in texts[1] and "After" in texts[2]
    flat = " ".join(" ".join(t.split()) for t in texts)
    assert "2-way LPAR (001 hardware)." in flat


def test_rendered_plan_of_a_long_plan_shows_its_heaviest_links(shop42, tmp_path):
    """The picture of the 42-link plan's Plan sheet names the three heaviest links (the
    Planner's last rows, which the first-20-rows chart left out), in the table and as
    the chart's labels, and the "all others" bar."""
    path, _ = shop42
    files = render.render(path, tmp_path, dpi=20, pdf=True, sheets=["plan"])
    text = pdf_text(next(p for p in files if p.suffix == ".pdf"))
    for name in ("core db replication", "nightly backup to z/OS", "web farm to app tier",
                 "all others (27 links)"):
        assert text.count(name) >= 2, name   # the table and the chart's label
    assert "zvmplan functions unavailable" not in text
    assert "42 links in the totals, heaviest first." in text


def test_a_file_never_recalculated_says_so(tmp_path, capsys):
    """A workbook whose formulas hold no value (saved by a program that does not
    calculate) pictures "(not computed)" in those cells and warns, never blanks."""
    import openpyxl
    from zvmplan_addin import cli
    pytest.importorskip("pypdfium2")
    wb = openpyxl.Workbook()
    wb.active.title = "Plan"
    wb.active["A1"], wb.active["B1"], wb.active["B2"] = "Total", "=1+1", 5
    wb.save(tmp_path / "raw.xlsx")
    assert cli.main(["render", str(tmp_path / "raw.xlsx"), "-o", str(tmp_path / "png"),
                     "--pdf", "--dpi", "20"]) == 0
    err = capsys.readouterr().err
    assert err == ("zvmplan render: warning: Plan: 1 formula cell(s) hold no computed value "
                   "(first B1) and show (not computed): run zvmplan calc on the file first\n")
    text = pdf_text(tmp_path / "png" / "01_Plan.pdf")
    assert "(not computed)" in text and "5" in text

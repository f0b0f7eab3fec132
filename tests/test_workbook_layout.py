"""The template's layout, checked without recalculating: published constants come from
the data files, every published number has a live formula beside it, inputs are the only
unlocked cells, dropdowns refuse bad values, the build is reproducible and the committed
template is the one the builder makes. (Recalculated values: tests/test_workbook.py.)"""
from __future__ import annotations

import re
from zvmplan_workbook.tomlread import tomllib
import zipfile
from pathlib import Path

import openpyxl
import pytest

from zvmplan import data, names
from zvmplan_workbook import about, build, conclusions, planner
from zvmplan_workbook.book import Check

TEMPLATE = build.TEMPLATE


@pytest.fixture(scope="module")
def book():
    return build.layout()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("layout") / "template.xlsx"
    build.save(build.layout(), path)
    return path


def _records_by_ref():
    out = {}
    for r in data.records():
        out.setdefault(r.ref, []).append(r)
    return out


# ------------------------------------------------------------ published ----
def test_every_published_constant_is_a_data_record(book):
    """The grey cells hold the numbers of model/data exactly: nothing typed by hand."""
    by_ref = _records_by_ref()
    published = [c for c in book.checks if c.ref in by_ref]
    assert len(published) >= 1400
    for c in published:
        cell = book.wb[c.sheet][c.published]
        assert cell.value in [r.value for r in by_ref[c.ref]], c
        assert cell.data_type == "n"


def test_every_reproducible_record_has_a_live_formula(book):
    """Each source table's numbers (but 004's stack ranges, which zvmplan does not model,
    001's sample counts, sds and I/O counts, which it does not compute) sit beside a live
    formula."""
    checked = {c.ref for c in book.checks}
    missing = [r.ref for r in data.records()
               if r.ref not in checked and not r.document.startswith("004")
               and not (r.document.startswith("001") and (r.stat in ("n", "sd") or
                                                         (r.metric == "io_count" and r.stat == "mean")))]
    assert missing == []


def test_live_cells_are_formulas_with_a_tolerance(book):
    for c in book.checks:
        assert book.wb[c.sheet][c.live].data_type == "f", c
        assert 0 <= c.tolerance < 10, c  # the widest: 002 RR CPU 0.12 -> 0.12 ms, +-8 %


def test_expected_differences_are_explained_on_the_sheet(book):
    """Where a published number is not reproduced the sheet says so beside the table."""
    expected = [c for c in book.checks if c.expect]
    assert {(c.sheet, c.ref) for c in expected} == {
        ("000", "000 Table 5, MTU Size (bytes) 9000, Linux/IUCV (fraction of CMS/IUCV)"),
        ("002", "002 Table 1, Accounting ON, RR % change"),
        ("003", "003 Table 1, HIPERSOCKETS STRG, tx/sec")}
    for c in expected:
        ws = book.wb[c.sheet]
        notes = [cell.value for row in ws.iter_rows() for cell in row
                 if isinstance(cell.value, str) and cell.value.startswith("Expected difference")]
        assert any(c.expect in n for n in notes), c


def test_derived_tables_are_formulas_over_cells(book):
    """000 Tables 4-6 fractions and 003 Table 1 averages are Excel formulas over cells."""
    fractions = [c for c in book.checks if c.sheet == "000" and "fraction" in c.ref]
    assert len(fractions) == 27
    for c in fractions:
        assert re.fullmatch(r"=[A-Z]+\d+/[A-Z]+\d+", book.wb["000"][c.live].value), c
    averages = [c for c in book.checks if c.sheet == "003" and "Table 1," in c.ref]
    assert len(averages) == 24
    for c in averages:
        assert book.wb["003"][c.live].value.startswith("=AVERAGE("), c


# ------------------------------------------------------------ conclusions ----
def test_conclusions_file_is_complete_and_resolves(book):
    items = conclusions.load()
    ids = [c["id"] for c in items]
    assert len(ids) == len(set(ids)) >= 20
    for c in items:
        for key in ("id", "source", "claim", "quantity", "unit", "formula", "holds"):
            assert c.get(key), (c["id"], key)
        assert c["source"][:3] in ("000", "001", "002", "003", "004"), c["id"]
        assert "{x}" in c["holds"], c["id"]
        conclusions.resolve(c["formula"], book.refs)  # every {ref:KEY} is a laid-out cell
        conclusions.resolve(c["holds"], book.refs)
    assert {c["id"][:3] for c in items} == {"000", "001", "002", "003", "004"}


def test_conclusions_sheet_lists_every_conclusion(book):
    ws = book.wb[conclusions.SHEET]
    ids = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
    for c in conclusions.load():
        r = ids[c["id"]]
        assert ws.cell(r, 5).data_type == "f"
        assert ws.cell(r, 7).value.startswith("=IF(")


def test_prose_is_paraphrased_not_copied():
    """No sentence of the sources is copied: no run of 8 words of a source appears in the
    workbook's prose."""
    seeds = Path("/work/shared/seeds")
    if not seeds.is_dir():
        pytest.skip("source documents not available here")
    words = lambda s: re.findall(r"[a-z0-9%]+", s.lower())  # noqa: E731
    grams = set()
    for f in seeds.glob("0*.txt"):
        w = words(f.read_text(encoding="utf-8", errors="replace"))
        grams.update(tuple(w[i:i + 8]) for i in range(len(w) - 7))
    texts = [c[k] for c in conclusions.load() for k in ("claim", "quantity", "note") if c.get(k)]
    notes = build.notes()
    texts += notes["about"] + [a["text"] for a in notes["assumption"]]
    texts += [f["text"] for f in notes["finding_004"]]
    for text in texts:
        w = words(text)
        copied = [" ".join(w[i:i + 8]) for i in range(len(w) - 7) if tuple(w[i:i + 8]) in grams]
        assert not copied, copied


# ------------------------------------------------------------ planner ----
def test_planner_has_example_rows(book):
    ws = book.wb[planner.PLANNER]
    filled = [r for r in range(planner.FIRST_ROW, planner.FIRST_ROW + planner.N_ROWS)
              if ws[f"B{r}"].value]
    assert len(filled) >= 3
    assert {ws[f"B{r}"].value for r in filled} >= {"IUCV", "OSA_GBE", "HIPERSOCKETS"}


def test_only_inputs_are_unlocked_and_sheets_protected(book):
    for name in (planner.PLANNER, planner.UPGRADE, planner.SCENARIOS):
        ws = book.wb[name]
        assert ws.protection.sheet, name
        for row in ws.iter_rows():
            for c in row:
                unlocked = c.protection.locked is False
                if c.data_type == "f":
                    assert not unlocked, (name, c.coordinate)
                if unlocked:
                    assert c.fill.fgColor.rgb.endswith("FFF2CC"), (name, c.coordinate)
    ws = book.wb[planner.PLANNER]
    for i, col in enumerate(planner.INPUTS):
        for r in range(planner.FIRST_ROW, planner.FIRST_ROW + planner.N_ROWS):
            assert ws[f"{planner.COL[col.key]}{r}"].protection.locked is False
    assert ws[planner.ENGINES_CELL].protection.locked is False


def test_dropdowns_refuse_bad_values(book):
    ws = book.wb[planner.PLANNER]
    dvs = ws.data_validations.dataValidation
    by_cell = {}
    for dv in dvs:
        for rng in dv.sqref.ranges:
            for row in ws[rng.coord] if ":" in rng.coord else [[ws[rng.coord]]]:
                for c in row:
                    by_cell[c.coordinate] = dv
    r = planner.FIRST_ROW
    for key, items in (("transport", names.TRANSPORTS), ("workload", names.WORKLOADS),
                       ("level", names.LEVELS)):
        dv = by_cell[f"{planner.COL[key]}{r}"]
        assert dv.type == "list" and dv.showErrorMessage and dv.errorStyle == "stop"
        assert dv.formula1.strip('"').split(",") == list(items)
    for key in ("speed_factor", "load"):
        dv = by_cell[f"{planner.COL[key]}{r}"]
        assert dv.type == "decimal" and dv.operator == "greaterThan" and dv.showErrorMessage
    dv = by_cell[f"{planner.COL['connections']}{r}"]
    assert dv.type == "whole" and dv.showErrorMessage
    # an MTU or transfer size is whole bytes (9000.5 refused), as fill refuses it
    dv = by_cell[f"{planner.COL['size_bytes']}{r}"]
    assert (dv.type, dv.operator, dv.formula1) == ("whole", "greaterThanOrEqual", "1")
    assert dv.error == "A whole number of bytes, 1 or more" and dv.showErrorMessage


def test_headers_carry_units(book):
    """Every column header of the Planner states its unit in the row below (or none needed)."""
    ws = book.wb[planner.PLANNER]
    for c in range(1, ws.max_column + 1):
        head = ws.cell(planner.HEAD_ROW, c).value
        unit = ws.cell(planner.HEAD_ROW + 1, c).value
        if head and head not in ("Link", "Transport", "Workload", "z/VM level", "Load unit",
                                 "Load within measured rate?", "Cheapest transport",
                                 "Basis of the total CPU (ZVM_BASIS)"):
            assert unit and unit.startswith("["), (head, unit)


# ------------------------------------------------------------ about ----
def test_about_lists_every_function_and_source(book):
    ws = book.wb[about.SHEET]
    text = "\n".join(str(c.value) for row in ws.iter_rows() for c in row if c.value)
    for fn in about.functions():
        assert fn.signature() in text and fn.example in text and fn.description in text
    for doc, (title, tables) in about.sources().items():
        assert title in text
    assert "xlwings addin install" in text and "zvmplan_addin.functions" in text
    assert "zvmplan calc" in text


def test_about_install_steps_match_the_readme(book):
    """The About sheet's install steps are the README's (Excel on Windows, classic
    xlwings): every command, setting, menu path and the .xlsm step, in the same order."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Excel on Windows (classic xlwings)")[1].split("\n## ")[0]
    steps = re.findall(r"^\d+\. (.*?)(?=^\d+\. |^$)", section, re.M | re.S)
    assert len(steps) == 5
    ws = book.wb[about.SHEET]
    text = "\n".join(str(c.value) for row in ws.iter_rows() for c in row if c.value)
    install = [t for t in build.notes()["install"] if t[:2] in ("1.", "2.", "3.", "4.", "5.")]
    assert len(install) == len(steps)
    for i, (step, ours) in enumerate(zip(steps, install), start=1):
        assert ours.startswith(f"{i}. ") and ours in text
        step = " ".join(step.split())
        must = re.findall(r"`([^`]+)`", step) + re.findall(r"\*\*([^*]+)\*\*", step)
        must += re.findall(r'"([^"]+)"', step) + re.findall(r"\(\.xlsm\)|Trust Center", step)
        for m in must:
            assert m.strip("()") in ours, (i, m)
    assert "pip install zvmplan" not in text


# ------------------------------------------------------------ package ----
def test_build_is_reproducible(built, tmp_path):
    again = build.save(build.layout(), tmp_path / "again.xlsx")
    assert again.read_bytes() == built.read_bytes()


def test_charts_are_in_the_package(built):
    with zipfile.ZipFile(built) as z:
        charts = sorted(n for n in z.namelist() if n.startswith("xl/charts/chart"))
        assert len(charts) == 10
        scatter = [z.read(n).decode() for n in charts if b"scatterChart" in z.read(n)]
        assert len(scatter) == 2 and all('logBase val="10"' in x for x in scatter)
        bars = [z.read(n).decode() for n in charts if b"barChart" in z.read(n)]
        assert len(bars) == 8
        # the plan: CPU by link stacked (CP, virtual, total only) over the 15 heaviest
        # links and "all others", a label for each; total CPU by scenario with the
        # LPAR's engines as a line
        stacked = [x for x in bars if '<grouping val="stacked"' in x]
        assert len(stacked) == 1 and stacked[0].count("<ser>") == 3
        assert "<strRef><f>Plan!$A$8:$A$23</f>" in stacked[0]
        assert "'Plan'!$B$8:$B$23" in stacked[0] and "'Plan'!$D$8:$D$23" in stacked[0]
        assert '<tickLblSkip val="1"' in stacked[0]
        combo = [x for x in bars if "lineChart" in x]
        assert len(combo) == 1 and "'Plan'!$C$31:$C$35" in combo[0]


def test_check_type():
    c = Check("000", "B10", "G10", 0.0005, "000 Table 1, x, y")
    assert not c.expect


def test_notes_file_parses():
    with build.NOTES_FILE.open("rb") as fh:
        notes = tomllib.load(fh)
    assert {"about", "install", "headless", "sheet", "assumption", "finding_004"} <= set(notes)
    assert [s["name"] for s in notes["sheet"]] == list(build.SHEET_ORDER)


def test_docs_describe_the_template_as_built():
    readme = (Path(__file__).resolve().parents[1] / "docs" / "planning.md").read_text(encoding="utf-8")
    section = " ".join(readme.split("## The template workbook")[1].split("\n## ")[0].split())
    assert f"The template has {planner.N_ROWS} rows" in section
    assert planner.WARNING in section and f"in {planner.WARN_CELL}" in section
    assert "OOXMLRecalcMode" in section

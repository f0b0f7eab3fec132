"""Any number of links: ``zvmplan fill`` adds table rows beyond the template's (the same
formulas the template has, stretched totals, highlights, dropdowns and print area), and
the totals survive links the sources cannot answer: they count what they include and
name what they leave out."""
from __future__ import annotations

import csv
import re
import zipfile

import openpyxl
import pytest

from zvmplan import api
from zvmplan_workbook import build, charts, fill, planner, rows, xlsxio

TEMPLATE = build.TEMPLATE
HEADER = ("link", "transport", "workload", "size_bytes", "connections", "level",
          "speed_factor", "load")
# one of each kind of link; GUEST_LAN at MTU 1492 has no answer (002 measured 57344 only),
# GUEST_LAN at 57344 has a total CPU only (002 Table 2 prints no CP / virtual split)
KINDS = (
    ("db replication", "VCTC", "STREAM", 32764, None, None, None, 12),
    ("web tier", "OSA_GBE", "RR", 8992, 50, "4.4.0", None, 4000),
    ("web tier (http)", "OSA_GBE", "CRR", 1492, 20, "4.3.0", 1.2, 800),
    ("backup", "HIPERSOCKETS", "STRG", 32768, 20, "4.4.0", None, 120),
    ("ftp out", "LCS", "FTP_GET", 1500, None, "4.1.0", None, 3),
    ("guest lan 1492", "GUEST_LAN", "RR", 1492, 20, "4.3.0", None, 500),
    ("guest lan 57344", "GUEST_LAN", "RR", 57344, 50, "4.3.0", None, 500),
)
N_LINKS = 1000


def links(n: int) -> list[tuple]:
    return [(f"{k[0]} {i + 1}",) + k[1:] for i, k in enumerate(KINDS[j % len(KINDS)]
                                                                for j in range(n))]


def write_links(path, n: int):
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        for link in links(n):
            w.writerow(["" if v is None else v for v in link])
    return path


def model(link, kind="tot"):
    """The model's engines for a link, or None where it has no answer."""
    try:
        return api.cpu_engines(*link[1:], kind=kind)
    except Exception:
        return None


# ---------------------------------------------------- growing, not recalculated ----
@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    """The template's tables grown to 60 rows (no recalculation), read back by openpyxl."""
    path = tmp_path_factory.mktemp("grown") / "grown.xlsx"
    raw = xlsxio.read_zip(TEMPLATE)
    entries = {info.filename: data for info, data in raw}
    rows.grow(entries, 60)
    xlsxio.write_zip(path, [(i.filename, entries[i.filename]) for i, _ in raw], build.FIXED_TIME)
    return path


def test_grown_rows_hold_the_templates_formulas(grown):
    wb = openpyxl.load_workbook(grown)
    ws = wb[planner.PLANNER]
    last = planner.FIRST_ROW + 59
    for r in (planner.LAST_ROW + 1, last):
        for col, (f, _) in planner.planner_row(r).items():
            assert ws[f"{col}{r}"].value == f, (col, r)
        for c in planner.INPUTS:  # inputs: empty, unlocked, styled as the template's
            cell = ws[f"{planner.COL[c.key]}{r}"]
            assert cell.value is None and cell.protection.locked is False
            assert cell.fill.fgColor.rgb.endswith("FFF2CC")
    assert ws.max_row == last
    for ref, (f, _) in planner.planner_totals(last).items():
        assert ws[ref].value == f, ref
    sc = wb[planner.SCENARIOS]
    s_last = planner.SCEN_FIRST_ROW + 59
    for b in range(planner.SCENARIO_BLOCKS):
        for col, (f, _) in planner.scenario_row(b, s_last).items():
            assert sc[f"{col}{s_last}"].value == f
        for ref, (f, _) in planner.scenario_totals(b, s_last).items():
            assert sc[ref].value == f
    # dropdowns and highlights reach the new last row; the print area too
    for dv in ws.data_validations.dataValidation:
        for rng in dv.sqref.ranges:
            if rng.min_row == planner.FIRST_ROW:
                assert rng.max_row == last, str(dv.sqref)
    for cf in ws.conditional_formatting:
        for rng in cf.sqref.ranges:
            if rng.min_row == planner.FIRST_ROW:
                assert rng.max_row == last, str(cf.sqref)
    assert ws.print_area == f"'{planner.PLANNER}'!$A$1:${planner.BASIS_COL}${last}"


def test_growing_keeps_everything_else(grown):
    with zipfile.ZipFile(grown) as z, zipfile.ZipFile(TEMPLATE) as t:
        assert z.namelist() == t.namelist()
        changed = [n for n in t.namelist() if z.read(n) != t.read(n)]
    paths = rows.sheet_paths({i.filename: d for i, d in xlsxio.read_zip(TEMPLATE)})
    assert sorted(changed) == sorted([paths[planner.PLANNER], paths[planner.SCENARIOS],
                                      paths[charts.PLAN], "xl/workbook.xml"])


def test_growing_grows_the_plan_sheet(grown):
    """The Plan's every-link table reaches the new last link, and its ranks and the
    heaviest-links table read all of it."""
    wb = openpyxl.load_workbook(grown)
    ws = wb[charts.PLAN]
    n = 60
    last = charts.PLAN_EVERY_FIRST + n - 1
    for col, (f, _) in charts.plan_link_row(last, last).items():
        assert ws[f"{col}{last}"].value == f, col
    first = charts.PLAN_EVERY_FIRST
    assert ws[f"{charts.PLAN_RANK}{first}"].value == \
        charts.plan_link_row(first, last)[charts.PLAN_RANK][0]
    for ref, (f, _) in charts.plan_top(last).items():
        assert ws[ref].value == f, ref
    assert ws.max_row == last


def test_every_added_row_is_its_own_formulas_and_inputs(tmp_path):
    """Rows are made from runs of text with the row number put in, a batch at a time:
    every added row of each sheet is there once, in order, and holds the formulas its
    row function gives and the link's inputs (rows on both sides of each batch too)."""
    n = planner.N_ROWS + 3 * rows._BATCH + 5
    path = write_links(tmp_path / "links.csv", n)
    given = fill.read_links(path)
    raw = xlsxio.read_zip(TEMPLATE)
    entries = {info.filename: data for info, data in raw}
    rows.grow(entries, n, fill.added_inputs(given))
    out = tmp_path / "grown.xlsx"
    xlsxio.write_zip(out, [(i.filename, entries[i.filename]) for i, _ in raw], build.FIXED_TIME)
    paths = rows.sheet_paths(entries)
    tables = ((planner.PLANNER, planner.FIRST_ROW, planner.planner_row),
              (planner.SCENARIOS, planner.SCEN_FIRST_ROW,
               lambda r: {k: v for b in range(planner.SCENARIO_BLOCKS)
                          for k, v in planner.scenario_row(b, r).items()}),
              (charts.PLAN, charts.PLAN_EVERY_FIRST,
               lambda r: charts.plan_link_row(r, charts.PLAN_EVERY_FIRST + n - 1)))
    wb = openpyxl.load_workbook(out)
    for sheet, first, row_fn in tables:
        numbers = [int(x) for x in re.findall(rb'<row r="([0-9]+)"', entries[paths[sheet]])]
        added = [x for x in numbers if x >= first + planner.N_ROWS]
        assert added == list(range(first + planner.N_ROWS, first + n)), sheet
        ws = wb[sheet]
        for r in added:
            for col, (f, _) in row_fn(r).items():
                assert ws[f"{col}{r}"].value == f, (sheet, col, r)
    ws = wb[planner.PLANNER]
    for i in range(planner.N_ROWS, n):  # the inputs, as read_links gave them
        r = planner.FIRST_ROW + i
        for c in planner.INPUTS:
            want = given[i][c.key]
            assert ws[f"{planner.COL[c.key]}{r}"].value == want, (c.key, r)


def test_a_table_with_rows_below_is_refused():
    raw = xlsxio.read_zip(TEMPLATE)
    entries = {info.filename: data for info, data in raw}
    path = rows.sheet_paths(entries)[planner.PLANNER]
    xml = entries[path].decode()
    entries[path] = xml.replace("</sheetData>", '<row r="900"><c r="A900" t="inlineStr">'
                                "<is><t>note</t></is></c></row></sheetData>").encode()
    with pytest.raises(rows.GrowError, match="not the last row"):
        rows.grow(entries, 30)


# ------------------------------------------------------- 1,000 links, filled ----
@pytest.fixture(scope="module")
def thousand(tmp_path_factory):
    d = tmp_path_factory.mktemp("thousand")
    out = d / "planned.xlsx"
    rep = fill.fill(TEMPLATE, write_links(d / "links.csv", N_LINKS), out,
                    write_scenarios(d / "scenarios.toml"))
    assert rep.links == N_LINKS
    return rep, openpyxl.load_workbook(out, data_only=True, read_only=True)


def write_scenarios(path):
    """The template's example scenarios as a scenarios file."""
    text = ""
    for name, factor, level, transport, speed in planner.SCENARIO_EXAMPLES:
        text += f'[[scenario]]\nname = "{name}"\nload_factor = {factor}\n'
        text += "".join(f'{k} = "{v}"\n' for k, v in (("level", level),
                                                   ("transport", transport)) if v)
        text += f"speed_factor = {speed}\n" if speed else ""
    path.write_text(text, encoding="utf-8")
    return path


def test_without_scenarios_the_sheet_says_so_and_is_not_grown(tmp_path):
    """A plan filled without scenarios clears every block (the template's examples are not
    the planner's), says so on the Scenarios sheet, and leaves its rows ungrown: half the
    cells of a large plan (issue 19). A block named later in a spreadsheet then shows
    "rows missing", never a total over the first rows as if it were all of them."""
    n = planner.N_ROWS + 10
    out = tmp_path / "plan.xlsx"
    fill.fill(TEMPLATE, write_links(tmp_path / "links.csv", n), out)
    wb = openpyxl.load_workbook(out, data_only=True)
    ws = wb[planner.SCENARIOS]
    assert ws.max_row == planner.SCEN_LAST_ROW
    assert ws.cell(planner.SCEN_COUNT_ROW, 1).value == planner.NO_SCENARIOS
    for b in range(planner.SCENARIO_BLOCKS):
        c0 = planner.scenario_col(b)
        assert ws.cell(planner.SCEN_PARAM_ROW, c0 + 1).value is None
        assert all(ws.cell(planner.SCEN_TOTAL_ROW, c0 + k).value in (None, "")
                   for k in range(1, 6))
        assert all(ws.cell(r, c0).value in (None, "")
                   for r in range(planner.SCEN_FIRST_ROW, planner.SCEN_LAST_ROW + 1))
    assert wb[planner.PLANNER].max_row == planner.FIRST_ROW + n - 1
    # a name typed in later: the block covers the template's rows only, and says so
    named = tmp_path / "named.xlsx"
    xlsxio.write_inputs(out, named, {planner.SCENARIOS: {
        f"B{planner.SCEN_PARAM_ROW}": "later"}})
    from zvmplan_addin import recalc
    recalc.calc(named, tmp_path / "named_calc.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "named_calc.xlsx", data_only=True)[planner.SCENARIOS]
    assert ws.cell(planner.SCEN_TOTAL_ROW, 4).value == "rows missing"
    assert ws.cell(planner.SCEN_COUNT_ROW, 1).value.startswith(
        f"This block covers {planner.N_ROWS} of the Planner's {n} links")


def _rows(ws, first, n, width):
    return list(ws.iter_rows(min_row=first, max_row=first + n - 1, max_col=width,
                             values_only=True))


def test_thousand_links_match_the_model(thousand):
    _, wb = thousand
    ws = wb[planner.PLANNER]
    got = _rows(ws, planner.FIRST_ROW, N_LINKS, 21)
    status = {"yes": 0, "total only": 0, "no": 0}
    for link, row in zip(links(N_LINKS), got):
        assert row[0] == link[0]
        tot, cp = model(link), model(link, "cp")
        st = row[20]   # column U, In totals
        status[st] += 1
        if tot is None:
            assert st == "no" and row[14] == "#NUM!", link
        else:
            assert row[14] == pytest.approx(tot, rel=1e-12), link
            assert st == ("yes" if cp is not None else "total only"), link
    assert status == {"yes": 715, "total only": 142, "no": 143}


def test_thousand_links_totals_count_what_they_include(thousand):
    """One Guest LAN link at MTU 1492 used to make Total CPU #NUM!, and the Guest LAN
    links silently dropped out of the CP and virtual totals (issue 10).

    Excel behaviour relied on: SUMIF / COUNTIF compare each criteria cell and skip error
    cells; ERROR.TYPE gives 6 for #NUM! and 7 for #N/A; SUM over a column of text is 0
    unless an error is in it, which it returns (the guard that lets #NAME? through)."""
    _, wb = thousand
    ws = wb[planner.PLANNER]
    tot = [(l, model(l), model(l, "cp"), model(l, "v")) for l in links(N_LINKS)]
    total = sum(t for _, t, _, _ in tot if t is not None)
    cp = sum(c for _, t, c, _ in tot if t is not None and c is not None)
    v = sum(x for _, t, c, x in tot if t is not None and c is not None)
    row = _rows(ws, planner.TOTAL_ROW, 1, 17)[0]
    assert row[12] == pytest.approx(cp, rel=1e-12)
    assert row[13] == pytest.approx(v, rel=1e-12)
    assert row[14] == pytest.approx(total, rel=1e-12)
    # links of four processors and no machine named: no share of the LPAR (issue 17)
    assert row[15] == planner.SHARE_NOT_NORMALISED
    assert row[16].startswith("NOT NORMALISED: the total adds engines of different processors")
    assert row[16].split(". ", 1)[1] == ("Total CPU counts 857 of 1000 links; left out: 143 with no answer "
                       "(In totals = no; first: guest lan 1492 6; its Basis says why). CP and "
                       "virtual CPU count 715 links; they leave out 142 link(s) whose source "
                       "gives total CPU only (Guest LAN, 002).")


def test_thousand_links_scenarios(thousand):
    """The scenario blocks grow with the Planner: the example scenario 'high' (x2) covers
    every link."""
    _, wb = thousand
    ws = wb[planner.SCENARIOS]
    b = [s[0] for s in planner.SCENARIO_EXAMPLES].index("high")
    c0 = planner.scenario_col(b)
    got = _rows(ws, planner.SCEN_FIRST_ROW, N_LINKS, c0 + 5)
    want = 0.0
    for link, row in zip(links(N_LINKS), got):
        t = model(link[:-1] + (link[-1] * 2,))
        if t is None:
            assert row[c0 + 4] == "no"
        else:
            assert row[c0 + 2] == pytest.approx(t, rel=1e-12)
            want += t
    total = _rows(ws, planner.SCEN_TOTAL_ROW, 1, c0 + 3)[0][c0 + 2]
    assert total == pytest.approx(want, rel=1e-12)


def test_thousand_links_warnings_name_each_left_out_link(thousand):
    rep, _ = thousand
    assert len(rep.warnings) == 143
    assert re.match(r"link 6 \(guest lan 1492 6\): #NUM! GUEST_LAN RR: MTU 1492 ",
                    rep.warnings[0])


def test_a_10000_link_plan_fits_the_readers_limits():
    """The benchmark's largest plan (10,000 links, docs/performance.md): every sheet part
    stays under the part limit the engine reads (a part over it is refused as a possible
    zip bomb), with room for the cached values calc adds. The size at 10,000 rows is
    extrapolated from two small growths (the real growth takes 20 s of CPU and 1.2 GB);
    rows numbered with five digits instead of three add about 3% (measured: 199 MiB
    extrapolated, 206 MiB grown), allowed for with 5%. The Scenarios part, with its per-link
    Carried by, speed factor and basis columns (issue 17), is the largest."""
    import zipfile
    from zvmplan_addin.xlsx import package
    with zipfile.ZipFile(TEMPLATE) as z:
        template = {n: z.read(n) for n in z.namelist()}

    def sizes(n):
        entries = dict(template)
        rows.grow(entries, n)
        return {name: len(entries[path]) for name, path in rows.sheet_paths(entries).items()}
    a, b = sizes(100), sizes(200)
    at = {k: b[k] + (b[k] - a[k]) * (10_000 - 200) / 100 for k in b}
    assert max(at, key=at.get) == planner.SCENARIOS
    assert 1.05 * at[planner.SCENARIOS] < 0.85 * package.MAX_PART_BYTES, at
    assert 1.05 * sum(at.values()) < package.MAX_TOTAL_BYTES

"""A plan's size is bounded before the work: ``zvmplan fill`` estimates the cells of the
workbook it would grow from the link count, and refuses, in one line, a plan the engine's
own cell bound would refuse later (issue 19: 50,000 links used to be refused after 7.6
minutes, on the workbook fill itself had grown)."""
from __future__ import annotations

import datetime as dt

import pytest

from zvmplan_addin.cli import main as cli
from zvmplan_addin.xlsx import UnsafeWorkbookError, read_workbook, safe_open_xlsx, sheet, size
from zvmplan_workbook import build, fill, planner, rows, xlsxio

TEMPLATE = build.TEMPLATE
LINK = "OSA_GBE,RR,1492,20,4.4.0,,5000"


def write_links(path, n, bad_row=None):
    lines = ["link,transport,workload,size_bytes,connections,level,speed_factor,load"]
    for i in range(1, n + 1):
        lines.append(f"link {i},{'NOT_A_TRANSPORT' if i == bad_row else 'OSA_GBE'},"
                     + LINK.split(",", 1)[1])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _entries():
    return {info.filename: data for info, data in xlsxio.read_zip(TEMPLATE)}


def test_the_estimate_is_what_the_engine_counts(tmp_path, monkeypatch):
    """The cells :func:`rows.cells_when_grown` foresees are exactly the cells the engine
    reads in the grown workbook: a bound of that many reads it, one fewer refuses it."""
    need = rows.cells_when_grown(_entries(), 60)
    entries = _entries()
    rows.grow(entries, 60)
    path = tmp_path / "grown.xlsx"
    xlsxio.write_zip(path, list(entries.items()), dt.datetime(2024, 1, 1))
    monkeypatch.setattr(sheet, "MAX_CELLS", need)
    with safe_open_xlsx(path, parse_sheets=False) as pkg:
        read_workbook(pkg)
    monkeypatch.setattr(sheet, "MAX_CELLS", need - 1)
    with safe_open_xlsx(path, parse_sheets=False) as pkg, \
            pytest.raises(UnsafeWorkbookError, match="cells in the sheets"):
        read_workbook(pkg)
    # the template's own rows cost nothing more
    assert rows.cells_when_grown(_entries(), 1) == rows.cells_when_grown(_entries(), 0) \
        < need


def test_a_plan_over_the_bound_is_refused_before_any_work(tmp_path, monkeypatch):
    """Refused from the link count alone: before a link is validated (the bad transport of
    row 40 is not what the message names), before a row is added, nothing written; the
    line says how many cells, the bound, and how many links a plan may have."""
    entries = _entries()
    most = 30
    monkeypatch.setattr(sheet, "MAX_CELLS", rows.cells_when_grown(entries, most, False))
    out = tmp_path / "plan.xlsx"
    links = write_links(tmp_path / "links.csv", 50, bad_row=40)
    need = rows.cells_when_grown(entries, 50, False)
    with pytest.raises(fill.FillError) as exc:
        fill.fill(TEMPLATE, links, out)
    msg = str(exc.value)
    assert msg == (f"links.csv: 50 links need a workbook of {need:,} cells; zvmplan reads "
                   f"at most {sheet.MAX_CELLS:,} cells (docs/engine.md): split the links into "
                   f"plans of at most {most} links each")
    assert "\n" not in msg and not out.exists()
    assert list(tmp_path.iterdir()) == [links]


@pytest.mark.parametrize("with_scenarios", [False, True])
def test_the_largest_plan_the_bound_allows_is_computed(tmp_path, monkeypatch, with_scenarios):
    """At the bound exactly, the plan is grown and computed (the estimate is not
    pessimistic), every link in it; with scenarios, their rows count too."""
    most = planner.N_ROWS + 3
    scen = None
    if with_scenarios:
        scen = tmp_path / "s.toml"
        scen.write_text('[[scenario]]\nname = "double"\nload_factor = 2\n', encoding="utf-8")
    monkeypatch.setattr(sheet, "MAX_CELLS", rows.cells_when_grown(_entries(), most,
                                                                  with_scenarios))
    rep = fill.fill(TEMPLATE, write_links(tmp_path / "links.csv", most), tmp_path / "p.xlsx",
                    scen)
    assert rep.links == most and len(rep.results.links) == most
    assert all(isinstance(link["total_engines"], float) for link in rep.results.links)
    with pytest.raises(fill.FillError, match=f"at most {most} links each"):
        fill.fill(TEMPLATE, write_links(tmp_path / "more.csv", most + 1), tmp_path / "q.xlsx",
                  scen)


def test_the_command_says_it_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sheet, "MAX_CELLS", rows.cells_when_grown(_entries(), 25, False))
    links = write_links(tmp_path / "links.csv", 26)
    rc = cli(["fill", str(TEMPLATE), "--links", str(links), "-o", str(tmp_path / "p.xlsx")])
    err = capsys.readouterr().err.strip()
    assert rc != 0 and len(err.splitlines()) == 1
    assert "26 links need a workbook of" in err and "at most 25 links each" in err
    assert "this is a bug" not in err


def test_the_sheet_size_bounds_the_plan_too(monkeypatch):
    """The grown sheet parts, with their values written back, must stay within the
    package's bound a part (fill reads its result back): with the real bounds 10,000
    links with scenarios pass; 12,000 need a Scenarios sheet over 256 MiB, refused from
    the count; without scenarios the Planner sheet binds first, near 28,000 links."""
    with_scen = fill.size_bound(TEMPLATE, "links.csv", True)
    with_scen(10_000)
    with pytest.raises(fill.FillError, match=r"12,000 links need a Scenarios sheet of \d+ MiB; "
                       r"zvmplan reads at most 256 MiB a sheet"):
        with_scen(12_000)
    without = fill.size_bound(TEMPLATE, "links.csv", False)
    without(12_000)
    with pytest.raises(fill.FillError, match=r"30,000 links need a Planner sheet"):
        without(30_000)
    with pytest.raises(fill.FillError, match=r"100,000 links need a Planner sheet"):
        without(100_000)
    # the cells bind first where the memory holds fewer formula cells (issue 19)
    monkeypatch.setenv(size.ENV, "1G")
    most = size.cell_budget(formulas=True)
    assert most == (2**30 - size.BASE_BYTES) // (size.BYTES_PER_CELL + size.BYTES_PER_FORMULA)
    with pytest.raises(fill.FillError, match=rf"100,000 links need a workbook of [\d,]+ cells; "
                       rf"zvmplan reads at most {most:,} cells"):
        fill.size_bound(TEMPLATE, "links.csv", False)(100_000)

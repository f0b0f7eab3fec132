"""What ``zvmplan fill`` prints: the scenarios in the table, CSV and JSON; a table that
fits the terminal; ``--sort cpu`` and ``--rows``; the exit code that says whether the plan
fits; the errors counted by where they are; numbers with at most 15 significant digits;
link names a spreadsheet would run as formulas neutralised in CSV."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import openpyxl
import pytest

from zvmplan import api
from zvmplan_addin.cli import main as cli
from builders import SAME_AS_MEASURED
from zvmplan_workbook import build, fill, results
from zvmplan_workbook.planner import FIRST_ROW

TEMPLATE = build.TEMPLATE
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
HEADER = "link,transport,workload,size_bytes,connections,level,speed_factor,load\n"
#: names a spreadsheet would run as a formula (OWASP: CSV injection), and a plain one
HOSTILE = ('=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)")


def _total(link, factor=1.0):
    return api.cpu_engines(link["transport"], link["workload"], link["size_bytes"],
                           link["connections"], link["level"], link["speed_factor"],
                           link["load"] * factor, "tot")


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    """The README's example on 2 engines, filled once."""
    if build.engine_defects():
        pytest.skip("zvmplan calc cannot recalculate the template yet")
    out = tmp_path_factory.mktemp("out") / "plan.xlsx"
    assert cli(["fill", str(TEMPLATE), "--links", str(EXAMPLES / "links.csv"), "--scenarios",
                str(EXAMPLES / "scenarios.toml"), "--engines", "2", "--capacity", SAME_AS_MEASURED, "-o", str(out),
                "-q"]) == fill.EXIT_DOES_NOT_FIT
    return results.read(out)


def test_scenarios_are_read_with_their_totals_and_links_counted(plan):
    """Each named Scenarios block: its parameters, its cached totals, the links counted."""
    links = fill.read_links(EXAMPLES / "links.csv")
    assert [s.name for s in plan.scenarios] == ["today", "double the load",
                                                 "z/VM 4.4.0, 25% faster processor"]
    today, double, faster = plan.scenarios
    assert (today.load_factor, double.load_factor, faster.load_factor) == (None, 2, 1.5)
    assert (faster.level, faster.speed_factor) == ("4.4.0", 1.25)
    assert today.totals["total_engines"] == pytest.approx(sum(map(_total, links)), rel=1e-12)
    assert double.totals["total_engines"] == pytest.approx(
        sum(_total(x, 2) for x in links), rel=1e-12)
    assert double.totals["share_of_lpar"] == pytest.approx(
        double.totals["total_engines"] / 2, rel=1e-12)
    assert [(s.counted(), s.listed()) for s in plan.scenarios] == [(6, 6)] * 3
    assert today.note.startswith("Total CPU counts 6 of 6 links")


def test_the_table_shows_the_scenarios_and_fits_the_width(plan):
    """At 100 and 80 columns no line is wider than the terminal; the scenarios come with
    their total, share and links counted; the columns left out are named."""
    for width in (100, 80, 60):
        text = results.table(plan, width=width)
        assert max(map(len, text.splitlines())) <= width, (width, text)
        scen = text[text.index("Scenario"):]
        if width >= 80:
            assert re.search(r"double the load\s+2\s+5\.284\s+264\.2%\s+6 of 6", scen), scen
    text = results.table(plan, width=100)
    assert "(not shown: Workload, CP [engines], Virtual [engines], Measured rate; --wide " \
           "shows every column)" in text
    wide = results.table(plan, width=100, wide=True)
    assert max(map(len, wide.splitlines())) > 100  # --wide: every column, however wide
    assert "Measured" in wide and "not shown" not in wide


def test_sort_cpu_then_rows(plan):
    """``sort="cpu"``: heaviest total CPU first; ``max_rows`` counts after sorting."""
    text = results.table(plan, 2, width=100, sort="cpu")
    body = text.split("\n")[3:5]
    heaviest = sorted(plan.links, key=lambda x: -x["total_engines"])
    assert [x["link"] for x in heaviest[:2]] == ["linux1-linux2 bulk copy", "nightly backup"]
    assert body[0].startswith("linux1-linux2 bulk copy") and "0.780" in body[0]
    assert body[1].startswith("nightly backup") and "0.728" in body[1]
    assert "(4 more links not shown" in text
    assert [i for i, _ in results.sorted_links(plan, "cpu")] == [1, 4, 6, 3, 2, 5]


def test_fill_command_sort_rows_wide(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    out = tmp_path / "o.xlsx"
    rc = cli(["fill", str(TEMPLATE), "--links", str(EXAMPLES / "links.csv"), "-o", str(out),
              "--sort", "cpu", "--rows", "1", "--engines", "4", "--capacity", SAME_AS_MEASURED])
    printed = capsys.readouterr().out
    assert rc == fill.EXIT_FITS  # 4 engines hold 2.642
    lines = printed.splitlines()
    assert lines[3].startswith("linux1-linux2 bulk copy") and lines[4].startswith("Total")
    assert max(map(len, lines)) <= 100
    assert cli(["fill", str(TEMPLATE), "--links", str(EXAMPLES / "links.csv"), "-o",
                str(out), "--wide", "--engines", "4", "--capacity", SAME_AS_MEASURED]) == 0
    assert "Measured" in capsys.readouterr().out
    assert cli(["fill", str(TEMPLATE), "--links", str(EXAMPLES / "links.csv"), "-o",
                str(out), "--rows", "-1"]) == 1
    assert "--rows -1" in capsys.readouterr().err


def test_exit_codes_say_whether_the_plan_fits(tmp_path, capsys):
    """0 fits, 4 does not fit (a scheduled run alerts), 5 cannot tell: a link left out of
    a total that is within the engines."""
    out = tmp_path / "o.xlsx"
    args = ["fill", str(TEMPLATE), "--links", str(EXAMPLES / "links.csv"), "-o", str(out), "-q"]
    assert cli(args + ["--engines", "2.65", "--capacity", SAME_AS_MEASURED]) == fill.EXIT_FITS == 0
    assert cli(args + ["--engines", "2.6", "--capacity", SAME_AS_MEASURED]) == fill.EXIT_DOES_NOT_FIT == 4
    bad = tmp_path / "bad.csv"
    bad.write_text((EXAMPLES / "links.csv").read_text(encoding="utf-8")
                   + "osa jumbo,OSA_GBE,RR,9000,20,4.4.0,,100\n", encoding="utf-8")
    args[3] = str(bad)
    assert cli(args + ["--engines", "8", "--capacity", SAME_AS_MEASURED]) == fill.EXIT_CANNOT_TELL == 5
    # above the engines even without the link left out: it does not fit, whatever that adds
    assert cli(args + ["--engines", "2", "--capacity", SAME_AS_MEASURED]) == fill.EXIT_DOES_NOT_FIT
    capsys.readouterr()


def test_errors_counted_by_where_they_are(tmp_path, capsys):
    """The recalculation's error count split: the links the planner entered, the
    scenarios, and the Planner's 'if carried by each transport' what-if columns; each count
    is the number of error cells cached there, and they add up."""
    bad = tmp_path / "bad.csv"
    bad.write_text((EXAMPLES / "links.csv").read_text(encoding="utf-8")
                   + "osa jumbo,OSA_GBE,RR,9000,20,4.4.0,,100\n", encoding="utf-8")
    out = tmp_path / "o.xlsx"
    rc = cli(["fill", str(TEMPLATE), "--links", str(bad), "--scenarios",
              str(EXAMPLES / "scenarios.toml"), "-o", str(out), "--engines", "8", "--capacity", SAME_AS_MEASURED])
    printed = capsys.readouterr()
    assert rc == fill.EXIT_CANNOT_TELL
    wb = openpyxl.load_workbook(out, data_only=True)
    codes = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")
    errs = {ws.title: [c.coordinate for row in ws.iter_rows() for c in row
                       if c.value in codes] for ws in wb}
    planner, scen = errs["Planner"], errs["Scenarios"]
    cols = results.read(out).whatif_cols  # the what-if columns' letters, read by heading
    assert len(cols) == 7  # one per transport but the link's own
    whatif = [c for c in planner if re.match(r"[A-Z]+", c).group() in cols]
    row = str(FIRST_ROW + 6)  # the 7th link
    bad_row = [c for c in planner if c not in whatif and re.sub(r"[A-Z]+", "", c) == row]
    assert len(planner) - len(whatif) == len(bad_row) == 15  # the one bad link's cells
    assert len(scen) == 12  # its row in the 3 named scenario blocks, 4 cells each
    line = " ".join(printed.out[printed.out.index("wrote "):].split())  # unwrapped
    total = sum(map(len, errs.values()))
    assert (f"{total} formula cells show an error: 15 in your links (1 link(s) "
                    "without an answer); 12 in your scenarios; "
                    f"{len(whatif)} in the Planner's 'if carried by each transport' columns "
                    "(that transport not measured there: expected)") in line
    assert "link 7 (osa jumbo): #NUM! impossible" in printed.err


def test_numbers_carry_at_most_15_significant_digits(plan):
    """As Excel shows them: 0.14880000000000002 is 0.1488 (CSV and JSON)."""
    assert results.number_15(0.14880000000000002) == 0.1488
    assert results.number_15(0.1 + 0.2) == 0.3
    assert results.number_15(2.6419355429227833) == 2.64193554292278
    assert results.number_15(40) == 40 and results.number_15("0.1") == "0.1"
    text = results.to_csv(plan) + results.to_json(plan)
    digits = [re.sub(r"[^0-9]", "", n.split("e")[0]).lstrip("0")
              for n in re.findall(r"(?<![\w.])\d+\.\d+(?:e-?\d+)?", text)]
    assert digits and max(map(len, digits)) <= 15
    doc = json.loads(results.to_json(plan))
    assert doc["totals"]["total_engines"] == float(f"{plan.totals['total_engines']:.15g}")
    assert doc["scenarios"][1]["links_counted"] == 6 and doc["scenarios"][1]["links"] == 6
    assert doc["scenarios"][1]["total_engines"] == pytest.approx(
        2 * plan.totals["total_engines"], rel=1e-14)


def test_csv_neutralises_names_a_spreadsheet_would_run(tmp_path, capsys):
    """A link name starting with =, +, -, @ is written to CSV with a ' in front (OWASP;
    a tab or CR too, though the links file cannot carry one: cells are stripped and control
    characters refused); the workbook and the JSON keep the name as typed."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(
        [[n, "IUCV", "STREAM", 9000, "", "", "", 1] for n in (*HOSTILE, "plain")])
    links = tmp_path / "links.csv"
    links.write_text(HEADER + buf.getvalue(), encoding="utf-8")
    out = tmp_path / "o.xlsx"
    assert cli(["fill", str(TEMPLATE), "--links", str(links), "-o", str(out), "--format",
                "csv"]) == 0
    got = [r["link"] for r in csv.DictReader(io.StringIO(capsys.readouterr().out))
           if r["row"] == "link"]
    assert got == ["'" + n for n in HOSTILE] + ["plain"]
    res = results.read(out)
    assert [x["link"] for x in res.links] == [*HOSTILE, "plain"]
    assert [x["link"] for x in json.loads(results.to_json(res))["links"]] == [*HOSTILE, "plain"]
    assert results.csv_safe(-1.5) == -1.5  # a negative number is a number, not a formula
    assert results.csv_safe("\rx") == "'\rx" and results.csv_safe("\tx") == "'\tx"
    assert results.csv_safe("a=b") == "a=b"


def test_the_docs_say_the_exit_codes_and_the_csv_rule():
    """docs/planning.md states the exit codes fill returns and the CSV-injection rule; the
    README shows page 1 of the report."""
    root = Path(__file__).resolve().parents[1]
    doc = " ".join((root / "docs" / "planning.md").read_text(encoding="utf-8").split())
    assert (f"`{fill.EXIT_FITS}` the links' total CPU fits the LPAR's engines; "
            f"`{fill.EXIT_DOES_NOT_FIT}` it does not (or a link's load is above its device's "
            f"line rate, which no CPU can carry); `{fill.EXIT_CANNOT_TELL}` the plan "
            "cannot tell") in doc
    assert "prefixed with a single quote, as [OWASP advises against CSV injection]" in doc
    assert "".join(results.FORMULA_START) == "=+-@\t\r"
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "![Page 1 of zvmplan report for the example](docs/report.png)" in readme
    png = (root / "docs" / "report.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) < 100_000


def test_calc_of_a_plan_lists_the_links_errors_not_the_what_if_cells(tmp_path, capsys):
    """``zvmplan calc`` of a plan says where its errors are and lists the planner's links
    without an answer first, not the template's expected what-if errors."""
    bad = tmp_path / "bad.csv"
    bad.write_text((EXAMPLES / "links.csv").read_text(encoding="utf-8")
                   + "osa jumbo,OSA_GBE,RR,9000,20,4.4.0,,100\n", encoding="utf-8")
    out = tmp_path / "o.xlsx"
    cli(["fill", str(TEMPLATE), "--links", str(bad), "-o", str(out), "-q"])
    capsys.readouterr()
    assert cli(["calc", str(out), "-o", str(tmp_path / "again.xlsx")]) == 0
    lines = capsys.readouterr().out.splitlines()
    # filled without scenarios: the blocks are cleared, so no error is in a scenario
    assert re.fullmatch(r"  \d+ formula cells show an error: 15 in your links \(1 link\(s\) "
                        r"without an answer\); \d+ in the Planner's "
                        r"'if carried by each transport' columns \(that transport not "
                        r"measured there: expected\)", lines[1]), lines[1]
    assert lines[2].startswith("  link 7 (osa jumbo): #NUM! impossible: OSA-Express")
    assert not any(re.match(r"  Planner!(V|W|X|Y|Z|AA|AB)\d", x) for x in lines)

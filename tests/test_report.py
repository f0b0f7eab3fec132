"""``zvmplan report`` and ``fill --report``: the plan's PDF, read back as text with
``pdftotext`` (poppler-utils) and checked against the values the plan caches and the
model; the facts behind it (:mod:`zvmplan_workbook.plan_facts`) on small plans built by
hand."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from zvmplan import api
from zvmplan_addin.cli import main as cli
from builders import SAME_AS_MEASURED
from zvmplan_workbook import build, fill, plan_facts, report, results

TEMPLATE = build.TEMPLATE
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PDFTOTEXT = shutil.which("pdftotext")
needs_pdftotext = pytest.mark.skipif(PDFTOTEXT is None,
                                     reason="pdftotext (poppler-utils) not installed")


def _text(pdf: Path) -> str:
    """The PDF's text, page by page (form feeds), each run of blanks one space."""
    out = subprocess.run([PDFTOTEXT, "-layout", str(pdf), "-"], check=True,
                         capture_output=True, text=True).stdout
    return re.sub(r"[ \t]+", " ", out)


def _model_total(links, factor=1.0) -> float:
    return sum(api.cpu_engines(x["transport"], x["workload"], x["size_bytes"],
                               x["connections"], x["level"], x["speed_factor"],
                               x["load"] * factor, "tot") for x in links)


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """examples/links.csv and examples/scenarios.toml on an LPAR of 2 engines, filled
    with ``--report``."""
    if build.engine_defects():
        pytest.skip("zvmplan calc cannot recalculate the template yet")
    d = tmp_path_factory.mktemp("report")
    out, pdf = d / "plan.xlsx", d / "plan.pdf"
    rc = cli(["fill", str(TEMPLATE), "--links", str(EXAMPLES / "links.csv"), "--scenarios",
              str(EXAMPLES / "scenarios.toml"), "--engines", "2", "--capacity", SAME_AS_MEASURED, "-o", str(out),
              "--report", str(pdf), "-q"])
    assert rc == fill.EXIT_DOES_NOT_FIT
    return out, pdf


@needs_pdftotext
def test_the_example_report_says_the_verdict_totals_and_warnings(example):
    """The verdict, the totals per scenario with the links each counts, and the warnings of
    the README's example, as the PDF's text: every number the one the plan caches (and the
    model gives)."""
    out, pdf = example
    text = _text(pdf)
    pages = text.rstrip("\f").split("\f")
    assert len(pages) == 2, "the example's report is two pages"
    res = results.read(out)
    links = fill.read_links(EXAMPLES / "links.csv")
    total = _model_total(links)
    assert res.totals["total_engines"] == pytest.approx(total, rel=1e-12)
    assert f"{total:.3f}" == "2.642"
    one = " ".join(pages[0].split())
    # the verdict first
    assert one.index("DOES NOT FIT") < one.index("Totals per scenario")
    assert (f"The links need 2.642 engines (CP {res.totals['cp_engines']:.3f}, virtual "
            f"{res.totals['virtual_engines']:.3f}); the LPAR has 2. The total counts 6 of 6 "
            "links.") in one
    assert f"Short by {total - 2:.3f} engines: the links need {total / 2:.1%} of the LPAR." \
        in one
    # running total in the plan's order: 0.780 + 0.310 + 0.318 < 2 <= + 0.728 (nightly backup)
    running = _model_total(links[:4])
    assert _model_total(links[:3]) < 2 < running
    assert (f"running total first passes the LPAR's engines at link 4, 'nightly backup' "
            f"({running:.3f} engines with it)") in one
    assert f"fit up to {2 / total:.2f} x their load" in one
    assert "Normalised: every link's figures are put on the target machine" in one
    # totals per scenario: name, load factor, changes, total, share, links counted
    double = _model_total(links, 2)
    assert f"today 1 - {total:.3f} {total / 2:.1%} 6 of 6" in one
    assert f"double the load 2 - {double:.3f} {double / 2:.1%} 6 of 6" in one
    faster = res.scenarios[2].totals["total_engines"]
    assert f"1.5 z/VM 4.4.0, speed x1.25 {faster:.3f} {faster / 2:.1%} 6 of 6" in one
    assert "Growth: total CPU against load" in one and "Top consumers" in one
    assert "CPU is linear in load in this model" in one
    assert "each of 6 links' total CPU = its load x its CPU per unit" in one
    assert "scenario 'double the load' = 2 x the Planner's figures for 6 links" in one
    assert "Loads above a measured or physical rate: none" in one
    two = " ".join(pages[1].split())
    for heading in ("Assumptions", "Basis of the links' total CPU", "How sure",
                    "Warnings the plan carries"):
        assert heading in two
    # every warning the plan carries
    assert f"the links need {total / 2:.1%} of the LPAR's engines" in two
    shares = ", ".join(f"{s.name!r} {s.totals['share_of_lpar']:.1%}" for s in res.scenarios)
    assert f"scenarios above the LPAR's engines: {shares}" in two
    assert ("1 link(s) rest on an extrapolation beyond the measured points: "
            "linux1-linux2 bulk copy") in two
    # the basis mix: the Basis column's first words
    bases = [x["basis"].split(".")[0] for x in res.links]
    assert bases.count("measured") == 2 and bases.count("derived") == 3
    assert "measured 2 " in two and "derived 3 " in two and "extrapolated 1 0.780" in two
    assert "LPAR engines available: 2 (Planner input)." in two
    # the bands: the sum of the links' own lows and highs
    lo = sum(x["total_low"] for x in res.links)
    hi = sum(x["total_high"] for x in res.links)
    assert f"the sum of the 6 links' bands: {lo:.3f} .. {hi:.3f} engines" in two


@needs_pdftotext
def test_a_plan_that_fits_says_its_headroom(tmp_path):
    """On 4 engines the example fits: the headroom in engines and %, exit 0."""
    out, pdf = tmp_path / "plan.xlsx", tmp_path / "plan.pdf"
    assert cli(["fill", str(TEMPLATE), "--links", str(EXAMPLES / "links.csv"),
                "--engines", "4", "--capacity", SAME_AS_MEASURED, "-o", str(out), "-q"]) == fill.EXIT_FITS
    assert cli(["report", str(out), "-o", str(pdf), "-q"]) == fill.EXIT_FITS
    text = " ".join(_text(pdf).split())
    total = _model_total(fill.read_links(EXAMPLES / "links.csv"))
    assert "FITS" in text and "DOES NOT FIT" not in text
    assert f"Headroom: {4 - total:.3f} engines, {(4 - total) / 4:.1%} of the LPAR " \
           f"({total / 4:.1%} used)." in text
    assert f"fit up to {4 / total:.2f} x their load" in text


@needs_pdftotext
def test_a_link_without_an_answer_cannot_tell_and_is_warned(tmp_path):
    """A link the sources cannot answer is left out of the totals: under the engines the
    report cannot say the plan fits (exit 5), and the link's reason is among the warnings."""
    links = tmp_path / "links.csv"
    links.write_text((EXAMPLES / "links.csv").read_text(encoding="utf-8")
                     + "osa jumbo,OSA_GBE,RR,9000,20,4.4.0,,100\n", encoding="utf-8")
    out, pdf = tmp_path / "plan.xlsx", tmp_path / "plan.pdf"
    assert cli(["fill", str(TEMPLATE), "--links", str(links), "--engines", "8", "--capacity", SAME_AS_MEASURED, "-o",
                str(out), "--report", str(pdf), "-q"]) == fill.EXIT_CANNOT_TELL
    text = " ".join(_text(pdf).split())
    assert "CANNOT TELL" in text
    assert "1 link(s) have no answer and are left out of the totals (first: 'osa jumbo')" \
        in text
    assert ("no answer, left out of the totals: link 7 (osa jumbo): #NUM! impossible: "
            "OSA-Express Gigabit Ethernet carries an MTU of at most 8992 bytes") in text
    assert "The total counts 6 of 7 links." in text
    assert "error 1 - -" in text  # the basis mix counts it, with no engines


def test_report_refuses_bad_arguments_in_one_line(tmp_path, capsys):
    (tmp_path / "x.xlsx").write_bytes(b"not a zip")
    assert cli(["report", str(tmp_path / "none.xlsx"), "-o", str(tmp_path / "r.pdf")]) == 1
    assert cli(["report", str(TEMPLATE), "-o", str(tmp_path / "r.png")]) == 1
    assert cli(["report", str(TEMPLATE), "-o", str(tmp_path / "no" / "r.pdf")]) == 1
    assert cli(["report", str(tmp_path / "x.xlsx"), "-o", str(tmp_path / "r.pdf")]) == 1
    import openpyxl
    wb = openpyxl.Workbook()
    wb.active["A1"] = 1
    wb.save(tmp_path / "other.xlsx")
    assert cli(["report", str(tmp_path / "other.xlsx"), "-o", str(tmp_path / "r.pdf")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 5, err
    assert err[4] == "zvmplan: error: other.xlsx: no Planner sheet"
    assert "none.xlsx: no such file" in err[0]
    assert "the report is a PDF; name it .pdf" in err[1]
    assert "no such directory" in err[2]
    assert "x.xlsx" in err[3] and "Traceback" not in err[3]
    assert not list(tmp_path.glob("*.pdf"))


# ----------------------------------------------------------- the facts ----
def _plan(links, totals, engines=2.0, scenarios=()):
    res = results.Results(Path("p.xlsx"), ["link", "load", "load_unit", "total_engines",
                                           "total_per_unit", "in_totals",
                                           "speed_factor_used", "measured_on"])
    res.links, res.totals, res.engines = links, totals, engines
    res.scenarios = list(scenarios)
    return res


def _link(name, load, per_unit, total, unit="MB/s"):
    return {"link": name, "load": load, "load_unit": unit, "total_per_unit": per_unit,
            "total_engines": total, "in_totals": "yes", "measured_on": "9672-XZ7"}


def test_growth_slopes_and_crossings_from_the_cached_figures():
    """Each line's slope is its total over its own load factor; it meets the engines at
    engines / slope; a scenario that only scales the load is checked against the
    Planner's figures link by link."""
    links = [_link("a", 40, 0.0195, 0.78), _link("b", 5000, 0.062, 0.31, "tx/s")]
    double = results.Scenario("double", load_factor=2, links=[
        {"link": "a", "total_engines": 1.56, "in_totals": "yes"},
        {"link": "b", "total_engines": 0.62, "in_totals": "yes"}],
        totals={"total_engines": 2.18})
    p = plan_facts.PlanFacts(_plan(links, {"total_engines": 1.09}, 2.0, [double]))
    plan_facts._growth(p)
    assert p.slopes == {plan_facts.PLANNER_LINE: 1.09, "double": pytest.approx(1.09)}
    assert p.crossing[plan_facts.PLANNER_LINE] == pytest.approx(2 / 1.09)
    assert "each of 2 links' total CPU = its load x its CPU per unit" in p.linearity
    assert "scenario 'double' = 2 x the Planner's figures for 2 links" in p.linearity
    assert "NOT LINEAR" not in p.linearity


def test_a_figure_not_linear_in_load_is_not_drawn():
    """A link whose total CPU is not its load times its CPU per unit (a plan edited by
    hand, or a model that is no longer linear) stops the Planner's line, and says so."""
    links = [_link("a", 40, 0.0195, 0.78), _link("b", 10, 0.01, 0.2)]  # 10 x 0.01 != 0.2
    p = plan_facts.PlanFacts(_plan(links, {"total_engines": 0.98}))
    plan_facts._growth(p)
    assert plan_facts.PLANNER_LINE not in p.slopes
    assert "NOT LINEAR, not drawn: b." in p.linearity
    plan_facts._warnings(p)
    assert p.warnings[-1] == "the growth curve is not drawn for every line: b."


def test_the_running_total_names_the_link_that_passes_the_engines():
    links = [_link("a", 1, 0.5, 0.5), _link("b", 1, 1.2, 1.2), _link("c", 1, 0.4, 0.4)]
    links[1]["in_totals"] = "no"  # left out: not added
    p = plan_facts.PlanFacts(_plan(links, {"total_engines": 0.9}, 0.8))
    plan_facts._running_total(p)
    assert p.breaking_link[0] == 3 and p.breaking_link[1]["link"] == "c"
    assert p.breaking_link[2] == pytest.approx(0.9)


def test_verdict_without_the_functions_cannot_tell():
    """A plan saved while the zvmplan functions were unavailable shows the banner: the
    report says it cannot tell, whatever numbers are cached."""
    res = _plan([_link("a", 1, 0.5, 0.5)], {"total_engines": 0.5}, 2.0)
    res.banner = "zvmplan functions unavailable: values below are not computed"
    head, _, lines = report.verdict(plan_facts.PlanFacts(res))
    assert head == "CANNOT TELL" and "zvmplan calc" in lines[0]


@needs_pdftotext
def test_a_42_link_plan_is_two_pages_with_every_warning(tmp_path):
    """tests/data/links42.csv (every transport, 4 links the sources cannot answer) with
    five scenarios on 8 engines: two pages; the heaviest links and 'all others'; every link
    left out named with its reason; a scenario that counts fewer links says so."""
    data = Path(__file__).parent / "data"
    out, pdf = tmp_path / "plan.xlsx", tmp_path / "plan.pdf"
    assert cli(["fill", str(TEMPLATE), "--links", str(data / "links42.csv"), "--scenarios",
                str(data / "scenarios5.toml"), "--engines", "8", "--capacity", SAME_AS_MEASURED, "-o", str(out),
                "--report", str(pdf), "-q"]) == fill.EXIT_DOES_NOT_FIT
    text = _text(pdf)
    pages = text.rstrip("\f").split("\f")
    assert len(pages) == 2
    flat = " ".join(text.split())
    res = results.read(out)
    left = res.left_out()
    assert [x["link"] for _, x in left] == ["glan01 RR", "ctc03 too big", "osa too big",
                                            "glan04 RR"]
    for line in res.errors():
        assert "no answer, left out of the totals: " + " ".join(line.split()) in flat
    assert f"The total counts {len(res.links) - 4} of 42 links." in flat
    assert f"all {len(res.links) - 4 - report.TOP} others" in flat
    hs = next(s for s in res.scenarios if s.name == "all over HiperSockets")
    assert f"all over HiperSockets 1 all over HIPERSOCKETS {hs.totals['total_engines']:.3f} " \
           f"{hs.totals['share_of_lpar']:.1%} {hs.counted()} of 42" in flat
    # the curve's legend (wrapped; an axis tick may sit between its lines in the text)
    assert re.search(rf"all over HiperSockets \({hs.counted()} of (\d+ )?42 links\)", flat)
    assert "total only (no split published)" in flat  # Guest LAN gives no CP/virtual split


@needs_pdftotext
def test_loads_above_measured_and_line_rates(tmp_path):
    """IUCV at 40 MB/s passes the 33.33 MB/s 000 measured at MTU 9000; LCS (Fast
    Ethernet) at 20 MB/s passes the line rate no CPU can lift: the plan does not fit
    (exit 4) though its CPU is 41% of 4 engines, and the report says both."""
    links = tmp_path / "links.csv"
    links.write_text("link,transport,workload,size_bytes,connections,level,speed_factor,load\n"
                     "fast iucv,IUCV,STREAM,9000,,,,40\nlcs flood,LCS,FTP_GET,1500,,4.1.0,,20\n",
                     encoding="utf-8")
    out, pdf = tmp_path / "plan.xlsx", tmp_path / "plan.pdf"
    assert cli(["fill", str(TEMPLATE), "--links", str(links), "--engines", "4", "--capacity", SAME_AS_MEASURED, "-o", str(out),
                "--report", str(pdf), "-q"]) == fill.EXIT_DOES_NOT_FIT
    assert api.per_mb("IUCV", 9000, "mb_per_sec").value == pytest.approx(33.33)
    flat = " ".join(_text(pdf).split())
    assert "DOES NOT FIT" in flat and "Headroom:" in flat  # the CPU alone would fit
    assert ("Link 2, 'lcs flood': its load of 20 MB/s is above its device's line rate: the "
            "device cannot carry it, whatever the CPU.") in flat
    assert "1 link(s) carry a load above the rate measured at their configuration" in flat
    assert ("Loads above a measured or physical rate: 2. - link 1 (fast iucv): load 40 MB/s "
            "is above the measured rate 33.3 MB/s - link 2 (lcs flood): load 20 MB/s is above "
            "the line rate of the device") in flat


@needs_pdftotext
def test_without_a_machine_the_report_gives_no_verdict_from_a_mixed_sum(tmp_path):
    """The example without a target machine adds engines of four processors: the report
    says CANNOT TELL: NOT NORMALISED (exit 5), gives the sum per processor, and computes no
    headroom, share, running-total crossing or growth crossing from the mixed sum."""
    out, pdf = tmp_path / "plan.xlsx", tmp_path / "plan.pdf"
    assert cli(["fill", str(TEMPLATE), "--links", str(EXAMPLES / "links.csv"), "--engines",
                "2", "-o", str(out), "--report", str(pdf), "-q"]) == fill.EXIT_CANNOT_TELL
    res = results.read(out)
    assert res.normalised is False and res.fits() is None
    one = " ".join(_text(pdf).rstrip("\f").split("\f")[0].split())
    assert one.index("CANNOT TELL: NOT NORMALISED") < one.index("Totals per scenario")
    assert "The links need 2.642 engines" in one and "NOT NORMALISED; the LPAR has 2" in one
    subs = [s for s in res.subtotals if isinstance(s.get("total_engines"), float)]
    assert len(subs) == 4 and sum(s["total_engines"] for s in subs) == pytest.approx(
        res.totals["total_engines"], rel=1e-12)
    for s in subs:
        assert f"{s['engines_of']}: {s['total_engines']:.3f}" in one
    for claim in ("Headroom:", "Short by", "running total first passes", "fit up to"):
        assert claim not in one
    assert "no crossing with the LPAR is computed" in one

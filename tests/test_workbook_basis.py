"""Issue 9 in the workbook: one processor basis (the planner's per-engine capacities on the
Assumptions sheet, used by the Planner, Upgrade and Scenarios; "not normalised" where they
are missing), a band beside each CPU figure (ZVM_RANGE), the line rate in the rate check,
and 004's stack-change ranges shown on a sheet."""
from __future__ import annotations

import openpyxl
import pytest

import zvmplan
import zvmplan.data
from zvmplan import api, names
from zvmplan_addin.cli import main as cli
from zvmplan_workbook import build, fill, planner

TEMPLATE = build.TEMPLATE
# a planner's zPCR ratios for one target machine (inputs of this test, not model data)
CAPACITY = {"9672-XZ7": 8.0, "2064-108": 4.0, "2084-C24 (z990)": 1.5, "2064-109": 3.0}
NO_FACTOR_ROW = planner.FIRST_ROW + len(planner.EXAMPLES)   # a Planner row without its own
NO_FACTOR = ("no factor given", "OSA_GBE", "RR", 1492, 20, "4.4.0", None, 5000)


def _cap(transport):
    return CAPACITY[zvmplan.processor(transport).name]


@pytest.fixture(scope="module")
def normalised(tmp_path_factory):
    """The template with every capacity given, one more Planner row and one Upgrade row
    without their own speed factor, and a scenario moving every link to HiperSockets."""
    d = tmp_path_factory.mktemp("normalised")
    wb = openpyxl.load_workbook(TEMPLATE)
    a = wb[planner.ASSUMPTIONS]
    for i, p in enumerate(planner.PROCESSORS):
        assert a.cell(planner.ASSUME_CAP_ROW + i, 1).value == p
        a.cell(planner.ASSUME_CAP_ROW + i, 2).value = CAPACITY[p]
    ws = wb[planner.PLANNER]
    for j, v in enumerate(NO_FACTOR):
        ws.cell(NO_FACTOR_ROW, j + 1).value = v
    wb[planner.UPGRADE]["F8"] = None
    sc = wb[planner.SCENARIOS]
    c0 = planner.scenario_col(4)
    sc.cell(planner.SCEN_PARAM_ROW, c0 + 1).value = "all on HiperSockets"
    sc.cell(planner.SCEN_PARAM_ROW + 3, c0 + 1).value = "HIPERSOCKETS"
    src = d / "normalised.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(d / "out.xlsx")]) == 0
    return openpyxl.load_workbook(d / "out.xlsx", data_only=True)


@pytest.fixture(scope="module")
def template():
    return openpyxl.load_workbook(TEMPLATE, data_only=True)


def test_capacities_put_every_transport_on_one_machine(normalised):
    ws = normalised[planner.PLANNER]
    rows = list(planner.EXAMPLES) + [NO_FACTOR]
    for i, (name, t, w, size, conns, level, speed, load) in enumerate(rows):
        r = planner.FIRST_ROW + i
        assert ws[f"{planner.PROC_COL}{r}"].value == zvmplan.processor(t).name
        own = speed if speed is not None else _cap(t)
        assert ws[f"{planner.SPEED_COL}{r}"].value == own
        assert ws[f"O{r}"].value == pytest.approx(
            api.cpu_engines(t, w, size, conns, level, own, load), rel=1e-12)
        nums = {}
        for k, x in enumerate(planner.CANDIDATES):
            got = ws.cell(r, planner.CAND_COL0 + k).value
            sp = own if zvmplan.processor(x).name == zvmplan.processor(t).name else _cap(x)
            try:
                want = api.cpu_engines(x, w, size, conns, level, sp, load)
            except zvmplan.ZvmplanError:
                assert isinstance(got, str) and got.startswith("#"), (name, x, got)
                continue
            assert got == pytest.approx(want, rel=1e-12), (name, x)
            nums[x] = want
        assert ws[f"S{r}"].value == min(nums, key=nums.get), name   # ranked: normalised


def test_upgrade_and_scenarios_use_the_capacities(normalised):
    what, t, w, size, conns, _, load, l0, l1 = planner.UPGRADES[0]
    up = normalised[planner.UPGRADE]
    assert up["O8"].value == pytest.approx(
        api.cpu_engines(t, w, size, conns, l0, _cap(t), load), rel=1e-12)
    assert up["P8"].value == pytest.approx(
        api.cpu_engines(t, w, size, conns, l1, _cap(t), load), rel=1e-12)
    sc = normalised[planner.SCENARIOS]
    c0 = planner.scenario_col(4)
    assert sc.cell(planner.SCEN_PARAM_ROW + 3, c0 + 2).value in (None, "")   # normalised
    kept = 0
    rows = list(planner.EXAMPLES) + [NO_FACTOR]
    for i, (name, t, w, size, conns, level, speed, load) in enumerate(rows):
        r = planner.SCEN_FIRST_ROW + i
        got = sc.cell(r, c0 + 3).value
        # the link's own factor where HiperSockets was measured on its processor
        same = zvmplan.processor(t).name == zvmplan.processor("HIPERSOCKETS").name
        sp = speed if same and speed is not None else _cap("HIPERSOCKETS")
        try:
            want = api.cpu_engines("HIPERSOCKETS", w, size, conns, level, sp, load)
        except zvmplan.ZvmplanError:
            # HiperSockets cannot carry it: it stays on its own transport, with its own
            # factor, labelled, and counted
            kept += 1
            assert sc.cell(r, c0 + 6).value == t, name
            own = speed if speed is not None else _cap(t)
            assert got == pytest.approx(api.cpu_engines(t, w, size, conns, level, own, load),
                                        rel=1e-12), name
        else:
            assert sc.cell(r, c0 + 6).value == "HIPERSOCKETS", name
            assert got == pytest.approx(want, rel=1e-12), name
        assert sc.cell(r, c0 + 8).value == planner.MACHINE, name
    assert kept > 0   # the examples include links HiperSockets has no answer for
    assert sc.cell(planner.SCEN_TOTAL_ROW, c0 + 6).value == kept
    assert sc.cell(planner.SCEN_TOTAL_ROW, c0 + 5).value == len(rows)
    assert sc.cell(planner.SCEN_TOTAL_ROW, c0 + 8).value == planner.MACHINE


def test_without_capacities_comparisons_say_not_normalised(template):
    """The template gives no capacities: a scenario moving links to another transport is
    flagged beside its transport; the Planner's own case is in test_workbook."""
    a = template[planner.ASSUMPTIONS]
    for i, p in enumerate(planner.PROCESSORS):
        assert a.cell(planner.ASSUME_CAP_ROW + i, 2).value is None
    for i, t in enumerate(names.TRANSPORTS):
        assert a.cell(planner.ASSUME_TX_ROW + i, 2).value == zvmplan.processor(t).name
        assert a.cell(planner.ASSUME_TX_ROW + i, 3).value in (None, "")


def test_a_band_beside_each_cpu_figure(template):
    """Low <= figure <= high, each end = load x the ZVM_RANGE band of the per-unit figure."""
    ws = template[planner.PLANNER]
    metric = {"cp": ("cp_cpumsec_per_tx", "cp_cpusec_per_mb"),
              "v": ("v_cpumsec_per_tx", "v_cpusec_per_mb"),
              "tot": ("tot_cpumsec_per_tx", "tot_cpusec_per_mb")}
    for i, (name, t, w, size, conns, level, speed, load) in enumerate(planner.EXAMPLES):
        r = planner.FIRST_ROW + i
        for k, (kind, col) in enumerate((("cp", "M"), ("v", "N"), ("tot", "O"))):
            if w in api.TX_WORKLOADS:
                lo, hi = api.band(api.per_tx, t, w, size, conns, metric[kind][0], level, speed)
                lo, hi = load * lo / 1000, load * hi / 1000
            else:
                c = conns if t in api.TX_TRANSPORTS else None
                lo, hi = api.band(api.per_mb, t, size, metric[kind][1], level, speed, c)
                lo, hi = load * lo, load * hi
            got_lo = ws.cell(r, planner.BAND_COL0 + 2 * k).value
            got_hi = ws.cell(r, planner.BAND_COL0 + 2 * k + 1).value
            assert got_lo == pytest.approx(lo, rel=1e-12) and got_hi == pytest.approx(hi, rel=1e-12)
            assert got_lo <= ws[f"{col}{r}"].value <= got_hi, (name, kind)


def test_rate_check_flags_a_load_above_the_line_rate(tmp_path):
    """LCS is Fast Ethernet: 50 MB/s cannot cross that wire (issue 9 item 2), whatever the
    CPU figures say; HiperSockets has no wire; a load is compared with the payload the wire
    carries at its MTU, not the raw line rate."""
    links = tmp_path / "links.csv"
    links.write_text("link,transport,workload,size_bytes,connections,level,speed_factor,load\n"
                     "too fast,LCS,FTP_GET,1500,,4.1.0,,50\n"
                     "fine,LCS,FTP_GET,1500,,4.1.0,,5\n"
                     "memory,HIPERSOCKETS,STRG,57344,20,4.4.0,,500\n"
                     "payload,OSA_GBE,STRG,8992,50,4.3.0,,120\n", encoding="utf-8")
    out = tmp_path / "out.xlsx"
    fill.fill(TEMPLATE, links, out)
    ws = openpyxl.load_workbook(out, data_only=True)[planner.PLANNER]
    r = planner.FIRST_ROW
    assert zvmplan.line_rate_mb_per_sec("LCS") < 50
    assert ws[f"R{r}"].value == "no: above the line rate"
    assert ws[f"R{r + 1}"].value == ""  or ws[f"R{r + 1}"].value is None  # no published rate
    assert ws[f"R{r + 2}"].value in ("yes", "no: above it")   # measured rate only
    # 003 Table 7 measured 131.88 MB/s here (one chpid), and 120 < 125 MB/s raw, but a GbE
    # wire carries at most 118.2 MB/s of payload at MTU 8992 (ZVM_PAYLOAD_RATE, issue 17)
    assert ws[f"R{r + 3}"].value == "no: above the line rate"
    rules = openpyxl.load_workbook(out)[planner.PLANNER].conditional_formatting
    assert any(f'LEFT($R{r},3)="no:"' in rule.formula[0] for cf in rules for rule in cf.rules)


def test_stack_change_ranges_are_shown(template):
    """004's z/VM 4.3.0 VM TCP/IP stack ranges, through ZVM_STACK_CHANGE, on the
    Upgrade sheet: every published throughput range of the data file, low <= high, and
    the all-device CPU ranges (negative: a decrease)."""
    ws = template[planner.UPGRADE]
    shown, cpu = {}, {}
    for row in ws.iter_rows(min_row=8 + planner.UPGRADE_ROWS, values_only=True):
        if row[0] == "ALL" and isinstance(row[4], (int, float)):
            cpu[row[1]] = row[4:6]
        if row[0] in planner.STACK_TRANSPORTS and isinstance(row[2], (int, float)):
            shown[(row[0], row[1])] = row[2:4]
    assert shown
    for (t, w), (lo, hi) in shown.items():
        assert lo <= hi
    got = {(r.transport, r.workload) for r in zvmplan.data.find(document="004")
           if "throughput_increase" in (r.stat or "")}
    assert got == set(shown)
    for (t, w), (lo, hi) in shown.items():
        assert (lo, hi) == tuple(_published(t, w, "throughput_increase"))
    assert set(cpu) == set(planner.STACK_WORKLOADS)
    for w, (lo, hi) in cpu.items():
        assert sorted((-lo, -hi)) == sorted(_published("ALL", w, "cpu_per_unit_decrease"))


def _published(t, w, stat):
    recs = {r.stat: r.value for r in zvmplan.data.find(document="004")
            if r.transport == t and r.workload == w and (r.stat or "").startswith(stat)}
    return recs[f"{stat}_low_pct"], recs[f"{stat}_high_pct"]


def test_scenarios_say_when_the_planner_has_more_rows(tmp_path):
    """A row inserted by hand in the Planner (Excel stretches the Planner's ranges over it)
    has no row in the Scenarios blocks: their totals say 'rows missing' and how many links
    they cover, instead of a total of what is left."""
    wb = openpyxl.load_workbook(TEMPLATE)
    ws = wb[planner.PLANNER]
    last = planner.LAST_ROW + 1
    for col, (f, _) in planner.planner_row(last).items():
        ws[f"{col}{last}"] = f
    for j, v in enumerate(planner.EXAMPLES[0]):
        ws.cell(last, j + 1).value = v
    for ref, (f, _) in planner.planner_totals(last).items():
        ws[ref] = f
    sc = wb[planner.SCENARIOS]
    for ref, (f, _) in planner.scenario_totals(0, planner.SCEN_LAST_ROW, last).items():
        sc[ref] = f
    wb.save(tmp_path / "inserted.xlsx")
    assert cli(["calc", str(tmp_path / "inserted.xlsx"), "-o", str(tmp_path / "out.xlsx")]) == 0
    got = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)
    n = len(planner.EXAMPLES)
    assert got[planner.PLANNER][f"Q{planner.TOTAL_ROW}"].value.startswith(
        f"Total CPU counts {n + 1} of {n + 1} links")
    c0 = planner.scenario_col(0)
    s = got[planner.SCENARIOS]
    assert s.cell(planner.SCEN_TOTAL_ROW, c0 + 3).value == "rows missing"
    assert s.cell(planner.SCEN_COUNT_ROW, c0).value.startswith(
        f"This block covers {n} of the Planner's {n + 1} links")
    c1 = planner.scenario_col(1)   # a block still as built: its own rows, its own count
    assert isinstance(s.cell(planner.SCEN_TOTAL_ROW, c1 + 3).value, float)

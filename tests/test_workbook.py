"""The template recalculated headlessly (``zvmplan calc``): every published number is
reproduced by its live formula to the printed digits, every conclusion holds, no cell
shows an error, and the Planner's, Upgrade's and Scenarios' worked examples agree with
direct model calls. (Layout without recalculation: tests/test_workbook_layout.py.)"""
from __future__ import annotations

import math

import openpyxl
import pytest

import zvmplan
from zvmplan import api
from zvmplan_addin.cli import main as cli
from zvmplan_addin.errors import to_excel_error
from zvmplan_workbook import build, conclusions, planner

TEMPLATE = build.TEMPLATE
ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")


@pytest.fixture(scope="module")
def book():
    return build.layout()


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    """The committed template, recalculated by ``zvmplan calc``: its values."""
    defects = build.engine_defects()
    if defects:
        pytest.skip("zvmplan calc cannot recalculate the template yet: " + "; ".join(defects))
    out = tmp_path_factory.mktemp("calc") / "recalculated.xlsx"
    assert cli(["calc", str(TEMPLATE), "-o", str(out)]) == 0
    return openpyxl.load_workbook(out, data_only=True)


def _num(v):
    assert isinstance(v, (int, float)) and not isinstance(v, bool), v
    return float(v)


# ------------------------------------------------------------ the file ----
def test_committed_template_is_current(book):
    """The committed template holds every cell the builder writes today; rebuild it with
    ``python -m zvmplan_workbook.build``."""
    wb = openpyxl.load_workbook(TEMPLATE)
    assert wb.sheetnames == list(build.SHEET_ORDER)
    for ws in book.wb.worksheets:
        got = wb[ws.title]
        for row in ws.iter_rows():
            for c in row:
                v = got[c.coordinate].value
                v = getattr(v, "text", v)  # an array formula the engine spilled
                assert (v if v != "" else None) == (c.value if c.value != "" else None), \
                    (ws.title, c.coordinate, c.value, v)


def test_committed_template_carries_cached_values(book):
    """Excel without the add-in, LibreOffice and openpyxl show the cached values."""
    wb = openpyxl.load_workbook(TEMPLATE, data_only=True)
    for c in book.checks[:50] + book.checks[-50:]:
        _num(wb[c.sheet][c.live].value)
    assert _num(wb[planner.PLANNER][f"O{planner.TOTAL_ROW}"].value) > 0


# ------------------------------------------------------- published numbers ----
def test_published_numbers_reproduced(book, recalculated):
    """Each published number equals its live formula within half a unit in the last
    printed digit (plus, for a derived figure, the rounding of its printed inputs); the
    three the sheets mark as not reproduced are indeed not."""
    failures = []
    for c in book.checks:
        pub = _num(recalculated[c.sheet][c.published].value)
        live = recalculated[c.sheet][c.live].value
        ok = isinstance(live, (int, float)) and abs(pub - live) <= c.tolerance
        if ok == bool(c.expect):
            failures.append((c.sheet, c.published, c.live, pub, live, c.tolerance, c.ref))
    assert failures == []


def test_conclusions_hold(book, recalculated):
    ws = recalculated[conclusions.SHEET]
    for c in conclusions.load():
        ref = book.refs[f"conclusion.{c['id']}"].split("!")[1].replace("$", "")
        assert ws[ref].value == conclusions.HOLDS, (c["id"], c["claim"])
        row = int(ref[1:])
        assert ws.cell(row, 1).value == c["id"]
        value = ws.cell(row, 5).value
        assert isinstance(value, (int, float)) and math.isfinite(value), c["id"]


def _candidate_cell(ws_title: str, coordinate: str) -> bool:
    """A Planner "carried by each transport" cell: an error there is an answer (that
    transport was not measured at the row's configuration), checked against the model in
    test_planner_examples_match_the_model."""
    from openpyxl.utils.cell import coordinate_from_string, column_index_from_string
    col, row = coordinate_from_string(coordinate)
    c = column_index_from_string(col)
    return (ws_title == planner.PLANNER and planner.FIRST_ROW <= row <= planner.LAST_ROW
            and planner.CAND_COL0 <= c < planner.CAND_COL0 + len(planner.CANDIDATES))


def test_no_cell_shows_an_error(book, recalculated):
    shown = [(ws.title, cell.coordinate, cell.value) for ws in recalculated.worksheets
             for row in ws.iter_rows() for cell in row
             if isinstance(cell.value, str) and cell.value.startswith(ERROR_CODES)
             and (ws.title, cell.coordinate) not in book.expected_errors
             and not _candidate_cell(ws.title, cell.coordinate)]
    assert shown == []


def test_warning_is_blank_when_the_functions_answer(recalculated):
    for name in (planner.PLANNER, planner.UPGRADE, planner.SCENARIOS):
        assert recalculated[name][planner.WARN_CELL].value in (None, ""), name


@pytest.mark.parametrize("i", range(len(planner.EXAMPLES)))
def test_planner_examples_match_the_model(recalculated, i):
    name, t, w, size, conns, level, speed, load = planner.EXAMPLES[i]
    ws = recalculated[planner.PLANNER]
    r = planner.FIRST_ROW + i
    assert ws[f"A{r}"].value == name
    for col, kind in (("M", "cp"), ("N", "v"), ("O", "tot")):
        want = api.cpu_engines(t, w, size, conns, level, speed, load, kind)
        assert _num(ws[f"{col}{r}"].value) == pytest.approx(want, rel=1e-12), (name, kind)
    engines = _num(ws[planner.ENGINES_CELL].value)
    assert _num(ws[f"P{r}"].value) == pytest.approx(_num(ws[f"O{r}"].value) / engines)
    # Excel behaviour relied on for Cheapest / Its total CPU: COUNTIF(range,">=0") and
    # MINIFS(range,range,">=0") see only the numbers of a range holding errors.
    # each candidate is the model's answer for that transport, or the Excel error the
    # model's refusal maps to (#N/A: no such point; #NUM!: outside the measured range)
    cands = [ws.cell(r, planner.CAND_COL0 + k).value for k in range(len(planner.CANDIDATES))]
    for x, got in zip(planner.CANDIDATES, cands):
        try:
            want = api.cpu_engines(x, w, size, conns, level, speed, load)
        except zvmplan.ZvmplanError as exc:
            assert got == to_excel_error(exc).code, (name, x, got)
            assert got in ("#N/A", "#NUM!"), (name, x, got)
        else:
            assert _num(got) == pytest.approx(want, rel=1e-12), (name, x)
    # the cheapest transport is the smallest of the candidates, and a measured one; with
    # no capacities on the Assumptions sheet, answers measured on different processors are
    # not ranked silently (issue 9)
    nums = {planner.CANDIDATES[k]: v for k, v in enumerate(cands) if isinstance(v, (int, float))}
    cheapest = min(nums, key=nums.get)
    if len({zvmplan.processor(x).name for x in nums}) > 1:
        assert ws[f"S{r}"].value == \
            f"{planner.NOT_NORMALISED}; lowest as published: {cheapest}"
    else:
        assert ws[f"S{r}"].value == cheapest
    assert _num(ws[f"T{r}"].value) == min(nums.values())
    assert ws[f"{planner.STATUS_COL}{r}"].value == "yes"
    assert ws[f"{planner.BASIS_COL}{r}"].value.split(".")[0] in zvmplan.BASES


def test_planner_totals(recalculated):
    """The totals (above the table) add every example link, and say so."""
    ws = recalculated[planner.PLANNER]
    n = len(planner.EXAMPLES)
    for col, kind in (("M", "cp"), ("N", "v"), ("O", "tot")):
        want = sum(api.cpu_engines(*ex[1:], kind=kind) for ex in planner.EXAMPLES)
        assert _num(ws[f"{col}{planner.TOTAL_ROW}"].value) == pytest.approx(want, rel=1e-12)
    assert _num(ws[f"P{planner.TOTAL_ROW}"].value) == pytest.approx(
        _num(ws[f"O{planner.TOTAL_ROW}"].value) / _num(ws[planner.ENGINES_CELL].value))
    assert ws[f"Q{planner.TOTAL_ROW}"].value == \
        f"Total CPU counts {n} of {n} links. CP and virtual CPU count {n} links."
    for r in range(planner.FIRST_ROW + n, planner.LAST_ROW + 1):
        assert all(ws.cell(r, c).value in (None, "")
                   for c in range(9, planner.CAND_COL0 + len(planner.CANDIDATES) + 1))


@pytest.mark.parametrize("i", range(len(planner.UPGRADES)))
def test_upgrade_examples_match_the_model(recalculated, i):
    what, t, w, size, conns, speed, load, l0, l1 = planner.UPGRADES[i]
    ws = recalculated[planner.UPGRADE]
    r = 8 + i
    before = api.cpu_engines(t, w, size, conns, l0, speed, load)
    after = api.cpu_engines(t, w, size, conns, l1, speed, load)
    assert _num(ws[f"O{r}"].value) == pytest.approx(before, rel=1e-12)
    assert _num(ws[f"P{r}"].value) == pytest.approx(after, rel=1e-12)
    assert _num(ws[f"R{r}"].value) == pytest.approx((before - after) / before, rel=1e-9)
    for col in "ST":
        assert ws[f"{col}{r}"].value.split(".")[0] in zvmplan.BASES


def test_scenarios_match_the_model(recalculated):
    ws = recalculated[planner.SCENARIOS]
    from openpyxl.utils import get_column_letter as L
    for b, (name, factor, level, transport, speed) in enumerate(planner.SCENARIO_EXAMPLES):
        c0 = planner.scenario_col(b)
        total = 0.0
        for i, ex in enumerate(planner.EXAMPLES):
            _, t, w, size, conns, lv, sp, load = ex
            want = api.cpu_engines(transport or t, w, size, conns, level or lv, speed or sp,
                                    load * factor)
            got = _num(ws[f"{L(c0 + 3)}{planner.SCEN_FIRST_ROW + i}"].value)
            assert got == pytest.approx(want, rel=1e-12), (name, ex[0])
            total += want
        assert _num(ws[f"{L(c0 + 3)}{planner.SCEN_TOTAL_ROW}"].value) == \
            pytest.approx(total)


def test_plan_sheet_charts_the_planner_and_scenarios(recalculated):
    """The Plan sheet's chart data are the Planner's CP / virtual CPU per link, heaviest
    total CPU first, and each scenario's total CPU beside the LPAR's engines; the
    every-link table lists the Planner's rows in order with their rank."""
    from zvmplan_workbook import charts
    ws = recalculated[charts.PLAN]
    heaviest = sorted(planner.EXAMPLES, key=lambda ex: -api.cpu_engines(*ex[1:]))
    assert [ex[0] for ex in heaviest] == [
        "linux1-linux2 bulk copy (IUCV)", "backup stream over HiperSockets",
        "web -> app over OSA (RR)", "FTP to the LAN (LCS)"]
    for i, ex in enumerate(heaviest):
        r = charts.PLAN_TOP_FIRST + i
        assert ws.cell(r, 1).value == ex[0]
        assert _num(ws.cell(r, 2).value) == pytest.approx(api.cpu_engines(*ex[1:], kind="cp"))
        assert _num(ws.cell(r, 3).value) == pytest.approx(api.cpu_engines(*ex[1:], kind="v"))
        assert ws.cell(r, 4).value in (None, "")   # no total-only link among them
        assert _num(ws.cell(r, 5).value) == pytest.approx(api.cpu_engines(*ex[1:]))
    for r in range(charts.PLAN_TOP_FIRST + len(heaviest), charts.PLAN_NOTE_ROW):
        assert all(ws.cell(r, c).value in (None, "") for c in range(1, 6)), r
    assert ws[f"A{charts.PLAN_NOTE_ROW}"].value == "4 links in the totals, heaviest first."
    for i, ex in enumerate(planner.EXAMPLES):
        r = charts.PLAN_EVERY_FIRST + i
        assert ws.cell(r, 1).value == ex[0]
        assert ws[f"{charts.PLAN_RANK}{r}"].value == 1 + heaviest.index(ex)
    sc = recalculated[planner.SCENARIOS]
    for b, ex in enumerate(planner.SCENARIO_EXAMPLES):
        r = charts.PLAN_SCEN_FIRST + b
        assert ws.cell(r, 1).value == ex[0]
        total = sc[f"{planner.L(planner.scenario_col(b) + 3)}{planner.SCEN_TOTAL_ROW}"].value
        assert _num(ws.cell(r, 2).value) == pytest.approx(_num(total))
        assert _num(ws.cell(r, 3).value) == 2

"""The recalculated template (as committed: ``python -m zvmplan_workbook.build`` runs
``zvmplan calc`` on it) opened in LibreOffice Calc, headless: what a planner sees is
numbers and words, not #NAME? -- LibreOffice does not know the zvmplan functions, so this
holds only because every value is cached in the file and LibreOffice shows it."""
from __future__ import annotations

import csv
import shutil
import subprocess

import pytest

from zvmplan_workbook import build, conclusions, planner

SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
pytestmark = pytest.mark.skipif(
    SOFFICE is None, reason="LibreOffice (soffice) is not installed; the CI script installs "
    "Debian's libreoffice-calc-nogui")
# CSV export of every sheet (token 12 = -1, LibreOffice 7.2+), UTF-8, values as stored
CSV_FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1"
BAD = ("#NAME?", "#VALUE!", "#N/A", "#NUM!", "#REF!", "#DIV/0!", "Err:")


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    """Sheet name -> rows, as LibreOffice shows the recalculated template."""
    d = tmp_path_factory.mktemp("lo")
    xlsx = d / "recalculated.xlsx"
    shutil.copyfile(build.TEMPLATE, xlsx)
    profile = (d / "profile").as_uri()
    subprocess.run([SOFFICE, f"-env:UserInstallation={profile}", "--headless", "--convert-to",
                    CSV_FILTER, "--outdir", str(d), str(xlsx)], check=True, capture_output=True,
                   timeout=300)
    out = {}
    for name in build.SHEET_ORDER:
        path = d / f"recalculated-{name}.csv"
        assert path.exists(), f"LibreOffice wrote no CSV for sheet {name}"
        with path.open(encoding="utf-8", newline="") as fh:
            out[name] = list(csv.reader(fh))
    return out


def _cell(rows, ref):
    col = "".join(ch for ch in ref if ch.isalpha())
    r = int(ref[len(col):])
    c = 0
    for ch in col:
        c = c * 26 + ord(ch) - 64
    row = rows[r - 1] if r - 1 < len(rows) else []
    return row[c - 1] if c - 1 < len(row) else ""


def _number(text: str) -> float:
    return float(text.replace(",", "").rstrip("%"))


def _candidate(name: str, row: int, col: int) -> bool:
    """A Planner "carried by each transport" cell: its cached value is an error where that
    transport was not measured, and LibreOffice recomputes error cells on load (without
    the zvmplan functions: #NAME?), which is still an error, never a number."""
    return (name == planner.PLANNER and planner.FIRST_ROW <= row <= planner.LAST_ROW
            and planner.CAND_COL0 <= col < planner.CAND_COL0 + len(planner.CANDIDATES))


def test_no_sheet_shows_an_error(sheets):
    for name, rows in sheets.items():
        bad = [(name, i + 1, j + 1, v) for i, row in enumerate(rows) for j, v in enumerate(row)
               if v.startswith(BAD) and not _candidate(name, i + 1, j + 1)]
        assert bad == []


def test_warning_shows_without_the_functions(sheets):
    """LibreOffice has no zvmplan functions: the volatile warning cell re-checks on load
    and says so, above values that are the cached ones."""
    for name in (planner.PLANNER, planner.UPGRADE, planner.SCENARIOS):
        assert _cell(sheets[name], planner.WARN_CELL) == planner.WARNING, name


def test_planner_shows_numbers(sheets):
    rows = sheets[planner.PLANNER]
    for i in range(len(planner.EXAMPLES)):
        r = planner.FIRST_ROW + i
        for col in "JKLMNOP":
            _number(_cell(rows, f"{col}{r}"))
        assert _cell(rows, f"S{r}").rpartition(": ")[2] in planner.CANDIDATES
    assert _number(_cell(rows, f"O{planner.TOTAL_ROW}")) > 0


def test_conclusions_show_holds(sheets):
    rows = sheets[conclusions.SHEET]
    shown = {row[0]: row[6] for row in rows if len(row) > 6 and row[0]}
    for c in conclusions.load():
        assert shown[c["id"]] == conclusions.HOLDS, c["id"]


def test_source_sheets_show_live_numbers(sheets):
    book = build.layout()
    for c in book.checks:
        _number(_cell(sheets[c.sheet], c.live))


# ------------------------------------------- forced recalculation on load ----
# A LibreOffice profile that recalculates every formula of an .xlsx when it is opened
# (Tools > Options > Calc > Formula > Recalculation on file load: Always), as a planner's
# LibreOffice might be set, or Excel after Ctrl+Alt+F9 without the add-in.
RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" \
xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" \
oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""
# the Planner links of a small shop, with one link the sources cannot answer (Guest LAN at
# MTU 1492: 002 measured 57344 only) and one without a published rate (FTP_GET, 001)
FORCED_LINKS = """link,transport,workload,size_bytes,connections,level,speed_factor,load
db replication,VCTC,STREAM,32764,,,,12
web tier,OSA_GBE,RR,8992,50,4.4.0,,4000
guest lan web,GUEST_LAN,RR,1492,20,4.3.0,,500
backup,HIPERSOCKETS,STRG,32768,20,4.4.0,,120
ftp out,LCS,FTP_GET,1500,,4.1.0,,3
"""


@pytest.fixture(scope="module")
def forced(tmp_path_factory):
    """(formulas, values cached by zvmplan calc, values after LibreOffice recalculated
    everything on load without the zvmplan functions) of a filled template."""
    import openpyxl
    from zvmplan_workbook import fill
    d = tmp_path_factory.mktemp("forced")
    (d / "links.csv").write_text(FORCED_LINKS, encoding="utf-8")
    # a scenario moving links to a transport that cannot carry some (issue 17: they stay on
    # their own, which without the functions must show an error, not their own name)
    (d / "s.toml").write_text('[[scenario]]\nname = "today"\n\n[[scenario]]\n'
                              'name = "all on HiperSockets"\ntransport = "HIPERSOCKETS"\n'
                              'speed_up = 1.3\n', encoding="utf-8")
    filled = d / "filled.xlsx"
    fill.fill(build.TEMPLATE, d / "links.csv", filled, d / "s.toml")
    user = d / "profile" / "user"
    user.mkdir(parents=True)
    (user / "registrymodifications.xcu").write_text(RECALC_ALWAYS, encoding="utf-8")
    (d / "lo").mkdir()
    subprocess.run([SOFFICE, f"-env:UserInstallation={(d / 'profile').as_uri()}", "--headless",
                    "--convert-to", "xlsx", "--outdir", str(d / "lo"), str(filled)],
                   check=True, capture_output=True, timeout=600)
    return (openpyxl.load_workbook(filled), openpyxl.load_workbook(filled, data_only=True),
            openpyxl.load_workbook(d / "lo" / "filled.xlsx", data_only=True))


def _is_error(v) -> bool:
    return isinstance(v, str) and v.startswith(BAD)


def test_forced_recalculation_shows_errors_never_other_values(forced):
    """Recalculated without the zvmplan functions, every formula cell shows either the
    value zvmplan calc cached (it does not depend on a zvmplan function) or an error:
    never a different, plausible value ("none measured", "not published", a blank, a
    total of what is left). The one exception is the warning cell, which must fire."""
    formulas, cached, lo = forced
    changed = []
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f" or c.coordinate == planner.WARN_CELL:
                    continue
                got = lo[ws.title][c.coordinate].value
                want = cached[ws.title][c.coordinate].value
                if _is_error(got):
                    continue
                if isinstance(want, (int, float)) and isinstance(got, (int, float)):
                    if got == pytest.approx(want, rel=1e-9, abs=1e-12):
                        continue
                elif (got if got != "" else None) == (want if want != "" else None):
                    continue
                changed.append((ws.title, c.coordinate, want, got))
    assert changed == []


def test_forced_recalculation_warns_on_every_planning_sheet(forced):
    """Opened without the add-in and recalculated, each planning sheet's A3 fires and
    says what to do: open the file in Excel with the add-in, or run zvmplan calc."""
    from zvmplan_workbook.charts import PLAN
    _, cached, lo = forced
    for name in (planner.PLANNER, planner.UPGRADE, planner.SCENARIOS, PLAN):
        assert cached[name][planner.WARN_CELL].value in (None, ""), name
        shown = lo[name][planner.WARN_CELL].value
        assert shown == planner.WARNING, name
        assert shown.startswith("zvmplan functions unavailable: values below are not "
                                "computed."), name
        assert "Excel with the zvmplan add-in" in shown and \
            "zvmplan calc FILE --in-place" in shown, name
    # and the answers a planner reads first are errors, not words
    ws = lo[planner.PLANNER]
    for r in range(planner.FIRST_ROW, planner.FIRST_ROW + 5):
        for col in ("O", "Q", "S", planner.STATUS_COL):
            assert _is_error(ws[f"{col}{r}"].value), (col, r, ws[f"{col}{r}"].value)
    for col in "MNOPQ":
        assert _is_error(ws[f"{col}{planner.TOTAL_ROW}"].value), col

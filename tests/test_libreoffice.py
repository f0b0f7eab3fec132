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


def test_no_sheet_shows_an_error(sheets):
    for name, rows in sheets.items():
        bad = [(name, i + 1, j + 1, v) for i, row in enumerate(rows) for j, v in enumerate(row)
               if v.startswith(BAD)]
        assert bad == []


def test_planner_shows_numbers(sheets):
    rows = sheets[planner.PLANNER]
    for i in range(len(planner.EXAMPLES)):
        r = planner.FIRST_ROW + i
        for col in "JKLMNOP":
            _number(_cell(rows, f"{col}{r}"))
        assert _cell(rows, f"S{r}") in planner.CANDIDATES
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

"""Cross-check against a real spreadsheet application: the builtin-only planner sheet of
``zvmplan_workbook.planner_sheet`` (arithmetic, IF, VLOOKUP, INDEX/MATCH, text, a share of a
column total), recalculated by LibreOffice headless (forced recalculation on load) and
by ``zvmplan calc``, must agree in every cell. LibreOffice stores 15 significant digits,
so numbers agree to a relative 1e-14."""
from __future__ import annotations

import openpyxl
import pytest

from zvmplan_addin import recalc as engine
from zvmplan_workbook import planner_sheet

pytestmark = pytest.mark.skipif(planner_sheet.soffice() is None,
                                reason="LibreOffice (soffice) is not installed")
ROWS = 200


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    d = tmp_path_factory.mktemp("lo_recalc")
    src = planner_sheet.write(d / "planner.xlsx", ROWS, zvmplan=False)
    ours = d / "zvmplan.xlsx"
    report = engine.calc(src, ours)
    assert report.error_cells == 0 and not report.warnings
    theirs = planner_sheet.libreoffice_recalc(src, d / "lo", d / "profile", timeout=300)
    return (openpyxl.load_workbook(ours, data_only=True),
            openpyxl.load_workbook(theirs, data_only=True))


def test_every_cell_agrees_with_libreoffice(both):
    ours, theirs = both
    a, b = ours["Plan"], theirs["Plan"]
    assert (a.max_row, a.max_column) == (b.max_row, b.max_column) == (ROWS + 1, 14)
    compared = 0
    for row_a, row_b in zip(a.iter_rows(values_only=True), b.iter_rows(values_only=True)):
        for x, y in zip(row_a, row_b):
            if isinstance(y, (int, float)) and not isinstance(y, bool):
                assert isinstance(x, (int, float)) and x == pytest.approx(y, rel=1e-14, abs=0)
            else:
                assert x == y
            compared += 1
    assert compared == (ROWS + 1) * 14


def test_libreoffice_really_recalculated(both):
    """The generated file caches no values: a LibreOffice that did not recalculate would
    show empty formula cells, so the comparison above would fail rather than pass."""
    _, theirs = both
    assert isinstance(theirs["Plan"]["N2"].value, float)
    assert sum(theirs["Plan"].cell(r, 14).value for r in range(2, ROWS + 2)) == \
        pytest.approx(1.0, rel=1e-12)

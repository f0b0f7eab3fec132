"""Circular references as Excel shows them (addin/recalc/cycles.py): iterative calculation
when the workbook asks for it (``<calcPr iterate="1">``), and without it the cells whose
value does not depend on the cycle computed, the others 0."""
from __future__ import annotations

import openpyxl

from zvmplan_addin import recalc as engine

from builders import save


def _calc(tmp_path, cells: dict, iterate=None):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for ref, v in cells.items():
        ws[ref] = v
    if iterate is not None:
        wb.calculation.iterate = True
        wb.calculation.iterateCount, wb.calculation.iterateDelta = iterate
    report = engine.calc(save(wb, tmp_path / "in.xlsx"), tmp_path / "out.xlsx")
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Plan"]
    return {ref: out[ref].value for ref in cells if isinstance(cells[ref], str)}, report


CONVERGING = {"E4": 6, "E5": "=0.1*(E4+E6)", "E6": "=E4+E5"}


def test_iterative_calculation_when_the_workbook_asks(tmp_path):
    """POI's 57535.xlsx (``<calcPr iterate="1"/>``, saved by Excel): E5 ``=0.1*(E4+E6)``
    and E6 ``=E4+E5`` with E4 = 6 show 1.33333326 and 7.33333326, the iteration on its
    way to 4/3 and 22/3. Iterated here until no value changes by more than
    iterateDelta; each cell carries a warning (Excel's order within a pass is not
    published)."""
    got, report = _calc(tmp_path, CONVERGING, iterate=(100, 1e-9))
    assert abs(got["E5"] - 4 / 3) < 1e-8 and abs(got["E6"] - 22 / 3) < 1e-8
    assert abs(got["E5"] - 1.33333326) < 1e-6  # Excel's cached value, to its precision
    assert report.circular == []
    assert any("iterative calculation" in w and "converged" in w for w in report.warnings)


def test_iteration_stops_at_iterate_count(tmp_path):
    """iterateCount="2": two passes from 0, in the order E6, E5 or E5, E6 (Excel's order
    is not published): E5 is 1.26 or 1.32, not the limit, and the warning says it was
    still changing."""
    got, report = _calc(tmp_path, CONVERGING, iterate=(2, 0.001))
    assert round(got["E5"], 9) in (1.26, 1.32)
    assert any("still changing" in w for w in report.warnings)


def test_without_iteration_a_cycle_is_zero(tmp_path):
    """Iterative calculation off (the default): the cells of the cycle show 0 and are
    listed, as before; a cell reading them is computed from the 0 with a reason
    (formulas' circular.xlsx DATA!B2 ``=B2`` is 0; its E2 ``=B2+1`` Excel left at 0)."""
    got, report = _calc(tmp_path, {**CONVERGING, "A1": "=A1", "B1": "=A1+1"})
    assert got == {"E5": 0, "E6": 0, "A1": 0, "B1": 1}
    assert report.circular == ["Plan!A1", "Plan!E5", "Plan!E6"]


def test_a_cycle_the_formulas_do_not_follow_is_computed(tmp_path):
    """Excel's cached values in formulas' circular.xlsx (iteration off): DATA!B6 ``=C6``,
    C6 ``=D6``, D6 ``=IF(IF(A6,B6,TRUE),1,B6)`` with A6 FALSE are all 1 (IF never reads
    B6); D14 ``=IF(A14="",0,3000-SUM(B14:C14)+...)`` with A14 #REF! is #REF!; koala's
    basic_evaluation.xlsx ``=SUM(INDEX($A$17:$G$17,1,1):INDEX($A$17:$G$17,1,$A$16:$G$16-1))``
    across B17:G17 reads only the cells before it: 30, 60, 120 ... from A17 = 30 (the
    row A16:G16 read as the formula's column's cell: INDEX's column is a value)."""
    cells = {"A6": False, "B6": "=C6", "C6": "=D6", "D6": "=IF(IF(A6,B6,TRUE),1,B6)",
             "A17": 30, "B16": 2, "C16": 3, "D16": 4,
             "B17": "=SUM(INDEX($A$17:$D$17,1,1):INDEX($A$17:$D$17,1,$A$16:$D$16-1))",
             "C17": "=SUM(INDEX($A$17:$D$17,1,1):INDEX($A$17:$D$17,1,$A$16:$D$16-1))",
             "D17": "=SUM(INDEX($A$17:$D$17,1,1):INDEX($A$17:$D$17,1,$A$16:$D$16-1))"}
    got, report = _calc(tmp_path, cells)
    assert got == {"B6": 1, "C6": 1, "D6": 1, "B17": 30, "C17": 60, "D17": 120}
    assert report.circular == []

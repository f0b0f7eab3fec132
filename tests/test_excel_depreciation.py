"""VDB as Excel computes it (addin/recalc/excel/depreciation.py)."""
from __future__ import annotations

from builders import recalc_cells


def test_vdb_gives_excels_values(tmp_path):
    """Excel's cached values in xlcalculator's VDB.xlsx (cost 575000, salvage 5000, life
    10, factor 1.5: the year after the switch to straight line is 49192.265625, where
    formulas answered #VALUE! for the last year; cost 1, salvage 0, life 14, factor 1.25:
    half years 0.044642857142857144, 0.07074765193864536, 0.06872629045468406 and the
    last half 0.03436314522734203) and SheetJS's formula_stress_test.xlsx Finance!B60
    (``VDB(2400,300,3650,5,9)`` 5.24156794233124). #NUM! past the life."""
    cells = {"A1": "=VDB(575000,5000,10,9,10,1.5)", "A2": "=VDB(575000,5000,10,3,5,1.5,FALSE)",
             "A3": "=VDB(1,0,14,0,0.5,1.25,FALSE)", "A4": "=VDB(1,0,14,2.5,3.5,1.25,FALSE)",
             "A5": "=VDB(1,0,14,11.5,12.5,1.25,FALSE)", "A6": "=VDB(1,0,14,13.5,14,1.25,FALSE)",
             "A7": "=VDB(2400,300,3650,5,9)", "A8": "=VDB(1,0,14,13,15)",
             "A9": "=VDB(575000,5000,10,0,1,1.5,TRUE)"}
    got = recalc_cells(tmp_path, cells)
    assert got == {"A1": 49192.265625, "A2": 102160.546875, "A3": 0.044642857142857144,
                   "A4": 0.07074765193864536, "A5": 0.06872629045468406,
                   "A6": 0.03436314522734203, "A7": 5.24156794233124, "A8": "#NUM!",
                   "A9": 86250}

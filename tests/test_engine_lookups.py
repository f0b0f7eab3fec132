"""Lookups into one table from many cells (addin/recalc/excel/lookuptables.py): the
searched row or column is prepared once per table and pass, and an exact match answered
from its hash index; cell by cell, as a column and with every path cross-checked, the
answers are Excel's exact match: the first match wins (XMATCH/XLOOKUP searching from
the end: the last), text is compared without regard to case, the number 1 equals
neither the text "1" nor TRUE, an error or an empty cell in the table matches nothing,
``*`` and ``?`` are wildcards for MATCH and VLOOKUP, a value not there is #N/A
(Microsoft's MATCH, VLOOKUP, HLOOKUP, XMATCH and XLOOKUP pages)."""
from __future__ import annotations

import numpy as np
import pytest

from builders import one_sheet_book
from zvmplan_addin import xlsx
from zvmplan_addin.recalc.engine import Engine
from zvmplan_addin.recalc.excel import lookuptables
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.options import Options

#: the table's keys, A1:A12 (and A20:L20 across): None is an empty cell
KEYS = ["abc", 1.0, "1", True, xlsx.XlError("#DIV/0!"), "ABC", 2.5, "x?z", "dup", "dup",
        None, 3.0]
#: the values looked up, D1:D14
WANTED = ["ABC", 1.0, "1", True, 2.5, "a*", "x?z", "dup", "none", 3.0, "Abc", "x", False,
          0.0]
FORMULAS = {  # column -> the formula of row r
    6: "VLOOKUP(D{r},$A$1:$C$12,2,FALSE)",
    7: "MATCH(D{r},$A$1:$A$12,0)",
    8: "HLOOKUP(D{r},$A$20:$L$21,2,FALSE)",
    9: "_xlfn.XMATCH(D{r},$A$1:$A$12)",
    10: "_xlfn.XMATCH(D{r},$A$1:$A$12,0,-1)",
    11: '_xlfn.XLOOKUP(D{r},$A$1:$A$12,$C$1:$C$12,"none")',
}
NA = "#N/A"
#: MATCH(...,0) of each wanted value: 1-based position of its first match
FIRST = [1, 2, 3, 4, 7, 1, 8, 9, NA, 12, 1, NA, NA, NA]
#: XMATCH(...,0,1): no wildcards in match mode 0 ("a*" is not there)
XFIRST = [1, 2, 3, 4, 7, NA, 8, 9, NA, 12, 1, NA, NA, NA]
#: XMATCH(...,0,-1): the last match
XLAST = [6, 2, 3, 4, 7, NA, 8, 10, NA, 12, 6, NA, NA, NA]


def _book():
    values = {}
    for r, key in enumerate(KEYS, start=1):
        if key is not None:
            values[(r, 1)] = key
            values[(20, r)] = key
        values[(r, 2)] = r * 10.0
        values[(r, 3)] = f"c{r}"
        values[(21, r)] = r * 100.0
    formulas = {}
    for r, key in enumerate(WANTED, start=1):
        values[(r, 4)] = key
        for c, text in FORMULAS.items():
            formulas[(r, c)] = text.format(r=r)
    return one_sheet_book(formulas, values)


def _run(book, options: Options) -> Engine:
    install_functions()
    engine = Engine(book, options=options)
    engine.recalculate()
    return engine


def _shown(v):
    return str(v) if type(v).__name__ == "XlError" else v


def _column(engine, col, rows=range(1, len(WANTED) + 1)):
    grid = engine.nodes.grids[0]
    return [_shown(grid.get(r, col)) for r in rows]


@pytest.mark.parametrize("options", [Options(), Options(cellwise=True), Options(check=True)],
                         ids=["columns", "cellwise", "check"])
def test_exact_lookups_as_excel_on_every_path(options):
    """Every path gives Excel's answers (see the module docstring): MATCH and VLOOKUP
    find the first match, "a*" matches "abc" and "x?z" its own text; XMATCH and XLOOKUP
    in match mode 0 take ``*`` literally and search from the end with -1 ("dup" is 10,
    "ABC" 6); HLOOKUP reads the same keys across A20:L20."""
    engine = _run(_book(), options)
    assert _column(engine, 7) == FIRST
    assert _column(engine, 6) == [NA if p == NA else p * 10.0 for p in FIRST]
    assert _column(engine, 8) == [NA if p == NA else p * 100.0 for p in FIRST]
    assert _column(engine, 9) == XFIRST
    assert _column(engine, 10) == XLAST
    assert _column(engine, 11) == ["none" if p == NA else f"c{p}" for p in XFIRST]
    assert not getattr(engine, "column_mismatches", [])


def test_cell_by_cell_lookups_prepare_each_table_once(monkeypatch):
    """Cell by cell, the 84 lookups into four searched vectors -- A1:A12 as VLOOKUP's
    first column, as MATCH's array, as XMATCH/XLOOKUP's (case-folded) array, and A20:L20
    as HLOOKUP's first row -- prepare each once, and build each exact index once (on the
    second lookup); nothing is kept after the run."""
    prepared, built = [], []
    real_prepare, real_index = lookuptables._prepare, lookuptables.first_positions
    monkeypatch.setattr(lookuptables, "_prepare",
                        lambda *a: prepared.append(a[1]) or real_prepare(*a))
    monkeypatch.setattr(lookuptables, "first_positions",
                        lambda *a, **k: built.append(k.get("last", False)) or
                        real_index(*a, **k))
    engine = _run(_book(), Options(cellwise=True))
    assert _column(engine, 7) == FIRST
    assert len(prepared) == 4
    assert sorted(built) == [False, False, False, False, True]  # XMATCH -1: the last
    del engine
    import gc
    gc.collect()
    assert not lookuptables.TABLES.by_table and not lookuptables.TABLES.by_values


@pytest.mark.parametrize("options", [Options(), Options(cellwise=True)], ids=["columns",
                                                                          "cellwise"])
def test_lookups_read_the_table_as_computed_in_the_run(options):
    """A table whose keys are formulas (A{r} = ROW()*2, cached values absent) is
    computed before the lookups into it read it: VLOOKUP(6,...) finds A3 (B3 = 30);
    approximate VLOOKUP(7,...,TRUE) the largest key not above 7, A3 again; and a table
    reached through INDIRECT (which the order stage cannot see) ends with the values of
    the run's last pass: MATCH(8,INDIRECT("A1:A10"),0) is 4."""
    values = {(r, 2): r * 10.0 for r in range(1, 11)}
    formulas = {(r, 1): "ROW()*2" for r in range(1, 11)}
    for r in range(1, 13):
        formulas[(r, 5)] = "VLOOKUP(6,$A$1:$B$10,2,FALSE)"
        formulas[(r, 6)] = "VLOOKUP(7,$A$1:$B$10,2,TRUE)"
        formulas[(r, 7)] = 'MATCH(8,INDIRECT("A1:A10"),0)'
    engine = _run(one_sheet_book(formulas, values), options)
    assert _column(engine, 5, range(1, 13)) == [30.0] * 12
    assert _column(engine, 6, range(1, 13)) == [30.0] * 12
    assert _column(engine, 7, range(1, 13)) == [4] * 12


def test_approximate_lookups_halve_the_prepared_values():
    """Approximate matches search the prepared values as Excel does: MATCH 1 and
    VLOOKUP TRUE by halving, in 10, 20, ..., 120 (A1:A12) MATCH(35,...) is 3 and
    VLOOKUP(120,...,TRUE) the last row; MATCH(35,...,-1) reads from the first value
    while they are not smaller, and 10 is: #N/A on ascending data (pycel's lookup.xlsx
    holds Excel's answers, see ``lookup.descending_scan``). Cell by cell equals the
    column."""
    values = {(r, 1): r * 10.0 for r in range(1, 13)}
    values.update({(r, 2): f"v{r}" for r in range(1, 13)})
    formulas = {}
    for r in range(1, 13):
        formulas[(r, 4)] = "MATCH(35,$A$1:$A$12,1)"
        formulas[(r, 5)] = "VLOOKUP(120,$A$1:$B$12,2,TRUE)"
        formulas[(r, 6)] = "MATCH(35,$A$1:$A$12,-1)"
    for options in (Options(), Options(cellwise=True)):
        engine = _run(one_sheet_book(formulas, values), options)
        assert _column(engine, 4, range(1, 13)) == [3] * 12
        assert _column(engine, 5, range(1, 13)) == ["v12"] * 12
        assert _column(engine, 6, range(1, 13)) == [NA] * 12


def test_a_column_number_below_one_is_value_error():
    """VLOOKUP and HLOOKUP with a column or row number below 1 are #VALUE! when the value
    is found (Microsoft: "If col_index_num is less than 1, VLOOKUP returns the #VALUE!
    error value"; formulas read 0 as the last column) and #N/A when it is not, as Excel
    saved ``VLOOKUP(8,B3:B7,FALSE)`` (#VALUE!) and ``VLOOKUP(8,I10:I28,0,FALSE)`` (#N/A)
    in EPPlus's FormulaTest.xlsx; an error as the lookup value is that error; a number
    past the table's width is #REF!."""
    values = {(1, 1): 1.0, (1, 2): 5.0, (2, 1): 2.0, (2, 2): 6.0}
    formulas = {(1, 4): "VLOOKUP(1,$A$1:$B$2,0,FALSE)", (2, 4): "HLOOKUP(1,$A$1:$B$2,0,FALSE)",
                (3, 4): "VLOOKUP(NA(),$A$1:$B$2,0,FALSE)", (4, 4): "VLOOKUP(1,$A$1:$B$2,3,FALSE)",
                (5, 4): "VLOOKUP(2,$A$1:$B$2,2,FALSE)", (6, 4): "VLOOKUP(9,$A$1:$B$2,0,FALSE)",
                (7, 4): "VLOOKUP(2,$A$1:$B$2,FALSE)"}
    engine = _run(one_sheet_book(formulas, values), Options())
    assert _column(engine, 4, range(1, 8)) == ["#VALUE!", "#VALUE!", NA, "#REF!", 6.0, NA,
                                               "#VALUE!"]


def test_a_prepared_vector_is_dropped_with_its_table():
    """formulas' preparation hands back the searched values as a view of the table
    (``raw``); kept as such, the cached vector kept its table alive, so the weak
    reference never dropped it and up to 256 tables stayed in memory after their run
    (and a later test saw them). Freed table, no vector left; the answers the same."""
    import gc

    from formulas.functions import Array
    table = np.array([["b", "a", "c", "a"]], dtype=object).view(Array)
    before = set(lookuptables.TABLES.by_table)
    vector = lookuptables.TABLES.vector(table, None, lookuptables._lower)
    assert vector.raw.tolist() == ["b", "a", "c", "a"]
    assert lookuptables.TABLES.vector(table, None, lookuptables._lower) is vector
    del vector, table
    gc.collect()
    assert set(lookuptables.TABLES.by_table) <= before

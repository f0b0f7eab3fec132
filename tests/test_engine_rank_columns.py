"""Ranking shapes on the column path (issue 19): a running COUNTIF (``=COUNTIF(E$2:E9,E9)``,
the how-manieth of its value a row is), RANK of a column over one shared range, and
INDEX of one cell of a long range. Each gives exactly the values of the engine cell by
cell (ZVMPLAN_ENGINE_CELLWISE=1) and runs on the column path, not one cell at a time."""
from __future__ import annotations

import numpy as np
import openpyxl
import pytest

from zvmplan_addin import recalc as engine

from builders import checked_engine, save, values_of

#: the ranked column: repeated numbers (ties), 0.1+0.2 beside 0.3 (equal at Excel's 15
#: digits, not exactly), numeric text, text, an empty cell, TRUE, -0.0 and 0
E_VALUES = [5, 3, 5, "=0.1+0.2", 0.3, "2", "x", None, True, 7, 3, "=-0.0", 0, 2, 5, "", 3]


def _rank_book(path, error_at=None):
    """E2..: :data:`E_VALUES`; F: the running COUNTIF of each row's own value; G: a running
    COUNTIF of one criterion; H: RANK descending, I: RANK ascending, J: the Plan sheet's
    rank with ties in row order; K: RANK of numbers not all in the range; L: INDEX of
    the n-th value. ``error_at``: a row of E holding #DIV/0!."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    last = len(E_VALUES) + 1
    for r, v in enumerate(E_VALUES, start=2):
        if r == error_at:
            v = "=1/0"
        if v is not None:
            ws[f"E{r}"] = v
        ws[f"D{r}"] = [5, 4, 0.3, "3", None, 1][r % 6]
        ws[f"F{r}"] = f"=COUNTIF(E$2:E{r},E{r})"
        ws[f"G{r}"] = f'=COUNTIF(E$2:E{r},">=3")'
        ws[f"H{r}"] = f"=RANK(E{r},$E$2:$E${last})"
        ws[f"I{r}"] = f"=RANK(E{r},$E$2:$E${last},1)"
        ws[f"J{r}"] = (f'=IF(ISNUMBER(E{r}),RANK(E{r},$E$2:$E${last},0)+COUNTIF($E$2:E{r},E{r})'
                       f'-1,IF(ISERROR(E{r}),E{r},""))')
        ws[f"K{r}"] = f"=RANK(D{r},$E$2:$E${last},0)"
        ws[f"L{r}"] = f"=INDEX($E$2:$E${last},{r - 1})&\"|\"&INDEX($D$2:$E${last},{r - 1},2)"
    return save(wb, path)


def _both_ways(tmp_path, monkeypatch, path):
    """(values on the column path, values cell by cell) of every cell of sheet Plan."""
    got = []
    for mode in ("", "1"):
        monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", mode)
        out = tmp_path / f"out{mode}.xlsx"
        engine.calc(path, out)
        ws = values_of(out)
        got.append([[c.value for c in row] for row in ws.iter_rows()])
    return got


def _columnar_cells(path, monkeypatch):
    e = checked_engine(path, monkeypatch)
    monkeypatch.delenv("ZVMPLAN_ENGINE_CHECK")
    return e


def test_running_countif_and_rank_give_the_values_cell_by_cell(tmp_path, monkeypatch):
    """Excel: COUNTIF with a number picks the numbers equal to it at 15 significant digits
    and the text that reads as it ("2" counts for 2; 0.1+0.2 counts for 0.3), never
    TRUE; text picks text, "" picks empty cells and empty text. RANK ranks a number
    among the range's numbers only (text, TRUE and empty cells passed over), ties share
    the best rank and a number not there is #N/A. Where formulas' RANK reads its number
    otherwise than a plain number (numeric text as the number, an empty cell as 0, TRUE
    as 1, other text #VALUE!) and compares exactly (0.1+0.2 is not 0.3 to it), the column
    path gives what the engine gave cell by cell before it."""
    path = _rank_book(tmp_path / "in.xlsx")
    column, cellwise = _both_ways(tmp_path, monkeypatch, path)
    assert column == cellwise
    ws = values_of(tmp_path / "out.xlsx")
    rows = range(2, len(E_VALUES) + 2)
    # 5, 3, 5, 0.1+0.2, 0.3, "2", "x", empty, TRUE, 7, 3, -0.0, 0, 2, 5, "", 3
    assert [ws[f"F{r}"].value for r in rows] == [1, 1, 2, 1, 2, 1, 1, 0, 1, 1, 2, 1, 2, 2, 3,
                                                 0, 3]
    assert [ws[f"G{r}"].value for r in rows][-1] == 7  # 5, 3, 5, 7, 3, 5, 3
    # the numbers, descending: 7, 5, 5, 5, 3, 3, 3, 2, 0.1+0.2, 0.3, 0, -0.0
    assert ws["H2"].value == 2 and ws["H3"].value == 5 and ws["H11"].value == 1
    assert ws["H5"].value == 9 and ws["H6"].value == 10  # exact, not at 15 digits
    assert ws["H13"].value == ws["H14"].value == 11  # -0.0 and 0 tie
    assert [ws[f"H{r}"].value for r in (7, 8, 9, 10)] == [8, "#VALUE!", 11, "#N/A"]
    assert ws["I11"].value == 12 and ws["I2"].value == 9  # 8 numbers below 5
    assert [ws[f"J{r}"].value for r in (2, 4, 16)] == [2, 3, 4]  # ties in row order
    assert ws["J8"].value is None and ws["J9"].value is None  # "" (not a number): blank
    assert {ws[f"K{r}"].value for r in rows if ws[f"D{r}"].value == 4} == {"#N/A"}
    assert ws["L2"].value == "5|5" and ws["L5"].value.startswith("0.3")


def test_ranking_shapes_run_on_the_column_path(tmp_path, monkeypatch):
    """The running COUNTIF, RANK and INDEX columns run as columns (every cell but each
    column's first), and ZVMPLAN_ENGINE_CHECK=1 finds no cell where the column run and
    the cell's own evaluation differ."""
    e = _columnar_cells(_rank_book(tmp_path / "in.xlsx"), monkeypatch)
    assert e.column_mismatches == []
    groups = e._column_groups()
    cols = {e.n_label[int(i)].split("!")[1].rstrip("0123456789") for g in groups for i in g}
    assert cols == set("FGHIJKL")
    # every cell but each group's first (F2 and J2 read one cell, not a running range,
    # and start no group; I and K are one formula shape, one group)
    assert sum(map(len, groups)) == 7 * len(E_VALUES) - 2
    assert e.columnar_cells == sum(len(g) - 1 for g in groups)


def test_an_error_in_the_ranked_range_is_every_rank(tmp_path, monkeypatch):
    """Excel: RANK over a range holding an error is that error; COUNTIF passes errors
    over unless its criterion is that error."""
    path = _rank_book(tmp_path / "in.xlsx", error_at=6)
    column, cellwise = _both_ways(tmp_path, monkeypatch, path)
    assert column == cellwise
    ws = values_of(tmp_path / "out.xlsx")
    assert {ws[f"H{r}"].value for r in (2, 3, 11)} == {"#DIV/0!"}
    assert ws["F6"].value == 1 and ws["F2"].value == 1
    e = _columnar_cells(path, monkeypatch)
    assert e.column_mismatches == []


def test_countif_of_many_distinct_numbers_is_one_pass(tmp_path, monkeypatch):
    """1,000 rows of distinct numbers (a plan's CPU per link, each its own): the running
    COUNTIF and the RANK columns are computed on the column path and equal cell by
    cell; each row's rank with ties broken in row order is a permutation of 1..n."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    n = 1000
    rng = np.random.default_rng(19)
    values = np.round(rng.uniform(0, 5, n), 2).tolist()  # ties among them
    for r, v in enumerate(values, start=1):
        ws[f"A{r}"] = v
        ws[f"B{r}"] = (f"=RANK(A{r},$A$1:$A${n},0)+COUNTIF($A$1:A{r},A{r})-1")
    path = save(wb, tmp_path / "in.xlsx")
    engine.calc(path, tmp_path / "out.xlsx")
    out = values_of(tmp_path / "out.xlsx")
    got = [out[f"B{r}"].value for r in range(1, n + 1)]
    assert sorted(got) == list(range(1, n + 1))
    order = sorted(range(n), key=lambda k: (-values[k], k))
    assert [got[k] for k in order] == list(range(1, n + 1))
    e = _columnar_cells(path, monkeypatch)
    # B1 reads A$1:A1, one cell, and starts no group: B2..Bn are one, all but B2 a column
    assert e.column_mismatches == [] and e.columnar_cells == n - 2


def test_index_of_one_cell_is_the_reference_formulas_gives():
    """INDEX of one cell of a one-area range (or a column of positions, as a column run
    gives it) answers with the references formulas' own INDEX gives (same cells, same
    values, same shape; a position that is an error gives the error), made for those
    cells alone; a position past the edge, 0 or a 2-D range given one position go to
    formulas' INDEX."""
    from formulas.functions import get_functions
    from formulas.ranges import Ranges
    from zvmplan_addin.recalc import install
    engine.install_functions()
    original = get_functions()["INDEX"]["function"]
    block = np.array([[1.0, "a"], [2.0, "b"], [3.0, True]], dtype=object)
    rng = Ranges().push("B5:C7", block)
    column = Ranges().push("B5:B7", block[:, :1])
    row = Ranges().push("B5:C5", block[:1, :])
    for array, args in [(rng, (2, 2)), (rng, (3.9, 1)), (column, (3,)), (row, (2,)),
                        (rng, (1, 2))]:
        mine = install._one_cell(array, args)
        theirs = original(False, array, *args)
        assert isinstance(mine, Ranges) and mine.ranges == theirs.ranges
        assert mine.value.tolist() == theirs.value.tolist()
    positions = np.array([[3.0], [1.0], [2.0], [3.0]], dtype=object)  # a column run's
    for array, args in [(column, (positions,)), (rng, (positions, 2)),
                        (rng, (np.array([[1, 3]], dtype=object),
                               np.array([[2], [1]], dtype=object)))]:
        mine, theirs = install._one_cell(array, args), original(False, array, *args)
        assert mine.shape == theirs.shape and isinstance(mine, type(theirs))
        for a, b in zip(mine.reshape(-1).tolist(), theirs.reshape(-1).tolist()):
            assert a.ranges == b.ranges and a.value.tolist() == b.value.tolist()
    from zvmplan_addin.recalc.values import XL
    for array, args in [(column, (XL["#N/A"],)), (rng, (np.int64(2), XL["#REF!"]))]:
        mine, theirs = install._one_cell(array, args), original(False, array, *args)
        assert mine.shape == theirs.shape == (1, 1) and mine[0, 0] is theirs[0, 0]
    gap = positions.copy()
    gap[1, 0] = 0.0
    for array, args in [(rng, (2,)), (rng, (4, 1)), (rng, (0, 1)), (column, (True,)),
                        (rng, ("2", 1)), (column, (gap,))]:
        assert install._one_cell(array, args) is None


@pytest.mark.parametrize("criterion", ['"x"', '""', "TRUE", '"<>3"', "E2"])
def test_running_countif_with_one_criterion_for_all(tmp_path, monkeypatch, criterion):
    """COUNTIF over a running range with one criterion every cell shares (text, "",
    TRUE, an operator, a fixed cell) counts as each cell's own COUNTIF does."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    for r, v in enumerate(E_VALUES, start=2):
        if v is not None:
            ws[f"E{r}"] = v
        crit = criterion.replace("E2", "$E$2")
        ws[f"F{r}"] = f"=COUNTIF(E$2:E{r},{crit})"
    path = save(wb, tmp_path / "in.xlsx")
    column, cellwise = _both_ways(tmp_path, monkeypatch, path)
    assert column == cellwise
    last = values_of(tmp_path / "out.xlsx")[f"F{len(E_VALUES) + 1}"].value
    assert last == {'"x"': 1, '""': 2, "TRUE": 1, '"<>3"': 14, "E2": 3}[criterion]

"""``results.read`` counts the error cells of the links' rows column by column
(:func:`~zvmplan_workbook.results._error_cells`): the same counts as looking at every
cell of every row, as it did, on rows of several widths, values of every kind and
values that cannot be dict keys."""
from __future__ import annotations

import datetime as dt

from zvmplan_workbook import results


class _Text(str):
    pass


def _one_by_one(rows, whatif_c):
    whatif = other = 0
    for r in rows:
        for c, v in enumerate(r):
            if isinstance(v, str) and v[:1] == "#" and results._is_error(v):
                if c in whatif_c:
                    whatif += 1
                else:
                    other += 1
    return whatif, other


def test_error_cells_counted_by_column_as_by_cell():
    rows = [
        ("a", 1.0, "#N/A", "#DIV/0!", None, True),
        ("b", "#VALUE!", 2, "#NAME?", "#REF!"),
        ("#c", 3.5, "#N/A", _Text("#NUM!"), dt.datetime(2026, 1, 2), 1, "#x!"),
        (),
        ("#N/A", float("nan"), "#n/a", "#", "#!", "?#"),
        ("d", 1, True, 1.0, "#NULL!", "#GETTING_DATA"),
    ]
    for whatif_c in (set(), {2}, {2, 3, 4}, {0, 1, 2, 3, 4, 5, 6}):
        assert results._error_cells(rows, whatif_c) == _one_by_one(rows, whatif_c)
    unhashable = rows + [("e", ["#N/A"], "#N/A", {"#REF!": 1})]
    # column 2: three "#N/A" ("#n/a" is no error); the others: #DIV/0!, #VALUE!, #NAME?,
    # #REF!, #NUM! (a str subclass), #x!, #N/A, #!, #NULL! (not "#c", "#", #GETTING_DATA)
    assert results._error_cells(unhashable, {2}) == _one_by_one(unhashable, {2}) == (3, 9)
    assert results._error_cells([], {1}) == (0, 0)

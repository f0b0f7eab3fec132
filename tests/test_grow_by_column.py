"""``rows.grow`` makes the added rows' XML a piece of a batch of rows at a time (the runs
of formula cells between the input cells, then the input cells: :data:`rows.BY_COLUMN`)
instead of a row at a time: the same bytes in every part and the same description of
the rows (:class:`~zvmplan_addin.xlsx.knownrows.KnownRows`), on plans of every kind of
input, with and without scenarios, of fewer rows than a batch and of several batches."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from zvmplan_workbook import rows

from .test_knownrows import NAMES, parts_of, plan_links


def _grown(monkeypatch, by_column: bool, links, **kw):
    monkeypatch.setattr(rows, "BY_COLUMN", by_column)
    known: dict = {}
    parts = parts_of(links, known=known, **kw)
    return parts, known


def _described(k) -> dict:
    out = {}
    for f in dataclasses.fields(k):
        v = getattr(k, f.name)
        if isinstance(v, np.ndarray):
            v = (v.dtype.str, v.tolist())
        elif f.name == "fills":
            v = [(x.col, x.first_row, x.pieces, x.offsets, x.texts) for x in v]
        out[f.name] = v
    return out


@pytest.mark.parametrize("kind", sorted(NAMES))
@pytest.mark.parametrize("n, scenarios", [(21, False), (300, True), (700, False)])
def test_rows_made_by_column_are_the_rows_made_one_by_one(monkeypatch, kind, n, scenarios):
    links = plan_links(n, NAMES[kind])
    if kind == "plain":  # empty inputs and numbers of every size too
        for i, link in enumerate(links):
            if i % 4 == 0:
                link.update(level=None, speed_factor=None, connections=None)
            if i % 7 == 3:
                link.update(load=0.1 + i / 3, size_bytes=1e15 + i)
    by_row, known_row = _grown(monkeypatch, False, links, scenarios=scenarios)
    by_col, known_col = _grown(monkeypatch, True, links, scenarios=scenarios)
    assert [name for name, _ in by_col] == [name for name, _ in by_row]
    for (name, a), (_, b) in zip(by_col, by_row):
        assert a == b, name
    assert sorted(known_col) == sorted(known_row) and known_col
    for part in known_col:
        assert _described(known_col[part]) == _described(known_row[part]), part

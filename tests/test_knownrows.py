"""``fill`` hands the reader the Planner rows it added, already read
(:mod:`zvmplan_addin.xlsx.knownrows`): what the engine then sees must be exactly what
reading the part's bytes gives -- every value, formula, cached value, the layout the
writer splices into, the extent and the budget -- on plans of every shape; anything the
description does not cover falls back to reading the bytes; and with
``ZVMPLAN_ENGINE_CHECK`` a wrong description is an error, never an answer."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from zvmplan_addin import xlsx
from zvmplan_addin.xlsx import knownrows
from zvmplan_workbook import build, fill, planner, rows, xlsxio

TEMPLATE = build.TEMPLATE
PLANNER_PART = "xl/worksheets/sheet2.xml"
SCENARIOS_PART = "xl/worksheets/sheet4.xml"
PLAN_PART = "xl/worksheets/sheet5.xml"
BASE = dict(transport="VCTC", workload="STREAM", size_bytes=32764, connections=None,
            level=None, speed_factor=None, load=12)


def plan_links(n: int, names=None, **changes) -> list[dict]:
    """``n`` links, named ``names(i)`` (default ``link i``), with ``changes`` to each."""
    out = []
    for i in range(n):
        link = dict(BASE, link=names(i) if names else f"link {i}", **changes)
        if i % 3 == 1:
            link.update(transport="OSA_GBE", workload="RR", connections=50, level="4.4.0",
                        size_bytes=8992, load=4000.5)
        if i % 5 == 2:
            link.update(speed_factor=1.25, load=10 ** 17)
        out.append(link)
    return out


def parts_of(links, scenarios=False, capacity=None, known=None, template=TEMPLATE):
    cells = fill.input_cells(links, [] if not scenarios else [
        dict(name="more", load_factor=1.5, level=None, transport=None, speed_up=None)],
        None, capacity)
    return xlsxio.input_parts(template, cells, prepare=lambda p: rows.grow(
        p, len(links), fill.added_inputs(links), scenarios=scenarios, known=known))


def read_both(links, **kw):
    """(workbook read with the description, workbook read from the bytes, the
    description, whether it was taken)."""
    known: dict = {}
    parts = parts_of(links, known=known, **kw)
    taken: list = []
    original = knownrows._read_known

    def spy(*a):
        got = original(*a)
        taken.append(got is not None)
        return got
    knownrows._read_known = spy
    try:
        with xlsx.open_parts("t.xlsx", parts, xlsxio.WHEN.timetuple()[:6]) as pkg:
            pkg.known_rows.update(known)
            mine = xlsx.read_workbook(pkg)
        with xlsx.open_parts("t.xlsx", parts, xlsxio.WHEN.timetuple()[:6]) as pkg:
            theirs = xlsx.read_workbook(pkg)
    finally:
        knownrows._read_known = original
    return mine, theirs, known, taken


def view(sheet):
    """Everything of a sheet the engine reads, in the order it reads it."""
    from zvmplan_addin.recalc.read import SheetCells
    cells = SheetCells(sheet)
    arrays = [np.asarray(a).tolist() for a in (*cells.value_at, *cells.formula_at,
                                               *cells.cached_at)]
    typed = [[(type(v), v) for v in vs] for vs in (cells.values.tolist(),
                                                   cells.cached.tolist())]
    return (arrays, typed, cells.texts, cells.kinds, sheet.max_row, sheet.max_col,
            bytes(sheet.layout.cells), sheet.layout.dimension, sheet.layout.size,
            sheet.hidden_rows, sheet.filter_active)


def assert_same(mine, theirs):
    assert [s.name for s in mine.sheets] == [s.name for s in theirs.sheets]
    for a, b in zip(mine.sheets, theirs.sheets):
        assert view(a) == view(b), a.name


NAMES = {
    "plain": None,
    "markup": lambda i: f"a&b <c> \"d\" 'e' {i}",
    "unicode": lambda i: f"Zürich–東京 ✓ {i} 𝄞",
    "long": lambda i: "x" * 200 + f" {i}",
    "spaces": lambda i: f"  lead and trail {i}  ",
    "ooxml escape": lambda i: f"a_x0041_b {i}",
    "tab and newline": lambda i: f"one\ttwo\nthree {i}",
}


@pytest.mark.parametrize("kind", sorted(NAMES))
def test_the_described_rows_read_as_the_bytes_do(kind):
    """Link names with XML's special characters, beyond ASCII, long, spaced, holding
    SpreadsheetML's ``_xHHHH_`` escape (Excel reads ``_x0041_`` as ``A``), tabs and
    line feeds: the engine's view with the described rows equals the bytes' read."""
    mine, theirs, known, taken = read_both(plan_links(300, NAMES[kind]))
    assert sorted(known) == [PLANNER_PART, PLAN_PART] and taken == [True, True]
    assert_same(mine, theirs)


def test_a_thousand_links_with_scenarios_and_a_machine():
    """1,000 links, the Scenarios table grown beside the Planner's (described too), a
    machine's capacity in the Assumptions sheet."""
    capacity = {p: 2.5 for p in planner.PROCESSORS}
    mine, theirs, known, taken = read_both(plan_links(1000), scenarios=True,
                                           capacity=capacity)
    assert sorted(known) == [PLANNER_PART, SCENARIOS_PART, PLAN_PART]
    assert taken == [True, True, True]
    planner_sheet = next(s for s in mine.sheets if s.part == PLANNER_PART)
    assert planner_sheet.max_row == planner.FIRST_ROW + 999
    assert_same(mine, theirs)


def test_empty_inputs_and_numbers():
    """Optional inputs left empty (no cell filed), numbers whole and not, large."""
    links = plan_links(80, connections=None, level=None, speed_factor=None)
    for k, link in enumerate(links):
        link["load"] = [0.1, 3, 1e20, 12345678901234, 2.5e-7][k % 5]
    mine, theirs, _, taken = read_both(links)
    assert taken == [True, True]
    assert_same(mine, theirs)


def test_a_carriage_return_is_read_from_the_bytes():
    """A name holding a carriage return (XML reads it as a line feed) is not described:
    the rows are read from the bytes, and the answer is the same."""
    mine, theirs, known, taken = read_both(plan_links(60, lambda i: f"a\rb {i}"))
    assert list(known) == [PLAN_PART]
    assert_same(mine, theirs)


def test_no_added_rows_no_description():
    mine, theirs, known, _ = read_both(plan_links(planner.N_ROWS))
    assert known == {}
    assert_same(mine, theirs)


def _described(n=40):
    known: dict = {}
    parts = parts_of(plan_links(n), known=known)
    return parts, known[PLANNER_PART]


def _read(parts, known):
    with xlsx.open_parts("t.xlsx", parts, xlsxio.WHEN.timetuple()[:6]) as pkg:
        pkg.known_rows[PLANNER_PART] = known
        return xlsx.read_workbook(pkg)


def test_a_wrong_description_is_an_error_under_check():
    """With ``check`` (ZVMPLAN_ENGINE_CHECK) a description that differs from the bytes
    -- a formula text, a value -- is refused with one line, never used."""
    parts, known = _described()
    texts = list(known.texts)
    texts[7] = texts[7].replace("IF", "IFS", 1)
    with pytest.raises(knownrows.KnownRowsMismatch, match=r"formula at [A-Z]+35 .*ENGINE_CHECK"):
        _read(parts, dataclasses.replace(known, texts=texts, check=True))
    values = known.values.copy()
    values[3] = "not the link"
    with pytest.raises(knownrows.KnownRowsMismatch, match="value at"):
        _read(parts, dataclasses.replace(known, values=values, check=True))
    assert _read(parts, dataclasses.replace(known, check=True))   # the true one passes


def test_a_layout_off_the_bytes_falls_back():
    """A layout record that does not point at its cell's ``<c r="`` and ``<v>`` in the
    bytes: the description is not taken, the part is read whole (the same answer)."""
    parts, known = _described()
    layout = known.layout.copy()
    layout["v0"][5] += 1
    wrong = dataclasses.replace(known, layout=layout)
    assert not wrong.spelt()
    theirs = _read(parts, dataclasses.replace(known, data=b""))   # another part's bytes
    assert_same(_read(parts, wrong), theirs)


def test_fill_under_engine_check(tmp_path, monkeypatch):
    """``zvmplan fill`` with ZVMPLAN_ENGINE_CHECK set reads the grown Planner and
    Scenarios both ways (no mismatch) and writes the same workbook as without it."""
    import csv
    path = tmp_path / "links.csv"
    links = plan_links(45, NAMES["markup"])
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(fill.LINK_COLUMNS)
        for link in links:
            w.writerow(["" if link[k] is None else link[k] for k in fill.LINK_COLUMNS])
    compared = []
    original = knownrows._compare
    monkeypatch.setattr(knownrows, "_compare", lambda *a: compared.append(original(*a)))
    scenarios = tmp_path / "scenarios.csv"
    scenarios.write_text("name,load_factor\ntoday,\ndouble the load,2\n", encoding="utf-8")
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    fill.fill(None, path, tmp_path / "checked.xlsx", scenarios)
    assert compared == [None] * 3    # the Planner's rows, the Scenarios', the Plan's
    monkeypatch.delenv("ZVMPLAN_ENGINE_CHECK")
    fill.fill(None, path, tmp_path / "plain.xlsx", scenarios)
    assert len(compared) == 3
    assert (tmp_path / "checked.xlsx").read_bytes() == (tmp_path / "plain.xlsx").read_bytes()


def test_a_template_of_another_shape_falls_back(tmp_path):
    """A user's template whose Planner rows are hidden (the reader notes hidden rows
    itself) or whose last row carries an attribute spelt otherwise: those rows are not
    described, the reader reads them from the bytes, the same answer."""
    import re
    entries = xlsxio.read_zip(TEMPLATE)
    for spelling in (' hidden="1"', " outlineLevel = '0'"):
        path = tmp_path / "template.xlsx"
        changed = []
        for info, data in entries:
            if info.filename == PLANNER_PART:
                data = re.sub(rb'(<row r="%d")' % planner.LAST_ROW,
                              rb"\1" + spelling.encode(), data)
            changed.append((info.filename, data))
        xlsxio.write_zip(path, changed, xlsxio.WHEN)
        mine, theirs, known, taken = read_both(plan_links(50), template=path)
        assert PLANNER_PART not in known and PLAN_PART in known, spelling
        assert_same(mine, theirs)

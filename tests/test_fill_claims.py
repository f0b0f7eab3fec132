"""``fill`` says of each formula column of the rows it grew that it is one formula
filled down (:class:`~zvmplan_addin.xlsx.knownrows.FilledColumn`: the texts made by one
rule of the row), and the engine's search for filled-down formulas
(:func:`~zvmplan_addin.recalc.filldown.find_runs`) takes such cells as a run without
comparing each text with its prediction -- only where its own prediction is that very
rule, each cell sits in its row and still holds the text the rule made. The runs are
the same as those found by comparing every text, on real plans and on wrong claims of
every kind; a claim that would change them is an error under ``ZVMPLAN_ENGINE_CHECK``."""
from __future__ import annotations

import dataclasses
import re

import pytest

from zvmplan_addin import xlsx
from zvmplan_addin.recalc import filldown
from zvmplan_addin.recalc.compile import _Shaping
from zvmplan_addin.recalc.engine import Engine
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.xlsx.knownrows import FilledColumn, filled_columns
from zvmplan_workbook import planner, xlsxio

from .test_knownrows import PLAN_PART, PLANNER_PART, SCENARIOS_PART, TEMPLATE, parts_of, \
    plan_links


def _nodes(links, template=TEMPLATE, scenarios=True, described=True):
    """The engine's nodes of a plan of ``links`` grown by ``fill``'s code, with the
    grown rows' description (and so its claims) unless not ``described``; and the
    description."""
    known: dict = {}
    parts = parts_of(links, scenarios=scenarios, known=known, template=template)
    with xlsx.open_parts("t.xlsx", parts, xlsxio.WHEN.timetuple()[:6]) as pkg:
        if described:
            pkg.known_rows.update(known)
        book = xlsx.read_workbook(pkg)
    install_functions()
    return Engine(book).nodes, known


def _runs(nodes, fills, check=False, n_text=None):
    shaping = _Shaping(nodes, generic=True)
    return filldown.find_runs(*nodes.where(), n_text or nodes.n_text, nodes.cells,
                              shaping.shaper_of, fills, check)


def _view(runs) -> dict:
    """Each run as plain values (its members, rows and prediction)."""
    return {leader: (run.members.tolist(), run.rows.tolist(), run.pattern)
            for leader, run in runs.items()}


@pytest.fixture
def taken(monkeypatch):
    """How many cells each claimed stretch taken at once held (a spy on
    :func:`filldown._claimed`)."""
    out: list = []
    original = filldown._claimed

    def spy(*a):
        got = original(*a)
        if got is not None:
            out.append(got - a[4])
        return got
    monkeypatch.setattr(filldown, "_claimed", spy)
    return out


def test_each_claimed_text_is_its_rule_and_the_row_formula():
    """Every text a column's claim holds is its rule at that row, the description's
    texts are those very objects (by row, then column), and each is the formula the
    builder's own row function writes in that row (Planner, Scenarios with their
    Planner rows, the Plan sheet naming two rows)."""
    links = plan_links(120)
    _, known = _nodes(links)
    assert sorted(known) == sorted([PLANNER_PART, SCENARIOS_PART, PLAN_PART])
    row_fns = {PLANNER_PART: planner.planner_row,
               SCENARIOS_PART: lambda r: {k: v for b in range(planner.SCENARIO_BLOCKS)
                                          for k, v in planner.scenario_row(b, r).items()}}
    for part, described in known.items():
        fills = described.fills
        assert fills and len(described.texts) == len(fills) * described.rows
        offsets = set()
        for j, f in enumerate(fills):
            assert len(f.texts) == described.rows
            assert all(t is u for t, u in zip(f.texts, described.texts[j::len(fills)]))
            assert list(f.texts) == [f.text_at(f.first_row + i) for i in range(len(f.texts))]
            offsets |= set(f.offsets)
        if part in row_fns:
            for i in (0, 57, described.rows - 1):
                r = fills[0].first_row + i
                by_col = {_number(k): v[0][1:] for k, v in row_fns[part](r).items()}
                assert [f.texts[i] for f in fills] == [by_col[f.col] for f in fills], (part, r)
        else:
            assert len(offsets) == 2  # the Plan sheet names its own row and the Planner's


def _number(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n


@pytest.mark.parametrize("scenarios", [False, True])
def test_claimed_runs_are_the_compared_runs(scenarios, taken):
    """On a plan of 400 links (with and without its Scenarios table grown) the runs
    found with the claims are the runs found comparing every text, and the claims were
    taken (most of the grown cells without a text compared)."""
    nodes, known = _nodes(plan_links(400), scenarios=scenarios)
    assert nodes.fills
    fast = _runs(nodes, nodes.fills)
    assert sum(taken) >= 0.9 * sum(len(k.texts) for k in known.values())
    assert _view(fast) == _view(_runs(nodes, {}))
    # and the same runs as the plan read from its bytes alone (no description, no claim)
    plain, _ = _nodes(plan_links(400), scenarios=scenarios, described=False)
    assert not plain.fills
    assert _view(_runs(plain, plain.fills)) == _view(fast)


def _claims(nodes) -> dict:
    """The Planner's claims (its sheet's), by column."""
    s = nodes.sheet_names.index(planner.PLANNER)
    return {c: f for (sheet, c), f in nodes.fills.items() if sheet == s}, s


def _with(nodes, s, claims):
    out = dict(nodes.fills)
    out.update({(s, c): f for c, f in claims.items()})
    return out


def test_a_hand_edited_cell_ends_the_run_as_compared(taken):
    """A grown cell whose text is not its claim's (edited after growing, or read
    otherwise): the claim is not taken for that column, the run ends at that cell as
    when every text is compared."""
    nodes, _ = _nodes(plan_links(300), scenarios=False)
    claims, s = _claims(nodes)
    col, claim = next(iter(claims.items()))
    i = next(k for k in range(nodes.cells) if nodes.n_sheet[k] == s
             and nodes.n_col[k] == col and nodes.n_row[k] == claim.first_row + 100)
    text = list(nodes.n_text)
    text[i] = text[i] + "+0"
    fast = _runs(nodes, nodes.fills, n_text=text)
    assert _view(fast) == _view(_runs(nodes, {}, n_text=text))
    assert not any(i in run.members.tolist() for run in fast.values())
    # an equal text that is another object (a reader's rewrite giving the same text)
    text[i] = "".join(list(claim.texts[100]))
    assert text[i] is not claim.texts[100]
    assert _view(_runs(nodes, nodes.fills, n_text=text)) == _view(_runs(nodes, {}))


@pytest.mark.parametrize("wrong", ["another rule", "a row off", "a row short", "a row long",
                                   "other texts", "another column"])
def test_a_wrong_claim_is_not_taken(wrong, taken):
    """Claims that do not hold -- another rule than the column's prediction, its rows
    shifted, texts that are not the cells', put on another column -- or that name a row
    fewer or one more (the template's last) than were grown give the same runs as
    comparing every text."""
    nodes, _ = _nodes(plan_links(300), scenarios=False)
    claims, s = _claims(nodes)
    bad = {}
    cols = sorted(claims)
    for c, f in claims.items():
        if wrong == "another rule":
            pieces = f.pieces if f.offsets else (f.pieces[0] + "+1",)
            bad[c] = dataclasses.replace(f, pieces=pieces[:-1] + (pieces[-1] + "+1",))
        elif wrong == "a row off":
            bad[c] = dataclasses.replace(f, first_row=f.first_row + 1)
        elif wrong == "a row short":  # (true of the rows it names: the last compared)
            bad[c] = dataclasses.replace(f, texts=f.texts[:-1])
        elif wrong == "a row long":
            bad[c] = dataclasses.replace(f, first_row=f.first_row - 1,
                                         texts=(f.text_at(f.first_row - 1),) + f.texts)
        elif wrong == "other texts":
            bad[c] = dataclasses.replace(f, texts=tuple(t + " " for t in f.texts))
        else:
            bad[cols[(cols.index(c) + 1) % len(cols)]] = dataclasses.replace(f)
    fills = _with(nodes, s, bad)
    assert _view(_runs(nodes, fills)) == _view(_runs(nodes, {}))
    if wrong in ("another rule", "other texts"):
        assert sum(taken) <= sum(len(f.texts) for (t, _), f in nodes.fills.items() if t != s)


def test_a_lying_claim_is_an_error_under_check():
    """A claim made without :func:`filled_columns` whose texts are the cells' but not
    its rule's (a fault of the writer's): with ``check`` (ZVMPLAN_ENGINE_CHECK) the run
    is also found by comparing each text and the difference is an error, never a run."""
    nodes, _ = _nodes(plan_links(300), scenarios=False)
    claims, s = _claims(nodes)
    text = list(nodes.n_text)
    col, claim = next((c, f) for c, f in claims.items() if f.offsets)
    # the cells' text at one row changed, and the claim made to hold it
    at = 150
    i = next(k for k in range(nodes.cells) if nodes.n_sheet[k] == s
             and nodes.n_col[k] == col and nodes.n_row[k] == claim.first_row + at)
    text[i] = text[i] + "*2"
    lying = dataclasses.replace(claim, texts=claim.texts[:at] + (text[i],) + claim.texts[at + 1:])
    fills = _with(nodes, s, {col: lying})
    # (without the check it would be taken: the claim's texts are true by construction
    # only when filled_columns made them)
    assert _view(_runs(nodes, fills, n_text=text)) != _view(_runs(nodes, {}, n_text=text))
    with pytest.raises(filldown.FillClaimMismatch, match="ZVMPLAN_ENGINE_CHECK"):
        _runs(nodes, fills, check=True, n_text=text)
    assert _view(_runs(nodes, nodes.fills, check=True)) == _view(_runs(nodes, {}))


def test_a_template_of_another_shape_gives_the_compared_runs(tmp_path, taken):
    """A user's template whose Planner rows hold formulas edited by hand (its first
    row's and a row in the middle): the claims of the grown rows meet other
    predictions, and the runs are those of comparing every text."""
    entries = xlsxio.read_zip(TEMPLATE)
    path = tmp_path / "template.xlsx"
    changed = []
    for info, data in entries:
        if info.filename == PLANNER_PART:
            for r in (planner.FIRST_ROW, planner.FIRST_ROW + 7):
                row = re.search(rb'<row r="%d".*?</row>' % r, data, re.S)
                edited = re.sub(rb"<f>([^<]*)</f>", rb"<f>(\1)*1</f>", row.group(0), count=3)
                data = data[:row.start()] + edited + data[row.end():]
        changed.append((info.filename, data))
    xlsxio.write_zip(path, changed, xlsxio.WHEN)
    nodes, known = _nodes(plan_links(200), template=path, scenarios=False)
    assert PLANNER_PART in known
    fast = _view(_runs(nodes, nodes.fills))
    assert fast == _view(_runs(nodes, {}))
    assert fast != _view(_runs(*_nodes(plan_links(200), scenarios=False)[:1], {}))
    assert taken  # the columns not edited were claimed


def test_filled_columns_refuse_what_they_cannot_make():
    """A piece holding a NUL (the texts' separator) or pieces that do not fit the
    offsets: no claim (the rows are then described no more: read from the bytes)."""
    assert filled_columns([1], 5, 3, [(("A", "\x00"), (0,))]) is None
    assert filled_columns([1], 5, 3, [(("A", "B", "C"), (0,))]) is None
    fills, texts = filled_columns([1, 3], 9, 3, [(("A", "+B", ""), (0, -1)), (("7",), ())])
    assert texts == ["A9+B8", "7", "A10+B9", "7", "A11+B10", "7"]
    assert fills[0].texts == ("A9+B8", "A10+B9", "A11+B10") and fills[1].texts == ("7",) * 3
    assert isinstance(fills[0], FilledColumn)


def test_fill_under_engine_check_compares_the_claims(tmp_path, monkeypatch):
    """``zvmplan fill`` with ZVMPLAN_ENGINE_CHECK also finds each claimed run by
    comparing its texts (no difference) and writes the same workbook as without it."""
    from .test_knownrows import test_fill_under_engine_check as fill_checked
    compared = []
    original = filldown._extent_claimed

    def spy(*a, **k):
        compared.append(k.get("check"))
        return original(*a, **k)
    monkeypatch.setattr(filldown, "_extent_claimed", spy)
    fill_checked(tmp_path, monkeypatch)
    assert True in compared and False in compared


def test_words_in_claimed_texts_are_found_in_their_rules():
    """The read stage looks for ``#REF!``, ``ANCHORARRAY`` (any case) and the look of a
    3-D reference (``:SHEET!``, :func:`threed.maybe`) in every formula text before
    rewriting any; the texts of claimed columns are looked through as their rules'
    skeletons (the pieces, each row number written 0) where no word can overlap a row
    number, else as texts: the same answers as looking through the texts, and texts
    that are not the claim's very texts are looked through themselves."""
    from zvmplan_addin.recalc import threed
    from zvmplan_addin.recalc.read import Literals, _across_numbers, _claimed_texts, _holding
    sheets = ["Q40", "B", "Z", "Plan 2'", "000"]
    words = ("#REF!", "ANCHORARRAY",
             Literals(threed.maybe(sheets), threed.maybe_literals(sheets)))
    cases = [("A", "+B"), ("SUM(#ref!:A", ")"), ("_xlfn.anchorarray(B", ")*2"),
             ("#RE", "F!"), ("X:Q", "!A1"), ("SUM(Q1:Q", ")+Z!A1"), ("1:", "!B"),
             ("'A:B", "'!C1"), ("X:", "!A1"), ("SUM(A1:A", ")+'PLAN 2'''!A1"),
             ("X:Q4", "!A1"), ("S(Q:Q", ",Z!A", ")"), ("X:Z!A", "+B:B!A", ""),
             ("SUM(Z!A1:A", ")*Planner!$B$", "")]
    skipped = 0
    for pieces in cases:
        offsets = (0,) * (len(pieces) - 1)
        other = ("C1+$D$", "*2")
        fills, texts = filled_columns([2, 5], 40, 30, [(pieces, offsets), (other, (-1,))])
        head = ["X1", "Y2*3"]
        everything = head + texts
        claimed = _claimed_texts(everything, 0, len(everything), tuple(fills))
        assert claimed == [(2, len(everything), [pieces, other])]
        assert _holding(everything, len(everything), words, claimed) == \
            _holding(everything, len(everything), words)
        skipped += not _across_numbers(words[2].literals, [pieces, other])
        copied = head + ["".join(list(t)) for t in texts[:-1]] + ["Z9"]
        assert _claimed_texts(copied, 0, len(copied), tuple(fills)) == []
    assert 0 < skipped < len(cases)  # both ways taken
    # a word in the texts outside the claimed ones is found there
    fills, texts = filled_columns([1], 3, 5, [(("A", ""), (0,))])
    everything = ["#REF!+1"] + texts
    claimed = _claimed_texts(everything, 0, len(everything), tuple(fills))
    assert claimed and _holding(everything, len(everything), words, claimed) == \
        [True, False, False]
    # ":Q40!" across the row number: looked for in the texts, found
    fills, texts = filled_columns([1], 40, 5, [(("X:Q", "!A1"), (0,))])
    claimed = _claimed_texts(texts, 0, len(texts), tuple(fills))
    assert _across_numbers(words[2].literals, [("X:Q", "!A1")])
    assert claimed and _holding(texts, len(texts), words, claimed) == [False, False, True]
    # a 3-D look within a piece: found in the skeleton, the texts not needed
    fills, texts = filled_columns([1], 40, 5, [(("SUM(Q40:Z!A", ")+$B$", ""), (0, 1))])
    claimed = _claimed_texts(texts, 0, len(texts), tuple(fills))
    assert not _across_numbers(words[2].literals, claimed[0][2])
    assert _holding(texts, len(texts), words, claimed) == [False, False, True]


def test_range_operator_look_in_claimed_texts_needs_no_texts():
    """The look for a range operator with a function's end (``):``, ``:INDEX(`` ...,
    :data:`dynamic.RANGE_OPERATOR`) has no digit, so it never overlaps a row number: a
    claimed column is decided by its rule's skeleton (fill's 60 MB of formula text was
    joined for it, 0.27 CPU-s at 10,000 links), with the same answers as the texts."""
    from zvmplan_addin.recalc import dynamic
    from zvmplan_addin.recalc.read import Literals, _across_numbers, _claimed_texts, _holding
    words = ("#REF!", Literals(dynamic.RANGE_OPERATOR, dynamic.RANGE_OPERATOR_LITERALS))
    for pieces, found in ((("SUM(INDEX(A1:A", ",2):A", ")"), True),
                          (("SUM(A1:_xlfn.XLOOKUP(1,B", ":B,C:C)+A", ""), True),
                          (("SUM(A1:A", ")*IF(B", ">0,1,2)"), False),
                          (("SUM(A", ") :B", ""), True)):
        assert not _across_numbers(words[1].literals, [pieces])
        fills, texts = filled_columns([1], 40, 5, [(pieces, (0,) * (len(pieces) - 1))])
        claimed = _claimed_texts(texts, 0, len(texts), tuple(fills))
        assert claimed
        assert _holding(texts, len(texts), words, claimed) == \
            _holding(texts, len(texts), words) == [False, found], pieces


def test_maybe_literals_are_what_maybe_matches():
    """:func:`threed.maybe_literals` lists exactly the texts :func:`threed.maybe`'s
    pattern matches (what :func:`read._across_numbers` reasons about)."""
    from zvmplan_addin.recalc import threed
    sheets = ["Sheet1", "Q 3", "It's", "000", "Plan"]
    pattern, literals = threed.maybe(sheets), threed.maybe_literals(sheets)
    for literal in literals:
        assert pattern.fullmatch(literal) is not None, literal
    for text in ["SUM(A1:SHEET1!B2)", ":Q 3'!", ":IT''S'!", ":000!", "A:PLAN!", ":PLANX!",
                 ":SHEET!", "Q 3!", ":IT'S!"]:
        found = {m.group(0) for m in pattern.finditer(text)}
        assert found <= set(literals)
        assert bool(found) == any(lit in text for lit in literals), text

"""formulas' ``Ranges.get_range`` with its answers remembered
(:mod:`zvmplan_addin.recalc.rangememo`) answers as formulas' own: the same parts dict
(keys in the same order, the same values and types) or the same exception, for every
call the compile stage makes on the template, each asked again in other cells, cold and
warm; and for relative R1C1 references, anchors, names, external references and texts
that are no reference."""
from __future__ import annotations

import tempfile

import pytest
from formulas.ranges import Ranges

from zvmplan_addin import cli
from zvmplan_addin.recalc import rangememo
from zvmplan_addin.recalc.install import install_functions
from zvmplan_workbook import build

HAND = ["A1", "$A$1:$B$2", "S!A1", "'My Sheet'!B2:C9", "A:A", "1:3", "R1C1", "R[1]C[2]",
        "R[-1]C[1]:R[1]C[2]", "R[1]:R[2]", "C[1]:C[3]", "RC", "A1#", "S!A1#",
        "ANCHORARRAY(A1)", "[1]S!A1", "'C:\\d\\[b.xlsx]S'!A1", "ZVMLIT_0_", "MYNAME",
        "S!MYNAME", "A0", "XFE1", "", "!!", "A1:B", "INDIRECT(\"A1\")"]
CONTEXTS = [None, {}, {"sheet": "S", "cr": "7", "cc": 3}, {"sheet": "S", "cr": "20", "cc": 1},
            {"sheet": "OTHER", "cr": "7", "cc": 3}, {"cr": "2", "cc": 2}]


@pytest.fixture(scope="module", autouse=True)
def functions():
    install_functions()


@pytest.fixture(autouse=True)
def remembering():
    """Each test inside the block the compile stage runs in."""
    with rangememo.remembering():
        yield


def _answer(function, ref, context, raise_anchor):
    try:
        got = function(ref, None if context is None else dict(context), raise_anchor)
    except Exception as exc:
        return ("raised", type(exc), exc.args)
    return ("ok", type(got), [(k, type(v), v) for k, v in got.items()])


def _differ(calls) -> list:
    return [c for c in calls
            if _answer(rangememo.get_range, *c) != _answer(rangememo._original, *c)]


def test_installed_in_formulas():
    assert Ranges.get_range is rangememo.get_range
    assert rangememo._original is not rangememo.get_range


def test_same_as_formulas_on_each_kind_of_reference():
    rangememo.forget()
    calls = [(ref, ctx, anchor) for anchor in (True, False) for ctx in CONTEXTS
             for ref in HAND]
    assert _differ(calls) == []
    assert _differ(calls) == []   # warm
    assert len(rangememo._kept) > 50
    got = rangememo.get_range("R[1]C[2]", {"sheet": "S", "cr": "20", "cc": 1})
    assert got["name"] == "S!C21" and got["cr"] == "20"
    got = rangememo.get_range("A1", {"sheet": "S", "cr": "9", "cc": 4})
    assert (got["name"], got["cr"], got["cc"]) == ("S!A1", "9", 4)


def test_a_context_that_is_no_plain_dict_is_formulas_own():
    """An unhashable value in the context (formulas' external links): not remembered."""
    rangememo.forget()
    ctx = {"sheet": "S", "external_links": {"1": ("", "b.xlsx")}}
    assert _differ([("[1]S!A1", ctx, True), ("A1", ctx, True)] * 2) == []
    assert rangememo._kept == {}


def test_same_as_formulas_on_every_call_of_the_template(monkeypatch):
    """Each call the template's calc makes, asked again with the memo cold, warm, and in
    another cell."""
    seen = []
    memo = rangememo.get_range

    def record(ref, context=None, raise_anchor=True):
        seen.append((ref, None if context is None else dict(context), raise_anchor))
        return memo(ref, context, raise_anchor)
    monkeypatch.setattr(rangememo, "get_range", record)   # what install() puts in place
    try:
        with tempfile.TemporaryDirectory() as tmp:
            assert cli.main(["calc", str(build.TEMPLATE), "-o", f"{tmp}/t.xlsx", "-q"]) \
                in (0, None)
    finally:
        monkeypatch.undo()
        rangememo.install()
    assert Ranges.get_range is rangememo.get_range
    assert len(seen) > 1000
    rangememo.forget()
    assert _differ(seen) == []
    assert _differ(seen) == []
    moved = [(ref, ctx and {**ctx, "cr": str(int(ctx.get("cr", 1)) + 3), "cc": 5}, a)
             for ref, ctx, a in seen]
    assert _differ(moved) == []


def test_outside_the_compile_stage_it_is_formulas_own_call():
    """Outside :func:`~zvmplan_addin.recalc.rangememo.remembering` (evaluation, INDIRECT):
    formulas' answer, nothing remembered; the block's answers are forgotten when the
    outermost block ends."""
    rangememo.forget()
    depth = rangememo._kept.depth
    rangememo._kept.depth = 0
    try:
        assert _differ([("A1", CONTEXTS[2], True), ("ZVMLIT_0_", CONTEXTS[2], True)]) == []
        assert rangememo._kept == {}
        with rangememo.remembering():
            with rangememo.remembering():
                rangememo.get_range("A1", dict(CONTEXTS[2]))
            assert len(rangememo._kept) == 1
        assert rangememo._kept == {}
    finally:
        rangememo._kept.depth = depth

"""Tokens made from remembered attributes (:mod:`zvmplan_addin.recalc.tokenmemo`) are the
tokens formulas makes: the compile stage's parser (:class:`~zvmplan_addin.recalc.
fastparse.FastParser`, which makes its tokens with :func:`~zvmplan_addin.recalc.
tokenmemo.make`) gives the same tokens and builder as formulas' own ``Parser`` on every
formula of the template, each read in cells and sheets other than its own after the memo
has seen it elsewhere, cold and warm; relative R1C1 references (the only ones whose parts
depend on the formula's cell) are never given another cell's parts; and a patched
``process`` turns the memo off."""
from __future__ import annotations

import pytest
from formulas.parser import Parser
from formulas.tokens.operand import Range

from parsecompare import describe, outcome, workbook_formulas
from zvmplan_addin.recalc import tokenmemo
from zvmplan_addin.recalc.fastparse import FastParser
from zvmplan_addin.recalc.install import install_functions
from zvmplan_workbook import build


@pytest.fixture(scope="module", autouse=True)
def functions():
    install_functions()


@pytest.fixture(autouse=True)
def remembering():
    """Each test inside the block the compile stage parses in."""
    with tokenmemo.remembering():
        yield


def _same(items) -> list:
    return [(text, ctx) for text, ctx in items
            if outcome(FastParser, text, ctx) != outcome(Parser, text, ctx)]


def _moved(items, sheet=None, dr=5, dc=3) -> list:
    """``items`` read in another cell (``dr`` rows, ``dc`` columns on) and sheet."""
    return [(text, {"sheet": ctx["sheet"] if sheet is None else sheet,
                    "cr": str(int(ctx["cr"]) + dr), "cc": ctx["cc"] + dc})
            for text, ctx in items]


def test_the_memo_is_on_and_used():
    """The installed formulas is the one the memo knows, and reading a formula twice
    makes its tokens from remembered attributes the second time."""
    assert tokenmemo.usable()
    tokenmemo.forget()
    FastParser(True).ast("=SUM($A$1:$B$2)+C3*2", context={"sheet": "S", "cr": "4", "cc": 2})
    kept = len(tokenmemo._kept)
    assert kept >= 5
    calls = []
    first = tokenmemo._first
    try:
        tokenmemo._first = lambda *a: calls.append(a) or first(*a)
        FastParser(True).ast("=SUM($A$1:$B$2)+C3*2", context={"sheet": "S", "cr": "9", "cc": 7})
    finally:
        tokenmemo._first = first
    assert calls == [] and len(tokenmemo._kept) == kept


def test_same_as_formulas_on_the_template_cold_warm_and_moved():
    """Every template formula (one per skeleton, and each defined name): with the memo
    forgotten, then again warm in its own cell, in another cell, and on another sheet --
    the tokens (class, source, length, attributes including the cell ``cr``/``cc``) and
    the builder formulas makes, each time."""
    items = workbook_formulas(str(build.TEMPLATE))
    assert len(items) >= 300
    tokenmemo.forget()
    assert _same(items) == []
    assert len(tokenmemo._kept) > 500
    assert _same(items) == []
    assert _same(_moved(items)) == []
    assert _same(_moved(items, sheet="OTHER SHEET", dr=-1, dc=0)) == []


def test_relative_r1c1_references_take_their_own_cell():
    """``R[1]C[2]`` in row 7 column 3 is R8C5, in row 20 column 1 R21C3: formulas' parts
    for each; and an A1 reference's ``cr``/``cc`` are this cell's, not the first cell's."""
    tokenmemo.forget()
    items = [(text, {"sheet": "S", "cr": cr, "cc": cc})
             for cr, cc in (("7", 3), ("20", 1), ("7", 3), ("3", 9))
             for text in ("=R[1]C[2]", "=R[-1]C[1]:R[1]C[2]", "=SUM(R[1]C[1]:R[2]C[2])+A1",
                          "=A1+$B$2", "=S!A1*R1C1", "=R[1]:R[2]", "=C[1]:C[3]")]
    assert _same(items) == []
    tokens, _ = FastParser(True).ast("=R[1]C[2]+A1", context={"sheet": "S", "cr": "20",
                                                               "cc": 1})
    assert tokens[0].attr["name"] == "S!C21" and tokens[0].attr["cr"] == "20"
    assert tokens[2].attr["cr"] == "20" and tokens[2].attr["cc"] == 1


def test_each_token_has_its_own_attributes():
    """The parser's later steps write into a token's ``attr`` (its expression, its
    number of arguments): a token made from remembered attributes has a dict of its own,
    and the remembered one is untouched."""
    tokenmemo.forget()
    ctx = {"sheet": "S", "cr": "1", "cc": 1}
    a, _ = FastParser(True).ast("=IF(A1,B2,C3)", context=dict(ctx))
    b, _ = FastParser(True).ast("=IF(A1,B2,C3)", context=dict(ctx))
    for x, y in zip(a, b):
        assert x is not y and x.attr is not y.attr and describe(x.attr) == describe(y.attr)
    k = next(k for k, t in enumerate(a) if isinstance(t, Range))
    assert a[k].attr["expr"] == "S!A1"
    a[k].attr["expr"] = "changed"
    assert b[k].attr["expr"] == "S!A1"
    assert all(v.get("expr") != "changed" for v in tokenmemo._kept.values()
               if isinstance(v, dict))


def test_a_refused_match_is_refused_again():
    """A reference followed by ``(`` is no reference (formulas' Range refuses it, and a
    function is read): the second time too."""
    tokenmemo.forget()
    items = [("=ABC(1)+ABC", {"sheet": "S", "cr": "1", "cc": 1}),
             ("=ABC(1)+ABC", {"sheet": "S", "cr": "2", "cc": 2}),
             ("=X1(2)", {"sheet": "S", "cr": "1", "cc": 1}),
             ("=X1(2)", {"sheet": "S", "cr": "1", "cc": 1})]
    assert _same(items) == []


def test_a_patched_process_turns_the_memo_off(monkeypatch):
    """A token class whose ``process`` is not formulas' own (nor the double-minus one,
    which wraps formulas'): nothing is remembered or reused, formulas makes every token."""
    assert tokenmemo.usable()
    seen = []
    original = Range.process

    def process(self, match, context=None, parser=None):
        seen.append(match.group(0))
        return original(self, match, context, parser)
    monkeypatch.setattr(Range, "process", process)
    assert not tokenmemo.usable()
    tokenmemo.forget()
    for _ in range(2):
        FastParser(True).ast("=A1+A1", context={"sheet": "S", "cr": "1", "cc": 1})
    assert seen == ["A1", "A1"] * 2 and tokenmemo._kept == {}
    monkeypatch.undo()
    assert tokenmemo.usable()


# texts where formulas' reference pattern reads past a plain run (a quote, a [, the
# INDIRECT(" and ANCHORARRAY( alternatives, a name before "(" that is one of them, a
# backslash, non-ASCII letters) beside the same runs in plain contexts
TRICKY = [
    "=A1+B2", "='a'!A1+'[x]b'!C1", "=A1+'[1]S'!B2", "=S!A1+INDIRECT(\"A1\")",
    "=INDIRECT(\"A1\")+INDIRECT(A1)", "=indirect(\"B1\")", "=ANCHORARRAY(A1)+A1",
    "=_xlfn.ANCHORARRAY(B1)*2", "=ANCHORARRAY+1", "=INDIRECT+1", "=A1\\B+1", "=\\A1+1",
    "=A1:B2:C3", "=A1 :B2", "=A1: B2", "=A1#+1", "=SUM(A1#)", "=X1(2)+X1", "=ABC(1)+ABC",
    "=ABC (1)", "=R1C1+R1C1(2)", "=Ä1+A1", "=AÄ+A1", "=A1.B+A1", "=A1_+A1", "=A1;B1",
    "={A1,B1;C1,D1}", "=S!A1:S!B2", "=S!A1:B2+S!A1", "=[1]S!A1+[1]S!A1", "=A1%+A1",
    "=R[x", "=R[1]C[1]+R", "=C[x", "=C[1]:C[2]+C", "=R'x", "=A1'!B2",
    "=A1 B1", "=A1&\"A1\"", "=SUM(A1,B1)", "=IF(A1,B1)", "=ZVMLIT_0_+ZVMLIT_0_(1)",
    "=TRUE+TRUE()", "=A1!B1+A1", "=A1!+A1", "=$A$1:$B$2+$A$1", "=A$1+A$1:A$2",
]


def test_a_run_read_before_is_given_only_where_the_pattern_reads_no_further(monkeypatch):
    """A reference or name matched before, followed by the same character, is given
    without matching formulas' pattern again (counted here), and a name before ``(``
    that the pattern refused is refused again: the tokens are formulas' own on texts
    where the pattern reads further than the run (quotes, ``[``, ``INDIRECT("``,
    ``ANCHORARRAY(``), in either order, cold and warm."""
    pattern = Range._re
    calls = []

    class Counting:
        def __init__(self):
            self.pattern, self.flags = pattern.pattern, pattern.flags

        def match(self, text, *args, **kw):
            calls.append(text)
            return pattern.match(text, *args, **kw)
    monkeypatch.setattr(Range, "_re", Counting())
    from zvmplan_addin.recalc import fastparse
    assert fastparse.known(Parser.filters)   # the same pattern: still the fast parser
    ctx = {"sheet": "S", "cr": "3", "cc": 2}
    for order in (TRICKY, TRICKY[::-1]):
        tokenmemo.forget()
        assert _same([(t, ctx) for t in order]) == []
        assert _same([(t, ctx) for t in order]) == []
    tokenmemo.forget()
    FastParser(True).ast("=A1+SUM(B2)", context=dict(ctx))
    calls.clear()
    FastParser(True).ast("=A1+SUM(B2)", context={"sheet": "S", "cr": "9", "cc": 1})
    assert calls == []


def test_nothing_is_remembered_outside_the_compile_stage(tmp_path):
    """Outside :func:`~zvmplan_addin.recalc.tokenmemo.remembering` the parser makes
    every token with formulas' constructor and keeps nothing; after a calc, nothing the
    compile stage remembered is kept (formulas' token attributes, references' parts)."""
    from zvmplan_addin import cli
    from zvmplan_addin.recalc import rangememo
    tokenmemo.forget()
    with tokenmemo.remembering():   # nested: the outer block (the fixture's) goes on
        FastParser(True).ast("=A1+B2", context={"sheet": "S", "cr": "1", "cc": 1})
    assert len(tokenmemo._kept) > 2
    tokenmemo.forget()
    depth = tokenmemo._kept.depth
    tokenmemo._kept.depth = 0
    try:
        assert not tokenmemo.on()
        FastParser(True).ast("=A1+B2", context={"sheet": "S", "cr": "1", "cc": 1})
        assert tokenmemo._kept == {}
        assert cli.main(["calc", str(build.TEMPLATE), "-o", str(tmp_path / "t.xlsx"), "-q"]) \
            in (0, None)
        assert tokenmemo._kept == {} and rangememo._kept == {}
        assert tokenmemo._kept.depth == 0 and rangememo._kept.depth == 0
    finally:
        tokenmemo._kept.depth = depth

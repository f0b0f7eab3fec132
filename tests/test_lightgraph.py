"""The compile stage builds formulas' graph without schedula's ``Dispatcher``
(:mod:`zvmplan_addin.recalc.lightgraph`) and compiles it as formulas' ``AstBuilder.compile``
does: on every formula shape of the template, its generic forms, hand-made formulas and
one formula per skeleton of the corpus (each distinct text with
``ZVMPLAN_FULL_CORPUS=1``), the compiled graph (nodes with their attributes, edges in
order, default values), the inputs (their ``Ranges``), output, name, order and the
straight-line program's steps are those of the old path (formulas' builder into a
``Dispatcher``, :class:`~zvmplan_addin.recalc.program.DeferredPipe`), or the light path
refuses and the old one runs; a formulas, schedula or builder it does not know is left
to the old path, and a formula the old path refuses is refused the same."""
from __future__ import annotations

import os

import numpy as np
import pytest

from parsecompare import CORPUS, corpus_formulas, describe, workbook_formulas
from zvmplan_addin.recalc import compile as C
from zvmplan_addin.recalc import lightgraph, tokenmemo
from zvmplan_addin.recalc.fastparse import FastParser
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.program import NotStraight, Program, pipe_order
from zvmplan_workbook import build

HAND = ["=1+2", "=A1+A1", "=-A1%", "=SUM(A1:A3)+SUM(A1:A3)", "=ROW()", "=ROW(A2)*2",
        "=COLUMN(B3)+ROWS(A1:A9)", "=PI()*2", "=NOW()", "=RAND()+A1", "=IF(A1,1,2)",
        "=INDIRECT(\"A1\")", "=OFFSET(A1,1,1)", "=1/0", "=NOSUCH(1)", "=NOSUCH(A1)",
        "=\"a\"&\"b\"", "=A1:B2", "=(A1,B2)", "=A1:A3 A2:B2", "={1,2;3,4}*2", "=#REF!",
        "=LET(x,2,x*A1)", "=LAMBDA(x,x+1)(2)", "=SUM((A1,B2))", "=myName*2",
        "=ZVMLIT_0_+ZVMLIT_1_*A1", "=IF(ZVMLIT_0_>A1,ZVMLIT_1_,A1-ZVMLIT_2_)",
        "=1+2-3", "=A1-B1+C1", "=(A1+B1)", "=SUM(1,2)+A1", "=TRUE()+A1", "=ISREF(A1)",
        "=Sheet2!A1*2", "='My Sheet'!A1+1", "=A1#", "=@A1:A3", "=CHOOSE(2,A1,B1)"]
CTX = {"sheet": "SHEET1", "cr": "7", "cc": 3}


@pytest.fixture(scope="module", autouse=True)
def functions():
    install_functions()


def _graph(dsp):
    succ, pred = dsp.dmap.succ, dsp.dmap.pred
    return (list(dsp.nodes.items()), [(u, list(succ[u].items())) for u in succ],
            [(u, list(pred[u].items())) for u in pred], list(dsp.default_values.items()))


def _steps(pipe):
    try:
        return Program(pipe).steps
    except NotStraight as exc:
        return ("not straight", exc.args)


def _compiled(parser, text, ctx):
    """What the compile stage's parse gives with ``parser``: (tokens, pipe) as compared
    with ``==`` (graph, inputs, output, name, order, program), or the exception's class."""
    host = "SHEET1!C7"
    np.random.seed(19)  # RANDBETWEEN(1,9) is folded at compile: the same draw both ways
    try:
        tokens, pipe = C._parsed(parser, text[1:], dict(ctx), {}, host, None)
    except lightgraph.Unknown:
        raise
    except Exception as exc:  # the same refusal is part of being the same compile
        return ("raised", type(exc))
    seen: dict = {}
    return ("ok", describe(tokens, seen), describe(_graph(pipe.dsp), seen),
            describe(list(pipe.inputs.items()), seen), describe(pipe.outputs, seen),
            pipe.function_id, pipe_order(pipe), describe(_steps(pipe), seen))


def _differ(items) -> tuple[int, list]:
    """(how many formulas the light path compiled, those it compiled differently)."""
    light, differ = 0, []
    with tokenmemo.remembering():
        for text, ctx in items:
            old = _compiled(FastParser, text, ctx)
            try:
                new = _compiled(C.LightParser, text, ctx)
            except lightgraph.Unknown:
                continue
            light += new[0] == "ok"
            if new != old:
                differ.append(text)
    return light, differ


def test_light_path_is_on_for_this_formulas_and_schedula():
    assert lightgraph.usable()


def test_same_as_the_old_path_on_hand_made_formulas():
    light, differ = _differ([(t, CTX) for t in HAND])
    assert differ == [] and light > len(HAND) // 2


def test_same_as_the_old_path_on_every_template_formula():
    items = workbook_formulas(str(build.TEMPLATE))
    generic = []
    from zvmplan_addin.recalc import shapes
    for text, ctx in items:
        shp = shapes.shape(text[1:], ctx["sheet"], int(ctx["cr"]), ctx["cc"], generic=True)
        if shp is not None and shp.generic:
            generic.append(("=" + shp.generic, ctx))
    light, differ = _differ(items + generic)
    assert differ == [] and light > 0.9 * len(items + generic) > 100


@pytest.mark.skipif(not os.path.isdir(CORPUS), reason="the corpus is not beside the checkout")
def test_same_as_the_old_path_on_the_corpus():
    items = corpus_formulas(every=os.environ.get("ZVMPLAN_FULL_CORPUS") == "1")
    light, differ = _differ(items)
    assert differ == [] and light > 3000


def test_real_pipe_is_the_old_paths(monkeypatch):
    """The light pipe's ``real`` (called when the program is not a straight line, or to
    check it) is formulas' own pipe of the formula: same inputs, same order, same value."""
    from formulas.ranges import Ranges
    tokens, pipe = C._parsed(C.LightParser, "A1*2+B1", dict(CTX), {}, "SHEET1!C7", None)
    assert isinstance(pipe, lightgraph.LightPipe)
    real = pipe.real
    assert list(real.inputs) == list(pipe.inputs) and pipe_order(real) == pipe.order
    args = [Ranges().push(k, [[3 if k.endswith("!A1") else 4]])
            for k in pipe.inputs]
    got = [float(v.ravel()[0]) for v in (pipe(*args), real(*args),
                                         Program(pipe)(*args))]
    assert got == [10.0, 10.0, 10.0]


def test_an_unknown_builder_is_left_to_the_old_path(monkeypatch):
    """A formulas whose builder is not the one compared here: the old path compiles."""
    from formulas.builder import AstBuilder

    def append(self, token, _orig=AstBuilder.append):
        return _orig(self, token)
    monkeypatch.setattr(AstBuilder, "append", append)
    monkeypatch.setattr(lightgraph, "_usable", [])
    assert not lightgraph.usable()
    monkeypatch.setattr(lightgraph, "_usable", [])


def test_a_call_it_does_not_know_refuses():
    rec = lightgraph.Recorder()
    with pytest.raises(lightgraph.Unknown):
        rec.add_function("f", len, None, ["x"])   # no inputs: schedula adds START
    with pytest.raises(lightgraph.Unknown):
        rec.add_data("x", 1, wait_inputs=True)
    rec.add_function("f", len, ["a"], ["x"])
    with pytest.raises(lightgraph.Unknown):
        rec.add_data("f")   # a data node over a function: schedula raises


def test_real_pipe_holds_what_was_put_in_after_compiling():
    """What the compile stage puts into the compiled graph afterwards (a legacy cell's
    INDEX cut to its one cell, :func:`~zvmplan_addin.recalc.legacy.cut_results`) is in
    formulas' own pipe too, when it is made from the light one."""
    from formulas.ranges import Ranges
    _, pipe = C._parsed(C.LightParser, "A1*2", dict(CTX), {}, "SHEET1!C7", None)
    (star,) = [k for k, a in pipe.dsp.nodes.items() if a["type"] == "function"]
    pipe.dsp.nodes[star]["function"] = lambda *args: 42
    args = [Ranges().push(k, [[3]]) for k in pipe.inputs]
    assert int(pipe.real(*args)) == 42

"""The order of a compiled formula's nodes read off its graph
(:func:`~zvmplan_addin.recalc.pipeorder.straight_order`) is the order the
``schedula.DispatchPipe`` the same arguments build runs them in: on every formula shape
of the template and one formula per skeleton of the corpus (when it is beside the
checkout), on graphs made here to pin each rule of the search, and a graph it does not
know gets None (the ``Solution`` run decides)."""
from __future__ import annotations

import os

import pytest
import schedula as sh

from parsecompare import CORPUS, corpus_formulas, workbook_formulas
from zvmplan_addin.recalc import program
from zvmplan_addin.recalc.fastparse import FastParser
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.pipeorder import straight_order
from zvmplan_addin.recalc.program import DeferredPipe, pipe_order
from zvmplan_workbook import build

STRAIGHT = {"wildcard": False, "shrink": False}   # what formulas' builder passes


@pytest.fixture(scope="module", autouse=True)
def functions():
    install_functions()


def _compare(items, monkeypatch) -> tuple[int, list]:
    """(how many formulas were ordered by the graph search, the formulas whose order
    differs from the real pipe's)."""
    used = []

    def spy(*args):
        got = straight_order(*args)
        used.append(got is not None)
        return got
    monkeypatch.setattr(program, "straight_order", spy)
    differ = []
    for text, context in items:
        try:
            _, builder = FastParser(True).ast(text, context=dict(context))
        except Exception:  # refused by formulas: nothing to order
            continue
        builder.compile_class = DeferredPipe
        pipe = builder.compile(context=dict(context))
        if pipe.order != pipe_order(pipe.real):
            differ.append(text)
    return sum(used), differ


def test_same_order_as_the_pipe_on_every_template_formula(monkeypatch):
    items = workbook_formulas(str(build.TEMPLATE))
    ordered, differ = _compare(items, monkeypatch)
    assert differ == [] and ordered == len(items) > 100


@pytest.mark.skipif(not os.path.isdir(CORPUS), reason="the corpus is not beside the checkout")
def test_same_order_as_the_pipe_on_the_corpus(monkeypatch):
    items = corpus_formulas(every=os.environ.get("ZVMPLAN_FULL_CORPUS") == "1")
    ordered, differ = _compare(items, monkeypatch)
    assert differ == [] and ordered > 3000


def _graph(edges: list, defaults=(), **data_kw) -> sh.Dispatcher:
    """A dispatcher of function nodes ``(id, inputs, output)`` (each a ``max``)."""
    dsp = sh.Dispatcher(raises=True)
    for k in defaults:
        dsp.add_data(k, default_value=1, **data_kw)
    for fid, inputs, output in edges:
        dsp.add_function(fid, max, inputs, [output])
    return dsp


def _both(dsp, inputs, outputs, **kw):
    kw = {**STRAIGHT, **kw}
    real = pipe_order(sh.DispatchPipe(dsp, "f", inputs, outputs, **kw))
    return straight_order(dsp, inputs, outputs, kw), real


@pytest.mark.parametrize("edges, inputs, outputs", [
    # ties at one distance: data before functions, then by name (z, a, m: a, m, z)
    ([("z", ["x"], "zo"), ("a", ["x"], "ao"), ("m", ["x"], "mo"),
      ("out", ["zo", "ao", "mo"], "o")], ["x"], ["o"]),
    # a function waits for its farthest input; the search stops at the output
    ([("f1", ["a"], "b"), ("f2", ["b"], "c"), ("g", ["a", "c"], "d"),
      ("h", ["a"], "e"), ("k", ["e"], "late")], ["a"], ["d"]),
    # no output named: everything reachable, in order
    ([("f", ["a", "b"], "c"), ("g", ["c"], "d")], ["b", "a"], []),
    # an input not in the graph, a function never fed
    ([("f", ["a"], "c"), ("g", ["c", "never"], "d")], ["a", "zz"], ["c"]),
])
def test_same_order_on_graphs_made_here(edges, inputs, outputs):
    got, want = _both(_graph(edges), inputs, outputs)
    assert got == want and got is not None


def test_defaults_start_the_search_with_the_inputs():
    dsp = _graph([("f", ["a", "k"], "c")], defaults=["k"])
    got, want = _both(dsp, ["a"], ["c"])
    assert got == want == ["a", "k", "f", "c"]


@pytest.mark.parametrize("case", ["two producers", "weight", "wait", "wildcard",
                                  "sub-dispatcher", "produced input", "initial distance"])
def test_a_graph_it_does_not_know_is_left_to_schedula(case):
    edges = [("f", ["a"], "c")]
    kw = dict(STRAIGHT)
    dsp = _graph(edges)
    inputs = ["a"]
    if case == "two producers":
        dsp.add_function("g", max, ["a"], ["c"])
    elif case == "weight":
        dsp.add_function("g", max, ["c"], ["d"], weight=2)
        dsp.dmap.succ["c"]["g"]["weight"] = 2
    elif case == "wait":
        dsp.add_data("c", wait_inputs=True)
    elif case == "wildcard":
        kw["wildcard"] = True
    elif case == "sub-dispatcher":
        dsp.add_dispatcher(_graph([("h", ["x"], "y")]), {"c": "x"}, {"y": "d"})
    elif case == "produced input":
        inputs = ["a", "c"]
    elif case == "initial distance":
        dsp.add_data("k", default_value=1, initial_dist=3)
    assert straight_order(dsp, inputs, ["c"], kw) is None


def test_deferred_pipe_falls_back_to_the_solution_run():
    """A graph the search does not know: the order still comes from schedula's run."""
    dsp = _graph([("f", ["a"], "c"), ("g", ["a"], "c")])
    pipe = DeferredPipe(dsp, "f", ["a"], ["c"], **STRAIGHT)
    assert pipe.order == pipe_order(pipe.real)


def test_another_schedula_is_left_to_schedula(monkeypatch):
    dsp = _graph([("f", ["a"], "c")])
    assert straight_order(dsp, ["a"], ["c"], STRAIGHT) == ["a", "f", "c"]
    monkeypatch.setattr(sh, "__version__", "9.0.0")
    assert straight_order(dsp, ["a"], ["c"], STRAIGHT) is None

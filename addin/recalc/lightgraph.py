"""formulas' compile without schedula's ``Dispatcher`` where it is not needed (issue 19).

formulas' ``AstBuilder`` builds each formula as a schedula ``Dispatcher`` -- one
``add_data`` per operand, one ``add_function`` per operator and function -- and its
``compile`` runs that dispatcher once with the formula's references (folding what the
constants alone give), cuts the graph back from the output to what was not folded
(``get_sub_dsp_from_workflow``), and hands it to a ``DispatchPipe``. The compile stage
reads from that only the graph's nodes, edges and default values and the order the pipe
runs them in (:class:`~.program.Program`, :class:`~.program.DeferredPipe`). schedula's
checks and bookkeeping for features formulas' graphs do not use (~5,000 ``add_data`` /
``add_function`` calls, two ``Dispatcher`` and a ``Solution`` a formula for the
template's 150) were about a sixth of the template's compile stage.

:class:`LightBuilder` is formulas' ``AstBuilder`` given a :class:`Recorder` in place of
the ``Dispatcher``: it keeps the same node dicts, edges (in the same order) and default
values that schedula's ``add_data``/``add_function`` make, for the calls formulas'
builder makes, and refuses (:class:`Unknown`) any other. Its :meth:`LightBuilder.compile`
does what ``AstBuilder.compile`` does, for the graphs of that kind: the dispatch (every
function whose inputs all have a value is called; its result, unless ``NONE``, is its
output's value), the cut back from the output (breadth first, each node's predecessors in
``str`` order, stopping at the folded nodes), the inputs (sorted, as formulas makes them)
and the folded defaults, and the order of :func:`~.pipeorder.graph_order`. What it hands
back is a :class:`LightPipe`: a :class:`~.program.DeferredPipe` whose graph is that cut
and whose ``real`` pipe is formulas' own, made by the old path on first need (a
formula whose program is not a straight line, ``ZVMPLAN_ENGINE_CHECK``, ``--pipe``).

It refuses (and the caller compiles the formula the old way, from the start) on anything
it does not know: a formulas or schedula release other than the ones it was compared
with, a builder or graph helper whose code is not theirs (by a digest of the bytecode:
another Python minor release takes the old path until the digest is renewed),
a formula that parses formulas of its own (LET, LAMBDA), a node or argument schedula would
treat differently (a function with no inputs, a data node given twice by two functions,
a default ``NONE``), any exception while folding (schedula logs or raises it: the old
path does again), a folded call that left a reason for the cell (the old path leaves
it, in its order), a graph :func:`~.pipeorder.graph_order` does not know.
``tests/test_lightgraph.py`` compares the two on every template formula and one corpus
formula per shape (graph, default values, inputs, output, order, program steps)."""
from __future__ import annotations

import collections
import hashlib

import formulas
import schedula as sh
from formulas import builder as _fbuilder
from formulas.builder import AstBuilder
from formulas.errors import AnchorRangeName, InvalidRangeName
from formulas.functions import COMPILING
from formulas.ranges import Ranges
from schedula import dispatcher as _sdisp
from schedula.utils import cst as _cst
from schedula.utils import dsp as _sdsp
from schedula.utils import utl as _sutl
from schedula.utils.blue import Blueprint

from . import parsecost, runlog
from .pipeorder import graph_order
from .program import DeferredPipe

# the releases and builder code this module was compared with (tests/test_lightgraph.py)
KNOWN_FORMULAS = frozenset({"1.3.4"})
KNOWN_SCHEDULA = frozenset({"1.6.15"})
_FUNCTION_KW = frozenset({"extra_inputs", "solve_cycle"})  # keys of formulas' function dicts
_DATA_KEYS = frozenset({"type", "wait_inputs", "index"})
_SPECIAL = frozenset(map(id, (_cst.START, _cst.SINK, _cst.SELF, _cst.PLOT)))  # by identity


class Unknown(Exception):
    """A call or graph this module does not know: the caller uses formulas' own path."""


def _code_key(code) -> bytes:
    """A function's code, its names and constants (nested code by the same rule, a set
    sorted), without its file and line numbers."""
    parts = [code.co_code, repr((code.co_names, code.co_varnames)).encode()]
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            parts.append(_code_key(c))
        elif isinstance(c, frozenset):
            parts.append(repr(sorted(map(repr, c))).encode())
        else:
            parts.append(repr(c).encode())
    return b"\0".join(parts)


def _digest() -> str:
    """A digest of the code of formulas' builder and the schedula helpers it calls."""
    h = hashlib.sha256()
    for fn in (AstBuilder.__init__, AstBuilder.append, AstBuilder.get_node_id,
               AstBuilder.finish, AstBuilder.compile, _sutl.get_unused_node_id,
               sh.Dispatcher.add_data, sh.Dispatcher.add_function,
               sh.Dispatcher.set_default_value, sh.Dispatcher.get_sub_dsp_from_workflow):
        h.update(_code_key(fn.__code__))
    return h.hexdigest()


KNOWN_DIGEST = "49af3c6080a6c8b414efb2a265dc3d653f982d818043f905fc912e19307ec919"
_usable: list = []


def usable() -> bool:
    """Are formulas, schedula and formulas' builder the ones this module was written
    for, the builder naming nodes with schedula's ``get_unused_node_id`` or
    :func:`~.parsecost.unused_node_id` (the same names), and schedula's ``add_function``
    with its own (checked once a process)?"""
    if not _usable:
        try:
            ok = (formulas.__version__ in KNOWN_FORMULAS and sh.__version__ in KNOWN_SCHEDULA
                  and _digest() == KNOWN_DIGEST and
                  _sdisp.get_unused_node_id is _sutl.get_unused_node_id and
                  _fbuilder.get_unused_node_id in (_sutl.get_unused_node_id,
                                                   parsecost.unused_node_id))
        except Exception:  # noqa: BLE001 -- anything unexpected: formulas' own path
            ok = False
        _usable.append(ok)
    return _usable[0]


class _Graph:
    """The part of schedula's ``DiGraph`` the builder and the compile stage read."""
    __slots__ = ("nodes", "succ", "pred")

    def __init__(self):
        self.nodes, self.succ, self.pred = {}, {}, {}


class Recorder:
    """Stands in for schedula's ``Dispatcher`` in formulas' ``AstBuilder``: the same
    node dicts, edges and default values for the calls the builder makes
    (``add_data(id)``, ``add_data(id, value)``, ``add_function(...)`` with inputs and
    outputs), :class:`Unknown` for any other."""

    def __init__(self):
        self.dmap = _Graph()
        self.nodes = self.dmap.nodes
        self.default_values: dict = {}
        self._count = 0

    @property
    def data_nodes(self) -> dict:
        return {k: v for k, v in self.nodes.items() if v["type"] == "data"}

    def _index(self) -> tuple:
        self._count += 1
        return (self._count - 1,)

    def add_data(self, data_id=None, default_value=sh.EMPTY, **kw):
        if kw or not isinstance(data_id, str) or id(data_id) in _SPECIAL or \
                default_value is sh.NONE:
            raise Unknown("add_data")
        attr = {"type": "data", "wait_inputs": False, "index": self._index()}
        g = self.dmap
        got = g.nodes.get(data_id)
        if got is None:
            g.succ[data_id], g.pred[data_id] = {}, {}
            g.nodes[data_id] = attr
        elif got["type"] != "data":
            raise Unknown("data over a function")
        else:
            got.update(attr)
        if default_value is sh.EMPTY:
            self.default_values.pop(data_id, None)
        else:
            self.default_values[data_id] = {"value": default_value, "initial_dist": 0.0}
        return data_id

    def add_function(self, function_id=None, function=None, inputs=None, outputs=None,
                     **kw):
        if inputs is None or outputs is None or set(kw) - _FUNCTION_KW or \
                isinstance(function, Blueprint) or not callable(function):
            raise Unknown("add_function")
        attr = {"type": "function", "inputs": inputs, "outputs": outputs,
                "function": function, "wait_inputs": True, "index": self._index()}
        if function_id is None:
            function_id = getattr(_sdsp.parent_func(function), "__name__", None)
            if not isinstance(function_id, str):
                raise Unknown("function name")
        g = self.dmap
        fun_id = _sdisp.get_unused_node_id(g, initial_guess=function_id)  # as schedula's
        attr.update(kw)
        g.nodes[fun_id] = attr
        g.succ[fun_id], g.pred[fun_id] = {}, {}
        nodes, succ, pred = g.nodes, g.succ, g.pred
        # schedula's add_func_edges: a data node made for a new id, the edges in order
        for a, b, data in [(u, fun_id, u) for u in inputs] + [(fun_id, u, u) for u in outputs]:
            got = nodes.get(data)
            if got is None:
                self.add_data(data_id=data)
            elif got["type"] != "data":
                raise Unknown("edge to a function")
            edge = succ[a].get(b)
            if edge is None:
                edge = {}
            succ[a][b] = pred[b][a] = edge
        return fun_id


class LightGraph:
    """The compiled formula's graph: ``nodes``, ``dmap`` (``succ``, ``pred``) and
    ``default_values``, as the sub-dispatcher formulas compiles has them."""
    __slots__ = ("dmap", "nodes", "default_values")

    def __init__(self):
        self.dmap = _Graph()
        self.nodes = self.dmap.nodes
        self.default_values: dict = {}

    @property
    def data_nodes(self) -> dict:
        return {k: v for k, v in self.nodes.items() if v["type"] == "data"}


class LightPipe(DeferredPipe):
    """A :class:`~.program.DeferredPipe` over a :class:`LightGraph`: ``real`` (and a
    call) is formulas' own pipe for the same formula, made by ``rebuild(self)`` at first
    need (holding the functions this graph holds by then)."""

    def __init__(self, graph: LightGraph, function_id, inputs, outputs, rebuild):
        self.dsp, self.function_id, self.inputs, self.outputs = \
            graph, function_id, inputs, outputs
        self._kw = {"wildcard": False, "shrink": False}
        self._real = None
        self._rebuild = rebuild
        order = graph_order(graph.nodes, graph.dmap.succ, graph.dmap.pred,
                            graph.default_values, inputs, outputs)
        if order is None:
            raise Unknown("order")
        self.order = order

    @property
    def real(self):
        if self._real is None:
            self._real = self._rebuild(self)
        return self._real


class LightBuilder(AstBuilder):
    """formulas' ``AstBuilder`` recording into a :class:`Recorder`; :meth:`compile` as
    formulas' for the graphs the recorder knows. ``rebuild``: set by the caller before
    compiling -- given the :class:`LightPipe`, makes formulas' own pipe of the same
    formula."""

    rebuild = None

    def __init__(self, dsp=None, nodes=None, match=None):
        if dsp is not None:
            raise Unknown("a dispatcher given")
        super().__init__(dsp=Recorder(), nodes=nodes, match=match)

    def compile(self, references=None, context=None, **inputs):
        if inputs:
            raise Unknown("inputs")
        rec = self.dsp
        nodes = rec.nodes
        inp = {}
        for k, ref in (references or {}).items():
            got = nodes.get(k)
            if got is not None and got["type"] == "data":
                if isinstance(ref, Ranges):
                    inp[k] = ref
                elif ref is not None:
                    inp[k] = Ranges().push(ref)
        inp[COMPILING] = True
        res = _fold(rec, inp)
        o = self.get_node_id(self[-1])
        graph = _cut(rec, o, res)
        res[COMPILING] = False
        g_nodes, pred = graph.nodes, graph.dmap.pred
        for k, v in list(g_nodes.items()):
            g_nodes[k] = v.copy()
        i = collections.OrderedDict()
        count = 0
        for k in sorted(k for k, v in g_nodes.items() if v["type"] == "data"):
            if pred[k]:
                continue
            if k in res:
                v = res[k]
                if isinstance(v, Ranges) and v.ranges:
                    i[k] = v
                else:  # Dispatcher.add_data on an existing data node of the cut
                    g_nodes[k].update({"type": "data", "wait_inputs": False,
                                       "index": (count,)})
                    count += 1
                    graph.default_values[k] = {"value": v, "initial_dist": 0.0}
            else:
                try:
                    i[k] = Ranges().push(k, context=context)
                except AnchorRangeName:
                    i[k] = sh.NONE
                except InvalidRangeName:
                    i[k] = None
        g_nodes[o]["filters"] = _fbuilder._default_filter()
        func_id = o if "error" in self.match else "=%s" % o
        return LightPipe(graph, func_id, i, [o], self.rebuild)


def _fold(rec: Recorder, inp: dict) -> dict:
    """The values schedula's dispatch of ``rec``'s graph with inputs ``inp`` gives (no
    outputs asked: everything reachable): each function called once all its inputs have
    values, in the order it was added (each one's inputs are added before it), its
    output given its result unless ``NONE``. :class:`Unknown` for a graph where the
    order or a producer could matter, or when a call raises or leaves a reason."""
    nodes, pred = rec.nodes, rec.dmap.pred
    values = {}
    for k, attr in rec.default_values.items():
        values[k] = attr["value"]
    for k, v in inp.items():
        if k in nodes:
            values[k] = v
    for k, v in values.items():
        if v is sh.NONE or pred[k]:
            raise Unknown("input or default with a producer")
    functions = []
    for k, attr in nodes.items():
        if attr["type"] == "data":
            if attr.keys() - _DATA_KEYS or len(pred[k]) > 1:
                raise Unknown("data node")
        elif len(attr["outputs"]) != 1:
            raise Unknown("outputs")
        else:
            functions.append(attr)
    reasons = runlog._ACTIVE.get()
    cell = reasons.cell if reasons is not None else None
    had = cell is None or cell in reasons.log
    try:
        for attr in functions:
            args = attr["inputs"]
            if all(k in values for k in args):
                result = attr["function"](*[values[k] for k in args])
                if result is not sh.NONE:
                    values[attr["outputs"][0]] = result
    except Exception as exc:  # schedula logs or raises it: the old path does again
        raise Unknown("folding raised") from exc
    finally:
        if not had and cell in reasons.log:
            del reasons.log[cell]
            raise Unknown("a reason left while folding")
    return values


def _cut(rec: Recorder, o, blockers: dict) -> LightGraph:
    """``get_sub_dsp_from_workflow([o], graph=dmap, reverse=True, blockers=...,
    wildcard=False)`` of schedula: breadth first back from ``o``, each node's
    predecessors in ``str`` order, a node in ``blockers`` taken without its
    predecessors; the edges (and default values) of the nodes taken."""
    graph = LightGraph()
    nodes, dflt = graph.nodes, graph.default_values
    s_succ, s_pred = graph.dmap.succ, graph.dmap.pred
    r_nodes, r_pred, r_dflt = rec.nodes, rec.dmap.pred, rec.default_values
    family = {}   # node taken -> the predecessors to take after it
    queue = [o] if o in r_nodes else []
    for n in queue:
        nodes[n] = r_nodes[n]
        s_pred[n], s_succ[n] = {}, {}
        if n in r_dflt:
            dflt[n] = r_dflt[n]
        family[n] = () if n in blockers else r_pred[n]
    at = 0
    while at < len(queue):   # breadth first: the queue read in order as it grows
        parent = queue[at]
        at += 1
        nbrs, r_nbrs, before = s_pred[parent], r_pred[parent], family[parent]
        for child in (sorted(before, key=str) if len(before) > 1 else before):
            if child == _cst.START:
                raise Unknown("start")
            if child not in family:
                nodes[child] = r_nodes[child]
                s_pred[child], s_succ[child] = {}, {}
                if child in r_dflt:
                    dflt[child] = r_dflt[child]
                family[child] = () if child in blockers else r_pred[child]
                queue.append(child)
            nbrs[child] = s_succ[child][parent] = r_nbrs[child]
    return graph

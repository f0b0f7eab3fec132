"""The order in which schedula runs the nodes of formulas' compiled graph, read off the
graph itself (issue 19).

:class:`~.program.DeferredPipe` needs the order a ``schedula.DispatchPipe`` would run
its graph's nodes in. Schedula finds it by running its dispatch algorithm once with no
calls (a ``Solution`` with ``no_call``): a shortest-path search from the inputs, where
each node is reached one edge further than the node that lets it be reached (every
edge 1 long when neither edges nor nodes carry a ``weight``), a function node only once
all its inputs are reached (its ``wait_inputs``), the nearest reached node visited
next, ties going to a data node before a function node, then to the smaller
``str(node id)``, then to the smaller node ``index``; the search stops once the output
is visited. That run costs about 0.5 ms a formula, half of it schedula's bookkeeping
for features formulas' graphs do not use.

:func:`straight_order` makes the same search over the graph's own dicts for the graphs
formulas builds for ordinary formulas: only data and function nodes, no weights, data
nodes that do not wait for their inputs and function nodes that do, at most one
producer for a data node and none for an input or a node with a default value, node
ids that are strings, each with a spelling of its own (``str``), default distances of 0, no wildcard and no
shrinking; and a schedula release it was compared with (:data:`KNOWN_SCHEDULA`). For
anything else it gives None, and the caller asks schedula (the ``Solution`` run). ``tests/test_pipeorder.py`` compares its order with the one a real
``DispatchPipe`` runs on every formula of the template and of a sample of the corpus;
with ``ZVMPLAN_ENGINE_CHECK=1`` the engine compares them for each compiled formula it
runs (:meth:`~.program.Template.run`).
"""
from __future__ import annotations

from heapq import heappop, heappush

import schedula as sh
from schedula.utils.sol import Solution

# the schedula releases whose search this one was compared with (tests/test_pipeorder.py)
KNOWN_SCHEDULA = frozenset({"1.6.15"})
_DATA_KEYS = frozenset({"type", "wait_inputs", "index", "filters"})
_FUNCTION_KEYS = frozenset({"type", "inputs", "outputs", "function", "wait_inputs", "index",
                            "solve_cycle", "extra_inputs"})


def straight_order(dsp, inputs, outputs, kw: dict) -> list | None:
    """The ids of ``dsp``'s nodes in the order a ``schedula.DispatchPipe(dsp, ...,
    inputs, outputs, **kw)`` runs them (the module docstring), or None when the graph or
    the arguments are not of the kind this search knows."""
    if sh.__version__ not in KNOWN_SCHEDULA or set(kw) - {"wildcard", "shrink"} or kw.get("wildcard", True) is not False or \
            kw.get("shrink", False) is not False:
        return None
    if not isinstance(dsp, sh.Dispatcher) or type(dsp.solution) is not Solution or \
            dsp._edge_length is not sh.Dispatcher._edge_length:
        return None
    return graph_order(dsp.nodes, dsp.dmap.succ, dsp.dmap.pred, dsp.default_values,
                       inputs, outputs)


def graph_order(nodes: dict, succ: dict, pred: dict, defaults: dict, inputs,
                outputs) -> list | None:
    """:func:`straight_order` of a graph given as schedula keeps one (``nodes``: id ->
    attributes; ``succ``, ``pred``: id -> neighbour -> edge attributes; ``defaults``: id
    -> ``{"value", "initial_dist"}``), once the schedula release and the pipe's arguments
    are known to be the kind it reads; None for a graph of another kind."""
    start = list(inputs or ())
    start_set = set(start)
    for k, attr in defaults.items():
        if k not in start_set:
            if attr.get("initial_dist") != 0 or type(attr.get("initial_dist")) not in (int, float):
                return None
            start.append(k)
            start_set.add(k)
    names = set()
    for v, attr in nodes.items():
        if not isinstance(v, str):
            return None
        kind = attr.get("type")
        if kind == "data":
            if attr.keys() - _DATA_KEYS or attr["wait_inputs"] is not False:
                return None
            producers = pred.get(v, ())
            if len(producers) > 1 or (producers and v in start_set):
                return None
        elif kind == "function":
            if attr.keys() - _FUNCTION_KEYS or attr["wait_inputs"] is not True:
                return None
        else:
            return None
        names.add(str(v))
        for e in succ.get(v, {}).values():
            if "weight" in e:
                return None
    if len(names) != len(nodes):   # ties are then broken by the names alone
        return None
    return _search(nodes, succ, pred, start, set(outputs or ()))


def _search(nodes, succ, pred, start, targets) -> list | None:
    """The visiting order of the search described in the module docstring."""
    heap = []   # (distance, 0 data | 1 function, str(id), id)
    for k in start:
        if k in nodes:
            heappush(heap, (0, 0, str(k), k))
    reached: dict = {}          # visited node -> its distance
    queued: dict = {}           # node pushed -> the distance it was pushed with
    fed: dict = {}              # function -> its inputs that have handed it their edge
    order = []
    stop = bool(targets)
    while heap:
        d, _, _, v = heappop(heap)
        if v in reached:
            continue
        order.append(v)
        reached[v] = d
        attr = nodes[v]
        if attr["type"] == "data":
            after = list(succ[v])
            if not after or after[0] in reached:
                nexts = ()
            else:
                nexts = after
                for u in after:
                    fed.setdefault(u, set()).add(v)
        else:
            nexts = [w for w in succ[v] if w not in reached]
            if not nexts:
                continue
        if stop and v in targets:
            targets.discard(v)
            if not targets:
                break
        for w in nexts:
            dw = d + 1
            if nodes[w]["type"] == "function":
                got = fed.get(w, ())
                if not all(k in got for k in pred[w]):
                    continue
                kind = 1
            else:
                kind = 0
            if w in reached:
                if dw < reached[w]:
                    return None  # schedula raises here: let it
                continue
            if w not in queued or dw < queued[w]:
                queued[w] = dw
                heappush(heap, (dw, kind, str(w), w))
    return order

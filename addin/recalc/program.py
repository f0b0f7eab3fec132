"""A compiled formula and how it is run: :class:`Program` runs formulas' compiled
function as the straight line of steps it is; :class:`Template` is one compiled formula
shape with its input plan (which cell reference, range, name or literal feeds each input).
"""
from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass
from typing import Any

import schedula as sh
from formulas.cell import CELL
from formulas.functions import COMPILING
from formulas.ranges import Ranges

from ..prefixes import spellings
from .pipeorder import straight_order
from .values import XL, same

# kinds of input in a Template's plan; HOST: the formula's own cell (ROW(), INDIRECT)
REF, CONST, NAME, RAW, LIT, UNION, HOST = range(7)
COPY_SUFFIX = re.compile(r"<[0-9]+>$")  # schedula's suffix on a second node of one function


# functions whose every call gives another value, also those formulas does not mark as
# such (RANDBETWEEN): never computed once for the cells of a column
VOLATILE = frozenset(spelled for name in ("RAND", "RANDBETWEEN", "RANDARRAY", "NOW", "TODAY")
                     for spelled in spellings(name, builtin=True))


class NotStraight(Exception):
    pass


class CompilingHost(Ranges):
    """The formula's own cell as the compile stage hands it to formulas: a function
    that reads it (formulas' ``CELL`` input: ROW(), COLUMN(), INDIRECT, ``@``) gives
    no value while compiling (:func:`host_as_input`), so nothing depending on the
    position is folded into the compiled formula, and the cell stays one of its inputs
    -- each cell brings its own (:data:`HOST`), and one compiled formula serves every
    cell of a shape."""
    __slots__ = ()


def host_as_input(table: dict) -> None:
    """Make each function of formulas' ``table`` that reads the formula's own cell give
    no value (``sh.NONE``, as formulas' impure functions do while compiling) when the
    cell is the compile stage's :class:`CompilingHost`; idempotent."""
    for name, entry in list(table.items()):
        if not isinstance(entry, dict) or CELL not in entry.get("extra_inputs", {}):
            continue
        func = entry["function"]
        if getattr(func, "_zvm_host", False):
            continue
        at = list(entry["extra_inputs"]).index(CELL)

        def call(*args, _func=func, _at=at):
            if isinstance(args[_at], CompilingHost):
                return sh.NONE
            return _func(*args)
        functools.update_wrapper(call, func)  # its marks (_zvm_finite ...) kept
        call._zvm_host = True
        table[name] = {**entry, "function": call}


class DeferredPipe:
    """formulas' compiled function (a ``schedula.DispatchPipe``), built only if it is
    called: :class:`Program` runs most formulas and needs only the pipe's graph and the
    order in which schedula would run its nodes (:attr:`order`), which one run of
    schedula's own :class:`~schedula.utils.sol.Solution` gives -- the ``DispatchPipe``
    constructor makes that same run twice more and wraps it for calling (half of a
    formula's compile). Given to formulas' ``AstBuilder`` as its ``compile_class``, it
    takes the very arguments ``DispatchPipe`` takes; :attr:`real` is the pipe those
    arguments make, with its :attr:`order` (``tests/test_deferred_pipe.py`` compares
    them)."""

    def __init__(self, dsp, function_id=None, inputs=None, outputs=None, **kw):
        self.dsp, self.function_id, self.inputs, self.outputs = \
            dsp, function_id, inputs, outputs
        self._kw = kw
        self._real = None
        missed = [k for k in outputs or () if k not in dsp.nodes]
        if missed:  # what the DispatchPipe constructor raises, raised as early
            raise ValueError(f"unreachable output-targets: {missed}")
        order = straight_order(dsp, inputs, outputs, kw)
        if order is not None:
            self.order = order
            return
        try:
            self.order = self._order()
        except (TypeError, AttributeError, KeyError, IndexError):
            # schedula's internals read by _order (its Solution's arguments, _run,
            # _pipe; schedula>=1.5 is allowed) are not as this version has them: the
            # order read off the DispatchPipe itself, built now
            self.order = pipe_order(self.real)

    def _order(self) -> list:
        """The node ids in the order the ``DispatchPipe`` would run them: its solution,
        made as its constructor makes it (no outputs computed) and run once."""
        dsp = self.dsp
        dsp.name = self.function_id or dsp.name or "fun"  # as the DispatchPipe names it
        sol = dsp.solution.__class__(dsp, dict.fromkeys(self.inputs or (), None),
                                     self.outputs, self._kw.get("wildcard", True), None,
                                     self._kw.get("inputs_dist"), False, False)
        sol.no_call = True
        sol._init_workflow()
        sol._run()
        steps = sol._pipe  # (..., (node, solution)) per node run, in order
        if all(step[-1][1] is sol and "solution" not in sol.workflow.nodes.get(step[-1][0], {})
               for step in steps):  # no sub-dispatch: the full pipe is these, in this order
            return [step[-1][0] for step in steps]
        return [entry["task"][-1][0] for entry in sol.pipe.values()]

    @property
    def real(self):
        """The ``schedula.DispatchPipe`` itself, built at the first need."""
        if self._real is None:
            self._real = sh.DispatchPipe(self.dsp, self.function_id, self.inputs,
                                         self.outputs, **self._kw)
        return self._real

    def __call__(self, *args):
        return self.real(*args)


def pipe_order(pipe) -> list:
    """The node ids of formulas' compiled ``pipe`` (a :class:`DeferredPipe` or a
    ``DispatchPipe``) in the order it runs them."""
    if isinstance(pipe, DeferredPipe):
        return pipe.order
    return [x[-1][0] for x, _, _ in pipe.pipe]


MISSING = object()
_FN_KEYS = {"type", "function", "inputs", "outputs", "wait_inputs", "index", "solve_cycle",
            "extra_inputs"}
_DATA_KEYS = {"type", "wait_inputs", "index", "filters"}


class Program:
    """formulas' compiled function, run as the straight line it is.

    A compiled formula is a ``schedula.DispatchPipe``: data nodes (inputs, constants,
    intermediate results) and function nodes (formulas' own operator and function
    implementations) in an execution order fixed at compile time (``pipe.pipe``). For a
    graph made only of plain nodes -- one producer per data node, no domains or
    sub-dispatchers, which is what formulas builds for ordinary formulas -- this runs the
    same functions in the same order, without schedula's per-call bookkeeping (~0.1 ms
    a cell). Anything else raises :class:`NotStraight` and the pipe is used. With
    ``ZVMPLAN_ENGINE_CHECK=1`` each template's first cell is evaluated both ways and
    the pipe is kept if they disagree (the test suite runs this way too).

    Parts of the formula that read only inputs shared by every cell of the template
    (absolute references, names, constants) give the same value in every cell -- the
    ``SUM(F$2:F$10001)`` of ``=F2/SUM(F$2:F$10001)`` -- and are computed once per pass
    (:meth:`share`); impure functions (RAND, RANDBETWEEN, NOW, ...) never are."""

    def __init__(self, pipe):
        dsp = pipe.dsp
        self.inputs = tuple(pipe.inputs)
        self.output = pipe.outputs[0]
        self.shared: set = set()     # function outputs equal in every cell
        self.cache: dict = {}
        self.impure: set = set()     # never shared: volatile, or formulas' COMPILING flag
        self.volatile: set = set()   # another value at each call: one call per cell
        self.names: dict = {}        # function output -> the function's name (IF, +, ...)
        self.last_sum = None         # (op, inputs) of a last + or - (excel.numbers.near_zero)
        defaults, pred = dsp.default_values, dsp.dmap.pred
        steps = []
        for v in pipe_order(pipe):
            node = dsp.nodes[v]
            if node["type"] == "data":
                if set(node) - _DATA_KEYS or len(pred.get(v, ())) > 1:
                    raise NotStraight(v)
                default = MISSING
                if v in defaults and v not in self.inputs:
                    if pred.get(v):
                        raise NotStraight(v)
                    default = defaults[v]["value"]
                steps.append((False, v, default, tuple(node.get("filters", ()))))
            elif node["type"] == "function":
                if set(node) - _FN_KEYS or len(node["outputs"]) != 1:
                    raise NotStraight(v)
                steps.append((True, node["outputs"][0], node["function"], tuple(node["inputs"])))
                op = getattr(node["function"], "_zvm_near_zero", None)
                if op is not None and node["outputs"][0] == self.output:
                    self.last_sum = (op, tuple(node["inputs"]))
                self.names[node["outputs"][0]] = COPY_SUFFIX.sub("", v) if isinstance(v, str) else v
                if self.names[node["outputs"][0]] in VOLATILE:
                    self.volatile.add(node["outputs"][0])
                    self.impure.add(node["outputs"][0])
                elif COMPILING in node.get("extra_inputs", {}) or \
                        getattr(node["function"], "_zvm_per_cell", False):
                    self.impure.add(node["outputs"][0])
            else:
                raise NotStraight(v)
        self.steps = steps

    def share(self, invariant_inputs) -> None:
        """Mark what depends only on ``invariant_inputs`` (and constants)."""
        fixed = set(invariant_inputs)
        self.shared = set()
        for is_function, v, a, b in self.steps:
            if is_function:
                if v not in self.impure and all(k in fixed for k in b):
                    fixed.add(v)
                    self.shared.add(v)
            elif v not in self.inputs and (a is not MISSING or v in fixed):
                fixed.add(v)
        self.cache = {}

    def __call__(self, *args):
        values = dict(zip(self.inputs, args))
        shared, cache = self.shared, self.cache
        for is_function, v, a, b in self.steps:
            if is_function:
                if v in shared and v in cache:
                    values[v] = cache[v]
                    continue
                result = a(*[values[k] for k in b])
                if result is sh.NONE:
                    raise NotStraight(v)
                values[v] = result
                if v in shared:
                    cache[v] = result
            else:
                value = values.get(v, a)
                if value is MISSING:
                    raise NotStraight(v)
                for flt in b:
                    value = flt(value)
                values[v] = value
        return values[self.output]


@dataclass
class Template:
    pipe: Any                        # formulas' compiled function
    plan: list                       # per input: (REF, j) | (CONST, rect) | (NAME, node) | (RAW, v)
    #                                  | (LIT, k) | (UNION, rects) | (HOST, None)
    dups: list                       # (j, j0): text references that must resolve alike
    shareable: bool
    unsupported: set
    program: Any = None              # the same, as a straight line (None: use the pipe)
    checked: bool = False            # program and pipe compared on a first cell
    literals: bool = False           # compiled with literals as inputs (a generic shape)
    exact_only: bool = False         # ... which disagreed with the formula as written
    geometry: frozenset = frozenset()  # plan positions read only by ROW, COLUMN, ... (no value)
    intersect: frozenset = frozenset()  # plan positions a legacy formula reads intersected
    unknown: Any = None              # plan position -> a function not known to .legacy reading it
    spills: bool = False             # calls a zvmplan function: a plain formula's array spills
    cuts: bool = False               # a legacy cell cuts INDEX/OFFSET/INDIRECT's reference
    dynamic: bool = False            # calls OFFSET or INDIRECT: references made as it runs
    columnar: bool = True            # may run as a column: reads no position (ROW, OFFSET, ...)

    def accepts(self, rects) -> bool:
        """Do the references ``dups`` pairs up resolve alike in ``rects`` (one cell's)?
        Compared as two tuples picked by ``itemgetter``: this runs once per cell."""
        if not self.dups:
            return True
        pick = self.__dict__.get("_dup_pick")
        if pick is None:
            firsts, seconds = zip(*self.dups)
            pick = self.__dict__["_dup_pick"] = (operator.itemgetter(*firsts, *firsts[:1]),
                                                 operator.itemgetter(*seconds, *seconds[:1]))
        return pick[0](rects) == pick[1](rects)

    def inputs_read(self) -> tuple:
        """(slots of the cell's references whose values it reads, rectangles it reads in
        every cell, the defined-name nodes it reads); a reference that only ROW, COLUMN,
        ROWS, COLUMNS, ISREF, ... read (:attr:`geometry`) is none of them."""
        got = self.__dict__.get("_read")
        if got is None:
            refs, fixed, names = [], [], []
            for k, (kind, x) in enumerate(self.plan):
                if k in self.geometry:  # ROW(A2): where A2 is, not its value
                    continue
                if kind == REF:
                    refs.append(x)
                elif kind == CONST:
                    fixed.append(x)
                elif kind == UNION:
                    fixed.extend(x)
                elif kind == NAME:
                    names.append(x)
            got = self.__dict__["_read"] = (tuple(refs), tuple(fixed), tuple(names))
        return got

    def run(self, args):
        if self.program is None:
            return call_pipe(self.pipe, args)
        if self.checked:
            try:
                return call_program(self.program, args)
            except NotStraight:
                return call_pipe(self.pipe, args)
        self.checked = True
        expected = call_pipe(self.pipe, args)
        try:
            got = call_program(self.program, args)
        except NotStraight:
            got = MISSING
        if not same(expected, got) or isinstance(self.pipe, DeferredPipe) and \
                self.pipe.order != pipe_order(self.pipe.real):
            self.program = None
        return expected


def call_pipe(pipe, args):
    try:
        return pipe(*args)
    except sh.DispatcherError as exc:
        return XL["#NAME?"] if isinstance(getattr(exc, "ex", None), NotImplementedError) \
            else XL["#VALUE!"]
    except NotImplementedError:
        return XL["#NAME?"]
    except Exception:  # formulas failed on this input: the cell shows #VALUE!
        return XL["#VALUE!"]


def call_program(program, args):
    try:
        return program(*args)
    except NotStraight:
        raise
    except NotImplementedError:
        return XL["#NAME?"]
    except Exception:
        return XL["#VALUE!"]

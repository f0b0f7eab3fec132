"""Stage 2, shape and compile: :func:`compile_nodes` (:class:`~.read.Nodes` ->
:class:`Compiled`) gives each node's formula a :class:`~.program.Template`, shared by
every node with the same shape (:mod:`.shapes`), so a column of one formula compiles
once; :class:`FormulaCompiler` compiles one formula. A formula whose literals are
generic (``ZVMLIT_<k>_``) compiles once for every literal value too."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from formulas.cell import CELL
from formulas.functions import get_functions
from formulas.ranges import Ranges
from formulas.tokens.function import Function as FunctionToken

from ..prefixes import bare_name, spellings
from . import dynamic, filldown, legacy, rangememo, shapes, tokenmemo
from .excel.numbers import mark_last_sum
from .fastparse import FastParser
from .options import Options
from .pernode import PerNode
from .program import (CONST, COPY_SUFFIX, HOST, LIT, NAME, RAW, REF, UNION, CompilingHost,
                      DeferredPipe, NotStraight, Program, Template, host_as_input)
from .read import Nodes
from .runlog import RunLog
from .shapes import rect_of
from .startup import defer_heavy_imports
from .values import XL, quote

defer_heavy_imports()  # before formulas builds its function table (just below)

_UNSEEN = object()
_LITERAL = re.compile(re.escape(shapes.LITERAL_PREFIX) + r"([0-9]+)_")
# functions that read the formula's own position or where a reference is, not only
# values: their cells are evaluated one by one, never as a column (whose inputs are values)
NOT_COLUMNAR = frozenset(
    {name for name, f in get_functions().items()
     if isinstance(f, dict) and CELL in f.get("extra_inputs", {})} | {
        spelled for name in ("ROW", "COLUMN", "ROWS", "COLUMNS", "CELL", "INDIRECT", "OFFSET",
                             "ISFORMULA", "FORMULATEXT", "SINGLE", "ANCHORARRAY",
                             "SUBTOTAL", "AGGREGATE")
        for spelled in spellings(name, builtin=True)})
# functions that read where a reference is, never the values in it: ROW(A2) in A2 is not
# circular, and a cell reading only these of a range does not wait for the range
GEOMETRY = frozenset(spelled for name in ("ROW", "COLUMN", "ROWS", "COLUMNS", "ISREF",
                                          "ISFORMULA", "FORMULATEXT")
                     for spelled in spellings(name, builtin=True))


@dataclass(frozen=True, eq=False)
class Compiled:
    """What the compile stage hands the later ones, per node ``i``: ``template[i]`` (shared
    by the nodes of one shape; None only before compiling), ``rects[i]`` (each reference
    of its shape, resolved for the node), ``lits[i]`` (its literals, for a generic shape),
    ``used[i]`` (the rectangles its program reads), ``name_deps[i]`` (the formula-name
    nodes it reads); and ``reads``: how many nodes read each multi-cell rectangle.
    :meth:`released` keeps only the templates, which the write stage reads."""
    template: list
    rects: list
    lits: list
    used: list
    name_deps: list
    reads: dict

    def released(self) -> "Compiled":
        """The templates only: each node's rectangles, literals and inputs read -- a few
        tuples per cell and reference, the largest part of a big plan's memory -- let go
        once the values are computed."""
        return Compiled(self.template, None, None, None, None, None)


def compile_nodes(nodes: Nodes, compiler: "FormulaCompiler", log: RunLog) -> Compiled:
    """Shape and compile every node of ``nodes`` with ``compiler``, in node order, one
    template shared across the cells of a shape. The followers of a formula filled down
    a column (:mod:`.filldown`) are done with their leader, all at once, when the
    leader's template is the one every copy of its shape gets; otherwise they are shaped
    and compiled one by one like any other node. formulas' token attributes and
    reference parts are remembered across its formulas (:mod:`.tokenmemo`,
    :mod:`.rangememo`) and forgotten when it returns."""
    with tokenmemo.remembering(), rangememo.remembering():
        return _compile_nodes(nodes, compiler, log)


def _compile_nodes(nodes: Nodes, compiler: "FormulaCompiler", log: RunLog) -> Compiled:
    n = len(nodes.n_text)
    code = Compiled(template=[None] * n, rects=PerNode(n, (), "rects"), lits=[()] * n,
                    used=PerNode(n, (), "used"), name_deps=[()] * n, reads={})
    shaping = _Shaping(nodes, generic=not compiler.options.exact)
    templates = _Templates(compiler, shaping)
    runs = filldown.find_runs(*nodes.where(), nodes.n_text, nodes.cells,
                              shaping.shaper_of, nodes.fills,
                              compiler.options.check) if shaping.generic else {}
    covered = bytearray(n)  # 1: a run's follower, done with its leader
    flags = np.frombuffer(covered, dtype=np.uint8)
    for run in runs.values():
        flags[run.members] = 1
    taken, retried = [], set()
    beyond_limits, n_text = shapes.beyond_limits, nodes.n_text
    for i in _uncovered(covered):  # once per node that no run covers
        why = beyond_limits(n_text[i])
        if why is not None:  # before any parser sees it
            code.template[i] = compiler.refused(i, why)
            if i in runs:
                flags[runs[i].members] = 0
            continue
        shp = shaping.shape(i)
        if shp is not None:
            code.rects[i], code.lits[i] = shp.rects, shp.literals
        shp, t = templates.of(i, shp)
        code.template[i] = t
        _note_inputs(code, i, t, log)
        run = runs.get(i)
        if run is not None:
            # one by one, each follower would get the first template kept for the shape
            # that accepts it: t, if t is kept, accepts them all and no earlier one any
            earlier = templates.before(shp, t) if shp is not None else None
            if earlier is not None and _take(code, run, t, earlier):
                taken.append(run)
                continue
            flags[run.members] = 0
            if i not in retried and len(run.members) > 1:
                # the leader alone may read differently (``$E$50:$E50`` in row 50 is
                # the cell ``$E50``): the next cell leads the others, once
                rest = filldown.Run(int(run.members[0]), run.members[1:], run.rows[1:],
                                    run.pattern)
                runs[rest.leader] = rest
                retried.add(rest.leader)
                flags[rest.members] = 1
    _share_invariants(code, np.flatnonzero(flags == 0).tolist(), taken)
    return code


def _uncovered(covered: bytearray):
    """The positions of ``covered`` that hold 0, each found by ``bytearray.find`` (in C,
    not a Python step per node) when the one before it has been handled: a run the loop
    gives up on clears its members' flags, and they come next."""
    i = covered.find(0)
    while i >= 0:
        yield i
        i = covered.find(0, i + 1)


class _Shaping:
    """The shape of node ``i`` (:meth:`shape`): generic (its literals as slots, one
    :class:`~.shapes.Shaper` per sheet) unless not ``generic``; None for a defined name
    or a formula :mod:`.shapes` cannot be sure about."""

    def __init__(self, nodes: Nodes, generic: bool):
        self.nodes, self.generic = nodes, generic
        self._shapers: dict = {}

    def shaper_of(self, s) -> shapes.Shaper:
        shaper = self._shapers.get(s)
        if shaper is None:
            shaper = self._shapers[s] = shapes.Shaper(self.nodes.sheet_names[s],
                                                      self.nodes.scopes.get(s, ""))
        return shaper

    def shape(self, i):
        nodes = self.nodes
        if i >= nodes.cells:
            return None
        s, r, c, text = nodes.n_sheet[i], nodes.n_row[i], nodes.n_col[i], nodes.n_text[i]
        if self.generic:
            return self.shaper_of(s)(text, r, c)
        return shapes.shape(text, nodes.sheet_names[s], r, c, scope=nodes.scopes.get(s, ""))

    def with_text(self, i):
        """Node ``i``'s generic shape with its generic text (which a :class:`Shaper`
        leaves out until a cell of the shape is compiled). Node ``i`` is a cell."""
        return self.shaper_of(self.nodes.n_sheet[i]).with_generic(self.nodes.n_text[i])


class _Templates:
    """The templates compiled so far, up to 8 per shape key: several when references
    coincide in some cells (``=F(A1)+$A$1`` in row 1 reads one cell twice, in row 2 two
    cells)."""

    def __init__(self, compiler: "FormulaCompiler", shaping: _Shaping):
        self.compiler, self.shaping = compiler, shaping
        self._cache: dict[str, list[Template]] = {}

    def of(self, i, shp) -> tuple:
        """(the shape, the template) of node ``i``: a known template that accepts its
        references, else a new one compiled (and kept if it can be shared)."""
        if shp is not None:
            for known in self._cache.get(shp.key, ()):
                if known.accepts(shp.rects):
                    return shp, known
        if shp is not None and shp.generic is None and shp.literals:
            shp = self.shaping.with_text(i)
        t = self.compiler.compile(i, shp)
        if shp is not None and t.shareable and len(self._cache.get(shp.key, ())) < 8:
            self._cache.setdefault(shp.key, []).append(t)
        return shp, t

    def before(self, shp, t) -> list | None:
        """The templates kept for ``shp``'s key before ``t``; None if ``t`` is not kept."""
        kept = self._cache.get(shp.key, ())
        for k, known in enumerate(kept):
            if known is t:
                return kept[:k]
        return None


def _note_inputs(code: Compiled, i: int, t: Template, log: RunLog) -> None:
    """What node ``i`` reads with template ``t``: ``code.used[i]``, ``code.name_deps[i]``,
    the count of readers of each multi-cell rectangle, the functions formulas lacks."""
    refs, fixed, names = t.inputs_read()
    if refs:
        rects = code.rects[i]
        used = tuple([rects[x] for x in refs]) + fixed if fixed else \
            tuple([rects[x] for x in refs])
    else:
        used = fixed
    code.used[i], code.name_deps[i] = used, names
    if t.unsupported:
        log.unsupported |= t.unsupported
    reads = code.reads
    for rect in used:
        if rect[1] != rect[3] or rect[2] != rect[4]:
            reads[rect] = reads.get(rect, 0) + 1


def _take(code: Compiled, run: filldown.Run, t: Template, earlier: list) -> bool:
    """Give the followers of ``run`` what the loop of :func:`compile_nodes` gives each
    node -- rects, literals, template, what it reads -- for all of them at once; False
    (nothing given) if ``t`` does not accept them all or a template of ``earlier`` (kept
    for the shape before ``t``) accepts one of them. The rects and what each reads
    stay the run's row arrays (:class:`~.filldown.RunRefs`), held for the followers by
    ``code.rects`` and ``code.used``."""
    ids, n = run.members, len(run.members)
    refs, fixed, names = t.inputs_read()
    block = filldown.RunRefs(run, refs, fixed)
    if not all(block.same(j, j0) for j, j0 in t.dups):  # t.accepts, all at once
        return False
    if any(block.accepted_by_any(u.dups) for u in earlier):
        return False
    reads = code.reads
    for x in refs:
        if run.one_cell(x):
            continue
        if run.pattern.moves[x] is not None:  # each member's own (a range in most rows)
            for one in block.rect_list(x):
                if one[1] != one[3] or one[2] != one[4]:
                    reads[one] = reads.get(one, 0) + 1
        else:
            rect = run.pattern.shape.rects[x]
            reads[rect] = reads.get(rect, 0) + n
    for rect in fixed:
        if rect[1] != rect[3] or rect[2] != rect[4]:
            reads[rect] = reads.get(rect, 0) + n
    code.rects.hold(ids, block)
    code.used.hold(ids, block)
    lits = code.lits[run.leader]
    for values, into in (([lits] * n, code.lits), ([t] * n, code.template),
                         ([names] * n, code.name_deps)):
        _scatter(into, ids, values)
    return True


def _share_invariants(code: Compiled, nodes: list, runs: list):
    """Tell each template's program which inputs are the same in all its cells:
    ``nodes`` one by one, then each run in ``runs`` at once (its literals are its
    leader's; its references differ between its cells where they move)."""
    seen: dict[int, tuple[Template, list, list]] = {}
    for i in nodes:
        t = code.template[i]
        if t is None or t.program is None:
            continue
        entry = seen.get(id(t))
        if entry is None:  # per input: its first value, and whether another differs
            entry = seen[id(t)] = (t, [_UNSEEN] * len(t.plan), [False] * len(t.plan))
        first, varies = entry[1], entry[2]
        for k, (kind, x) in enumerate(t.plan):
            if varies[k]:
                continue
            if k in t.intersect or kind == HOST:  # one per formula cell
                varies[k] = True
                continue
            if kind == REF:
                value = code.rects[i][x]
            elif kind == LIT:
                value = (type(code.lits[i][x]), code.lits[i][x])
            else:
                continue
            if first[k] is _UNSEEN:
                first[k] = value
            elif first[k] != value:
                varies[k] = True
    for run in runs:  # the leader was among ``nodes``: its values are in ``seen``
        entry = seen.get(id(code.template[run.leader]))
        if entry is not None:
            moving = run.varying()
            for k, (kind, x) in enumerate(entry[0].plan):
                if kind == REF and x in moving:
                    entry[2][k] = True
    for t, _, varies in seen.values():
        t.program.share(name for name, v in zip(t.program.inputs, varies) if not v)


class FormulaCompiler:
    """One node's formula compiled by the ``formulas`` package into a
    :class:`~.program.Template` (:meth:`compile`): its references bound to slots,
    defined names resolved, a formula it cannot compile kept with its cached value and
    the reason. Used by :func:`compile_nodes`, and by the evaluate stage for a cell whose
    shape must be compiled as written. ``compiled``: how many compiles so far."""

    def __init__(self, nodes: Nodes, options: Options, log: RunLog):
        self.nodes, self.options, self.log = nodes, options, log
        self.compiled = 0
        host_as_input(get_functions())  # after install_functions put its own in

    def compile(self, i, shp, exact: bool = False) -> Template:
        """Compile node ``i``: from its generic text (literals as inputs) unless ``exact``
        or it has no literals. (What formulas' parser remembers while it compiles is
        forgotten after it, unless :func:`compile_nodes` is under way.)"""
        with tokenmemo.remembering(), rangememo.remembering():
            return self._compile(i, shp, exact)

    def _compile(self, i, shp, exact: bool) -> Template:
        self.compiled += 1
        nodes = self.nodes
        s = nodes.n_sheet[i]
        exact = exact or shp is None or shp.generic is None
        refs = nodes.refs[s] if s is not None and s < len(nodes.refs) else nodes.refs[0]
        reasons = self.log.reasons
        reasons.cell = nodes.n_label[i]  # compiling evaluates constant calls
        try:
            parsed = self._parse(i, nodes.n_text[i] if exact else shp.generic, refs,
                                 None if exact else len(shp.literals))
        except Exception as exc:
            return self._broken(i, exc)
        finally:
            reasons.cell = None
        if parsed is None:  # the generic text is not the formula: compile it as written
            self.compiled -= 1
            return self._compile(i, shp, exact=True)
        tokens, pipe, moved = parsed
        names = {t.name.upper() for t in tokens if isinstance(t, FunctionToken)}
        table = get_functions()
        unsupported = {n for n in names if n not in table and n not in refs}
        shareable = shp is not None and not _range_operators(tokens)
        index = _slot_index(shp)
        plan, private, unknown = self._plan(s, pipe, refs, index, moved, exact)
        cut = legacy.intersected_results(pipe) if names & legacy.REFERENCE_RESULTS \
            else frozenset()
        legacy.cut_results(pipe, cut)  # before the program copies the functions
        dups = [] if shp is None else \
            [(j, index[rect]) for j, rect in enumerate(shp.rects) if index[rect] != j]
        unsupported = unsupported | unknown
        if unsupported:  # (.excel.unknown imports openpyxl: only for such a formula)
            from .excel.unknown import three_d
            text = nodes.n_text[i] if exact else shp.generic
            # a sheet name formulas read as a name: a 3-D reference threed left as written
            unsupported = {f"{n}:..." if three_d(n, text) else n for n in unsupported}
        return Template(pipe, plan, dups, shareable and not private, unsupported,
                        self._program(pipe), checked=not self.options.check,
                        literals=not exact, geometry=_geometry_inputs(pipe),
                        intersect=legacy.intersected_inputs(pipe),
                        unknown=legacy.unknown_readers(pipe),
                        spills=_calls_registry(names), cuts=bool(cut),
                        dynamic=bool(names & dynamic.DYNAMIC) or _colon_operator(tokens),
                        columnar=not (names & NOT_COLUMNAR) and
                        all(kind != HOST for kind, _ in plan))

    def _parse(self, i, text: str, refs: dict, literals: int | None):
        """(tokens, compiled pipe, references moved in from the sheet's edge) of node
        ``i``'s formula ``text``; None when ``literals`` (the number of a generic text's
        placeholders) is given and formulas did not read each as a name of its own.
        Raises what formulas raises for a formula it cannot compile."""
        nodes = self.nodes
        s, r, c = nodes.n_sheet[i], nodes.n_row[i], nodes.n_col[i]
        sheet = nodes.sheet_names[s].upper() if s is not None else ""
        ctx = {"sheet": sheet, "cr": str(r or 1), "cc": c or 1}
        text, moved = shapes.edge_proxies(text, sheet)
        tokens, builder = FastParser(True).ast("=" + text, context=ctx)
        if literals is not None and not _literals_stand_alone(tokens, literals):
            return None
        mark_last_sum(tokens, builder)
        if CELL in builder.dsp.data_nodes:  # ROW(), INDIRECT ...: the cell is an input
            host = CompilingHost(Ranges().push(f"{quote(sheet)}!{shapes.a1(r or 1, c or 1)}")
                                 .ranges)
            refs = {**refs, CELL: host}
        builder.compile_class = DeferredPipe  # the DispatchPipe built only if called
        pipe = builder.compile(references=refs, context=ctx)
        return tokens, pipe, moved

    def _plan(self, s, pipe, refs: dict, index: dict, moved: dict, exact: bool):
        """(the plan: one step per input of ``pipe``, whether some input ties the compiled
        form to this cell, the names formulas does not know)."""
        plan, private, unknown = [], False, set()
        for key, rng in pipe.inputs.items():
            if isinstance(rng, CompilingHost):  # the formula's own cell: each cell's
                plan.append((HOST, None))
                continue
            key = key.upper() if isinstance(key, str) else key
            got = self._named_input(s, key, rng, refs, index, moved, exact) \
                if isinstance(key, str) else None
            step, ties, name = got if got is not None else _range_input(key, rng, index, moved)
            plan.append(step)
            private = private or ties
            if name is not None:
                unknown.add(name)
        return plan, private, unknown

    def _named_input(self, s, key: str, rng, refs: dict, index: dict, moved: dict,
                     exact: bool):
        """An input formulas names by text -- a generic literal's placeholder, a defined
        name, a reference to a sheet whose name formulas cannot parse back -> (its plan
        step, whether it ties the compiled form to this cell, None); None for any
        other input. ``index``: each rectangle of the shape -> its slot; ``moved``: the
        references :func:`~.shapes.edge_proxies` moved in from the sheet's edge."""
        lit = None if exact else _LITERAL.fullmatch(key)
        if lit is not None:
            return (LIT, int(lit.group(1))), False, None
        if key in refs:
            if rng is None or not getattr(rng, "ranges", None):
                return (NAME, self._name_node(s, key)), False, None
            return (CONST, rect_of(rng.ranges[0])), False, None
        if rng is None:  # formulas cannot name every sheet
            rect = self._rect_from_name(key)
            if rect is not None:
                rect = moved.get(rect, rect)
                j = index.get(rect)
                return ((CONST, rect) if j is None else (REF, j)), j is None, None
        return None

    def _program(self, pipe) -> Program | None:
        """formulas' compiled ``pipe`` as a straight-line program, or None (the pipe is
        run as it is) when it is not a straight line or ``options.pipe`` asks for it."""
        if self.options.pipe:
            return None
        try:
            return Program(pipe)
        except NotStraight:
            return None

    def _rect_from_name(self, key: str):
        """``O'BRIEN!A1`` (a sheet name formulas cannot parse back) -> a rect, if the
        sheet exists and the rest is an A1 reference or area."""
        sheet, bang, ref = key.rpartition("!")
        if not bang or shapes.sheet_key(sheet) not in self.nodes.sheet_index:
            return None
        try:
            r1, c1, r2, c2 = shapes.parse_area(ref)
        except ValueError:
            return None
        return (shapes.sheet_key(sheet), r1, c1, r2, c2)

    def _broken(self, i, exc) -> Template:
        """A formula formulas cannot compile: keep the value cached in the file."""
        from ..syntax import syntax_error
        self.log.kept_cached += 1
        why = syntax_error("=" + self.nodes.n_text[i]) or type(exc).__name__
        self.log.warnings.append(f"{self.nodes.n_label[i]}: cannot evaluate "
                                 f"={self.nodes.n_text[i]} ({why}); kept its cached value")
        return Template(None, [], [], False, set())

    def refused(self, i, why) -> Template:
        """A formula Excel itself would refuse (too long, nested too deep): #VALUE!."""
        self.log.reasons.log[self.nodes.n_label[i]] = ("#VALUE!", why)
        return Template(_value_error, [], [], False, set())

    def _name_node(self, s, key):
        nid = self.nodes.name_nodes.get((s, key))
        if nid is None:
            nid = self.nodes.name_nodes.get((None, key))
        return nid


def _geometry_inputs(pipe) -> frozenset:
    """The positions of ``pipe``'s inputs that only :data:`GEOMETRY` functions read (the
    ``A2`` of ``=ROW(A2)*10``): their values are never read, so they are no dependency."""
    succ = pipe.dsp.dmap.succ
    out = set()
    for k, key in enumerate(pipe.inputs):
        readers = succ.get(key, ())
        if readers and all(isinstance(f, str) and COPY_SUFFIX.sub("", f) in GEOMETRY
                           for f in readers):
            out.add(k)
    return frozenset(out)


def _calls_registry(names) -> bool:
    """Does a formula calling the functions ``names`` call a zvmplan function? Its array
    result spills also from a plain formula (the package docstring)."""
    from ..registry import REGISTRY
    return any(bare_name(n) in REGISTRY for n in names)


def _slot_index(shp) -> dict:
    """Each rectangle of shape ``shp`` -> its first slot ({} without a shape)."""
    index: dict = {}
    if shp is not None:
        for j, rect in enumerate(shp.rects):
            index.setdefault(rect, j)
    return index


def _range_input(key, rng, index: dict, moved: dict):
    """An input formulas gives as a range (``rng``: its ``Ranges``, None for a name it
    does not know) -> (its plan step, whether it ties the compiled form to this cell,
    the name formulas does not know or None)."""
    if isinstance(rng, Ranges) and len(rng.ranges) > 1:  # a union: (A1,B2:B4)
        return (UNION, tuple(rect_of(g) for g in rng.ranges)), True, None
    if not isinstance(rng, Ranges) or len(rng.ranges) != 1:
        code = "#NAME?" if rng is None else "#REF!"
        return (RAW, XL[code]), False, key if rng is None and isinstance(key, str) else None
    rect = rect_of(rng.ranges[0])
    rect = moved.get(rect, rect)
    j = index.get(rect)
    if j is None:
        return (CONST, rect), True, None
    return (REF, j), False, None


def _scatter(into: list, ids: np.ndarray, values: list) -> None:
    """``into[ids[k]] = values[k]`` for every k: one slice assignment when the ids are
    evenly spaced (a column of a sheet whose rows all hold the same columns)."""
    if len(ids) > 1:
        step = int(ids[1] - ids[0])
        if step > 0 and int(ids[-1]) == int(ids[0]) + step * (len(ids) - 1) and \
                (len(ids) == 2 or bool((np.diff(ids) == step).all())):
            into[int(ids[0]):int(ids[-1]) + 1:step] = values
            return
    for i, v in zip(ids.tolist(), values):
        into[i] = v


def _value_error():
    return XL["#VALUE!"]


def _colon_operator(tokens) -> bool:
    """Does the formula use Excel's range operator (``INDEX(r,2) : INDEX(s,4)``)? The
    rectangle it makes may hold cells that are no reference of the formula (column B of
    ``INDEX(A1:A9,2):INDEX(C1:C9,4)``), which the order stage cannot see: such a formula
    is evaluated again until nothing changes, as OFFSET and INDIRECT are."""
    from formulas.tokens.operator import OperatorToken
    return any(isinstance(tok, OperatorToken) and tok.name == ":" for tok in tokens)


def _range_operators(tokens) -> bool:
    """Does the formula build references from references (``A1:B2 B1:C2``, ``(A1,B2)``,
    ``A1:INDEX(...)``)? Then formulas may fold them into one input at compile time, and
    the compiled function is good for this cell only."""
    from formulas.tokens.operator import Intersect, OperatorToken, Separator
    from formulas.tokens.parenthesis import Parenthesis
    parens, previous = [], None
    for tok in tokens:
        if isinstance(tok, Intersect) or (isinstance(tok, OperatorToken) and tok.name == ":"):
            return True
        if isinstance(tok, Parenthesis):
            if tok.name == "(":
                parens.append(isinstance(previous, FunctionToken))
            elif parens:
                parens.pop()
        elif isinstance(tok, Separator) and tok.name == "," and parens and not parens[-1]:
            return True
        previous = tok
    return False


def _literals_stand_alone(tokens, n: int) -> bool:
    """Did formulas read each ``ZVMLIT_<k>_`` placeholder as a name of its own (and not,
    say, as part of a quoted sheet name)? Only then is the generic text the formula."""
    found = set()
    for tok in tokens:
        name = getattr(tok, "name", None)
        if isinstance(name, str) and shapes.LITERAL_PREFIX in name.upper():
            m = _LITERAL.fullmatch(name.upper())
            if m is None or type(tok).__name__ != "Range":
                return False
            found.add(int(m.group(1)))
    return found == set(range(n))

"""Stage 3, compile: each node's formula -> a :class:`~.program.Template`, shared by
every node with the same shape (:mod:`.shapes`), so a column of one formula compiles
once. A formula whose literals are generic (``ZVMLIT_<k>_``) compiles once for every
literal value too."""
from __future__ import annotations

import os
import re

import formulas
import numpy as np
from formulas.cell import CELL
from formulas.functions import get_functions
from formulas.ranges import Ranges
from formulas.tokens.function import Function as FunctionToken

from . import filldown, shapes
from .install import Reasons
from .program import CONST, LIT, NAME, RAW, REF, UNION, NotStraight, Program, Template
from .startup import defer_scipy
from .values import XL, quote

defer_scipy()  # before formulas builds its function table (just below)

_UNSEEN = object()
_LITERAL = re.compile(re.escape(shapes.LITERAL_PREFIX) + r"([0-9]+)_")
# position-dependent or whole-model functions: never share their compiled form
_PRIVATE = {name for name, f in get_functions().items()
            if isinstance(f, dict) and CELL in f.get("extra_inputs", {})} | {
    "ROW", "COLUMN", "ROWS", "COLUMNS", "CELL", "INDIRECT", "OFFSET", "ISFORMULA",
    "FORMULATEXT", "_XLFN.ISFORMULA", "_XLFN.FORMULATEXT", "SINGLE", "_XLFN.SINGLE",
    "_XLFN.ANCHORARRAY"}


class Compiler:
    """Shape and compile every node, sharing one template across the cells of a shape
    (a mixin of :class:`~zvmplan_addin.recalc.calc.Engine`); :class:`FormulaCompiler`
    compiles each template."""

    def _setup_compile(self):
        n, book = len(self.n_text), self.book
        self.template: list[Template | None] = [None] * n
        self.rects: list[tuple] = [()] * n
        self.lits: list[tuple] = [()] * n       # each cell's literals (generic shapes)
        self.exact: dict[int, Template] = {}    # cells compiled as written
        self._reads: dict[tuple, int] = {}      # how many cells read each multi-cell range
        self.generic = not os.environ.get("ZVMPLAN_ENGINE_EXACT")
        self.check = bool(os.environ.get("ZVMPLAN_ENGINE_CHECK"))
        self._scopes = {dn.sheet: shapes.sheet_key(book.sheets[dn.sheet].name)
                        for dn in book.names
                        if dn.sheet is not None and dn.sheet < len(book.sheets)}
        self.used: list[tuple] = [()] * n       # rects read by each node
        self.name_deps: list[tuple] = [()] * n  # name nodes read by each node
        self.compiled = 0

    # --- compiling -------------------------------------------------------
    def compile_all(self):
        """Shape and compile every node, in node order. The followers of a formula
        filled down a column (:mod:`.filldown`) are done with their leader, all at once,
        when the leader's template is the one every copy of its shape gets; otherwise
        they are shaped and compiled one by one like any other node."""
        cache: dict[str, list[Template]] = {}
        shapers: dict = {}

        def shaper_of(s):
            shaper = shapers.get(s)
            if shaper is None:
                shaper = shapers[s] = shapes.Shaper(sheets[s].name, self._scopes.get(s, ""))
            return shaper

        # the per-node lists bound once: this loop runs once per formula cell
        n_sheet, n_row, n_col, n_text = self.n_sheet, self.n_row, self.n_col, self.n_text
        template, rects_of, lits_of = self.template, self.rects, self.lits
        used_of, names_of, reads = self.used, self.name_deps, self._reads
        sheets, cells, generic = self.book.sheets, self.cells, self.generic
        beyond_limits = shapes.beyond_limits
        runs = filldown.find_runs(n_sheet, n_row, n_col, n_text, cells, shaper_of) \
            if generic else {}
        covered = bytearray(len(n_text))  # 1: a run's follower, done with its leader
        flags = np.frombuffer(covered, dtype=np.uint8)
        for run in runs.values():
            flags[run.members] = 1
        taken, memo = [], {}
        for i in range(len(n_text)):
            if covered[i]:
                continue
            s, r, c, text = n_sheet[i], n_row[i], n_col[i], n_text[i]
            shp = None
            why = beyond_limits(text)
            if why is not None:  # before any parser sees it
                template[i] = self._refused(i, why)
                if i in runs:
                    flags[runs[i].members] = 0
                continue
            if i < cells and generic:
                shp = shaper_of(s)(text, r, c)
            elif i < cells:
                shp = shapes.shape(text, sheets[s].name, r, c, scope=self._scopes.get(s, ""))
            t = None
            if shp is not None:
                rects_of[i], lits_of[i] = shp.rects, shp.literals
                # several templates per shape when references coincide in some cells
                # (=F(A1)+$A$1 in row 1 reads one cell twice, in row 2 two cells)
                for known in cache.get(shp.key, ()):
                    if known.accepts(shp.rects):
                        t = known
                        break
            if t is None:
                sheet_name = sheets[s].name if s is not None else ""
                if shp is not None and shp.generic is None and shp.literals:
                    shp = shapes.shape(text, sheet_name, r, c, generic=True,
                                       scope=self._scopes.get(s, ""))  # with its text
                t = self._compile(i, shp)
                if shp is not None and t.shareable and len(cache.get(shp.key, ())) < 8:
                    cache.setdefault(shp.key, []).append(t)
            template[i] = t
            refs, fixed, names = t.inputs_read()
            if refs:
                rects = rects_of[i]
                used = tuple([rects[x] for x in refs]) + fixed if fixed else \
                    tuple([rects[x] for x in refs])
            else:
                used = fixed
            used_of[i], names_of[i] = used, names
            if t.unsupported:
                self.unsupported |= t.unsupported
            for rect in used:
                if rect[1] != rect[3] or rect[2] != rect[4]:
                    reads[rect] = reads.get(rect, 0) + 1
            run = runs.get(i)
            if run is not None:
                # every copy of the shape gets t (if it accepts them all): so do these
                if shp is not None and cache.get(shp.key, [None])[0] is t and \
                        self._take(run, t, memo):
                    taken.append(run)
                else:
                    flags[run.members] = 0
        self._share_invariants(np.flatnonzero(flags == 0).tolist(), taken)

    def _take(self, run: filldown.Run, t: Template, memo: dict) -> bool:
        """Give the followers of ``run`` what the loop of :meth:`compile_all` gives each
        node -- rects, literals, template, what it reads -- for all of them at once;
        False (nothing given) if ``t`` does not accept them all. ``memo``: for
        :meth:`~.filldown.Run.slots`."""
        ids, n = run.members, len(run.members)
        slots = run.slots(memo)
        columns = [s if isinstance(s, list) else [s] * n for s in slots]
        if any(columns[j] != columns[j0] for j, j0 in t.dups):  # t.accepts, all at once
            return False
        rects = list(zip(*columns)) if columns else [()] * n
        refs, fixed, names = t.inputs_read()
        if refs == tuple(range(len(slots))) and not fixed:
            used = rects
        elif refs:
            used = list(zip(*[columns[x] for x in refs], *[[f] * n for f in fixed]))
        else:
            used = [fixed] * n
        reads = self._reads
        for rect in [slots[x] for x in refs if not run.one_cell(x)] + list(fixed):
            if isinstance(rect, list):  # each member's own (a range in most rows)
                for one in rect:
                    if one[1] != one[3] or one[2] != one[4]:
                        reads[one] = reads.get(one, 0) + 1
            elif rect[1] != rect[3] or rect[2] != rect[4]:
                reads[rect] = reads.get(rect, 0) + n
        lits = self.lits[run.leader]
        for values, into in ((rects, self.rects), ([lits] * n, self.lits),
                             ([t] * n, self.template), (used, self.used),
                             ([names] * n, self.name_deps)):
            _scatter(into, ids, values)
        return True

    def _share_invariants(self, nodes: list, runs: list):
        """Tell each template's program which inputs are the same in all its cells:
        ``nodes`` one by one, then each run in ``runs`` at once (its literals are its
        leader's; its references differ between its cells where they move)."""
        seen: dict[int, tuple[Template, list, list]] = {}
        for i in nodes:
            t = self.template[i]
            if t is None or t.program is None:
                continue
            entry = seen.get(id(t))
            if entry is None:  # per input: its first value, and whether another differs
                entry = seen[id(t)] = (t, [_UNSEEN] * len(t.plan), [False] * len(t.plan))
            first, varies = entry[1], entry[2]
            for k, (kind, x) in enumerate(t.plan):
                if varies[k]:
                    continue
                if kind == REF:
                    value = self.rects[i][x]
                elif kind == LIT:
                    value = (type(self.lits[i][x]), self.lits[i][x])
                else:
                    continue
                if first[k] is _UNSEEN:
                    first[k] = value
                elif first[k] != value:
                    varies[k] = True
        for run in runs:  # the leader was among ``nodes``: its values are in ``seen``
            entry = seen.get(id(self.template[run.leader]))
            if entry is not None:
                moving = run.varying()
                for k, (kind, x) in enumerate(entry[0].plan):
                    if kind == REF and x in moving:
                        entry[2][k] = True
        for t, _, varies in seen.values():
            t.program.share(name for name, v in zip(t.program.inputs, varies) if not v)


class FormulaCompiler:
    """One node's formula compiled by the ``formulas`` package into a
    :class:`~.program.Template` (a mixin of :class:`~zvmplan_addin.recalc.calc.Engine`,
    used by :class:`Compiler`): its references bound to slots, defined names resolved,
    a formula it cannot compile kept with its cached value and the reason."""

    def _compile(self, i, shp, exact: bool = False) -> Template:
        """Compile node ``i``: from its generic text (literals as inputs) unless ``exact``
        or it has no literals."""
        self.compiled += 1
        s, r, c, text = self.n_sheet[i], self.n_row[i], self.n_col[i], self.n_text[i]
        if shp is not None and shp.generic is not None and not exact:
            text = shp.generic
        else:
            exact = True
        sheet = self.book.sheets[s].name.upper() if s is not None else ""
        ctx = {"sheet": sheet, "cr": str(r or 1), "cc": c or 1}
        refs = self.refs[s] if s is not None and s < len(self.refs) else self.refs[0]
        Reasons.cell = self.n_label[i]  # compiling evaluates constant calls
        try:
            text, moved = shapes.edge_proxies(text, sheet)
            tokens, builder = formulas.Parser(True).ast("=" + text, context=ctx)
            if not exact and not _literals_stand_alone(tokens, len(shp.literals)):
                Reasons.cell = None
                self.compiled -= 1
                return self._compile(i, shp, exact=True)
            cell = Ranges().push(f"{quote(sheet)}!{shapes.a1(r or 1, c or 1)}")
            pipe = builder.compile(references=refs, context=ctx, **{CELL: cell})
        except Exception as exc:
            return self._broken(i, exc)
        finally:
            Reasons.cell = None
        table = get_functions()
        names = {t.name.upper() for t in tokens if isinstance(t, FunctionToken)}
        unsupported = {n for n in names if n not in table and n not in refs}
        shareable = shp is not None and not (names & _PRIVATE) and \
            not _range_operators(tokens)
        index = {}
        if shp is not None:
            for j, rect in enumerate(shp.rects):
                index.setdefault(rect, j)
        plan = []
        for k, rng in pipe.inputs.items():
            key = k.upper() if isinstance(k, str) else k
            lit = _LITERAL.fullmatch(key) if isinstance(key, str) and not exact else None
            if lit is not None:
                plan.append((LIT, int(lit.group(1))))
                continue
            if isinstance(key, str) and key in refs:
                if rng is None or not getattr(rng, "ranges", None):
                    plan.append((NAME, self._name_node(s, key)))
                else:
                    plan.append((CONST, rect_of(rng.ranges[0])))
                continue
            if rng is None and isinstance(key, str):  # formulas cannot name every sheet
                rect = self._rect_from_name(key)
                if rect is not None:
                    rect = moved.get(rect, rect)
                    j = index.get(rect)
                    plan.append((CONST, rect) if j is None else (REF, j))
                    shareable = shareable and j is not None
                    continue
            if isinstance(rng, Ranges) and len(rng.ranges) > 1:  # a union: (A1,B2:B4)
                plan.append((UNION, tuple(rect_of(g) for g in rng.ranges)))
                shareable = False
                continue
            if not isinstance(rng, Ranges) or len(rng.ranges) != 1:
                code = "#NAME?" if rng is None else "#REF!"
                plan.append((RAW, XL[code]))
                if rng is None and isinstance(key, str):
                    unsupported.add(key)
                continue
            rect = rect_of(rng.ranges[0])
            rect = moved.get(rect, rect)
            j = index.get(rect)
            if j is None:
                plan.append((CONST, rect))
                shareable = False
            else:
                plan.append((REF, j))
        dups = []
        if shp is not None:
            dups = [(j, index[rect]) for j, rect in enumerate(shp.rects) if index[rect] != j]
        try:
            program = None if os.environ.get("ZVMPLAN_ENGINE_PIPE") else Program(pipe)
        except NotStraight:
            program = None
        return Template(pipe, plan, dups, shareable, unsupported, program,
                         checked=not self.check, literals=not exact)

    def _rect_from_name(self, key: str):
        """``O'BRIEN!A1`` (a sheet name formulas cannot parse back) -> a rect, if the
        sheet exists and the rest is an A1 reference or area."""
        sheet, bang, ref = key.rpartition("!")
        if not bang or shapes.sheet_key(sheet) not in self.sheet_index:
            return None
        try:
            r1, c1, r2, c2 = shapes.parse_area(ref)
        except ValueError:
            return None
        return (shapes.sheet_key(sheet), r1, c1, r2, c2)

    def _broken(self, i, exc) -> Template:
        """A formula formulas cannot compile: keep the value cached in the file."""
        from ..syntax import syntax_error
        self.kept_cached += 1
        why = syntax_error("=" + self.n_text[i]) or type(exc).__name__
        self.warnings.append(f"{self.n_label[i]}: cannot evaluate ={self.n_text[i]} "
                             f"({why}); kept its cached value")
        return Template(None, [], [], False, set())

    def _refused(self, i, why) -> Template:
        """A formula Excel itself would refuse (too long, nested too deep): #VALUE!."""
        self.reasons[self.n_label[i]] = ("#VALUE!", why)
        return Template(_value_error, [], [], False, set())

    def _name_node(self, s, key):
        nid = self.name_nodes.get((s, key))
        if nid is None:
            nid = self.name_nodes.get((None, key))
        return nid


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


def rect_of(rng: dict) -> tuple:
    """formulas' range dict -> (SHEET, r1, c1, r2, c2), r1 <= r2 and c1 <= c2 (formulas
    keeps the ends as written: ``A$5:A1`` is r1=5, r2=1)."""
    r1, r2 = sorted((int(rng["r1"]) or 1, int(rng["r2"])))
    c1, c2 = sorted((int(rng["n1"]) or 1, int(rng["n2"])))
    return (shapes.sheet_key(rng.get("sheet_id") or rng.get("sheet") or ""), r1, c1, r2, c2)


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

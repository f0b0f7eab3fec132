"""A1 references in formula text: the *shape* of a formula, and shifting it.

A planner sheet repeats one formula down thousands of rows (``=CPCPU_PER_MB(A2,B2)``,
``=CPCPU_PER_MB(A3,B3)``, ...). Compiling each with the ``formulas`` parser costs about a
millisecond, so the engine compiles each distinct *shape* once. A shape is the formula
text with every A1 reference rewritten relative to the cell holding it (``$`` parts stay
absolute), plus the holding sheet. Two cells with the same shape hold the same formula
up to a copy/fill, so they can share one compiled function; each cell keeps its own
resolved references (:attr:`Shape.rects`, in the order they appear in the text).

This module only *finds* references (outside string literals) -- it is not a formula
parser; the ``formulas`` package parses and evaluates. Text that it cannot be sure
about (external workbooks, structured references) gives no shape, and the engine
compiles that cell on its own. Imports nothing beyond the standard library and the A1
grammar of :mod:`zvmplan_addin.xlsx.cells`.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..xlsx.cells import a1, col_letters, col_number, parse_a1, parse_area  # one A1 grammar
from ..xlsx.references import MAX_COL, MAX_ROW, translate  # noqa: F401 (translate: here too)
from ..xlsx.references import REFERENCE as _REF, Part as _Part, reference_parts as _parts
from ..xlsx.references import sub_references as _sub_references

Rect = tuple  # (SHEET_UPPER, r1, c1, r2, c2), 1-based, r1 <= r2, c1 <= c2


class Shape(NamedTuple):
    key: str                 # equal keys: one compiled function serves both cells
    rects: tuple[Rect, ...]  # each reference in text order, resolved for this cell
    literals: tuple = ()     # generic shapes: each literal's value, in text order
    generic: str | None = None  # generic shapes: the text with literals as ZVMLIT_<k>_


def sheet_key(name: str) -> str:
    """The case-insensitive key of a sheet name, quoted (``'My Sheet'``) or not."""
    if len(name) >= 2 and name[0] == name[-1] == "'":
        name = name[1:-1].replace("''", "'")
    return name.upper()


_COLS: dict[str, int] = {}  # column letters (with any $) -> number


def rect_of(rng: dict) -> tuple:
    """formulas' range dict -> (SHEET, r1, c1, r2, c2), r1 <= r2 and c1 <= c2 (formulas
    keeps the ends as written: ``A$5:A1`` is r1=5, r2=1)."""
    r1, r2 = sorted((int(rng["r1"]) or 1, int(rng["r2"])))
    c1, c2 = sorted((int(rng["n1"]) or 1, int(rng["n2"])))
    return (sheet_key(rng.get("sheet_id") or rng.get("sheet") or ""), r1, c1, r2, c2)


def shape(text: str, sheet: str, row: int, col: int, generic: bool = False,
          scope: str = "", spans: list | None = None) -> Shape | None:
    """The shape of formula ``text`` (without its leading ``=``) held in cell (``row``,
    ``col``) of ``sheet``; None when the text has external or structured references,
    which the engine then compiles on their own.

    By default two formulas have the same shape when one is a copy of the other (the
    key holds relative references as offsets and absolute ones as they are). With
    ``generic``, the key keeps only the formula's structure: every reference is a slot
    (each cell brings its own, :attr:`Shape.rects`) and so is every number and text
    literal outside array constants (:attr:`Shape.literals`; :attr:`Shape.generic` is
    the text with each literal replaced by the name ``ZVMLIT_<k>_``). ``scope`` goes
    into a generic key: the holding sheet when it has sheet-local names. ``spans``
    collects where each reference's row numbers and each number literal sit in the text
    (for :class:`Shaper`)."""
    host = sheet_key(sheet)
    key = [scope if generic else host, "\x01"]
    rects, literals, out = [], [], []
    keep_literals = generic and not _BINDS.search(text)
    pos = 0
    for seg in _SEGMENT.finditer(text + "\uffff"):  # strings, array constants, the rest
        gap = text[pos:seg.start()]
        if gap:
            if "[" in gap:
                return None
            _scan(gap, host, row, col, generic, keep_literals, key, rects, literals, out,
                  spans, pos)
        lit = seg.group(0)
        if lit == "\uffff":
            break
        if lit[0] == '"' and keep_literals:
            key.append("\x02S\x02")
            out.append(_placeholder(len(literals)))
            literals.append(lit[1:-1].replace('""', '"'))
        else:
            key.append(lit)
            out.append(lit)
        pos = seg.end()
    return Shape("".join(key), tuple(rects), tuple(literals),
                 "".join(out) if literals else None)


_ASCII_DIGIT = re.compile(r"[0-9]").search
_BINDS = re.compile(r"\b(?:_xlfn\.)?(?:LET|LAMBDA)\s*\(|_xleta\.", re.I)
_SEGMENT = re.compile(r'"(?:[^"]|"")*"|\{(?:[^}"]|"(?:[^"]|"")*")*\}|\uffff')
_NUMBER = re.compile(r"(?<![\w.$#])(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                     r"(?![\w.(!:$])")
LITERAL_PREFIX = "ZVMLIT_"


ROW, NUMBER = 1, 2  # what a span found by shape() holds


class Shaper:
    """Generic shapes of the formulas of one sheet, fast for a column of one formula.

    The formulas of a filled column differ only in their digits (``=F2*D2/86400``,
    ``=F3*D3/86400``). The first formula of each *skeleton* (the text without its
    digit runs) is scanned in full, which tells what each digit run is: a row of a
    reference, a whole integer literal, or fixed text (``LOG10``, ``1E6``, a sheet
    name). A later formula with the same skeleton gets its shape by substituting its
    own rows and literals, without a scan -- unless a fixed run differs or a row is off
    the sheet, when it is scanned in full. :attr:`Shape.generic` is left None on the
    fast path (:meth:`with_generic` gives it when compiling)."""

    def __init__(self, sheet: str, scope: str = ""):
        self.sheet, self.scope = sheet, scope
        self.recipes: dict = {}  # skeleton -> its recipe (None: not reusable)
        self.others: dict = {}   # skeleton -> recipes of texts whose fixed runs differ
        self.scanned: dict = {}  # text -> its shape, for the texts a recipe was made from

    def with_generic(self, text: str) -> Shape | None:
        """The generic shape of ``text`` with :attr:`Shape.generic` (as :func:`shape`
        gives it in any cell of this sheet: a generic shape does not depend on the
        cell), from the scan that made a recipe when ``text`` was its text."""
        shp = self.scanned.get(text)
        if shp is None:
            shp = shape(text, self.sheet, 1, 1, generic=True, scope=self.scope)
        return shp

    def __call__(self, text: str, row: int, col: int) -> Shape | None:
        parts = _DIGITS.split(text)
        skeleton = "\x03".join(parts[0::2])
        recipe = self.recipes.get(skeleton, _UNSET)
        if recipe is _UNSET:
            spans: list = []
            shp = shape(text, self.sheet, row, col, generic=True, scope=self.scope, spans=spans)
            self.recipes[skeleton] = _recipe(parts, shp, spans)
            self.scanned[text] = shp
            return shp
        if recipe is not None:
            shp = _apply(recipe, parts[1::2])
            if shp is not None:
                return shp
            return self._other(skeleton, parts, text, row, col)[0]
        return self.with_generic(text)  # (the skeleton's own text: scanned once)

    def _other(self, skeleton: str, parts: list, text: str, row: int, col: int) -> tuple:
        """(shape, recipe) of a text whose fixed digit runs differ from its skeleton's
        recipe's (``'003'!G5`` after ``'000'!G5``, ``"4.4.0"`` after ``"4.3.0"``): from
        the recipe of an earlier such text whose fixed runs it holds, else scanned in
        full and its recipe kept (up to :data:`OTHER_RECIPES` a skeleton). A recipe is
        used only where every fixed run is as in the text it was made from, as the
        skeleton's own is."""
        kept = self.others.get(skeleton, ())
        runs = parts[1::2]
        for recipe in kept:
            shp = _apply(recipe, runs)
            if shp is not None:
                return shp, recipe
        spans: list = []
        shp = shape(text, self.sheet, row, col, generic=True, scope=self.scope, spans=spans)
        recipe = _recipe(parts, shp, spans)
        if recipe is not None and len(kept) < OTHER_RECIPES:
            self.others.setdefault(skeleton, []).append(recipe)
            self.scanned[text] = shp
        return shp, recipe

    def fill_pattern(self, text: str, row: int, col: int,
                     after: tuple | None = None) -> FillPattern | None:
        """How formula ``text`` of cell (``row``, ``col``) reads when filled down its
        column (:class:`FillPattern`); None when it has no shape.

        With ``after`` = (the next cell's text, its row), the ``$`` rows that the next
        cell has moved by exactly the rows between the two move with the row too, as
        relative rows do: ``=Planner!$B$5`` in row 5, ``=Planner!$B$6`` in row 6 (a
        table naming the row beside it absolutely, so that sorting it keeps its
        links). Then None also when no ``$`` row moves so, when any other digit run
        differs between the two texts by other than a relative row's, or when the
        ``$`` row of a whole-row reference moves.
        Whatever the pattern, a later cell is in a run only if its text is the
        pattern's text at its row (:func:`~.filldown.find_runs`), so its references are
        the ones a shape of its own text gives."""
        parts = _DIGITS.split(text)
        if len(parts) == 1:  # no digits: every copy reads the same
            if after is not None:
                return None
            shp = shape(text, self.sheet, row, col, generic=True, scope=self.scope)
            return None if shp is None else FillPattern(shp, row, _braces(text), (),
                                                        (None,) * len(shp.rects))
        later = None
        if after is not None:
            later = _DIGITS.split(after[0])
            if after[1] <= row or len(later) != len(parts) or later[0::2] != parts[0::2]:
                return None
        skeleton = "\x03".join(parts[0::2])
        if skeleton not in self.recipes:
            self(text, row, col)  # the first of its skeleton: scanned, its recipe kept
        recipe = self.recipes[skeleton]
        if recipe is None:  # the skeleton's shape cannot be reused
            return None
        shp = _apply(recipe, parts[1::2])
        if shp is None:  # a fixed run differs from the recipe's text: its own recipe
            shp, recipe = self._other(skeleton, parts, text, row, col)
            if recipe is None:
                return None
        moving = frozenset()
        if later is not None:
            moving = _moving_rows(parts, later, recipe[3], after[1] - row)
            if not moving:
                return None
        return _fill_pattern(parts, recipe[3], shp, row, moving)


def _moving_rows(parts, later, row_runs, step: int) -> frozenset:
    """The digit runs of the ``$`` rows (of ``row_runs``, a recipe's) that the text split
    into ``later`` holds ``step`` more than the one split into ``parts`` does; empty if
    none, or if any digit run other than a relative row's differs otherwise (a ``$``
    row by other than ``step`` or of a whole-row reference, a literal, a digit of a
    name: the texts are then no fill of one formula)."""
    absolute = {}  # digit run -> may it move (no whole-row reference: $5:$5)? None: relative
    for run, _, _, _, c1, c2 in row_runs:
        j = 2 * run + 1
        absolute[j] = not (c1 == 1 and c2 == MAX_COL) if parts[j - 1].endswith("$") else None
    moving = set()
    for j in range(1, len(parts), 2):
        if parts[j] == later[j]:
            continue
        may = absolute.get(j, False)
        if may is None:  # a relative row: moves with every fill
            continue
        if not may or int(later[j]) - int(parts[j]) != step:
            return frozenset()
        moving.add(j // 2)
    return frozenset(moving)


_UNSET = object()
OTHER_RECIPES = 8  # recipes kept per skeleton besides its first text's
_DIGITS = re.compile(r"([0-9]+)")


class FillPattern(NamedTuple):
    """A formula as Excel's fill down writes it in every row of its column.

    A fill moves only the *relative* row numbers of references (``F2*D2/86400`` in row
    2 is ``F7*D7/86400`` in row 7); ``$`` rows, columns, literals and digits inside
    names or strings stay. So the text at row ``r`` is ``fmt.format(*(r + d for d in
    offsets))`` (:meth:`text_at`), and a cell holding exactly that text has
    :attr:`shape` with each moving row shifted by ``r - row``: :attr:`moves` says, per
    reference, which ends move. Valid while every moved row stays on the sheet
    (:meth:`last_row`)."""
    shape: Shape            # the first cell's generic shape
    row: int                # the first cell's row
    fmt: str                # the text, each relative row number a ``{k}`` field
    offsets: tuple          # field k is the cell's row + offsets[k]
    moves: tuple            # per reference: None (fixed), or (r1, r1 moves?, r2, r2 moves?)

    def text_at(self, row: int) -> str:
        return self.fmt.format(*[row + d for d in self.offsets])

    def last_row(self) -> int:
        """The last row whose copy keeps every reference on the sheet."""
        return MAX_ROW - max(self.offsets, default=0)


def _braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _fill_pattern(parts, row_runs, shp, row, moving=frozenset()) -> FillPattern | None:
    """The :class:`FillPattern` of the text split into ``parts`` (digit runs at odd
    places) whose recipe found the row numbers ``row_runs`` ((run, reference, end, ...);
    end 2 is both ends of a single cell); the ``$`` rows at the runs ``moving`` move with
    the row as the relative ones do."""
    role = {run: (k, end) for run, k, end, *_ in row_runs}
    pieces, offsets, ends = [], [], {}
    for j, piece in enumerate(parts):
        got = role.get(j // 2) if j % 2 else None
        if got is None:
            pieces.append(piece if j % 2 else _braces(piece))
            continue
        value = int(piece)
        relative = not parts[j - 1].endswith("$") or j // 2 in moving
        if relative:
            if value - row not in offsets:
                offsets.append(value - row)
            piece = "{%d}" % offsets.index(value - row)
        pieces.append(piece)
        ends.setdefault(got[0], {})[got[1]] = (value, relative)
    moves = []
    for k in range(len(shp.rects)):
        found = ends.get(k, {})
        if not any(relative for _, relative in found.values()):
            moves.append(None)
        elif 2 in found:
            moves.append(found[2] + found[2])
        elif 0 in found and 1 in found:
            moves.append(found[0] + found[1])
        else:
            return None
    return FillPattern(shp, row, "".join(pieces), tuple(offsets), tuple(moves))


def _recipe(parts, shp, spans):
    """How to rebuild the shape from another formula's digit runs: (shape, the runs that
    must be as they are and their text, rows: (run, rect, part), literals: (run, k));
    None if the shape cannot be reused."""
    if shp is None or len(parts) < 2:
        return None
    by_start: dict = {}
    for start, end, what, k, part in spans:
        by_start.setdefault(start, []).append((end, what, k, part))
    fixed, fixed_text, rows, literals = [], [], [], []
    pos = 0
    for j, piece in enumerate(parts):
        if j % 2 == 0:
            pos += len(piece)
            continue
        run, start, end = j // 2, pos, pos + len(piece)
        role = None
        for span_start in (start, start - 1):  # a row group may start with its $
            for span_end, what, k, part in by_start.get(span_start, ()):
                if span_end == end and (what == ROW or span_start == start):
                    role = (what, k, part)
        if role is None:
            fixed.append(run)
            fixed_text.append(piece)
        elif role[0] == ROW:
            rows.append((run, role[1], role[2]))
        else:
            literals.append((run, role[1]))
        pos = end
    # each row run with its rect's sheet and columns, so a single cell is built at once
    rows = [(run, k, part, shp.rects[k][0], shp.rects[k][2], shp.rects[k][4])
            for run, k, part in rows]
    return shp, tuple(fixed), list(fixed_text), tuple(rows), tuple(literals)


def _apply(recipe, runs):
    shp, fixed, fixed_text, rows, literals = recipe
    if fixed and [runs[j] for j in fixed] != fixed_text:
        return None
    rects = list(shp.rects)
    two = None
    for j, k, part, sheet, c1, c2 in rows:
        value = int(runs[j])
        if not 0 < value <= MAX_ROW:
            return None
        if part == 2:
            rects[k] = (sheet, value, c1, value, c2)
        else:  # one end of a range: sorted once both ends are in
            two = two or {}
            two.setdefault(k, {})[part] = value
    if two:
        for k, ends in two.items():
            sheet, r1, c1, r2, c2 = rects[k]
            a, b = ends.get(0, r1), ends.get(1, r2)
            rects[k] = (sheet, min(a, b), c1, max(a, b), c2)
    if literals:
        values = list(shp.literals)
        for j, k in literals:
            values[k] = int(runs[j])
        return _new(Shape, (shp.key, tuple(rects), tuple(values), None))
    return _new(Shape, (shp.key, tuple(rects), shp.literals, None))


_new = tuple.__new__  # a Shape without NamedTuple's Python-level __new__ (once a cell)


def _placeholder(k: int) -> str:
    return f"{LITERAL_PREFIX}{k}_"


def _number(token: str):
    return int(token) if token.isdigit() else float(token)


def _scan(piece, host, row, col, generic, keep_literals, key, rects, literals, out,
          spans=None, base=0):
    """References (and, if ``keep_literals``, numbers) in a stretch of formula text
    outside strings and array constants."""
    pos = 0
    for m in _REF.finditer(piece):
        c1s, r1s, ref_sheet = m.group("c1", "r1", "sheet")
        if c1s is not None and m.group("c2") is None:  # one cell: the common case
            ca, ra = c1s[0] == "$", r1s[0] == "$"
            cv = _COLS.get(c1s)
            if cv is None:
                cv = _COLS[c1s] = col_number(c1s.lstrip("$"))
            rv = int(r1s[1:] if ra else r1s)
            if cv > MAX_COL or not 1 <= rv <= MAX_ROW:
                continue
            target = sheet_key(ref_sheet[:-1]) if ref_sheet else host
            _plain(piece[pos:m.start()], keep_literals, key, literals, out, spans, base + pos)
            if spans is not None:
                spans.append((base + m.start("r1"), base + m.end("r1"), ROW, len(rects), 2))
            if generic:
                key.append("\x00R1\x00")
            else:
                re_ = f"${rv}" if ra else f"~{rv - row}"
                ce = f"${cv}" if ca else f"~{cv - col}"
                key.append(f"\x00{target if ref_sheet else ''}!cell{re_},{ce}\x00")
            out.append(m.group(0))
            pos = m.end()
            rects.append((target, rv, cv, rv, cv))
            continue
        parts = _parts(m)
        if parts is None:
            continue
        kind, rows, cols = parts
        target = sheet_key(ref_sheet[:-1]) if ref_sheet else host
        _plain(piece[pos:m.start()], keep_literals, key, literals, out, spans, base + pos)
        if spans is not None:
            for part, group in enumerate(("r1", "r2") if kind == "cell" else
                                         ("rr1", "rr2") if kind == "rows" else ()):
                spans.append((base + m.start(group), base + m.end(group), ROW, len(rects), part))
        if generic:
            key.append(f"\x00R{kind}\x00")
        else:
            enc = []
            for p, origin in ((rows[0], row), (cols[0], col), (rows[1], row), (cols[1], col)):
                enc.append(f"${p.value}" if p.absolute else f"~{p.value - origin}")
            key.append(f"\x00{target if ref_sheet else ''}!{kind}{','.join(enc)}\x00")
        out.append(m.group(0))
        pos = m.end()
        r1, r2 = sorted((rows[0].value, rows[1].value))
        c1, c2 = sorted((cols[0].value, cols[1].value))
        rects.append((target, r1, c1, r2, c2))
    _plain(piece[pos:], keep_literals, key, literals, out, spans, base + pos)


def _plain(text, keep_literals, key, literals, out, spans=None, base=0):
    # numbers near a single quote may sit in a quoted sheet name ('Q1 2024'!Rate): keep them
    # (a text whose only digits are not ASCII ones gives the same pieces either way)
    if not keep_literals or "'" in text or _ASCII_DIGIT(text) is None:
        key.append(text)
        out.append(text)
        return
    pos = 0
    for m in _NUMBER.finditer(text):
        key.append(text[pos:m.start()])
        out.append(text[pos:m.start()])
        key.append("\x02N\x02")
        out.append(_placeholder(len(literals)))
        if spans is not None:
            spans.append((base + m.start(), base + m.end(), NUMBER, len(literals), 0))
        literals.append(_number(m.group(0)))
        pos = m.end()
    key.append(text[pos:])
    out.append(text[pos:])


MAX_FORMULA_CHARS = 8_192   # Excel's longest formula
MAX_NESTING = 64            # Excel's deepest nesting of functions


def beyond_limits(text: str) -> str | None:
    """Why Excel would refuse formula ``text`` (without its ``=``): longer than 8,192
    characters, or parentheses nested deeper than 64 levels (Excel's limit on nested
    functions); None if it is within both. Linear in the text, and meant to run before
    any parser sees it (a parser can take minutes and gigabytes on 60,000 levels)."""
    if len(text) + 1 > MAX_FORMULA_CHARS:
        return (f"the formula is {len(text) + 1:,} characters long; Excel's limit is "
                f"{MAX_FORMULA_CHARS:,}")
    if text.count("(") <= MAX_NESTING:
        return None
    depth = deepest = 0
    quoted = False
    for ch in text:
        if ch == '"':
            quoted = not quoted  # a doubled quote closes and reopens: same result
        elif quoted:
            continue
        elif ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    if deepest > MAX_NESTING:
        return (f"the formula nests {deepest} levels of parentheses; Excel's limit is "
                f"{MAX_NESTING}")
    return None


def edge_proxies(text: str, sheet: str) -> tuple[str, dict]:
    """``text`` with every A1 reference that touches the last row or column
    (``A1:A1048576``, ``B2:XFD9``, ``$A$1048576``) moved one row/column in, and a dict
    from each moved rectangle back to the real one. The ``formulas`` parser misreads
    those references (``A1:A1048576`` as ``A1``); the engine compiles the moved text and
    binds each input to the real rectangle. Raises ValueError when a moved reference
    would coincide with another reference of the formula."""
    if "1048576" not in text and "XFD" not in text.upper():
        return text, {}
    host = sheet_key(sheet)
    moved: dict = {}
    moved_text = _sub_references(text, lambda m: _move_in(m, host, moved))
    if moved:
        shape_ = shape(text, sheet, 1, 1)
        real = set(shape_.rects) if shape_ is not None else set()
        if real & set(moved):
            raise ValueError("a reference to the last row or column coincides with another")
    return moved_text, moved


def _move_in(m, host: str, moved: dict) -> str:
    parts = _parts(m)
    if parts is None:
        return m.group(0)
    kind, rows, cols = parts
    # A:A and 1:1 are read right, A:XFD and 1:1048576 are not (formulas reads "A:" and
    # "1:"); a whole column or row keeps its other coordinate whole
    move_rows = kind != "cols" and any(p.value >= MAX_ROW for p in rows)
    move_cols = kind != "rows" and any(p.value >= MAX_COL for p in cols)
    if not (move_rows or move_cols):
        return m.group(0)
    prows = [_Part(p.absolute, min(p.value, MAX_ROW - 1)) for p in rows] if move_rows else rows
    pcols = [_Part(p.absolute, min(p.value, MAX_COL - 1)) for p in cols] if move_cols else cols
    sheet = m.group("sheet") or ""
    target = sheet_key(sheet[:-1]) if sheet else host

    def rect(rs, cs):
        r1, r2 = sorted((rs[0].value, rs[1].value))
        c1, c2 = sorted((cs[0].value, cs[1].value))
        return (target, r1, c1, r2, c2)
    moved[rect(prows, pcols)] = rect(rows, cols)

    def dollar(p):
        return "$" if p.absolute else ""
    if kind == "cols":
        return sheet + ":".join(dollar(c) + col_letters(c.value) for c in pcols)
    if kind == "rows":
        return sheet + ":".join(dollar(r) + str(r.value) for r in prows)

    def a(c, r):
        return dollar(c) + col_letters(c.value) + dollar(r) + str(r.value)
    text = sheet + a(pcols[0], prows[0])
    if m.group("c2"):
        text += ":" + a(pcols[1], prows[1])
    return text


def reference(text: str) -> Rect | None:
    """The rectangle of ``text`` if it is exactly one sheet-qualified reference
    (``'My Sheet'!$A$1:$B$4``, as a defined name holds it), else None."""
    m = _REF.fullmatch(text.strip())
    if m is None or not m.group("sheet"):
        return None
    parts = _parts(m)
    if parts is None:
        return None
    _, rows, cols = parts
    r1, r2 = sorted((rows[0].value, rows[1].value))
    c1, c2 = sorted((cols[0].value, cols[1].value))
    return (sheet_key(m.group("sheet")[:-1]), r1, c1, r2, c2)


__all__ = ["Shape", "Shaper", "FillPattern", "shape", "translate", "reference", "beyond_limits", "edge_proxies", "sheet_key", "col_number", "col_letters", "a1",
           "parse_a1", "parse_area", "MAX_ROW", "MAX_COL"]

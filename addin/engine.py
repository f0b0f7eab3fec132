"""The headless recalculation engine: ``calc(in_path, out_path)``.

Formulas are parsed, compiled and evaluated by the ``formulas`` package, with every
registry function installed in its function table (:func:`install_functions`). The
workbook is read and written by :mod:`zvmplan_addin.xlsxio`, which keeps the file as it
was apart from the cached values.

Why not ``formulas.ExcelModel``? It compiles every cell (constants too) into one
``schedula`` graph: on a 10,000-row planner sheet (one formula a row) that is ~13 s to
load and ~7 s to calculate, in ~730 MB. Measured with cProfile, the time goes to
parsing and compiling each formula (~1 ms each, although the rows differ only in their
row number), to ``schedula``'s bookkeeping for every cell, and to dispatching the
whole-book graph. This engine instead

* compiles each distinct formula *structure* once (:mod:`zvmplan_addin.shapes`: the
  text with every reference and literal made a slot) and calls that compiled function
  once per cell with the cell's own references and literals as inputs. A formula that
  formulas would fold differently (positional functions such as ROW, references built
  from references) gets a function of its own;
* runs the compiled function as the straight line of formulas' own functions it is
  (:class:`_Program`; ``ZVMPLAN_ENGINE_CHECK=1`` compares it with formulas' pipe):
  ~30 us a cell instead of ~150 us;
* computes once per pass the parts of a shape that read only inputs every cell
  shares (``SUM(F$2:F$10001)`` in ``=F2/SUM(F$2:F$10001)``): 60,000 cells with such a
  share-of-total column went from ~30 s to ~5 s;
* orders the work itself: a depth-first walk from each formula to the formula cells
  inside its input ranges (a per-column index of formula rows, so a range costs a
  binary search, not a scan), with circular references detected on the way;
* keeps cell values in one numpy object grid per sheet, so a range input is a slice.

Measured (2 CPUs, ``zvmplan calc``, wall time including ~0.75 s of Python start-up and
imports, of which scipy, pulled in by formulas, is ~0.35 s): the 10,000-row planner of
``build/benchmarks.py`` in ~2.0 s and ~160 MB (builtins only, MAX: ~2.0 s); the
workbook template (3,982 formula cells, 1,247 distinct formulas but 109 structures) in
~2.1 s and ~145 MB, of which ~0.27 s is the model's first (uncached) lookups; 10,000
rows x 6 formula columns (three zvmplan functions, IFERROR, ROUND, a share of the
total) in ~6.3 s and ~250 MB. What stays slow is formulas' own work on big ranges: a
running total ``=SUM(F$2:F2)`` down 10,000 rows is O(n^2) element visits in Python
(~15 s).

Semantics worth knowing
-----------------------
* An empty cell is ``None`` to a zvmplan function and 0 (or "") to Excel builtins, as
  in Excel. A formula whose result is an empty cell shows 0.
* Circular references: every cell on the cycle gets 0 (what Excel shows when
  iterative calculation is off) and the report lists them.
* Array results. An array formula (``t="array"``, Ctrl+Shift+Enter or an Excel 365
  dynamic array) fills its stored range, padding with #N/A and cropping as Excel does.
  A plain formula whose result is an array (a zvmplan function given a range, or
  ``ZVM_TRANSPORTS()``) *spills*: if the cells it needs are empty the formula is
  stored as an array formula over exactly that range, with each cell's value cached,
  so every spreadsheet shows the values (Excel 365 shows it as a legacy ``{=...}``
  array formula; it recalculates the same way). If the cells are not empty the
  anchor gets #VALUE! (Excel 365 would show #SPILL!, which it also stores as
  #VALUE!) and the report says which range was blocked.
* A formula the ``formulas`` package cannot compile, or a data-table cell, keeps the
  value cached in the file, and ``fullCalcOnLoad`` is set so Excel recomputes on
  open; so does a builtin that ``formulas`` does not implement (#NAME? here).
* Only global and sheet-local defined names that are ranges or formulas are
  supported; external workbooks and structured references are not.
* An omitted middle argument (``F(1,,2)``) reaches a function as 0 (``formulas``'
  parser makes it so); leave trailing optional arguments out, or pass "".
"""
from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import schedula as sh
import formulas
from formulas.cell import CELL
from formulas.functions import COMPILING, Array, get_functions, wrap_func
from formulas.ranges import Ranges
from formulas.tokens.function import Function as FunctionToken
from formulas.tokens.operand import Error as _ErrorToken, XlError as FXlError, range2parts

from . import shapes, xlsxio
from .errors import ExcelError
from .evaluate import excel_names, load_functions
from .registry import REGISTRY

XL = _ErrorToken.errors             # Excel error code -> formulas' error value
PENDING, ACTIVE, DONE = 0, 1, 2
DENSE_LIMIT = 8_000_000             # cells in a sheet's bounding box held as a dense grid
BIG_RANGE = 4_000_000               # a larger range is cut to the sheet's used area
NO_IDS = np.empty(0, dtype=np.int64)
log = logging.getLogger(__name__)

# position-dependent or whole-model functions: never share their compiled form
_PRIVATE = {name for name, f in get_functions().items()
            if isinstance(f, dict) and CELL in f.get("extra_inputs", {})} | {
    "ROW", "COLUMN", "ROWS", "COLUMNS", "CELL", "INDIRECT", "OFFSET", "ISFORMULA",
    "FORMULATEXT", "_XLFN.ISFORMULA", "_XLFN.FORMULATEXT", "SINGLE", "_XLFN.SINGLE",
    "_XLFN.ANCHORARRAY"}


class EngineError(Exception):
    """The recalculation could not be done; the message is one line."""


# ----------------------------------------------------------- functions ----
class _Reasons:
    """Where the adapters leave the reason behind each error a zvmplan function returns."""
    cell: str | None = None
    log: dict[str, tuple[str, str]] | None = None

    @classmethod
    def note(cls, err: ExcelError) -> None:
        if cls.log is not None and err.reason and cls.cell is not None:
            cls.log.setdefault(cls.cell, (err.code, err.reason))


def _from_formulas(value):
    """A value as formulas hands it to a function -> the raw value the registry takes."""
    if isinstance(value, np.ndarray):
        if value.size == 1:
            return _elem_from_formulas(value.reshape(-1)[0])
        arr = np.atleast_2d(np.asarray(value, dtype=object))
        out = np.empty(arr.shape, dtype=object)
        flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
        for k in range(flat_in.size):
            flat_out[k] = _elem_from_formulas(flat_in[k])
        return out
    return _elem_from_formulas(value)


def _elem_from_formulas(v):
    if isinstance(v, FXlError):
        return ExcelError(str(v)) if str(v) in XL else ExcelError("#VALUE!")
    if v is sh.EMPTY or v is None:
        return None
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, str):
        return str(v)
    return v


def _to_formulas(result):
    """A registry result -> what formulas expects (errors as formulas' error values)."""
    if isinstance(result, ExcelError):
        _Reasons.note(result)
        return XL[result.code]
    if isinstance(result, np.ndarray):
        arr = np.atleast_2d(np.asarray(result, dtype=object))
        out = np.empty(arr.shape, dtype=object)
        flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
        for k in range(flat_in.size):
            v = flat_in[k]
            if isinstance(v, ExcelError):
                _Reasons.note(v)
                v = XL[v.code]
            elif v is None:
                v = sh.EMPTY
            flat_out[k] = v
        return out.view(Array)
    if result is None:
        return sh.EMPTY
    return result


def _adapter(fn):
    def call(*args):
        return _to_formulas(fn(*[_from_formulas(a) for a in args]))
    call.__name__ = call.__qualname__ = fn.name
    call.__doc__ = fn.description
    return wrap_func(call)


def install_functions() -> int:
    """Put every registry function into formulas' function table under each of its
    :func:`~zvmplan_addin.evaluate.excel_names`; returns how many functions."""
    load_functions()
    table = get_functions()
    for name, fn in REGISTRY.items():
        adapter = _adapter(fn)
        for alias in excel_names(name):
            table[alias] = adapter
    return len(REGISTRY)


# ------------------------------------------------------------ the grid ----
def _input_value(v):
    if isinstance(v, xlsxio.XlError):
        return XL.get(str(v), XL["#VALUE!"])
    return v


def _filled(shape, value, dtype=object) -> np.ndarray:
    """An object array of ``value``. Not ``np.full``: it turns str subclasses such as
    ``sh.EMPTY`` and formulas' error values into plain strings ('empty', '#REF!')."""
    out = np.empty(shape, dtype=dtype)
    out.fill(value)
    return out


class _Grid:
    """The values of one sheet: a dense object array over its used area (or a dict for a
    huge, sparse one). Missing cells are ``sh.EMPTY``."""

    def __init__(self, sheet: xlsxio.SheetData):
        rows = max(sheet.max_row, 1)
        cols = max(sheet.max_col, 1)
        for area in (f.area for f in sheet.formulas.values() if f.area):
            rows, cols = max(rows, area[2]), max(cols, area[3])
        self.rows, self.cols = rows, cols
        self.dense = rows * cols <= DENSE_LIMIT
        if self.dense:
            self.a = _filled((rows, cols), sh.EMPTY, dtype=object)
        else:
            self.d = {}
        for (r, c), v in sheet.values.items():
            self.set(r, c, _input_value(v))
        for (r, c), f in sheet.formulas.items():  # until recalculated: the cached value
            if (r, c) in sheet.cached:
                self.set(r, c, _input_value(sheet.cached[(r, c)]))

    def get(self, r, c):
        if self.dense:
            if r <= self.rows and c <= self.cols:
                return self.a[r - 1, c - 1]
            return sh.EMPTY
        return self.d.get((r, c), sh.EMPTY)

    def set(self, r, c, v):
        if self.dense:
            if r > self.rows or c > self.cols:
                self._grow(r, c)
            self.a[r - 1, c - 1] = v
        else:
            self.d[(r, c)] = v

    def _grow(self, r, c):
        rows, cols = max(r, self.rows), max(c, self.cols)
        a = _filled((rows, cols), sh.EMPTY, dtype=object)
        a[:self.rows, :self.cols] = self.a
        self.a, self.rows, self.cols = a, rows, cols

    def block(self, r1, c1, r2, c2) -> np.ndarray:
        out = _filled((r2 - r1 + 1, c2 - c1 + 1), sh.EMPTY, dtype=object)
        if self.dense:
            rr, cc = min(r2, self.rows), min(c2, self.cols)
            if rr >= r1 and cc >= c1:
                out[:rr - r1 + 1, :cc - c1 + 1] = self.a[r1 - 1:rr, c1 - 1:cc]
        elif out.size <= len(self.d):
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    v = self.d.get((r, c))
                    if v is not None:
                        out[r - r1, c - c1] = v
        else:
            for (r, c), v in self.d.items():
                if r1 <= r <= r2 and c1 <= c <= c2:
                    out[r - r1, c - c1] = v
        return out


# ----------------------------------------------------------- templates ----
REF, CONST, NAME, RAW, LIT, UNION = range(6)
_LITERAL = re.compile(re.escape(shapes.LITERAL_PREFIX) + r"([0-9]+)_")


class _NotStraight(Exception):
    pass


_MISSING = object()
_FN_KEYS = {"type", "function", "inputs", "outputs", "wait_inputs", "index", "solve_cycle",
            "extra_inputs"}
_DATA_KEYS = {"type", "wait_inputs", "index", "filters"}


class _Program:
    """formulas' compiled function, run as the straight line it is.

    A compiled formula is a ``schedula.DispatchPipe``: data nodes (inputs, constants,
    intermediate results) and function nodes (formulas' own operator and function
    implementations) in an execution order fixed at compile time (``pipe.pipe``). For a
    graph made only of plain nodes -- one producer per data node, no domains or
    sub-dispatchers, which is what formulas builds for ordinary formulas -- this runs the
    same functions in the same order, without schedula's per-call bookkeeping (~0.1 ms
    a cell). Anything else raises :class:`_NotStraight` and the pipe is used. With
    ``ZVMPLAN_ENGINE_CHECK=1`` each template's first cell is evaluated both ways and
    the pipe is kept if they disagree (the test suite runs this way too).

    Parts of the formula that read only inputs shared by every cell of the template
    (absolute references, names, constants) give the same value in every cell -- the
    ``SUM(F$2:F$10001)`` of ``=F2/SUM(F$2:F$10001)`` -- and are computed once per pass
    (:meth:`share`); impure functions (RAND, NOW, ...) never are."""

    def __init__(self, pipe):
        dsp = pipe.dsp
        self.inputs = tuple(pipe.inputs)
        self.output = pipe.outputs[0]
        self.shared: set = set()     # function outputs equal in every cell
        self.cache: dict = {}
        self._impure: set = set()
        defaults, pred = dsp.default_values, dsp.dmap.pred
        steps = []
        for x, _, _ in pipe.pipe:
            v = x[-1][0]
            node = dsp.nodes[v]
            if node["type"] == "data":
                if set(node) - _DATA_KEYS or len(pred.get(v, ())) > 1:
                    raise _NotStraight(v)
                default = _MISSING
                if v in defaults and v not in self.inputs:
                    if pred.get(v):
                        raise _NotStraight(v)
                    default = defaults[v]["value"]
                steps.append((False, v, default, tuple(node.get("filters", ()))))
            elif node["type"] == "function":
                if set(node) - _FN_KEYS or len(node["outputs"]) != 1:
                    raise _NotStraight(v)
                steps.append((True, node["outputs"][0], node["function"], tuple(node["inputs"])))
                if COMPILING in node.get("extra_inputs", {}):
                    self._impure.add(node["outputs"][0])
            else:
                raise _NotStraight(v)
        self.steps = steps

    def share(self, invariant_inputs) -> None:
        """Mark what depends only on ``invariant_inputs`` (and constants)."""
        fixed = set(invariant_inputs)
        self.shared = set()
        for is_function, v, a, b in self.steps:
            if is_function:
                if v not in self._impure and all(k in fixed for k in b):
                    fixed.add(v)
                    self.shared.add(v)
            elif v not in self.inputs and (a is not _MISSING or v in fixed):
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
                    raise _NotStraight(v)
                values[v] = result
                if v in shared:
                    cache[v] = result
            else:
                value = values.get(v, a)
                if value is _MISSING:
                    raise _NotStraight(v)
                for flt in b:
                    value = flt(value)
                values[v] = value
        return values[self.output]


@dataclass
class _Template:
    pipe: Any                        # formulas' compiled function
    plan: list                       # per input: (REF, j) | (CONST, rect) | (NAME, node) | (RAW, v)
    dups: list                       # (j, j0): text references that must resolve alike
    shareable: bool
    unsupported: set
    program: Any = None              # the same, as a straight line (None: use the pipe)
    checked: bool = False            # program and pipe compared on a first cell
    literals: bool = False           # compiled with literals as inputs (a generic shape)
    exact_only: bool = False         # ... which disagreed with the formula as written

    def accepts(self, rects) -> bool:
        return all(rects[j] == rects[j0] for j, j0 in self.dups)

    def run(self, args):
        if self.program is None:
            return _call_pipe(self.pipe, args)
        if self.checked:
            try:
                return _call_program(self.program, args)
            except _NotStraight:
                return _call_pipe(self.pipe, args)
        self.checked = True
        expected = _call_pipe(self.pipe, args)
        try:
            got = _call_program(self.program, args)
        except _NotStraight:
            got = _MISSING
        if not _same(expected, got):
            self.program = None
        return expected


def _call_pipe(pipe, args):
    try:
        return pipe(*args)
    except sh.DispatcherError as exc:
        return XL["#NAME?"] if isinstance(getattr(exc, "ex", None), NotImplementedError) \
            else XL["#VALUE!"]
    except NotImplementedError:
        return XL["#NAME?"]
    except Exception:  # formulas failed on this input: the cell shows #VALUE!
        return XL["#VALUE!"]


def _call_program(program, args):
    try:
        return program(*args)
    except _NotStraight:
        raise
    except NotImplementedError:
        return XL["#NAME?"]
    except Exception:
        return XL["#VALUE!"]


def _same(a, b) -> bool:
    if isinstance(a, Ranges) or isinstance(b, Ranges):
        return False
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            return False
        return all(_same(x, y) for x, y in zip(a.reshape(-1), b.reshape(-1)))
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    try:
        return bool(a == b)
    except Exception:
        return False


@dataclass
class CalcReport:
    """What ``calc`` did. ``errors`` maps a cell (``Sheet!A1``) to (code, reason) for
    the errors zvmplan functions returned (the first 1000)."""
    in_path: str
    out_path: str
    formulas: int = 0
    compiled: int = 0
    seconds: float = 0.0
    errors: dict = field(default_factory=dict)
    error_cells: int = 0
    circular: list = field(default_factory=list)
    spills: int = 0
    warnings: list = field(default_factory=list)
    unsupported: set = field(default_factory=set)
    full_calc_on_load: bool = False
    timings: dict = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"{self.formulas} formula cells recalculated in {self.seconds:.2f} s "
                 f"({self.compiled} compiled)"]
        if self.error_cells:
            parts.append(f"{self.error_cells} show an error")
        if self.circular:
            parts.append(f"{len(self.circular)} on circular references (set to 0)")
        if self.spills:
            parts.append(f"{self.spills} spilled arrays")
        return "; ".join(parts)


def _rect_of(rng: dict) -> tuple:
    """formulas' range dict -> (SHEET, r1, c1, r2, c2)."""
    return (shapes.sheet_key(rng.get("sheet_id") or rng.get("sheet") or ""),
            int(rng["r1"]) or 1, int(rng["n1"]) or 1, int(rng["r2"]), int(rng["n2"]))


class Engine:
    """Recalculate one workbook read by :func:`zvmplan_addin.xlsxio.read_workbook`."""

    def __init__(self, book: xlsxio.Workbook, progress: Callable[[int, int], None] | None = None):
        self.book = book
        self.progress = progress
        self.sheet_index = {shapes.sheet_key(s.name): i for i, s in enumerate(book.sheets)}
        self.grids = [_Grid(s) for s in book.sheets]
        self.reasons: dict[str, tuple[str, str]] = {}
        self.warnings: list[str] = []
        self.unsupported: set[str] = set()
        self.kept_cached = 0
        # nodes: formula cells, then formula-valued defined names
        self.n_sheet, self.n_row, self.n_col, self.n_text, self.n_area = [], [], [], [], []
        self.n_label, self.n_kind = [], []
        self.name_nodes: dict[tuple, int] = {}
        self.name_values: dict[int, Any] = {}
        self.refs: list[dict] = []
        self._collect()
        n = len(self.n_text)
        self.template: list[_Template | None] = [None] * n
        self.rects: list[tuple] = [()] * n
        self.lits: list[tuple] = [()] * n       # each cell's literals (generic shapes)
        self.exact: dict[int, _Template] = {}   # cells compiled as written
        self._reads: dict[tuple, int] = {}      # how many cells read each multi-cell range
        self.generic = not os.environ.get("ZVMPLAN_ENGINE_EXACT")
        self.check = bool(os.environ.get("ZVMPLAN_ENGINE_CHECK"))
        self._scopes = {dn.sheet: shapes.sheet_key(book.sheets[dn.sheet].name)
                        for dn in book.names
                        if dn.sheet is not None and dn.sheet < len(book.sheets)}
        self.used: list[tuple] = [()] * n       # rects read by each node
        self.name_deps: list[tuple] = [()] * n  # name nodes read by each node
        self.status = np.zeros(n, dtype=np.int8)
        self.circular: set[int] = set()
        self.spill_area: dict[int, tuple] = {}
        self.claimed: dict[tuple, int] = {}
        self.compiled = 0

    # --- reading ---------------------------------------------------------
    def _collect(self):
        book = self.book
        self.cells = 0
        for s, sheet in enumerate(book.sheets):
            for (r, c), f in sorted(sheet.formulas.items()):
                if f.kind == "dataTable":
                    self.kept_cached += 1
                    self.warnings.append(f"{self._label(s, r, c)}: a data table; kept its cached value")
                    continue
                self._add_node(s, r, c, f.text, f.area if f.kind == "array" else None, kind=f.kind)
        self.cells = len(self.n_text)
        # defined names: ranges are bound at compile time, formulas become nodes
        global_refs, local_refs = {}, [dict() for _ in book.sheets]
        for dn in book.names:
            key = dn.name.upper()
            if key.startswith("_XLNM.") or not dn.text.strip():
                continue
            target = global_refs if dn.sheet is None or dn.sheet >= len(book.sheets) \
                else local_refs[dn.sheet]
            text = dn.text.strip().lstrip("=")
            rng = None
            if shapes.reference(text) is not None:  # exactly one reference, not a formula
                try:
                    rng = Ranges().push(text)
                    if len(rng.ranges) != 1 or not rng.ranges[0].get("sheet_id"):
                        rng = None
                except Exception:
                    rng = None
            if rng is not None:
                target[key] = rng
            else:
                target[key] = None
                s = dn.sheet if dn.sheet is not None and dn.sheet < len(book.sheets) else 0
                nid = self._add_node(s if book.sheets else None, 0, 0, text, None, label=dn.name)
                self.name_nodes[(dn.sheet if target is not global_refs else None, key)] = nid
        self.refs = [{**global_refs, **local} for local in local_refs] or [global_refs]

    def _add_node(self, s, r, c, text, area, label=None, kind="name"):
        self.n_kind.append(kind)
        self.n_sheet.append(s)
        self.n_row.append(r)
        self.n_col.append(c)
        self.n_text.append(text)
        self.n_area.append(area)
        self.n_label.append(label or self._label(s, r, c))
        return len(self.n_text) - 1

    def _label(self, s, r, c):
        return f"{_display(self.book.sheets[s].name)}!{shapes.a1(r, c)}"

    # --- compiling -------------------------------------------------------
    def compile_all(self):
        cache: dict[str, list[_Template]] = {}
        for i in range(len(self.n_text)):
            s, r, c, text = self.n_sheet[i], self.n_row[i], self.n_col[i], self.n_text[i]
            sheet_name = self.book.sheets[s].name if s is not None else ""
            shp = None
            if i < self.cells:
                shp = shapes.shape(text, sheet_name, r, c, generic=self.generic,
                                   scope=self._scopes.get(s, ""))
            t = None
            if shp is not None:
                self.rects[i], self.lits[i] = shp.rects, shp.literals
                # several templates per shape when references coincide in some cells
                # (=F(A1)+$A$1 in row 1 reads one cell twice, in row 2 two cells)
                t = next((t for t in cache.get(shp.key, ()) if t.accepts(shp.rects)), None)
            if t is None:
                t = self._compile(i, shp)
                if shp is not None and t.shareable and len(cache.get(shp.key, ())) < 8:
                    cache.setdefault(shp.key, []).append(t)
            self.template[i] = t
            used, names = [], []
            for kind, x in t.plan:
                if kind == REF:
                    used.append(self.rects[i][x])
                elif kind == CONST:
                    used.append(x)
                elif kind == UNION:
                    used.extend(x)
                elif kind == NAME:
                    names.append(x)
            self.used[i], self.name_deps[i] = tuple(used), tuple(names)
            self.unsupported |= t.unsupported
            for rect in used:
                if rect[1] != rect[3] or rect[2] != rect[4]:
                    self._reads[rect] = self._reads.get(rect, 0) + 1
        self._share_invariants()

    def _share_invariants(self):
        """Tell each template's program which inputs are the same in all its cells."""
        seen: dict[int, tuple[_Template, list]] = {}
        for i, t in enumerate(self.template):
            if t is None or t.program is None:
                continue
            entry = seen.get(id(t))
            if entry is None:
                entry = seen[id(t)] = (t, [set() for _ in t.plan])
            for k, (kind, x) in enumerate(t.plan):
                if kind == REF:
                    entry[1][k].add(self.rects[i][x])
                elif kind == LIT:
                    entry[1][k].add((type(self.lits[i][x]), self.lits[i][x]))
        for t, rects in seen.values():
            t.program.share(name for name, (kind, _), r in zip(t.program.inputs, t.plan, rects)
                            if kind not in (REF, LIT) or len(r) == 1)

    def _compile(self, i, shp, exact: bool = False) -> _Template:
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
        _Reasons.cell = self.n_label[i]  # compiling evaluates constant calls
        try:
            tokens, builder = formulas.Parser(True).ast("=" + text, context=ctx)
            if not exact and not _literals_stand_alone(tokens, len(shp.literals)):
                _Reasons.cell = None
                self.compiled -= 1
                return self._compile(i, shp, exact=True)
            cell = Ranges().push(f"{_quote(sheet)}!{shapes.a1(r or 1, c or 1)}")
            pipe = builder.compile(references=refs, context=ctx, **{CELL: cell})
        except Exception as exc:
            return self._broken(i, exc)
        finally:
            _Reasons.cell = None
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
                    plan.append((CONST, _rect_of(rng.ranges[0])))
                continue
            if rng is None and isinstance(key, str):  # formulas cannot name every sheet
                rect = self._rect_from_name(key)
                if rect is not None:
                    j = index.get(rect)
                    plan.append((CONST, rect) if j is None else (REF, j))
                    shareable = shareable and j is not None
                    continue
            if isinstance(rng, Ranges) and len(rng.ranges) > 1:  # a union: (A1,B2:B4)
                plan.append((UNION, tuple(_rect_of(g) for g in rng.ranges)))
                shareable = False
                continue
            if not isinstance(rng, Ranges) or len(rng.ranges) != 1:
                code = "#NAME?" if rng is None else "#REF!"
                plan.append((RAW, XL[code]))
                if rng is None and isinstance(key, str):
                    unsupported.add(key)
                continue
            rect = _rect_of(rng.ranges[0])
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
            program = None if os.environ.get("ZVMPLAN_ENGINE_PIPE") else _Program(pipe)
        except _NotStraight:
            program = None
        return _Template(pipe, plan, dups, shareable, unsupported, program,
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

    def _broken(self, i, exc) -> _Template:
        """A formula formulas cannot compile: keep the value cached in the file."""
        self.kept_cached += 1
        self.warnings.append(f"{self.n_label[i]}: cannot evaluate ={self.n_text[i]} "
                             f"({type(exc).__name__}); kept its cached value")
        return _Template(None, [], [], False, set())

    def _name_node(self, s, key):
        nid = self.name_nodes.get((s, key))
        if nid is None:
            nid = self.name_nodes.get((None, key))
        return nid

    # --- dependencies ----------------------------------------------------
    def _build_index(self):
        """Per sheet and column: the sorted rows holding formula cells, and their nodes
        (the anchor's node for every cell of an array formula or a spill)."""
        owner: dict[tuple, int] = {}
        for i in range(self.cells):
            s, r, c, area = self.n_sheet[i], self.n_row[i], self.n_col[i], self.n_area[i]
            if area is None:
                area = self.spill_area.get(i, (r, c, r, c))
            for rr in range(area[0], area[2] + 1):
                for cc in range(area[1], area[3] + 1):
                    owner.setdefault((s, rr, cc), i)
        self.owner = owner
        by_col: dict[tuple, list] = {}
        for (s, r, c), i in owner.items():
            by_col.setdefault((s, c), []).append((r, i))
        self.fcols = [dict() for _ in self.book.sheets]
        for (s, c), items in by_col.items():
            items.sort()
            self.fcols[s][c] = (np.array([r for r, _ in items], dtype=np.int64),
                                np.array([i for _, i in items], dtype=np.int64))
        self.fcol_keys = [np.array(sorted(d), dtype=np.int64) for d in self.fcols]

    def _ids_in(self, rect) -> np.ndarray:
        sheet, r1, c1, r2, c2 = rect
        s = self.sheet_index.get(sheet)
        if s is None:
            return NO_IDS
        if r1 == r2 and c1 == c2:
            i = self.owner.get((s, r1, c1))
            return NO_IDS if i is None else np.array([i], dtype=np.int64)
        keys = self.fcol_keys[s]
        lo, hi = np.searchsorted(keys, c1, "left"), np.searchsorted(keys, c2, "right")
        parts = []
        for c in keys[lo:hi]:
            rows, ids = self.fcols[s][int(c)]
            a, b = np.searchsorted(rows, r1, "left"), np.searchsorted(rows, r2, "right")
            if b > a:
                parts.append(ids[a:b])
        if not parts:
            return NO_IDS
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _unfinished(self, i) -> np.ndarray:
        out = []
        status = self.status
        for rect in self.used[i]:
            if rect in self._done_rects:
                continue
            ids = self._ids_in(rect)
            if ids.size:
                ids = ids[status[ids] != DONE]
            if ids.size:
                out.append(ids)
            else:
                self._done_rects.add(rect)
        for nid in self.name_deps[i]:
            if nid is not None and status[nid] != DONE:
                out.append(np.array([nid], dtype=np.int64))
        if not out:
            return NO_IDS
        return out[0] if len(out) == 1 else np.concatenate(out)

    # --- evaluating ------------------------------------------------------
    def run(self):
        """Evaluate every node in dependency order; a second pass when a spilled array
        landed on cells that other formulas read."""
        self.compile_all()
        self._pass()
        if self.spill_area and self._spills_are_read():
            self._pass()

    def _spills_are_read(self) -> bool:
        """Does some formula read a cell that a spill filled (other than its anchor)?"""
        self._build_index()  # now with the spilled cells, owned by their anchors
        spills = self.spill_area
        for i in range(len(self.n_text)):
            for rect in self.used[i]:
                for j in self._ids_in(rect).tolist():
                    area = spills.get(j)
                    if j == i or area is None:
                        continue
                    _, r1, c1, r2, c2 = rect
                    rows = range(max(r1, area[0]), min(r2, area[2]) + 1)
                    cols = range(max(c1, area[1]), min(c2, area[3]) + 1)
                    if len(rows) * len(cols) > 1 or (rows and cols and (
                            rows[0], cols[0]) != (self.n_row[j], self.n_col[j])):
                        return True
        return False

    def _pass(self):
        self._build_index()
        for t in {id(t): t for t in self.template}.values():
            if t is not None and t.program is not None:
                t.program.cache = {}
        self._done_rects: set = set()
        self._rcache: dict = {}
        self.status[:] = PENDING
        total, done = len(self.n_text), 0
        status = self.status
        for start in range(total):
            if status[start] == DONE:
                continue
            stack = [start]
            while stack:
                i = stack[-1]
                st = status[i]
                if st == DONE:
                    stack.pop()
                    continue
                if st == PENDING:
                    status[i] = ACTIVE
                    deps = self._unfinished(i)
                    if deps.size:
                        dst = status[deps]
                        if (dst == ACTIVE).any():
                            self._cycle(stack, set(deps[dst == ACTIVE].tolist()))
                        pending = deps[dst == PENDING]
                        if pending.size:
                            stack.extend(pending[::-1].tolist())
                            continue
                self._evaluate(i)
                status[i] = DONE
                stack.pop()
                done += 1
                if self.progress is not None and (done & 255 == 0 or done == total):
                    self.progress(done, total)

    def _cycle(self, stack, active):
        members = []
        for j in reversed(stack):
            if self.status[j] == ACTIVE:
                members.append(j)
                if j in active:
                    break
        self.circular.update(members)

    def _ranges(self, rect) -> Ranges:
        """The value of a rectangle as formulas passes a reference to its functions."""
        cached = self._rcache.get(rect)
        if cached is not None:
            return cached
        sheet, r1, c1, r2, c2 = rect
        s = self.sheet_index.get(sheet)
        if s is not None:
            grid = self.grids[s]
            if r1 == r2 and c1 == c2:
                value = np.empty((1, 1), dtype=object)
                value[0, 0] = grid.get(r1, c1)
                return _make_ranges(sheet, r1, c1, r2, c2, value)
            if r1 == 1 and r2 == shapes.MAX_ROW:
                r2 = max(grid.rows, 1)
            if c1 == 1 and c2 == shapes.MAX_COL:
                c2 = max(grid.cols, 1)
            if (r2 - r1 + 1) * (c2 - c1 + 1) > BIG_RANGE:  # only empty cells beyond the grid
                r2, c2 = max(r1, min(r2, grid.rows)), max(c1, min(c2, grid.cols))
            value = grid.block(r1, c1, r2, c2)
        else:
            value = _filled((min(r2 - r1 + 1, 1000), min(c2 - c1 + 1, 1000)), XL["#REF!"],
                            dtype=object)
            r2, c2 = r1 + value.shape[0] - 1, c1 + value.shape[1] - 1
        rng = _make_ranges(sheet, r1, c1, r2, c2, value)
        if rect in self._done_rects and self._reads.get(rect, 0) > 1:
            self._rcache[rect] = rng  # final, and read again (not a running total's range)
        return rng

    def _args(self, i, t: _Template) -> list:
        args = []
        rects = self.rects[i]
        for kind, x in t.plan:
            if kind == REF:
                args.append(self._ranges(rects[x]))
            elif kind == CONST:
                args.append(self._ranges(x))
            elif kind == NAME:
                args.append(self.name_values.get(x, XL["#NAME?"]) if x is not None else XL["#NAME?"])
            elif kind == LIT:
                args.append(self.lits[i][x])
            elif kind == UNION:
                parts = [self._ranges(rect) for rect in x]
                union = Ranges(sum((p.ranges for p in parts), ()), {})
                for p in parts:
                    union.values.update(p.values)
                args.append(union)
            else:
                args.append(x)
        return args

    def _evaluate(self, i):
        t = self.template[i]
        if t.pipe is None:      # could not compile: the cached value stays
            return
        _Reasons.cell = self.n_label[i]
        try:
            if self.check and not t.checked and t.literals and t.shareable:
                result = self._first_generic(i, t)
            elif t.exact_only:
                exact = self.exact.get(i) or self._compile(i, None, exact=True)
                self.exact[i] = exact
                result = exact.run(self._args(i, exact)) if exact.pipe is not None else \
                    XL["#VALUE!"]
            else:
                result = t.run(self._args(i, t))
        finally:
            _Reasons.cell = None
        if isinstance(result, Ranges):
            result = result.value
        if i >= self.cells:  # a defined name
            self.name_values[i] = result
            return
        s, r, c = self.n_sheet[i], self.n_row[i], self.n_col[i]
        grid, area = self.grids[s], self.n_area[i]
        if i in self.circular:
            result = 0.0
        if area is not None:
            shape = (area[2] - area[0] + 1, area[3] - area[1] + 1)
            arr = np.atleast_2d(np.asarray(result, dtype=object))
            arr = _fit(arr, shape)
            for dr in range(shape[0]):
                for dc in range(shape[1]):
                    grid.set(area[0] + dr, area[1] + dc, _scalar(arr[dr, dc]))
            return
        if isinstance(result, np.ndarray) and result.size > 1:
            self._spill(i, np.atleast_2d(result))
            return
        if isinstance(result, np.ndarray):
            result = result.reshape(-1)[0] if result.size else sh.EMPTY
        grid.set(r, c, _scalar(result))

    def _first_generic(self, i, t):
        """The first cell of a shape compiled with its literals as inputs: evaluated also
        from the formula as written; if they differ, every cell of the shape is compiled
        as written (slower, never wrong)."""
        result = t.run(self._args(i, t))
        exact = self._compile(i, None, exact=True)
        expected = exact.run(self._args(i, exact)) if exact.pipe is not None else _MISSING
        if not _same(_plain_result(result), _plain_result(expected)):
            t.exact_only = True
            self.exact[i] = exact
            log.debug("%s: =%s differs with its literals as inputs; compiling its shape "
                      "cell by cell", self.n_label[i], self.n_text[i])
            return expected if expected is not _MISSING else result
        return result

    def _spill(self, i, arr):
        s, r, c = self.n_sheet[i], self.n_row[i], self.n_col[i]
        h, w = arr.shape
        area = (r, c, r + h - 1, c + w - 1)
        sheet, grid = self.book.sheets[s], self.grids[s]
        blocked = area[2] > shapes.MAX_ROW or area[3] > shapes.MAX_COL
        if self.n_kind[i] != "plain":  # a shared formula's master or copy: cannot be one
            blocked = True
        if not blocked:
            for rr in range(r, area[2] + 1):
                for cc in range(c, area[3] + 1):
                    if (rr, cc) == (r, c):
                        continue
                    if (rr, cc) in sheet.values or (rr, cc) in sheet.formulas or \
                            self.claimed.get((s, rr, cc), i) != i:
                        blocked = True
                        break
                if blocked:
                    break
        if blocked:
            self.warnings.append(f"{self.n_label[i]}: the {h}x{w} result cannot spill into "
                                 f"{shapes.a1(r, c)}:{shapes.a1(area[2], area[3])} (not empty); "
                                 "the cell shows #VALUE! (#SPILL! in Excel 365)")
            grid.set(r, c, XL["#VALUE!"])
            return
        old = self.spill_area.get(i)
        if old is not None and old != area:  # the result changed shape: free the old cells
            for rr in range(old[0], old[2] + 1):
                for cc in range(old[1], old[3] + 1):
                    if self.claimed.get((s, rr, cc)) == i:
                        del self.claimed[(s, rr, cc)]
                        grid.set(rr, cc, sh.EMPTY)
        self.spill_area[i] = area
        for dr in range(h):
            for dc in range(w):
                self.claimed[(s, r + dr, c + dc)] = i
                grid.set(r + dr, c + dc, _scalar(arr[dr, dc]))

    # --- results ---------------------------------------------------------
    def updates(self) -> dict[int, dict[int, dict[int, xlsxio.CellUpdate]]]:
        """sheet -> row -> col -> the value to cache (array_ref set on spilled anchors)."""
        out: dict[int, dict] = {}
        for i in range(self.cells):
            if self.template[i].pipe is None:
                continue
            s, r, c = self.n_sheet[i], self.n_row[i], self.n_col[i]
            grid = self.grids[s]
            rows = out.setdefault(s, {})
            area = self.n_area[i]
            spill = self.spill_area.get(i) if area is None else None
            if spill is not None:
                ref = f"{shapes.a1(spill[0], spill[1])}:{shapes.a1(spill[2], spill[3])}"
                for rr in range(spill[0], spill[2] + 1):
                    for cc in range(spill[1], spill[3] + 1):
                        rows.setdefault(rr, {})[cc] = xlsxio.CellUpdate(
                            _for_file(grid.get(rr, cc)), ref if (rr, cc) == (r, c) else None)
                continue
            area = area or (r, c, r, c)
            for rr in range(area[0], area[2] + 1):
                for cc in range(area[1], area[3] + 1):
                    rows.setdefault(rr, {})[cc] = xlsxio.CellUpdate(_for_file(grid.get(rr, cc)))
        return out

    def report(self, report: CalcReport) -> CalcReport:
        report.formulas = self.cells - self.kept_cached
        report.compiled = self.compiled
        report.circular = sorted(self.n_label[i] for i in self.circular)
        report.spills = len(self.spill_area)
        report.warnings = list(self.warnings)
        report.unsupported = set(self.unsupported)
        errors, shown = 0, {}
        for i in range(self.cells):
            if self.template[i].pipe is None:
                continue
            v = self.grids[self.n_sheet[i]].get(self.n_row[i], self.n_col[i])
            if isinstance(v, FXlError):
                errors += 1
                why = self.reasons.get(self.n_label[i])
                if why is not None and why[0] == str(v) and len(shown) < 1000:
                    shown[self.n_label[i]] = why  # only errors the cell still shows
        report.error_cells = errors
        report.errors = shown
        report.full_calc_on_load = bool(self.kept_cached or self.unsupported)
        return report


_SHEET_IDS: dict[str, str] = {}


def _make_ranges(sheet, r1, c1, r2, c2, value) -> Ranges:
    """A formulas ``Ranges`` holding ``value`` (a 2-D object array of the right shape):
    the dict formulas' ``range2parts`` makes, built directly (a test checks they agree)."""
    sheet_id = _SHEET_IDS.get(sheet)
    if sheet_id is None:
        sheet_id = _SHEET_IDS[sheet] = range2parts(
            ("name", "n1", "n2"), sheet=sheet, c1="A", r1="1", c2="A", r2="1")["sheet_id"]
    l1, l2 = _letters(c1), _letters(c2)
    ref = f"{l1}{r1}" if r1 == r2 and c1 == c2 else f"{l1}{r1}:{l2}{r2}"
    name = f"{sheet_id}!{ref}"
    geom = {"r1": str(r1), "r2": str(r2), "c1": l1, "c2": l2, "n1": c1, "n2": c2, "ref": ref,
            "name": name, "sheet": sheet, "sheet_id": sheet_id}
    rng = Ranges((geom,), {name: (geom, value)})
    return rng


_LETTERS: dict[int, str] = {}


def _letters(c: int) -> str:
    letters = _LETTERS.get(c)
    if letters is None:
        letters = _LETTERS[c] = shapes.col_letters(c)
    return letters


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


def _plain_result(v):
    if isinstance(v, Ranges):
        try:
            return v.value
        except Exception:
            return v
    return v


def _quote(sheet: str) -> str:
    """A sheet name quoted for formulas' range parser (always quoted: it cannot read
    an unquoted name such as 000)."""
    return "'" + sheet.replace("'", "''") + "'"


def _display(sheet: str) -> str:
    """A sheet name as Excel writes it in a reference: quoted unless a plain name."""
    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", sheet) and \
        not re.fullmatch(r"[A-Za-z]{1,3}[0-9]+|[RrCc][0-9]*", sheet)
    return sheet if plain else _quote(sheet)


def _fit(arr: np.ndarray, shape) -> np.ndarray:
    """An array result into an array formula's range, as Excel does: a single value or a
    single row/column is repeated; otherwise cells beyond the result are #N/A."""
    h, w = arr.shape
    if (h, w) == tuple(shape):
        return arr
    if h == 1:
        arr = np.repeat(arr, shape[0], axis=0)
    if w == 1:
        arr = np.repeat(arr, shape[1], axis=1)
    out = _filled(shape, XL["#N/A"], dtype=object)
    hh, ww = min(arr.shape[0], shape[0]), min(arr.shape[1], shape[1])
    out[:hh, :ww] = arr[:hh, :ww]
    return out


def _scalar(v):
    """A result element -> a cell value (errors stay formulas' error values)."""
    if isinstance(v, FXlError):
        return v if str(v) in XL else XL["#VALUE!"]
    if v is sh.EMPTY or v is None:
        return 0.0
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else XL["#NUM!"]
    if isinstance(v, str):
        return str(v)
    if isinstance(v, np.ndarray):
        return _scalar(v.reshape(-1)[0]) if v.size else 0.0
    return XL["#VALUE!"]


def _for_file(v):
    if isinstance(v, FXlError):
        return xlsxio.XlError(str(v))
    if v is sh.EMPTY or v is None:
        return 0.0
    return v


# ---------------------------------------------------------------- calc ----
def calc(in_path, out_path=None, *, in_place: bool = False,
         progress: Callable[[int, int], None] | None = None,
         package: xlsxio.XlsxPackage | None = None) -> CalcReport:
    """Recalculate every formula of ``in_path`` and write ``out_path`` with the formulas
    kept and their values cached. ``in_path`` is never modified unless ``in_place``
    (then ``out_path`` must be None or the same file). ``package``: ``in_path`` already
    opened with :func:`~zvmplan_addin.xlsxio.safe_open_xlsx` (closed on return). Raises
    :class:`~zvmplan_addin.xlsxio.UnsafeWorkbookError` for a file it refuses and
    :class:`EngineError` for a bad request."""
    in_path = os.fspath(in_path)
    try:
        return _calc(in_path, out_path, in_place, progress, package)
    finally:
        if package is not None:
            package.close()


def _calc(in_path, out_path, in_place, progress, package) -> CalcReport:
    if in_place:
        if out_path is not None and not _same_file(in_path, os.fspath(out_path)):
            raise EngineError("--in-place writes the input file; do not also give -o")
        out_path = os.path.realpath(in_path)  # through a symlink, to the real file
    elif out_path is None:
        raise EngineError("no output file: give -o OUT.xlsx, or --in-place")
    else:
        out_path = os.fspath(out_path)
        if _same_file(in_path, out_path):
            raise EngineError(f"{out_path} is the input file; use --in-place to overwrite it")
    out_dir = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(out_dir):
        raise EngineError(f"{out_dir}: no such directory")
    report = CalcReport(in_path, out_path)
    t0 = time.perf_counter()
    with (package or xlsxio.safe_open_xlsx(in_path)) as pkg:
        t1 = time.perf_counter()
        book = xlsxio.read_workbook(pkg)
        t2 = time.perf_counter()
        install_functions()
        engine = Engine(book, progress)
        _Reasons.log = engine.reasons
        try:
            with _quiet():
                engine.run()
        finally:
            _Reasons.log = None
        t3 = time.perf_counter()
        replaced = {}
        for s, rows in engine.updates().items():
            part = book.sheets[s].part
            xml = xlsxio.decode_xml(pkg.read(part), part)
            replaced[part] = xlsxio.rewrite_sheet(xml, rows).encode("utf-8")
        engine.report(report)
        xlsxio.write_package(pkg, out_path, replaced, report.full_calc_on_load)
        t4 = time.perf_counter()
    report.seconds = t4 - t0
    report.timings = {"check": t1 - t0, "read": t2 - t1, "evaluate": t3 - t2, "write": t4 - t3}
    return report


@contextlib.contextmanager
def _quiet():
    """Evaluate without noise: an error in a formula is a value, not a log record
    (schedula logs each failing function with its traceback), a warning or numpy
    floating-point chatter."""
    loggers = [logging.getLogger(name) for name in ("schedula", "formulas")]
    levels = [lg.level for lg in loggers]
    try:
        for lg in loggers:
            lg.setLevel(logging.CRITICAL + 1)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def evaluate_formula(text: str):
    """Evaluate a formula without cells (``zvmplan eval`` when it is not one literal call).

    Returns a value as the registry does (float, str, bool, 2-D object array or
    :class:`ExcelError` with the reason if a zvmplan function gave one)."""
    install_functions()
    text = text.strip()
    if not text.startswith("="):
        text = "=" + text
    reasons: dict = {}
    _Reasons.log, _Reasons.cell = reasons, "eval"
    try:
        try:
            with _quiet():
                pipe = formulas.Parser().ast(text)[1].compile()
        except Exception as exc:
            return ExcelError("#NAME?", f"cannot read the formula ({type(exc).__name__})")
        if pipe.inputs:
            return ExcelError("#REF!", "eval takes constants only, not cell references or "
                              f"names ({', '.join(map(str, pipe.inputs))})")
        with _quiet():
            try:
                result = pipe()
            except sh.DispatcherError as exc:
                bad = isinstance(getattr(exc, "ex", None), NotImplementedError)
                return ExcelError("#NAME?" if bad else "#VALUE!",
                                  "a function the engine does not implement" if bad else "")
    finally:
        _Reasons.log = _Reasons.cell = None
    if isinstance(result, Ranges):
        result = result.value
    reason = next(iter(reasons.values()), ("", ""))[1]
    if isinstance(result, np.ndarray) and result.size > 1:
        out = np.empty(np.atleast_2d(result).shape, dtype=object)
        for idx, v in np.ndenumerate(np.atleast_2d(result)):
            v = _scalar(v)
            out[idx] = ExcelError(str(v)) if isinstance(v, FXlError) else v
        return out
    if isinstance(result, np.ndarray):
        result = result.reshape(-1)[0] if result.size else sh.EMPTY
    v = _scalar(result)
    if isinstance(v, FXlError):
        return ExcelError(str(v), reason)
    return v


__all__ = ["calc", "CalcReport", "Engine", "EngineError", "install_functions",
           "evaluate_formula"]

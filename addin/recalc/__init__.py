"""The headless recalculation engine: ``calc(in_path, out_path)``.

Formulas are parsed, compiled and evaluated by the ``formulas`` package, with every
registry function installed in its function table (:mod:`.install`); the package is read
and rewritten by :mod:`zvmplan_addin.xlsxio`, which keeps the file as it was apart from
the cached values. A newcomer can read the stages in order, one module each:

1. :mod:`.read` -- the workbook -> one value grid per sheet and the *nodes* to evaluate
   (formula cells, then defined names that are formulas);
2. :mod:`.shapes` -- the *shape* of a formula: its text with references (and literals)
   made slots, so one compiled function serves a whole column;
3. :mod:`.compile` -- each shape compiled once by ``formulas`` into a
   :class:`~.program.Template` (:mod:`.program` runs it as a straight line of formulas'
   own functions); :mod:`.filldown` finds the cells of a formula filled down a column,
   which take their first cell's template and get their references all at once;
4. :mod:`.order` -- dependency order: a topological order of *units* (a column group --
   one formula filled down a column whose cells do not read each other -- is one unit),
   then a depth-first walk cell by cell for what is left (circular references);
   :mod:`.index` finds the formula cells inside a range;
5. :mod:`.columnar` -- a column group evaluated at once: each input gathered once for
   all its cells, the program's steps run on columns (see its docstring for which
   functions are vectorised); :mod:`.evaluate` -- one cell's inputs gathered, its program
   run, its result stored (spills and array formulas too);
6. :mod:`.write` -- the values to cache, written back by ``xlsxio``, and the report.

:mod:`.calc` runs them on one file; :mod:`.formula` evaluates one formula without cells
(``zvmplan eval``); :mod:`.values` holds the value conventions all stages share.

Why not ``formulas.ExcelModel``? It compiles every cell (constants too) into one
``schedula`` graph: on a 10,000-row planner sheet that is ~13 s to load and ~7 s to
calculate, in ~730 MB, spent parsing and compiling each formula (~1 ms each, although
the rows differ only in their row number) and in ``schedula``'s bookkeeping. Here each
distinct formula *structure* compiles once; the parts of a shape that read only inputs
every cell shares (``SUM(F$2:F$10001)`` in ``=F2/SUM(F$2:F$10001)``) are computed once
per pass; cell values live in one numpy object grid per sheet, so a range is a slice.
``ZVMPLAN_ENGINE_CELLWISE=1`` evaluates every cell on its own (no column groups), as the
engine did before; the tests compare the two.

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
  open; so does a builtin that ``formulas`` does not implement (#NAME? here). Such a
  kept value is *stale*: the report lists it (``stale``) and ``calc(...,
  keep_stale=False)`` -- what ``zvmplan calc`` does unless given ``--keep-stale`` --
  writes nothing instead.
* Only global and sheet-local defined names that are ranges or formulas are
  supported; external workbooks and structured references are not.

Importing this package is light (:mod:`.shapes` needs only the standard library); the
names below load the engine on first use.
"""
from __future__ import annotations

import importlib

_EXPORTS = {"calc": "calc", "CalcReport": "write", "Engine": "calc", "EngineError": "calc",
            "StaleValues": "calc",
            "install_functions": "install", "evaluate_formula": "formula"}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


__all__ = list(_EXPORTS)

"""The headless recalculation engine: ``calc(in_path, out_path)``.

Formulas are parsed, compiled and evaluated by the ``formulas`` package, with every
registry function installed in its function table (:mod:`.install`); the package is read
and rewritten by :mod:`zvmplan_addin.xlsx`, which keeps the file as it was apart from
the cached values. A newcomer can read the stages in order, one module each; each is a
function or a small class that takes what the stages before it made and gives one
result (none calls a later stage), and :mod:`.engine` composes them top to bottom:

==  ==================  ===========================================  =======================
#   stage               does                                         gives
==  ==================  ===========================================  =======================
1   :mod:`.read`        the workbook -> one value grid per sheet     :class:`~.read.Nodes`
                        and the *nodes* to evaluate (formula cells,
                        then defined names that are formulas)
2   :mod:`.compile`     each node's *shape* (:mod:`.shapes`: its     :class:`~.compile.Compiled`
                        text with references and literals as
                        slots) compiled once by ``formulas`` into a
                        :class:`~.program.Template` (:mod:`.program`
                        runs it as a straight line); :mod:`.filldown`
                        gives a filled column its references at once
3   :mod:`.index`       where the formula cells are: a range's       :class:`~.index.CellIndex`
                        formula cells by binary search
4   :mod:`.groups`,     column groups (one formula filled down a     :class:`~.groups.ColumnGroup`,
    :mod:`.order`       column, its cells not reading each other),   the steps of
                        then a topological order of units and a      :class:`~.order.EvaluationOrder`
                        depth-first walk for what is left
                        (circular references)
5   :mod:`.columns`,    a column group at once (its inputs gathered  values in the grids,
    :mod:`.columnar`,   once, the program's steps run on columns by  :class:`~.cells.Results`
    :mod:`.cells`       :mod:`.columnar`), every other node cell by
                        cell (spills and array formulas too)
6   :mod:`.write`       the values to cache, written back by         ``updates``,
                        :mod:`zvmplan_addin.xlsx`, and the report    :class:`~.write.CalcReport`
==  ==================  ===========================================  =======================

How it runs is one :class:`~.options.Options` object, built once by the caller (the CLI
reads the environment there: ``ZVMPLAN_ENGINE_CELLWISE=1`` evaluates every cell on its
own, as the engine did before column groups; the tests compare the two). What a run
notes besides values -- the reason behind each error, warnings -- is its own
:class:`~.runlog.RunLog`. :mod:`.oneformula` evaluates one formula without cells (``zvmplan
eval``) through the same stages; :mod:`.values` holds the value conventions all stages
share; :mod:`.install` puts the registry's functions in formulas' function table.

Why not ``formulas.ExcelModel``? It compiles every cell (constants too) into one
``schedula`` graph: on a 10,000-row planner sheet that is ~13 s to load and ~7 s to
calculate, in ~730 MB, spent parsing and compiling each formula (~1 ms each, although
the rows differ only in their row number) and in ``schedula``'s bookkeeping. Here each
distinct formula *structure* compiles once; the parts of a shape that read only inputs
every cell shares (``SUM(F$2:F$10001)`` in ``=F2/SUM(F$2:F$10001)``) are computed once
per pass; cell values live in one numpy object grid per sheet, so a range is a slice.

Semantics worth knowing
-----------------------
* An empty cell is ``None`` to a zvmplan function and 0 (or "") to Excel builtins, as
  in Excel. A formula whose result is an empty cell shows 0.
* Circular references (:mod:`.cycles`): a cell on a cycle whose value depends on the
  cycle gets 0 (what Excel shows when iterative calculation is off) and the report
  lists it; one whose value does not (an IF that never reads the cycle) is computed.
  A workbook asking for iterative calculation (``calcPr iterate``) is iterated.
* Array results. An array formula (``t="array"``, Ctrl+Shift+Enter or an Excel 365
  dynamic array) fills its stored range, padding with #N/A and cropping as Excel does.
  A plain formula (no ``t="array"``) is a legacy formula (:mod:`.legacy`): a range an
  operator or a value parameter reads, or that is the whole result, is implicitly
  intersected with the formula's row or column, as Excel does (``=B:B*2`` in C5 reads
  B5; docs/engine.md), and an array result of Excel's functions shows its top-left
  element. A plain formula whose zvmplan function returns an array (a zvmplan function
  given a range, or ``ZVM_TRANSPORTS()``) *spills*: if the cells it needs are empty the formula is
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
* Defined names (global and sheet-local) are replaced in each formula by their
  definition, its relative references moved to the cell using the name, as Excel
  reads them (:mod:`.names`); ``Other!rate`` is sheet Other's own ``rate``.
  Structured references (``Sales[Amount]``, ``[@Cost]``) become the A1 references
  they stand for (:mod:`.tables`); a reference to another workbook reads the values
  Excel cached for it (:mod:`.external`).

Importing this package is light (:mod:`.shapes` needs only the standard library); the
names below load the engine on first use.
"""
from __future__ import annotations

import importlib

_EXPORTS = {"calc": "engine", "CalcReport": "write", "Engine": "engine", "EngineError": "engine",
            "StaleValues": "engine",
            "Options": "options", "install_functions": "install",
            "evaluate_formula": "oneformula"}


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


__all__ = list(_EXPORTS)

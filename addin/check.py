"""``zvmplan check IN.xlsx``: recalculate a workbook in memory and compare every formula
cell with the value Excel saved in it.

The values cached in the file are taken out of the formula cells (and of the cells an
array formula fills) *before* the engine runs, so every value compared is one the engine
computed from the workbook's inputs alone: a cell the engine cannot compute is never
"agreeing" because it kept Excel's value, and no formula reads another's cached value.
IN is read only, never written.

Comparison rules (:func:`same_value`; docs/engine.md gives the evidence):

* numbers agree when equal to :data:`SIGNIFICANT` (15) significant digits, Excel's own
  precision: ``|a - b| <= 0.5e-14 * max(|a|, |b|)`` (a relative 5e-15, so 0.1+0.2 and
  0.3 agree, and a result Excel rounds to 0 does not agree with 1e-17);
* text exactly (case and spaces count); booleans exactly; a boolean never equals a
  number (TRUE is not 1);
* errors by their code (``#N/A`` equals ``#N/A``);
* a formula whose result is an empty cell is cached by Excel as 0, and as ``""`` when it
  returns empty text: compared as written, so 0 and ``""`` differ;
* a formula cell with no cached value (a file saved without values) is not compared and
  is counted as such;
* a formula calling a volatile function whose value is drawn or read from the clock
  (:data:`VOLATILE`: RAND, RANDBETWEEN, RANDARRAY, NOW, TODAY) cannot give Excel's value
  again: it is not compared, and its saved value is kept as an input, so the formulas
  that read it are compared with Excel's on the same draw.

Each cell that does not agree is listed with why, when the engine knows: the reason of
an error it returned, a function it does not implement, a formula it cannot compile.
"""
from __future__ import annotations

import io
import json
import math
import re
import zipfile
from dataclasses import dataclass, field

#: exit codes of ``zvmplan check`` (1: a file refused, 2: a usage error, as every command)
EXIT_AGREE = 0
EXIT_DIFFERS = 4          # some formula cells the engine computed differ from Excel's
EXIT_NOT_COMPUTED = 5     # some formula cells the engine could not compute at all
#: functions whose value Excel draws at random or reads from the clock
VOLATILE = ("RAND", "RANDBETWEEN", "RANDARRAY", "NOW", "TODAY")
_VOLATILE_CALL = re.compile(r"(?<![\w.])(?:_xlfn\.)?(?:%s)\s*\(" % "|".join(VOLATILE), re.I)
SIGNIFICANT = 15
RELATIVE = 0.5 * 10.0 ** (1 - SIGNIFICANT)   # 5e-15: equal to 15 significant digits


@dataclass
class Mismatch:
    """One formula cell whose recalculated value is not the one Excel saved."""
    cell: str                       # Sheet!A1 as Excel writes it
    formula: str                    # with its leading "="
    saved: object                   # float | str | bool | ErrorCode
    recalculated: object            # ... or None when not computed
    computed: bool                  # False: the engine could not compute the cell
    reason: str = ""                # why, when the engine knows

    def as_dict(self) -> dict:
        return {"cell": self.cell, "formula": self.formula, "saved": _json(self.saved),
                "recalculated": _json(self.recalculated), "computed": self.computed,
                "reason": self.reason}


class ErrorCode(str):
    """An Excel error value (``#N/A``), told apart from text that reads the same."""

    def __repr__(self):
        return str(self)


@dataclass
class CheckReport:
    path: str
    compared: int = 0               # formula cells with a saved value, compared
    agreeing: int = 0
    unsaved: int = 0                # formula cells the file holds no value for
    volatile: int = 0               # formula cells calling RAND, NOW...: kept, not compared
    saved_by_excel: bool = True     # :func:`excel_saved`: the saved values are Excel's
    mismatches: list = field(default_factory=list)
    sheets: list = field(default_factory=list)
    #: with ``check(..., keep_cells=True)``: every compared cell as (sheet index, row,
    #: column, :class:`Mismatch`-like record with ``computed`` and agreement)
    cells: list | None = None

    @property
    def differing(self) -> list:
        return [m for m in self.mismatches if m.computed]

    @property
    def not_computed(self) -> list:
        return [m for m in self.mismatches if not m.computed]

    def exit_code(self) -> int:
        if self.not_computed:
            return EXIT_NOT_COMPUTED
        return EXIT_DIFFERS if self.mismatches else EXIT_AGREE

    def summary(self) -> str:
        text = (f"{self.compared} formula cells compared: {self.agreeing} agree with the "
                f"values Excel saved, {len(self.differing)} differ, "
                f"{len(self.not_computed)} could not be computed")
        if self.unsaved:
            text += f" ({self.unsaved} formula cells have no saved value to compare)"
        if not self.saved_by_excel:
            text += ("; note: Excel did not save these values (the file does not say "
                     "Excel wrote it, or asks for a recalculation on open), so they are "
                     "compared with what another program wrote")
        if self.volatile:
            text += (f" ({self.volatile} formula cells call {'/'.join(VOLATILE)}: not "
                     "compared, their saved values read as inputs)")
        return text

    def as_dict(self) -> dict:
        return {"file": self.path, "compared": self.compared, "agreeing": self.agreeing,
                "differing": len(self.differing), "not_computed": len(self.not_computed),
                "unsaved": self.unsaved, "volatile": self.volatile,
                "saved_by_excel": self.saved_by_excel, "exit_code": self.exit_code(),
                "cells": [m.as_dict() for m in self.mismatches]}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=1, ensure_ascii=False)


def _json(v):
    if isinstance(v, ErrorCode):
        return {"error": str(v)}
    return v


#: calcId values written by libraries, never by Excel (PhpSpreadsheet's)
FOREIGN_CALC_IDS = {"999999"}
_FORMULA_WITH_VALUE = re.compile(rb"<(?:\w+:)?f\b[^>]*(?:/>|>.*?</(?:\w+:)?f>)\s*"
                                 rb"<(?:\w+:)?v>[^<]", re.S)


def excel_saved(data: bytes) -> int:
    """How many formula cells of the workbook ``data`` (the bytes of an .xlsx) carry a
    value Excel cached; 0 if Excel did not save it with its values: ``docProps/app.xml``
    must name Microsoft Excel, ``xl/workbook.xml`` carry Excel's ``<fileVersion
    appName="xl">``, no ``fullCalcOnLoad="1"`` (a writer's mark for values still to
    compute) and not a calcId only libraries write (:data:`FOREIGN_CALC_IDS`).
    openpyxl, XlsxWriter, PhpSpreadsheet and ExcelJS also write "Microsoft Excel" into
    app.xml, so the application alone is not evidence. Used by ``build/corpus.py``."""
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        names = set(z.namelist())
        app = z.read("docProps/app.xml") if "docProps/app.xml" in names else b""
        book = z.read("xl/workbook.xml") if "xl/workbook.xml" in names else b""
        if not re.search(rb"<(?:\w+:)?Application>Microsoft[^<]*Excel", app):
            return 0
        if not re.search(rb'<(?:\w+:)?fileVersion\b[^>]*appName="xl"', book):
            return 0
        calc = re.search(rb"<(?:\w+:)?calcPr\b[^>]*>", book)
        if calc and (re.search(rb'fullCalcOnLoad="(?:1|true)"', calc.group())
                     or any(f'calcId="{c}"'.encode() in calc.group()
                            for c in FOREIGN_CALC_IDS)):
            return 0
        count = 0
        for name in names:
            if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                count += len(_FORMULA_WITH_VALUE.findall(z.read(name)))
        return count
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, NotImplementedError,
            RuntimeError, EOFError):
        return 0


def same_value(saved, recalculated) -> bool:
    """Does ``recalculated`` show what Excel ``saved``? (The rules in the module
    docstring.) Both are float, str, bool or :class:`ErrorCode`."""
    if isinstance(saved, ErrorCode) or isinstance(recalculated, ErrorCode):
        return (isinstance(saved, ErrorCode) and isinstance(recalculated, ErrorCode)
                and str(saved) == str(recalculated))
    if isinstance(saved, bool) or isinstance(recalculated, bool):
        return type(saved) is type(recalculated) and saved == recalculated
    if isinstance(saved, float) and isinstance(recalculated, float):
        if saved == recalculated:
            return True
        if not (math.isfinite(saved) and math.isfinite(recalculated)):
            return False
        return abs(saved - recalculated) <= RELATIVE * max(abs(saved), abs(recalculated))
    if isinstance(saved, str) and isinstance(recalculated, str):
        return saved == recalculated
    return False


def file_value(v):
    """A value as read from the file (:mod:`zvmplan_addin.xlsx`) -> float, str, bool or
    ErrorCode."""
    from .xlsx import XlError
    if isinstance(v, XlError):
        return ErrorCode(v)
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    return v


def engine_value(v):
    """A value as the engine holds it in a grid -> what it writes in the file, as
    :func:`file_value` gives it (an empty result is 0, as Excel caches it)."""
    from .recalc.values import for_file
    return file_value(for_file(v))


def check(path, keep_cells: bool = False) -> CheckReport:
    """Recalculate ``path`` in memory from its inputs and compare each formula cell with
    the value Excel saved (see the module docstring). Raises
    :class:`~zvmplan_addin.xlsx.UnsafeWorkbookError` for a file it refuses."""
    import os
    from . import xlsx
    from .recalc.engine import Engine
    from .recalc.install import install_functions
    path = os.fspath(path)
    report = CheckReport(path, cells=[] if keep_cells else None)
    with xlsx.safe_open_xlsx(path, parse_sheets=False) as pkg:
        book = xlsx.read_workbook(pkg)
    with open(path, "rb") as f:     # checked safe above
        report.saved_by_excel = excel_saved(f.read()) > 0
    report.sheets = [s.name for s in book.sheets]
    report.volatile = _pin_volatile(book)
    saved = _strip_saved(book)
    install_functions()
    engine = Engine(book)
    engine.recalculate()
    for cell in _engine_cells(engine, book, saved):
        where, label, formula, value, recalculated, computed, reason = cell
        if value is None:
            report.unsaved += 1
            continue
        report.compared += 1
        agree = computed and same_value(value, recalculated)
        record = Mismatch(label, "=" + formula, value, recalculated if computed else None,
                          computed, reason)
        if keep_cells:
            report.cells.append((*where, record, agree))
        if agree:
            report.agreeing += 1
        else:
            report.mismatches.append(record)
    return report


def calls_volatile(formula: str) -> bool:
    """Does ``formula`` call one of :data:`VOLATILE` (outside its text literals)?"""
    return any(_VOLATILE_CALL.search(piece) for piece in formula.split('"')[::2])


def _pin_volatile(book) -> int:
    """Each formula cell of ``book`` calling a :data:`VOLATILE` function, with a saved
    value, becomes an input holding that value (an array formula: each cell of its
    range); returns how many cells."""
    pinned = 0
    for sheet in book.sheets:
        for (r, c), f in list(sheet.formulas.items()):
            if not calls_volatile(f.text) or (r, c) not in sheet.cached:
                continue
            del sheet.formulas[r, c]
            sheet.values[r, c] = sheet.cached.pop((r, c))
            area = f.area if f.kind == "array" and f.area else (r, c, r, c)
            pinned += (area[2] - area[0] + 1) * (area[3] - area[1] + 1)
    return pinned


def _strip_saved(book) -> dict:
    """Take the values Excel saved out of ``book``'s formula cells and array formulas'
    ranges; returns (sheet, row, col) -> saved value (None: the file holds none)."""
    saved = {}
    for s, sheet in enumerate(book.sheets):
        for (r, c), f in sheet.formulas.items():
            if f.kind == "array" and f.area:
                r1, c1, r2, c2 = f.area
                for rr in range(r1, r2 + 1):
                    for cc in range(c1, c2 + 1):
                        if (rr, cc) == (r, c):
                            continue
                        v = sheet.values.pop((rr, cc), None)
                        saved[s, rr, cc] = None if v is None else file_value(v)
            v = sheet.cached.pop((r, c), None)
            saved[s, r, c] = None if v is None else file_value(v)
    return saved


def _engine_cells(engine, book, saved: dict):
    """((sheet, row, col), label, formula, saved, recalculated, computed, reason) for every formula cell of
    the engine's workbook and every cell its array formulas fill, in the engine's order.

    The one place that reads the engine's collaborators (``nodes``, ``code``,
    ``results``, ``log``): what :func:`~zvmplan_addin.recalc.write.fill_report` reads."""
    from .recalc.runlog import NOT_COMPUTED
    from .recalc.values import display
    from .xlsx.cells import a1
    nodes, log = engine.nodes, engine.log
    templates = engine.code.template
    warned = {}
    for line in log.warnings:
        cell, sep, why = line.partition(": ")
        if sep:
            warned.setdefault(cell, why)
    circular = {nodes.n_label[i] for i in engine.results.circular}
    iterated = {nodes.n_label[i]: n for i, n in engine.results.iterated.items()}
    reasons = log.reasons.log
    sheets = book.sheets
    done = set()
    for i in range(nodes.cells):
        s, r, c = nodes.n_sheet[i], nodes.n_row[i], nodes.n_col[i]
        label, text = nodes.n_label[i], nodes.n_text[i]
        template = templates[i]
        computed = template is not None and template.pipe is not None
        reason = ""
        uncomputed = False
        if reasons.get(label):
            reason = " ".join(reasons[label]).strip()
            uncomputed = reasons[label][1].startswith(NOT_COMPUTED)
        elif label in warned:
            reason = warned[label]
        if label in circular:
            reason = reason or "on a circular reference (set to 0)"
        elif label in iterated:
            reason = reason or (f"a circular reference computed by iterative calculation "
                                f"({iterated[label]} passes)")
        missing = template.unsupported if template is not None else ()
        if missing:  # a function (or name) the engine does not know: #NAME? here
            reason = reason or ("not implemented by the engine: "
                                + ", ".join(sorted(map(str, missing))))
        area = nodes.n_area[i] or (r, c, r, c)
        grid = nodes.grids[s]
        prefix = display(sheets[s].name) + "!"
        for rr in range(area[0], area[2] + 1):
            for cc in range(area[1], area[3] + 1):
                done.add((s, rr, cc))
                here = label if (rr, cc) == (r, c) else prefix + a1(rr, cc)
                value = saved.get((s, rr, cc))
                got = engine_value(grid.get(rr, cc)) if computed else None
                if (missing or uncomputed) and isinstance(got, ErrorCode) \
                        and not same_value(value, got):
                    yield (s, rr, cc), here, text, value, None, False, reason
                    continue
                yield (s, rr, cc), here, text, value, got, computed, reason
    # formula cells the engine did not take as nodes (data tables): not computed
    for (s, r, c), value in saved.items():
        if (s, r, c) in done:
            continue
        label = display(sheets[s].name) + "!" + a1(r, c)
        f = sheets[s].formulas.get((r, c))
        text = f.text if f is not None else ""
        yield ((s, r, c), label, text, value, None, False,
               warned.get(label, "not evaluated by the engine"))


def print_report(report: CheckReport, limit: int | None = None, stream=None) -> None:
    """The human-readable listing: one line per cell that does not agree, then the
    summary."""
    import sys
    out = stream or sys.stdout
    shown = report.mismatches if limit is None else report.mismatches[:limit]
    for m in shown:
        got = "not computed" if not m.computed else f"recalculated {_show(m.recalculated)}"
        why = f"  ({m.reason})" if m.reason else ""
        print(f"{m.cell}  {m.formula}  saved {_show(m.saved)}  {got}{why}", file=out)
    if len(shown) < len(report.mismatches):
        print(f"... and {len(report.mismatches) - len(shown)} more (--all lists them)",
              file=out)
    print(f"{report.path}: {report.summary()}", file=out)


def _show(v) -> str:
    if isinstance(v, ErrorCode):
        return str(v)
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    return json.dumps(v, ensure_ascii=False)

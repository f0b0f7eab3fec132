"""``evaluate_formula(text)``: one formula without cells (``zvmplan eval``), through the
very stages ``calc`` uses -- the formula is the only cell of a one-sheet workbook -- so
both commands read, bound and evaluate a formula alike."""
from __future__ import annotations

import numpy as np
from formulas.tokens.operand import XlError as FXlError

from .. import xlsx
from ..errors import ExcelError
from . import shapes
from .cells import DYNAMIC
from .engine import Engine
from .install import install_functions
from .options import Options

_SHEET = "Eval"


def evaluate_formula(text: str, options: Options | None = None):
    """Evaluate a formula of constants (``=ABS(1E7)``, ``=ROWS(ZVM_TRANSPORTS())``).

    Returns a value as the registry does (float, str, bool, 2-D object array or
    :class:`ExcelError` with the reason if there is one); never raises."""
    install_functions()
    text = text.strip()
    if text.startswith("="):
        text = text[1:]
    why = shapes.beyond_limits(text)
    if why is not None:
        return ExcelError("#VALUE!", why)
    shape = shapes.shape(text, _SHEET, 1, 1)
    if shape is None or shape.rects:
        return ExcelError("#REF!", "eval takes constants only, not cell references")
    # evaluated as Excel 365 evaluates a formula typed in: arrays whole, the result spills
    sheet = xlsx.SheetData(name=_SHEET, part="",
                           formulas={(1, 1): xlsx.FormulaCell(text, DYNAMIC)},
                           max_row=1, max_col=1)
    engine = Engine(xlsx.Workbook(sheets=[sheet], names=[], other_sheets=[]), options=options)
    engine.recalculate()
    if engine.log.kept_cached:
        return ExcelError("#NAME?", "cannot read the formula")
    grid = engine.nodes.grids[0]
    area = engine.results.spill_area.get(0)
    if area is not None:
        block = grid.block(*area)
        out = np.empty(block.shape, dtype=object)
        for idx, v in np.ndenumerate(block):
            out[idx] = ExcelError(str(v)) if isinstance(v, FXlError) else v
        return out
    v = grid.get(1, 1)
    if isinstance(v, FXlError):
        code, reason = engine.log.reasons.log.get(engine.nodes.n_label[0], (str(v), ""))
        if code != str(v):
            reason = ""
        if not reason and engine.log.unsupported:
            reason = "unknown function or name: " + ", ".join(sorted(engine.log.unsupported))
        return ExcelError(str(v), reason)
    if isinstance(v, (np.floating, np.integer)):
        return float(v)
    return v

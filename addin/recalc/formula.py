"""``evaluate_formula(text)``: one formula without cells (``zvmplan eval``)."""
from __future__ import annotations

import formulas
import numpy as np
import schedula as sh
from formulas.ranges import Ranges
from formulas.tokens.operand import XlError as FXlError

from ..errors import ExcelError
from .install import Reasons, install_functions
from .values import quiet, scalar


def evaluate_formula(text: str):
    """Evaluate a formula without cells (``zvmplan eval`` when it is not one literal call).

    Returns a value as the registry does (float, str, bool, 2-D object array or
    :class:`ExcelError` with the reason if a zvmplan function gave one)."""
    install_functions()
    text = text.strip()
    if not text.startswith("="):
        text = "=" + text
    reasons: dict = {}
    Reasons.log, Reasons.cell = reasons, "eval"
    try:
        try:
            with quiet():
                pipe = formulas.Parser().ast(text)[1].compile()
        except Exception as exc:
            return ExcelError("#NAME?", f"cannot read the formula ({type(exc).__name__})")
        if pipe.inputs:
            return ExcelError("#REF!", "eval takes constants only, not cell references or "
                              f"names ({', '.join(map(str, pipe.inputs))})")
        with quiet():
            try:
                result = pipe()
            except sh.DispatcherError as exc:
                bad = isinstance(getattr(exc, "ex", None), NotImplementedError)
                return ExcelError("#NAME?" if bad else "#VALUE!",
                                  "a function the engine does not implement" if bad else "")
    finally:
        Reasons.log = Reasons.cell = None
    if isinstance(result, Ranges):
        result = result.value
    reason = next(iter(reasons.values()), ("", ""))[1]
    if isinstance(result, np.ndarray) and result.size > 1:
        out = np.empty(np.atleast_2d(result).shape, dtype=object)
        for idx, v in np.ndenumerate(np.atleast_2d(result)):
            v = scalar(v)
            out[idx] = ExcelError(str(v)) if isinstance(v, FXlError) else v
        return out
    if isinstance(result, np.ndarray):
        result = result.reshape(-1)[0] if result.size else sh.EMPTY
    v = scalar(result)
    if isinstance(v, FXlError):
        return ExcelError(str(v), reason)
    return v

"""ISFORMULA: whether a referenced cell holds a formula, which only the workbook knows.

formulas' ISFORMULA asks its own whole-workbook model, which this engine does not build
(it answered #VALUE!). :func:`install` puts in its place a function that asks the
workbook being evaluated (:func:`active`, given a ``(sheet key, row, col) -> bool``
look-up); it reads where the reference is, never its value, so it is no dependency
(:data:`~.compile.GEOMETRY`). A range gives one answer per cell (an array, as Excel's
array evaluation does); text or a number is #VALUE!, as in Excel.
"""
from __future__ import annotations

import contextlib
import contextvars

import numpy as np
from formulas.functions import Array, wrap_func
from formulas.ranges import Ranges

from .during import during
from ..prefixes import spellings
from . import shapes
from .values import XL

_LOOKUP: contextvars.ContextVar = contextvars.ContextVar("zvmplan_formula_cells", default=None)


@contextlib.contextmanager
def active(lookup):
    """``lookup(sheet key, row, col) -> bool`` answers ISFORMULA while the block runs."""
    with during(_LOOKUP, lookup):
        yield


def isformula(ref):
    """Excel's ISFORMULA of ``ref`` (a formulas ``Ranges``)."""
    lookup = _LOOKUP.get()
    if not isinstance(ref, Ranges) or not ref.ranges or lookup is None:
        return XL["#VALUE!"]
    g = ref.ranges[0]
    sheet = shapes.sheet_key(g.get("sheet_id") or g.get("sheet") or "")
    r1, r2 = sorted((int(g["r1"]), int(g["r2"])))
    c1, c2 = sorted((int(g["n1"]), int(g["n2"])))
    if r1 == r2 and c1 == c2:
        return bool(lookup(sheet, r1, c1))
    out = np.empty((r2 - r1 + 1, c2 - c1 + 1), dtype=object)
    for r in range(r1, r2 + 1):
        for c in range(c1, c2 + 1):
            out[r - r1, c - c1] = bool(lookup(sheet, r, c))
    return out.view(Array)


def install(table: dict) -> None:
    """ISFORMULA (every spelling) in formulas' function ``table``."""
    func = wrap_func(isformula, ranges=True)
    for spelled in spellings("ISFORMULA", builtin=True):
        table[spelled] = func


__all__ = ["active", "install", "isformula"]

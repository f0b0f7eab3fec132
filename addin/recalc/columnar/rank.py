"""RANK down a column over one shared range (``=RANK($E50,$E$50:$E$10049,0)`` filled
down): the range's numbers sorted once and each cell's number found by binary search
(:func:`rank_step`), so a column of n cells over an n-row range costs n log n, not n²
(formulas' RANK reads and ranks the whole range for every cell).

The values are those of each cell's own call (formulas' ``RANK.EQ``, which the engine
calls for RANK: Excel's RANK):

* the range gives its numbers only (text, TRUE/FALSE and empty cells are passed over);
  a number not among them is #N/A; the rank is 1 + how many of them are greater (order
  0 or left out: descending) or smaller (any other order), so ties share the best rank;
  numbers are compared exactly, as formulas compares them;
* an error in the range is every number's answer (the first error, row by row), as
  the cell's own call checks its arguments for errors first.

A cell whose number is not a plain number (text, TRUE/FALSE, an empty cell, an error)
is the function's own call, once per distinct such value. An order or a range that is
a column itself, an order that is not a plain number, or a range holding another kind
of value (an array) gives None: the engine then calls the function once per distinct
number (:func:`~.distinct._per_distinct`)."""
from __future__ import annotations

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from ...errors import ExcelError
from ...prefixes import spellings
from ..excel.values import values_of
from ..runlog import Reasons
from ..values import NOT_ONE, XL, one_value
from .vectors import LIT_COLUMN, REF_COLUMN, STEP_COLUMN, _cell_value

#: the spellings of RANK whose answer :func:`rank_step` gives (not RANK.AVG)
RANK_FUNCTIONS = frozenset(s for name in ("RANK", "RANK.EQ")
                           for s in spellings(name, builtin=True))

_NUMBER = (float, int)
#: the kinds of value a ranked range may hold here
_KINDS = frozenset({float, int, str, bool, type(sh.EMPTY), XlError})


def rank_step(func, inputs: list, values: dict, column: dict, n: int, note):
    """The ``(n, 1)`` answers of RANK for ``n`` cells whose number (the first input) is a
    column and whose range and order every cell shares, or None (see the module's
    docstring). ``note(k, err)`` gets the reason behind an error the function gave cell
    ``k`` (as :func:`~.distinct._per_distinct` notes it)."""
    if not 2 <= len(inputs) <= 3 or column.get(inputs[0]) not in (REF_COLUMN, LIT_COLUMN,
                                                                  STEP_COLUMN):
        return None
    if any(k in column for k in inputs[1:]):
        return None
    numbers = values[inputs[0]]
    if not isinstance(numbers, np.ndarray) or numbers.shape != (n, 1):
        return None
    order = values[inputs[2]] if len(inputs) == 3 else 0
    if type(order) not in (float, int, bool):
        return None
    flat = values_of(values[inputs[1]]).reshape(-1).tolist()
    kinds = set(map(type, flat))
    if kinds - _KINDS:
        return None
    error = next((v for v in flat if type(v) is XlError), None) if XlError in kinds else None
    ranked = np.sort(np.array([v for v in flat if type(v) in _NUMBER], dtype=float))
    descending = int(order) == 0
    cells = numbers.reshape(-1).tolist()
    out = np.empty(n, dtype=object)
    own: dict = {}   # a value that is not a plain number -> the cells holding it
    plain = []
    for k, v in enumerate(cells):
        if type(v) in _NUMBER:
            plain.append(k)
        else:
            own.setdefault((type(v), v), []).append(k)
    if plain and error is None:
        x = np.array([cells[k] for k in plain], dtype=float)
        left = np.searchsorted(ranked, x, "left")
        right = np.searchsorted(ranked, x, "right")
        rank = (ranked.size - right if descending else left) + 1
        answers = np.empty(len(plain), dtype=object)
        answers[:] = [float(r) if found else XL["#N/A"] for r, found in
                      zip(rank.tolist(), (right > left).tolist())]
        out[plain] = answers
    try:
        if plain and error is not None:  # the range's error, as each cell's call checks first
            out[plain] = _own_call(func, inputs, values, column, plain[0], plain, note)
        for ks in own.values():
            out[ks] = _own_call(func, inputs, values, column, ks[0], ks, note)
    except _NotOne:
        return None
    return out.reshape(n, 1)


class _NotOne(Exception):
    """The function's own call gave no one value (an array, or nothing)."""


def _own_call(func, inputs, values, column, k: int, cells: list, note):
    """The function's own answer for cell ``k`` (as it answers that cell alone), the reason
    behind an error noted for each of ``cells``."""
    reasons = Reasons()
    with reasons.active():
        reasons.cell = 0
        result = one_value(func(*[_cell_value(values, column, name, k) for name in inputs]))
    if result is NOT_ONE or result is sh.NONE or isinstance(result, (list, tuple)):
        raise _NotOne
    if reasons.log:
        err = ExcelError(*reasons.log[0])
        for j in cells:
            note(j, err)
    return result

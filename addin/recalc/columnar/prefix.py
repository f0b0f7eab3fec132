"""Running totals on a column: ``=SUM(E$2:E2)`` filled down (each cell reads the rows
from one fixed first row down to its own) computed from one pass over the rows, not one
pass per cell (:func:`prefix_step`), so a column of n cells costs n, not n²/2.

The values are those of each cell's own call, exactly:

* SUM adds its numbers left to right (as Excel does, and as the engine's SUM does:
  :func:`~..install.left_to_right_sum`), so the running sum after a row is the very
  double that cell's own SUM gives; empty cells add nothing;
* MAX and MIN are the running maximum and minimum of the numbers (0 before the first
  number), COUNT the number of numbers so far;
* text and TRUE/FALSE in the range are passed over, as Excel's SUM, MAX, MIN and COUNT
  pass them over in a reference (:mod:`..excel.coercion`);
* an error in the range is the result of SUM, MAX and MIN from its row on (the first
  error in the order the range is read, row by row), and COUNT passes it over.

A range holding anything else (-0.0 for MAX and MIN; a sum SUM cannot hold as a finite
double) is not taken here: :func:`prefix_step` returns None and the engine
evaluates the cells one by one, which gives the reference answer for those too. So does
any other function, or SUM with more arguments than the range."""
from __future__ import annotations

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from ..values import make_ranges

#: the functions :func:`prefix_step` computes from one pass
PREFIX_FUNCTIONS = frozenset({"SUM", "MAX", "MIN", "COUNT"})

_NUMBER = (float, int)
#: the kinds of value the functions pass over in a range (text, TRUE/FALSE, empty cells)
#: or add up
_SKIPPED = frozenset({float, int, str, bool, type(sh.EMPTY)})


class PrefixRanges:
    """A reference per cell to the rows ``r1`` .. ``rows[k]`` of columns ``c1`` .. ``c2``
    (``E$2:E10`` for the cell in row 10): the block of the tallest range gathered once
    from the grid; a cell's own range (for a function called on one cell) made only on
    demand."""

    def __init__(self, sheet: str, grid, r1: int, rows: np.ndarray, c1: int, c2: int):
        self.sheet, self.r1, self.rows, self.c1, self.c2 = sheet, r1, rows, c1, c2
        self.block = grid.block(r1, c1, int(rows.max()), c2) if rows.size else \
            np.empty((0, c2 - c1 + 1), dtype=object)

    def ranges(self, k: int):
        r = int(self.rows[k])
        return make_ranges(self.sheet, self.r1, self.c1, r, self.c2,
                           self.block[:r - self.r1 + 1].copy())


def prefix_step(name: str, args: list, is_prefix: list) -> np.ndarray | None:
    """The ``(n, 1)`` results of ``name`` (one of :data:`PREFIX_FUNCTIONS`) called with
    one argument, a :class:`PrefixRanges`, for each of its cells; None for anything else
    (then the cells are evaluated one by one)."""
    if name not in PREFIX_FUNCTIONS or len(args) != 1 or not is_prefix[0]:
        return None
    pr = args[0]
    flat = pr.block.reshape(-1).tolist()
    kinds = set(map(type, flat))
    if kinds - _SKIPPED - {XlError}:
        return None  # a value of another kind (an array, a numpy scalar): cell by cell
    errors = [k for k, v in enumerate(flat) if type(v) is XlError] \
        if XlError in kinds else []
    is_number = np.fromiter((type(v) in _NUMBER for v in flat), dtype=bool,
                            count=len(flat))
    numbers = np.array([v for v in flat if type(v) in _NUMBER], dtype=float)
    if name in ("MAX", "MIN") and np.signbit(numbers[numbers == 0]).any():
        return None  # -0.0 beside 0.0: which zero max() keeps, cell by cell
    width = pr.c2 - pr.c1 + 1
    ends = (pr.rows - pr.r1 + 1) * width  # how many of the values each cell reads
    seen = np.concatenate(([0], np.cumsum(is_number)))[ends]  # numbers among them
    n = ends.size
    out = np.empty(n, dtype=object)
    if name == "COUNT":
        out[:] = seen.tolist()
        return out.reshape(n, 1)
    if name == "SUM":
        running = np.add.accumulate(numbers)
        if not np.isfinite(running).all():
            return None  # an overflow: #NUM! with its reason, cell by cell
        start = 0.0
    else:
        running = (np.maximum if name == "MAX" else np.minimum).accumulate(numbers)
        start = 0.0
    values = np.where(seen > 0, running[np.maximum(seen - 1, 0)] if numbers.size
                      else start, start)
    out[:] = values.tolist()
    if errors:
        first = errors[0]
        out[ends > first] = flat[first]
    return out.reshape(n, 1)

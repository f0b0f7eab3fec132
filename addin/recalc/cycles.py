"""Circular references, after a pass has evaluated every node (:func:`resolve`).

The order stage finds a cycle from the references written in the formulas; Excel finds
one while it calculates, from what a formula actually reads: ``=IF(IF(A6,B6,TRUE),1,B6)``
never reads B6 while A6 is FALSE, ``=SUM(INDEX(A17:G17,1,1):INDEX(A17:G17,1,B16-1))`` in
B17 reads only A17, ``=HLOOKUP(C15,A10:C21,10,FALSE)`` in B15 reads one row and one cell.
So the cells of a cycle, and every formula after them, are evaluated again:

* with iterative calculation off (Excel's default), once from 0 and once from ``#N/A``
  in every one of those cells, each until no value changes. A cell whose value is the
  same both ways does not depend on the cycle's values: it keeps it, as Excel shows it
  (formulas' circular.xlsx DATA!B6 and D14, koala's basic_evaluation.xlsx B17:G17). A
  cell on the cycle whose value depends on them is on a real circular reference: 0, as
  Excel shows it, and listed; a formula after it is computed from that 0 and says so in
  its reason (Excel, having stopped at the circular reference, may show an older value:
  0 in circular.xlsx DATA!E2).
* with iterative calculation on (``<calcPr iterate="1">``, Excel's *Enable iterative
  calculation*), as Excel does: the cells again and again, in the order of the pass,
  from the values the file cached (0 if none), up to ``iterateCount`` times (default 100)
  or until every value changes by less than ``iterateDelta`` (default 0.001) (ECMA-376
  Part 1, 18.2.2 calcPr; Microsoft's [MS-OI29500] 2.1.565: "Office will stop iteration
  if values change by less than the iterateDelta attribute value"). Excel's own
  order of the cells within an iteration is not published, so a cycle that has not
  converged may stop at other values than Excel's: each such cell carries a warning.

A workbook whose cycles reach too many cells to evaluate again within
:data:`BUDGET` evaluations keeps the first answer (0 on every cell of a cycle).
"""
from __future__ import annotations

import math

from .values import XL, same

BUDGET = 2_000_000          # node evaluations spent on circular references, at most
EDGE_BUDGET = 5_000_000     # references followed to find what reads a cycle
SETTLE_PASSES = 100         # passes for the cells of a cycle to stop changing, at most


def resolve(nodes, code, index, cells, results, log, position) -> None:
    """Evaluate again the cells of the circular references the pass found (in
    ``results.circular``) and every formula cell after them, as the module's docstring
    says; ``position``: each node's step in the pass (the order to evaluate them in)."""
    members = {i for i in results.circular if i < nodes.cells}
    if not members:
        return
    after = _downstream(nodes, code, index, members)
    if after is None:
        log.warnings.append(f"{len(members)} cells on circular references: too many formulas "
                            "read them to evaluate again; set to 0")
        return
    order = sorted(after, key=lambda i: (position[i], i))
    cells.iterating = True
    try:
        if nodes.iteration is not None:
            _iterate(nodes, cells, results, log, order, members, *nodes.iteration)
        else:
            _split(nodes, cells, results, log, order, members)
    finally:
        cells.iterating = False


def _downstream(nodes, code, index, members: set) -> set | None:
    """``members`` and every formula cell that reads one of them, directly or not; None
    past :data:`EDGE_BUDGET` references."""
    readers: dict = {}
    budget = EDGE_BUDGET
    for j in range(nodes.cells):
        for rect in code.used[j] or ():
            ids = index.ids_in(rect)
            budget -= ids.size
            if budget < 0:
                return None
            for i in ids.tolist():
                if i != j:
                    readers.setdefault(i, []).append(j)
    out, todo = set(members), list(members)
    while todo:
        for j in readers.get(todo.pop(), ()):
            if j not in out:
                out.add(j)
                todo.append(j)
    return out


def _cells_of(nodes, i):
    area = nodes.n_area[i]
    if area is None:
        return ((nodes.n_row[i], nodes.n_col[i]),)
    return tuple((r, c) for r in range(area[0], area[2] + 1) for c in range(area[1], area[3] + 1))


def _snapshot(nodes, order) -> list:
    return [tuple(nodes.grids[nodes.n_sheet[i]].get(r, c) for r, c in _cells_of(nodes, i))
            for i in order]


def _set(nodes, i, value) -> None:
    grid = nodes.grids[nodes.n_sheet[i]]
    for r, c in _cells_of(nodes, i):
        grid.set(r, c, value)


def _evaluate(cells, order) -> None:
    """One pass over ``order``, nothing kept from before: neither a range's value
    (:meth:`~.cells.CellEvaluator.begin_pass`) nor a part of a formula computed once for
    the cells of a column (``program.cache``)."""
    cells.begin_pass(set())
    templates = cells.code.template
    for i in order:
        program = getattr(templates[i], "program", None)
        if program is not None:
            program.cache = {}
    for i in order:
        cells.evaluate(i)


def _settle(nodes, cells, order, passes: int):
    """Evaluate ``order`` pass after pass until no value changes: (the values, the passes
    made) or (None, passes) if they still changed after ``passes``."""
    before = _snapshot(nodes, order)
    for n in range(1, passes + 1):
        _evaluate(cells, order)
        now = _snapshot(nodes, order)
        if all(map(_same_cells, before, now)):
            return now, n
        before = now
    return None, passes


def _same_cells(a: tuple, b: tuple) -> bool:
    return all(map(same, a, b))


def _split(nodes, cells, results, log, order, members: set) -> None:
    """Iterative calculation off: keep what does not depend on the cycle's values, 0 on
    the cells of a real circular reference (see the module's docstring)."""
    passes = min(len(order) + 1, SETTLE_PASSES)
    if 2 * passes * len(order) > BUDGET:
        log.warnings.append(f"{len(members)} cells on circular references: too many cells "
                            "to evaluate again; set to 0")
        return
    runs = []
    for seed in (0.0, XL["#N/A"]):
        for i in order:
            _set(nodes, i, seed)
        runs.append(_settle(nodes, cells, order, passes)[0])
    if runs[0] is None or runs[1] is None:
        real = set(order)  # still changing: every cell depends on the cycle
    else:
        real = {i for i, a, b in zip(order, *runs) if not _same_cells(a, b)}
    # 0 on the one-cell formulas of a real cycle; an array formula on it is computed from
    # them (each of its cells as the array gives it: formulas' circular.xlsx D10:D12)
    zeroed = {i for i in real & members if nodes.n_area[i] is None}
    for attempt in (zeroed, real & members):
        results.circular -= members
        results.circular |= attempt
        cells.iterating = False  # the cells left on the cycle give 0 again
        for i in order:
            _set(nodes, i, 0.0)
        if _settle(nodes, cells, order, passes)[0] is not None:
            break
        zeroed = attempt  # a cycle through array formulas alone: 0 on them too
    for i in order:
        if i not in zeroed:
            why = _AFTER if i in real and i not in members else _ARRAY if i in real else \
                _BESIDE if i in members else _AFTER_BESIDE
            log.reasons.log.setdefault(nodes.n_label[i], ("", why))


_AFTER = ("reads a circular reference, which is 0 here; Excel, with iterative calculation "
          "off, may show an older value")
_ARRAY = ("an array formula on a circular reference, computed from the cells on it, which "
          "are 0 here; Excel may show 0")
_AFTER_BESIDE = ("reads a cell on a circular reference as written, whose value Excel may "
                 "show as 0")
_BESIDE = ("on a circular reference as written, but its value does not depend on the "
           "cycle's values; Excel may show 0 where it reads them all the same (an array "
           "formula, OR)")


def _iterate(nodes, cells, results, log, order, members: set, count: int,
             delta: float) -> None:
    """Iterative calculation on: Excel's iteration over ``order`` from the values the
    file cached, at most ``count`` passes, until every value changes by less than
    ``delta``."""
    if count * len(order) > BUDGET:
        log.warnings.append(f"{len(members)} cells on circular references: too many to "
                            f"iterate {count} times; set to 0")
        return
    for i in members:
        seed = results.seed.get(i)
        _set(nodes, i, seed if type(seed) in (float, bool, str) else 0.0)  # not an error
    before = _snapshot(nodes, order)
    change, n = math.inf, 0
    for n in range(1, count + 1):
        _evaluate(cells, order)
        now = _snapshot(nodes, order)
        change = max((_change(a, b) for a, b in zip(before, now)), default=0.0)
        before = now
        if change < delta:
            break
    results.circular -= members
    for i in order:
        results.iterated[i] = n
    first = nodes.n_label[min(members)]
    done = "converged" if change < delta else f"still changing by {change:.3g}"
    log.warnings.append(f"{first}: a circular reference of {len(members)} cells computed by "
                        f"iterative calculation as the workbook asks (calcPr iterate): {n} "
                        f"pass{'es' if n != 1 else ''}, {done}; Excel's order within a pass "
                        "may differ")


def _change(a: tuple, b: tuple) -> float:
    """The largest change between two snapshots of a node's cells (inf for a change
    that is not a number's)."""
    out = 0.0
    for x, y in zip(a, b):
        if isinstance(x, float) and isinstance(y, float):
            out = max(out, abs(x - y))
        elif not same(x, y):
            return math.inf
    return out


__all__ = ["resolve"]

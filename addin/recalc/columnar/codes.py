"""A grid column's values factorised once per pass (:class:`ColumnCodes`), and
factorisations of single columns combined with numpy (:func:`combine`).

Many column groups of a planner read the same cells (``$B15:$B10014`` by thirty
formulas): finding a step's distinct argument combinations value by value
(:func:`~.distinct._factorize`) hashes every cell's values again in each of them. Here
each grid column range a group gathers is factorised once -- keyed by type, the empty
cell and formulas' errors by identity, exactly as a strict factorisation keys them --
and a gathered column's codes are that factorisation's codes picked by its rows (one
numpy gather). The codes are a partition at least as fine as any step's own (a step
that merges 1 and 1.0, or converts values for the registry, merges more), so a step
combines the codes of its columns in numpy and then factorises only one
representative cell of each combination its own way (:func:`~.distinct._factorize`
with ``codes``): the same combinations, in the same order, as factorising every cell.

A kept factorisation is used only while the grid range still holds the very same value
objects (checked by identity, one C loop over the range): a cell written since (a
spill, a later pass) makes it factorised again."""
from __future__ import annotations

import operator

import numpy as np
from zvmplan.setops import unique

from ..excel.values import first_appearance
from .keys import _needs_type, _negative_zero, _token_keyed, _typed


class ColumnCodes:
    """Per pass: (sheet, column, first row, last row) -> the values of that grid range
    as they were factorised, and each row's code (None: not factorisable: -0.0, an
    unhashable value)."""

    def __init__(self):
        self.kept: dict = {}

    def of(self, grid, s: int, rows: np.ndarray, col: int) -> np.ndarray | None:
        """The codes of the cells (``rows``, ``col``) of ``grid`` (sheet ``s``, dense,
        every row inside it): equal codes exactly for values of one type that are equal
        (the empty cell and formulas' errors: the same object); None when the range
        holds -0.0 or an unhashable value."""
        if not rows.size:
            return None
        r0, r1 = int(rows.min()), int(rows.max())
        values = grid.a[r0 - 1:r1, col - 1].tolist()
        key = (s, col, r0, r1)
        kept = self.kept.get(key)
        if kept is None or not all(map(operator.is_, kept[0], values)):
            kept = self.kept[key] = (values, strict_codes(values))
        codes = kept[1]
        return None if codes is None else codes[rows - r0]

    def of_rows(self, grid, s: int, rows: np.ndarray, c1: int, c2: int) -> np.ndarray | None:
        """The codes of the rows (``rows``, columns ``c1``..``c2``) of ``grid`` (a range of
        one row per cell, ``$V10:$AB10``): equal codes exactly for rows whose values are
        pairwise equal and of one type (:meth:`of` of each column, combined); None when
        a column holds -0.0 or an unhashable value."""
        codes = []
        for c in range(c1, c2 + 1):
            got = self.of(grid, s, rows, c)
            if got is None:
                return None
            codes.append(got)
        return combine(codes, rows.size)[1] if codes else None


def strict_codes(values: list) -> np.ndarray | None:
    """Each value's code, in order of first appearance: values of one type that are
    equal share one (the empty cell and formulas' errors by identity, TRUE apart from
    1, 1 apart from 1.0); None if -0.0 or an unhashable value is among them."""
    types = set(map(type, values))
    keyed = _token_keyed(values, types)
    if _negative_zero(keyed, types):
        return None
    if _needs_type(values, True, types):
        keyed = _typed(keyed, {})
    try:
        return first_appearance(keyed, len(values))[1]
    except TypeError:
        return None


def combine(codes: list, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct combinations of ``n`` cells' codes (int arrays of ``n``, one per
    column): (``picks``, ``inverse``) as :func:`~..excel.values.first_appearance` gives
    them -- ``picks`` the first cell of each combination in order of first appearance,
    ``inverse[k]`` cell ``k``'s combination -- found in numpy (the codes of the columns
    folded into one integer per cell, then one ``unique``)."""
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    folded = np.asarray(codes[0], dtype=np.int64)
    size = int(folded.max()) + 1
    for c in codes[1:]:
        c = np.asarray(c, dtype=np.int64)
        m = int(c.max()) + 1
        if size * m >= 1 << 62:  # renumber densely first: at most n codes then
            folded = unique(folded, return_inverse=True)[1].reshape(-1)
            size = int(folded.max()) + 1
        folded = folded * m + c
        size *= m
    _, first, inverse = unique(folded, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the combinations by first appearance
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return first[order].astype(np.int64), rank[inverse.reshape(-1)]

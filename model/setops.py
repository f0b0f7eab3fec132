"""numpy's ``unique`` and ``isin`` for the arrays the model and the engine use, without
importing ``numpy.ma``.

numpy's ``unique`` asks ``np.ma.is_masked`` of its argument, and ``isin`` over more than
a few values calls it, which imports the whole ``numpy.ma`` package (~10 ms) at the first
call of every ``calc``.

* :func:`unique` gives the same arrays (the sorted distinct values; with
  ``return_index`` each one's first place, ``return_inverse`` each element's value's
  place among them, ``return_counts`` how often it comes), by the same stable sort, for
  a 1-D array of integers or booleans; anything else is handed to ``np.unique``.
* :func:`isin` gives ``np.isin(a, values)`` for 1-D numbers: equal as ``==`` compares
  (``-0.0`` is ``0.0``, NaN is in nothing), found by a binary search in the sorted values.

``tests/test_setops.py`` compares both with numpy's.
"""
from __future__ import annotations

import numpy as np


def unique(a, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False):
    """``np.unique(a, return_index, return_inverse, return_counts)`` (axis None)."""
    a = np.asarray(a)
    if a.ndim != 1 or a.dtype.kind not in "iub":
        return np.unique(a, return_index=return_index, return_inverse=return_inverse,
                         return_counts=return_counts)
    if return_index or return_inverse:
        perm = np.argsort(a, kind="stable")  # equal values in their order: first place first
        ordered = a[perm]
    else:
        perm, ordered = None, np.sort(a)
    starts = np.empty(ordered.shape, dtype=bool)  # the first of each run of equal values
    if ordered.size:
        starts[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    out = [ordered[starts]]
    if return_index:
        out.append(perm[starts])
    if return_inverse:
        inverse = np.empty(a.shape, dtype=np.intp)
        inverse[perm] = np.cumsum(starts) - 1
        out.append(inverse)
    if return_counts:
        first = np.flatnonzero(starts)
        out.append(np.diff(np.append(first, ordered.size)))
    return out[0] if len(out) == 1 else tuple(out)


def isin(a, values) -> np.ndarray:
    """``np.isin(a, values)`` for a 1-D array ``a`` and 1-D ``values`` of numbers."""
    a, values = np.asarray(a), np.asarray(values)
    if a.ndim != 1 or values.ndim != 1 or a.dtype.kind not in "iuf" or \
            values.dtype.kind not in "iuf":
        return np.isin(a, values)
    if not values.size:
        return np.zeros(a.shape, dtype=bool)
    ordered = np.sort(values)
    at = np.minimum(np.searchsorted(ordered, a), ordered.size - 1)
    return ordered[at] == a

"""Numerical methods: monotone interpolation and the per-byte + per-message cost fit.

numpy only (the model must run in xlwings Lite, where only numpy is assumed).
"""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np


def pchip(x: np.ndarray, y: np.ndarray, xq) -> np.ndarray:
    """Piecewise cubic Hermite interpolation with Fritsch-Carlson slopes.

    Passes through every (x, y), is monotone on every interval where the data are,
    and never overshoots the neighbouring data values. ``x`` strictly increasing;
    ``xq`` inside [x[0], x[-1]]. With two points it is the straight line.

    ``y`` may be 2-D, shape (len(x), k): k curves over the same ``x``, curve j
    evaluated at ``xq[j]`` (``xq`` of shape (k,)) -- many curves in one vectorised pass.

    >>> float(pchip(np.array([0., 1., 2.]), np.array([0., 1., 1.]), 1.5))
    1.0
    >>> pchip(np.array([0., 1.]), np.array([[0., 10.], [1., 20.]]), np.array([0.5, 0.25]))
    array([ 0.5, 12.5])
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    xq = np.asarray(xq, float)
    if y.ndim == 1:
        shape = xq.shape
        if xq.size == 1:  # one query (the model's scalar calls): Python floats, same value
            one = _pchip_one(x.tolist(), y.tolist(), float(xq.reshape(-1)[0]))
            if one is not None:
                return np.array(one).reshape(shape)
        flat = xq.reshape(-1)
        return _pchip_columns(x, y[:, None], flat, np.zeros(flat.shape, int)).reshape(shape)
    return _pchip_columns(x, y, xq, np.arange(y.shape[1]))


def _pchip_columns(x, y, xq, cols):
    h = np.diff(x)
    delta = np.diff(y, axis=0) / h[:, None]
    n = len(x)
    d = np.zeros_like(y)
    if n == 2:
        d[:] = delta[0]
    else:
        w1 = (2 * h[1:] + h[:-1])[:, None]
        w2 = (h[1:] + 2 * h[:-1])[:, None]
        left, right = delta[:-1], delta[1:]
        same = left * right > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = (w1 + w2) / (w1 / left + w2 / right)
        d[1:-1] = np.where(same, mean, 0.0)
        d[0] = _end_slope(h[0], h[1], delta[0], delta[1])
        d[-1] = _end_slope(h[-1], h[-2], delta[-1], delta[-2])
    i = np.clip(np.searchsorted(x, xq, side="right") - 1, 0, n - 2)
    t = (xq - x[i]) / h[i]
    h00 = (1 + 2 * t) * (1 - t) ** 2
    h10 = t * (1 - t) ** 2
    h01 = t * t * (3 - 2 * t)
    h11 = t * t * (t - 1)
    return (h00 * y[i, cols] + h10 * h[i] * d[i, cols] + h01 * y[i + 1, cols]
            + h11 * h[i] * d[i + 1, cols])


def _pchip_one(x: list, y: list, q: float) -> float | None:
    """:func:`_pchip_columns` at one query point on one curve, in Python floats: the same
    IEEE operations in the same order (``u ** 2`` is numpy's ``u * u``), so the same float
    bit for bit, without numpy's per-call cost on arrays of a few points. None when a
    number on the way is not finite (numpy's NaN and division rules then apply): the
    caller takes the array path. ``tests/test_interp_exact.py`` compares the two."""
    n = len(x)
    try:
        h = [b - a for a, b in zip(x, x[1:])]
        delta = [(b - a) / w for a, b, w in zip(y, y[1:], h)]
    except ZeroDivisionError:
        return None
    i = min(max(bisect_right(x, q) - 1, 0), n - 2)
    try:
        d0, d1 = _slope_one(h, delta, i), _slope_one(h, delta, i + 1)
    except ZeroDivisionError:
        return None
    t = (q - x[i]) / h[i]
    u = 1 - t
    h00 = (1 + 2 * t) * (u * u)
    h10 = t * (u * u)
    h01 = t * t * (3 - 2 * t)
    h11 = t * t * (t - 1)
    value = h00 * y[i] + h10 * h[i] * d0 + h01 * y[i + 1] + h11 * h[i] * d1
    if not (math.isfinite(value) and math.isfinite(d0) and math.isfinite(d1)):
        return None
    return value


def _slope_one(h: list, delta: list, k: int) -> float:
    """The Fritsch-Carlson slope at point ``k`` of :func:`_pchip_columns`, in floats."""
    n = len(h) + 1
    if n == 2:
        return delta[0]
    if k == 0:
        return _end_slope_one(h[0], h[1], delta[0], delta[1])
    if k == n - 1:
        return _end_slope_one(h[-1], h[-2], delta[-1], delta[-2])
    left, right = delta[k - 1], delta[k]
    if not left * right > 0:
        return 0.0
    w1 = 2 * h[k] + h[k - 1]
    w2 = h[k] + 2 * h[k - 1]
    return (w1 + w2) / (w1 / left + w2 / right)


def _sign(v: float) -> float:
    """``np.sign`` of a float (NaN for NaN)."""
    return (v > 0) - (v < 0) if v == v else math.nan


def _end_slope_one(h0, h1, m0, m1) -> float:
    """:func:`_end_slope` in floats."""
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    if _sign(d) != _sign(m0):
        d = 0.0
    if _sign(m0) != _sign(m1) and abs(d) > abs(3 * m0):
        d = 3 * m0
    return d


def _end_slope(h0, h1, m0, m1):
    """One-sided three-point end slope, limited to keep the shape (as in SciPy's PCHIP)."""
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    d = np.where(np.sign(d) != np.sign(m0), 0.0, d)
    return np.where((np.sign(m0) != np.sign(m1)) & (np.abs(d) > np.abs(3 * m0)), 3 * m0, d)


@dataclass(frozen=True)
class CostFit:
    """CPU per MB = per_byte + per_message / size: the cost of a memory-to-memory move.

    ``per_byte`` is in CPU-s/MB (the cost of moving the bytes), ``per_message`` in
    CPU-s/MB x bytes (a fixed cost per message, spread over the message size).
    Fitted by least squares on relative error, so small and large sizes weigh alike.
    """
    per_byte: float
    per_message: float
    residuals_pct: tuple[float, ...]  # (measured / fitted - 1) x 100 at each fitted size
    sizes: tuple[float, ...]

    def __call__(self, size) -> np.ndarray:
        return self.per_byte + self.per_message / np.asarray(size, float)

    @classmethod
    def fit(cls, sizes, values) -> "CostFit":
        s = np.asarray(sizes, float)
        y = np.asarray(values, float)
        # minimise sum((a + b/s) / y - 1)^2: linear in (a, b)
        design = np.column_stack([1 / y, 1 / (s * y)])
        (a, b), *_ = np.linalg.lstsq(design, np.ones_like(y), rcond=None)
        if a < 0 or b < 0:  # a negative cost is unphysical: refit the one-term model
            if a < 0:
                a, b = 0.0, float(np.sum(1 / (s * y)) / np.sum(1 / (s * y) ** 2))
            else:
                a, b = float(np.sum(1 / y) / np.sum(1 / y ** 2)), 0.0
        fitted = a + b / s
        return cls(float(a), float(b), tuple(float(v) for v in (y / fitted - 1) * 100),
                   tuple(float(v) for v in s))

"""Numerical methods: monotone interpolation and the per-byte + per-message cost fit.

numpy only (the model must run in xlwings Lite, where only numpy is assumed).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def pchip(x: np.ndarray, y: np.ndarray, xq) -> np.ndarray:
    """Piecewise cubic Hermite interpolation with Fritsch-Carlson slopes.

    Passes through every (x, y), is monotone on every interval where the data are,
    and never overshoots the neighbouring data values. ``x`` strictly increasing;
    ``xq`` inside [x[0], x[-1]]. With two points it is the straight line.

    >>> float(pchip(np.array([0., 1., 2.]), np.array([0., 1., 1.]), 1.5))
    1.0
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    xq = np.asarray(xq, float)
    h = np.diff(x)
    delta = np.diff(y) / h
    n = len(x)
    d = np.zeros(n)
    if n == 2:
        d[:] = delta[0]
    else:
        for k in range(1, n - 1):
            if delta[k - 1] * delta[k] > 0:
                w1 = 2 * h[k] + h[k - 1]
                w2 = h[k] + 2 * h[k - 1]
                d[k] = (w1 + w2) / (w1 / delta[k - 1] + w2 / delta[k])
        d[0] = _end_slope(h[0], h[1], delta[0], delta[1])
        d[-1] = _end_slope(h[-1], h[-2], delta[-1], delta[-2])
    i = np.clip(np.searchsorted(x, xq, side="right") - 1, 0, n - 2)
    t = (xq - x[i]) / h[i]
    h00 = (1 + 2 * t) * (1 - t) ** 2
    h10 = t * (1 - t) ** 2
    h01 = t * t * (3 - 2 * t)
    h11 = t * t * (t - 1)
    return h00 * y[i] + h10 * h[i] * d[i] + h01 * y[i + 1] + h11 * h[i] * d[i + 1]


def _end_slope(h0, h1, m0, m1):
    """One-sided three-point end slope, limited to keep the shape (as in SciPy's PCHIP)."""
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    if np.sign(d) != np.sign(m0):
        return 0.0
    if np.sign(m0) != np.sign(m1) and abs(d) > abs(3 * m0):
        return 3 * m0
    return d


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

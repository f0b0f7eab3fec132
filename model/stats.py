"""Small statistics for the sampled measurements of 001 (n / mean / sd).

Student's t distribution is computed here (numpy + math only), by integrating its
density: enough for the confidence intervals and t-tests the source reports.

>>> round(t_quantile(0.975, 3), 4)
3.1824
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    if t < 0:
        return 1.0 - t_cdf(-t, df)
    # integrate the density from 0 to t with the substitution u = atan(x / sqrt(df))
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    umax = math.atan(t / math.sqrt(df))
    u = np.linspace(0.0, umax, 2001)
    x = np.sqrt(df) * np.tan(u)
    f = c * (1 + x * x / df) ** (-(df + 1) / 2) * np.sqrt(df) / np.cos(u) ** 2
    return 0.5 + float(np.sum((f[1:] + f[:-1]) * np.diff(u)) / 2)


@lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p, by bisection (at most 200 halvings).

    Once a halving leaves ``lo`` and ``hi`` as they were (their midpoint is one of them:
    about 60 halvings from +/-1000), every further one would too, so the loop stops
    there with the very float the 200 give. (Neither bound can be -0.0: the first is
    +/-1000 and a midpoint of 0 is +0.0, so ``==`` tells a change.)"""
    lo, hi = -1e3, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            if mid == lo:
                break
            lo = mid
        else:
            if mid == hi:
                break
            hi = mid
    return (lo + hi) / 2


def mean_interval(n: int, mean: float, sd: float, level: float = 0.95) -> tuple[float, float]:
    """Two-sided confidence interval on a mean from n samples with standard deviation sd."""
    half = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def repeatable(n: int, mean: float, sd: float) -> bool:
    """The source's r=1: the 95% interval on the mean lies within +/-5% of the mean."""
    lo, hi = mean_interval(n, mean, sd)
    return lo >= 0.95 * mean and hi <= 1.05 * mean


def welch_confidence(n1, m1, s1, n2, m2, s2) -> float:
    """Confidence (in %) that two means differ: 100 x (1 - two-tailed p) of Welch's t-test."""
    v1, v2 = s1 * s1 / n1, s2 * s2 / n2
    t = abs(m1 - m2) / math.sqrt(v1 + v2)
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    return 100.0 * (1.0 - 2.0 * (1.0 - t_cdf(t, df)))

"""LINEST and LOGEST with ``stats`` TRUE laid out as Excel's (Microsoft's LINEST page):

=========  ========  ===  ========  =====
m_k        m_(k-1)   ...  m_1       b
se_k       se_(k-1)  ...  se_1      se_b
r2         se_y
F          df
ss_reg     ss_resid
=========  ========  ===  ========  =====

The standard errors run in the coefficients' order (formulas wrote them reversed), F is
``(ss_reg / k) / (ss_resid / df)`` with ``k`` the number of x variables (formulas
divided by k + 1 when there is a constant), and with ``const`` FALSE ``se_b`` is #N/A
and the sums of squares are about 0 (Microsoft: "the total sum of squares is computed
without subtracting the mean"). The cells Excel leaves empty hold #N/A.
"""
from __future__ import annotations

import numpy as np

from .values import XL


def linest_stats(x, y, p, const, res) -> None:
    """Rows 2 to 5 of ``res`` for the fit ``y ~ x @ p`` (``x`` with a first column of
    ones when ``const``)."""
    yhat = x @ p
    ybar = float(np.mean(y)) if const else 0.0
    ssreg = float(np.sum((yhat - ybar) ** 2))
    resid = y - yhat
    sse = float(np.sum(resid ** 2))
    n, cols = x.shape
    k = cols - 1 if const else cols
    df = n - cols
    res[4, 0], res[4, 1] = ssreg, sse
    res[2, 0] = ssreg / (ssreg + sse) if ssreg + sse else XL["#NUM!"]
    res[3, 1] = float(df)
    if df <= 0:
        res[2, 1] = res[3, 0] = XL["#NUM!"]
        res[1, :] = XL["#NUM!"]
        return
    sigma2 = sse / df
    res[2, 1] = float(np.sqrt(sigma2))
    res[3, 0] = (ssreg / k) / sigma2 if sigma2 else XL["#NUM!"]
    se = np.sqrt(np.maximum(0.0, np.diag(sigma2 * np.linalg.inv(x.T @ x))))
    se = se.ravel()[::-1].tolist()  # m_k ... m_1 [, b]: the order of row 1
    for j, v in enumerate(se):
        res[1, j] = v
    if not const:
        res[1, cols] = XL["#N/A"]


def install(table, put) -> None:
    import formulas.functions.stat as stat
    stat._xlinest_stats = linest_stats  # LINEST and LOGEST call it by this name

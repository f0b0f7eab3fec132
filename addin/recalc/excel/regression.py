"""LINEST, LOGEST, TREND and GROWTH fitted as Excel fits them (Microsoft's LINEST page),
where formulas' least squares answers otherwise:

* ``const`` left out (``LINEST(y,x,,TRUE)``) is TRUE: "If const is TRUE or omitted, b is
  calculated normally" (formulas read the empty argument as FALSE and forced b = 0);
* the fit is a QR decomposition by Householder reflections of ``[1, x1 .. xk]`` (Excel
  2003 and later use a QR decomposition): on pycel's stats.xlsx it agrees with Excel to
  15 significant digits in 21 of 23 coefficients (an SVD solve: 17; the last bits of
  Excel's own reflections are not published);
* *collinearity*: "LINEST checks for collinearity and removes any redundant X columns
  from the regression model when it identifies them. Removed X columns can be recognized
  in LINEST output as having 0 coefficients in addition to 0 se values ... each X column
  that was removed from the model due to collinearity increases the value of df by 1"
  (``LINEST(y, {1,1,1,1,1})`` is m = 0, b = mean(y); formulas split b between both);
* the statistics in Excel's layout:

  =========  ========  ===  ========  =====
  m_k        m_(k-1)   ...  m_1       b
  se_k       se_(k-1)  ...  se_1      se_b
  r2         se_y
  F          df
  ss_reg     ss_resid
  =========  ========  ===  ========  =====

  the standard errors in the coefficients' order, F = ``(ss_reg / v1) / (ss_resid /
  df)`` with ``v1`` the number of x columns kept, #NUM! when ss_resid is 0 (an exact
  fit: Excel's ``LINEST({1;2;3},{2;3;4},TRUE,TRUE)`` shows F #NUM! and ss_resid 0,
  pycel's ``tests/fixtures/stats.xlsx`` Stats!D45:E49); with ``const`` FALSE ``se_b``
  is #N/A and the sums of squares are not centred (Microsoft: "the total sum of squares
  is computed without subtracting the mean"); the cells Excel leaves empty hold #N/A.

  When every x column is removed (``LINEST({1;2;3},{2,3;2,3;2,3},,TRUE)``), Excel shows
  r2 1, se_y 0, F #NUM!, df 0, ss_reg the total sum of squares and ss_resid 0 with every
  standard error 0 (stats.xlsx LinestArrayExp!F21:H25); that is what is given here.

A residual sum of squares within 1e-28 of the total is the exact 0 Excel shows for an
exact fit (Stats!D46:E49: 0, not 2e-15). TREND and GROWTH are fitted by the same rules
and give the shape of new_x (one x variable) or one value per observation.
"""
from __future__ import annotations

import numpy as np

from formulas.functions import Array
from formulas.tokens.operand import XlError

from .values import (LEFT_OUT, XL, first_value, is_collection, is_left_out, is_number,
                     values_of)

#: a column whose part orthogonal to the columns before it is at most this share of its
#: own length is redundant (collinear with them)
COLLINEAR = 1e-13
#: a residual sum of squares at most this share of the total is an exact fit: 0
EXACT = 1e-28


def householder_fit(x: np.ndarray, y: np.ndarray):
    """Least squares ``x @ p ~ y`` by Householder QR, column by column, dropping each
    column collinear with those before it. Returns (p with 0 for a dropped column, the
    kept columns' boolean mask, the kept columns' ``(R^T R)^-1``, the residual sum of
    squares)."""
    a = np.array(x, dtype=float)
    b = np.array(y, dtype=float).reshape(-1)
    n, k = a.shape
    kept = np.zeros(k, dtype=bool)
    rows = 0    # reflections done: the rows of R filled
    for j in range(k):
        if rows >= n:
            break
        col = a[rows:, j]
        norm = float(np.sqrt(col @ col))
        full = float(np.sqrt(a[:, j] @ a[:, j]))
        if norm <= COLLINEAR * full or norm == 0.0:
            continue
        alpha = -norm if col[0] >= 0 else norm
        v = col.copy()
        v[0] -= alpha
        vv = float(v @ v)
        for c in range(j, k):
            a[rows:, c] -= 2.0 * v * (v @ a[rows:, c]) / vv
        b[rows:] -= 2.0 * v * (v @ b[rows:]) / vv
        kept[j] = True
        rows += 1
    idx = np.flatnonzero(kept)
    r = np.zeros((len(idx), len(idx)))
    for i, j in enumerate(idx):
        r[i, :] = a[i, idx]
    coef = np.zeros(len(idx))
    for i in range(len(idx) - 1, -1, -1):
        coef[i] = (b[i] - r[i, i + 1:] @ coef[i + 1:]) / r[i, i]
    p = np.zeros(k)
    p[idx] = coef
    rinv = np.linalg.inv(r) if len(idx) else np.zeros((0, 0))
    tail = b[len(idx):]
    return p, kept, rinv @ rinv.T, float(tail @ tail)


def fit(x, y, const, stats):
    """formulas' ``_xlinest``: the result array of LINEST for x (n by k), y (n by 1)."""
    n, k = x.shape
    y = np.asarray(y, dtype=float).reshape(-1)
    design = np.column_stack([np.ones(n), x]) if const else np.asarray(x, dtype=float)
    p, kept, cov, sse = householder_fit(design, y)
    res = np.empty((5 if stats else 1, k + 1), dtype=object)
    res[:, :] = XL["#N/A"]
    coef = p if const else np.concatenate([[0.0], p])   # b, m1 .. mk
    res[0, :] = coef[::-1].tolist()
    if stats:
        _statistics(res, design, y, p, kept, cov, sse, const)
    return res


def _statistics(res, design, y, p, kept, cov, sse, const) -> None:
    n, cols = design.shape
    ybar = float(np.mean(y)) if const else 0.0
    sstot = float(np.sum((y - ybar) ** 2))
    x_kept = int(kept.sum()) - (1 if const and kept[0] else 0)
    if sse <= EXACT * max(sstot, float(y @ y)):
        sse = 0.0
    se = np.zeros(cols)
    if x_kept == 0 and cols > (1 if const else 0):   # every x column removed
        res[1, :cols] = 0.0
        if not const:
            res[1, cols] = XL["#N/A"]
        res[2, 0], res[2, 1] = 1.0, 0.0
        res[3, 0], res[3, 1] = XL["#NUM!"], 0.0
        res[4, 0], res[4, 1] = sstot, 0.0
        return
    df = n - int(kept.sum())
    ssreg = sstot - sse if const else float(np.sum((design @ p) ** 2))
    res[4, 0], res[4, 1] = ssreg, sse
    res[3, 1] = float(df)
    res[2, 0] = ssreg / (ssreg + sse) if ssreg + sse else XL["#NUM!"]
    if df <= 0:
        res[2, 1] = 0.0
        res[3, 0] = XL["#NUM!"]
        res[1, :cols] = 0.0
        return
    sigma2 = sse / df
    res[2, 1] = float(np.sqrt(sigma2))
    res[3, 0] = (ssreg / x_kept) / sigma2 if sigma2 and x_kept else XL["#NUM!"]
    se[kept] = np.sqrt(np.maximum(0.0, np.diag(sigma2 * cov)))
    order = se[::-1].tolist()   # m_k ... m_1 [, b]: the order of row 1
    for j, v in enumerate(order):
        res[1, j] = v
    if not const:
        res[1, cols] = XL["#N/A"]


def _shape(a):
    """(rows, columns) of the argument ``a`` (a single value is 1 by 1)."""
    values = values_of(a) if a is not None else None
    if values is None or values.ndim == 0:
        return (1, 1)
    return values.shape if values.ndim == 2 else (1, values.size)


def _sizes_agree(known_y, known_x, new_x) -> bool:
    """Do the ranges' sizes fit (Microsoft: known_y's a row or a column; known_x's one
    variable of the same shape, or several, one per row or column; new_x's as many
    variables as known_x's)? Excel checks this before the values: a y range one cell
    longer than x is #REF! even when that cell is empty (stats.xlsx LinestArrayExp!B29)."""
    y = _shape(known_y)
    if 1 not in y or known_x is None or is_left_out(first_value(known_x)) and \
            not is_collection(known_x):
        return 1 in y
    x = _shape(known_x)
    if x == y:
        variables = 1
    elif y[1] == 1 and x[0] == y[0]:
        variables = x[1]
    elif y[0] == 1 and x[1] == y[1]:
        variables = x[0]
    else:
        return False
    if new_x is None or not is_collection(new_x) and is_left_out(first_value(new_x)):
        return True
    nx = _shape(new_x)
    if variables == 1 and x == y:
        return True
    return nx[1] == variables if y[1] == 1 else nx[0] == variables


def _snap(total: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Excel's near-zero rule for a sum: a result within 1e-15 of its largest term is 0
    (``TREND`` of an exact line at its root is 0, not -1.8E-15: pycel's stats.xlsx
    Trend!B8)."""
    scale = np.max(np.abs(terms), axis=-1) if terms.size else 0.0
    return np.where(np.abs(total) <= 1e-15 * scale, 0.0, total)


def _numbers(a) -> np.ndarray:
    """The 2-D float array of a range of numbers; raises #VALUE! for any other value
    (an empty cell, text, a logical) and passes an error on."""
    from formulas.errors import FoundError
    values = values_of(a)
    values = values.reshape(1, -1) if values.ndim < 2 else values
    for v in values.reshape(-1).tolist():
        if isinstance(v, XlError):
            raise FoundError(err=v)
        if not is_number(v):
            raise FoundError(err=XL["#VALUE!"])
    return values.astype(float)


def trend(known_y, known_x=None, new_x=None, const=True, growth=False):
    """TREND (GROWTH when ``growth``): the fitted y at ``new_x``, in ``new_x``'s shape for
    one x variable, else one value per row of new_x (a column y) or per column (a row
    y): Microsoft's TREND page ("new_x's must include a column (or row) for each
    independent variable")."""
    from formulas.errors import FoundError
    omitted = [a is None or not is_collection(a) and is_left_out(first_value(a))
               for a in (known_x, new_x)]
    if not _sizes_agree(known_y, None if omitted[0] else known_x,
                        None if omitted[1] else new_x):
        return XL["#REF!"]
    try:
        y = _numbers(known_y)
        rowwise = y.shape[0] == 1 and y.shape[1] > 1
        n = y.size
        x = _numbers(known_x) if not omitted[0] else \
            np.arange(1.0, n + 1).reshape(y.shape)
        one = x.shape == y.shape
        xo = x.reshape(n, 1) if one else (x.T if rowwise else x)
        nx = _numbers(new_x) if not omitted[1] else x
        nxo = nx.reshape(-1, 1) if one else (nx.T if rowwise else nx)
    except FoundError as exc:
        return exc.err
    c = True if _omitted(const) else first_value(const)
    if isinstance(c, XlError):
        return c
    c = bool(c) if not is_left_out(c) else False
    yv = y.reshape(-1)
    if growth:
        if np.any(yv <= 0):
            return XL["#NUM!"]
        yv = np.log(yv)
    coef = np.asarray(fit(xo, yv, c, False)[0, ::-1], dtype=float)   # b, m1 .. mk
    terms = np.column_stack([np.full(nxo.shape[0], coef[0]), nxo * coef[1:]])
    total = _snap(np.sum(terms, axis=1), terms)
    if growth:
        total = np.exp(total)
    shape = nx.shape if one else ((1, -1) if rowwise else (-1, 1))
    return total.reshape(shape).view(Array)


def growth(known_y, known_x=None, new_x=None, const=True):
    return trend(known_y, known_x, new_x, const, growth=True)


def install(table, put) -> None:
    import formulas.functions.stat as stat
    from formulas.errors import FoundError
    parse = stat._xlinest_parse
    if getattr(parse, "_zvm_excel", False):
        return

    def xlinest_parse(known_y, known_x=None, const=True, _stats=False, new_x=None):
        if not _sizes_agree(known_y, known_x, new_x):
            raise FoundError(err=XL["#REF!"])
        if _omitted(const):
            const = True
        if _omitted(_stats):
            _stats = False
        if new_x is not None and not is_collection(new_x) and \
                not is_left_out(first_value(new_x)):
            new_x = np.array([[first_value(new_x)]], dtype=object)
        return parse(known_y, known_x, const, _stats, new_x)

    xlinest_parse._zvm_excel = True
    stat._xlinest_parse = xlinest_parse  # LINEST, LOGEST, TREND, GROWTH call them so
    stat._xlinest = fit
    put(table, "TREND", trend)
    put(table, "GROWTH", growth)


def _omitted(a) -> bool:
    """An argument left out (``LINEST(y,x,,TRUE)``): it takes its default."""
    v = first_value(a)
    return any(v is x for x in LEFT_OUT)

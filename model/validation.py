"""How good the projections are: leave-one-out over size and over connections.

Each interior measured point is predicted from the others, with the same code the
model uses (:class:`zvmplan.curves.SizeCurve`, :class:`zvmplan.curves.ConnGrid`).
``python scripts/projection_report.py`` prints these numbers; the tests hold them
to the targets (000 Table 1: median <= 5%, max <= 15% per metric; 003 connections
10 and 20: median <= 5%, max <= 25%).
"""
from __future__ import annotations

import numpy as np

from .data import find
from .interp import pchip
from .tables import conn_grid, outlier_runs, size_curve

SIZE_METRICS = ("mb_per_sec", "mb_per_cpusec", "cpusec_per_sec", "cp_cpusec_per_mb", "pct_cp")


def loo_size(transport: str = "CMS_IUCV") -> dict[str, np.ndarray]:
    """Absolute % error per metric predicting each interior size of 000 from the others."""
    full = size_curve(transport)
    table = {"CMS_IUCV": "Table 1", "IUCV": "Table 2", "VCTC": "Table 3"}[transport]
    published = {(r.size_bytes, r.metric): r.value
                 for r in find(document="000", transport=transport, table=table)}
    errors = {m: [] for m in SIZE_METRICS}
    for s in full.sizes[1:-1]:
        curve = size_curve(transport, drop=(int(s),))
        values, _ = curve.evaluate(np.array([s]))
        for m in SIZE_METRICS:
            errors[m].append(abs(values[m][0] / published[(int(s), m)] - 1) * 100)
    return {m: np.array(e) for m, e in errors.items()}


def loo_connections(left_out=(10, 20)) -> dict[str, np.ndarray]:
    """Absolute % error per metric predicting each of ``left_out`` connection counts of
    every 003 series (device, workload, MTU, level) from the other counts."""
    errors: dict[str, list] = {}
    series = {(r.transport, r.workload, r.level) for r in find(document="003", stat="value")}
    for t, w, lvl in sorted(series):
        full = conn_grid(t, w, lvl)
        for c in left_out:
            grid = conn_grid(t, w, lvl, drop_conns=(c,))
            for m in full.values:
                for mtu in full.mtus:
                    truth = full.values[m][mtu][list(full.conns[mtu]).index(c)]
                    single = type(grid)(t, w, np.array([mtu]), {mtu: grid.conns[mtu]},
                                        {m: {mtu: grid.values[m][mtu]}})
                    pred, _, _ = single.evaluate(m, mtu, c)
                    errors.setdefault(m, []).append(abs(pred / truth - 1) * 100)
    return {m: np.array(e) for m, e in errors.items()}


def summary(errors: dict[str, np.ndarray]) -> dict[str, tuple[float, float]]:
    """(median, max) absolute % error per metric."""
    return {m: (float(np.median(e)), float(np.max(e))) for m, e in errors.items()}

"""How good the projections are: leave-one-out over size and over connections.

Each interior measured point is predicted from the others, with the same code the
model uses (:class:`zvmplan.curves.SizeCurve`, :class:`zvmplan.curves.ConnGrid`).
``python scripts/projection_report.py`` prints these numbers; the tests hold them
to the targets (000 Table 1: median <= 5%, max <= 15% per metric; 003 connections
10 and 20: median <= 5%, max <= 25%).
"""
from __future__ import annotations

from functools import lru_cache

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


# ------------------------------------------------- leave-one-out, for the bands ----
# Signed relative errors r = published / predicted - 1, per metric, of each projection method
# on the table it projects: zvmplan.streaming and zvmplan.transactions turn them into the band of a projected answer
# (predicted x (1 + min(0, min r)) .. predicted x (1 + max(0, max r))), which therefore
# contains every held-out published value it was derived from.
BAND_SIZE_METRICS = ("mb_per_sec", "mb_per_cpusec", "cpusec_per_sec", "cp_cpusec_per_mb",
                     "v_cpusec_per_mb", "tot_cpusec_per_mb", "pct_cp")


def _r(truth: float, pred: float) -> float:
    return float(truth / pred - 1)


@lru_cache(maxsize=None)
def size_errors(transport: str) -> dict[str, dict[str, np.ndarray]]:
    """Per metric: ``interp``, predicting each interior size of the transport's 000 table
    from the others (PCHIP), and ``extrap``, predicting each end size from the others (the
    cost fit). Published tot and virtual CPU/MB are 1 / (MB/CPU-sec) and that minus CP."""
    full = size_curve(transport)
    out = {m: {"interp": [], "extrap": []} for m in BAND_SIZE_METRICS}
    table = {"CMS_IUCV": "Table 1", "IUCV": "Table 2", "VCTC": "Table 3"}[transport]
    published = {(r.size_bytes, r.metric): r.value
                 for r in find(document="000", transport=transport, table=table)}
    for i, s in enumerate(full.sizes):
        kind = "interp" if 0 < i < len(full.sizes) - 1 else "extrap"
        values, _ = size_curve(transport, drop=(int(s),)).evaluate(np.array([s]))
        truth = {m: published[(int(s), m)] for m in SIZE_METRICS}
        truth["tot_cpusec_per_mb"] = 1 / truth["mb_per_cpusec"]
        truth["v_cpusec_per_mb"] = truth["tot_cpusec_per_mb"] - truth["cp_cpusec_per_mb"]
        for m in BAND_SIZE_METRICS:
            out[m][kind].append(_r(truth[m], values[m][0]))
    return {m: {k: np.array(v) for k, v in d.items()} for m, d in out.items()}


def _levels(transport: str, workload: str) -> tuple[str, ...]:
    return tuple(sorted({r.level for r in find(document="003", transport=transport,
                                                workload=workload, stat="value")}))


@lru_cache(maxsize=None)
def conn_errors(transport: str, workload: str) -> dict[str, dict[str, np.ndarray]]:
    """Per metric, over every MTU and level of one 003 device and workload: ``interp``,
    predicting each interior connection count from the others (PCHIP in log-log), and
    ``flat``, predicting the largest count by holding the next largest flat. A series holding
    a flagged outlier run (:func:`zvmplan.tables.outlier_runs`) is left out."""
    out: dict[str, dict[str, list]] = {}
    bad = outlier_runs()
    for lvl in _levels(transport, workload):
        full = conn_grid(transport, workload, lvl)
        for mtu in full.mtus:
            cs = full.conns[mtu]
            if any((transport, workload, int(mtu), lvl, int(c)) in bad for c in cs):
                continue
            for m in full.values:
                y = full.values[m][mtu]
                d = out.setdefault(m, {"interp": [], "flat": []})
                d["flat"].append(_r(y[-1], y[-2]))
                for j in range(1, len(cs) - 1):
                    keep = np.arange(len(cs)) != j
                    pred = np.exp(pchip(np.log(cs[keep]), np.log(y[keep]), np.log(cs[j])))
                    d["interp"].append(_r(y[j], float(pred)))
    return {m: {k: np.array(v) for k, v in d.items()} for m, d in out.items()}


@lru_cache(maxsize=None)
def mtu_errors(transport: str, workload: str) -> dict[str, np.ndarray]:
    """Per metric: predicting each interior measured MTU of one 003 device and workload from
    the other MTUs (PCHIP in log-log), at every connection count and level. Empty where only
    two MTUs were measured (OSA GbE): no MTU can be left out. A row holding a flagged
    outlier run is left out."""
    out: dict[str, list] = {}
    bad = outlier_runs()
    for lvl in _levels(transport, workload):
        full = conn_grid(transport, workload, lvl)
        mt = full.mtus
        for m in full.values:
            for k, c in enumerate(full.conns[mt[0]]):
                if any((transport, workload, int(u), lvl, int(c)) in bad for u in mt):
                    continue
                y = np.array([full.values[m][u][k] for u in mt])
                for j in range(1, len(mt) - 1):
                    keep = np.arange(len(mt)) != j
                    pred = np.exp(pchip(np.log(mt[keep]), np.log(y[keep]), np.log(mt[j])))
                    out.setdefault(m, []).append(_r(y[j], float(pred)))
    return {m: np.array(v) for m, v in out.items()}


def spread(errors) -> tuple[float, float]:
    """The relative band (low, high) that contains every signed error given."""
    e = np.concatenate([np.atleast_1d(np.asarray(x, float)) for x in errors]) if errors else \
        np.zeros(0)
    if e.size == 0:
        return 0.0, 0.0
    return min(0.0, float(e.min())), max(0.0, float(e.max()))

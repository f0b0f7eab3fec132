"""Derived views: the sources' comparison and summary tables, recomputed from the detail.

* 000 Tables 4-6: CMS IUCV vs Linux IUCV vs Linux CTC at MTU 1500 / 9000 / 32764, with
  each Linux value's fraction of CMS IUCV and CTC's fraction of Linux IUCV.
* 003 Table 1: average % change 4.3.0 -> 4.4.0 per device, workload and metric.
* 003 Tables 20-25 (charts lost in conversion): ratio 4.4.0 / 4.3.0 per connections.

>>> rows = comparison_000("mb_per_cpusec")
>>> rows[0]["mtu"], round(rows[0]["iucv_frac"], 3), round(rows[0]["ctc_iucv_frac"], 3)
(1500, 0.292, 0.733)
"""
from __future__ import annotations

import numpy as np

from . import names
from .api import per_mb
from .data import find
from .errors import NoDataError, UnknownNameError

COMPARISON_MTUS = (1500, 9000, 32764)
COMPARISON_TABLE = {"mb_per_cpusec": 4, "cp_cpusec_per_mb": 5, "v_cpusec_per_mb": 6}


def comparison_000(metric: str) -> list[dict]:
    """Recompute 000 Table 4 (``mb_per_cpusec``), 5 (``cp_cpusec_per_mb``) or 6
    (``v_cpusec_per_mb``) from the data of Tables 1-3 and 6."""
    rows = []
    for mtu in COMPARISON_MTUS:
        cms, iucv, ctc = (per_mb(t, mtu, metric).value for t in ("CMS_IUCV", "IUCV", "VCTC"))
        rows.append({"mtu": mtu, "cms_iucv": cms, "iucv": iucv, "ctc": ctc,
                     "iucv_frac": iucv / cms, "ctc_frac": ctc / cms, "ctc_iucv_frac": ctc / iucv})
    return rows


def published_comparison_000(metric: str) -> list[dict]:
    """The same table as the source printed it (kept only for comparison)."""
    tno = COMPARISON_TABLE[metric]
    out = []
    for mtu in COMPARISON_MTUS:
        recs = find(document="000", table=f"Table {tno}", size_bytes=mtu)
        get = lambda col: next(r for r in recs if r.column == col)  # noqa: E731
        out.append({"mtu": mtu, "cms_iucv": get("CMS/IUCV"), "iucv": get("Linux/IUCV"),
                    "ctc": get("Linux/CTC"), "iucv_frac": get("Linux/IUCV (fraction of CMS/IUCV)"),
                    "ctc_frac": get("Linux/CTC (fraction of CMS/IUCV)"),
                    "ctc_iucv_frac": get("Linux/CTC [fraction of Linux/IUCV]")})
    return out


METRICS_003 = ("tx_per_sec", "v_cpumsec_per_tx", "cp_cpumsec_per_tx", "tot_cpumsec_per_tx")


def _pct_deltas(transport: str, workload: str, metric: str) -> np.ndarray:
    recs = find(document="003", transport=transport, workload=workload, metric=metric,
                stat="delta_pct")
    return np.array([r.value for r in recs])


def summary_003(method: str = "mean") -> list[dict]:
    """Recompute 003 Table 1: the % change 4.3.0 -> 4.4.0 per device, workload and metric,
    averaged over every MTU and connection count of that device and workload.

    ``method``: ``mean`` of the published %delta cells (what the source says it did), or
    ``median`` (robust to the one-off HiperSockets STRG MTU 32768 1-connection run, +175%).
    Each row also carries the published figure and the difference in points.
    """
    agg = {"mean": np.mean, "median": np.median}[method]
    out = []
    for r in find(document="003", table="Table 1"):
        deltas = _pct_deltas(r.transport, r.workload, r.metric)
        value = float(agg(deltas))
        out.append({"transport": r.transport, "workload": r.workload, "metric": r.metric,
                    "recomputed_pct": value, "published": r, "published_pct": r.value,
                    "difference_pts": value - r.value, "n": len(deltas)})
    return out


def qioa_ratios(transport: str, workload: str, mtu: int) -> dict[int, dict[str, float]]:
    """4.4.0 / 4.3.0 ratio of each metric per connection count (003 Tables 20-25).

    >>> round(qioa_ratios("OSA_GBE", "RR", 1492)[50]["cp_cpumsec_per_tx"], 3)
    0.611
    """
    out = {}
    recs = find(document="003", transport=transport, workload=workload, size_bytes=mtu,
                stat="value")
    for r in recs:
        if r.level != "4.4.0":
            continue
        base = next(b for b in recs if b.level == "4.3.0" and b.metric == r.metric
                    and b.connections == r.connections)
        out.setdefault(r.connections, {})[r.metric] = r.value / base.value
    return out


#: The charts 003 printed (Tables 20-25): device, workload, MTU.
QIOA_CHARTS = (("OSA_GBE", "CRR", 8992), ("OSA_GBE", "RR", 1492), ("OSA_GBE", "STRG", 8992),
               ("HIPERSOCKETS", "CRR", 57344), ("HIPERSOCKETS", "RR", 57344),
               ("HIPERSOCKETS", "STRG", 57344))


#: endpoint names 004's stack ranges use beyond zvmplan's transports
STACK_ENDPOINTS = ("CLAW", "ALL")
STACK_NOTE_004 = ("004, z/VM 4.3.0 VM TCP/IP stack improvements: for VM TCP/IP stack endpoints "
                  "only, never for Linux-guest traffic; 004 gives no configuration per range")


def _stack_transport(transport) -> str:
    if isinstance(transport, str) and transport.strip().upper() in STACK_ENDPOINTS:
        return transport.strip().upper()
    return names.transport(transport)


def _stack_workload(workload) -> str:
    w = names.workload(workload)
    return "STRG" if w == "STREAM" else w  # 004's streaming workload is STRG (20 MB gets)


def stack_improvement(transport: str, workload: str) -> dict[str, tuple[float, float]]:
    """004's z/VM 4.3.0 VM TCP/IP stack ranges (VM stack endpoints only), in %:
    ``throughput_increase`` for the transport (HIPERSOCKETS, GUEST_LAN, CLAW, VCTC),
    ``cpu_per_unit_decrease`` for all devices (``ALL``).

    >>> stack_improvement("GUEST_LAN", "RR")
    {'throughput_increase': (24.0, 42.0), 'cpu_per_unit_decrease': (10.0, 26.0)}
    >>> stack_improvement("CLAW", "RR")["throughput_increase"]
    (2.0, 2.0)
    """
    t, w = _stack_transport(transport), _stack_workload(workload)
    out = {}
    for key, tr in (("throughput_increase", t), ("cpu_per_unit_decrease", "ALL")):
        recs = find(document="004", transport=tr, workload=w)
        lo = [r.value for r in recs if r.stat.startswith(key) and r.stat.endswith("low_pct")]
        hi = [r.value for r in recs if r.stat.startswith(key) and r.stat.endswith("high_pct")]
        if lo and hi:
            out[key] = (lo[0], hi[0])
    if "throughput_increase" not in out and t != "ALL":
        raise NoDataError(f"004 gives no 4.3.0 stack range for {t} {w}; it covers HIPERSOCKETS, "
                          "GUEST_LAN, CLAW and VCTC (throughput) and ALL (CPU) for STRG, CRR "
                          "and RR")
    return out


def stack_change(transport, workload, metric) -> tuple[float, float]:
    """The published 4.3.0 VM TCP/IP stack change as signed % (low, high): ``throughput``
    (an increase, per transport) or ``cpu`` (CPU per unit of work, a decrease 004 states
    for the stack's device drivers as a whole, so every transport gets the ALL range).

    >>> stack_change("HIPERSOCKETS", "RR", "throughput")
    (26.0, 35.0)
    >>> stack_change("CLAW", "STRG", "cpu")
    (-45.0, -14.0)
    """
    if not isinstance(metric, str) or metric.strip().lower() not in ("throughput", "cpu"):
        raise UnknownNameError(f"unknown stack metric {metric!r}; valid: throughput, cpu")
    m = metric.strip().lower()
    ranges = stack_improvement(transport, workload)
    if m == "throughput":
        if "throughput_increase" not in ranges:
            raise NoDataError("004 gives no throughput range for ALL; name a transport: "
                              "HIPERSOCKETS, GUEST_LAN, CLAW or VCTC")
        return ranges["throughput_increase"]
    lo, hi = ranges["cpu_per_unit_decrease"]
    return -hi, -lo

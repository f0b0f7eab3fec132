"""The planner-facing model: per-MB and per-transaction figures at any supported
configuration, each with its basis.

Published points come back exactly as published:

>>> per_mb("IUCV", 9000, "cp_cpusec_per_mb").value
0.012367
>>> per_tx("HIPERSOCKETS", "RR", 8992, 10, "tx_per_sec", level="4.4.0").value
19681.727
>>> per_tx("OSA_GBE", "CRR", 1492, 1, "tx_per_sec", level="4.3.0").basis
'measured'

Dimensions and how each is projected are described in :mod:`zvmplan.curves`
(size, MTU, connections) and :mod:`zvmplan.levels` (z/VM level); the processor
speed factor divides CPU per unit of work and, for memory-to-memory transports
only, multiplies throughput.

The figures come by source family: :mod:`zvmplan.streaming` (000), :mod:`zvmplan.ftp` (001),
:mod:`zvmplan.transactions` (002, 003) and :mod:`zvmplan.strg` (per MB from 002/003's STRG);
this module dispatches :func:`per_mb` among them and holds what a planner asks across them.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import names
from .adjust import finish, level_adjust, speed_adjust
from .answer import Answer, Many, Pair, many_of
from .bands import band
from .errors import ArgumentTypeError, NoDataError, OutOfRangeError
from .ftp import ftp_per_mb
from .inputs import level_or_native, native_level, number, speed
from .levels import level_step
from .setops import isin
from .streaming import stream_answer
from .strg import strg_per_mb, strg_per_mb_many
from .tables import (FTP_GETS_PER_RUN, FTP_MB_PER_RUN, FTP_MTU, FTP_TRANSPORTS, SIZE_RANGE,
                     STREAM_TRANSPORTS, TX_TRANSPORTS, conn_grid, outlier_runs, size_curve)
from .transactions import _per_tx_cached, per_tx, per_tx_many  # noqa: F401 (benchmarks clear it)

__all__ = ["per_mb", "per_mb_many", "per_tx", "per_tx_many", "band", "cpu_engines",
           "confidence_interval", "native_level", "transports", "workloads", "levels",
           "size_curve", "conn_grid", "outlier_runs", "TX_WORKLOADS",
           "STREAM_TRANSPORTS", "FTP_TRANSPORTS", "TX_TRANSPORTS", "FTP_MB_PER_RUN",
           "FTP_GETS_PER_RUN", "FTP_MTU", "SIZE_RANGE"]


# ------------------------------------------------------------------ per MB ----
def per_mb(transport, size_bytes, metric="cp_cpusec_per_mb", level=None, speed_factor=None,
           connections=None) -> Answer:
    """A streaming per-MB figure for one transport and transfer size / MTU.

    Parameters
    ----------
    transport : str
        Transport name or alias (:func:`zvmplan.names.transport`).
    size_bytes : float
        Transfer size (CMS_IUCV) or MTU [bytes].
    metric : str
        One of :data:`zvmplan.names.PER_MB_METRICS`.
    level : str, optional
        z/VM level; default the level the transport was measured at.
    speed_factor : float, optional
        Processor speed relative to the measured machine [1 = same].
    connections : int, optional
        For per-MB figures derived from STRG (OSA_GBE, HIPERSOCKETS, GUEST_LAN): the
        number of concurrent connections; default the measured count with the most total
        CPU per MB at that MTU and level (:mod:`zvmplan.strg_default`; Guest LAN: 50, the
        only count measured).

    >>> per_mb("CMS_IUCV", 1500, "mb_per_sec").value
    25.871
    """
    t = names.transport(transport)
    m = names.metric(metric) if metric not in names.PER_MB_METRICS else metric
    if m not in names.PER_MB_METRICS:
        raise ArgumentTypeError(f"{m} is not a per-MB metric; valid: {', '.join(names.PER_MB_METRICS)}")
    s = number(size_bytes, "size_bytes")
    lvl = level_or_native(t, level)
    f = speed(speed_factor)
    c = None if connections is None else number(connections, "connections")
    return _per_mb_cached(t, s, m, lvl, f, c)


@lru_cache(maxsize=65536)
def _per_mb_cached(t, s, m, lvl, f, c) -> Answer:
    return finish(_per_mb_answer(t, s, m, lvl, f, c), t, m, f, s)


def _per_mb_answer(t, s, m, lvl, f, c) -> Answer:
    if s <= 0:
        raise OutOfRangeError(f"size_bytes must be > 0; got {s:g}")
    if t in STREAM_TRANSPORTS:
        if c is not None:
            raise NoDataError(f"{t}: 000 measured one pair of guests; connections does not apply")
        ans = stream_answer(t, s, m)
        step = level_step(t, "3.1.0", lvl)
        return speed_adjust(level_adjust(ans, step, m), t, m, f)
    if t in FTP_TRANSPORTS:
        if c not in (None, 1.0):
            raise NoDataError(f"{t}: 001 measured a single FTP session; connections does not apply")
        return speed_adjust(ftp_per_mb(t, s, m, lvl), t, m, f)
    return speed_adjust(strg_per_mb(t, s, m, lvl, c), t, m, f)


# ------------------------------------------------------------------- planning ---
TX_WORKLOADS = ("RR", "CRR")  # planner loads in tx/s; bulk workloads (STREAM, FTP_GET, STRG) in MB/s


def cpu_engines(transport, workload, size_bytes, connections, level, speed_factor, load,
                kind="tot") -> float:
    """Engines (CPU-seconds per second) a link burns carrying ``load``: tx/s for RR and
    CRR, MB/s for the bulk workloads. ``kind``: ``cp``, ``v`` or ``tot``.

    >>> round(cpu_engines("IUCV", "STREAM", 9000, None, None, None, 40, kind="cp"), 5)
    0.49468
    """
    w = names.workload(workload)
    if w in TX_WORKLOADS:
        metric = {"cp": "cp_cpumsec_per_tx", "v": "v_cpumsec_per_tx",
                  "tot": "tot_cpumsec_per_tx"}[kind]
        return load * per_tx(transport, w, size_bytes, connections, metric, level,
                             speed_factor).value / 1000
    metric = {"cp": "cp_cpusec_per_mb", "v": "v_cpusec_per_mb", "tot": "tot_cpusec_per_mb"}[kind]
    conns = connections if names.transport(transport) in TX_TRANSPORTS else None
    return load * per_mb(transport, size_bytes, metric, level, speed_factor, conns).value


# ----------------------------------------------------------------- vectorised ---
def per_mb_many(transport, sizes, metric="cp_cpusec_per_mb", level=None, speed_factor=None,
                connections=None) -> Many:
    """:func:`per_mb` over an array of sizes (the curve is evaluated once, vectorised)."""
    t = names.transport(transport)
    s = np.asarray(sizes, float).reshape(-1)
    if t in STREAM_TRANSPORTS and connections is None:
        per_mb(t, float(size_curve(t).sizes[0]), metric, level, speed_factor)  # validate args
        curve = size_curve(t)
        ok = curve.check(s) & np.isfinite(s)
        values = np.full(s.shape, np.nan)
        errors = {int(i): curve.range_error(s[i]) for i in np.flatnonzero(~ok)}
        if ok.any():
            meas = isin(s, curve.sizes)
            values[ok] = _curve_values(t, s[ok], metric, level, speed_factor)
            for i in np.flatnonzero(ok & meas):  # measured points: exactly as published
                values[i] = per_mb(t, s[i], metric, level, speed_factor).value
        return Many(values, errors)
    if t in TX_TRANSPORTS and len(s) > 1:
        m = names.metric(metric)
        if m in names.PER_MB_METRICS:
            return strg_per_mb_many(t, s, m, level, speed_factor, connections)
    return many_of(lambda x: per_mb(t, x, metric, level, speed_factor, connections), s)


def _curve_values(t, s, metric, level, speed_factor):
    """Vectorised curve values with the same level and speed scaling as :func:`per_mb`."""
    m = names.metric(metric)
    values, _ = size_curve(t).evaluate(s)
    # the scalings are linear: take them from one scalar answer off the measured grid
    probe = float(np.sqrt(size_curve(t).sizes[0] * size_curve(t).sizes[1]))
    base = stream_answer(t, probe, m).value
    scaled = per_mb(t, probe, m, level, speed_factor).value
    return values[m] * (scaled / base)


# ----------------------------------------------------------------- discovery ----
def transports() -> list[str]:
    """Canonical transport names.

    >>> transports()[:3]
    ['CMS_IUCV', 'IUCV', 'VCTC']
    """
    return list(names.TRANSPORTS)


def workloads() -> list[str]:
    return list(names.WORKLOADS)


def levels() -> list[str]:
    return list(names.LEVELS)


def confidence_interval(transport, metric="cp_cpusec_per_mb", level=None) -> Pair:
    """95% confidence interval where the source has samples (001: LCS, ESCON_CTC), as a
    :class:`~zvmplan.answer.Pair` (unpacks as ``low, high``). At a level after 4.1.0 the
    4.1.0 interval is carried unchanged, and labelled so.

    >>> lo, hi = confidence_interval("LCS", "cp_cpusec_per_mb", "4.1.0")
    >>> round(lo * 500, 3), round(hi * 500, 3)
    (5.866, 5.954)
    >>> confidence_interval("LCS", "cp_cpusec_per_mb", "4.4.0").basis
    'carried'
    """
    t = names.transport(transport)
    if t not in FTP_TRANSPORTS:
        raise NoDataError(f"{t}: the source publishes single results, not samples; only "
                          f"{', '.join(FTP_TRANSPORTS)} (001) have confidence intervals")
    m = names.metric(metric)
    if m in names.PER_TX_METRICS:
        ans = per_tx(t, "FTP_GET", FTP_MTU, 1, m, level)
        base = per_mb(t, FTP_MTU, "cp_cpusec_per_mb" if m.startswith("cp") else
                      "tot_cpusec_per_mb", level)
        if base.interval is None or m.startswith("v_"):
            raise NoDataError(f"{t}: no interval for {m}")
        scale = ans.value / base.value
        lo, hi = base.interval[0] * scale, base.interval[1] * scale
    else:
        ans = per_mb(t, FTP_MTU, m, level)
        if ans.interval is None:
            raise NoDataError(f"{t}: the source has samples for CP and total CPU only; no "
                              f"interval for {m}")
        lo, hi = ans.interval
    carried = ans.basis == "carried"
    what = ("95% confidence interval on the mean of 001's 4 samples (Student's t)" +
            (": the 4.1.0 interval carried unchanged, not measured at this level" if carried
             else ""))
    return Pair(lo, hi, ans.unit, "carried" if carried else "measured", ans.sources, what,
                tuple(n for n in ans.notes if "carried" in n or "guest only" in n))

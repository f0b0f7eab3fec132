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
"""
from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np

from . import names
from .answer import Answer, Many, Pair, compose, inverse, weakest
from .curves import (BASIS_NAMES, CONN_METHOD_IN, CONN_METHOD_OUT, M_EXTRAP, M_IN, M_INTERP,
                     MTU_METHOD_IN,
                     SIZE_METHOD_IN, SIZE_METHOD_OUT, ConnGrid, SizeCurve)
from .data import find, one
from . import coverage, framing, hardware, hs_below
from .errors import ArgumentTypeError, NoDataError, OutOfRangeError, ZvmplanError
from .levels import LevelStep, level_step
from .stats import mean_interval
from .strg_default import default_connections

STREAM_TRANSPORTS = ("CMS_IUCV", "IUCV", "VCTC")
FTP_TRANSPORTS = ("LCS", "ESCON_CTC")
TX_TRANSPORTS = ("OSA_GBE", "HIPERSOCKETS", "GUEST_LAN")
FTP_MB_PER_RUN = 500.0   # 001: five GETs of a 100 MB file per run
FTP_GETS_PER_RUN = 5
FTP_MTU = 1500
_000_TABLE = {"CMS_IUCV": "Table 1", "IUCV": "Table 2", "VCTC": "Table 3"}
#: sizes the sources support, per 000: CMS IUCV as measured; the Linux line drivers from the
#: 576-byte fragmentation floor the report names; IUCV up to the 2 MB MTU 000's conclusion
#: considers for the IUCV driver, VCTC up to its largest measured MTU (32764).
SIZE_RANGE = {
    "CMS_IUCV": (1.0, 8_000_000.0, "the CMS IUCV range measured in 000 Table 1"),
    "IUCV": (576.0, 2_000_000.0, "576 bytes is the fragmentation floor and 2 MB the largest "
             "MTU 000's conclusions consider"),
    "VCTC": (576.0, 32764.0, "576 bytes is the fragmentation floor; 000 measured virtual CTC "
             "up to 32764 bytes and its conclusions consider larger MTUs for the IUCV driver "
             "only"),
}


# ------------------------------------------------------------------ inputs ----
def _number(value, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise ArgumentTypeError(f"{what} must be a number; got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ArgumentTypeError(f"{what} must be a finite number; got {value}")
    return value


def _speed(speed_factor) -> float:
    if speed_factor is None:
        return 1.0
    f = _number(speed_factor, "speed_factor")
    if f <= 0:
        raise OutOfRangeError(f"speed_factor must be > 0 (1 = the measured processor); got {f:g}")
    return f


def _level(transport: str, level) -> str:
    return native_level(transport) if level is None else names.level(level)


def native_level(transport) -> str:
    """The z/VM level a transport was measured at (the default level).

    >>> native_level("iucv"), native_level("LCS"), native_level("QDIO")
    ('3.1.0', '4.1.0', '4.3.0')
    """
    t = names.transport(transport)
    return {"CMS_IUCV": "3.1.0", "IUCV": "3.1.0", "VCTC": "3.1.0", "LCS": "4.1.0",
            "ESCON_CTC": "4.1.0"}.get(t, "4.3.0")


# -------------------------------------------------------------- data views ----
@lru_cache(maxsize=None)
def size_curve(transport: str, drop: tuple[int, ...] = ()) -> SizeCurve:
    """The 000 streaming curve of a transport (``drop``: sizes left out, for validation)."""
    recs = {(r.size_bytes, r.metric): r.value
            for r in find(document="000", transport=transport, table=_000_TABLE[transport])}
    sizes = np.array(sorted({s for s, _ in recs if s not in drop}), float)
    col = lambda m: np.array([recs[(int(s), m)] for s in sizes])  # noqa: E731
    lo, hi, why = SIZE_RANGE[transport]
    return SizeCurve(transport, sizes, 1 / col("mb_per_cpusec"), col("cp_cpusec_per_mb"),
                     col("cpusec_per_sec"), (lo, hi), why)


@lru_cache(maxsize=None)
def conn_grid(transport: str, workload: str, level: str,
              drop_conns: tuple[int, ...] = ()) -> ConnGrid:
    """Per-transaction grid of a transport/workload at a measured level."""
    if transport == "GUEST_LAN":
        acct = "ON" if level == "4.3.0" else "OFF"
        recs = find(document="002", workload=workload, accounting=acct, stat="value")
    else:
        recs = find(document="003", transport=transport, workload=workload, level=level,
                    stat="value")
    if not recs:
        raise NoDataError(f"no {transport} {workload} measurements at z/VM {level}")
    mtus = np.array(sorted({r.size_bytes for r in recs}), float)
    conns, values = {}, {}
    for m in mtus:
        cs = sorted({r.connections for r in recs if r.size_bytes == m} - set(drop_conns))
        conns[m] = np.array(cs, float)
    for r in recs:
        if r.connections in drop_conns:
            continue
        values.setdefault(r.metric, {}).setdefault(float(r.size_bytes), {})[r.connections] = r.value
    values = {met: {m: np.array([d[m][int(c)] for c in conns[m]]) for m in d}
              for met, d in values.items()}
    return ConnGrid(transport, workload, mtus, conns, values)


def _published(**where):
    found = find(stat="value", role="measured", **where)
    return found[0] if len(found) == 1 else None


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
    s = _number(size_bytes, "size_bytes")
    lvl = _level(t, level)
    f = _speed(speed_factor)
    c = None if connections is None else _number(connections, "connections")
    return _per_mb_cached(t, s, m, lvl, f, c)


@lru_cache(maxsize=65536)
def _per_mb_cached(t, s, m, lvl, f, c) -> Answer:
    return _finish(_per_mb_answer(t, s, m, lvl, f, c), t, m, f, s)


def _per_mb_answer(t, s, m, lvl, f, c) -> Answer:
    if s <= 0:
        raise OutOfRangeError(f"size_bytes must be > 0; got {s:g}")
    if t in STREAM_TRANSPORTS:
        if c is not None:
            raise NoDataError(f"{t}: 000 measured one pair of guests; connections does not apply")
        ans = _stream_answer(t, s, m)
        step = level_step(t, "3.1.0", lvl)
        return _speed_adjust(_level_adjust(ans, step, m), t, m, f)
    if t in FTP_TRANSPORTS:
        if c not in (None, 1.0):
            raise NoDataError(f"{t}: 001 measured a single FTP session; connections does not apply")
        return _speed_adjust(_ftp_per_mb(t, s, m, lvl), t, m, f)
    return _speed_adjust(_strg_per_mb(t, s, m, lvl, c), t, m, f)


ESCON_NOTE = ("ESCON_CTC CPU covers the Linux guest only: 001 measured the Linux guest, not the "
              "VM TCP/IP stack at the other end of the CTC, so its totals are not comparable with "
              "000's two-guest totals")
LCS_NOTE = ("LCS CPU covers one Linux guest only: 001's FTP server was a workstation on the IBM "
            "intranet, not a second guest, so its totals are not comparable with the two-guest "
            "totals of 000, 002 and 003")
OSA_SETUP_NOTE = ("003 ran both guests on device numbers of one OSA Express GbE chpid: the "
                  "traffic went through one adapter and never crossed the wire")


def _finish(ans: Answer, t: str, m: str, f: float, mtu: float | None = None) -> Answer:
    """Add what every answer of ``t`` must say: the measured processor, the device's
    setup and limits, and flags where the answer leaves what the measured machine had."""
    proc = hardware.processor(t)
    notes = list(ans.notes)
    if t == "ESCON_CTC":
        notes.append(ESCON_NOTE)
    if t == "LCS":
        notes.append(LCS_NOTE)
    if t == "OSA_GBE":
        notes.append(OSA_SETUP_NOTE)
        flag = framing.over_capacity_flag(t, ans.value, mtu) if m == "mb_per_sec" else ""
        if flag:  # compared as payload in the sources' MB with what the wire carries
            notes.append(flag.replace("exceeds", "is above", 1) + "; 003 reached it only "
                         "because the traffic stayed inside one adapter")
    if m == "cpusec_per_sec" and ans.value > proc.engines:
        notes.append(f"FLAG: needs {ans.value:.3g} engines (CPU-s/s), more than the "
                     f"{proc.engines} dedicated engines of the measured LPAR ({proc.document} "
                     "hardware): the measured throughput could not be sustained there")
    if f != 1.0:
        notes.append(f"speed_factor {f:g} is the per-engine capacity of the target relative to "
                     f"the {proc.name} (from zPCR or LSPR; zvmplan supplies none)")
    return replace(ans, notes=tuple(dict.fromkeys(notes)), processor=proc.label)


def _stream_answer(t: str, s: float, m: str) -> Answer:
    curve = size_curve(t)
    if not curve.check(np.array([s]))[0]:
        raise curve.range_error(s)
    unit = names.UNITS[m]
    rec = _published(document="000", transport=t, size_bytes=int(s), metric=m) \
        if s == int(s) and s in curve.sizes else None
    if rec is not None and rec.table in (_000_TABLE[t], "Table 6"):
        return Answer(rec.value, unit, "measured", (rec.ref,), rel_band=_rounding(rec),
                      band_rule=(BAND_ROUNDING,))
    values, basis = curve.evaluate(np.array([s]))
    code = int(basis[0])
    table = f"000 {_000_TABLE[t]}"
    if code == M_IN:
        how = {"tot_cpusec_per_mb": "1 / (MB/CPU-sec)",
               "v_cpusec_per_mb": "1 / (MB/CPU-sec) - CP CPU-sec/MB"}[m]
        eff = one(document="000", transport=t, table=_000_TABLE[t], size_bytes=int(s),
                  metric="mb_per_cpusec")
        tot_band = inverse(_rounding(eff))
        value = float(values[m][0])
        if m == "tot_cpusec_per_mb":
            rel = tot_band
        else:
            cp = one(document="000", transport=t, table=_000_TABLE[t], size_bytes=int(s),
                     metric="cp_cpusec_per_mb")
            tot = value + cp.value
            rel = ((tot * (1 + tot_band[0]) - cp.value - cp.half_ulp) / value - 1,
                   (tot * (1 + tot_band[1]) - cp.value + cp.half_ulp) / value - 1)
        return Answer(value, unit, "derived", (f"{table}, size {s:g}",),
                      f"computed as {how} from the published row", rel_band=rel,
                      band_rule=(BAND_ROUNDING + ", propagated through the formula",))
    method = SIZE_METHOD_IN if code == 1 else SIZE_METHOD_OUT
    notes = ()
    if code == M_EXTRAP and t != "CMS_IUCV" and s > curve.sizes[-1]:
        notes = ("a what-if: the Linux line drivers measured accepted MTUs up to 32764 bytes",)
    sources = (f"{table} (all sizes)",) + (
        ("cost fit per transport: python scripts/projection_report.py",) if code == M_EXTRAP else ())
    rel, rule = _size_band(t, m, code, s > curve.sizes[-1])
    return Answer(float(values[m][0]), unit, BASIS_NAMES[code], sources, method, notes,
                  rel_band=rel, band_rule=(rule,))


@lru_cache(maxsize=None)
def _size_band(t: str, m: str, code: int, above: bool):
    """(relative band, rule text) of a projected 000 size, by :mod:`zvmplan.coverage`."""
    if t == "CMS_IUCV":
        key = "size_dense"
    elif code != M_EXTRAP:
        key = "size_sparse"
    else:
        key = "size_whatif" if above else "size_low"
    r = coverage.rule(key, m)
    return r.rel_band, r.text()


BAND_ROUNDING = "band: the published rounding (half a unit in the last printed digit)"
BAND_CI = "band: 001's 95% confidence interval on the mean of 4 samples"
BAND_LEVEL = ("the band does not cover the level step itself (a carried or level-adjusted "
              "value is as sure as the measurement it rests on only if the step holds)")
BAND_PRODUCT = ("the two bands are multiplied as factors; the coverage of the product is not "
                "measured separately")
BAND_SPEED = "the band does not cover the speed factor's own uncertainty"


def _rounding(rec) -> tuple[float, float]:
    q = rec.half_ulp / abs(rec.value)
    return -q, q


def _level_adjust(ans: Answer, step: LevelStep, m: str) -> Answer:
    if step.basis is None:
        if not step.notes:
            return ans
        return replace(ans, notes=ans.notes + step.notes)
    factor = step.factor_for(m)
    return replace(ans, value=ans.value * factor, basis=weakest(ans.basis, step.basis),
                   sources=ans.sources + step.sources,
                   method="; ".join(p for p in (ans.method, step.method) if p),
                   notes=ans.notes + step.notes,
                   interval=None if factor != 1 else ans.interval,
                   band_rule=ans.band_rule + (BAND_LEVEL,))


def _speed_adjust(ans: Answer, t: str, m: str, f: float) -> Answer:
    if f == 1.0:
        return ans
    mem = names.TRANSPORTS[t].memory_to_memory
    if m in ("pct_cp",):
        scale = 1.0
    elif m in ("mb_per_cpusec",):
        scale = f
    elif m in ("mb_per_sec", "tx_per_sec"):
        scale = f if mem else 1.0
    elif m == "cpusec_per_sec":
        scale = 1.0 if mem else 1 / f
    else:  # CPU per unit of work
        scale = 1 / f
    why = ("memory-to-memory transport: CPU per unit of work divided and throughput multiplied "
           "by the factor (000 conclusions)" if mem else
           "real device: CPU per unit of work divided by the factor; throughput left as measured "
           "(the device, not the processor, may limit it: 003 discussion)")
    interval = None if ans.interval is None else (ans.interval[0] * scale, ans.interval[1] * scale)
    return replace(ans, value=ans.value * scale, basis=weakest(ans.basis, "extrapolated"),
                   method="; ".join(p for p in (ans.method,
                                                f"processor speed factor {f:g}: {why}") if p),
                   interval=interval, band_rule=ans.band_rule + (BAND_SPEED,))


def _ftp_means(t: str, lvl: str):
    """(basis level, CP and total CPU-s records) for LCS / ESCON CTC at ``lvl``."""
    src_level = "3.1.0" if lvl == "3.1.0" else "4.1.0"
    get = lambda met, stat: one(document="001", transport=t, metric=met, level=src_level,  # noqa
                                stat=stat)
    return src_level, {met: (get(met, "n"), get(met, "mean"), get(met, "sd"))
                       for met in ("cp_cpusec", "tot_cpusec")}


def _ftp_per_mb(t: str, s: float, m: str, lvl: str) -> Answer:
    if s != FTP_MTU:
        raise NoDataError(f"{t}: 001 measured MTU {FTP_MTU} only; no basis for {s:g}")
    if m in ("mb_per_sec", "cpusec_per_sec"):
        raise NoDataError(f"{t}: 001 reports CPU-seconds and I/O counts per run, not elapsed "
                          f"time, so {m} cannot be derived")
    src_level, rec = _ftp_means(t, lvl)
    (n_cp, cp, sd_cp), (n_t, tot, sd_t) = rec["cp_cpusec"], rec["tot_cpusec"]
    mb = FTP_MB_PER_RUN
    values = {"cp_cpusec_per_mb": cp.value / mb, "tot_cpusec_per_mb": tot.value / mb,
              "v_cpusec_per_mb": (tot.value - cp.value) / mb,
              "mb_per_cpusec": mb / tot.value, "pct_cp": 100 * cp.value / tot.value}
    interval = None
    if m == "cp_cpusec_per_mb":
        lo, hi = mean_interval(int(n_cp.value), cp.value, sd_cp.value)
        interval = (lo / mb, hi / mb)
    elif m == "tot_cpusec_per_mb":
        lo, hi = mean_interval(int(n_t.value), tot.value, sd_t.value)
        interval = (lo / mb, hi / mb)
    notes = []
    if src_level == "3.1.0":
        notes.append("measured on z/VM 4.1.0 with fast CCW translation zapped out, i.e. the "
                     "3.1.0 code path")
    basis = "derived"
    if lvl not in ("3.1.0", "4.1.0"):
        basis = "carried"
        notes.append(f"no sourced change for {t} after 4.1.0: carried from 4.1.0 to {lvl}")
    return Answer(values[m], names.UNITS[m], basis, (cp.ref, tot.ref),
                  f"per MB = mean CPU-seconds per run / {mb:g} MB per run (5 GETs of 100 MB)",
                  tuple(notes), interval, rel_band=_ftp_band(rec, m), band_rule=(BAND_CI,))


def _ftp_band(rec, m: str) -> tuple[float, float]:
    """Relative band of a 001 figure from the confidence intervals of its CP and total means."""
    (n_cp, cp, sd_cp), (n_t, tot, sd_t) = rec["cp_cpusec"], rec["tot_cpusec"]
    cp_lo, cp_hi = mean_interval(int(n_cp.value), cp.value, sd_cp.value)
    t_lo, t_hi = mean_interval(int(n_t.value), tot.value, sd_t.value)
    rel_cp = (cp_lo / cp.value - 1, cp_hi / cp.value - 1)
    rel_t = (t_lo / tot.value - 1, t_hi / tot.value - 1)
    v = tot.value - cp.value
    return {"cp_cpusec_per_mb": rel_cp, "cp_cpumsec_per_tx": rel_cp,
            "tot_cpusec_per_mb": rel_t, "tot_cpumsec_per_tx": rel_t,
            "v_cpusec_per_mb": ((t_lo - cp_hi) / v - 1, (t_hi - cp_lo) / v - 1),
            "v_cpumsec_per_tx": ((t_lo - cp_hi) / v - 1, (t_hi - cp_lo) / v - 1),
            "mb_per_cpusec": inverse(rel_t),
            "pct_cp": compose(rel_cp, inverse(rel_t))}[m]


def _strg_per_mb(t: str, s: float, m: str, lvl: str, c) -> Answer:
    mb = names.WORKLOADS["STRG"].mb_per_tx
    conns, default_why = (c, "") if c is not None else default_connections(t, s, lvl)
    tx = lambda met: per_tx(t, "STRG", s, conns, met, lvl)  # noqa: E731
    rate = tx("tx_per_sec")
    tot = tx("tot_cpumsec_per_tx")
    parts = [rate, tot]
    if m in ("cp_cpusec_per_mb", "v_cpusec_per_mb", "pct_cp"):
        cpu = tx("cp_cpumsec_per_tx" if m != "v_cpusec_per_mb" else "v_cpumsec_per_tx")
        parts.append(cpu)
    values = {"mb_per_sec": rate.value * mb, "tot_cpusec_per_mb": tot.value / 1000 / mb,
              "mb_per_cpusec": mb * 1000 / tot.value,
              "cpusec_per_sec": rate.value * tot.value / 1000}
    if len(parts) == 3:
        values["cp_cpusec_per_mb"] = values["v_cpusec_per_mb"] = parts[2].value / 1000 / mb
        values["pct_cp"] = 100 * parts[2].value / tot.value
    basis = weakest("derived", *(p.basis for p in parts))
    sources = tuple(dict.fromkeys(src for p in parts for src in p.sources))
    notes = tuple(dict.fromkeys(n for p in parts for n in p.notes))
    if c is None:
        notes += (default_why,)
    bands = {"mb_per_sec": lambda: rate.rel_band, "tot_cpusec_per_mb": lambda: tot.rel_band,
             "mb_per_cpusec": lambda: inverse(tot.rel_band),
             "cpusec_per_sec": lambda: compose(rate.rel_band, tot.rel_band),
             "cp_cpusec_per_mb": lambda: parts[2].rel_band,
             "v_cpusec_per_mb": lambda: parts[2].rel_band,
             "pct_cp": lambda: compose(parts[2].rel_band, inverse(tot.rel_band))}
    rule = tuple(dict.fromkeys(r for p in parts for r in p.band_rule)) + (
        "bands of the per-transaction figures combined through the formula",)
    method = (f"derived from STRG: {mb:g} MB per transaction "
              "(per MB = per tx / 20 MB; MB/s = tx/s x 20)")
    methods = [p.method for p in parts if p.method]
    return Answer(values[m], names.UNITS[m], basis, sources,
                  "; ".join(dict.fromkeys([method] + methods)), notes,
                  rel_band=bands[m](), band_rule=rule)


#: a run departing from the median of its series by more than this (tx/s) is suspect
OUTLIER_DEPARTURE = 0.5


@lru_cache(maxsize=None)
def outlier_runs() -> dict[tuple, str]:
    """003 runs treated as outliers, with the reason. Rule: a run (device, workload, MTU,
    level, connections) is an outlier when its tx/s departs from the median of its series
    (same device, workload, MTU and level) by more than 50% while the same configuration at
    the other z/VM level does not: the departure is that run's, not the workload's shape
    (1-connection OSA runs are low at both levels and are not outliers).

    >>> sorted(outlier_runs())
    [('HIPERSOCKETS', 'STRG', 32768, '4.3.0', 1)]
    """
    series: dict[tuple, dict[int, float]] = {}
    for r in find(document="003", metric="tx_per_sec", stat="value"):
        series.setdefault((r.transport, r.workload, r.size_bytes, r.level), {})[
            r.connections] = r.value
    far = {}
    for (t, w, mtu, lvl), runs in series.items():
        med = float(np.median(list(runs.values())))
        for c, v in runs.items():
            far[(t, w, mtu, lvl, c)] = (abs(v / med - 1) > OUTLIER_DEPARTURE, v, med)
    out = {}
    for (t, w, mtu, lvl, c), (is_far, v, med) in far.items():
        other = far.get((t, w, mtu, "4.4.0" if lvl == "4.3.0" else "4.3.0", c))
        if is_far and other is not None and not other[0]:
            out[(t, w, mtu, lvl, c)] = (
                f"FLAG: rests on an outlier run: 003 {t} {w} MTU {mtu}, {c} connection(s), "
                f"z/VM {lvl} gives {v:g} tx/s against a median of {med:g} for its series, while "
                "the same run at the other level does not depart")
    return out


def _outlier_notes(t, w, mtu, conns, level, grid) -> tuple[str, ...]:
    """The outlier flag of every run the answer at (mtu, conns) is computed from."""
    notes = []
    for (ot, ow, omtu, olvl, oc), why in outlier_runs().items():
        if (ot, ow, olvl) != (t, w, level):
            continue
        i = int(np.searchsorted(grid.mtus, omtu))
        lo = grid.mtus[max(i - 1, 0)]
        hi = grid.mtus[min(i + 1, len(grid.mtus) - 1)]
        cs = grid.conns[float(omtu)]
        j = int(np.searchsorted(cs, oc))
        clo, chi = cs[max(j - 1, 0)], cs[min(j + 1, len(cs) - 1)]
        near_mtu = mtu == omtu or lo < mtu < hi
        near_conn = conns == oc or clo < conns < chi
        if near_mtu and near_conn:
            notes.append(why)
    return tuple(notes)


# ------------------------------------------------------------ per transaction --
def per_tx(transport, workload, mtu_bytes, connections, metric="tot_cpumsec_per_tx", level=None,
           speed_factor=None) -> Answer:
    """A per-transaction figure: tx/s or CPU-milliseconds per transaction.

    Parameters
    ----------
    transport, workload : str
        Names or aliases (:mod:`zvmplan.names`).
    mtu_bytes : float
        MTU [bytes].
    connections : int
        Concurrent connections [count].
    metric : str
        One of :data:`zvmplan.names.PER_TX_METRICS`.
    level : str, optional
        z/VM level; default the level the transport was first measured at.
    speed_factor : float, optional
        Processor speed relative to the measured machine [1 = same].

    >>> per_tx("OSA_GBE", "RR", 1492, 50, "cp_cpumsec_per_tx", "4.4.0").value
    0.011
    """
    t = names.transport(transport)
    w = names.workload(workload)
    m = names.metric(metric) if metric not in names.PER_TX_METRICS else metric
    if m not in names.PER_TX_METRICS:
        raise ArgumentTypeError(f"{m} is not a per-transaction metric; valid: "
                                f"{', '.join(names.PER_TX_METRICS)}")
    mtu = _number(mtu_bytes, "mtu_bytes")
    conns = _number(connections, "connections")
    lvl = _level(t, level)
    f = _speed(speed_factor)
    return _per_tx_cached(t, w, mtu, conns, m, lvl, f)


@lru_cache(maxsize=65536)
def _per_tx_cached(t, w, mtu, conns, m, lvl, f) -> Answer:
    return _finish(_per_tx_answer(t, w, mtu, conns, m, lvl, f), t, m, f)


def _per_tx_answer(t, w, mtu, conns, m, lvl, f) -> Answer:
    if mtu <= 0:
        raise OutOfRangeError(f"mtu_bytes must be > 0; got {mtu:g}")
    if conns < 1 or conns != int(conns):
        raise OutOfRangeError(f"connections must be a whole number >= 1; got {conns:g}")
    if t in STREAM_TRANSPORTS:
        raise NoDataError(f"{t}: the sources measured {t} only streaming by transfer size (000); "
                          "use the per-MB functions")
    if t in FTP_TRANSPORTS:
        return _speed_adjust(_ftp_per_tx(t, w, mtu, conns, m, lvl), t, m, f)
    if w not in ("RR", "CRR", "STRG"):
        raise NoDataError(f"{t}: measured with RR, CRR and STRG only; not {w}")
    device_notes = hardware.check_mtu(t, mtu)  # an MTU the device cannot have: impossible
    step = level_step(t, None, lvl)  # which measured level to read, and any adjustment
    grid = conn_grid(t, w, step.from_level)
    if m not in grid.values:
        raise NoDataError(f"{t}: the source gives only total CPU per transaction "
                          f"(002 Table 2), not the CP/virtual split ({m})")
    hs_below.check(grid, mtu, conns)  # HiperSockets also a short step below its lowest MTU
    # beyond the largest measured count every metric, totals included, is the value at
    # that count: held flat (CONN_METHOD_OUT)
    cmax = grid.largest_conns()
    ce = min(conns, cmax)
    if m == "tot_cpumsec_per_tx" and "v_cpumsec_per_tx" in grid.values and \
            not (mtu in grid.mtus and ce in grid.conns[mtu]):
        v, bm, bc = hs_below.evaluate(grid, "v_cpumsec_per_tx", mtu, ce)
        c, _, _ = hs_below.evaluate(grid, "cp_cpumsec_per_tx", mtu, ce)
        value = v + c  # keep total = virtual + CP off the measured points
    else:
        value, bm, bc = hs_below.evaluate(grid, m, mtu, ce)
    if conns > cmax:
        bc = M_EXTRAP
    code = max(bm, bc)
    notes = device_notes + _outlier_notes(t, w, mtu, conns, step.from_level, grid)
    if t == "GUEST_LAN":
        acct = "ON" if step.from_level == "4.3.0" else "OFF"
        refs = (f"002 Table {1 if m == 'tx_per_sec' else 2}, accounting {acct}",)
    else:
        tno = _003_table(t, w, mtu) if mtu in grid.mtus else None
        where = (f"{ce:g} connection(s)" + (", held flat" if conns > cmax else "")
                 if bc == M_IN or conns > cmax else "all connection counts")
        refs = (f"003 Table {tno}, {where}, z/VM {step.from_level}" if tno
                else f"003 Tables for {t} {w} (all MTUs), z/VM {step.from_level}",)
    methods = []
    if bm:
        methods.append(MTU_METHOD_IN if bm == M_INTERP else hs_below.METHOD)
    if bc:
        methods.append(CONN_METHOD_IN if bc == 1 else CONN_METHOD_OUT)
    rel, rule = _grid_band(t, w, m, mtu, conns, ce, bm, bc, conns > cmax, step.from_level,
                           grid, value)
    ans = Answer(value, names.UNITS[m], BASIS_NAMES[code], refs, "; ".join(methods), notes,
                 rel_band=rel, band_rule=rule)
    return _speed_adjust(_level_adjust(ans, step, m), t, m, f)


def _grid_band(t, w, m, mtu, conns, ce, bm, bc, beyond, level, grid, value):
    """Relative band and rule of a per-transaction answer (see docs/method.md, "Bands")."""
    if bm == M_IN and bc == M_IN and not beyond:  # a measured point: its printed rounding
        if t == "GUEST_LAN":
            rec = one(document="002", workload=w, metric=m, stat="value",
                      accounting="ON" if level == "4.3.0" else "OFF")
        else:
            rec = one(document="003", transport=t, workload=w, size_bytes=int(mtu),
                      connections=int(conns), level=level, metric=m, stat="value")
        return _rounding(rec), (BAND_ROUNDING,)
    if t == "GUEST_LAN":  # one connection count, one MTU: nothing can be left out
        return None, ("002 measured Guest LAN at one MTU and one connection count, so no "
                      "leave-one-out band exists for a value held flat beyond them",)
    parts, rules = [], []
    if beyond or bc == M_INTERP:
        r = coverage.rule("conn_flat" if beyond else "conn_interp", m, t)
        parts.append(r.rel_band)
        rules.append(r.text())
    if bm == M_INTERP:  # OSA GbE has two MTUs: its rule is measured on HiperSockets
        r = coverage.rule("mtu_interp" if len(grid.mtus) > 2 else "mtu_two_point", m)
        parts.append(r.rel_band)
        rules.append(r.text())
    elif bm == M_EXTRAP:  # HiperSockets a short step below its lowest MTU (zvmplan.hs_below)
        r = coverage.rule(coverage.BELOW_RULE, m, w)
        parts.append(r.rel_band)
        rules.append(r.text())
    if len(parts) > 1:
        rules.append(BAND_PRODUCT)
    return compose(*parts), tuple(rules)


def _003_table(t, w, mtu) -> int:
    r = find(document="003", transport=t, workload=w, size_bytes=int(mtu), stat="value")[0]
    return int(r.table.split()[1])


def _ftp_per_tx(t, w, mtu, conns, m, lvl) -> Answer:
    if w != "FTP_GET":
        raise NoDataError(f"{t}: 001 measured FTP_GET only; not {w}")
    if mtu != FTP_MTU or conns != 1:
        raise NoDataError(f"{t}: 001 measured one FTP session at MTU {FTP_MTU} only")
    if m == "tx_per_sec":
        raise NoDataError(f"{t}: 001 reports no elapsed time, so tx/s cannot be derived")
    src_level, rec = _ftp_means(t, lvl)
    cp, tot = rec["cp_cpusec"][1], rec["tot_cpusec"][1]
    per = {"cp_cpumsec_per_tx": cp.value, "tot_cpumsec_per_tx": tot.value,
           "v_cpumsec_per_tx": tot.value - cp.value}[m] * 1000 / FTP_GETS_PER_RUN
    basis = "derived" if lvl in ("3.1.0", "4.1.0") else "carried"
    return Answer(per, names.UNITS[m], basis, (cp.ref, tot.ref),
                  "per transaction (one 100 MB GET) = mean CPU-seconds per run x 1000 / 5 GETs",
                  rel_band=_ftp_band(rec, m), band_rule=(BAND_CI,))


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
            meas = np.isin(s, curve.sizes)
            values[ok] = _curve_values(t, s[ok], metric, level, speed_factor)
            for i in np.flatnonzero(ok & meas):  # measured points: exactly as published
                values[i] = per_mb(t, s[i], metric, level, speed_factor).value
        return Many(values, errors)
    if t in TX_TRANSPORTS and len(s) > 1:
        return _strg_per_mb_many(t, s, names.metric(metric), level, speed_factor, connections)
    return _many(lambda x: per_mb(t, x, metric, level, speed_factor, connections), s)


def _strg_per_mb_many(t, s, m, level, speed_factor, connections) -> Many:
    """Vectorised :func:`_strg_per_mb`: the same formulas over per_tx_many arrays."""
    if m not in names.PER_MB_METRICS:
        return _many(lambda x: per_mb(t, x, m, level, speed_factor, connections), s)
    mb = names.WORKLOADS["STRG"].mb_per_tx
    if connections is None:  # the default count may differ by MTU (zvmplan.strg_default)
        lvl = _level(t, level)
        conns = np.array([default_connections(t, float(x), lvl)[0] for x in s])
    else:
        conns = connections
    tx = lambda met: per_tx_many(t, "STRG", s, conns, met, level, speed_factor)  # noqa: E731
    rate, tot = tx("tx_per_sec"), tx("tot_cpumsec_per_tx")
    parts = [rate, tot]
    if m in ("cp_cpusec_per_mb", "v_cpusec_per_mb", "pct_cp"):
        parts.append(tx("v_cpumsec_per_tx" if m == "v_cpusec_per_mb" else "cp_cpumsec_per_tx"))
    values = {"mb_per_sec": lambda: rate.values * mb,
              "tot_cpusec_per_mb": lambda: tot.values / 1000 / mb,
              "mb_per_cpusec": lambda: mb * 1000 / tot.values,
              "cpusec_per_sec": lambda: rate.values * tot.values / 1000,
              "cp_cpusec_per_mb": lambda: parts[2].values / 1000 / mb,
              "v_cpusec_per_mb": lambda: parts[2].values / 1000 / mb,
              "pct_cp": lambda: 100 * parts[2].values / tot.values}[m]()
    errors = {}
    for p in reversed(parts):  # the first component's reason wins, as in the scalar path
        errors.update(p.errors)
    for i in np.flatnonzero(~(s > 0)):  # checked before anything else, as in per_mb
        errors[int(i)] = OutOfRangeError(f"size_bytes must be > 0; got {s[i]:g}")
    values[list(errors)] = np.nan
    return Many(values, errors)


def _curve_values(t, s, metric, level, speed_factor):
    """Vectorised curve values with the same level and speed scaling as :func:`per_mb`."""
    m = names.metric(metric)
    values, _ = size_curve(t).evaluate(s)
    # the scalings are linear: take them from one scalar answer off the measured grid
    probe = float(np.sqrt(size_curve(t).sizes[0] * size_curve(t).sizes[1]))
    base = _stream_answer(t, probe, m).value
    scaled = per_mb(t, probe, m, level, speed_factor).value
    return values[m] * (scaled / base)


def per_tx_many(transport, workload, mtus, connections, metric="tot_cpumsec_per_tx", level=None,
                speed_factor=None) -> Many:
    """:func:`per_tx` over arrays of MTUs and connections (broadcast together), evaluated
    in one vectorised pass over the grid; refused elements are reported by index."""
    mt, cn = np.broadcast_arrays(np.asarray(mtus, float).reshape(-1),
                                 np.asarray(connections, float).reshape(-1))
    t, w = names.transport(transport), names.workload(workload)
    scalar = lambda a: per_tx(t, w, a[0], a[1], metric, level, speed_factor)  # noqa: E731
    if t not in TX_TRANSPORTS or w not in ("RR", "CRR", "STRG") or len(mt) < 2:
        return _many(scalar, np.column_stack([mt, cn]))
    try:  # validates every non-array argument once; the scale carries level and speed
        m = names.metric(metric)
        grid = conn_grid(t, w, level_step(t, None, _level(t, level)).from_level)
        probe = (float(grid.mtus[0]), float(grid.conns[grid.mtus[0]][-1]))
        scale = scalar(probe).value / grid.values[m][grid.mtus[0]][-1]
    except ZvmplanError:  # the whole call is refused: give each element its own reason
        return _many(scalar, np.column_stack([mt, cn]))
    values = np.full(len(mt), np.nan)
    errors = {}
    cmin = max(c[0] for c in grid.conns.values())
    ok = (np.isfinite(mt) & np.isfinite(cn) & (mt >= grid.mtus[0]) & (mt <= grid.mtus[-1])
          & (cn >= cmin) & (cn == np.floor(cn)))
    for i in np.flatnonzero(~ok):  # refused, or answered off the vectorised grid path
        try:
            values[i] = scalar((mt[i], cn[i])).value
        except ZvmplanError as exc:
            errors[int(i)] = exc
    if ok.any():
        ce = np.minimum(cn[ok], grid.largest_conns())  # held flat beyond, totals included
        if m == "tot_cpumsec_per_tx" and "v_cpumsec_per_tx" in grid.values:
            v = grid.evaluate_many("v_cpumsec_per_tx", mt[ok], ce)
            c = grid.evaluate_many("cp_cpumsec_per_tx", mt[ok], ce)
            published = grid.evaluate_many(m, mt[ok], ce)
            measured = np.zeros(len(published), bool)
            for mval in grid.mtus:
                sel = mt[ok] == mval
                measured[sel] = np.isin(ce[sel], grid.conns[mval])
            raw = np.where(measured, published, v + c)  # total = virtual + CP off the grid
        else:
            raw = grid.evaluate_many(m, mt[ok], ce)
        values[ok] = raw * scale if scale != 1.0 else raw
    return Many(values, errors)


def _many(fn, xs) -> Many:
    values = np.full(len(xs), np.nan)
    errors = {}
    cache = {}
    for i, x in enumerate(xs):
        key = tuple(np.atleast_1d(x))
        try:
            if key not in cache:
                cache[key] = fn(x).value
            values[i] = cache[key]
        except ZvmplanError as exc:
            errors[i] = exc
    return Many(values, errors)


# --------------------------------------------------------------------- bands ----
def band(fn, *args, **kwargs) -> Pair:
    """How sure an answer is: its band (low, high), by the rule its basis states.

    ``fn`` is :func:`per_mb` or :func:`per_tx` (called with the arguments given) or an
    :class:`Answer`. Rules: a measured point, its printed rounding; a figure computed from
    printed numbers, that rounding propagated; 001's figures, its 95% confidence intervals;
    an interpolated or extrapolated value, value / k .. value x k with k the largest error of
    the same method pooled across series (and, for sizes, transports), each rule stating the
    coverage it was measured to have out of sample (:mod:`zvmplan.coverage`). Level steps and
    the speed factor scale the band but add nothing to it.

    >>> lo, hi = band(per_mb, "IUCV", 9000, "cp_cpusec_per_mb")
    >>> round(lo, 7), round(hi, 7)
    (0.0123665, 0.0123675)
    """
    ans = fn if isinstance(fn, Answer) else fn(*args, **kwargs)
    lo, hi = ans.bounds()
    return Pair(lo, hi, ans.unit, "band", ans.sources, "; ".join(ans.band_rule))


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

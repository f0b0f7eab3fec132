"""Which source measured what, and its published tables as curves and grids.

000 measured streaming by transfer size (CMS IUCV, IUCV, virtual CTC), 001 FTP over LCS and
ESCON CTC, 002 Guest LAN and 003 OSA Express GbE and HiperSockets per transaction. The views
here (:func:`size_curve`, :func:`conn_grid`) are what the model projects from and what
:mod:`zvmplan.validation` leaves points out of.
"""
from __future__ import annotations

import statistics
from functools import lru_cache

import numpy as np

from .curves import ConnGrid, SizeCurve
from .data import find
from .errors import NoDataError

STREAM_TRANSPORTS = ("CMS_IUCV", "IUCV", "VCTC")
FTP_TRANSPORTS = ("LCS", "ESCON_CTC")
TX_TRANSPORTS = ("OSA_GBE", "HIPERSOCKETS", "GUEST_LAN")
FTP_MB_PER_RUN = 500.0   # 001: five GETs of a 100 MB file per run
FTP_GETS_PER_RUN = 5
FTP_MTU = 1500
TABLE_000 = {"CMS_IUCV": "Table 1", "IUCV": "Table 2", "VCTC": "Table 3"}
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


# -------------------------------------------------------------- data views ----
# -------------------------------------------------------------- data views ----
@lru_cache(maxsize=None)
def size_curve(transport: str, drop: tuple[int, ...] = ()) -> SizeCurve:
    """The 000 streaming curve of a transport (``drop``: sizes left out, for validation)."""
    recs = {(r.size_bytes, r.metric): r.value
            for r in find(document="000", transport=transport, table=TABLE_000[transport])}
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


def published_record(**where):
    found = find(stat="value", role="measured", **where)
    return found[0] if len(found) == 1 else None


def table_003(t, w, mtu) -> int:
    return _table_003(t, w, int(mtu))


@lru_cache(maxsize=None)
def _table_003(t: str, w: str, size: int) -> int:
    """The number of the 003 table of ``t`` ``w`` at MTU ``size``."""
    r = find(document="003", transport=t, workload=w, size_bytes=size, stat="value")[0]
    return int(r.table.split()[1])


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
        med = statistics.median(runs.values())  # (np.median imports numpy.ma: ~10 ms)
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

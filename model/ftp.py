"""001: FTP GETs over LCS and ESCON CTC, per MB and per transaction, from the means of
001's samples, with their 95% confidence intervals as the band."""
from __future__ import annotations

from . import names
from .answer import Answer, compose, inverse
from .bands import BAND_CI
from .data import one
from .errors import NoDataError
from .stats import mean_interval
from .tables import FTP_GETS_PER_RUN, FTP_MB_PER_RUN, FTP_MTU


def ftp_means(t: str, lvl: str):
    """(basis level, CP and total CPU-s records) for LCS / ESCON CTC at ``lvl``."""
    src_level = "3.1.0" if lvl == "3.1.0" else "4.1.0"
    get = lambda met, stat: one(document="001", transport=t, metric=met, level=src_level,  # noqa
                                stat=stat)
    return src_level, {met: (get(met, "n"), get(met, "mean"), get(met, "sd"))
                       for met in ("cp_cpusec", "tot_cpusec")}


def ftp_per_mb(t: str, s: float, m: str, lvl: str) -> Answer:
    if s != FTP_MTU:
        raise NoDataError(f"{t}: 001 measured MTU {FTP_MTU} only; no basis for {s:g}")
    if m in ("mb_per_sec", "cpusec_per_sec"):
        raise NoDataError(f"{t}: 001 reports CPU-seconds and I/O counts per run, not elapsed "
                          f"time, so {m} cannot be derived")
    src_level, rec = ftp_means(t, lvl)
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
                  tuple(notes), interval, rel_band=ftp_band(rec, m), band_rule=(BAND_CI,))


def ftp_band(rec, m: str) -> tuple[float, float]:
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


def ftp_per_tx(t, w, mtu, conns, m, lvl) -> Answer:
    if w != "FTP_GET":
        raise NoDataError(f"{t}: 001 measured FTP_GET only; not {w}")
    if mtu != FTP_MTU or conns != 1:
        raise NoDataError(f"{t}: 001 measured one FTP session at MTU {FTP_MTU} only")
    if m == "tx_per_sec":
        raise NoDataError(f"{t}: 001 reports no elapsed time, so tx/s cannot be derived")
    src_level, rec = ftp_means(t, lvl)
    cp, tot = rec["cp_cpusec"][1], rec["tot_cpusec"][1]
    per = {"cp_cpumsec_per_tx": cp.value, "tot_cpumsec_per_tx": tot.value,
           "v_cpumsec_per_tx": tot.value - cp.value}[m] * 1000 / FTP_GETS_PER_RUN
    basis = "derived" if lvl in ("3.1.0", "4.1.0") else "carried"
    return Answer(per, names.UNITS[m], basis, (cp.ref, tot.ref),
                  "per transaction (one 100 MB GET) = mean CPU-seconds per run x 1000 / 5 GETs",
                  rel_band=ftp_band(rec, m), band_rule=(BAND_CI,))

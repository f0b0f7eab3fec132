"""Per-MB figures of the per-transaction transports, derived from 002/003's STRG workload
(20 MB per transaction) through :func:`zvmplan.transactions.per_tx`."""
from __future__ import annotations

import numpy as np

from . import names
from .answer import Answer, Many, compose, inverse, weakest
from .errors import OutOfRangeError
from .inputs import level_or_native
from .strg_default import default_connections
from .transactions import per_tx, per_tx_many


def strg_per_mb(t: str, s: float, m: str, lvl: str, c) -> Answer:
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


def strg_per_mb_many(t, s, m, level, speed_factor, connections) -> Many:
    """Vectorised :func:`strg_per_mb`: the same formulas over per_tx_many arrays (``m`` one of
    :data:`zvmplan.names.PER_MB_METRICS`)."""
    mb = names.WORKLOADS["STRG"].mb_per_tx
    if connections is None:  # the default count may differ by MTU (zvmplan.strg_default)
        lvl = level_or_native(t, level)
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

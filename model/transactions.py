"""002 and 003: per-transaction figures (tx/s, CPU-ms per transaction) of Guest LAN, OSA
Express GbE and HiperSockets by MTU and connections, from :class:`zvmplan.curves.ConnGrid`,
with the band of the measured rounding or of the pooled rules of :mod:`zvmplan.coverage`."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import coverage, hardware, hs_below, names
from .adjust import finish, level_adjust, speed_adjust
from .answer import Answer, Many, compose, many_of
from .bands import BAND_PRODUCT, BAND_ROUNDING, rounding_band
from .curves import (BASIS_NAMES, CONN_METHOD_IN, CONN_METHOD_OUT, M_EXTRAP, M_IN, M_INTERP,
                     MTU_METHOD_IN)
from .data import one
from .errors import ArgumentTypeError, NoDataError, OutOfRangeError, ZvmplanError
from .ftp import ftp_per_tx
from .inputs import level_or_native, number, speed
from .levels import level_step
from .setops import isin
from .tables import (FTP_TRANSPORTS, STREAM_TRANSPORTS, TX_TRANSPORTS, conn_grid, outlier_runs,
                     table_003)


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
    mtu = number(mtu_bytes, "mtu_bytes")
    conns = number(connections, "connections")
    lvl = level_or_native(t, level)
    f = speed(speed_factor)
    return _per_tx_cached(t, w, mtu, conns, m, lvl, f)


@lru_cache(maxsize=65536)
def _per_tx_cached(t, w, mtu, conns, m, lvl, f) -> Answer:
    return finish(_per_tx_answer(t, w, mtu, conns, m, lvl, f), t, m, f)


def _per_tx_answer(t, w, mtu, conns, m, lvl, f) -> Answer:
    if mtu <= 0:
        raise OutOfRangeError(f"mtu_bytes must be > 0; got {mtu:g}")
    if conns < 1 or conns != int(conns):
        raise OutOfRangeError(f"connections must be a whole number >= 1; got {conns:g}")
    if t in STREAM_TRANSPORTS:
        raise NoDataError(f"{t}: the sources measured {t} only streaming by transfer size (000); "
                          "use the per-MB functions")
    if t in FTP_TRANSPORTS:
        return speed_adjust(ftp_per_tx(t, w, mtu, conns, m, lvl), t, m, f)
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
        tno = table_003(t, w, mtu) if mtu in grid.mtus else None
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
    return speed_adjust(level_adjust(ans, step, m), t, m, f)


def _grid_band(t, w, m, mtu, conns, ce, bm, bc, beyond, level, grid, value):
    """Relative band and rule of a per-transaction answer (see docs/method.md, "Bands")."""
    if bm == M_IN and bc == M_IN and not beyond:  # a measured point: its printed rounding
        if t == "GUEST_LAN":
            rec = one(document="002", workload=w, metric=m, stat="value",
                      accounting="ON" if level == "4.3.0" else "OFF")
        else:
            rec = one(document="003", transport=t, workload=w, size_bytes=int(mtu),
                      connections=int(conns), level=level, metric=m, stat="value")
        return rounding_band(rec), (BAND_ROUNDING,)
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


def per_tx_many(transport, workload, mtus, connections, metric="tot_cpumsec_per_tx", level=None,
                speed_factor=None) -> Many:
    """:func:`per_tx` over arrays of MTUs and connections (broadcast together), evaluated
    in one vectorised pass over the grid; refused elements are reported by index."""
    mt, cn = np.broadcast_arrays(np.asarray(mtus, float).reshape(-1),
                                 np.asarray(connections, float).reshape(-1))
    t, w = names.transport(transport), names.workload(workload)
    scalar = lambda a: per_tx(t, w, a[0], a[1], metric, level, speed_factor)  # noqa: E731
    if t not in TX_TRANSPORTS or w not in ("RR", "CRR", "STRG") or len(mt) < 2:
        return many_of(scalar, np.column_stack([mt, cn]))
    try:  # validates every non-array argument once; the scale carries level and speed
        m = names.metric(metric)
        grid = conn_grid(t, w, level_step(t, None, level_or_native(t, level)).from_level)
        probe = (float(grid.mtus[0]), float(grid.conns[grid.mtus[0]][-1]))
        scale = scalar(probe).value / grid.values[m][grid.mtus[0]][-1]
    except ZvmplanError:  # the whole call is refused: give each element its own reason
        return many_of(scalar, np.column_stack([mt, cn]))
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
                measured[sel] = isin(ce[sel], grid.conns[mval])
            raw = np.where(measured, published, v + c)  # total = virtual + CP off the grid
        else:
            raw = grid.evaluate_many(m, mt[ok], ce)
        values[ok] = raw * scale if scale != 1.0 else raw
    return Many(values, errors)

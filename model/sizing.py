"""The two sizing questions a planner asks directly: how many engines a load needs, and the
most load a number of engines carries.

A load is in tx/s for the request-response workloads (RR, CRR) and in MB/s for the bulk
workloads (STREAM for CMS_IUCV, IUCV and VCTC; FTP_GET for LCS and ESCON_CTC; STRG for
OSA_GBE, HIPERSOCKETS and GUEST_LAN). Engines are CPU-seconds per second of the processor the
answer is on: the measured one (:func:`zvmplan.processor`), or the target the
``speed_factor`` names (its per-engine capacity relative to the measured one, from zPCR or
LSPR; zvmplan supplies none).

* :func:`engines_needed` = load x total (CP + virtual) CPU per unit. Its band is the per-unit
  figure's band times the load. A load above what one link was measured to carry, or above
  what the wire carries (:mod:`zvmplan.framing`), is flagged: the CPU figure assumes a cost
  per unit the measurements never reached.
* :func:`max_load` = the least of three bounds: the engines / total CPU per unit; the rate
  the sources measured for one link at this configuration (MB/s or tx/s, scaled by the
  speed factor for memory-to-memory transports only); and what the wire carries (payload at
  the MTU for bulk loads; for RR and CRR one response per transaction, 1000 and 8192 bytes
  as 002/003 define them, each segment with 78 bytes of Ethernet, IP and TCP overhead). Its
  band is [least of the bounds' lows, least of their highs].

>>> round(engines_needed("IUCV", "STREAM", 9000, 33.33).value, 3)  # 000 Table 2: 0.975 CPU-s/s
0.975
>>> max_load("OSA_GBE", "RR", 1492, 2, 50, "4.4.0").value  # 003 Table 4: 18183.309 tx/s
18183.309
"""
from __future__ import annotations

import math
from dataclasses import replace

from . import framing, hardware, names
from .answer import Answer
from .api import FTP_TRANSPORTS, STREAM_TRANSPORTS, TX_TRANSPORTS, TX_WORKLOADS, per_mb, per_tx
from .errors import ArgumentTypeError, NoDataError, OutOfRangeError

#: the bulk workload each transport was measured with (its load is MB/s)
BULK_WORKLOAD = {**{t: "STREAM" for t in STREAM_TRANSPORTS}, **{t: "FTP_GET" for t in FTP_TRANSPORTS},
                 **{t: "STRG" for t in TX_TRANSPORTS}}
#: bytes of the response of one transaction (002, 003 workload definitions: RR 200-byte
#: request / 1000-byte response, CRR 64-byte request / 8192-byte response)
RESPONSE_BYTES = {"RR": 1000, "CRR": 8192}
SEGMENT_OVERHEAD = framing.ETHERNET_OVERHEAD + framing.IP_HEADER + framing.TCP_HEADER  # 78


def _positive(value, what: str, zero_ok: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ArgumentTypeError(f"{what} must be a number; got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ArgumentTypeError(f"{what} must be a finite number; got {v}")
    if v < 0 or (v == 0 and not zero_ok):
        raise OutOfRangeError(f"{what} must be {'>= 0' if zero_ok else '> 0'}; got {v:g}")
    return v


def _unit(t: str, w: str) -> str:
    """'tx/s' or 'MB/s' for the workload, refusing one the transport was not measured with."""
    if w in TX_WORKLOADS:
        if t not in TX_TRANSPORTS:
            raise NoDataError(f"{t}: the sources measured it with {BULK_WORKLOAD[t]} only (a load "
                              f"in MB/s); not {w}")
        return "tx/s"
    if BULK_WORKLOAD[t] != w:
        tx = ", RR and CRR" if t in TX_TRANSPORTS else ""
        raise NoDataError(f"{t}: the sources measured it with {BULK_WORKLOAD[t]}{tx}; not {w}")
    return "MB/s"


def _cpu(t, w, size, conns, level, speed) -> tuple[Answer, float]:
    """(total CPU per unit answer, CPU-seconds per unit of load)."""
    if w in TX_WORKLOADS:
        if conns is None:
            raise ArgumentTypeError(f"{t} {w}: connections is required for RR and CRR")
        ans = per_tx(t, w, size, conns, "tot_cpumsec_per_tx", level, speed)
        return ans, ans.value / 1000
    ans = per_mb(t, size, "tot_cpusec_per_mb", level, speed, conns)
    return ans, ans.value


def _measured_rate(t, w, size, conns, level, speed) -> Answer | None:
    """The rate the sources measured for one link here (None where they give none: 001)."""
    try:
        if w in TX_WORKLOADS:
            return per_tx(t, w, size, conns, "tx_per_sec", level, speed)
        return per_mb(t, size, "mb_per_sec", level, speed, conns)
    except NoDataError:
        return None


def _wire(t, w, size) -> tuple[float, str] | None:
    """(most load the wire carries, how) for a real device; None for memory-to-memory."""
    try:
        cap = framing.payload_mb_per_sec(t, size)
    except NoDataError:
        return None
    if w not in TX_WORKLOADS:
        return cap.value, (f"the wire carries at most {cap.value:.4g} MB/s of payload at MTU "
                           f"{size:g} (ZVM_PAYLOAD_RATE)")
    resp = RESPONSE_BYTES[w]
    segments = math.ceil(resp / (size - framing.IP_HEADER - framing.TCP_HEADER))
    wire_bytes = resp + segments * SEGMENT_OVERHEAD
    tx = hardware.line_rate_mb_per_sec(t) * 1e6 / wire_bytes
    return tx, (f"the wire carries at most {tx:.4g} tx/s: one {resp}-byte response per "
                f"transaction in {segments} segment(s) of 78 bytes' overhead each, "
                f"{wire_bytes} bytes on the {hardware.line_rate_text(t)} (requests, ACKs and "
                "connection set-up ignored, so an upper bound)")


def _args(transport, workload, size_bytes, connections):
    t, w = names.transport(transport), names.workload(workload)
    unit = _unit(t, w)
    size = _positive(size_bytes, "size_bytes", zero_ok=False)
    conns = None if connections is None else _positive(connections, "connections", False)
    return t, w, unit, size, conns


def engines_needed(transport, workload, size_bytes, load, connections=None, level=None,
                   speed_factor=None) -> Answer:
    """Engines (CPU-seconds per second) one link needs to carry ``load``.

    Parameters
    ----------
    transport, workload : str
        Names or aliases; the workload must be one the transport was measured with.
    size_bytes : float
        Transfer size (CMS_IUCV) or MTU [bytes].
    load : float
        The load: tx/s for RR and CRR, MB/s (the sources' MB) for the bulk workloads.
    connections : int, optional
        Concurrent connections: required for RR and CRR; for STRG as in :func:`per_mb`.
    level : str, optional
        z/VM level; default the level the transport was measured at.
    speed_factor : float, optional
        Per-engine capacity of the target machine relative to the measured one [1 = same].

    >>> round(engines_needed("OSA_GBE", "RR", 1492, 1000, 50, "4.4.0").value, 6)
    0.046
    """
    t, w, unit, size, conns = _args(transport, workload, size_bytes, connections)
    x = _positive(load, f"load [{unit}]", zero_ok=True)
    cpu, per_unit = _cpu(t, w, size, conns, level, speed_factor)
    notes = list(cpu.notes)
    rate = _measured_rate(t, w, size, conns, level, speed_factor)
    if rate is not None and x > rate.value:
        notes.append(f"FLAG: {x:g} {unit} is above the {rate.value:.6g} {unit} the sources "
                     "measured for one link here: the cost per unit was never measured at "
                     "that load; split it over links or give a configuration that carries it")
    wire = _wire(t, w, size)
    if wire is not None and x > wire[0]:
        notes.append(f"FLAG: {x:g} {unit} is more than one link can carry: {wire[1]}")
    machine = ("the target machine the speed_factor names" if cpu.processor and speed_factor
               not in (None, 1, 1.0) else "the measured processor")
    return replace(cpu, value=x * per_unit, unit="engines",
                   method="; ".join(p for p in (
                       f"engines = load [{unit}] x total CPU per unit, on {machine}",
                       cpu.method) if p), notes=tuple(dict.fromkeys(notes)), interval=None)


def max_load(transport, workload, size_bytes, engines, connections=None, level=None,
             speed_factor=None) -> Answer:
    """The most load (tx/s for RR and CRR, MB/s otherwise) ``engines`` engines carry on one
    link: the least of engines / total CPU per unit, the measured rate and the wire.

    Parameters are as for :func:`engines_needed`, with ``engines`` [CPU-s/s] for the load.

    >>> a = max_load("IUCV", "STREAM", 9000, 0.5)
    >>> round(a.value, 3), a.unit  # 0.5 x 000 Table 2's 34.17 MB/CPU-sec
    (17.085, 'MB/s')
    """
    t, w, unit, size, conns = _args(transport, workload, size_bytes, connections)
    n = _positive(engines, "engines", zero_ok=False)
    cpu, per_unit = _cpu(t, w, size, conns, level, speed_factor)
    bounds = []  # (value, (low, high) or None, basis, what, answer or None)
    cpu_band = cpu.rel_band
    value = n / per_unit
    lo_hi = (None if cpu_band is None else
             (value / (1 + cpu_band[1]), value / (1 + cpu_band[0])))
    bounds.append((value, lo_hi, cpu.basis, f"CPU: {n:g} engines / total CPU per unit give "
                   f"{value:.6g} {unit}", cpu))
    rate = _measured_rate(t, w, size, conns, level, speed_factor)
    if rate is not None:
        bounds.append((rate.value, None if rate.rel_band is None else rate.bounds(), rate.basis,
                       f"measured rate: the sources measured {rate.value:.6g} {unit} for one "
                       "link here", rate))
    wire = _wire(t, w, size)
    if wire is not None:
        bounds.append((wire[0], (wire[0], wire[0]), "derived", wire[1], None))
    best = min(bounds, key=lambda b: b[0])
    lows_highs = [b[1] for b in bounds]
    rel = None
    if all(lh is not None for lh in lows_highs):
        lo = min(lh[0] for lh in lows_highs)
        hi = min(lh[1] for lh in lows_highs)
        rel = (lo / best[0] - 1, hi / best[0] - 1)
    binding = best[4]
    src = binding if binding is not None else cpu
    others = "; ".join(b[3] for b in bounds if b is not best)
    notes = tuple(dict.fromkeys(src.notes + cpu.notes))
    return Answer(best[0], unit, best[2],
                  tuple(dict.fromkeys(cpu.sources + (rate.sources if rate else ()))),
                  f"the least of three bounds, here {best[3]}" + (f" (the others: {others})"
                                                                   if others else ""),
                  notes, processor=cpu.processor, rel_band=rel,
                  band_rule=("band: from the least of the bounds' lows to the least of their "
                             "highs",) + tuple(dict.fromkeys(cpu.band_rule + (
                                 rate.band_rule if rate else ()))))

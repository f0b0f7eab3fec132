"""What every answer of a transport must say, and the two steps away from what was measured:
a z/VM level step (:mod:`zvmplan.levels`) and a processor speed factor."""
from __future__ import annotations

from dataclasses import replace

from . import framing, hardware, names
from .answer import Answer, weakest
from .bands import BAND_LEVEL, BAND_SPEED
from .levels import LevelStep


ESCON_NOTE = ("ESCON_CTC CPU covers the Linux guest only: 001 measured the Linux guest, not the "
              "VM TCP/IP stack at the other end of the CTC, so its totals are not comparable with "
              "000's two-guest totals")
LCS_NOTE = ("LCS CPU covers one Linux guest only: 001's FTP server was a workstation on the IBM "
            "intranet, not a second guest, so its totals are not comparable with the two-guest "
            "totals of 000, 002 and 003")
OSA_SETUP_NOTE = ("003 ran both guests on device numbers of one OSA Express GbE chpid: the "
                  "traffic went through one adapter and never crossed the wire")


def finish(ans: Answer, t: str, m: str, f: float, mtu: float | None = None) -> Answer:
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


def level_adjust(ans: Answer, step: LevelStep, m: str) -> Answer:
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


def speed_adjust(ans: Answer, t: str, m: str, f: float) -> Answer:
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

"""z/VM level: a chain of sourced effects, applied only where the source says they apply.

=======  =====================================  ==========================  =================
level    effect                                 applies to                  source
=======  =====================================  ==========================  =================
4.1.0    fast CCW translation for network I/O    LCS, ESCON_CTC              001 Tables 1-2
         (CP CPU down 39% / 44%, measured)       (measured both ways)
4.3.0    accounting for virtualized network      IUCV, VCTC, CMS_IUCV,       002 Tables 1-2
         devices (tiny tx/s and CPU changes)     GUEST_LAN
4.3.0    VM TCP/IP stack improvements (ranges)   VM TCP/IP stack endpoints   004
                                                 only: never applied to the
                                                 Linux-guest measurements
4.4.0    Queued I/O Assist (measured per         OSA_GBE, HIPERSOCKETS       003 Tables 2-19
         workload, MTU, connections)             (QDIO devices)
=======  =====================================  ==========================  =================

A level with no sourced change for a transport carries the previous level's value
forward and says so (basis ``carried``). A level before a transport's first
measurement is refused (no data), never carried backwards, with one sourced
exception: HiperSockets and Guest LAN arrived in z/VM 4.2.0 and 004 reports 4.3.0
regression performance equivalent to 4.2.0, so both are answered at 4.2.0 from
their 4.3.0 measurements (Guest LAN from 002's accounting-off run, as 4.2.0 had
no network accounting; HiperSockets labelled ``carried``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .data import one
from .errors import NoDataError

CPU_METRICS = ("cp_cpusec_per_mb", "v_cpusec_per_mb", "tot_cpusec_per_mb", "v_cpumsec_per_tx",
               "cp_cpumsec_per_tx", "tot_cpumsec_per_tx")
QIOA_NOTE = ("Queued I/O Assist needs a z990 GA1 or later (003 Introduction): on an older "
             "processor 4.4.0 has no assist; its figures come from two Linux guests in a "
             "dedicated 2-way LPAR, and with many diverse guests the saving is diluted (003)")
#: the one 4.2.0 rule for the two transports that arrived in 4.2.0
ARRIVED_420_NOTE = ("{} arrived in z/VM 4.2.0 and 004 reports 4.3.0 regression performance "
                    "equivalent to 4.2.0: the 4.3.0 measurement stands for 4.2.0 (without the "
                    "4.3.0 network accounting where a run without it was measured)")
STACK_NOTE = ("the 4.3.0 VM TCP/IP stack improvements (004) apply to VM TCP/IP stack endpoints "
              "only and are not applied to these Linux-guest figures")


@dataclass(frozen=True)
class LevelStep:
    """How to get from the measured level to the asked level."""
    from_level: str                 # which measured level's data to read
    basis: str | None = None        # None: no adjustment; else 'carried' / 'level-adjusted'
    cpu_ratio: float = 1.0          # multiplies CPU per unit of work
    rate_ratio: float = 1.0         # multiplies throughput
    method: str = ""
    sources: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def factor_for(self, metric: str) -> float:
        if metric in CPU_METRICS:
            return self.cpu_ratio
        return {"mb_per_cpusec": 1 / self.cpu_ratio, "mb_per_sec": self.rate_ratio,
                "tx_per_sec": self.rate_ratio,
                "cpusec_per_sec": self.rate_ratio * self.cpu_ratio}.get(metric, 1.0)


@lru_cache(maxsize=None)
def accounting_effect() -> tuple[float, float, tuple[str, ...]]:
    """(CPU ratio, rate ratio, sources) of turning 4.3.0 accounting on, from 002's STRG run:
    the streaming workload is the one comparable to per-MB streaming.

    >>> cpu, rate, _ = accounting_effect()
    >>> round(cpu, 5), round(rate, 5)
    (1.00193, 0.99762)
    """
    get = lambda metric, acct: one(document="002", workload="STRG", metric=metric,  # noqa: E731
                                   accounting=acct, stat="value")
    cpu_on, cpu_off = get("tot_cpumsec_per_tx", "ON"), get("tot_cpumsec_per_tx", "OFF")
    tx_on, tx_off = get("tx_per_sec", "ON"), get("tx_per_sec", "OFF")
    return (cpu_on.value / cpu_off.value, tx_on.value / tx_off.value,
            (cpu_on.ref, cpu_off.ref, tx_on.ref, tx_off.ref))


def level_step(transport: str, measured: str | None, level: str) -> LevelStep:
    """The step from a transport's measurement to ``level``.

    ``measured`` is the level of a single-level measurement (000: '3.1.0'); None for
    transports measured at several levels (003, 002), where this picks the level to read.
    """
    if transport in ("CMS_IUCV", "IUCV", "VCTC"):
        if level == "3.1.0":
            return LevelStep("3.1.0")
        if level in ("4.1.0", "4.2.0"):
            return LevelStep("3.1.0", "carried", notes=(
                f"no sourced change for {transport} between 3.1.0 and {level} (fast CCW "
                "translation is for real CTC and LCS only): carried from 3.1.0",))
        cpu, rate, refs = accounting_effect()
        notes = ["accounting accrual added in 4.3.0 to IUCV and virtual CTC; 002 measured it on "
                 "Guest LAN and expects the same for these; the change is within noise", STACK_NOTE]
        if level == "4.4.0":
            notes.append("Queued I/O Assist is for QDIO devices: nothing more changes in 4.4.0")
        return LevelStep("3.1.0", "level-adjusted", cpu, rate,
                         "4.3.0 accounting: CPU x (STRG CPU/tx on / off), rate x (STRG tx/s on / "
                         "off), 002", refs, tuple(notes))
    if transport in ("OSA_GBE", "HIPERSOCKETS"):
        if level in ("4.3.0", "4.4.0"):
            return LevelStep(level, notes=(QIOA_NOTE,) if level == "4.4.0" else ())
        if level == "4.2.0" and transport == "HIPERSOCKETS":
            return LevelStep("4.3.0", "carried", notes=(ARRIVED_420_NOTE.format("HiperSockets"),))
        raise NoDataError(f"{transport}: 003 measured z/VM 4.3.0 and 4.4.0; no source for "
                          f"{level} (values are never carried backwards; only HiperSockets and "
                          "Guest LAN, which arrived in 4.2.0, are answered at 4.2.0: 004)")
    if transport == "GUEST_LAN":
        if level == "4.2.0":
            return LevelStep("4.2.0", "level-adjusted", method=(
                "4.2.0 had no network accounting: the 002 accounting-off run stands for it"),
                notes=(ARRIVED_420_NOTE.format("Guest LAN"),))
        if level == "4.3.0":
            return LevelStep("4.3.0")
        if level == "4.4.0":
            return LevelStep("4.3.0", "carried", notes=(
                "Queued I/O Assist is for real QDIO devices, not the simulated Guest LAN: "
                "carried from 4.3.0",))
        raise NoDataError(f"GUEST_LAN: VM Guest LAN arrived in z/VM 4.2.0 (004); no {level}")
    raise NoDataError(f"{transport}: no level chain")  # FTP transports handled by the caller

"""The machines and devices behind the measurements: processors, line rates, legal MTUs.

Two data files, each with a provenance header (``model/data/hw_*.csv``):

* ``hw_processors.csv``: the processor each document measured on (000: 9672-XZ7,
  001: 2064-108, 002: 2064-109, 003: 2084-C24 z990), its dedicated engines and
  whether Queued I/O Assist can run on it. A speed factor of 1 means that machine.
* ``hw_limits.csv``: line and channel rates (Fast Ethernet, Gigabit Ethernet, ESCON),
  OSA-Express GbE's largest MTU and the HiperSockets MTU each maximum frame size allows,
  from device documentation (cited in the file).

>>> processor("IUCV").name, processor("HIPERSOCKETS").name
('9672-XZ7', '2084-C24 (z990)')
>>> line_rate_mb_per_sec("OSA_GBE")
125.0
>>> hipersockets_frame_kb(20000)
40
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache

from . import names
from .data import DATA_DIR
from .errors import NoDataError, OutOfRangeError
from .levels import level_step


def _rows(file: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    head, lines = {}, []
    with (DATA_DIR / file).open(encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                key, _, val = line[1:].strip().partition(": ")
                head[key] = val
            else:
                lines.append(line)
    return head, list(csv.DictReader(lines))


@dataclass(frozen=True)
class Processor:
    """The measured machine of one source document."""
    document: str
    name: str
    engines: int            # dedicated engines of the measured LPAR
    guest_engines: int | None  # virtual processors per measured guest, where stated
    qioa: bool              # Queued I/O Assist can run here (z990 GA1 or later, 003)
    evidence: str

    @property
    def label(self) -> str:
        return f"measured on a {self.name}, {self.engines}-way LPAR ({self.document} hardware)"


@lru_cache(maxsize=None)
def processors() -> dict[str, Processor]:
    """Measured processor by canonical transport name."""
    _, rows = _rows("hw_processors.csv")
    out = {}
    for r in rows:
        p = Processor(r["document"], r["processor"], int(r["engines"]),
                      int(r["guest_engines"]) if r["guest_engines"] else None,
                      r["qioa"] == "yes", r["evidence"])
        for t in r["transports"].split(";"):
            out[t] = p
    return out


def processor(transport, level=None) -> Processor:
    """The processor the answers for ``transport`` rest on (at ``level``: the level is
    checked as the per-unit functions check it, so a level with no data is refused).

    >>> processor("ESCON_CTC").name, processor("GUEST_LAN", "4.2.0").name
    ('2064-108', '2064-109')
    """
    t = names.transport(transport)
    if level is not None:
        lvl = names.level(level)
        if t in ("OSA_GBE", "HIPERSOCKETS", "GUEST_LAN"):
            level_step(t, None, lvl)  # raises NoDataError where no source covers the level
    return processors()[t]


@lru_cache(maxsize=None)
def limits() -> dict[tuple[str, str], tuple[float, str, str]]:
    """(transport, quantity) -> (value, unit, source key), as in ``hw_limits.csv``."""
    _, rows = _rows("hw_limits.csv")
    return {(r["transport"], r["quantity"]): (float(r["value"]), r["unit"], r["source"])
            for r in rows}


@lru_cache(maxsize=None)
def sources() -> str:
    """The citation line of ``hw_limits.csv``."""
    head, _ = _rows("hw_limits.csv")
    return head["sources"]


_RATE_NAMES = {"LCS": "Fast Ethernet line rate", "OSA_GBE": "Gigabit Ethernet line rate",
               "ESCON_CTC": "ESCON channel rate"}


def line_rate_mb_per_sec(transport) -> float:
    """The wire (or channel) ceiling of a real device [MB/s, MB = 10^6 bytes]: LCS (Fast
    Ethernet) 12.5, OSA_GBE (Gigabit Ethernet) 125, ESCON_CTC 17 (channel data rate).
    Memory-to-memory transports have no wire: :class:`NoDataError`.

    >>> line_rate_mb_per_sec("LCS"), line_rate_mb_per_sec("ESCON_CTC")
    (12.5, 17.0)
    """
    t = names.transport(transport)
    lim = limits()
    if (t, "channel_rate") in lim:
        return lim[(t, "channel_rate")][0]
    if (t, "line_rate") in lim:
        return lim[(t, "line_rate")][0] / 8
    raise NoDataError(f"{t} is a memory-to-memory transport (no wire): it has no line rate; "
                      "its throughput is bound by the processor")


def line_rate_text(transport) -> str:
    t = names.transport(transport)
    return f"{_RATE_NAMES[t]} {line_rate_mb_per_sec(t):g} MB/s"


class ImpossibleError(OutOfRangeError):
    """A configuration the device cannot have (not merely one the sources did not measure)."""


#: the HiperSockets MTU allowed on each maximum frame size [KB -> bytes]
def hipersockets_frames() -> dict[int, float]:
    return dict(_hipersockets_frames())


@lru_cache(maxsize=None)
def _hipersockets_frames() -> tuple[tuple[int, float], ...]:
    """(frame KB, MTU) of :func:`hipersockets_frames`, by frame size, read once."""
    out = {}
    for (t, q), (v, _, _) in limits().items():
        if t == "HIPERSOCKETS" and q.startswith("mtu_on_"):
            out[int(q.removeprefix("mtu_on_").removesuffix("KB_frame"))] = v
    return tuple(sorted(out.items()))


def hipersockets_frame_kb(mtu: float) -> int:
    """Smallest HiperSockets maximum frame size [KB] whose MTU allows ``mtu`` bytes."""
    for kb, largest in _hipersockets_frames():
        if mtu <= largest:
            return kb
    raise ImpossibleError(
        f"impossible: a HiperSockets MTU cannot exceed {max(hipersockets_frames().values()):g} "
        f"bytes (56 KB MTU on the largest, 64 KB, maximum frame size; hw_limits.csv [IQD-MFS]); got {mtu:g}")


def check_mtu(transport: str, mtu: float) -> tuple[str, ...]:
    """Refuse an MTU the device cannot have (:class:`ImpossibleError`, ``#NUM!``); return
    notes on what a legal one needs (the HiperSockets frame size)."""
    if transport == "HIPERSOCKETS":
        kb = hipersockets_frame_kb(mtu)
        return (f"MTU {mtu:g} needs a HiperSockets CHPID maximum frame size of {kb} KB or "
                f"more (hw_limits.csv [IQD-MFS]); 003 measured on a 64 KB frame",)
    if transport == "OSA_GBE":
        largest = limits()[("OSA_GBE", "max_mtu")][0]
        if mtu > largest:
            raise ImpossibleError(
                f"impossible: OSA-Express Gigabit Ethernet carries an MTU of at most "
                f"{largest:g} bytes (jumbo frames in QDIO mode; hw_limits.csv [OSA-JUMBO]); got {mtu:g}")
    return ()


def speed_factor_for(transport, factors: dict) -> float:
    """The speed factor of ``transport`` from the planner's per-processor capacities.

    ``factors`` maps a measured processor name (:func:`processor`) to the per-engine
    capacity of the target machine relative to it, as the planner reads it from zPCR or
    LSPR (zvmplan supplies none). A transport whose processor is missing is not normalised:
    :class:`NoDataError` says so, so comparisons across transports never rank silently.

    >>> speed_factor_for("IUCV", {"9672-XZ7": 6.0})
    6.0
    """
    p = processor(transport)
    if p.name not in factors:
        raise NoDataError(f"not normalised: {names.transport(transport)} was measured on a "
                          f"{p.name}; give the target's capacity relative to it")
    return float(factors[p.name])


def load_flag(transport, load_mb_per_sec: float) -> str:
    """A flag when a planned load exceeds the device's raw line or channel rate ('' if not,
    or for a memory-to-memory transport, which crosses no wire). The raw rate counts every
    bit on the wire in 10^6-byte MB: a load (TCP payload, the sources' 2^20-byte MB) is
    compared like with like by :func:`zvmplan.framing.over_capacity_flag` at its MTU.

    >>> load_flag("LCS", 50)[:5]
    'FLAG:'
    """
    t = names.transport(transport)
    try:
        rate = line_rate_mb_per_sec(t)
    except NoDataError:
        return ""
    if load_mb_per_sec <= rate:
        return ""
    return (f"FLAG: {load_mb_per_sec:g} MB/s exceeds the {line_rate_text(t)}: a link that "
            "crosses the wire cannot carry it")

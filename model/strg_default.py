"""The connection count a STRG-derived per-MB figure uses when none is given.

A per-MB figure of OSA GbE, HiperSockets or Guest LAN is derived from 003/002's STRG runs,
which were measured at 1, 10, 20 and 50 concurrent connections. The count matters: in 003
the 10-, 20- and 50-connection runs differ by up to 20% in total CPU per transaction (OSA GbE
MTU 8992, z/VM 4.3.0, Table 7), and OSA's 1-connection runs (a single stream) cost 1.45 to
1.91 times the 20-connection CPU per MB. A planner who leaves the count blank must not get a
CPU figure below what any measured concurrency costs, so the default is the **measured count
with the most total CPU per MB at that MTU and level** (ties: the fewer connections): for OSA
GbE that is 1 connection, a single stream; for HiperSockets it is within 12% of every other
count. The answer's basis names the count it used; a planner who knows the concurrency gives
it. Guest LAN was measured at 50 connections only (002).

>>> default_connections("OSA_GBE", 1492, "4.3.0")[0]
1.0
>>> default_connections("HIPERSOCKETS", 57344, "4.3.0")[0]
50.0
"""
from __future__ import annotations

from functools import lru_cache

from .errors import ZvmplanError
from .levels import level_step
from .tables import conn_grid
from .transactions import per_tx

GUEST_LAN_REASON = "at 50 concurrent connections, the only count 002 measured"


@lru_cache(maxsize=4096)
def default_connections(t: str, size_bytes: float, level: str) -> tuple[float, str]:
    """(connections, reason) for a STRG-derived per-MB figure of transport ``t`` at MTU
    ``size_bytes`` and z/VM ``level`` when the planner gives no count. Where the arguments
    are refused anyway (an MTU outside the measured ones, ...), 20 is returned and the call
    that uses it gives the reason."""
    if t == "GUEST_LAN":
        return 50.0, GUEST_LAN_REASON
    try:
        grid = conn_grid(t, "STRG", level_step(t, None, level).from_level)
        counts = sorted(set.intersection(*(set(c) for c in grid.conns.values())))
        cost = {c: per_tx(t, "STRG", size_bytes, c, "tot_cpumsec_per_tx", level).value
                for c in counts}
    except ZvmplanError:
        return 20.0, ""
    best = max(counts, key=lambda c: (cost[c], -c))
    others = ", ".join(f"{c:g}: {cost[c] / cost[best]:.2f}x" for c in counts if c != best)
    return float(best), (
        f"{best:g} concurrent connection(s), the default for per-MB figures derived from STRG: "
        f"the measured count with the most total CPU per MB at this MTU and level, so a blank "
        f"never understates CPU against a measured concurrency (the other counts cost {others} "
        "of it); give connections for a known concurrency")

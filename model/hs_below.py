"""HiperSockets a short step below its lowest measured MTU: 8192, the MTU of a 16 KB frame.

003 measured HiperSockets at MTUs 8992, 16384, 32768 and 57344 (all on a 64 KB frame);
8192 is the MTU TCP/IP uses on a 16 KB frame (``hw_limits.csv`` [IQD-MFS]), a common setting,
9% below the lowest measured MTU. Decision (issue 17):

* **RR and STRG: answered, labelled extrapolated, with a band.** Each metric follows the power
  law through the two lowest measured MTUs (8992, 16384) at the asked connections, down to
  8192 and no further. RR's 200- and 1000-byte messages fit one segment at every MTU from
  8192 up, and its figures do not move with the MTU across 8992 .. 57344; STRG's 20 MB
  response moves in more, smaller segments, so its CPU per transaction rises as the MTU
  falls, which the power law carries on (+3% to +6% at 8192). The band is the error of the
  same power law one step below the two MTUs it was fitted on, measured on 003: 8992
  predicted from 16384 and 32768, a step of 1.8x against 8992 -> 8192's 1.1x
  (``zvmplan.coverage`` rule ``mtu_below``, per workload, with its measured coverage).
* **CRR below 8232: refused.** CRR's 8192-byte response needs a TCP maximum segment size of
  8192, an MTU of at least 8232 (MSS = MTU - 40 bytes of IP and TCP header, RFC 879 and RFC
  793); at 8192 it goes in two segments, a regime none of 003's CRR runs (one segment each)
  measured. Between 8232 and 8992 CRR is answered as RR is.
* Below 8192 nothing is answered (#NUM!): that is no longer a short step.

The frame size itself (16 KB against 003's 64 KB) is not modelled, as for every MTU the
model answers: the basis names the frame a MTU needs.
"""
from __future__ import annotations

import numpy as np

from .curves import M_EXTRAP
from .errors import NoDataError, OutOfRangeError

FLOOR_MTU = 8192.0  # the HiperSockets MTU of a 16 KB frame (hw_limits.csv [IQD-MFS])
CRR_RESPONSE_BYTES = 8192  # 003: CRR's response
TCP_IP_HEADERS = 40        # RFC 791 + RFC 793, no options
METHOD = ("MTU below the lowest measured: the power law through the two lowest measured MTUs "
          "(8992 and 16384) at these connections, down to 8192 at most (zvmplan.hs_below)")


def is_below(grid, mtu: float) -> bool:
    """True for a HiperSockets MTU in [8192, lowest measured)."""
    return grid.transport == "HIPERSOCKETS" and FLOOR_MTU <= mtu < grid.mtus[0]


def check(grid, mtu: float, conns: float) -> bool:
    """:meth:`ConnGrid.check`, also letting through the short step below (returns True then).

    >>> from zvmplan.api import conn_grid
    >>> check(conn_grid("HIPERSOCKETS", "RR", "4.4.0"), 8192, 10)
    True
    """
    if not is_below(grid, mtu):
        if grid.transport == "HIPERSOCKETS" and mtu < FLOOR_MTU:
            raise OutOfRangeError(
                f"HIPERSOCKETS {grid.workload}: MTU {mtu:g} is below 8192, the MTU of the "
                f"smallest (16 KB) frame; 003 measured from {grid.mtus[0]:g}, and only the short "
                "step down to 8192 is extrapolated")
        grid.check(mtu, conns)
        return False
    if grid.workload == "CRR" and mtu - TCP_IP_HEADERS < CRR_RESPONSE_BYTES:
        raise NoDataError(
            f"HIPERSOCKETS CRR at MTU {mtu:g}: the 8192-byte response needs an MTU of at least "
            f"8232 to go in one segment (MSS = MTU - 40, RFC 879/793); at {mtu:g} it takes two, "
            "which none of 003's CRR runs measured (all at 8992 or more)")
    grid.check(grid.mtus[0], conns)  # the connection checks
    return True


def evaluate(grid, metric: str, mtu: float, conns: float) -> tuple[float, int, int]:
    """:meth:`ConnGrid.evaluate`, extended by the power law below the lowest MTU."""
    if not is_below(grid, mtu):
        return grid.evaluate(metric, mtu, conns)
    (m0, m1) = grid.mtus[:2]
    y0, _, bc = grid.evaluate(metric, float(m0), conns)
    y1, _, _ = grid.evaluate(metric, float(m1), conns)
    slope = np.log(y1 / y0) / np.log(m1 / m0)
    return float(y0 * (mtu / m0) ** slope), M_EXTRAP, bc

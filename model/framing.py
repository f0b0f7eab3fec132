"""What a wire really carries: TCP payload per second at an MTU, in the sources' MB.

A line rate (:func:`zvmplan.hardware.line_rate_mb_per_sec`) counts every bit on the wire, in
MB of 10^6 bytes. A planned load is TCP payload in the sources' MB, which 000 Table 1 shows to
be 2^20 bytes (docs/limits.md). Comparing the two directly lets a load through that cannot
cross the wire, so a load is compared with the **payload capacity** at its MTU:

    payload [MB/s] = line rate [bytes/s] x (MTU - IP - TCP) / (MTU + Ethernet) / 2^20

with, per frame (each header at its minimum, no options, so the capacity is an upper bound):

=====================  =====  ===============================================================
part                   bytes  source
=====================  =====  ===============================================================
preamble + SFD         8      IEEE 802.3 clause 4.2.5 / 3.2.1-3.2.2 (7 + 1 octets)
MAC header             14     RFC 894 (IP over Ethernet II: destination 6, source 6, type 2);
                              IEEE 802.3 clause 3.2.3-3.2.6
FCS                    4      IEEE 802.3 clause 3.2.9
inter-frame gap        12     IEEE 802.3 clause 4.4.2 (96 bit times)
IP header              20     RFC 791 (Internet Header Length 5 words, no options)
TCP header             20     RFC 793 (Data Offset 5 words, no options)
=====================  =====  ===============================================================

The Ethernet parts (38 bytes) lie outside the MTU, the IP and TCP headers (40 bytes) inside
it. ESCON CTC is no Ethernet: its 17 MB/s channel data rate already excludes the link's own
framing, so only the IP and TCP headers come off (the CTC channel programs' overhead is not
known from the sources and not counted). TCP options (e.g. RFC 7323 timestamps, 12 bytes) or
802.2 LLC/SNAP encapsulation (RFC 1042, 8 bytes) lower the capacity further: a load flagged
against this capacity cannot cross the wire; a load just below it may not either.

>>> round(payload_mb_per_sec("OSA_GBE", 1492).value, 2)
113.13
>>> round(payload_mb_per_sec("OSA_GBE", 8992).value, 2)
118.18
>>> round(payload_mb_per_sec("LCS", 1500).value, 3)
11.316
"""
from __future__ import annotations

from . import hardware, names
from .answer import Answer
from .errors import ArgumentTypeError, NoDataError, OutOfRangeError

PREAMBLE_SFD, MAC_HEADER, FCS, INTERFRAME_GAP = 8, 14, 4, 12
ETHERNET_OVERHEAD = PREAMBLE_SFD + MAC_HEADER + FCS + INTERFRAME_GAP  # 38 bytes per frame
IP_HEADER, TCP_HEADER = 20, 20
MIB = 1_048_576  # the sources' MB (000 Table 1)
MIN_MTU = 68     # RFC 791: every internet module must forward a 68-octet datagram
#: the largest MTU each wire carries: Ethernet II's 1500-octet data field (RFC 894) for LCS,
#: OSA-Express jumbo frames for OSA GbE (hw_limits.csv [OSA-JUMBO])
MAX_MTU = {"LCS": (1500.0, "RFC 894: an Ethernet II frame carries at most 1500 octets")}
SOURCES = ("IEEE 802.3 clauses 3.2 and 4.2/4.4.2 (preamble, SFD, MAC header, FCS, "
           "inter-frame gap)", "RFC 894 (IP over Ethernet)", "RFC 791 (IP header)",
           "RFC 793 (TCP header)", "hw_limits.csv (line and channel rates)")


def payload_mb_per_sec(transport, mtu_bytes) -> Answer:
    """The most TCP payload a real device's wire or channel carries at ``mtu_bytes``
    [MB/s, MB = 2^20 bytes], an upper bound (minimum headers). Memory-to-memory transports
    have no wire: :class:`NoDataError`.

    Parameters
    ----------
    transport : str
        LCS, OSA_GBE or ESCON_CTC (or an alias).
    mtu_bytes : float
        The IP MTU [bytes].
    """
    t = names.transport(transport)
    rate = hardware.line_rate_mb_per_sec(t)  # NoDataError for memory-to-memory transports
    if isinstance(mtu_bytes, bool) or not isinstance(mtu_bytes, (int, float)):
        raise ArgumentTypeError(f"mtu_bytes must be a number; got {mtu_bytes!r}")
    mtu = float(mtu_bytes)
    if not MIN_MTU <= mtu < float("inf"):
        raise OutOfRangeError(f"an IP MTU is at least {MIN_MTU} bytes (RFC 791); got {mtu:g}")
    if t in MAX_MTU and mtu > MAX_MTU[t][0]:
        raise hardware.ImpossibleError(f"impossible: {MAX_MTU[t][1]}; got MTU {mtu:g}")
    hardware.check_mtu(t, mtu)  # OSA GbE: at most 8992
    payload = mtu - IP_HEADER - TCP_HEADER
    if t == "ESCON_CTC":
        share = payload / mtu
        how = (f"channel data rate {rate:g} MB/s (10^6 bytes) x (MTU - 40) / MTU / 2^20: "
               "no Ethernet on a channel; the CTC channel programs' overhead is not counted")
    else:
        share = payload / (mtu + ETHERNET_OVERHEAD)
        how = (f"{hardware.line_rate_text(t)} (10^6 bytes) x (MTU - 40) / (MTU + 38) / 2^20: "
               "per frame 8 bytes preamble and SFD, 14 MAC header, 4 FCS, 12 inter-frame gap "
               "outside the MTU, 20 IP and 20 TCP header inside it")
    return Answer(rate * 1e6 * share / MIB, "MB/s", "derived", SOURCES, how, (
        "MB = 2^20 bytes, the sources' MB (000 Table 1); headers at their minimum (no IP or "
        "TCP options, Ethernet II), so this is an upper bound",), rel_band=(0.0, 0.0),
        band_rule=("no spread: arithmetic on nominal rates and header sizes (an upper "
                   "bound, not a measurement)",))


def over_capacity_flag(transport, load_mb_per_sec: float, mtu_bytes: float) -> str:
    """A flag when a load (TCP payload, sources' MB) exceeds the payload capacity at its
    MTU; '' if it fits, or for a memory-to-memory transport (no wire).

    >>> over_capacity_flag("OSA_GBE", 120, 1492)[:45]
    'FLAG: 120 MB/s of payload exceeds the 113.1 M'
    >>> over_capacity_flag("OSA_GBE", 110, 1492)
    ''
    """
    try:
        cap = payload_mb_per_sec(transport, mtu_bytes)
    except NoDataError:
        return ""
    if load_mb_per_sec <= cap.value:
        return ""
    t = names.transport(transport)
    return (f"FLAG: {load_mb_per_sec:.4g} MB/s of payload exceeds the {cap.value:.4g} MB/s "
            f"(MB = 2^20 bytes) that {hardware.line_rate_text(t)} carries at MTU {mtu_bytes:g} "
            "after framing and headers: a link that crosses the wire cannot carry it")

"""The glossary: transports, workloads, z/VM levels and metrics, each defined once.

Names are what a planner types; lookups are case-insensitive and accept aliases.

>>> transport("ctc")
'VCTC'
>>> workload("strg")
'STRG'
>>> level(4.4)
'4.4.0'
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ArgumentTypeError, NoDataError, UnknownNameError


@dataclass(frozen=True)
class Transport:
    name: str
    aliases: tuple[str, ...]
    description: str
    source: str
    memory_to_memory: bool  # throughput is CPU-bound: scales with processor speed
    virtual_device: bool    # a CP-simulated device (4.3.0 accounting applies)


TRANSPORTS: dict[str, Transport] = {t.name: t for t in [
    Transport("CMS_IUCV", ("APPC", "APPC/VM", "CMSIUCV"),
              "APPC/VM (synchronous IUCV) between two CMS programs: the practical upper limit of IUCV",
              "000 Table 1", True, True),
    Transport("IUCV", ("LINUX_IUCV",), "Linux IUCV line driver between two Linux guests",
              "000 Table 2", True, True),
    Transport("VCTC", ("CTC", "VIRTUAL_CTC", "LINUX_CTC"),
              "Linux CTC line driver over a virtual CTC between two Linux guests",
              "000 Table 3", True, True),
    Transport("ESCON_CTC", ("REAL_CTC", "ESCON"),
              "Real channel-to-channel adapter (ESCON, wrap-back) from a Linux guest",
              "001 Table 2", False, False),
    Transport("LCS", ("OSA_FE", "OSA_LCS"),
              "OSA Express Fast Ethernet in LCS mode, owned by a Linux guest",
              "001 Table 1", False, False),
    Transport("OSA_GBE", ("QDIO", "OSA", "OSA_EXPRESS", "GBE"),
              "OSA Express Gigabit Ethernet (QDIO, OSD CHPID) shared by two Linux guests",
              "003 Tables 2-7", False, False),
    Transport("HIPERSOCKETS", ("IQD", "HIPERSOCKET", "HS"),
              "Real HiperSockets (IQD CHPID, MFS 64K) between two Linux guests",
              "003 Tables 8-19", True, False),
    Transport("GUEST_LAN", ("GUESTLAN", "VM_GUEST_LAN", "VLAN"),
              "VM Guest LAN in HiperSockets mode between two Linux guests",
              "002 Tables 1-2", True, True),
]}


@dataclass(frozen=True)
class Workload:
    name: str
    aliases: tuple[str, ...]
    description: str
    mb_per_tx: float | None  # MB moved per transaction, where the source defines it


WORKLOADS: dict[str, Workload] = {w.name: w for w in [
    Workload("STREAM", ("STREAMING", "STREAM_PUT"),
             "Streaming by transfer size (000): CMS APPC/VM exchanges of N bytes, or Linux "
             "stream put of 20,000,000-byte transfers with API crossings equal to the MTU", None),
    Workload("FTP_GET", ("FTP",),
             "FTP GET of a 100 MB file to /dev/null, 5 GETs per run (001); a transaction is one GET",
             100.0),
    Workload("RR", ("REQUEST_RESPONSE",),
             "Request-response (Telnet-like): 200-byte request, 1000-byte response, connection kept "
             "(002, 003)", None),
    Workload("CRR", ("CONNECT_REQUEST_RESPONSE",),
             "Connect-request-response (HTTP-like): connect, 64-byte request, 8192-byte response, "
             "close (002, 003)", None),
    Workload("STRG", ("STREAMS_GET", "STR"),
             "Streams get (FTP-like): 20-byte request, 20 MB response, close (002, 003)", 20.0),
]}

LEVELS: tuple[str, ...] = ("3.1.0", "4.1.0", "4.2.0", "4.3.0", "4.4.0")
#: z/VM releases after the newest level the sources measured (IBM's announcements of z/VM
#: V5.1 (2004) to V7.4 (2024)): real levels, but beyond the sources, so #N/A, not #VALUE!
LATER_LEVELS: tuple[str, ...] = ("5.1.0", "5.2.0", "5.3.0", "5.4.0", "6.1.0", "6.2.0",
                                 "6.3.0", "6.4.0", "7.1.0", "7.2.0", "7.3.0", "7.4.0")
#: networking the sources name or a planner may ask for but none of 000-004 measured
UNMEASURED_TRANSPORTS: dict[str, str] = {
    "VSWITCH": "the z/VM virtual switch (VSWITCH) is not measured in any source (000-004)",
    "VIRTUAL_SWITCH": "the z/VM virtual switch (VSWITCH) is not measured in any source "
                      "(000-004)",
    "CLAW": "CLAW appears only in 004's 4.3.0 VM TCP/IP stack ranges (ZVM_STACK_CHANGE), with "
            "no per-MB or per-transaction figures",
    "OSA_10GBE": "OSA-Express 10 Gigabit Ethernet is not measured in any source (003 measured "
                 "Gigabit Ethernet)",
}

#: metric name -> (unit, description). Units in names: *_per_mb is CPU-seconds per MB,
#: *_per_tx is CPU-milliseconds per transaction, as the sources print them.
METRICS: dict[str, tuple[str, str]] = {
    "mb_per_sec": ("MB/s", "data rate"),
    "mb_per_cpusec": ("MB/CPU-s", "MB moved per CPU-second (total CPU)"),
    "cpusec_per_sec": ("CPU-s/s", "CPU-seconds consumed per elapsed second"),
    "cp_cpusec_per_mb": ("CPU-s/MB", "CP (Control Program) CPU-seconds per MB"),
    "v_cpusec_per_mb": ("CPU-s/MB", "virtual (guest) CPU-seconds per MB"),
    "tot_cpusec_per_mb": ("CPU-s/MB", "total (CP + virtual) CPU-seconds per MB"),
    "pct_cp": ("%", "CP share of total CPU"),
    "tx_per_sec": ("tx/s", "transactions per elapsed second"),
    "v_cpumsec_per_tx": ("CPU-ms/tx", "virtual (guest) CPU-milliseconds per transaction"),
    "cp_cpumsec_per_tx": ("CPU-ms/tx", "CP CPU-milliseconds per transaction"),
    "tot_cpumsec_per_tx": ("CPU-ms/tx", "total CPU-milliseconds per transaction"),
}
PER_MB_METRICS = ("mb_per_sec", "mb_per_cpusec", "cpusec_per_sec", "cp_cpusec_per_mb",
                  "v_cpusec_per_mb", "tot_cpusec_per_mb", "pct_cp")
PER_TX_METRICS = ("tx_per_sec", "v_cpumsec_per_tx", "cp_cpumsec_per_tx", "tot_cpumsec_per_tx")
UNITS = {m: u for m, (u, _) in METRICS.items()}


def _index(table: dict) -> dict[str, str]:
    idx = {}
    for name, item in table.items():
        idx[name] = name
        for alias in item.aliases:
            idx[alias] = name
    return idx


_TRANSPORT_INDEX = _index(TRANSPORTS)
_WORKLOAD_INDEX = _index(WORKLOADS)


def _lookup(value, index: dict[str, str], what: str, valid) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{what} must be text, one of {', '.join(valid)}; got {value!r}")
    text = value.strip()
    # ASCII only: str.upper() would fold "ıucv" to IUCV and "ſtream" to STREAM
    key = text.upper().replace("-", "_").replace(" ", "_") if text.isascii() else None
    if key in index:
        return index[key]
    hint = ""
    if key:
        import difflib  # here: only an unknown name needs it (~1 ms of every start-up)
        close = difflib.get_close_matches(key, list(index), n=1, cutoff=0.6)
        if close:
            hint = f"; did you mean {index[close[0]]}?"
    raise UnknownNameError(f"unknown {what} {value!r}{hint} valid: {', '.join(valid)}"
                           if hint else f"unknown {what} {value!r}; valid: {', '.join(valid)}")


def transport(value) -> str:
    """Canonical transport name for ``value`` (case-insensitive, aliases accepted). A
    transport no source measured (:data:`UNMEASURED_TRANSPORTS`) is a
    :class:`NoDataError` (``#N/A``), not an unknown name.

    >>> try:
    ...     transport("vswitch")
    ... except NoDataError as exc:
    ...     print(exc)
    VSWITCH is beyond the sources: the z/VM virtual switch (VSWITCH) is not measured in any source (000-004); measured: CMS_IUCV, IUCV, VCTC, ESCON_CTC, LCS, OSA_GBE, HIPERSOCKETS, GUEST_LAN
    """
    if type(value) is str and value in _TRANSPORT_TEXT:  # text read before
        return _TRANSPORT_TEXT[value]
    if isinstance(value, str) and value.isascii():
        key = value.strip().upper().replace("-", "_").replace(" ", "_")
        if key in UNMEASURED_TRANSPORTS:
            raise NoDataError(f"{key} is beyond the sources: {UNMEASURED_TRANSPORTS[key]}; "
                              f"measured: {', '.join(TRANSPORTS)}")
    return _remember(_TRANSPORT_TEXT, value, _lookup(value, _TRANSPORT_INDEX, "transport",
                                                     TRANSPORTS))


def workload(value) -> str:
    """Canonical workload name for ``value`` (case-insensitive, aliases accepted)."""
    return _lookup(value, _WORKLOAD_INDEX, "workload", WORKLOADS)


def metric(value) -> str:
    return _lookup(value, {m.upper(): m for m in METRICS}, "metric", METRICS)


def level(value) -> str:
    """Canonical z/VM level: '4.4.0', '4.4', 'z/VM 4.4.0', 440 and 4.4 all mean 4.4.0.

    A real z/VM level after 4.4.0 (:data:`LATER_LEVELS`) is :class:`NoDataError` (``#N/A``,
    beyond the sources); anything else that is not a level (4.36, 'abc') is
    :class:`UnknownNameError` (``#VALUE!``).

    >>> try:
    ...     level("5.1.0")
    ... except NoDataError as exc:
    ...     print(exc)
    z/VM 5.1.0 is beyond the sources (newest 4.4.0): no source measured it, and nothing is carried past the newest measured level; valid: 3.1.0, 4.1.0, 4.2.0, 4.3.0, 4.4.0
    """
    if type(value) is str and value in _LEVEL_TEXT:  # text read before
        return _LEVEL_TEXT[value]
    if isinstance(value, bool) or value is None:
        raise ArgumentTypeError(f"z/VM level must be one of {', '.join(LEVELS)}; got {value!r}")
    if isinstance(value, (int, float)):
        # exactly 4.4 or 440, never rounded: 4.36 or 4.06 is no z/VM level (issue 8)
        numbers = {float(lv[:3]): lv for lv in LEVELS + LATER_LEVELS} | {
            float(lv.replace(".", "")): lv for lv in LEVELS + LATER_LEVELS}
        text = numbers.get(float(value), repr(value))
    elif isinstance(value, str):
        text = value.strip().upper().removeprefix("Z/VM").strip().lstrip("V").strip()
        if text.count(".") == 1:
            text += ".0"
    else:
        raise ArgumentTypeError(f"z/VM level must be one of {', '.join(LEVELS)}; got {value!r}")
    if text in LATER_LEVELS:
        raise NoDataError(f"z/VM {text} is beyond the sources (newest {LEVELS[-1]}): no source "
                          "measured it, and nothing is carried past the newest measured level; "
                          f"valid: {', '.join(LEVELS)}")
    if text not in LEVELS:
        raise UnknownNameError(f"unknown z/VM level {value!r}; valid: {', '.join(LEVELS)}")
    return _remember(_LEVEL_TEXT, value, text)


#: text (exactly a str) already read as a transport or a level, with its canonical name: a
#: workbook asks with the same few texts in every cell; a refused text is read again each
#: time (its error is raised afresh), and at most _REMEMBERED texts are kept
_TRANSPORT_TEXT: dict[str, str] = {}
_LEVEL_TEXT: dict[str, str] = {}
_REMEMBERED = 1024


def _remember(memo: dict, value, name: str) -> str:
    """``name``, kept in ``memo`` as what the text ``value`` reads as."""
    if type(value) is str and len(memo) < _REMEMBERED:
        memo[value] = name
    return name

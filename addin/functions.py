"""The zvmplan worksheet functions. Each converts its arguments and delegates to the model.

In Excel (classic xlwings): point the add-in's UDF Modules at ``zvmplan_addin.functions``
and import the functions. Headless: ``zvmplan calc``. Every function is listed by
``zvmplan functions`` and in the README, both generated from this module's registry.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

import zvmplan
from zvmplan import names
from zvmplan.answer import Pair
from zvmplan.derived import STACK_NOTE_004, stack_change
from zvmplan.errors import ArgumentTypeError
from zvmplan.framing import payload_mb_per_sec

from .errors import ExcelError
from .registry import REGISTRY, Param, as_number, worksheet_function


# ------------------------------------------------------------ converters ----
def text(what):
    def convert(value):
        if not isinstance(value, str):
            raise ArgumentTypeError(f"{what} must be text; got {value!r}")
        return value
    return convert


def number(what):
    return lambda value: as_number(value, what)


def level_value(value):
    """A z/VM level typed as text ('4.4.0') or as a number (4.4)."""
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError("level must be text such as \"4.4.0\", not TRUE/FALSE")
    return names.level(value if isinstance(value, str) else as_number(value, "level"))


TRANSPORT = Param("transport", "transport: " + ", ".join(names.TRANSPORTS) + " (or an alias)",
                  text("transport"))
WORKLOAD = Param("workload", "workload: RR, CRR, STRG (003/002) or FTP_GET (001)",
                 text("workload"))
SIZE = Param("size_bytes", "transfer size (CMS_IUCV) or MTU; a range gives an array",
             number("size_bytes"), unit="bytes", vector=True)
MTU = Param("mtu", "MTU; a range gives an array", number("mtu"), unit="bytes", vector=True)
CONNS = Param("connections", "concurrent connections; a range gives an array",
              number("connections"), unit="count", vector=True)
LEVEL = Param("level", "z/VM level " + ", ".join(names.LEVELS) + "; default the measured level",
              level_value, optional=True)
SPEED = Param("speed_factor", "per-engine capacity of the target processor relative to the "
              "measured one (ZVM_PROCESSOR; from zPCR or LSPR); default 1",
              number("speed_factor"), unit="x", optional=True)
STRG_CONNS = Param("connections", "for OSA_GBE, HIPERSOCKETS, GUEST_LAN (from STRG): "
                   "concurrent connections; default the measured count with the most CPU per MB "
                   "at that MTU and level (OSA_GBE: 1, a single stream)",
                   number("connections"), unit="count", optional=True)


def _per_mb(metric, transport, size_bytes, level, speed_factor, connections):
    if isinstance(size_bytes, np.ndarray):
        return zvmplan.per_mb_many(transport, size_bytes, metric, level, speed_factor, connections)
    return zvmplan.per_mb(transport, size_bytes, metric, level, speed_factor, connections)


def _per_tx(metric, transport, workload, mtu, connections, level, speed_factor):
    if isinstance(mtu, np.ndarray) or isinstance(connections, np.ndarray):
        return zvmplan.per_tx_many(transport, workload, mtu, connections, metric, level,
                                   speed_factor)
    return zvmplan.per_tx(transport, workload, mtu, connections, metric, level, speed_factor)


PER_MB_PARAMS = [TRANSPORT, SIZE, LEVEL, SPEED, STRG_CONNS]
PER_TX_PARAMS = [TRANSPORT, WORKLOAD, MTU, CONNS, LEVEL, SPEED]


# ------------------------------------------------------------- metrics -------
class MetricFunction(NamedTuple):
    """One worksheet function per metric of :data:`zvmplan.names.METRICS`, whose unit is
    written there only: the description ends with it in brackets and ``returns`` is it."""
    name: str      # the Excel name
    metric: str    # a key of names.METRICS
    what: str      # the description, without the unit
    example: str
    note: str = ""  # after the unit

    @property
    def description(self) -> str:
        unit = f" [{names.UNITS[self.metric]}]"
        return self.what + unit + (f"; {self.note}" if self.note else "")


ONE_GUEST_ONLY = ("LCS and ESCON_CTC: one Linux guest only (001 did not measure the far "
                    "end: a workstation for LCS, the VM TCP/IP stack for ESCON_CTC)")

#: The metric functions, per MB (streaming) then per transaction, in the order they are
#: listed (README, ``zvmplan functions``, the Lite export).
METRIC_FUNCTIONS = (
    MetricFunction("MB_PER_SEC", "mb_per_sec", "Data rate of a streaming transfer",
                   '=MB_PER_SEC("IUCV",9000)'),
    MetricFunction("MB_PER_CPUSEC", "mb_per_cpusec",
                   "MB moved per CPU-second of total (CP + virtual) CPU",
                   '=MB_PER_CPUSEC("CMS_IUCV",32764)'),
    MetricFunction("CPCPU_PER_MB", "cp_cpusec_per_mb",
                   "CP (Control Program) CPU-seconds per MB transferred",
                   '=CPCPU_PER_MB("IUCV",9000)'),
    MetricFunction("VCPU_PER_MB", "v_cpusec_per_mb",
                   "Virtual (guest) CPU-seconds per MB transferred", '=VCPU_PER_MB("VCTC",32764)'),
    MetricFunction("TOTCPU_PER_MB", "tot_cpusec_per_mb",
                   "Total (CP + virtual) CPU-seconds per MB transferred",
                   '=TOTCPU_PER_MB("LCS",1500,"4.1.0")', ONE_GUEST_ONLY),
    MetricFunction("CPUSEC_PER_SEC", "cpusec_per_sec",
                   "CPU-seconds consumed per elapsed second while streaming",
                   '=CPUSEC_PER_SEC("CMS_IUCV",8000)'),
    MetricFunction("PCT_CP", "pct_cp", "CP share of total CPU while streaming",
                   '=PCT_CP("VCTC",9000)'),
    MetricFunction("TX_PER_SEC", "tx_per_sec", "Transactions per second",
                   '=TX_PER_SEC("OSA_GBE","CRR",1492,1,"4.3.0")'),
    MetricFunction("CPCPU_PER_TX", "cp_cpumsec_per_tx", "CP CPU-milliseconds per transaction",
                   '=CPCPU_PER_TX("OSA_GBE","RR",1492,50,"4.4.0")'),
    MetricFunction("VCPU_PER_TX", "v_cpumsec_per_tx",
                   "Virtual (guest) CPU-milliseconds per transaction",
                   '=VCPU_PER_TX("HIPERSOCKETS","STRG",57344,20,"4.4.0")'),
    MetricFunction("TOTCPU_PER_TX", "tot_cpumsec_per_tx", "Total CPU-milliseconds per transaction",
                   '=TOTCPU_PER_TX("GUEST_LAN","CRR",57344,50,"4.3.0")', ONE_GUEST_ONLY),
)


def _declare_metric(f: MetricFunction) -> None:
    """Register ``f``: a per-MB metric takes :data:`PER_MB_PARAMS`, a per-transaction one
    :data:`PER_TX_PARAMS`; both delegate to the model with the metric's name."""
    metric = f.metric
    if metric in names.PER_MB_METRICS:
        def impl(transport, size_bytes, level=None, speed_factor=None, connections=None):
            return _per_mb(metric, transport, size_bytes, level, speed_factor, connections)
        params = PER_MB_PARAMS
    else:
        def impl(transport, workload, mtu, connections, level=None, speed_factor=None):
            return _per_tx(metric, transport, workload, mtu, connections, level, speed_factor)
        params = PER_TX_PARAMS
    impl.__name__ = impl.__qualname__ = f.name.lower()  # the registry's Excel name
    impl.__doc__ = f.description
    worksheet_function(description=f.description, example=f.example,
                       returns=names.UNITS[metric], params=params)(impl)


for _metric_function in METRIC_FUNCTIONS:
    _declare_metric(_metric_function)
del _metric_function


# ------------------------------------------------------------- sizing -------
BULK_OR_TX = ("tx/s for RR and CRR; MB/s for the bulk workloads (STREAM: CMS_IUCV, IUCV, "
              "VCTC; FTP_GET: LCS, ESCON_CTC; STRG: OSA_GBE, HIPERSOCKETS, GUEST_LAN)")
SIZING_CONNS = Param("connections", "concurrent connections: required for RR and CRR; for "
                     "STRG optional (default as for the per-MB functions)",
                     number("connections"), unit="count", optional=True)
SIZING_SPEED = Param("speed_factor", "the machine to size for: its per-engine capacity "
                     "relative to the measured processor (ZVM_PROCESSOR; from zPCR or LSPR); "
                     "default 1, the measured processor", number("speed_factor"), unit="x",
                     optional=True)
SIZING_WORKLOAD = Param("workload", "workload the transport was measured with: RR or CRR "
                        "(OSA_GBE, HIPERSOCKETS, GUEST_LAN), or its bulk workload: STREAM, "
                        "FTP_GET or STRG", text("workload"))
SIZING_SIZE = Param("size_bytes", "transfer size (CMS_IUCV) or MTU", number("size_bytes"),
                    unit="bytes")


@worksheet_function(description="Engines (CPU-seconds per second) one link needs to carry a "
                    "load on the machine the speed_factor names: load x total CPU per unit; "
                    "flagged where the load is above the measured rate or the wire [engines]",
                    example='=ENGINES_NEEDED("OSA_GBE","RR",1492,1000,50,"4.4.0")',
                    returns="engines",
                    params=[TRANSPORT, SIZING_WORKLOAD, SIZING_SIZE,
                            Param("load", "the load: " + BULK_OR_TX, number("load"),
                                  unit="tx/s or MB/s"),
                            SIZING_CONNS, LEVEL, SIZING_SPEED])
def engines_needed(transport, workload, size_bytes, load, connections=None, level=None,
                   speed_factor=None):
    return zvmplan.engines_needed(transport, workload, size_bytes, load, connections, level,
                                  speed_factor)


@worksheet_function(description="The most load N engines carry on one link (" + BULK_OR_TX +
                    "): the least of engines / total CPU per unit, the rate the sources "
                    "measured there and what the wire carries [tx/s or MB/s]",
                    example='=MAX_LOAD("OSA_GBE","RR",1492,2,50,"4.4.0")',
                    returns="tx/s or MB/s",
                    params=[TRANSPORT, SIZING_WORKLOAD, SIZING_SIZE,
                            Param("engines", "engines (CPU-seconds per second) available for "
                                  "the link", number("engines"), unit="engines"),
                            SIZING_CONNS, LEVEL, SIZING_SPEED])
def max_load(transport, workload, size_bytes, engines, connections=None, level=None,
             speed_factor=None):
    return zvmplan.max_load(transport, workload, size_bytes, engines, connections, level,
                            speed_factor)


# --------------------------------------------------- explanation, discovery -------
_ANY = [Param(f"arg{i}", f"argument {i} of that function", lambda v: v, optional=i > 1)
        for i in range(1, 8)]


@worksheet_function(description="Why a zvmplan answer is what it is: basis (measured, derived, "
                    "interpolated, extrapolated, carried, level-adjusted), method and source; "
                    "for an error, the reason",
                    example='=ZVM_BASIS("CPCPU_PER_MB","IUCV",9000)', returns="text",
                    params=[Param("function", "name of a zvmplan function, e.g. CPCPU_PER_MB",
                                  text("function"))] + _ANY)
def zvm_basis(function, arg1=None, arg2=None, arg3=None, arg4=None, arg5=None, arg6=None,
              arg7=None):
    fn, args = _target(function, "ZVM_BASIS", [arg1, arg2, arg3, arg4, arg5, arg6, arg7])
    return fn.explain(*args)


_ABOUT = ("ZVM_BASIS", "ZVM_RANGE")


def _target(function, caller, args):
    # ASCII only: str.upper() would fold "zvm_lıne_rate" onto ZVM_LINE_RATE (issue 8)
    fn = REGISTRY.get(function.strip().upper()) if function.isascii() else None
    barred = (caller,) if caller == "ZVM_BASIS" else _ABOUT  # ZVM_BASIS explains a band too
    if fn is None or fn.name in barred:
        valid = ", ".join(n for n in REGISTRY if n not in barred)
        raise ArgumentTypeError(f"unknown function {function!r}; valid: {valid}")
    # more arguments than fn takes stay: fn answers #VALUE! naming itself and its arity
    while args and args[-1] is None:
        args.pop()
    return fn, args


@worksheet_function(description="How sure a zvmplan number is: its band (low, high) by the "
                    "rule its basis states (published rounding at measured points, 001's 95% "
                    "confidence interval, for projections value / k .. value x k from the "
                    "method's errors pooled across series and transports, with the coverage "
                    "measured out of sample); spills across two cells",
                    example='=ZVM_RANGE("CPCPU_PER_MB","IUCV",16000)', returns="two numbers",
                    params=[Param("function", "name of a zvmplan function that returns a "
                                  "number, e.g. CPCPU_PER_MB", text("function"))] + _ANY,
                    spill=True)
def zvm_range(function, arg1=None, arg2=None, arg3=None, arg4=None, arg5=None, arg6=None,
              arg7=None):
    fn, args = _target(function, "ZVM_RANGE", [arg1, arg2, arg3, arg4, arg5, arg6, arg7])
    result = fn._call(args, explain=True)
    if isinstance(result, ExcelError):
        return result
    if not isinstance(result, zvmplan.Answer):
        raise ArgumentTypeError(f"ZVM_RANGE: {fn.name} does not return a zvmplan number")
    return zvmplan.band(result)


def _column(items):
    return np.array([[i] for i in items], dtype=object)


@worksheet_function(description="The transport names (spills down a column)",
                    example="=ZVM_TRANSPORTS()", returns="text column", params=[], spill=True)
def zvm_transports():
    return _column(zvmplan.transports())


@worksheet_function(description="The workload names (spills down a column)",
                    example="=ZVM_WORKLOADS()", returns="text column", params=[], spill=True)
def zvm_workloads():
    return _column(zvmplan.workloads())


@worksheet_function(description="The z/VM levels (spills down a column)",
                    example="=ZVM_LEVELS()", returns="text column", params=[], spill=True)
def zvm_levels():
    return _column(zvmplan.levels())


@worksheet_function(description="95% confidence interval (low, high) where the source has "
                    "samples (001: LCS, ESCON_CTC); spills across two cells",
                    example='=ZVM_CI("LCS","cp_cpusec_per_mb","4.1.0")', returns="two numbers",
                    params=[TRANSPORT,
                            Param("metric", "cp_cpusec_per_mb, tot_cpusec_per_mb, "
                                  "cp_cpumsec_per_tx or tot_cpumsec_per_tx", text("metric")),
                            LEVEL], spill=True)
def zvm_ci(transport, metric, level=None):
    return zvmplan.confidence_interval(transport, metric, level)  # ZVM_BASIS: carried or not


@worksheet_function(description="004's published z/VM 4.3.0 VM TCP/IP stack change (low, high) "
                    "in % for VM TCP/IP stack endpoints only (never Linux-guest figures): "
                    "throughput (per transport) or cpu (CPU per unit, all devices: negative); "
                    "spills across two cells",
                    example='=ZVM_STACK_CHANGE("HIPERSOCKETS","RR","throughput")',
                    returns="two numbers [%]",
                    params=[Param("transport", "HIPERSOCKETS, GUEST_LAN, CLAW, VCTC or ALL",
                                  text("transport")), WORKLOAD,
                            Param("metric", "throughput or cpu", text("metric"))], spill=True)
def zvm_stack_change(transport, workload, metric):
    lo, hi = stack_change(transport, workload, metric)
    return Pair(lo, hi, "%", "measured", ("004 'Stack Performance Improvements' and 'Stack "
                                          "Performance Results'",), "", (STACK_NOTE_004,))

@worksheet_function(description="The processor the answers for a transport were measured on "
                    "(000: 9672-XZ7, 001: 2064-108, 002: 2064-109, 003: 2084-C24 z990); "
                    "speed_factor is relative to it",
                    example='=ZVM_PROCESSOR("IUCV")', returns="text",
                    params=[TRANSPORT, LEVEL])
def zvm_processor(transport, level=None):
    return zvmplan.processor(transport, level).name


@worksheet_function(description="Raw line or channel rate of a real device, every bit on the "
                    "wire (MB = 10^6 bytes) [MB/s]: LCS (Fast Ethernet), OSA_GBE (Gigabit "
                    "Ethernet), ESCON_CTC (channel); #N/A for memory-to-memory transports; a "
                    "load is payload: compare it with ZVM_PAYLOAD_RATE",
                    example='=ZVM_LINE_RATE("OSA_GBE")', returns="MB/s", params=[TRANSPORT])
def zvm_line_rate(transport):
    return zvmplan.line_rate_mb_per_sec(transport)


@worksheet_function(description="Most TCP payload a real device's wire or channel carries at an "
                    "MTU, after Ethernet framing (IEEE 802.3, RFC 894) and minimum IP and TCP "
                    "headers (RFC 791, 793), in the sources' MB of 2^20 bytes: compare a planned "
                    "load with this, not with ZVM_LINE_RATE; #N/A for memory-to-memory "
                    "transports [MB/s]",
                    example='=ZVM_PAYLOAD_RATE("OSA_GBE",1492)', returns="MB/s",
                    params=[TRANSPORT, Param("mtu", "the IP MTU", number("mtu"), unit="bytes")])
def zvm_payload_rate(transport, mtu):
    return payload_mb_per_sec(transport, mtu)


# Classic xlwings finds a function with getattr(module, <Excel name>): expose each under its
# Excel name only (one attribute per function, so "Import Functions" writes one wrapper).
for _fn in list(REGISTRY.values()):
    globals().pop(_fn.impl.__name__, None)
    globals()[_fn.name] = _fn.udf
del _fn

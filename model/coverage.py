"""Bands that hold out of sample: each projection method's errors, pooled, and the coverage
the resulting band is measured to have on data it was not built from.

A projected answer's band (:func:`zvmplan.band`, ``ZVM_RANGE``) is
``value / k .. value x k`` with ``k = exp(max |ln(published / predicted)|)`` over the
pooled errors of the same method: symmetric in ratio, because no rule here knows the sign
of the error it has not seen. The errors are pooled wider than the table the answer comes
from, because one table's few held-out points do not hold out of sample (issue 17: the old
per-table rules held 86% (connections), 79% (held flat), 70% (OSA's two-neighbour MTU rule
tried on HiperSockets) and 1 of 5 (the Linux size band rebuilt from CMS IUCV)):

==============  =====================================================  =======================
rule            errors pooled (signed, ``published / predicted``)      each test leaves out
==============  =====================================================  =======================
size_dense      CMS IUCV: each interior size of 000 Table 1 from the   one size
                others (PCHIP in log-log)
size_sparse     the Linux drivers between 1500 and 32764: IUCV and     one transport's values
                VCTC at 9000 from 1500 and 32764; CMS IUCV cut to the
                same three sizes, at its 5 sizes between them and at
                9000 from the other two
size_low        576 .. 1500 (cost fit below): IUCV, VCTC and CMS       one transport's values
                IUCV at 1500 from 9000 and 32764; CMS IUCV cut to the
                three sizes, at 1000
size_whatif     IUCV beyond 32764 (cost fit, up to 2 MB): IUCV, VCTC   one transport's values
                and CMS IUCV at 32764 from 1500 and 9000; CMS IUCV
                cut to the three sizes, at its 8 sizes from 40000 to
                2,000,000; and never narrower than 000 Table 4/5's
                Linux/CMS ratio held at its 32764 value
conn_interp     one 003 device: each interior connection count of      one series (MTU, level,
                every series (workload, MTU, level) from the others    workload)
conn_flat       one 003 device: the largest count held from the next   one series
                largest, in every series
mtu_interp      HiperSockets: each interior MTU from the others, every  one row (workload,
                workload, level and connection count                   level, connections)
mtu_two_point   OSA GbE (two MTUs: none can be left out on OSA):       one HiperSockets row
                HiperSockets' 16384 and 32768 from 8992 and 57344, a
                span like OSA's 1492 .. 8992
mtu_below       HiperSockets 8192 .. 8992 (:mod:`zvmplan.hs_below`),   one row (level,
                per workload: 8992 from 16384 and 32768 by the same    connections)
                power law, a 1.8x step against 8992 -> 8192's 1.1x
==============  =====================================================  =======================

A rule's **measured coverage** is the share of its values that fall inside the band rebuilt
from the other groups' values (each group left out in turn): the band's own rule text and
docs/method.md state it, and ``tests/test_band_coverage.py`` measures it again.
``python scripts/band_coverage.py`` prints the table.

>>> r = rule("conn_interp", "cp_cpumsec_per_tx", "HIPERSOCKETS")
>>> r.held, r.tested, round(r.factor, 3)
(46, 46, 1.064)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .data import find
from .interp import pchip
from .setops import isin
from .tables import conn_grid, outlier_runs, size_curve

SIZE_METRICS = ("mb_per_sec", "mb_per_cpusec", "cpusec_per_sec", "cp_cpusec_per_mb",
                "v_cpusec_per_mb", "tot_cpusec_per_mb", "pct_cp")
TX_METRICS = ("tx_per_sec", "v_cpumsec_per_tx", "cp_cpumsec_per_tx", "tot_cpumsec_per_tx")
LINUX_SIZES = (1500, 9000, 32764)  # the sizes 000 measured the Linux drivers at
WHATIF_TOP = 2_000_000             # the largest IUCV MTU 000's conclusions consider
_000 = {"CMS_IUCV": "Table 1", "IUCV": "Table 2", "VCTC": "Table 3"}
#: 000 comparison tables whose Linux/CMS IUCV ratio, held at its 32764 value, bounds the
#: IUCV what-if from below: CP CPU/MB (Table 5: 1.756, 1.770, 1.796, rising with MTU) and
#: MB per CPU-second (Table 4: 0.292, 0.271, 0.251, falling, so total CPU/MB rises)
RATIO_TABLES = {"cp_cpusec_per_mb": "Table 5", "tot_cpusec_per_mb": "Table 4",
                "mb_per_cpusec": "Table 4"}

LABEL = {"size_dense": "size", "size_sparse": "size", "size_low": "size below the measured sizes",
         "size_whatif": "a what-if beyond 32764", "conn_interp": "connections",
         "conn_flat": "holding flat", "mtu_interp": "MTU", "mtu_two_point": "MTU",
         "mtu_below": "an MTU below the lowest measured"}
LEFT_OUT = {"size_dense": "each size left out in turn",
            "size_sparse": "each transport left out in turn",
            "size_low": "each transport left out in turn",
            "size_whatif": "each transport left out in turn",
            "conn_interp": "each series (workload, MTU, level) left out in turn",
            "conn_flat": "each series (workload, MTU, level) left out in turn",
            "mtu_interp": "each row (workload, level, connections) left out in turn",
            "mtu_two_point": "each HiperSockets row (workload, level, connections) left out "
                             "in turn",
            "mtu_below": "each row (level, connections) left out in turn"}
WHAT = {"size_dense": "PCHIP between measured sizes, each interior size of 000 Table 1 "
                      "predicted from the others",
        "size_sparse": "PCHIP between the Linux drivers' three sizes: IUCV and VCTC at 9000 "
                       "from 1500 and 32764, and CMS IUCV cut to the same three sizes at its "
                       "sizes between them",
        "size_low": "the cost fit one step below the measured sizes: IUCV, VCTC and CMS IUCV at "
                    "1500 from 9000 and 32764, CMS IUCV cut to three sizes at 1000",
        "size_whatif": "the cost fit beyond 32764: IUCV, VCTC and CMS IUCV at 32764 from 1500 "
                       "and 9000, and CMS IUCV cut to the three Linux sizes at its 8 sizes from "
                       "40000 to 2,000,000",
        "conn_interp": "PCHIP between connection counts, each interior count of every 003 "
                       "series of the device predicted from the others",
        "conn_flat": "holding the largest measured count flat: the change from the next "
                     "largest count in every 003 series of the device",
        "mtu_interp": "PCHIP between HiperSockets MTUs, each interior MTU predicted from the "
                      "others at every workload, level and connection count",
        "mtu_below": "the power law through the two lowest measured MTUs one step below them: "
                     "HiperSockets 8992 from 16384 and 32768 (a step of 1.8x, against 1.1x "
                     "from 8992 down to 8192)",
        "mtu_two_point": "interpolating between two MTUs a factor of ~6 apart, as OSA's 1492 "
                         "and 8992: HiperSockets 16384 and 32768 from 8992 and 57344 (OSA itself "
                         "has two MTUs, so none can be left out there)"}


@dataclass(frozen=True)
class BandRule:
    """A band rule: the pooled log errors of one method, by group, and their coverage."""
    key: str
    metric: str
    scope: str                                   # transport(s) the rule applies to
    groups: tuple[tuple[str, tuple[float, ...]], ...]  # (group, ln(published / predicted))
    floor: float = 0.0                           # a width the evidence demands (what-if)
    floor_why: str = ""

    @property
    def width(self) -> float:
        """Half-width of the band in ln terms: the largest |error| (or the floor)."""
        return max([self.floor] + [abs(e) for _, es in self.groups for e in es])

    @property
    def factor(self) -> float:
        """The band is value / factor .. value x factor."""
        return float(np.exp(self.width))

    @property
    def rel_band(self) -> tuple[float, float]:
        return float(np.exp(-self.width) - 1), float(np.exp(self.width) - 1)

    @property
    def tested(self) -> int:
        return sum(len(es) for _, es in self.groups)

    @property
    def held(self) -> int:
        """Values inside the band rebuilt from the other groups (each left out in turn)."""
        n = 0
        for g, es in self.groups:
            rest = [abs(e) for h, other in self.groups if h != g for e in other]
            w = max(rest + [self.floor]) if rest else self.floor
            n += sum(abs(e) <= w + 1e-12 for e in es)
        return n

    @property
    def coverage(self) -> float:
        return self.held / self.tested if self.tested else float("nan")

    def text(self) -> str:
        """The rule as a band states it, with its measured coverage."""
        k = self.factor
        out = (f"band for {LABEL[self.key]}: value / {k:.3f} .. value x {k:.3f}, the "
               f"largest error of {WHAT[self.key]} ({self.tested} values, {self.scope}); "
               f"measured out of sample ({LEFT_OUT[self.key]}, the band rebuilt from the "
               f"rest) it held {self.held} of {self.tested} ({100 * self.coverage:.0f}%)")
        if self.floor_why:
            out += "; " + self.floor_why
        return out


# ------------------------------------------------------------------ sizes (000) ----
@lru_cache(maxsize=None)
def _published_000(t: str) -> dict[int, dict[str, float]]:
    out: dict[int, dict[str, float]] = {}
    for r in find(document="000", transport=t, table=_000[t]):
        out.setdefault(r.size_bytes, {})[r.metric] = r.value
    for d in out.values():
        d["tot_cpusec_per_mb"] = 1 / d["mb_per_cpusec"]
        d["v_cpusec_per_mb"] = d["tot_cpusec_per_mb"] - d["cp_cpusec_per_mb"]
    return out


def _predict(t: str, keep: tuple[int, ...], size: float) -> dict[str, float]:
    """The model's curve of ``t`` built from the sizes ``keep`` only, at ``size``."""
    drop = tuple(int(s) for s in size_curve(t).sizes if int(s) not in keep)
    values, _ = size_curve(t, drop).evaluate_one(float(size))
    return {m: values[m] for m in SIZE_METRICS}


def _size_error(t: str, keep: tuple[int, ...], size: int, m: str) -> float:
    return float(np.log(_published_000(t)[size][m] / _predict(t, keep, size)[m]))


@lru_cache(maxsize=None)
def _size_groups(key: str, m: str) -> tuple[tuple[str, tuple[float, ...]], ...]:
    cms = size_curve("CMS_IUCV").sizes.astype(int)
    lo, mid, hi = LINUX_SIZES
    if key == "size_dense":
        return tuple((f"CMS_IUCV {s}", (_size_error("CMS_IUCV", tuple(int(x) for x in cms
                                                                      if x != s), s, m),))
                     for s in cms[1:-1])
    groups = []
    for t in ("CMS_IUCV", "IUCV", "VCTC"):
        if key == "size_sparse":
            es = [_size_error(t, (lo, hi), mid, m)]
            if t == "CMS_IUCV":
                es += [_size_error(t, LINUX_SIZES, int(s), m) for s in cms if lo < s < hi
                       and s != mid]
        elif key == "size_low":
            es = [_size_error(t, (mid, hi), lo, m)]
            if t == "CMS_IUCV":
                es += [_size_error(t, LINUX_SIZES, int(s), m) for s in cms if 576 <= s < lo]
        else:  # size_whatif
            es = [_size_error(t, (lo, mid), hi, m)]
            if t == "CMS_IUCV":
                es += [_size_error(t, LINUX_SIZES, int(s), m) for s in cms
                       if hi < s <= WHATIF_TOP]
        groups.append((t, tuple(es)))
    return tuple(groups)


@lru_cache(maxsize=None)
def ratio_evidence(m: str) -> tuple[tuple[int, float], ...]:
    """(size, ln(lower bound / projection)) for the IUCV what-if at CMS IUCV's measured sizes
    in (32764, 2 MB]: 000's Linux/CMS ratio for ``m`` (Table 5 for CP CPU/MB, Table 4 for MB
    per CPU-second and so total CPU/MB) moves monotonically against the Linux driver from
    1500 to 32764, so holding it at its 32764 value bounds the Linux figure; only a bound
    above the projection constrains it (empty for other metrics).

    >>> round(float(np.exp(-max(e for _, e in ratio_evidence("cp_cpusec_per_mb")))), 3)
    0.934
    """
    if m not in RATIO_TABLES:
        return ()
    base = "cp_cpusec_per_mb" if m == "cp_cpusec_per_mb" else "mb_per_cpusec"
    ratio = find(document="000", table=RATIO_TABLES[m], size_bytes=LINUX_SIZES[-1],
                 column="Linux/IUCV (fraction of CMS/IUCV)")[0].value
    cms = _published_000("CMS_IUCV")
    out = []
    for s in sorted(cms):
        if LINUX_SIZES[-1] < s <= WHATIF_TOP:
            bound = ratio * cms[s][base]
            if m == "tot_cpusec_per_mb":
                bound = 1 / bound
            proj = size_curve("IUCV").evaluate_one(float(s))[0][m]
            # CP and total: truth >= bound; MB per CPU-s: truth <= bound
            e = float(np.log(bound / proj))
            if (e > 0) if m != "mb_per_cpusec" else (e < 0):
                out.append((int(s), e))
    return tuple(out)


# ------------------------------------------------------------ per transaction (003) ----
def _series(t: str):
    """(workload, level, grid) of every 003 workload and level of device ``t``."""
    for w in ("RR", "CRR", "STRG"):
        levels = sorted({r.level for r in find(document="003", transport=t, workload=w,
                                               stat="value")})
        for lvl in levels:
            yield w, lvl, conn_grid(t, w, lvl)


def _bad(t, w, mtus, lvl, conns) -> bool:
    bad = outlier_runs()
    return any((t, w, int(u), lvl, int(c)) in bad for u in mtus for c in conns)


@lru_cache(maxsize=None)
def _conn_groups(key: str, m: str, t: str):
    groups = []
    for w, lvl, grid in _series(t):
        if m not in grid.values:
            continue
        for mtu in grid.mtus:
            cs = grid.conns[mtu]
            if _bad(t, w, (mtu,), lvl, cs):  # a series holding a flagged outlier run
                continue
            y = grid.values[m][mtu]
            if key == "conn_flat":
                es = (float(np.log(y[-1] / y[-2])),)
            else:
                es = []
                for j in range(1, len(cs) - 1):
                    keep = np.arange(len(cs)) != j
                    pred = np.exp(pchip(np.log(cs[keep]), np.log(y[keep]), np.log(cs[j])))
                    es.append(float(np.log(y[j] / pred)))
                es = tuple(es)
            groups.append((f"{w} MTU {mtu:g} {lvl}", es))
    return tuple(groups)


@lru_cache(maxsize=None)
def _mtu_groups(key: str, m: str, workload: str | None = None):
    t = "HIPERSOCKETS"
    groups = []
    for w, lvl, grid in _series(t):
        if m not in grid.values:
            continue
        mt = grid.mtus
        for k, c in enumerate(grid.conns[mt[0]]):
            if _bad(t, w, mt, lvl, (c,)):
                continue
            y = np.array([grid.values[m][u][k] for u in mt])
            es = []
            if key == "mtu_below":
                if w != workload:
                    continue
                slope = np.log(y[2] / y[1]) / np.log(mt[2] / mt[1])
                es.append(float(np.log(y[0] / (y[1] * (mt[0] / mt[1]) ** slope))))
            for j in range(1, len(mt) - 1) if key != "mtu_below" else ():
                keep = (np.arange(len(mt)) != j if key == "mtu_interp" else
                        isin(np.arange(len(mt)), (0, len(mt) - 1)))
                pred = np.exp(pchip(np.log(mt[keep]), np.log(y[keep]), np.log(mt[j])))
                es.append(float(np.log(y[j] / pred)))
            groups.append((f"{w} {lvl} {c:g} connections", tuple(es)))
    return tuple(groups)


# ---------------------------------------------------------------------- rules ----
SIZE_RULES = ("size_dense", "size_sparse", "size_low", "size_whatif")
CONN_RULES = ("conn_interp", "conn_flat")
MTU_RULES = ("mtu_interp", "mtu_two_point")
BELOW_RULE = "mtu_below"


@lru_cache(maxsize=None)
def rule(key: str, metric: str, transport: str | None = None) -> BandRule:
    """The band rule ``key`` for ``metric`` (and, for the connection rules, the 003 device in
    ``transport``; for ``mtu_below``, the workload there).

    >>> r = rule("size_sparse", "v_cpusec_per_mb")
    >>> r.held, r.tested
    (7, 8)
    """
    if key in SIZE_RULES:
        scope = {"size_dense": "CMS_IUCV", "size_whatif": "IUCV beyond 32764"}.get(
            key, "IUCV and VCTC")
        floor, why = 0.0, ""
        if key == "size_whatif":
            ev = ratio_evidence(metric)
            if ev:
                floor = max(abs(e) for _, e in ev)
                s, e = max(ev, key=lambda x: abs(x[1]))
                why = (f"never narrower than 000 {RATIO_TABLES[metric]}'s Linux/CMS IUCV ratio "
                       f"held at its 32764 value (it moves against the Linux driver from 1500 "
                       f"to 32764), which puts the figure at {s:,} bytes {abs(np.expm1(e)) * 100:.1f}% "
                       f"{'above' if e > 0 else 'below'} the projection")
        return BandRule(key, metric, scope, _size_groups(key, metric), floor, why)
    if key in CONN_RULES:
        return BandRule(key, metric, f"every 003 {transport} workload, MTU and level",
                        _conn_groups(key, metric, transport))
    if key in MTU_RULES:
        scope = ("HiperSockets, every workload, level and connection count" if key ==
                 "mtu_interp" else "HiperSockets rows, applied to OSA GbE")
        return BandRule(key, metric, scope, _mtu_groups(key, metric))
    if key == BELOW_RULE:  # transport: the workload (the MTU's effect differs by workload)
        return BandRule(key, metric, f"HiperSockets {transport}, every level and connection "
                        "count", _mtu_groups(key, metric, transport))
    raise KeyError(key)


def all_rules() -> list[BandRule]:
    """Every band rule the model applies, for the coverage table and its test."""
    out = [rule(k, m) for k in SIZE_RULES for m in SIZE_METRICS]
    out += [rule(k, m, t) for k in CONN_RULES for t in ("OSA_GBE", "HIPERSOCKETS")
            for m in TX_METRICS]
    out += [rule(k, m) for k in MTU_RULES for m in TX_METRICS]
    out += [rule(BELOW_RULE, m, w) for w in ("RR", "CRR", "STRG") for m in TX_METRICS]
    return [r for r in out if r.tested]

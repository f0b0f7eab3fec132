"""Projection over one dimension at a time: transfer size / MTU, and connections.

:class:`SizeCurve` projects per-MB streaming metrics of one transport over the
transfer size (000 Tables 1-3). :class:`ConnGrid` projects per-transaction
metrics over MTU and concurrent connections (003, 002).

Methods (stated once, quoted by every answer):

* **size, between measured sizes** -- CP and virtual CPU per MB are each
  PCHIP-interpolated in log-log (a power law between neighbours, which is what the
  per-message cost gives), so they pass through every measured point, stay
  monotone wherever the data are and never overshoot; total = CP + virtual;
  CPU-s/s is PCHIP-interpolated in log size.
* **size, outside the measured sizes** -- CP and virtual CPU per MB each follow the
  per-byte + per-message cost fit, scaled to meet the nearest measured point;
  CPU-s/s is held at the nearest measured value; MB/s = CPU-s/s / CPU-s per MB.
* **connections** -- PCHIP in log-log between measured counts; beyond the largest
  measured count every metric, totals included, is the value at that count (held
  flat: the Linux data still improve with load up to there, 003 and 004's Linux
  section, so CPU/tx held flat is conservative); below the smallest refused.
* **MTU (per transaction)** -- PCHIP in log-log between measured MTUs; outside refused.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .errors import NoDataError, OutOfRangeError
from .interp import CostFit, pchip
from .setops import isin

SIZE_METHOD_IN = ("size interpolation: CP and virtual CPU/MB by monotone PCHIP in log-log "
                  "through every measured point; total = CP + virtual")
SIZE_METHOD_OUT = ("size extrapolation: CP and virtual CPU/MB follow the per-byte + per-message "
                   "cost fit, scaled to the nearest measured point; CPU-s/s held at the nearest "
                   "measured value")
CONN_METHOD_IN = "connections: PCHIP interpolation in log-log between measured counts"
CONN_METHOD_OUT = ("connections: every metric held at the largest measured count; the Linux "
                   "QDIO figures still improve with load up to there (003 Tables 2-19, 004 "
                   "Linux measurements), so CPU/tx held flat is conservative and tx/s is not "
                   "projected beyond the largest measured load")
MTU_METHOD_IN = "MTU: PCHIP interpolation in log-log between measured MTUs"

M_IN, M_INTERP, M_EXTRAP = 0, 1, 2
BASIS_NAMES = ("measured", "interpolated", "extrapolated")


@dataclass
class SizeCurve:
    """Per-MB streaming metrics of one transport against transfer size (bytes)."""
    transport: str
    sizes: np.ndarray            # measured sizes, increasing
    tot: np.ndarray              # total CPU-s/MB at each size (1 / MB per CPU-s)
    cp: np.ndarray               # CP CPU-s/MB at each size, as published
    cpusec_per_sec: np.ndarray   # CPU-s/s at each size
    valid: tuple[float, float]   # sizes the sources support
    valid_reason: str
    cp_fit: CostFit = field(init=False)
    v_fit: CostFit = field(init=False)

    def __post_init__(self):
        cp = self.cp
        v = self.tot - cp
        self.cp_fit = CostFit.fit(self.sizes, cp)
        self.v_fit = CostFit.fit(self.sizes, v)
        self._cp, self._v = cp, v
        self._logs = np.log(self.sizes)
        self._log_cp = np.log(cp)
        self._log_v = np.log(v)

    def check(self, sizes: np.ndarray) -> np.ndarray:
        """Boolean mask of sizes the sources support."""
        return (sizes >= self.valid[0]) & (sizes <= self.valid[1])

    def range_error(self, size: float) -> OutOfRangeError:
        return OutOfRangeError(
            f"{self.transport}: size {size:g} bytes is outside {self.valid[0]:g} .. "
            f"{self.valid[1]:g} bytes ({self.valid_reason})")

    def evaluate(self, sizes: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Metrics at ``sizes`` (all within :attr:`valid`) and a basis code per size."""
        s = np.asarray(sizes, float)
        ls = np.log(s)
        lo, hi = self.sizes[0], self.sizes[-1]
        inside = (s >= lo) & (s <= hi)
        tot = np.empty_like(s)
        pct = np.empty_like(s)
        cps = np.empty_like(s)
        if inside.any():
            si = s[inside]
            cp = np.exp(pchip(self._logs, self._log_cp, ls[inside]))
            v = np.exp(pchip(self._logs, self._log_v, ls[inside]))
            tot[inside] = cp + v
            pct[inside] = 100 * cp / (cp + v)
            cps[inside] = pchip(self._logs, self.cpusec_per_sec, ls[inside])
        out = ~inside
        if out.any():
            so = s[out]
            end = np.where(so < lo, 0, len(self.sizes) - 1)
            send = self.sizes[end]
            cp = self.cp_fit(so) * self._cp[end] / self.cp_fit(send)
            v = self.v_fit(so) * self._v[end] / self.v_fit(send)
            tot[out] = cp + v
            pct[out] = 100 * cp / (cp + v)
            cps[out] = self.cpusec_per_sec[end]
        basis = np.where(inside, M_INTERP, M_EXTRAP)
        basis[isin(s, self.sizes)] = M_IN
        cp = tot * pct / 100
        return ({"tot_cpusec_per_mb": tot, "pct_cp": pct, "cpusec_per_sec": cps,
                 "cp_cpusec_per_mb": cp, "v_cpusec_per_mb": tot - cp,
                 "mb_per_cpusec": 1 / tot, "mb_per_sec": cps / tot}, basis)

    def evaluate_one(self, size: float) -> tuple[dict[str, float], int]:
        """:meth:`evaluate` at one size (within :attr:`valid`), as floats and one basis
        code: the same operations on the same numbers (the logarithms and exponentials
        by numpy on one-element arrays, as there), so the same floats bit for bit, with
        a handful of numpy calls instead of evaluate's masks (``tests/test_interp_exact``
        compares the two at every measured size and between)."""
        s = float(size)
        lo, hi = float(self.sizes[0]), float(self.sizes[-1])
        if not (math.isfinite(s) and s > 0):
            values, basis = self.evaluate(np.array([s]))
            return {m: float(v[0]) for m, v in values.items()}, int(basis[0])
        if lo <= s <= hi:
            ls = np.log(np.array([s]))
            cp = float(np.exp(pchip(self._logs, self._log_cp, ls))[0])
            v = float(np.exp(pchip(self._logs, self._log_v, ls))[0])
            cps = float(pchip(self._logs, self.cpusec_per_sec, ls)[0])
            code = M_IN if s in self.sizes.tolist() else M_INTERP
        else:
            end = 0 if s < lo else len(self.sizes) - 1
            send = float(self.sizes[end])
            cp = (self.cp_fit.per_byte + self.cp_fit.per_message / s) * float(self._cp[end]) \
                / (self.cp_fit.per_byte + self.cp_fit.per_message / send)
            v = (self.v_fit.per_byte + self.v_fit.per_message / s) * float(self._v[end]) \
                / (self.v_fit.per_byte + self.v_fit.per_message / send)
            cps = float(self.cpusec_per_sec[end])
            code = M_EXTRAP
        tot = cp + v
        if not tot:  # numpy's division by zero (inf) is the array path's answer
            values, basis = self.evaluate(np.array([s]))
            return {m: float(x[0]) for m, x in values.items()}, int(basis[0])
        pct = 100 * cp / (cp + v)
        cp = tot * pct / 100
        return ({"tot_cpusec_per_mb": tot, "pct_cp": pct, "cpusec_per_sec": cps,
                 "cp_cpusec_per_mb": cp, "v_cpusec_per_mb": tot - cp,
                 "mb_per_cpusec": 1 / tot, "mb_per_sec": cps / tot}, code)


@dataclass
class ConnGrid:
    """Per-transaction metrics over (MTU, connections) for one transport, workload, level."""
    transport: str
    workload: str
    mtus: np.ndarray                       # measured MTUs, increasing
    conns: dict[float, np.ndarray]         # mtu -> measured connection counts, increasing
    values: dict[str, dict[float, np.ndarray]]  # metric -> mtu -> values at conns

    def metrics(self) -> tuple[str, ...]:
        return tuple(self.values)

    def largest_conns(self) -> float:
        """The largest connection count measured at every MTU: held flat beyond it."""
        return self._conn_span[1]

    @cached_property
    def _conn_span(self) -> tuple:
        """(the smallest count measured at every MTU, the largest), worked out once."""
        return (max(c[0] for c in self.conns.values()),
                float(min(c[-1] for c in self.conns.values())))

    def check(self, mtu: float, conns: float):
        if not (self.mtus[0] <= mtu <= self.mtus[-1]):
            meas = ", ".join(f"{m:g}" for m in self.mtus)
            raise OutOfRangeError(
                f"{self.transport} {self.workload}: MTU {mtu:g} is outside the measured MTUs "
                f"({meas}); the sources give no basis to project per-transaction figures beyond them")
        if conns < 1 or conns != int(conns):
            raise OutOfRangeError(f"connections must be a whole number >= 1; got {conns:g}")
        cmin = self._conn_span[0]
        if conns < cmin:
            raise NoDataError(
                f"{self.transport} {self.workload}: measured only at {cmin:g} or more concurrent "
                f"connections; no basis for {conns:g}")

    @cached_property
    def _lists(self) -> tuple:
        """The grid as Python lists for :meth:`evaluate`: the measured MTUs, and per MTU
        its counts, their logarithms and each metric's values and their logarithms (the
        same numpy logarithms evaluate took on every call)."""
        mtus = self.mtus.tolist()
        rows = {m: (self.conns[m].tolist(), np.log(self.conns[m]),
                    {met: (by_mtu[m].tolist(), np.log(by_mtu[m]))
                     for met, by_mtu in self.values.items() if m in by_mtu}) for m in mtus}
        return mtus, rows, np.log(self.mtus)

    def evaluate(self, metric: str, mtu: float, conns: float) -> tuple[float, int, int]:
        """Value, MTU basis code and connections basis code at one (MTU, connections)."""
        mtus, rows, log_mtus = self._lists
        vals = []
        cbasis = M_IN
        for m in mtus:
            c, log_c, by_metric = rows[m]
            y, log_y = by_metric[metric]
            if conns in c:
                vals.append(y[c.index(conns)])
            elif conns > c[-1]:
                vals.append(y[-1])
                cbasis = M_EXTRAP
            else:
                vals.append(float(np.exp(pchip(log_c, log_y, np.log(conns)))))
                cbasis = max(cbasis, M_INTERP)
        if mtu in mtus:
            return vals[mtus.index(mtu)], M_IN, cbasis
        value = float(np.exp(pchip(log_mtus, np.log(vals), np.log(mtu))))
        return value, M_INTERP, cbasis

    def evaluate_many(self, metric: str, mtu: np.ndarray, conns: np.ndarray) -> np.ndarray:
        """:meth:`evaluate` over arrays (already checked), in one vectorised pass:
        exactly the published value at measured points."""
        rows = []
        for m in self.mtus:  # a handful of measured MTUs; vectorised over the queries
            c, y = self.conns[m], self.values[metric][m]
            k = np.clip(np.searchsorted(c, conns), 0, len(c) - 1)
            exact = c[k] == conns
            between = (conns > c[0]) & (conns < c[-1]) & ~exact
            row = np.where(conns > c[-1], y[-1], np.nan)
            if between.any():
                row[between] = np.exp(pchip(np.log(c), np.log(y), np.log(conns[between])))
            row[exact] = y[k[exact]]
            rows.append(row)
        table = np.array(rows)  # (measured MTUs, queries)
        j = np.clip(np.searchsorted(self.mtus, mtu), 0, len(self.mtus) - 1)
        on_grid = self.mtus[j] == mtu
        out = np.empty(len(mtu))
        cols = np.arange(len(mtu))
        out[on_grid] = table[j[on_grid], cols[on_grid]]
        off = ~on_grid
        if off.any():
            out[off] = np.exp(pchip(np.log(self.mtus), np.log(table[:, off]), np.log(mtu[off])))
        return out

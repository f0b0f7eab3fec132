"""Answers that explain themselves.

Every value zvmplan returns carries its *basis*, one of :data:`BASES`, the source
references it rests on and the method that produced it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import ZvmplanError

#: The basis labels, each defined once.
BASES = {
    "measured": "a number printed in the source, returned as published",
    "derived": "computed by a stated formula from numbers printed for this very configuration "
               "(e.g. per-MB from per-transaction and the workload's MB per transaction)",
    "interpolated": "between measured points, by monotone piecewise-cubic (PCHIP) interpolation "
                    "that passes through every measured point",
    "extrapolated": "outside the measured points but inside the range the sources support, by "
                    "the stated projection (cost fit for size/MTU, held flat for connections)",
    "carried": "a z/VM level for which the sources report no change for this transport: the "
               "value of the latest earlier level is carried forward unchanged",
    "level-adjusted": "a measured or projected value moved to another z/VM level by an effect "
                      "the sources measured for this transport",
}
#: Order of precedence when combining bases: the weakest basis wins.
_RANK = {b: i for i, b in enumerate(
    ["measured", "derived", "interpolated", "carried", "level-adjusted", "extrapolated"])}


def weakest(*bases: str) -> str:
    return max(bases, key=_RANK.__getitem__)


@dataclass(frozen=True)
class Answer:
    """A value with its unit, basis, source references, method and notes."""
    value: float
    unit: str
    basis: str
    sources: tuple[str, ...] = ()
    method: str = ""
    notes: tuple[str, ...] = ()
    interval: tuple[float, float] | None = None  # 95% confidence interval, where samples exist
    processor: str = ""  # the measured machine the value rests on (zvmplan.hardware)
    #: how sure the value is, relative: the band is value x (1 + low) .. value x (1 + high);
    #: None where no band can be derived (band_rule says why)
    rel_band: tuple[float, float] | None = None
    band_rule: tuple[str, ...] = ()

    def bounds(self) -> tuple[float, float]:
        """The band (low, high) in the answer's unit; :class:`NoDataError` where none."""
        if self.rel_band is None:
            from .errors import NoDataError
            raise NoDataError("no band for this answer: " + ("; ".join(self.band_rule) or
                                                              "no rule applies"))
        lo, hi = self.rel_band
        return self.value * (1 + lo), self.value * (1 + hi)

    def __float__(self):
        return float(self.value)

    def explain(self) -> str:
        """One paragraph: basis, method, sources and notes."""
        parts = [f"{self.basis}"]
        if self.method:
            parts.append(self.method)
        if self.sources:
            parts.append("source: " + "; ".join(self.sources))
        if self.interval:
            parts.append(f"95% CI {self.interval[0]:.6g} .. {self.interval[1]:.6g} {self.unit}")
        parts.extend(self.notes)
        if self.processor:
            parts.append(self.processor)
        return ". ".join(p.rstrip(".") for p in parts) + "."


def compose(*bands):
    """Relative bands of factors multiplied together (None if any is None)."""
    if any(b is None for b in bands):
        return None
    lo = hi = 1.0
    for b_lo, b_hi in bands:
        lo *= 1 + b_lo
        hi *= 1 + b_hi
    return lo - 1, hi - 1


def inverse(band):
    """Relative band of 1 / x from that of x."""
    return None if band is None else (1 / (1 + band[1]) - 1, 1 / (1 + band[0]) - 1)


@dataclass(frozen=True)
class Pair:
    """A (low, high) answer that explains itself: a confidence interval, a band, a range.
    Unpacks as ``low, high``; a worksheet shows it as two cells across."""
    low: float
    high: float
    unit: str
    basis: str
    sources: tuple[str, ...] = ()
    method: str = ""
    notes: tuple[str, ...] = ()

    def __iter__(self):
        return iter((self.low, self.high))

    def to_excel(self):
        return np.array([[self.low, self.high]], dtype=object)

    def explain(self) -> str:
        parts = [self.basis] + ([self.method] if self.method else [])
        if self.sources:
            parts.append("source: " + "; ".join(self.sources))
        parts.extend(self.notes)
        return ". ".join(p.rstrip(".") for p in parts) + "."


@dataclass
class Many:
    """Results of a vectorised call: values (NaN where refused) and the refusals by index."""
    values: np.ndarray
    errors: dict[int, Exception] = field(default_factory=dict)


def many_of(fn, xs) -> Many:
    """``fn`` (returning an :class:`Answer`) over ``xs`` one by one, as a :class:`Many`:
    each distinct argument computed once, each refusal kept by index."""
    values = np.full(len(xs), np.nan)
    errors = {}
    cache = {}
    for i, x in enumerate(xs):
        key = tuple(np.atleast_1d(x))
        try:
            if key not in cache:
                cache[key] = fn(x).value
            values[i] = cache[key]
        except ZvmplanError as exc:
            errors[i] = exc
    return Many(values, errors)

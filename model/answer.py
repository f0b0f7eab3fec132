"""Answers that explain themselves.

Every value zvmplan returns carries its *basis*, one of :data:`BASES`, the source
references it rests on and the method that produced it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

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
    band: tuple[float, float] | None = None  # how sure the value is (zvmplan.bands)

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

"""How sure an answer is: the band rules every source family shares, and :func:`band`.

Each family adds its own rule where it projects (:mod:`zvmplan.streaming` over 000's sizes,
:mod:`zvmplan.transactions` over 003's connection counts and MTUs, both from the pooled rules
of :mod:`zvmplan.coverage` with their measured coverage; :mod:`zvmplan.ftp`: 001's confidence
intervals). docs/method.md, "Bands", explains them.
"""
from __future__ import annotations

from .answer import Answer, Pair


BAND_ROUNDING = "band: the published rounding (half a unit in the last printed digit)"
BAND_CI = "band: 001's 95% confidence interval on the mean of 4 samples"
BAND_LEVEL = ("the band does not cover the level step itself (a carried or level-adjusted "
              "value is as sure as the measurement it rests on only if the step holds)")
BAND_PRODUCT = ("the two bands are multiplied as factors; the coverage of the product is not "
                "measured separately")
BAND_SPEED = "the band does not cover the speed factor's own uncertainty"


def rounding_band(rec) -> tuple[float, float]:
    q = rec.half_ulp / abs(rec.value)
    return -q, q


# --------------------------------------------------------------------- bands ----
def band(fn, *args, **kwargs) -> Pair:
    """How sure an answer is: its band (low, high), by the rule its basis states.

    ``fn`` is :func:`per_mb` or :func:`per_tx` (called with the arguments given) or an
    :class:`Answer`. Rules: a measured point, its printed rounding; a figure computed from
    printed numbers, that rounding propagated; 001's figures, its 95% confidence intervals;
    an interpolated or extrapolated value, value / k .. value x k with k the largest error of
    the same method pooled across series (and, for sizes, transports), each rule stating the
    coverage it was measured to have out of sample (:mod:`zvmplan.coverage`). Level steps and
    the speed factor scale the band but add nothing to it.

    >>> from zvmplan import per_mb
    >>> lo, hi = band(per_mb, "IUCV", 9000, "cp_cpusec_per_mb")
    >>> round(lo, 7), round(hi, 7)
    (0.0123665, 0.0123675)
    """
    ans = fn if isinstance(fn, Answer) else fn(*args, **kwargs)
    lo, hi = ans.bounds()
    return Pair(lo, hi, ans.unit, "band", ans.sources, "; ".join(ans.band_rule))

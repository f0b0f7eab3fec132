"""000: streaming per-MB figures of CMS IUCV, IUCV and virtual CTC by transfer size / MTU.

Measured rows come back as published, the CPU totals derived from them by formula, and other
sizes from :class:`zvmplan.curves.SizeCurve` with a band of :mod:`zvmplan.coverage`.
"""
from __future__ import annotations

from functools import lru_cache

from . import coverage, names
from .answer import Answer, inverse
from .bands import BAND_ROUNDING, rounding_band
from .curves import BASIS_NAMES, M_EXTRAP, M_IN, SIZE_METHOD_IN, SIZE_METHOD_OUT
from .data import one
from .tables import TABLE_000, published_record, size_curve


def stream_answer(t: str, s: float, m: str) -> Answer:
    curve = size_curve(t)
    if not curve.valid[0] <= s <= curve.valid[1]:  # curve.check, for one size
        raise curve.range_error(s)
    unit = names.UNITS[m]
    rec = published_record(document="000", transport=t, size_bytes=int(s), metric=m) \
        if s == int(s) and s in curve.sizes else None
    if rec is not None and rec.table in (TABLE_000[t], "Table 6"):
        return Answer(rec.value, unit, "measured", (rec.ref,), rel_band=rounding_band(rec),
                      band_rule=(BAND_ROUNDING,))
    values, code = curve.evaluate_one(s)
    table = f"000 {TABLE_000[t]}"
    if code == M_IN:
        how = {"tot_cpusec_per_mb": "1 / (MB/CPU-sec)",
               "v_cpusec_per_mb": "1 / (MB/CPU-sec) - CP CPU-sec/MB"}[m]
        eff = one(document="000", transport=t, table=TABLE_000[t], size_bytes=int(s),
                  metric="mb_per_cpusec")
        tot_band = inverse(rounding_band(eff))
        value = values[m]
        if m == "tot_cpusec_per_mb":
            rel = tot_band
        else:
            cp = one(document="000", transport=t, table=TABLE_000[t], size_bytes=int(s),
                     metric="cp_cpusec_per_mb")
            tot = value + cp.value
            rel = ((tot * (1 + tot_band[0]) - cp.value - cp.half_ulp) / value - 1,
                   (tot * (1 + tot_band[1]) - cp.value + cp.half_ulp) / value - 1)
        return Answer(value, unit, "derived", (f"{table}, size {s:g}",),
                      f"computed as {how} from the published row", rel_band=rel,
                      band_rule=(BAND_ROUNDING + ", propagated through the formula",))
    method = SIZE_METHOD_IN if code == 1 else SIZE_METHOD_OUT
    notes = ()
    if code == M_EXTRAP and t != "CMS_IUCV" and s > curve.sizes[-1]:
        notes = ("a what-if: the Linux line drivers measured accepted MTUs up to 32764 bytes",)
    sources = (f"{table} (all sizes)",) + (
        ("cost fit per transport: python scripts/projection_report.py",) if code == M_EXTRAP else ())
    rel, rule = _size_band(t, m, code, s > curve.sizes[-1])
    return Answer(values[m], unit, BASIS_NAMES[code], sources, method, notes,
                  rel_band=rel, band_rule=(rule,))


@lru_cache(maxsize=None)
def _size_band(t: str, m: str, code: int, above: bool):
    """(relative band, rule text) of a projected 000 size, by :mod:`zvmplan.coverage`."""
    if t == "CMS_IUCV":
        key = "size_dense"
    elif code != M_EXTRAP:
        key = "size_sparse"
    else:
        key = "size_whatif" if above else "size_low"
    r = coverage.rule(key, m)
    return r.rel_band, r.text()

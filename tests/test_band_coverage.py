"""Bands that hold out of sample (issue 17, section 3).

Every band rule of a projected answer states the coverage it was measured to have on data it
was not built from (``zvmplan.coverage``). These tests measure it again, independently: the
held-out predictions through the model's own grids and curves (``ConnGrid.evaluate``,
``SizeCurve.evaluate`` with points dropped), each group left out in turn, the band rebuilt
from the rest, and the count compared with what the rule text states.
"""
import re

import numpy as np
import pytest

import zvmplan
from zvmplan import coverage
from zvmplan.api import conn_grid, outlier_runs, size_curve
from zvmplan.curves import ConnGrid
from zvmplan.data import find

STATED = re.compile(r"held (\d+) of (\d+) \((\d+)%\)")


def _logo(groups):
    """Leave one group out: (held, tested) of symmetric-in-ratio bands rebuilt from the rest."""
    held = tested = 0
    for g, es in groups.items():
        rest = [abs(e) for h, other in groups.items() if h != g for e in other]
        w = max(rest) if rest else 0.0
        held += sum(abs(e) <= w + 1e-12 for e in es)
        tested += len(es)
    return held, tested


def _conn_groups(t, m, kind):
    bad = outlier_runs()
    groups = {}
    for w in ("RR", "CRR", "STRG"):
        for lvl in ("4.3.0", "4.4.0"):
            full = conn_grid(t, w, lvl)
            if m not in full.values:
                continue
            for mtu in full.mtus:
                cs = [int(c) for c in full.conns[mtu]]
                if any((t, w, int(mtu), lvl, c) in bad for c in cs):
                    continue
                held_out = cs[-1:] if kind == "conn_flat" else cs[1:-1]
                es = []
                for c in held_out:
                    pred, _, _ = conn_grid(t, w, lvl, drop_conns=(c,)).evaluate(m, mtu, c)
                    es.append(np.log(full.values[m][mtu][cs.index(c)] / pred))
                groups[(w, lvl, mtu)] = es
    return groups


def _mtu_groups(m, kind):
    bad = outlier_runs()
    groups = {}
    for w in ("RR", "CRR", "STRG"):
        for lvl in ("4.3.0", "4.4.0"):
            full = conn_grid("HIPERSOCKETS", w, lvl)
            mt = full.mtus
            for k, c in enumerate(full.conns[mt[0]]):
                if any(("HIPERSOCKETS", w, int(u), lvl, int(c)) in bad for u in mt):
                    continue
                es = []
                for j in (1, 2):
                    keep = [u for i, u in enumerate(mt) if (i != j if kind == "mtu_interp"
                                                            else i in (0, len(mt) - 1))]
                    sub = ConnGrid("HIPERSOCKETS", w, np.array(keep),
                                   {u: full.conns[u] for u in keep},
                                   {m: {u: full.values[m][u] for u in keep}})
                    pred, _, _ = sub.evaluate(m, mt[j], c)
                    es.append(np.log(full.values[m][mt[j]][k] / pred))
                groups[(w, lvl, c)] = es
    return groups


def _published(t, s, m):
    table = {"CMS_IUCV": "Table 1", "IUCV": "Table 2", "VCTC": "Table 3"}[t]
    rows = {r.metric: r.value for r in find(document="000", table=table, transport=t,
                                            size_bytes=int(s))}
    rows["tot_cpusec_per_mb"] = 1 / rows["mb_per_cpusec"]
    rows["v_cpusec_per_mb"] = rows["tot_cpusec_per_mb"] - rows["cp_cpusec_per_mb"]
    return rows[m]


def _size_pred(t, keep, s, m):
    drop = tuple(int(x) for x in size_curve(t).sizes if int(x) not in keep)
    values, _ = size_curve(t, drop).evaluate(np.array([float(s)]))
    return values[m][0]


def _size_groups(key, m):
    cms = [int(s) for s in size_curve("CMS_IUCV").sizes]
    err = lambda t, keep, s: np.log(_published(t, s, m) / _size_pred(t, keep, s, m))  # noqa
    if key == "size_dense":
        return {s: [err("CMS_IUCV", [x for x in cms if x != s], s)] for s in cms[1:-1]}
    known = {"size_sparse": ((1500, 32764), 9000, lambda s: 1500 < s < 32764 and s != 9000),
             "size_low": ((9000, 32764), 1500, lambda s: 576 <= s < 1500),
             "size_whatif": ((1500, 9000), 32764, lambda s: 32764 < s <= 2_000_000)}
    keep, held_out, cms_extra = known[key]
    groups = {t: [err(t, keep, held_out)] for t in ("CMS_IUCV", "IUCV", "VCTC")}
    groups["CMS_IUCV"] += [err("CMS_IUCV", (1500, 9000, 32764), s) for s in cms if cms_extra(s)]
    return groups


def _below_groups(w, m):
    """8992 predicted from 16384 and 32768 by the model's own short-step extrapolation."""
    from zvmplan import hs_below
    bad = outlier_runs()
    groups = {}
    for lvl in ("4.3.0", "4.4.0"):
        full = conn_grid("HIPERSOCKETS", w, lvl)
        mt = full.mtus
        for k, c in enumerate(full.conns[mt[0]]):
            if any(("HIPERSOCKETS", w, int(u), lvl, int(c)) in bad for u in mt):
                continue
            sub = ConnGrid("HIPERSOCKETS", w, mt[1:], {u: full.conns[u] for u in mt[1:]},
                           {m: {u: full.values[m][u] for u in mt[1:]}})
            pred, basis, _ = hs_below.evaluate(sub, m, float(mt[0]), c)
            assert basis == 2  # extrapolated
            groups[(lvl, c)] = [np.log(full.values[m][mt[0]][k] / pred)]
    return groups


def _measured(r):
    if r.key == coverage.BELOW_RULE:
        return _logo(_below_groups(r.scope.split()[1].rstrip(","), r.metric))
    if r.key in coverage.CONN_RULES:
        return _logo(_conn_groups(r.scope.split()[2], r.metric, r.key))
    if r.key in coverage.MTU_RULES:
        return _logo(_mtu_groups(r.metric, r.key))
    return _logo(_size_groups(r.key, r.metric))


@pytest.mark.parametrize("r", coverage.all_rules(), ids=lambda r: f"{r.key}-{r.metric}-"
                         f"{r.scope.split()[2] if r.key.startswith('conn') else ''}"
                         f"{r.scope.split()[1].rstrip(',') if r.key == 'mtu_below' else ''}")
def test_stated_coverage_is_what_an_independent_count_measures(r):
    """Each rule's text states 'held k of n (p%)': recount k and n out of sample."""
    k, n, pct = map(int, STATED.search(r.text()).groups())
    assert (k, n) == _measured(r)
    assert pct == round(100 * k / n)


def test_pooled_rules_hold_more_than_the_old_ones():
    """Against what the old per-table rules held (next test): connection interpolation 86% ->
    at least 96% per device and metric but one, holding flat 79% -> at least 92%, the OSA MTU
    rule 70% -> 98%, the Linux size band for virtual CPU/MB 1 of 5 -> 7 of 8."""
    def pooled(key):
        rules = [r for r in coverage.all_rules() if r.key == key]
        return sum(r.held for r in rules) / sum(r.tested for r in rules)
    assert pooled("conn_interp") >= 0.97
    assert pooled("conn_flat") >= 0.94
    assert pooled("mtu_two_point") >= 0.97 and pooled("mtu_interp") >= 0.97
    r = coverage.rule("size_sparse", "v_cpusec_per_mb")
    assert (r.held, r.tested) == (7, 8)


def test_old_per_table_rules_did_not_hold_out_of_sample():
    """What issue 17 measured, recounted: the per-(device, workload) one-sided rules (band =
    [min(0, min e), max(0, max e)] of the series of the same device and workload) held 86%
    for connection interpolation and 79% for holding flat, each series left out in turn;
    OSA's two-neighbour MTU rule, tried on HiperSockets (8992, 57344 -> 16384, 32768), held
    70%; the Linux size band rebuilt from CMS IUCV cut to 1500/9000/32764 held 1 of the 5 CMS
    sizes between them for virtual CPU/MB."""
    def one_sided(groups, same):
        held = tested = 0
        for g, es in groups.items():
            rest = [e for h, o in groups.items() if h != g and same(h, g) for e in o]
            lo, hi = min([0.0] + rest), max([0.0] + rest)
            held += sum(lo - 1e-12 <= e <= hi + 1e-12 for e in es)
            tested += len(es)
        return held, tested
    for kind, want in (("conn_interp", 0.86), ("conn_flat", 0.79)):
        held = tested = 0
        for t in ("OSA_GBE", "HIPERSOCKETS"):
            for m in coverage.TX_METRICS:
                h, n = one_sided({(t,) + g: e for g, e in _conn_groups(t, m, kind).items()},
                                 lambda a, b: a[:2] == b[:2])
                held, tested = held + h, tested + n
        assert round(held / tested, 2) == want
    held = tested = 0
    for w in ("RR", "CRR", "STRG"):
        for lvl in ("4.3.0", "4.4.0"):
            full = conn_grid("HIPERSOCKETS", w, lvl)
            mt = full.mtus
            for m in full.values:
                for k in range(len(full.conns[mt[0]])):
                    ends = sorted((full.values[m][mt[0]][k], full.values[m][mt[-1]][k]))
                    for j in (1, 2):
                        held += ends[0] <= full.values[m][mt[j]][k] <= ends[1]
                        tested += 1
    assert round(held / tested, 2) == 0.70
    groups = _size_groups("size_sparse", "v_cpusec_per_mb")
    cut = groups["CMS_IUCV"][1:]  # the 5 CMS sizes between 1500 and 32764
    e9000 = groups["CMS_IUCV"][0]  # the old rule: the one held-out 9000, one-sided
    assert sum(min(0, e9000) <= e <= max(0, e9000) for e in cut) == 1 and len(cut) == 5


def test_bands_are_symmetric_where_the_sign_is_not_known():
    """000 Table 2, IUCV at MTU 16000 (between 9000 and 32764): the old band was -14.2% .. 0,
    resting on one held-out point; the band now spreads both ways around the value."""
    ans = zvmplan.per_mb("IUCV", 16000, "cp_cpusec_per_mb")
    lo, hi = ans.bounds()
    assert lo < ans.value < hi
    assert hi / ans.value == pytest.approx(ans.value / lo)
    assert coverage.rule("size_sparse", "cp_cpusec_per_mb").text() in ans.band_rule


@pytest.mark.parametrize("size", [40000, 80000, 100000, 200000, 400000, 800000, 1000000,
                                  2000000])
def test_iucv_whatif_band_holds_000s_own_evidence(size):
    """IUCV beyond 32764: 000 Table 5's Linux/CMS IUCV CP ratio rises with MTU (1.756, 1.770,
    1.796 at 1500, 9000, 32764); held at 1.796 times CMS IUCV's measured CP CPU/MB at the
    same size (000 Table 1) it lies above the projection (the projection's ratio falls to
    1.678 at 2 MB), and the what-if band must contain it, as it contains what CMS IUCV's own
    curve cut to the three Linux sizes misses at its larger sizes (7-9% for CP)."""
    ans = zvmplan.per_mb("IUCV", size, "cp_cpusec_per_mb")
    lo, hi = ans.bounds()
    cms = _published("CMS_IUCV", size, "cp_cpusec_per_mb")
    assert lo <= 1.796 * cms <= hi
    assert 1.796 * cms > ans.value
    if size == 2000000:
        assert ans.value / cms == pytest.approx(1.678, abs=5e-4)
    cut = _size_pred("CMS_IUCV", (1500, 9000, 32764), size, "cp_cpusec_per_mb")
    assert cut * lo / ans.value <= cms <= cut * hi / ans.value
    assert "Table 5" in ans.band_rule[0]


def test_method_doc_states_the_measured_table():
    """docs/method.md carries the table scripts/band_coverage.py prints, as measured now."""
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("band_coverage",
                                                  root / "scripts" / "band_coverage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.table() in (root / "docs" / "method.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("metric", coverage.SIZE_METRICS)
def test_iucv_whatif_band_holds_cms_iucv_fitted_up_to_32764(metric):
    """Issue 17: CMS IUCV's own curve from every size up to 32764 (000 Table 1), carried by
    the cost fit to its measured sizes 40000 .. 2,000,000, misses them by 3.5-11% for CP
    CPU/MB (under-predicting); the IUCV what-if band (built from the stricter cut to the
    three Linux sizes) is wider than every one of those misses, for every metric."""
    cms = [int(s) for s in size_curve("CMS_IUCV").sizes]
    keep = [s for s in cms if s <= 32764]
    lo, hi = coverage.rule("size_whatif", metric).rel_band
    errs = [_published("CMS_IUCV", s, metric) / _size_pred("CMS_IUCV", keep, s, metric) - 1
            for s in cms if 32764 < s <= 2_000_000]
    assert len(errs) == 8 and all(lo <= e <= hi for e in errs)
    if metric == "cp_cpusec_per_mb":
        assert round(min(errs), 3) == 0.035 and round(max(errs), 3) == 0.110

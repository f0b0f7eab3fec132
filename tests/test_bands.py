"""A band on every number (issue 9, item 4): ZVM_RANGE and zvmplan.band.

Rule (docs/method.md, "Bands"): a measured point, its printed rounding; a figure computed
from printed numbers, that rounding propagated; 001's figures, its 95% confidence intervals;
an interpolated or extrapolated value, value / k .. value x k with k the largest error of the
same method pooled across series and transports (zvmplan.coverage), so the band contains
every held-out published value it was built from; its out-of-sample coverage is measured in
tests/test_band_coverage.py.
"""
import numpy as np
import pytest

import zvmplan
from zvmplan import coverage
from zvmplan.api import conn_grid, outlier_runs, size_curve
from zvmplan.data import find
from zvmplan.errors import NoDataError
from zvmplan_addin.functions import REGISTRY


def test_measured_point_band_is_the_printed_rounding():
    """000 Table 2, MTU 9000: CP CPU-sec/MB printed 0.012367 (half a unit: 5e-7)."""
    lo, hi = zvmplan.band(zvmplan.per_mb, "IUCV", 9000, "cp_cpusec_per_mb")
    assert (lo, hi) == pytest.approx((0.0123665, 0.0123675), abs=1e-12)
    got = REGISTRY["ZVM_RANGE"]("CPCPU_PER_MB", "IUCV", 9000)
    assert got.shape == (1, 2) and list(got[0]) == pytest.approx([0.0123665, 0.0123675])


def test_sampled_band_is_the_confidence_interval():
    """001 Table 1 (LCS, enabled): CP CPU 4/5.91/0.0274 -> the same interval as ZVM_CI."""
    rng = REGISTRY["ZVM_RANGE"]("CPCPU_PER_MB", "LCS", 1500, "4.1.0")
    ci = REGISTRY["ZVM_CI"]("LCS", "cp_cpusec_per_mb", "4.1.0")
    np.testing.assert_allclose(rng.astype(float), ci.astype(float), rtol=1e-12)


def test_derived_band_propagates_the_rounding():
    """000 Table 2, MTU 9000: total CPU/MB = 1 / 34.19 MB/CPU-sec (printed to 0.01)."""
    lo, hi = zvmplan.band(zvmplan.per_mb, "IUCV", 9000, "tot_cpusec_per_mb")
    eff = find(document="000", table="Table 2", size_bytes=9000, metric="mb_per_cpusec")[0]
    assert lo == pytest.approx(1 / (eff.value + eff.half_ulp))
    assert hi == pytest.approx(1 / (eff.value - eff.half_ulp))


@pytest.mark.parametrize("transport", ["CMS_IUCV", "IUCV", "VCTC"])
def test_size_bands_contain_every_held_out_value(transport):
    """Each measured size of 000 Table 1-3 predicted from the others (the ends of IUCV and
    VCTC by the cost fit, as the model extrapolates): the band of the rule the model applies
    there contains the published value (CMS IUCV's ends are never extrapolated: its range is
    its measured range)."""
    curve = size_curve(transport)
    table = {"CMS_IUCV": "Table 1", "IUCV": "Table 2", "VCTC": "Table 3"}[transport]
    sizes = curve.sizes[1:-1] if transport == "CMS_IUCV" else curve.sizes
    for i, s in enumerate(sizes):
        key = ("size_dense" if transport == "CMS_IUCV" else
               {0: "size_low", 1: "size_sparse", 2: "size_whatif"}[i])
        pred, _ = size_curve(transport, drop=(int(s),)).evaluate(np.array([s]))
        rows = {r.metric: r.value for r in find(document="000", table=table,
                                                transport=transport, size_bytes=int(s))}
        rows["tot_cpusec_per_mb"] = 1 / rows["mb_per_cpusec"]
        rows["v_cpusec_per_mb"] = rows["tot_cpusec_per_mb"] - rows["cp_cpusec_per_mb"]
        for m in coverage.SIZE_METRICS:
            lo, hi = coverage.rule(key, m).rel_band
            p = pred[m][0]
            assert p * (1 + lo) - 1e-12 <= rows[m] <= p * (1 + hi) + 1e-12, (m, s)


@pytest.mark.parametrize("transport, workload", [(t, w) for t in ("OSA_GBE", "HIPERSOCKETS")
                                                 for w in ("RR", "CRR", "STRG")])
def test_connection_bands_contain_every_held_out_value(transport, workload):
    """003 Tables 2-19: each interior connection count (10, 20) predicted from the others
    falls inside the band the model states; the series with the flagged outlier run
    (Table 18) is left out of the rule and of this check."""
    bad = outlier_runs()
    for lvl in ("4.3.0", "4.4.0"):
        full = conn_grid(transport, workload, lvl)
        for mtu in full.mtus:
            if any((transport, workload, int(mtu), lvl, int(c)) in bad for c in full.conns[mtu]):
                continue
            for c in (10, 20):
                grid = conn_grid(transport, workload, lvl, drop_conns=(c,))
                for m in full.values:
                    lo, hi = coverage.rule("conn_interp", m, transport).rel_band
                    pred, _, _ = grid.evaluate(m, mtu, c)
                    truth = full.values[m][mtu][list(full.conns[mtu]).index(c)]
                    assert pred * (1 + lo) - 1e-12 <= truth <= pred * (1 + hi) + 1e-12


def test_projected_answers_carry_a_band_around_them():
    for ans in (zvmplan.per_mb("IUCV", 16000, "cp_cpusec_per_mb"),          # size, interpolated
                zvmplan.per_mb("CMS_IUCV", 8_000_000 - 1, "mb_per_sec"),   # between sizes
                zvmplan.per_mb("IUCV", 100_000, "tot_cpusec_per_mb"),      # cost fit beyond
                zvmplan.per_tx("HIPERSOCKETS", "RR", 20000, 15, "tot_cpumsec_per_tx", "4.4.0"),
                zvmplan.per_tx("OSA_GBE", "CRR", 3000, 15, "tx_per_sec", "4.3.0"),
                zvmplan.per_mb("HIPERSOCKETS", 20000, "mb_per_sec", "4.4.0", 1.5)):
        lo, hi = ans.bounds()
        assert lo <= ans.value <= hi and lo < hi, ans
        assert ans.band_rule


def test_held_flat_band_is_symmetric():
    """003 Table 4: OSA RR CP CPU/tx fell 52% from 20 to 50 connections; beyond 50, where
    nothing was measured, the sign of the change is not known, so the band is symmetric in
    ratio: value / k .. value x k, k the largest 20 -> 50 change of any OSA series (x2.119,
    RR MTU 1492 4.3.0: 0.0250 -> 0.0118), not a one-sided bound at the value."""
    ans = zvmplan.per_tx("OSA_GBE", "RR", 1492, 100, "cp_cpumsec_per_tx", "4.4.0")
    lo, hi = ans.bounds()
    assert ans.value == 0.011
    assert hi / ans.value == pytest.approx(ans.value / lo) == pytest.approx(2.119, abs=5e-4)
    assert "held 11 of 12" in ans.band_rule[0]


def test_no_band_where_nothing_can_be_left_out():
    """002 measured Guest LAN at one MTU and 50 connections: beyond them no band exists."""
    with pytest.raises(NoDataError, match="one connection count"):
        zvmplan.band(zvmplan.per_tx, "GUEST_LAN", "RR", 57344, 60, "tx_per_sec")
    assert REGISTRY["ZVM_RANGE"]("TX_PER_SEC", "GUEST_LAN", "RR", 57344, 60) == "#N/A"


def test_zvm_range_refusals():
    assert REGISTRY["ZVM_RANGE"]("ZVM_TRANSPORTS") == "#VALUE!"
    assert REGISTRY["ZVM_RANGE"]("ZVM_PROCESSOR", "IUCV") == "#VALUE!"
    assert REGISTRY["ZVM_RANGE"]("CPCPU_PER_MB", "IUCV", "#N/A") == "#N/A"  # error passes
    assert REGISTRY["ZVM_RANGE"]("CPCPU_PER_MB", "IUCV", 1e9) == "#NUM!"
    assert "measured out of sample" in REGISTRY["ZVM_BASIS"]("ZVM_RANGE", "CPCPU_PER_MB", "IUCV",
                                                               16000)


@pytest.mark.parametrize("workload", ["RR", "CRR", "STRG"])
def test_mtu_bands_contain_every_held_out_value(workload):
    """003 Tables 8-19: HiperSockets MTUs 16384 and 32768 predicted from the other MTUs at
    each connection count and level fall inside the stated MTU band (rows holding the
    flagged outlier run left out)."""
    from zvmplan.interp import pchip
    bad = outlier_runs()
    checked = 0
    for lvl in ("4.3.0", "4.4.0"):
        grid = conn_grid("HIPERSOCKETS", workload, lvl)
        mt = grid.mtus
        for m in grid.values:
            lo, hi = coverage.rule("mtu_interp", m).rel_band
            for k, c in enumerate(grid.conns[mt[0]]):
                if any(("HIPERSOCKETS", workload, int(u), lvl, int(c)) in bad for u in mt):
                    continue
                y = np.array([grid.values[m][u][k] for u in mt])
                for j in (1, 2):
                    keep = np.arange(len(mt)) != j
                    pred = float(np.exp(pchip(np.log(mt[keep]), np.log(y[keep]), np.log(mt[j]))))
                    assert pred * (1 + lo) - 1e-12 <= y[j] <= pred * (1 + hi) + 1e-12
                    checked += 1
    assert checked == 64 - (8 if workload == "STRG" else 0)  # 2 levels x 4 metrics x 4 counts x 2

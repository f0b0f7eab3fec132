"""Honest defaults and consistency (issue 9, item 3). Each test names its source line."""
import numpy as np
import pytest

import zvmplan
from zvmplan.api import outlier_runs
from zvmplan.derived import stack_change, stack_improvement
from zvmplan.errors import NoDataError, OutOfRangeError, UnknownNameError
from zvmplan_addin.functions import REGISTRY


# --------------------------------------------------------- STRG default connections ----
@pytest.mark.parametrize("mtu, conns, tx_per_sec", [(8992, 1, 8.8), (16384, 1, 10.63),
                                                    (32768, 50, 15.206), (57344, 50, 14.974)])
def test_strg_per_mb_defaults_to_the_costliest_measured_count(mtu, conns, tx_per_sec):
    """003 Tables 16-19, z/VM 4.3.0 (x 20 MB per STRG transaction): a blank count takes the
    measured count with the most total CPU per transaction at that MTU (8992: 1 connection,
    182.7 ms; 32768: 50, 97.9 ms), so the blank never understates CPU against a measured
    concurrency; it never lands on Table 18's anomalous 1-connection run (5.927 tx/s, whose
    CPU is the lowest of its row)."""
    ans = zvmplan.per_mb("HIPERSOCKETS", mtu, "mb_per_sec", "4.3.0")
    assert ans.value == pytest.approx(tx_per_sec * 20)
    assert ans.value == zvmplan.per_mb("HIPERSOCKETS", mtu, "mb_per_sec", "4.3.0", None,
                                       conns).value
    assert f"{conns} concurrent connection(s), the default" in ans.explain()
    assert "outlier" not in ans.explain()


@pytest.mark.parametrize("level", ["4.3.0", "4.4.0"])
@pytest.mark.parametrize("mtu", [1492, 5000, 8992])
def test_osa_strg_default_is_a_single_stream_and_never_understates_cpu(mtu, level):
    """003 Tables 6-7: OSA GbE's 1-connection STRG runs cost 1.45-1.91x the 20-connection
    CPU per transaction; the default is the 1-connection figure, at least every other
    measured count's."""
    blank = zvmplan.per_mb("OSA_GBE", mtu, "tot_cpusec_per_mb", level).value
    for c in (1, 10, 20, 50):
        assert blank >= zvmplan.per_mb("OSA_GBE", mtu, "tot_cpusec_per_mb", level, None, c).value
    assert blank == zvmplan.per_mb("OSA_GBE", mtu, "tot_cpusec_per_mb", level, None, 1).value


def test_the_default_is_the_same_through_the_vector_path():
    many = zvmplan.per_mb_many("HIPERSOCKETS", [8992, 20000, 57344], "cp_cpusec_per_mb", "4.4.0")
    one = [zvmplan.per_mb("HIPERSOCKETS", x, "cp_cpusec_per_mb", "4.4.0").value
           for x in (8992, 20000, 57344)]
    np.testing.assert_allclose(many.values, one, rtol=1e-12)


def test_strg_upgrade_gain_at_the_default_is_near_table_1():
    """003 Table 1 prints +6% for HiperSockets STRG tx/s; at the default (50 connections at
    MTU 32768, both levels) the 4.4.0 gain is Table 18's 50-connection +1.37%, not the
    1-connection +175%."""
    old, new = (zvmplan.per_mb("HIPERSOCKETS", 32768, "mb_per_sec", lv).value
                for lv in ("4.3.0", "4.4.0"))
    assert (new / old - 1) * 100 == pytest.approx(15.415 / 15.206 * 100 - 100, abs=1e-9)


def test_guest_lan_default_is_its_only_count():
    """002: 50 connections only."""
    assert zvmplan.per_mb("GUEST_LAN", 57344, "mb_per_sec").value == \
        zvmplan.per_mb("GUEST_LAN", 57344, "mb_per_sec", None, None, 50).value


def test_outlier_runs_are_flagged():
    """Rule (api.outlier_runs): tx/s more than 50% from its series' median while the same
    run at the other level is not. Only 003 Table 18, 1 connection, z/VM 4.3.0 (5.927 tx/s
    against 15.2-16.3 elsewhere) qualifies; OSA's 1-connection STRG runs are low at both
    levels, the workload's shape."""
    assert list(outlier_runs()) == [("HIPERSOCKETS", "STRG", 32768, "4.3.0", 1)]
    flagged = zvmplan.per_mb("HIPERSOCKETS", 32768, "mb_per_sec", "4.3.0", None, 1)
    assert flagged.value == pytest.approx(5.927 * 20) and "outlier run" in flagged.explain()
    near = zvmplan.per_tx("HIPERSOCKETS", "STRG", 30000, 3, "tx_per_sec", "4.3.0")
    assert "outlier run" in near.explain()
    far = zvmplan.per_tx("HIPERSOCKETS", "STRG", 32768, 20, "tx_per_sec", "4.3.0")
    assert "outlier" not in far.explain()


# ------------------------------------------------------- flat beyond 50 connections ----
SERIES = [("OSA_GBE", w, mtu) for w in ("RR", "CRR", "STRG") for mtu in (1492, 8992)] + \
         [("HIPERSOCKETS", w, mtu) for w in ("RR", "CRR", "STRG")
          for mtu in (8992, 12000, 16384, 57344)]


@pytest.mark.parametrize("level", ["4.3.0", "4.4.0"])
@pytest.mark.parametrize("transport, workload, mtu", SERIES)
def test_every_metric_is_flat_beyond_50_connections(transport, workload, mtu, level):
    """003 Tables 2-19 stop at 50 connections; totals too stay at the 50 value (OSA RR 1492
    at 4.4.0 gave 0.046 at 50 and 0.045 at 51 before)."""
    for m in zvmplan.PER_TX_METRICS:
        at50 = zvmplan.per_tx(transport, workload, mtu, 50, m, level).value
        beyond = [zvmplan.per_tx(transport, workload, mtu, c, m, level).value
                  for c in (51, 80, 1000)]
        assert beyond == [at50] * 3, m
        many = zvmplan.per_tx_many(transport, workload, [mtu] * 3, [50, 51, 1000], m, level)
        assert list(many.values) == [at50] * 3, m


def test_flat_cites_the_linux_data():
    text = zvmplan.per_tx("OSA_GBE", "RR", 1492, 51, "tot_cpumsec_per_tx", "4.4.0").explain()
    assert "003 Table 4, 50 connection(s), held flat" in text and "004 Linux" in text


# -------------------------------------------------------------------- levels ----
def test_one_420_rule_for_hipersockets_and_guest_lan():
    """004 z/VM 4.2.0 overview: HiperSockets and Guest LAN arrived in 4.2.0; 004 z/VM 4.3.0
    overview: regression performance equivalent to 4.2.0."""
    hs = zvmplan.per_tx("HIPERSOCKETS", "RR", 8992, 1, "tx_per_sec", "4.2.0")
    assert hs.value == zvmplan.per_tx("HIPERSOCKETS", "RR", 8992, 1, "tx_per_sec", "4.3.0").value
    assert hs.basis == "carried" and "arrived in z/VM 4.2.0" in hs.explain()
    gl = zvmplan.per_tx("GUEST_LAN", "RR", 57344, 50, "tx_per_sec", "4.2.0")
    assert "arrived in z/VM 4.2.0" in gl.explain()
    with pytest.raises(NoDataError):  # OSA GbE was not new in 4.2.0: no rule lets 4.3.0 stand
        zvmplan.per_tx("OSA_GBE", "RR", 1492, 1, "tx_per_sec", "4.2.0")


@pytest.mark.parametrize("transport", ["OSA_GBE", "HIPERSOCKETS"])
def test_qioa_basis_names_the_z990_requirement(transport):
    """003 Introduction: Queued I/O Assist needs a z990 GA1 or later."""
    mtu = 8992
    for ans in (zvmplan.per_tx(transport, "RR", mtu, 10, "tx_per_sec", "4.4.0"),
                zvmplan.per_mb(transport, mtu, "tot_cpusec_per_mb", "4.4.0")):
        assert "z990 GA1 or later" in ans.explain()
    assert "z990 GA1" not in zvmplan.per_tx(transport, "RR", mtu, 10, "tx_per_sec",
                                            "4.3.0").explain()


def test_ci_at_a_carried_level_says_carried():
    """001 measured 4.1.0 (and the 3.1.0 path); at 4.4.0 the interval is carried, not measured."""
    measured = REGISTRY["ZVM_BASIS"]("ZVM_CI", "LCS", "cp_cpusec_per_mb", "4.1.0")
    carried = REGISTRY["ZVM_BASIS"]("ZVM_CI", "LCS", "cp_cpusec_per_mb", "4.4.0")
    assert measured.startswith("measured") and carried.startswith("carried")
    np.testing.assert_array_equal(REGISTRY["ZVM_CI"]("LCS", "cp_cpusec_per_mb", "4.4.0"),
                                  REGISTRY["ZVM_CI"]("LCS", "cp_cpusec_per_mb", "4.1.0"))


# --------------------------------------------------------------- 004 stack ranges ----
@pytest.mark.parametrize("transport, workload, metric, expected", [
    ("HIPERSOCKETS", "RR", "throughput", (26.0, 35.0)),   # 004 Stack Performance Results
    ("GUEST_LAN", "STRG", "throughput", (3.0, 78.0)),
    ("CLAW", "CRR", "throughput", (1.0, 3.0)),
    ("CLAW", "RR", "throughput", (2.0, 2.0)),             # "RR: 2% increase"
    ("VCTC", "STREAM", "throughput", (14.0, 23.0)),       # 004's streaming is STRG
    ("ALL", "RR", "cpu", (-26.0, -10.0)),                 # Stack Performance Improvements
    ("CLAW", "STRG", "cpu", (-45.0, -14.0)),
])
def test_stack_change(transport, workload, metric, expected):
    assert stack_change(transport, workload, metric) == expected
    got = REGISTRY["ZVM_STACK_CHANGE"](transport, workload, metric)
    assert [list(r) for r in got] == [list(expected)]


def test_stack_change_refusals_and_reach():
    assert stack_improvement("CLAW", "RR")["throughput_increase"] == (2.0, 2.0)
    assert REGISTRY["ZVM_STACK_CHANGE"]("OSA_GBE", "RR", "throughput") == "#N/A"
    assert REGISTRY["ZVM_STACK_CHANGE"]("ALL", "RR", "throughput") == "#N/A"
    assert REGISTRY["ZVM_STACK_CHANGE"]("CLAW", "RR", "latency") == "#VALUE!"
    with pytest.raises(UnknownNameError):
        stack_change("CLAW", "RR", "watts")
    assert "stack endpoints only" in REGISTRY["ZVM_BASIS"]("ZVM_STACK_CHANGE", "CLAW", "RR",
                                                           "cpu")


# ---------------------------------------------------------------------- VCTC ----
def test_vctc_is_refused_beyond_its_measured_mtus():
    """000 conclusions: a larger MTU (up to 2 MB) is considered for the IUCV driver only;
    000 Table 3 measured virtual CTC up to 32764."""
    assert zvmplan.per_mb("VCTC", 32764, "mb_per_sec").basis == "measured"
    with pytest.raises(OutOfRangeError, match="IUCV driver only"):
        zvmplan.per_mb("VCTC", 32765, "mb_per_sec")
    assert zvmplan.per_mb("IUCV", 2_000_000, "mb_per_sec").basis == "extrapolated"

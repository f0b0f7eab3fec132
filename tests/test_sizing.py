"""The two sizing questions (issue 17, section 5): ENGINES_NEEDED and MAX_LOAD, through the
registry (every front door) and the Python API, each pinned to a published cell."""
import pytest

import zvmplan
from zvmplan_addin.functions import REGISTRY

EN, ML = REGISTRY["ENGINES_NEEDED"], REGISTRY["MAX_LOAD"]


def test_engines_needed_is_load_times_the_published_cpu_per_unit():
    """003 Table 4, OSA GbE RR MTU 1492, 50 connections, z/VM 4.4.0: 0.046 total CPU-ms/tx,
    so 1000 tx/s need 0.046 engines, and 5000 tx/s 0.23."""
    assert EN("OSA_GBE", "RR", 1492, 1000, 50, "4.4.0") == pytest.approx(0.046, rel=1e-12)
    assert EN("OSA_GBE", "RR", 1492, 5000, 50, "4.4.0") == pytest.approx(0.23, rel=1e-12)


def test_engines_at_the_measured_rate_are_the_published_cpu_seconds_per_second():
    """000 Table 2, IUCV MTU 9000: 33.33 MB/s at 34.17 MB/CPU-sec is 0.975 CPU-sec/sec as
    printed (to its 3 decimals)."""
    assert round(EN("IUCV", "STREAM", 9000, 33.33), 3) == 0.975


def test_max_load_is_capped_by_the_measured_rate():
    """003 Table 4: 2 engines would carry 43,478 tx/s at 0.046 CPU-ms/tx, but one link was
    measured at 18,183.309 tx/s: that is the answer, and its band is the printed rounding."""
    assert ML("OSA_GBE", "RR", 1492, 2, 50, "4.4.0") == 18183.309
    ans = zvmplan.max_load("OSA_GBE", "RR", 1492, 2, 50, "4.4.0")
    assert ans.basis == "measured" and "measured rate" in ans.method and "43478.3" in ans.method
    lo, hi = REGISTRY["ZVM_RANGE"]("MAX_LOAD", "OSA_GBE", "RR", 1492, 2, 50, "4.4.0")[0]
    assert lo == pytest.approx(18183.3085) and hi == pytest.approx(18183.3095)


def test_max_load_is_the_inverse_of_engines_needed_where_cpu_binds():
    """000 Table 2: half an engine carries 0.5 x 34.17 = 17.085 MB/s at MTU 9000 (below the
    33.33 MB/s measured); ENGINES_NEEDED of that load is the half engine again."""
    load = ML("IUCV", "STREAM", 9000, 0.5)
    assert load == pytest.approx(17.085, rel=1e-12)
    assert EN("IUCV", "STREAM", 9000, load) == pytest.approx(0.5, rel=1e-12)
    for size in (16000, 1000, 100000):  # interpolated, below and beyond the measured sizes
        load = ML("IUCV", "STREAM", size, 0.1)
        assert EN("IUCV", "STREAM", size, load) == pytest.approx(0.1, rel=1e-12)


def test_max_load_is_capped_by_the_wire():
    """001 Table 1, LCS 4.1.0: 0.5 engines would carry 21.3 MB/s of FTP, but Fast Ethernet
    carries 12.5e6 x 1460 / 1538 / 2^20 = 11.316 MB/s of payload at MTU 1500."""
    assert ML("LCS", "FTP_GET", 1500, 0.5, None, "4.1.0") == pytest.approx(
        12.5e6 * 1460 / 1538 / 2**20, rel=1e-12)
    assert "wire" in zvmplan.max_load("LCS", "FTP_GET", 1500, 0.5, None, "4.1.0").method


def test_the_named_machine_scales_cpu_and_only_memory_to_memory_rates():
    """A speed_factor of 2 halves the engines; for IUCV (memory-to-memory, 000 conclusions)
    it also doubles the measured-rate cap, for OSA GbE (a real device, 003) it does not."""
    assert EN("IUCV", "STREAM", 9000, 10, None, None, 2) == pytest.approx(
        EN("IUCV", "STREAM", 9000, 10) / 2, rel=1e-12)
    assert ML("IUCV", "STREAM", 9000, 2, None, None, 2) == pytest.approx(2 * 33.33, rel=1e-12)
    assert ML("OSA_GBE", "RR", 1492, 2, 50, "4.4.0", 2) == 18183.309
    assert "target machine" in zvmplan.engines_needed("IUCV", "STREAM", 9000, 10, None, None,
                                                      2).method


def test_loads_one_link_cannot_carry_are_flagged():
    """003 Table 6, OSA STRG MTU 1492 (1 connection, the default, at 4.4.0: 34.7 MB/s
    measured); the wire carries 113.1 MB/s of payload at 1492."""
    ans = zvmplan.engines_needed("OSA_GBE", "STRG", 1492, 120, None, "4.4.0")
    flags = [n for n in ans.notes if n.startswith("FLAG")]
    assert any("above the 34.7 MB/s the sources measured" in f for f in flags)
    assert any("113.1 MB/s of payload" in f for f in flags)
    assert not any(n.startswith("FLAG") for n in
                   zvmplan.engines_needed("OSA_GBE", "STRG", 1492, 30, None, "4.4.0").notes)


def test_bands_and_basis_work_on_both():
    """ZVM_RANGE of ENGINES_NEEDED is the per-unit band times the load; ZVM_BASIS explains."""
    per_unit = zvmplan.per_mb("IUCV", 16000, "tot_cpusec_per_mb")
    lo, hi = REGISTRY["ZVM_RANGE"]("ENGINES_NEEDED", "IUCV", "STREAM", 16000, 10)[0]
    assert (lo, hi) == pytest.approx((10 * per_unit.bounds()[0], 10 * per_unit.bounds()[1]))
    assert "engines = load [MB/s] x total CPU per unit" in REGISTRY["ZVM_BASIS"](
        "ENGINES_NEEDED", "IUCV", "STREAM", 16000, 10)
    lo, hi = REGISTRY["ZVM_RANGE"]("MAX_LOAD", "IUCV", "STREAM", 16000, 0.5)[0]
    assert lo < ML("IUCV", "STREAM", 16000, 0.5) < hi


@pytest.mark.parametrize("args, code", [
    (("IUCV", "RR", 9000, 10), "#N/A"),             # IUCV measured streaming only
    (("OSA_GBE", "STREAM", 1492, 10), "#N/A"),      # OSA's bulk workload is STRG
    (("OSA_GBE", "RR", 1492, 10), "#VALUE!"),       # RR needs connections
    (("IUCV", "STREAM", 9000, -1), "#NUM!"),
    (("IUCV", "STREAM", 9000, "lots"), "#VALUE!"),
    (("IUCV", "STREAM", 9000, 10, None, "5.1.0"), "#N/A"),
    (("VSWITCH", "STREAM", 9000, 10), "#N/A")])
def test_refusals(args, code):
    assert EN(*args) == code
    assert ML(*args) == code if args[3] != -1 else ML(*args[:3], 0) == "#NUM!"


def test_range_and_basis_reach_every_argument():
    """ENGINES_NEEDED and MAX_LOAD take 7 arguments: ZVM_RANGE and ZVM_BASIS pass all 7, so
    the speed factor reaches them (a faster machine halves the band too)."""
    full = REGISTRY["ZVM_RANGE"]("ENGINES_NEEDED", "IUCV", "STREAM", 16000, 10, None, None, 2)[0]
    base = REGISTRY["ZVM_RANGE"]("ENGINES_NEEDED", "IUCV", "STREAM", 16000, 10)[0]
    assert list(full) == pytest.approx([b / 2 for b in base])
    assert "speed factor 2" in REGISTRY["ZVM_BASIS"]("ENGINES_NEEDED", "IUCV", "STREAM", 16000,
                                                     10, None, None, 2)

"""The measured processors and the devices' physical limits (issue 9, items 1 and 2).

Each test names the source line it follows: the seeds' hardware sections, and the device
documents cited in model/data/hw_limits.csv.
"""
from pathlib import Path

import pytest

import zvmplan
from zvmplan import hardware
from zvmplan.errors import NoDataError, OutOfRangeError
from zvmplan_addin.functions import REGISTRY

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"

PROCESSORS = {  # transport -> (processor, document): the seeds' hardware sections
    "CMS_IUCV": ("9672-XZ7", "000"), "IUCV": ("9672-XZ7", "000"), "VCTC": ("9672-XZ7", "000"),
    "LCS": ("2064-108", "001"), "ESCON_CTC": ("2064-108", "001"),
    "GUEST_LAN": ("2064-109", "002"),
    "OSA_GBE": ("2084-C24 (z990)", "003"), "HIPERSOCKETS": ("2084-C24 (z990)", "003"),
}


@pytest.mark.parametrize("transport", PROCESSORS)
def test_every_transport_names_its_measured_processor(transport):
    """000 'Hardware Used', 001 'Hardware', 002 configuration, 003 'Measurement Environment'."""
    name, doc = PROCESSORS[transport]
    p = zvmplan.processor(transport)
    assert (p.name, p.document, p.engines) == (name, doc, 2)  # all four: 2 dedicated engines
    assert REGISTRY["ZVM_PROCESSOR"](transport) == name


@pytest.mark.skipif(not SEEDS.is_dir(), reason="sources not beside the checkout")
def test_processor_names_occur_in_their_documents():
    docs = {p.name[:3]: p.read_text(encoding="utf-8") for p in SEEDS.glob("*.txt")}
    for name, doc in PROCESSORS.values():
        assert name.split()[0] in docs[doc]
    assert "LPAR of a z990" in docs["003"]


@pytest.mark.parametrize("call", [
    lambda: zvmplan.per_mb("IUCV", 9000),
    lambda: zvmplan.per_mb("LCS", 1500, "tot_cpusec_per_mb", "4.4.0"),
    lambda: zvmplan.per_tx("GUEST_LAN", "RR", 57344, 50, "tx_per_sec"),
    lambda: zvmplan.per_tx("OSA_GBE", "RR", 1492, 15, "cp_cpumsec_per_tx", "4.4.0", 1.7),
])
def test_every_basis_names_the_measured_processor(call):
    ans = call()
    assert ans.processor and ans.processor in ans.explain()


def test_processor_level_is_checked_like_the_answers():
    """003 measured HiperSockets at 4.3.0 and 4.4.0 only: 3.1.0 has no basis (#N/A)."""
    with pytest.raises(NoDataError):
        zvmplan.processor("HIPERSOCKETS", "3.1.0")
    assert REGISTRY["ZVM_PROCESSOR"]("HIPERSOCKETS", "3.1.0") == "#N/A"
    assert REGISTRY["ZVM_PROCESSOR"]("CTC", "4.4.0") == "9672-XZ7"


def test_speed_factor_is_relative_to_the_measured_processor():
    """000 conclusions: memory-to-memory speed follows the processor. The factor is the
    planner's zPCR/LSPR capacity of the target per engine relative to the measured one."""
    ans = zvmplan.per_mb("IUCV", 9000, "cp_cpusec_per_mb", None, 2.0)
    assert ans.value == pytest.approx(0.012367 / 2)  # 000 Table 2, MTU 9000
    assert "relative to the 9672-XZ7" in ans.explain()


def test_qioa_needs_a_z990():
    """003 Introduction: Queued I/O Assist needs a z990 GA1 or later; only 003's machine is one."""
    assert [t for t, p in hardware.processors().items() if p.qioa] == ["OSA_GBE", "HIPERSOCKETS"]


# ------------------------------------------------------------------ limits ----
def test_line_rates():
    """IEEE 802.3u (100 Mb/s), 802.3z (1000 Mb/s), ESCON channel 17 MB/s (hw_limits.csv)."""
    assert zvmplan.line_rate_mb_per_sec("LCS") == 12.5
    assert zvmplan.line_rate_mb_per_sec("OSA_GBE") == 125.0
    assert zvmplan.line_rate_mb_per_sec("ESCON_CTC") == 17.0
    assert REGISTRY["ZVM_LINE_RATE"]("QDIO") == 125.0
    for t in ("CMS_IUCV", "IUCV", "VCTC", "HIPERSOCKETS", "GUEST_LAN"):
        assert REGISTRY["ZVM_LINE_RATE"](t) == "#N/A"


def test_osa_above_the_line_rate_says_why():
    """003 Table 7 (MTU 8992, 50 connections, 4.3.0: 6.594 tx/s x 20 MB) exceeds Gigabit
    Ethernet's 125 MB/s; 003 Measurement Environment: both guests on one OSA chpid."""
    ans = zvmplan.per_mb("OSA_GBE", 8992, "mb_per_sec", "4.3.0", None, 50)
    assert ans.value == pytest.approx(131.88)
    text = ans.explain()
    assert "FLAG" in text and "125 MB/s" in text and "never crossed the wire" in text
    below = zvmplan.per_mb("OSA_GBE", 1492, "mb_per_sec", "4.3.0")
    assert below.value < 125 and "FLAG" not in below.explain()


@pytest.mark.parametrize("transport, mtu", [("HIPERSOCKETS", 60000), ("HIPERSOCKETS", 65536),
                                            ("OSA_GBE", 9000)])
def test_impossible_mtus_say_impossible(transport, mtu):
    """IQD-MFS: the largest HiperSockets MTU is 56 KB (57344) on a 64 KB frame; OSA-JUMBO:
    OSA-Express GbE carries at most 8992. #NUM! with "impossible", not "no basis"."""
    with pytest.raises(OutOfRangeError, match="^impossible"):
        zvmplan.per_tx(transport, "RR", mtu, 10)
    with pytest.raises(OutOfRangeError, match="^impossible"):
        zvmplan.per_mb(transport, mtu, "mb_per_sec", None, None, 10)
    assert REGISTRY["TX_PER_SEC"](transport, "RR", mtu, 10) == "#NUM!"
    assert REGISTRY["ZVM_BASIS"]("TX_PER_SEC", transport, "RR", mtu, 10).startswith(
        "#NUM! impossible")


@pytest.mark.parametrize("mtu, frame", [(8192, 16), (8992, 24), (16384, 24), (20000, 40),
                                        (32768, 40), (57344, 64)])
def test_hipersockets_mtu_names_the_frame_it_needs(mtu, frame):
    """IQD-MFS: frames of 16/24/40/64 KB carry MTUs up to 8/16/32/56 KB."""
    assert hardware.hipersockets_frame_kb(mtu) == frame
    if 8992 <= mtu:
        assert f"frame size of {frame} KB" in zvmplan.per_tx("HIPERSOCKETS", "RR", mtu, 10).explain()


def test_more_engines_than_measured_are_flagged():
    """003 Measurement Environment: 2 dedicated engines. A speed factor below 1 on a real
    device keeps the rate and raises CPU-s/s above 2: flagged."""
    ans = zvmplan.per_mb("OSA_GBE", 8992, "cpusec_per_sec", "4.3.0", 0.2, 50)
    assert ans.value > 2 and "more than the 2 dedicated engines" in ans.explain()
    ok = zvmplan.per_mb("OSA_GBE", 8992, "cpusec_per_sec", "4.3.0", None, 50)
    assert ok.value < 2 and "FLAG" not in ok.explain()


def test_escon_totals_cover_the_linux_guest_only():
    """001 Real CTC Experiment: the Linux guest was measured; the VM TCP/IP stack at the
    other end of the CTC was not."""
    assert "Linux guest only" in zvmplan.per_mb("ESCON_CTC", 1500, "tot_cpusec_per_mb").explain()
    assert "Linux guest only" in REGISTRY["TOTCPU_PER_MB"].description


def test_normalising_needs_a_factor_per_measured_processor():
    """Issue 9: where the planner gives no capacity for a transport's processor, the
    comparison is "not normalised", never ranked silently."""
    factors = {"9672-XZ7": 6.0, "2084-C24 (z990)": 1.5}
    assert hardware.speed_factor_for("VCTC", factors) == 6.0
    assert hardware.speed_factor_for("IQD", factors) == 1.5
    with pytest.raises(NoDataError, match="not normalised: LCS was measured on a 2064-108"):
        hardware.speed_factor_for("LCS", factors)


def test_a_planned_load_above_the_wire_is_flagged():
    """802.3u: Fast Ethernet carries 12.5 MB/s; 50 MB/s over LCS cannot cross the wire."""
    assert hardware.load_flag("LCS", 50).startswith("FLAG: 50 MB/s exceeds the Fast Ethernet")
    assert hardware.load_flag("LCS", 10) == ""
    assert hardware.load_flag("ESCON_CTC", 17.5).startswith("FLAG")
    assert hardware.load_flag("HIPERSOCKETS", 1000) == ""


# ------------------------------------------------------------ payload, not line rate ----
@pytest.mark.parametrize("transport, mtu, want", [
    ("OSA_GBE", 1492, 125e6 * 1452 / 1530 / 2**20),   # 113.13
    ("OSA_GBE", 8992, 125e6 * 8952 / 9030 / 2**20),   # 118.18
    ("LCS", 1500, 12.5e6 * 1460 / 1538 / 2**20),      # 11.32
    ("ESCON_CTC", 1500, 17e6 * 1460 / 1500 / 2**20)])  # 15.78
def test_payload_capacity_takes_framing_headers_and_the_sources_mb(transport, mtu, want):
    """IEEE 802.3: 8 bytes preamble+SFD, 14 MAC header (RFC 894), 4 FCS, 12 inter-frame gap
    per frame outside the MTU; RFC 791/793: 20 + 20 bytes of IP and TCP header inside it; the
    sources' MB is 2^20 bytes (000 Table 1). ESCON: no Ethernet on a channel."""
    got = REGISTRY["ZVM_PAYLOAD_RATE"](transport, mtu)
    assert got == pytest.approx(want, rel=1e-12)
    assert got < zvmplan.line_rate_mb_per_sec(transport)


def test_120_mb_per_sec_on_osa_at_1492_is_flagged():
    """Issue 17: 120 MB/s passed the raw 125 MB/s check; at MTU 1492 the wire carries at most
    113.1 MB/s of payload in the sources' MB."""
    assert hardware.load_flag("OSA_GBE", 120) == ""  # the raw-rate answer, kept as documented
    from zvmplan.framing import over_capacity_flag
    flag = over_capacity_flag("OSA_GBE", 120, 1492)
    assert flag.startswith("FLAG: 120 MB/s of payload exceeds the 113.1 MB/s")
    assert over_capacity_flag("OSA_GBE", 113, 1492) == ""
    assert over_capacity_flag("HIPERSOCKETS", 1000, 57344) == ""


def test_osa_rate_between_payload_and_line_rate_is_flagged():
    """003 Table 7, MTU 8992, 10 connections, 4.3.0: 5.951 tx/s x 20 MB = 119.0 MB/s, below the
    raw 125 MB/s but above the 118.2 MB/s of payload a GbE wire carries at 8992."""
    ans = zvmplan.per_mb("OSA_GBE", 8992, "mb_per_sec", "4.3.0", None, 10)
    assert 118.2 < ans.value < 125
    assert any(n.startswith("FLAG") and "118.2 MB/s" in n for n in ans.notes)


@pytest.mark.parametrize("transport, mtu, code", [("IUCV", 1500, "#N/A"), ("LCS", 9000, "#NUM!"),
                                                  ("OSA_GBE", 9000, "#NUM!"),
                                                  ("OSA_GBE", 40, "#NUM!"),
                                                  ("OSA_GBE", "x", "#VALUE!")])
def test_payload_refusals(transport, mtu, code):
    """No wire for memory-to-memory transports; Ethernet II carries 1500 (RFC 894), OSA GbE
    8992 (OSA-JUMBO); an IP MTU is at least 68 (RFC 791)."""
    assert REGISTRY["ZVM_PAYLOAD_RATE"](transport, mtu) == code

"""Names a planner types (issue 8): levels never rounded, no Unicode case folding, and an
unknown name's error lists the valid ones and suggests the closest."""
import pytest

from zvmplan import names
from zvmplan.errors import NoDataError, UnknownNameError
from zvmplan_addin.functions import REGISTRY


@pytest.mark.parametrize("value", [4.36, 4.06, 4.0, 4, 4.45, 44])
def test_a_level_number_is_never_rounded(value):
    """Excel hands 4.36 to an add-in as the double 4.36: no z/VM level, so #VALUE!."""
    with pytest.raises(UnknownNameError):
        names.level(value)
    assert REGISTRY["CPCPU_PER_MB"]("IUCV", 9000, value) == "#VALUE!"


@pytest.mark.parametrize("value, level", [(4.4, "4.4.0"), (440, "4.4.0"), (3.1, "3.1.0"),
                                          ("4.2", "4.2.0"), ("z/VM 4.3.0", "4.3.0")])
def test_exact_level_numbers_and_texts(value, level):
    assert names.level(value) == level


@pytest.mark.parametrize("lookup, value", [(names.transport, "ıucv"),
                                           (names.workload, "ſtream"),
                                           (names.transport, "ＩＵＣＶ")])
def test_no_unicode_case_folding(lookup, value):
    """Excel compares names with ASCII case rules only: dotless i and long s are no letters
    of IUCV or STREAM."""
    with pytest.raises(UnknownNameError, match="valid:"):
        lookup(value)


def test_unknown_name_suggests_the_closest_and_lists_the_valid():
    with pytest.raises(UnknownNameError, match=r"did you mean IUCV\?.*valid: CMS_IUCV, IUCV"):
        names.transport("IUVC")
    with pytest.raises(UnknownNameError, match=r"did you mean STRG\?"):
        names.workload("STRGG")
    reason = REGISTRY["ZVM_BASIS"]("CPCPU_PER_MB", "hipersokets", 9000)
    assert reason.startswith("#VALUE!") and "did you mean HIPERSOCKETS?" in reason


def test_function_names_in_basis_and_range_do_not_fold():
    """As with transports: a dotless i is no I."""
    assert REGISTRY["ZVM_BASIS"]("zvm_lıne_rate", "OSA_GBE") == "#VALUE!"
    assert REGISTRY["ZVM_BASIS"]("zvm_line_rate", "OSA_GBE").startswith("computed")


@pytest.mark.parametrize("value", ["5.1.0", "5.1", 5.1, 510, "z/VM 6.4.0", 7.3])
def test_a_later_level_is_beyond_the_sources_not_unknown(value):
    """z/VM 5.1.0 and later are real levels the sources (newest 4.4.0) did not measure: #N/A
    with that reason, as Excel shows 'not available', never #VALUE! 'unknown level'."""
    from zvmplan.errors import NoDataError
    with pytest.raises(NoDataError, match="beyond the sources"):
        names.level(value)
    assert REGISTRY["CPCPU_PER_MB"]("IUCV", 9000, value) == "#N/A"
    assert "newest 4.4.0" in REGISTRY["ZVM_BASIS"]("CPCPU_PER_MB", "IUCV", 9000, value)


@pytest.mark.parametrize("value", ["4.36", "abc", "9.9", "5.0", 4.36])
def test_a_malformed_level_stays_value(value):
    assert REGISTRY["CPCPU_PER_MB"]("IUCV", 9000, value) == "#VALUE!"


@pytest.mark.parametrize("value", ["VSWITCH", "vswitch", "CLAW", "osa-10gbe"])
def test_a_transport_no_source_measured_is_na(value):
    """VSWITCH and friends are not unknown names: the sources just do not measure them."""
    assert REGISTRY["CPCPU_PER_MB"](value, 9000) == "#N/A"
    assert "beyond the sources" in REGISTRY["ZVM_BASIS"]("CPCPU_PER_MB", value, 9000)
    assert REGISTRY["CPCPU_PER_MB"]("VSWICH", 9000) == "#VALUE!"


def test_fill_says_beyond_the_sources_without_a_typo_hint():
    """A links file naming z/VM 5.1.0 or VSWITCH is refused with the reason, and no
    'did you mean 4.1.0?' (no typo: a level the sources never reached)."""
    from zvmplan_workbook import fill
    for kind, text in (("level", "5.1.0"), ("transport", "VSWITCH")):
        with pytest.raises(fill.FillError, match="beyond the sources") as err:
            fill._name(kind, text, "links.csv row 1")
        assert "did you mean" not in str(err.value)
    with pytest.raises(fill.FillError, match="did you mean IUCV"):
        fill._name("transport", "IUVC", "links.csv row 1")


def test_a_text_read_again_reads_the_same_and_a_refused_one_is_refused_again():
    """Transport and level texts are remembered once read (a workbook asks with the same
    few in every cell): a remembered text gives the same name; a refused text is read
    afresh each time and refused with the same message; a number is never remembered."""
    for value, want in (("iucv", "IUCV"), (" osa-gbe ", "OSA_GBE"), ("HiperSockets", "HIPERSOCKETS")):
        assert names.transport(value) == want and names.transport(value) == want
        assert names._TRANSPORT_TEXT[value] == want
    for value, want in (("4.4", "4.4.0"), ("z/VM 4.3.0", "4.3.0")):
        assert names.level(value) == want and names.level(value) == want
    assert names.level(4.4) == "4.4.0" and 4.4 not in names._LEVEL_TEXT
    for bad, error in (("vswitch", NoDataError), ("iucvx", UnknownNameError)):
        messages = set()
        for _ in range(2):
            with pytest.raises(error) as exc:
                names.transport(bad)
            messages.add(str(exc.value))
        assert len(messages) == 1 and bad not in names._TRANSPORT_TEXT
    for bad, error in (("5.1.0", NoDataError), ("4.36", UnknownNameError)):
        for _ in range(2):
            with pytest.raises(error):
                names.level(bad)
        assert bad not in names._LEVEL_TEXT

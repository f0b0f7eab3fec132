"""Worksheet functions through their Excel names: conversion, errors, ranges, and a
property-based test that nothing a cell can hold makes one of them raise."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zvmplan
import zvmplan_addin.functions  # noqa: F401 - fills the registry
from zvmplan_addin.errors import ExcelError
from zvmplan_addin.registry import (MAX_TEXT, MISSING, REGISTRY, WorksheetFunction, as_number,
                                    excel_value)


def call(name, *args):
    return REGISTRY[name](*args)


def test_published_cells():
    assert call("CPCPU_PER_MB", "IUCV", 9000) == 0.012367          # 000 Table 2
    assert call("TX_PER_SEC", "OSA_GBE", "CRR", 1492, 1, "4.3.0") == 491.463  # 003 Table 2
    assert call("TX_PER_SEC", "hipersockets", "rr", 8992, 10, "4.4.0") == 19681.727  # 003 T12
    assert call("VCPU_PER_MB", "ctc", 32764) == 0.022001            # 000 Table 6
    assert call("CPCPU_PER_TX", "QDIO", "RR", 1492, 50, 4.4) == 0.011  # 003 Table 4


def test_one_function_per_metric_with_its_unit_from_the_glossary():
    """Each metric of names.METRICS has one worksheet function; its unit (the bracket in the
    description, and ``returns``) is the glossary's, written nowhere else."""
    from zvmplan import names
    from zvmplan_addin.functions import METRIC_FUNCTIONS
    assert sorted(f.metric for f in METRIC_FUNCTIONS) == sorted(names.METRICS)
    for f in METRIC_FUNCTIONS:
        fn = REGISTRY[f.name]
        assert fn.unit == fn.returns == names.UNITS[f.metric], f.name
        per_mb = f.metric in names.PER_MB_METRICS
        assert [p.name for p in fn.params][:2] == (["transport", "size_bytes"] if per_mb else
                                                   ["transport", "workload"])
    assert call("TOTCPU_PER_MB", "IUCV", 9000) == zvmplan.per_mb(
        "IUCV", 9000, "tot_cpusec_per_mb").value
    assert call("VCPU_PER_TX", "OSA_GBE", "RR", 1492, 50, "4.4.0") == zvmplan.per_tx(
        "OSA_GBE", "RR", 1492, 50, "v_cpumsec_per_tx", "4.4.0").value


@pytest.mark.parametrize("args, code", [
    (("CPCPU_PER_MB", "TOKEN_RING", 9000), "#VALUE!"),
    (("CPCPU_PER_MB", "IUCV", "lots"), "#VALUE!"),
    (("CPCPU_PER_MB", "IUCV", True), "#VALUE!"),
    (("CPCPU_PER_MB", "IUCV", None), "#VALUE!"),          # required argument left empty
    (("CPCPU_PER_MB", "IUCV", 9000, "9.9.9"), "#VALUE!"),
    (("CPCPU_PER_MB", "IUCV", 1e9), "#NUM!"),
    (("CPCPU_PER_MB", "IUCV", -1), "#NUM!"),
    (("TX_PER_SEC", "OSA_GBE", "RR", 100000, 1), "#NUM!"),
    (("TX_PER_SEC", "IUCV", "RR", 9000, 1), "#N/A"),
    (("CPCPU_PER_TX", "GUEST_LAN", "RR", 57344, 50), "#N/A"),
    (("MB_PER_SEC", "LCS", 1500), "#N/A"),
    (("ZVM_CI", "IUCV", "cp_cpusec_per_mb"), "#N/A"),
    (("CPCPU_PER_MB", "IUCV", 9000, None, None, None, "extra"), "#VALUE!"),
])
def test_errors_are_excel_errors_with_reasons(args, code):
    result = call(*args)
    assert isinstance(result, ExcelError) and result.code == code
    assert result.reason and "Traceback" not in result.reason


def test_error_inputs_pass_through():
    assert call("CPCPU_PER_MB", ExcelError("#DIV/0!"), 9000).code == "#DIV/0!"
    assert call("CPCPU_PER_MB", "IUCV", "#N/A").code == "#N/A"


def test_empty_optional_arguments_are_left_out():
    assert call("CPCPU_PER_MB", "IUCV", 9000, None, None) == 0.012367
    assert call("CPCPU_PER_MB", "IUCV", 9000, "", "") == 0.012367


def test_skipped_middle_argument_is_left_out():
    """Excel hands an add-in function a skipped argument (``=CPCPU_PER_MB("IUCV",9000,,2)``)
    as *missing* (xltypeMissing; VBA's IsMissing), not as 0 or "": the level takes its
    default and the speed factor 2 halves the CPU per MB (000 Table 2: 0.012367)."""
    want = call("CPCPU_PER_MB", "IUCV", 9000, None, 2)
    assert want == pytest.approx(0.012367 / 2, rel=1e-12)
    assert call("CPCPU_PER_MB", "IUCV", 9000, MISSING, 2) == want
    assert call("CPCPU_PER_MB", "IUCV", 9000, "", 2) == want
    # every optional argument skipped is the call without them
    assert call("TX_PER_SEC", "OSA_GBE", "CRR", 1492, 1, MISSING, MISSING) == \
        call("TX_PER_SEC", "OSA_GBE", "CRR", 1492, 1)
    assert call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 9000, MISSING, 2) == \
        call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 9000, None, 2)


def test_skipped_required_argument_is_value_error_with_reason():
    """An add-in function receives a skipped required argument as missing too, and has no
    default to take: #VALUE! naming the argument (Excel itself refuses a formula that
    leaves out a required argument of a built-in function, e.g. =ROUND(1.5))."""
    result = call("CPCPU_PER_MB", "IUCV", MISSING, MISSING, 2)
    assert result.code == "#VALUE!"
    assert "size_bytes is required and was left out" in result.reason
    assert call("CPCPU_PER_MB", MISSING, 9000).code == "#VALUE!"
    assert "is empty" in call("CPCPU_PER_MB", "IUCV", None).reason


@pytest.mark.parametrize("text", ["9000", " 9000 ", "+9000", "9000.", "9e3", "9E+3", "900000%",
                                  "9000.0"])
def test_text_numbers_excel_reads(text):
    """Excel's VALUE reads these the same in every locale: spaces around, a sign, a
    decimal point, an exponent (VALUE("9E+3") = 9000) and a trailing percent sign
    (VALUE("900000%") = 9000)."""
    assert call("CPCPU_PER_MB", "IUCV", text) == 0.012367   # 000 Table 2


@pytest.mark.parametrize("text", [
    "1_000", "9_000",               # Python's float() accepts underscores; Excel does not
    "\uff19\uff10\uff10\uff10",     # full-width digits
    "\u0669\u0660\u0660\u0660",     # Arabic-Indic digits
    "nan", "NaN", "inf", "-Infinity",  # Python's float() reads them; Excel has no such numbers
    "9,000", "9000,0",              # separators: Excel reads them by locale ("1,5" is 15 in en-US)
    "\u00a09000",                   # a non-breaking space (pasted from the web) is not a space
    "0x2328", "9000 bytes", "1e999", "--9000", "9 000",
])
def test_text_excel_would_refuse_is_value_error(text):
    """Excel's VALUE gives #VALUE! for these in every locale (a number beyond its range
    too), or reads them by locale ("9,000" is 9000 in en-US, 9 in de-DE): a worksheet
    function must not read them as numbers."""
    result = call("CPCPU_PER_MB", "IUCV", text)
    assert isinstance(result, ExcelError) and result.code == "#VALUE!", result
    assert "must be a number" in result.reason or "beyond Excel's number range" in result.reason
    with pytest.raises(zvmplan.errors.ArgumentTypeError):
        as_number(text, "x")


def test_decimal_comma_says_how_to_type_it():
    assert 'with "." as decimal point' in call("CPCPU_PER_MB", "IUCV", "9000,5").reason


def test_non_finite_results_are_num_errors():
    """Excel has no infinity or NaN: an overflowing calculation is #NUM!, an error that
    ISERROR and IFERROR see. A speed factor of 1E308 overflows the data rate."""
    result = call("MB_PER_SEC", "IUCV", 9000, MISSING, 1e308)
    assert isinstance(result, ExcelError) and result.code == "#NUM!"
    assert "not a finite number" in result.reason
    # and its basis is that reason, not the basis of a valid answer
    assert call("ZVM_BASIS", "MB_PER_SEC", "IUCV", 9000, None, 1e308) == \
        f"#NUM! {result.reason}"
    out = call("MB_PER_SEC", "IUCV", np.array([[9000, 1500]], dtype=object), None, 1e308)
    assert [v.code for v in out.reshape(-1)] == ["#NUM!", "#NUM!"]
    # a non-finite number given as input is #NUM! too (it can only come from an overflow)
    assert call("CPCPU_PER_MB", "IUCV", math.inf).code == "#NUM!"
    assert call("CPCPU_PER_MB", "IUCV", 10 ** 400).code == "#NUM!"


def test_text_longer_than_an_excel_cell_is_value_error():
    """An Excel cell holds at most 32,767 characters; a longer text result is #VALUE!."""
    fn = WorksheetFunction("ZF_TEXT", "n x's", (), lambda: "x" * (MAX_TEXT + 1), "", "text")
    result = fn()
    assert isinstance(result, ExcelError) and result.code == "#VALUE!"
    assert "32,768 characters" in result.reason
    assert excel_value("x" * MAX_TEXT) == "x" * MAX_TEXT
    arr = excel_value(np.array([["ok", "y" * (MAX_TEXT + 1), math.nan]], dtype=object))
    assert arr[0, 0] == "ok" and arr[0, 1].code == "#VALUE!" and arr[0, 2].code == "#NUM!"


def test_basis_with_more_arguments_than_the_function_takes():
    """=ZVM_BASIS("CPCPU_PER_MB",...) with six arguments for a five-argument function is
    #VALUE! naming the function and its arity, not the basis of a shorter call."""
    out = call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 9000, None, None, None, "x")
    assert out.startswith("#VALUE! CPCPU_PER_MB takes 2 to 5 arguments; got 6")
    assert call("ZVM_BASIS", "ZVM_TRANSPORTS", 1).startswith(
        "#VALUE! ZVM_TRANSPORTS takes no arguments; got 1")
    assert call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 9000, None).startswith("measured")


def test_ranges_of_different_sizes_pair_up_as_in_excel():
    """Where one-value arguments get ranges of different sizes, Excel pairs the elements:
    a one-row range repeats down, a one-column range across, and a cell beyond the smaller
    range is #N/A (=IF({1,1,1},{10,20}) gives 10, 20, #N/A). 003 Table 4: OSA_GBE RR at
    MTU 1492, z/VM 4.3.0: 0.062 (1 connection), 0.052 (10)."""
    mtus = np.array([[1492, 1492, 1492]], dtype=object)
    conns = np.array([[1, 10]], dtype=object)
    out = call("CPCPU_PER_TX", "OSA_GBE", "RR", mtus, conns, "4.3.0")
    assert out.shape == (1, 3)
    assert out[0, 0] == 0.062 and out[0, 1] == 0.052 and out[0, 2].code == "#N/A"
    grid = call("CPCPU_PER_TX", "OSA_GBE", "RR", np.array([[1492], [1492]], dtype=object),
                conns, "4.3.0")
    assert grid.tolist() == [[0.062, 0.052], [0.062, 0.052]]


def test_basis_of_each_element_of_an_array_answer():
    sizes = np.array([[9000], [20000], [1e9]], dtype=object)
    basis = REGISTRY["CPCPU_PER_MB"].explain_each("IUCV", sizes)
    assert basis.shape == (3, 1)
    assert basis[0, 0] == call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 9000)
    assert basis[1, 0].startswith("interpolated")
    assert basis[2, 0].startswith("#NUM!")
    assert REGISTRY["CPCPU_PER_MB"].explain_each("IUCV", 9000).startswith("measured")


def test_unit_of_every_numeric_function_is_its_returns():
    """eval prints fn.unit (the bracketed end of the description); it must be the unit
    the registry declares in ``returns``, and every function answering a number has one."""
    for name, fn in REGISTRY.items():
        if fn.unit:
            assert fn.unit == fn.returns, name
        from zvmplan_addin.calls import parse_call
        parsed = parse_call(fn.example)
        assert parsed is not None, f"{name}: the example is not one literal call"
        example = call(name, *parsed[1])
        if isinstance(example, float):
            assert fn.unit, f"{name} answers a number but has no [unit] in its description"


def test_range_gives_array_of_same_shape():
    sizes = np.array([[1500, 9000], [32764, 1e9]], dtype=object)
    out = call("MB_PER_SEC", "IUCV", sizes)
    assert out.shape == (2, 2)
    assert out[0, 0] == 7.84 and out[0, 1] == 33.33 and out[1, 0] == 73.09  # 000 Table 2
    assert out[1, 1].code == "#NUM!"
    conns = np.array([[1], [10], [20], [50]], dtype=object)
    col = call("CPCPU_PER_TX", "OSA_GBE", "RR", 1492, conns, "4.3.0")
    assert col.reshape(-1).tolist() == [0.062, 0.052, 0.034, 0.018]  # 003 Table 4


def test_basis_explains_answers_and_errors():
    assert call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 9000).startswith("measured")
    assert "000 Table 2" in call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 9000)
    assert call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 20000).startswith("interpolated")
    out = call("ZVM_BASIS", "CPCPU_PER_MB", "IUCV", 1e9)
    assert out.startswith("#NUM!") and "576" in out
    assert call("ZVM_BASIS", "NOPE", 1).code == "#VALUE!"


def test_discovery_spills_a_column():
    assert call("ZVM_TRANSPORTS").reshape(-1).tolist() == zvmplan.transports()
    assert call("ZVM_LEVELS").shape == (5, 1)
    lo, hi = call("ZVM_CI", "LCS", "cp_cpusec_per_mb", "4.1.0").reshape(-1)
    assert lo < 5.91 / 500 < hi


# ------------------------------------------------------------------ property-based ---
cell = st.one_of(
    st.none(), st.just(MISSING), st.booleans(), st.integers(min_value=-10**30, max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.sampled_from(["IUCV", "osa", "CTC", "RR", "strg", "4.4.0", "4.3", "#N/A", "", "1e3",
                     "HIPERSOCKETS", "GUEST_LAN", "LCS", "FTP_GET", "CPCPU_PER_MB"]),
    st.sampled_from([1, 10, 50, 576, 1492, 1500, 8992, 9000, 57344, 2e6, 0, -1]))
ranges = st.lists(st.lists(cell, min_size=1, max_size=3), min_size=1, max_size=3).filter(
    lambda rows: len({len(r) for r in rows}) == 1).map(
    lambda rows: np.array(rows, dtype=object))
argument = st.one_of(cell, cell, cell, ranges)


def _acceptable(value) -> bool:
    if isinstance(value, ExcelError):
        return bool(value.reason) or value.code in ("#N/A", "#DIV/0!")
    if isinstance(value, str):
        return len(value) <= MAX_TEXT
    if isinstance(value, bool):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, np.ndarray):
        return value.ndim == 2 and all(_acceptable(v) for v in value.reshape(-1))
    return False


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(REGISTRY)), args=st.lists(argument, max_size=7))
def test_no_exception_escapes_any_function(name, args):
    result = call(name, *args)
    assert _acceptable(result), (name, args, result)

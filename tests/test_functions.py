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
from zvmplan_addin.registry import REGISTRY


def call(name, *args):
    return REGISTRY[name](*args)


def test_published_cells():
    assert call("CPCPU_PER_MB", "IUCV", 9000) == 0.012367          # 000 Table 2
    assert call("TX_PER_SEC", "OSA_GBE", "CRR", 1492, 1, "4.3.0") == 491.463  # 003 Table 2
    assert call("TX_PER_SEC", "hipersockets", "rr", 8992, 10, "4.4.0") == 19681.727  # 003 T12
    assert call("VCPU_PER_MB", "ctc", 32764) == 0.022001            # 000 Table 6
    assert call("CPCPU_PER_TX", "QDIO", "RR", 1492, 50, 4.4) == 0.011  # 003 Table 4


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
    st.none(), st.booleans(), st.integers(min_value=-10**30, max_value=10**30),
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
    if isinstance(value, (str, bool)):
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

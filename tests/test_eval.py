"""``zvmplan eval``: the unit of the answer, a non-zero exit on any error (also inside an
array), the basis of each element of an array, and #NAME? with a did-you-mean for a
function nobody knows. Published values from 000 Table 2 (IUCV, CP CPU-s/MB)."""
from __future__ import annotations

import numpy as np

import zvmplan_addin.functions  # noqa: F401 - fills the registry
from zvmplan_addin import cli
from zvmplan_addin.calls import called_functions, did_you_mean, outer_function, parse_call
from zvmplan_addin.registry import MISSING, REGISTRY


def run(capsys, *argv):
    rc = cli.main(["eval", *argv])
    out = capsys.readouterr()
    assert out.err == ""
    return rc, out.out


def test_value_is_printed_with_its_unit(capsys):
    assert run(capsys, '=CPCPU_PER_MB("IUCV",9000)') == (0, "0.012367 CPU-s/MB\n")
    assert run(capsys, '=PCT_CP("VCTC",9000)') == (0, "31.97 %\n")   # 000 Table 3
    assert run(capsys, '=CPCPU_PER_MB("IUCV",9000)', "--no-unit") == (0, "0.012367\n")
    # text has no unit; a formula that is one zvmplan call keeps it through the engine
    assert run(capsys, '=ZVM_LEVELS()')[1].splitlines()[0] == "3.1.0"
    assert run(capsys, '=CPCPU_PER_MB("IUCV",9000*1)') == (0, "0.012367 CPU-s/MB\n")
    # arithmetic on an answer may change its unit: none is printed
    assert run(capsys, '=CPCPU_PER_MB("IUCV",9000)*1000') == (0, "12.367\n")


def test_skipped_middle_argument_is_left_out(capsys):
    """=CPCPU_PER_MB("IUCV",9000,,2): Excel passes the skipped level as missing, so the
    level is the default and the speed factor 2 halves 0.012367."""
    assert parse_call('=CPCPU_PER_MB("IUCV",9000,,2)')[1] == ["IUCV", 9000.0, MISSING, 2.0]
    rc, out = run(capsys, '=CPCPU_PER_MB("IUCV",9000,,2)')
    # a speed factor moves the answer off the measured machine: the model calls it
    # extrapolated, and eval marks it
    assert rc == 0 and out == "0.0061835 CPU-s/MB (extrapolated)\n"
    rc, out = run(capsys, '=CPCPU_PER_MB("IUCV",,,2)')
    assert rc == 1 and out.startswith("#VALUE! CPCPU_PER_MB: argument size_bytes is required "
                                      "and was left out")


def test_error_exits_1_and_prints_no_basis(capsys):
    """=MB_PER_SEC("IUCV",9000,,1E308) overflows: Excel shows #NUM!, and the basis of a
    valid answer must not follow it."""
    rc, out = run(capsys, '=MB_PER_SEC("IUCV",9000,,1E308)', "--basis")
    assert rc == 1
    assert out.startswith("#NUM! MB_PER_SEC: the result is not a finite number")
    assert len(out.splitlines()) == 1 and "source:" not in out


def test_non_finite_number_from_the_engine_is_an_error(capsys, monkeypatch):
    """Whatever the engine hands back, eval never prints inf/nan with exit 0: Excel has
    no such numbers, an overflow is #NUM!."""
    monkeypatch.setattr(cli, "_eval_with_engine", lambda formula: float("inf"))
    rc, out = run(capsys, "=2*A_FORMULA()")
    assert rc == 1 and out.startswith("#NUM! the result is not a finite number")
    monkeypatch.setattr(cli, "_eval_with_engine",
                        lambda formula: np.array([[1.0, float("nan")]], dtype=object))
    rc, out = run(capsys, "=2*A_FORMULA()")
    assert rc == 1 and out.splitlines()[:2] == ["1\t#NUM!", "(1,2) #NUM! the result is not a "
                                                "finite number: not a number (NaN)"]


def test_text_excel_refuses_is_not_a_number(capsys):
    rc, out = run(capsys, '=CPCPU_PER_MB("IUCV","9_000")')
    assert rc == 1 and out.startswith("#VALUE! size_bytes must be a number; got text '9_000'")
    # full-width digits are no number literal in a formula either
    assert cli.main(["eval", '=CPCPU_PER_MB("IUCV",\uff19\uff10\uff10\uff10)']) == 1
    got = capsys.readouterr()
    assert "0.012367" not in got.out and got.err.endswith(": not a formula Excel can read\n")
    assert parse_call('=CPCPU_PER_MB("IUCV",\uff19\uff10\uff10\uff10)') is None


def test_array_with_an_error_exits_1_and_gives_each_reason(capsys):
    rc, out = run(capsys, '=CPCPU_PER_MB("IUCV",{1500,9000;20000,1E9})')
    lines = out.splitlines()
    assert rc == 1
    assert lines[0] == "0.053393\t0.012367"                      # 000 Table 2
    assert lines[1].endswith("\t#NUM!")
    assert lines[2] == "unit: CPU-s/MB"
    assert lines[3].startswith("(2,2) #NUM! IUCV: size 1e+09 bytes is outside")
    assert len(lines) == 4
    rc, out = run(capsys, '=CPCPU_PER_MB("IUCV",{1500,9000})')
    assert rc == 0 and out == "0.053393\t0.012367\nunit: CPU-s/MB\n"


def test_basis_of_an_array_call_is_given_for_each_element(capsys):
    rc, out = run(capsys, '=CPCPU_PER_MB("IUCV",{9000;20000;1E9})', "--basis")
    lines = out.splitlines()
    assert rc == 1  # one element is an error
    assert lines[:4] == ["0.012367", lines[1], "#NUM!", "unit: CPU-s/MB"]
    basis = REGISTRY["ZVM_BASIS"]
    assert lines[4] == "(1,1) " + basis("CPCPU_PER_MB", "IUCV", 9000)
    assert lines[5] == "(2,1) " + basis("CPCPU_PER_MB", "IUCV", 20000)
    assert lines[5].startswith("(2,1) interpolated")
    assert lines[6].startswith("(3,1) #NUM! IUCV: size 1e+09 bytes")
    assert len(lines) == 7


def test_unknown_function_is_name_error_with_did_you_mean(capsys):
    rc, out = run(capsys, '=CPCPU_PER_M("IUCV",9000)')
    assert rc == 1
    assert out == ("#NAME? CPCPU_PER_M is neither a zvmplan function nor one the engine "
                   "implements (did you mean CPCPU_PER_MB?)\n")
    # IFERROR would turn the missing function into a plausible "none": not in eval
    rc, out = run(capsys, '=IFERROR(ZVMPLAN.TX_PER_SECS("OSA","RR",1492,1),"none")')
    assert rc == 1 and out.startswith("#NAME? ZVMPLAN.TX_PER_SECS is neither")
    assert "did you mean TX_PER_SEC?" in out
    rc, out = run(capsys, "=NOSUCHTHING(1)")
    assert rc == 1 and out.startswith("#NAME? NOSUCHTHING is neither") and "did you" not in out
    assert run(capsys, "=SUM(1,2)") == (0, "3\n")   # a builtin is known


def test_formula_text_helpers():
    assert called_functions('=IFERROR(F("G(1)",2),_xlfn.H(3))') == ["IFERROR", "F", "_xlfn.H"]
    assert called_functions('=LET(f,1,f(2))') == []
    assert outer_function('=ROUND(CPCPU_PER_MB("IUCV",9000),3)') == "ROUND"
    assert outer_function('=F(1)+G(2)') is None
    assert outer_function('=F(")")') == "F"
    assert did_you_mean("zvm_transport") == " (did you mean ZVM_TRANSPORTS?)"
    assert did_you_mean("QWERTY") == ""


def test_a_list_has_no_unit_and_exits_0(capsys):
    rc, out = run(capsys, "=ZVM_TRANSPORTS()")
    assert rc == 0
    assert out.splitlines() == list(np.asarray(REGISTRY["ZVM_TRANSPORTS"]()).reshape(-1))


def test_extrapolated_answer_is_marked(capsys):
    """1,500,000 bytes is beyond 000 Table 2's largest IUCV size: the answer comes from
    the cost fit and says so without --basis; a measured one (9000) is not marked; in an
    array only the extrapolated element is; --no-unit keeps stdout a number and says it
    on stderr."""
    assert run(capsys, '=CPCPU_PER_MB("IUCV",1500000)') == \
        (0, "0.00335083582761904 CPU-s/MB (extrapolated)\n")
    assert run(capsys, '=CPCPU_PER_MB("IUCV",9000)') == (0, "0.012367 CPU-s/MB\n")
    rc, out = run(capsys, '=CPCPU_PER_MB("IUCV",{9000,1500000})')
    assert rc == 0 and out.splitlines()[-2:] == ["unit: CPU-s/MB", "(1,2) (extrapolated)"]
    rc, out = run(capsys, '=CPCPU_PER_MB("IUCV",1500000)', "--basis")
    assert "(extrapolated)" not in out and out.splitlines()[1].startswith("extrapolated.")
    assert cli.main(["eval", "--no-unit", '=CPCPU_PER_MB("IUCV",1500000)']) == 0
    got = capsys.readouterr()
    assert got.out == "0.00335083582761904\n"
    assert got.err == "zvmplan: note: the answer is extrapolated (--basis says how)\n"


def test_syntax_error_names_its_position(capsys):
    """Excel refuses to enter =SUM(1,2 ("There's a problem with this formula"): eval
    says where instead of answering #NAME?; one line on stderr, exit 1."""
    for formula, why in (
            ("=SUM(1,2", "the ( at position 5 is never closed"),
            ('=CPCPU_PER_MB("IUCV",9000', "the ( at position 14 is never closed"),
            ("=SUM(1,2))", "the ) at position 10 closes nothing"),
            ('="abc', 'the text opened by " at position 2 is never closed'),
            ("=1+", "the formula ends with + at position 3: an operand is missing")):
        assert cli.main(["eval", formula]) == 1
        got = capsys.readouterr()
        assert got.out == "" and got.err == f"zvmplan: error: {formula}: syntax error: {why}\n"
    assert cli.main(["eval", "=1+*2"]) == 1
    assert capsys.readouterr().err == "zvmplan: error: =1+*2: not a formula Excel can read\n"

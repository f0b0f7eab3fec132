"""A workbook that calls every zvmplan function, recalculated headlessly by `zvmplan calc`:
published cells, IFERROR/ISERROR around errors, ranges, a defined name, a cross-sheet
reference and the xlwings Lite spelling, read back from the cached values."""
import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName

import zvmplan
import zvmplan_addin.functions  # noqa: F401
from zvmplan_addin.cli import main as cli
from zvmplan_addin.errors import ExcelError
from zvmplan_addin.calls import parse_call
from zvmplan_addin.registry import REGISTRY

OURS = [fn for fn in REGISTRY.values() if fn.impl.__module__ == "zvmplan_addin.functions"]


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("calc")
    wb = openpyxl.Workbook()
    inputs = wb.active
    inputs.title = "Inputs"
    inputs["A1"], inputs["A2"] = "IUCV", 9000
    for i, size in enumerate((1500, 9000, 32764), start=1):
        inputs[f"B{i}"] = size
    wb.defined_names["MTU_9000"] = DefinedName("MTU_9000", attr_text="Inputs!$A$2")
    calc = wb.create_sheet("Calc")
    cells = {
        "A1": "=CPCPU_PER_MB(Inputs!A1,MTU_9000)",
        "A2": '=TX_PER_SEC("OSA_GBE","CRR",1492,1,"4.3.0")',
        "A3": '=IFERROR(CPCPU_PER_MB("FOO",9000),"bad transport")',
        "A4": '=IFERROR(CPCPU_PER_MB("IUCV",1E9),-1)',
        "A5": '=ISERROR(TX_PER_SEC("IUCV","RR",9000,1))',
        "A6": '=ISNA(CPCPU_PER_TX("GUEST_LAN","RR",57344,50))',
        "A7": '=SUM(MB_PER_SEC("IUCV",Inputs!B1:B3))',
        "A8": '=CPCPU_PER_MB("IUCV",0)',
        "A9": '=_xldudf_ZVMPLAN_CPCPU_PER_MB("IUCV",9000)',
        "A10": '=CPCPU_PER_MB("IUCV",9000)*1000',
        "A11": "=ROWS(ZVM_TRANSPORTS())",
        "A12": '=CPCPU_PER_MB("IUCV",9000,,2)',
        "A13": '=ISNUMBER(MB_PER_SEC("IUCV",9000,,1E308))',
        "A14": '=IFERROR(MB_PER_SEC("IUCV",9000,,1E308),"overflow")',
        "A15": "=ROWS(CPCPU_PER_MB(\"IUCV\",Inputs!B1:B1048576))",
    }
    for ref, formula in cells.items():
        calc[ref] = formula
    for row, fn in enumerate(OURS, start=1):  # every function's own example
        calc.cell(row=row, column=4, value=fn.name)
        first = f"=INDEX({fn.example[1:]},1,1)" if fn.spill else fn.example  # one cell each
        calc.cell(row=row, column=5, value=first)
    src, out = tmp / "in.xlsx", tmp / "out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out)]) == 0
    return openpyxl.load_workbook(out, data_only=True), openpyxl.load_workbook(out)


def test_published_cells_through_names_and_sheets(recalculated):
    values, _ = recalculated
    c = values["Calc"]
    assert c["A1"].value == 0.012367          # 000 Table 2 via a defined name + another sheet
    assert c["A2"].value == 491.463           # 003 Table 2
    assert c["A9"].value == 0.012367          # as Excel stores an xlwings Lite function
    assert c["A10"].value == pytest.approx(12.367)


def test_errors_are_real_errors_that_iferror_catches(recalculated):
    c = recalculated[0]["Calc"]
    assert c["A3"].value == "bad transport"
    assert c["A4"].value == -1
    assert c["A5"].value is True
    assert c["A6"].value is True
    assert c["A8"].value == "#NUM!"


def test_a_range_argument(recalculated):
    assert recalculated[0]["Calc"]["A7"].value == pytest.approx(7.84 + 33.33 + 73.09)


def test_every_function_example_matches_the_model(recalculated):
    values, formulas = recalculated
    for row, fn in enumerate(OURS, start=1):
        name, args = parse_call(fn.example)
        want = REGISTRY[name](*args)
        if hasattr(want, "reshape"):
            want = want.reshape(-1)[0]
        got = values["Calc"].cell(row=row, column=5).value
        if isinstance(want, ExcelError):
            assert got == want.code, fn.name
        elif isinstance(want, str):
            assert got == want, fn.name
        else:
            assert got == pytest.approx(want, rel=1e-12), fn.name
        assert formulas["Calc"].cell(row=row, column=5).value.startswith(
            "=INDEX(" if fn.spill else fn.example)


def test_excels_readings_of_arrays_gaps_and_overflow(recalculated):
    """As in Excel: ROWS of a spilled array counts its rows (one per transport); a
    skipped argument reaches the add-in as missing (the default level, then speed factor
    2: half of 000 Table 2's 0.012367 CPU-s/MB); an overflow is an error ISNUMBER and
    IFERROR see; a whole-column range gives one answer per cell of the column."""
    c = recalculated[0]["Calc"]
    assert c["A11"].value == len(REGISTRY["ZVM_TRANSPORTS"]())
    assert c["A12"].value == pytest.approx(REGISTRY["CPCPU_PER_MB"]("IUCV", 9000, None, 2))
    assert c["A12"].value == pytest.approx(0.012367 / 2)
    assert c["A13"].value is False
    assert c["A14"].value == "overflow"
    assert c["A15"].value == 1_048_576


def test_eval_reads_a_formula_as_calc_does(capsys):
    assert cli(["eval", "=ABS(1E7)"]) == 0
    assert capsys.readouterr().out.strip() == "10000000"
    assert cli(["eval", "=ROWS(ZVM_TRANSPORTS())"]) == 0
    assert capsys.readouterr().out.strip() == str(len(REGISTRY["ZVM_TRANSPORTS"]()))


def test_formulas_are_kept(recalculated):
    _, formulas = recalculated
    assert formulas["Calc"]["A1"].value == "=CPCPU_PER_MB(Inputs!A1,MTU_9000)"


def test_against_the_model():
    assert zvmplan.per_mb("IUCV", 9000, "cp_cpusec_per_mb").value == 0.012367

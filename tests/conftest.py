"""Fixtures shared by several test files; the plain builders they use are in ``builders.py``."""
from __future__ import annotations

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula

from builders import ZT_FUNCTIONS, declare_zt_functions, save
from zvmplan_addin.registry import REGISTRY


@pytest.fixture(scope="module")
def zt_functions():
    """The ZT_ functions, in the registry for one module's tests only (other tests list the
    registry): a module uses it with ``pytestmark = pytest.mark.usefixtures("zt_functions")``."""
    declare_zt_functions()
    yield
    for name in ZT_FUNCTIONS:
        REGISTRY.pop(name, None)


@pytest.fixture
def planner(tmp_path):
    """Builtins and ZT_ functions, IFERROR, ranges, a defined name, a cross-sheet
    reference, an array formula, a spill, a blocked spill, a cycle, errors as input."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    inputs = wb.create_sheet("Inputs")
    inputs["A1"], inputs["B1"], inputs["B2"] = "rate", 1.5, 7
    wb.defined_names["Rate"] = DefinedName("Rate", attr_text="Inputs!$B$1")
    ws.append(["x", "factor", "scaled", "rounded", "iferror", "iserror"])
    for r, x in zip(range(2, 7), [1, 2, -1, 4, 5]):
        ws[f"A{r}"], ws[f"B{r}"] = x, 2
        ws[f"C{r}"] = f"=ZT_SCALE(A{r},B{r})"
        ws[f"D{r}"] = f"=ROUND(C{r}*Rate,2)"
        ws[f"E{r}"] = f'=IFERROR(ZT_SCALE(A{r},B{r}),"neg")'
        ws[f"F{r}"] = f"=ISERROR(C{r})"
    ws["G2"] = "=SUM(A2:A6)"
    ws["G3"] = "=ZT_SCALE(Inputs!B2)"
    ws["G4"] = "=Inputs!B1*2"
    ws["G5"] = "=SUM(C2:C6)"
    ws["G6"] = '=SUMPRODUCT((A2:A6>0)*A2:A6)'
    ws["H2"] = "=ZT_SCALE(A2:A4,10)"            # spills into H3:H4
    ws["I2"] = "=ZT_COLUMN()"                   # blocked by I3
    ws["I3"] = "in the way"
    ws["J2"] = '=ZT_NAME("missing")'
    ws["J3"] = '=ZT_NAME("bad")'
    ws["J4"] = "=ZT_NAME(A99)"
    ws["J5"] = '=ZT_NAME("abcd")'
    ws["K2"] = "=_xldudf_ZVMPLAN_ZT_SCALE(3)"
    ws["K3"] = "=_xludf.ZT_SCALE(4)"
    ws["K4"] = "=ZVMPLAN.ZT_SCALE(5)"
    ws["L2"] = ArrayFormula("L2:L4", "=A2:A4*2")
    ws["N2"], ws["N3"], ws["N4"] = "=N3*2", "=N4+1", "=A5"   # computed bottom-up
    ws["O2"], ws["O3"] = "=O3+1", "=O2+1"                    # a cycle
    ws["P2"] = '="IUCV"&"-"&A2'
    ws["Q2"] = "=A2>0"
    ws["R2"] = "=ZT_SCALE(#N/A)"
    ws["R3"] = "=ZT_SCALE(1/0)"
    ws["R4"] = "=ZT_SCALE(S2)"                               # an error cell as input
    ws["S2"] = "=1/0"
    ws["T2"] = "=ISERROR(ZT_NAME(\"missing\"))"
    ws["T3"] = "=IFERROR(ZT_NAME(\"bad\"),-1)"
    ws["U2"] = "=ZT_SCALE(A2)+ZT_SCALE(A2)"                  # one reference twice
    return save(wb, tmp_path / "planner.xlsx")



@pytest.fixture
def data_book():
    """Data!A1:A100 = 1..100, B = 2*A, C = "k<n>"; row 1 also has D1 = 7."""
    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "Data"
    for r in range(1, 101):
        data.cell(r, 1, r)
        data.cell(r, 2, 2 * r)
        data.cell(r, 3, f"k{r}")
    data["D1"] = 7
    return wb

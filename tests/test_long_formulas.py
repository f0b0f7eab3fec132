"""Long formulas and many defined names cost in proportion to what a formula uses (issue 19).

A formula of ~8,100 characters (within Excel's 8,192) took ~2.7 s; formulas' parser tried
every earlier name for each new operator and looked for each ``+``/``-`` in all the
tokens before it (:mod:`zvmplan_addin.recalc.parsecost`). Defined names are inlined per
use (:mod:`zvmplan_addin.recalc.names`): 20,000 unused names do not slow a formula."""
from __future__ import annotations

import gc
import tracemalloc

import openpyxl
import pytest
from schedula.utils.graph import DiGraph
from schedula.utils.utl import get_unused_node_id

from zvmplan_addin.cli import main as cli
from zvmplan_addin.recalc import calc, parsecost
from zvmplan_addin.recalc.install import install_functions
from builders import recalc_cells


class _CountingNodes(dict):
    probes = 0

    def __contains__(self, key):
        type(self).probes += 1
        return super().__contains__(key)


def test_node_names_are_schedulas_and_found_in_linear_work():
    """The names :func:`unused_node_id` gives are the ones schedula's own search gives
    (``+``, ``+<0>``, ``+<1>``, ...), and naming 2,000 nodes ``+`` (adding each) looks up 5 names each
    instead of about 1,000."""
    ours, theirs = DiGraph(), DiGraph()
    ours.nodes = _CountingNodes()
    for _ in range(2_000):
        a, b = parsecost.unused_node_id(ours, "+"), get_unused_node_id(theirs, "+")
        assert a == b
        ours.add_node(a)
        theirs.add_node(b)
    assert _CountingNodes.probes < 10 * 2_000  # schedula's search: ~2,000,000


def test_a_name_freed_at_the_same_address_is_found_again():
    """A new graph whose nodes happen to sit where an old graph's did is searched from
    the start: the remembered position is used only while the name before it is taken."""
    g = DiGraph()
    for _ in range(5):
        g.add_node(parsecost.unused_node_id(g, "x"))
    g.nodes.clear()  # same dict, names gone
    assert parsecost.unused_node_id(g, "x") == "x"
    g.add_node("x")
    assert parsecost.unused_node_id(g, "x") == "x<0>"


@pytest.mark.parametrize("formula, value", [
    ("=-2^2", 4), ("=1--1", 2), ("=1+-+-1", 2), ("=-(1)-1", -2), ("=2*-3", -6),
    ("=50%-1", -0.5), ("=-A1+A1*-1", -6), ("=(-A1)-(+A1)", -6), ("=+A1", 3)])
def test_unary_and_binary_signs_read_as_excel_reads_them(tmp_path, formula, value):
    """Each ``+``/``-`` is read as a sign or an operation from the token just before it
    (Excel: a sign binds tighter than ^, so -2^2 is 4)."""
    assert recalc_cells(tmp_path, {"A1": 3, "B1": formula})["B1"] == value


def _long_formula(terms: int) -> str:
    return "=" + "+".join(f"A1*{k}" for k in range(1, terms))


def test_a_formula_of_8085_characters_is_computed_and_its_memory_released(tmp_path):
    """1,149 terms A1*k added up (8,085 characters, under Excel's 8,192): the sum
    A1 x 1 + ... + A1 x 1149, computed; once calc returns, the compiled formula (about
    24 MB of formulas' graph while it runs) is let go: under 1 MB stays allocated."""
    install_functions()
    formula = _long_formula(1_150)
    assert len(formula) == 8_085
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["B1"] = 2, formula
    src, out = tmp_path / "long.xlsx", tmp_path / "long_out.xlsx"
    wb.save(src)
    gc.collect()
    tracemalloc.start()
    try:
        calc(src, out)
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert openpyxl.load_workbook(out, data_only=True).active["B1"].value == \
        2 * sum(range(1, 1_150))
    assert kept < 2**20


def test_20000_defined_names_cost_only_the_names_used(tmp_path):
    """20,000 names (a 100 KB file ran over 300 s when each compile got the whole name
    table): 300 formulas each using one name are computed, each its own value."""
    from openpyxl.workbook.defined_name import DefinedName
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i in range(20_000):
        wb.defined_names[f"nm{i}"] = DefinedName(f"nm{i}", attr_text=f"S!$A${i % 300 + 1}")
    for r in range(1, 301):
        ws.cell(r, 1, r)
        ws.cell(r, 2, f"=A{r}*2+nm{r + 1}")
    src, out = tmp_path / "names.xlsx", tmp_path / "names_out.xlsx"
    wb.save(src)
    gc.collect()
    tracemalloc.start()
    try:
        assert cli(["calc", str(src), "-o", str(out), "-q"]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    got = openpyxl.load_workbook(out, data_only=True)["S"]
    # nm{r+1} is S!$A${(r+1) % 300 + 1}: A(r+2) below row 299, then A1, A2
    assert [got.cell(r, 2).value for r in range(1, 301)] == \
        [r * 2 + ((r + 1) % 300 + 1) for r in range(1, 301)]
    assert peak < 200 * 2**20

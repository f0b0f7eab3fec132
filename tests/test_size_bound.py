"""The size bound, estimated from the package before any sheet is parsed (issue 19).

A fixed budget of 2 million cells refused a legitimate 250,000-row plan (3.5 million
cells) after 8 CPU-s and 735 MB of parsing. The bound is now the memory the machine has
(or ``ZVMPLAN_MEMORY``), against an estimate made from each sheet part's bytes: a sample
of each before anything is inflated, then an exact count of its ``<c`` and ``<f``."""
from __future__ import annotations

import resource

import openpyxl
import pytest

from zvmplan_addin.cli import main as cli
from zvmplan_addin.xlsx import UnsafeWorkbookError, package, safe_open_xlsx, sheet, size
from zvmplan_workbook import planner_sheet

ROWS = 2_000


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    """The benchmarks' planner sheet (workbook/planner_sheet.py), 2,000 rows."""
    return planner_sheet.write(tmp_path_factory.mktemp("size") / "plan.xlsx", ROWS)


def _estimate(path) -> size.Estimate:
    with safe_open_xlsx(path, parse_sheets=False) as pkg:
        return size.estimate([pkg.read(n) for n in pkg.infos
                              if n.startswith("xl/worksheets/")])


def test_the_count_is_the_cells_and_formulas_the_reader_reads(plan):
    """The byte count of ``<c`` and ``<f`` is what the reader files: 14 cells a row and the
    header, nine formulas a row, and the Rates sheet's 18 cells (``<cols>``-free parts
    written by openpyxl count exactly)."""
    est = _estimate(plan)
    with safe_open_xlsx(plan, parse_sheets=False) as pkg:
        book = sheet.read_workbook(pkg)
    read = sum(len(s.values) + len(s.formulas) for s in book.sheets)
    assert est.cells == read == (ROWS + 1) * 14 + 18
    assert est.formulas == sum(len(s.formulas) for s in book.sheets) == ROWS * 9


def test_the_one_pass_count_is_bytes_count(monkeypatch):
    """The numpy count of an unprefixed part gives what three ``bytes.count`` passes
    give, on random mixes of the needles' bytes (ends and step edges included)."""
    import random
    monkeypatch.setattr(size, "_COUNT_STEP", 7)
    rng = random.Random(19)
    for _ in range(300):
        data = bytes(rng.choice(b"<<<cfv >/\x00") for _ in range(rng.randrange(0, 40)))
        assert size._counted(data) == (data.count(b"<c ") + data.count(b"<c>"),
                                       data.count(b"<f")), data
    monkeypatch.setattr(size, "_COUNT_STEP", 3)
    assert size.count_cells(b"<sheetData><c r=\"A1\"><f>1</f></c><c>") == (2, 1)


def test_a_prefixed_sheet_is_counted_by_its_prefix():
    data = (b'<x:worksheet xmlns:x="s"><x:sheetData><x:row r="1"><x:c r="A1"><x:f>1+1</x:f>'
            b'</x:c><x:c r="B1"><x:v>2</x:v></x:c></x:row></x:sheetData></x:worksheet>')
    assert size.count_cells(data) == (2, 1)


def test_the_250000_row_plan_fits_a_machine_that_holds_it(monkeypatch):
    """Measured: the 250,000-row planner sheet (3,500,032 cells, 2,250,000 formulas,
    209 MB of sheet XML) took 2,091 MiB at its peak and 32 CPU-s, computed. Its estimate is
    at least that and is accepted with 4 GB; with 2 GB it is refused, in one line."""
    est = size.Estimate(3_500_032, 2_250_000, 209_225_161)
    assert 2_141_460 * 1024 <= est.memory <= 2.5 * 2**30
    assert est.cells <= sheet.MAX_CELLS
    monkeypatch.setenv(size.ENV, "4G")
    size.check_memory(est, "plan.xlsx")
    monkeypatch.setenv(size.ENV, "2G")
    with pytest.raises(UnsafeWorkbookError) as exc:
        size.check_memory(est, "plan.xlsx")
    assert str(exc.value) == (
        "plan.xlsx: recalculating 3,500,032 cells (2,250,000 formulas) needs about 2.1 GB of "
        "memory and 2.0 GB is ZVMPLAN_MEMORY=2G; split the workbook, free memory, or set "
        "ZVMPLAN_MEMORY if more can be used (docs/engine.md)")


def test_a_plan_the_memory_holds_is_computed(plan, tmp_path, monkeypatch):
    """Just above its estimate the plan is computed, every formula: N2 is row 2's share
    of column I, and the shares add up to 1."""
    est = _estimate(plan)
    monkeypatch.setenv(size.ENV, str(est.memory + 2**20))
    out = tmp_path / "out.xlsx"
    assert cli(["calc", str(plan), "-o", str(out), "-q"]) == 0
    ws = openpyxl.load_workbook(out, data_only=True, read_only=True)["Plan"]
    shares = [row[13] for row in ws.iter_rows(min_row=2, values_only=True)]
    assert len(shares) == ROWS and abs(sum(shares) - 1) < 1e-12


def test_a_plan_just_over_the_memory_is_refused_before_parsing(plan, tmp_path, monkeypatch,
                                                               capsys):
    """Just below its estimate (inside the sample's margin): the exact count refuses it,
    in one line, before any sheet is parsed."""
    est = _estimate(plan)
    monkeypatch.setenv(size.ENV, str(est.memory - 2**20))
    parsed = []
    monkeypatch.setattr(sheet, "read_sheet", lambda *a, **k: parsed.append(a))
    out = tmp_path / "out.xlsx"
    assert cli(["calc", str(plan), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bug" not in err
    assert f"recalculating {est.cells:,} cells ({est.formulas:,} formulas) needs about" in err
    assert parsed == [] and not out.exists()


def test_a_plan_far_over_the_memory_is_refused_before_inflating(plan, tmp_path, monkeypatch,
                                                                capsys):
    """Far over (the sample's estimate over 1.5 times the memory): refused from a sample
    of each sheet part, nothing inflated, little memory used."""
    monkeypatch.setenv(size.ENV, "60M")
    inflated = []
    original = package.XlsxPackage._inflate
    monkeypatch.setattr(package.XlsxPackage, "_inflate",
                        lambda self, info: inflated.append(info.filename) or
                        original(self, info))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert cli(["calc", str(plan), "-o", str(tmp_path / "out.xlsx")]) == 1
    err = capsys.readouterr().err
    assert "recalculating about" in err and "60M" in err and err.count("\n") == 1
    assert inflated == []
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 20_000  # KB


def test_more_cells_than_the_work_bound_are_refused_before_parsing(plan, monkeypatch):
    monkeypatch.setattr(sheet, "MAX_CELLS", 1_000)
    with safe_open_xlsx(plan) as pkg, \
            pytest.raises(UnsafeWorkbookError, match=r"more than 1,000 cells in the sheets "
                                                     r"\(28,032\); refused"):
        sheet.read_workbook(pkg)


@pytest.mark.parametrize("given, size_bytes", [("4G", 4 * 2**30), ("1500M", 1500 * 2**20),
                                               ("512MiB", 512 * 2**20), ("2000000", 2_000_000)])
def test_memory_override(monkeypatch, given, size_bytes):
    monkeypatch.setenv(size.ENV, given)
    assert size.available_memory() == (size_bytes, f"ZVMPLAN_MEMORY={given}")


def test_a_bad_memory_override_is_one_line(plan, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(size.ENV, "lots")
    assert cli(["calc", str(plan), "-o", str(tmp_path / "o.xlsx")]) == 1
    err = capsys.readouterr().err
    assert "ZVMPLAN_MEMORY='lots' is not an amount of memory" in err and err.count("\n") == 1


def test_the_machine_memory_is_read(monkeypatch):
    """Without the override: /proc/meminfo's MemAvailable (Linux), plus this process."""
    monkeypatch.delenv(size.ENV, raising=False)
    have, source = size.available_memory()
    assert source == "available on this machine" and have > 2**20


def test_cells_hidden_from_the_count_are_bounded_by_the_reader(tmp_path, monkeypatch):
    """Cells written ``<c/>`` (no attributes, no content: the byte count does not see
    them) still count in the reader, which stops at the cells the memory holds at
    :data:`~size.BYTES_PER_CELL` each: here 60."""
    from builders import make_xlsx
    path = make_xlsx(tmp_path / "hidden.xlsx", '<row r="1">' + "<c/>" * 100 + "</row>")
    monkeypatch.setenv(size.ENV, str(size.BASE_BYTES + 60 * size.BYTES_PER_CELL))
    assert size.cell_budget() == 60
    with safe_open_xlsx(path, parse_sheets=False) as pkg, \
            pytest.raises(UnsafeWorkbookError, match="more than 60 cells in the sheets"):
        sheet.read_workbook(pkg)
    monkeypatch.setenv(size.ENV, str(size.BASE_BYTES + 100 * size.BYTES_PER_CELL))
    with safe_open_xlsx(path, parse_sheets=False) as pkg:
        sheet.read_workbook(pkg)


def test_the_bounding_box_from_the_dimension_or_the_last_row(plan):
    """A sheet's cells between its first and last (dense grid up to 8 million, else dicts
    at about 380 bytes a cell): from ``<dimension ref>``, else (openpyxl's write-only
    mode writes none) from the last row's number and the widest reference."""
    assert size.bounding_cells(b'<worksheet><dimension ref="B2:D10"/><sheetData/>') == 27
    assert size.bounding_cells(b'<x:dimension ref="A1"/>') == 1
    with safe_open_xlsx(plan, parse_sheets=False) as pkg:
        data = pkg.read("xl/worksheets/sheet1.xml")
    assert b"<dimension" not in data
    assert size.bounding_cells(data) == (ROWS + 1) * 14
    assert size.bounding_cells(data, whole=False) is None
    assert size.bounding_cells(b"<sheetData><row><c><v>1</v></c></row></sheetData>") is None
    no_box = size.estimate([b"<sheetData><row><c><v>1</v></c></row></sheetData>"])
    assert no_box.sparse_cells == 1 and \
        no_box.memory == size.BASE_BYTES + size.BYTES_PER_CELL + size.BYTES_PER_SPARSE_CELL + 49


def test_a_sheet_larger_than_its_dimension_says_is_checked_again_once_read(tmp_path,
                                                                         monkeypatch):
    """A dimension of A1:C4 over cells at A1 and XFD1048576: priced dense before parsing,
    as kept in dicts once read (the engine keeps such a sheet in dicts), and refused
    then if the memory does not hold that."""
    from builders import make_xlsx
    rows = ('<row r="1"><c r="A1"><v>3</v></c></row>'
            '<row r="1048576"><c r="XFD1048576"><v>4</v></c></row>')
    path = make_xlsx(tmp_path / "lying.xlsx", rows)
    with safe_open_xlsx(path, parse_sheets=False) as pkg:
        before = size.estimate([pkg.read("xl/worksheets/sheet1.xml")])
    assert (before.cells, before.sparse_cells) == (2, 0)
    monkeypatch.setenv(size.ENV, str(before.memory))
    with safe_open_xlsx(path, parse_sheets=False) as pkg, \
            pytest.raises(UnsafeWorkbookError, match=r"recalculating 2 cells \(0 formulas\)"):
        sheet.read_workbook(pkg)
    monkeypatch.setenv(size.ENV, str(before.memory + 2 * size.BYTES_PER_SPARSE_CELL))
    with safe_open_xlsx(path, parse_sheets=False) as pkg:
        assert sheet.read_workbook(pkg).sheets[0].values == {(1, 1): 3.0, (1048576, 16384): 4.0}


def test_an_address_space_limit_counts(monkeypatch):
    """Under ``ulimit -v`` (the corpus score runs each workbook so) the room left in the
    address space bounds the memory too: a workbook over it is refused in one line, not
    ended by a MemoryError."""
    import re
    monkeypatch.delenv(size.ENV, raising=False)
    vm = int(re.search(r"^VmSize:\s+(\d+) kB", open("/proc/self/status").read(), re.M)[1])
    limit = vm * 1024 + 50 * 2**20        # 50 MiB more than this process maps now
    monkeypatch.setattr(resource, "getrlimit", lambda which: (limit, limit))
    have, _ = size.available_memory()
    assert have <= 50 * 2**20 + size._own_memory() + 2**20
    with pytest.raises(UnsafeWorkbookError, match="needs about"):
        size.check_memory(size.Estimate(have // size.BYTES_PER_CELL, 0, 0), "big.xlsx")
    size.check_memory(size.Estimate((have - size.BASE_BYTES) // size.BYTES_PER_CELL, 0, 0),
                      "fits.xlsx")

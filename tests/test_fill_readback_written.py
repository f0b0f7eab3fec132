"""``fill`` reads its results from what the engine's writer was given
(``calc(..., written=...)``, :func:`zvmplan_workbook.readback._written_rows`), not from
the file: the rows are the rows read from the written file -- by the fast file reader
and by openpyxl -- tuple for tuple and type for type (int or float as written, text,
errors, None), on plans of several shapes; anything the splice would not write gives
way to the file; under ``ZVMPLAN_ENGINE_CHECK`` both are read and a difference is a
visible warning; fill's printed results are the same either way."""
from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import openpyxl
import pytest

import builders
from builders import same_rows as same
from zvmplan_addin.cli import main as cli
from zvmplan_workbook import fill, machine, readback, results
from zvmplan_workbook.template import packaged_template

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NAMES = ["Planner", "Scenarios"]


def openpyxl_rows(path, names=NAMES) -> dict[str, list[tuple]]:
    return builders.openpyxl_rows(path, names)


@contextlib.contextmanager
def capture_written(monkeypatch):
    """What fill hands results.read: the dict the engine filled (``got["written"]``)."""
    got = {}
    read = results.read

    def spy(out, sheet="Planner", written=False):
        got["written"] = written
        return read(out, sheet, written)
    monkeypatch.setattr(results, "read", spy)
    yield got


def fill_plan(monkeypatch, out, links, scenarios=None, template=None, target=None):
    with capture_written(monkeypatch) as got:
        rep = fill.fill(template, links, out, scenarios, machine=target)
    return rep, got["written"]


def written_rows(out, written) -> dict[str, list[tuple]]:
    """Each sheet's rows made from what the writer was given -- never from the file
    (:class:`readback._Unknown` if the fast path would give way)."""
    import zipfile
    from openpyxl.reader.strings import read_string_table
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        strings = read_string_table(io.BytesIO(z.read("xl/sharedStrings.xml"))) \
            if "xl/sharedStrings.xml" in names else []
    out_rows = {}
    for name in NAMES:
        part = written[name]
        assert part is not None and part.updates is not None, f"{name}: no values cached"
        out_rows[name] = readback._written_rows(part, strings, set())
    return out_rows


def write_links(path: Path, rows: list[list[str]]) -> Path:
    import csv
    header = (EXAMPLES / "links.csv").read_text(encoding="utf-8").splitlines()[0]
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header.split(","))
        w.writerows(rows)
    return path


def example_rows() -> list[list[str]]:
    lines = (EXAMPLES / "links.csv").read_text(encoding="utf-8").splitlines()[1:]
    return [ln.split(",") for ln in lines if ln.strip()]


def many_links(path: Path, n: int) -> Path:
    base = example_rows()
    return write_links(path, [[f"link {i + 1}"] + base[i % len(base)][1:] for i in range(n)])


def odd_links(path: Path) -> Path:
    """Names holding what XML escapes (a carriage return is refused: test_fill), spaces
    at the ends, letters
    beyond ASCII, a very long name, an Excel error's text; loads integral, huge, tiny."""
    base = example_rows()
    names = ["a & b <c> \"d\" 'e' ]]>", "&amp; &#13; already", "  padded  ",
             "Zürich→Genève 漢字 😀", "x" * 2000, "#N/A", "=1+2", "_x0041_ looks escaped",
             "nbsp\u00a0inside", "TRUE"]
    loads = ["1", "1.0", "123456789012345", "1e-9", "0.1", "1e300", "7", "2.5", "1E3", "3"]
    rows = []
    for i, (name, load) in enumerate(zip(names, loads)):
        row = list(base[i % len(base)])
        row[0], row[-1] = name, load
        rows.append(row)
    return write_links(path, rows)


def check_shape(monkeypatch, tmp_path, links, scenarios=None, template=None, target=None):
    out = tmp_path / "plan.xlsx"
    rep, written = fill_plan(monkeypatch, out, links, scenarios, template, target)
    fast = written_rows(out, written)
    assert same(fast, readback.sheet_rows(out, NAMES)), "differs from the file's fast read"
    assert same(fast, openpyxl_rows(out)), "differs from openpyxl's read of the file"
    assert rep.results == results.read(out)
    return rep, fast


def test_a_thousand_links(monkeypatch, tmp_path):
    """1,000 links without scenarios: every row and value as the file holds it."""
    rep, fast = check_shape(monkeypatch, tmp_path, many_links(tmp_path / "l.csv", 1000))
    assert len(rep.results.links) == 1000 and len(fast["Planner"]) > 1000
    kinds = {type(v) for r in fast["Planner"] for v in r}
    assert {int, float, str, type(None)} <= kinds  # inputs as written, formulas' floats


def test_with_scenarios(monkeypatch, tmp_path):
    """The example with its scenarios: the Scenarios sheet grown, served the same way."""
    rep, fast = check_shape(monkeypatch, tmp_path, EXAMPLES / "links.csv",
                            EXAMPLES / "scenarios.toml")
    assert len(rep.results.scenarios) == 3 and rep.results.scenarios[0].links


def test_shop_with_scenarios(monkeypatch, tmp_path):
    check_shape(monkeypatch, tmp_path, Path(__file__).parent / "data" / "shop42_links.csv",
                Path(__file__).parent / "data" / "shop42_scenarios.toml")


def test_with_a_target_machine(monkeypatch, tmp_path):
    """--capacity: the links and totals on a target machine."""
    target = machine.parse("9672-XZ7=8,2064-108=4,2084-C24=1,2064-109=3", "--capacity")
    rep, _ = check_shape(monkeypatch, tmp_path, EXAMPLES / "shop42.csv",
                         EXAMPLES / "scenarios.toml", target=target)
    assert rep.results.links


def test_odd_texts_and_numbers(monkeypatch, tmp_path):
    """Texts with &, <, CR, spaces at the ends, unicode, 2,000 characters, an error's
    text; numbers integral, huge and tiny: the values openpyxl reads, types included."""
    rep, fast = check_shape(monkeypatch, tmp_path, odd_links(tmp_path / "odd.csv"))
    links = [link["link"] for link in rep.results.links]
    assert "a & b <c> \"d\" 'e' ]]>" in links and "x" * 2000 in links
    assert any("漢字" in n for n in links)
    loads = [link["load"] for link in rep.results.links]
    assert 1 in loads and any(type(v) is int for v in loads) \
        and any(type(v) is float for v in loads)


def test_a_users_template_resaved(monkeypatch, tmp_path):
    """A template saved again by another program (openpyxl: shared strings, its own
    spelling of every part): the rows are still the file's, whichever path reads them."""
    wb = openpyxl.load_workbook(packaged_template())
    own = tmp_path / "own.xlsx"
    wb.save(own)
    out = tmp_path / "plan.xlsx"
    try:
        rep, written = fill_plan(monkeypatch, out, EXAMPLES / "links.csv",
                                 EXAMPLES / "scenarios.toml", template=own)
    except fill.FillError as exc:  # refused as the reference refuses it: nothing to read
        pytest.skip(f"the resaved template is refused: {exc}")
    got = readback.sheet_rows(out, NAMES, written)
    slow = openpyxl_rows(out)
    assert got is not None and same(got, slow)  # served from the writing, as the file
    assert rep.results == results.read(out)


def test_a_date_format_gives_way_to_the_file(monkeypatch, tmp_path):
    """A number format of a date in the styles: the formula cells' formats are not read
    on the written path, so it gives way (and the file is read)."""
    out = tmp_path / "plan.xlsx"
    _, written = fill_plan(monkeypatch, out, EXAMPLES / "links.csv")
    with pytest.raises(readback._Unknown):
        readback._written_rows(written["Planner"], [], {14})


def _tampered(written, name, change):
    part = written[name]
    return {**written, name: part._replace(**change(part))}


@pytest.mark.parametrize("what", ["no layout", "a row noted elsewhere",
                                  "a column noted elsewhere", "array formula"])
def test_what_the_written_path_does_not_know_gives_way(monkeypatch, tmp_path, what):
    """Each gives :class:`readback._Unknown` on the written path: that sheet is read
    from the file, as without it (the same rows, the same Results)."""
    out = tmp_path / "plan.xlsx"
    _, written = fill_plan(monkeypatch, out, EXAMPLES / "links.csv")
    part = written["Planner"]
    first = next(iter(part.layout))             # (row, col, c0, v0, v1, flags)
    if what == "no layout":
        bad = _tampered(written, "Planner", lambda p: {"layout": None})
    elif what == "a row noted elsewhere":   # the enclosing row renumbered, same length
        r = str(first[0]).encode()
        at = part.data.rfind(b'<row r="' + r + b'"', 0, first[2])
        new = str(first[0] + 1).encode() if len(str(first[0] + 1)) == len(r) else None
        assert at >= 0 and new is not None
        data = part.data[:at] + b'<row r="' + new + part.data[at + 8 + len(r):]
        bad = _tampered(written, "Planner", lambda p: {"data": data})
    elif what == "a column noted elsewhere":   # the cell's r names another column
        c0 = first[2]
        letter = part.data[c0 + 6:c0 + 7]
        other = b"A" if letter != b"A" else b"B"
        data = part.data[:c0 + 6] + other + part.data[c0 + 7:]
        bad = _tampered(written, "Planner", lambda p: {"data": data})
    else:  # the updates as a dict with an array formula among them
        from zvmplan_addin.xlsx import CellUpdate
        rows = part.updates.as_dict()
        r = next(iter(rows))
        c = next(iter(rows[r]))
        rows[r][c] = CellUpdate(rows[r][c], "A1:A2")
        bad = _tampered(written, "Planner", lambda p: {"updates": rows})
    if what in ("a row noted elsewhere", "a column noted elsewhere"):
        assert bad["Planner"].layout.size == len(bad["Planner"].data)  # offsets still hold
    with pytest.raises(readback._Unknown):
        readback._written_rows(bad["Planner"], [], set())
    assert same(readback.sheet_rows(out, NAMES, bad), readback.sheet_rows(out, NAMES))
    assert results.read(out, written=bad) == results.read(out)


def test_the_check_reads_both_and_says_so_when_they_differ(monkeypatch, tmp_path):
    """ZVMPLAN_ENGINE_CHECK: the rows from the engine's writing are compared with the
    file's; a difference (here made on purpose) is a one-line warning naming the cell,
    and the plan shows no results rather than the differing ones."""
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    rep = fill.fill(None, EXAMPLES / "links.csv", tmp_path / "ok.xlsx")
    assert rep.results is not None
    assert not any("ZVMPLAN_ENGINE_CHECK" in w for w in rep.warnings)
    cached = readback._cached_as_read

    def wrong(values, strings, dates):
        out = cached(values, strings, dates)
        k = next((i for i, v in enumerate(out.tolist()) if type(v) is float), None)
        if k is not None:
            out[k] = out[k] + 1.0
        return out
    monkeypatch.setattr(readback, "_cached_as_read", wrong)
    rep = fill.fill(None, EXAMPLES / "links.csv", tmp_path / "bad.xlsx")
    said = [w for w in rep.warnings if "ZVMPLAN_ENGINE_CHECK" in w]
    assert rep.results is None and len(said) == 1 and "Planner!" in said[0]


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_fill_prints_the_same_either_way(monkeypatch, tmp_path, fmt):
    """``zvmplan fill`` prints the same bytes and exits the same with the results read
    from the engine's writing and from the file."""
    links = EXAMPLES / "links.csv"

    def run(where):
        where.mkdir()
        monkeypatch.chdir(where)  # the same output name printed
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = cli(["fill", "--links", str(links), "--scenarios",
                      str(EXAMPLES / "scenarios.toml"), "-o", "plan.xlsx",
                      "--format", fmt, "--rows", "0"])
        return rc, re.sub(r"in [0-9.]+ s", "in _ s", buf.getvalue())  # (its own time)
    fast = run(tmp_path / "fast")
    read = results.read
    monkeypatch.setattr(results, "read", lambda out, sheet="Planner", written=False:
                        read(out, sheet, bool(written)))   # the file read, as before
    slow = run(tmp_path / "slow")
    assert fast == slow and fast[1].strip()
    if fmt == "json":
        assert json.loads(fast[1])["links"]


def _calc_written(tmp_path, dimension: bytes | None, rows: int = 100):
    """A small workbook (Planner: a number and a formula a row) calculated by the engine,
    its Planner's ``<dimension>`` first set to ``dimension``: (output, written parts)."""
    import re as _re
    import zipfile
    from zvmplan_addin.recalc import engine
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Planner"
    for r in range(1, rows + 1):
        ws.cell(r, 1, r)
        ws.cell(r, 2, f"=A{r}*2")
    src = tmp_path / "src.xlsx"
    wb.save(src)
    if dimension is not None:
        with zipfile.ZipFile(src) as z:
            entries = {i.filename: z.read(i.filename) for i in z.infolist()}
        part = "xl/worksheets/sheet1.xml"
        entries[part] = _re.sub(rb'<dimension ref="[^"]*"', b'<dimension ref="' + dimension
                                + b'"', entries[part])
        with zipfile.ZipFile(src, "w", zipfile.ZIP_DEFLATED) as z:
            for n, data in entries.items():
                z.writestr(n, data)
    written = {"Planner": None}
    out = tmp_path / "out.xlsx"
    engine.calc(src, out, written=written)
    return out, written


def test_a_workbook_the_engine_calculated(tmp_path):
    """Any workbook the engine writes: its rows from the writing are openpyxl's."""
    out, written = _calc_written(tmp_path, None)
    fast = readback._written_rows(written["Planner"], [], set())
    assert same({"Planner": fast}, openpyxl_rows(out, ["Planner"]))
    assert fast[4] == (5, 10.0)       # the number as written (int), the formula's float


def test_a_dimension_far_beyond_the_cells_gives_way(tmp_path):
    """A dimension as wide as the sheet over 100 rows of two cells: the written path
    makes no arrays of 1.6 million cells for it; the file is read as before."""
    out, written = _calc_written(tmp_path, b"A1:XFD100")
    with pytest.raises(readback._Unknown, match="far beyond"):
        readback._written_rows(written["Planner"], [], set())
    got = readback.sheet_rows(out, ["Planner"], written)
    assert got is not None and len(got["Planner"]) == 100 and len(got["Planner"][0]) == 16384

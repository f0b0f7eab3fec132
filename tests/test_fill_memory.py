"""fill hands the engine the filled template's parts in memory
(:func:`zvmplan_addin.xlsx.open_parts`) instead of a zip written and read back: the
plan is the same bytes as the engine's from that file, and the parts pass the same
checks, with the same one-line refusals, as the file does through safe_open_xlsx."""
from __future__ import annotations

from pathlib import Path

import pytest

from zvmplan_addin import recalc, xlsx
from zvmplan_addin.xlsx import package
from zvmplan_workbook import fill, xlsxio
from zvmplan_workbook.rows import grow
from zvmplan_workbook.template import packaged_template

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
WHEN = xlsxio.WHEN.timetuple()[:6]


def test_the_plan_is_the_engines_plan_of_the_written_file(tmp_path):
    """The same links and scenarios: fill's plan (parts in memory) is byte for byte
    the plan the engine writes from the zip write_inputs writes (the former path)."""
    links = fill.read_links(EXAMPLES / "links.csv")
    scen = fill.read_scenarios(EXAMPLES / "scenarios.toml")
    fill.fill(None, EXAMPLES / "links.csv", tmp_path / "memory.xlsx",
              EXAMPLES / "scenarios.toml")
    cells = fill.input_cells(links, scen, None, None)
    xlsxio.write_inputs(packaged_template(), tmp_path / "inputs.xlsx", cells,
                        prepare=lambda parts: grow(parts, len(links), fill.added_inputs(links),
                                                   scenarios=True))
    recalc.calc(tmp_path / "inputs.xlsx", tmp_path / "file.xlsx", keep_stale=False)
    assert (tmp_path / "memory.xlsx").read_bytes() == (tmp_path / "file.xlsx").read_bytes()


def parts_of_template() -> list[tuple[str, bytes]]:
    return xlsxio.input_parts(packaged_template(), {})


def refusal_from_file(tmp_path, parts) -> str:
    path = tmp_path / "t.xlsx"
    xlsxio.write_zip(path, parts, xlsxio.WHEN)
    with pytest.raises(xlsx.UnsafeWorkbookError) as exc:
        xlsx.safe_open_xlsx(path, parse_sheets=False).close()
    return str(exc.value).replace("t.xlsx", "LABEL")


def refusal_from_memory(parts) -> str:
    with pytest.raises(xlsx.UnsafeWorkbookError) as exc:
        xlsx.open_parts("LABEL", parts, WHEN).close()
    return str(exc.value)


def with_part(parts, name, data):
    return [(n, data if n == name else d) for n, d in parts]


@pytest.mark.parametrize("hostile", ["dtd", "bad xml", "no workbook", "too large"])
def test_hostile_parts_are_refused_as_the_file_is(tmp_path, monkeypatch, hostile):
    """A DTD in a part, a part that is not well-formed XML, a package without its
    workbook part, a part over the size bound: refused in memory with the line the
    file gets from safe_open_xlsx."""
    parts = parts_of_template()
    if hostile == "dtd":
        parts = with_part(parts, "docProps/app.xml",
                          b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')
    elif hostile == "bad xml":
        parts = with_part(parts, "docProps/app.xml", b"<x><y></x>")
    elif hostile == "no workbook":
        parts = [(n, d) for n, d in parts if n != "xl/workbook.xml"]
    else:
        monkeypatch.setattr(package, "MAX_PART_BYTES", 50_000)
    assert refusal_from_memory(parts) == refusal_from_file(tmp_path, parts)


def test_the_package_reads_as_the_file(tmp_path):
    """Every part, its entry's name, time and attributes as the file's."""
    parts = parts_of_template()
    path = tmp_path / "t.xlsx"
    xlsxio.write_zip(path, parts, xlsxio.WHEN)
    with xlsx.safe_open_xlsx(path, parse_sheets=False) as on_disk, \
            xlsx.open_parts("t.xlsx", parts, WHEN) as in_memory:
        assert [(i.filename, i.date_time, i.external_attr, i.create_system, i.compress_type,
                 i.file_size) for i in on_disk.zip.infolist()] == \
            [(i.filename, i.date_time, i.external_attr, i.create_system, i.compress_type,
              i.file_size) for i in in_memory.zip.infolist()]
        assert all(on_disk.read(n) == in_memory.read(n) for n, _ in parts)
        assert (on_disk.main, on_disk.kind) == (in_memory.main, in_memory.kind)

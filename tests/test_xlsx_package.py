"""The xlsx package layer: every file is read under stated bounds or refused with one
line (issue 8 §2), and a package is never written under a name of another kind."""
from __future__ import annotations

import struct
import zipfile
import zlib

import pytest

from zvmplan_addin.cli import main as cli
from zvmplan_addin.xlsx import UnsafeWorkbookError, package, read_workbook, safe_open_xlsx

MAIN = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
MACRO = "application/vnd.ms-excel.sheet.macroEnabled.main+xml"
CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
      'package/2006/content-types"><Default Extension="rels" ContentType="application/'
      'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
      'ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="{main}"/>'
      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.'
      'openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>')
RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
        'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
        'schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
        'Target="xl/workbook.xml"/></Relationships>')
WB = ('<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.'
      'org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/'
      '2006/relationships"><sheets><sheet name="Plan" sheetId="1" r:id="rId1"/></sheets>'
      '<calcPr calcId="124519"/></workbook>')
WB_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
           'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://'
           'schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" '
           'Target="worksheets/sheet1.xml"/></Relationships>')
SHEET = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.'
         'org/spreadsheetml/2006/main"><sheetData>{rows}</sheetData></worksheet>')
ROWS = '<row r="1"><c r="A1"><v>2</v></c><c r="B1"><f>A1*21</f><v>0</v></c></row>'


def make(path, rows=ROWS, main=MAIN, extra=(), compression=zipfile.ZIP_DEFLATED):
    """A small, valid workbook (plus ``extra`` (name, bytes) parts)."""
    with zipfile.ZipFile(path, "w", compression) as z:
        z.writestr("[Content_Types].xml", CT.format(main=main))
        z.writestr("_rels/.rels", RELS)
        z.writestr("xl/workbook.xml", WB)
        z.writestr("xl/_rels/workbook.xml.rels", WB_RELS)
        z.writestr("xl/worksheets/sheet1.xml", SHEET.format(rows=rows))
        for name, data in extra:
            z.writestr(name, data)
    return path


def understate(path, member, declared):
    """Patch the local and central headers of ``member`` to declare ``declared`` bytes
    inflated (what a zip bomb does to slip past a size check)."""
    data = bytearray(path.read_bytes())
    name = member.encode()
    for sig, size_at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        pos = 0
        while True:
            pos = data.find(sig, pos)
            if pos < 0:
                break
            name_at = pos + (30 if sig == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(name)] == name:
                struct.pack_into("<L", data, pos + size_at, declared)
            pos += 4
    path.write_bytes(bytes(data))


def refusal(path) -> str:
    with pytest.raises(UnsafeWorkbookError) as info:
        safe_open_xlsx(path)
    text = str(info.value)
    assert "\n" not in text
    return text


def test_a_valid_package_opens_and_reads(tmp_path):
    with safe_open_xlsx(make(tmp_path / "ok.xlsx")) as pkg:
        book = read_workbook(pkg)
        assert pkg.kind == ".xlsx"
    plan = book.sheets[0]
    assert plan.values == {(1, 1): 2.0} and plan.formulas[(1, 2)].text == "A1*21"


def test_a_member_that_understates_its_size_is_never_inflated_past_it(tmp_path):
    """Python's zipfile inflates a member past its declared size; the layer stops at it.
    A 64 MiB member declared as 1,000 bytes is refused, with no more than 1,001 bytes
    ever produced (zlib is asked for at most that)."""
    path = make(tmp_path / "bomb.xlsx", extra=[("xl/media/blob.bin", b"\0" * (64 << 20))])
    understate(path, "xl/media/blob.bin", 1000)
    asked = []
    real = zlib.decompressobj

    class Spy:
        def __init__(self, *a):
            self.d = real(*a)

        def decompress(self, data, max_length=0):
            asked.append(max_length)
            return self.d.decompress(data, max_length)

        def __getattr__(self, name):
            return getattr(self.d, name)

    package.zlib.decompressobj = Spy
    try:
        text = refusal(path)
    finally:
        package.zlib.decompressobj = real
    assert "xl/media/blob.bin inflates beyond its declared 1,000 bytes" in text
    assert "zip bomb" in text
    assert asked and all(0 < n <= 1001 for n in asked)


def test_many_parts_under_the_ratio_check_cannot_add_up(tmp_path, monkeypatch):
    """The total inflated size of all parts is capped, not only each part's."""
    monkeypatch.setattr(package, "MAX_TOTAL_BYTES", 40_000)
    parts = [(f"xl/media/p{i}.bin", bytes(range(256)) * 40) for i in range(5)]  # 10 KiB each
    text = refusal(make(tmp_path / "many.xlsx", extra=parts))
    assert "in total" in text and "zip bomb" in text


def test_a_high_ratio_part_is_refused(tmp_path):
    path = make(tmp_path / "ratio.xlsx", extra=[("xl/media/z.bin", b"\0" * (8 << 20))])
    assert "compressed" in refusal(path) and "limit 200:1" in refusal(path)


@pytest.mark.parametrize("name, body", [
    ("customXml/item1.dat", b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>'),
    ("xl/drawings/vmlDrawing1.vml", '<!doctype x><x/>'.encode("utf-16")),
    ("xl/media/notes.txt", b"<!ENTITY lol 'lol'>"),
    ("xl/worksheets/sheet2.xml", b'<?xml version="1.0"?><!DOCTYPE worksheet SYSTEM "x"><worksheet/>'),
])
def test_a_dtd_is_refused_in_any_part(tmp_path, name, body):
    text = refusal(make(tmp_path / "dtd.xlsx", extra=[(name, body)]))
    assert name in text and ("DTD" in text or "entity" in text)


# a JPEG as a Mac pastes it: its XMP metadata holds an Apple plist, DOCTYPE and all
MAC_JPEG = (b"\xff\xd8\xff\xe1\x10\x00Exif\x00\x00MM\x00*" + bytes(64)
            + b'\xff\xe1\x04\x00http://ns.adobe.com/xap/1.0/\x00<?xpacket begin="" id="W5M0"?>'
            b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><?xml version="1.0" encoding="UTF-8"?>'
            b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
            b'"http://www.apple.com/DTDs/PropertyList-1.0.dtd"><plist version="1.0"><dict/>'
            b"</plist></x:xmpmeta>" + bytes(range(256)) * 4 + b"\xff\xd9")


def with_types(path, declarations: str):
    """``path`` with ``declarations`` (Default / Override elements) added to its
    [Content_Types].xml."""
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    types = parts["[Content_Types].xml"].decode()
    parts["[Content_Types].xml"] = types.replace("</Types>", declarations + "</Types>").encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return path


def test_a_dtd_inside_binary_media_is_not_xml(tmp_path):
    """A picture is not parsed as XML: the plist DOCTYPE in a Mac JPEG's XMP metadata
    does not refuse the workbook (it did: issue 16), and the picture is kept."""
    path = with_types(make(tmp_path / "mac.xlsx", extra=[("xl/media/image1.jpeg", MAC_JPEG)]),
                      '<Default Extension="jpeg" ContentType="image/jpeg"/>')
    with safe_open_xlsx(path) as pkg:
        assert pkg.read("xl/media/image1.jpeg") == MAC_JPEG
    out = tmp_path / "out.xlsx"
    assert cli(["calc", str(path), "-o", str(out), "-q"]) == 0
    with zipfile.ZipFile(out) as z:
        assert z.read("xl/media/image1.jpeg") == MAC_JPEG


@pytest.mark.parametrize("name, declaration, body", [
    # an XML content type under an odd name, declared for the part ...
    ("xl/custom/data.bin", '<Override PartName="/xl/custom/data.bin" '
     'ContentType="application/vnd.example+xml"/>', b"\n\n  <a/>" + b"<!DOCTYPE a>"),
    # ... or for its extension
    ("xl/custom/props.dat", '<Default Extension="dat" ContentType="text/xml"/>',
     b"\xff\xd8 not xml at the start <!ENTITY a 'b'>"),
    # a part named as a picture whose bytes are XML
    ("xl/media/image2.jpeg", '<Default Extension="jpeg" ContentType="image/jpeg"/>',
     b'\xef\xbb\xbf<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>'),
    # a .xml part, whatever its declared type
    ("xl/media/image3.xml", '<Override PartName="/xl/media/image3.xml" '
     'ContentType="image/png"/>', b"\x89PNG....<!DOCTYPE x>"),
])
def test_a_dtd_in_a_part_parsed_as_xml_is_refused(tmp_path, name, declaration, body):
    """A part is XML by its name (.xml, .rels, .vml), by the content type
    [Content_Types].xml gives it or its extension, or by its first bytes."""
    path = with_types(make(tmp_path / "dtd.xlsx", extra=[(name, body)]), declaration)
    text = refusal(path)
    assert name in text and ("DTD" in text or "entity" in text)


def test_a_dtd_in_the_content_types_is_refused(tmp_path):
    path = with_types(make(tmp_path / "ct.xlsx"), "")
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"?><Types", b'?><!DOCTYPE Types [<!ENTITY a "b">]><Types', 1)
    with zipfile.ZipFile(path, "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    assert "[Content_Types].xml declares a DTD" in refusal(path)


def test_damaged_packages_are_refused_with_one_line(tmp_path):
    good = make(tmp_path / "good.xlsx").read_bytes()
    (tmp_path / "cut.xlsx").write_bytes(good[: len(good) // 2])
    assert "damaged or truncated zip" in refusal(tmp_path / "cut.xlsx")
    # a flipped byte in a stored part: the CRC no longer matches
    path = make(tmp_path / "crc.xlsx", compression=zipfile.ZIP_STORED)
    data = bytearray(path.read_bytes())
    at = data.find(b"A1*21")
    data[at] = ord("B")
    path.write_bytes(bytes(data))
    assert "CRC mismatch" in refusal(path)
    # a part whose deflate stream is cut short
    path = make(tmp_path / "short.xlsx", extra=[("xl/media/x.bin", bytes(range(256)) * 64)])
    understate(path, "xl/media/x.bin", 1 << 20)
    assert "xl/media/x.bin is damaged" in refusal(path)


def test_a_sheet_that_is_not_well_formed_is_refused_quickly(tmp_path):
    """Thousands of unclosed row-like elements (the regex scanner took minutes on such
    a file of 2.7 KB): the parser reads the part once and refuses it."""
    rows = '<row r="1"><c r="A1"><v>1</v></c>' * 3000
    text = refusal(make(tmp_path / "unclosed.xlsx", rows=rows))
    assert "xl/worksheets/sheet1.xml is not well-formed XML" in text


def test_the_calculator_leaves_the_sheet_parse_to_the_reader(tmp_path, capsys):
    """``parse_sheets=False`` (calc and the CLI) does not parse sheets while checking:
    the reader parses them with the same defused parser, so the malformed sheet above is
    still refused in one line before any cell is used, and a DTD in a sheet is still
    refused by the check itself."""
    rows = '<row r="1"><c r="A1"><v>1</v></c>' * 3000
    path = make(tmp_path / "unclosed.xlsx", rows=rows)
    with safe_open_xlsx(path, parse_sheets=False) as pkg:
        with pytest.raises(UnsafeWorkbookError) as info:
            read_workbook(pkg)
    assert "xl/worksheets/sheet1.xml is not well-formed XML" in str(info.value)
    assert cli(["calc", str(path), "-o", str(tmp_path / "out.xlsx"), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "xl/worksheets/sheet1.xml is not well-formed XML" in err
    assert not (tmp_path / "out.xlsx").exists()
    bomb = make(tmp_path / "dtd.xlsx", rows='<!DOCTYPE x [<!ENTITY a "b">]>')
    with pytest.raises(UnsafeWorkbookError, match="declares a DTD"):
        safe_open_xlsx(bomb, parse_sheets=False)


def test_the_bounds_are_named_constants():
    assert package.MAX_PART_BYTES <= package.MAX_TOTAL_BYTES <= 512 * 2**20
    assert package.MAX_RATIO == 200


# ----------------------------------------------------------- macro packages ----
def test_a_macro_package_is_not_written_under_an_xlsx_name(tmp_path, capsys):
    """Excel refuses to open a macro-enabled package named .xlsx (and a plain workbook
    named .xlsm): calc refuses with one line and writes nothing."""
    src = make(tmp_path / "macro.xlsm", main=MACRO)
    out = tmp_path / "out.xlsx"
    assert cli(["calc", str(src), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "macro-enabled workbook" in err and ".xlsm" in err
    assert str(out) in err and not out.exists()
    assert cli(["calc", str(src), "-o", str(tmp_path / "out.xlsm"), "-q"]) == 0
    with safe_open_xlsx(tmp_path / "out.xlsm") as pkg:
        assert pkg.kind == ".xlsm"
    plain = make(tmp_path / "plain.xlsx")
    assert cli(["calc", str(plain), "-o", str(tmp_path / "o.xlsm"), "-q"]) == 1
    assert "a workbook, which Excel opens only under a .xlsx name" in capsys.readouterr().err
    assert cli(["calc", str(plain), "-o", str(tmp_path / "o.bin"), "-q"]) == 0  # not judged


# ------------------------------------------------------------- fill template ----
LINKS = "link,transport,workload,size_bytes,connections,level,speed_factor,load\nx,IUCV,STREAM,9000,,,,1\n"


@pytest.mark.parametrize("kind, expect", [
    ("bomb", "zip bomb"), ("truncated", "damaged or truncated zip"),
    ("xls", "legacy .xls"), ("dtd", "DTD"),
])
def test_fill_guards_its_template_like_calc(tmp_path, capsys, kind, expect):
    """A hostile or broken template gives one line, never 'this is a bug'."""
    template = tmp_path / "t.xlsx"
    if kind == "bomb":
        make(template, extra=[("xl/media/b.bin", b"\0" * (32 << 20))])
        understate(template, "xl/media/b.bin", 10)
    elif kind == "truncated":
        template.write_bytes(make(tmp_path / "g.xlsx").read_bytes()[:300])
    elif kind == "xls":
        template.write_bytes(package.CFB_MAGIC + b"\0" * 600)
    else:
        make(template, extra=[("docProps/custom.xml", b'<!DOCTYPE a [<!ENTITY b "c">]><a/>')])
    links = tmp_path / "links.csv"
    links.write_text(LINKS)
    out = tmp_path / "out.xlsx"
    assert cli(["fill", str(template), "--links", str(links), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expect in err and "bug" not in err, err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".xlsx" and p.name.startswith("tmp")] == []


def test_a_sheet_with_too_many_cells_or_elements_is_refused(tmp_path, monkeypatch):
    """Memory and time of reading are bounded by counts, not only by bytes."""
    from zvmplan_addin.xlsx import sheet
    monkeypatch.setattr(sheet, "MAX_CELLS", 50)
    rows = "".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>' for r in range(1, 52))
    with safe_open_xlsx(make(tmp_path / "cells.xlsx", rows=rows)) as pkg:
        with pytest.raises(UnsafeWorkbookError, match="more than 50 cells in the sheets"):
            read_workbook(pkg)
    monkeypatch.setattr(sheet, "MAX_OTHER_ELEMENTS", 30)
    rows = "".join(f'<row r="{r}"/>' for r in range(1, 40))
    with safe_open_xlsx(make(tmp_path / "rows.xlsx", rows=rows)) as pkg:
        with pytest.raises(UnsafeWorkbookError, match="more than 30 rows and other elements"):
            read_workbook(pkg)


def test_cells_of_many_sheets_add_up_to_one_bound(tmp_path, monkeypatch):
    """The cell bound is the workbook's, not each sheet's: sheets each under it cannot add
    up (16 sheets of 2 million cells in a 7.9 MB file took 270 s and 6.4 GB)."""
    import openpyxl
    from zvmplan_addin.xlsx import sheet
    wb = openpyxl.Workbook()
    for k in range(3):
        ws = wb.active if k == 0 else wb.create_sheet(f"S{k}")
        for r in range(1, 21):
            ws.cell(r, 1, r)
    wb.save(tmp_path / "three.xlsx")
    monkeypatch.setattr(sheet, "MAX_CELLS", 50)
    with safe_open_xlsx(tmp_path / "three.xlsx") as pkg:
        with pytest.raises(UnsafeWorkbookError, match="more than 50 cells in the sheets"):
            read_workbook(pkg)
    monkeypatch.setattr(sheet, "MAX_CELLS", 60)  # exactly the 60 cells: read
    with safe_open_xlsx(tmp_path / "three.xlsx") as pkg:
        assert sum(len(s.values) for s in read_workbook(pkg).sheets) == 60

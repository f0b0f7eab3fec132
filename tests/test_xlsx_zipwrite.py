"""Writing the zip container and deflating large parts in chunks on threads: the
archive is valid for zipfile (``testzip``), openpyxl, LibreOffice and the calculator's
own reader, small parts come out byte for byte as zipfile writes them, the chunked
stream inflates to exactly the part, and a failure midway leaves nothing behind."""
from __future__ import annotations

import datetime as dt
import io
import random
import shutil
import zipfile
import zlib

import openpyxl
import pytest

from zvmplan_addin.recalc.engine import calc
from zvmplan_addin.xlsx import read_workbook, safe_open_xlsx, write_zip, zipwrite

WHEN = dt.datetime(2024, 1, 2, 3, 4, 6)


def _formula_book(path, rows: int, text: str) -> None:
    """A workbook of ``rows`` rows at ``path``: a number, ``=A*1.5`` and a formula of text,
    ``text`` with ``{r}`` for the row."""
    wb = openpyxl.Workbook()
    for r in range(1, rows + 1):
        wb.active.cell(r, 1, r)
        wb.active.cell(r, 2, f"=A{r}*1.5")
        wb.active.cell(r, 3, text.format(r=r))
    wb.save(path)


def _text(n: int) -> bytes:
    """n bytes of varied, compressible text (so that chunks hold back-references)."""
    line = b"".join(b'<c r="A%d"><f>B%d*2</f><v>%r</v></c>' % (i, i, i * 0.37) for i in range(200))
    return (line * (n // len(line) + 1))[:n]


@pytest.mark.parametrize("size", [0, 1, 1000, 5 * 4096 + 17])
def test_a_chunked_deflate_inflates_to_the_part(size, monkeypatch):
    """Chunks of 4 KiB on two threads, each primed with the bytes before it: joined, one
    raw deflate stream that inflates to the same bytes, with the part's CRC-32."""
    monkeypatch.setattr(zipwrite, "CHUNK", 4096)
    monkeypatch.setattr(zipwrite, "THREADS", 2)
    data = _text(size)
    pieces, crc, length = zipwrite.deflate(data)
    stream = b"".join(pieces)
    assert zlib.decompress(stream, -15) == data
    assert crc == zlib.crc32(data) and length == size
    assert pieces == zipwrite.deflate(data)[0]      # the same bytes every time
    blocks = [data[i:i + 1000] for i in range(0, size, 1000)]     # given as blocks
    pieces, crc, length = zipwrite.deflate(iter(blocks))
    assert zlib.decompress(b"".join(pieces), -15) == data
    assert crc == zlib.crc32(data) and length == size


def test_chunks_use_the_history_before_them(monkeypatch):
    """A chunk that repeats the one before it compresses to almost nothing: it is primed
    with that history (a chunk deflated alone would be as large as the first)."""
    monkeypatch.setattr(zipwrite, "CHUNK", 8192)
    monkeypatch.setattr(zipwrite, "THREADS", 2)
    rnd = random.Random(5)
    block = bytes(rnd.randrange(256) for _ in range(8192))     # 8 KiB deflate cannot shrink
    pieces, _, _ = zipwrite.deflate(block * 3)
    assert len(pieces) == 4 and len(pieces[0]) > 8000     # three chunks, the final block
    assert len(pieces[1]) < 100 and len(pieces[2]) < 100


def test_small_parts_are_written_as_zipfile_writes_them(tmp_path):
    """Under one chunk, every byte of the archive is what zipfile writes for the same
    entries (names ASCII and not, a folder-less part, an empty part)."""
    entries = [("[Content_Types].xml", b"<Types/>" * 50), ("xl/caf\u00e9.xml", b"<x/>"),
               ("empty.bin", b"")]
    ours = tmp_path / "ours.zip"
    write_zip(ours, entries, WHEN)
    theirs = io.BytesIO()
    with zipfile.ZipFile(theirs, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=WHEN.timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    assert ours.read_bytes() == theirs.getvalue()


def test_a_recalculated_book_with_chunked_parts_reads_back(tmp_path, monkeypatch):
    """calc with 4 KiB chunks: zipfile's testzip finds no bad part, openpyxl reads every
    recalculated value, and the package check (bounded inflate, CRC) accepts it."""
    monkeypatch.setattr(zipwrite, "CHUNK", 4096)
    monkeypatch.setattr(zipwrite, "THREADS", 2)
    src, out = tmp_path / "in.xlsx", tmp_path / "out.xlsx"
    _formula_book(src, 400, '="row "&A{r}')
    calc(src, out)
    with zipfile.ZipFile(out) as z:
        assert z.testzip() is None
        assert z.getinfo("xl/worksheets/sheet1.xml").file_size > 4 * 4096
    got = openpyxl.load_workbook(out, data_only=True).active
    assert [got.cell(r, 2).value for r in (1, 2, 400)] == [1.5, 3, 600]
    assert got.cell(400, 3).value == "row 400"
    with safe_open_xlsx(out) as pkg:
        sheet = read_workbook(pkg).sheets[0]
    assert sheet.cached[(399, 2)] == 598.5 and sheet.formulas[(399, 2)].text == "A399*1.5"


def test_a_failure_while_the_blocks_are_made_leaves_out_untouched(tmp_path, monkeypatch):
    """The sheet's blocks are made while the package is written, its deflate threads
    running: an error in the third block ends the write with OUT as it was, no
    temporary file left and no deflate thread still running."""
    import threading

    from zvmplan_addin.xlsx import output, splice
    monkeypatch.setattr(zipwrite, "CHUNK", 4096)
    monkeypatch.setattr(splice, "_BLOCK", 50)
    made = []
    real = splice._edits

    def failing(*args):
        made.append(1)
        if len(made) == 3:
            raise OSError(28, "No space left on device")
        return real(*args)

    monkeypatch.setattr(splice, "_edits", failing)
    wb = openpyxl.Workbook()
    for r in range(1, 301):
        wb.active.cell(r, 1, r)
        wb.active.cell(r, 2, f"=A{r}*2")
    src, out = tmp_path / "in.xlsx", tmp_path / "out.xlsx"
    wb.save(src)
    out.write_bytes(b"before")
    with pytest.raises(output.OutputError, match="No space left on device"):
        calc(src, out)
    assert out.read_bytes() == b"before" and len(made) == 3
    assert [p for p in tmp_path.iterdir() if p.name.startswith(output.TEMP_PREFIX)] == []
    assert not [t for t in threading.enumerate() if t.name.startswith("deflate")]


@pytest.mark.skipif(shutil.which("soffice") is None and shutil.which("libreoffice") is None,
                    reason="LibreOffice (soffice) is not installed")
def test_libreoffice_reads_a_part_deflated_in_chunks(tmp_path, monkeypatch):
    """LibreOffice headless opens a recalculated book whose sheet was deflated in many
    4 KiB chunks, and its CSV export shows our values in every row."""
    import csv
    import subprocess
    monkeypatch.setattr(zipwrite, "CHUNK", 4096)
    src, out = tmp_path / "in.xlsx", tmp_path / "out.xlsx"
    _formula_book(src, 500, '="row "&A{r}')
    calc(src, out)
    with zipfile.ZipFile(out) as z:
        assert z.getinfo("xl/worksheets/sheet1.xml").file_size > 8 * 4096
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    profile = f"-env:UserInstallation={(tmp_path / 'profile').resolve().as_uri()}"
    subprocess.run([exe, profile, "--headless", "--norestore", "--convert-to", "csv",
                    "--outdir", str(tmp_path / "csv"), str(out)], check=True,
                   capture_output=True, timeout=300)
    with open(tmp_path / "csv" / "out.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 500
    assert all(float(row[1]) == r * 1.5 and row[2] == f"row {r}"
               for r, row in enumerate(rows, start=1))


@pytest.mark.parametrize("library", ["installed", "zlib"])
def test_a_part_beyond_one_chunk_is_deflated_at_the_fast_level(library, monkeypatch):
    """Chunks with the fast library (ISA-L level 2 where ``isal`` is installed: 3.4 times
    less CPU than zlib level 1 on the 100,000-row planner's part, for a smaller file),
    or zlib level 1 without it (two thirds less CPU than level 6, a quarter larger); the
    same bytes back either way, and the first chunk exactly that library's."""
    from zvmplan_addin.xlsx import codec
    if library == "zlib":
        monkeypatch.setattr(zipwrite, "LARGE", codec.ZLIB)
    monkeypatch.setattr(zipwrite, "CHUNK", 4096)
    data = _text(3 * 4096)
    pieces, crc, _ = zipwrite.deflate(data)
    large = zipwrite.LARGE
    assert (large.name, large.level) == (("isal", 2) if library == "installed" and
                                         codec.ISAL is not None else ("zlib", 1))
    z = large.module.compressobj(large.level, large.module.DEFLATED, -15)
    assert pieces[0] == z.compress(data[:4096]) + z.flush(large.module.Z_SYNC_FLUSH)
    assert zlib.decompress(b"".join(pieces), -15) == data and crc == zlib.crc32(data)


def test_isal_is_installed_with_the_package():
    """``isal`` is a dependency (pyproject.toml), so calc deflates with ISA-L."""
    from zvmplan_addin.xlsx import codec
    assert codec.ISAL is not None and zipwrite.LARGE is codec.ISAL


def test_without_isal_calc_deflates_with_zlib_to_the_same_parts(tmp_path, monkeypatch):
    """A machine where ``isal`` cannot be imported (run in a subprocess with the import
    blocked) writes its large parts with zlib level 1: every part of the package holds
    the same bytes as the one written with ISA-L here, only the compressed stream differs."""
    import subprocess
    import sys
    monkeypatch.setattr(zipwrite, "CHUNK", 4096)
    src, fast, plain = tmp_path / "in.xlsx", tmp_path / "isal.xlsx", tmp_path / "zlib.xlsx"
    _formula_book(src, 400, '="row "&A{r}&" at 10%"')
    calc(src, fast)
    script = ("import sys; sys.modules['isal'] = None\n"
              "from zvmplan_addin.xlsx import zipwrite\n"
              "assert zipwrite.LARGE.name == 'zlib' and zipwrite.LARGE.level == 1\n"
              "zipwrite.CHUNK = 4096\n"
              "from zvmplan_addin.recalc.engine import calc\n"
              f"calc({str(src)!r}, {str(plain)!r})\n")
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, timeout=300)
    with zipfile.ZipFile(fast) as a, zipfile.ZipFile(plain) as b:
        assert a.testzip() is None and b.testzip() is None
        assert a.namelist() == b.namelist()
        assert all(a.read(n) == b.read(n) for n in a.namelist())
        sheet = "xl/worksheets/sheet1.xml"
        assert a.getinfo(sheet).file_size > 4 * 4096
        assert a.getinfo(sheet).compress_size != b.getinfo(sheet).compress_size

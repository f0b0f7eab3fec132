"""Writing OUT safely (issue 8 §3): regular files only, symbolic links written through,
temporary files removed on errors and signals (and left-overs of killed runs removed
later), and every message names OUT as the user gave it."""
from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import time
import zipfile

import pytest

from zvmplan_addin.cli import main as cli
from zvmplan_addin.xlsx import OutputError, atomic_output, output, remove_stale_temps

SHEET = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.'
         'org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1"><v>2</v></c><c r="B1">'
         '<f>A1*21</f><v>0</v></c></row></sheetData></worksheet>')


@pytest.fixture
def book(tmp_path):
    import openpyxl
    wb = openpyxl.Workbook()
    wb.active["A1"] = 2
    wb.active["B1"] = "=A1*21"
    path = tmp_path / "in" / "book.xlsx"
    path.parent.mkdir()
    wb.save(path)
    return path


def _temps(folder):
    return [p for p in os.listdir(folder) if p.startswith(output.TEMP_PREFIX)]


def _b1(path):
    with zipfile.ZipFile(path) as z:
        return z.read("xl/worksheets/sheet1.xml")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_never_replaced(book, tmp_path, capsys):
    fifo = tmp_path / "out.xlsx"
    os.mkfifo(fifo)
    assert cli(["calc", str(book), "-o", str(fifo), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{fifo}: is a FIFO, not a regular file; refused" in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and _temps(tmp_path) == []


def test_a_device_is_refused_before_anything_is_written():
    """``-o /dev/null`` as root once replaced the device node with a regular file."""
    with pytest.raises(OutputError) as info:
        with atomic_output("/dev/null") as fh:
            fh.write(b"never")
    assert str(info.value) == "/dev/null: is a device, not a regular file; refused (nothing written)"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_directory_is_refused(book, tmp_path, capsys):
    assert cli(["calc", str(book), "-o", str(tmp_path), "-q"]) == 1
    assert "is a directory, not a regular file" in capsys.readouterr().err


def test_o_onto_a_symlink_writes_its_target(book, tmp_path):
    """As --in-place does with a linked input: the link stays, the file it names is
    replaced (and keeps its permissions)."""
    target = tmp_path / "real.xlsx"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.xlsx"
    link.symlink_to(target)
    assert cli(["calc", str(book), "-o", str(link), "-q"]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert b"<v>42" in _b1(target) and stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert _temps(tmp_path) == []


def test_a_link_to_a_device_is_refused(book, tmp_path, capsys):
    link = tmp_path / "null.xlsx"
    link.symlink_to("/dev/null")
    assert cli(["calc", str(book), "-o", str(link), "-q"]) == 1
    err = capsys.readouterr().err
    assert f"{link}: is a device" in err and link.is_symlink()


def test_no_space_left_names_out_and_leaves_nothing(book, tmp_path, monkeypatch, capsys):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(output.os, "fsync", full)
    out = tmp_path / "out.xlsx"
    assert cli(["calc", str(book), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err == f"zvmplan: error: {out}: cannot write (No space left on device)\n"
    assert not out.exists() and _temps(tmp_path) == []


def test_stale_temp_files_of_this_user_are_removed(tmp_path):
    old = tmp_path / f"{output.TEMP_PREFIX}abc{output.TEMP_SUFFIX}"
    fresh = tmp_path / f"{output.TEMP_PREFIX}def{output.TEMP_SUFFIX}"
    other = tmp_path / "keep.xlsx.tmp"
    for p in (old, fresh, other):
        p.write_bytes(b"x")
    long_ago = time.time() - output.STALE_TEMP_SECONDS - 60
    os.utime(old, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    with atomic_output(str(tmp_path / "out.xlsx")) as fh:
        fh.write(b"new")
    assert not old.exists() and fresh.exists() and other.exists()
    assert (tmp_path / "out.xlsx").read_bytes() == b"new"
    assert remove_stale_temps(str(tmp_path), now=time.time() + 2 * output.STALE_TEMP_SECONDS) \
        == [fresh.name]


_KILLED = r"""
import os, signal, sys
from zvmplan_addin.xlsx import atomic_output
with atomic_output(sys.argv[1]) as fh:
    fh.write(b"partial")
    os.kill(os.getpid(), getattr(signal, sys.argv[2]))
    fh.write(b"never")
print("survived")
"""


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_during_the_write_leaves_no_temp_file(tmp_path, sig):
    """The temporary file is removed, OUT is untouched, and the process still ends by
    the signal (exit status -signal), as it would have without zvmplan's handler."""
    out = tmp_path / "out.xlsx"
    out.write_bytes(b"before")
    proc = subprocess.run([sys.executable, "-c", _KILLED, str(out), sig],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -getattr(signal, sig), proc.stderr
    assert "survived" not in proc.stdout
    assert out.read_bytes() == b"before" and _temps(tmp_path) == []


def test_an_error_while_writing_names_out_not_the_temp_file(tmp_path):
    out = tmp_path / "out.xlsx"
    with pytest.raises(OutputError) as info:
        with atomic_output(str(out)) as fh:
            fh.write(b"x")
            raise OSError(errno.EIO, os.strerror(errno.EIO))
    assert str(info.value) == f"{out}: cannot write (Input/output error)"
    assert not out.exists() and _temps(tmp_path) == []

"""Writing packages: the calculator's copy-with-changes and the template's reproducible build.

Both go through :func:`~.output.atomic_output` (a regular file or nothing, atomically,
cleaned up on signals). :func:`write_package` copies an opened input package with some
parts replaced (recalculated sheets), the calculation chain dropped and ``<calcPr>``
adjusted; :func:`write_zip` writes given parts with one fixed timestamp, so rebuilding
the template gives the same bytes.

The zip container is written here (:class:`_ZipOut`, the record layouts of PKWARE's
APPNOTE, no zip64: parts are at most 256 MiB, packages 512 MiB) because :mod:`zipfile`
can only deflate a part itself, on one core. :func:`deflate` compresses a large part
in chunks on threads (zlib releases the GIL): each chunk is a raw deflate stream primed
with the 32 KiB before it and ended with a sync flush, the last one finished, so that
the chunks joined are one valid deflate stream (what pigz does). A part of one chunk
or less is deflated exactly as :mod:`zipfile` does, and the records are those
:mod:`zipfile` writes, so small packages come out byte for byte as before.
"""
from __future__ import annotations

import concurrent.futures
import datetime as dt
import os
import struct
import zipfile
import zlib

from .errors import UnsafeWorkbookError
from .output import atomic_output
from .package import XlsxPackage, check_output_name, rels_name
from .rewrite import REL_CALC_CHAIN, remove_elements, rewrite_workbook

LEVEL = 6                           #: zlib's default level, as zipfile uses
CHUNK = 1 << 22                     #: input bytes per deflate job (4 MiB)
HISTORY = 1 << 15                   #: deflate's window: each chunk is primed with these
THREADS = max(1, min(4, os.cpu_count() or 1))   #: deflate jobs at once

_LOCAL = struct.Struct("<4s2B4HL2L2H")          # local file header (zipfile's layout)
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")      # central directory header
_END = struct.Struct("<4s4H2LH")                # end of central directory record
_VERSION = 20                                   # 2.0: deflate; what zipfile writes
_LIMIT = 0xFFFFFFFF                             # beyond this a zip needs zip64


def drop_calc_chain(pkg: XlsxPackage, replaced: dict[str, bytes]) -> set[str]:
    """Remove xl/calcChain.xml and the two references to it (Excel rebuilds it); returns
    the parts to leave out."""
    chain = [(rid, t) for rid, rtype, t in pkg.rels(pkg.main) if rtype.endswith(REL_CALC_CHAIN)]
    if not chain:
        return set()
    name = rels_name(pkg.main)
    ids = {rid for rid, _ in chain}
    replaced[name] = remove_elements(replaced.get(name, pkg.read(name)), name, "Relationship",
                                     lambda a: a.get("Id") in ids)
    targets = {"/" + t for _, t in chain}
    ct = "[Content_Types].xml"
    replaced[ct] = remove_elements(replaced.get(ct, pkg.read(ct)), ct, "Override",
                                   lambda a: a.get("PartName") in targets)
    return {t for _, t in chain}


def write_package(pkg: XlsxPackage, out_path: str, replaced: dict[str, bytes],
                  full_calc_on_load: bool = False) -> None:
    """Write the package to ``out_path`` (atomically) with ``replaced`` parts swapped in,
    calcChain dropped and calcPr adjusted. ``pkg`` is closed before the move."""
    check_output_name(pkg, out_path)
    replaced = dict(replaced)
    skip = drop_calc_chain(pkg, replaced)
    replaced[pkg.main] = rewrite_workbook(replaced.get(pkg.main, pkg.read(pkg.main)),
                                          full_calc_on_load)
    with atomic_output(out_path, before_replace=pkg.close) as fh:
        out = _ZipOut(fh)
        for info in pkg.zip.infolist():
            if info.filename in skip:
                continue
            data = replaced.get(info.filename)
            if data is None:
                data = pkg.read(info.filename)
                pkg.forget(info.filename)
            out.add(info.filename, data, info.date_time, info.compress_type,
                    info.external_attr, info.create_system, info.comment)
        out.close()


def write_zip(path, entries: list[tuple[str, bytes]], when: dt.datetime) -> None:
    """Write ``entries`` (name, bytes) atomically with one fixed timestamp and fixed
    permissions: the same entries give the same bytes."""
    with atomic_output(os.fspath(path)) as fh:
        out = _ZipOut(fh)
        for name, data in entries:
            out.add(name, data, when.timetuple()[:6], zipfile.ZIP_DEFLATED, 0o644 << 16)
        out.close()


def deflate(data: bytes) -> tuple[list[bytes], int]:
    """(the raw deflate stream of ``data`` in pieces, its CRC-32). Over :data:`CHUNK`
    bytes, the chunks are deflated on :data:`THREADS` threads while this thread computes
    the CRC; the pieces depend only on ``data``, never on the threads' timing."""
    if len(data) <= CHUNK or THREADS == 1:
        z = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
        return [z.compress(data), z.flush()], zlib.crc32(data)
    view = memoryview(data)
    starts = range(0, len(data), CHUNK)

    def job(start: int) -> bytes:
        if start:
            z = zlib.compressobj(LEVEL, zlib.DEFLATED, -15,
                                 zdict=view[max(0, start - HISTORY):start])
        else:
            z = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
        end = start + CHUNK
        last = end >= len(data)
        return z.compress(view[start:end]) + z.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)

    pool = concurrent.futures.ThreadPoolExecutor(THREADS, thread_name_prefix="deflate")
    try:
        pieces = pool.map(job, starts)
        crc = zlib.crc32(data)
        return list(pieces), crc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _ZipOut:
    """A zip archive written front to back onto ``fh``: each part's local header (its
    CRC and sizes known, so no data descriptor), its bytes, and at :meth:`close` the
    central directory, with the fields :mod:`zipfile` writes."""

    def __init__(self, fh):
        self.fh = fh
        self.offset = 0
        self.central: list[bytes] = []

    def _write(self, data: bytes) -> None:
        self.fh.write(data)
        self.offset += len(data)

    def add(self, name: str, data: bytes, date_time, method: int = zipfile.ZIP_DEFLATED,
            external_attr: int = 0, create_system: int = 3, comment: bytes = b"") -> None:
        if method == zipfile.ZIP_DEFLATED:
            pieces, crc = deflate(data)
        elif method == zipfile.ZIP_STORED:
            pieces, crc = [data], zlib.crc32(data)
        else:   # pragma: no cover - the package check refuses other methods
            raise UnsafeWorkbookError(f"{name}: cannot write compression method {method}")
        size = sum(map(len, pieces))
        if max(size, len(data), self.offset) >= _LIMIT or len(self.central) >= 0xFFFF:
            raise UnsafeWorkbookError(f"{name}: too large for a zip without zip64")
        try:
            encoded, flags = name.encode("ascii"), 0
        except UnicodeEncodeError:
            encoded, flags = name.encode("utf-8"), 0x800   # the name is UTF-8
        y, mo, d, h, mi, s = date_time
        date, time = (y - 1980) << 9 | mo << 5 | d, h << 11 | mi << 5 | s // 2
        external_attr = external_attr or 0o600 << 16       # as zipfile: ?rw-------
        self.central.append(_CENTRAL.pack(
            b"PK\x01\x02", _VERSION, create_system, _VERSION, 0, flags, method, time, date,
            crc, size, len(data), len(encoded), 0, len(comment), 0, 0, external_attr,
            self.offset) + encoded + comment)
        self._write(_LOCAL.pack(b"PK\x03\x04", _VERSION, 0, flags, method, time, date, crc,
                                size, len(data), len(encoded), 0) + encoded)
        for piece in pieces:
            self._write(piece)

    def close(self) -> None:
        start = self.offset
        for record in self.central:
            self._write(record)
        self._write(_END.pack(b"PK\x05\x06", 0, 0, len(self.central), len(self.central),
                              self.offset - start, start, 0))

"""Writing packages: the calculator's copy-with-changes and the template's reproducible build.

Both go through :func:`~.output.atomic_output` (a regular file or nothing, atomically,
cleaned up on signals). :func:`write_package` copies an opened input package with some
parts replaced (recalculated sheets), the calculation chain dropped and ``<calcPr>``
adjusted; :func:`write_zip` writes given parts with one fixed timestamp, so rebuilding
the template gives the same bytes.

The zip container is written here (:class:`_ZipOut`, the record layouts of PKWARE's
APPNOTE, no zip64: parts are at most 256 MiB, packages 512 MiB) because :mod:`zipfile`
can only deflate a part itself, on one core. :func:`deflate` compresses a large part
in chunks on threads (the libraries release the GIL) with the fastest library installed
at a fast level (:data:`LARGE`: ISA-L's, else zlib level 1; :mod:`.codec`), as its blocks
come from the sheet rewrite: each chunk a raw deflate stream primed with the 32 KiB
before it and ended with a sync flush, then a final empty block, so that the chunks
joined are one valid deflate stream (what pigz does). A part of one chunk or less is
deflated exactly as :mod:`zipfile` does, and the records are those :mod:`zipfile`
writes, so small packages come out byte for byte as before.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as dt
import os
import struct
import zipfile
import zlib

from . import codec
from .errors import UnsafeWorkbookError
from .output import atomic_output
from .package import XlsxPackage, check_output_name, rels_name
from .rewrite import REL_CALC_CHAIN, remove_elements, rewrite_workbook

LEVEL = 6                           #: zlib's default level, as zipfile uses
#: the library and level of a part deflated in chunks (larger than :data:`CHUNK`). On
#: the 100,000-row planner's sheet part (99.7 MB of XML; CPU seconds, one core): zlib
#: level 1 0.43 s and 21.6 MB (level 6: 1.37 s and 17.0 MB); ISA-L level 2 0.13 s and
#: 20.2 MB (:mod:`.codec`).
LARGE = codec.large_part_deflater()
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


def write_package(pkg: XlsxPackage, out_path: str, replaced: dict,
                  full_calc_on_load: bool = False) -> None:
    """Write the package to ``out_path`` (atomically) with ``replaced`` parts swapped in
    (bytes, or an iterable of blocks of bytes, as
    :func:`~.rewrite.rewrite_sheet_blocks` gives: each block is deflated on other
    threads while the next is made), calcChain dropped and calcPr adjusted. ``pkg`` is
    closed before the move."""
    check_output_name(pkg, out_path)
    replaced = dict(replaced)
    skip = drop_calc_chain(pkg, replaced)
    replaced[pkg.main] = rewrite_workbook(replaced.get(pkg.main, pkg.read(pkg.main)),
                                          full_calc_on_load)
    with atomic_output(out_path, before_replace=pkg.close) as fh, _threads() as pool:
        out = _ZipOut(fh, pool)
        for info in pkg.zip.infolist():
            if info.filename in skip:
                continue
            data = replaced.pop(info.filename, None)
            if data is None:
                data = pkg.read(info.filename)
                pkg.forget(info.filename)
            out.add(info.filename, data, info.date_time, info.compress_type,
                    info.external_attr, info.create_system, info.comment)
            del data
        out.close()


def write_zip(path, entries: list[tuple[str, bytes]], when: dt.datetime) -> None:
    """Write ``entries`` (name, bytes) atomically with one fixed timestamp and fixed
    permissions: the same entries give the same bytes."""
    with atomic_output(os.fspath(path)) as fh, _threads() as pool:
        out = _ZipOut(fh, pool)
        for name, data in entries:
            out.add(name, data, when.timetuple()[:6], zipfile.ZIP_DEFLATED, 0o644 << 16)
        out.close()


@contextlib.contextmanager
def _threads():
    """The deflate threads of one package; on an error (or a signal turned into one)
    the jobs not started are dropped and the running ones (a chunk each) finished."""
    pool = concurrent.futures.ThreadPoolExecutor(THREADS, thread_name_prefix="deflate")
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def deflate(data, pool=None) -> tuple[list[bytes], int, int]:
    """(the raw deflate stream of ``data`` in pieces, its CRC-32, its size). ``data``:
    bytes, or an iterable of blocks of bytes. Up to :data:`CHUNK` bytes in all, one
    deflate of the whole, as :mod:`zipfile` does; beyond, :class:`_Deflater` on
    ``pool`` (threads of its own when None). The pieces depend only on the bytes and
    how they are split in blocks, never on the threads' timing."""
    if pool is None:
        with _threads() as own:
            return deflate(data, own)
    deflater = _Deflater(pool)
    for block in ([data] if isinstance(data, (bytes, bytearray, memoryview)) else data):
        deflater.feed(block)
    return deflater.finish(), deflater.crc, deflater.size


class _Deflater:
    """One part deflated in chunks on threads, as its blocks come (the library releases
    the GIL, so they run beside the Python that makes the next block): each chunk a
    raw deflate stream primed with the :data:`HISTORY` bytes before it and
    sync-flushed, then one final empty block; joined, one valid deflate stream (what
    pigz does). Blocks are gathered until they hold more than :data:`CHUNK` bytes, then
    deflated as :data:`CHUNK`-byte chunks, the last taking the rest (so a block of a
    few MB, as the sheet splice makes, is deflated where it is, never copied). This
    thread keeps the CRC. At most ``2 * THREADS`` chunks wait at a time, so a fast
    producer does not pile the part up in memory."""

    def __init__(self, pool):
        self.pool = pool
        self.jobs: list = []
        self.pending: list = []         # bytes not yet a whole chunk
        self.pending_size = 0
        self.history = b""
        self.crc = 0
        self.size = 0

    def feed(self, block) -> None:
        self.crc = LARGE.crc32(block, self.crc)
        self.size += len(block)
        self.pending.append(block)
        self.pending_size += len(block)
        if self.pending_size <= CHUNK:
            return
        view = memoryview(self.pending[0] if len(self.pending) == 1 else b"".join(self.pending))
        self.pending, self.pending_size = [], 0
        cuts = list(range(0, len(view), CHUNK))[:max(1, len(view) // CHUNK)] + [len(view)]
        for start, stop in zip(cuts, cuts[1:]):
            self._submit(view[start:stop])

    def _submit(self, chunk) -> None:
        self.jobs.append(self.pool.submit(LARGE.sync_deflate, chunk, self.history))
        self.history = (self.history + bytes(chunk[-HISTORY:]))[-HISTORY:]
        waiting = len(self.jobs) - 2 * THREADS
        if waiting > 0:
            self.jobs[waiting - 1].result()

    def finish(self) -> list[bytes]:
        rest = b"".join(self.pending)
        if not self.jobs:               # one chunk at most: exactly what zipfile writes
            z = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
            return [z.compress(rest), z.flush()]
        if rest:
            self._submit(rest)
        return [job.result() for job in self.jobs] + [zlib.compressobj(
            LEVEL, zlib.DEFLATED, -15).flush()]     # the final block, empty


class _ZipOut:
    """A zip archive written front to back onto ``fh``: each part's local header (its
    CRC and sizes known, so no data descriptor), its bytes, and at :meth:`close` the
    central directory, with the fields :mod:`zipfile` writes."""

    def __init__(self, fh, pool):
        self.fh = fh
        self.pool = pool
        self.offset = 0
        self.central: list[bytes] = []

    def _write(self, data: bytes) -> None:
        self.fh.write(data)
        self.offset += len(data)

    def add(self, name: str, data, date_time, method: int = zipfile.ZIP_DEFLATED,
            external_attr: int = 0, create_system: int = 3, comment: bytes = b"") -> None:
        """Write one part: ``data`` bytes, or an iterable of blocks of bytes."""
        if method == zipfile.ZIP_DEFLATED:
            pieces, crc, length = deflate(data, self.pool)
        elif method == zipfile.ZIP_STORED:
            pieces = [data] if isinstance(data, (bytes, bytearray)) else list(data)
            crc, length = 0, 0
            for piece in pieces:
                crc, length = zlib.crc32(piece, crc), length + len(piece)
        else:   # pragma: no cover - the package check refuses other methods
            raise UnsafeWorkbookError(f"{name}: cannot write compression method {method}")
        size = sum(map(len, pieces))
        if max(size, length, self.offset) >= _LIMIT or len(self.central) >= 0xFFFF:
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
            crc, size, length, len(encoded), 0, len(comment), 0, 0, external_attr,
            self.offset) + encoded + comment)
        self._write(_LOCAL.pack(b"PK\x03\x04", _VERSION, 0, flags, method, time, date, crc,
                                size, length, len(encoded), 0) + encoded)
        for piece in pieces:
            self._write(piece)

    def close(self) -> None:
        start = self.offset
        for record in self.central:
            self._write(record)
        self._write(_END.pack(b"PK\x05\x06", 0, 0, len(self.central), len(self.central),
                              self.offset - start, start, 0))

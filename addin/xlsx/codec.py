"""The deflate library for large parts: ISA-L's (the ``isal`` package) where it is
installed, else :mod:`zlib`.

A recalculated 100,000-row planner sheet is a 100 MB part; deflating it was a fifth of
``zvmplan calc``. On that part (CPU seconds, one core, the chunks of
:mod:`.zipwrite`): zlib level 1 0.43 s and 21.6 MB, ISA-L level 1 0.12 s and 20.3 MB,
level 2 0.13 s and 20.2 MB. ISA-L writes the standard raw deflate format, so the files
are read as before; only the compressed bytes differ. Small parts are deflated with
zlib whatever is installed (:mod:`.zipwrite` writes them as :mod:`zipfile` does, so the
template's build stays reproducible). ``isal`` is a dependency (pyproject.toml); a
machine without it (a build that could not install the wheel) writes with zlib.
"""
from __future__ import annotations

import zlib

try:
    from isal import isal_zlib as _isal
except ImportError:                 # pragma: no cover - isal is a dependency
    _isal = None


class Deflater:
    """One library and the level it deflates large parts at."""

    def __init__(self, module, level: int, name: str):
        self.module, self.level, self.name = module, level, name

    def sync_deflate(self, chunk, history: bytes) -> bytes:
        """``chunk`` as raw deflate blocks that may refer back into ``history`` (the
        bytes just before it) and end on a byte boundary (a sync flush, not final)."""
        m = self.module
        z = m.compressobj(self.level, m.DEFLATED, -15, zdict=history) if history else \
            m.compressobj(self.level, m.DEFLATED, -15)
        return z.compress(chunk) + z.flush(m.Z_SYNC_FLUSH)

    def crc32(self, data, value: int = 0) -> int:
        """zlib's CRC-32 (the same number from either library)."""
        return self.module.crc32(data, value)


#: zlib level 1: two thirds less CPU than level 6 for a file a quarter larger
ZLIB = Deflater(zlib, 1, "zlib")
#: ISA-L level 2 (its default): 3.4 times faster than zlib level 1, and smaller
ISAL = Deflater(_isal, 2, "isal") if _isal is not None else None


def large_part_deflater() -> Deflater:
    """The library large parts are deflated with: ISA-L when installed, else zlib."""
    return ISAL or ZLIB

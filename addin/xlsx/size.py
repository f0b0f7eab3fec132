"""What reading and recalculating a workbook will cost, known from the package before
any sheet is parsed, against the memory the machine has.

:func:`estimate` counts the cells (``<c``) and formulas (``<f``) of each worksheet part
with a byte search (0.4 s for the 209 MB of a 250,000-row plan, no parse) and prices
them at what the engine was measured to hold per cell (:data:`BYTES_PER_CELL`,
:data:`BYTES_PER_FORMULA`, :data:`BYTES_PER_SPARSE_CELL` in a sheet kept in dicts) plus
each part's bytes, held while it is read. :func:`check_sampled` does the same from the
first :data:`SAMPLE_BYTES` of each part before any is inflated. :func:`check_memory`
refuses, in one line saying what the workbook needs, what there is and what to do, a
workbook whose estimate exceeds the memory available (:func:`available_memory`:
``ZVMPLAN_MEMORY`` if set, else the system's ``MemAvailable``, any cgroup limit and the
process's address-space limit). A workbook that hides cells from the byte search
(``<c/>``, a cell with neither attributes nor content) is still bounded: the reader
stops at the cells the same memory can hold (:func:`cell_budget`), and the sheets as
read are priced again (:func:`estimate_read`); :data:`MAX_CELLS` bounds the work
whatever the memory.

Measured (issue 19, CPU seconds and peak RSS with ``/usr/bin/time``, this machine):

=======================================  ==========  ==========  =========  ==========
workbook                                  cells      formulas    peak RSS   estimate
=======================================  ==========  ==========  =========  ==========
values only, 20,000 rows x 10             200,001    1           144 MiB    165 MiB
values only, 100,000 rows x 10            1,000,001  1           323 MiB    348 MiB
planner sheet, 20,000 rows                280,014    180,000     299 MiB    283 MiB
planner sheet, 100,000 rows               1,400,014  900,000     906 MiB    936 MiB
planner sheet, 250,000 rows               3,500,014  2,250,000   2,091 MiB  2,167 MiB
12 million cells without r (dicts)        12,000,000 0           4,670 MiB  4,879 MiB
=======================================  ==========  ==========  =========  ==========

From these: a value cell about 230 bytes, a formula about 530 bytes more, a cell of a
sheet kept in dicts about 380 bytes, the process itself about 100 MiB.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .errors import UnsafeWorkbookError
from ..lazyre import lazy_pattern

#: cells in all the sheets together, whatever the memory (:data:`.sheet.MAX_CELLS`): about
#: 200 CPU-s of work at the 10 us a cell measured on the 100,000-row planner sheet (1.4
#: million cells, 14 CPU-s)
MAX_CELLS = 20_000_000
BYTES_PER_CELL = 200            #: [bytes] held per cell (value or formula)
BYTES_PER_FORMULA = 550         #: [bytes] held per formula beyond its cell's
#: cells between a sheet's first and last cell (its bounding box) the engine holds as a
#: dense grid (:class:`~zvmplan_addin.recalc.read.Grid`); a larger sheet is kept in dicts
DENSE_CELLS = 8_000_000
#: [bytes] held per cell beyond :data:`BYTES_PER_CELL` in a sheet kept in dicts, and in a
#: sheet whose bounding box is not known before parsing (no ``<dimension>``): measured 380
#: a value cell in all on a 12-million-cell sheet without ``r`` attributes (4,670 MiB peak)
BYTES_PER_SPARSE_CELL = 200
BASE_BYTES = 120 * 2**20        #: [bytes] the engine before any workbook, measured ~100 MiB
ENV = "ZVMPLAN_MEMORY"          #: the memory zvmplan may use, e.g. 4G, 1500M
SAMPLE_BYTES = 2**18            #: [bytes] inflated from the start of each sheet part
#: a sampled estimate refuses only when over the memory available by this factor: the
#: start of a part may be denser in cells than the rest (the exact count decides else)
SAMPLE_MARGIN = 1.5

_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SHEET_DATA = re.compile(rb"<([A-Za-z_][\w.-]*:)?sheetData[\s>/]")
_DIMENSION = re.compile(rb"<([A-Za-z_][\w.-]*:)?dimension\s+ref=[\"']\$?([A-Z]{1,3})\$?(\d{1,7})"
                        rb"(?::\$?([A-Z]{1,3})\$?(\d{1,7}))?[\"']")


@dataclass(frozen=True)
class Estimate:
    """What a workbook's sheets hold (counted in their bytes) and what reading and
    recalculating them will take [bytes]."""
    cells: int
    formulas: int
    part_bytes: int
    sparse_cells: int = 0   #: of ``cells``, those in sheets kept in dicts (or not known)

    @property
    def memory(self) -> int:
        """[bytes] the engine's peak, the process included."""
        return (BASE_BYTES + self.cells * BYTES_PER_CELL + self.formulas * BYTES_PER_FORMULA
                + self.sparse_cells * BYTES_PER_SPARSE_CELL + self.part_bytes)


def count_cells(data: bytes) -> tuple[int, int]:
    """(cells, formulas) of a worksheet part, counted in its bytes in three passes of
    ``bytes.count`` (no parse): ``<c `` and ``<c>``, and ``<f``, with the prefix its
    ``sheetData`` has (none usually). The cells are exact for the usual markup (a cell
    without attributes or content, ``<c/>``, is not counted: the reader's own count
    bounds those); the few other elements named ``<f...`` (``<formula>``, ``<filters>``)
    count as formulas: the estimate errs high by as many."""
    m = _SHEET_DATA.search(data)
    prefix = (m.group(1) or b"") if m else b""
    if not prefix and len(data) > _COUNT_STEP:
        return _counted(data)
    c = b"<" + prefix + b"c"
    return data.count(c + b" ") + data.count(c + b">"), data.count(b"<" + prefix + b"f")


_COUNT_STEP = 1 << 22   #: [bytes] searched at a time by :func:`_counted`


def _counted(data: bytes) -> tuple[int, int]:
    """``data.count(b"<c ") + data.count(b"<c>")`` and ``data.count(b"<f")`` in one pass:
    the bytes after each "<" (found with numpy, a step at a time) looked at together.
    Each needle starts with the only "<" it holds, so its matches never overlap and
    counting where they start counts them as ``bytes.count`` does; half the time of the
    three passes on a large part (a smaller one keeps them: numpy, imported here, is not
    loaded to open a workbook)."""
    import numpy as np
    a = np.frombuffer(data, dtype=np.uint8)
    n = len(a)
    cells = formulas = 0
    for p in range(0, n, _COUNT_STEP):
        lt = np.flatnonzero(a[p:p + _COUNT_STEP] == 60) + p
        b1 = a[np.minimum(lt + 1, n - 1)]
        b1[lt + 1 >= n] = 0
        b2 = a[np.minimum(lt + 2, n - 1)]
        b2[lt + 2 >= n] = 0
        cells += int(np.count_nonzero((b1 == 99) & ((b2 == 32) | (b2 == 62))))
        formulas += int(np.count_nonzero(b1 == 102))
    return cells, formulas


def bounding_cells(data: bytes, whole: bool = True) -> int | None:
    """The cells of the rectangle a worksheet part's ``<dimension ref>`` gives (its first
    64 KB searched), else of its last row's number times its widest cell reference seen
    at its start and end (``whole``: ``data`` is the whole part); None if neither is
    there. A hint (a file may say anything):
    :func:`estimate_read` checks again once the sheets are read."""
    m = _DIMENSION.search(data, 0, 2**16)
    if m:
        c1, r1 = m.group(2), m.group(3)
        c2, r2 = m.group(4) or c1, m.group(5) or r1
        return (abs(int(r2) - int(r1)) + 1) * (abs(_col(c2) - _col(c1)) + 1)
    if not whole:  # the start of a part only: its end is not there
        return None
    # no dimension (openpyxl's write-only mode writes none): the last row's number times
    # the widest cell reference in the first and last 64 KB
    tail = data[-2**16:]
    refs = _CELL_REFS().findall(data, 0, 2**16) + _CELL_REFS().findall(tail)
    rows = _ROW_NUMBER().findall(tail)
    if not rows or not refs:
        return None
    return int(rows[-1]) * max(_col(letters) for letters in refs)


_ROW_NUMBER = lazy_pattern(rb"<(?:[A-Za-z_][\w.-]*:)?row\s[^>]*?\br=[\"'](\d{1,7})[\"']")
_CELL_REFS = lazy_pattern(rb"<(?:[A-Za-z_][\w.-]*:)?c\s[^>]*?\br=[\"']([A-Z]{1,3})\d")


def _col(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def estimate(parts: list[bytes]) -> Estimate:
    """The :class:`Estimate` of the worksheet parts ``parts`` (their bytes, inflated)."""
    cells = formulas = size = sparse = 0
    for data in parts:
        c, f = count_cells(data)
        cells, formulas, size = cells + c, formulas + f, size + len(data)
        box = bounding_cells(data)
        if box is None or box > DENSE_CELLS:
            sparse += c
    return Estimate(cells, formulas, size, sparse)


def estimate_read(sheets, part_bytes: int) -> Estimate:
    """The :class:`Estimate` of sheets as read (:class:`~.sheet.SheetData`): their cells
    and bounding boxes known, not guessed."""
    cells = formulas = sparse = 0
    for sheet in sheets:
        held, formula_cells = sheet.cell_counts()   # (the dicts not made for it)
        n = held + formula_cells
        cells, formulas = cells + n, formulas + formula_cells
        if sheet.max_row * sheet.max_col > DENSE_CELLS:
            sparse += n
    return Estimate(cells, formulas, part_bytes, sparse)


def parse_memory(text: str) -> int:
    """[bytes] of ``4G``, ``1500M``, ``512MiB``, ``2000000000``; ValueError if not."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if not m:
        raise ValueError(text)
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def available_memory() -> tuple[int, str]:
    """([bytes] zvmplan may use, where that figure comes from): ``ZVMPLAN_MEMORY`` if set,
    else the least of the system's available memory (``MemAvailable`` of /proc/meminfo),
    the room left under a cgroup's memory limit and under the process's address-space
    limit (``RLIMIT_AS``), plus what this process already holds; (0, "") when none is known (then nothing is refused for memory)."""
    given = os.environ.get(ENV, "").strip()
    if given:
        try:
            return parse_memory(given), f"{ENV}={given}"
        except ValueError:
            raise UnsafeWorkbookError(f"{ENV}={given!r} is not an amount of memory; give it "
                                      "as 4G, 1500M or a number of bytes") from None
    free = []
    meminfo = _read("/proc/meminfo")
    m = re.search(r"^MemAvailable:\s+(\d+) kB", meminfo, re.M)
    if m:
        free.append(int(m.group(1)) * 1024)
    room = _address_space_left()
    if room is not None:
        free.append(room)
    for limit, used in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                         "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        lim, cur = _read(limit).strip(), _read(used).strip()
        if lim.isdigit() and cur.isdigit() and int(lim) < 2**60:
            free.append(max(0, int(lim) - int(cur)))
    if not free:
        return 0, ""
    return min(free) + _own_memory(), "available on this machine"


def _address_space_left() -> int | None:
    """[bytes] of address space this process may still map under its ``RLIMIT_AS``
    (``ulimit -v``; the corpus score sets one), None without a limit."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    m = re.search(r"^VmSize:\s+(\d+) kB", _read("/proc/self/status"), re.M)
    return max(0, soft - int(m.group(1)) * 1024) if m else soft


def _own_memory() -> int:
    """[bytes] resident in this process now (it counts in the estimate's base)."""
    m = re.search(r"^VmRSS:\s+(\d+) kB", _read("/proc/self/status"), re.M)
    return int(m.group(1)) * 1024 if m else 0


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _size(n: int) -> str:
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:,.0f} MB"


def check_memory(est: Estimate, label: str) -> None:
    """Refuse (:class:`UnsafeWorkbookError`, one line) a workbook whose :class:`Estimate`
    ``est`` is over the memory available."""
    have, source = available_memory()
    if have and est.memory > have:
        raise UnsafeWorkbookError(
            f"{label}: recalculating {est.cells:,} cells ({est.formulas:,} formulas) needs "
            f"about {_size(est.memory)} of memory and {_size(have)} is {source}; split the "
            f"workbook, free memory, or set {ENV} if more can be used (docs/engine.md)")


def check_sampled(pkg) -> None:
    """Refuse (one line) a workbook ``pkg`` (an :class:`~.package.XlsxPackage` whose zip
    is read, no part inflated yet) whose sheet parts, priced from the cells and
    formulas in the first :data:`SAMPLE_BYTES` of each scaled to its declared size,
    need more than :data:`SAMPLE_MARGIN` times the memory available (or hold that many
    times :data:`MAX_CELLS`): a workbook far too large is refused in a fraction
    of a second, before anything is inflated."""
    have, source = available_memory()
    cells = formulas = size = sparse = 0
    for name, info in pkg.infos.items():
        if not (name.startswith("xl/worksheets/") and name.endswith(".xml")) or \
                not info.file_size:
            continue
        sample = pkg.head(name, SAMPLE_BYTES)
        c, f = count_cells(sample)
        scale = info.file_size / max(len(sample), 1)
        cells, formulas = cells + int(c * scale), formulas + int(f * scale)
        size += info.file_size
        box = bounding_cells(sample, whole=len(sample) == info.file_size)
        if box is None or box > DENSE_CELLS:
            sparse += int(c * scale)
    est = Estimate(cells, formulas, size, sparse)
    if est.cells > MAX_CELLS * SAMPLE_MARGIN:
        raise UnsafeWorkbookError(
            f"{pkg.label}: about {est.cells:,} cells in the sheets, more than the "
            f"{MAX_CELLS:,} zvmplan computes; refused: split the workbook (docs/engine.md)")
    if have and est.memory > have * SAMPLE_MARGIN:
        raise UnsafeWorkbookError(
            f"{pkg.label}: recalculating about {est.cells:,} cells ({est.formulas:,} formulas) "
            f"needs about {_size(est.memory)} of memory and {_size(have)} is {source}; split "
            f"the workbook, free memory, or set {ENV} if more can be used (docs/engine.md)")


def cell_budget(formulas: bool = False) -> int | None:
    """The most cells the memory available holds, each costing at least
    :data:`BYTES_PER_CELL` (with ``formulas``, each a formula cell: what ``fill`` may
    grow); None when the memory available is not known."""
    have, _ = available_memory()
    if not have:
        return None
    per_cell = BYTES_PER_CELL + (BYTES_PER_FORMULA if formulas else 0)
    return max(0, (have - BASE_BYTES) // per_cell)

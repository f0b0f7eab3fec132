"""What reading and recalculating a workbook will cost, known from the package before
any sheet is parsed, against the memory the machine has.

:func:`estimate` counts the cells (``<c``) and formulas (``<f``) of each worksheet part
with a byte search (0.4 s for the 209 MB of a 250,000-row plan, no parse) and prices
them at what the engine was measured to hold per cell (:data:`BYTES_PER_CELL`,
:data:`BYTES_PER_FORMULA`) plus each part's bytes, held while it is read. :func:`check_memory` refuses, in one line saying what the workbook
needs, what there is and what to do, a workbook whose estimate exceeds the memory
available (:func:`available_memory`: ``ZVMPLAN_MEMORY`` if set, else the system's
``MemAvailable`` and any cgroup limit). A workbook that hides cells from the byte
search (an unusual namespace prefix) is still bounded: the reader stops at the cells
the same memory can hold (:func:`cell_budget`); and :data:`MAX_CELLS` bounds the work
whatever the memory.

Measured (issue 19, CPU seconds and peak RSS with ``/usr/bin/time``, this machine):

=======================================  ==========  ==========  =========  ==========
workbook                                  cells      formulas    peak RSS   estimate
=======================================  ==========  ==========  =========  ==========
values only, 20,000 rows x 10             200,001    1           148 MB     see tests
values only, 100,000 rows x 10            1,000,001  1           331 MB
planner sheet, 20,000 rows                280,014    180,000     306 MB
planner sheet, 100,000 rows               1,400,014  900,000     928 MB
=======================================  ==========  ==========  =========  ==========

From these: a value cell about 230 bytes, a formula about 530 bytes more, the process
itself about 100 MB. The constants below round those up.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .errors import UnsafeWorkbookError

#: cells in all the sheets together, whatever the memory (:data:`.sheet.MAX_CELLS`): about
#: 200 CPU-s of work at the 10 us a cell measured on the 100,000-row planner sheet (1.4
#: million cells, 14 CPU-s)
MAX_CELLS = 20_000_000
BYTES_PER_CELL = 200            #: [bytes] held per cell (value or formula)
BYTES_PER_FORMULA = 550         #: [bytes] held per formula beyond its cell's
BASE_BYTES = 120 * 2**20        #: [bytes] the engine before any workbook, measured ~100 MB
ENV = "ZVMPLAN_MEMORY"          #: the memory zvmplan may use, e.g. 4G, 1500M
SAMPLE_BYTES = 2**18            #: [bytes] inflated from the start of each sheet part
#: a sampled estimate refuses only when over the memory available by this factor: the
#: start of a part may be denser in cells than the rest (the exact count decides else)
SAMPLE_MARGIN = 1.5

_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SHEET_DATA = re.compile(rb"<([A-Za-z_][\w.-]*:)?sheetData[\s>/]")


@dataclass(frozen=True)
class Estimate:
    """What a workbook's sheets hold (counted in their bytes) and what reading and
    recalculating them will take [bytes]."""
    cells: int
    formulas: int
    part_bytes: int

    @property
    def memory(self) -> int:
        """[bytes] the engine's peak, the process included."""
        return (BASE_BYTES + self.cells * BYTES_PER_CELL + self.formulas * BYTES_PER_FORMULA
                + self.part_bytes)


def count_cells(data: bytes) -> tuple[int, int]:
    """(cells, formulas) of a worksheet part, counted in its bytes in three passes of
    ``bytes.count`` (no parse): ``<c `` and ``<c>``, and ``<f``, with the prefix its
    ``sheetData`` has (none usually). The cells are exact for the usual markup (a cell
    without attributes or content, ``<c/>``, is not counted: the reader's own count
    bounds those); the few other elements named ``<f...`` (``<formula>``, ``<filters>``)
    count as formulas: the estimate errs high by as many."""
    m = _SHEET_DATA.search(data)
    prefix = (m.group(1) or b"") if m else b""
    c = b"<" + prefix + b"c"
    return data.count(c + b" ") + data.count(c + b">"), data.count(b"<" + prefix + b"f")


def estimate(parts: list[bytes]) -> Estimate:
    """The :class:`Estimate` of the worksheet parts ``parts`` (their bytes, inflated)."""
    cells = formulas = size = 0
    for data in parts:
        c, f = count_cells(data)
        cells, formulas, size = cells + c, formulas + f, size + len(data)
    return Estimate(cells, formulas, size)


def parse_memory(text: str) -> int:
    """[bytes] of ``4G``, ``1500M``, ``512MiB``, ``2000000000``; ValueError if not."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if not m:
        raise ValueError(text)
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def available_memory() -> tuple[int, str]:
    """([bytes] zvmplan may use, where that figure comes from): ``ZVMPLAN_MEMORY`` if set,
    else the least of the system's available memory (``MemAvailable`` of /proc/meminfo)
    and the room left under a cgroup's memory limit, plus what this process already
    holds; (0, "") when none is known (then nothing is refused for memory)."""
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
    for limit, used in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                         "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        lim, cur = _read(limit).strip(), _read(used).strip()
        if lim.isdigit() and cur.isdigit() and int(lim) < 2**60:
            free.append(max(0, int(lim) - int(cur)))
    if not free:
        return 0, ""
    return min(free) + _own_memory(), "available on this machine"


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
    cells = formulas = size = 0
    for name, info in pkg.infos.items():
        if not (name.startswith("xl/worksheets/") and name.endswith(".xml")) or \
                not info.file_size:
            continue
        sample = pkg.head(name, SAMPLE_BYTES)
        c, f = count_cells(sample)
        scale = info.file_size / max(len(sample), 1)
        cells, formulas = cells + int(c * scale), formulas + int(f * scale)
        size += info.file_size
    est = Estimate(cells, formulas, size)
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

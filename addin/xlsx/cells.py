"""A1 cell references as SpreadsheetML writes them (``r="D12"``, ``ref="B1:B3"``).

Only what the package layer needs; formula text is the engine's business."""
from __future__ import annotations

import functools
import re

_A1 = re.compile(r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})")


@functools.lru_cache(maxsize=4096)
def col_number(letters: str) -> int:
    """``"D"`` -> 4, ``"AA"`` -> 27."""
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


@functools.lru_cache(maxsize=4096)
def col_letters(n: int) -> str:
    """4 -> ``"D"``."""
    out = ""
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(65 + rem) + out
    return out


def a1(row: int, col: int) -> str:
    return f"{col_letters(col)}{row}"


def parse_a1(ref: str) -> tuple[int, int]:
    """``"D12"`` -> (12, 4)."""
    m = _A1.fullmatch(ref.strip())
    if not m:
        raise ValueError(f"not a cell reference: {ref!r}")
    return int(m.group(2)), col_number(m.group(1))


def parse_area(ref: str) -> tuple[int, int, int, int]:
    """``"D2:F4"`` -> (2, 4, 4, 6) as (r1, c1, r2, c2); a single cell gives a 1x1 area."""
    first, _, last = ref.partition(":")
    r1, c1 = parse_a1(first)
    r2, c2 = parse_a1(last) if last else (r1, c1)
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)

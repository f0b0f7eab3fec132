"""Cell values as SpreadsheetML writes them: a value's ``t`` attribute and ``<v>`` text,
text escaped as Excel escapes it, attributes of a start tag, the ``<dimension>`` grown to
cover new cells, and the values to cache as columns (:class:`CellValues`). Shared by the
general rewrite (:mod:`.rewrite`) and the splice at noted offsets (:mod:`.splice`), so
neither imports the other's internals."""
from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

from . import xml as xmlparse
from .cells import a1, parse_area
from .sheet import XlError
from ..lazyre import lazy_pattern


class CellUpdate(NamedTuple):
    value: Any                          # float | str | bool | XlError-like (has .code or str '#..')
    array_ref: str | None = None        # turn a plain formula into an array formula over this


_ILLEGAL_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0d\x0e-\x1f\ufffe\uffff]")
_ILLEGAL_BUT_NUL = re.compile(r"[\x01-\x08\x0b\x0c\x0d\x0e-\x1f\ufffe\uffff]")
# a text that itself reads as an escape: its "_" is written _x005F_ (as Excel does)
_LOOKS_ESCAPED = lazy_pattern(r"_(?=x[0-9A-Fa-f]{4}_)")


def escape_text(s: str, keep_nul: bool = False) -> str:
    """``s`` as the text of an element, so that Excel reads back ``s`` itself: markup
    characters as references; characters XML cannot hold, and CR (which an XML parser
    turns into LF), as Excel's ``_xHHHH_``; a literal ``_x0041_`` in the text as
    ``_x005F_x0041_``, so it is not read as "A" (NUL kept as it is with ``keep_nul``)."""
    if "_x" in s:
        s = _LOOKS_ESCAPED().sub("_x005F_", s)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    illegal = _ILLEGAL_BUT_NUL if keep_nul else _ILLEGAL_XML
    if illegal.search(s):
        s = illegal.sub(lambda m: f"_x{ord(m.group(0)):04X}_", s)
    return s


def encode_value(value) -> tuple[str | None, str]:
    """(``t`` attribute or None for a number, text of ``<v>``) for a computed value."""
    if isinstance(value, bool):
        return "b", "1" if value else "0"
    if isinstance(value, (int, float)):
        return None, repr(float(value))
    code = getattr(value, "code", None)
    if code is None and isinstance(value, XlError):
        code = str(value)
    if code is not None:
        return "e", code
    return "str", escape_text(str(value))


@functools.lru_cache(maxsize=None)
def _attr_pattern(name: bytes) -> re.Pattern:
    return re.compile(rb"\s+" + re.escape(name) + rb"""\s*=\s*(?:"[^"]*"|'[^']*')""")


def set_attr(attrs: bytes, name: bytes, value: bytes | None) -> bytes:
    """Set, replace or (value None) remove one attribute in a start tag's attribute
    bytes (as :data:`.xml.START_TAG` group 2 holds them)."""
    if name in attrs:
        attrs = _attr_pattern(name).sub(b"", attrs)
    if value is not None:
        attrs = attrs.rstrip() + b" " + name + b'="' + value + b'"'
    return attrs


def get_attr(attrs: bytes, name: bytes) -> bytes | None:
    if name not in attrs:
        return None
    m = _attr_pattern(name).search(attrs)
    return None if m is None else m.group(0).split(b"=", 1)[1].strip()[1:-1]


def dimension_edit(data: bytes, start: int, updates, edits: list) -> None:
    tag = xmlparse.start_tag(data, start)
    ref = get_attr(tag.group(2), b"ref")
    if ref is None:
        return
    try:
        r1, c1, r2, c2 = parse_area(ref.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        return
    rows = list(updates)
    cols = [c for cells in updates.values() for c in cells]
    nr1, nc1 = min([r1] + rows), min([c1] + cols)
    nr2, nc2 = max([r2] + rows), max([c2] + cols)
    if (nr1, nc1, nr2, nc2) == (r1, c1, r2, c2):
        return
    new = a1(nr1, nc1) + ("" if (nr1, nc1) == (nr2, nc2) else ":" + a1(nr2, nc2))
    attrs = set_attr(tag.group(2), b"ref", new.encode())
    edits.append((start, tag.end(), b"<" + tag.group(1) + attrs + (b"/>" if tag.group(3) else b">")))


class CellValues:
    """The values to cache for many cells of one sheet, as columns: 1-based ``rows`` and
    ``cols`` (integer arrays) and ``values`` (an object array of float | str | bool |
    XlError), one entry per cell, in any order. The engine gives its plain formula cells
    this way, so that the splice at noted offsets matches them to the sheet's layout with
    numpy instead of a dictionary lookup per cell. :meth:`as_dict` gives the
    row -> col -> value form :func:`rewrite_sheet` also takes."""

    __slots__ = ("rows", "cols", "values")

    def __init__(self, rows, cols, values):
        import numpy as np
        self.rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        self.cols = np.asarray(cols, dtype=np.int64).reshape(-1)
        if isinstance(values, np.ndarray) and values.dtype == object:
            self.values = values.reshape(-1)
        else:
            self.values = np.empty(len(values), dtype=object)
            self.values[:] = list(values)
        if not len(self.rows) == len(self.cols) == len(self.values):
            raise ValueError("rows, cols and values differ in length")

    def __len__(self) -> int:
        return len(self.values)

    def as_dict(self) -> dict[int, dict[int, Any]]:
        out: dict[int, dict] = {}
        for r, c, v in zip(self.rows.tolist(), self.cols.tolist(), self.values.tolist()):
            cells = out.get(r)
            if cells is None:
                cells = out[r] = {}
            cells[c] = v
        return out

    @classmethod
    def from_dict(cls, updates: dict) -> "CellValues | None":
        """The same updates as columns; None if one is an array formula (which only the
        general path writes)."""
        rows, cols, values = [], [], []
        for r, cells in updates.items():
            for c, upd in cells.items():
                if type(upd) is CellUpdate:
                    if upd.array_ref:
                        return None
                    upd = upd.value
                rows.append(r)
                cols.append(c)
                values.append(upd)
        return cls(rows, cols, values)


def escape_many(texts: list[str]) -> list[str]:
    """:func:`escape_text` of each text, done on all of them joined (one pass of each
    replacement instead of one per text)."""
    if len(texts) < 2:
        return [escape_text(s) for s in texts]
    joined = "\x00".join(texts)      # NUL is not legal XML: no text holds one...
    if joined.count("\x00") != len(texts) - 1:
        return [escape_text(s) for s in texts]   # ...unless it does: one at a time
    return escape_text(joined, keep_nul=True).split("\x00")

"""How the two fast sheet readers (:mod:`.fastsheet`'s loop and :mod:`.bulksheet`)
read a cell's attributes and value, in one place: both give what the general reader
(:func:`~.sheet.read_general`) gives."""
from __future__ import annotations

import re

from . import sheet as S

# an attribute as the usual writers spell it: no reference, no whitespace, no "<" in it
ATTR = rb' [A-Za-z][A-Za-z0-9:]*="[^"&<\t\n\r]*"'
ATTRS = re.compile(rb' ([A-Za-z][A-Za-z0-9:]*)="([^"]*)"')


def attrs(raw: bytes) -> dict:
    """The attributes matched by :data:`ATTR` as expat gives them (no reference or
    whitespace to normalise: the expression admits none)."""
    return {k.decode(): v.decode() for k, v in ATTRS.findall(raw)}


class Kinds(dict):
    """A cell's attributes (the bytes after ``r``) -> its ``t`` (``"n"`` if none) and
    the layout's flag 1 (``t`` or ``vm`` given), as the general reader makes them."""

    def __missing__(self, raw: bytes) -> tuple:
        a = attrs(raw)
        t = a.get("t")
        kind = self[raw] = ("n", 1 if "vm" in a else 0) if t is None else (t, 1)
        return kind


def value(t: str, raw: bytes, strings: list):
    """The value of a cell of type ``t`` (not ``inlineStr``) whose ``<v>`` holds ``raw``:
    what the general reader's ``</v>`` handler makes."""
    if t == "n":
        if not raw:
            return None
        try:
            return float(raw)
        except ValueError:
            return S.cell_value(t, S._decoded(raw), strings)
    if t == "s":
        try:
            return strings[int(raw)]
        except (ValueError, IndexError):
            return S.XlError("#REF!")
    return S.cell_value(t, S._decoded(raw), strings)

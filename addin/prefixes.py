"""The prefixes under which a spreadsheet file stores a function's name: one table,
read by everything that spells or recognises a function name (the registry's
functions in the formula engine's table, ``zvmplan eval``, the engine's lists of
builtins that need special handling).

Excel writes ``_xlfn.`` before a function newer than the file format (``_xlfn.IFNA``),
``_xlws.`` before a function that exists only on worksheets (``_xlws.SORT``) and
``_xludf.`` before a user-defined (add-in) function it does not know; xlwings Lite's
custom functions are stored as ``_xldudf_<NAMESPACE>_<NAME>`` and typed as
``<NAMESPACE>.<NAME>``. Excel shows each without its prefix."""
from __future__ import annotations

from typing import NamedTuple

from .registry import NAMESPACE


class Prefix(NamedTuple):
    text: str        # upper case, as compared with an upper-cased name
    registry: bool   # a zvmplan (registry) function may be stored under it
    builtin: bool    # an Excel builtin may be stored under it
    meaning: str


PREFIXES = (
    Prefix("_XLUDF.", True, False, "a user-defined (add-in) function Excel does not know"),
    Prefix("_XLFN.", True, True, "a function newer than the file format"),
    Prefix("_XLWS.", False, True, "a function that exists only on worksheets"),
    Prefix(f"_XLDUDF_{NAMESPACE}_", True, False, "an xlwings Lite custom function, stored"),
    Prefix(f"{NAMESPACE}.", True, False, "an xlwings Lite custom function, typed"),
)


def spellings(name: str, builtin: bool = False) -> tuple[str, ...]:
    """Every upper-case spelling under which a file may store function ``name``: itself,
    then under each prefix of :data:`PREFIXES` that applies to a registry function (or,
    with ``builtin``, to an Excel builtin).

    >>> spellings("ifna", builtin=True)
    ('IFNA', '_XLFN.IFNA', '_XLWS.IFNA')
    """
    name = name.upper()
    return (name,) + tuple(p.text + name for p in PREFIXES
                           if (p.builtin if builtin else p.registry))


def bare_name(name: str, builtin: bool = False) -> str:
    """``name`` upper-cased, without the first prefix of :data:`PREFIXES` (for a registry
    function, or with ``builtin`` an Excel builtin) that it starts with.

    >>> bare_name(" _xludf.cpcpu_per_mb ")
    'CPCPU_PER_MB'
    """
    key = name.strip().upper()
    for p in PREFIXES:
        if (p.builtin if builtin else p.registry) and key.startswith(p.text):
            return key[len(p.text):]
    return key


__all__ = ["Prefix", "PREFIXES", "spellings", "bare_name"]

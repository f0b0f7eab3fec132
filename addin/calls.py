"""Calls of worksheet functions as text: a *literal* call parsed for ``zvmplan eval``
to run without the formula engine (:func:`parse_call`), the functions a formula calls
(:func:`called_functions`, :func:`outer_function`), a registry function found by any
name a file stores it under (:func:`resolve`), and a value printed as ``eval`` prints
it (:func:`format_value`). "Evaluate" is the engine's word (:mod:`zvmplan_addin.recalc`);
nothing here evaluates a formula.

``parse_call('=CPCPU_PER_MB("IUCV",9000)')`` splits a *literal* call -- a function
name and literal arguments: text in double quotes (``""`` for a quote), numbers
(``9000``, ``-1.5e3``, ``50%``), ``TRUE``/``FALSE``, an empty argument, and array
constants such as ``{1,2;3,4}`` -- into the name and the raw cell values the registry
takes (a skipped argument, ``=F(1,,2)``, is :data:`~zvmplan_addin.registry.MISSING`).
Anything else (operators, nested calls, references) gives None, and the caller
hands the text to the formula engine instead. This is not a formula parser: it only
recognises the one shape that needs no engine, so that ``zvmplan eval`` starts
without importing ``formulas`` or ``openpyxl``.
"""
from __future__ import annotations

import importlib
import math
import re

import numpy as np

from .errors import ExcelError
from .prefixes import bare_name, spellings
from .registry import MISSING, REGISTRY
from .lazyre import lazy_pattern

FUNCTIONS_MODULE = "zvmplan_addin.functions"


def load_functions() -> dict:
    """Fill :data:`REGISTRY` from :mod:`zvmplan_addin.functions` (if it is installed)."""
    try:
        importlib.import_module(FUNCTIONS_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != FUNCTIONS_MODULE:
            raise
    return REGISTRY


def excel_names(name: str) -> tuple[str, ...]:
    """Every spelling under which a file may store a call of registry function ``name``:
    plain, then under each prefix of :data:`~zvmplan_addin.prefixes.PREFIXES` for a
    registry function (``_xludf.``, ``_xlfn.``, xlwings Lite's two)."""
    return spellings(name)


def resolve(name: str):
    """The registry function called ``name`` in any of the :func:`excel_names` spellings."""
    return REGISTRY.get(bare_name(name))


_CALL = lazy_pattern(r"^\s*=?\s*([A-Za-z_][\w.]*)\s*\((.*)\)\s*$", re.S)
# ASCII digits only: Excel's formula grammar has no full-width or Arabic-Indic digits
_NUMBER = lazy_pattern(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?%?$")


class _NotLiteral(Exception):
    pass


def parse_call(text: str):
    """(function name, [raw argument values]) of a literal call, or None."""
    m = _CALL().match(text)
    if not m:
        return None
    try:
        args = _split(m.group(2), ",")
        if len(args) == 1 and args[0].strip() == "":
            return m.group(1), []
        return m.group(1), [_literal(a) for a in args]
    except _NotLiteral:
        return None


def _split(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside quotes and braces."""
    parts, depth, quoted, cur = [], 0, False, []
    for ch in text:
        if quoted:
            cur.append(ch)
            if ch == '"':
                quoted = False  # a doubled quote re-opens at once
            continue
        if ch == '"':
            quoted = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise _NotLiteral
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if quoted or depth:
        raise _NotLiteral
    parts.append("".join(cur))
    return parts


def _literal(arg: str, in_array: bool = False):
    s = arg.strip()
    if s == "":
        if in_array:
            raise _NotLiteral
        return MISSING
    if s[0] == '"':
        if len(s) < 2 or s[-1] != '"' or '"' in s[1:-1].replace('""', ""):
            raise _NotLiteral
        return s[1:-1].replace('""', '"')
    if s.upper() in ("TRUE", "FALSE"):
        return s.upper() == "TRUE"
    if _NUMBER().match(s):
        value = float(s.rstrip("%"))
        return value / 100 if s.endswith("%") else value
    if s[0] == "{" and s[-1] == "}" and not in_array:
        rows = [[_literal(v, True) for v in _split(row, ",")] for row in _split(s[1:-1], ";")]
        if len({len(r) for r in rows}) != 1:
            raise _NotLiteral
        return np.array(rows, dtype=object)
    raise _NotLiteral


_CALLED = lazy_pattern(r"(?<![\w.])([A-Za-z_][\w.]*)\s*\(")
_BINDS = lazy_pattern(r"\b(?:_xlfn\.)?(?:LET|LAMBDA)\s*\(", re.I)


def called_functions(text: str) -> list[str]:
    """The names called in formula ``text`` (``NAME(`` outside string literals), in order,
    each once; [] for a formula that binds names of its own (LET, LAMBDA)."""
    if _BINDS().search(text):
        return []
    names = []
    for i, piece in enumerate(text.split('"')):
        if i % 2 == 0:  # outside a string ("" inside one splits into two string pieces)
            names += [m.group(1) for m in _CALLED().finditer(piece)]
    return list(dict.fromkeys(names))


def outer_function(text: str):
    """The name of the function when formula ``text`` is one call from end to end
    (``=ROUND(CPCPU_PER_MB("IUCV",9000),3)`` -> ``ROUND``), else None."""
    m = re.match(r"\s*=?\s*([A-Za-z_][\w.]*)\s*\(", text)
    if not m:
        return None
    depth, quoted = 0, False
    for pos in range(m.end() - 1, len(text)):
        ch = text[pos]
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
            if depth == 0:
                return m.group(1) if text[pos + 1:].strip() == "" else None
    return None


def did_you_mean(name: str) -> str:
    """`` (did you mean CPCPU_PER_MB?)`` for a near miss of a registry name, else ""."""
    import difflib  # here: only a misspelt name needs it (~1 ms of every start-up)
    close = difflib.get_close_matches(bare_name(name), list(REGISTRY), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def format_value(value) -> str:
    """A value as ``zvmplan eval`` prints it (arrays: tab-separated rows)."""
    if isinstance(value, np.ndarray):
        rows = np.atleast_2d(value)
        return "\n".join("\t".join(format_value(v) for v in row) for row in rows)
    if isinstance(value, ExcelError):
        return value.code
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float, np.integer, np.floating)):
        number = float(value)
        if not math.isfinite(number):
            return "#NUM!"
        return f"{number:.15g}"
    if value is None or value is MISSING:
        return ""
    return str(value)


__all__ = ["load_functions", "excel_names", "resolve", "parse_call", "format_value",
           "called_functions", "outer_function", "did_you_mean", "FUNCTIONS_MODULE"]

"""3-D references (``Sheet1:Sheet3!A1``, ``'Q 1:Q 4'!B2:C3``): the same cell or range on
every sheet from the first named to the last, in the workbook's tab order.

Excel takes a 3-D reference as an argument of SUM, AVERAGE, COUNT, COUNTA, MAX, MIN,
PRODUCT, STDEV, VAR and their A/P/S forms, where it is each sheet's range in turn, as if
each were an argument of its own (poi's 55906-MultiSheetRefs.xlsx, FormulaSheetRange.xlsx
and 48703.xlsx, saved by Excel: ``SUM(Sheet1:Sheet3!A1)`` 66, ``AVERAGE(...)`` 22,
``COUNTA(Sheet1:Sheet3!C1)`` 3, ``COUNT(Sheet1:Sheet3!$A$1:$B$2)`` 4, ``MIN``, ``MAX``).
formulas cannot parse one (it reads ``Sheet1`` as an unknown name): such a COUNTA gave
1 and such a COUNT 0. :func:`expand` writes each 3-D reference that is a whole argument of
one of those functions as the sheets' references, one argument each, before anything
else reads the formula (so the cells it reads are its dependencies). Any other 3-D
reference (an operand, an argument of another function) is left as written: the engine
does not compute it and says so (:func:`~.excel.unknown.not_computed_reason`)."""
from __future__ import annotations

import re

from ..prefixes import bare_name
from .shapes import sheet_key
from .values import quote
from ..lazyre import lazy_pattern

#: the functions Excel lets a 3-D reference be an argument of
ACCEPTING = frozenset((
    "SUM", "AVERAGE", "AVERAGEA", "COUNT", "COUNTA", "MAX", "MAXA", "MIN", "MINA",
    "PRODUCT", "STDEV", "STDEVA", "STDEVP", "STDEVPA", "STDEV.S", "STDEV.P", "VAR",
    "VARA", "VARP", "VARPA", "VAR.S", "VAR.P"))

_NAME = r"[^\W\d][\w.]*"
_CELL = r"\$?[A-Za-z]{1,3}\$?[0-9]{1,7}"
_AREA = (rf"{_CELL}(?::{_CELL})?|\$?[A-Za-z]{{1,3}}:\$?[A-Za-z]{{1,3}}"
         r"|\$?[0-9]{1,7}:\$?[0-9]{1,7}")
#: ``First:Last!ref`` or ``'First:Last'!ref``
THREE_D = lazy_pattern(rf"""(?<![\w.$:!'\]\#])
    (?:'(?P<q1>(?:[^':]|''){{1,31}}):(?P<q2>(?:[^':]|''){{1,31}})'|(?P<p1>{_NAME}):(?P<p2>{_NAME}))
    !(?P<ref>{_AREA})(?![\w.(!:\[])""", re.X)
def maybe(sheet_names) -> re.Pattern:
    """Where a text (upper case) may hold a 3-D reference of a workbook with
    ``sheet_names``: a colon, then one of its sheet names as the last sheet of the pair
    (``:SHEET3!``, ``:Q 3'!``). A reference whose last name is no sheet of the book is
    left as written anyway (:meth:`ThreeD.expand`). Literal alternatives after a colon:
    over the 60 MB of formula text of a 10,000-link plan, ~0.03 CPU-s, where an
    open-ended quoted name after every colon took ~0.2 s."""
    words = [re.escape(literal[1:]) for literal in maybe_literals(sheet_names)]
    return re.compile(":(?:" + "|".join(words) + ")") if words else re.compile(r"(?!)")


def maybe_literals(sheet_names) -> list[str]:
    """The texts :func:`maybe`'s pattern matches, and nothing else (``:SHEET3!``,
    ``:Q 3'!``: a colon, a sheet name in upper case, as written plain and quoted, an
    exclamation mark), the longest names first."""
    out = []
    for name in sorted(set(sheet_names), key=len, reverse=True):
        upper = name.upper()
        out += [":" + upper + "!", ":" + upper.replace("'", "''") + "'!"]
    return out


class ThreeD:
    """The 3-D references of a workbook with sheets ``sheet_names`` (in tab order)."""

    def __init__(self, sheet_names):
        self.names = list(sheet_names)
        self.index = {sheet_key(n): k for k, n in enumerate(self.names)}
        self.maybe = re.compile(maybe(self.names).pattern, re.I)  # in any case

    def expand(self, text: str) -> str:
        """``text`` with each 3-D reference that is a whole argument of an
        :data:`ACCEPTING` function written as the references it stands for."""
        if not self.maybe.search(text):
            return text
        # string literals blanked (the same length): no reference or parenthesis in them
        masked = '"'.join(piece if k % 2 == 0 else " " * len(piece)
                          for k, piece in enumerate(text.split('"')))
        out, pos = [], 0
        for m in THREE_D().finditer(masked):
            sheets = self._sheets(m)
            if sheets is None or not _whole_argument(masked, m.start(), m.end()):
                continue
            out += [text[pos:m.start()],
                    ",".join(f"{quote(s)}!{m.group('ref')}" for s in sheets)]
            pos = m.end()
        if not out:
            return text
        out.append(text[pos:])
        return "".join(out)

    def _sheets(self, m) -> list | None:
        first = m.group("q1") or m.group("p1")
        last = m.group("q2") or m.group("p2")
        if m.group("q1"):
            first, last = first.replace("''", "'"), last.replace("''", "'")
        a, b = self.index.get(first.upper()), self.index.get(last.upper())
        if a is None or b is None:
            return None
        a, b = sorted((a, b))
        return self.names[a:b + 1]


def _whole_argument(masked: str, start: int, end: int) -> bool:
    """Is ``masked[start:end]`` a whole argument of a call of an :data:`ACCEPTING`
    function (``(`` or ``,`` before it, ``,`` or ``)`` after it, spaces aside)?
    ``masked``: the formula with its string literals blanked."""
    before, after = masked[:start].rstrip(), masked[end:].lstrip()
    if not before or before[-1] not in "(," or not after or after[0] not in ",)":
        return False
    depth = 0
    for k in range(len(before) - 1, -1, -1):  # the innermost open parenthesis
        ch = before[k]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                name = re.search(r"[A-Za-z_][\w.]*\s*$", before[:k])
                return name is not None and \
                    bare_name(name.group(0).strip(), builtin=True) in ACCEPTING
            depth -= 1
    return False

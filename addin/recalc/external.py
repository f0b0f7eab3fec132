"""References to other workbooks (``[1]Sheet1!$A$1``, ``'[2]My Sheet'!A1:B2``), read
as Excel reads them when it does not open the other file: from the values it cached in
the workbook's own external-link part (``xl/externalLinks/externalLinkN.xml``,
``sheetDataSet``; ``[n]`` is the n-th ``externalReference`` of workbook.xml).
:class:`ExternalRefs` replaces each such reference, in the read stage, by its cached
value as a literal (a range by an array constant); one whose cells were not all cached
stays as written, which the engine then shows as ``#REF!`` -- never a silent 0.
"""
from __future__ import annotations

import re

from ..xlsx.cells import parse_area
from .values import FXlError
from ..lazyre import lazy_pattern

_EXTERNAL = lazy_pattern(r"""(?<![\w.'])
    (?:'\[(?P<qbook>[0-9]+)\](?P<qsheet>(?:[^']|'')+)'|\[(?P<book>[0-9]+)\](?P<sheet>[^\W\d][\w.]*))
    !(?P<ref>\$?[A-Za-z]{1,3}\$?[0-9]{1,7}(?::\$?[A-Za-z]{1,3}\$?[0-9]{1,7})?)
    (?![\w.(!])""", re.X)
MAX_CELLS = 10_000          # a larger cached range stays a reference


class ExternalRefs:
    """``external``: per external workbook, {SHEET: {(row, col): value}} as
    :func:`zvmplan_addin.xlsx.read_workbook` reads the cached values."""

    def __init__(self, external):
        self.external = list(external or ())

    def __bool__(self) -> bool:
        return bool(self.external)

    def inline(self, text: str, sheet=None, row=None, col=None) -> str:
        """``text`` with each cached external reference replaced by its value."""
        if not self.external or "[" not in text:
            return text
        pieces = text.split('"')
        for k in range(0, len(pieces), 2):
            if "[" in pieces[k]:
                pieces[k] = _EXTERNAL().sub(self._replace, pieces[k])
        return '"'.join(pieces)

    def _replace(self, m) -> str:
        book = int(m.group("book") or m.group("qbook"))
        name = m.group("sheet") or m.group("qsheet").replace("''", "'")
        if not 1 <= book <= len(self.external):
            return m.group(0)
        cells = self.external[book - 1].get(name.upper())
        if cells is None:
            return m.group(0)
        r1, c1, r2, c2 = parse_area(m.group("ref").replace("$", ""))
        if (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_CELLS:
            return m.group(0)
        rows = []
        for r in range(r1, r2 + 1):
            row = []
            for c in range(c1, c2 + 1):
                if (r, c) not in cells:
                    return m.group(0)
                row.append(_literal(cells[(r, c)], inside_array=(r1, c1) != (r2, c2)))
            rows.append(",".join(row))
        return rows[0] if (r1, c1) == (r2, c2) else "{" + ";".join(rows) + "}"


def _literal(v, inside_array: bool) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        text = repr(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v).upper()
        return text if v >= 0 or inside_array else f"({text})"
    if isinstance(v, FXlError) or type(v).__name__ == "XlError":
        return str(v)
    return '"' + str(v).replace('"', '""') + '"'


__all__ = ["ExternalRefs"]

"""More table rows for ``zvmplan fill``: the template's Planner and Scenarios tables hold
:data:`~zvmplan_workbook.planner.N_ROWS` rows; for more links, rows are appended at zip
level (charts and everything else untouched), each with the formulas
:func:`~zvmplan_workbook.planner.planner_row` / :func:`~zvmplan_workbook.planner.scenario_row`
write in the template (one definition), the style of the template's last row, and the
totals, highlights, dropdowns and print area stretched to the new last row. The Plan
sheet's every-link table (:func:`~zvmplan_workbook.charts.plan_link_row`) grows with them,
and its ranks and heaviest-links table (:func:`~zvmplan_workbook.charts.plan_top`) cover
the new rows.

Works on a template as ``python -m zvmplan_workbook.build`` writes it: nothing below the
tables (the totals sit above them). Anything else is refused with :class:`GrowError`.
"""
from __future__ import annotations

import re
from xml.sax.saxutils import escape

from defusedxml import ElementTree

from . import charts as C
from . import planner as P

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG = "{http://schemas.openxmlformats.org/package/2006/relationships}"


class GrowError(ValueError):
    """The template's table cannot be extended (not laid out as the builder lays it out)."""


_ROW = r'<row\b[^>]*\br="{r}"[^>]*?(?:/>|>.*?</row>)'
_CELL_ATTRS = re.compile(r'<c\b[^>]*\br="(?P<col>[A-Z]+)(?P<row>[0-9]+)"(?P<attrs>[^>]*?)/?>')


def grow(entries: dict[str, bytes], n_rows: int) -> None:
    """Extend the Planner and Scenarios tables of the unpacked workbook ``entries`` (zip
    path -> bytes, changed in place) to ``n_rows`` rows. Nothing to do for ``n_rows`` up
    to the template's own."""
    if n_rows <= P.N_ROWS:
        return
    paths = sheet_paths(entries)
    last = P.FIRST_ROW + n_rows - 1
    _grow_sheet(entries, paths[P.PLANNER], P.FIRST_ROW, P.LAST_ROW, last, P.planner_row,
                P.planner_totals(last))
    s_last = P.SCEN_FIRST_ROW + n_rows - 1

    def scenario_rows(r):
        out = {}
        for b in range(P.SCENARIO_BLOCKS):
            out.update(P.scenario_row(b, r))
        return out
    totals = {}
    for b in range(P.SCENARIO_BLOCKS):
        totals.update(P.scenario_totals(b, s_last))
    _grow_sheet(entries, paths[P.SCENARIOS], P.SCEN_FIRST_ROW, P.SCEN_LAST_ROW, s_last,
                scenario_rows, totals)
    if C.PLAN in paths:  # the Plan sheet's every-link table and what is read from it
        e_last = C.PLAN_EVERY_FIRST + n_rows - 1
        e_old = C.PLAN_EVERY_FIRST + P.N_ROWS - 1
        cells = C.plan_top(e_last)
        for r in range(C.PLAN_EVERY_FIRST, e_old + 1):  # the ranks over the longer table
            cells[f"{C.PLAN_RANK}{r}"] = C.plan_link_row(r, e_last)[C.PLAN_RANK]
        _grow_sheet(entries, paths[C.PLAN], C.PLAN_EVERY_FIRST, e_old, e_last,
                    lambda r: C.plan_link_row(r, e_last), cells)
    wb = entries["xl/workbook.xml"].decode("utf-8")
    old = f"'{P.PLANNER}'!$A$1:${P.BASIS_COL}${P.LAST_ROW}<"
    if old in wb:
        wb = wb.replace(old, f"'{P.PLANNER}'!$A$1:${P.BASIS_COL}${last}<")
        entries["xl/workbook.xml"] = wb.encode("utf-8")


def sheet_paths(entries: dict[str, bytes]) -> dict[str, str]:
    """Sheet name -> zip path of its worksheet part (workbook.xml and its relationships)."""
    rels = ElementTree.fromstring(entries["xl/_rels/workbook.xml.rels"])
    target = {r.get("Id"): r.get("Target") for r in rels.iter(f"{_PKG}Relationship")}
    book = ElementTree.fromstring(entries["xl/workbook.xml"])
    out = {}
    for sh in book.iter(f"{_MAIN}sheet"):
        t = target[sh.get(f"{_REL}id")]
        t = t.lstrip("/")
        out[sh.get("name")] = t if t.startswith("xl/") else "xl/" + t
    return out


def _grow_sheet(entries, path, first, old_last, new_last, row_fn, totals):
    xml = entries[path].decode("utf-8")
    m = re.search(_ROW.format(r=old_last), xml, re.S)
    if m is None or not xml[m.end():].lstrip().startswith("</sheetData>"):
        raise GrowError(f"{path}: row {old_last} is not the last row of the table")
    row_tag = re.match(r"<row\b[^>]*?/?>", m.group(0)).group(0)
    row_attrs = re.sub(r'\s(?:r|spans)="[^"]*"', "", row_tag[4:].rstrip("/>"))
    cols = [(c.group("col"), re.search(r'\bs="[0-9]+"', c.group("attrs")))
            for c in _CELL_ATTRS.finditer(m.group(0))]
    pieces = []
    for r in range(old_last + 1, new_last + 1):
        formulas = row_fn(r)
        pieces.append(f'<row r="{r}"{row_attrs}>')
        for col, style in cols:
            s = f" {style.group(0)}" if style else ""
            f = formulas.get(col)
            if f is None:
                pieces.append(f'<c r="{col}{r}"{s}/>')
            else:
                pieces.append(f'<c r="{col}{r}"{s}><f>{escape(f[0][1:])}</f></c>')
        pieces.append("</row>")
    xml = xml[:m.end()] + "".join(pieces) + xml[m.end():]
    for ref, (f, _) in totals.items():
        cell = re.search(rf'<c\b[^>]*\br="{ref}"(?P<attrs>[^>]*?)(?:/>|>.*?</c>)', xml, re.S)
        if cell is None:
            raise GrowError(f"{path}: no totals cell {ref}")
        style = re.search(r'\bs="[0-9]+"', cell.group(0))
        s = f" {style.group(0)}" if style else ""
        xml = xml[:cell.start()] + f'<c r="{ref}"{s}><f>{escape(f[1:])}</f></c>' + \
            xml[cell.end():]
    xml = re.sub(r'(<dimension\b[^>]*\bref="[A-Z]+[0-9]+:[A-Z]+)' + str(old_last) + '"',
                 rf'\g<1>{new_last}"', xml, count=1)
    span = re.compile(rf"\b([A-Z]+){first}:([A-Z]+){old_last}\b")

    def stretch(a):
        return span.sub(rf"\g<1>{first}:\g<2>{new_last}", a.group(0))
    xml = re.sub(r'\bsqref="[^"]*"', stretch, xml)
    entries[path] = xml.encode("utf-8")

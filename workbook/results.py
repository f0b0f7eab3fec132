"""The answer of a filled plan, read back from the recalculated workbook's Planner.

Columns are found by their heading text (:data:`COLUMNS`), never by letter, so the
Planner's layout may change without this module; a heading that is missing is left out
of the results (the link name and the total CPU are required). Values are those cached
by the recalculation: numbers, text, or Excel error text such as ``#NUM!``.

Printed three ways by :func:`render`: a terminal table (tabulate), CSV and JSON.
"""
from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .csvfile import normalise

#: Planner heading -> (key in the CSV and JSON output, short terminal heading)
COLUMNS = {
    "link": ("link", "Link"),
    "transport": ("transport", "Transport"),
    "workload": ("workload", "Workload"),
    "required load": ("load", "Load"),
    "load unit": ("load_unit", "Unit"),
    "cp cpu": ("cp_engines", "CP\n[engines]"),
    "virtual cpu": ("virtual_engines", "Virtual\n[engines]"),
    "total cpu": ("total_engines", "Total\n[engines]"),
    "share of lpar": ("share_of_lpar", "Share of\nLPAR"),
    "measured rate at this configuration": ("measured_rate", "Measured\nrate"),
    "load within measured rate?": ("within_measured_rate", "Within\nrate?"),
    "in totals": ("in_totals", "In\ntotals"),
    "measured on (zvm_processor)": ("measured_on", None),
    "speed factor used": ("speed_factor_used", None),
    "cpu figures are engines of": ("engines_of", None),
    "basis of the total cpu (zvm_basis)": ("basis", None),  # for warnings; not in the table
}
REQUIRED = ("link", "total_engines")
ENGINES = ("cp_engines", "virtual_engines", "total_engines")
#: whose engines a total is when it adds links of more than one basis (the Planner's
#: "CPU figures are engines of" cell of the total; planner.NOT_NORMALISED)
NOT_NORMALISED = "not normalised: measured on different processors"
#: header row is searched for in the first rows of the sheet
SEARCH_ROWS = 60


class ResultsError(ValueError):
    """The workbook has no Planner table this module can read."""


@dataclass
class Results:
    out: Path
    keys: list[str]                                   # output columns, in sheet order
    links: list[dict] = field(default_factory=list)
    totals: dict = field(default_factory=dict)        # same keys; {} when no total row
    total_label: str = ""
    notes: list[str] = field(default_factory=list)    # other text on the total row
    #: the subtotal rows under the total, one per basis (the target machine, or a measured
    #: processor as measured): {"label", "engines_of", cp/virtual/total_engines, "links"}
    subtotals: list[dict] = field(default_factory=list)

    @property
    def normalised(self) -> bool | None:
        """False when the total adds engines of different processors (then it is no
        capacity of any one machine and has no share of the LPAR); None if not known."""
        on = self.totals.get("engines_of")
        return None if on is None else on != NOT_NORMALISED

    def errors(self) -> list[str]:
        """One line per link whose total CPU is an error: the reason from its basis."""
        out = []
        for i, link in enumerate(self.links, start=1):
            total = link.get("total_engines")
            if _is_error(total):
                out.append(f"link {i} ({link['link']}): {link.get('basis') or total}")
        return out


def attention(res: Results) -> list[str]:
    """What a planner must look at: loads above the measured rate (the sheet's rate check
    says "no"), and totals over 100% of the LPAR."""
    out = []
    for i, link in enumerate(res.links, start=1):
        check = link.get("within_measured_rate")
        if isinstance(check, str) and check.lower().startswith("no"):
            unit = link.get("load_unit") or ""
            out.append(f"link {i} ({link['link']}): load {_fmt('load', link.get('load'))} "
                       f"{unit} is above the measured rate "
                       f"{_fmt('measured_rate', link.get('measured_rate'))} {unit}")
    share = res.totals.get("share_of_lpar")
    if isinstance(share, (int, float)) and not isinstance(share, bool) and share > 1:
        out.append(f"the links need {_fmt('share_of_lpar', share)} of the LPAR's engines")
    if res.normalised is False:
        by = "; ".join(f"{s['engines_of']} {_fmt('total_engines', s.get('total_engines'))}"
                       for s in res.subtotals if isinstance(s.get("total_engines"), (int, float)))
        out.append("the total is not normalised: it adds engines of different processors "
                   f"({by}), so it is no capacity of any one machine and no share of the LPAR "
                   "is given; name the target machine (--machine or --capacity)")
    return out


def _is_error(v) -> bool:
    return isinstance(v, str) and v.startswith("#") and (v.endswith(("!", "?")) or v == "#N/A")


def read(out, sheet: str = "Planner") -> Results:
    """The per-link rows and the totals of the Planner of the workbook ``out``."""
    from openpyxl import load_workbook
    out = Path(out)
    wb = load_workbook(out, data_only=True, read_only=True)
    try:
        if sheet not in wb.sheetnames:
            raise ResultsError(f"{out.name}: no {sheet} sheet")
        rows = [tuple(r) for r in wb[sheet].iter_rows(values_only=True)]
    finally:
        wb.close()
    head = next((i for i, r in enumerate(rows[:SEARCH_ROWS])
                 if {"link", "total cpu"} <= {normalise(v) for v in r if isinstance(v, str)}),
                None)
    if head is None:
        raise ResultsError(f"{out.name}: the {sheet} sheet has no row of headings with "
                           "'Link' and 'Total CPU'")
    where: dict[str, int] = {}
    for c, v in enumerate(rows[head]):
        if isinstance(v, str) and normalise(v) in COLUMNS:
            where.setdefault(COLUMNS[normalise(v)][0], c)
    res = Results(out, [k for k, _ in sorted(where.items(), key=lambda kv: kv[1])])
    link_c = where["link"]
    trans_c = where.get("transport")

    def cell(r, c):
        return r[c] if c < len(r) else None

    def is_total(r):
        label = cell(r, link_c)
        return isinstance(label, str) and label.strip().lower().startswith("total") and \
            (trans_c is None or cell(r, trans_c) in (None, ""))

    total_row = None
    for r in rows[head + 1:]:
        label = cell(r, link_c)
        if label in (None, "") or (isinstance(label, str) and label.startswith("[")):
            continue  # empty row, or the units row under the headings
        if is_total(r):
            total_row = r  # a totals row under the table ends it
            break
        if trans_c is not None and cell(r, trans_c) in (None, ""):
            continue
        res.links.append({k: cell(r, c) for k, c in where.items()})
    if total_row is None:  # or the totals sit above the table, so that it can grow
        total_row = next((r for r in reversed(rows[:head]) if is_total(r)), None)
    if total_row is not None:
        res.total_label = re.sub(r"\s*\[[^\]]*\]$", "", str(cell(total_row, link_c)).strip())
        value_cols = {c for k, c in where.items()
                      if k in ENGINES + ("share_of_lpar", "engines_of")}
        res.totals = {k: cell(total_row, c) for k, c in where.items() if c in value_cols}
        res.notes = [str(v).strip() for c, v in enumerate(total_row)
                     if c != link_c and c not in value_cols and isinstance(v, str)
                     and v.strip()]
        res.subtotals = _subtotals(rows, total_row, head, link_c, where)
    return res


def _subtotals(rows, total_row, head: int, link_c: int, where: dict[str, int]) -> list[dict]:
    """The rows between the total (above the table) and the headings whose label starts
    "of which": one per basis with links in it."""
    if "engines_of" not in where:
        return []
    start = next(i for i, r in enumerate(rows) if r is total_row) + 1
    out = []
    for r in rows[start:head]:
        label = r[link_c] if link_c < len(r) else None
        if not (isinstance(label, str) and label.lower().startswith("of which")):
            continue
        got = {k: (r[c] if c < len(r) else None) for k, c in where.items()
               if k in ENGINES + ("engines_of",)}
        if got.get("total_engines") in (None, ""):
            continue   # no links of this basis
        out.append({"label": label, **got})
    return out


# ---------------------------------------------------------------- output ----
def _fmt(key: str, v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if key in ENGINES:
        return f"{v:.3f}"
    if key == "share_of_lpar":
        return f"{v:.1%}"
    if key in ("load", "measured_rate"):
        return f"{v:,.1f}" if v != int(v) else f"{v:,.0f}"
    return f"{v:g}"


def table(res: Results, max_rows: int = 50) -> str:
    """The per-link table and the totals, for a terminal."""
    from tabulate import tabulate
    keys = [k for k in res.keys if _heading(k)]
    shown = res.links if max_rows <= 0 else res.links[:max_rows]
    body = [[_fmt(k, link.get(k)) for k in keys] for link in shown]
    if res.totals:
        body.append(["Total" if k == "link" else _fmt(k, res.totals.get(k)) for k in keys])
    text = tabulate(body, headers=[_heading(k) for k in keys], tablefmt="simple",
                    disable_numparse=True, maxcolwidths=[32 if k == "link" else None
                                                         for k in keys],
                    colalign=["right" if k in ENGINES + ("share_of_lpar", "load",
                                                         "measured_rate") else "left"
                              for k in keys])
    lines = [text]
    if len(shown) < len(res.links):
        lines.append(f"({len(res.links) - len(shown)} more links not shown: --rows 0 shows "
                     "all, --format csv writes them for a script)")
    lines += res.notes
    if res.normalised is False:
        lines += [f"  {s['label']}: {_fmt('total_engines', s.get('total_engines'))} engines"
                  for s in res.subtotals]
    lines += [f"attention: {a}" for a in attention(res)]
    return "\n".join(lines)


def totals_lines(res: Results) -> list[str]:
    """The totals as a sentence: ``Planner: 3 links; total CPU 1.481 engines (CP 0.610,
    virtual 0.876), 74.0% of the LPAR``."""
    if not res.totals:
        return [f"Planner: {len(res.links)} links; no total row found"]
    t = res.totals
    total = t.get("total_engines")
    parts = [f"total CPU {_fmt('total_engines', total)}"
             + ("" if _is_error(total) else " engines")]
    split = [f"{name} {_fmt(k, t.get(k))}" for name, k in (("CP", "cp_engines"),
                                                          ("virtual", "virtual_engines"))
             if k in t]
    if split:
        parts[0] += f" ({', '.join(split)})"
    if res.normalised is False:
        parts.append("NOT NORMALISED (it adds engines of different processors: no share of "
                     "the LPAR)")
    elif "share_of_lpar" in t:
        parts.append(f"{_fmt('share_of_lpar', t['share_of_lpar'])} of the LPAR")
    return [f"Planner: {len(res.links)} links; " + ", ".join(parts), *res.notes]


def _heading(key: str) -> str | None:
    return next(h for k, h in COLUMNS.values() if k == key)


def as_rows(res: Results) -> tuple[list[str], list[list]]:
    """Header and rows for CSV: one row per link, one ``subtotal`` row per basis with
    links in it (``link`` holds its label), then the totals (``row`` says which)."""
    keys = [k for k in res.keys if k != "basis"]
    rows = [["link", *[link.get(k) for k in keys]] for link in res.links]
    rows += [["subtotal", *[sub["label"] if k == "link" else sub.get(k) for k in keys]]
             for sub in res.subtotals]
    if res.totals:
        rows.append(["total", *[res.total_label if k == "link" else res.totals.get(k)
                                for k in keys]])
    return ["row", *keys], rows


def to_csv(res: Results) -> str:
    header, rows = as_rows(res)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows([["" if v is None else v for v in r] for r in rows])
    return buf.getvalue()


def to_json(res: Results, **extra) -> str:
    keys = [k for k in res.keys if k != "basis"]
    doc = {"output": str(res.out), **extra,
           "links": [{k: link.get(k) for k in keys} for link in res.links],
           "totals": {"label": res.total_label, **res.totals, "notes": res.notes,
                      "normalised": res.normalised, "subtotals": res.subtotals}
           if res.totals else None,
           "attention": attention(res)}
    return json.dumps(doc, indent=2)  # ASCII: safe on any console or pipe encoding

"""The answer of a filled plan, read back from the recalculated workbook's Planner.

Columns are found by their heading text (:data:`COLUMNS`), never by letter, so the
Planner's layout may change without this module; a heading that is missing is left out
of the results (the link name and the total CPU are required). Values are those cached
by the recalculation: numbers, text, or Excel error text such as ``#NUM!``.

The Scenarios sheet's named blocks are read the same way (:class:`Scenario`): their
parameters, their cached totals and how many links each total counts.

Printed three ways: a terminal table (:func:`table`, tabulate, fitted to the terminal's
width), CSV (:func:`to_csv`) and JSON (:func:`to_json`). In CSV and JSON a number carries
at most 15 significant digits, as Excel shows it (``0.1488``, not
``0.14880000000000002``), and in CSV a text that a spreadsheet would run as a formula
(``=``, ``+``, ``-``, ``@``, tab, carriage return first) is prefixed with ``'`` (OWASP's
advice against CSV injection).
"""
from __future__ import annotations

import collections
import csv
import io
import itertools
import json
import math
import operator
import re
import shutil
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
    # read for warnings and the report (zvmplan_workbook.report); not printed
    "basis of the total cpu (zvm_basis)": ("basis", None),
    "mtu or transfer size": ("size_bytes", None),
    "connections": ("connections", None),
    "z/vm level": ("level", None),
    "total cpu per unit": ("total_per_unit", None),
    "measured on (zvm_processor)": ("measured_on", None),
    "speed factor used": ("speed_factor_used", None),
    "cpu figures are engines of": ("engines_of", None),
    "total cpu low": ("total_low", None),
    "total cpu high": ("total_high", None),
}
REQUIRED = ("link", "total_engines")
ENGINES = ("cp_engines", "virtual_engines", "total_engines")
#: whose engines a total is when it adds links of more than one basis (the Planner's
#: "CPU figures are engines of" cell of the total; planner.NOT_NORMALISED)
NOT_NORMALISED = "not normalised: measured on different processors"
#: read from the Planner for warnings and the report, but not printed in the table, the
#: CSV or the JSON (``measured_on``, ``speed_factor_used`` and ``engines_of`` are: they
#: say whose engines a link's figures are)
DETAIL = ("basis", "size_bytes", "connections", "level", "total_per_unit", "total_low",
          "total_high")
#: the terminal table's columns without ``--wide``, most important first: the columns a
#: narrow terminal drops go from the end of this list
NARROW = ("link", "total_engines", "share_of_lpar", "in_totals", "load", "load_unit",
          "transport", "within_measured_rate", "workload")
#: "In totals" says a link's total CPU is counted ("no": left out, it has no answer)
COUNTED = ("yes", "total only")
#: exit codes of ``zvmplan fill`` and ``zvmplan report`` for a plan written and read
EXIT_FITS, EXIT_DOES_NOT_FIT, EXIT_CANNOT_TELL = 0, 4, 5
#: header row is searched for in the first rows of the sheet
SEARCH_ROWS = 60


class ResultsError(ValueError):
    """The workbook has no Planner table this module can read."""


@dataclass
class Scenario:
    """One named block of the Scenarios sheet, as the recalculation cached it.

    ``totals`` has the keys of :data:`ENGINES` and ``share_of_lpar`` (a number, an error
    text, or "rows missing"); ``links`` one dict per row of the block (``link``,
    ``cp_engines``, ``virtual_engines``, ``total_engines``, ``share_of_lpar``,
    ``in_totals``), in the Planner's order."""
    name: str
    load_factor: object = None        # blank: 1 (the Planner's load)
    level: object = None              # blank: each link's own
    transport: object = None
    speed_factor: object = None
    totals: dict = field(default_factory=dict)
    note: str = ""                    # the block's sentence on what its totals count
    links: list[dict] = field(default_factory=list)

    def counted(self) -> int:
        """Links whose total CPU this scenario's total includes."""
        return sum(link.get("in_totals") in COUNTED for link in self.links)

    def listed(self) -> int:
        """Links in the block with an answer or left out ("no")."""
        return sum(link.get("in_totals") in COUNTED + ("no",) for link in self.links)

    def factor(self) -> float:
        """The load factor as the sheet applies it (blank: 1)."""
        f = self.load_factor
        return float(f) if _is_number(f) else 1.0


@dataclass
class Results:
    out: Path
    keys: list[str]                                   # output columns, in sheet order
    links: list[dict] = field(default_factory=list)
    totals: dict = field(default_factory=dict)        # same keys; {} when no total row
    total_label: str = ""
    notes: list[str] = field(default_factory=list)    # other text on the total row
    engines: object = None                            # the LPAR's engines (Planner input)
    banner: str = ""                                  # the sheet's red warning, if it shows
    scenarios: list[Scenario] = field(default_factory=list)
    #: formula cells showing an error: in the links' own columns, in the Planner's
    #: "if carried by each transport" columns (what-if), in the Scenarios blocks
    link_error_cells: int = 0
    whatif_error_cells: int = 0
    scenario_error_cells: int = 0
    whatif_cols: set = field(default_factory=set)     # their column letters
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

    def left_out(self) -> list[tuple[int, dict]]:
        """(row number, link) of the links the totals leave out: no answer."""
        return [(i, link) for i, link in enumerate(self.links, start=1)
                if link.get("in_totals") not in COUNTED]

    def above_line_rate(self) -> list[tuple[int, dict]]:
        """(row number, link) of the links whose load is above their device's line or
        channel rate (the rate check says so): no CPU can carry it."""
        return [(i, link) for i, link in enumerate(self.links, start=1)
                if isinstance(link.get("within_measured_rate"), str)
                and "line rate" in link["within_measured_rate"]
                and link["within_measured_rate"].lower().startswith("no")]

    def fits(self) -> bool | None:
        """True when the links' total CPU is within the LPAR's engines; False when it is
        above (links left out could only add to it) or a load is above its device's line
        rate; None when the plan cannot tell: the total is an error or missing, the
        zvmplan functions did not answer, or it is within the engines but leaves out links
        with no answer."""
        total, engines = self.totals.get("total_engines"), self.engines
        if self.banner:
            return None
        if self.above_line_rate():
            return False
        if not (_is_number(total) and _is_number(engines)) or engines <= 0:
            return None
        if self.normalised is False:  # engines of different processors: no machine's
            return None
        if total > engines:
            return False
        return None if self.left_out() else True


def exit_code(res: Results | None) -> int:
    """:data:`EXIT_FITS`, :data:`EXIT_DOES_NOT_FIT` or :data:`EXIT_CANNOT_TELL` for the
    results ``res`` (:meth:`Results.fits`; no results: cannot tell)."""
    fits = res.fits() if res is not None else None
    return EXIT_FITS if fits else EXIT_CANNOT_TELL if fits is None else EXIT_DOES_NOT_FIT


def attention(res: Results) -> list[str]:
    """What a planner must look at: loads above the measured rate (the sheet's rate check
    says "no"), and totals over 100% of the LPAR (the Planner's and each scenario's)."""
    out = []
    for i, link in enumerate(res.links, start=1):
        check = link.get("within_measured_rate")
        if isinstance(check, str) and check.lower().startswith("no"):
            unit = link.get("load_unit") or ""
            what = ("the line rate of the device" if "line rate" in check
                    else "the measured rate " + _fmt('measured_rate', link.get('measured_rate'))
                    + f" {unit}")
            out.append(f"link {i} ({link['link']}): load {_fmt('load', link.get('load'))} "
                       f"{unit} is above {what}")
    share = res.totals.get("share_of_lpar")
    if _is_number(share) and share > 1:
        out.append(f"the links need {_fmt('share_of_lpar', share)} of the LPAR's engines")
    if res.normalised is False:
        by = "; ".join(f"{s['engines_of']} {_fmt('total_engines', s.get('total_engines'))}"
                       for s in res.subtotals if isinstance(s.get("total_engines"), (int, float)))
        out.append("the total is not normalised: it adds engines of different processors "
                   f"({by}), so it is no capacity of any one machine and no share of the LPAR "
                   "is given; name the target machine (--machine or --capacity)")
    for sc in res.scenarios:
        share = sc.totals.get("share_of_lpar")
        if _is_number(share) and share > 1:
            out.append(f"scenario {sc.name!r} needs {_fmt('share_of_lpar', share)} of the "
                       "LPAR's engines")
    return out


def _error_cells(rows: list, whatif_c: set) -> tuple[int, int]:
    """(the error cells of ``rows`` in the columns ``whatif_c``, those in the others):
    an error is a text starting "#" (:func:`_is_error`). Counted a column at a time,
    each distinct value of a column holding text looked at once; a column without text
    is passed over."""
    whatif = other = 0
    for c, column in enumerate(itertools.zip_longest(*rows)):
        if not any(issubclass(kind, str) for kind in set(map(type, column))):
            continue
        try:
            n = sum(count for v, count in collections.Counter(column).items()
                    if _is_error(v))
        except TypeError:  # a value that cannot be a dict key: one at a time
            n = sum(map(_is_error, column))
        if c in whatif_c:
            whatif += n
        else:
            other += n
    return whatif, other


def _is_error(v) -> bool:
    return isinstance(v, str) and v.startswith("#") and (v.endswith(("!", "?")) or v == "#N/A")


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _find_head(rows, need: set[str]) -> int | None:
    return next((i for i, r in enumerate(rows[:SEARCH_ROWS])
                 if need <= {normalise(v) for v in r if isinstance(v, str)}), None)


def read(out, sheet: str = "Planner", written: bool | dict = False) -> Results:
    """The per-link rows and the totals of the Planner of the workbook ``out``, and the
    named blocks of its Scenarios sheet (if it has one). ``written``: ``out`` is a plan
    the engine has just written (``fill``, ``calc``), whose sheets :mod:`.readback` reads as
    openpyxl does, faster; whatever it does not know is read with openpyxl. It may be
    the dict the engine filled with what its writer was given for the two sheets
    (``calc(..., written=...)``): those sheets' rows are then made from it, the file's
    parts not read (under ``ZVMPLAN_ENGINE_CHECK`` they are read too and must agree:
    :class:`ReadbackMismatch`)."""
    out = Path(out)
    got = None
    if written:
        from .readback import sheet_rows
        given = written if isinstance(written, dict) else None
        got = sheet_rows(out, [sheet, "Scenarios"], given)
        if given and got is not None and _checking():
            _compare(out, got, sheet_rows(out, [sheet, "Scenarios"]) or dict(
                zip((sheet, "Scenarios"), _openpyxl_rows(out, sheet))))
    if got is not None and sheet in got:
        rows, scen_rows = got[sheet], got.get("Scenarios", [])
    else:
        rows, scen_rows = _openpyxl_rows(out, sheet)
    head = _find_head(rows, {"link", "total cpu"})
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
    # the "if carried by each transport" columns: headed by a transport's name
    from zvmplan import names
    whatif_c = {c for c, v in enumerate(rows[head]) if isinstance(v, str)
                and v.strip().upper() in names.TRANSPORTS and c != trans_c}
    from zvmplan_addin.xlsx.cells import col_letters
    res.whatif_cols = {col_letters(c + 1) for c in whatif_c}

    def cell(r, c):
        return r[c] if c < len(r) else None

    def is_total(r):
        label = cell(r, link_c)
        return isinstance(label, str) and label.strip().lower().startswith("total") and \
            (trans_c is None or cell(r, trans_c) in (None, ""))

    total_row = None
    keys, cols = list(where), list(where.values())
    widest = max(cols)
    take = operator.itemgetter(*cols) if len(cols) > 1 else (lambda r: (r[cols[0]],))
    linked = []  # the links' rows
    for r in rows[head + 1:]:
        label = cell(r, link_c)
        if label in (None, "") or (isinstance(label, str) and label.startswith("[")):
            continue  # empty row, or the units row under the headings
        if is_total(r):
            total_row = r  # a totals row under the table ends it
            break
        if trans_c is not None and cell(r, trans_c) in (None, ""):
            continue
        res.links.append(dict(zip(keys, take(r))) if widest < len(r) else
                         {k: cell(r, c) for k, c in where.items()})
        linked.append(r)
    res.whatif_error_cells, res.link_error_cells = _error_cells(linked, whatif_c)
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
    for r in rows[:head]:
        if isinstance(r[0] if r else None, str) and \
                normalise(r[0]).startswith("lpar engines available"):
            res.engines = next((v for v in r[1:] if _is_number(v) or _is_error(v)), None)
        if any(isinstance(v, str) and "functions unavailable" in v for v in r):
            res.banner = next(v for v in r if isinstance(v, str) and "unavailable" in v)
    res.scenarios, res.scenario_error_cells = _read_scenarios(scen_rows)
    return res


class ReadbackMismatch(ResultsError):
    """``ZVMPLAN_ENGINE_CHECK``: the rows made from what the engine's writer was given
    differ from the rows read from the file it wrote (a bug in :mod:`.readback`)."""


def _checking() -> bool:
    from zvmplan_addin.recalc.options import Options
    return Options.from_environ().check


def _compare(out: Path, fast: dict, slow: dict) -> None:
    """Raise :class:`ReadbackMismatch` at the first value (or type) that differs
    between each sheet's ``fast`` and ``slow`` rows."""
    for name, rows in fast.items():
        other = slow.get(name, [])
        if len(rows) != len(other):
            raise ReadbackMismatch(f"{out.name}: {name} has {len(rows)} rows made from the "
                                   f"engine's writing, {len(other)} in the file "
                                   "(ZVMPLAN_ENGINE_CHECK; a zvmplan bug)")
        for r, (a, b) in enumerate(zip(rows, other), start=1):
            if len(a) == len(b) and all(type(x) is type(y) and x == y for x, y in zip(a, b)):
                continue
            c = next((c for c, (x, y) in enumerate(zip(a, b)) if not (
                type(x) is type(y) and x == y)), min(len(a), len(b)))
            from zvmplan_addin.xlsx.cells import col_letters
            x, y = (a[c] if c < len(a) else "(none)"), (b[c] if c < len(b) else "(none)")
            raise ReadbackMismatch(f"{out.name}: {name}!{col_letters(c + 1)}{r} is "
                                   f"{x!r} made from the engine's writing, {y!r} in the "
                                   "file (ZVMPLAN_ENGINE_CHECK; a zvmplan bug)")


def _openpyxl_rows(out: Path, sheet: str) -> tuple[list[tuple], list[tuple]]:
    """The values of the sheet ``sheet`` and of the Scenarios sheet (if any) of ``out``,
    row by row, as openpyxl's read-only workbook gives them."""
    from openpyxl import load_workbook
    wb = load_workbook(out, data_only=True, read_only=True)
    try:
        if sheet not in wb.sheetnames:
            raise ResultsError(f"{out.name}: no {sheet} sheet")
        rows = [tuple(r) for r in wb[sheet].iter_rows(values_only=True)]
        scen_rows = ([tuple(r) for r in wb["Scenarios"].iter_rows(values_only=True)]
                     if "Scenarios" in wb.sheetnames else [])
    finally:
        wb.close()
    return rows, scen_rows


#: Scenarios block heading -> key of a scenario's per-link dict
SCENARIO_COLUMNS = {"link": "link", "cp cpu": "cp_engines", "virtual cpu": "virtual_engines",
                    "total cpu": "total_engines", "share of lpar": "share_of_lpar",
                    "in totals": "in_totals"}
#: Scenarios parameter label (normalised, up to its first "[") -> Scenario attribute
SCENARIO_PARAMS = {"load factor": "load_factor", "z/vm level": "level",
                   "transport": "transport", "speed factor": "speed_factor",
                   "speed-up vs today": "speed_factor"}


def _read_scenarios(rows) -> tuple[list[Scenario], int]:
    """The named blocks of the Scenarios sheet's ``rows`` (values), found by their labels
    ("Scenario name", "Total of all links", the "Link" heading), and the number of cells
    of their tables that show an error."""
    def cell(r, c):
        return rows[r][c] if r < len(rows) and c < len(rows[r]) else None

    def label(v):
        return normalise(v.split("[")[0]) if isinstance(v, str) else ""
    out, errors = [], 0
    for r0, row in enumerate(rows[:SEARCH_ROWS]):
        for c0, v in enumerate(row):
            if label(v) != "scenario name":
                continue
            name = cell(r0, c0 + 1)
            if name in (None, ""):
                continue  # a block without a name stays empty
            sc = Scenario(str(name))
            r = r0 + 1
            head = None
            while r < min(len(rows), r0 + SEARCH_ROWS):
                lab = label(cell(r, c0))
                if lab in SCENARIO_PARAMS:
                    setattr(sc, SCENARIO_PARAMS[lab], cell(r, c0 + 1))
                elif lab.startswith("total of all links"):
                    sc.totals = dict(zip(ENGINES + ("share_of_lpar",),
                                         (cell(r, c0 + k) for k in range(1, 5))))
                    note = cell(r + 1, c0)
                    sc.note = note.strip() if isinstance(note, str) else ""
                elif lab == "link":
                    head = r
                    break
                r += 1
            if head is None:
                continue
            cols = {}
            for c in range(c0, c0 + len(SCENARIO_COLUMNS) + 1):
                key = SCENARIO_COLUMNS.get(label(cell(head, c)))
                if key:
                    cols.setdefault(key, c)
            for r in range(head + 1, len(rows)):
                link = cell(r, cols["link"])
                if link in (None, "") or (isinstance(link, str) and link.startswith("[")):
                    if link in (None, "") and all(cell(r, c) in (None, "")
                                                  for c in cols.values()):
                        if r > head + 2:
                            break
                    continue
                sc.links.append({k: cell(r, c) for k, c in cols.items()})
                errors += sum(_is_error(cell(r, c)) for c in cols.values())
            out.append(sc)
    return out, errors


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


def sorted_links(res: Results, sort: str | None = None) -> list[tuple[int, dict]]:
    """(row number in the plan, link) in the plan's order, or ``sort="cpu"``: the
    heaviest total CPU first, the links without an answer last (in the plan's order)."""
    rows = list(enumerate(res.links, start=1))
    if sort == "cpu":
        rows.sort(key=lambda il: (not _is_number(il[1].get("total_engines")),
                                  -(il[1]["total_engines"]
                                    if _is_number(il[1].get("total_engines")) else 0)))
    elif sort not in (None, "plan"):
        raise ValueError(f"sort {sort!r}: valid: plan, cpu")
    return rows


def _tabulate(body, keys, link_width):
    from tabulate import tabulate
    return tabulate(body, headers=[_heading(k) for k in keys], tablefmt="simple",
                    disable_numparse=True,
                    maxcolwidths=[link_width if k == "link" else None for k in keys],
                    colalign=["right" if k in ENGINES + ("share_of_lpar", "load",
                                                         "measured_rate") else "left"
                              for k in keys])


def _width(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` if set; 100 when not a terminal)."""
    return shutil.get_terminal_size((100, 24)).columns


def table(res: Results, max_rows: int = 50, *, width: int | None = None,
          wide: bool = False, sort: str | None = None) -> str:
    """The per-link table, the totals and the scenarios, for a terminal ``width`` columns
    wide (default: this terminal's). Without ``wide`` the table shows the columns of
    :data:`NARROW` and drops the last of them while it is wider than ``width``; ``wide``
    shows every column, whatever the width. ``sort="cpu"`` puts the heaviest links first;
    ``max_rows`` (0: all) applies after sorting."""
    import textwrap
    width = width or terminal_width()
    rows = sorted_links(res, sort)
    shown = rows if max_rows <= 0 else rows[:max_rows]
    if wide:
        keys = [k for k in res.keys if _heading(k)]
    else:
        keys = [k for k in NARROW if k in res.keys]

    def render(keys, link_width):
        body = [[_fmt(k, link.get(k)) for k in keys] for _, link in shown]
        if res.totals:
            body.append(["Total" if k == "link" else _fmt(k, res.totals.get(k))
                         for k in keys])
        return _tabulate(body, keys, link_width)
    link_width = 32
    text = render(keys, link_width)
    while not wide and _width(text) > width:
        if len(keys) > 6:  # drop columns down to link, total, share, in totals, load
            keys = keys[:-1]
        elif link_width > 16:
            link_width -= 4
        elif len(keys) > 3:  # link, total, share stay
            keys = keys[:-1]
        else:
            break
        text = render(keys, link_width)
    lines = [text]
    if len(shown) < len(rows):
        lines.append(f"({len(rows) - len(shown)} more links not shown: --rows 0 shows "
                     "all, --format csv writes them for a script)")
    hidden = [_heading(k).replace("\n", " ") for k in res.keys
              if _heading(k) and k not in keys]
    if hidden and not wide:
        lines.append(f"(not shown: {', '.join(hidden)}; --wide shows every column)")
    lines += res.notes
    if res.normalised is False:
        lines += [f"  {s['label']}: {_fmt('total_engines', s.get('total_engines'))} engines"
                  for s in res.subtotals]
    if res.scenarios:
        lines += ["", scenario_table(res, width)]
    lines += [f"attention: {a}" for a in attention(res)]
    wrapped = []
    for line in lines:
        if "\n" in line or len(line) <= width:
            wrapped.append(line)
        else:
            wrapped += textwrap.wrap(line, width, subsequent_indent="  ")
    return "\n".join(wrapped)


def scenario_rows(res: Results) -> list[dict]:
    """One dict per named scenario: its name, load factor, total CPU (CP, virtual, total
    in engines), share of the LPAR and the links its total counts, of those listed."""
    return [{"scenario": sc.name, "load_factor": sc.load_factor, "level": sc.level,
             "transport": sc.transport, "speed_factor": sc.speed_factor,
             **{k: sc.totals.get(k) for k in ENGINES + ("share_of_lpar",)},
             "links_counted": sc.counted(), "links": sc.listed()}
            for sc in res.scenarios]


def scenario_table(res: Results, width: int | None = None) -> str:
    """The scenarios: name, load factor, total CPU, share of the LPAR, links counted."""
    from tabulate import tabulate
    width = width or terminal_width()
    name_width = max(12, min(40, width - 50))
    body = [[r["scenario"], _fmt("load", r["load_factor"] if r["load_factor"] is not None
                                 else 1),
             _fmt("total_engines", r["total_engines"]),
             _fmt("share_of_lpar", r["share_of_lpar"]),
             f"{r['links_counted']} of {r['links']}"] for r in scenario_rows(res)]
    return tabulate(body, headers=["Scenario", "Load\nfactor", "Total\n[engines]",
                                   "Share of\nLPAR", "Links\ncounted"],
                    tablefmt="simple", disable_numparse=True,
                    maxcolwidths=[name_width, None, None, None, None],
                    colalign=["left", "right", "right", "right", "right"])


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


def error_lines(res: Results, error_cells: int | None = None) -> list[str]:
    """Where the formula cells showing an error are: the links the planner entered, the
    scenarios, and the template's what-if cells (a transport or level the sources did not
    measure at that configuration: expected). ``error_cells`` is the recalculation's
    count of every formula cell showing an error (the rest are on other sheets: the
    Upgrade examples, the sources)."""
    if not error_cells and not (res.link_error_cells or res.scenario_error_cells):
        return []
    bad = len(res.errors())
    parts = [f"{res.link_error_cells} in your links"
             + (f" ({bad} link(s) without an answer)" if bad else "")]
    if res.scenarios or res.scenario_error_cells:
        parts.append(f"{res.scenario_error_cells} in your scenarios")
    other = (error_cells or 0) - res.link_error_cells - res.scenario_error_cells \
        - res.whatif_error_cells
    parts.append(f"{res.whatif_error_cells} in the Planner's 'if carried by each "
                 "transport' columns (that transport not measured there: expected)")
    if other > 0:
        parts.append(f"{other} on the template's other sheets (Upgrade and source "
                     "examples: expected)")
    head = f"{error_cells} formula cells show an error: " if error_cells else "errors: "
    return [head + "; ".join(parts)]


def planners_cell(res: Results, ref: str) -> bool:
    """True for a cell ``Sheet!A1`` of the links or scenarios the planner entered (a
    Planner cell outside the what-if columns, a Scenarios cell); False for the template's
    what-if and example cells."""
    sheet, _, cell = ref.rpartition("!")
    sheet = sheet.strip("'")
    m = re.match(r"\$?([A-Za-z]+)", cell)
    return sheet == "Scenarios" or (sheet == "Planner" and m is not None
                                    and m.group(1).upper() not in res.whatif_cols)


def _heading(key: str) -> str | None:
    return next(h for k, h in COLUMNS.values() if k == key)


# --------------------------------------------------------- CSV and JSON ----
#: a cell starting with one of these is a formula to a spreadsheet (OWASP: CSV injection)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def number_15(v):
    """``v`` with at most 15 significant digits, as Excel shows a number; anything else
    as it is (``0.14880000000000002`` -> ``0.1488``)."""
    if isinstance(v, float) and math.isfinite(v):
        return float(f"{v:.15g}")
    return v


def csv_safe(v):
    """A CSV cell a spreadsheet opens as text, never as a formula: a text starting with
    ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a ``'`` in front (OWASP's
    advice); a number is printed with at most 15 significant digits."""
    if v is None:
        return ""
    if isinstance(v, str):
        return "'" + v if v.startswith(FORMULA_START) else v
    return number_15(v)


def as_rows(res: Results) -> tuple[list[str], list[list]]:
    """Header and rows for CSV: one row per link, one ``subtotal`` row per basis with
    links in it (``link`` holds its label), then the totals, then one row per scenario
    (``row`` says which; a scenario's name is in the ``link`` column, and its
    ``in_totals`` says how many links its total counts)."""
    keys = [k for k in res.keys if k not in DETAIL]
    rows = [["link", *[link.get(k) for k in keys]] for link in res.links]
    rows += [["subtotal", *[sub["label"] if k == "link" else sub.get(k) for k in keys]]
             for sub in res.subtotals]
    if res.totals:
        rows.append(["total", *[res.total_label if k == "link" else res.totals.get(k)
                                for k in keys]])
    for sc in scenario_rows(res):
        counted = f"{sc['links_counted']} of {sc['links']}"
        rows.append(["scenario", *[sc["scenario"] if k == "link" else counted
                                   if k == "in_totals" else sc.get(k) for k in keys]])
    return ["row", *keys], rows


def to_csv(res: Results) -> str:
    header, rows = as_rows(res)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows([[csv_safe(v) for v in r] for r in rows])
    return buf.getvalue()


def _json_numbers(doc):
    if isinstance(doc, dict):
        return {k: _json_numbers(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_json_numbers(v) for v in doc]
    return number_15(doc)


def to_json(res: Results, **extra) -> str:
    keys = [k for k in res.keys if k not in DETAIL]
    doc = {"output": str(res.out), **extra,
           "fits": res.fits(), "lpar_engines": res.engines,
           "links": [{k: link.get(k) for k in keys} for link in res.links],
           "totals": {"label": res.total_label, **res.totals, "notes": res.notes,
                      "normalised": res.normalised, "subtotals": res.subtotals}
           if res.totals else None,
           "scenarios": [{**sc, "note": s.note}
                         for sc, s in zip(scenario_rows(res), res.scenarios)],
           "attention": attention(res)}
    return json.dumps(_json_numbers(doc), indent=2)  # ASCII: safe on any console or pipe

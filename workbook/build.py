"""Build the template workbook: ``python -m zvmplan_workbook.build [-o PATH] [--no-calc]``.

Lays out every sheet with openpyxl from zvmplan's data files, the worksheet-function
registry, ``conclusions.toml`` and ``notes.toml``; saves with fixed document properties
and zip timestamps so a rebuild gives the same bytes; then recalculates headlessly
(:mod:`zvmplan_addin.recalc`, i.e. ``zvmplan calc``) so the committed file carries
cached values that Excel without the add-in, LibreOffice and openpyxl can show.
"""
from __future__ import annotations

import argparse
import datetime as dt
import sys
from functools import lru_cache
from pathlib import Path

from openpyxl import Workbook

from . import about, charts, conclusions, planner, sources
from . import styles as st
from .book import Book
from .tomlread import tomllib
from .xlsxio import normalize

TEMPLATE = Path(__file__).with_name("zvmplan_template.xlsx")
NOTES_FILE = Path(__file__).with_name("notes.toml")
FIXED_TIME = dt.datetime(2024, 1, 1, 0, 0, 0)
#: print areas, including the Basis ("Why") columns; ``zvmplan fill`` stretches the
#: Planner's to the rows it adds
PRINT_AREA = {
    "Planner": lambda ws: f"A1:{planner.BASIS_COL}{ws.max_row}",
    "Upgrade": lambda ws: f"A1:T{ws.max_row}",
}
#: sheets printed in column groups on A4 landscape, one group per page across, with the
#: link (or what-if) names and the column headings on every page
PRINT_PAGES = {
    "Planner": {"pages": planner.PRINT_PAGES, "title_cols": "A:A",
                "title_rows": f"{planner.HEAD_ROW - 1}:{planner.HEAD_ROW + 1}"},
    "Upgrade": {"pages": planner.UPGRADE_PRINT_PAGES, "title_cols": "A:A",
                "title_rows": f"{planner.UPGRADE_HEAD - 1}:{planner.UPGRADE_HEAD + 1}"},
    "Scenarios": {"pages": planner.SCENARIO_PRINT_PAGES},
    "Plan": {"pages": charts.PLAN_PRINT_PAGES, "row_breaks": charts.PLAN_ROW_BREAKS},
}
SHEET_ORDER = ("About", "Planner", "Upgrade", "Scenarios", "Plan", "Assumptions", "Conclusions",
               "Charts", "000", "001", "002", "003", "004")


@lru_cache(maxsize=None)
def notes() -> dict:
    with NOTES_FILE.open("rb") as fh:
        return tomllib.load(fh)


def layout() -> Book:
    """The template in memory (not yet recalculated), with its checks and cell keys."""
    wb = Workbook()
    wb.remove(wb.active)
    book = Book(wb)
    sources.build_sources(book, notes())          # first: the other sheets refer to them
    planner.sheet_planner(book)
    planner.sheet_upgrade(book)
    planner.sheet_scenarios(book)
    planner.sheet_assumptions(book, notes())
    conclusions.sheet_conclusions(book)
    charts.sheet_charts(book)
    charts.sheet_plan(book)
    about.sheet_about(book, notes())
    wide = {"Charts", "000", "001", "002", "003"}
    for ws in wb.worksheets:
        st.page_setup(ws, wide=ws.title in wide,
                      print_area=PRINT_AREA.get(ws.title, lambda w: None)(ws),
                      **PRINT_PAGES.get(ws.title, {}))
    order = {name: i for i, name in enumerate(SHEET_ORDER)}
    wb._sheets.sort(key=lambda ws: order[ws.title])
    wb.active = 0
    for ws in wb.worksheets:
        ws.sheet_view.tabSelected = ws.title == "About"
    props = wb.properties
    props.creator = props.lastModifiedBy = "zvmplan_workbook.build"
    props.title = "zvmplan template"
    props.created = props.modified = FIXED_TIME
    return book


def save(book: Book, path: Path) -> Path:
    path = Path(path)
    book.wb.save(path)
    normalize(path, FIXED_TIME)
    return path


def engine_defects() -> list[str]:
    """What the headless engine gets wrong that this template relies on (empty list: none).

    The template tests blank input cells (``=IF($B10="","",...)``) and has sheets named
    000 .. 004; a tiny workbook with both is recalculated and its values checked."""
    import tempfile
    from zvmplan_addin import recalc as engine
    with tempfile.TemporaryDirectory(prefix="zvmplan-probe-") as tmp:
        wb = Workbook()
        ws = wb.active
        ws.title = "S"
        ws["B1"] = '=IF(A1="","blank","not blank")'
        ws["B2"] = '=CPCPU_PER_MB("IUCV",9000,A1,A1)'
        ws["B3"] = "='000'!B1"
        digits = wb.create_sheet("000")
        digits["A1"] = 2
        digits["B1"] = "=A1*2"
        src, out = Path(tmp) / "probe.xlsx", Path(tmp) / "probe-calc.xlsx"
        wb.save(src)
        engine.calc(src, out)
        from openpyxl import load_workbook
        got = load_workbook(out, data_only=True)
        problems = []
        if got["S"]["B1"].value != "blank" or got["S"]["B2"].value != 0.012367:
            problems.append("a blank cell is not blank (=A1=\"\" is FALSE and a zvmplan function "
                            f"gets text 'empty': got {got['S']['B1'].value!r}, "
                            f"{got['S']['B2'].value!r})")
        if got["000"]["B1"].value != 4 or got["S"]["B3"].value != 4:
            problems.append("formulas on, or referring to, a sheet named 000 are not evaluated "
                            f"(got {got['000']['B1'].value!r}, {got['S']['B3'].value!r})")
        return problems


class EngineDefect(RuntimeError):
    """The headless engine would cache wrong values in the template."""


def recalculate(path: Path) -> bool:
    """Recalculate ``path`` in place with the headless engine; False if it is not installed.
    Raises :class:`EngineDefect` (``path`` untouched) if the engine cannot do it right."""
    try:
        from zvmplan_addin import recalc as engine
    except ImportError:
        return False
    defects = engine_defects()
    if defects:
        raise EngineDefect("zvmplan calc cannot recalculate this template correctly: "
                           + "; ".join(defects))
    report = engine.calc(path, in_place=True)
    normalize(path, FIXED_TIME)
    for w in getattr(report, "warnings", [])[:20]:
        print(f"zvmplan calc: {w}", file=sys.stderr)
    return True


def build(path: Path = TEMPLATE, calc: bool = True) -> Book:
    """Lay out, save and (``calc``) recalculate. The file at ``path`` is replaced only
    when everything succeeded."""
    import os
    import tempfile
    path = Path(path)
    book = layout()
    fd, tmp = tempfile.mkstemp(suffix=".xlsx", dir=path.parent)
    os.close(fd)
    try:
        save(book, Path(tmp))
        if calc and not recalculate(Path(tmp)):
            print("zvmplan_addin.recalc not available: template saved without cached values",
                  file=sys.stderr)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return book


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m zvmplan_workbook.build",
                                 description="Build the zvmplan template workbook.")
    ap.add_argument("-o", "--output", type=Path, default=TEMPLATE)
    ap.add_argument("--no-calc", action="store_true",
                    help="do not recalculate (no cached values in the file)")
    args = ap.parse_args(argv)
    try:
        book = build(args.output, calc=not args.no_calc)
    except EngineDefect as exc:
        print(f"error: {exc}; {args.output} left as it was", file=sys.stderr)
        return 1
    n = sum(1 for ws in book.wb.worksheets for row in ws.iter_rows() for c in row
            if c.data_type == "f")
    print(f"wrote {args.output} ({len(book.wb.worksheets)} sheets, {n} formulas, "
          f"{len(book.checks)} published-number checks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

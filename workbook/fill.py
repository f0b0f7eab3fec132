"""``zvmplan fill TEMPLATE.xlsx --links links.csv [--scenarios FILE] -o OUT.xlsx``

Writes a links CSV into the Planner's input rows of the template (and a scenarios file
into the Scenarios blocks), recalculates headlessly and writes OUT. Every value is
validated first; on the first bad one a single line names the file, row and column, and
nothing is written.

links.csv columns (header row required; the first five are required in every row)::

    link, transport, workload, size_bytes, load, connections, level, speed_factor

``load`` is MB/s for STREAM, FTP_GET and STRG, tx/s for RR and CRR; ``connections`` is
required for RR and CRR. Names are checked by :mod:`zvmplan.names` (aliases accepted,
written back canonical).

A scenarios file is a CSV with columns ``name, load_factor, level, transport,
speed_factor`` or a TOML file of ``[[scenario]]`` tables with the same keys; only
``name`` is required. Each scenario becomes one block on the Scenarios sheet.

Only the template's input cells (its unlocked cells) are ever written; charts, styles,
validations and every formula are copied untouched. Keep imports here light: the
command line imports this module at start-up.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

LINK_COLUMNS = ("link", "transport", "workload", "size_bytes", "connections", "level",
                "speed_factor", "load")
REQUIRED = ("link", "transport", "workload", "size_bytes", "load")
SCENARIO_COLUMNS = ("name", "load_factor", "level", "transport", "speed_factor")


class FillError(ValueError):
    """A bad links or scenarios file, or a template without the expected inputs."""


@dataclass
class FillReport:
    out: Path
    links: int
    scenarios: int
    calc: object = None                          # the engine's CalcReport
    warnings: list[str] = field(default_factory=list)


# ------------------------------------------------------------- validation ----
def _where(path: Path, row: int, column: str) -> str:
    # row counts data rows from 1; the header is line 1 of the file
    return f"{path.name} row {row} (line {row + 1}), column {column}"


def _number(text: str, where: str, *, whole: bool = False, minimum: float | None = None) -> float:
    try:
        value = float(text.replace(",", "")) if isinstance(text, str) else float(text)
    except (TypeError, ValueError):
        raise FillError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise FillError(f"{where}: {text!r} is not a finite number")
    if whole and value != int(value):
        raise FillError(f"{where}: {text!r} must be a whole number")
    if minimum is not None and value < minimum:
        raise FillError(f"{where}: {text!r} must be {minimum:g} or more")
    if minimum is None and value <= 0:
        raise FillError(f"{where}: {text!r} must be greater than 0")
    return int(value) if whole else value


def _name(kind: str, text: str, where: str) -> str:
    from zvmplan import names
    from zvmplan.errors import ZvmplanError
    try:
        return getattr(names, kind)(text)
    except ZvmplanError as exc:
        raise FillError(f"{where}: {exc}") from None


def _read_csv(path: Path, columns: tuple[str, ...], required_cols: tuple[str, ...]):
    try:
        fh = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise FillError(f"{path}: cannot read ({exc.strerror or exc})") from None
    with fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise FillError(f"{path.name}: empty file; expected a header row with "
                            f"{', '.join(columns)}") from None
        except csv.Error as exc:
            raise FillError(f"{path.name} line 1: {exc}") from None
        keys = [h.strip().lower() for h in header]
        for i, k in enumerate(keys):
            if k not in columns:
                raise FillError(f"{path.name} line 1, column {i + 1}: unknown column {header[i]!r}; "
                                f"valid: {', '.join(columns)}")
        missing = [c for c in required_cols if c not in keys]
        if missing:
            raise FillError(f"{path.name} line 1: missing column(s) {', '.join(missing)}")
        rows = []
        try:
            for cells in reader:
                if not any(c.strip() for c in cells):
                    continue
                if len(cells) > len(keys):
                    raise FillError(f"{path.name} line {reader.line_num}: {len(cells)} values "
                                    f"for {len(keys)} columns")
                rows.append((reader.line_num, {k: (cells[i].strip() if i < len(cells) else "")
                                               for i, k in enumerate(keys)}))
        except csv.Error as exc:
            raise FillError(f"{path.name} line {reader.line_num}: {exc}") from None
    return rows


def read_links(path) -> list[dict]:
    """Validated links, canonical names, numbers as numbers, blanks as None."""
    from zvmplan import names
    from .planner import TX_WORKLOADS
    path = Path(path)
    out = []
    for n, (line, raw) in enumerate(_read_csv(path, LINK_COLUMNS, REQUIRED), start=1):
        def where(col):
            return f"{path.name} row {n} (line {line}), column {col}"
        link = {}
        for col in LINK_COLUMNS:
            text = raw.get(col, "")
            if text == "":
                if col in REQUIRED:
                    raise FillError(f"{where(col)}: required, but empty")
                link[col] = None
                continue
            if col == "link":
                link[col] = text
            elif col in ("transport", "workload", "level"):
                link[col] = _name(col, text, where(col))
            elif col == "connections":
                link[col] = _number(text, where(col), whole=True, minimum=1)
            else:
                link[col] = _number(text, where(col))
        if link["workload"] in TX_WORKLOADS and link["connections"] is None:
            raise FillError(f"{where('connections')}: required for {link['workload']} "
                            "(concurrent connections, 1 or more)")
        if link["transport"] not in names.TRANSPORTS:  # pragma: no cover - names guarantees it
            raise FillError(f"{where('transport')}: unknown")
        out.append(link)
    if not out:
        raise FillError(f"{path.name}: no links (only a header)")
    return out


def read_scenarios(path) -> list[dict]:
    from .planner import SCENARIO_BLOCKS
    path = Path(path)
    if path.suffix.lower() == ".toml":
        import tomllib
        try:
            with path.open("rb") as fh:
                data = tomllib.load(fh)
        except OSError as exc:
            raise FillError(f"{path}: cannot read ({exc.strerror or exc})") from None
        except tomllib.TOMLDecodeError as exc:
            raise FillError(f"{path.name}: {exc}") from None
        tables = data.get("scenario")
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise FillError(f"{path.name}: expected [[scenario]] tables")
        raw = []
        for i, t in enumerate(tables, start=1):
            for k in t:
                if k not in SCENARIO_COLUMNS:
                    raise FillError(f"{path.name} scenario {i}, key {k}: unknown; valid: "
                                    f"{', '.join(SCENARIO_COLUMNS)}")
            raw.append((f"{path.name} scenario {i}", {k: "" if v is None else str(v)
                                                      for k, v in t.items()}))
    else:
        raw = [(f"{path.name} row {n} (line {line})", r) for n, (line, r) in
               enumerate(_read_csv(path, SCENARIO_COLUMNS, ("name",)), start=1)]
    out, seen = [], set()
    for where, r in raw:
        sc = {}
        for col in SCENARIO_COLUMNS:
            text = str(r.get(col, "")).strip()
            w = f"{where}, column {col}" if "row" in where else f"{where}, key {col}"
            if text == "":
                if col == "name":
                    raise FillError(f"{w}: required, but empty")
                sc[col] = None
            elif col == "name":
                if text in seen:
                    raise FillError(f"{w}: scenario {text!r} given twice")
                seen.add(text)
                sc[col] = text
            elif col in ("level", "transport"):
                sc[col] = _name(col, text, w)
            else:
                sc[col] = _number(text, w)
        out.append(sc)
    if not out:
        raise FillError(f"{path.name}: no scenarios")
    if len(out) > SCENARIO_BLOCKS:
        raise FillError(f"{path.name}: {len(out)} scenarios; the template's Scenarios sheet has "
                        f"room for {SCENARIO_BLOCKS}")
    return out


# ------------------------------------------------------------------- cells ----
def input_cells(links: list[dict], scenarios: list[dict] | None,
                engines: float | None) -> dict[str, dict[str, object]]:
    """Sheet -> {cell: value} for every input the fill writes (unused rows cleared)."""
    from openpyxl.utils import get_column_letter as L
    from .planner import (COL, ENGINES_CELL, FIRST_ROW, INPUTS, N_ROWS, PLANNER,
                          SCEN_PARAM_ROW, SCENARIO_BLOCKS, SCENARIO_PARAMS, SCENARIOS,
                          scenario_col)
    planner = {}
    # the template's rows (unused ones cleared), or as many as there are links: the fill
    # adds the rows beyond the template's (zvmplan_workbook.rows)
    for i in range(max(N_ROWS, len(links))):
        link = links[i] if i < len(links) else {}
        for c in INPUTS:
            planner[f"{COL[c.key]}{FIRST_ROW + i}"] = link.get(c.key)
    if engines is not None:
        planner[ENGINES_CELL] = engines
    cells = {PLANNER: planner}
    if scenarios is not None:
        sc_cells = {}
        for b in range(SCENARIO_BLOCKS):
            sc = scenarios[b] if b < len(scenarios) else {}
            col = L(scenario_col(b) + 1)
            for k, (key, _, _) in enumerate(SCENARIO_PARAMS):
                sc_cells[f"{col}{SCEN_PARAM_ROW + k}"] = sc.get(key)
        cells[SCENARIOS] = sc_cells
    return cells


# -------------------------------------------------------------------- fill ----
def fill(template, links_csv, out, scenarios=None, engines: float | None = None) -> FillReport:
    """Validate, write the inputs, recalculate, write ``out``. Raises :class:`FillError`
    (nothing written) for a bad file."""
    from . import xlsxio
    from .planner import N_ROWS
    template, out = Path(template), Path(out)
    links = read_links(links_csv)
    scen = read_scenarios(scenarios) if scenarios is not None else None
    if engines is not None and not (engines > 0 and math.isfinite(engines)):
        raise FillError(f"--engines {engines:g}: must be greater than 0")
    if not template.is_file():
        raise FillError(f"{template}: no such template")
    if not out.parent.is_dir():
        raise FillError(f"{out.parent}: no such directory")
    if out.exists() and out.resolve() == template.resolve():
        raise FillError(f"{out} is the template; write the filled workbook elsewhere")
    cells = input_cells(links, scen, engines)
    from zvmplan_addin import engine
    fd, tmp = tempfile.mkstemp(suffix=".xlsx", dir=out.parent)
    os.close(fd)
    grown = None
    try:
        try:
            source = template
            if len(links) > N_ROWS:
                grown = _grown_template(template, out.parent, len(links))
                source = grown
            xlsxio.write_inputs(source, tmp, cells)
        except xlsxio.NotAnInputCell as exc:
            raise FillError(f"{template.name}: {exc} (is it a zvmplan template?)") from None
        except (KeyError, OSError, ValueError) as exc:
            raise FillError(f"{template.name}: not a zvmplan template ({exc})") from None
        report = engine.calc(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)
        if grown is not None:
            Path(grown).unlink(missing_ok=True)
    rep = FillReport(out, len(links), len(scen) if scen else 0, report)
    rep.warnings = _warnings(out, links)
    return rep


def _grown_template(template: Path, where: Path, n_rows: int) -> str:
    """A temporary copy of ``template`` whose tables hold ``n_rows`` rows."""
    import datetime as dt
    from . import xlsxio
    from .rows import grow
    raw = xlsxio.read_zip(template)
    entries = {info.filename: data for info, data in raw}
    grow(entries, n_rows)
    fd, path = tempfile.mkstemp(suffix=".xlsx", dir=where)
    os.close(fd)
    xlsxio.write_zip(path, [(info.filename, entries[info.filename]) for info, _ in raw],
                     dt.datetime(2024, 1, 1))
    return path


def _warnings(out: Path, links: list[dict]) -> list[str]:
    """One line per link whose total CPU is an error, with the reason (Basis column)."""
    from openpyxl import load_workbook
    from .planner import BASIS_COL, FIRST_ROW, PLANNER
    from openpyxl.utils import column_index_from_string
    wb = load_workbook(out, data_only=True, read_only=True)
    ws = wb[PLANNER]
    msgs = []
    o, b = column_index_from_string("O"), column_index_from_string(BASIS_COL)
    # one pass over the rows: a read-only sheet finds a single cell by reading from the top
    rows = ws.iter_rows(min_row=FIRST_ROW, max_row=FIRST_ROW + len(links) - 1, max_col=b,
                        values_only=True)
    for i, (link, row) in enumerate(zip(links, rows)):
        total = row[o - 1] if len(row) >= o else None
        if isinstance(total, str) and total.startswith("#"):
            why = (row[b - 1] if len(row) >= b else None) or total
            msgs.append(f"link {i + 1} ({link['link']}): {why}")
    wb.close()
    return msgs


# ---------------------------------------------------------------- command ----
def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("template", metavar="TEMPLATE.xlsx", help="the zvmplan template workbook")
    p.add_argument("--links", required=True, metavar="links.csv",
                   help="one link per row: " + ", ".join(LINK_COLUMNS))
    p.add_argument("--scenarios", metavar="FILE", help="scenarios as CSV or TOML: "
                   + ", ".join(SCENARIO_COLUMNS))
    p.add_argument("--engines", type=float, metavar="N",
                   help="LPAR engines available (default: the template's)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.xlsx", help="filled workbook")


def run(args: argparse.Namespace) -> int:
    import sys
    try:
        rep = fill(args.template, args.links, args.output, args.scenarios, args.engines)
    except FillError as exc:
        try:
            from zvmplan_addin.cli import UserError
        except ImportError:  # pragma: no cover
            UserError = FillError
        raise UserError(str(exc)) from None
    for w in rep.warnings:
        print(f"zvmplan fill: warning: {w}", file=sys.stderr)
    calc = rep.calc.summary() if hasattr(rep.calc, "summary") else ""
    print(f"wrote {rep.out}: {rep.links} link(s)"
          + (f", {rep.scenarios} scenario(s)" if rep.scenarios else "") + (f"; {calc}" if calc else ""))
    return 0


def _register() -> None:
    try:
        from zvmplan_addin.cli import Command, register
    except ImportError:  # the command line is not installed: the library still works
        return
    register(Command("fill", "write links (and scenarios) into the template's inputs and "
                     "recalculate", configure, run))


_register()

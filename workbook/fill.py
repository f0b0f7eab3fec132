"""``zvmplan fill [TEMPLATE.xlsx] --links links.csv [--scenarios FILE] -o OUT.xlsx``

Writes a links CSV into the Planner's input rows of the template (the one installed with
the package unless TEMPLATE.xlsx is given; ``zvmplan template`` writes a copy) (and a scenarios file
into the Scenarios blocks), recalculates headlessly and writes OUT. Every value is
validated first; on the first bad one a single line names the file, row and column, and
nothing is written.

The links CSV and the scenarios file are documented in docs/planning.md ("Planning from a
links file"): columns ``link, transport, workload, size_bytes, connections, level,
speed_factor, load`` (or the Planner's own headings), ``load`` in MB/s for STREAM,
FTP_GET and STRG and tx/s for RR and CRR, ``connections`` required for RR and CRR. How a
file is decoded, split and its numbers read (encodings, ``;`` and decimal commas) is
:mod:`.csvfile`; names are checked by :mod:`zvmplan.names` (aliases accepted, written
back canonical). A scenarios file is a CSV or a TOML file of ``[[scenario]]`` tables with
``name, load_factor, level, transport, speed_up`` (``speed_factor`` is read as
``speed_up``); each becomes one Scenarios block.

The target machine (:mod:`.machine`) is named once, with ``--machine FILE.toml``,
``--capacity PROC=X,...`` or a ``[machine]`` table in the scenarios TOML: its per-engine
capacity relative to each measured processor goes into the Assumptions sheet's capacity
cells, and every link, total and scenario is then on that machine.

After the recalculation the answer is read back from OUT (:mod:`.results`) and printed:
a table, CSV or JSON, with the scenarios; ``--report FILE.pdf`` also writes the
one/two-page report (:mod:`.report`).

Exit codes (besides the command line's 0, 1 and 2): :data:`EXIT_DOES_NOT_FIT` (4) when
the links' total CPU is above the LPAR's engines or a load is above its device's line
rate, :data:`EXIT_CANNOT_TELL` (5) when the
plan cannot say whether it fits (the total is an error, or it is within the engines but
links without an answer are left out of it), so that a scheduled run can alert.

Only the template's input cells (its unlocked cells) are ever written; charts, styles,
validations and every formula are copied untouched. Keep imports here light: the
command line imports this module at start-up.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field
from pathlib import Path

# the exit codes say whether the plan fits (results.Results.fits), also for zvmplan report
from .results import EXIT_CANNOT_TELL, EXIT_DOES_NOT_FIT, EXIT_FITS, exit_code  # noqa: F401

LINK_COLUMNS = ("link", "transport", "workload", "size_bytes", "connections", "level",
                "speed_factor", "load")
REQUIRED = ("link", "transport", "workload", "size_bytes", "load")
SCENARIO_COLUMNS = ("name", "load_factor", "level", "transport", "speed_up")
#: earlier spellings of scenario columns, read as the column they were renamed to (a
#: scenario's ``speed_factor`` always meant a speed-up vs today's machine: it multiplies
#: each link's own factor, never replaces it)
SCENARIO_OLD_NAMES = {"speed_factor": "speed_up"}


class FillError(ValueError):
    """A bad links or scenarios file, or a template without the expected inputs."""


@dataclass
class FillReport:
    out: Path
    links: int
    scenarios: int
    calc: object = None                          # the engine's CalcReport
    warnings: list[str] = field(default_factory=list)
    results: object = None                       # results.Results, read from ``out``
    notes: list[str] = field(default_factory=list)   # what fill changed beside the inputs


# ------------------------------------------------------------- validation ----
def _number(text, where: str, *, whole: bool = False, minimum: float | None = None,
            mark: str = ".", separator: str = ",") -> float:
    """``text`` (a CSV cell, or a TOML value) as a number; ``mark`` is the file's decimal
    mark (:func:`csvfile.decimal_mark`)."""
    from .csvfile import number_error, parse_number
    if isinstance(text, str):
        value = parse_number(text, mark)
        if value is None:
            raise FillError(f"{where}: {number_error(text, mark, separator)}")
    elif isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        raise FillError(f"{where}: {text!r} is not a number")
    if not math.isfinite(value):
        raise FillError(f"{where}: {text!r} is not a finite number")
    if whole and value != int(value):
        raise FillError(f"{where}: {text!r} must be a whole number")
    if minimum is not None and value < minimum:
        raise FillError(f"{where}: {text!r} must be {minimum:g} or more")
    if minimum is None and value <= 0:
        raise FillError(f"{where}: {text!r} must be greater than 0")
    return int(value) if whole else value


def _choices(kind: str) -> dict[str, str]:
    """Every spelling :mod:`zvmplan.names` accepts for ``kind`` -> its canonical name."""
    from zvmplan import names
    if kind == "level":
        return {lv: lv for lv in names.LEVELS}
    table = {"transport": names.TRANSPORTS, "workload": names.WORKLOADS}[kind]
    return {a: n for n, item in table.items() for a in (n, *item.aliases)}


def _name(kind: str, text: str, where: str) -> str:
    from zvmplan import names
    from zvmplan.errors import NoDataError, ZvmplanError
    try:
        return getattr(names, kind)(text)
    except ZvmplanError as exc:
        msg = str(exc)
        # the model's message may suggest already; a name beyond the sources (z/VM 5.1.0,
        # VSWITCH) is no typo of a measured one
        if "did you mean" not in msg.lower() and not isinstance(exc, NoDataError):
            import difflib
            choices = _choices(kind)
            key = text.strip().upper().replace("-", "_").replace(" ", "_")
            close = difflib.get_close_matches(key, list(choices), n=1, cutoff=0.6)
            if close:
                msg += f"; did you mean {choices[close[0]]}?"
        raise FillError(f"{where}: {msg}") from None


def _level_text(text: str, mark: str) -> str:
    """A level written with the file's decimal comma ("4,4") as the model reads it."""
    import re
    return text.replace(",", ".") if mark == "," and re.fullmatch(r"[0-9]+,[0-9]+", text) \
        else text


def _read_csv(path: Path, aliases: dict[str, str], required_cols: tuple[str, ...],
              numeric: tuple[str, ...], warnings: list[str] | None, bound=None):
    """Rows of a CSV file as (row, line, {column: text}), and the file's decimal mark
    and separator; ``aliases`` maps accepted headings to columns (see :mod:`.csvfile`).
    ``bound(n)``, if given, is called with the number of rows before their values are
    checked (it raises :class:`FillError` for more than a plan may hold)."""
    from . import csvfile
    try:
        table = csvfile.read_table(path, aliases, required_cols)
        if bound is not None:
            bound(len(table.rows))
        cells = []
        if table.separator != ",":  # a comma-separated file has the decimal point
            cells = [(csvfile.where(path, n, line, col), r[col])
                     for n, (line, r) in enumerate(table.rows, start=1)
                     for col in numeric if r.get(col)]
            # a level European Excel turned into a number (4,4) tells the mark too
            cells += [(csvfile.where(path, n, line, "level"), r["level"])
                      for n, (line, r) in enumerate(table.rows, start=1)
                      if "," in r.get("level", "") and csvfile.parse_number(r["level"], ",")]
        mark = csvfile.decimal_mark(path.name, table.separator, cells)
    except csvfile.BadInput as exc:
        raise FillError(str(exc)) from None
    if warnings is not None:
        warnings.extend(table.warnings)
    rows = [(n, line, r) for n, (line, r) in enumerate(table.rows, start=1)]
    return rows, mark, table.separator


def _aliases(columns, labels) -> dict[str, str]:
    """Accepted headings: the column keys and the template's own labels for them."""
    from .csvfile import normalise
    out = {k: k for k in columns}
    for key, label in labels:
        out.setdefault(normalise(label), key)
    return out


def link_aliases() -> dict[str, str]:
    from .planner import INPUTS
    return _aliases(LINK_COLUMNS, [(c.key, c.label) for c in INPUTS])


def scenario_aliases() -> dict[str, str]:
    from .planner import SCENARIO_PARAMS
    return _aliases(SCENARIO_COLUMNS, [(k, label) for k, label, _ in SCENARIO_PARAMS]
                    + [(new, old) for old, new in SCENARIO_OLD_NAMES.items()])


LINK_NUMBERS = ("size_bytes", "connections", "speed_factor", "load")
SCENARIO_NUMBERS = ("load_factor", "speed_up")


def read_links(path, warnings: list[str] | None = None, bound=None) -> list[dict]:
    """Validated links, canonical names, numbers as numbers, blanks as None. Lines about
    how the file was read (an encoding fallback) are appended to ``warnings``.
    ``bound(n)``, if given, sees the number of links first (see :func:`_read_csv`)."""
    from zvmplan import names
    from .csvfile import where as _at
    from .planner import TX_WORKLOADS
    path = Path(path)
    out = []
    rows, mark, sep = _read_csv(path, link_aliases(), REQUIRED, LINK_NUMBERS, warnings, bound)
    #: (column, text) -> its value, for each text already accepted in that column: a
    #: name or number repeated down the file is checked once (a refused one raises)
    accepted: dict[tuple[str, str], object] = {}
    for n, line, raw in rows:
        def where(col):
            return _at(path, n, line, col)
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
                continue
            known = accepted.get((col, text), accepted)
            if known is not accepted:
                link[col] = known
                continue
            if col in ("transport", "workload", "level"):
                link[col] = _name(col, _level_text(text, mark) if col == "level" else text,
                                  where(col))
            elif col in ("connections", "size_bytes"):  # a count, and whole bytes
                link[col] = _number(text, where(col), whole=True, minimum=1, mark=mark,
                                    separator=sep)
            else:
                link[col] = _number(text, where(col), mark=mark, separator=sep)
            accepted[col, text] = link[col]
        if link["workload"] in TX_WORKLOADS and link["connections"] is None:
            raise FillError(f"{where('connections')}: required for {link['workload']} "
                            "(concurrent connections, 1 or more)")
        if link["transport"] not in names.TRANSPORTS:  # pragma: no cover - names guarantees it
            raise FillError(f"{where('transport')}: unknown")
        out.append(link)
    if not out:
        raise FillError(f"{path.name}: no links (only a header)")
    return out


def read_scenarios(path, warnings: list[str] | None = None) -> list[dict]:
    """Validated scenarios (a CSV or TOML file), canonical names, blanks as None."""
    return _read_scenarios(path, warnings)[0]


def _read_toml(path: Path) -> dict:
    from .tomlread import tomllib
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise FillError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise FillError(f"{path.name}: not valid TOML ({exc})") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise FillError(f"{path.name}: not a file zvmplan can read (arrays or tables nested "
                        "too deep)") from None


def _read_scenarios(path, warnings: list[str] | None = None):
    """The scenarios, and the machine of a TOML file's ``[machine]`` table (or None)."""
    from . import machine
    from .planner import SCENARIO_BLOCKS
    path = Path(path)
    mark, sep = ".", ","
    target = None
    if path.suffix.lower() == ".toml":
        data = _read_toml(path)
        tables = data.get("scenario")
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise FillError(f"{path.name}: expected [[scenario]] tables")
        if "machine" in data:
            try:
                target = machine.from_table(data["machine"], f"{path.name} [machine]")
            except machine.MachineError as exc:
                raise FillError(str(exc)) from None
        raw = []
        for i, t in enumerate(tables, start=1):
            row = {}
            for k, v in t.items():
                key = SCENARIO_OLD_NAMES.get(k, k)
                if key not in SCENARIO_COLUMNS:
                    import difflib
                    close = difflib.get_close_matches(str(k), SCENARIO_COLUMNS, n=1)
                    hint = f"did you mean {close[0]}? " if close else ""
                    raise FillError(f"{path.name} scenario {i}, key {k}: unknown; {hint}"
                                    f"valid: {', '.join(SCENARIO_COLUMNS)}")
                if key in row:
                    raise FillError(f"{path.name} scenario {i}, key {k}: the same as "
                                    f"{key}, given twice")
                row[key] = "" if v is None else v
            raw.append((f"{path.name} scenario {i}", row))
    else:
        rows, mark, sep = _read_csv(path, scenario_aliases(), ("name",), SCENARIO_NUMBERS,
                                    warnings)
        raw = [(f"{path.name} row {n} (line {line})", r) for n, line, r in rows]
    out, seen = [], {}
    for where, r in raw:
        sc = {}
        for col in SCENARIO_COLUMNS:
            value = r.get(col, "")
            text = value.strip() if isinstance(value, str) else value
            w = f"{where}, column {col}" if "row" in where else f"{where}, key {col}"
            if text == "":
                if col == "name":
                    raise FillError(f"{w}: required, but empty")
                sc[col] = None
            elif col == "name":
                text = _scenario_name(text, w)
                key = _name_key(text)
                if key in seen:
                    raise FillError(f"{w}: scenario {text!r} given twice (as {seen[key]!r}; "
                                    "names that differ only in case or Unicode form are "
                                    "the same name)" if seen[key] != text else
                                    f"{w}: scenario {text!r} given twice")
                seen[key] = text
                sc[col] = text
            elif col in ("level", "transport"):
                text = text if isinstance(text, str) else str(text)
                sc[col] = _name(col, _level_text(text, mark) if col == "level" else text, w)
            else:
                sc[col] = _number(text, w, mark=mark, separator=sep)
        out.append(sc)
    if not out:
        raise FillError(f"{path.name}: no scenarios")
    if len(out) > SCENARIO_BLOCKS:
        raise FillError(f"{path.name}: {len(out)} scenarios; the template's Scenarios sheet has "
                        f"room for {SCENARIO_BLOCKS}")
    return out, target


def _name_key(name: str) -> str:
    """What makes two scenario names the same to a reader: case ("High" and "high", as
    Excel compares text) and Unicode form ("é" typed as one character or as e and a
    combining accent) do not count."""
    import unicodedata
    return unicodedata.normalize("NFKC", name).casefold()


def _scenario_name(value, where: str) -> str:
    """A TOML name is checked here as a CSV cell is in :mod:`.csvfile`."""
    from .csvfile import BadInput, _text
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise FillError(f"{where}: {value!r} is not text")
    try:
        return _text(where, value)
    except BadInput as exc:
        raise FillError(str(exc)) from None


# ------------------------------------------------------------------- cells ----
def input_cells(links: list[dict], scenarios: list[dict] | None,
                engines: float | None, capacity: dict[str, float] | None = None
                ) -> dict[str, dict[str, object]]:
    """Sheet -> {cell: value} for every input the fill writes into the template's own
    rows (unused rows cleared; the rows beyond, which :mod:`.rows` adds, get theirs from
    :func:`added_inputs`). ``capacity`` (measured processor -> the target machine's per-engine capacity relative
    to it) fills the Assumptions sheet's capacity cells, every one (a processor not named
    is cleared); None leaves the template's."""
    from openpyxl.utils import get_column_letter as L
    from .planner import (ASSUME_CAP_ROW, ASSUMPTIONS, COL, ENGINES_CELL, FIRST_ROW, INPUTS,
                          N_ROWS, PLANNER, PROCESSORS, SCEN_PARAM_ROW, SCENARIO_BLOCKS,
                          SCENARIO_PARAMS, SCENARIOS, UPGRADE, scenario_col)
    planner = {}
    for i in range(N_ROWS):
        link = links[i] if i < len(links) else {}
        for c in INPUTS:
            planner[f"{COL[c.key]}{FIRST_ROW + i}"] = link.get(c.key)
    if engines is not None:
        planner[ENGINES_CELL] = engines
    cells = {PLANNER: planner, UPGRADE: upgrade_examples_cleared()}
    if scenarios is not None:
        sc_cells = {}
        for b in range(SCENARIO_BLOCKS):
            sc = scenarios[b] if b < len(scenarios) else {}
            col = L(scenario_col(b) + 1)
            for k, (key, _, _) in enumerate(SCENARIO_PARAMS):
                sc_cells[f"{col}{SCEN_PARAM_ROW + k}"] = sc.get(key)
        cells[SCENARIOS] = sc_cells
    if capacity is not None:
        cells[ASSUMPTIONS] = {f"B{ASSUME_CAP_ROW + i}": capacity.get(p)
                              for i, p in enumerate(PROCESSORS)}
    return cells


def added_inputs(links: list[dict]):
    """Planner row -> {column letter: value}, for the links beyond the template's rows
    (the rows :func:`~.rows.grow` adds)."""
    from .planner import COL, FIRST_ROW, INPUTS
    keys = [(COL[c.key], c.key) for c in INPUTS]

    def inputs(r: int) -> dict:
        link = links[r - FIRST_ROW]
        return {col: link.get(key) for col, key in keys}
    return inputs


#: an added row written back with its values, against the row as ``fill`` grows it:
#: measured 1.19 (Planner rows) and 1.03 (Scenarios rows, four scenarios), with room for
#: row numbers of six digits (at most 4 % more on a Scenarios row)
VALUES_GROWTH = 1.25


def size_bound(template: Path, label: str, scenarios: bool = True):
    """A check of a plan's size, made from the link count before any link is validated
    or any row added: the workbook ``fill`` would grow must be one the engine's bounds
    accept, both the cells of all sheets (:func:`.rows.cells_when_grown`, against
    :data:`~zvmplan_addin.xlsx.sheet.MAX_CELLS` or the formula cells the memory
    available holds, :func:`~zvmplan_addin.xlsx.size.cell_budget`) and each sheet part with its values
    written (the grown bytes x :data:`VALUES_GROWTH`, against the package's
    :data:`~zvmplan_addin.xlsx.package.MAX_PART_BYTES` a part and
    :data:`~zvmplan_addin.xlsx.package.MAX_TOTAL_BYTES` in all: ``fill`` reads the
    result back); else :class:`FillError` says what it needs, the bound, and how many
    links a plan may have."""
    from zvmplan_addin.xlsx import package, sheet, size
    from . import rows, xlsxio
    n0 = rows.P.N_ROWS
    try:
        entries = {info.filename: data for info, data in xlsxio.read_zip(template)}
        base = rows.cells_when_grown(entries, 0)
        per_row = rows.cells_when_grown(entries, n0 + 1, scenarios) - base
        one, two = dict(entries), dict(entries)   # one added row, and two: the cost of a row
        rows.grow(one, n0 + 1, scenarios=scenarios)
        rows.grow(two, n0 + 2, scenarios=scenarios)
    except (KeyError, OSError, ValueError) as exc:
        raise FillError(f"{template.name}: not a zvmplan template ({exc})") from None
    paths = rows.sheet_paths(entries)
    pending = rows.PENDING_VALUE.encode()

    def row_bytes(part: str) -> int:
        """The bytes one more row adds to ``part``, as :data:`VALUES_GROWTH` was measured
        on them: without the pending values its formula cells carry until written."""
        added = len(two[part]) - len(one[part])
        return added - len(pending) * (two[part].count(pending) - one[part].count(pending))
    # (what, the base, the cost of each added link, the bound)
    total = sum(len(v) for v in entries.values())
    held = size.cell_budget(formulas=True)  # on this machine, if fewer than MAX_CELLS
    cells = sheet.MAX_CELLS if held is None else min(sheet.MAX_CELLS, held)
    costs = [(f"a workbook of {{:,}} cells", base, per_row, cells, "{:,} cells")]
    for name in (rows.P.PLANNER, rows.P.SCENARIOS):
        part = paths[name]
        extra = row_bytes(part) * VALUES_GROWTH
        if extra:
            costs.append((f"a {name} sheet of {{:,.0f}} MiB", len(one[part]), extra,
                          package.MAX_PART_BYTES, "{:,.0f} MiB a sheet"))
    extra = sum(row_bytes(p) for p in entries) * VALUES_GROWTH
    costs.append(("{:,.0f} MiB of parts", total, extra, package.MAX_TOTAL_BYTES,
                  "{:,.0f} MiB of parts"))

    def check(n_links: int) -> None:
        added = max(0, n_links - n0)
        over = [(what, b + added * c, c, bound, says) for what, b, c, bound, says in costs
                if b + added * c > bound]
        if over:
            most = n0 + min(int(max(0, bound - b) // c) for _, b, c, bound, _ in costs)
            what, need, _, bound, says = over[0]
            mib = 2**20 if "MiB" in says else 1
            raise FillError(f"{label}: {n_links:,} links need {what.format(need // mib)}; "
                            f"zvmplan reads at most {says.format(bound // mib)} "
                            f"(docs/engine.md): split the links into plans of at most "
                            f"{most:,} links each")
    return check


#: said once a plan is filled: the Upgrade sheet's example what-ifs are gone
UPGRADE_CLEARED = ("the Upgrade sheet's example what-ifs were cleared (they are not your "
                   "links); for your links at another z/VM level give a scenario that level")


def upgrade_examples_cleared() -> dict[str, None]:
    """The Upgrade sheet's input cells, every one emptied: the template's example rows
    (an OSA web tier, HiperSockets bulk, ...) are not the planner's links, and a filled
    plan handed over must not show them as if they were."""
    from openpyxl.utils import get_column_letter as L
    from .planner import UPGRADE_FIRST, UPGRADE_INPUTS, UPGRADE_ROWS
    return {f"{L(c)}{UPGRADE_FIRST + i}": None for i in range(UPGRADE_ROWS)
            for c in range(1, UPGRADE_INPUTS + 1)}


# -------------------------------------------------------------------- fill ----
def fill(template, links_csv, out, scenarios=None, engines: float | None = None,
         progress=None, machine=None) -> FillReport:
    """Validate, write the inputs, recalculate, write ``out``. Raises :class:`FillError`
    (nothing written) for a bad file. ``template`` None: the template installed with the
    package.

    ``machine``: the target machine (:class:`.machine.Machine`, e.g. from
    :func:`.machine.read` or :func:`.machine.parse`), or None; a scenarios TOML file may
    name it instead (``[machine]``), not both."""
    from . import machine as mach
    from . import xlsxio
    from .rows import grow
    if template is None:
        from .template import packaged_template
        template = packaged_template()
    template, out = Path(template), Path(out)
    notes: list[str] = []
    if not template.is_file():
        raise FillError(f"{template}: no such template")
    links = read_links(links_csv, notes, size_bound(template, Path(links_csv).name,
                                                   scenarios is not None))
    scen, in_file = _read_scenarios(scenarios, notes) if scenarios is not None else (None, None)
    if machine is not None and in_file is not None:
        raise FillError(f"the machine is named twice ({machine.source} and "
                        f"{in_file.source}); name it once")
    machine = machine or in_file
    if machine is not None:
        try:
            machine.check(links, scen or [])
        except mach.MachineError as exc:
            raise FillError(str(exc)) from None
    if engines is not None and not (engines > 0 and math.isfinite(engines)):
        raise FillError(f"--engines {engines:g}: must be greater than 0")
    if not out.parent.is_dir():
        raise FillError(f"{out.parent}: no such directory")
    if out.exists() and out.resolve() == template.resolve():
        raise FillError(f"{out} is the template; write the filled workbook elsewhere")
    # no scenarios given: every block cleared (the template's examples are not the
    # planner's), and the Scenarios sheet says so; its rows are not grown
    cells = input_cells(links, scen if scen is not None else [], engines,
                        machine.capacity if machine else None)
    from zvmplan_addin import recalc as engine
    from zvmplan_addin import xlsx
    known: dict = {}    # the Planner's added rows, described for the reader (rows.py)
    try:  # the inputs written, then the template's tables grown to hold every link
        parts = xlsxio.input_parts(template, cells, prepare=lambda parts: grow(
            parts, len(links), added_inputs(links), scenarios=scen is not None,
            known=known))
    except xlsxio.NotAnInputCell as exc:
        raise FillError(f"{template.name}: {exc} (is it a zvmplan template?)") from None
    except (KeyError, OSError, ValueError) as exc:
        raise FillError(f"{template.name}: not a zvmplan template ({exc})") from None
    # handed to the engine in memory, checked as the file write_inputs would write of
    # them is checked when opened (safe_open_xlsx), without that file's deflate and inflate
    package = xlsx.open_parts(template.name, parts, xlsxio.WHEN.timetuple()[:6])
    del parts
    # taken by the reader instead of parsing those rows back (xlsx/knownrows.py); with
    # ZVMPLAN_ENGINE_CHECK the part is also read whole and the two compared
    from zvmplan_addin.recalc.options import Options
    options = Options.from_environ()  # read once: the reader's check and the engine's
    package.known_rows.update(known)
    for part in known:
        package.known_rows[part].check = options.check
    del known  # (the package holds them until read: then nothing does)
    try:  # a plan never carries a value the engine did not compute
        written = {"Planner": None, "Scenarios": None}  # what the results are read from
        report = engine.calc(template, out, progress=progress, keep_stale=False,
                             package=package, options=options, written=written)
    except engine.StaleValues as exc:
        cells = "; ".join(f"{c}: {why}" for c, why in list(exc.report.stale.items())[:5])
        raise FillError(f"{template.name}: {len(exc.report.stale)} formula cells could not "
                        f"be computed ({cells}); nothing written") from None
    rep = FillReport(out, len(links), len(scen) if scen else 0, report)
    from . import results
    try:
        rep.results = results.read(out, written=written)
    except results.ResultsError as exc:
        notes.append(f"{exc}; no results to show")
    else:
        notes.extend(rep.results.errors())
    rep.warnings = notes
    rep.notes.append(UPGRADE_CLEARED)
    return rep


# ---------------------------------------------------------------- command ----
def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("template", metavar="TEMPLATE.xlsx", nargs="?",
                   help="the zvmplan template workbook (default: the one installed with "
                   "zvmplan, as zvmplan template writes it)")
    p.add_argument("--links", required=True, metavar="links.csv",
                   help="one link per row: " + ", ".join(LINK_COLUMNS))
    p.add_argument("--scenarios", metavar="FILE", help="scenarios as CSV or TOML: "
                   + ", ".join(SCENARIO_COLUMNS))
    p.add_argument("--engines", type=float, metavar="N",
                   help="LPAR engines available (default: the template's)")
    target = p.add_mutually_exclusive_group()
    target.add_argument("--machine", metavar="FILE.toml",
                        help="the target machine: a TOML file with a [machine] table giving "
                        "its per-engine capacity relative to each measured processor (from "
                        "zPCR or LSPR); every link, total and scenario is then on it")
    target.add_argument("--capacity", metavar="PROC=X,...",
                        help="the same inline, e.g. 9672-XZ7=X,2064-108=X,2084-C24=X,"
                        "2064-109=X (only the processors your links use)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.xlsx", help="filled workbook")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="how to print the per-link results and totals on stdout (csv and "
                   "json for scripts: nothing else goes to stdout)")
    p.add_argument("--rows", type=int, default=50, metavar="N",
                   help="links shown in the table, after sorting (default 50; 0: all)")
    p.add_argument("--sort", choices=("plan", "cpu"), default="plan",
                   help="order of the table's links: the plan's (default) or the heaviest "
                   "total CPU first")
    p.add_argument("--wide", action="store_true",
                   help="every column in the table, however wide (default: the columns "
                   "that fit the terminal)")
    p.add_argument("--report", metavar="FILE.pdf",
                   help="also write the plan's report (as zvmplan report OUT.xlsx -o FILE)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print no results, no progress bar; only warnings and errors")
    p.epilog = ("exit status: 0 the links fit the LPAR's engines; 4 they do not (or a load is "
                "above a device's line rate); 5 the plan "
                "cannot tell (an error in the total, or links left out); 1 a file refused; "
                "2 a usage error")


def run(args: argparse.Namespace) -> int:
    import sys
    from zvmplan_addin.commands import UserError, progress_bar
    from . import machine
    try:
        target = (machine.read(args.machine) if args.machine else
                  machine.parse(args.capacity, "--capacity") if args.capacity else None)
    except machine.MachineError as exc:
        raise UserError(str(exc)) from None
    if args.rows < 0:
        raise UserError(f"--rows {args.rows}: give 0 (all) or more")
    if args.report:
        from .report import check_output
        check_output(args.report)
    bar = None if args.quiet else progress_bar()
    try:
        rep = fill(args.template, args.links, args.output, args.scenarios, args.engines,
                   progress=bar.update if bar else None, machine=target)
    except FillError as exc:
        raise UserError(str(exc)) from None
    finally:
        if bar:
            bar.close()
    from . import results
    res = rep.results
    for w in rep.warnings:  # one line each, unless a person reads them on a terminal
        line = f"zvmplan fill: warning: {w}"
        if sys.stderr.isatty():
            import textwrap
            line = "\n".join(textwrap.wrap(line, results.terminal_width(),
                                            subsequent_indent="  ", break_long_words=False))
        print(line, file=sys.stderr)
    calc = rep.calc.summary() if hasattr(rep.calc, "summary") else ""
    if res is not None:  # the errors, by where they are: the links, or what-if cells
        errs = results.error_lines(res, getattr(rep.calc, "error_cells", None))
        if errs and ";" in calc:
            calc = calc.split(";")[0]  # "N show an error" is said in full below
        calc_lines = errs
    else:
        calc_lines = []
    status = (f"wrote {rep.out}: {rep.links} link(s)"
              + (f", {rep.scenarios} scenario(s)" if rep.scenarios else "")
              + (f"; {calc}" if calc else ""))
    if args.report and res is not None:
        from .report import write_report
        write_report(rep.out, args.report)
        status += f"\nwrote {args.report}"
    elif args.report:
        print(f"zvmplan fill: warning: no report written: {rep.out} has no results to "
              "report", file=sys.stderr)
    code = exit_code(res)
    if args.quiet:
        return code
    if args.format == "table":
        try:  # a console that cannot show a name shows it escaped, not a traceback
            sys.stdout.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):  # pragma: no cover - a replaced stdout
            pass
        import textwrap
        width = results.terminal_width()
        if res is not None:
            print(results.table(res, args.rows, wide=args.wide, sort=args.sort, width=width))
            print()
        for line in [*status.split("\n"), *calc_lines]:
            print("\n".join(textwrap.wrap(line, width, subsequent_indent="  ",
                                           break_long_words=False, break_on_hyphens=False)))
    else:
        print(status, file=sys.stderr)
        for line in calc_lines:
            print(line, file=sys.stderr)
        if res is not None:
            text = (results.to_csv(res) if args.format == "csv"
                    else results.to_json(res, calc=calc, warnings=rep.warnings) + "\n")
            try:
                sys.stdout.write(text)
            except UnicodeEncodeError as exc:
                raise UserError(f"{rep.out} was written, but stdout ({sys.stdout.encoding}) "
                                f"cannot show {exc.object[exc.start:exc.end]!r}; set "
                                "PYTHONIOENCODING=utf-8") from None
    for note in rep.notes:  # after the answer: on stderr, so csv and json stay data
        print(f"zvmplan fill: note: {note}", file=sys.stderr)
    return code


def _register() -> None:
    try:
        from zvmplan_addin.commands import Command, register
    except ImportError:  # the command line is not installed: the library still works
        return
    register(Command("fill", "write links (and scenarios) into the template's inputs and "
                     "recalculate", configure, run))


_register()

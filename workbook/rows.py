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
from itertools import repeat

from defusedxml import ElementTree

from . import charts as C
from . import planner as P
from .xlsxio import NS_MAIN, NS_PKG_REL, NS_REL, cell_xml, escape

_MAIN, _REL, _PKG = (f"{{{ns}}}" for ns in (NS_MAIN, NS_REL, NS_PKG_REL))


class GrowError(ValueError):
    """The template's table cannot be extended (not laid out as the builder lays it out)."""


_ROW = r'<row\b[^>]*\br="{r}"[^>]*?(?:/>|>.*?</row>)'

#: the cached value a formula cell :func:`grow` writes carries until the engine writes
#: its own: every template formula cell has a ``<v>``, and cells that all have one are
#: the ones the engine's writer splices its values into at the offsets its reader noted
#: (:mod:`zvmplan_addin.xlsx.splice`; a formula cell without one sends the whole sheet
#: part to the general rewrite, three times slower). The file holding it is
#: ``fill``'s own temporary one: ``fill`` recalculates it with ``keep_stale=False``, so
#: every formula cell gets its computed value or nothing is written.
PENDING_VALUE = "<v>0</v>"
_CELL_ATTRS = re.compile(r'<c\b[^>]*\br="(?P<col>[A-Z]+)(?P<row>[0-9]+)"(?P<attrs>[^>]*?)/?>')


def grow(entries: dict[str, bytes], n_rows: int, inputs=None, scenarios: bool = True,
         known: dict | None = None) -> None:
    """Extend the Planner and Scenarios tables of the unpacked workbook ``entries`` (zip
    path -> bytes, changed in place) to ``n_rows`` rows. Nothing to do for ``n_rows`` up
    to the template's own. ``inputs(r)``, if given: the values of the Planner's input
    cells in added row ``r`` (column letter -> value), written with the rows.
    ``scenarios=False`` leaves the Scenarios table as it is: for a plan whose scenario
    blocks are all unnamed (the blocks then compute nothing; one named later in a
    spreadsheet says that its table covers fewer links than the Planner's).
    ``known``, a dict: the added rows of the Planner, the Scenarios and the Plan sheet
    described for the reader as :class:`~zvmplan_addin.xlsx.knownrows.KnownRows`, under their parts' paths
    (nothing when they cannot be: the reader then reads them from the bytes)."""
    if n_rows <= P.N_ROWS:
        return
    paths = sheet_paths(entries)
    last = P.FIRST_ROW + n_rows - 1
    _grow_sheet(entries, paths[P.PLANNER], P.FIRST_ROW, P.LAST_ROW, last, P.planner_row,
                P.planner_totals(last), inputs=inputs, known=known)
    _print_area(entries, last)
    # not grown, the Scenarios table keeps its rows, and its totals compare them with all
    # of the Planner's: a block named later says "rows missing", never a short total
    s_last = P.SCEN_FIRST_ROW + n_rows - 1 if scenarios else P.SCEN_LAST_ROW

    def scenario_rows(r):
        out = {}
        for b in range(P.SCENARIO_BLOCKS):
            out.update(P.scenario_row(b, r))
        return out
    totals = {}
    for b in range(P.SCENARIO_BLOCKS):
        totals.update(P.scenario_totals(b, s_last, last))
    # a Scenarios row names its own row and the Planner's row beside it
    _grow_sheet(entries, paths[P.SCENARIOS], P.SCEN_FIRST_ROW, P.SCEN_LAST_ROW, s_last,
                scenario_rows, totals, offsets=(0, P.FIRST_ROW - P.SCEN_FIRST_ROW),
                known=known)
    if C.PLAN in paths:  # the Plan sheet's every-link table and what is read from it
        e_last = C.PLAN_EVERY_FIRST + n_rows - 1
        e_old = C.PLAN_EVERY_FIRST + P.N_ROWS - 1
        cells = C.plan_top(e_last)
        for r in range(C.PLAN_EVERY_FIRST, e_old + 1):  # the ranks over the longer table
            cells[f"{C.PLAN_RANK}{r}"] = C.plan_link_row(r, e_last)[C.PLAN_RANK]
        # a Plan row names its own row and the Planner's row it shows
        _grow_sheet(entries, paths[C.PLAN], C.PLAN_EVERY_FIRST, e_old, e_last,
                    lambda r: C.plan_link_row(r, e_last), cells,
                    offsets=(0, P.FIRST_ROW - C.PLAN_EVERY_FIRST), known=known)


def _print_area(entries: dict[str, bytes], last: int) -> None:
    """The Planner's print area stretched to its new last row."""
    wb = entries["xl/workbook.xml"].decode("utf-8")
    old = f"'{P.PLANNER}'!$A$1:${P.BASIS_COL}${P.LAST_ROW}<"
    if old in wb:
        wb = wb.replace(old, f"'{P.PLANNER}'!$A$1:${P.BASIS_COL}${last}<")
        entries["xl/workbook.xml"] = wb.encode("utf-8")


_CELL_START = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c[\s/>]")


def cells_when_grown(entries: dict[str, bytes], n_rows: int, scenarios: bool = True) -> int:
    """The cells the workbook's sheets hold once :func:`grow` has made its tables
    ``n_rows`` rows long (what the engine's cell bound counts): the template's own, plus
    for each added row the cells of each table's last row, which every added row copies
    (the Scenarios table's only if ``scenarios``, as :func:`grow`)."""
    paths = sheet_paths(entries)
    base = sum(len(_CELL_START.findall(entries[p])) for p in paths.values() if p in entries)
    if n_rows <= P.N_ROWS:
        return base
    per_row = 0
    tables = [(P.PLANNER, P.LAST_ROW)]
    if C.PLAN in paths:  # the Plan sheet's every-link table grows with the links
        tables.append((C.PLAN, C.PLAN_EVERY_FIRST + P.N_ROWS - 1))
    if scenarios:
        tables.append((P.SCENARIOS, P.SCEN_LAST_ROW))
    for sheet, last in tables:
        xml = entries[paths[sheet]].decode("utf-8")
        m = re.search(_ROW.format(r=last), xml, re.S)
        if m is None:
            raise GrowError(f"{paths[sheet]}: no row {last}")
        per_row += len(_CELL_ATTRS.findall(m.group(0)))
    return base + (n_rows - P.N_ROWS) * per_row


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


#: a row number no template formula holds otherwise: the added rows' XML is made once
#: for this row and copied with each row's number put in its place (checked below)
_SENTINEL = 987_654_321
#: added rows encoded at a time
_BATCH = 256
#: the added rows made a piece of a batch of rows at a time (else a row at a time: the
#: same text, a test compares them)
BY_COLUMN = True


def _grow_sheet(entries, path, first, old_last, new_last, row_fn, totals, offsets=(0,),
                inputs=None, known=None):
    """Append rows ``old_last + 1 .. new_last`` to the table of sheet part ``path``.

    ``row_fn(r)`` gives row ``r``'s formulas; the row's XML is rendered once for a
    sentinel row and each added row is that text with ``r + k`` put in for
    ``_SENTINEL + k``, for each ``k`` of ``offsets`` (the rows a row's formulas name:
    a Scenarios row names its Planner row). The first and last added rows are compared
    with ``row_fn`` itself; if they differ, every row is rendered on its own.
    ``inputs(r)``, if given, gives the values of row ``r``'s input cells (column ->
    value; written as :func:`~.xlsxio.cell_xml` writes them): the added rows copy the
    styles of the template's last row, whose input cells :func:`~.xlsxio.set_cells` has
    checked are unlocked. The totals, dimension and stretched ranges are edited in the
    template's own text, before the rows are added (time in proportion to the rows).
    ``known``, a dict: the added rows described for the reader (:func:`known_rows`)
    under ``path``, when they can be."""
    xml = entries[path].decode("utf-8")
    m = re.search(_ROW.format(r=old_last), xml, re.S)
    if m is None or not xml[m.end():].lstrip().startswith("</sheetData>"):
        raise GrowError(f"{path}: row {old_last} is not the last row of the table")
    row_tag = re.match(r"<row\b[^>]*?/?>", m.group(0)).group(0)
    row_attrs = re.sub(r'\s(?:r|spans)="[^"]*"', "", row_tag[4:].rstrip("/>"))
    cols = [(c.group("col"), re.search(r'\bs="[0-9]+"', c.group("attrs")))
            for c in _CELL_ATTRS.finditer(m.group(0))]
    head, tail = xml[:m.end()], xml[m.end():]
    for ref, (f, _) in totals.items():
        cell = re.search(rf'<c\b[^>]*\br="{ref}"(?P<attrs>[^>]*?)(?:/>|>.*?</c>)', head, re.S)
        if cell is None:
            raise GrowError(f"{path}: no totals cell {ref}")
        style = re.search(r'\bs="[0-9]+"', cell.group(0))
        s = f" {style.group(0)}" if style else ""
        head = head[:cell.start()] + \
            f'<c r="{ref}"{s}><f>{escape(f[1:])}</f>{PENDING_VALUE}</c>' + head[cell.end():]
    head = re.sub(r'(<dimension\b[^>]*\bref="[A-Z]+[0-9]+:[A-Z]+)' + str(old_last) + '"',
                  rf'\g<1>{new_last}"', head, count=1)
    span = re.compile(rf"\b([A-Z]+){first}:([A-Z]+){old_last}\b")

    def stretch(a):
        return span.sub(rf"\g<1>{first}:\g<2>{new_last}", a.group(0))
    head = re.sub(r'\bsqref="[^"]*"', stretch, head)
    tail = re.sub(r'\bsqref="[^"]*"', stretch, tail)

    def render(r, formulas) -> list[tuple[str, int, str]]:
        """Row ``r``'s cells: (column, style, XML), its formulas given, inputs empty."""
        out = []
        for col, style in cols:
            s = int(style.group(0)[3:-1]) if style else None
            attr = "" if s is None else f' s="{s}"'
            f = formulas.get(col)
            text = (f'<c r="{col}{r}"{attr}/>' if f is None else
                    f'<c r="{col}{r}"{attr}><f>{escape(f[0][1:])}</f>{PENDING_VALUE}</c>')
            out.append((col, s, text))
        return out

    steps = sorted(set(offsets))  # the distinct rows a row names, as offsets from it
    marks = [str(_SENTINEL + k) for k in steps]
    cut = re.compile("|".join(marks))

    def pieces(text: str) -> tuple[list[str], list[int], list[str]]:
        """``text`` cut where it names the sentinel row + ``steps[k]``: the text between
        the cuts, with a place between each two, each cut's ``k``, and the text between
        the cuts alone."""
        between = cut.split(text)
        out = [between[0]]
        for piece in between[1:]:
            out += ["", piece]
        return out, [marks.index(x) for x in cut.findall(text)], between

    def put(parts: tuple[list[str], list[int], list[str]], nums: list[str]) -> str:
        """``parts`` (from :func:`pieces`) with the row numbers ``nums`` in its places."""
        between, which, alone = parts
        if len(nums) == 1:
            return nums[0].join(alone)
        out = between[:]
        out[1::2] = [nums[k] for k in which]
        return "".join(out)

    model = render(_SENTINEL, row_fn(_SENTINEL))
    rows = range(old_last + 1, new_last + 1)
    # the columns whose cells may hold an input: each row is the runs of the model
    # between them (one string each, its row numbers put in) and those cells
    keyed = set(inputs(rows[0])) if inputs is not None and rows else set()
    runs, slots, run = [], [], [f'<row r="{_SENTINEL}"{row_attrs}>']
    for col, s, text in model:
        if col in keyed:
            runs.append(pieces("".join(run)))
            slots.append((col, s, pieces(text)))
            run = []
        else:
            run.append(text)
    runs.append(pieces("".join(run) + "</row>"))

    def row_xml(r: int, cells) -> str:
        """Row ``r`` as its cells are rendered one by one (the runs' reference)."""
        return f'<row r="{r}"{row_attrs}>' + "".join(cells) + "</row>"

    def row_pieces(r: int, given: dict) -> list[str]:
        """Row ``r`` from the runs, with the input cells ``given`` (column -> value): the
        runs and the input cells between them, in turn."""
        nums = [str(r + k) for k in steps]
        out = [put(runs[0], nums)]
        for (col, s, slot), after in zip(slots, runs[1:]):
            value = given.get(col)
            out += [put(slot, nums) if value is None or value == "" else
                    cell_xml(f"{col}{r}", 0 if s is None else s, value), put(after, nums)]
        return out

    def row_runs(r: int, given: dict) -> str:
        return "".join(row_pieces(r, given))
    if rows and any(row_runs(r, {}) != row_xml(r, [t for _, _, t in render(r, row_fn(r))])
                    for r in (rows[0], rows[-1])):  # pragma: no cover - a formula with its digits
        raise GrowError(f"{path}: the template's row formulas hold the row {_SENTINEL}")
    def batch_pieces(first: int, given: list) -> list[list[str]]:
        """The pieces of :func:`row_pieces` of the rows from ``first`` whose inputs are
        ``given`` (one dict a row, each naming only ``keyed`` columns), a list per
        piece: the runs' texts made a column at a time (one C call a row, not a
        Python call), the input cells' one by one."""
        n = len(given)
        nums = [list(map(str, range(first + k, first + k + n))) for k in steps]

        def run_texts(parts) -> list[str]:
            if len(nums) == 1:
                return list(map(str.join, nums[0], repeat(parts[2], n)))
            return [put(parts, list(row_nums)) for row_nums in zip(*nums)]
        out = [run_texts(runs[0])]
        for (col, s, slot), after in zip(slots, runs[1:]):
            style = 0 if s is None else s
            out += [[text if (value := g.get(col)) is None or value == "" else
                     cell_xml(f"{col}{r}", style, value)
                     for r, g, text in zip(range(first, first + n), given,
                                           run_texts(slot))],
                    run_texts(after)]
        return out

    # the rows encoded a batch at a time, and the part joined once: its text is never
    # held whole beside its bytes (a 10,000-row Planner is 88 MB)
    blocks, batch = [head.encode("utf-8")], []
    # described for the reader (see known_rows): each row's inputs and the byte length
    # of each of its pieces
    givens, lengths = ([], []) if known is not None else (None, None)
    every = [inputs(r) if inputs is not None else {} for r in rows]
    if BY_COLUMN and all(given.keys() <= keyed for given in every):
        # the rows made a batch at a time, a piece (run or input cell) of every row of
        # the batch at once: the same text as row_pieces, row by row
        for k in range(0, len(rows), _BATCH):
            given = every[k:k + _BATCH]
            columns = batch_pieces(rows[k], given)
            if givens is not None:  # (an ASCII piece's bytes are its characters)
                lengths += zip(*[list(map(len, col)) if all(map(str.isascii, col)) else
                                 [len(x.encode("utf-8")) for x in col] for col in columns])
                givens += given
            blocks.append("".join(map("".join, zip(*columns))).encode("utf-8"))
        rows_made = True
    else:  # inputs(r) names a column the first row's did not: a row at a time
        rows_made = False
    for r, given in zip(rows if not rows_made else (), every):
        if given.keys() <= keyed and givens is not None:
            out = row_pieces(r, given)
            text = "".join(out)
            lengths.append(list(map(len, out)) if text.isascii() else
                           [len(x.encode("utf-8")) for x in out])
            givens.append(given)
            batch.append(text)
        elif given.keys() <= keyed:
            batch.append(row_runs(r, given))
        else:  # pragma: no cover - inputs(r) names a column the first row's did not
            givens = None
            batch.append(row_xml(r, [
                text if given.get(col) in (None, "") else
                cell_xml(f"{col}{r}", 0 if s is None else s, given[col])
                for col, s, text in render(r, row_fn(r))]))
        if len(batch) == _BATCH:
            blocks.append("".join(batch).encode("utf-8"))
            batch = []
    blocks += ["".join(batch).encode("utf-8"), tail.encode("utf-8")]
    data = entries[path] = b"".join(blocks)
    if givens is not None and rows:
        described = known_rows(
            data, len(blocks[0]), len(data) - len(blocks[-1]), rows, model, keyed,
            f'<row r="{_SENTINEL}"{row_attrs}>', steps, row_fn, lengths, givens)
        if described is not None:
            known[path] = described


#: the characters an added input string may hold for :func:`known_rows` to describe it:
#: XML's, less the carriage return (which XML reads as a line feed)
_PLAIN = re.compile("[\t\n\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*")
_PENDING_TAIL = PENDING_VALUE + "</c>"


def known_rows(data: bytes, start: int, stop: int, rows: range, model: list, keyed: set,
               row_tag: str, steps: list, row_fn, lengths: list, givens: list):
    """The rows :func:`_grow_sheet` added to a part (``data[start:stop]``) described as
    the reader reads them (:class:`~zvmplan_addin.xlsx.knownrows.KnownRows`), from what
    made them: the sentinel row's cells ``model`` ((column, style, XML) each; the input
    columns ``keyed``), its ``row_tag``, the row offsets ``steps`` its text names, the
    byte length of each of every row's pieces (``lengths``: the runs and the input
    cells between them, in turn) and each row's inputs ``givens``. None when a cell is
    not of a kind described here (the reader then reads the rows from the bytes)."""
    import numpy as np
    from zvmplan_addin.xlsx import cellread, col_number
    from zvmplan_addin.xlsx import sheet as S
    from zvmplan_addin.xlsx.bulksheet import _LAYOUT, row_attributes_read
    from zvmplan_addin.xlsx.knownrows import KnownRows, filled_columns

    marks = [str(_SENTINEL + k) for k in steps]
    cut = re.compile("|".join(marks))
    formulas = row_fn(_SENTINEL)

    def measure(text: str) -> tuple[int, list[int]]:
        """``text``'s bytes less its marks, and how many of each mark it holds."""
        found = cut.findall(text)
        return (sum(len(p.encode("utf-8")) for p in cut.split(text)),
                [found.count(m) for m in marks])

    attrs = row_tag[len(f'<row r="{_SENTINEL}"'):-1].encode("utf-8")
    if not row_attributes_read(attrs):
        return None
    n = len(rows)
    r = np.arange(rows[0], rows[-1] + 1, dtype=np.int64)
    digits = [1 + sum((r + k >= 10 ** p).astype(np.int64) for p in range(1, 19))
              for k in steps]
    width = np.array(lengths, dtype=np.int64)                      # (rows, pieces)
    row_start = start + np.concatenate(([0], np.cumsum(width.sum(axis=1))[:-1]))
    if int(row_start[-1] + width[-1].sum()) != stop:
        return None
    piece_start = np.cumsum(width, axis=1) - width
    run, piece, inputs, found = row_tag, 0, [], []
    for col, _, text in model:
        if col in keyed:
            if col in formulas:
                return None
            inputs.append((col, col_number(col)))
            run, piece = "", piece + 2
            continue
        f = formulas.get(col)
        if f is not None:
            if "\r" in f[0] or not text.endswith(_PENDING_TAIL) or \
                    not text.startswith(f'<c r="{col}{_SENTINEL}"'):
                return None
            before, inside = measure(run), measure(text)
            c0 = row_start + piece_start[:, piece] + before[0] + \
                sum(c * d for c, d in zip(before[1], digits))
            end = c0 + inside[0] + sum(c * d for c, d in zip(inside[1], digits))
            found.append((col_number(col), f[0][1:], c0, end - len("</c>"), col))
        run += text
    if any(a[0] >= b[0] for a, b in zip(found, found[1:])):
        return None
    # the formulas' text of every row, by row then column, each column's made by the
    # rule its text at the sentinel row gives (the engine may take the column as one
    # formula filled down when that is its own rule: FilledColumn)
    k = len(found)
    made = filled_columns(
        [c for c, *_ in found], rows[0], n,
        [(cut.split(text), [steps[marks.index(x)] for x in cut.findall(text)])
         for _, text, *_ in found])
    if made is None:
        return None
    fills, texts = made
    if len(texts) != n * k:
        return None
    for i in (0, n - 1):  # the first and last rows' against the row formulas themselves
        formulas_i = row_fn(rows[i])
        if texts[i * k:(i + 1) * k] != [formulas_i[x[4]][0][1:] for x in found]:
            return None
    pending = cellread.value("n", PENDING_VALUE[3:-4].encode("ascii"), [])
    # the inputs the reader files, by row then column
    v_rows, v_cols, values, inline = [], [], [], 0
    for row, given in zip(rows, givens):
        for col, c in inputs:
            value = given.get(col)
            if value is None or value == "":
                continue
            if isinstance(value, str):
                if _PLAIN.fullmatch(value) is None:
                    return None
                value, inline = S.unescape_ooxml(value), inline + 1
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                value = float(value)
            else:
                return None
            v_rows.append(row)
            v_cols.append(c)
            values.append(value)
    layout = np.empty(n * k, dtype=_LAYOUT)
    layout["r"] = np.repeat(r, k)
    layout["c"] = np.tile(np.array([x[0] for x in found], dtype=np.int64), n)
    v1 = np.stack([x[3] for x in found], axis=1).ravel() if k else np.zeros(0, np.int64)
    layout["c0"] = np.stack([x[2] for x in found], axis=1).ravel() if k else v1
    layout["v0"] = v1 - len(PENDING_VALUE)
    layout["v1"] = v1
    layout["flags"] = 0
    value_array = np.empty(len(values), dtype=object)
    value_array[:] = values
    v_rows, v_cols = np.array(v_rows, dtype=np.int64), np.array(v_cols, dtype=np.int64)
    filed_cols = [c for c, *_ in found] + v_cols.tolist()
    return KnownRows(
        data=data, start=start, stop=stop, rows=n, cells=n * len(model), inline=inline,
        value_rows=v_rows, value_cols=v_cols, values=value_array,
        formula_rows=layout["r"].astype(np.int64), formula_cols=layout["c"].astype(np.int64),
        texts=texts,
        cached=pending, layout=layout,
        max_row=max([int(r[-1])] * bool(k) + v_rows.tolist()[-1:] + [0]),
        max_col=max(filed_cols + [0]), fills=tuple(fills))

"""The Charts sheet: the charts the sources had or implied, over live cells.

* 000: MB/s and CP CPU-s per MB against transfer size / MTU (log axes) for CMS IUCV,
  Linux IUCV and Linux CTC -- the published points and zvmplan's curves through them.
* 003 Tables 20-25 (whose pictures were lost): the ratio z/VM 4.4.0 / 4.3.0 of the four
  metrics, one chart per device / workload / MTU, one series per connection count.
"""
from __future__ import annotations

from openpyxl.chart import BarChart, LineChart, Reference, ScatterChart, Series
from openpyxl.chart.data_source import AxDataSource, StrRef
from openpyxl.chart.shapes import GraphicalProperties
from openpyxl.utils import get_column_letter as L

from zvmplan.data import find

from . import styles as st
from .book import Book, quote
from .sources import METRICS_003, s

CHART = "Charts"
#: curve sizes [bytes] per transport, inside the range zvmplan supports for each
CURVE_SIZES = {
    "CMS_IUCV": (1, 10, 100, 300, 1000, 3000, 10000, 30000, 100000, 300000, 1000000, 3000000,
                 8000000),
    "IUCV": (576, 1000, 1500, 3000, 9000, 20000, 32764, 100000, 300000, 1000000, 2000000),
    "VCTC": (576, 1000, 1500, 3000, 9000, 20000, 32764),  # 000 considers larger MTUs for IUCV only
}
LABEL = {"CMS_IUCV": "CMS IUCV", "IUCV": "Linux IUCV", "VCTC": "Linux CTC"}
COLOR = {"CMS_IUCV": "1F77B4", "IUCV": "FF7F0E", "VCTC": "2CA02C"}
CONN_COLOR = ("1F4E78", "2E75B6", "9DC3E6", "C55A11")
#: 003 Tables 20-25: device, workload, MTU as the notes under the lost charts give them
QIOA_CHARTS = (("Table 20", "OSA_GBE", "CRR", 8992), ("Table 21", "OSA_GBE", "RR", 1492),
               ("Table 22", "OSA_GBE", "STRG", 8992), ("Table 23", "HIPERSOCKETS", "CRR", 57344),
               ("Table 24", "HIPERSOCKETS", "RR", 57344),
               ("Table 25", "HIPERSOCKETS", "STRG", 57344))
CONNS = (1, 10, 20, 50)
METRIC_LABEL = {"tx_per_sec": "tx/sec", "v_cpumsec_per_tx": "vCPU/tx",
                "cp_cpumsec_per_tx": "cCPU/tx", "tot_cpumsec_per_tx": "tCPU/tx"}
DEVICE = {"OSA_GBE": "OSA Express GbE", "HIPERSOCKETS": "HiperSockets"}


def _axes(chart, x_title, y_title, log_x=False, log_y=False):
    chart.x_axis.title = x_title
    chart.y_axis.title = y_title
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    if log_x:
        chart.x_axis.scaling.logBase = 10
    if log_y:
        chart.y_axis.scaling.logBase = 10
    chart.legend.position = "b"


def sheet_charts(book: Book):
    ws = book.wb.create_sheet(CHART)
    st.widths(ws, {L(i): 11 for i in range(1, 12)})
    ws.sheet_view.zoomScale = 90
    row = st.title(ws, "Charts - data rate and CP cost by transfer size (000); Queued I/O "
                   "Assist ratios (003 Tables 20-25)",
                   "The data beside each chart is live: published points from the 000 sheet, "
                   "zvmplan curves from worksheet functions, 003 ratios from the 003 sheet's "
                   "live cells.", width_cols=24)
    # ---- 000 curves: published points (from the 000 sheet) and zvmplan curves
    row = st.h2(ws, row, "000: streaming between two virtual machines, z/VM 3.1.0")
    top = row
    blocks = {}
    col = 1
    for t in ("CMS_IUCV", "IUCV", "VCTC"):
        st.band(ws, top, col, col + 2, f"{LABEL[t]}: zvmplan curve")
        for k, (h, u) in enumerate((("Size", "bytes"), ("MB/s", "MB/s"),
                                    ("CP CPU per MB", "CPU-s/MB"))):
            st.header(ws, top + 1, col + k, h, u)
        ws.row_dimensions[top + 1].height = 30
        r0 = top + 3
        for i, size in enumerate(CURVE_SIZES[t]):
            r = r0 + i
            st.published(ws.cell(r, col), size, "#,##0").fill = st.OUTPUT_FILL
            st.output(ws.cell(r, col + 1), f"=MB_PER_SEC({s(t)},{L(col)}{r})", "0.00")
            st.output(ws.cell(r, col + 2), f"=CPCPU_PER_MB({s(t)},{L(col)}{r})", "0.000000")
        blocks[t] = (col, r0, r0 + len(CURVE_SIZES[t]) - 1)
        col += 3
    # published points, copied by formula from the 000 sheet
    pts = {}
    for t in ("CMS_IUCV", "IUCV", "VCTC"):
        st.band(ws, top, col, col + 2, f"{LABEL[t]}: published (000)")
        for k, (h, u) in enumerate((("Size", "bytes"), ("MB/s", "MB/s"),
                                    ("CP CPU per MB", "CPU-s/MB"))):
            st.header(ws, top + 1, col + k, h, u)
        sizes = sorted({r.size_bytes for r in find(document="000", transport=t, table={
            "CMS_IUCV": "Table 1", "IUCV": "Table 2", "VCTC": "Table 3"}[t])})
        r0 = top + 3
        for i, size in enumerate(sizes):
            r = r0 + i
            ws.cell(r, col, size).number_format = "#,##0"
            ws.cell(r, col).border = st.BOX
            for k, m in ((1, "mb_per_sec"), (2, "cp_cpusec_per_mb")):
                st.output(ws.cell(r, col + k), f"={book.refs[f'000.{t}.{size}.{m}.pub']}",
                          "0.000000" if k == 2 else "0.000")
        pts[t] = (col, r0, r0 + len(sizes) - 1)
        col += 3
    data_end = top + 3 + max(max(len(v) for v in CURVE_SIZES.values()),
                             max(r1 - r0 + 1 for _, r0, r1 in pts.values()))
    for k, (ytitle, anchor) in enumerate((("MB/s", f"A{data_end + 2}"),
                                          ("CP CPU-s per MB", f"K{data_end + 2}"))):
        ch = ScatterChart()
        ch.title = "000: data rate" if k == 0 else "000: CP CPU per MB"
        ch.scatterStyle = "lineMarker"
        ch.height, ch.width = 9, 17
        _axes(ch, "transfer size or MTU [bytes, log scale]", ytitle + " [log scale]",
              log_x=True, log_y=True)
        ch.x_axis.number_format = "#,##0"
        ch.y_axis.number_format = "General"
        for t in ("CMS_IUCV", "IUCV", "VCTC"):
            c, r0, r1 = blocks[t]
            x = Reference(ws, min_col=c, min_row=r0, max_row=r1)
            y = Reference(ws, min_col=c + 1 + k, min_row=r0, max_row=r1)
            ser = Series(y, x, title=f"{LABEL[t]} (zvmplan)")
            ser.marker.symbol = "none"
            ser.smooth = False
            ser.graphicalProperties.line.solidFill = COLOR[t]
            ser.graphicalProperties.line.width = 19050
            ch.series.append(ser)
        for t in ("CMS_IUCV", "IUCV", "VCTC"):
            c, r0, r1 = pts[t]
            x = Reference(ws, min_col=c, min_row=r0, max_row=r1)
            y = Reference(ws, min_col=c + 1 + k, min_row=r0, max_row=r1)
            ser = Series(y, x, title=f"{LABEL[t]} (published)")
            ser.marker.symbol = "circle"
            ser.marker.size = 6
            ser.marker.graphicalProperties = GraphicalProperties(solidFill=COLOR[t])
            ser.marker.graphicalProperties.line.solidFill = COLOR[t]
            ser.graphicalProperties.line.noFill = True
            ch.series.append(ser)
        ws.add_chart(ch, anchor)
    row = data_end + 2 + 20
    # ---- 003 Tables 20-25: ratio charts
    row = st.h2(ws, row, "003 Tables 20-25: ratio of z/VM 4.4.0 (Queued I/O Assist) to 4.3.0, "
                "four key metrics (below 1: the metric fell)")
    row = st.note(ws, row, "The source's pictures did not survive; these are redrawn from the "
                  "tables, for the device, workload and MTU each lost chart's note names.",
                  width_cols=20)
    for i, (table, t, w, mtu) in enumerate(QIOA_CHARTS):
        top = row + (i // 2) * 27
        col = 1 + (i % 2) * 12
        st.band(ws, top, col, col + 4, f"{table}: {DEVICE[t]} {w}, MTU {mtu}")
        st.header(ws, top + 1, col, "Metric", "")
        for k, c in enumerate(CONNS):
            st.header(ws, top + 1, col + 1 + k, f"{c} conn.", "4.4.0 / 4.3.0")
        for j, m in enumerate(METRICS_003):
            r = top + 3 + j
            st.label(ws.cell(r, col), METRIC_LABEL[m], bold=True)
            for k, c in enumerate(CONNS):
                new = book.refs[f"003.{t}.{w}.{mtu}.{c}.4.4.0.{m}"]
                old = book.refs[f"003.{t}.{w}.{mtu}.{c}.4.3.0.{m}"]
                st.output(ws.cell(r, col + 1 + k), f"={new}/{old}", "0.000")
        ch = BarChart()
        ch.type = "col"
        ch.grouping = "clustered"
        ch.title = f"{table}: {DEVICE[t]} {w}, MTU {mtu}"
        ch.height, ch.width = 7.5, 14
        _axes(ch, "metric", "ratio 4.4.0 / 4.3.0")
        cats = Reference(ws, min_col=col, min_row=top + 3, max_row=top + 6)
        for k, c in enumerate(CONNS):
            y = Reference(ws, min_col=col + 1 + k, min_row=top + 3, max_row=top + 6)
            ser = Series(y, title=f"{c} connection{'s' if c > 1 else ''}")
            ser.graphicalProperties.solidFill = CONN_COLOR[k]
            ser.graphicalProperties.line.solidFill = CONN_COLOR[k]
            ch.series.append(ser)
        ch.set_categories(cats)
        ch.y_axis.scaling.min = 0.5
        ch.y_axis.scaling.max = 1.3
        ch.y_axis.majorUnit = 0.1
        ch.y_axis.number_format = "0.0"
        ws.add_chart(ch, f"{L(col)}{top + 8}")
    return ws


# ================================================================= Plan =====
PLAN = "Plan"
PLAN_TOP = 15          # the heaviest links charted one by one; the rest summed as "all others"
PLAN_HEAD = 6          # header row of the heaviest-links table; units below; data from PLAN_HEAD + 2
PLAN_TOP_FIRST = PLAN_HEAD + 2
PLAN_OTHERS_ROW = PLAN_TOP_FIRST + PLAN_TOP       # "all others (N links)"
PLAN_NOTE_ROW = PLAN_OTHERS_ROW + 1               # how many links have no bar
PLAN_SCEN_HEAD = PLAN_NOTE_ROW + 5                # header row of the by-scenario table
PLAN_SCEN_FIRST = PLAN_SCEN_HEAD + 2
#: every link, one row per Planner row in the Planner's order, with its rank by total CPU
#: (the heaviest table and the chart are read from it); the sheet's last rows, so
#: ``zvmplan fill`` grows it with the Planner (:mod:`zvmplan_workbook.rows`)
PLAN_EVERY_HEAD = PLAN_SCEN_FIRST + 17
PLAN_EVERY_FIRST = PLAN_EVERY_HEAD + 2
PLAN_COLORS = {"cp": "2E75B6", "v": "9DC3E6", "tot": "C55A11", "lpar": "C00000"}
#: columns of the by-link tables: link, CP CPU, virtual CPU, total CPU of a total-only
#: link, total CPU; and the rank in the every-link table
PLAN_COLS = ("A", "B", "C", "D", "E")
PLAN_RANK = "F"
#: the printed Plan: the tables and the charts beside them (16 cm, to about column Q),
#: a page for the links, one for the scenarios, then every link
PLAN_PRINT_PAGES = [("A", "Q")]
PLAN_ROW_BREAKS = (PLAN_SCEN_HEAD - 2, PLAN_EVERY_HEAD - 2)


def _text_categories(chart, ws, col: int, first: int, last: int):
    """Categories that are text (link and scenario names): a string reference, which
    every spreadsheet program shows as the names (openpyxl's default is a number one)."""
    ref = f"{quote(ws.title)}!${L(col)}${first}:${L(col)}${last}"
    for ser in chart.series:
        ser.cat = AxDataSource(strRef=StrRef(f=ref))


def plan_link_row(r: int, last: int) -> dict[str, tuple[str, str]]:
    """The every-link table's row ``r`` on the Plan sheet (the Planner's row
    ``FIRST_ROW + r - PLAN_EVERY_FIRST``), in a table ending at row ``last``: column ->
    (formula, number format). A link
    outside the Planner's totals (In totals = no) has no numbers and no rank; an error in
    In totals (e.g. #NAME?: the zvmplan functions are missing) is passed on, never a
    plausible rank. Ties rank in the Planner's order."""
    from . import planner as P
    pr = P.FIRST_ROW + r - PLAN_EVERY_FIRST
    stat = f"{P.PLANNER}!${P.STATUS_COL}${pr}"
    key, rank = f"$E{r}", f"${PLAN_RANK}{r}"
    keys = f"$E${PLAN_EVERY_FIRST}:$E${last}"
    # in a plan that is not normalised, each name says whose engines its figures are
    on = f"{P.PLANNER}!${P.ON_COL}${P.TOTAL_ROW}"
    out = {"A": (f'=IF({P.PLANNER}!$B{pr}="","",{P.PLANNER}!$A{pr}&IF({on}='
                 f'{s(P.NOT_NORMALISED)}," ["&{P.PLANNER}!${P.ON_COL}${pr}&"]",""))', "General")}
    for col, src, want in (("B", "M", "yes"), ("C", "N", "yes"), ("D", "O", "total only")):
        out[col] = (f'=IF({stat}="{want}",{P.PLANNER}!${src}${pr},"")', "0.000")
    out["E"] = (f'=IF(OR({stat}="yes",{stat}="total only"),{P.PLANNER}!$O${pr},'
                f'IF(ISERROR({stat}),{stat},""))', "0.000")
    out[PLAN_RANK] = (f'=IF(ISNUMBER({key}),RANK({key},{keys},0)+COUNTIF($E${PLAN_EVERY_FIRST}:'
                      f'{key},{key})-1,IF(ISERROR({key}),{key},""))', "0")
    return out


def plan_top(last: int) -> dict[str, tuple[str, str]]:
    """The heaviest-links table (rank 1 .. :data:`PLAN_TOP`), the "all others" row and the
    note under them, for an every-link table ending at row ``last``: cell -> (formula,
    number format). An error in a rank (the functions missing) shows in every row."""
    from . import planner as P
    ranks = f"${PLAN_RANK}${PLAN_EVERY_FIRST}:${PLAN_RANK}${last}"
    guard = f"SUM({ranks})"
    ranked = f"COUNT({ranks})"
    out = {}
    for k in range(1, PLAN_TOP + 1):
        r = PLAN_TOP_FIRST + k - 1
        at = f"MATCH({k},{ranks},0)"
        for col in PLAN_COLS:
            rng = f"${col}${PLAN_EVERY_FIRST}:${col}${last}"
            out[f"{col}{r}"] = (f'=IF(ISERROR({guard}),{guard},IF({k}>{ranked},"",'
                                f'INDEX({rng},{at})))', "General" if col == "A" else "0.000")
    r = PLAN_OTHERS_ROW
    on = f"{P.PLANNER}!${P.ON_COL}${P.TOTAL_ROW}"
    out[f"A{r}"] = (f'=IF(ISERROR({guard}),{guard},IF({ranked}>{PLAN_TOP},"all others ("&'
                    f'({ranked}-{PLAN_TOP})&" links)"&IF({on}={s(P.NOT_NORMALISED)},'
                    f'" [NOT NORMALISED]",""),""))', "General")
    for col in PLAN_COLS[1:]:
        rng = f"${col}${PLAN_EVERY_FIRST}:${col}${last}"
        out[f"{col}{r}"] = (f'=IF(ISERROR({guard}),{guard},IF({ranked}>{PLAN_TOP},'
                            f'SUMIF({ranks},">{PLAN_TOP}",{rng}),""))', "0.000")
    p_last = P.FIRST_ROW + last - PLAN_EVERY_FIRST
    st_rng = f"{P.PLANNER}!${P.STATUS_COL}${P.FIRST_ROW}:${P.STATUS_COL}${p_last}"
    out[f"A{PLAN_NOTE_ROW}"] = (
        f'=IF(ISERROR({guard}),{guard},{ranked}&" links in the totals, heaviest first"&'
        f'IF(COUNTIF({st_rng},"no")>0,"; "&COUNTIF({st_rng},"no")&" link(s) with no answer '
        f'are left out (In totals = no on the Planner)","")&".")', "General")
    return out


def sheet_plan(book: Book):
    """The plan itself in two charts: CPU by link for the :data:`PLAN_TOP` heaviest links
    (CP and virtual stacked; total CPU for a link whose source gives only that) and the
    others summed, and total CPU by scenario against the LPAR's engines. The tables beside
    them are live references to the Planner and Scenarios; every link is listed, ranked,
    at the bottom of the sheet."""
    from . import planner as P
    ws = book.wb.create_sheet(PLAN)
    st.widths(ws, {"A": 40, "B": 11, "C": 11, "D": 11, "E": 11, PLAN_RANK: 9, "G": 2})
    ws.sheet_view.zoomScale = 90
    st.title(ws, "Plan - CPU by link and by scenario, against the LPAR's engines",
             f"By link: the {PLAN_TOP} links with the most total CPU, heaviest first, and the "
             "others summed; every link of the Planner is listed, ranked, at the bottom. By "
             "scenario: each named Scenarios block's total CPU beside the LPAR's engines on the "
             "Planner; a bar above the line needs more than the LPAR has. A name says so when "
             "its total is not normalised (it adds engines of different processors: no "
             "capacity of any one machine, so not comparable with the line), when links stay "
             "on their own transport, and when it counts fewer links than the Planner; in a "
             "plan not on one machine each link's name gives its processor in [ ].",
             width_cols=6)
    st.warning(ws, P.WARN_CELL, P.warning_formula(), 6)
    ws.row_dimensions[2].height = 75
    eng = f"{P.PLANNER}!${P.ENGINES_CELL[0]}${P.ENGINES_CELL[1:]}"
    link_heads = (("Link", ""), ("CP CPU", "engines"), ("Virtual CPU", "engines"),
                  ("Total CPU, total only", "engines"), ("Total CPU", "engines"))
    # ---- the heaviest links
    st.h2(ws, PLAN_HEAD - 1, f"CPU by link: the {PLAN_TOP} heaviest")
    for k, (h, u) in enumerate(link_heads):
        st.header(ws, PLAN_HEAD, 1 + k, h, u)
    ws.row_dimensions[PLAN_HEAD].height = 45
    ev_last = PLAN_EVERY_FIRST + P.N_ROWS - 1
    for ref, (f, fmt) in plan_top(ev_last).items():
        st.output(ws[ref], f, fmt)
    for col in PLAN_COLS:
        ws[f"{col}{PLAN_OTHERS_ROW}"].font = st.Font(italic=True)
    note = ws[f"A{PLAN_NOTE_ROW}"]
    note.fill, note.border, note.font = st.PatternFill(), st.Border(), st.NOTE_FONT
    ch = BarChart()
    ch.type = "bar"
    ch.grouping = "stacked"
    ch.overlap = 100
    ch.gapWidth = 60
    ch.title = (f"CPU by link: the {PLAN_TOP} heaviest, then all others (engines of the "
                "machine in [ ] if not all on one)")
    ch.height, ch.width = 11.5, 16
    _axes(ch, None, "engines (CPU-seconds per second)")
    ch.x_axis.scaling.orientation = "maxMin"   # the heaviest link at the top
    ch.x_axis.tickLblSkip = 1                  # a label for every bar
    for k, (key, title) in enumerate((("cp", "CP CPU"), ("v", "Virtual CPU"),
                                      ("tot", "Total CPU (source gives total only)"))):
        ser = Series(Reference(ws, min_col=2 + k, min_row=PLAN_TOP_FIRST,
                               max_row=PLAN_OTHERS_ROW), title=title)
        ser.graphicalProperties.solidFill = PLAN_COLORS[key]
        ser.graphicalProperties.line.solidFill = PLAN_COLORS[key]
        ch.series.append(ser)
    _text_categories(ch, ws, 1, PLAN_TOP_FIRST, PLAN_OTHERS_ROW)
    ws.add_chart(ch, f"H{PLAN_HEAD - 1}")
    # ---- by scenario
    st.h2(ws, PLAN_SCEN_HEAD - 1, "Total CPU by scenario")
    for k, (h, u) in enumerate((("Scenario", ""), ("Total CPU", "engines"),
                                ("LPAR engines", "engines"))):
        st.header(ws, PLAN_SCEN_HEAD, 1 + k, h, u)
    ws.row_dimensions[PLAN_SCEN_HEAD].height = 30
    first = PLAN_SCEN_FIRST
    for b in range(P.SCENARIO_BLOCKS):
        r = first + b
        name = f'{P.SCENARIOS}!{P.scenario_refs(b)["name"]}'
        ref = {k: book.refs[f"scenario.{b}.{k}"] for k in ("on", "kept", "counted")}
        counted = book.refs["planner.counted"]
        label = (f'{name}&IF({ref["on"]}={s(P.NOT_NORMALISED)}," (NOT NORMALISED)","")'
                 f'&IF(N({ref["kept"]})>0," ("&{ref["kept"]}&" on own transport)","")'
                 f'&IF(AND(ISNUMBER({ref["counted"]}),ISNUMBER({counted}),'
                 f'N({ref["counted"]})<N({counted}))," (counts "&{ref["counted"]}&" of "&'
                 f'{counted}&" links)","")')
        st.output(ws.cell(r, 1), f'=IF({name}="","",{label})')
        st.output(ws.cell(r, 2), f"={book.refs[f'scenario.{b}.total']}", "0.000")
        st.output(ws.cell(r, 3), f"={eng}", "0.0")
    s_last = first + P.SCENARIO_BLOCKS - 1
    bars = BarChart()
    bars.type = "col"
    bars.title = "Total CPU by scenario against the LPAR's engines (see each name)"
    bars.height, bars.width = 8.5, 16
    _axes(bars, None, "engines (CPU-seconds per second)")
    ser = Series(Reference(ws, min_col=2, min_row=first, max_row=s_last), title="Total CPU")
    ser.graphicalProperties.solidFill = PLAN_COLORS["cp"]
    bars.series.append(ser)
    _text_categories(bars, ws, 1, first, s_last)
    line = LineChart()
    ser = Series(Reference(ws, min_col=3, min_row=first, max_row=s_last), title="LPAR engines")
    ser.graphicalProperties.line.solidFill = PLAN_COLORS["lpar"]
    ser.graphicalProperties.line.width = 28575
    ser.marker.symbol = "none"
    line.series.append(ser)
    _text_categories(line, ws, 1, first, s_last)
    bars += line
    ws.add_chart(bars, f"H{PLAN_SCEN_HEAD - 1}")
    # ---- every link, in the Planner's order (the last rows: fill grows them)
    st.h2(ws, PLAN_EVERY_HEAD - 1, "Every link, in the Planner's order, with its rank by "
          "total CPU")
    for k, (h, u) in enumerate(link_heads + (("Rank by total CPU", ""),)):
        st.header(ws, PLAN_EVERY_HEAD, 1 + k, h, u)
    ws.row_dimensions[PLAN_EVERY_HEAD].height = 45
    for i in range(P.N_ROWS):
        r = PLAN_EVERY_FIRST + i
        for col, (f, fmt) in plan_link_row(r, ev_last).items():
            st.output(ws[f"{col}{r}"], f, fmt)
    st.protect(ws)
    return ws

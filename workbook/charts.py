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
PLAN_HEAD = 6          # header row of the by-link table; units below; data from PLAN_HEAD + 2
PLAN_COLORS = {"cp": "2E75B6", "v": "9DC3E6", "tot": "C55A11", "lpar": "C00000"}


def _text_categories(chart, ws, col: int, first: int, last: int):
    """Categories that are text (link and scenario names): a string reference, which
    every spreadsheet program shows as the names (openpyxl's default is a number one)."""
    ref = f"{quote(ws.title)}!${L(col)}${first}:${L(col)}${last}"
    for ser in chart.series:
        ser.cat = AxDataSource(strRef=StrRef(f=ref))


def sheet_plan(book: Book):
    """The plan itself in two charts: CPU by link (CP and virtual stacked; total CPU for a
    link whose source gives only that) and total CPU by scenario against the LPAR's
    engines. The tables beside them are live references to the Planner and Scenarios."""
    from . import planner as P
    ws = book.wb.create_sheet(PLAN)
    st.widths(ws, {"A": 30, "B": 11, "C": 11, "D": 11, "E": 3, "F": 40, "G": 12, "H": 12})
    ws.sheet_view.zoomScale = 90
    st.title(ws, "Plan - CPU by link and by scenario, against the LPAR's engines",
             f"By link: the Planner's first {P.N_ROWS} rows (a link left out of the totals "
             "has no bar). By scenario: each named Scenarios block's total CPU, beside the LPAR "
             "engines on the Planner; a bar above the line needs more than the LPAR has. A "
             "name says so when its total is not normalised (it adds engines of different "
             "processors: no capacity of any one machine, so not comparable with the line), "
             "when links stay on their own transport, and when it counts fewer links than "
             "the Planner.",
             width_cols=8)
    ws.row_dimensions[2].height = 50
    st.warning(ws, P.WARN_CELL, P.warning_formula(), 8)
    eng = f"{P.PLANNER}!${P.ENGINES_CELL[0]}${P.ENGINES_CELL[1:]}"
    # ---- by link
    for k, (h, u) in enumerate((("Link", ""), ("CP CPU", "engines"), ("Virtual CPU", "engines"),
                                ("Total CPU, total only", "engines"))):
        st.header(ws, PLAN_HEAD, 1 + k, h, u)
    first = PLAN_HEAD + 2
    for i in range(P.N_ROWS):
        r, pr = first + i, P.FIRST_ROW + i
        stat = f"{P.PLANNER}!${P.STATUS_COL}${pr}"
        # in a plan that is not normalised, each name says whose engines its bar is
        on = book.refs["planner.total_on"]
        st.output(ws.cell(r, 1), f'=IF({P.PLANNER}!$B{pr}="","",{P.PLANNER}!$A{pr}&'
                  f'IF({on}={s(P.NOT_NORMALISED)}," ["&{P.PLANNER}!${P.ON_COL}${pr}&"]",""))')
        for k, col, want in ((2, "M", "yes"), (3, "N", "yes"), (4, "O", "total only")):
            st.output(ws.cell(r, k), f'=IF({stat}="{want}",{P.PLANNER}!${col}${pr},"")',
                      "0.000")
    last = first + P.N_ROWS - 1
    ch = BarChart()
    ch.type = "bar"
    ch.grouping = "stacked"
    ch.overlap = 100
    ch.title = "CPU by link (engines of the machine in [ ] if not all on one)"
    ch.height, ch.width = 11, 18
    _axes(ch, "link", "engines (CPU-seconds per second)")
    ch.x_axis.scaling.orientation = "maxMin"   # first link at the top
    for k, (key, title) in enumerate((("cp", "CP CPU"), ("v", "Virtual CPU"),
                                      ("tot", "Total CPU (source gives total only)"))):
        ser = Series(Reference(ws, min_col=2 + k, min_row=first, max_row=last), title=title)
        ser.graphicalProperties.solidFill = PLAN_COLORS[key]
        ser.graphicalProperties.line.solidFill = PLAN_COLORS[key]
        ch.series.append(ser)
    _text_categories(ch, ws, 1, first, last)
    ws.add_chart(ch, f"J{PLAN_HEAD}")
    # ---- by scenario
    for k, (h, u) in enumerate((("Scenario", ""), ("Total CPU", "engines"),
                                ("LPAR engines", "engines"))):
        st.header(ws, PLAN_HEAD, 6 + k, h, u)
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
        st.output(ws.cell(r, 6), f'=IF({name}="","",{label})')
        st.output(ws.cell(r, 7), f"={book.refs[f'scenario.{b}.total']}", "0.000")
        st.output(ws.cell(r, 8), f"={eng}", "0.0")
    s_last = first + P.SCENARIO_BLOCKS - 1
    bars = BarChart()
    bars.type = "col"
    bars.title = "Total CPU by scenario against the LPAR's engines (see each name)"
    bars.height, bars.width = 9, 18
    _axes(bars, "scenario", "engines (CPU-seconds per second)")
    ser = Series(Reference(ws, min_col=7, min_row=first, max_row=s_last), title="Total CPU")
    ser.graphicalProperties.solidFill = PLAN_COLORS["cp"]
    bars.series.append(ser)
    _text_categories(bars, ws, 6, first, s_last)
    line = LineChart()
    ser = Series(Reference(ws, min_col=8, min_row=first, max_row=s_last), title="LPAR engines")
    ser.graphicalProperties.line.solidFill = PLAN_COLORS["lpar"]
    ser.graphicalProperties.line.width = 28575
    ser.marker.symbol = "none"
    line.series.append(ser)
    _text_categories(line, ws, 6, first, s_last)
    bars += line
    ws.add_chart(bars, f"J{PLAN_HEAD + 24}")
    st.protect(ws)
    return ws

"""One sheet per source document (000 .. 004): each published table laid out as printed,
the published numbers as constants read from :mod:`zvmplan.data` (never typed here),
beside them live zvmplan formulas and the difference.

Layout of every table: the leading label columns as in the source, then three blocks of
the same columns -- *Published* (grey constants), *zvmplan* (green live formulas) and
*Published - zvmplan* (red where the difference exceeds the rounding of the printed
numbers). Derived figures (fractions, deltas, averages, t-tests) are Excel formulas over
the live cells, never constants.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from openpyxl.utils import get_column_letter as L

from zvmplan import api
from zvmplan.data import Record, find, headers, one

from . import styles as st
from .book import Book, Check, quote

# zvmplan metric -> worksheet function
PER_MB_FN = {"mb_per_sec": "MB_PER_SEC", "mb_per_cpusec": "MB_PER_CPUSEC",
             "cpusec_per_sec": "CPUSEC_PER_SEC", "cp_cpusec_per_mb": "CPCPU_PER_MB",
             "v_cpusec_per_mb": "VCPU_PER_MB", "tot_cpusec_per_mb": "TOTCPU_PER_MB",
             "pct_cp": "PCT_CP"}
PER_TX_FN = {"tx_per_sec": "TX_PER_SEC", "v_cpumsec_per_tx": "VCPU_PER_TX",
             "cp_cpumsec_per_tx": "CPCPU_PER_TX", "tot_cpumsec_per_tx": "TOTCPU_PER_TX"}
LEGEND = ("Grey: the number as printed in the source (from zvmplan's data files). Green: "
          "zvmplan's live worksheet function, or an Excel formula over live cells for derived "
          "figures. Last block: published minus zvmplan, shaded red where it exceeds half a unit "
          "in the last printed digit (plus the rounding carried by a derived figure's inputs).")


# ----------------------------------------------------------------- helpers ----
def doc_title(prefix: str) -> str:
    """'z/VM 3.1.0 Performance Report, "Linux Guest IUCV Driver"' for '000'."""
    for h in headers().values():
        if h["document"].startswith(prefix):
            doc = h["document"]
            return doc[doc.index("(") + 1:doc.rindex(")")] if "(" in doc else doc
    raise KeyError(prefix)


def doc_header(prefix: str, key: str) -> str:
    for name, h in headers().items():
        if name.startswith(prefix):
            return h[key]
    raise KeyError(prefix)


def table_header(file_prefix: str, key: str = "table") -> str:
    for name, h in headers().items():
        if name.startswith(file_prefix):
            return h[key]
    raise KeyError(file_prefix)


def s(text: str) -> str:
    """An Excel string literal."""
    return '"' + text.replace('"', '""') + '"'


def ratio_tol(a: float, ta: float, b: float, tb: float) -> float:
    """Rounding carried by b / a when a and b are each known to +/- ta, tb."""
    return tb / abs(a) + abs(b) * ta / (a * a)


def pct_tol(a, ta, b, tb) -> float:
    """Rounding carried by 100 (b / a - 1)."""
    return 100 * ratio_tol(a, ta, b, tb)


@dataclass
class Live:
    formula: str | None      # None: zvmplan has no live counterpart for this number
    tol: float = 0.0         # rounding carried by the live value's own inputs
    expect: str = ""         # non-empty: not reproduced, and why (said on the sheet)
    value: float = math.nan  # the value the formula should give (for tolerances downstream)


@dataclass
class Col:
    key: str
    label: str
    unit: str


@dataclass
class Row:
    key: object
    lead: list
    pubs: dict            # col key -> Record (or None)


class Grid:
    """Cell positions of one laid-out table."""

    def __init__(self, ws, top: int, nlead: int, cols: list[Col], rows: list[Row]):
        self.ws, self.top, self.nlead, self.cols, self.rows = ws, top, nlead, cols, rows
        self.first = top + 3
        self._row = {r.key: self.first + i for i, r in enumerate(rows)}
        self._col = {c.key: i for i, c in enumerate(cols)}

    def _cell(self, block: int, rkey, ckey) -> str:
        col = self.nlead + 1 + block * len(self.cols) + self._col[ckey]
        return f"{L(col)}{self._row[rkey]}"

    def pub(self, rkey, ckey) -> str:
        return self._cell(0, rkey, ckey)

    def live(self, rkey, ckey) -> str:
        return self._cell(1, rkey, ckey)

    def diff(self, rkey, ckey) -> str:
        return self._cell(2, rkey, ckey)

    notes: int = 0  # rows of notes written under the table (expected differences)

    @property
    def end(self) -> int:
        return self.first + len(self.rows) + self.notes


def grid(book: Book, ws, top: int, lead_headers: list[tuple[str, str]], cols: list[Col],
         rows: list[Row], live: Callable[["Grid", Row, Col, Record], Live],
         source: str, fmt: Callable[[Record], str] | None = None) -> Grid:
    """Write one published table with its live and difference blocks."""
    g = Grid(ws, top, len(lead_headers), cols, rows)
    n, c0 = len(cols), len(lead_headers) + 1
    st.band(ws, top, 1, len(lead_headers), "")
    st.band(ws, top, c0, c0 + n - 1, f"Published ({source})")
    st.band(ws, top, c0 + n, c0 + 2 * n - 1, "zvmplan (live)")
    st.band(ws, top, c0 + 2 * n, c0 + 3 * n - 1, "Published - zvmplan")
    for i, (text, unit) in enumerate(lead_headers):
        st.header(ws, top + 1, i + 1, text, unit)
    for b in range(3):
        for j, col in enumerate(cols):
            st.header(ws, top + 1, c0 + b * n + j, col.label, col.unit)
    longest = max(len(str(c.label)) for c in cols + [Col("", h, "") for h, _ in lead_headers])
    ws.row_dimensions[top + 1].height = 15 * min(4, 1 + longest // 10)
    bad: dict[float, list[str]] = {}
    expected: list[tuple[str, str]] = []
    for r in rows:
        rr = g._row[r.key]
        for i, v in enumerate(r.lead):
            st.label(ws.cell(rr, i + 1), v, bold=(i == 0 and v not in ("", None)))
        for col in cols:
            rec = r.pubs.get(col.key)
            pc, lc, dc = g.pub(r.key, col.key), g.live(r.key, col.key), g.diff(r.key, col.key)
            for ref in (pc, lc, dc):
                ws[ref].border = st.BOX
            if rec is None:
                continue
            nf = fmt(rec) if fmt else st.number_format(rec.text)
            st.published(ws[pc], rec.value, nf)
            lv = live(g, r, col, rec)
            if lv is None or lv.formula is None:
                ws[lc] = "-"
                ws[lc].alignment = st.CENTER
                continue
            st.output(ws[lc], lv.formula, nf)
            st.output(ws[dc], f"={pc}-{lc}", st.diff_format(rec.text))
            tol = rec.half_ulp + lv.tol
            expect = lv.expect
            if not expect and not math.isnan(lv.value) and abs(lv.value - rec.value) > tol:
                expect = (f"printed {rec.text}; from the printed inputs it is {lv.value:.6g}: the "
                          "source computed it from unrounded readings")
            bad.setdefault(round(tol, 12), []).append(dc)
            book.checks.append(Check(ws.title, pc, lc, tol, rec.ref, expect))
            if expect:
                expected.append((dc, expect))
    st.flag_outside(ws, bad)
    for dc, why in expected:
        st.note(ws, g.end, f"Expected difference in {dc} (not reproduced): {why}.",
                width_cols=len(lead_headers) + 3 * n)
        g.notes += 1
    return g


def home(**where) -> Record:
    """The measured record the model returns for a configuration."""
    found = find(stat="value", role="measured", **where)
    if len(found) != 1:
        raise LookupError(f"expected one measured record for {where}, found {len(found)}")
    return found[0]


def setup(ws, widths: dict[str, float]):
    st.widths(ws, widths)
    ws.sheet_view.zoomScale = 90


def _widths(nlead: int, ncols: int, lead_w: float = 14, w: float = 11) -> dict[str, float]:
    out = {L(i + 1): lead_w for i in range(nlead)}
    out.update({L(nlead + 1 + i): w for i in range(3 * ncols)})
    return out


# ===================================================================== 000 ====
STREAM_TABLES = (("Table 1", "CMS_IUCV", "000_T1"), ("Table 2", "IUCV", "000_T2"),
                 ("Table 3", "VCTC", "000_T3"))


def sheet_000(book: Book):
    ws = book.wb.create_sheet("000")
    setup(ws, _widths(1, 6, 16, 11))
    row = st.title(ws, f"000 - {doc_title('000')}",
                   f"z/VM level {doc_header('000_T1', 'z/VM level')}. Measured: "
                   f"{doc_header('000_T1', 'configuration')}.", width_cols=16)
    row = st.note(ws, row - 1, LEGEND, width_cols=16)
    row += 1
    for table, transport, prefix in STREAM_TABLES:
        recs = find(document="000", table=table)
        row = st.h2(ws, row, table_header(prefix))
        row = st.note(ws, row, "Workload: " + table_header(prefix, "workload"), width_cols=16)
        cols, order = [], []
        for r in recs:
            if r.metric not in order:
                order.append(r.metric)
                cols.append(Col(r.metric, r.column, r.unit))
        sizes = sorted({r.size_bytes for r in recs})
        lead_label = recs[0].row.rsplit(" ", 1)[0]  # 'Transfer Size (bytes)' / 'MTU Size (bytes)'
        rows = [Row(sz, [sz], {r.metric: r for r in recs if r.size_bytes == sz}) for sz in sizes]

        def live(g, r, col, rec, transport=transport):
            fn = PER_MB_FN[col.key]
            return Live(f"={fn}({s(transport)},$A{g._row[r.key]})")
        g = grid(book, ws, row, [(lead_label.replace(" (bytes)", ""), "bytes")], cols, rows, live,
                 f"000 {table}")
        for r in rows:
            for col in cols:
                book.refs[f"000.{transport}.{r.key}.{col.key}.live"] = \
                    f"'000'!{_abs(g.live(r.key, col.key))}"
                book.refs[f"000.{transport}.{r.key}.{col.key}.pub"] = \
                    f"'000'!{_abs(g.pub(r.key, col.key))}"
        row = g.end + 1
    row = _comparisons_000(book, ws, row)
    ws.freeze_panes = "B4"
    return ws


def _comparisons_000(book: Book, ws, row: int) -> int:
    """Tables 4-6: values and their fractions, the fractions as formulas over live cells."""
    specs = (("Table 4", "000_T4", "mb_per_cpusec"), ("Table 5", "000_T5", "cp_cpusec_per_mb"),
             ("Table 6", "000_T6", "v_cpusec_per_mb"))
    for table, prefix, metric in specs:
        recs = find(document="000", table=table)
        row = st.h2(ws, row, table_header(prefix))
        row = st.note(ws, row, "In parentheses: fraction of the CMS/IUCV value in the same row; "
                      "in brackets: fraction of the Linux/IUCV value (as in the source). The "
                      "zvmplan fractions are Excel formulas over the live cells beside them.",
                      width_cols=16)
        colnames = []
        for r in recs:
            if r.column not in colnames:
                colnames.append(r.column)
        keys = {"CMS/IUCV": "cms", "Linux/IUCV": "iucv", "Linux/CTC": "ctc",
                "Linux/IUCV (fraction of CMS/IUCV)": "iucv/cms",
                "Linux/CTC (fraction of CMS/IUCV)": "ctc/cms",
                "Linux/CTC [fraction of Linux/IUCV]": "ctc/iucv"}
        order = ["cms", "iucv", "iucv/cms", "ctc", "ctc/cms", "ctc/iucv"]
        bykey = {keys[c]: c for c in colnames}
        cols = [Col(k, bykey[k].replace(" (fraction of CMS/IUCV)", " (/CMS)")
                    .replace(" [fraction of Linux/IUCV]", " [/Linux IUCV]"),
                    "ratio" if "/" in k else recs[0].unit if k == "cms" else
                    next(r.unit for r in recs if r.column == bykey[k])) for k in order]
        mtus = sorted({r.size_bytes for r in recs})
        rows = [Row(m, [m], {keys[r.column]: r for r in recs if r.size_bytes == m}) for m in mtus]
        tname = {"cms": "CMS_IUCV", "iucv": "IUCV", "ctc": "VCTC"}

        def live(g, r, col, rec, metric=metric):
            rr = g._row[r.key]
            if col.key in tname:
                t = tname[col.key]
                h = home(document="000", transport=t, size_bytes=r.key, metric=metric)
                return Live(f"={PER_MB_FN[metric]}({s(t)},$A{rr})",
                            0.0 if h == rec else h.half_ulp, value=h.value)
            num, den = col.key.split("/")
            hn = home(document="000", transport=tname[num], size_bytes=r.key, metric=metric)
            hd = home(document="000", transport=tname[den], size_bytes=r.key, metric=metric)
            return Live(f"={g.live(r.key, num)}/{g.live(r.key, den)}",
                        ratio_tol(hd.value, hd.half_ulp, hn.value, hn.half_ulp),
                        value=hn.value / hd.value)
        g = grid(book, ws, row, [("MTU Size", "bytes")], cols, rows, live, f"000 {table}")
        for r in rows:
            for k in order:
                book.refs[f"000.{table}.{r.key}.{k}"] = f"'000'!{_abs(g.live(r.key, k))}"
        row = g.end + 1
    return row


def _abs(cell: str) -> str:
    col = "".join(ch for ch in cell if ch.isalpha())
    return f"${col}${cell[len(col):]}"


# ===================================================================== 001 ====
def sheet_001(book: Book):
    ws = book.wb.create_sheet("001")
    setup(ws, {"A": 42, **{L(i): 10.5 for i in range(2, 32)}})
    row = st.title(ws, f"001 - {doc_title('001')}",
                   f"Measured: {doc_header('001_T1', 'configuration')}.", width_cols=16)
    row = st.note(ws, row - 1, LEGEND + " N/mean/sd as printed (samples / mean / standard "
                  "deviation); zvmplan gives the per-run means (per-MB figure x "
                  f"{api.FTP_MB_PER_RUN:g} MB per run); r, cl and the % change are recomputed "
                  "with Excel formulas.", width_cols=16)
    row += 1
    for table, transport, prefix in (("Table 1", "LCS", "001_T1"),
                                     ("Table 2", "ESCON_CTC", "001_T2")):
        row = _table_001(book, ws, row, table, transport, prefix)
    ws.freeze_panes = "B4"
    return ws


def _table_001(book: Book, ws, row: int, table: str, transport: str, prefix: str) -> int:
    recs = find(document="001", table=table)
    row = st.h2(ws, row, table_header(prefix))
    row = st.note(ws, row, "Workload: " + table_header(prefix, "workload"), width_cols=16)
    quantities = []
    for r in recs:
        if r.row not in quantities:
            quantities.append(r.row)
    cols = [Col("Disabled.n", "Disabled N", "samples"), Col("Disabled.mean", "Disabled mean", ""),
            Col("Disabled.sd", "Disabled sd", ""), Col("Disabled.r", "Disabled r", "flag"),
            Col("Enabled.n", "Enabled N", "samples"), Col("Enabled.mean", "Enabled mean", ""),
            Col("Enabled.sd", "Enabled sd", ""), Col("Enabled.r", "Enabled r", "flag"),
            Col("Change.cl", "cl", "%"), Col("Change.delta_pct", "delta", "%")]
    units = {q: next(r.unit for r in recs if r.row == q and r.stat == "mean") for q in quantities}
    rows = [Row(q, [f"{q} [{units[q]}]"],
                {f"{r.column}.{r.stat}": r for r in recs if r.row == q}) for q in quantities]
    mb = api.FTP_MB_PER_RUN
    fn = {"cp_cpusec": "CPCPU_PER_MB", "tot_cpusec": "TOTCPU_PER_MB"}
    level = {"Disabled": "3.1.0", "Enabled": "4.1.0"}
    # the t-test / interval block sits below the table; its cells are known in advance
    stats_top = row + 3 + len(rows) + 3

    def metric_of(q):
        return next(r.metric for r in recs if r.row == q)

    def rec(q, col, stat):
        return one(document="001", table=table, row=q, column=col, stat=stat)

    stat_rows = {q: i for i, q in enumerate(q for q in quantities if metric_of(q) != "cp_cpusec_per_io")}

    def live(g, r, col, pub):
        side, stat = col.key.split(".")
        m = metric_of(r.key)
        srow = stats_top + 3 + stat_rows.get(r.key, 0) * 2 + (side == "Enabled")
        if stat == "mean":
            if m in fn:
                return Live(f"={fn[m]}({s(transport)},{api.FTP_MTU},{s(level[side])})*{mb:g}")
            if m == "cp_cpusec_per_io":
                cp = next(q for q in quantities if metric_of(q) == "cp_cpusec")
                io = next(q for q in quantities if metric_of(q) == "io_count")
                c, i = rec(cp, side, "mean"), rec(io, side, "mean")
                return Live(f"={g.live(cp, col.key)}/{g.pub(io, col.key)}",
                            ratio_tol(i.value, i.half_ulp, c.value, 0.0))
            return Live(None)
        if stat == "r":
            return Live(f"=IF(AND(I{srow}>=0.95*C{srow},J{srow}<=1.05*C{srow}),1,0)")
        if stat == "cl":
            trow = stats_top + 3 + stat_rows[r.key] * 2
            return Live(f"=O{trow}")
        if stat == "delta_pct":
            dis, ena = rec(r.key, "Disabled", "mean"), rec(r.key, "Enabled", "mean")
            if m == "cp_cpusec_per_io" or m in fn:
                a, b = g.live(r.key, "Disabled.mean"), g.live(r.key, "Enabled.mean")
                if m == "cp_cpusec_per_io":
                    cp = next(q for q in quantities if metric_of(q) == "cp_cpusec")
                    io = next(q for q in quantities if metric_of(q) == "io_count")
                    cd, ce = rec(cp, "Disabled", "mean"), rec(cp, "Enabled", "mean")
                    idd, ie = rec(io, "Disabled", "mean"), rec(io, "Enabled", "mean")
                    # (ce/ie)/(cd/id): relative errors add
                    rel = (cd.half_ulp / cd.value + ce.half_ulp / ce.value
                           + idd.half_ulp / idd.value + ie.half_ulp / ie.value)
                    tol = 100 * (ce.value / ie.value) / (cd.value / idd.value) * rel
                else:
                    tol = pct_tol(dis.value, dis.half_ulp, ena.value, ena.half_ulp)
            else:  # I/O count: over the published means (not modelled)
                a, b = g.pub(r.key, "Disabled.mean"), g.pub(r.key, "Enabled.mean")
                tol = pct_tol(dis.value, dis.half_ulp, ena.value, ena.half_ulp)
            return Live(f"=({b}/{a}-1)*100", tol)
        return Live(None)

    def fmt(rec):
        return st.number_format(rec.text)
    g = grid(book, ws, row, [("Quantity", "")], cols, rows, live, f"001 {table}", fmt)
    for q in quantities:
        for side in ("Disabled", "Enabled"):
            book.refs[f"001.{transport}.{metric_of(q)}.{side}.mean.pub"] = \
                f"'001'!{_abs(g.pub(q, side + '.mean'))}"
            book.refs[f"001.{transport}.{metric_of(q)}.{side}.mean.live"] = \
                f"'001'!{_abs(g.live(q, side + '.mean'))}"
        book.refs[f"001.{transport}.{metric_of(q)}.delta_pct.live"] = \
            f"'001'!{_abs(g.live(q, 'Change.delta_pct'))}"
        if any(r.stat == "cl" for r in recs if r.row == q):
            book.refs[f"001.{transport}.{metric_of(q)}.cl.live"] = \
                f"'001'!{_abs(g.live(q, 'Change.cl'))}"
    row = g.end + 1
    row = st.note(ws, row, "The source computed its % changes from unrounded means; from the "
                  "printed means they differ slightly, within the rounding of those means. I/O "
                  "counts are not modelled by zvmplan, so their % change is recomputed from the "
                  "printed means. cl is read as the highest of 90/95/99% at which a two-tailed "
                  "t-test separates the means (0: not significant).", width_cols=16)
    assert row == stats_top - 1, (row, stats_top)
    return _stats_001(book, ws, stats_top, table, transport, g, quantities, metric_of, fn,
                      level, rows)


def _stats_001(book, ws, top, table, transport, g, quantities, metric_of, fn, level, rows):
    """95% intervals (Excel's CONFIDENCE.T and zvmplan's ZVM_CI) and the two-sample t-test."""
    heads = [("Quantity", ""), ("N", "samples"), ("mean", ""), ("sd", ""),
             ("t(0.975, N-1)", ""), ("half-width", "t sd / sqrt N"),
             ("CONFIDENCE.T", "half-width"), ("difference", ""), ("low", "95% CI"),
             ("high", "95% CI"), ("half-width / mean", "%"), ("r", "flag"), ("t", "two-sample"),
             ("df", "N1+N2-2"), ("cl", "%"), ("ZVM_CI low", "per run"),
             ("ZVM_CI high", "per run")]
    st.band(ws, top, 1, len(heads), f"{table}: 95% confidence intervals on the means and the "
            "t-test behind r and cl (Excel formulas over the published N / mean / sd)")
    for i, (h, u) in enumerate(heads):
        st.header(ws, top + 1, i + 1, h, u)
    ws.row_dimensions[top + 1].height = 30
    r = top + 3
    rels = []
    for q in (q for q in quantities if metric_of(q) != "cp_cpusec_per_io"):
        m = metric_of(q)
        for side in ("Disabled", "Enabled"):
            rr = r
            mean = one(document="001", table=table, row=q, column=side, stat="mean").value
            nf = "#,##0.0" if mean >= 1000 else "0.0000"
            st.label(ws.cell(rr, 1), f"{q}, {side.lower()}")
            for col, stat in ((2, "n"), (3, "mean"), (4, "sd")):
                st.output(ws.cell(rr, col), f"={g.pub(q, side + '.' + stat)}")
            st.output(ws.cell(rr, 5), f"=_xlfn.T.INV.2T(0.05,B{rr}-1)", "0.0000")
            st.output(ws.cell(rr, 6), f"=E{rr}*D{rr}/SQRT(B{rr})", nf)
            st.output(ws.cell(rr, 7), f"=_xlfn.CONFIDENCE.T(0.05,D{rr},B{rr})", nf)
            st.output(ws.cell(rr, 8), f"=F{rr}-G{rr}", "0.0E+00")
            book.checks.append(Check(ws.title, f"F{rr}", f"G{rr}", 1e-9 * mean,
                                     f"001 {table}, {q}, {side}: T.INV.2T and CONFIDENCE.T "
                                     "half-widths agree"))
            st.output(ws.cell(rr, 9), f"=C{rr}-F{rr}", nf)
            st.output(ws.cell(rr, 10), f"=C{rr}+F{rr}", nf)
            st.output(ws.cell(rr, 11), f"=F{rr}/C{rr}*100", "0.00")
            st.output(ws.cell(rr, 12), f"=IF(AND(I{rr}>=0.95*C{rr},J{rr}<=1.05*C{rr}),1,0)", "0")
            rels.append(f"'001'!$K${rr}")
            if m in fn:
                metric = "cp_cpusec_per_mb" if m == "cp_cpusec" else "tot_cpusec_per_mb"
                ci = f"ZVM_CI({s(transport)},{s(metric)},{s(level[side])})"
                st.output(ws.cell(rr, 16), f"=INDEX({ci},1,1)*{api.FTP_MB_PER_RUN:g}", "0.0000")
                st.output(ws.cell(rr, 17), f"=INDEX({ci},1,2)*{api.FTP_MB_PER_RUN:g}", "0.0000")
                # zvmplan's t quantile is computed numerically: agree to 1e-6 of the mean
                for pub, live, what in ((f"I{rr}", f"P{rr}", "low"), (f"J{rr}", f"Q{rr}", "high")):
                    book.checks.append(Check(ws.title, pub, live, 1e-6 * mean,
                                             f"001 {table}, {q}, {side}: ZVM_CI {what}"))
            else:
                for col in (16, 17):
                    ws.cell(rr, col, "-").alignment = st.CENTER
            if side == "Disabled":
                e = rr + 1
                # Student's two-sample t-test (pooled variance), two-tailed
                st.output(ws.cell(rr, 13), f"=ABS(C{e}-C{rr})/SQRT(((B{rr}-1)*D{rr}^2+(B{e}-1)*"
                          f"D{e}^2)/(B{rr}+B{e}-2)*(1/B{rr}+1/B{e}))", "0.00")
                st.output(ws.cell(rr, 14), f"=B{rr}+B{e}-2", "0")
                p = f"_xlfn.T.DIST.2T(M{rr},N{rr})"
                st.output(ws.cell(rr, 15), f"=IF({p}<0.01,99,IF({p}<0.05,95,IF({p}<0.1,90,0)))",
                          "0")
            r += 1
    book.refs[f"001.{transport}.ci_rel_max"] = f"MAX({','.join(rels)})"
    return r + 1


# ===================================================================== 002 ====
def sheet_002(book: Book):
    ws = book.wb.create_sheet("002")
    setup(ws, _widths(1, 6, 18, 11))
    row = st.title(ws, f"002 - {doc_title('002')}",
                   f"Measured: {doc_header('002', 'configuration')}.", width_cols=19)
    row = st.note(ws, row - 1, LEGEND + " zvmplan stands the accounting-off run in for z/VM "
                  "4.2.0 (before accounting existed), so the OFF row is computed at level "
                  "4.2.0 and the ON row at 4.3.0.", width_cols=19)
    row += 1
    tables = (("Table 1", "tx_per_sec"), ("Table 2", "tot_cpumsec_per_tx"))
    titles = table_header("002").split("; ")
    for (table, metric), ttl in zip(tables, titles):
        recs = find(document="002", table=table)
        row = st.h2(ws, row, ttl)
        row = st.note(ws, row, "Workload: " + table_header("002", "workload"), width_cols=19)
        cols = []
        for w in ("RR", "CRR", "STRG"):
            unit = next(r.unit for r in recs if r.workload == w and r.stat == "value")
            cols += [Col(w, w, unit), Col(w + "%", "% change", "%")]
        rows = []
        for acct in ("OFF", "ON"):
            pubs = {}
            for r in recs:
                if r.accounting == acct:
                    pubs[r.workload + ("%" if r.stat == "delta_pct" else "")] = r
            rows.append(Row(acct, [f"Accounting {acct}"], pubs))
        mtu, conns = 57344, 50

        def live(g, r, col, rec, metric=metric):
            if not col.key.endswith("%"):
                lvl = "4.3.0" if r.key == "ON" else "4.2.0"
                fn = PER_TX_FN[metric]
                return Live(f"={fn}(\"GUEST_LAN\",{s(col.key)},{mtu},{conns},{s(lvl)})")
            w = col.key[:-1]
            off = one(document="002", table=table, workload=w, accounting="OFF", stat="value")
            on = one(document="002", table=table, workload=w, accounting="ON", stat="value")
            change = (on.value / off.value - 1) * 100
            tol = pct_tol(off.value, off.half_ulp, on.value, on.half_ulp)
            expect = ""
            if abs(change - rec.value) > rec.half_ulp + tol:
                expect = (f"printed {rec.text}%; {off.text} -> {on.text} is {change:.2f}%: "
                          "most likely a slip in the source")
            return Live(f"=({g.live('ON', w)}/{g.live('OFF', w)}-1)*100", tol, expect)
        g = grid(book, ws, row, [("Accounting", "")], cols, rows, live, f"002 {table}")
        for w in ("RR", "CRR", "STRG"):
            book.refs[f"002.{metric}.{w}.pct.live"] = f"'002'!{_abs(g.live('ON', w + '%'))}"
        row = g.end + 1
    ws.freeze_panes = "B4"
    return ws


# ===================================================================== 003 ====
METRICS_003 = ("tx_per_sec", "v_cpumsec_per_tx", "cp_cpumsec_per_tx", "tot_cpumsec_per_tx")
DEVICES_003 = (("OSA_GBE", "OSA Express GbE"), ("HIPERSOCKETS", "HiperSockets"))


def _tables_003():
    """(table number, file prefix, transport, workload, mtu) in source order."""
    out = []
    for name, h in headers().items():
        if name.startswith("003_T") and not name.startswith("003_T1_"):
            n = int(name[5:7])
            r = find(document="003", table=f"Table {n}", stat="value")[0]
            out.append((n, name[:7], r.transport, r.workload, r.size_bytes))
    return sorted(out)


def sheet_003(book: Book):
    ws = book.wb.create_sheet("003")
    setup(ws, {"A": 16, "B": 12, **{L(i): 11 for i in range(3, 15)}})
    row = st.title(ws, f"003 - {doc_title('003')}",
                   f"Measured: {doc_header('003_T02', 'configuration')}.", width_cols=14)
    row = st.note(ws, row - 1, LEGEND, width_cols=14)
    row += 1
    tables = _tables_003()
    # Table 1 comes first in the source; it averages cells of the detailed tables below,
    # so lay the detailed tables out first (positions only) and write Table 1 at the top.
    t1_top = row
    t1_rows = 6
    row = t1_top + 2 + 3 + t1_rows + 1 + 2  # h2, note, grid header, rows, expected note, gap
    pct_cells: dict[tuple[str, str, str], list[tuple[str, float]]] = {}
    for n, prefix, t, w, mtu in tables:
        row, cells = _table_003(book, ws, row, n, prefix, t, w, mtu)
        for key, v in cells.items():
            pct_cells.setdefault(key, []).extend(v)
    _summary_003(book, ws, t1_top, pct_cells)
    ws.freeze_panes = "C4"
    return ws


def _table_003(book, ws, row, n, prefix, t, w, mtu):
    recs = find(document="003", table=f"Table {n}")
    row = st.h2(ws, row, table_header(prefix))
    cols = [Col(m, next(r.column for r in recs if r.metric == m),
                next(r.unit for r in recs if r.metric == m and r.stat == "value"))
            for m in METRICS_003]
    conns = sorted({r.connections for r in recs})
    kinds = (("4.3.0", "z/VM 4.3.0"), ("4.4.0", "z/VM 4.4.0"), ("delta", "delta"),
             ("delta_pct", "%delta"))
    rows = []
    for c in conns:
        for i, (k, lab) in enumerate(kinds):
            pubs = {}
            for r in recs:
                if r.connections != c:
                    continue
                if (k in ("4.3.0", "4.4.0") and r.stat == "value" and r.level == k) or \
                        (k in ("delta", "delta_pct") and r.stat == k):
                    pubs[r.metric] = r
            rows.append(Row((c, k), [c if i == 0 else "", lab], pubs))

    def val(c, level, m):
        return one(document="003", table=f"Table {n}", connections=c, level=level, metric=m,
                   stat="value")

    def live(g, r, col, rec):
        c, k = r.key
        if k in ("4.3.0", "4.4.0"):
            fn = PER_TX_FN[col.key]
            return Live(f"={fn}({s(t)},{s(w)},{mtu},{c},{s(k)})")
        a, b = val(c, "4.3.0", col.key), val(c, "4.4.0", col.key)
        la, lb = g.live((c, "4.3.0"), col.key), g.live((c, "4.4.0"), col.key)
        if k == "delta":
            return Live(f"={lb}-{la}", a.half_ulp + b.half_ulp)
        return Live(f"=({lb}-{la})/{la}*100", pct_tol(a.value, a.half_ulp, b.value, b.half_ulp))
    g = grid(book, ws, row, [("Concurrent Connections", "count"), ("Level", "")], cols, rows,
             live, f"003 Table {n}")
    cells = {}
    for c in conns:
        for m in METRICS_003:
            a, b = val(c, "4.3.0", m), val(c, "4.4.0", m)
            cells.setdefault((t, w, m), []).append(
                (g.live((c, "delta_pct"), m), pct_tol(a.value, a.half_ulp, b.value, b.half_ulp)))
            for lvl in ("4.3.0", "4.4.0"):
                book.refs[f"003.{t}.{w}.{mtu}.{c}.{lvl}.{m}"] = f"'003'!{_abs(g.live((c, lvl), m))}"
    return g.end + 1, cells


def _summary_003(book, ws, row, pct_cells):
    recs = find(document="003", table="Table 1")
    row = st.h2(ws, row, table_header("003_T1_"))
    row = st.note(ws, row, "Per device and workload, the average % change over all MTUs and "
                  "connection counts (as the source describes it). zvmplan: AVERAGE over the "
                  "live %delta cells of the detailed tables below.", width_cols=14)
    cols = [Col(m, next(r.column for r in recs if r.metric == m), "%") for m in METRICS_003]
    rows = []
    devname = dict(DEVICES_003)
    for t, _ in DEVICES_003:
        for i, w in enumerate(("CRR", "RR", "STRG")):
            pubs = {r.metric: r for r in recs if r.transport == t and r.workload == w}
            rows.append(Row((t, w), [devname[t] if i == 0 else "", w], pubs))
    outlier = ("HIPERSOCKETS", "STRG", "tx_per_sec")

    def live(g, r, col, rec):
        cells = pct_cells[(*r.key, col.key)]
        tol = sum(tl for _, tl in cells) / len(cells)
        expect = ""
        if (*r.key, col.key) == outlier:
            expect = ("the source prints +6%, but the mean of its %delta cells is pulled up "
                      "by one +175% cell (Table 18, 1 connection); neither their mean nor their "
                      "median gives +6%")
        return Live(f"=AVERAGE({','.join(c for c, _ in cells)})", tol, expect)

    def fmt(rec):
        return '+0"%";-0"%";"flat"'
    g = grid(book, ws, row, [("Device", ""), ("Workload", "")], cols, rows, live,
             "003 Table 1", fmt)
    for r in rows:
        for m in METRICS_003:
            cell = g.live(r.key, m)
            book.refs[f"003.T1.{r.key[0]}.{r.key[1]}.{m}"] = f"'003'!{_abs(cell)}"
            ws[cell].number_format = "+0.00;-0.00;0.00"
            ws[g.diff(r.key, m)].number_format = "+0.00;-0.00;0.00"
    return g.end


# ===================================================================== 004 ====
def sheet_004(book: Book, findings: list[dict]):
    ws = book.wb.create_sheet("004")
    setup(ws, {"A": 30, "B": 13, "C": 13, "D": 13, "E": 13, "F": 13, "G": 13, "H": 60})
    row = st.title(ws, f"004 - {doc_title('004')}",
                   "A presentation whose charts did not survive conversion: only its text "
                   "remains. Measured (VM TCP/IP stack runs): "
                   f"{doc_header('004', 'configuration')}.", width_cols=8)
    row += 0
    recs = find(document="004")
    # Stack Performance Improvements: CPU per unit decrease by workload
    row = st.h2(ws, row, "z/VM 4.3.0 TCP/IP stack: decrease in processor time (slide 'Stack "
                "Performance Improvements')")
    st.header(ws, row, 1, "Workload", "")
    st.header(ws, row, 2, "decrease, low", "% CPU per unit")
    st.header(ws, row, 3, "decrease, high", "% CPU per unit")
    ws.row_dimensions[row].height = 30
    row += 2
    wl = {"STRG": "Streaming (CPU/MB)", "CRR": "CRR (CPU/tx)", "RR": "RR (CPU/tx)"}
    for w in ("STRG", "CRR", "RR"):
        st.label(ws.cell(row, 1), wl[w], bold=True)
        for col, stat in ((2, "cpu_per_unit_decrease_low_pct"),
                          (3, "cpu_per_unit_decrease_high_pct")):
            r = one(document="004", transport="ALL", workload=w, stat=stat)
            st.published(ws.cell(row, col), r.value, "0")
            book.refs[f"004.stack.cpu.{w}.{stat.split('_')[-2]}"] = f"'004'!{_abs(ws.cell(row, col).coordinate)}"
        row += 1
    row = st.note(ws, row, "These ranges are for VM TCP/IP stack endpoints. zvmplan's figures "
                  "are for Linux guests and do not include them (see Assumptions); there is "
                  "therefore no live zvmplan column here.", width_cols=8)
    row += 1
    row = st.h2(ws, row, "z/VM 4.3.0 TCP/IP stack: increase in throughput by device (slide "
                "'Stack Performance Results')")
    st.header(ws, row, 1, "Device", "")
    heads = [("Streaming, low", "STRG", "low"), ("Streaming, high", "STRG", "high"),
             ("CRR, low", "CRR", "low"), ("CRR, high", "CRR", "high"),
             ("RR, low", "RR", "low"), ("RR, high", "RR", "high")]
    for i, (h, _, _) in enumerate(heads):
        st.header(ws, row, 2 + i, h, "% tx/s")
    ws.row_dimensions[row].height = 30
    row += 2
    for t, lab in (("HIPERSOCKETS", "HiperSockets"), ("GUEST_LAN", "Guest LAN"),
                   ("CLAW", "CLAW"), ("VCTC", "Virtual CTC")):
        st.label(ws.cell(row, 1), lab, bold=True)
        for i, (_, w, side) in enumerate(heads):
            r = one(document="004", transport=t, workload=w,
                    stat=f"throughput_increase_{side}_pct")
            st.published(ws.cell(row, 2 + i), r.value, "0")
            book.refs[f"004.stack.tput.{t}.{w}.{side}"] = \
                f"'004'!{_abs(ws.cell(row, 2 + i).coordinate)}"
        row += 1
    row += 1
    row = st.h2(ws, row, "z/VM 4.1.0 network CCW translation (slide 'Enhanced Network CCW "
                "Translation') against 001")
    st.header(ws, row, 1, "", "")
    for i, (h, u) in enumerate([("published low", "% CP CPU"), ("published high", "% CP CPU"),
                                ("zvmplan low", "% CP CPU"), ("zvmplan high", "% CP CPU"),
                                ("low: pub - zvmplan", "%"), ("high: pub - zvmplan", "%")]):
        st.header(ws, row, 2 + i, h, u)
    ws.row_dimensions[row].height = 30
    row += 2
    st.label(ws.cell(row, 1), "CP CPU reduction", bold=True)
    cut = "(1-CPCPU_PER_MB({t},1500,\"4.1.0\")/CPCPU_PER_MB({t},1500,\"3.1.0\"))*100"
    cuts = [cut.format(t=s(t)) for t in api.FTP_TRANSPORTS]
    lo = one(document="004", stat="cp_cpu_decrease_low_pct")
    hi = one(document="004", stat="cp_cpu_decrease_high_pct")
    st.published(ws.cell(row, 2), lo.value, "0")
    st.published(ws.cell(row, 3), hi.value, "0")
    st.output(ws.cell(row, 4), f"=MIN({','.join(cuts)})", "0.00")
    st.output(ws.cell(row, 5), f"=MAX({','.join(cuts)})", "0.00")
    st.output(ws.cell(row, 6), f"=B{row}-D{row}", "0.00")
    st.output(ws.cell(row, 7), f"=C{row}-E{row}", "0.00")
    # 001's means carry rounding of about 0.1 percentage points
    book.checks.append(Check("004", f"B{row}", f"D{row}", lo.half_ulp + 0.1, lo.ref))
    book.checks.append(Check("004", f"C{row}", f"E{row}", hi.half_ulp + 0.1, hi.ref))
    st.flag_outside(ws, {lo.half_ulp + 0.1: [f"F{row}", f"G{row}"]})
    book.refs["004.ccw.low.pub"] = f"'004'!$B${row}"
    book.refs["004.ccw.high.pub"] = f"'004'!$C${row}"
    book.refs["004.ccw.low.live"] = f"'004'!$D${row}"
    book.refs["004.ccw.high.live"] = f"'004'!$E${row}"
    row += 1
    row = st.note(ws, row, "zvmplan: the smallest and largest CP CPU cut of LCS and real CTC "
                  "(001 Tables 1-2) from 3.1.0 to 4.1.0. The slide rounds 44.86% up to 45%.",
                  width_cols=8)
    row += 1
    row = st.h2(ws, row, "Findings (paraphrased; cite the slide by its title)")
    st.header(ws, row, 1, "Slide", None)
    st.header(ws, row, 2, "Finding", None)
    ws.merge_cells(start_row=row, start_column=2, end_row=row, end_column=8)
    row += 1
    for f in findings:
        st.label(ws.cell(row, 1), f["slide"], wrap=True)
        c = ws.cell(row, 2, f["text"])
        c.alignment = st.WRAP
        ws.merge_cells(start_row=row, start_column=2, end_row=row, end_column=8)
        lines = max(-(-len(f["text"]) // 125), -(-len(f["slide"]) // 30), 1)
        ws.row_dimensions[row].height = 15 * lines + 3
        row += 1
    return ws


def build_sources(book: Book, notes: dict):
    sheet_000(book)
    sheet_001(book)
    sheet_002(book)
    sheet_003(book)
    sheet_004(book, notes["finding_004"])

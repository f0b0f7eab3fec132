"""``zvmplan report PLAN.xlsx -o plan.pdf``: the plan on one or two pages, for people.

Built only from the values ``zvmplan fill`` or ``zvmplan calc`` cached in the plan (read
by :mod:`.results` and :mod:`.plan_facts`): nothing is recomputed by the model. What the
report derives from those values it says it derives (a running total, the load factor
where a line crosses the LPAR's engines, the sum of the links' bands) and checks what it
relies on: the growth curve assumes CPU is linear in load, so each link's total CPU is
checked against its load times its CPU per unit, and each scenario that only scales the
load against the Planner's figures; the page says what was checked and how closely.

Pages (A4, portrait):

1. the verdict (fits or not on the LPAR's engines, headroom in engines and %, what
   breaks it, "not normalised" when the figures are still on the measured processors),
   the totals per scenario with the links each counts, the growth curve, the top
   consumers and the loads above a measured or physical rate;
2. the assumptions (engines, machine factors, levels, defaults), the basis mix, the
   bands, and every warning the plan carries.

A long warning list continues on a third page. Drawn with matplotlib (Agg and its PDF
backend only, no GUI toolkit); text is embedded as TrueType so that ``pdftotext`` and a
reader's search find it.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import textwrap
from pathlib import Path

from . import plan_facts as facts
from . import results as R

PAGE_W, PAGE_H = 8.27, 11.69          # A4 [in]
MARGIN = 0.55                          # [in]
TEXT_W = PAGE_W - 2 * MARGIN
LINE = 1.32                            # line height / font size
CHAR_W = 0.53                          # mean character width / font size (DejaVu Sans)
RED, GREEN, GREY, BLUE = "#b00020", "#1b7a2f", "#666666", "#1f4e9a"
#: load factors of the growth curve (x the Planner's load)
GROWTH = (0.5, 3.0)
TOP = 8
LEGEND_ROOM = 0.15                     # [in] above the top consumers' bars                              # links in the top consumers chart


class ReportError(Exception):
    """The plan cannot be reported (not a plan, nothing cached); one line."""


def check_output(path) -> Path:
    """``path`` as the report's output, refused (one line) before any work is done."""
    from zvmplan_addin.commands import UserError
    path = Path(path)
    if path.suffix.lower() != ".pdf":
        raise UserError(f"{path}: the report is a PDF; name it .pdf")
    if not path.parent.is_dir():
        raise UserError(f"{path.parent}: no such directory")
    return path


# ------------------------------------------------------------------ layout ----
class Pages:
    """A flow of text, tables and charts down A4 pages (inches from the page's top)."""

    def __init__(self, title: str, footer: str, scale: float = 1.0):
        self.title, self.footer = title, footer
        self.scale = scale          # of every text size: below 1 to keep a plan on 2 pages
        self.figs = []
        self.new_page()

    def new_page(self):
        from matplotlib.figure import Figure
        self.fig = Figure(figsize=(PAGE_W, PAGE_H))
        self.figs.append(self.fig)
        self.y = MARGIN
        if len(self.figs) > 1:
            self.text(f"{self.title} (continued)", 9, color=GREY)
            self.space(0.05)

    def need(self, height: float):
        if self.y + height > PAGE_H - MARGIN - 0.1:  # the footer sits below
            self.new_page()

    def _put(self, x, y, s, size, **kw):
        self.fig.text(x / PAGE_W, 1 - y / PAGE_H, s, fontsize=size, va="top", **kw)

    def text(self, s: str, size: float = 9, *, bold=False, color="black", indent=0.0,
             x=None, width=None, hang=True) -> float:
        """Wrapped text (``hang``: lines after the first indented); returns the height
        used [in]."""
        size *= self.scale
        width = (width or TEXT_W) - indent
        chars = max(10, int(width * 72 / (size * CHAR_W)))
        lines = []
        for para in s.split("\n"):
            lines += textwrap.wrap(para, chars, subsequent_indent="  " if hang else "") \
                or [""]
        h = len(lines) * size * LINE / 72
        self.need(h)
        for k, line in enumerate(lines):
            self._put((MARGIN if x is None else x) + indent, self.y + k * size * LINE / 72,
                      line, size, fontweight="bold" if bold else "normal", color=color)
        self.y += h
        return h

    def heading(self, s: str, keep: float = 1.0):
        """A section heading, on the next page unless ``keep`` [in] fit under it."""
        self.space(0.1)
        self.need(0.35 + keep)
        self.text(s, 11.5, bold=True, color=BLUE)
        self.fig.add_artist(_rule(self.y + 0.03))
        self.space(0.08)

    def space(self, h: float):
        self.y += h

    def table(self, header: list[str], rows: list[list[str]], widths: list[float],
              right: set[int] = frozenset(), size: float = 8.5, colors=None):
        """Rows of text in columns ``widths`` [in]; ``right``: right-aligned columns.
        A cell too long for its column wraps onto more lines."""
        size *= self.scale
        step = size * LINE / 72
        self.need(step * min(len(rows) + 1, 4))
        xs = [MARGIN]
        for w in widths[:-1]:
            xs.append(xs[-1] + w)

        def row(cells, bold=False, color="black", size=size):
            wrapped = [textwrap.wrap(c, max(3, int((w - 0.1) * 72 / (size * CHAR_W))))
                       or [""] for c, w in zip(cells, widths)]
            lines = max(len(w) for w in wrapped)
            self.need(step * lines)
            weight = "bold" if bold else "normal"
            for k, (parts, x, w) in enumerate(zip(wrapped, xs, widths)):
                for j, part in enumerate(parts):
                    if k in right:
                        self._put(x + w - 0.08, self.y + j * step, part, size, ha="right",
                                  fontweight=weight, color=color)
                    else:
                        self._put(x, self.y + j * step, part, size, fontweight=weight,
                                  color=color)
            self.y += step * lines
        row(header, bold=True, size=size - 0.5)
        self.fig.add_artist(_rule(self.y - 0.02, MARGIN, MARGIN + sum(widths)))
        self.y += 0.03
        for i, r in enumerate(rows):
            row(r, color=(colors[i] if colors else "black"))

    def axes(self, height: float, left: float = 0.75, right: float = 0.25,
             below: float = 0.5):
        """Axes ``height`` [in] tall, with ``below`` [in] under them for the tick labels
        and the axis label."""
        self.need(height + below)
        ax = self.fig.add_axes([(MARGIN + left) / PAGE_W,
                                1 - (self.y + 0.05 + height) / PAGE_H,
                                (TEXT_W - left - right) / PAGE_W, height / PAGE_H])
        self.y += height + below
        return ax

    def save(self, path: Path):
        from matplotlib.backends.backend_pdf import PdfPages
        n = len(self.figs)
        with PdfPages(path, metadata={"Title": self.title, "Creator": "zvmplan report"}) as pdf:
            for i, fig in enumerate(self.figs, start=1):
                fig.text(0.5, 0.4 / PAGE_H, f"{self.footer}  -  page {i} of {n}",
                         fontsize=7, color=GREY, ha="center", va="bottom")
                pdf.savefig(fig)


def _rule(y: float, x0: float = MARGIN, x1: float = PAGE_W - MARGIN):
    from matplotlib.lines import Line2D
    return Line2D([x0 / PAGE_W, x1 / PAGE_W], [1 - y / PAGE_H] * 2, color="#999999",
                  linewidth=0.6)


# ---------------------------------------------------------------- the pages ----
def _e(v) -> str:
    """Engines as the report prints them."""
    return R._fmt("total_engines", v)


def _pct(v) -> str:
    return R._fmt("share_of_lpar", v)


def verdict(p: facts.PlanFacts) -> tuple[str, str, list[str]]:
    """(headline, colour, sentences) of the verdict."""
    res = p.res
    total, engines = res.totals.get("total_engines"), res.engines
    fits = res.fits()
    n = len(res.links)
    lines = []
    if res.banner:
        return ("CANNOT TELL", GREY, [f"The plan shows '{res.banner}': its values were not "
                                      "computed. Run zvmplan calc on it, then report again."])
    if not R._is_number(total):
        return ("CANNOT TELL", GREY, [f"The links' total CPU is {total!r}, not a number: "
                                      "see the warnings."])
    split = ", ".join(f"{name} {_e(res.totals.get(k))}" for name, k in
                      (("CP", "cp_engines"), ("virtual", "virtual_engines"))
                      if R._is_number(res.totals.get(k)))
    mixed = res.normalised is False  # a sum of engines of different processors
    lines.append(f"The links need {_e(total)} engines" + (f" ({split})" if split else "")
                 + (" NOT NORMALISED" if mixed else "")
                 + f"; the LPAR has {R._fmt('load', engines)}. The total counts {p.counted} "
                 f"of {n} links.")
    if R._is_number(engines) and engines > 0 and not mixed:
        head = engines - total
        if head >= 0:
            lines.append(f"Headroom: {_e(head)} engines, {head / engines:.1%} of the LPAR "
                         f"({_pct(total / engines)} used).")
        else:
            lines.append(f"Short by {_e(-head)} engines: the links need "
                         f"{_pct(total / engines)} of the LPAR.")
    for i, link in res.above_line_rate():
        lines.append(f"Link {i}, {link['link']!r}: its load of {R._fmt('load', link.get('load'))} "
                     f"{link.get('load_unit') or ''} is above its device's line rate: the "
                     "device cannot carry it, whatever the CPU.")
    beyond = [a for a in R.attention(res) if a.startswith("link ") and "measured rate" in a]
    if beyond:
        lines.append(f"{len(beyond)} link(s) carry a load above the rate measured at their "
                     "configuration: their CPU is beyond what the sources demonstrated.")
    if p.breaking_link:
        i, link, running = p.breaking_link
        lines.append(f"In the plan's order the running total first passes the LPAR's engines "
                     f"at link {i}, {link['link']!r} ({_e(running)} engines with it).")
    over = [sc for sc in res.scenarios if R._is_number(sc.totals.get("total_engines"))
            and R._is_number(sc.totals.get("share_of_lpar"))
            and R._is_number(engines) and sc.totals["total_engines"] > engines]
    if over:
        sc = over[0]
        lines.append(f"First scenario above the engines: {sc.name!r} "
                     f"({_e(sc.totals['total_engines'])} engines, "
                     f"{_pct(sc.totals['share_of_lpar'])})"
                     + (f"; {len(over) - 1} more" if len(over) > 1 else "") + ".")
    elif res.scenarios and not mixed:
        lines.append("Every scenario fits the LPAR's engines.")
    cross = p.crossing.get(facts.PLANNER_LINE)
    if cross:
        lines.append(f"At the same CPU per unit of load the links fit up to {cross:.2f} x "
                     "their load (the growth curve below).")
    left = res.left_out()
    if left:
        lines.append(f"{len(left)} link(s) have no answer and are left out of the totals "
                     f"(first: {left[0][1]['link']!r}): the total can only be higher.")
    lines.append(p.normalisation)
    if fits is None:
        return ("CANNOT TELL: NOT NORMALISED" if mixed else "CANNOT TELL"), GREY, lines
    return ("FITS" if fits else "DOES NOT FIT"), (GREEN if fits else RED), lines


def _page_one(pg: Pages, p: facts.PlanFacts):
    res = p.res
    pg.text(f"z/VM network capacity plan: {res.out.name}", 15, bold=True)
    pg.text(f"Report of the values cached in {res.out.name} (recalculated by zvmplan); "
            f"{len(res.links)} links, {len(res.scenarios)} scenarios, LPAR of "
            f"{R._fmt('load', res.engines)} engines. {_dt.date.today():%d %B %Y}.", 8.5,
            color=GREY)
    pg.space(0.12)
    head, color, lines = verdict(p)
    top = pg.y
    pg.text(head, 20, bold=True, color=color, indent=0.15)
    for line in lines:
        pg.text(line, 9.5, indent=0.15)
    from matplotlib.patches import Rectangle
    pg.fig.add_artist(Rectangle((MARGIN / PAGE_W, 1 - (pg.y + 0.08) / PAGE_H), 0.05 / PAGE_W,
                                (pg.y + 0.08 - top) / PAGE_H, color=color, lw=0))
    pg.space(0.1)

    pg.heading("Totals per scenario")
    rows = [["Planner (as entered)", "1", "", _e(res.totals.get("total_engines")),
             _pct(res.totals.get("share_of_lpar")), f"{p.counted} of {p.listed}"]]
    colors = [_over_color(res.totals.get("share_of_lpar"))]
    for sc in res.scenarios:
        change = ", ".join(x for x in (
            f"z/VM {sc.level}" if sc.level else "", f"all over {sc.transport}"
            if sc.transport else "", f"speed x{sc.speed_factor:g}"
            if R._is_number(sc.speed_factor) else "") if x)
        rows.append([sc.name, f"{sc.factor():g}", change or "-",
                     _e(sc.totals.get("total_engines")), _pct(sc.totals.get("share_of_lpar")),
                     f"{sc.counted()} of {sc.listed()}"])
        colors.append(_over_color(sc.totals.get("share_of_lpar")))
    pg.table(["Scenario", "Load x", "Changes", "Total [engines]", "Share of LPAR",
              "Links counted"], rows, [1.75, 0.5, 1.7, 1.15, 1.1, 0.97], right={1, 3, 4, 5},
             colors=colors)

    pg.heading("Growth: total CPU against load")
    _growth(pg, p)
    pg.text(p.linearity, 7.5, color=GREY)

    _above_rates(pg, p)
    pg.heading("Top consumers (links by total CPU)", keep=_consumers_height(p) + 0.45)
    _consumers(pg, p)


def _above_rates(pg: Pages, p: facts.PlanFacts):
    above = [a for a in R.attention(p.res) if a.startswith("link ")]
    pg.space(0.08)
    pg.text("Loads above a measured or physical rate: " + (
        "none (every load is within the rate measured at its configuration, or the source "
        "published none)." if not above else f"{len(above)}."), 9,
            bold=bool(above), color=RED if above else "black")
    for a in above:
        pg.text("- " + a, 8.5, indent=0.15)


def _over_color(share):
    return RED if R._is_number(share) and share > 1 else "black"


def _growth(pg: Pages, p: facts.PlanFacts):
    import numpy as np
    res = p.res
    ax = pg.axes(1.95, left=0.6, right=2.1, below=0.5)
    x = np.linspace(*GROWTH, 101)
    engines = res.engines
    top = 0
    # lines with the same slope (a scenario that only scales the load) are drawn once
    groups: dict[float, list[str]] = {}
    for name, slope in p.slopes.items():
        key = next((s for s in groups if facts._same(s, slope)), slope)
        groups.setdefault(key, []).append(name)
    for k, (slope, names) in enumerate(groups.items()):
        color = f"C{k}"
        y = slope * x
        counts = {n: (sc.counted(), sc.listed()) for sc in res.scenarios for n in names
                  if sc.name == n and sc.counted() < sc.listed()}
        if facts.PLANNER_LINE in names and p.counted < p.listed:
            counts[facts.PLANNER_LINE] = (p.counted, p.listed)
        label = "\n".join(textwrap.wrap(" = ".join(
            n + (f" ({counts[n][0]} of {counts[n][1]} links)" if n in counts else "")
            for n in names), 30))
        ax.plot(x, y, color=color, lw=1.6, label=label)
        top = max(top, y[-1])
        for name in names:
            own = p.factors.get(name, 1.0)
            ax.plot([own], [slope * own], "o", color=color, ms=4)
        cross = p.crossing.get(names[0])
        if cross is not None and GROWTH[0] <= cross <= GROWTH[1]:
            ax.plot([cross], [engines], "x", color=color, ms=7, mew=2)
            ax.annotate(f"{cross:.2f}x", (cross, engines), textcoords="offset points",
                        xytext=(2, 6 + 9 * (k % 3)), fontsize=7, color=color)
    if res.normalised is False:
        ax.set_title("NOT NORMALISED: each line adds engines of different processors; "
                     "no crossing with the LPAR is computed", fontsize=7.5, color=RED)
    elif R._is_number(engines):
        ax.axhline(engines, color="black", lw=1.2, ls="--",
                   label=f"LPAR: {R._fmt('load', engines)} engines")
        top = max(top, engines * 1.15)
    if p.rate_factor is not None and GROWTH[0] <= p.rate_factor[0] <= GROWTH[1]:
        f, name = p.rate_factor
        ax.axvline(f, color=GREY, lw=0.8, ls=":")
        ax.text(f, top * 0.98, f" {name[:18]!s}\n above its\n measured rate", fontsize=6.5,
                color=GREY, va="top")
    ax.set_xlim(*GROWTH)
    ax.set_ylim(0, top * 1.05 if top else 1)
    ax.set_xlabel("load factor [x the Planner's load]", fontsize=8)
    ax.set_ylabel("total CPU [engines]", fontsize=8)
    ax.tick_params(labelsize=7.5)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    ax.text(1.02, 0.0, "dot: the scenario's own load\ncross: where it meets the engines",
            transform=ax.transAxes, fontsize=6.5, color=GREY, va="bottom")


def _ranked(p: facts.PlanFacts) -> list[dict]:
    """The links the total counts, heaviest first."""
    return [link for _, link in R.sorted_links(p.res, "cpu")
            if R._is_number(link.get("total_engines")) and link.get("in_totals") in R.COUNTED]


def _consumers_height(p: facts.PlanFacts) -> float:
    n = len(_ranked(p))
    return LEGEND_ROOM + 0.15 + 0.18 * (min(n, TOP) + (n > TOP))


def _consumers(pg: Pages, p: facts.PlanFacts):
    res = p.res
    ranked = _ranked(p)
    shown, rest = ranked[:TOP], ranked[TOP:]
    def split(links):
        """CP, virtual, and total of the links whose source gives no split (Guest LAN)."""
        cp = vi = only = 0.0
        for link in links:
            c, v = link.get("cp_engines"), link.get("virtual_engines")
            if R._is_number(c) and R._is_number(v):
                cp, vi = cp + c, vi + v
            else:
                only += link["total_engines"]
        return cp, vi, only
    labels = [str(link["link"])[:34] for link in shown]
    parts = [split([link]) for link in shown]
    tot = [link["total_engines"] for link in shown]
    if rest:
        labels.append(f"all {len(rest)} others")
        parts.append(split(rest))
        tot.append(sum(link["total_engines"] for link in rest))
    if not labels:
        pg.text("No link has a total CPU to show.", 9)
        return
    pg.space(LEGEND_ROOM)  # the legend sits above the bars
    ax = pg.axes(_consumers_height(p) - LEGEND_ROOM, left=2.3, right=0.9, below=0.45)
    ys = list(range(len(labels)))[::-1]
    cp, virt, only = ([x[k] for x in parts] for k in range(3))
    ax.barh(ys, cp, color="#4c72b0", height=0.65, label="CP")
    ax.barh(ys, virt, left=cp, color="#dd8452", height=0.65, label="virtual (guest)")
    if any(only):
        ax.barh(ys, only, left=[c + v for c, v in zip(cp, virt)], color="#999999",
                height=0.65, label="total only (no split published)")
    engines = res.engines
    for yy, t in zip(ys, tot):
        share = f" ({t / engines:.0%})" if R._is_number(engines) and engines > 0 else ""
        ax.text(t, yy, f" {t:.3f}{share}", va="center", fontsize=7)
    ax.set_yticks(ys, labels, fontsize=7.5)
    ax.set_xlabel("total CPU [engines]", fontsize=8)
    ax.tick_params(axis="x", labelsize=7.5)
    ax.set_xlim(0, max(tot) * 1.3)
    ax.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=3,
              frameon=False)
    ax.grid(axis="x", alpha=0.3)

def _page_two(pg: Pages, p: facts.PlanFacts):
    res = p.res
    if len(pg.figs) == 1:
        pg.new_page()
    pg.heading("Assumptions")
    for line in p.assumptions:
        pg.text("- " + line, 8, indent=0.1)
    pg.heading("Basis of the links' total CPU (Basis column)")
    total = res.totals.get("total_engines")
    rows = [[label, str(n), "-" if label == "error" else _e(eng),
             _pct(eng / total) if R._is_number(total) and total > 0 and label != "error"
             else "-"] for label, (n, eng) in p.basis_mix.items()]
    pg.need(0.2 * (len(rows) + 1))
    top = pg.y
    pg.table(["Basis", "Links", "Engines", "Share"], rows, [1.0, 0.5, 0.75, 0.65],
             right={1, 2, 3}, size=8)
    below = pg.y
    pg.y = top
    pg.text("Counted from each link's Basis column (its first word, as ZVM_BASIS gives it). "
            + " ".join(f"{label.capitalize()}: {p.basis_help[label]}." for label in p.basis_mix
                       if label in p.basis_help), 7, color=GREY, x=MARGIN + 3.1,
            width=TEXT_W - 3.1, hang=False)
    pg.y = max(pg.y, below)
    pg.heading("How sure: bands of total CPU (ZVM_RANGE: the Planner's How sure columns)",
               keep=0.6)
    for line in p.band_lines:
        pg.text(line, 8.5)
    pg.text(p.band_note, 7, color=GREY)
    pg.heading(f"Warnings the plan carries ({len(p.warnings)})", keep=0.4)
    if not p.warnings:
        pg.text("None.", 9)
    for w in p.warnings:
        pg.text("- " + w, 7.5, indent=0.1)


#: text scales tried in turn until the report fits on two pages (else the last one)
SCALES = (1.0, 0.92, 0.85)


def build(plan) -> Pages:
    """The report's pages for the filled plan ``plan`` (a path): two pages, the text made
    smaller (:data:`SCALES`) for a long plan; a third page when even that is not enough
    (nothing is left out)."""
    try:
        p = facts.read(plan)
    except R.ResultsError as exc:
        raise ReportError(str(exc)) from None
    for scale in SCALES:
        pg = Pages(f"z/VM network capacity plan: {Path(plan).name}",
                   f"zvmplan report of {Path(plan).name}: values as cached in the plan", scale)
        _page_one(pg, p)
        _page_two(pg, p)
        if len(pg.figs) <= 2:
            break
    return pg


def write_report(plan, pdf) -> Path:
    """Write the report of ``plan`` to ``pdf``; returns ``pdf``."""
    import matplotlib
    pdf = Path(pdf)
    with matplotlib.rc_context({"pdf.fonttype": 42, "font.family": "DejaVu Sans",
                                "axes.titlesize": 9}):
        pg = build(plan)
        pg.save(pdf)
    return pdf


# ---------------------------------------------------------------- command ----
def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("plan", metavar="PLAN.xlsx",
                   help="a plan written by zvmplan fill or zvmplan calc (its cached values "
                   "are reported; nothing is recalculated)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.pdf", help="the report")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    p.epilog = ("exit status: 0 the links fit the LPAR's engines; 4 they do not (or a load is "
                "above a device's line rate); 5 the plan cannot tell; 1 a file refused; 2 a "
                "usage error")


def run(args: argparse.Namespace) -> int:
    from zvmplan_addin.commands import UserError
    out = check_output(args.output)
    plan = Path(args.plan)
    from zvmplan_addin.xlsx import safe_open_xlsx
    safe_open_xlsx(plan).close()  # the checks of zvmplan calc: one line for a bad file
    try:
        write_report(plan, out)
    except ReportError as exc:
        raise UserError(str(exc)) from None
    except (KeyError, OSError, ValueError) as exc:
        raise UserError(f"{plan}: cannot read it as a plan ({exc})") from None
    res = R.read(plan)
    if not args.quiet:
        print(f"wrote {out}: " + "; ".join(R.totals_lines(res)[:1]))
    return R.exit_code(res)


def _register() -> None:
    try:
        from zvmplan_addin.commands import Command, register
    except ImportError:  # the command line is not installed: the library still works
        return
    register(Command("report", "the plan on one or two pages (PDF) from the values it "
                     "caches", configure, run))


_register()

"""What the report says about a plan, from the values the plan caches.

:func:`read` gathers, for :mod:`.report`, the Planner's and Scenarios' results
(:mod:`.results`), the Assumptions sheet's inputs, and what follows from those values
by arithmetic the report states: the running total in the plan's order, each line's
slope against the load factor and where it meets the LPAR's engines, the load factor at
which the first link passes the rate measured at its configuration, the basis mix, and
the warnings. No model function is called: a figure the plan does not cache is not in
the report.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from zvmplan.answer import BASES  # the basis labels, each defined once

from . import results as R
from .csvfile import normalise

PLANNER_LINE = "Planner (as entered)"
#: relative difference below which two cached figures are the same number
SAME = 1e-9
BASIS_LABELS = tuple(BASES)
BAND_ROWS = 5          # the widest bands listed


@dataclass
class PlanFacts:
    res: R.Results
    counted: int = 0
    listed: int = 0
    breaking_link: tuple | None = None     # (row, link, running total) passing the engines
    slopes: dict = field(default_factory=dict)     # line -> engines per unit load factor
    factors: dict = field(default_factory=dict)    # scenario -> its own load factor
    crossing: dict = field(default_factory=dict)   # line -> load factor meeting the engines
    rate_factor: tuple | None = None       # (load factor, link) first above its rate
    linearity: str = ""
    normalisation: str = ""
    assumptions: list = field(default_factory=list)
    basis_mix: dict = field(default_factory=dict)  # label -> (links, engines)
    basis_help: dict = field(default_factory=dict)
    band_lines: list = field(default_factory=list)
    band_note: str = ""
    warnings: list = field(default_factory=list)


def _num(v) -> bool:
    return R._is_number(v)


def _same(a, b) -> bool:
    return abs(a - b) <= SAME * max(abs(a), abs(b), 1e-300)


def read(plan) -> PlanFacts:
    """The facts of the plan at ``plan`` (raises :class:`.results.ResultsError`)."""
    res = R.read(plan)
    p = PlanFacts(res)
    p.counted = sum(link.get("in_totals") in R.COUNTED for link in res.links)
    p.listed = len(res.links)
    sheet = _assumptions_sheet(Path(plan))
    _running_total(p)
    _growth(p)
    _normalisation(p, sheet)
    _assumptions(p, sheet)
    _basis(p, sheet)
    _bands(p, sheet)
    _warnings(p)
    return p


def _running_total(p: PlanFacts):
    engines = p.res.engines
    if not _num(engines) or p.res.normalised is False:  # no machine's engines: no crossing
        return
    running = 0.0
    for i, link in enumerate(p.res.links, start=1):
        if link.get("in_totals") in R.COUNTED and _num(link.get("total_engines")):
            running += link["total_engines"]
            if running > engines:
                p.breaking_link = (i, link, running)
                return


def _scale(link) -> float | None:
    unit = link.get("load_unit")
    return 1000.0 if unit == "tx/s" else 1.0 if unit == "MB/s" else None


def _growth(p: PlanFacts):
    """Slopes of total CPU against the load factor, after checking that CPU is linear in
    load in the plan's own figures."""
    res = p.res
    engines = res.engines
    checked, worst, broken = 0, 0.0, []
    for link in res.links:
        tot, per, load, scale = (link.get("total_engines"), link.get("total_per_unit"),
                                 link.get("load"), _scale(link))
        if not (_num(tot) and _num(per) and _num(load) and scale):
            continue
        checked += 1
        expect = load * per / scale
        dev = abs(tot - expect) / max(abs(tot), 1e-300)
        worst = max(worst, dev)
        if dev > SAME:
            broken.append(link["link"])
    lines = {}
    total = res.totals.get("total_engines")
    if _num(total) and not broken:
        lines[PLANNER_LINE] = total
    scen_checked = []
    for sc in res.scenarios:
        t = sc.totals.get("total_engines")
        if not _num(t) or sc.factor() <= 0:
            continue
        lines[sc.name] = t / sc.factor()
        p.factors[sc.name] = sc.factor()
        if sc.level in (None, "") and sc.transport in (None, "") and \
                sc.speed_factor in (None, "") and len(sc.links) == len(res.links):
            pairs = [(s.get("total_engines"), link.get("total_engines"))
                     for s, link in zip(sc.links, res.links)
                     if _num(s.get("total_engines")) and _num(link.get("total_engines"))]
            ok = all(_same(a, sc.factor() * b) for a, b in pairs)
            scen_checked.append((sc.name, ok, len(pairs)))
            if not ok:
                del lines[sc.name]
                broken.append(f"scenario {sc.name!r}")
    p.slopes = lines
    for name, slope in lines.items():
        if _num(engines) and slope > 0 and res.normalised is not False:
            p.crossing[name] = engines / slope
    # the first link to pass the rate measured at its configuration as the load grows
    rates = [(link["measured_rate"] / link["load"], link["link"]) for link in res.links
             if _num(link.get("measured_rate")) and _num(link.get("load")) and link["load"] > 0]
    if rates:
        p.rate_factor = min(rates)
    text = (f"CPU is linear in load in this model (CPU per unit of load does not depend on "
            f"the load: Assumptions, 'CPU needed'), checked in this plan: each of {checked} "
            f"links' total CPU = its load x its CPU per unit (largest relative difference "
            f"{worst:.1e})")
    if scen_checked:
        text += ("; " + ", ".join(f"scenario {n!r} = {p.factors[n]:g} x the Planner's "
                                  f"figures for {k} links" + ("" if ok else " (NOT)")
                                  for n, ok, k in scen_checked))
    text += (". A line is its total / its own load factor, times x; links left out stay out. "
             "Right of the dotted line a load passes the rate measured at its configuration: "
             "beyond what the sources demonstrated.")
    if broken:
        text += (" NOT LINEAR, not drawn: " + ", ".join(map(str, broken)) + ".")
    p.linearity = text


def _assumptions_sheet(plan: Path) -> list[tuple]:
    from openpyxl import load_workbook
    wb = load_workbook(plan, data_only=True, read_only=True)
    try:
        if "Assumptions" not in wb.sheetnames:
            return []
        return [tuple(r) for r in wb["Assumptions"].iter_rows(values_only=True)]
    finally:
        wb.close()


def _block(rows, first_heading: str) -> list[tuple]:
    """The rows under the heading row whose first cell is ``first_heading``, to the first
    blank row."""
    out, on = [], False
    for r in rows:
        a = r[0] if r else None
        if on:
            if a in (None, ""):
                break
            out.append(r)
        elif isinstance(a, str) and normalise(a) == normalise(first_heading):
            on = True
    return out


def _normalisation(p: PlanFacts, sheet):
    """Whether the plan's figures are on one machine: every counted link has a speed
    factor in use (its own, or the Assumptions one for its processor)."""
    res = p.res
    procs = sorted({str(link.get("measured_on")) for link in res.links
                    if link.get("measured_on") not in (None, "")})
    missing = sorted({str(link.get("measured_on")) for link in res.links
                      if link.get("in_totals") in R.COUNTED
                      and not _num(link.get("speed_factor_used"))})
    if res.normalised is False:
        subs = "; ".join(f"{s.get('engines_of')}: {R._fmt('total_engines', s.get('total_engines'))}"
                         for s in res.subtotals if _num(s.get("total_engines")))
        p.normalisation = (
            "NOT NORMALISED: the total adds engines of different processors "
            f"({subs}), so it is the capacity of no one machine: no headroom, share of the "
            "LPAR or crossing is computed from it. Name the target machine (fill --machine "
            "or --capacity) for a verdict.")
    elif res.normalised is True:
        p.normalisation = ("Normalised: every link's figures are put on the target machine "
                           f"(measured on {', '.join(procs)}).")
    elif "speed_factor_used" not in res.keys:
        p.normalisation = ("Normalisation unknown: the plan has no 'Speed factor used' column.")
    elif missing:
        p.normalisation = (
            "Not normalised: no target machine is named (the Assumptions sheet gives no "
            f"per-engine capacity relative to {', '.join(missing)}), so those links' figures "
            "are on the processors their transports were measured on, not on yours. "
            "The verdict holds for those machines.")
    else:
        p.normalisation = (f"Normalised: every link's figures are put on the target machine "
                           f"by its speed factor (measured on {', '.join(procs)}).")


def _assumptions(p: PlanFacts, sheet):
    res = p.res
    out = [f"LPAR engines available: {R._fmt('load', res.engines)} (Planner input)."]
    caps = _block(sheet, "Measured processor")
    if caps:
        given = [f"{r[0]}: {r[1]:g}" for r in caps if _num(r[1] if len(r) > 1 else None)]
        blank = [str(r[0]) for r in caps if not _num(r[1] if len(r) > 1 else None)]
        out.append("Target machine's per-engine capacity relative to each measured processor "
                   "(from zPCR or LSPR): "
                   + ("; ".join(given) if given else "none given")
                   + (f"; not given (figures stay as measured): {', '.join(blank)}"
                      if blank else "") + ". A link's own speed factor overrides it; with "
                   "neither, the factor is 1 (the measured processor).")
    own = sorted({f"{link['link']}: {link['speed_factor_used']:g}" for link in res.links
                  if _num(link.get("speed_factor_used"))})
    if own:
        out.append("Speed factors in use: " + "; ".join(own[:8])
                   + (f"; and {len(own) - 8} more" if len(own) > 8 else "") + ".")
    levels = {}
    for link in res.links:
        lv = link.get("level")
        levels.setdefault(str(lv) if lv not in (None, "") else "as measured", []).append(
            str(link.get("transport")))
    out.append("z/VM levels: " + "; ".join(
        f"{lv}: {len(ts)} link(s) ({', '.join(sorted(set(ts)))})"
        for lv, ts in sorted(levels.items())) + ". A blank level is the level the "
        "transport was measured at; a level with no sourced change carries the earlier "
        "value ('carried').")
    transports = {}
    for link in res.links:
        transports[link.get("transport")] = transports.get(link.get("transport"), 0) + 1
    out.append("Links by transport: " + ", ".join(f"{t} {n}" for t, n in transports.items())
               + ". Measured on: " + ", ".join(sorted({str(link.get("measured_on"))
                                                      for link in res.links
                                                      if link.get("measured_on")})) + ".")
    for topic in ("Vintage",):
        row = next((r for r in sheet if r and r[0] == topic and len(r) > 1), None)
        if row and isinstance(row[1], str):
            out.append(f"{topic}: {row[1]}")
    p.assumptions = out


def _basis(p: PlanFacts, sheet):
    mix = {}
    for link in p.res.links:
        basis = link.get("basis")
        label = (basis.split(".")[0].strip() if isinstance(basis, str) and basis else
                 "no basis")
        label = label if label in BASIS_LABELS else (
            "error" if R._is_error(link.get("total_engines")) else label)
        n, eng = mix.get(label, (0, 0.0))
        t = link.get("total_engines")
        mix[label] = (n + 1, eng + (t if _num(t) and link.get("in_totals") in R.COUNTED
                                    else 0.0))
    p.basis_mix = {k: mix[k] for k in (*BASIS_LABELS, *sorted(set(mix) - set(BASIS_LABELS)))
                   if k in mix}
    p.basis_help = dict(BASES)
    p.basis_help["error"] = "no answer: left out of the totals (see the warnings)"


def _bands(p: PlanFacts, sheet=()):
    """The sum of the counted links' bands, and the widest bands relative to their link's
    total CPU."""
    res = p.res
    counted = [link for link in res.links
               if _num(link.get("total_engines")) and link.get("in_totals") in R.COUNTED]
    banded = [link for link in counted if _num(link.get("total_low"))
              and _num(link.get("total_high")) and link["total_engines"] > 0]
    total = res.totals.get("total_engines")
    lines = []
    if counted and len(banded) == len(counted) and _num(total) and total > 0:
        lo = sum(link["total_low"] for link in banded)
        hi = sum(link["total_high"] for link in banded)
        lines.append(f"Total CPU {R._fmt('total_engines', total)} engines; the sum of the "
                     f"{len(banded)} links' bands: {R._fmt('total_engines', lo)} .. "
                     f"{R._fmt('total_engines', hi)} engines ({_band(total, lo, hi)}).")
    elif counted:
        lines.append(f"{len(counted) - len(banded)} of the {len(counted)} counted links "
                     "have no band: no band of the total is given.")
    widest = sorted(banded, key=lambda link: -(link["total_high"] - link["total_low"])
                    / link["total_engines"])[:BAND_ROWS]
    if widest:
        lines.append("Widest bands: " + "; ".join(
            f"{link['link']} {_band(link['total_engines'], link['total_low'], link['total_high'])}"
            for link in widest) + ".")
    p.band_lines = lines
    # what the bands are, as the plan's Assumptions sheet says it ("How sure: ...")
    said = next((v for r in sheet for v in r if isinstance(v, str)
                 and v.startswith("How sure:")), "")
    said = said.split(". ")[0].removeprefix("How sure: ") + "." if said else ""
    p.band_note = ((f"The Assumptions sheet: {said} " if said else "")
                   + "The sum adds the lows and the highs: every link at its band's edge at "
                   "once, the widest the total can be under them.")


def _band(t: float, lo: float, hi: float) -> str:
    """A band relative to ``t``: ``±0.64%`` or ``-14% / +0%``."""
    down, up = 100 * (t - lo) / t, 100 * (hi - t) / t
    return f"\u00b1{up:.2g}%" if f"{down:.2g}" == f"{up:.2g}" else f"-{down:.2g}% / +{up:.2g}%"


def _warnings(p: PlanFacts):
    res = p.res
    out = []
    if res.banner:
        out.append(f"the plan shows: {res.banner}")
    out += [f"no answer, left out of the totals: {e}" for e in res.errors()]
    over = []
    for a in R.attention(res):  # the scenarios over the engines in one line
        m = re.fullmatch(r"scenario (.*) needs (\S+) of the LPAR's engines", a)
        if m:
            over.append(f"{m.group(1)} {m.group(2)}")
        else:
            out.append(a)
    if over:
        out.append("scenarios above the LPAR's engines: " + ", ".join(over))
    notes = [n for n in res.notes if "left out" in n or "missing" in n]
    out += notes
    for sc in res.scenarios:  # a scenario's note, unless it says what the Planner's says
        if sc.note and sc.note not in notes and (
                "left out" in sc.note or "covers" in sc.note or "missing" in sc.note):
            out.append(f"scenario {sc.name!r}: {sc.note}")
        for k, v in sc.totals.items():
            if isinstance(v, str) and v:
                out.append(f"scenario {sc.name!r}: {k.replace('_', ' ')} is {v!r}")
                break
    if not p.normalisation.startswith("Normalised"):
        out.append(p.normalisation.split(", so ")[0] + " (see the verdict).")
    projected = [link["link"] for link in res.links if isinstance(link.get("basis"), str)
                 and link["basis"].startswith("extrapolated")]
    if projected:
        out.append(f"{len(projected)} link(s) rest on an extrapolation beyond the measured "
                   f"points: {', '.join(map(str, projected[:6]))}"
                   + (" ..." if len(projected) > 6 else "") + " (their Basis says how).")
    if "NOT LINEAR" in p.linearity:
        out.append("the growth curve is not drawn for every line: " +
                   p.linearity.split("NOT LINEAR, not drawn: ")[1])
    p.warnings = out

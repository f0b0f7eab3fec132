"""The planning sheets: Planner, Upgrade, Scenarios and Assumptions.

The Planner's input columns (:data:`INPUTS`) and row block (:data:`FIRST_ROW`,
:data:`N_ROWS`) are the contract with :mod:`zvmplan_workbook.fill`, which writes a links
CSV into exactly those cells; the Scenarios blocks (:data:`SCENARIO_PARAMS`) likewise.
"""
from __future__ import annotations

from dataclasses import dataclass

from openpyxl.utils import get_column_letter as L
from openpyxl.worksheet.datavalidation import DataValidation

import zvmplan
from zvmplan import api, names

from . import styles as st
from .book import Book

PLANNER, UPGRADE, SCENARIOS, ASSUMPTIONS = "Planner", "Upgrade", "Scenarios", "Assumptions"
WARN_CELL = "A3"       # on every planning sheet: blank, or the zvmplan-functions warning
ENGINES_CELL = "C4"
TOTAL_ROW = 5         # totals sit ABOVE the table, so the table can grow downwards
SUB_ROW = 6           # first subtotal row: one per basis (:data:`BASES`), below the total
HEAD_ROW = 13         # column labels (the band above them, units below)
FIRST_ROW = 15
#: rows with formulas in the template; ``zvmplan fill`` adds rows for more links
#: (:mod:`zvmplan_workbook.rows`), and every total reaches the table's last row
N_ROWS = 20
LAST_ROW = FIRST_ROW + N_ROWS - 1
#: the errors that mean "this link has no answer" (ERROR.TYPE codes: #DIV/0!, #VALUE!,
#: #NUM!, #N/A): such a link is left out of the totals and counted; any other error
#: (#NAME?: the zvmplan functions are missing; #REF!, #NULL!: a broken sheet) reaches the
#: totals, which then show it
LEFT_OUT_ERRORS = (2, 3, 6, 7)
#: transports whose source gives total CPU only (002 Table 2 prints no CP / virtual split)
TOTAL_ONLY = ("GUEST_LAN",)
#: transports offered as alternatives carrying the same load (CMS_IUCV is the CMS-to-CMS
#: upper limit of IUCV, not a way to connect Linux guests)
CANDIDATES = tuple(t for t in names.TRANSPORTS if t != "CMS_IUCV")
TX_WORKLOADS = api.TX_WORKLOADS  # loads in tx/s; every other workload in MB/s (one definition)
STATUS_COL = "U"               # In totals: yes / total only / no
CAND_COL0 = 22                 # column V: first "carried by each transport" column
PROC_COL = L(CAND_COL0 + len(CANDIDATES))        # the processor the row's transport was measured on
SPEED_COL = L(CAND_COL0 + len(CANDIDATES) + 1)   # the speed factor the row uses
ON_COL = L(CAND_COL0 + len(CANDIDATES) + 2)      # whose engines the row's CPU figures are
BAND_COL0 = CAND_COL0 + len(CANDIDATES) + 3      # low / high of CP, virtual and total CPU
BASIS_COL = L(BAND_COL0 + 6)
NOT_NORMALISED = "not normalised: measured on different processors"
#: the printed Planner, one group of columns per A4 page across (the Link column and the
#: headings repeat): inputs and CPU per unit; CPU needed, rate check, cheapest, totals;
#: the candidates and processor basis; the bands and the basis
PRINT_PAGES = [("A", "L"), ("M", STATUS_COL), (L(CAND_COL0), ON_COL),
               (L(BAND_COL0), BASIS_COL)]
#: the measured processors, in the order of the sources, and the transports of each
PROCESSORS = tuple(dict.fromkeys(zvmplan.processor(t).name for t in names.TRANSPORTS))
#: the CPU figures of a link with a speed factor (its own, or the Assumptions capacity of
#: its processor) are engines of the planner's machine; without one, of the processor its
#: transport was measured on. A sum is a plain number only over links of one basis.
MACHINE = "your machine"
BASES = (MACHINE,) + PROCESSORS
#: a total over links of more than one basis: the share of the LPAR shows this instead
SHARE_NOT_NORMALISED = "not normalised"
NOTE_ROW = SUB_ROW + len(BASES)   # the Planner's highlight rules, under the subtotals
#: the cells the totals' text (Q of the totals row) is wrapped in: beside the totals and
#: subtotals, left of In totals (the subtotal rows write nothing in Q..T)
TOTALS_TEXT_BLOCK = f"Q{TOTAL_ROW}:T{NOTE_ROW - 1}"
COUNT_FORMAT = '0" links"'        # a count of links beside a total or subtotal
assert NOTE_ROW + 2 == HEAD_ROW, "the Planner's band row sits between the note and headings"
ASSUME_CAP_ROW = 7     # Assumptions: first processor row (capacity inputs in column B)
ASSUME_TX_ROW = ASSUME_CAP_ROW + len(PROCESSORS) + 3   # first transport row
ASSUME_TX_LAST = ASSUME_TX_ROW + len(names.TRANSPORTS) - 1


def cap_cell(processor: str) -> str:
    """The Assumptions input: target per-engine capacity relative to ``processor``."""
    return f"{ASSUMPTIONS}!$B${ASSUME_CAP_ROW + PROCESSORS.index(processor)}"


def factor_cell(transport: str) -> str:
    """Assumptions: the speed factor a link over ``transport`` uses ("" if not given)."""
    return f"{ASSUMPTIONS}!$C${ASSUME_TX_ROW + list(names.TRANSPORTS).index(transport)}"


def factor_of(t: str) -> str:
    """The Assumptions speed factor of the transport in cell/expression ``t``."""
    return (f"VLOOKUP({t},{ASSUMPTIONS}!$A${ASSUME_TX_ROW}:$C${ASSUME_TX_LAST},3,FALSE)")
#: what the warning cell says when the zvmplan functions do not answer, and what to do
WARNING = ("zvmplan functions unavailable: values below are not computed. Open this file in "
           "Excel with the zvmplan add-in, or recalculate it with: zvmplan calc FILE --in-place")


@dataclass(frozen=True)
class InputCol:
    key: str        # links CSV column
    label: str
    unit: str
    kind: str       # text | transport | workload | level | number | bytes | count
    required: bool
    help: str


INPUTS = (
    InputCol("link", "Link", "name", "text", True, "a name for the link, e.g. the two guests"),
    InputCol("transport", "Transport", "", "transport", True,
             "how the guests are connected"),
    InputCol("workload", "Workload", "", "workload", True,
             "STREAM (000), FTP_GET (001), RR, CRR, STRG (002/003)"),
    InputCol("size_bytes", "MTU or transfer size", "bytes", "bytes", True,
             "MTU; for CMS_IUCV the transfer size"),
    InputCol("connections", "Connections", "count", "count", False,
             "concurrent connections (RR, CRR, STRG); blank for STREAM and FTP_GET"),
    InputCol("level", "z/VM level", "", "level", False,
             "blank: the level the transport was measured at"),
    InputCol("speed_factor", "Processor speed factor", "x measured", "number", False,
             "per-engine capacity of your processor relative to the one the transport was "
             "measured on (Measured on column); blank: the Assumptions sheet's, else 1"),
    InputCol("load", "Required load", "MB/s or tx/s", "number", True,
             "MB/s for STREAM, FTP_GET and STRG; tx/s for RR and CRR"),
)
COL = {c.key: L(i + 1) for i, c in enumerate(INPUTS)}
#: number formats of the input kinds that are numbers (whole bytes show no decimals)
INPUT_FORMATS = {"number": "#,##0.###", "bytes": "#,##0"}

SCENARIO_BLOCKS = 5
#: link, CP, virtual, total, share, in totals, carried by, speed factor, engines of, gap
SCENARIO_WIDTH = 10
SCENARIO_PARAMS = (
    ("name", "Scenario name", "text"),
    ("load_factor", "Load factor [x Planner load]", "number"),
    ("level", "z/VM level [blank: each link's own]", "level"),
    ("transport", "Transport [blank: each link's own]", "transport"),
    ("speed_up", "Speed-up vs today [x; blank: 1]", "number"),
)
SCEN_PARAM_ROW = 6     # first parameter row
SCEN_TOTAL_ROW = 11    # totals above the table, as on the Planner
SCEN_COUNT_ROW = 12    # what the totals include and leave out
SCEN_HEAD_ROW = 13
SCEN_FIRST_ROW = 15    # row i of the Planner's table is row i here
SCEN_LAST_ROW = SCEN_FIRST_ROW + N_ROWS - 1
#: the printed Scenarios: one block per A4 page across
SCENARIO_PRINT_PAGES = [(L(1 + b * SCENARIO_WIDTH), L((b + 1) * SCENARIO_WIDTH - 1))
                        for b in range(SCENARIO_BLOCKS)]

EXAMPLES = (
    ("linux1-linux2 bulk copy (IUCV)", "IUCV", "STREAM", 9000, None, "3.1.0", 1.5, 40),
    ("web -> app over OSA (RR)", "OSA_GBE", "RR", 1492, 20, "4.4.0", 1, 5000),
    ("backup stream over HiperSockets", "HIPERSOCKETS", "STRG", 57344, 10, "4.4.0", 1, 150),
    ("FTP to the LAN (LCS)", "LCS", "FTP_GET", 1500, None, "4.1.0", 1, 5),
)
SCENARIO_EXAMPLES = (
    ("low", 0.5, None, None, None),
    ("base", 1, None, None, None),
    ("high", 2, None, None, None),
    ("high on z/VM 4.4.0", 2, "4.4.0", None, None),
)
UPGRADES = (
    ("OSA web tier, RR", "OSA_GBE", "RR", 1492, 20, 1, 5000, "4.3.0", "4.4.0"),
    ("OSA web tier, CRR", "OSA_GBE", "CRR", 8992, 50, 1, 2000, "4.3.0", "4.4.0"),
    ("OSA bulk, STRG", "OSA_GBE", "STRG", 8992, 10, 1, 100, "4.3.0", "4.4.0"),
    ("HiperSockets RR", "HIPERSOCKETS", "RR", 57344, 10, 1, 10000, "4.3.0", "4.4.0"),
    ("HiperSockets bulk, STRG", "HIPERSOCKETS", "STRG", 16384, 10, 1, 150, "4.3.0", "4.4.0"),
    ("LCS FTP", "LCS", "FTP_GET", 1500, None, 1, 5, "3.1.0", "4.1.0"),
    ("real CTC FTP", "ESCON_CTC", "FTP_GET", 1500, None, 1, 5, "3.1.0", "4.1.0"),
)
UPGRADE_ROWS = 10
UPGRADE_HEAD = 6                         # Upgrade: header row; units below
UPGRADE_FIRST = UPGRADE_HEAD + 2         # first what-if row
UPGRADE_INPUTS = 9                       # input columns A..I of each what-if row
#: the printed Upgrade: inputs and CP CPU; total CPU and the basis before; the basis after
UPGRADE_PRINT_PAGES = [("A", "N"), ("O", "S"), ("T", "T")]


# ------------------------------------------------------------- formulas -------
def s(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def nz(ref: str) -> str:
    """A cell's value, or "" when it is empty (a formula returning an empty cell gives 0)."""
    return f'IF({ref}="","",{ref})'


def conn_arg(t: str, e: str) -> str:
    """Connections for a per-MB call: only the STRG-derived transports take it."""
    if t.startswith('"'):  # a literal transport: decide now
        return e if t.strip('"') in api.TX_TRANSPORTS else '""'
    test = ",".join(f"{t}={s(x)}" for x in api.TX_TRANSPORTS)
    return f'IF(OR({test}),{nz(e) if e.startswith("$") else e},"")'


_FN = {"cp": ("CPCPU_PER_MB", "CPCPU_PER_TX"), "v": ("VCPU_PER_MB", "VCPU_PER_TX"),
       "tot": ("TOTCPU_PER_MB", "TOTCPU_PER_TX")}


def per_unit(kind: str, t, w, d, e, lv, sp, unit) -> str:
    """CPU per unit of load: CPU-s/MB or CPU-ms/tx, by the unit of the load."""
    mb, tx = _FN[kind]
    return (f'IF({unit}="tx/s",{tx}({t},{w},{d},{e},{lv},{sp}),'
            f'{mb}({t},{d},{lv},{sp},{conn_arg(t, e)}))')


def band(kind: str, i: int, t, w, d, e, lv, sp, unit) -> str:
    """Low (``i`` 1) or high (2) end of the band of CPU per unit (ZVM_RANGE)."""
    mb, tx = _FN[kind]
    return (f'IF({unit}="tx/s",INDEX(ZVM_RANGE("{tx}",{t},{w},{d},{e},{lv},{sp}),1,{i}),'
            f'INDEX(ZVM_RANGE("{mb}",{t},{d},{lv},{sp},{conn_arg(t, e)}),1,{i}))')


def engines(kind: str, t, w, d, e, lv, sp, unit, load) -> str:
    """CPU-seconds per second (engines) for ``load``: load x CPU per unit."""
    return f'{load}*{per_unit(kind, t, w, d, e, lv, sp, unit)}/IF({unit}="tx/s",1000,1)'


def total_only(t: str) -> str:
    return "OR(" + ",".join(f"{t}={s(x)}" for x in TOTAL_ONLY) + ")"


def basis(t, w, d, e, lv, sp, unit) -> str:
    return (f'IF({unit}="tx/s",ZVM_BASIS("TOTCPU_PER_TX",{t},{w},{d},{e},{lv},{sp}),'
            f'ZVM_BASIS("TOTCPU_PER_MB",{t},{d},{lv},{sp},{conn_arg(t, e)}))')


def unit_of(w: str) -> str:
    test = ",".join(f"{w}={s(x)}" for x in TX_WORKLOADS)
    return f'IF(OR({test}),"tx/s","MB/s")'


# ---------------------------------------------------------- validation --------
def validation(kind: str, blank_ok: bool = True) -> DataValidation:
    if kind in ("transport", "workload", "level"):
        items = {"transport": list(names.TRANSPORTS), "workload": list(names.WORKLOADS),
                 "level": list(names.LEVELS)}[kind]
        dv = DataValidation(type="list", formula1='"' + ",".join(items) + '"',
                            allow_blank=blank_ok)
        dv.error = f"Choose one of: {', '.join(items)}"
    elif kind == "count":
        dv = DataValidation(type="whole", operator="greaterThanOrEqual", formula1="1",
                            allow_blank=blank_ok)
        dv.error = "A whole number of connections, 1 or more"
    elif kind == "bytes":
        dv = DataValidation(type="whole", operator="greaterThanOrEqual", formula1="1",
                            allow_blank=blank_ok)
        dv.error = "A whole number of bytes, 1 or more"
    else:
        dv = DataValidation(type="decimal", operator="greaterThan", formula1="0",
                            allow_blank=blank_ok)
        dv.error = "A number greater than 0"
    dv.errorTitle = "zvmplan"
    dv.errorStyle = "stop"
    dv.showErrorMessage = True
    dv.showInputMessage = True
    return dv


def _add_validations(ws, spec: dict[str, list[str]]):
    for kind, cells in spec.items():
        if not cells:
            continue
        dv = validation(kind)
        ws.add_data_validation(dv)
        for ref in cells:
            dv.add(ref)


# ================================================================ Planner =====
def warning_formula() -> str:
    """Blank while the zvmplan functions answer, :data:`WARNING` when they do not.

    ISERROR is meant here: its purpose is to see the #NAME? of a missing add-in.
    ``T(NOW())`` (always "") makes the cell volatile, so Excel and LibreOffice check again
    at every recalculation, not only when the file is opened."""
    return f'=IF(ISERROR(INDEX(ZVM_TRANSPORTS(),1,1)),{s(WARNING)},"")&T(NOW())'


def left_out(ref: str) -> str:
    """TRUE when ``ref`` holds an error meaning "this link has no answer"."""
    return "OR(" + ",".join(f"ERROR.TYPE({ref})={k}" for k in LEFT_OUT_ERRORS) + ")"


def left_out_once(expr: str) -> str:
    """:func:`left_out` evaluating ``expr`` once (ERROR.TYPE's code looked up among the
    digits of :data:`LEFT_OUT_ERRORS`), for a long expression: FALSE for any other error."""
    return f'ISNUMBER(FIND(ERROR.TYPE({expr}),"{"".join(map(str, LEFT_OUT_ERRORS))}"))'


def status(blank: str, cp: str, v: str, tot: str, t: str) -> str:
    """In totals: "yes" (CP, virtual and total), "total only" (a transport whose source
    gives total CPU only), "no" (the total is an error of :data:`LEFT_OUT_ERRORS`), or
    the error itself (anything else, e.g. #NAME?), which the totals then show."""
    return (f'=IF({blank},"",IF(ISNUMBER({tot}),IF(AND(ISNUMBER({cp}),ISNUMBER({v})),"yes",'
            f'IF({total_only(t)},"total only",IF(ISERROR({cp}),{cp},{v}))),'
            f'IF({left_out(tot)},"no",{tot})))')


def counted(st_rng: str, on_rng: str, base: str) -> str:
    """How many links of ``base`` (:data:`BASES`) a Total CPU counts."""
    return "+".join(f'COUNTIFS({on_rng},{s(base)},{st_rng},"{w}")' for w in ("yes", "total only"))


def subtotal(col: str, st_rng: str, on_rng: str, base: str, *which: str) -> str:
    """The sum of ``col`` over the links of ``base`` whose status is one of ``which``."""
    return "+".join(f'SUMIFS({col},{on_rng},{s(base)},{st_rng},"{w}")' for w in which)


def totals(st_rng: str, name_rng: str, cols: dict[str, str], engines: str, on_rng: str,
           on_ref: str, subtotals_where: str) -> dict[str, str]:
    """Formulas of a totals row: key -> formula for keys cp, v, tot (ranges), on, share
    and text.

    A total counts the links whose status is "yes" (and "total only" for the total CPU);
    an error in the status column (which only an unexpected error puts there) is shown
    instead of a sum. ``on`` says whose engines the total is: the one basis of every link
    it counts (:data:`BASES`), or :data:`NOT_NORMALISED` when they are of more than one;
    then ``share`` (read from ``on_ref``, the cell holding ``on``) is
    :data:`SHARE_NOT_NORMALISED`, never a percentage, and ``text`` says why first and
    says where the subtotals by basis are (``subtotals_where``). ``text`` says how many
    links each total includes and what it leaves out."""
    guard = f"SUM({st_rng})"  # status is text: 0, unless an error is in it
    yes, tonly, no = (f'COUNTIF({st_rng},"{x}")' for x in ("yes", "total only", "no"))

    def sumif(col, *which):
        return "+".join(f'SUMIF({st_rng},"{w}",{col})' for w in which)

    def err(f):
        return f"=IF(ISERROR({guard}),{guard},{f})"
    # the basis of the first link counted; the total is of that basis if every link
    # counted is, else it is not normalised
    first = (f'IF({yes}>0,INDEX({on_rng},MATCH("yes",{st_rng},0)),'
             f'INDEX({on_rng},MATCH("total only",{st_rng},0)))')
    same = "+".join(f'COUNTIFS({on_rng},{first},{st_rng},"{w}")' for w in ("yes", "total only"))
    out = {
        "cp": err(sumif(cols['cp'], 'yes')),
        "v": err(sumif(cols['v'], 'yes')),
        "tot": err(sumif(cols['tot'], 'yes', 'total only')),
        "on": err(f'IF({yes}+{tonly}=0,"",IF({same}<{yes}+{tonly},{s(NOT_NORMALISED)},'
                  f'{first}))'),
        "share": (f'=IF({on_ref}={s(NOT_NORMALISED)},{s(SHARE_NOT_NORMALISED)},'
                  f'{cols["tot_total"]}/{engines})'),
        "text": (f'=IF(ISERROR({guard}),{guard},IF({on_ref}={s(NOT_NORMALISED)},'
                 f'"NOT NORMALISED: the total adds engines of different processors ({subtotals_where}), '
                 f'so it is no capacity of any one machine and no share of the LPAR is given; '
                 f'give your machine\'s capacities (Assumptions sheet, or zvmplan fill '
                 f'--machine). ","")&"Total CPU counts "&({yes}+{tonly})&" of "'
                 f'&({yes}+{tonly}+{no})&" links"&IF({no}>0,"; left out: "&{no}&'
                 f'" with no answer (In totals = no; first: "&INDEX({name_rng},'
                 f'MATCH("no",{st_rng},0))&"; its Basis says why)","")&". CP and virtual '
                 f'CPU count "&{yes}&" links"&IF({tonly}>0,"; they leave out "&{tonly}&'
                 f'" link(s) whose source gives total CPU only (Guest LAN, 002)","")&".")'),
    }
    return out


def planner_row(r: int) -> dict[str, tuple[str, str]]:
    """The Planner's computed cells of row ``r``: column letter -> (formula, number format).
    The template and :mod:`zvmplan_workbook.rows` (more rows for ``zvmplan fill``) both
    write exactly these."""
    ncand = len(CANDIDATES)
    t, w, d, e, lv, load = (f"$B{r}", f"$C{r}", f"$D{r}", f"$E{r}", f"$F{r}", f"$H{r}")
    sp = f"${SPEED_COL}{r}"   # the row's own factor, else the Assumptions one, else "" (1)
    unit = f"$I{r}"
    blank = f'$B{r}=""'
    out = {"I": (f'=IF({blank},"",{unit_of(w)})', "General")}
    for col, kind in (("J", "cp"), ("K", "v")):
        out[col] = (f'=IF({blank},"",IF({total_only(t)},"total only",'
                    f'{per_unit(kind, t, w, d, e, lv, sp, unit)}))', "0.000000")
    out["L"] = (f'=IF({blank},"",{per_unit("tot", t, w, d, e, lv, sp, unit)})', "0.000000")
    for col, src in (("M", "J"), ("N", "K")):
        out[col] = (f'=IF(OR({blank},${src}{r}="total only"),"",'
                    f'{load}*${src}{r}/IF({unit}="tx/s",1000,1))', "0.000")
    out["O"] = (f'=IF({blank},"",{load}*$L{r}/IF({unit}="tx/s",1000,1))', "0.000")
    out["P"] = (f'=IF({blank},"",$O{r}/${ENGINES_CELL[0]}${ENGINES_CELL[1:]})', "0.0%")
    rate = (f'IF({unit}="tx/s",TX_PER_SEC({t},{w},{d},{e},{lv},{sp}),'
            f'MB_PER_SEC({t},{d},{lv},{sp},{conn_arg(t, e)}))')
    # #N/A only: the source published no rate there (FTP_GET); any other error shows
    out["Q"] = (f'=IF({blank},"",IFNA({rate},"not published"))', "#,##0.0")
    # the payload a real device's wire or channel carries at the row's MTU, in the sources'
    # MB (ZVM_PAYLOAD_RATE; #N/A: memory-to-memory, no wire; an MTU the device cannot have
    # leaves the measured-rate check)
    line = f"IFNA(ZVM_PAYLOAD_RATE({t},{d}),\"\")"
    rate_check = f'IF(ISTEXT($Q{r}),"",IF({load}<=$Q{r},"yes","no: above it"))'
    out["R"] = (f'=IF({blank},"",IF(AND({unit}="MB/s",ISNUMBER({line})),IF({load}>{line},'
                f'"no: above the line rate",{rate_check}),{rate_check}))', "General")
    cands = f"${L(CAND_COL0)}{r}:${L(CAND_COL0 + ncand - 1)}{r}"
    names_row = f"${L(CAND_COL0)}${HEAD_ROW}:${L(CAND_COL0 + ncand - 1)}${HEAD_ROW}"
    # a candidate is a number or an error; COUNTIF/MINIFS see the numbers only. With none,
    # the row's own total decides: its error (e.g. #NAME?) shows, never a plausible word
    # each candidate's speed factor: the row's where it was measured on the row's
    # processor, else the Assumptions one for its processor ("" if not given)
    cand_sp = {x: f'IF(${PROC_COL}{r}="{zvmplan.processor(x).name}",${SPEED_COL}{r},'
                  f'{factor_cell(x)})' for x in CANDIDATES}
    cell = {x: f"${L(CAND_COL0 + k)}{r}" for k, x in enumerate(CANDIDATES)}
    # not normalised: answers on more than one processor, and one of them without a factor
    lacking = "+".join(f'ISNUMBER({cell[x]})*({cand_sp[x]}="")' for x in CANDIDATES)
    procs = "+".join("(" + "+".join(f"ISNUMBER({cell[x]})" for x in CANDIDATES
                                     if zvmplan.processor(x).name == p) + ">0)"
                     for p in PROCESSORS if any(zvmplan.processor(x).name == p
                                                for x in CANDIDATES))
    cheapest = f'INDEX({names_row},1,MATCH(MINIFS({cands},{cands},">=0"),{cands},0))'
    out["S"] = (f'=IF({blank},"",IF(COUNTIF({cands},">=0")=0,IF(ISERROR($L{r}),$L{r},'
                f'"none measured"),IF(AND({procs}>1,{lacking}>0),'
                f'"{NOT_NORMALISED}; lowest as published: "&{cheapest},{cheapest})))',
                "General")
    out["T"] = (f'=IF({blank},"",IF(ISERROR($S{r}),$S{r},IF(COUNTIF({cands},">=0")=0,"",'
                f'MINIFS({cands},{cands},">=0"))))', "0.000")
    out[STATUS_COL] = (status(blank, f"$M{r}", f"$N{r}", f"$O{r}", t), "General")
    for k, x in enumerate(CANDIDATES):
        out[L(CAND_COL0 + k)] = (f'=IF({blank},"",{engines("tot", s(x), w, d, e, lv, cand_sp[x], unit, load)})',
                                 "0.000")
    out[PROC_COL] = (f'=IF({blank},"",ZVM_PROCESSOR({t}))', "General")
    out[SPEED_COL] = (f'=IF({blank},"",IF($G{r}<>"",$G{r},{factor_of(t)}))', "General")
    out[ON_COL] = (f'=IF({blank},"",IF({sp}<>"",{s(MACHINE)},${PROC_COL}{r}))', "General")
    for k, kind in enumerate(("cp", "v", "tot")):
        for i in (1, 2):
            f = f'{load}*{band(kind, i, t, w, d, e, lv, sp, unit)}/IF({unit}="tx/s",1000,1)'
            if kind != "tot":
                f = f'IF({total_only(t)},"",{f})'
            out[L(BAND_COL0 + 2 * k + i - 1)] = (f'=IF({blank},"",{f})', "0.000")
    out[BASIS_COL] = (f'=IF({blank},"",{basis(t, w, d, e, lv, sp, unit)})', "General")
    return out


def subtotal_label(base: str) -> str:
    """The Planner's label of the subtotal row of ``base`` (:data:`BASES`)."""
    if base == MACHINE:
        return "of which on your machine (a speed factor given)"
    ts = ", ".join(t for t in names.TRANSPORTS if zvmplan.processor(t).name == base)
    return f"of which as measured on the {base} ({ts})"


def planner_totals(last: int) -> dict[str, tuple[str, str]]:
    """The Planner's totals row (above the table) and its subtotal rows, one per basis
    (:data:`BASES`), for a table ending at row ``last``."""
    def rng(c):
        return f"${c}${FIRST_ROW}:${c}${last}"
    st_rng, on_rng = rng(STATUS_COL), rng(ON_COL)
    tot = totals(st_rng, rng("A"), {"cp": rng("M"), "v": rng("N"), "tot": rng("O"),
                                    "tot_total": f"$O${TOTAL_ROW}"},
                 f"${ENGINES_CELL[0]}${ENGINES_CELL[1:]}", on_rng, f"${ON_COL}${TOTAL_ROW}",
                 "the subtotals below")
    out = {f"M{TOTAL_ROW}": (tot["cp"], "0.000"), f"N{TOTAL_ROW}": (tot["v"], "0.000"),
           f"O{TOTAL_ROW}": (tot["tot"], "0.000"), f"P{TOTAL_ROW}": (tot["share"], "0.0%"),
           f"Q{TOTAL_ROW}": (tot["text"], "General"),
           f"{ON_COL}{TOTAL_ROW}": (tot["on"], "General")}
    guard = f"SUM({st_rng})"
    for i, b in enumerate(BASES):
        r = SUB_ROW + i
        n = f"${STATUS_COL}${r}"
        out[f"{STATUS_COL}{r}"] = (f"=IF(ISERROR({guard}),{guard},{counted(st_rng, on_rng, b)})",
                                   COUNT_FORMAT)
        # CP and virtual: blank where the basis has only 'total only' links (Guest LAN)
        yes = f'COUNTIFS({on_rng},{s(b)},{st_rng},"yes")'
        for col, which, none in (("M", ("yes",), yes), ("N", ("yes",), yes),
                                 ("O", ("yes", "total only"), n)):
            out[f"{col}{r}"] = (f'=IF(ISERROR({guard}),{guard},IF({none}=0,"",'
                                f'{subtotal(rng(col), st_rng, on_rng, b, *which)}))', "0.000")
    return out


#: conditional formats of the Planner: (columns, rule for the first row, fill or font, the
#: rule as the sheet states it)
PLANNER_RULES = (
    ("H", f'LEFT($R{FIRST_ROW},3)="no:"', "fill",
     "red load: above the rate measured at this configuration or above a real device's "
     "line rate (Rate check says no)"),
    ("P", f"AND(ISNUMBER(P{FIRST_ROW}),P{FIRST_ROW}>1)", "fill",
     "red share: more than 100% of the LPAR's engines (also the total)"),
    (STATUS_COL, f'${STATUS_COL}{FIRST_ROW}="no"', "left",
     "orange 'no': a link left out of the totals (its Basis says why)"),
    (f"{L(CAND_COL0)}:{L(CAND_COL0 + len(CANDIDATES) - 1)}", f"ISERROR({L(CAND_COL0)}{FIRST_ROW})",
     "grey", "grey error: that transport was not measured at this configuration"),
)


def rule_range(cols: str, first: int, last: int) -> str:
    a, _, b = cols.partition(":")
    return f"{a}{first}:{b or a}{last}"


def basis_of_total(ws, ref: str) -> None:
    """Style the cell saying whose engines a total is (``ref``): it may say
    :data:`NOT_NORMALISED`, 48 characters in a column of 16, which one line cuts after
    "not normalised: measu" in print and on screen; wrapped in 8-point text it fits."""
    ws[ref].font = st.Font(size=8, bold=ws[ref].font.b)
    ws[ref].alignment = st.Alignment(wrap_text=True, vertical="top")
    row = ws.row_dimensions[ws[ref].row]
    row.height = max(row.height or 0, 24)


def sheet_planner(book: Book):
    ws = book.wb.create_sheet(PLANNER)
    ncand = len(CANDIDATES)
    c_cand0 = CAND_COL0
    widths = {"A": 30, "B": 14, "C": 10, "D": 11, "E": 12, "F": 9, "G": 10, "H": 11, "I": 7,
              "J": 12, "K": 12, "L": 12, "M": 11, "N": 11, "O": 11, "P": 11, "Q": 13, "R": 12,
              "S": 56, "T": 11, STATUS_COL: 11}
    widths.update({L(c_cand0 + i): 14 for i in range(ncand)})
    widths.update({PROC_COL: 18, SPEED_COL: 10, ON_COL: 16})  # "(ZVM_PROCESSOR)" on a line
    widths.update({L(BAND_COL0 + i): 10 for i in range(6)})
    widths[BASIS_COL] = 80
    st.widths(ws, widths)
    ws.sheet_view.zoomScale = 90
    st.title(ws, "Planner - CPU for your links between virtual machines",
             "Fill the yellow cells, one link per row. Green cells compute CPU in engines "
             "(CPU-seconds per second) from the published measurements; Basis (far right) says "
             "how each figure was obtained. How to read it: the Assumptions sheet.",
             width_cols=12)
    st.warning(ws, WARN_CELL, warning_formula(), 12)
    st.label(ws["A4"], "LPAR engines available [engines]", bold=True)
    ws.merge_cells("A4:B4")
    st.input_cell(ws[ENGINES_CELL], 2, "0.0")
    ws["D4"] = "the processors of the LPAR the guests run in (the sources measured 2-way LPARs)"
    ws["D4"].font = st.NOTE_FONT
    r = TOTAL_ROW
    st.label(ws[f"A{r}"], "Total of all links below [engines]", bold=True)
    for i, b in enumerate(BASES):
        # wrapped: column A repeats on every printed page, where the next column holds a
        # subtotal, so an overflowing label would be cut after ~35 characters
        st.label(ws[f"A{SUB_ROW + i}"], subtotal_label(b), wrap=True)
        ws[f"A{SUB_ROW + i}"].font = st.Font(size=8)
        ws.row_dimensions[SUB_ROW + i].height = 21  # two 8-point lines
        st.output(ws[f"{ON_COL}{SUB_ROW + i}"], b)
    for ref, (f, fmt) in planner_totals(LAST_ROW).items():
        st.output(ws[ref], f, fmt)
        if ref[1:] == str(TOTAL_ROW) or ref[2:] == str(TOTAL_ROW):
            ws[ref].font = st.BOLD
    ws[f"P{TOTAL_ROW}"].alignment = st.Alignment(shrink_to_fit=True)
    ws[f"P{TOTAL_ROW}"].font = st.Font(bold=True, size=9)
    for q in range(TOTAL_ROW, NOTE_ROW):
        ws[f"Q{q}"].border = st.Border()
        ws[f"Q{q}"].fill = st.PatternFill()
        ws[f"Q{q}"].font = st.Font(bold=q == TOTAL_ROW, size=9)
    # what the totals count (and NOT NORMALISED first) runs to ~500 characters: wrapped in
    # the empty block beside the totals, within their printed page (M..U), not overflowing
    # into the next page's columns and under the processor-basis cell
    ws[f"Q{TOTAL_ROW}"].alignment = st.Alignment(wrap_text=True, vertical="top")
    ws.merge_cells(TOTALS_TEXT_BLOCK)
    basis_of_total(ws, f"{ON_COL}{TOTAL_ROW}")
    book.refs["planner.total_engines"] = f"Planner!$O${r}"
    book.refs["planner.total_on"] = f"Planner!${ON_COL}${r}"
    # the links the total counts: the sum of the subtotals' counts (fixed rows)
    book.refs["planner.counted"] = (f"SUM(Planner!${STATUS_COL}${SUB_ROW}:"
                                    f"${STATUS_COL}${NOTE_ROW - 1})")
    n = NOTE_ROW
    ws[f"A{n}"] = ("Highlighted: " + "; ".join(rule[3] for rule in PLANNER_RULES) + ". Yellow: "
                   "input; green: computed (protected); the example rows show a worked plan: "
                   "overwrite or clear them.")
    ws[f"A{n}"].font = st.NOTE_FONT
    ws[f"A{n}"].alignment = st.WRAP
    ws.merge_cells(f"A{n}:L{n}")   # within the first printed page
    ws.row_dimensions[n].height = 40

    st.band(ws, HEAD_ROW - 1, 1, len(INPUTS), "Inputs")
    st.band(ws, HEAD_ROW - 1, 9, 12, "CPU per unit of load")
    st.band(ws, HEAD_ROW - 1, 13, 16, "CPU needed")
    st.band(ws, HEAD_ROW - 1, 17, 18, "Rate check")
    st.band(ws, HEAD_ROW - 1, 19, 20, "Cheapest for this load")
    st.band(ws, HEAD_ROW - 1, 21, 21, "Totals")
    st.band(ws, HEAD_ROW - 1, c_cand0, c_cand0 + ncand - 1,
            "Total CPU if carried by each transport (same MTU, level, load; an error: not "
            "measured there)")
    st.band(ws, HEAD_ROW - 1, c_cand0 + ncand, c_cand0 + ncand + 2, "Processor basis")
    st.band(ws, HEAD_ROW - 1, BAND_COL0, BAND_COL0 + 5, "How sure: band of the CPU figures "
            "(ZVM_RANGE)")
    st.band(ws, HEAD_ROW - 1, BAND_COL0 + 6, BAND_COL0 + 6, "Why")
    for i, c in enumerate(INPUTS):
        st.header(ws, HEAD_ROW, i + 1, c.label, c.unit)
    heads = [("Load unit", ""), ("CP CPU per unit", "CPU-s/MB or CPU-ms/tx"),
             ("Virtual CPU per unit", "CPU-s/MB or CPU-ms/tx"),
             ("Total CPU per unit", "CPU-s/MB or CPU-ms/tx"),
             ("CP CPU", "engines"), ("Virtual CPU", "engines"), ("Total CPU", "engines"),
             ("Share of LPAR", "% of engines"),
             ("Measured rate at this configuration", "MB/s or tx/s"),
             ("Load within measured rate?", ""),
             ("Cheapest transport", "lowest total CPU"), ("Its total CPU", "engines"),
             ("In totals", "yes / total only / no")]
    for i, (h, u) in enumerate(heads):
        st.header(ws, HEAD_ROW, 9 + i, h, u)
    for i, t in enumerate(CANDIDATES):
        st.header(ws, HEAD_ROW, c_cand0 + i, t, "engines")
    st.header(ws, HEAD_ROW, c_cand0 + ncand, "Measured on (ZVM_PROCESSOR)", "processor")
    st.header(ws, HEAD_ROW, c_cand0 + ncand + 1, "Speed factor used", "x measured")
    st.header(ws, HEAD_ROW, c_cand0 + ncand + 2, "CPU figures are engines of", "machine")
    for k, what in enumerate(("CP CPU", "Virtual CPU", "Total CPU")):
        st.header(ws, HEAD_ROW, BAND_COL0 + 2 * k, f"{what} low", "engines")
        st.header(ws, HEAD_ROW, BAND_COL0 + 2 * k + 1, f"{what} high", "engines")
    st.header(ws, HEAD_ROW, BAND_COL0 + 6, "Basis of the total CPU (ZVM_BASIS)", "")
    ws.row_dimensions[HEAD_ROW].height = 58
    ws.row_dimensions[HEAD_ROW + 1].height = 26
    for c in range(1, BAND_COL0 + 7):
        ws.cell(HEAD_ROW + 1, c).alignment = st.CENTER

    for i in range(N_ROWS):
        r = FIRST_ROW + i
        ex = EXAMPLES[i] if i < len(EXAMPLES) else (None,) * len(INPUTS)
        for j, c in enumerate(INPUTS):
            cell = ws.cell(r, j + 1)
            st.input_cell(cell, ex[j], INPUT_FORMATS.get(c.kind, "General"))
            if c.kind == "level":
                cell.alignment = st.Alignment(horizontal="center")
        for col, (f, fmt) in planner_row(r).items():
            st.output(ws[f"{col}{r}"], f, fmt)
        # one line, cut at the cell's edge (as on screen): a wrapped text in a 15-point
        # row prints over the rows below it
        ws[f"{BASIS_COL}{r}"].alignment = st.Alignment(vertical="top")
        # "not normalised: ...; lowest as published: IUCV" whole, in a smaller font
        ws[f"S{r}"].alignment = st.Alignment(shrink_to_fit=True)
        ws.row_dimensions[r].height = 15
    dv: dict[str, list[str]] = {"number": [ENGINES_CELL]}
    for c in INPUTS:
        if c.kind != "text":
            dv.setdefault(c.kind, []).append(f"{COL[c.key]}{FIRST_ROW}:{COL[c.key]}{LAST_ROW}")
    _add_validations(ws, dv)
    for cols, rule, how, _ in PLANNER_RULES:
        style = {"fill": {"fill": st.ATTENTION_FILL}, "left": {"fill": st.LEFT_OUT_FILL},
                 "grey": {"font": st.GREY_FONT}}[how]
        st.attention(ws, rule_range(cols, FIRST_ROW, LAST_ROW), rule, **style)
    st.attention(ws, f"P{TOTAL_ROW}", f"AND(ISNUMBER(P{TOTAL_ROW}),P{TOTAL_ROW}>1)",
                 fill=st.ATTENTION_FILL)
    ws.freeze_panes = f"B{FIRST_ROW}"
    st.protect(ws)
    return ws


# ================================================================ Upgrade =====
def sheet_upgrade(book: Book):
    ws = book.wb.create_sheet(UPGRADE)
    st.widths(ws, {"A": 26, "B": 14, "C": 10, "D": 10, "E": 12, "F": 10, "G": 10, "H": 9,
                   "I": 9, "J": 7, **{L(i): 11 for i in range(11, 19)}, "S": 100, "T": 140})
    ws.sheet_view.zoomScale = 90
    st.title(ws, "Upgrade what-if - what a z/VM level change saves for a given load",
             "4.3.0 -> 4.4.0 brings Queued I/O Assist to OSA_GBE and HIPERSOCKETS (003, "
             "measured); 3.1.0 -> 4.1.0 brings fast CCW translation to LCS and ESCON_CTC (001, "
             "measured). Other transports change little or nothing (see Assumptions).",
             width_cols=14)
    st.warning(ws, WARN_CELL, warning_formula(), 14)
    head = UPGRADE_HEAD
    st.band(ws, head - 1, 1, UPGRADE_INPUTS, "Inputs")
    st.band(ws, head - 1, 10, 14, "CP CPU")
    st.band(ws, head - 1, 15, 18, "Total CPU")
    st.band(ws, head - 1, 19, 20, "Basis (ZVM_BASIS of the total CPU per unit)")
    heads = [("What", ""), ("Transport", ""), ("Workload", ""), ("MTU", "bytes"),
             ("Connections", "count"), ("Speed factor", "x measured"),
             ("Load", "MB/s or tx/s"), ("From level", ""), ("To level", ""), ("Unit", ""),
             ("CP before", "engines"), ("CP after", "engines"), ("CP saved", "engines"),
             ("CP saved", "%"), ("Total before", "engines"), ("Total after", "engines"),
             ("Total saved", "engines"), ("Total saved", "%"), ("Before", ""), ("After", "")]
    for i, (h, u) in enumerate(heads):
        st.header(ws, head, i + 1, h, u)
    ws.row_dimensions[head].height = 30
    ws.row_dimensions[head + 1].height = 26
    for c in range(1, len(heads) + 1):
        ws.cell(head + 1, c).alignment = st.CENTER
    dv = {"transport": [], "workload": [], "level": [], "number": [], "bytes": [], "count": []}
    kinds = ("text", "transport", "workload", "bytes", "count", "number", "number", "level",
             "level")
    first = UPGRADE_FIRST
    for i in range(UPGRADE_ROWS):
        r = first + i
        ex = UPGRADES[i] if i < len(UPGRADES) else (None,) * 9
        for j, k in enumerate(kinds):
            st.input_cell(ws.cell(r, j + 1), ex[j], INPUT_FORMATS.get(k, "General"))
            if k != "text":
                dv[k].append(ws.cell(r, j + 1).coordinate)
        t, w, d, e, load, l0, l1 = (f"$B{r}", f"$C{r}", f"$D{r}", f"$E{r}", f"$G{r}",
                                    f"$H{r}", f"$I{r}")
        sp = f'IF($F{r}<>"",$F{r},{factor_of(t)})'  # the row's, else the Assumptions one
        unit = f"$J{r}"
        blank = f'$B{r}=""'
        st.output(ws[f"J{r}"], f'=IF({blank},"",{unit_of(w)})')
        for col, kind, lv in (("K", "cp", l0), ("L", "cp", l1)):
            st.output(ws[f"{col}{r}"], f'=IF({blank},"",IF({total_only(t)},"total only",'
                      f'{engines(kind, t, w, d, e, lv, sp, unit, load)}))', "0.0000")
        st.output(ws[f"M{r}"], f'=IF(OR({blank},$K{r}="total only"),"",$K{r}-$L{r})', "0.0000")
        st.output(ws[f"N{r}"], f'=IF(OR({blank},$K{r}="total only"),"",$M{r}/$K{r})', "0.0%")
        st.output(ws[f"O{r}"], f'=IF({blank},"",{engines("tot", t, w, d, e, l0, sp, unit, load)})',
                  "0.0000")
        st.output(ws[f"P{r}"], f'=IF({blank},"",{engines("tot", t, w, d, e, l1, sp, unit, load)})',
                  "0.0000")
        st.output(ws[f"Q{r}"], f'=IF({blank},"",$O{r}-$P{r})', "0.0000")
        st.output(ws[f"R{r}"], f'=IF({blank},"",$Q{r}/$O{r})', "0.0%")
        for col, lv in (("S", l0), ("T", l1)):
            st.output(ws[f"{col}{r}"], f'=IF({blank},"",{basis(t, w, d, e, lv, sp, unit)})')
            ws[f"{col}{r}"].alignment = st.WRAP
        # the examples' bases: up to ~570 characters, five lines in these widths
        ws.row_dimensions[r].height = 78 if i < len(UPGRADES) else 15
        for c in range(1, 21):
            cell = ws.cell(r, c)
            cell.alignment = st.Alignment(vertical="top", wrap_text=c >= 19)
    _add_validations(ws, dv)
    row = first + UPGRADE_ROWS + 1
    for text in (
        "Saved = before - after, in engines (CPU-seconds per second) for the load given; % is "
        "of the 'before' figure. A negative saving is a cost.",
        "The rows above are examples, not a plan's links: zvmplan fill clears them. For your "
        "links at another z/VM level, give a scenario that level (Scenarios sheet).",
        "Queued I/O Assist figures come from two guests in a dedicated 2-way LPAR; with many "
        "diverse guests, or CP work other than QDIO, expect less (003 Discussion of Results).",
    ):
        row = st.note(ws, row, text, width_cols=14)
    _stack_changes(ws, row + 1)
    ws.freeze_panes = f"B{first}"
    st.protect(ws)
    return ws


#: 004's VM TCP/IP stack ranges: throughput per transport, CPU per unit for all devices
STACK_TRANSPORTS = ("HIPERSOCKETS", "GUEST_LAN", "CLAW", "VCTC")
STACK_WORKLOADS = ("STRG", "RR", "CRR")


def _stack_changes(ws, row: int) -> int:
    """004's z/VM 4.3.0 VM TCP/IP stack changes (ZVM_STACK_CHANGE): {low, high} in %."""
    st.h2(ws, row, "z/VM 4.3.0 VM TCP/IP stack changes (004; VM TCP/IP stack endpoints only, "
          "never the Linux-guest figures above)")
    row += 1
    for k, (h, u) in enumerate((("Transport", ""), ("Workload", ""), ("Throughput low", "%"),
                                ("Throughput high", "%"), ("CPU per unit low", "%"),
                                ("CPU per unit high", "%"))):
        st.header(ws, row, 1 + k, h, u)
    ws.row_dimensions[row].height = 30
    row += 2
    for t in STACK_TRANSPORTS + ("ALL",):
        for w in STACK_WORKLOADS:
            st.label(ws.cell(row, 1), t, bold=True)
            st.label(ws.cell(row, 2), w)
            for k, metric in ((0, "throughput"), (2, "cpu")):
                if (metric == "cpu") != (t == "ALL"):
                    continue
                for i in (1, 2):
                    st.output(ws.cell(row, 3 + k + i - 1),
                              f'=INDEX(ZVM_STACK_CHANGE("{t}","{w}","{metric}"),1,{i})', "0")
            row += 1
    return row


# ============================================================== Scenarios =====
def scenario_col(block: int) -> int:
    """First column of scenario block ``block`` (0-based)."""
    return 1 + block * SCENARIO_WIDTH


def scenario_refs(block: int) -> dict[str, str]:
    c0 = scenario_col(block)
    return {key: f"${L(c0 + 1)}${SCEN_PARAM_ROW + k}"
            for k, (key, _, _) in enumerate(SCENARIO_PARAMS)}


def tx_processor(t: str) -> str:
    """The processor the transport in cell/expression ``t`` was measured on (the
    Assumptions sheet's ZVM_PROCESSOR column)."""
    return f"VLOOKUP({t},{ASSUMPTIONS}!$A${ASSUME_TX_ROW}:$C${ASSUME_TX_LAST},2,FALSE)"


def scenario_row(block: int, r: int) -> dict[str, tuple[str, str]]:
    """Computed cells of scenario ``block``'s row ``r`` (the Planner's row
    ``FIRST_ROW + r - SCEN_FIRST_ROW``): column letter -> (formula, number format).

    Carried by: the scenario's transport, or the link's own where the scenario names none
    or its transport has no answer for the link (an error of :data:`LEFT_OUT_ERRORS`):
    such a link stays on its own transport, so every scenario counts the same links.
    Speed factor: the link's factor for the transport carrying it (the Planner row's where
    that transport was measured on the same processor as the link's own, else the
    Assumptions one), times the scenario's speed-up vs today."""
    P = PLANNER
    c0 = scenario_col(block)
    refs = scenario_refs(block)
    pr = FIRST_ROW + r - SCEN_FIRST_ROW
    pc = {c.key: f"{P}!${COL[c.key]}${pr}" for c in INPUTS}
    own, scen_t = pc["transport"], refs["transport"]
    lv = f'IF({refs["level"]}="",{nz(pc["level"])},{refs["level"]})'
    load = f'{pc["load"]}*IF({refs["load_factor"]}="",1,{refs["load_factor"]})'
    e = nz(pc["connections"])
    unit = f"{P}!$I${pr}"
    blank = f'OR({refs["name"]}="",{pc["transport"]}="")'
    w, d = pc["workload"], pc["size_bytes"]
    t = f"${L(c0 + 6)}{r}"          # Carried by
    sp = f"${L(c0 + 7)}{r}"         # Speed factor used
    probe = per_unit("tot", scen_t, w, d, e, lv, '""', unit)
    # the link's factor today for the transport carrying it ("" if none is given)
    base = (f'IF({tx_processor(t)}={P}!${PROC_COL}${pr},{nz(f"{P}!${SPEED_COL}${pr}")},'
            f'{factor_of(t)})')
    up = refs["speed_up"]
    out = {L(c0): (f'=IF({blank},"",{pc["link"]})', "General")}
    for k, kind in ((1, "cp"), (2, "v")):
        out[L(c0 + k)] = (f'=IF({blank},"",IF({total_only(t)},"total only",'
                          f'{engines(kind, t, w, d, e, lv, sp, unit, load)}))', "0.000")
    out[L(c0 + 3)] = (f'=IF({blank},"",{engines("tot", t, w, d, e, lv, sp, unit, load)})',
                      "0.000")
    out[L(c0 + 4)] = (f'=IF({blank},"",{L(c0 + 3)}{r}/{P}!${ENGINES_CELL[0]}$'
                      f'{ENGINES_CELL[1:]})', "0.0%")
    out[L(c0 + 5)] = (status(blank, f"{L(c0 + 1)}{r}", f"{L(c0 + 2)}{r}", f"{L(c0 + 3)}{r}", t),
                      "General")
    # "no answer" from the scenario's transport keeps the link on its own; any other
    # error (#NAME?: the zvmplan functions are missing) shows, never a plausible name
    out[L(c0 + 6)] = (f'=IF({blank},"",IF(OR({scen_t}="",{scen_t}={own}),{own},'
                      f'IF(ISNUMBER({probe}),{scen_t},IF({left_out_once(probe)},{own},{probe}))))',
                      "General")
    out[L(c0 + 7)] = (f'=IF({blank},"",IF({base}="",IF({up}="","",{up}),'
                      f'{base}*IF({up}="",1,{up})))', "General")
    out[L(c0 + 8)] = (f'=IF({blank},"",IF({base}<>"",{s(MACHINE)},{tx_processor(t)}))',
                      "General")
    return out


#: what the first Scenarios block says when no block has a name
NO_SCENARIOS = ("No scenarios given: a block computes once it has a name (zvmplan fill: "
                "--scenarios FILE).")


def scenario_totals(block: int, last: int, p_last: int | None = None
                    ) -> dict[str, tuple[str, str]]:
    """Scenario ``block``'s totals (above its table) for a table ending at row ``last``
    (the Planner's table ending at ``p_last``: by default, the same rows): CP, virtual and
    total CPU, the share of the LPAR (or "not normalised"), the links counted, the links
    kept on their own transport and whose engines the total is; below, what they include."""
    c0 = scenario_col(block)
    refs = scenario_refs(block)
    name = refs["name"]

    def rng(k):
        return f"${L(c0 + k)}${SCEN_FIRST_ROW}:${L(c0 + k)}${last}"
    on_ref = f"${L(c0 + 8)}${SCEN_TOTAL_ROW}"
    tot = totals(rng(5), rng(0), {"cp": rng(1), "v": rng(2), "tot": rng(3),
                                  "tot_total": f"${L(c0 + 3)}${SCEN_TOTAL_ROW}"},
                 f"{PLANNER}!${ENGINES_CELL[0]}${ENGINES_CELL[1:]}", rng(8), on_ref,
                 "CPU figures are engines of, per link")
    # rows inserted by hand in the Planner have no row here: then the block covers fewer
    # links than the Planner has, and its totals say so instead of adding what is left
    p_last = p_last or FIRST_ROW + last - SCEN_FIRST_ROW
    p_st = f"{PLANNER}!${STATUS_COL}${FIRST_ROW}:${STATUS_COL}${p_last}"

    def count(st_rng, which=("yes", "total only", "no")):
        return "+".join(f'COUNTIF({st_rng},"{x}")' for x in which)
    p_n, s_n = count(p_st), count(rng(5))
    short = f"({p_n})<>({s_n})"
    kept = (f'IF({refs["transport"]}="",0,SUMPRODUCT(({rng(6)}<>"")*'
            f'({rng(6)}<>{refs["transport"]})))')
    out = {}
    for k, key, fmt in ((1, "cp", "0.000"), (2, "v", "0.000"), (3, "tot", "0.000"),
                        (4, "share", "0.0%"), (8, "on", "General")):
        out[f"{L(c0 + k)}{SCEN_TOTAL_ROW}"] = (
            f'=IF({name}="","",IF({short},"rows missing",{tot[key][1:]}))', fmt)
    guard = f"SUM({rng(5)})"   # an error in the status column (e.g. #NAME?) shows
    out[f"{L(c0 + 5)}{SCEN_TOTAL_ROW}"] = (
        f'=IF({name}="","",IF(ISERROR({guard}),{guard},'
        f'{count(rng(5), ("yes", "total only"))}))', COUNT_FORMAT)
    out[f"{L(c0 + 6)}{SCEN_TOTAL_ROW}"] = (f'=IF({name}="","",{kept})', '0" kept";-0;""')
    keep_text = (f'IF({kept}>0," "&{kept}&" link(s) that "&{refs["transport"]}&" cannot carry '
                 f'stay on their own transport (Carried by, highlighted), so this total counts '
                 f'the same links as the others.","")')
    # the first block says so when no block has a name: a plan filled without scenarios
    blanks = ",".join(f'{scenario_refs(b)["name"]}=""' for b in range(SCENARIO_BLOCKS))
    none = f"IF(AND({blanks}),{s(NO_SCENARIOS)},\"\")" if block == 0 else '""'
    out[f"{L(c0)}{SCEN_COUNT_ROW}"] = (
        f'=IF({name}="",{none},IF({short},"This block covers "&({s_n})&" of the Planner\'s "&'
        f'({p_n})&" links: its table needs as many rows as the Planner\'s (copy its last row '
        f'down, or use zvmplan fill).",{tot["text"][1:]}&{keep_text}))', "General")
    return out


#: conditional formats of each scenario block: (column offset, rule, style, stated rule)
SCENARIO_RULES = (
    (4, "share", "fill", "red share: the scenario needs more than 100% of the LPAR's engines "
     "(total and per link)"),
    (5, "status", "left", "orange 'no': a link left out of the totals (the Planner's Basis "
     "says why)"),
    (6, "kept", "kept", "blue Carried by: a link the scenario's transport cannot carry, kept "
     "on its own transport and counted"),
)


def sheet_scenarios(book: Book):
    ws = book.wb.create_sheet(SCENARIOS)
    ws.sheet_view.zoomScale = 90
    width = SCENARIO_BLOCKS * SCENARIO_WIDTH - 1
    for b in range(SCENARIO_BLOCKS):
        c0 = scenario_col(b)
        st.widths(ws, {L(c0): 30, L(c0 + 1): 11, L(c0 + 2): 11, L(c0 + 3): 11, L(c0 + 4): 10,
                       L(c0 + 5): 10, L(c0 + 6): 14, L(c0 + 7): 10, L(c0 + 8): 15,
                       L(c0 + 9): 3})
    st.title(ws, "Scenarios - the Planner's links under several assumptions, side by side",
             "Each block takes the Planner's links and changes them: load x factor, and "
             "optionally one z/VM level, one transport, or a processor speed-up vs today "
             "(it multiplies each link's own speed factor: 1.3 = 30% faster, every CPU figure "
             "/ 1.3). Links the scenario's transport cannot carry stay on their own, so every "
             "block counts the same links. "
             "Fill the yellow cells (or: zvmplan fill ... --scenarios file). A block without "
             "a name stays empty. Highlighted: "
             + "; ".join(x[3] for x in SCENARIO_RULES) + ".", width_cols=SCENARIO_WIDTH - 1)
    ws.row_dimensions[2].height = 45   # the subtitle within the first printed page
    st.warning(ws, WARN_CELL, warning_formula(), SCENARIO_WIDTH - 1)
    dv = {"transport": [], "level": [], "number": []}
    for b in range(SCENARIO_BLOCKS):
        c0 = scenario_col(b)
        ex = SCENARIO_EXAMPLES[b] if b < len(SCENARIO_EXAMPLES) else (None,) * 5
        st.band(ws, SCEN_PARAM_ROW - 1, c0, c0 + 8, f"Scenario {b + 1}")
        for k, (key, lab, kind) in enumerate(SCENARIO_PARAMS):
            r = SCEN_PARAM_ROW + k
            st.label(ws.cell(r, c0), lab, bold=(k == 0))
            cell = ws.cell(r, c0 + 1)
            st.input_cell(cell, ex[k])
            if kind in dv:
                dv[kind].append(cell.coordinate)
        refs = scenario_refs(b)
        note = ws.cell(SCEN_PARAM_ROW + 3, c0 + 2)
        st.output(note, f'=IF({refs["transport"]}<>"",'
                  f'IF({factor_of(refs["transport"])}="","{NOT_NORMALISED}",""),"")')
        note.fill = st.PatternFill()
        note.border = st.Border()
        note.font = st.Font(size=9, color="C00000")
        st.label(ws.cell(SCEN_TOTAL_ROW, c0), "Total of all links [engines]", bold=True)
        for ref, (f, fmt) in scenario_totals(b, SCEN_LAST_ROW).items():
            st.output(ws[ref], f, fmt)
            small = ws[ref].column in (c0 + 5, c0 + 6, c0 + 8)   # counts, basis
            ws[ref].font = st.Font(size=9) if small else st.BOLD
        ws[f"{L(c0 + 4)}{SCEN_TOTAL_ROW}"].alignment = st.Alignment(shrink_to_fit=True)
        basis_of_total(ws, f"{L(c0 + 8)}{SCEN_TOTAL_ROW}")
        count = ws.cell(SCEN_COUNT_ROW, c0)
        count.font = st.Font(size=9)
        count.alignment = st.WRAP
        ws.merge_cells(start_row=SCEN_COUNT_ROW, start_column=c0, end_row=SCEN_COUNT_ROW,
                       end_column=c0 + 8)
        heads = [("Link", ""), ("CP CPU", "engines"), ("Virtual CPU", "engines"),
                 ("Total CPU", "engines"), ("Share of LPAR", "%"),
                 ("In totals", "yes / total only / no"), ("Carried by", "transport"),
                 ("Speed factor used", "x measured"), ("CPU figures are engines of",
                                                       "machine")]
        for k, (h, u) in enumerate(heads):
            st.header(ws, SCEN_HEAD_ROW, c0 + k, h, u)
            ws.cell(SCEN_HEAD_ROW + 1, c0 + k).alignment = st.CENTER
        for i in range(N_ROWS):
            r = SCEN_FIRST_ROW + i
            for col, (f, fmt) in scenario_row(b, r).items():
                st.output(ws[f"{col}{r}"], f, fmt)
        for k, key in ((3, "total"), (5, "counted"), (6, "kept"), (8, "on")):
            book.refs[f"scenario.{b}.{key}"] = f"Scenarios!${L(c0 + k)}${SCEN_TOTAL_ROW}"
        for off, _, how, _ in SCENARIO_RULES:
            col = L(c0 + off)
            rng = f"{col}{SCEN_FIRST_ROW}:{col}{SCEN_LAST_ROW}"
            if how == "fill":
                for ref, first in ((rng, f"{col}{SCEN_FIRST_ROW}"),
                                   (f"{col}{SCEN_TOTAL_ROW}", f"{col}{SCEN_TOTAL_ROW}")):
                    st.attention(ws, ref, f"AND(ISNUMBER({first}),{first}>1)",
                                 fill=st.ATTENTION_FILL)
            elif how == "left":
                st.attention(ws, rng, f'{col}{SCEN_FIRST_ROW}="no"', fill=st.LEFT_OUT_FILL)
            else:   # kept on its own transport: not the scenario's
                t = scenario_refs(b)["transport"]
                st.attention(ws, rng, f'AND({t}<>"",{col}{SCEN_FIRST_ROW}<>"",'
                             f'{col}{SCEN_FIRST_ROW}<>{t})', fill=st.KEPT_FILL)
    ws.row_dimensions[SCEN_COUNT_ROW].height = 50
    ws.row_dimensions[SCEN_HEAD_ROW].height = 40
    ws.row_dimensions[SCEN_HEAD_ROW + 1].height = 26
    _add_validations(ws, dv)
    ws.freeze_panes = f"A{SCEN_FIRST_ROW}"
    st.protect(ws)
    return ws


# ============================================================ Assumptions =====
def _target_processor(ws, row: int) -> int:
    """The planner's per-engine capacities of the target machine relative to each measured
    processor (yellow, blank by default: zvmplan invents none), and the speed factor each
    transport uses from them; the Planner, Upgrade and Scenarios read the latter."""
    st.h2(ws, row, "Your processor (optional): per-engine capacity relative to each measured one")
    st.note(ws, row + 1, "Take the ratios from zPCR or LSPR for your machine; zvmplan supplies "
            "none (zvmplan fill --machine FILE.toml or --capacity PROC=X,... writes them here). "
            "Blank: figures stay on the measured processor (speed factor 1), every comparison "
            f"across transports says '{NOT_NORMALISED}' and a total over links of different "
            "processors says 'not normalised' instead of a share of the LPAR. A Planner row's "
            "own speed factor overrides these.", width_cols=3)
    st.header(ws, ASSUME_CAP_ROW - 1, 1, "Measured processor", None)
    st.header(ws, ASSUME_CAP_ROW - 1, 2, "Your per-engine capacity relative to it [x]", None)
    st.header(ws, ASSUME_CAP_ROW - 1, 3, "Measured there (source hardware section)", None)
    for i, p in enumerate(PROCESSORS):
        r = ASSUME_CAP_ROW + i
        st.label(ws.cell(r, 1), p, bold=True)
        st.input_cell(ws.cell(r, 2), None, "0.###")
        ts = [t for t in names.TRANSPORTS if zvmplan.processor(t).name == p]
        st.label(ws.cell(r, 3), f"{', '.join(ts)} ({zvmplan.processor(ts[0]).label})",
                 wrap=True)
        ws.row_dimensions[r].height = 30
    dv = validation("number")
    ws.add_data_validation(dv)
    dv.add(f"B{ASSUME_CAP_ROW}:B{ASSUME_CAP_ROW + len(PROCESSORS) - 1}")
    st.header(ws, ASSUME_TX_ROW - 1, 1, "Transport", None)
    st.header(ws, ASSUME_TX_ROW - 1, 2, "Measured on (ZVM_PROCESSOR)", None)
    st.header(ws, ASSUME_TX_ROW - 1, 3, "Speed factor a link uses when its row gives none [x]",
              None)
    for i, t in enumerate(names.TRANSPORTS):
        r = ASSUME_TX_ROW + i
        st.label(ws.cell(r, 1), t, bold=True)
        st.output(ws.cell(r, 2), f'=ZVM_PROCESSOR("{t}")')
        cap = cap_cell(zvmplan.processor(t).name).split("!")[1]
        st.output(ws.cell(r, 3), f'=IF({cap}="","",{cap})', "0.###")
    return ASSUME_TX_LAST + 2


def strg_spread() -> dict[str, float]:
    """How far 003's STRG runs at different connection counts are apart, from the data:
    the largest ratio of total CPU per transaction among the 10-, 20- and 50-connection runs
    of one series (device, MTU, level) for OSA GbE and HiperSockets (minus 1), and the range
    of OSA's 1-connection / 20-connection ratio. The sheet states these instead of a claim."""
    from zvmplan.data import find
    runs: dict[tuple, dict[int, float]] = {}
    for r in find(document="003", workload="STRG", metric="tot_cpumsec_per_tx", stat="value"):
        runs.setdefault((r.transport, r.size_bytes, r.level), {})[r.connections] = r.value
    out = {"OSA_GBE": 0.0, "HIPERSOCKETS": 0.0}
    single = []
    for (t, _, _), v in runs.items():
        many = [v[c] for c in (10, 20, 50) if c in v]
        out[t] = max(out[t], max(many) / min(many) - 1)
        if t == "OSA_GBE":
            single.append(v[1] / v[20])
    from zvmplan.strg_default import default_connections
    osa = {default_connections("OSA_GBE", mtu, lv)[0] for (t, mtu, lv) in runs
           if t == "OSA_GBE"}
    if len(osa) != 1:   # the sentence below names one count for OSA GbE
        raise ValueError(f"OSA GbE's default connection counts differ by MTU: {sorted(osa)}")
    return {"osa": out["OSA_GBE"], "hs": out["HIPERSOCKETS"], "single_lo": min(single),
            "single_hi": max(single), "osa_default": osa.pop()}


STRG_SPREAD_TEXT = (
    "A per-MB figure of OSA_GBE, HIPERSOCKETS or GUEST_LAN comes from STRG runs, and its "
    "connection count matters: in 003 the 10-, 20- and 50-connection runs of one series "
    "differ by up to {osa:.0%} in total CPU per transaction on OSA GbE (Table 7, MTU 8992) "
    "and up to {hs:.1%} on HiperSockets, and OSA's 1-connection runs (one stream) cost "
    "{single_lo:.2f}-{single_hi:.2f}x the 20-connection CPU. Left blank, the count is the "
    "measured one with the most total CPU per MB at that MTU and level (zvmplan.strg_default; "
    "OSA GbE: {osa_default:g}, a single stream; Guest LAN: 50, its only count), so a blank "
    "never understates CPU against a measured concurrency; the Basis of each answer names the "
    "count. Give the concurrency you expect.")


def sheet_assumptions(book: Book, notes: dict):
    ws = book.wb.create_sheet(ASSUMPTIONS)
    st.widths(ws, {"A": 24, "B": 95, "C": 50})
    row = st.title(ws, "Assumptions - what the Planner's numbers rest on",
                   "Each assumption with the source it comes from. The basis labels say how a "
                   "particular answer was obtained (ZVM_BASIS shows it).", width_cols=3)
    row = _target_processor(ws, row)
    st.header(ws, row, 1, "Topic", None)
    st.header(ws, row, 2, "Assumption", None)
    st.header(ws, row, 3, "Source", None)
    row += 1
    mem = [t for t, v in names.TRANSPORTS.items() if v.memory_to_memory]
    real = [t for t, v in names.TRANSPORTS.items() if not v.memory_to_memory]
    for a in notes["assumption"]:
        text = a["text"].format(memory=", ".join(mem), real=", ".join(real),
                                strg_spread=STRG_SPREAD_TEXT.format(**strg_spread()))
        st.label(ws.cell(row, 1), a["topic"], bold=True, wrap=True)
        st.label(ws.cell(row, 2), text, wrap=True)
        st.label(ws.cell(row, 3), a["source"], wrap=True)
        ws.row_dimensions[row].height = 15 * max(1, -(-len(text) // 100)) + 3
        row += 1
    row += 1
    row = st.h2(ws, row, "Reading the Planner")
    for text in notes["planner_note"]:
        st.label(ws.cell(row, 2), text, wrap=True)
        ws.row_dimensions[row].height = 15 * max(1, -(-len(text) // 100)) + 3
        row += 1
    row += 1
    row = st.h2(ws, row, "Transports")
    st.header(ws, row, 1, "Transport", None)
    st.header(ws, row, 2, "What it is", None)
    st.header(ws, row, 3, "Source; measured at z/VM; memory-to-memory?", None)
    row += 1
    for t, v in names.TRANSPORTS.items():
        st.label(ws.cell(row, 1), t, bold=True)
        aliases = f" (also: {', '.join(v.aliases)})" if v.aliases else ""
        st.label(ws.cell(row, 2), v.description + aliases, wrap=True)
        st.label(ws.cell(row, 3), f"{v.source}; z/VM {zvmplan.native_level(t)}; "
                 f"{'yes' if v.memory_to_memory else 'no'}", wrap=True)
        ws.row_dimensions[row].height = 30
        row += 1
    row += 1
    row = st.h2(ws, row, "Workloads")
    for w, v in names.WORKLOADS.items():
        st.label(ws.cell(row, 1), w, bold=True)
        st.label(ws.cell(row, 2), v.description, wrap=True)
        st.label(ws.cell(row, 3), f"{v.mb_per_tx:g} MB per transaction" if v.mb_per_tx else "",
                 wrap=True)
        ws.row_dimensions[row].height = 30
        row += 1
    row += 1
    row = st.h2(ws, row, "Basis labels (how an answer was obtained)")
    for b, text in zvmplan.BASES.items():
        st.label(ws.cell(row, 1), b, bold=True)
        st.label(ws.cell(row, 2), text, wrap=True)
        ws.row_dimensions[row].height = 30
        row += 1
    st.fit_heights(ws, ASSUME_CAP_ROW - 1, row)   # no wrapped text over the next row
    return ws

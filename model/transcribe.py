"""Transcribe the numeric tables of the IBM sources into zvmplan's data files.

Run from the repository root with the sources beside the checkout::

    python build/extract_sources.py ../shared/seeds model/data

(that script calls :func:`main` here; ``tests/test_published.py`` imports this module).

Each output file is named by its source document and table and starts with a
provenance header (document, table, z/VM level, units, measured configuration).
Every number is copied as printed (column ``text``) so tests can check it to the
published digits. Numbers are parsed out of the source text, never typed by hand;
``tests/test_published.py`` re-runs this parser against the sources and compares.

Columns of every file:
    table, row, column      labels as the source prints them
    value, text             the number, and the number as printed
    unit                    from the glossary in zvmplan.names
    metric                  canonical metric name (zvmplan.names.METRICS)
    transport, workload, level, size_bytes, connections, accounting
                            the measured configuration of the cell
    stat                    value / n / mean / sd / r / cl / delta_pct / ratio ...
    role                    measured: data the model uses;
                            derived: a number the source computed from others,
                            kept only so tests can check the recomputation
"""
from __future__ import annotations

import csv
import io
import re
import sys
from pathlib import Path

COLUMNS = ["table", "row", "column", "value", "text", "unit", "metric", "transport",
           "workload", "level", "size_bytes", "connections", "accounting", "stat", "role"]

DOCS = {
    "000": ("000_c5e7b3d8d87944ef.txt", 'z/VM 3.1.0 Performance Report, "Linux Guest IUCV Driver"'),
    "001": ("001_dcafcaabf822a169.txt", 'z/VM 4.1.0 Performance Report, "Fast CCW Translation for Network I/O"'),
    "002": ("002_ef3d6b541fd5ba7c.txt", 'z/VM 4.3.0 Performance Report, "Accounting for Virtualized Network Devices"'),
    "003": ("003_aa41515170bbed55.txt", 'z/VM 4.4.0 Performance Report, "Queued I/O Assist"'),
    "004": ("004_55d156828d64f730.txt", '"VM Performance Update" presentation, May 2002'),
}

CONFIG_000 = ("9672-XZ7, two-processor dedicated LPAR, 2 GB main, 2 GB expanded; z/VM 3.1.0; "
              "guests 128 MB; Linux 2.2.16")
CONFIG_001 = ("2064-108, LPAR with 2 dedicated engines, 1 GB real, 2 GB expanded; z/VM 4.1.0 "
              "(disabled = fast CCW translation zapped out, the 3.1.0 code path); guests 128 MB; "
              "TurboLinux beta 13 (kernel 2.2.16); MTU 1500; workload 5 FTP GETs of a 100 MB file")
CONFIG_002 = ("2064-109, LPAR with 2 dedicated CPUs, 1 GB real, 2 GB XSTORE; z/VM 4.3.0; "
              "Linux 2.4.7 31-bit, 512 MB virtual uniprocessor guests; VM Guest LAN (HiperSockets "
              "mode), MTU 56 KB; 50 concurrent connections")
CONFIG_003 = ("2084-C24 (z990) LPAR, 2 dedicated engines, 2 GB central, 4 GB XSTORE; z/VM 4.3.0 "
              "(base) vs z/VM 4.4.0 with Queued I/O Assist; Linux 2.4.20 31-bit, 256 MB virtual "
              "uniprocessor guests; IBM-internal AWM")

# Units, one glossary (kept identical to zvmplan.names.UNITS; a test checks).
UNIT = {
    "mb_per_sec": "MB/s", "mb_per_cpusec": "MB/CPU-s", "cpusec_per_sec": "CPU-s/s",
    "cp_cpusec_per_mb": "CPU-s/MB", "v_cpusec_per_mb": "CPU-s/MB", "pct_cp": "%",
    "tx_per_sec": "tx/s", "v_cpumsec_per_tx": "CPU-ms/tx", "cp_cpumsec_per_tx": "CPU-ms/tx",
    "tot_cpumsec_per_tx": "CPU-ms/tx", "cp_cpusec": "CPU-s", "tot_cpusec": "CPU-s",
    "io_count": "I/O", "cp_cpusec_per_io": "CPU-s/I/O", "ratio": "ratio", "pct": "%",
}


def num(text: str) -> float:
    return float(text.replace("+", ""))


def row(table, rowl, col, text, metric, *, transport="", workload="", level="", size="",
        conns="", acct="", stat="value", role="measured", unit=None):
    return {"table": table, "row": rowl, "column": col, "value": repr(num(text)), "text": text,
            "unit": unit or UNIT.get(metric, ""), "metric": metric, "transport": transport,
            "workload": workload, "level": level, "size_bytes": size, "connections": conns,
            "accounting": acct, "stat": stat, "role": role}


def table_lines(text: str, title_start: str) -> list[str]:
    """Lines after the line starting with ``title_start`` up to the next 'Note:' line."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith(title_start):
            out = []
            for nxt in lines[i + 1:]:
                if nxt.strip().startswith("Note:"):
                    return out
                out.append(nxt)
    raise ValueError(f"table {title_start!r} not found")


# ---------------------------------------------------------------- 000 ----
M000 = ["mb_per_sec", "mb_per_cpusec", "cpusec_per_sec", "cp_cpusec_per_mb", "pct_cp"]
H000 = ["MB/sec", "MB/CPU-sec", "CPU-sec/second", "CP CPU-sec/MB", "%CP"]


def parse_000(text):
    files = {}
    for tno, title, transport, rowhead in [
        (1, "Table 1. CMS IUCV Data Rates", "CMS_IUCV", "Transfer Size (bytes)"),
        (2, "Table 2. Linux IUCV Data Rates", "IUCV", "MTU Size (bytes)"),
        (3, "Table 3. Linux CTC Data Rates", "VCTC", "MTU Size (bytes)"),
    ]:
        rows = []
        for line in table_lines(text, title):
            parts = line.split()
            if not parts or not parts[0][0].isdigit():
                continue
            size = parts[0]
            for metric, head, cell in zip(M000, H000, parts[1:]):
                rows.append(row(f"Table {tno}", f"{rowhead} {size}", head, cell, metric,
                                transport=transport, workload="STREAM", level="3.1.0", size=size))
        files[f"000_T{tno}_{transport.lower()}_data_rates.csv"] = (
            f"Table {tno}. {title.split('. ', 1)[1]}", rows,
            "streaming: " + ("CMS APPC/VM requester/server pair, 20 x 1000 exchanges per size"
                             if tno == 1 else "IBM-internal tool, stream put, 20,000,000-byte "
                             "transfers, 10 samples x 100 repetitions, API crossing = MTU"))
    # Tables 4-6: comparisons; 6 is new data (virtual CPU per MB), 4-5 are derived.
    for tno, title, metric in [(4, "Table 4. Data Rate (MB/CPU-sec) Comparisons", "mb_per_cpusec"),
                               (5, "Table 5. CP CPU-sec/MB Comparisons", "cp_cpusec_per_mb"),
                               (6, "Table 6. Virtual CPU-sec/MB Comparisons", "v_cpusec_per_mb")]:
        rows = []
        for line in table_lines(text, title):
            m = re.match(r"^(\d+) (\S+) (\S+) \((\S+)\) (\S+) \((\S+)\) \[(\S+)\]$", line.strip())
            if not m:
                continue
            size, cms, iucv, iucv_f, ctc, ctc_f, ctc_iucv = m.groups()
            role = "measured" if tno == 6 else "derived"
            for col, tr, cell in [("CMS/IUCV", "CMS_IUCV", cms), ("Linux/IUCV", "IUCV", iucv),
                                  ("Linux/CTC", "VCTC", ctc)]:
                rows.append(row(f"Table {tno}", f"MTU Size (bytes) {size}", col, cell, metric,
                                transport=tr, workload="STREAM", level="3.1.0", size=size, role=role))
            for col, tr, cell, stat in [
                ("Linux/IUCV (fraction of CMS/IUCV)", "IUCV", iucv_f, "ratio_to_CMS_IUCV"),
                ("Linux/CTC (fraction of CMS/IUCV)", "VCTC", ctc_f, "ratio_to_CMS_IUCV"),
                ("Linux/CTC [fraction of Linux/IUCV]", "VCTC", ctc_iucv, "ratio_to_IUCV")]:
                rows.append(row(f"Table {tno}", f"MTU Size (bytes) {size}", col, cell, metric,
                                transport=tr, workload="STREAM", level="3.1.0", size=size,
                                stat=stat, role="derived", unit="ratio"))
        files[f"000_T{tno}_{metric}_comparisons.csv"] = (title, rows, "as Tables 1-3")
    return {k: (v[0], v[1], v[2], CONFIG_000, "3.1.0") for k, v in files.items()}


# ---------------------------------------------------------------- 001 ----
def parse_001(text):
    files = {}
    qmap = {"CP CPU (sec)": "cp_cpusec", "Total CPU (sec)": "tot_cpusec", "I/O (count)": "io_count",
            "CP CPU per I/O (sec) (calculated)": "cp_cpusec_per_io"}
    for tno, title, transport in [(1, "Table 1. Fast CCW Translation Results - LCS", "LCS"),
                                  (2, "Table 2. Fast CCW Translation Results - ESCON", "ESCON_CTC")]:
        rows = []
        for line in table_lines(text, title):
            line = line.strip()
            q = next((q for q in qmap if line.startswith(q + " ")), None)
            if q is None:
                continue
            metric = qmap[q]
            rest = line[len(q):].split()
            if metric == "cp_cpusec_per_io":
                dis, ena, chg = rest
                rows.append(row(f"Table {tno}", q, "Disabled", dis, metric, transport=transport,
                                workload="FTP_GET", level="3.1.0", size="1500", stat="mean",
                                role="derived"))
                rows.append(row(f"Table {tno}", q, "Enabled", ena, metric, transport=transport,
                                workload="FTP_GET", level="4.1.0", size="1500", stat="mean",
                                role="derived"))
                rows.append(row(f"Table {tno}", q, "Change", chg.rstrip("%"), metric,
                                transport=transport, workload="FTP_GET", size="1500",
                                stat="delta_pct", role="derived", unit="%"))
                continue
            # e.g. 4/9.72/0.0277 r=1 4/5.91/0.0274 r=1 cl=99 delta=-39.21%
            for col, level, sample, rr in [("Disabled", "3.1.0", rest[0], rest[1]),
                                           ("Enabled", "4.1.0", rest[2], rest[3])]:
                n, mean, sd = sample.split("/")
                for stat, cell in [("n", n), ("mean", mean), ("sd", sd)]:
                    rows.append(row(f"Table {tno}", q, col, cell, metric, transport=transport,
                                    workload="FTP_GET", level=level, size="1500", stat=stat,
                                    unit="samples" if stat == "n" else None))
                rows.append(row(f"Table {tno}", q, col, rr.split("=")[1], metric,
                                transport=transport, workload="FTP_GET", level=level, size="1500",
                                stat="r", role="derived", unit="flag"))
            for tok in rest[4:]:
                key, val = tok.split("=")
                rows.append(row(f"Table {tno}", q, "Change", val.rstrip("%"), metric,
                                transport=transport, workload="FTP_GET", size="1500",
                                stat={"cl": "cl", "delta": "delta_pct"}[key], role="derived",
                                unit="%"))
        files[f"001_T{tno}_{transport.lower()}_fast_ccw.csv"] = (
            title, rows, "FTP_GET: Linux guest does 5 FTP GETs of a 100 MB file to /dev/null "
            "(500 MB per run), 4 runs per case; t-test two-tailed", CONFIG_001,
            "3.1.0 (disabled) / 4.1.0 (enabled)")
    return files


# ---------------------------------------------------------------- 002 ----
def parse_002(text):
    rows = []
    for tno, title, metric in [(1, "Table 1. Transactions Per Second", "tx_per_sec"),
                               (2, "Table 2. CPU Per Transaction (msec)", "tot_cpumsec_per_tx")]:
        toks = " ".join(table_lines(text, title)).split()
        # OFF a [b c] ... ON a pct b pct c pct (the OFF row has no % change cells)
        i_off, i_on = toks.index("OFF"), toks.index("ON")
        off, on = toks[i_off + 1:i_on], toks[i_on + 1:]
        for k, wl in enumerate(["RR", "CRR", "STRG"]):
            for acct, cell in [("OFF", off[k]), ("ON", on[2 * k])]:
                rows.append(row(f"Table {tno}", f"Accounting {acct}", wl, cell, metric,
                                transport="GUEST_LAN", workload=wl, level="4.3.0", size="57344",
                                conns="50", acct=acct))
            rows.append(row(f"Table {tno}", "Accounting ON", f"{wl} % change", on[2 * k + 1],
                            metric, transport="GUEST_LAN", workload=wl, level="4.3.0",
                            size="57344", conns="50", acct="ON", stat="delta_pct", role="derived",
                            unit="%"))
    return {"002_T1-T2_guest_lan_accounting.csv": (
        "Table 1. Transactions Per Second; Table 2. CPU Per Transaction (msec)", rows,
        "RR 200/1000 bytes, CRR 64/8192 bytes, STRG 20 bytes/20 MB; 50 concurrent connections; "
        "MTU 56 KB (57344 bytes); accounting off, then on", CONFIG_002, "4.3.0")}


# ---------------------------------------------------------------- 003 ----
M003 = ["tx_per_sec", "v_cpumsec_per_tx", "cp_cpumsec_per_tx", "tot_cpumsec_per_tx"]
H003 = ["Tx/sec", "vCPU/tx (msec)", "cCPU/tx (msec)", "tCPU/tx (msec)"]


def parse_003(text):
    files = {}
    # Table 1: summary of average % changes
    rows = []
    device = None
    for line in table_lines(text, "Device | Workload | tx/sec"):
        cells = [c.strip() for c in line.strip().split("|")]
        if len(cells) < 6 or cells[1] not in ("CRR", "RR", "STRG"):
            continue
        device = {"OSA Express Gigabit Ethernet": "OSA_GBE", "HiperSockets": "HIPERSOCKETS"}.get(
            cells[0], device)
        for metric, head, cell in zip(M003, ["tx/sec", "vCPU/tx", "cCPU/tx", "tCPU/tx"], cells[2:6]):
            t = "0" if cell == "flat" else cell.rstrip("%")
            r = row("Table 1", f"{cells[0] or device} {cells[1]}", head, t, metric,
                    transport=device, workload=cells[1], stat="avg_delta_pct", role="derived",
                    unit="%")
            r["text"] = cell
            rows.append(r)
    files["003_T1_summary_pct_change.csv"] = (
        "Table 1. Summary: average % change, z/VM 4.4.0 with Queued I/O Assist vs z/VM 4.3.0",
        rows, "averaged over all MTU sizes and connection counts ('flat' recorded as 0)",
        CONFIG_003, "4.3.0 -> 4.4.0")
    # Tables 2-19
    for m in re.finditer(r"^Table (\d+)\. (OSA Express Gigabit Ethernet|HiperSockets), "
                         r"(CRR|RR|STRG), MTU (\d+)$", text, re.M):
        tno, dev, wl, mtu = m.groups()
        transport = "OSA_GBE" if dev.startswith("OSA") else "HIPERSOCKETS"
        title = m.group(0)
        rows, conns = [], None
        for line in table_lines(text, title):
            cells = [c.strip() for c in line.strip().split("|")]
            if len(cells) < 6 or cells[1] not in ("z/VM 4.3.0", "z/VM 4.4.0", "delta", "%delta"):
                continue
            conns = cells[0] or conns
            label = cells[1]
            level = label[5:] if label.startswith("z/VM ") else ""
            stat = {"delta": "delta", "%delta": "delta_pct"}.get(label, "value")
            for metric, head, cell in zip(M003, H003, cells[2:6]):
                rows.append(row(f"Table {tno}", f"{conns} connections, {label}", head, cell, metric,
                                transport=transport, workload=wl, level=level, size=mtu,
                                conns=conns, stat=stat,
                                role="measured" if level else "derived",
                                unit="%" if stat == "delta_pct" else None))
        files[f"003_T{int(tno):02d}_{transport.lower()}_{wl.lower()}_mtu{mtu}.csv"] = (
            title, rows, {"CRR": "CRR: connect, 64-byte request, 8192-byte response, close",
                          "RR": "RR: 200-byte request, 1000-byte response, connection kept",
                          "STRG": "STRG: 20-byte request, 20 MB response, close"}[wl],
            CONFIG_003, "4.3.0 and 4.4.0")
    return files


# ---------------------------------------------------------------- 004 ----
def parse_004(text):
    rows = []
    block = text.split("## **Stack Performance Improvements**", 1)[1].split("## Contention", 1)[0]
    wmap = {"Streaming": "STRG", "CRR": "CRR", "RR": "RR"}
    tmap = {"HiperSockets": "HIPERSOCKETS", "Guest LAN": "GUEST_LAN", "CLAW": "CLAW",
            "Virtual CTC": "VCTC"}
    section, transport = "cpu", "ALL"
    for line in block.splitlines():
        s = line.strip().lstrip("-▶ ").strip()
        if s.startswith("# Stack Performance Results"):
            section = "throughput"
        if s in tmap:
            transport = tmap[s]
            continue
        m = re.match(r"^(Streaming|CRR|RR): (\d+)(?:-(\d+))?% (increase|decrease)", s)
        if not m:
            continue
        wl, lo, hi, direction = m.groups()
        hi = hi or lo  # a single figure ("RR: 2% increase") is a range of width zero
        metric = "cpu_per_unit" if section == "cpu" else "throughput"
        for stat, cell in [("low_pct", lo), ("high_pct", hi)]:
            rows.append(row("Stack Performance " + ("Improvements" if section == "cpu" else "Results"),
                            f"{transport} {wl}", f"{direction} ({stat[:-4]})", cell,
                            "pct", transport=transport, workload=wmap[wl], level="4.3.0",
                            stat=f"{metric}_{direction}_{stat}", role="measured", unit="%"))
    m = re.search(r"(\d+) to (\d+)% reduction in CP processor time", text)
    for stat, cell in [("low_pct", m.group(1)), ("high_pct", m.group(2))]:
        rows.append(row("Enhanced Network CCW Translation", "LCS and real CTC", f"CP CPU reduction ({stat[:-4]})",
                        cell, "pct", transport="LCS;ESCON_CTC", workload="FTP_GET", level="4.1.0",
                        stat=f"cp_cpu_decrease_{stat}", role="derived", unit="%"))
    return {"004_stack_improvement_ranges.csv": (
        "z/VM 4.3.0 TCP/IP stack improvements (slides 'Stack Performance Improvements' and "
        "'Stack Performance Results'); 4.1.0 network CCW translation range", rows,
        "VM TCP/IP stack endpoints only; the slides give ranges, not configurations",
        "2064-109, dedicated 2-way LPAR (VM TCP/IP measurements)", "4.3.0 (and 4.1.0)")}


def extract(seeds: Path) -> dict[str, tuple]:
    files = {}
    for key, parser in [("000", parse_000), ("001", parse_001), ("002", parse_002),
                        ("003", parse_003), ("004", parse_004)]:
        text = (seeds / DOCS[key][0]).read_text(encoding="utf-8")
        for name, spec in parser(text).items():
            files[name] = (key,) + tuple(spec)
    return files


def render(name: str, spec: tuple) -> str:
    key, title, rows, workload, config, level = spec
    doc, doc_title = DOCS[key]
    out = io.StringIO()
    out.write(f"# zvmplan data: {name}\n# document: {doc} ({doc_title})\n# table: {title}\n"
              f"# z/VM level: {level}\n# workload: {workload}\n# configuration: {config}\n"
              f"# units: per row (column 'unit'); numbers as printed in column 'text'\n"
              f"# generated by build/extract_sources.py from the document; do not edit by hand\n")
    w = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


def main(argv=None):
    argv = argv or sys.argv[1:]
    seeds, dest = Path(argv[0]), Path(argv[1])
    dest.mkdir(parents=True, exist_ok=True)
    for name, spec in extract(seeds).items():
        (dest / name).write_text(render(name, spec), encoding="utf-8")
        print(f"{name}: {len(spec[2])} numbers")


"""Micro-benchmark of the xlsx package layer (issue 11's reading and writing targets).

    python build/bench_xlsx.py [--rows 100000]
    python build/bench_xlsx.py --workbook /tmp/p/z100000.xlsx

A planner-like sheet part: per row 5 input cells (text, numbers) and 9 formula cells
with cached values. Measured in process: reading it (:func:`read_sheet`) and rewriting
every formula cell's cached value (:func:`rewrite_sheet`, bytes in and out). Targets at
100,000 rows (1.4 M cells, 900 k cached values): read <= 3 s, rewrite <= 3 s.
``--workbook`` reads the largest sheet part of a real workbook instead (for instance the
planner sheet of ``workbook/planner_sheet.py``, as openpyxl writes it: inline strings, and
``<v />`` after every formula), best of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import sys
import time

HEAD = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        b'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
        b'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        b'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" '
        b'mc:Ignorable="x14ac"><dimension ref="A1:N%d"/><sheetData>')
FORMULAS = ("CPCPU_PER_MB(A{r},B{r},C{r})", "B{r}*D{r}/1000", "IF(E{r}>0,G{r}/E{r},0)",
            "VLOOKUP(A{r},$Q$1:$R$8,2,FALSE)", "INDEX($R$1:$R$8,MATCH(A{r},$Q$1:$Q$8,0))",
            "F{r}*1.1", "A{r}&\" link\"", "G{r}/SUM(G$2:G$100001)", "ROUND(K{r},3)")


def sheet_xml(rows: int) -> bytes:
    out = [HEAD % (rows + 1)]
    for r in range(2, rows + 2):
        cells = [f'<c r="A{r}" t="s"><v>{r % 5}</v></c><c r="B{r}"><v>{9000 + r % 11}</v></c>'
                 f'<c r="C{r}" t="s"><v>5</v></c><c r="D{r}"><v>{r % 7 + 1}</v></c>'
                 f'<c r="E{r}"><v>{r % 13}</v></c>']
        for k, f in enumerate(FORMULAS):
            col = chr(ord("F") + k)
            t = ' t="str"' if k == 6 else ""
            v = "IUCV link" if k == 6 else f"{(r * (k + 1)) % 997 / 7:.15g}"
            cells.append(f'<c r="{col}{r}" s="1"{t}><f>{f.format(r=r).replace("&", "&amp;")}</f><v>{v}</v></c>')
        out.append(f'<row r="{r}" spans="1:14" x14ac:dyDescent="0.25">{"".join(cells)}</row>'.encode())
    out.append(b"</sheetData></worksheet>")
    return b"".join(out)


def run(rows: int, report=print) -> dict:
    from zvmplan_addin.xlsx import CellUpdate, SheetData, read_sheet, rewrite_sheet
    data = sheet_xml(rows)
    strings = ["IUCV", "VCTC", "HIPERSOCKETS", "OSA_GBE", "CMS_IUCV", "4.4.0"]
    t0, p0 = time.perf_counter(), time.process_time()
    sheet = SheetData("Plan", "xl/worksheets/sheet1.xml")
    read_sheet(data, sheet, strings)
    t1, p1 = time.perf_counter(), time.process_time()
    updates: dict = {}
    for (r, c) in sheet.formulas:
        updates.setdefault(r, {})[c] = CellUpdate(r * 0.5 + c if c != 12 else "IUCV link")
    t2, p2 = time.perf_counter(), time.process_time()
    new = rewrite_sheet(data, updates, layout=sheet.layout)
    t3, p3 = time.perf_counter(), time.process_time()
    n = len(sheet.formulas)
    assert n == 9 * rows and len(sheet.values) == 5 * rows, (n, len(sheet.values))
    assert new.count(b"<v>") == 14 * rows
    result = {"rows": rows, "mb": len(data) / 2**20, "read_s": t1 - t0, "rewrite_s": t3 - t2,
              "read_cpu_s": p1 - p0, "rewrite_cpu_s": p3 - p2, "cached": n}
    report(f"xlsx layer, {rows:,}-row sheet part ({result['mb']:.0f} MiB, {14 * rows:,} cells): "
           f"read {result['read_s']:.2f} s ({result['read_cpu_s']:.2f} s CPU), rewrite of "
           f"{n:,} cached values {result['rewrite_s']:.2f} s ({result['rewrite_cpu_s']:.2f} s CPU)")
    return result


def run_workbook(path: str, repeat: int = 1, report=print) -> dict:
    """Read the largest sheet part of the workbook at ``path``, ``repeat`` times."""
    from zvmplan_addin import xlsx as xlsxio
    from zvmplan_addin.xlsx import SheetData, read_sheet
    from zvmplan_addin.xlsx.sheet import REL_WORKSHEET
    with xlsxio.safe_open_xlsx(path) as pkg:
        part = max((target for _, rtype, target in pkg.rels(pkg.main)
                    if rtype.endswith(REL_WORKSHEET)), key=lambda t: pkg.infos[t].file_size)
        data = pkg.read(part)
    walls, cpus = [], []
    for _ in range(repeat):
        sheet = SheetData("S", part)
        t0, p0 = time.perf_counter(), time.process_time()
        read_sheet(data, sheet, [])
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - p0)
        cells = len(sheet.values) + len(sheet.formulas)
        del sheet
    result = {"mb": len(data) / 2**20, "cells": cells, "read_s": min(walls),
              "read_cpu_s": min(cpus)}
    report(f"{path} ({part}, {result['mb']:.0f} MiB, {cells:,} cells): read "
           f"{result['read_s']:.2f} s ({result['read_cpu_s']:.2f} s CPU), best of {repeat}")
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--workbook", help="read the largest sheet part of this workbook instead")
    p.add_argument("--repeat", type=int, default=1)
    args = p.parse_args(argv)
    if args.workbook:
        run_workbook(args.workbook, args.repeat)
    else:
        run(args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

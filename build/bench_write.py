"""CPU time of calc's write stage, beside another zvmplan's in the same rounds (issue 19).

    python build/bench_write.py PLANNER.xlsx [--reference OTHER/python] [--runs 3]

The write stage is everything from the engine's computed values to the file on disk:
gathering the values to cache (``Engine.updates``), matching them to the sheet's noted
layout (``rewrite_sheet_blocks``), the run's report, and ``write_package`` (the splice of
each sheet part, made block by block while it is deflated, and the zip). Each round runs
one child process per interpreter (this one, then ``--reference``'s, e.g. main's
``.venv/bin/python``, whose ``zvmplan_addin`` is main's): it reads and recalculates the
workbook untimed, then times the write stage ``--repeat`` times (CPU seconds of the whole
process, threads included: ``time.process_time``). Printed: the minimum of every stage
over the rounds and repeats, the output file's size, and whether every part of the two
outputs holds the same bytes (the zip container itself may differ). A script, not a
test; the planner sheet is ``workbook/planner_sheet.py``'s (``/work/wt/p100k.xlsx`` in
issue 19's session).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import zipfile

STAGES = ("updates", "rewrite", "report", "write_package", "total")

CHILD = r'''
import gc, json, sys, time
from zvmplan_addin import xlsx
from zvmplan_addin.recalc import engine as E
from zvmplan_addin.recalc.install import install_functions
from zvmplan_addin.recalc.read import release
from zvmplan_addin.recalc.write import CalcReport
src, out, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
pkg = xlsx.safe_open_xlsx(src, parse_sheets=False)
book = xlsx.read_workbook(pkg)
install_functions()
engine = E.Engine(book, None, None)
release(book)
engine.recalculate()
engine.release_compiled()
parts = {sheet.part: pkg.read(sheet.part) for sheet in book.sheets}
gc.collect()
best = {}
for _ in range(repeat):
    t0 = time.process_time()
    updates = engine.updates()
    t1 = time.process_time()
    replaced = {}
    for s, rows in updates.items():
        sheet = book.sheets[s]
        replaced[sheet.part] = xlsx.rewrite_sheet_blocks(parts[sheet.part], rows, sheet.part,
                                                         layout=sheet.layout)
    t2 = time.process_time()
    report = CalcReport(src, out)
    engine.report(report)
    t3 = time.process_time()
    again = xlsx.safe_open_xlsx(src, parse_sheets=False)    # untimed: calc has it open
    again._cache.update(parts)
    t3b = time.process_time()
    xlsx.write_package(again, out, replaced, report.full_calc_on_load)
    t4 = time.process_time()
    got = {"updates": t1 - t0, "rewrite": t2 - t1, "report": t3 - t2,
           "write_package": t4 - t3b, "total": t4 - t0 - (t3b - t3)}
    best = {k: min(v, best.get(k, v)) for k, v in got.items()}
print(json.dumps(best))
'''


def run_child(python: str, src: str, out: str, repeat: int) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    done = subprocess.run([python, "-c", CHILD, src, out, str(repeat)], capture_output=True,
                          text=True, env=env, cwd=tempfile.gettempdir(), check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_parts(a: str, b: str) -> list[str]:
    """The parts whose bytes differ between the two packages (or that only one has)."""
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        names = set(za.namelist()) | set(zb.namelist())
        return sorted(n for n in names if n not in za.namelist() or n not in zb.namelist()
                      or za.read(n) != zb.read(n))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workbook")
    parser.add_argument("--reference", metavar="PYTHON",
                        help="another interpreter with zvmplan installed (e.g. main's venv)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--repeat", type=int, default=2, help="writes per child (default 2)")
    args = parser.parse_args(argv)
    who = {"zvmplan": sys.executable}
    if args.reference:
        who["reference"] = args.reference
    work = tempfile.mkdtemp(prefix="bench-write-")
    outs = {name: os.path.join(work, f"{name}.xlsx") for name in who}
    best: dict = {}
    for _ in range(args.runs):
        for name, python in who.items():
            got = run_child(python, os.path.abspath(args.workbook), outs[name], args.repeat)
            best[name] = {k: min(v, best.get(name, {}).get(k, v)) for k, v in got.items()}
    print(f"{'CPU s (min of ' + str(args.runs) + ' rounds)':28s}" +
          "".join(f"{s:>14s}" for s in STAGES) + f"{'file MB':>10s}")
    for name in who:
        print(f"{name:28s}" + "".join(f"{best[name][s]:14.3f}" for s in STAGES) +
              f"{os.path.getsize(outs[name]) / 1e6:10.2f}")
    if args.reference:
        differing = same_parts(outs["zvmplan"], outs["reference"])
        print(f"parts differing from the reference's: {', '.join(differing) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""CPU time of the reader stage of ``zvmplan calc`` (``xlsx.safe_open_xlsx`` and
``xlsx.read_workbook``) on one workbook, for several Pythons side by side.

Each Python (a venv's ``bin/python`` with zvmplan installed: this checkout's and, say,
main's) reads the workbook in a fresh process, the Pythons taking turns for ``RUNS``
rounds; printed per Python: the minimum over the rounds of the CPU seconds (user +
system, ``time.process_time``) of opening, of reading, of both, and the peak resident
memory. A script, not a test::

    python build/readbench.py PLAN.xlsx 5 /path/to/main/.venv/bin/python .venv/bin/python
"""
from __future__ import annotations

import argparse
import subprocess

CHILD = r'''
import sys, time, resource
from zvmplan_addin import xlsx
t0 = time.process_time()
pkg = xlsx.safe_open_xlsx(sys.argv[1], parse_sheets=False)
t1 = time.process_time()
book = xlsx.read_workbook(pkg)
t2 = time.process_time()
print(t1 - t0, t2 - t1, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workbook")
    ap.add_argument("runs", type=int)
    ap.add_argument("pythons", nargs="+")
    args = ap.parse_args()
    got: dict[str, list] = {p: [] for p in args.pythons}
    for _ in range(args.runs):
        for python in args.pythons:
            out = subprocess.run([python, "-c", CHILD, args.workbook], capture_output=True,
                                 text=True, check=True).stdout
            got[python].append(tuple(map(float, out.split())))
    for python, runs in got.items():
        print(f"{python}: open {min(r[0] for r in runs):.2f}  read_workbook "
              f"{min(r[1] for r in runs):.2f}  both {min(r[0] + r[1] for r in runs):.2f} "
              f"CPU-s  peak {min(r[2] for r in runs):.0f} MB  (min of {len(runs)})")


if __name__ == "__main__":
    main()

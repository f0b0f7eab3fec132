"""Read every workbook of the corpus with the bulk sheet reader and without it: the
same sheets, or the same refusal.

For each workbook (``--corpus``, default /work/corpus: Excel-saved files from other
projects' test suites, see ``build/corpus.py``) it runs ``xlsx.safe_open_xlsx`` and
``xlsx.read_workbook`` twice, once as it is and once with ``xlsx/bulksheet.py`` handing
every part back (so expat and the regex loop of ``xlsx/fastsheet.py`` read them, the
path before the bulk reader), and compares every sheet: values (and their types),
formulas, cached values, hidden rows, filter, extent, layout offsets, dimension and
prefix; or the refusal's words. Prints each workbook that differs and a count. A
script, not a test::

    python build/corpus_readers.py [--corpus /work/corpus]
"""
from __future__ import annotations

import argparse
import glob
import os

from zvmplan_addin import xlsx
from zvmplan_addin.xlsx import bulksheet

EXTENSIONS = (".xlsx", ".xlsm", ".xltx", ".xltm")


def state(path: str) -> object:
    """What the reader makes of ``path``: each sheet's contents, or the refusal."""
    try:
        with xlsx.safe_open_xlsx(path, parse_sheets=False) as pkg:
            book = xlsx.read_workbook(pkg)
    except Exception as exc:        # a refusal, or a bug: either way it must agree
        return f"refused: {type(exc).__name__}: {exc}"
    return [(s.name, repr(s.values), [type(v).__name__ for v in s.values.values()],
             repr(s.formulas), repr(s.cached), [type(v).__name__ for v in s.cached.values()],
             s.hidden_rows, s.filter_active, s.max_row, s.max_col, bytes(s.layout.cells),
             s.layout.dimension, s.layout.prefix) for s in book.sheets]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="/work/corpus")
    args = ap.parse_args()
    files = sorted(p for p in glob.glob(os.path.join(args.corpus, "**", "*"), recursive=True)
                   if p.lower().endswith(EXTENSIONS))
    bulk = bulksheet.read_bulk
    taken = [0, 0]

    def counted(*a):
        got = bulk(*a)
        taken[0] += 1
        taken[1] += got is not None
        return got

    differ = 0
    for path in files:
        bulksheet.read_bulk = counted
        with_bulk = state(path)
        bulksheet.read_bulk = lambda *a: None
        without = state(path)
        if with_bulk != without:
            differ += 1
            print("DIFFERS", path, flush=True)
    bulksheet.read_bulk = bulk
    print(f"{len(files)} workbooks, {differ} differ; the bulk reader took {taken[1]} of "
          f"the {taken[0]} sheets offered to it")


if __name__ == "__main__":
    main()

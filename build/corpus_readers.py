"""Read every workbook of the corpus with the bulk sheet reader and without it: the
same sheets, or the same refusal.

For each workbook (``--corpus``, default /work/corpus: Excel-saved files from other
projects' test suites, see ``build/corpus.py``) it runs ``xlsx.safe_open_xlsx`` and
``xlsx.read_workbook`` twice, once as it is and once with ``xlsx/bulksheet.py`` handing
every part back (so expat and the regex loop of ``xlsx/fastsheet.py`` read them, the
path before the bulk reader), and compares every sheet: values (and their types),
formulas, cached values, hidden rows, filter, extent, layout offsets, dimension and
prefix; or the refusal's words. With ``--nodes`` it also gives each workbook read with
the bulk reader to the engine's read stage (``recalc/read.py``) twice, the sheets as the
bulk reader handed them over (columns where it could) and with their dicts asked for
first, and compares what the stage gives the engine (nodes, value grids, filled cells).
Prints each workbook that differs and a count. A script, not a test::

    python build/corpus_readers.py [--corpus /work/corpus] [--nodes]
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


def engine_input(path: str, as_dicts: bool) -> object:
    """What the engine's read stage makes of ``path`` (the sheets' dicts asked for first
    if ``as_dicts``): its nodes, grids and filled cells in a form compared with ==, or
    the refusal (and how many sheets came as columns)."""
    from zvmplan_addin.recalc.read import read_nodes
    from zvmplan_addin.recalc.runlog import RunLog
    try:
        with xlsx.safe_open_xlsx(path, parse_sheets=False) as pkg:
            book = xlsx.read_workbook(pkg)
        columns = sum(s.columns is not None for s in book.sheets)
        if as_dicts:
            for s in book.sheets:
                s.values    # noqa: B018 (asked for: the dicts made from the columns)
        log = RunLog()
        nodes = read_nodes(book, log)
    except Exception as exc:
        return f"refused: {type(exc).__name__}: {exc}", 0

    def cell(v):
        return type(v).__name__, repr(v)

    grids = [("dense", g.a.shape, [cell(v) for v in g.a.ravel()]) if g.dense else
             ("sparse", sorted((k, cell(v)) for k, v in g.d.items())) for g in nodes.grids]
    taken = [t.mask.tolist() if t.mask is not None else sorted(t.cells) for t in nodes.taken]
    return (nodes.n_sheet, nodes.n_row, nodes.n_col, nodes.n_text, nodes.n_area,
            nodes.n_kind, nodes.cells, [a.tolist() for a in nodes.where()], grids, taken,
            [nodes.n_label[i] for i in range(len(nodes))], log.warnings), columns


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="/work/corpus")
    ap.add_argument("--nodes", action="store_true",
                    help="also compare the engine's read stage from columns and from dicts")
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

    differ = nodes_differ = as_columns = 0
    for path in files:
        bulksheet.read_bulk = counted
        with_bulk = state(path)
        bulksheet.read_bulk = lambda *a: None
        without = state(path)
        if with_bulk != without:
            differ += 1
            print("DIFFERS", path, flush=True)
        bulksheet.read_bulk = bulk
        if args.nodes:
            (columns, handed), (dicts, _) = engine_input(path, False), engine_input(path, True)
            as_columns += handed
            if columns != dicts:
                nodes_differ += 1
                print("ENGINE INPUT DIFFERS", path, flush=True)
    bulksheet.read_bulk = bulk
    print(f"{len(files)} workbooks, {differ} differ; the bulk reader took {taken[1]} of "
          f"the {taken[0]} sheets offered to it")
    if args.nodes:
        print(f"engine input from columns and from dicts: {nodes_differ} workbooks differ; "
              f"{as_columns} sheets came as columns")


if __name__ == "__main__":
    main()

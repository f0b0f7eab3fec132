"""Assemble the corpus of Excel-saved workbooks the engine is scored on.

The workbooks come from the test suites of other spreadsheet projects, fetched as bare git
mirrors (``/work/.mirror/OWNER+NAME/repo``, see :data:`REPOSITORIES`). Each ``.xlsx`` /
``.xlsm`` file at the mirror's HEAD is taken when Excel itself saved it with the values
of its formulas cached (:func:`excel_saved`):

* ``docProps/app.xml`` names Microsoft Excel as the application,
* ``xl/workbook.xml`` has Excel's ``<fileVersion appName="xl" ...>``, no
  ``fullCalcOnLoad="1"`` (a writer's mark for values still to compute) and not the
  ``calcId`` other writers put there (PhpSpreadsheet's 999999),
* at least one formula cell carries a non-empty cached ``<v>``.

Libraries that write xlsx (openpyxl, XlsxWriter, PhpSpreadsheet, ExcelJS) also write
"Microsoft Excel" into app.xml, so the application alone is not evidence; the checks
above (:func:`zvmplan_addin.check.excel_saved`, tested there) drop what they write.
Files are copied (byte for byte, outside git: their licences
are their projects') into ``/work/corpus/OWNER+NAME/PATH`` and listed, one per line, in
``/work/corpus/MANIFEST.tsv`` with the repository, commit, path, licence, blob id and the
number of formula cells with a cached value.

Usage::

    python build/corpus.py [--mirrors /work/.mirror] [--out /work/corpus]

Fetching the mirrors is not done here (no network from the build); a repository that is
not mirrored is skipped with a line on stderr.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

from zvmplan_addin.check import excel_saved

#: the repositories whose test suites hold Excel-saved workbooks
REPOSITORIES = (
    "vinci1it2000/formulas", "dgorissen/pycel", "bradbase/xlcalculator", "anthill/koala",
    "PHPOffice/PhpSpreadsheet", "tafia/calamine", "ClosedXML/ClosedXML",
    "EPPlusSoftware/EPPlus", "apache/poi", "exceljs/exceljs",
    "ExcelDataReader/ExcelDataReader", "nissl-lab/npoi", "tealeg/xlsx", "qax-os/excelize",
    "jmcnamara/rust_xlsxwriter", "SheetJS/test_files",
)
MAX_BYTES = 20 * 2**20          # a larger workbook is left out (the scorer's time budget)
EXTENSIONS = (".xlsx", ".xlsm")

#: licence file text -> SPDX identifier, first match wins
_LICENCES = (
    (r"PolyForm Noncommercial", "PolyForm-Noncommercial-1.0.0"),
    (r"European Union Public Licen[cs]e", "EUPL"),
    (r"GNU LESSER GENERAL PUBLIC LICENSE", "LGPL"),
    (r"GNU GENERAL PUBLIC LICENSE\s+Version 3", "GPL-3.0"),
    (r"GNU GENERAL PUBLIC LICENSE", "GPL"),
    (r"Apache License,?\s+Version 2\.0", "Apache-2.0"),
    (r"Permission is hereby granted, free of charge", "MIT"),
    (r"Redistribution and use in source and binary forms", "BSD"),
)


def git_dir(mirrors: str, repo: str) -> str | None:
    base = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    for candidate in (os.path.join(base, ".git"), base):
        if os.path.isfile(os.path.join(candidate, "HEAD")):
            return candidate
    return None


def git(gd: str, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gd}", *args], check=True,
                          capture_output=True).stdout


def licence_of(gd: str) -> str:
    """The SPDX identifiers of the licence files at the repository's root (or legal/)."""
    names = git(gd, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
    found = []
    for name in names:
        base = name.rsplit("/", 1)[-1].lower()
        if name.count("/") > 1 or not (base.startswith(("licen", "copying"))):
            continue
        if "/" in name and not name.startswith("legal/"):
            continue
        text = git(gd, "show", f"HEAD:{name}").decode("utf-8", "replace")
        for pattern, spdx in _LICENCES:
            if re.search(pattern, text, re.I):
                if spdx not in found:
                    found.append(spdx)
                break
    return " OR ".join(found) or "unknown"


def candidates(gd: str) -> list[tuple[str, str, int]]:
    """(path, blob id, size) of each workbook file at HEAD."""
    out = []
    for line in git(gd, "ls-tree", "-r", "-l", "HEAD").decode("utf-8", "replace").splitlines():
        meta, path = line.split("\t", 1)
        _, kind, blob, size = meta.split()
        if kind == "blob" and path.lower().endswith(EXTENSIONS) and size.isdigit():
            out.append((path, blob, int(size)))
    return out


def build(mirrors: str, out: str) -> list[dict]:
    rows, seen = [], set()
    if os.path.isdir(out):
        shutil.rmtree(out)
    os.makedirs(out)
    for repo in REPOSITORIES:
        gd = git_dir(mirrors, repo)
        if gd is None:
            print(f"{repo}: not mirrored under {mirrors}, skipped", file=sys.stderr)
            continue
        commit = git(gd, "rev-parse", "HEAD").decode().strip()
        licence = licence_of(gd)
        taken = 0
        for path, blob, size in candidates(gd):
            if size > MAX_BYTES or blob in seen:
                continue
            try:
                data = git(gd, "cat-file", "blob", blob)
            except subprocess.CalledProcessError:  # a large file the mirror left out
                continue
            cells = excel_saved(data)
            if not cells:
                continue
            seen.add(blob)
            rel = os.path.join(repo.replace("/", "+"), path)
            dest = os.path.join(out, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(data)
            rows.append({"file": rel, "repository": repo, "commit": commit, "path": path,
                         "licence": licence, "blob": blob, "formula_cells": cells})
            taken += 1
        print(f"{repo}: {taken} workbooks ({licence})", file=sys.stderr)
    columns = ("file", "repository", "commit", "path", "licence", "blob", "formula_cells")
    with open(os.path.join(out, "MANIFEST.tsv"), "w", encoding="utf-8") as f:
        f.write("\t".join(columns) + "\n")
        for row in rows:
            f.write("\t".join(str(row[c]) for c in columns) + "\n")
    return rows


def read_manifest(corpus: str) -> list[dict]:
    """The rows of ``corpus``/MANIFEST.tsv as dicts (``formula_cells`` an int)."""
    with open(os.path.join(corpus, "MANIFEST.tsv"), encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    for row in rows:
        row["formula_cells"] = int(row["formula_cells"])
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--out", default="/work/corpus")
    args = ap.parse_args(argv)
    rows = build(args.mirrors, args.out)
    print(f"{len(rows)} workbooks, {sum(r['formula_cells'] for r in rows)} formula cells "
          f"with a cached value -> {args.out}/MANIFEST.tsv")
    return 0


if __name__ == "__main__":
    sys.exit(main())

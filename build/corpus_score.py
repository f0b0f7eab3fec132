"""Score the engine, and LibreOffice, against Excel on the corpus of Excel-saved workbooks.

Every formula cell of every workbook in the corpus (``build/corpus.py`` makes it, with
its ``MANIFEST.tsv``) that carries a value Excel saved is recalculated

* by zvmplan: :func:`zvmplan_addin.check.check` (the values Excel saved are taken out
  before the engine runs), each workbook in its own process with a time and memory
  budget; a crash, a refusal or a budget exceeded counts every formula cell of that
  workbook as disagreeing, listed separately;
* by LibreOffice headless with recalculation on load forced (the profile's
  ``/org.openoffice.Office.Calc/Formula/Load`` ``OOXMLRecalcMode`` = 0), converted to
  .xlsx; the values it cached are read at the same cells. A workbook LibreOffice cannot
  convert counts as disagreeing for LibreOffice.

Both are compared with Excel's values by :func:`zvmplan_addin.check.same_value`. It
prints the number of cells, the share agreeing for each, the *silent wrong values* of
each (a number, text or boolean where Excel has a different value, with no error and no
warning: for zvmplan, a cell it computed without giving a reason), and the classes of
disagreement of zvmplan (by function name and by kind) with example cells.

Usage::

    python build/corpus_score.py [--corpus /work/corpus] [--no-libreoffice]
        [--jobs 2] [--seconds 120] [--memory-mib 2048] [--json OUT.json] [--top 20]

LibreOffice's results are kept in ``CORPUS/.libreoffice/`` (by the file's blob id) so a
second run only recalculates with zvmplan.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus as corpus_mod  # noqa: E402

FUNCTION = re.compile(r"(?<![A-Za-z0-9_.\]!'])((?:_xlfn\.|_xlws\.)?[A-Za-z][A-Za-z0-9._]*)\(")


# ---------------------------------------------------------------- zvmplan ----
def _worker(path: str, memory_mib: int) -> None:
    """In a child process: check ``path`` and print every compared cell as JSON."""
    import resource
    limit = memory_mib * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from zvmplan_addin.check import check
    from zvmplan_addin.check import _json as to_json
    report = check(path, keep_cells=True)
    cells = [[s, r, c, m.cell, m.formula, to_json(m.saved), to_json(m.recalculated),
              m.computed, m.reason, agree] for s, r, c, m, agree in report.cells]
    json.dump({"sheets": report.sheets, "cells": cells, "unsaved": report.unsaved,
               "volatile": report.volatile}, sys.stdout)


def run_zvmplan(path: str, seconds: float, memory_mib: int) -> dict:
    """The worker's answer for one workbook, or ``{"failed": why}``."""
    try:
        proc = subprocess.run([sys.executable, __file__, "--one", path,
                               "--memory-mib", str(memory_mib)],
                              capture_output=True, timeout=seconds, text=True)
    except subprocess.TimeoutExpired:
        return {"failed": f"over the time budget ({seconds:.0f} s)"}
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        last = lines[-1] if lines else f"exit code {proc.returncode}"
        if "MemoryError" in proc.stderr:
            last = "over the memory budget"
        return {"failed": last[:200]}
    return json.loads(proc.stdout)


# ------------------------------------------------------------ LibreOffice ----
def libreoffice_values(rows: list[dict], corpus: str, timeout: float) -> dict:
    """blob id -> {"sheets": {name: {(r, c): value}}} or {"failed": why}: each corpus
    file recalculated by LibreOffice, cached under CORPUS/.libreoffice/BLOB.xlsx."""
    from zvmplan_workbook import planner_sheet
    cache = Path(corpus) / ".libreoffice"
    cache.mkdir(exist_ok=True)
    todo = [r for r in rows if not (cache / f"{r['blob']}.xlsx").exists()
            and not (cache / f"{r['blob']}.failed").exists()]
    exe = planner_sheet.soffice()
    if todo and exe is None:
        raise SystemExit("LibreOffice (soffice) is not installed; use --no-libreoffice")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        profile = planner_sheet.libreoffice_profile(tmp / "profile")
        for start in range(0, len(todo), 10):
            chunk = todo[start:start + 10]
            _convert(exe, profile, chunk, corpus, tmp, cache, timeout)
    out = {}
    for r in rows:
        done = cache / f"{r['blob']}.xlsx"
        out[r["blob"]] = _read_values(done) if done.exists() else {
            "failed": (cache / f"{r['blob']}.failed").read_text().strip()}
    return out


def _convert(exe, profile, chunk, corpus, tmp, cache, timeout) -> None:
    """Convert ``chunk`` in one LibreOffice run; on a failure or timeout, one by one."""
    src = tmp / "in"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir()
    inputs = []
    for r in chunk:
        ext = os.path.splitext(r["file"])[1].lower()
        p = src / f"{r['blob']}{ext}"
        shutil.copyfile(os.path.join(corpus, r["file"]), p)
        inputs.append(p)
    outdir = tmp / "out"
    proc = subprocess.Popen([exe, profile, "--headless", "--norestore", "--convert-to",
                             "xlsx:Calc MS Excel 2007 XML", "--outdir", str(outdir),
                             *map(str, inputs)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=timeout * len(inputs))
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # the soffice this run started, and its children
        proc.wait()
        if len(chunk) > 1:
            for r in chunk:
                _convert(exe, profile, [r], corpus, tmp, cache, timeout)
            return
    for r, p in zip(chunk, inputs):
        made = outdir / f"{r['blob']}.xlsx"
        if made.exists():
            shutil.move(str(made), cache / f"{r['blob']}.xlsx")
        elif len(chunk) == 1:
            (cache / f"{r['blob']}.failed").write_text("LibreOffice wrote no file "
                                                      "(or ran over the time budget)\n")
    if len(chunk) > 1:
        missing = [r for r in chunk if not (cache / f"{r['blob']}.xlsx").exists()]
        if missing and len(missing) < len(chunk):
            for r in missing:
                _convert(exe, profile, [r], corpus, tmp, cache, timeout)
        elif missing:
            for r in missing:
                (cache / f"{r['blob']}.failed").write_text("LibreOffice wrote no file\n")


def _read_values(path: Path) -> dict:
    """The values LibreOffice cached in ``path``, read by zvmplan's reader with the
    compression-ratio bound lifted (LibreOffice's own output of a corpus file, not a
    file from outside: a sheet of one long repeated text compresses beyond 200:1)."""
    from zvmplan_addin import xlsx as xlsxio
    from zvmplan_addin.check import _json, file_value
    from zvmplan_addin.xlsx import package
    package.MAX_RATIO = max(package.MAX_RATIO, 100_000)
    try:
        with xlsxio.safe_open_xlsx(str(path), parse_sheets=False) as pkg:
            book = xlsxio.read_workbook(pkg)
    except Exception as exc:  # noqa: BLE001 - any failure is LibreOffice's disagreement
        return {"failed": f"cannot read LibreOffice's file: {exc}"[:200]}
    sheets = {}
    for sheet in book.sheets:
        values = {k: _json(file_value(v)) for k, v in sheet.values.items()}
        values.update({k: _json(file_value(v)) for k, v in sheet.cached.items()})
        sheets[sheet.name] = values
    return {"sheets": sheets}


# ---------------------------------------------------------------- scoring ----
def _value(v):
    from zvmplan_addin.check import ErrorCode
    if isinstance(v, dict) and "error" in v:
        return ErrorCode(v["error"])
    return v


def functions_in(formula: str) -> list[str]:
    names = []
    for name in FUNCTION.findall(formula):
        name = name.upper().removeprefix("_XLFN.").removeprefix("_XLWS.")
        if name not in names:
            names.append(name)
    return names


def kind_of(saved, got, computed: bool, reason: str) -> str:
    from zvmplan_addin.check import ErrorCode
    if not computed:
        return "not computed"
    if isinstance(got, ErrorCode):
        return "wrong error code" if isinstance(saved, ErrorCode) else "error where Excel has a value"
    if isinstance(saved, ErrorCode) and reason:
        return "value where Excel has an error (with a reason)"
    if reason:
        return "wrong value (with a reason)"
    if isinstance(saved, ErrorCode):
        return "silent value where Excel has an error"
    return "silent wrong value"


_WRAPPERS = {"IF", "IFERROR", "IFNA", "AND", "OR", "NOT", "IFS"}


def class_of(kind: str, formula: str, reason: str) -> str:
    """A disagreement's class, for the helpers who fix them: what could not be computed
    and why, or the kind of wrong answer and the function most likely at fault (the
    first one in the formula that is not IF, IFERROR, AND...)."""
    if kind == "workbook not read":
        return kind
    if "circular reference" in reason:
        return f"{kind}: on a circular reference"
    if "cannot spill" in reason:
        return f"{kind}: an array that cannot spill"
    if kind == "not computed":
        if reason.startswith("not implemented by the engine:"):
            return "not computed: not implemented: " + reason.split(":", 1)[1].strip()
        if "[" in formula:
            return "not computed: a structured reference (Table[Column])"
        if reason.startswith("a data table"):
            return "not computed: a data table"
        return "not computed: " + (_reason_class(reason).split(" (")[0] or "no reason")
    names = functions_in(formula)
    main = next((n for n in names if n not in _WRAPPERS), names[0] if names else None)
    return f"{kind}: {main or 'operators and references only'}"


def is_silent(kind: str) -> bool:
    return kind.startswith("silent")


def _cells_read_otherwise(path: str) -> dict:
    """The formula cells and the values Excel saved of a workbook zvmplan did not read,
    read by openpyxl (so LibreOffice is scored on them and zvmplan counted as
    disagreeing on each); ``{"failed": why}`` if openpyxl cannot read it either."""
    try:
        import openpyxl
        formulas = openpyxl.load_workbook(path, read_only=True)
        values = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - a file nobody reads
        return {"failed": str(exc)[:200]}
    cells = []
    errors = {"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"}
    for s, ws in enumerate(formulas.worksheets):
        wv = values.worksheets[s]
        cached = {(c.row, c.column): c.value for row in wv.iter_rows() for c in row
                  if getattr(c, "value", None) is not None}
        for row in ws.iter_rows():
            for c in row:
                v = getattr(c, "value", None)
                if isinstance(v, str) and v.startswith("=") and (c.row, c.column) in cached:
                    saved = cached[c.row, c.column]
                    if hasattr(saved, "year") or hasattr(saved, "seconds"):
                        from openpyxl.utils.datetime import to_excel
                        saved = to_excel(saved)
                    saved = {"error": saved} if saved in errors else (
                        float(saved) if isinstance(saved, (int, float)) and
                        not isinstance(saved, bool) else saved)
                    cells.append([s, c.row, c.column, f"{ws.title}!{c.coordinate}", v[1:],
                                  saved, None, False, "", False])
    return {"sheets": [ws.title for ws in formulas.worksheets], "cells": cells}


def score(rows: list[dict], results: dict, lo: dict | None, corpus: str) -> dict:
    from zvmplan_addin.check import same_value
    total = agree_z = agree_lo = silent_z = silent_lo = volatile = 0
    both = collections.Counter()    # on the workbooks LibreOffice opened
    failed_z, failed_lo = [], []
    by_function = collections.defaultdict(lambda: [0, 0, [], set()])  # cells, silent, examples, files
    closeness = collections.Counter()   # numbers both computed: how close to Excel's
    by_repo = collections.defaultdict(lambda: [0, 0, 0, 0, 0])  # books, cells, z, lo, volatile
    by_kind = collections.Counter()
    by_class = collections.defaultdict(lambda: [0, set(), []])  # cells, workbooks, examples
    by_kind_examples = collections.defaultdict(list)
    by_reason = collections.Counter()
    for row in rows:
        res = results[row["blob"]]
        name = row["file"]
        lo_res = lo.get(row["blob"]) if lo is not None else None
        if lo_res is not None and "failed" in lo_res:
            failed_lo.append((name, lo_res["failed"]))
        unread = "failed" in res
        if unread:
            failed_z.append((name, res["failed"], row["formula_cells"]))
            res = _cells_read_otherwise(os.path.join(corpus, name))
            if "failed" in res:     # nobody can list its cells: the manifest's count
                total += row["formula_cells"]
                continue
        sheets = res["sheets"]
        repo = by_repo[row["repository"]]
        repo[0] += 1
        repo[4] += res.get("volatile", 0)
        volatile += res.get("volatile", 0)
        for s, r, c, label, formula, saved, got, computed, reason, agree in res["cells"]:
            total += 1
            repo[1] += 1
            repo[2] += bool(agree)
            lo_read = lo_res is not None and "failed" not in lo_res
            both["cells"] += lo_read
            both["agree_zvmplan"] += lo_read and bool(agree)
            saved, got = _value(saved), _value(got)
            if type(saved) is float and type(got) is float:
                closeness[_closeness(saved, got)] += 1
            if agree:
                agree_z += 1
            else:
                kind = "workbook not read" if unread else kind_of(saved, got, computed, reason)
                by_kind[kind] += 1
                if len(by_kind_examples[kind]) < 2:
                    by_kind_examples[kind].append(f"{name} {label} {formula}")
                if is_silent(kind):
                    silent_z += 1
                    both["silent_zvmplan"] += lo_read
                klass = by_class[class_of(kind, formula, reason)]
                klass[0] += 1
                klass[1].add(name)
                if len(klass[2]) < 2 and not any(e.startswith(name) for e in klass[2]):
                    klass[2].append(f"{name} {label} {formula[:70]} saved={saved!r} "
                                    f"zvmplan={got!r}")
                if reason:
                    by_reason[_reason_class(reason)] += 1
                for fn in functions_in(formula) or ["(operators and references only)"]:
                    entry = by_function[fn]
                    entry[0] += 1
                    entry[1] += is_silent(kind)
                    entry[3].add(name)
                    if len(entry[2]) < 2:
                        entry[2].append(f"{name} {label} {formula[:80]} saved={saved!r} "
                                        f"zvmplan={got!r}" + (f" ({reason[:60]})" if reason else ""))
            if lo_res is not None and "failed" not in lo_res:
                v = lo_res["sheets"].get(sheets[s], {}).get((r, c))
                v = _value(v)
                from zvmplan_addin.check import ErrorCode
                if v is not None and same_value(saved, v):
                    agree_lo += 1
                    repo[3] += 1
                elif v is not None and not isinstance(v, ErrorCode):
                    silent_lo += 1
    return {"workbooks": len(rows), "cells": total, "agree_zvmplan": agree_z,
            "agree_libreoffice": agree_lo if lo is not None else None,
            "silent_zvmplan": silent_z, "silent_libreoffice": silent_lo if lo else None,
            "failed_zvmplan": failed_z, "failed_libreoffice": failed_lo,
            "by_kind": dict(by_kind), "by_kind_examples": dict(by_kind_examples),
            "by_reason": dict(by_reason), "closeness": dict(closeness),
            "by_class": {k: {"cells": v[0], "workbooks": len(v[1]), "examples": v[2]}
                         for k, v in by_class.items()},
            "volatile": volatile, "on_libreoffice_workbooks": dict(both),
            "by_repository": {k: dict(zip(("workbooks", "cells", "agree_zvmplan",
                                           "agree_libreoffice", "volatile"), v))
                              for k, v in by_repo.items()},
            "by_function": {k: {"cells": v[0], "silent": v[1], "examples": v[2],
                                "workbooks": len(v[3])}
                            for k, v in by_function.items()}}


def _closeness(a: float, b: float) -> str:
    """How far apart two numbers are, relative to the larger: the evidence for the
    comparison rule of :func:`zvmplan_addin.check.same_value`."""
    if a == b:
        return "0 equal"
    big = max(abs(a), abs(b))
    rel = abs(a - b) / big
    for bound in (1e-16, 5e-16, 1e-15, 5e-15, 1e-14, 1e-12, 1e-9, 1e-6):
        if rel <= bound:
            return f"1 <= {bound:g}"
    return "2 more"


def _reason_class(reason: str) -> str:
    text = re.sub(r"\d+", "N", reason)
    return re.sub(r"=.*", "=...", text)[:90]


def print_score(s: dict, top: int) -> None:
    cells = s["cells"] or 1
    print(f"corpus: {s['workbooks']} Excel-saved workbooks, {s['cells']} formula cells "
          "with a value Excel saved")
    print()
    print("| engine | cells agreeing with Excel | silent wrong values | workbooks not read |")
    print("| --- | --- | --- | --- |")
    print(f"| zvmplan | {s['agree_zvmplan']} ({100 * s['agree_zvmplan'] / cells:.1f}%) | "
          f"{s['silent_zvmplan']} | {len(s['failed_zvmplan'])} |")
    if s["agree_libreoffice"] is not None:
        print(f"| LibreOffice | {s['agree_libreoffice']} "
              f"({100 * s['agree_libreoffice'] / cells:.1f}%) | {s['silent_libreoffice']} | "
              f"{len(s['failed_libreoffice'])} |")
        b = s["on_libreoffice_workbooks"]
        n = b.get("cells") or 1
        print(f"| zvmplan, on the {s['workbooks'] - len(s['failed_libreoffice'])} workbooks "
              f"LibreOffice opens ({b.get('cells', 0)} cells) | {b.get('agree_zvmplan', 0)} "
              f"({100 * b.get('agree_zvmplan', 0) / n:.1f}%) | {b.get('silent_zvmplan', 0)} | |")
        print(f"| LibreOffice, on the same | {s['agree_libreoffice']} "
              f"({100 * s['agree_libreoffice'] / n:.1f}%) | {s['silent_libreoffice']} | |")
    print()
    print(f"({s['volatile']} formula cells calling RAND, RANDBETWEEN, RANDARRAY, NOW or TODAY "
          "are not compared; zvmplan reads Excel's draw as an input, LibreOffice draws anew)")
    print()
    print("| repository | workbooks | cells | zvmplan | LibreOffice |")
    print("| --- | --- | --- | --- | --- |")
    for repo, e in sorted(s["by_repository"].items(), key=lambda kv: -kv[1]["cells"]):
        n = e["cells"] or 1
        lo = (f"{100 * e['agree_libreoffice'] / n:.1f}%" if s["agree_libreoffice"] is not None
              else "")
        print(f"| {repo} | {e['workbooks']} | {e['cells']} | "
              f"{100 * e['agree_zvmplan'] / n:.1f}% | {lo} |")
    print()
    print("zvmplan's disagreements by kind:")
    for kind, n in sorted(s["by_kind"].items(), key=lambda kv: -kv[1]):
        print(f"  {n:6d}  {kind}: e.g. {'; '.join(s['by_kind_examples'][kind])}")
    if s["failed_zvmplan"]:
        print("workbooks zvmplan did not read (every formula cell counted as disagreeing):")
        for name, why, n in s["failed_zvmplan"]:
            print(f"  {name} ({n} cells): {why}")
    print(f"top {top} classes of zvmplan's disagreements:")
    ranked = sorted(s["by_class"].items(), key=lambda kv: (-kv[1]["cells"], kv[0]))
    for i, (klass, e) in enumerate(ranked[:top], 1):
        print(f"{i:3d}. {e['cells']:6d} cells in {e['workbooks']:3d} workbooks  {klass}")
        for ex in e["examples"]:
            print(f"          {ex}")
    print(f"top {top} functions in the formulas that disagree (a cell counts once for each "
          "function it calls):")
    ranked = sorted(s["by_function"].items(), key=lambda kv: (-kv[1]["cells"], kv[0]))
    for fn, e in ranked[:top]:
        print(f"  {e['cells']:6d} cells in {e['workbooks']} workbooks ({e['silent']} silent)  {fn}")
        for ex in e["examples"]:
            print(f"          {ex}")
    print("numbers (both computed): relative difference from Excel's")
    for k, n in sorted(s["closeness"].items()):
        print(f"  {n:6d}  {k[2:]}")
    print("reasons the engine gave:")
    for why, n in sorted(s["by_reason"].items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {n:6d}  {why}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="/work/corpus")
    ap.add_argument("--no-libreoffice", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=120.0,
                    help="time budget of one workbook [s]")
    ap.add_argument("--libreoffice-seconds", type=float, default=600.0,
                    help="time budget of one workbook in LibreOffice [s]")
    ap.add_argument("--memory-mib", type=int, default=2048,
                    help="address-space budget of one workbook [MiB]")
    ap.add_argument("--json", metavar="OUT.json", help="also write the whole score as JSON")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--only", help="score only the files whose name contains this")
    ap.add_argument("--results", metavar="FILE.json",
                    help="keep zvmplan's per-workbook results in FILE (with --reuse: read "
                    "them from it instead of recalculating, to study the classes)")
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        _worker(args.one, args.memory_mib)
        return 0
    rows = corpus_mod.read_manifest(args.corpus)
    if args.only:
        rows = [r for r in rows if args.only in r["file"]]
    results = {}
    if args.reuse and args.results and Path(args.results).exists():
        results = json.loads(Path(args.results).read_text(encoding="utf-8"))
    todo = [r for r in rows if r["blob"] not in results]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_zvmplan, os.path.join(args.corpus, r["file"]),
                               args.seconds, args.memory_mib): r for r in todo}
        for fut in concurrent.futures.as_completed(futures):
            results[futures[fut]["blob"]] = fut.result()
    if args.results:
        Path(args.results).write_text(json.dumps(results), encoding="utf-8")
    lo = None if args.no_libreoffice else libreoffice_values(rows, args.corpus,
                                                             args.libreoffice_seconds)
    s = score(rows, results, lo, args.corpus)
    print_score(s, args.top)
    if args.json:
        Path(args.json).write_text(json.dumps(s, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Build the one-file `zvmplan` executable with PyInstaller, smoke-test it, report size and start-up.

    python build/build_exe.py            # build into dist/zvmplan, then smoke-test
    python build/build_exe.py --onedir   # dist/zvmplan/zvmplan: a folder, starts faster
    python build/build_exe.py --test-only  # smoke-test an existing dist/zvmplan

Needs ``pip install -e .[build]`` (PyInstaller >= 6, and render's pypdfium2 and Pillow,
which the executable bundles). One file (~97 MB) unpacks itself to a
temporary folder on every start (~1.5 s here); ``--onedir`` (~280 MB folder) starts in
~0.6 s: prefer it where ``zvmplan eval`` is run interactively. The spec is build/zvmplan.spec;
PyInstaller's work files go to .pyinstaller/ and the result to dist/ (both ignored by
git). Build time is a few minutes on 2 cores, so CI does not run this on every push:
run it before a release, or with ZVMPLAN_CI_EXE=1 in .ci/run when time allows.

Smoke tests (each must pass; exit status 1 otherwise):
* ``zvmplan eval '=CPCPU_PER_MB("IUCV",9000)'`` prints 0.012367 (000 Table 2);
* ``zvmplan calc workbook/zvmplan_template.xlsx -o OUT`` succeeds, once the template exists;
* ``zvmplan report OUT -o OUT.pdf`` writes the PDF (matplotlib and its fonts are bundled);
* ``zvmplan export-lite OUT`` writes main.py, once the subcommand is registered;
* ``zvmplan render`` of the template's Plan sheet writes a PNG where LibreOffice is
  installed (the executable bundles pypdfium2 and Pillow).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "build" / "zvmplan.spec"
DIST = REPO / "dist"
WORK = REPO / ".pyinstaller" / "work"
TEMPLATE = REPO / "workbook" / "zvmplan_template.xlsx"


def build(onedir: bool) -> Path:
    env = dict(os.environ, ZVMPLAN_EXE_ONEDIR="1" if onedir else "0")
    target = DIST / "zvmplan"
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
                    "--distpath", str(DIST), "--workpath", str(WORK), str(SPEC)],
                   check=True, cwd=REPO, env=env)
    print(f"built in {time.perf_counter() - t0:.0f} s")
    return exe_path()


def exe_path() -> Path:
    one = DIST / "zvmplan"
    return one / "zvmplan" if one.is_dir() else one


def size_of(path: Path) -> int:
    if path.parent.name == "zvmplan" and path.parent.is_dir():  # onedir: whole folder
        return sum(p.stat().st_size for p in path.parent.rglob("*") if p.is_file())
    return path.stat().st_size


def run(exe: Path, *args, timeout=300):
    t0 = time.perf_counter()
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout)
    return proc, time.perf_counter() - t0


def smoke(exe: Path) -> bool:
    ok = True
    print(f"executable: {exe}  size {size_of(exe) / 1e6:.1f} MB")
    help_proc, _ = run(exe, "--help")
    if help_proc.returncode != 0:
        print("FAIL zvmplan --help:", help_proc.stderr.strip()[-500:])
        return False
    commands = help_proc.stdout

    times = []
    for _ in range(3):
        proc, seconds = run(exe, "eval", '=CPCPU_PER_MB("IUCV",9000)')
        times.append(seconds)
    if proc.returncode == 0 and "0.012367" in proc.stdout:
        print(f"ok   eval =CPCPU_PER_MB(\"IUCV\",9000) -> {proc.stdout.strip()}  "
              f"start-to-answer median {statistics.median(times):.2f} s (first {times[0]:.2f} s)")
    else:
        ok = False
        print("FAIL eval:", proc.returncode, proc.stdout.strip()[-300:], proc.stderr.strip()[-800:])

    with tempfile.TemporaryDirectory() as tmp:
        if TEMPLATE.exists():
            out = Path(tmp) / "out.xlsx"
            proc, seconds = run(exe, "calc", str(TEMPLATE), "-o", str(out))
            if proc.returncode == 0 and out.exists():
                print(f"ok   calc {TEMPLATE.name} in {seconds:.2f} s")
            else:
                ok = False
                print("FAIL calc:", proc.returncode, proc.stderr.strip()[-800:])
            if "report" in commands and out.exists():  # matplotlib and its data bundled
                pdf = Path(tmp) / "out.pdf"
                proc, seconds = run(exe, "report", str(out), "-o", str(pdf))
                if proc.returncode in (0, 4, 5) and pdf.exists() and \
                        pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 10_000:
                    print(f"ok   report in {seconds:.2f} s ({pdf.stat().st_size // 1000} kB)")
                else:
                    ok = False
                    print("FAIL report:", proc.returncode, proc.stderr.strip()[-800:])
        else:
            print(f"skip calc: {TEMPLATE.relative_to(REPO)} does not exist yet")
        if "render" in commands and TEMPLATE.exists() and (shutil.which("soffice") or
                                                          shutil.which("libreoffice")):
            proc, seconds = run(exe, "render", str(TEMPLATE), "-o", str(Path(tmp) / "png"),
                                "--sheet", "Plan")
            if proc.returncode == 0 and (Path(tmp) / "png" / "05_Plan.png").exists():
                print(f"ok   render (bundled pypdfium2 and Pillow) in {seconds:.2f} s")
            else:
                ok = False
                print("FAIL render:", proc.returncode, proc.stderr.strip()[-800:])
        else:
            print("skip render: no LibreOffice (soffice) here")
        if "export-lite" in commands:
            proc, seconds = run(exe, "export-lite", str(Path(tmp) / "lite"))
            if proc.returncode == 0 and (Path(tmp) / "lite" / "main.py").exists():
                print(f"ok   export-lite in {seconds:.2f} s")
            else:
                ok = False
                print("FAIL export-lite:", proc.returncode, proc.stderr.strip()[-800:])
        else:
            print("skip export-lite: not a zvmplan subcommand yet")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onedir", action="store_true", help="build a folder, not one file")
    parser.add_argument("--test-only", action="store_true", help="smoke-test dist/ only")
    args = parser.parse_args(argv)
    exe = exe_path() if args.test_only else build(args.onedir)
    if not exe.exists():
        print(f"no executable at {exe}")
        return 1
    return 0 if smoke(exe) else 1


if __name__ == "__main__":
    sys.exit(main())

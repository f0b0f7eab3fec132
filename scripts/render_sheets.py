"""Render the first printed page of every sheet of a workbook as a PNG, for people to look at.

    python scripts/render_sheets.py [WORKBOOK.xlsx] [-o OUTDIR] [--dpi 70]

LibreOffice (soffice, headless) prints each sheet to PDF -- one copy of the workbook per
sheet with every other sheet hidden, all converted in one soffice run -- and pdftoppm
turns page 1 of each PDF into ``NN_<sheet>.png``. The values shown are the ones cached
in the file (LibreOffice does not recalculate the zvmplan functions), so render a
recalculated workbook: the committed template is one.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "workbook" / "zvmplan_template.xlsx"


def sheet_names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as z:
        wb = z.read("xl/workbook.xml").decode("utf-8")
    return [m.group(1) for m in re.finditer(r'<sheet\b[^>]*\bname="([^"]*)"', wb)]


def only_sheet(src: Path, dst: Path, keep: int):
    """Copy ``src`` to ``dst`` with every sheet but the ``keep``-th hidden and active."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/workbook.xml":
                text = data.decode("utf-8")
                count = [-1]

                def hide(m):
                    count[0] += 1
                    tag = re.sub(r'\sstate="[^"]*"', "", m.group(0))
                    if count[0] != keep:
                        tag = tag.replace("<sheet ", '<sheet state="hidden" ', 1)
                    return tag
                text = re.sub(r"<sheet\b[^>]*/>", hide, text)
                # LibreOffice prints a hidden sheet that has a print range: drop the others'
                text = re.sub(r'<definedName name="_xlnm\.Print_Area" localSheetId="(\d+)"[^>]*>'
                              r'[^<]*</definedName>',
                              lambda m: m.group(0) if int(m.group(1)) == keep else "", text)
                text = re.sub(r'\sactiveTab="\d+"', "", text)
                text = text.replace("<workbookView ", f'<workbookView activeTab="{keep}" ', 1)
                data = text.encode("utf-8")
            elif re.fullmatch(r"xl/worksheets/sheet\d+\.xml", info.filename):
                data = re.sub(rb'\stabSelected="1"', b"", data)
            zout.writestr(info, data)


def render(workbook: Path, outdir: Path, dpi: int = 70) -> list[Path]:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    pdftoppm = shutil.which("pdftoppm")
    if not soffice or not pdftoppm:
        raise SystemExit("needs LibreOffice (soffice) and poppler (pdftoppm): apt-get install "
                         "libreoffice-calc-nogui poppler-utils")
    names = sheet_names(workbook)
    outdir.mkdir(parents=True, exist_ok=True)
    pngs = []
    with tempfile.TemporaryDirectory(prefix="zvmplan-render-") as tmp:
        tmp = Path(tmp)
        copies = []
        for i, name in enumerate(names):
            safe = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or f"sheet{i + 1}"
            copy = tmp / f"{i + 1:02d}_{safe}.xlsx"
            only_sheet(workbook, copy, i)
            copies.append(copy)
        profile = (tmp / "profile").as_uri()
        subprocess.run([soffice, f"-env:UserInstallation={profile}", "--headless",
                        "--convert-to", "pdf", "--outdir", str(tmp), *map(str, copies)],
                       check=True, capture_output=True, timeout=600)
        for copy in copies:
            pdf = copy.with_suffix(".pdf")
            if not pdf.exists():
                print(f"no PDF for {copy.name}", file=sys.stderr)
                continue
            stem = outdir / copy.stem
            subprocess.run([pdftoppm, "-png", "-r", str(dpi), "-f", "1", "-l", "1",
                            "-singlefile", str(pdf), str(stem)], check=True, timeout=120)
            pngs.append(stem.with_suffix(".png"))
    return pngs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workbook", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("-o", "--outdir", type=Path,
                    default=Path(tempfile.gettempdir()) / "zvmplan-sheets")
    ap.add_argument("--dpi", type=int, default=70)
    args = ap.parse_args(argv)
    for png in render(args.workbook, args.outdir, args.dpi):
        print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())

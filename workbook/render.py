"""``zvmplan render PLAN.xlsx -o DIR``: PNG pictures of a plan's sheets, for people to look at.

LibreOffice (``soffice``, headless) prints each sheet to PDF -- one copy of the workbook
per sheet with every other sheet hidden, all converted in one soffice run -- and PDFium
(pypdfium2) turns the pages into ``NN_<sheet>.png`` (``NN_<sheet>-2.png``, ... for the
further pages with ``--all-pages``). The values shown are the ones cached in the file:
LibreOffice does not have the zvmplan functions, so render a workbook written by
``zvmplan fill`` or ``zvmplan calc`` (the committed template is one).

Needs LibreOffice Calc and the ``render`` extra (``pip install 'zvmplan[render]'``:
pypdfium2 and Pillow). The workbook passes the same safety checks as ``zvmplan calc``
before anything is copied; the copies are edited with a few substitutions on
``workbook.xml``, which the check has parsed as well-formed XML (so each pattern stays
inside one tag and the edit is linear in the part's size).
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

MAIN_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


class RenderError(Exception):
    """Missing tools, or LibreOffice failing on the workbook; one line."""


def sheet_names(pkg) -> list[str]:
    """The workbook's sheet names in tab order (``pkg``: a checked XlsxPackage)."""
    import defusedxml.ElementTree as DET
    root = DET.fromstring(pkg.read(pkg.main), forbid_dtd=True)
    return [s.get("name", "") for s in root.iter(f"{MAIN_NS}sheet")]


def only_sheet(pkg, dst: Path, keep: int) -> None:
    """Copy the package to ``dst`` with every sheet but the ``keep``-th hidden, and that
    one active; other sheets' print areas are dropped (LibreOffice prints a hidden sheet
    that has one)."""
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, info in pkg.infos.items():
            data = pkg.read(name)
            if name == pkg.main:
                text = data.decode("utf-8")
                count = [-1]

                def hide(m):
                    count[0] += 1
                    tag = re.sub(r'\sstate="[^"]*"', "", m.group(0))
                    if count[0] != keep:
                        tag = re.sub(r"^<((?:\w+:)?sheet) ", r'<\1 state="hidden" ', tag)
                    return tag
                text = re.sub(r"<(?:\w+:)?sheet\s[^>]*>", hide, text)
                text = re.sub(r'<((?:\w+:)?)definedName name="_xlnm\.Print_Area" '
                              r'localSheetId="(\d+)"[^>]*>[^<]*</\1definedName>',
                              lambda m: m.group(0) if int(m.group(2)) == keep else "", text)
                text = re.sub(r'\sactiveTab="\d+"', "", text)
                text = re.sub(r"<((?:\w+:)?workbookView) ", rf'<\1 activeTab="{keep}" ', text,
                              count=1)
                data = text.encode("utf-8")
            elif re.fullmatch(r"xl/worksheets/[^/]+\.xml", name):
                data = data.replace(b' tabSelected="1"', b"")
            zout.writestr(info, data)


def _tools():
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if not soffice:
        raise RenderError("zvmplan render needs LibreOffice Calc (soffice) on the PATH, e.g. "
                          "apt-get install libreoffice-calc-nogui")
    try:
        import PIL  # noqa: F401  (pypdfium2's to_pil needs it)
        import pypdfium2
    except ImportError as exc:
        raise RenderError(f"zvmplan render needs {exc.name}: pip install 'zvmplan[render]'") \
            from None
    return soffice, pypdfium2


def render(workbook, outdir, dpi: int = 70, sheets: list[str] | None = None,
           all_pages: bool = False) -> list[Path]:
    """Write PNGs of the sheets of ``workbook`` (all, or those named) into ``outdir``."""
    from zvmplan_addin.xlsx import safe_open_xlsx
    soffice, pdfium = _tools()
    workbook, outdir = Path(workbook), Path(outdir)
    with safe_open_xlsx(workbook) as pkg:
        names = sheet_names(pkg)
        wanted = names if not sheets else sheets
        unknown = [s for s in wanted if s not in names]
        if unknown:
            raise RenderError(f"{workbook.name}: no sheet {unknown[0]!r}; sheets: "
                              f"{', '.join(names)}")
        outdir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="zvmplan-render-") as tmp:
            tmp = Path(tmp)
            copies = []
            for i, name in enumerate(names):
                if name not in wanted:
                    continue
                safe = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or f"sheet{i + 1}"
                copy = tmp / f"{i + 1:02d}_{safe}.xlsx"
                only_sheet(pkg, copy, i)
                copies.append(copy)
            pkg.close()
            profile = (tmp / "profile").as_uri()
            try:
                subprocess.run([soffice, f"-env:UserInstallation={profile}", "--headless",
                                "--convert-to", "pdf", "--outdir", str(tmp),
                                *map(str, copies)], check=True, capture_output=True,
                               timeout=600)
            except subprocess.CalledProcessError as exc:
                raise RenderError(f"LibreOffice failed (exit {exc.returncode}): "
                                  f"{' '.join(exc.stderr.decode(errors='replace').split())[:200]}"
                                  ) from None
            except subprocess.TimeoutExpired:
                raise RenderError("LibreOffice did not finish within 10 minutes") from None
            return [png for copy in copies
                    for png in _pngs(pdfium, copy.with_suffix(".pdf"), outdir / copy.stem, dpi,
                                     all_pages)]


def _pngs(pdfium, pdf: Path, stem: Path, dpi: int, all_pages: bool) -> list[Path]:
    if not pdf.exists():
        raise RenderError(f"LibreOffice wrote no PDF for {stem.name}")
    doc = pdfium.PdfDocument(str(pdf))
    try:
        out = []
        for i in range(len(doc) if all_pages else min(1, len(doc))):
            path = stem.with_name(stem.name + (f"-{i + 1}" if i else "") + ".png")
            doc[i].render(scale=dpi / 72).to_pil().save(path)
            out.append(path)
        return out
    finally:
        doc.close()


# ---------------------------------------------------------------- command ----
def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("workbook", metavar="PLAN.xlsx", help="a filled or recalculated workbook")
    p.add_argument("-o", "--outdir", required=True, metavar="DIR",
                   help="folder for the PNGs (made if missing)")
    p.add_argument("--sheet", action="append", metavar="NAME",
                   help="render only this sheet (repeatable); default: every sheet")
    p.add_argument("--all-pages", action="store_true",
                   help="every printed page, not only the first of each sheet")
    p.add_argument("--dpi", type=int, default=70, help="resolution (default 70)")


def run(args: argparse.Namespace) -> int:
    from zvmplan_addin.commands import UserError
    if not 10 <= args.dpi <= 600:
        raise UserError(f"--dpi {args.dpi}: give 10 to 600")
    try:
        pngs = render(args.workbook, args.outdir, args.dpi, args.sheet, args.all_pages)
    except RenderError as exc:
        raise UserError(str(exc)) from None
    for png in pngs:
        print(png)
    return 0


def _register() -> None:
    try:
        from zvmplan_addin.commands import Command, register
    except ImportError:  # pragma: no cover - the command line is not installed
        return
    register(Command("render", "PNG pictures of a plan's sheets (LibreOffice prints them)",
                     configure, run))


_register()

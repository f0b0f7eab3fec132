"""``zvmplan render PLAN.xlsx -o DIR``: PNG pictures of a plan's sheets, for people to look at.

LibreOffice (``soffice``, headless) prints each sheet to PDF -- one copy of the workbook
per sheet with every other sheet hidden, all converted in one soffice run -- and PDFium
(pypdfium2) turns the pages into ``NN_<sheet>.png`` (``NN_<sheet>-2.png``, ... for the
further pages with ``--all-pages``; ``--pdf`` keeps the PDFs too). The values shown are
the ones cached in the file: each copy has its formulas replaced by their cached values
(:func:`cached_only`), because LibreOffice does not have the zvmplan functions and would
otherwise recalculate the volatile cells while printing (the "zvmplan functions
unavailable" warning fires) and show ``#NAME?`` for every cached error. So render a
workbook written by ``zvmplan fill`` or ``zvmplan calc`` (the committed template is one).

Needs LibreOffice Calc and the ``render`` extra (``pip install 'zvmplan[render]'``:
pypdfium2 and Pillow). The workbook passes the same safety checks as ``zvmplan calc``
before anything is copied; the copies are edited with a few substitutions on
``workbook.xml``, which the check has parsed as well-formed XML (so each pattern stays
inside one tag and the edit is linear in the part's size).
"""
from __future__ import annotations

import argparse
import bisect
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

MAIN_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


class RenderError(Exception):
    """Missing tools, or LibreOffice failing on the workbook; one line."""


def sheet_names(pkg) -> list[str]:
    """The workbook's sheet names in tab order (``pkg``: a checked XlsxPackage)."""
    import defusedxml.ElementTree as DET
    root = DET.fromstring(pkg.read(pkg.main), forbid_dtd=True)
    return [s.get("name", "") for s in root.iter(f"{MAIN_NS}sheet")]


#: what a picture shows in a formula cell the file holds no value for
NOT_COMPUTED = "(not computed)"


def cached_only(data: bytes, name: str = "sheet", missing: list | None = None) -> bytes:
    """The worksheet part ``data`` with every formula replaced by the value cached for it.

    LibreOffice does not have the zvmplan functions: printing a sheet, it recalculates
    the volatile cells (the "zvmplan functions unavailable" warning, which then fires)
    and shows ``#NAME?`` for every cell whose cached value is an error. Without formulas
    it shows exactly what ``zvmplan calc`` or Excel cached: numbers, texts, booleans and
    the real error codes (``t="e"`` cells). A formula cell with no cached value (a file
    never recalculated) shows :data:`NOT_COMPUTED`, never a blank that would read as
    nothing, and its reference is appended to ``missing``; a formula string
    (``t="str"``) becomes an inline string. Conditional formats, validations, styles
    and everything else are kept byte for byte."""
    from zvmplan_addin.xlsx import xml as xmlparse
    found = xmlparse.elements(data, name, {"c", "f", "v"})
    inner = [x for x in found if x[0] != "c"]
    starts = [x[2] for x in inner]
    out, pos = [], 0
    for loc, attrs, start, stop, tag in found:
        if loc != "c":
            continue
        k = bisect.bisect_left(starts, start)
        f = v = None
        while k < len(inner) and inner[k][2] < stop:
            if inner[k][0] == "f":
                f = inner[k]
            else:
                v = inner[k]
            k += 1
        if f is None:
            continue
        qname = tag.group(1)
        prefix = qname[:-1]  # b"c" or b"x:c"
        head = b"<" + qname + b"".join(
            b" " + a.encode() + b'="' + escape(attrs[a], {'"': "&quot;"}).encode() + b'"'
            for a in ("r", "s") if a in attrs)
        value = b"" if v is None or v[4].group(3) else \
            data[v[4].end():data.rindex(b"</", v[2], v[3])]
        t = attrs.get("t", "n")
        if v is None or (not value and t != "str"):  # only a text can be empty
            if missing is not None:
                missing.append(attrs.get("r", "?"))
            value, t = NOT_COMPUTED.encode(), "str"
        if t == "str":
            cell = (head + b' t="inlineStr"><' + prefix + b"is><" + prefix +
                    b't xml:space="preserve">' + value + b"</" + prefix + b"t></" + prefix +
                    b"is></" + qname + b">")
        else:
            typed = b"" if t == "n" else b' t="' + t.encode() + b'"'
            cell = (head + typed + b"><" + prefix + b"v>" + value + b"</" + prefix + b"v></" +
                    qname + b">")
        out += [data[pos:start], cell]
        pos = stop
    out.append(data[pos:])
    return b"".join(out)


def only_sheet(pkg, dst: Path, keep: int, missing: list | None = None) -> None:
    """Copy the package to ``dst`` with every sheet but the ``keep``-th hidden, and that
    one active; other sheets' print areas are dropped (LibreOffice prints a hidden sheet
    that has one). Every worksheet shows its cached values (:func:`cached_only`) and
    the calculation chain is left out (it lists formula cells there no longer are); the
    kept sheet's formula cells without a cached value are appended to ``missing``."""
    from zvmplan_addin.xlsx.zipwrite import drop_calc_chain
    worksheets = set(_worksheet_parts(pkg))
    kept = _sheet_parts(pkg)[keep]
    replaced: dict[str, bytes] = {}
    dropped = drop_calc_chain(pkg, replaced)
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for name, info in pkg.infos.items():
            if name in dropped:
                continue
            data = replaced.get(name) or pkg.read(name)
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
            elif name in worksheets:
                data = cached_only(data.replace(b' tabSelected="1"', b""), name,
                                   missing if name == kept else None)
            zout.writestr(info, data)


def _sheet_parts(pkg) -> list[str]:
    """The zip path of each sheet's part, in tab order ("" for one not found)."""
    import defusedxml.ElementTree as DET
    rel = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
    target = {rid: t for rid, _, t in pkg.rels(pkg.main)}
    root = DET.fromstring(pkg.read(pkg.main), forbid_dtd=True)
    return [target.get(s.get(rel, ""), "") for s in root.iter(f"{MAIN_NS}sheet")]


def _worksheet_parts(pkg) -> list[str]:
    """The zip paths of the workbook's worksheet parts (through its relationships)."""
    return [t for _, rtype, t in pkg.rels(pkg.main) if rtype.endswith("/worksheet")]


def _tools():
    import sys
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if not soffice:
        raise RenderError("zvmplan render needs LibreOffice Calc (soffice) on the PATH: install "
                          "LibreOffice (libreoffice.org; on Debian or Ubuntu apt-get install "
                          "libreoffice-calc-nogui)")
    try:
        import PIL  # noqa: F401  (pypdfium2's to_pil needs it)
        import pypdfium2
    except ImportError as exc:
        if getattr(sys, "frozen", False):  # the executable: no pip to install it with
            raise RenderError(
                f"this zvmplan executable was built without {exc.name or 'pypdfium2'}, which "
                "render needs: use an executable built with build/build_exe.py after "
                "pip install -e '.[build]' (it bundles them), or, where Python is installed, "
                "pip install 'zvmplan[render]'") from None
        raise RenderError(f"zvmplan render needs {exc.name}: pip install 'zvmplan[render]'") \
            from None
    return soffice, pypdfium2


def _sheet_named(workbook: Path, names: list[str], asked: str) -> str:
    """The sheet ``asked`` names, compared as Excel compares sheet names (ignoring case)."""
    found = [n for n in names if n.casefold() == asked.casefold()]
    if not found:
        raise RenderError(f"{workbook.name}: no sheet {asked!r}; sheets: {', '.join(names)}")
    return found[0]


def render(workbook, outdir, dpi: int = 70, sheets: list[str] | None = None,
           all_pages: bool = False, pdf: bool = False,
           warnings: list[str] | None = None) -> list[Path]:
    """Write PNGs of the sheets of ``workbook`` (all, or those named, in any case) into
    ``outdir``; with ``pdf``, also the PDF LibreOffice printed of each sheet (``NN_<sheet>.pdf``,
    every page). Returns the files written; a sheet with formula cells the file holds no
    value for (they show :data:`NOT_COMPUTED`) adds a line to ``warnings``."""
    from zvmplan_addin.xlsx import safe_open_xlsx
    soffice, pdfium = _tools()
    workbook, outdir = Path(workbook), Path(outdir)
    with safe_open_xlsx(workbook) as pkg:
        names = sheet_names(pkg)
        wanted = names if not sheets else [_sheet_named(workbook, names, s) for s in sheets]
        outdir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="zvmplan-render-") as tmp:
            tmp = Path(tmp)
            copies = []
            for i, name in enumerate(names):
                if name not in wanted:
                    continue
                safe = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or f"sheet{i + 1}"
                copy = tmp / f"{i + 1:02d}_{safe}.xlsx"
                missing: list[str] = []
                only_sheet(pkg, copy, i, missing)
                copies.append(copy)
                if missing and warnings is not None:
                    warnings.append(f"{name}: {len(missing)} formula cell(s) hold no computed "
                                    f"value (first {missing[0]}) and show {NOT_COMPUTED}: "
                                    "run zvmplan calc on the file first")
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
            out = []
            for copy in copies:
                printed = copy.with_suffix(".pdf")
                out += _pngs(pdfium, printed, outdir / copy.stem, dpi, all_pages)
                if pdf:
                    out.append(Path(shutil.copyfile(printed, outdir / printed.name)))
            return out


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
    p.add_argument("--pdf", action="store_true",
                   help="also keep the PDF LibreOffice printed of each sheet (every page)")


def run(args: argparse.Namespace) -> int:
    from zvmplan_addin.commands import UserError
    if not 10 <= args.dpi <= 600:
        raise UserError(f"--dpi {args.dpi}: give 10 to 600")
    import sys
    warnings: list[str] = []
    try:
        pngs = render(args.workbook, args.outdir, args.dpi, args.sheet, args.all_pages,
                      args.pdf, warnings)
    except RenderError as exc:
        raise UserError(str(exc)) from None
    for line in warnings:
        print(f"zvmplan render: warning: {line}", file=sys.stderr)
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

"""A realistic planner sheet of any size, for the benchmarks and the LibreOffice cross-check.

Sheet ``Plan``: a header row, then one row per link with inputs in A..E (transport,
message size [bytes], z/VM level, MB a day, site code) and nine formula columns:

==  =================================================  ==========================
F   ``=CPCPU_PER_MB(A2,B2,C2)``                        zvmplan function
G   ``=MB_PER_SEC(A2,B2,C2)``                          zvmplan function
H   ``=TOTCPU_PER_MB(A2,B2,C2)``                       zvmplan function
I   ``=F2*D2/86400``                                   arithmetic [CP CPU-s/s]
J   ``=IF(G2>0,D2/G2/3600,0)``                         IF [hours busy a day]
K   ``=VLOOKUP(E2,Rates!$A$2:$C$6,2,FALSE)``           VLOOKUP into a small table
L   ``=INDEX(Rates!$C$2:$C$6,MATCH(E2,Rates!$A$2:$A$6,0))``  INDEX/MATCH (text)
M   ``=A2&" at "&L2``                                  a text result
N   ``=I2/SUM(I$2:I$<last>)``                          share of the column total
==  =================================================  ==========================

The builtin variant (``zvmplan=False``) keeps every reference and replaces F, G and H
with builtin arithmetic on the same cells, so any spreadsheet application can compute
it. The inputs are made-up planning inputs (not measurements); the ``Rates`` table's
figures are illustrative costs, not data of the model.
"""
from __future__ import annotations

from pathlib import Path

CASES = [("IUCV", 9000), ("VCTC", 1500), ("CMS_IUCV", 4096), ("IUCV", 32764), ("VCTC", 8000)]
LEVELS = ["4.4.0", "4.3.0"]
SITES = [("S1", 0.8, "Zurich"), ("S2", 1.1, "Boeblingen"), ("S3", 0.95, "Poughkeepsie"),
         ("S4", 1.3, "Montpellier"), ("S5", 0.7, "Hursley")]
FORMULA_COLUMNS = "FGHIJKLMN"


def formulas(r: int, last: int, zvmplan: bool = True) -> list[str]:
    """The nine formulas of row ``r`` (data rows 2..``last``)."""
    if zvmplan:
        fgh = [f"=CPCPU_PER_MB(A{r},B{r},C{r})", f"=MB_PER_SEC(A{r},B{r},C{r})",
               f"=TOTCPU_PER_MB(A{r},B{r},C{r})"]
    else:
        fgh = [f"=LEN(A{r})*B{r}/1E6+LEN(C{r})/100", f"=B{r}/(100+LEN(A{r}))",
               f"=SQRT(B{r})*LEN(C{r})/1000"]
    return fgh + [
        f"=F{r}*D{r}/86400",
        f"=IF(G{r}>0,D{r}/G{r}/3600,0)",
        f"=VLOOKUP(E{r},Rates!$A$2:$C$6,2,FALSE)",
        f"=INDEX(Rates!$C$2:$C$6,MATCH(E{r},Rates!$A$2:$A$6,0))",
        f'=A{r}&" at "&L{r}',
        f"=I{r}/SUM(I$2:I${last})",
    ]


def inputs(i: int) -> list:
    """The inputs A..E of the ``i``-th link (0-based)."""
    transport, size = CASES[i % len(CASES)]
    return [transport, size + (i % 11), LEVELS[(i // 5) % 2], 1000 + (i * 37) % 5000,
            SITES[(i * 7) % len(SITES)][0]]


def write(path, rows: int, zvmplan: bool = True) -> Path:
    """Write the planner workbook with ``rows`` links to ``path`` (openpyxl, streamed)."""
    import openpyxl
    wb = openpyxl.Workbook(write_only=True)
    plan = wb.create_sheet("Plan")
    plan.append(["transport", "size_bytes", "level", "mb_per_day", "site",
                 "cp_cpusec_per_mb", "mb_per_sec", "tot_cpusec_per_mb", "cp_cpusec_per_sec",
                 "hours_busy", "cost_per_cpusec", "site_name", "label", "share"])
    last = rows + 1
    for i in range(rows):
        plan.append(inputs(i) + formulas(i + 2, last, zvmplan))
    rates = wb.create_sheet("Rates")
    rates.append(["site", "cost_per_cpusec", "name"])
    for site in SITES:
        rates.append(list(site))
    path = Path(path)
    wb.save(path)
    return path


# LibreOffice, with "recalculation on file load" of OOXML files set to "always"
_RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
 xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def soffice() -> str | None:
    import shutil
    return shutil.which("soffice") or shutil.which("libreoffice")


def libreoffice_profile(directory) -> str:
    """A LibreOffice user installation in ``directory`` that recalculates every formula
    of an .xlsx on load; returns its ``-env:UserInstallation`` argument."""
    user = Path(directory) / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "registrymodifications.xcu").write_text(_RECALC_ALWAYS, encoding="utf-8")
    return f"-env:UserInstallation={Path(directory).resolve().as_uri()}"


def libreoffice_recalc(src, out_dir, profile_dir, timeout=3600) -> Path:
    """``src`` opened by LibreOffice headless (recalculated on load) and saved as .xlsx in
    ``out_dir``; returns the path written."""
    import subprocess
    exe = soffice()
    if exe is None:
        raise RuntimeError("LibreOffice (soffice) is not installed")
    src, out_dir = Path(src), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([exe, libreoffice_profile(profile_dir), "--headless", "--norestore",
                    "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out_dir),
                    str(src)], check=True, capture_output=True, timeout=timeout)
    out = out_dir / (src.stem + ".xlsx")
    if not out.exists():
        raise RuntimeError(f"LibreOffice wrote no {out.name}")
    return out

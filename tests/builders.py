"""Workbooks the tests build, shared by several test files (the fixtures built on them are
in ``conftest.py``): the ``ZT_*`` worksheet functions the engine tests declare, openpyxl
books saved and read back, and hand-written xlsx packages for what openpyxl never writes
(shared formulas, inline strings, cells without ``r``). ``pythonpath = ["tests"]`` in
pyproject.toml makes this importable as ``builders``."""
from __future__ import annotations

import hashlib
import zipfile

import numpy as np
import openpyxl

from zvmplan import Many
from zvmplan.errors import NoDataError, OutOfRangeError, UnknownNameError
from zvmplan_addin.registry import REGISTRY, Param, as_number, worksheet_function

from zvmplan_addin.recalc import calc as _calc

#: the worksheet functions :func:`declare_zt_functions` adds (the fixture removes them)
ZT_FUNCTIONS = ("ZT_SCALE", "ZT_NAME", "ZT_COLUMN", "ZT_SCALE3")


# ---------------------------------------------------------- test functions ----
def declare_zt_functions():
    """ZT_SCALE, ZT_NAME, ZT_SCALE3 and ZT_COLUMN: functions whose answers the engine tests
    know without the model's numbers."""
    if "ZT_SCALE" in REGISTRY:
        return

    @worksheet_function(description="x times factor; x < 0 is out of range", example="=ZT_SCALE(2,3)",
                        returns="number", params=[
                            Param("x", "a number; a range gives an array",
                                  lambda v: as_number(v, "x"), vector=True),
                            Param("factor", "multiplier, default 1",
                                  lambda v: as_number(v, "factor"), optional=True)])
    def zt_scale(x, factor=None):
        f = 1.0 if factor is None else factor
        if isinstance(x, np.ndarray):
            errors = {i: OutOfRangeError(f"x must be >= 0; got {v}") for i, v in enumerate(x) if v < 0}
            return Many(np.where(x < 0, np.nan, x * f), errors)
        if x < 0:
            raise OutOfRangeError(f"x must be >= 0; got {x}")
        return x * f

    @worksheet_function(description="the length of a name", example='=ZT_NAME("abc")',
                        returns="count", params=[Param("name", "a name", str)])
    def zt_name(name):
        if name == "missing":
            raise NoDataError("no data for 'missing'")
        if name == "bad":
            raise UnknownNameError("unknown name 'bad'; valid: anything else")
        return float(len(name))

    @worksheet_function(description="x times factor plus add", example="=ZT_SCALE3(1,2,3)",
                        returns="number", params=[
                            Param("x", "a number", lambda v: as_number(v, "x")),
                            Param("factor", "default 1", lambda v: as_number(v, "factor"),
                                  optional=True),
                            Param("add", "default 0", lambda v: as_number(v, "add"),
                                  optional=True)])
    def zt_scale3(x, factor=None, add=None):
        return x * (1.0 if factor is None else factor) + (add or 0.0)

    @worksheet_function(description="three names down a column", example="=ZT_COLUMN()",
                        returns="text column", params=[], spill=True)
    def zt_column():
        return np.array([["a"], ["b"], ["c"]], dtype=object)


# ------------------------------------------------------- openpyxl workbooks ----
def save(wb, path):
    """Save ``wb`` to ``path``; return the path."""
    wb.save(path)
    return path


def write_book(path, sheets: dict[str, dict]):
    """A workbook of ``{sheet: {cell: value or formula}}`` (the first sheet is the active one),
    saved to ``path``; returns the path."""
    wb = openpyxl.Workbook()
    for k, (title, cells) in enumerate(sheets.items()):
        ws = wb.active if k == 0 else wb.create_sheet(title)
        ws.title = title
        for ref, value in cells.items():
            ws[ref] = value
    return save(wb, path)


def file_digest(path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def values_of(path, sheet="Plan"):
    """A sheet's cached values, as openpyxl reads them (``data_only``)."""
    return openpyxl.load_workbook(path, data_only=True)[sheet]


def formulas_of(path, sheet="Plan"):
    """A sheet's formulas, as openpyxl reads them."""
    return openpyxl.load_workbook(path)[sheet]


def calc_cells(wb, tmp_path, cells, sheet="Out"):
    """Write ``cells`` ({ref: formula}) into ``sheet`` of ``wb``, recalculate with ``zvmplan
    calc`` and return ({ref: cached value}, the calc report)."""
    out_ws = wb[sheet] if sheet in wb.sheetnames else wb.create_sheet(sheet)
    for ref, text in cells.items():
        out_ws[ref] = text
    path = save(wb, tmp_path / "in.xlsx")
    report = _calc(path, tmp_path / "out.xlsx")
    ws = values_of(tmp_path / "out.xlsx", sheet)
    return {ref: ws[ref].value for ref in cells}, report


# ------------------------------------------------------ hand-written XML ----
_CT = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
       '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
       '<Default Extension="xml" ContentType="application/xml"/>'
       '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
       '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
       '{extra}</Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
_WB = ('<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
       '<sheet name="Plan" sheetId="1" r:id="rId1"/></sheets><calcPr calcId="124519" fullCalcOnLoad="1"/></workbook>')
_WB_RELS = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
            '{extra}</Relationships>')
SHEET_XML = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
          'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
          'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" mc:Ignorable="x14ac">'
          '<dimension ref="A1:C4"/><sheetData>{rows}</sheetData></worksheet>')


def make_xlsx(path, rows, calc_chain=False):
    """A one-sheet package (sheet ``Plan``) whose sheetData is ``rows`` (XML text), written
    by hand; with ``calc_chain`` a calcChain part too."""
    extra_ct = extra_rels = ""
    if calc_chain:
        extra_ct = ('<Override PartName="/xl/calcChain.xml" '
                    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"/>')
        extra_rels = ('<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
                      'relationships/calcChain" Target="calcChain.xml"/>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CT.format(extra=extra_ct))
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", _WB)
        z.writestr("xl/_rels/workbook.xml.rels", _WB_RELS.format(extra=extra_rels))
        z.writestr("xl/worksheets/sheet1.xml", SHEET_XML.format(rows=rows))
        if calc_chain:
            z.writestr("xl/calcChain.xml", '<?xml version="1.0"?><calcChain xmlns="http://schemas.'
                       'openxmlformats.org/spreadsheetml/2006/main"><c r="B1" i="1"/></calcChain>')
    return path


#: ``fill --capacity`` for a test machine whose engines equal each measured processor's
#: (not a real machine: a test assumption that keeps every figure as published while
#: putting the plan on one machine, so its total has a share of the LPAR and a verdict)
SAME_AS_MEASURED = "9672-XZ7=1,2064-108=1,2084-C24=1,2064-109=1"


def recalc_cells(tmp_path, cells: dict, name="book") -> dict:
    """``cells``: ref -> value or formula ("=...") on one sheet; returns ref -> cached value
    of each formula cell after ``zvmplan calc`` (as openpyxl reads the output). A text
    that reads as a number stays text."""
    from zvmplan_addin.cli import main as cli
    wb = openpyxl.Workbook()
    ws = wb.active
    for ref, value in cells.items():
        ws[ref] = value
        if isinstance(value, str) and not value.startswith("="):
            ws[ref].data_type = "s"  # text, even when it reads as a number
    src, out = tmp_path / f"{name}.xlsx", tmp_path / f"{name}_out.xlsx"
    wb.save(src)
    assert cli(["calc", str(src), "-o", str(out)]) == 0
    got = openpyxl.load_workbook(out, data_only=True).active
    return {ref: got[ref].value for ref, v in cells.items()
            if isinstance(v, str) and v.startswith("=")}


def one_sheet_book(formulas: dict, values: dict):
    """A workbook as the reader hands it to the engine: one sheet "Plan" holding
    ``formulas`` {(r, c): text} and ``values`` {(r, c): value}."""
    from zvmplan_addin import xlsx
    cells = list(formulas) + list(values)
    sheet = xlsx.SheetData(
        name="Plan", part="", values=dict(values),
        formulas={rc: xlsx.FormulaCell(t) for rc, t in sorted(formulas.items())},
        max_row=max(r for r, _ in cells), max_col=max(c for _, c in cells))
    return xlsx.Workbook(sheets=[sheet], names=[], other_sheets=[])


def openpyxl_rows(path, names=None) -> dict[str, list[tuple]]:
    """Worksheets of ``path`` (``names``, or all) as fill's results.read reads them with
    openpyxl: read-only, data only, each row a tuple of its values."""
    wb = openpyxl.load_workbook(path, data_only=True, read_only=True)
    try:
        return {n: [tuple(r) for r in wb[n].iter_rows(values_only=True)]
                for n in (wb.sheetnames if names is None else names) if n in wb.sheetnames}
    finally:
        wb.close()


def same_rows(a: dict, b: dict) -> bool:
    """The same sheets of rows, each value of the same type (1, 1.0 and True differ)."""
    return a.keys() == b.keys() and all(
        len(a[n]) == len(b[n]) and all(
            len(ra) == len(rb) and all(type(x) is type(y) and x == y for x, y in zip(ra, rb))
            for ra, rb in zip(a[n], b[n])) for n in a)


def checked_engine(path, monkeypatch):
    """The engine that recalculated ``path`` on the column path with
    ZVMPLAN_ENGINE_CHECK=1 (each column cell also evaluated on its own), for its
    ``column_mismatches``, ``columnar_cells`` and ``_column_groups()``."""
    from zvmplan_addin import recalc, xlsx
    from zvmplan_addin.recalc.engine import Engine
    monkeypatch.setenv("ZVMPLAN_ENGINE_CELLWISE", "")
    monkeypatch.setenv("ZVMPLAN_ENGINE_CHECK", "1")
    recalc.install_functions()
    with xlsx.safe_open_xlsx(path) as pkg:
        book = xlsx.read_workbook(pkg)
    e = Engine(book)
    e.recalculate()
    return e


def column_letters_run(e) -> tuple[set, int]:
    """(the columns of ``e``'s column groups, how many of their cells a column run can
    take: all but each group's first)."""
    groups = e._column_groups()
    cols = {e.n_label[int(i)].split("!")[1].rstrip("0123456789") for g in groups for i in g}
    return cols, sum(len(g) - 1 for g in groups)

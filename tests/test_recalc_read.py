"""The read stage (:func:`zvmplan_addin.recalc.read.read_nodes`) takes a sheet's cells as
the bulk reader hands them over (columns: :class:`~zvmplan_addin.xlsx.bulksheet.CellColumns`)
or as dicts (every other reader, and any sheet whose dicts were asked for): both give
the engine the same input -- the same nodes, value grids and filled cells."""
from __future__ import annotations

import numpy as np
import pytest

from zvmplan_addin import xlsx
from zvmplan_addin.recalc.read import read_nodes, release
from zvmplan_addin.recalc.runlog import RunLog
from zvmplan_addin.xlsx import SheetData, read_sheet
from zvmplan_addin.xlsx import sheet as S

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
STRINGS = ["zero", "one", "two"]


def _part(rows: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="{NS}">'
            f'<dimension ref="A1"/><sheetData>{rows}</sheetData></worksheet>').encode()


PLANNER = "".join(
    f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>k{r % 3}</t></is></c><c r="B{r}"><v>{r}</v>'
    f'</c><c r="C{r}" t="s"><v>{r % 4}</v></c><c r="D{r}" t="e"><v>#N/A</v></c>'
    f'<c r="E{r}"><f>B{r}*2</f><v>{2 * r}</v></c><c r="F{r}" t="str"><f>A{r}&amp;"x"</f>'
    f'<v>old</v></c><c r="G{r}"><f>IF(B{r}&gt;3,SUM(B$1:B{r}),1/0)</f><v /></c>'
    f'<c r="H{r}" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="I{r}" s="2"/></row>'
    for r in range(1, 40))


def _engine_input(nodes) -> tuple:
    """What the later stages read of the nodes, in a form compared with ==."""
    def cells(v):
        return (type(v).__name__, repr(v))
    grids = []
    for g in nodes.grids:
        if g.dense:
            grids.append(("dense", g.a.shape, [cells(v) for v in g.a.ravel()]))
        else:
            grids.append(("sparse", sorted((k, cells(v)) for k, v in g.d.items())))
    taken = [t.mask.tolist() if t.mask is not None else sorted(t.cells) for t in nodes.taken]
    return (nodes.n_sheet, nodes.n_row, nodes.n_col, nodes.n_text, nodes.n_area, nodes.n_kind,
            nodes.cells, [a.tolist() for a in nodes.where()], nodes.any_area, grids, taken,
            [nodes.n_label[i] for i in range(len(nodes))])


def _both(parts: list[bytes]) -> tuple:
    """(which sheets came as columns, the engine input from the sheets as read, from
    the same sheets read by the general reader, into dicts); asserts the input from
    the dicts made of the columns (asked for before the engine reads them) is the
    same as from the columns."""
    books = []
    for how in ("columns", "made dicts", "general"):
        sheets = []
        for k, data in enumerate(parts):
            sheet = SheetData(f"S{k}", f"p{k}")
            if how == "general":
                S.read_general(data, sheet, STRINGS, f"p{k}")
            else:
                read_sheet(data, sheet, STRINGS, f"p{k}")
            if how == "made dicts":
                sheet.values        # noqa: B018 (asked for: the dicts made)
                assert sheet.columns is None
            sheets.append(sheet)
        books.append(xlsx.Workbook(sheets=sheets, names=[], other_sheets=[]))
    took = [s.columns is not None for s in books[0].sheets]
    got = [_engine_input(read_nodes(book, RunLog())) for book in books]
    assert got[0] == got[1]
    return took, got[0], got[2]


@pytest.mark.parametrize("rows", [
    PLANNER,
    PLANNER + '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>',   # a sparse grid
    '<row r="1"><c r="A1"><v>1</v></c></row>',                           # no formula
    '<row r="1"><c r="A1"><f>1+1</f></c></row>',                         # no value
    '<row r="1"><c r="A1" s="1"/></row>',                                # nothing filed
])
def test_columns_and_dicts_give_the_engine_the_same_input(rows):
    took, columns, dicts = _both([_part(rows)])
    assert took == [True]
    assert columns == dicts


def test_columns_read_in_many_chunks_give_the_same_input(monkeypatch):
    """The planner rows over many chunks (CHUNK made small), some formula cells with a
    cached value and some without: each chunk's cached values land on their cells."""
    from zvmplan_addin.xlsx import bulksheet
    monkeypatch.setattr(bulksheet, "CHUNK", 300)
    took, columns, dicts = _both([_part(PLANNER)])
    assert took == [True]
    assert columns == dicts


def test_sheets_read_either_way_side_by_side_give_the_same_input():
    """A book of a sheet handed over as columns, one as dicts (a shared formula), one
    read by the general reader (a rich text run): the same input as all as dicts."""
    shared = _part('<row r="1"><c r="A1"><v>2</v></c><c r="B1"><f t="shared" ref="B1:B2" '
                   'si="0">A1*2</f><v>4</v></c></row><row r="2"><c r="A2"><v>3</v></c>'
                   '<c r="B2"><f t="shared" si="0"/><v>6</v></c></row>')
    rich = _part('<row r="1"><c r="A1" t="inlineStr"><is><r><t>a</t></r></is></c>'
                 '<c r="B1"><f>S0!E2+1</f></c></row>')
    took, columns, dicts = _both([_part(PLANNER), shared, rich])
    assert took == [True, False, False]
    assert columns == dicts


def test_a_book_read_from_a_file_is_calculated_the_same_either_way(tmp_path):
    """read_workbook leaves the planner's cells in columns; the engine computes the
    same values from them as from the dicts."""
    from zvmplan_addin.recalc.engine import Engine
    from zvmplan_addin.recalc.install import install_functions
    from zvmplan_addin.xlsx import write_zip
    import datetime as dt
    rels = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
            'openxmlformats.org/package/2006/relationships">{}</Relationships>')
    rel = '<Relationship Id="{}" Type="{}" Target="{}"/>'
    office = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    types = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats'
             '.org/package/2006/content-types"><Default Extension="rels" ContentType="'
             'application/vnd.openxmlformats-package.relationships+xml"/><Override PartName='
             '"/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.'
             'spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" '
             'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.'
             'worksheet+xml"/></Types>')
    book_xml = (f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{NS}" xmlns:r="{office}">'
                '<sheets><sheet name="S0" sheetId="1" r:id="rId1"/></sheets></workbook>')
    path = tmp_path / "p.xlsx"
    write_zip(path, [("[Content_Types].xml", types.encode()),
                     ("_rels/.rels", rels.format(rel.format("rId1", office + "/officeDocument",
                                                            "xl/workbook.xml")).encode()),
                     ("xl/workbook.xml", book_xml.encode()),
                     ("xl/_rels/workbook.xml.rels", rels.format(rel.format(
                         "rId1", office + "/worksheet", "worksheets/sheet1.xml")).encode()),
                     ("xl/worksheets/sheet1.xml", _part(PLANNER))],
              dt.datetime(2024, 1, 1))
    install_functions()
    got = []
    for as_dicts in (False, True):
        with xlsx.safe_open_xlsx(path, parse_sheets=False) as pkg:
            book = xlsx.read_workbook(pkg)
        assert book.sheets[0].columns is not None
        if as_dicts:
            book.sheets[0].formulas     # noqa: B018 (asked for: the dicts made)
        engine = Engine(book)
        release(book)
        assert book.sheets[0].columns is None and book.sheets[0].values == {}
        engine.recalculate()
        got.append(_engine_input(engine.nodes)[-3])   # the grids, computed
    assert got[0] == got[1]
    grid = engine.nodes.grids[0]
    assert grid.get(5, 5) == 10 and grid.get(5, 7) == 15 and grid.get(2, 6) == "k2x"

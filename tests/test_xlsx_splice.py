"""The splice at noted offsets, given values as columns (:class:`CellValues`): the same
bytes as the general scan across block boundaries, for every kind of value and start
tag, and None (the general path) where it cannot apply."""
from __future__ import annotations

import numpy as np
import pytest

from zvmplan_addin.xlsx import CellUpdate, SheetData, XlError, read_sheet, rewrite_sheet
from zvmplan_addin.xlsx import rewrite as rw
from zvmplan_addin.xlsx import sheet as sheet_module
from zvmplan_addin.xlsx import splice
from zvmplan_addin.xlsx.cells import a1
from zvmplan_addin.xlsx.rewrite import CellValues

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
HEAD = (f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{NS}" xmlns:q="urn:q">'
        '<dimension ref="A1:D6"/><sheetData>')
TAIL = "</sheetData></worksheet>"
# start tags of formula cells: plain, with s, with t, with vm, with a '>' inside a value,
# with a value quoted with ', with white space before '>' (which the general path drops
# from every tag it renders, the splice only from the tags it changes: text values here)
TAGS = ['<c r="{ref}">', '<c r="{ref}" s="3">', '<c r="{ref}" t="str">', '<c r="{ref}" vm="1">',
        '<c r="{ref}" q:note="a>b">', "<c r='{ref}'>", '<c r="{ref}" s="1"  >']
SPACED = len(TAGS) - 1
VALUES = [2.5, -0.0, 1e-300, 123456789.0, "x<y & \"z\"", "caf\u00e9 \x01", "", True, False,
          XlError("#N/A"), 3, "\x00nul"]


def _sheet(rows: int = 6) -> bytes:
    body = []
    for r in range(1, rows + 1):
        cells = "".join(TAGS[(r + c) % len(TAGS)].format(ref=a1(r, c)) +
                        f"<f>ROW()+{c}</f>" + ("<v>7</v>" if (r + c) % 3 else "<v/>") + "</c>"
                        for c in range(1, 5))
        body.append(f'<row r="{r}">{cells}</row>')
    return (HEAD + "".join(body) + TAIL).encode()


def _general(data: bytes, updates: dict) -> bytes:
    """The general path, bypassing any noted layout."""
    return rw._rewrite_by_scan(data, updates, "sheet")


@pytest.mark.parametrize("block", [1, 3, 1 << 16])
def test_columns_splice_to_the_same_bytes_as_the_general_scan(block, monkeypatch):
    """Every kind of value into every kind of start tag, in blocks of 1, 3 and 65,536
    cells, the updates in a shuffled order: byte for byte the general rewrite."""
    monkeypatch.setattr(splice, "_BLOCK", block)
    data = _sheet()
    sheet = SheetData("S", "p")
    layout = read_sheet(data, sheet, [])
    cells = sorted(sheet.formulas)
    order = np.random.default_rng(3).permutation(len(cells))
    rows = [cells[i][0] for i in order]
    cols = [cells[i][1] for i in order]
    values = [VALUES[i % len(VALUES)] for i in order]
    for k, i in enumerate(order):
        if (cells[i][0] + cells[i][1]) % len(TAGS) == SPACED:
            values[k] = "spaced"
    by_dict: dict = {}
    for r, c, v in zip(rows, cols, values):
        by_dict.setdefault(r, {})[c] = v
    fast = splice.splice_by_layout(data, CellValues(rows, cols, values), layout)
    assert fast is not None
    assert fast == _general(data, by_dict)
    assert rewrite_sheet(data, CellValues(rows, cols, values), layout=layout) == fast
    assert b'q:note="a>b" t="b">' in fast and b'<c r="C3" s="1" t="str">' in fast


def test_what_the_splice_leaves_to_the_general_path():
    """A new cell, an array formula, a cell listed twice: None from the splice, and
    rewrite_sheet still writes them (through the scan)."""
    data = _sheet(2)
    sheet = SheetData("S", "p")
    layout = read_sheet(data, sheet, [])
    new_cell = CellValues([1], [9], [1.0])
    assert splice.splice_by_layout(data, new_cell, layout) is None
    assert b'<c r="I1"><v>1.0</v></c>' in rewrite_sheet(data, new_cell, layout=layout)
    assert splice.splice_by_layout(data, {1: {1: CellUpdate(1.0, "A1:A2")}}, layout) is None
    assert splice.splice_by_layout(data, CellValues([1, 1], [1, 1], [1.0, 2.0]), layout) is None


def test_the_layout_record_is_the_readers():
    """The numpy view of a layout record is the reader's struct, field for field."""
    assert splice.LAYOUT_DTYPE.itemsize == sheet_module._LAYOUT.size
    packed = sheet_module._LAYOUT.pack(7, 3, 100, 120, 131, 1)
    rec = np.frombuffer(packed, dtype=splice.LAYOUT_DTYPE)[0]
    assert [int(rec[k]) for k in ("r", "c", "c0", "v0", "v1", "flags")] == [7, 3, 100, 120, 131, 1]


def test_cell_values_and_the_row_form_agree():
    values = CellValues(np.array([2, 1, 2]), [5, 1, 1], ["a", 1.0, XlError("#N/A")])
    assert values.as_dict() == {2: {5: "a", 1: XlError("#N/A")}, 1: {1: 1.0}}
    back = CellValues.from_dict(values.as_dict())
    assert sorted(zip(back.rows.tolist(), back.cols.tolist())) == [(1, 1), (2, 1), (2, 5)]
    assert CellValues.from_dict({1: {1: CellUpdate(2.0, "A1:B1")}}) is None
    assert len(CellValues([], [], [])) == 0
    with pytest.raises(ValueError):
        CellValues([1], [1, 2], [0.0])

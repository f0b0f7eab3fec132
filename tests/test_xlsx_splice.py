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


# values whose texts must stay apart although Python calls them equal (0.0 and -0.0,
# True and 1.0 and 1), repeated as a filled-down column repeats them, texts holding the
# '%' the splice's format must not read as a conversion, and a long text
REPEATED = [0.0, -0.0, 1.0, True, 1, 0.1 + 0.2, 0.30000000000000004, float("nan"),
            float("inf"), "50%", "%b %s %%", "%", "x" * 300, XlError("#DIV/0!"), False, 0]


def _percent_sheet(rows: int) -> bytes:
    """Formula cells holding '%' in their formulas, old cached values and attributes,
    old values short, long (over the splice's 64-byte offsets) and empty."""
    olds = ["<v>50%</v>", "<v/>", "<v>" + "%" * 100 + "</v>", "<v>1</v>", "<v></v>",
            "<v>" + "y" * 2000 + "</v>"]
    tags = ['<c r="{ref}">', '<c r="{ref}" t="str">', '<c r="{ref}" q:p="%b">',
            '<c r="{ref}" s="2">']
    body = []
    for r in range(1, rows + 1):
        cells = "".join(tags[(r * 3 + c) % len(tags)].format(ref=a1(r, c)) +
                        f"<f>A{r}*10%+{c}%</f>" + olds[(r + 2 * c) % len(olds)] + "</c>"
                        for c in range(1, 5))
        body.append(f'<row r="{r}">{cells}<c r="E{r}" t="inlineStr"><is><t>%d%%</t></is>'
                    "</c></row>")
    return (HEAD + "".join(body) + TAIL).encode()


@pytest.mark.parametrize("block", [1, 5, 1 << 16])
def test_percent_signs_repeated_values_and_long_old_values_splice_as_the_scan(block,
                                                                             monkeypatch):
    """The splice writes by one ``%`` format (each edit's bytes a ``%-..-b`` conversion):
    '%' in formulas, old values, attributes and new texts, old ``<v>`` elements longer
    than its 64 offsets done at once, and values written once per distinct text
    (``-0.0`` apart from ``0.0``, ``True`` from ``1.0``): byte for byte the general
    rewrite, in blocks of 1, 5 and 65,536 cells."""
    monkeypatch.setattr(splice, "_BLOCK", block)
    data = _percent_sheet(12)
    sheet = SheetData("S", "p")
    layout = read_sheet(data, sheet, [])
    cells = sorted(sheet.formulas)
    values = [REPEATED[(k * 7) % len(REPEATED)] for k in range(len(cells))]
    rows, cols = [r for r, _ in cells], [c for _, c in cells]
    by_dict: dict = {}
    for r, c, v in zip(rows, cols, values):
        by_dict.setdefault(r, {})[c] = v
    fast = splice.splice_by_layout(data, CellValues(rows, cols, values), layout)
    assert fast is not None and fast == _general(data, by_dict)
    assert b"<v>-0.0</v>" in fast and b"<v>0.0</v>" in fast and b"<v>%b %s %%</v>" in fast
    assert b'<v>1</v>' in fast and b"<v>1.0</v>" in fast and b"<v>nan</v>" in fast
    assert fast.count(b"10%+") == len(cells) and b"<t>%d%%</t>" in fast
    assert b"%%%%" not in fast.replace(b"%" * 100, b"")     # no '%' doubled in the output


def test_the_value_table_writes_each_distinct_text_once():
    """value_texts: one piece per distinct text, each cell's code pointing at its own
    text as encode_value writes it."""
    from zvmplan_addin.xlsx.valuetexts import value_texts
    values = np.empty(len(REPEATED) * 3, dtype=object)
    values[:] = REPEATED * 3
    texts = value_texts(values, b"<v>", b"</v>")
    once = value_texts(values[:len(REPEATED)], b"<v>", b"</v>")
    assert len(texts.pieces) == len(once.pieces) < len(REPEATED)  # 0.1 + 0.2 written once
    for v, code in zip(values.tolist(), texts.codes.tolist()):
        t, text = rw.encode_value(v)
        assert texts.pieces[code] == b"<v>" + text.encode() + b"</v>"
        assert texts.t_names[texts.t_codes[code]] == (None if t is None else t.encode())


def test_the_value_table_encodes_each_other_object_once():
    """value_texts encodes each distinct object that is neither a float nor a str once
    (an error value is one object in thousands of cells): equal errors held by distinct
    objects, one object in many cells, bools and ints beside them -- each cell's piece
    and t as encode_value gives it, one piece per distinct (t, text), in order of first
    appearance."""
    from zvmplan_addin.xlsx.valuetexts import value_texts
    shared = XlError("#N/A")
    cells = [shared, XlError("#N/A"), 1, True, shared, XlError("#REF!"), 1, False, shared,
             XlError("#REF!"), 0, True]
    values = np.empty(len(cells), dtype=object)
    values[:] = cells
    texts = value_texts(values, b"<v>", b"</v>")
    assert texts.pieces.tolist() == [b"<v>#N/A</v>", b"<v>1.0</v>", b"<v>1</v>",
                                     b"<v>#REF!</v>", b"<v>0</v>", b"<v>0.0</v>"]
    for v, code in zip(cells, texts.codes.tolist()):
        t, text = rw.encode_value(v)
        assert texts.pieces[code] == b"<v>" + text.encode() + b"</v>"
        assert texts.t_names[texts.t_codes[code]] == (None if t is None else t.encode())


def test_the_written_errors_are_converted_once_per_object():
    """The engine's updates convert formulas' error values (one object per error) and
    empty results for the file once per distinct object: each cell gets what
    ``for_file`` gives its value; floats, texts and bools are left as they are."""
    import schedula as sh
    from types import SimpleNamespace
    from zvmplan_addin.recalc import write
    from zvmplan_addin.recalc.values import XL, for_file
    cells = [1.5, XL["#N/A"], "x", XL["#N/A"], sh.EMPTY, XL["#REF!"], True, None, XL["#N/A"]]
    cached = np.empty(len(cells), dtype=object)
    cached[:] = cells
    nodes = SimpleNamespace(in_area=lambda: np.zeros(1, dtype=bool))
    results = SimpleNamespace(spill_area={})
    rows = np.arange(1, len(cells) + 1)
    out = write.updates(nodes, results, {0: (None, rows, rows * 0 + 2, cached)})[0]
    got = list(out.values)
    assert [(type(v), v) for v in got] == [(type(for_file(v)), for_file(v)) for v in cells]
    assert [type(v).__name__ for v in got] == ["float", "XlError", "str", "XlError", "float",
                                               "XlError", "bool", "float", "XlError"]
    assert cached.tolist() == cells  # (the engine's own values untouched)

"""The About sheet: what the workbook is, how to install and recalculate it, the function
list (generated from the worksheet-function registry) and the sources (from the data
files' provenance headers)."""
from __future__ import annotations

from collections import OrderedDict

import zvmplan_addin.functions  # registers every worksheet function
from zvmplan.data import headers
from zvmplan_addin.registry import REGISTRY

from . import styles as st
from .book import Book

SHEET = "About"
#: the install section's heading; :func:`lite_prose` gives xlwings Lite's
INSTALL_HEADING = "Install the add-in (Excel with xlwings)"
LITE_INSTALL_HEADING = "Install the functions (Excel with xlwings Lite)"


def functions():
    """The add-in's worksheet functions (not ones a test or plug-in registered elsewhere)."""
    return [fn for fn in REGISTRY.values()
            if getattr(fn.impl, "__module__", "") == zvmplan_addin.functions.__name__]


def sources() -> "OrderedDict[str, tuple[str, list[str]]]":
    """document prefix -> (title, [table titles]) from the data files' headers."""
    out: OrderedDict[str, tuple[str, list[str]]] = OrderedDict()
    for name, h in headers().items():
        doc = h["document"]
        key = doc[:3]
        title = doc[doc.index("(") + 1:doc.rindex(")")] if "(" in doc else doc
        out.setdefault(key, (f"{title} [{doc.split(' ')[0]}; z/VM {h['z/VM level']}]", []))
        out[key][1].append(f"{h['table']} ({name})")
    return out


def lite_prose(notes: dict) -> dict[str, str]:
    """The About sheet's text that differs for xlwings Lite: each classic install line
    (and the heading) -> the Lite one in its place (``notes.toml``'s ``install_lite``,
    one line for each ``install`` line). ``zvmplan template --for lite`` writes these."""
    classic, lite = notes["install"], notes["install_lite"]
    if len(classic) != len(lite):
        raise ValueError("notes.toml: install_lite needs one line per install line")
    pairs = {INSTALL_HEADING: LITE_INSTALL_HEADING, **dict(zip(classic, lite))}
    return {a: b for a, b in pairs.items() if a != b}


def sheet_about(book: Book, notes: dict):
    ws = book.wb.create_sheet(SHEET, 0)
    st.widths(ws, {"A": 46, "B": 52, "C": 62, "D": 40, "E": 16})
    row = st.title(ws, "zvmplan - capacity planning for z/VM networking from IBM's published "
                   "measurements", "Template workbook built by python -m zvmplan_workbook.build "
                   "from the zvmplan package; do not edit by hand, rebuild.", width_cols=5)
    for text in notes["about"]:
        row = st.note(ws, row, text, width_cols=5)
        ws.cell(row - 1, 1).font = st.Font(size=10)
    row += 1
    row = st.h2(ws, row, "Sheets")
    for sh in notes["sheet"]:
        st.label(ws.cell(row, 1), sh["name"], bold=True)
        c = ws.cell(row, 2, sh["text"])
        c.alignment = st.WRAP
        ws.merge_cells(start_row=row, start_column=2, end_row=row, end_column=4)
        ws.row_dimensions[row].height = 28 if len(sh["text"]) > 140 else 15
        row += 1
    row += 1
    row = st.h2(ws, row, INSTALL_HEADING)
    for text in notes["install"]:
        row = st.note(ws, row, text, width_cols=4)
        ws.cell(row - 1, 1).font = st.Font(size=10)
    row += 1
    row = st.h2(ws, row, "Recalculate without Excel")
    for text in notes["headless"]:
        row = st.note(ws, row, text, width_cols=4)
        ws.cell(row - 1, 1).font = st.Font(size=10)
    row += 1
    row = st.h2(ws, row, "Worksheet functions (from the add-in's registry)")
    for i, (h, u) in enumerate((("Signature", ""), ("What it returns", ""),
                                ("Example", ""), ("Example's value", "live"))):
        st.header(ws, row, 1 + i, h, u)
    ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=1)
    row += 2
    for fn in functions():
        st.label(ws.cell(row, 1), fn.signature(), wrap=True).font = st.BOLD
        st.label(ws.cell(row, 2), fn.description, wrap=True)
        st.label(ws.cell(row, 3), fn.example, wrap=True).data_type = "s"  # text, not a formula
        expr = fn.example.lstrip("=")
        formula = f"=INDEX({expr},1,1)" if fn.spill else f"={expr}"
        st.output(ws.cell(row, 4), formula)
        ws.cell(row, 4).alignment = st.WRAP
        if fn.spill:
            st.label(ws.cell(row, 5), "(first value shown)")
            ws.cell(row, 5).font = st.NOTE_FONT
        ws.row_dimensions[row].height = 60 if fn.name == "ZVM_BASIS" else 30
        row += 1
    row += 1
    row = st.h2(ws, row, "Sources")
    st.header(ws, row, 1, "Document", None)
    st.header(ws, row, 2, "Title", None)
    st.header(ws, row, 3, "Tables transcribed (data file)", None)
    row += 1
    for key, (title, tables) in sources().items():
        st.label(ws.cell(row, 1), key, bold=True)
        st.label(ws.cell(row, 2), title, wrap=True)
        st.label(ws.cell(row, 3), "\n".join(tables), wrap=True)
        ws.row_dimensions[row].height = max(30, 13 * len(tables) + 4)
        row += 1
    st.protect(ws)
    return ws

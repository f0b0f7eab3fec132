"""The Conclusions sheet, from ``conclusions.toml``: each conclusion of the sources,
paraphrased, with a live formula for the quantity behind it and a cell saying whether
it holds."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from openpyxl.formatting.rule import CellIsRule

from . import styles as st
from .book import Book
from .tomlread import tomllib

CONCLUSIONS_FILE = Path(__file__).with_name("conclusions.toml")
SHEET = "Conclusions"
HOLDS, FAILS = "holds", "does not hold"
_REF = re.compile(r"\{ref:([^}]+)\}")


@lru_cache(maxsize=None)
def load() -> tuple[dict, ...]:
    """The conclusions, in file order."""
    with CONCLUSIONS_FILE.open("rb") as fh:
        return tuple(tomllib.load(fh)["conclusion"])


def resolve(formula: str, refs: dict[str, str]) -> str:
    """Replace ``{ref:KEY}`` with the cell the builder recorded under KEY."""
    def sub(m):
        try:
            return refs[m.group(1)]
        except KeyError:
            raise KeyError(f"conclusions.toml refers to unknown cell key {m.group(1)!r}") from None
    return _REF.sub(sub, formula)


def sheet_conclusions(book: Book):
    ws = book.wb.create_sheet(SHEET)
    st.widths(ws, {"A": 8, "B": 24, "C": 60, "D": 40, "E": 12, "F": 10, "G": 13, "H": 40})
    ws.sheet_view.zoomScale = 90
    row = st.title(ws, "Conclusions of the sources - and whether zvmplan's numbers bear them out",
                   "Each conclusion in our words, with the source. 'Value' is a live formula for "
                   "the quantity behind it (zvmplan worksheet functions, or Excel over the source "
                   "sheets); 'Holds?' applies the test shown. Definitions: conclusions.toml.",
                   width_cols=8)
    heads = [("ID", ""), ("Source", "document, table / slide"), ("Conclusion (paraphrased)", ""),
             ("Quantity behind it", ""), ("Value", "live"), ("Unit", ""), ("Holds?", ""),
             ("Test (x = Value)", "")]
    for i, (h, u) in enumerate(heads):
        st.header(ws, row, i + 1, h, u)
    row += 2
    first = row
    for c in load():
        st.label(ws.cell(row, 1), c["id"], bold=True)
        st.label(ws.cell(row, 2), c["source"], wrap=True)
        st.label(ws.cell(row, 3), c["claim"], wrap=True)
        q = c["quantity"] + (f" ({c['note']})" if c.get("note") else "")
        st.label(ws.cell(row, 4), q, wrap=True)
        value = ws.cell(row, 5)
        st.output(value, "=" + resolve(c["formula"], book.refs),
                  "0.0%" if c["unit"] == "fraction" else "0.000")
        st.label(ws.cell(row, 6), c["unit"])
        test = resolve(c["holds"], book.refs).replace("{x}", value.coordinate)
        st.output(ws.cell(row, 7), f'=IF({test},"{HOLDS}","{FAILS}")')
        ws.cell(row, 7).font = st.BOLD
        for col in (5, 7):
            ws.cell(row, col).alignment = st.Alignment(vertical="top")
        st.label(ws.cell(row, 8), c["holds"], wrap=True)
        ws.cell(row, 8).font = st.NOTE_FONT
        book.refs[f"conclusion.{c['id']}"] = f"{SHEET}!$G${row}"
        longest = max(len(c["claim"]) / 60, len(q) / 40, min(len(c["holds"]), 240) / 45)
        ws.row_dimensions[row].height = 15 * max(2, int(longest) + 1)
        row += 1
    rng = f"G{first}:G{row - 1}"
    ws.conditional_formatting.add(rng, CellIsRule(operator="equal", formula=[f'"{HOLDS}"'],
                                                  fill=st.OUTPUT_FILL))
    ws.conditional_formatting.add(rng, CellIsRule(operator="equal", formula=[f'"{FAILS}"'],
                                                  fill=st.BAD_FILL))
    ws.freeze_panes = f"A{first}"
    st.protect(ws)
    return ws

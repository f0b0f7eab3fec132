"""Cell styles and small writing helpers shared by every sheet of the template.

Inputs are the only unlocked cells and the only cells with the input fill; everything
else is locked (protected sheets) so a planner cannot overwrite a formula by accident.
"""
from __future__ import annotations

from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Border, PatternFill, Protection, Side
from openpyxl.styles import Font as _Font
from openpyxl.utils import get_column_letter

#: the workbook's body font; every font names it (a font without a name prints in the
#: program's own default, a serif in LibreOffice, and takes other widths than on screen)
FONT_NAME, FONT_SIZE = "Calibri", 11


def Font(**kw) -> _Font:
    """A font of the body face and size unless ``kw`` says otherwise."""
    kw.setdefault("name", FONT_NAME)
    if kw.get("size") is None:
        kw["size"] = FONT_SIZE
    return _Font(**kw)


INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")      # pale yellow: type here
OUTPUT_FILL = PatternFill("solid", fgColor="E2EFDA")     # pale green: computed for you
HEADER_FILL = PatternFill("solid", fgColor="1F4E78")     # dark blue header band
SUBHEADER_FILL = PatternFill("solid", fgColor="DDEBF7")  # light blue unit row
PUBLISHED_FILL = PatternFill("solid", fgColor="F2F2F2")  # grey: a number printed in a source
BAD_FILL = PatternFill("solid", fgColor="F8CBAD")        # orange-red: outside rounding
TITLE_FONT = Font(bold=True, size=14, color="1F4E78")
H2_FONT = Font(bold=True, size=12, color="1F4E78")
HEADER_FONT = Font(bold=True, color="FFFFFF")
BOLD = Font(bold=True)
NOTE_FONT = Font(italic=True, size=9, color="595959")
WRAP = Alignment(wrap_text=True, vertical="top")
CENTER = Alignment(horizontal="center", vertical="center", wrap_text=True)
THIN = Side(style="thin", color="BFBFBF")
BOX = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
UNLOCKED = Protection(locked=False)
LOCKED = Protection(locked=True)


def title(ws, text: str, subtitle: str | None = None, width_cols: int = 10) -> int:
    """Sheet title in A1 (and a subtitle in A2); returns the next free row."""
    ws["A1"] = text
    ws["A1"].font = TITLE_FONT
    if subtitle:
        ws["A2"] = subtitle
        ws["A2"].font = NOTE_FONT
        ws["A2"].alignment = Alignment(wrap_text=True, vertical="top")
        ws.merge_cells(start_row=2, start_column=1, end_row=2, end_column=width_cols)
        ws.row_dimensions[2].height = 30
    return 4


def h2(ws, row: int, text: str, col: int = 1) -> int:
    ws.cell(row, col, text).font = H2_FONT
    return row + 1


def note(ws, row: int, text: str, col: int = 1, width_cols: int = 10, height: float | None = None):
    """An italic note merged across ``width_cols`` columns; returns the next row."""
    c = ws.cell(row, col, text)
    c.font = NOTE_FONT
    c.alignment = Alignment(wrap_text=True, vertical="top")
    if width_cols > 1:
        ws.merge_cells(start_row=row, start_column=col, end_row=row, end_column=col + width_cols - 1)
    if height is None:
        # rough: ~1.1 characters per point of column width, 12 points per line
        chars = sum((ws.column_dimensions[get_column_letter(col + i)].width or 9)
                    for i in range(width_cols)) * 1.1
        lines = max(1, -(-len(text) // max(int(chars), 20)))
        height = 12.5 * lines + 2
    ws.row_dimensions[row].height = height
    return row + 1


def header(ws, row: int, col: int, text: str, unit: str | None = None, fill=HEADER_FILL):
    """A header cell; with ``unit`` the unit goes in the row below, in brackets."""
    c = ws.cell(row, col, text)
    c.font = HEADER_FONT if fill is HEADER_FILL else BOLD
    c.fill = fill
    c.alignment = CENTER
    c.border = BOX
    if unit is not None:
        u = ws.cell(row + 1, col, f"[{unit}]" if unit else None)
        u.fill = SUBHEADER_FILL
        u.alignment = CENTER
        u.font = Font(size=9)
        u.border = BOX
    return c


def band(ws, row: int, col1: int, col2: int, text: str):
    """A merged header band over columns col1..col2."""
    c = ws.cell(row, col1, text)
    c.font = HEADER_FONT
    c.fill = HEADER_FILL
    c.alignment = CENTER
    for col in range(col1, col2 + 1):
        ws.cell(row, col).fill = HEADER_FILL
        ws.cell(row, col).border = BOX
    if col2 > col1:
        ws.merge_cells(start_row=row, start_column=col1, end_row=row, end_column=col2)
    return c


def published(cell, value, fmt: str):
    cell.value = value
    cell.number_format = fmt
    cell.fill = PUBLISHED_FILL
    cell.border = BOX
    return cell


def output(cell, formula: str, fmt: str = "General"):
    cell.value = formula
    cell.number_format = fmt
    cell.fill = OUTPUT_FILL
    cell.border = BOX
    cell.protection = LOCKED
    return cell


def input_cell(cell, value=None, fmt: str = "General"):
    cell.value = value
    cell.number_format = fmt
    cell.fill = INPUT_FILL
    cell.border = BOX
    cell.protection = UNLOCKED
    return cell


def label(cell, text, bold: bool = False, wrap: bool = False):
    cell.value = text
    cell.border = BOX
    if bold:
        cell.font = BOLD
    cell.alignment = WRAP if wrap else Alignment(vertical="top")
    return cell


def fit_heights(ws, first_row: int, last_row: int, line: float = 15.0) -> None:
    """Make each row from ``first_row`` to ``last_row`` tall enough for its wrapped texts
    (never lower than it is): LibreOffice and Excel print a wrapped text that does not fit
    over the next row's. Rough, as :func:`note`: ~1.1 characters of 11-point text per unit
    of column width (1.0 in bold), ``line`` points per line."""
    import math
    merged = {c for rng in ws.merged_cells.ranges for row in ws[rng.coord] for c in
              (row if isinstance(row, tuple) else (row,))}
    for r in range(first_row, last_row + 1):
        lines = 1
        for cell in ws[r]:
            text = cell.value
            if not isinstance(text, str) or text.startswith("=") or cell in merged:
                continue
            if not (cell.alignment and cell.alignment.wrap_text):
                continue
            width = ws.column_dimensions[cell.column_letter].width or 8.43
            size = cell.font.sz if cell.font and cell.font.sz else FONT_SIZE
            per_line = max(1, int(width * (1.0 if cell.font and cell.font.b else 1.1)
                                  * FONT_SIZE / size))
            lines = max(lines, sum(math.ceil(max(len(part), 1) / per_line)
                                   for part in text.split("\n")))
        now = ws.row_dimensions[r].height
        if lines > 1 or now is not None:
            ws.row_dimensions[r].height = max(now or 0, lines * line + 3)


def widths(ws, spec: dict[str, float]):
    for col, w in spec.items():
        ws.column_dimensions[col].width = w


def number_format(text: str) -> str:
    """Excel number format that shows a number the way the source printed ``text``."""
    t = text.strip().lstrip("+-")
    if "E" in t.upper():
        mant = t.upper().split("E")[0]
        d = len(mant.split(".")[1]) if "." in mant else 0
        return "0." + "0" * d + "E+00" if d else "0E+00"
    d = len(t.split(".")[1]) if "." in t else 0
    return "0." + "0" * d if d else "0"


def diff_format(text: str) -> str:
    """Format for a difference: one digit more than the published number."""
    t = text.strip().lstrip("+-")
    if "E" in t.upper():
        return "0.0E+00"
    d = (len(t.split(".")[1]) if "." in t else 0) + 1
    return "0." + "0" * d


def flag_outside(ws, cells_by_tol: dict[float, list[str]]):
    """Conditional fill on difference cells whose magnitude exceeds their tolerance.

    One rule per cell keeps relative references trivially right in every spreadsheet
    program; the rules cost nothing to recalculate headlessly.
    """
    for tol, cells in sorted(cells_by_tol.items()):
        for ref in cells:
            ws.conditional_formatting.add(ref, FormulaRule(
                formula=[f"ABS({ref})>{tol:.10g}"], fill=BAD_FILL, stopIfTrue=False))


def protect(ws):
    """Protect the sheet: locked cells (all but inputs) cannot be edited. No password: the
    protection is against accidents, not people."""
    ws.protection.sheet = True
    ws.protection.formatCells = False
    ws.protection.formatColumns = False
    ws.protection.formatRows = False
    ws.protection.sort = False
    ws.protection.autoFilter = False


#: printable width of A4 landscape with :func:`page_setup`'s margins [pt]
A4_LANDSCAPE_WIDTH = (297 / 25.4 - 2 * 0.4) * 72
#: what the spreadsheet program's own text metrics may add to a column [share]
PRINT_SLACK = 0.95


def column_points(ws, letter: str) -> float:
    """The printed width of column ``letter`` at 100% [pt]: Excel's width unit is the
    width of a digit of the body font (7 px for Calibri 11 at 96 dpi) plus 5 px of
    padding."""
    dim = ws.column_dimensions.get(letter)   # (indexing would add one, 13 wide)
    width = dim.width if dim is not None and dim.customWidth else 8.43
    return int(width * 7 + 5) * 0.75


def page_setup(ws, wide: bool = False, print_area: str | None = None,
               pages: list[tuple[str, str]] | None = None, title_cols: str | None = None,
               title_rows: str | None = None, row_breaks: tuple[int, ...] = ()):
    """Landscape, one page wide (A3 for wide sheets), as many pages down as needed.

    ``pages`` instead prints the sheet on A4 landscape in column groups, one group per
    page across (``[("A", "L"), ("M", "U"), ...]``: a page break after each group but
    the last), at the one scale that fits the widest group with the ``title_cols``
    repeated on every page (``"A:A"``); ``title_rows`` (``"7:9"``) repeat on every page
    down; ``row_breaks`` start a new page after each of these rows. Pages go across
    first, so a link's columns print one after the other."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A3 if wide and not pages else ws.PAPERSIZE_A4
    ws.print_options.gridLines = False
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.5
    if print_area:
        ws.print_area = print_area
    if not pages:
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
        return
    from openpyxl.utils import column_index_from_string as ci
    from openpyxl.worksheet.pagebreak import Break
    titles = []
    if title_cols:
        a, _, b = title_cols.partition(":")
        titles = [get_column_letter(i) for i in range(ci(a), ci(b or a) + 1)]
    widest = 0.0
    for first, last in pages:
        cols = [get_column_letter(i) for i in range(ci(first), ci(last) + 1)]
        widest = max(widest, sum(column_points(ws, c) for c in dict.fromkeys(titles + cols)))
    scale = min(100, int(100 * PRINT_SLACK * A4_LANDSCAPE_WIDTH / widest))
    ws.sheet_properties.pageSetUpPr.fitToPage = False
    ws.page_setup.scale = scale
    ws.page_setup.pageOrder = "overThenDown"
    for _, last in pages[:-1]:
        ws.col_breaks.append(Break(id=ci(last)))
    for row in row_breaks:
        ws.row_breaks.append(Break(id=row))
    if title_cols:
        ws.print_title_cols = title_cols
    if title_rows:
        ws.print_title_rows = title_rows


WARN_FONT = Font(bold=True, size=12, color="C00000")
ATTENTION_FILL = PatternFill("solid", fgColor="FF9999")   # red: needs attention
LEFT_OUT_FILL = PatternFill("solid", fgColor="F8CBAD")    # orange: left out of the totals
GREY_FONT = Font(color="A6A6A6")
KEPT_FILL = PatternFill("solid", fgColor="BDD7EE")        # blue: kept on its own transport


def warning(ws, ref: str, formula: str, width_cols: int):
    """The top-of-sheet warning cell: blank normally, red text when it fires."""
    c = ws[ref]
    c.value = formula
    c.font = WARN_FONT
    c.protection = LOCKED
    c.alignment = Alignment(wrap_text=True, vertical="top")
    ws.row_dimensions[c.row].height = 32   # two lines when the warning fires
    ws.merge_cells(start_row=c.row, start_column=c.column, end_row=c.row,
                   end_column=c.column + width_cols - 1)
    return c


def attention(ws, sqref: str, formula: str, fill=None, font=None):
    """A conditional format over ``sqref``: ``formula`` is written for its top-left cell."""
    ws.conditional_formatting.add(sqref, FormulaRule(formula=[formula], fill=fill, font=font,
                                                     stopIfTrue=False))

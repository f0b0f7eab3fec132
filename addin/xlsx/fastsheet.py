"""The fast path of :func:`~.sheet.read_sheet`: the cells of a worksheet part in the usual
spelling read by one regular expression, with no Python run per XML element.

The general reader (:func:`~.sheet.read_sheet` through expat's element callbacks) spends
most of its time in the Python of its two callbacks, run for each of the millions of
elements of a large part. Excel, LibreOffice and openpyxl write a sheet's cells in a few
spellings only; :data:`_TOKEN` matches them, one whole cell (its ``<f>``, ``<v>`` and
inline string) a match, so the Python here runs once per cell, not once per element.

It is only ever a faster way to the general reader's answer:

* the part is first offered to the bulk reader (:mod:`.bulksheet`: the commonest
  spelling, read with numpy and proved well formed from its tokens, no Python per
  cell); what it leaves comes here after expat has read the whole part
  (:func:`~.xml.check`: well formed, no DTD, no entity), so the expression only meets
  well-formed markup;
* the expression's last alternative takes any one byte it does not otherwise know
  (``other``): matches therefore tile the ``<sheetData>`` content exactly, and one
  ``other`` match -- another spelling, a prefix, an attribute with a reference or
  whitespace in it, a rich text run, a cell outside a row -- gives the whole part
  back to the general reader (:func:`read_fast` returns None, having changed nothing);
* what lies outside ``<sheetData>`` (the dimension, filters) is read by the general
  reader on those bytes alone;
* each cell's value is converted by the same rules (:func:`_value`), and
  ``tests/test_xlsx_fastsheet.py`` checks both readers agree on every output, layout
  offsets included.
"""
from __future__ import annotations

from . import sheet as S
from .cellread import ATTR as _ATTR, Kinds as _Kinds, attrs as _attrs, value as _value
from ..lazyre import lazy_pattern

_TOKEN = lazy_pattern(
    rb'<c r="([A-Z]{1,3})([0-9]{1,7})"((?:' + _ATTR + rb')*)'      # 1 letters 2 digits 3 attrs
    rb'(?: ?/>|>'
    rb'(?:<f((?:' + _ATTR + rb')*)(?: ?/>|>([^<]*)</f>))?'          # 4 <f> attrs 5 <f> text
    rb'(<v>([^<]*)</v>|<v ?/>)?'                                   # 6 <v> element 7 its text
    rb'(?:<is><t(?: xml:space="preserve")?>([^<]*)</t></is>)?'     # 8 inline string
    rb'</c>)'
    rb'|<row((?:' + _ATTR + rb')*)>'                               # 9 a row's attributes
    rb'|(</row>)'                                                  # 10
    rb'|(<row(?:' + _ATTR + rb')* ?/>)'                            # 11 an empty row
    rb'|([\s\S])')                                                 # 12 any other byte
_SHEETDATA, _END = b"<sheetData>", b"</sheetData>"


def read_fast(data: bytes, sheet: "S.SheetData", strings: list, name: str,
              budget: "S.Budget") -> "S.Layout | None":
    """Fill ``sheet`` from ``data`` as :func:`~.sheet.read_sheet` would and return the
    layout, or return None (``sheet`` and ``budget`` untouched) if the part is spelt in
    a way this reader leaves to the general one."""
    start = data.find(_SHEETDATA)
    if start < 0:
        return None
    body = start + len(_SHEETDATA)
    stop = data.find(_END, body)
    head = data[:body]
    decl = head.find(b"?>") + 2 if head.lstrip(b"\xef\xbb\xbf").startswith(b"<?xml") else 0
    if stop < 0 or b"<!" in head or b"<?" in head[decl:]:
        return None     # the first "<sheetData>" may be in a comment, CDATA or a PI
    # what lies outside <sheetData> (dimension, filters) as the general reader sees it;
    # expat reads the rest of the part below (or the bulk reader proves it well formed),
    # and a part expat refuses is refused with expat's word on the whole of it
    outer = S.SheetData(sheet.name, sheet.part)
    local = S.Budget(budget.limit)
    local.cells, local.others = list(budget.cells), list(budget.others)
    try:
        around = S.read_general(head + data[stop:], outer, strings, name, local)
    except S.UnsafeWorkbookError:
        S.xmlparse.check(data, name)
        raise
    if around.prefix or outer.values or outer.formulas or outer.hidden_rows or around.cells:
        S.xmlparse.check(data, name)
        return None     # a second sheetData after the first: the general reader's case
    # straight into the sheet's dicts when they are empty (as read_workbook hands them);
    # emptied again if the part goes to the general reader after all
    direct = not (sheet.values or sheet.formulas or sheet.cached or sheet.hidden_rows)
    if direct:
        values, formulas, cached, hidden = (sheet.values, sheet.formulas, sheet.cached,
                                            sheet.hidden_rows)
    else:
        values, formulas, cached, hidden = {}, {}, {}, {}
    left = (local.cells[0], local.others[0])
    from .bulksheet import read_bulk    # numpy: not imported with the package (see there)
    # straight into the sheet, the bulk reader hands its cells over as columns when it
    # can (the dicts made from them only if asked for: see SheetData)
    columns: list | None = [] if direct else None
    layout = read_bulk(data, body, stop, strings, values, formulas, cached, left, columns)
    if layout is None:      # not in the bulk reader's spelling: expat, then the loop
        S.xmlparse.check(data, name)     # the whole part well formed, as expat reads it
        layout = _read_cells(data, body, stop, name, strings, values, formulas, cached,
                             hidden, left, budget.limit)
    if layout is None:
        if direct:
            for d in (values, formulas, cached, hidden):
                d.clear()
        return None
    layout, max_row, max_col, left = layout
    if columns:
        sheet.columns = columns[0]
    layout.dimension = around.dimension
    budget.cells[0], budget.others[0] = left
    if not direct:
        sheet.values.update(values)
        sheet.formulas.update(formulas)
        sheet.cached.update(cached)
        sheet.hidden_rows.update(hidden)
    sheet.filter_active = sheet.filter_active or outer.filter_active
    sheet.max_row = max(sheet.max_row, max_row, outer.max_row)
    sheet.max_col = max(sheet.max_col, max_col, outer.max_col)
    return layout


def _read_cells(data: bytes, body: int, stop: int, name: str, strings: list, values: dict,
                formulas: dict, cached: dict, hidden: dict, left: tuple, limit: int):
    """The cells between offsets ``body`` and ``stop`` (the content of ``<sheetData>``)
    filed in the dicts: (layout, max row, max column, (cells left, other elements left)),
    or None if some markup there is not in :data:`_TOKEN`'s spelling (``limit``: the
    budget's cells, named when it refuses the part). The loop's body
    is what one cell costs: kept to a few lookups and stores."""
    cells_left, others_left = left
    masters: dict = {}
    dependents: list = []
    layout = S.Layout(len(data))
    note = layout.cells.extend
    pack = S._LAYOUT.pack
    kinds = _Kinds()
    column = _COLUMN
    new, formula_cell = tuple.__new__, S.FormulaCell
    crs = b"\r" in data[body:stop]      # then formulas go through _decoded
    unescaped = S._unescaped
    in_row = False
    row = 0
    row_number = _ROW_R()
    max_row = max_col = 0
    for m in _TOKEN().finditer(data, body, stop):
        letters, digits, attrs, f_attrs, f_raw, v_el, v_raw, is_raw, row_attrs, row_end, \
            empty_row, other = m.groups()
        if letters is not None:
            if not in_row:
                return None         # a cell outside a row: the general reader ignores it
            cells_left -= 1
            if not cells_left:
                raise S.UnsafeWorkbookError(f"more than {limit:,} cells in the "
                                            f"sheets (at {name}); refused")
            t, flags = kinds[attrs]
            r = int(digits)
            c = column[letters]
            if is_raw is not None:
                others_left -= 2        # <is> and its <t>
                if others_left <= 0:
                    _other_refused(name)
                flags |= 2
            if t == "n":
                if v_raw:
                    try:
                        value = float(v_raw)
                    except ValueError:
                        value = _value(t, v_raw, strings)
                else:
                    value = None
            elif t == "inlineStr":
                value = None if is_raw is None else S.unescape_ooxml(S._decoded(is_raw))
            elif v_el is None:
                value = None
            else:
                value = _value(t, v_raw or b"", strings)
            if f_attrs is None:
                if value is None:
                    continue        # an empty (styled) cell: not filed, no extent
                values[r, c] = value
            else:
                if crs:
                    f_text = S._decoded(f_raw) if f_raw else ""
                else:
                    f_text = f_raw.decode("utf-8") if f_raw else ""
                    if "&" in f_text:
                        f_text = unescaped(f_text)
                if f_attrs:
                    S._file_formula(formulas, masters, dependents, r, c, _attrs(f_attrs),
                                    f_text)
                else:
                    formulas[r, c] = new(formula_cell, (f_text, "plain", None))
                if value is not None:
                    cached[r, c] = value
                if v_el is None:
                    note(pack(r, c, m.start(), -1, -1, flags))
                else:
                    v0, v1 = m.span(6)
                    note(pack(r, c, m.start(), v0, v1, flags))
            if r > max_row:
                max_row = r
            if c > max_col:
                max_col = c
            continue
        if row_end is not None:
            if not in_row:
                return None
            in_row = False
            continue
        if other is not None:
            if other.isspace():
                continue            # whitespace between elements (never inside a cell)
            return None
        others_left -= 1
        if not others_left:
            _other_refused(name)
        if in_row:
            return None             # a row inside a row
        if row_attrs is not None:
            in_row = True
            rm = row_number.match(row_attrs)
            if rm is not None and b"hidden" not in row_attrs:
                row = int(rm.group(1))
                continue
            a = _attrs(row_attrs)
        else:
            a = _attrs(empty_row)
        r = a.get("r")
        row = int(r) if r and r.isdigit() and r.isascii() else row + 1
        if a.get("hidden") in S._TRUE:
            hidden[row] = a.get("customHeight") in S._TRUE
    if in_row:
        return None
    S._file_dependents(formulas, masters, dependents)
    return layout, max_row, max_col, (cells_left, others_left)


_ROW_R = lazy_pattern(rb' r="([0-9]+)"')


class _Columns(dict):
    """Column letters (bytes) -> number, filled on first use."""

    def __missing__(self, letters: bytes) -> int:
        n = self[letters] = S.col_number(letters.decode())
        return n


_COLUMN = _Columns()


def _other_refused(name: str):
    raise S.UnsafeWorkbookError(f"more than {S.MAX_OTHER_ELEMENTS:,} rows and other elements "
                                f"in the sheets (at {name}); refused")

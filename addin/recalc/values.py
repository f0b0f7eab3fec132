"""Cell values as the engine keeps them, and as formulas hands them to its functions.

A cell holds a float, str, bool, ``sh.EMPTY`` (an empty cell) or one of formulas' error
values (:data:`XL`). A reference reaches a compiled formula as a formulas ``Ranges``
(:func:`make_ranges`). A result becomes a cell value with :func:`scalar` (every
non-finite number is ``#NUM!``) and a value for the file with :func:`for_file`.
"""
from __future__ import annotations

import contextlib
import logging
import math
import re
import warnings

import numpy as np
import schedula as sh
from formulas.ranges import Ranges
from formulas.tokens import operand as _operand
from formulas.tokens.operand import Error as _ErrorToken, XlError as FXlError, range2parts

from .. import xlsx
from . import shapes

XL = _ErrorToken.errors             # Excel error code -> formulas' error value
_SHEET_IDS: dict[str, str] = {}     # sheet name -> formulas' sheet id
MAX_TEXT = 32_767                   # Excel's longest text in a cell


def input_value(v):
    if isinstance(v, xlsx.XlError):
        return XL.get(str(v), XL["#VALUE!"])
    return v


def filled(shape, value, dtype=object) -> np.ndarray:
    """An object array of ``value``. Not ``np.full``: it turns str subclasses such as
    ``sh.EMPTY`` and formulas' error values into plain strings ('empty', '#REF!')."""
    out = np.empty(shape, dtype=dtype)
    out.fill(value)
    return out


def make_ranges(sheet, r1, c1, r2, c2, value) -> Ranges:
    """A formulas ``Ranges`` for the rectangle (``r1``, ``c1``)-(``r2``, ``c2``) holding
    ``value``, a 2-D object array: the dict formulas' ``range2parts`` makes, built directly
    (a test checks they agree). ``value`` may be smaller than the rectangle when the rest
    is empty cells (a whole column cut to the used rows): functions that read values see
    ``value``; ROWS, COLUMNS and COUNTBLANK see the whole rectangle."""
    sheet_id = _sheet_id(sheet)
    geom = _geometry(sheet, sheet_id, r1, c1, r2, c2)
    h, w = value.shape
    if (h, w) == (r2 - r1 + 1, c2 - c1 + 1):
        return Ranges((geom,), {geom["name"]: (geom, value)})
    held = _geometry(sheet, sheet_id, r1, c1, r1 + h - 1, c1 + w - 1)
    return Ranges((geom,), {held["name"]: (held, value)})


def _sheet_id(sheet) -> str:
    sheet_id = _SHEET_IDS.get(sheet)
    if sheet_id is None:
        sheet_id = _SHEET_IDS[sheet] = range2parts(
            ("name", "n1", "n2"), sheet=sheet, c1="A", r1="1", c2="A", r2="1")["sheet_id"]
    return sheet_id


def geometry(sheet, r1, c1, r2, c2) -> dict:
    """The geometry formulas gives the rectangle (``r1``, ``c1``)-(``r2``, ``c2``) of
    ``sheet`` (its ``ranges`` entry), without a value."""
    return _geometry(sheet, _sheet_id(sheet), r1, c1, r2, c2)


def _geometry(sheet, sheet_id, r1, c1, r2, c2) -> dict:
    l1, l2 = letters(c1), letters(c2)
    ref = f"{l1}{r1}" if r1 == r2 and c1 == c2 else f"{l1}{r1}:{l2}{r2}"
    return {"r1": str(r1), "r2": str(r2), "c1": l1, "c2": l2, "n1": c1, "n2": c2, "ref": ref,
            "name": f"{sheet_id}!{ref}", "sheet": sheet, "sheet_id": sheet_id}


def range_cells(rng: Ranges) -> int:
    """How many cells the rectangles of ``rng`` cover (a whole column: 1,048,576)."""
    total = 0
    for g in rng.ranges:
        rows = int(g["r2"]) - (int(g["r1"]) or 1) + 1
        cols = int(g["n2"]) - (int(g["n1"]) or 1) + 1
        total += rows * cols
    return total


_LETTERS: dict[int, str] = {}


def letters(c: int) -> str:
    letters = _LETTERS.get(c)
    if letters is None:
        letters = _LETTERS[c] = shapes.col_letters(c)
    return letters


#: what :func:`one_value` answers for a range or array of more than one cell
NOT_ONE = object()


def one_value(a):
    """The single value of ``a`` (a 1x1 range or array, or a scalar), or :data:`NOT_ONE`."""
    if isinstance(a, Ranges):
        a = a.value
    if isinstance(a, np.ndarray):
        return a.reshape(-1)[0] if a.size == 1 else NOT_ONE
    return a


def plain_result(v):
    if isinstance(v, Ranges):
        try:
            return v.value
        except Exception:
            return v
    return v


def quote(sheet: str) -> str:
    """A sheet name quoted for formulas' range parser (always quoted: it cannot read
    an unquoted name such as 000)."""
    return "'" + sheet.replace("'", "''") + "'"


def plain_sheet_name(sheet: str) -> bool:
    """Can ``sheet`` stand unquoted before ``!`` in a reference? Only a name of letters,
    digits, ``_`` and ``.`` that starts with a letter or ``_`` and does not read as a
    reference itself (``A1``, ``R1C1``, ``R``, ``C``): Excel quotes every other name
    (``'Q1-2024'!A1``, ``'My Sheet'!A1``)."""
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", sheet)) and \
        not re.fullmatch(r"[A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc]?[0-9]*|[Cc][0-9]*", sheet)


def display(sheet: str) -> str:
    """A sheet name as Excel writes it in a reference: quoted unless a plain name."""
    return sheet if plain_sheet_name(sheet) else quote(sheet)


def _formulas_sheet_id(sheet="", directory="", filename="", **kw):
    """formulas' ``_build_sheet_id`` with Excel's quoting. formulas names each reference
    ``SHEET!A1`` and parses that name again; it quotes a sheet name only when it holds a
    space, so ``Q1-2024!F57`` came back as ``Q1`` minus ... and every reference of a
    sheet named like ``Q1-2024`` or ``HS1-XYZ`` read an empty cell. Quoted as Excel
    quotes (:func:`plain_sheet_name`), every name parses back to itself."""
    if filename:
        return _build_sheet_id(sheet, directory, filename, **kw)
    sheet = sheet.replace("''", "'").upper()
    return sheet if not sheet or plain_sheet_name(sheet) else quote(sheet)


_build_sheet_id = _operand._build_sheet_id
_operand._build_sheet_id = _formulas_sheet_id  # range2parts looks it up at each call


def fit(arr: np.ndarray, shape) -> np.ndarray:
    """An array result into an array formula's range, as Excel does: a single value or a
    single row/column is repeated; otherwise cells beyond the result are #N/A."""
    h, w = arr.shape
    if (h, w) == tuple(shape):
        return arr
    if h == 1:
        arr = np.repeat(arr, shape[0], axis=0)
    if w == 1:
        arr = np.repeat(arr, shape[1], axis=1)
    out = filled(shape, XL["#N/A"], dtype=object)
    hh, ww = min(arr.shape[0], shape[0]), min(arr.shape[1], shape[1])
    out[:hh, :ww] = arr[:hh, :ww]
    return out


def scalar(v):
    """A result element -> a cell value (errors stay formulas' error values)."""
    if isinstance(v, FXlError):
        return v if str(v) in XL else XL["#VALUE!"]
    if v is sh.EMPTY or v is None:
        return 0.0
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else XL["#NUM!"]
    if isinstance(v, str):
        return str(v) if len(v) <= MAX_TEXT else XL["#VALUE!"]  # Excel's longest text
    if isinstance(v, np.ndarray):
        return scalar(v.reshape(-1)[0]) if v.size else 0.0
    return XL["#VALUE!"]


def for_file(v):
    if isinstance(v, FXlError):
        return xlsx.XlError(str(v))
    if v is sh.EMPTY or v is None:
        return 0.0
    return v



def same(a, b) -> bool:
    if isinstance(a, Ranges) or isinstance(b, Ranges):
        return False
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            return False
        return all(same(x, y) for x, y in zip(a.reshape(-1), b.reshape(-1)))
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    try:
        return bool(a == b)
    except Exception:
        return False


@contextlib.contextmanager
def quiet():
    """Evaluate without noise: an error in a formula is a value, not a log record
    (schedula logs each failing function with its traceback), a warning or numpy
    floating-point chatter."""
    loggers = [logging.getLogger(name) for name in ("schedula", "formulas")]
    levels = [lg.level for lg in loggers]
    try:
        for lg in loggers:
            lg.setLevel(logging.CRITICAL + 1)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)

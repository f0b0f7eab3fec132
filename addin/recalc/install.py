"""The worksheet functions inside formulas.

:func:`install_functions` puts every registry function in formulas' function table
through an adapter that converts formulas' values to the raw cell values the registry
takes and back, and leaves the reason behind each error a zvmplan function returns
(:func:`.runlog.note`). It also makes formulas' own functions answer as Excel does where
they do not:

* every function's non-finite numeric result (``SUM(1E308,1E308)``) is ``#NUM!``, a real
  error that ISERROR and IFERROR see (:func:`_finite`);
* ROWS and COLUMNS of an array (``ROWS(ZVM_TRANSPORTS())``) count its rows and columns,
  and COUNTBLANK of a range cut to the used area (a whole column) counts the cells
  beyond it too (:func:`_geometry_functions`);
* a skipped argument (``F(1,,2)``) reaches a zvmplan function as left out
  (:data:`SKIPPED`, turned into the registry's ``MISSING`` or None), not as 0;
* a large range over a sparse sheet reaches SUM, COUNT, ..., INDEX, MATCH and VLOOKUP as
  the cells the sheet stores in it (:mod:`.sparse`);
* SUM adds its numbers one after the other, left to right (:func:`left_to_right_sum`),
  as Excel does, instead of numpy's pairwise summation: a running total's prefix sums
  (:mod:`.columnar.prefix`) are then the very doubles each cell's own SUM gives; AVERAGE
  and AVERAGEA divide that sum by the count (:func:`left_to_right_mean`), as Excel does:
  apache poi's FormulaEvalTestData_Copy.xlsx, EverythingTests!D180,
  ``=AVERAGE(B7:C15,B16:C17,D8:D16)`` over 20 numbers that nearly cancel, is
  -4.089355473190933e-09 in Excel, the left-to-right sum over 20; numpy's mean gives
  2.3161457843812586e-08.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import schedula as sh
from formulas.functions import Array, get_functions, wrap_func
from formulas.functions import is_not_empty
from formulas.functions.operators import OPERATORS
from formulas.ranges import Ranges
from formulas.tokens.operand import Empty, Error, XlError as FXlError, _index2col

from .. import registry
from ..errors import ExcelError
from ..calls import excel_names, load_functions
from ..registry import REGISTRY
from . import datesystem, dynamic, excel, formulacells, parsecost, rangememo, scalar, sparse
from .excel.values import ReferenceValues
from .runlog import note
from .shapes import rect_of
from .startup import defer_heavy_imports
from .values import MAX_TEXT, XL, one_value, range_cells

# what the registry takes for an argument left out (F(1,,2)): its MISSING if it has one
LEFT_OUT = getattr(registry, "MISSING", None)


class _Skipped(int):
    """A skipped argument (``F(1,,2)``): 0 to formulas' builtins, as formulas reads it,
    and "left out" to a zvmplan function, as Excel passes it to an add-in function."""
    __slots__ = ()

    def __repr__(self):
        return "SKIPPED"


SKIPPED = _Skipped(0)


def _empty_argument():
    return SKIPPED


def _from_formulas(value):
    """A value as formulas hands it to a function -> the raw value the registry takes."""
    if isinstance(value, np.ndarray):
        if value.size == 1:
            return _elem_from_formulas(value.reshape(-1)[0])
        arr = np.atleast_2d(np.asarray(value, dtype=object))
        out = np.empty(arr.shape, dtype=object)
        flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
        for k in range(flat_in.size):
            flat_out[k] = _elem_from_formulas(flat_in[k])
        return out
    return _elem_from_formulas(value)


def _elem_from_formulas(v):
    if type(v) is _Skipped:
        return LEFT_OUT
    if isinstance(v, FXlError):
        return ExcelError(str(v)) if str(v) in XL else ExcelError("#VALUE!")
    if v is sh.EMPTY or v is None:
        return None
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, str):
        return str(v)
    return v


def _to_formulas(result):
    """A registry result -> what formulas expects (errors as formulas' error values)."""
    if isinstance(result, ExcelError):
        note(result)
        return XL[result.code]
    if isinstance(result, np.ndarray):
        arr = np.atleast_2d(np.asarray(result, dtype=object))
        out = np.empty(arr.shape, dtype=object)
        flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
        for k in range(flat_in.size):
            v = flat_in[k]
            if isinstance(v, ExcelError):
                note(v)
                v = XL[v.code]
            elif v is None:
                v = sh.EMPTY
            flat_out[k] = v
        return out.view(Array)
    if result is None:
        return sh.EMPTY
    if isinstance(result, float) and not math.isfinite(result):
        return _num_error()
    return result


MAX_RANGE_ARGUMENT = 2_097_152  # cells: two whole columns


def _adapter(fn):
    def call(*args):
        raw = []
        for a in args:
            if isinstance(a, Ranges):
                a = _whole_value(a)
                if a is None:
                    return _to_formulas(ExcelError(
                        "#VALUE!", f"{fn.name}: a range argument is larger than "
                        f"{MAX_RANGE_ARGUMENT:,} cells"))
            raw.append(_from_formulas(a))
        return _to_formulas(fn(*raw))
    call.__name__ = call.__qualname__ = fn.name
    call.__doc__ = fn.description
    return wrap_func(call, ranges=True)


def _whole_value(rng: Ranges):
    """The value of every cell of ``rng``, also those beyond the used area that the
    engine leaves out of a whole column's value (a zvmplan function given ``A:A`` returns
    one answer per cell, as in Excel); None if that is too many cells."""
    value = rng.value
    cells = range_cells(rng)
    if cells == np.size(value) or len(rng.ranges) != 1:
        return value
    if cells > MAX_RANGE_ARGUMENT:
        return None
    rows, cols = _whole(rng.ranges[0])
    out = np.empty((rows, cols), dtype=object)
    out.fill(sh.EMPTY)
    h, w = np.shape(value)
    out[:h, :w] = value
    return out


def install_functions() -> int:
    """Put every registry function into formulas' function table under each of its
    :func:`~zvmplan_addin.calls.excel_names`; returns how many functions."""
    defer_heavy_imports()  # formulas' function table without SciPy and numpy.random
    parsecost.install()  # its parser without two steps quadratic in a formula's length
    rangememo.install()  # a reference's parts worked out once, not once per formula
    load_functions()
    Empty.compile = staticmethod(_empty_argument)  # formulas' reading of F(1,,2)'s gap
    table = get_functions()
    _geometry_functions(table)
    _sum_left_to_right(table)
    _average_left_to_right(table)
    excel.install(table, left_out=SKIPPED)  # Excel's rules where formulas differs
    scalar.install(OPERATORS)  # after excel.install put its operators in
    scalar.install_functions(table)  # IF, ABS ... as formulas made them: the same shortcut
    for name, entry in list(table.items()):
        if isinstance(entry, dict):
            if not getattr(entry["function"], "_zvm_finite", False):
                table[name] = {**entry, "function": _finite(entry["function"])}
        elif callable(entry) and not getattr(entry, "_zvm_finite", False):
            table[name] = _finite(entry)
    for name, fn in REGISTRY.items():
        adapter = _finite(_adapter(fn))
        for alias in excel_names(name):
            table[alias] = adapter
    formulacells.install(table)
    dynamic.install(table)
    datesystem.install(table)  # last: around whatever implements each date function
    sparse.install(table)  # around the aggregates and lookups, which datesystem leaves
    return len(REGISTRY)


def _sum_left_to_right(table) -> None:
    """formulas' SUM with :func:`left_to_right_sum` in ``table`` (once: the wrappers
    put around it later keep the mark)."""
    if getattr(table["SUM"], "_zvm_left_to_right", False):
        return
    func = wrap_func(sum_left_to_right)
    func._zvm_left_to_right = True
    table["SUM"] = func


def sum_left_to_right(*args):
    """formulas' ``xsum`` with :func:`left_to_right_sum`; when every argument is a number
    or an array holding only numbers (a column of results: ``SUM(I$2:I$100001)``), the
    same sum is taken without formulas' Python step per element (its error search,
    coercion and empty-cell filter change nothing there): the numbers in the same
    order, NaN left out as xsum leaves it out."""
    numbers = _plain_numbers(args)
    if numbers is None:
        # formulas' math module, imported here (by then install_functions has imported
        # it): at this module's top it would come before defer_heavy_imports
        from formulas.functions.math import xsum
        return xsum(*args, func=left_to_right_sum)
    return left_to_right_sum(numbers[~np.isnan(numbers)])


def _average_left_to_right(table) -> None:
    """formulas' AVERAGE and AVERAGEA (the same arguments read the same way) with
    :func:`left_to_right_mean` instead of ``np.mean``, once."""
    if getattr(table["AVERAGE"], "_zvm_left_to_right", False):
        return
    # imported here, after install_functions' defer_heavy_imports
    from formulas.functions.stat import _convert as _average_a_value, xfunc
    for name, func in (
            ("AVERAGE", functools.partial(xfunc, func=left_to_right_mean, default=None)),
            ("AVERAGEA", functools.partial(xfunc, convert=_average_a_value,
                                           check=is_not_empty, func=left_to_right_mean,
                                           default=None))):
        wrapped = wrap_func(func)
        wrapped._zvm_left_to_right = True
        table[name] = wrapped


def left_to_right_mean(values: list):
    """The numbers' left-to-right sum (:func:`left_to_right_sum`) over how many there are,
    as Excel's AVERAGE computes it; #DIV/0! for none (formulas' own answer)."""
    if not values:
        return Error.errors["#DIV/0!"]
    return left_to_right_sum(np.asarray(values, dtype=float)) / len(values)


def _plain_numbers(args):
    """The numbers of ``args`` as one float64 array, in xsum's order, or None when an
    argument is anything but a float, an int, a float64 array or an object array of
    floats and ints (TRUE, text, errors and empty cells go xsum's way)."""
    parts = []
    for a in args:
        if type(a) in (float, int):
            parts.append(np.array([a], dtype=float))
        elif isinstance(a, np.ndarray) and type(a) is np.ndarray:
            if a.dtype == np.float64:
                parts.append(a.ravel())
            elif a.dtype == object:
                flat = a.ravel().tolist()
                if not set(map(type, flat)) <= _PLAIN_NUMBERS:
                    return None
                parts.append(np.array(flat, dtype=float))
            else:
                return None
        else:
            return None
    return np.concatenate(parts) if parts else None


_PLAIN_NUMBERS = frozenset({float, int})


def left_to_right_sum(numbers: np.ndarray) -> float:
    """The sum of ``numbers`` (float64) added one after the other from the first, as
    Excel's SUM adds (and as a running total accumulates); numpy's ``sum`` adds pairwise
    and can differ in the last bit beyond eight numbers. 0.0 for none.

    >>> float(left_to_right_sum(np.array([1e16, 1.0, 1.0])))
    1e+16
    """
    if numbers.size == 0:
        return np.float64(0.0)
    return np.add.accumulate(numbers)[-1]


def _finite(func):
    """``func`` with every non-finite number in its result made ``#NUM!`` (what Excel
    shows for an overflow), so ISNUMBER/ISERROR/IFERROR see an error."""
    @functools.wraps(func)
    def call(*args, **kwargs):
        return non_finite_to_num(func(*args, **kwargs))
    call._zvm_finite = True
    return call


OVERFLOW = "the result is not a finite number (too large for Excel)"


def _num_error():
    note(ExcelError("#NUM!", OVERFLOW))
    return XL["#NUM!"]


def non_finite_to_num(result):
    """``result`` with each non-finite number (scalar or array element) as ``#NUM!`` and
    each text longer than Excel's 32,767 characters as ``#VALUE!``."""
    if isinstance(result, np.ndarray) and not isinstance(result, Ranges):
        kind = result.dtype.kind
        if kind == "f":
            bad = ~np.isfinite(result)
        elif kind == "U":
            bad = np.char.str_len(result) > MAX_TEXT if result.itemsize > 4 * MAX_TEXT \
                else None
        elif kind == "O":
            flat = result.reshape(-1)
            bad = [k for k in range(flat.size) if _excel_value(flat[k]) is not flat[k]]
            if bad:
                out = result.copy()
                for k in bad:
                    out.reshape(-1)[k] = _excel_value(flat[k])
                return out
            return result
        else:
            return result
        if bad is not None and bad.any():
            out = result.astype(object)
            for idx in zip(*np.nonzero(bad)):
                out[idx] = _excel_value(result[idx].item())
            return out.view(type(result)) if isinstance(result, Array) else out
        return result
    return _excel_value(result)


def _excel_value(v):
    if isinstance(v, (float, np.floating)):
        return v if math.isfinite(v) else _num_error()
    if isinstance(v, str) and len(v) > MAX_TEXT and not isinstance(v, FXlError):
        note(ExcelError("#VALUE!", f"the text is {len(v):,} characters long; "
                                f"Excel's limit is {MAX_TEXT:,}"))
        return XL["#VALUE!"]
    return v


def _geometry_functions(table) -> None:
    """ROWS, COLUMNS and COUNTBLANK as Excel answers them (see the module docstring)."""
    for name, axis in (("ROWS", 0), ("COLUMNS", 1)):
        original = table[name]
        if getattr(original, "_zvm_geometry", False):
            continue

        def size(ref, _original=original, _axis=axis):
            if isinstance(ref, Ranges) or not isinstance(ref, np.ndarray):
                return _original(ref)
            return np.atleast_2d(ref).shape[_axis]
        size._zvm_geometry = True
        table[name] = functools.update_wrapper(size, original)
    original = table["COUNTBLANK"]
    if not getattr(original, "_zvm_geometry", False):
        def countblank(ref, _original=original):
            result = _original(ref)
            if isinstance(ref, Ranges) and isinstance(result, (int, float, np.integer)):
                value = ref.value
                result = int(result) + range_cells(ref) - int(np.size(value))
            return result
        countblank._zvm_geometry = True
        table["COUNTBLANK"] = wrap_func(functools.update_wrapper(countblank, original),
                                        ranges=True)
    entry = table["INDEX"]
    if not getattr(entry["function"], "_zvm_geometry", False):
        def index(compiling, array, *args, _original=entry["function"]):
            area = rect_of(array.ranges[0]) \
                if isinstance(array, Ranges) and len(array.ranges) == 1 else None
            if not isinstance(array, Ranges):
                value = one_value(array)
                if isinstance(value, FXlError):  # Excel: INDEX(NA(),1,1) is #N/A, not #REF!
                    return value
            if isinstance(array, Ranges) and len(array.ranges) == 1 and \
                    range_cells(array) > np.size(array.value):
                # a whole column cut to the used rows: INDEX walks the geometry cell by
                # cell, so give it the cut one; a cell beyond it is empty
                held = next(iter(array.values.values()))[0]
                rows, cols = _whole(array.ranges[0]), _whole(held)
                r, c = (_number(a) for a in (list(args) + [None, None])[:2])
                if r is not None and rows[0] >= r > cols[0] or \
                        c is not None and rows[1] >= c > cols[1]:
                    return sh.EMPTY
                array = Ranges((held,), array.values)
            whole = _whole_row_or_column(array, args, area)
            if whole is not None:
                return whole
            if not compiling:
                cell = _one_cell(array, args)
                if cell is not None:
                    return cell
            return _original(compiling, array, *args)
        index._zvm_geometry = True
        table["INDEX"] = {**entry, "function": functools.update_wrapper(index, entry["function"])}


def _one_cell(array, args):
    """INDEX of cells inside a one-area reference (``INDEX($B$50:$B$10049,7)``, or a
    column of positions on the column path): the very answers formulas' INDEX gives (a
    ``Ranges`` of each cell, made by the same ``set_value`` call, or the error a position
    holds; an array of them for an array of positions), made for those cells alone --
    formulas makes a reference for every cell of the range and then picks, so a column of
    such INDEX cells over an n-row range cost n x n. None for anything else (a position
    that is not a number or an error, 0, past the edge, a 2-D range given one position,
    several areas): formulas answers those."""
    if not isinstance(array, Ranges) or len(array.ranges) != 1 or not 1 <= len(args) <= 2:
        return None
    given = []
    for a in args:
        v = a.value if isinstance(a, Ranges) else a
        if isinstance(v, np.ndarray):
            if v.size == 0:
                return None
            given.append(v)
        else:
            given.append(np.array(v, dtype=object))
    try:
        given = np.broadcast_arrays(*given)
    except ValueError:
        return None
    shape = given[0].shape
    rng = array.ranges[0]
    r1, n1 = int(rng["r1"]), int(rng["n1"])
    h, w = int(rng["r2"]) - r1 + 1, int(rng["n2"]) - n1 + 1
    if len(given) == 1 and h != 1 and w != 1:
        return None
    value = None
    sheet_id = rng["sheet_id"]
    out = np.empty(given[0].size, dtype=object)
    for k, pos in enumerate(zip(*(g.reshape(-1).tolist() for g in given))):
        error = next((x for x in pos if isinstance(x, FXlError)), None)
        if error is not None:  # formulas: the first error among the positions
            out[k] = error
            continue
        if not all(type(x) in _POSITION for x in pos) or not all(map(math.isfinite, pos)):
            return None
        if len(pos) == 2:
            row, col = int(pos[0]), int(pos[1])
        elif h == 1:  # formulas: one position in a one-row range counts its columns
            row, col = 1, int(pos[0])
        else:
            row, col = int(pos[0]), 1
        if not (1 <= row <= h and 1 <= col <= w):
            return None
        if value is None:
            value = Ranges((rng,), array.values).value
        r, n = r1 + row - 1, n1 + col - 1
        c = _index2col(n)
        ref = f"{c}{r}"
        out[k] = Ranges(values=dict(array.values)).set_value(
            {"r1": r, "r2": r, "c1": c, "c2": c, "n1": n, "n2": n, "ref": ref,
             "name": f"{sheet_id}!{ref}" if sheet_id else ref, "sheet_id": sheet_id},
            value[row - 1, col - 1])
    if out.size == 1 and len(shape) in (0, 2):  # formulas: a 1x1 answer is the reference
        if isinstance(out[0], Ranges):
            return out[0]
        return out.reshape(1, 1).view(Array)
    return out.reshape(shape).view(Array)


#: the kinds of number a position may be here (TRUE/FALSE and text go to formulas)
_POSITION = frozenset({int, float, np.int64, np.int32, np.float64})


def _whole_row_or_column(array, args, area=None):
    """INDEX with a row or column number 0: Excel's whole column (``INDEX(A1:C3,0,2)``),
    whole row (``INDEX(K1:M1,1,0)``) or whole array, as an array of values (#REF! past
    the array's edge); None for any other call (formulas' INDEX reads 0 as 1, so a
    legacy array formula ``{=INDEX(K1:M1,1,0)}`` over H1:J1 showed K1 three times).
    ``area``: the rectangle of the one-area reference given (before a whole column is
    cut to the used rows); the answer then is a :class:`~.legacy.ReferenceValues`
    carrying the rectangle of the reference Excel's INDEX gives, which a legacy cell
    reads as one value (:func:`~.legacy.one_cell_of`)."""
    if not args or len(args) > 2:
        return None
    r, c = _number(args[0]), _number(args[1]) if len(args) == 2 else None
    if 0 not in (r, c) or r is None or \
            (len(args) == 2 and c is None and not _is_left_out(args[1])):
        return None  # no 0, or an array of numbers: formulas' INDEX answers
    value = np.atleast_2d(np.asarray(array.value if isinstance(array, Ranges) else array,
                                     dtype=object))
    h, w = value.shape
    if c is None and h == 1:  # INDEX(row, n): n counts the columns
        r, c = 1, r
    if c is None:
        c = 0 if w > 1 else 1
    if r < 0 or c < 0 or r > h or c > w:
        return XL["#REF!"]
    rows = slice(None) if r == 0 else slice(r - 1, r)
    cols = slice(None) if c == 0 else slice(c - 1, c)
    if area is None:
        return value[rows, cols].copy().view(Array)
    got = value[rows, cols].copy().view(ReferenceValues)
    sheet, r1, c1, r2, c2 = area
    if ((r2 - r1 + 1) == 1) == (h == 1) and ((c2 - c1 + 1) == 1) == (w == 1):
        # (the one-row or one-column reading of a cut column is that of the whole)
        got.rect = (sheet, r1 if r == 0 else r1 + r - 1, c1 if c == 0 else c1 + c - 1,
                    r2 if r == 0 else r1 + r - 1, c2 if c == 0 else c1 + c - 1)
    return got


def _is_left_out(v) -> bool:
    return type(v) is _Skipped or v is sh.EMPTY


def _whole(g) -> tuple[int, int]:
    return (int(g["r2"]) - (int(g["r1"]) or 1) + 1, int(g["n2"]) - (int(g["n1"]) or 1) + 1)


def _number(v):
    """A scalar row or column number given to INDEX, or None."""
    v = one_value(v)
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return int(v)
    return None

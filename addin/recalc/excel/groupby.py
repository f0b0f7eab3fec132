"""GROUPBY and PIVOTBY (Excel 365) for their common forms, computed here (formulas'
own need pandas, which the engine does not install).

Supported (Microsoft's GROUPBY and PIVOTBY pages):

* one column of row fields (and, for PIVOTBY, one of column fields), one or more value
  columns for GROUPBY, one for PIVOTBY;
* ``function`` an eta-reduced function (``_xleta.SUM`` as Excel writes ``SUM``:
  SUM, COUNT, COUNTA, AVERAGE, MIN, MAX, ...) or a LAMBDA of one argument, called on
  each group's values as on a range (text skipped by SUM, ...);
* ``field_headers`` 0 (no headers), 1 (headers, not shown), for GROUPBY 3 (headers
  shown above), or left out: then the first row is headers (not shown) when the first
  value is text and the second a number, as in formulas' tests of Excel's answers;
* totals: left out or 1 (a "Total" row at the bottom, and for PIVOTBY a "Total"
  column), 0 (none), -1 (at the top / left); a total is the function of all the values
  of its row, column or the whole, not a sum of the groups;
* sort order: left out or 1 (ascending by the field: numbers, then text without regard
  to case, then TRUE/FALSE), -1 descending; for GROUPBY also +-k for the k-th output
  column; an optional ``filter_array`` of TRUE/FALSE per row;
* a PIVOTBY cell whose row and column meet no value, and the top-left corner, hold
  empty text "" (as formulas' own PIVOTBY, whose tests hold Excel's values, has them).

Anything else (several field columns and their subtotals, generated or shown headers,
blank or error field values, ``field_relationship``, ``relative_to``) is #VALUE! with
the reason, never a guessed layout.
"""
from __future__ import annotations

import numpy as np
import schedula as sh
from formulas.functions import Array
from formulas.tokens.operand import XlError

from .values import (CellSlice, XL, error, first_value, is_collection, is_left_out, is_number,
                     is_text, single, values_of)


class Unsupported(Exception):
    """A form of GROUPBY/PIVOTBY the engine does not compute (the message says which)."""


def _note(reason: str):
    return error("#VALUE!", reason)


def _table(a) -> np.ndarray:
    if is_collection(a):
        return np.atleast_2d(values_of(a))
    return np.array([[single(a)]], dtype=object)


def _option(a, default):
    if a is None:
        return default
    v = first_value(a)
    if is_left_out(v):
        return default
    if isinstance(v, XlError):
        raise _Error(v)
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if not is_number(v):
        raise Unsupported(f"an option is {v!r}, not a number")
    return int(v)


class _Error(Exception):
    def __init__(self, err):
        self.err = err


def _sort_key(v):
    """Excel's ascending order: numbers, text (case-insensitive), logical values."""
    if isinstance(v, (bool, np.bool_)):
        return (2, bool(v))
    if is_text(v):
        return (1, v.casefold())
    return (0, float(v))


def _key(v):
    """Equal keys group together: text without regard to case."""
    return ("t", v.casefold()) if is_text(v) else ("v", v)


def _check_keys(column: np.ndarray, what: str):
    for v in column.tolist():
        if isinstance(v, XlError):
            raise _Error(v)
        if v is sh.EMPTY:
            raise Unsupported(f"a blank cell among the {what} is not supported")


def _apply(function, values: list):
    arr = np.empty((len(values), 1), dtype=object)
    arr[:, 0] = values
    result = function(arr.view(CellSlice))
    if isinstance(result, np.ndarray):
        if result.size != 1:
            raise Unsupported("the function gives more than one value per group")
        result = result.reshape(-1)[0]
    if isinstance(result, (np.floating, np.integer)):
        result = float(result)
    return result


def _headers(option, values: np.ndarray, shown_ok: bool = False) -> tuple[bool, bool]:
    """(the first row holds headers, they are shown). Left out, the first row is taken
    for headers (not shown) when the first value is text and the second a number."""
    if option is None:
        first = values[0, 0] if values.size else sh.EMPTY
        second = values[1, 0] if values.shape[0] > 1 else sh.EMPTY
        if is_text(first) and is_number(second):
            return True, False
        if is_text(first):
            raise Unsupported("the first value is text; say whether it is a header "
                              "(field_headers 0, 1 or 3)")
        return False, False
    if option in (0, 1) or option == 3 and shown_ok:
        return option != 0, option == 3
    raise Unsupported(f"field_headers {option} is not supported")


def _filter(keep, n: int) -> np.ndarray:
    if keep is None:
        return np.ones(n, dtype=bool)
    flags = _table(keep).reshape(-1)
    if flags.size != n:
        raise _Error(XL["#VALUE!"])
    out = []
    for v in flags.tolist():
        if isinstance(v, XlError):
            raise _Error(v)
        out.append(bool(v) if not is_text(v) and v is not sh.EMPTY else False)
    return np.array(out, dtype=bool)


def _groups(keys: list) -> tuple[list, dict]:
    order, members = [], {}
    for i, k in enumerate(keys):
        kk = _key(k)
        if kk not in members:
            members[kk] = []
            order.append(k)
        members[kk].append(i)
    return order, members


def _check_function(function):
    if not callable(function):
        raise Unsupported("the function argument is not a function (SUM, not \"SUM\")")


def groupby(row_fields, values, function, field_headers=None, total_depth=None,
            sort_order=None, filter_array=None, field_relationship=None):
    try:
        _check_function(function)
        rows, vals = _table(row_fields), _table(values)
        if rows.shape[1] != 1:
            raise Unsupported("more than one column of row fields is not supported")
        if rows.shape[0] != vals.shape[0]:
            return XL["#VALUE!"]
        if field_relationship is not None and _option(field_relationship, 0) != 0:
            raise Unsupported("field_relationship is not supported")
        skip, shown = _headers(_option(field_headers, None), vals, shown_ok=True)
        titles = [rows[0, 0]] + vals[0].tolist() if shown else None
        depth = _option(total_depth, 1)
        if depth not in (0, 1, -1):
            raise Unsupported(f"total_depth {depth} (subtotals) is not supported")
        order_by = _option(sort_order, 1)
        keep = _filter(filter_array, rows.shape[0])
        if skip:
            rows, vals, keep = rows[1:], vals[1:], keep[1:]
        rows, vals = rows[keep], vals[keep]
        keys = rows[:, 0]
        _check_keys(keys, "row fields")
        order, members = _groups(keys.tolist())
        out = []
        for k in order:
            idx = members[_key(k)]
            out.append([k] + [_apply(function, vals[idx, j].tolist())
                              for j in range(vals.shape[1])])
        width = 1 + vals.shape[1]
        if not order_by or abs(order_by) > width:
            raise _Error(XL["#VALUE!"])
        col = abs(order_by) - 1
        out.sort(key=lambda r: _value_key(r[col]), reverse=order_by < 0)
        if depth:
            total = ["Total"] + [_apply(function, vals[:, j].tolist())
                                 for j in range(vals.shape[1])]
            out = out + [total] if depth > 0 else [total] + out
        if not out:
            return XL["#VALUE!"]
        return _array([titles] + out if titles else out)
    except _Error as e:
        return e.err
    except Unsupported as e:
        return _note(f"GROUPBY: {e}")


def _value_key(v):
    if isinstance(v, XlError) or v is sh.EMPTY:
        return (3, 0)
    return _sort_key(v)


def pivotby(row_fields, col_fields, values, function, field_headers=None,
            row_total_depth=None, row_sort_order=None, col_total_depth=None,
            col_sort_order=None, filter_array=None, relative_to=None):
    try:
        _check_function(function)
        rows, cols, vals = _table(row_fields), _table(col_fields), _table(values)
        if rows.shape[1] != 1 or cols.shape[1] != 1:
            raise Unsupported("more than one column of row or column fields is not supported")
        if vals.shape[1] != 1:
            raise Unsupported("more than one column of values is not supported")
        if not rows.shape[0] == cols.shape[0] == vals.shape[0]:
            return XL["#VALUE!"]
        if relative_to is not None and _option(relative_to, 0) != 0:
            raise Unsupported("relative_to is not supported")
        skip, _ = _headers(_option(field_headers, None), vals)
        row_depth, col_depth = _option(row_total_depth, 1), _option(col_total_depth, 1)
        if row_depth not in (0, 1, -1) or col_depth not in (0, 1, -1):
            raise Unsupported("total depths other than 0, 1 and -1 are not supported")
        row_order, col_order = _option(row_sort_order, 1), _option(col_sort_order, 1)
        if abs(row_order) != 1 or abs(col_order) != 1:
            raise Unsupported("sorting by values is not supported")
        keep = _filter(filter_array, rows.shape[0])
        if skip:
            rows, cols, vals, keep = rows[1:], cols[1:], vals[1:], keep[1:]
        rk, ck, v = rows[keep, 0], cols[keep, 0], vals[keep, 0]
        _check_keys(rk, "row fields")
        _check_keys(ck, "column fields")
        r_order, r_members = _groups(rk.tolist())
        c_order, c_members = _groups(ck.tolist())
        r_order.sort(key=_sort_key, reverse=row_order < 0)
        c_order.sort(key=_sort_key, reverse=col_order < 0)
        if not r_order:
            return XL["#VALUE!"]
        values = v.tolist()
        c_sets = {_key(c): set(c_members[_key(c)]) for c in c_order}
        header = [""] + list(c_order)
        body = []
        for r in r_order:
            members = r_members[_key(r)]
            line = [r]
            for c in c_order:
                hit = [values[i] for i in members if i in c_sets[_key(c)]]
                line.append(_apply(function, hit) if hit else "")
            if col_depth:
                total = _apply(function, [values[i] for i in members])
                line = line + [total] if col_depth > 0 else [line[0], total] + line[1:]
            body.append(line)
        if col_depth:
            header = header + ["Total"] if col_depth > 0 else \
                [header[0], "Total"] + header[1:]
        if row_depth:
            line = ["Total"] + [_apply(function, [values[i] for i in c_members[_key(c)]])
                                for c in c_order]
            if col_depth:
                grand = _apply(function, values)
                line = line + [grand] if col_depth > 0 else [line[0], grand] + line[1:]
            body = body + [line] if row_depth > 0 else [line] + body
        return _array([header] + body)
    except _Error as e:
        return e.err
    except Unsupported as e:
        return _note(f"PIVOTBY: {e}")


def _array(rows: list) -> Array:
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, line in enumerate(rows):
        for j, v in enumerate(line):
            out[i, j] = v
    return out.view(Array)


def install(table, put) -> None:
    for name, func in (("GROUPBY", groupby), ("PIVOTBY", pivotby)):
        put(table, name, func)
        table["_XLFN." + name] = table[name]
    # an eta-reduced function (_xleta.SUM) is a name formulas compiles itself: known
    for name in ("_XLETA.", "LAMBDA", "_XLFN.LAMBDA"):
        table.setdefault(name, _never_called)


def _never_called(*args):
    return XL["#NAME?"]

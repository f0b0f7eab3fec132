"""GROUPBY and PIVOTBY (Excel 365), computed here (formulas' own need pandas, which the
engine does not install), as Microsoft's GROUPBY, PIVOTBY and PERCENTOF pages define
them and as Excel's saved answers in formulas' test workbook (test/test_files/test.xlsx,
sheets LOOKUP and EXTRA) show them:

* ``row_fields`` (and PIVOTBY's ``col_fields``) of one or more columns: each column is one
  level of a hierarchy; the labels of every level are repeated on each row (column);
  ``values`` of one or more columns, each aggregated on its own;
* ``function``: an eta-reduced function (``_xleta.SUM`` as Excel writes ``SUM``) or a
  LAMBDA, called on each group's values as on an array; a function that takes two
  arguments (PERCENTOF, a LAMBDA of two parameters) is called with the group's values
  and the values it is relative to: in GROUPBY every value of the column, in PIVOTBY as
  ``relative_to`` says (0 the column's total, 1 the row's, 2 the grand total, 3 the
  parent column's, 4 the parent row's). A result of more than one value is #VALUE! in its
  cell; an error given as ``function`` is the answer;
* ``field_headers``: 0 none, 1 a header row (not shown), 3 shown (GROUPBY: one row of the
  field names above; PIVOTBY: the column fields' names joined by ", " above the column
  labels and a row of the row fields' and the values' names below them); left out, the
  first row is a header row when the first value is text and the second a number, shown
  by PIVOTBY when there is more than one level (test.xlsx LOOKUP!Y25: GROUPBY does not);
* totals (``total_depth``, ``row_total_depth``, ``col_total_depth``): 0 none, 1 a grand
  total ("Total"), k > 1 subtotals of the first 1 .. k-1 levels too, and then the grand
  total reads "Grand Total"; negative: totals before what they total (top, left). A
  subtotal shows the labels of its levels and "" below; a total is the function of all
  the values it covers, not a sum of the groups. Left out: 1 for GROUPBY (LOOKUP!Y25),
  every level for PIVOTBY;
* sort orders: field k ascending, -k descending (each level within the one above), or a
  vector of them; a number past the fields sorts by that value column's aggregate (the
  innermost level; the levels above by their labels); Excel's order: numbers, text
  without regard to case, FALSE, TRUE;
* ``filter_array``: TRUE/FALSE per row (its first column), an error in it is the answer;
* a PIVOTBY cell whose row and column meet no value holds "" and so does every blank
  label cell.

Forms whose layout or meaning Excel's pages and saved answers leave open are #VALUE!
whose reason starts "not computed: " (``zvmplan check`` counts them so), never a guessed
layout: generated headers (2, or left out where PIVOTBY would show them and the first
value is not text); a first value that is text over one that is not a number, headers
left out; several functions stacked (HSTACK/VSTACK of them); functions of two arguments
other than PERCENTOF; the table relationship with subtotals or sorted by a later field or
a value; blank or error labels; a total depth of 2 with one field; no row left by the
filter; PIVOTBY without row or column fields; sorting by values relative to a parent.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
import schedula as sh
from formulas.errors import BaseError
from formulas.functions import Array, get_functions
from formulas.tokens.operand import XlError

from ..runlog import NOT_COMPUTED
from .text import text_of
from .values import (CellSlice, XL, error, first_value, is_collection, is_left_out, is_number,
                     is_text, single, values_of)

#: eta-reduced Excel functions that need two arguments: GROUPBY and PIVOTBY call PERCENTOF
#: with the group's values and the values it is relative to; IF, given one, is #VALUE! in
#: every cell (test.xlsx EXTRA!H100); what Excel hands the others is not computed here
NEEDS_TWO = frozenset({"IF", "CORREL", "COVAR", "COVARIANCE.P", "COVARIANCE.S", "PEARSON",
                       "RSQ", "SLOPE", "INTERCEPT", "STEYX", "SUMX2MY2", "SUMX2PY2",
                       "SUMXMY2", "IFS", "SWITCH", "IFERROR", "IFNA"})


class Unsupported(Exception):
    """A form of GROUPBY/PIVOTBY the engine does not compute (the message says which)."""


class _Error(Exception):
    def __init__(self, err):
        self.err = err


def not_computed(reason: str):
    """#VALUE! whose reason says the engine did not compute the formula."""
    return error("#VALUE!", NOT_COMPUTED + reason)


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
        raise _Error(XL["#VALUE!"])
    return int(v)


def _orders(a) -> list | None:
    """A sort order (one number or a vector) as a list of whole numbers; None left out."""
    if a is None:
        return None
    flat = _table(a).reshape(-1).tolist()
    if len(flat) == 1 and is_left_out(flat[0]):
        return None
    out = []
    for v in flat:
        if isinstance(v, XlError):
            raise _Error(v)
        if isinstance(v, (bool, np.bool_)) or not is_number(v):
            raise _Error(XL["#VALUE!"])
        out.append(int(v))
    return out


# -- the function argument ---------------------------------------------------------

@dataclass
class _Aggregate:
    """The function argument: what to call and with how many arguments."""
    call: object
    arity: int


def _eta_name(func) -> str | None:
    """The Excel name of an eta-reduced function (``_xleta.SUM``): the function table's
    name whose innermost callable is the one formulas bound."""
    target = inspect.unwrap(func)
    for name, entry in get_functions().items():
        if isinstance(entry, dict):
            entry = entry.get("function")
        if callable(entry) and inspect.unwrap(entry) is target:
            return name.upper().removeprefix("_XLFN.").removeprefix("_XLWS.")
    return None


def _aggregate(function) -> _Aggregate:
    """The function argument checked: an error is the answer, a value #VALUE!, several
    functions (HSTACK/VSTACK of them) not computed."""
    if isinstance(function, np.ndarray) and function.size == 1 and \
            not isinstance(function, _Functions):
        function = function.reshape(-1)[0]
    if isinstance(function, _Functions):
        raise Unsupported("several functions (an HSTACK or VSTACK of them): the layout "
                          "of their labels is not computed")
    if isinstance(function, XlError):
        raise _Error(function)
    if is_collection(function):
        first = first_value(function)
        raise _Error(first if isinstance(first, XlError) else XL["#VALUE!"])
    if not callable(function):
        raise _Error(XL["#VALUE!"])
    inner = getattr(function, "func", None)
    if type(function).__name__ == "LetaFunction" and inner is not None:
        name = _eta_name(inner)
        if name == "PERCENTOF":
            return _Aggregate(percentof, 2)
        if name == "IF":
            return _Aggregate(function, 0)
        if name in NEEDS_TWO:
            raise Unsupported(f"{name} as the function (it needs two arguments)")
        return _Aggregate(function, 1)
    pipe = inspect.unwrap(inner) if inner is not None else None
    parameters = getattr(pipe, "inputs", None)
    if parameters is not None:  # a LAMBDA: its parameters follow the values it closes on
        return _Aggregate(function, len(parameters) - len(getattr(function, "args", ())))
    return _Aggregate(function, 1)


def percentof(subset, every):
    """PERCENTOF's page: SUM(data_subset)/SUM(data_all); #DIV/0! when that sum is 0."""
    total = get_functions()["SUM"]
    whole = getattr(every, "_zvm_sum", None)  # a relative column shared by many cells
    if whole is None:
        whole = _one(total(every))
        if isinstance(every, CellSlice):
            every._zvm_sum = whole
    part = _one(total(subset))
    for v in (part, whole):
        if isinstance(v, XlError):
            return v
    if whole == 0:
        return XL["#DIV/0!"]
    return float(part) / float(whole)


def _one(result):
    if isinstance(result, np.ndarray):
        return result.reshape(-1)[0] if result.size == 1 else XL["#VALUE!"]
    return result


def _column(values: list):
    arr = np.empty((len(values), 1), dtype=object)
    arr[:, 0] = values
    return arr.view(CellSlice)


def _apply(agg: _Aggregate, values: list, relative):
    """The function of one group's ``values`` (and the ``relative`` ones, a list or a
    column already made): one value, #VALUE! for an array of more, "" for a group
    without values."""
    if not values:
        return ""
    try:
        if agg.arity == 1:
            result = agg.call(_column(values))
        elif agg.arity == 2:
            if not isinstance(relative, CellSlice):
                relative = _column(relative)
            result = agg.call(_column(values), relative)
        else:
            return XL["#VALUE!"]
    except BaseError:  # formulas' "cannot broadcast": arrays of two sizes
        return XL["#VALUE!"]
    if isinstance(result, np.ndarray):
        if result.size != 1:
            return XL["#VALUE!"]
        result = result.reshape(-1)[0]
    if isinstance(result, (np.bool_,)):
        return bool(result)
    if isinstance(result, (np.floating, np.integer)):
        return float(result)
    if result is sh.EMPTY:
        return 0.0
    return result


# -- keys, order -------------------------------------------------------------------

def _sort_key(v):
    """Excel's ascending order: numbers, text (without regard to case), FALSE, TRUE."""
    if isinstance(v, (bool, np.bool_)):
        return (2, bool(v))
    if is_text(v):
        return (1, v.casefold())
    return (0, float(v))


def _value_key(v):
    """The order of aggregated values: as :func:`_sort_key`, errors and "" last."""
    if isinstance(v, XlError) or v == "" and is_text(v):
        return (3, 0)
    return _sort_key(v)


def _key(v):
    """Equal keys group together: text without regard to case."""
    if isinstance(v, (bool, np.bool_)):
        return ("b", bool(v))
    return ("t", v.casefold()) if is_text(v) else ("v", float(v))


def _check_labels(fields: np.ndarray, what: str):
    for v in fields.reshape(-1).tolist():
        if isinstance(v, XlError):
            raise Unsupported(f"an error value among the {what}")
        if v is sh.EMPTY or is_text(v) and v == "":
            raise Unsupported(f"a blank cell among the {what}")


# -- one axis: the groups of its fields, their subtotals and total, in order -----

@dataclass
class _Item:
    """One row (column) of the result: its labels, how many levels they fix (0 the grand
    total, the number of fields a group of every level) and the data rows it covers."""
    labels: tuple
    level: int
    keys: tuple | None      # None: a group made only to sort by its value
    members: list


class _Axis:
    """The rows (or columns) of the result, built from the fields' columns."""

    def __init__(self, fields: np.ndarray, depth: int, orders: list, by_value,
                 value_index: int | None):
        self.fields = fields
        self.width = fields.shape[1]
        self.depth = depth
        n = fields.shape[0]
        self.keys = [tuple(_key(v) for v in fields[i].tolist()) for i in range(n)]
        self.descending = {abs(k) - 1 for k in orders if k < 0 and abs(k) <= self.width}
        self.by_value = by_value if value_index is not None else None
        self.value_descending = bool(orders and orders[0] < 0 and value_index is not None)
        self.prefixes: dict = {}
        for i, key in enumerate(self.keys):
            for lv in range(self.width + 1):
                self.prefixes.setdefault(key[:lv], []).append(i)
        self.items = self._build(list(range(n)), 0, ())
        if depth:
            name = "Grand Total" if abs(depth) > 1 else "Total"
            grand = _Item((name,) + ("",) * (self.width - 1), 0, (), list(range(n)))
            self.items = [grand] + self.items if depth < 0 else self.items + [grand]

    def _build(self, rows: list, level: int, prefix: tuple) -> list:
        groups: dict = {}
        for i in rows:
            groups.setdefault(self.keys[i][level], []).append(i)
        entries = [(self.fields[m[0], level], k, m) for k, m in groups.items()]
        last = level == self.width - 1
        if last and self.by_value is not None:
            # by the aggregate; equal aggregates in ascending order of their labels
            entries.sort(key=lambda t: _sort_key(t[0]))
            scored = [(_value_key(self.by_value(m)), label, k, m) for label, k, m in entries]
            scored.sort(key=lambda t: t[0], reverse=self.value_descending)
            entries = [(label, k, m) for _, label, k, m in scored]
        else:
            entries.sort(key=lambda t: _sort_key(t[0]), reverse=level in self.descending)
        out = []
        for label, k, members in entries:
            labels = prefix + (label,)
            keys = self.keys[members[0]][:level + 1]
            if last:
                out.append(_Item(labels, self.width, keys, members))
                continue
            children = self._build(members, level + 1, labels)
            if level + 1 < abs(self.depth):
                sub = _Item(labels + ("",) * (self.width - level - 1), level + 1, keys,
                            members)
                children = [sub] + children if self.depth < 0 else children + [sub]
            out.extend(children)
        return out

    def covering(self, keys: tuple) -> list:
        """The data rows whose first ``len(keys)`` fields are ``keys``."""
        return self.prefixes.get(keys, [])


def _depth(option, default: int, width: int, what: str) -> int:
    depth = _option(option, default)
    if abs(depth) > width:
        if abs(depth) > max(width, 2):
            raise _Error(XL["#VALUE!"])  # test.xlsx EXTRA!AX3: 3 with one field
        raise Unsupported(f"{what} {depth} with one field")
    return depth


def _sort_spec(option, width: int, values: int):
    """(the orders, the value column sorted by or None): each order a field (1..width)
    or, alone, a value column (width+1 ..); anything else #VALUE!."""
    orders = _orders(option) or [1]
    if any(k == 0 for k in orders):
        raise _Error(XL["#VALUE!"])
    if len(orders) == 1 and abs(orders[0]) > width:
        if abs(orders[0]) > width + values:
            raise _Error(XL["#VALUE!"])  # LOOKUP!Z34: 6 past 3 fields and 2 values
        return orders, abs(orders[0]) - width - 1
    if any(abs(k) > width for k in orders) or len({abs(k) for k in orders}) != len(orders):
        raise _Error(XL["#VALUE!"])
    return orders, None


def _headers(option, values: np.ndarray, several_levels: bool) -> int:
    """field_headers as 0, 1 or 3 (2, generated headers, is not computed). Left out: a
    header row when the first value is text and the second a number, shown (3) by
    PIVOTBY when it has several levels."""
    if option is None:
        first = values[0, 0] if values.size else sh.EMPTY
        second = values[1, 0] if values.shape[0] > 1 else sh.EMPTY
        if is_text(first) and is_number(second):
            return 3 if several_levels else 1
        if is_text(first):
            raise Unsupported("the first value is text and the second is not a number: "
                              "say whether there is a header row (field_headers 0, 1 or 3)")
        if several_levels:
            raise Unsupported("generated field headers (field_headers 2)")
        return 0
    if option in (0, 1, 3):
        return option
    if option == 2:
        raise Unsupported("generated field headers (field_headers 2)")
    raise _Error(XL["#VALUE!"])


def _filter(keep, n: int, skip: bool) -> np.ndarray:
    """filter_array's first column as TRUE/FALSE per data row (its header row, if
    ``skip``, left out): blank FALSE, text #VALUE!, an error that error."""
    if keep is None:
        return np.ones(n - skip, dtype=bool)
    flags = _table(keep)
    if is_left_out(flags.reshape(-1)[0]) and flags.size == 1:
        return np.ones(n - skip, dtype=bool)
    if flags.shape[0] != n:
        raise _Error(XL["#VALUE!"])
    out = []
    for v in flags[int(skip):, 0].tolist():
        if isinstance(v, XlError):
            raise _Error(v)
        if is_text(v) and v != "":
            raise _Error(XL["#VALUE!"])
        out.append(bool(v) if not is_text(v) and v is not sh.EMPTY else False)
    return np.array(out, dtype=bool)


def _label(v):
    return "" if v is sh.EMPTY else v


def _array(rows: list) -> Array:
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, line in enumerate(rows):
        for j, v in enumerate(line):
            out[i, j] = v
    return out.view(Array)


# -- the worksheet functions -------------------------------------------------------

def groupby(row_fields, values, function, field_headers=None, total_depth=None,
            sort_order=None, filter_array=None, field_relationship=None):
    try:
        agg = _aggregate(function)
        rows, vals = _table(row_fields), _table(values)
        if rows.shape[0] != vals.shape[0]:
            return XL["#VALUE!"]
        width, nvals = rows.shape[1], vals.shape[1]
        relationship = _option(field_relationship, 0)
        if relationship not in (0, 1):
            raise _Error(XL["#VALUE!"])
        headers = _headers(_option(field_headers, None), vals, several_levels=False)
        depth = _depth(total_depth, 1, width, "total_depth")
        orders, by_column = _sort_spec(sort_order, width, nvals)
        if relationship == 1 and width > 1:
            if abs(depth) > 1:
                raise Unsupported("subtotals with field_relationship 1 (table)")
            if by_column is not None or abs(orders[0]) != 1:
                # "each field column is sorted independently": by a later field or by a
                # value, the table's order is not the hierarchy's
                raise Unsupported("sorting by a later field or by a value with "
                                  "field_relationship 1 (table)")
        keep = _filter(filter_array, rows.shape[0], bool(headers))
        titles = None
        if headers:
            if headers == 3:
                titles = [_label(v) for v in rows[0].tolist() + vals[0].tolist()]
            rows, vals = rows[1:], vals[1:]
        rows, vals = rows[keep], vals[keep]
        if rows.shape[0] == 0:
            raise Unsupported("no row is left by filter_array")
        _check_labels(rows, "row fields")
        columns = [vals[:, j].tolist() for j in range(nvals)]
        wholes = [_column(c) for c in columns]  # what a function of two is relative to

        def cell(j, members):
            column = columns[j]
            return _apply(agg, [column[i] for i in members], wholes[j])

        by_value = (lambda m: cell(by_column, m)) if by_column is not None else None
        axis = _Axis(rows, depth, orders, by_value, by_column)
        out = [list(item.labels) + [cell(j, item.members) for j in range(nvals)]
               for item in axis.items]
        return _array(([titles] if titles else []) + out)
    except _Error as e:
        return e.err
    except Unsupported as e:
        return not_computed(f"GROUPBY: {e}")


def pivotby(row_fields, col_fields, values, function, field_headers=None,
            row_total_depth=None, row_sort_order=None, col_total_depth=None,
            col_sort_order=None, filter_array=None, relative_to=None):
    try:
        agg = _aggregate(function)
        for given in (row_fields, col_fields):
            if given is None or not is_collection(given) and is_left_out(single(given)):
                raise Unsupported("row_fields or col_fields left out")
        rows, cols, vals = _table(row_fields), _table(col_fields), _table(values)
        if not rows.shape[0] == cols.shape[0] == vals.shape[0]:
            return XL["#VALUE!"]
        width, height, nvals = rows.shape[1], cols.shape[1], vals.shape[1]
        relative = _option(relative_to, 0)
        if relative not in (0, 1, 2, 3, 4):
            raise _Error(XL["#VALUE!"])
        several = width > 1 or height > 1 or nvals > 1
        headers = _headers(_option(field_headers, None), vals, several_levels=several)
        row_depth = _depth(row_total_depth, width, width, "row_total_depth")
        col_depth = _depth(col_total_depth, height, height, "col_total_depth")
        row_orders, row_by = _sort_spec(row_sort_order, width, nvals)
        col_orders, col_by = _sort_spec(col_sort_order, height, nvals)
        keep = _filter(filter_array, rows.shape[0], bool(headers))
        names = None
        if headers:
            names = ([_label(v) for v in rows[0].tolist()],
                     [_label(v) for v in cols[0].tolist()],
                     [_label(v) for v in vals[0].tolist()])
            rows, cols, vals = rows[1:], cols[1:], vals[1:]
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
        if rows.shape[0] == 0:
            raise Unsupported("no row is left by filter_array")
        _check_labels(rows, "row fields")
        _check_labels(cols, "column fields")
        columns = [vals[:, j].tolist() for j in range(nvals)]
        n = rows.shape[0]
        every = list(range(n))
        if relative in (3, 4) and agg.arity == 2 and (row_by is not None or
                                                       col_by is not None):
            raise Unsupported("sorting by values relative to a parent total")
        parents: dict = {}
        relatives: dict = {}  # (value column, relative_to, row, column) -> its values

        def parent(axis: _Axis, keys: tuple) -> set:
            """The data rows of the parent of the item of ``keys`` on ``axis``."""
            key = (id(axis), keys)
            if key not in parents:
                parents[key] = set(axis.covering(keys))
            return parents[key]

        def cell(j, r: _Item, c: _Item, rset: set | None = None):
            rset = set(r.members) if rset is None else rset
            members = [i for i in c.members if i in rset]
            column = columns[j]
            relative_values = []
            if agg.arity == 2:
                key = (j, relative) + (
                    (c.level, c.keys) if relative == 0 else
                    (r.level, r.keys) if relative == 1 else
                    () if relative == 2 else
                    (r.level, r.keys, c.keys and c.keys[:max(c.level - 1, 0)])
                    if relative == 3 else
                    (r.keys and r.keys[:max(r.level - 1, 0)], c.level, c.keys))
                if key in relatives:
                    relative_values = relatives[key]
                else:
                    if relative == 0:
                        base = c.members
                    elif relative == 1:
                        base = r.members
                    elif relative == 2:
                        base = every
                    elif relative == 3:
                        above = parent(col_axis, c.keys[:max(c.level - 1, 0)])
                        base = [i for i in r.members if i in above]
                    else:
                        above = parent(row_axis, r.keys[:max(r.level - 1, 0)])
                        base = [i for i in c.members if i in above]
                    relative_values = _column([column[i] for i in base])
                    if None not in key:
                        relatives[key] = relative_values
            return _apply(agg, [column[i] for i in members], relative_values)

        all_rows = _Item((), 0, (), every)
        # a group of the innermost level sorted by its value: an item of its own (no
        # keys, so its relative values are not kept for others)
        row_by_value = (lambda m: cell(row_by, _Item((), width, None, m), all_rows)) \
            if row_by is not None else None
        col_by_value = (lambda m: cell(col_by, all_rows, _Item((), height, None, m))) \
            if col_by is not None else None
        row_axis = _Axis(rows, row_depth, row_orders, row_by_value, row_by)
        col_axis = _Axis(cols, col_depth, col_orders, col_by_value, col_by)
        header = []
        if headers == 3:
            top = [""] * width + [", ".join(map(text_of, names[1]))] + \
                [""] * (len(col_axis.items) * nvals - 1)
            header.append(top)
        for lv in range(height):
            header.append([""] * width + [c.labels[lv] for c in col_axis.items
                                          for _ in range(nvals)])
        if headers == 3:
            header.append(list(names[0]) + [names[2][j] for _ in col_axis.items
                                            for j in range(nvals)])
        body = []
        for r in row_axis.items:
            rset = set(r.members)
            body.append(list(r.labels) + [cell(j, r, c, rset) for c in col_axis.items
                                          for j in range(nvals)])
        return _array(header + body)
    except _Error as e:
        return e.err
    except Unsupported as e:
        return not_computed(f"PIVOTBY: {e}")


class _Functions(np.ndarray):
    """An HSTACK or VSTACK of functions (several aggregations for GROUPBY/PIVOTBY): the
    functions as they are, where formulas' HSTACK would make each #VALUE!."""


def _stack_of_functions(previous, horizontal: bool):
    def stack(*args):
        if args and any(callable(a) for a in args):
            out = np.empty((1, len(args)) if horizontal else (len(args), 1), dtype=object)
            out.reshape(-1)[:] = list(args)
            return out.view(_Functions)
        return previous(*args)
    stack.__name__ = getattr(previous, "__name__", "stack")
    return stack


def install(table, put) -> None:
    for name, func in (("GROUPBY", groupby), ("PIVOTBY", pivotby)):
        put(table, name, func)
        table["_XLFN." + name] = table[name]
    for name, horizontal in (("HSTACK", True), ("VSTACK", False)):
        for alias in (name, "_XLFN." + name):
            if alias in table and not getattr(table[alias], "_zvm_functions", False):
                table[alias] = _stack_of_functions(table[alias], horizontal)
                table[alias]._zvm_functions = True
    # an eta-reduced function (_xleta.SUM) is a name formulas compiles itself: known
    for name in ("_XLETA.", "LAMBDA", "_XLFN.LAMBDA"):
        table.setdefault(name, _never_called)


def _never_called(*args):
    return XL["#NAME?"]

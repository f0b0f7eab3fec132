"""The searched vector of a lookup, prepared once per table and reused by every lookup
into it: VLOOKUP, HLOOKUP, MATCH, LOOKUP, XLOOKUP and XMATCH.

formulas prepares a lookup's searched row or column at every call
(``args_parser_match_array``: each value's type id and text lower-cased, one Python
call per cell of the column through ``np.vectorize``): a column of 5,000 cells each
looking a value up in ``Query!$A:$N`` (cut to the book's used rows, 3,800) paid 19
million of those calls, and a hash index of the table could not outlive one call.

Here the prepared vector (:class:`Vector`: formulas' own arrays, made by formulas' own
function, so every answer is formulas' answer) is kept per table *array object* -- the
value of the reference as the engine hands it to the formula -- and per row or column
searched: the engine hands every cell that reads the same final range in one
evaluation pass the very same ``Ranges`` (``cells.CellEvaluator.ranges``), whose value
is a copy of the grid taken when the range was complete, so the same object always
holds the same values. Nothing is kept past that object's life: a weak reference to
it drops the vector when the pass lets its ranges go (a range whose values may still
change is read afresh by every cell, as a new object, and so prepared afresh).

On a prepared vector an exact match (match type 0, FALSE; XLOOKUP/XMATCH match mode 0
searching first to last or last to first) looks the value up in a hash index built on
its second lookup (:meth:`Vector.find`: the first position of each (type id, value),
text compared case-insensitively as formulas lower-cases it, so 1 never equals "1" or
TRUE; the last position too for a search from the end); an approximate match searches
the prepared values (:func:`.lookup.binary_search`, :func:`.lookup.descending_scan`)
without preparing them again.
"""
from __future__ import annotations

import weakref

import numpy as np
from formulas.functions import Error, FoundError, _text2num, flatten, replace_empty
from formulas.functions.look import (_casefold, _lower, _vect_get_type_id,
                                     args_parser_match_array)

#: the type ids an exact index holds (number, text, logical); formulas' scan answers others
INDEXED_TYPES = (0, 1, 2)
MAX_TABLES = 256  # prepared vectors kept at most (each dropped with its table anyway)
SCAN = object()   # Vector.find: no answer from the index, formulas' scan gives it


class Vector:
    """A lookup's searched vector as formulas prepares it -- ``index`` (1-based
    positions), ``types`` (formulas' type ids), ``values`` (text lower-cased or
    case-folded), ``raw`` (the values as they are) -- with what answers lookups into it
    without a scan: :meth:`find` and :meth:`lists`."""

    __slots__ = ("index", "types", "values", "raw", "looked", "_first", "_last", "_lists")

    def __init__(self, index, types, values, raw):
        self.index, self.types, self.values, self.raw = index, types, values, raw
        self.looked = 0           # exact lookups so far (the index is built on the 2nd)
        self._first = self._last = self._lists = None

    def find(self, value_type, value, last: bool = False):
        """The 1-based position of the first (``last``: the last) value of type id
        ``value_type`` equal to ``value`` (text already lower-cased), #N/A if none, or
        :data:`SCAN` when formulas' scan must answer: the first lookup into the vector
        (one scan costs less than an index), a wildcard in text, a value of another
        type (an empty lookup value), an unhashable value."""
        self.looked += 1
        if self.looked < 2:
            return SCAN
        vtype = int(value_type)
        if vtype not in INDEXED_TYPES or vtype == 1 and any(w in value for w in "*~?"):
            return SCAN
        index = self._index(last)
        if index is None:
            return SCAN
        try:
            found = index.get((vtype, value))
        except TypeError:
            return SCAN
        # the position as formulas' scan gives it (a numpy integer of ``index``), so a
        # cell's answer is the same object type whichever path found it
        return Error.errors["#N/A"] if found is None else self.index[found - 1]

    def _index(self, last: bool):
        index = self._last if last else self._first
        if index is None:
            index = first_positions(self.index, self.types, self.values, last=last)
            if index is None:
                return None
            if last:
                self._last = index
            else:
                self._first = index
        return index

    def lists(self) -> tuple[list, list]:
        """(values, type ids) as lists, for a binary search (made once)."""
        if self._lists is None:
            self._lists = (self.values.tolist(), self.types.tolist())
        return self._lists


def first_positions(positions, types, values, last: bool = False) -> dict | None:
    """(type id, value) -> its first position (``last``: its last), or None if a value
    is not hashable. An int and a float of equal value are one key (formulas' ``==``)."""
    index: dict = {}
    keys = zip(types.tolist(), values.tolist())
    try:
        if last:
            index = dict(zip(keys, positions.tolist()))
        else:
            for p, key in zip(positions.tolist(), keys):
                index.setdefault(key, p)
    except TypeError:
        return None
    return index


class _Tables:
    """The prepared vectors of the table arrays alive: (id of the table array, which
    vector of it, how text is folded) -> :class:`Vector`, and the id of each vector's
    ``values`` -> the vector (how :func:`.lookup.xmatch` knows a prepared vector). A
    weak reference to each table array drops its vectors when the array is freed."""

    def __init__(self):
        self.by_table: dict = {}
        self.by_values: dict = {}
        self._refs: dict = {}

    def vector(self, table: np.ndarray, which, fold) -> Vector:
        key = (id(table), which, fold)
        got = self.by_table.get(key)
        if got is not None and got[0]() is table:
            return got[1]
        vector = _prepare(_searched(table, which), fold)
        _let_go_of(vector, table)
        if len(self.by_table) >= MAX_TABLES:
            self.clear()
        try:
            ref = weakref.ref(table, self._drop_table)
        except TypeError:  # not weakly referable: prepared for this call only
            return vector
        self.by_table[key] = (ref, vector)
        self._refs.setdefault(id(ref), []).append(key)
        self.by_values[id(vector.values)] = vector
        return vector

    def known(self, values) -> Vector | None:
        """The prepared vector whose ``values`` is this very array, or None."""
        vector = self.by_values.get(id(values))
        return vector if vector is not None and vector.values is values else None

    def _drop_table(self, ref) -> None:
        for key in self._refs.pop(id(ref), ()):
            got = self.by_table.pop(key, None)
            if got is not None:
                self.by_values.pop(id(got[1].values), None)

    def clear(self) -> None:
        self.by_table.clear()
        self.by_values.clear()
        self._refs.clear()


TABLES = _Tables()


def _let_go_of(vector: Vector, table: np.ndarray) -> None:
    """Copy each array of ``vector`` that is a view of ``table`` (formulas' ``raw`` is
    one): kept in :data:`TABLES`, a view would keep the table alive, so its weak
    reference would never drop the vector (up to :data:`MAX_TABLES` tables held after
    their run)."""
    for field in ("index", "types", "values", "raw"):
        x = getattr(vector, field)
        base = x
        while isinstance(base, np.ndarray):
            if base is table:
                setattr(vector, field, x.copy())
                break
            base = base.base


def _searched(table: np.ndarray, which):
    """The row or column of ``table`` a lookup searches: ``("col", k)`` the k-th
    column, ``("row", k)`` the k-th row, None all of it (MATCH's array)."""
    if which is None:
        return table
    axis, k = which
    table = np.atleast_2d(table)
    return table[:, k] if axis == "col" else table[k]


def _prepare(searched, fold) -> Vector:
    """formulas' own preparation of ``searched`` (its ``args_parser_match_array``)."""
    parsed = args_parser_match_array(0, searched, 1, lower=fold)
    return Vector(*parsed[3:7])


def lookup_values(value, fold=_lower, empty=0) -> tuple:
    """(type ids, folded values, raw values) of the lookup value(s), as formulas'
    ``args_parser_match_array`` makes them (an empty value is ``empty``)."""
    raw = np.asarray(replace_empty(value, empty), dtype=object)
    folded = raw.copy()
    types = _vect_get_type_id(folded)
    text = types == 1
    if text.any():
        folded[text] = fold(folded[text].astype(str))
    return types, folded, raw


def _table_array(table) -> np.ndarray:
    """A lookup's table as an object array: the very array the engine handed over
    when it is one (so its prepared vectors are found again)."""
    if isinstance(table, np.ndarray):
        return table
    return np.asarray(table, dtype=object)


def match_arguments(value, array, match_type=1):
    """MATCH's arguments as formulas' ``args_parser_match_array`` gives them, the
    searched array prepared once per array object (:data:`TABLES`)."""
    vector = TABLES.vector(_table_array(array), None, _lower)
    return (*lookup_values(value), vector.index, vector.types, vector.values, vector.raw,
            next(flatten([match_type], None)))


def table_arguments(value, table, index, match_type=1, transpose=False):
    """VLOOKUP's (``transpose``) and HLOOKUP's arguments as formulas'
    ``args_parser_hlookup`` gives them, the searched column or row prepared once per
    table object. The result vector is the answering column or row itself (a view, not
    a copy per call). A column or row number below 1 is #VALUE! (Microsoft's VLOOKUP
    page: "If col_index_num is less than 1, VLOOKUP returns the #VALUE! error value";
    formulas read 0 as the last column)."""
    k = int(_text2num(np.ravel(index)[0]) - 1)
    table = np.atleast_2d(_table_array(table))
    try:
        result = None if k < 0 else table[:, k] if transpose else table[k]
    except IndexError:
        raise FoundError(err=Error.errors["#REF!"])
    vector = TABLES.vector(table, ("col" if transpose else "row", 0), _lower)
    return (*lookup_values(value), vector.index, vector.types, vector.values, vector.raw,
            bool(match_type), result)


def xmatch_arguments(value, array, match_mode=0, search_mode=1):
    """XMATCH's arguments as formulas' ``args_parser_xmatch_array`` gives them (text
    case-folded), the searched array prepared once per array object."""
    vector = TABLES.vector(_table_array(array), None, _casefold)
    return (*lookup_values(replace_empty(value, None), _casefold), vector.index,
            vector.types, vector.values, vector.raw, replace_empty(match_mode),
            replace_empty(search_mode, 1))


def xlookup_arguments(value, array, return_array, if_not_found=Error.errors["#N/A"],
                      match_mode=0, search_mode=1):
    """XLOOKUP's arguments as formulas' ``args_parser_xlookup_array`` gives them."""
    return xmatch_arguments(value, array, match_mode, search_mode) + (
        if_not_found, np.ravel(return_array))


def vector_arguments(value, vector_array, searched, match_type):
    """LOOKUP's searched vector (``searched``: None for ``vector_array`` itself, or
    ("row"/"col", k)) prepared once per array object, and the lookup value(s)."""
    vector = TABLES.vector(_table_array(vector_array), searched, _lower)
    return (*lookup_values(value), vector.index, vector.types, vector.values, vector.raw,
            next(flatten([match_type], None)))


__all__ = ["INDEXED_TYPES", "SCAN", "TABLES", "Vector", "first_positions", "lookup_values",
           "match_arguments", "table_arguments", "vector_arguments", "xlookup_arguments",
           "xmatch_arguments"]

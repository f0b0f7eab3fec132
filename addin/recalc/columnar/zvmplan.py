"""A zvmplan (registry) function over a column (:func:`_zvmplan_column`): once per
distinct combination of its arguments -- the scalar call, exactly as cell by cell --
or, beyond :data:`SCALAR_DISTINCT` combinations, with the numbers of its vector
arguments as one range, so the model's vectorised path does the work."""
from __future__ import annotations

import numpy as np
from formulas.ranges import Ranges
from formulas.tokens.operand import XlError as FXlError

from ...errors import ExcelError
from ..install import OVERFLOW, _from_formulas, _to_formulas, _whole_value
from ..values import XL
from .distinct import RawAt, _factorize, _factorize_once, _note_cells, _raw_column


# a zvmplan function over at most this many distinct argument combinations is called once
# per combination (its scalar path: the same numbers as cell by cell); beyond, once with
# all of them (the model's vectorised path, equal to within a unit in the last place)
SCALAR_DISTINCT = 256


def _zvmplan_column(fn, inputs, values, column, n, note, memo=None, codes=None):
    """A zvmplan function over columns, through the registry: called once per distinct
    combination of its arguments (:func:`_factorize`), each result given to every cell
    that holds the combination. With at most :data:`SCALAR_DISTINCT` combinations (per
    combination of its non-vector arguments) that is the scalar call, exactly as cell by
    cell; beyond, the combinations whose vector arguments are plain numbers go to one
    vector call per combination of the other arguments (the model's ``per_mb_many`` /
    ``per_tx_many``), the rest to the scalar call. None: a result that is not one value
    per cell. ``codes``: input name -> a function giving its cells' codes from the grid
    or None (:class:`~.codes.ColumnCodes`); such a column is converted to raw values
    only in the cells :func:`~.distinct._factorize` looks at (:class:`~.distinct.RawAt`)."""
    params = fn.params
    if len(inputs) > len(params):
        return None
    raw: list = []
    col_pos, col_codes = [], []
    for p, name in enumerate(inputs):
        value = values[name]
        if name in column:
            made = codes.get(name) if codes else None
            c = made() if made is not None else None
            raw.append(RawAt(value.reshape(-1)) if c is not None else _raw_column(value))
            col_pos.append(p)
            col_codes.append(c)
        else:
            if isinstance(value, Ranges):
                value = _whole_value(value)
                if value is None:
                    return None
            raw.append(_from_formulas(value))
    if any(c is not None for c in col_codes):
        found = _factorize([raw[p] for p in col_pos], n, codes=col_codes)
    else:
        found = _factorize_once([raw[p] for p in col_pos], n, memo)
    if found is None:
        return None
    picks, inverse = found
    m = len(picks)
    # the m distinct combinations: column arguments cut to their first cells
    take = picks.tolist()
    for p in col_pos:
        raw[p] = list(map(raw[p].__getitem__, take))
    results = _zvmplan_distinct(fn, raw, col_pos, m)
    if results is None:
        return None
    values_, errors = results
    out = values_[inverse].reshape(n, 1)
    if errors:  # each cell of a combination with a reason gets it
        _note_cells(note, inverse, m, errors)
    return out


def _zvmplan_distinct(fn, raw, col_pos, m):
    """``fn`` over ``m`` distinct combinations (``raw[p]`` a list of ``m`` values for
    each column position): (an object array of ``m`` results, {combination: the
    ExcelError to note}), or None for an array result."""
    params = fn.params
    vec_pos = [p for p in col_pos if params[p].vector]
    key_pos = [p for p in col_pos if not params[p].vector]
    out = np.empty(m, dtype=object)
    errors: dict = {}
    scalar = np.arange(m)
    if m > SCALAR_DISTINCT and vec_pos:
        plain = np.ones(m, dtype=bool)
        for p in vec_pos:
            types = np.array(list(map(type, raw[p])), dtype=object)
            plain &= (types == float) | (types == int)
        groups = _factorize([raw[p] for p in key_pos], m) if key_pos else \
            (np.zeros(1, dtype=np.int64), np.zeros(m, dtype=np.int64))
        if groups is None:
            return None
        vector = np.zeros(m, dtype=bool)
        for g in range(len(groups[0])):
            rows = np.flatnonzero(plain & (groups[1] == g))
            if len(rows) <= SCALAR_DISTINCT:
                continue  # few: the scalar call, exactly as cell by cell
            args = []
            for p in range(len(raw)):
                if p in vec_pos:
                    args.append(np.array(raw[p], dtype=object)[rows].reshape(-1, 1))
                elif p in key_pos:
                    args.append(raw[p][rows[0]])
                else:
                    args.append(raw[p])
            result = fn(*args)
            if not isinstance(result, np.ndarray) or result.size != len(rows):
                return None
            for j, v in zip(rows.tolist(), result.reshape(-1).tolist()):
                out[j], err = _one(v)
                if err is not None:
                    errors[j] = err
            vector[rows] = True
        scalar = np.flatnonzero(~vector)
    for j in scalar.tolist():
        result = fn(*[raw[p][j] if p in col_pos else raw[p] for p in range(len(raw))])
        if isinstance(result, np.ndarray):
            return None
        out[j], err = _one(result)
        if err is not None:
            errors[j] = err
    return out, errors


def _one(v):
    """One zvmplan result -> (formulas' value, the ExcelError whose reason its cells
    get, or None)."""
    if isinstance(v, ExcelError):
        return XL[v.code], (v if v.reason else None)
    if isinstance(v, FXlError):
        return v, None
    if isinstance(v, float) and not np.isfinite(v):
        return XL["#NUM!"], ExcelError("#NUM!", OVERFLOW)
    return _to_formulas(v), None

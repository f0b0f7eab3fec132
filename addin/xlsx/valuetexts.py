"""The ``<v>`` elements of many cached values at once: each distinct value written once.

:func:`value_texts` turns the values of a sheet's updated cells into a table of distinct
pieces (``<v>text</v>``, the text exactly :func:`~.cellxml.encode_value`'s) and one code
per cell, for the splice at noted offsets (:mod:`.splice`). A planner's filled-down
columns repeat few distinct values (on the 100,000-row planner sheet 165,180 distinct
texts for 900,000 cells), so formatting each distinct value once, and the floats all in
one call, saves most of the per-cell work.

Which values are "the same" is decided so that the text cannot differ: floats by their
64 bits (``0.0`` and ``-0.0`` stay apart, ``repr`` tells them apart), text by ``str``
equality, and any other value (a bool, an error, a number of another type) by the
``(t, text)`` :func:`~.cellxml.encode_value` gives it.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .cellxml import encode_value, escape_many


class ValueTexts(NamedTuple):
    """``codes[i]``: the piece of cell ``i``; ``pieces``: the distinct ``<v>`` elements
    (an object array of bytes); ``t_codes[k]``: the ``t`` attribute piece ``k`` needs, as
    an index into ``t_names`` (0: none, a number)."""
    codes: np.ndarray
    pieces: np.ndarray
    t_codes: np.ndarray
    t_names: list


def value_texts(values: np.ndarray, v_open: bytes, v_close: bytes) -> ValueTexts:
    """The pieces of ``values`` (an object array), each ``v_open + text + v_close``."""
    n = len(values)
    listed = values.tolist()
    kinds = np.fromiter(map(type, listed), dtype=object, count=n)
    is_float = np.equal(kinds, float).astype(bool)
    is_text = np.equal(kinds, str).astype(bool)
    codes = np.empty(n, dtype=np.int64)
    texts: list[str] = []           # the text of each piece, in code order
    t_of: list = []                 # (t attribute or None for a number, pieces that have it)

    floats = np.asarray(values[is_float], dtype=np.float64)
    bits, codes[is_float] = _distinct(floats.view(np.int64))
    if len(bits):                   # repr of the list: each float's repr, in one call
        texts += repr(bits.view(np.float64).tolist())[1:-1].split(", ")
    t_of.append((None, len(bits)))

    chosen = values[is_text].tolist()
    distinct = list(dict.fromkeys(chosen))
    number = {s: i for i, s in enumerate(distinct, start=len(texts))}
    codes[is_text] = np.fromiter(map(number.__getitem__, chosen), dtype=np.int64,
                                 count=len(chosen))
    texts += escape_many(distinct)
    t_of.append(("str", len(distinct)))

    seen: dict = {}                 # (t, text) -> code, of the other values

    def code_of(value) -> int:
        key = encode_value(value)
        k = seen.get(key)
        if k is None:
            k = seen[key] = len(texts)
            t_of.append((key[0], 1))
            texts.append(key[1])
        return k
    at = np.flatnonzero(~(is_float | is_text))
    codes[at] = per_object(code_of, [listed[i] for i in at.tolist()])
    return ValueTexts(codes, _pieces(texts, v_open, v_close), *_t_codes(t_of))


def per_object(func, values: list) -> list:
    """``[func(v) for v in values]``, ``func`` called once per distinct object, in order
    of first appearance: a formula's error value is one object in thousands of cells."""
    made = {}
    for key, value in zip(map(id, values), values):
        if key not in made:
            made[key] = func(value)
    return list(map(made.__getitem__, map(id, values)))


def _distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct keys, sorted; the index of each key among them): ``np.unique``
    with ``return_inverse``, by a stable sort (a merge of the runs a filled-down
    column holds; twice as fast as ``np.unique``'s quicksort on a planner sheet)."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.empty(len(keys), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    at = np.empty(len(keys), dtype=np.int64)
    at[order] = np.cumsum(new) - 1
    return ordered[new], at


def _pieces(texts: list[str], v_open: bytes, v_close: bytes) -> np.ndarray:
    """``v_open + text.encode() + v_close`` of each text, as an object array: all joined
    and encoded at once, split at NUL (which no escaped text holds; if one did, one at a
    time)."""
    out = np.empty(len(texts), dtype=object)
    vo, vc = v_open.decode("utf-8"), v_close.decode("utf-8")
    joined = vo + (vc + "\x00" + vo).join(texts) + vc
    if texts and joined.count("\x00") == len(texts) - 1:
        out[:] = joined.encode("utf-8").split(b"\x00")
    else:
        out[:] = [v_open + t.encode("utf-8") + v_close for t in texts]
    return out


def _t_codes(t_of: list) -> tuple[np.ndarray, list]:
    """(the t code of each piece, the names: None, then each t attribute as bytes) of
    runs (t, pieces)."""
    names: list = [None]
    index: dict = {None: 0}
    runs = []
    for t, count in t_of:
        if t not in index:
            index[t] = len(names)
            names.append(t.encode())
        runs.append(np.full(count, index[t], dtype=np.int8))
    return (np.concatenate(runs) if runs else np.zeros(0, dtype=np.int8)), names

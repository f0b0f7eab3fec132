"""formulas' ``Ranges.get_range`` with its answers remembered (issue 19).

``Ranges.get_range(ref, context, raise_anchor)`` reads a reference's text (``S!A1:B2``,
a name) with formulas' range pattern and works out its parts with ``range2parts``: the
compile stage asks it for every input of every formula it compiles (formulas'
``AstBuilder.compile``), ~1,600 times for the template's 150 formulas, three in four of
them a reference or name asked before (the generic literals ``ZVMLIT_<k>_``, a sheet's
``$U$15:$U$34`` ...). Its answer is a function of its arguments -- the parts dict, or the
``InvalidRangeName``/``AnchorRangeName`` it raises -- so :func:`get_range` gives a copy
of the remembered answer for arguments seen before.

The context's ``cr``/``cc`` (the formula's own cell) enter only a relative R1C1
reference's parts (``R[1]C[1]``, which holds a ``[``); any other answer carries them over
as given. So for a text without ``[`` they are left out of the key and the answer is
given this call's (remembered only when the answer holds the very ``cr``/``cc`` objects
given). A context that is no dict of hashable values, or any other exception, is
formulas' own answer, not remembered. Answers are remembered only inside
:func:`remembering` (the compile stage) and forgotten when it ends; elsewhere it is
formulas' own call. :func:`install` puts :func:`get_range` in place of formulas'
(``install_functions``); ``tests/test_rangememo.py`` compares the two.
"""
from __future__ import annotations

from formulas.errors import AnchorRangeName, InvalidRangeName
from formulas.ranges import Ranges

from .stagememo import StageMemo

MAX_KEPT = 4_096    # answers remembered (~1 KB each), then forgotten all at once
_HOST = ("cr", "cc")
_kept = StageMemo(MAX_KEPT)
_installed = Ranges.__dict__["get_range"].__func__
# formulas' own staticmethod's function (also when this module is imported again)
_original = getattr(_installed, "_zvm_original", _installed)


def get_range(ref, context=None, raise_anchor=True):
    """``Ranges.get_range(ref, context, raise_anchor)`` as formulas answers it: a new
    parts dict, or the same exception (the module docstring); formulas' own call outside
    :func:`remembering`."""
    if not _kept.depth:
        return _original(ref, context, raise_anchor)
    try:
        host = "[" not in ref
        ctx = tuple((k, None if host and k in _HOST else v)
                    for k, v in context.items()) if context else ()
        key = (ref, ctx, bool(raise_anchor))
        got = _kept.get(key)
    except (TypeError, AttributeError):  # no text, a context that is no plain dict
        return _original(ref, context, raise_anchor)
    if got is None:
        return _first(ref, context, raise_anchor, key, host)
    if isinstance(got, type):
        raise got
    got = got.copy()
    if host and context:
        for k in _HOST:
            if k in context:
                got[k] = context[k]
    return got


def _first(ref, context, raise_anchor, key, host):
    _kept.make_room()
    try:
        got = _original(ref, context, raise_anchor)
    except (InvalidRangeName, AnchorRangeName) as exc:
        if type(exc) in (InvalidRangeName, AnchorRangeName) and not exc.args:
            _kept[key] = type(exc)
        raise
    if host:
        given = context or {}
        for k in _HOST:
            if (k in given) != (k in got) or (k in given and got[k] is not given[k]):
                return got
    _kept[key] = got.copy()
    return got


get_range._zvm_original = _original


def forget() -> None:
    _kept.clear()


remembering = _kept.remembering  # the compile stage remembers inside this


def install() -> None:
    """Put :func:`get_range` in place of formulas' ``Ranges.get_range`` (idempotent)."""
    Ranges.get_range = staticmethod(get_range)

"""formulas' tokens made from attributes remembered across formulas (issue 19).

A formula's token is made by formulas' ``Token.__init__``: its class's pattern (``_re``)
matched at the start of the rest of the formula, then its ``process`` turns the match
into the token's attributes (``attr``): the named groups, and for a reference
(``Range``) its parts -- sheet, rows, columns, canonical name -- worked out by formulas'
``range2parts``. That work is the larger part of making a token, and a workbook's
formulas repeat their pieces (``$U$15:$U$34``, ``IF(``, ``,``, ``)``) many times.

:func:`make` matches the pattern as formulas does and, when the same class has already
made a token from the same matched text followed by the same character (every pattern
looks at most one character past its match: the ``(?![_.\\w])`` of a reference, the
``\\s*:`` of a number, after which the match's own trailing ``\\s*`` stops), in the same
context, gives the new token a copy of that token's attributes instead of processing
the match again. Each token is its own object with its own ``attr`` dict (the parser's
``ast`` steps write into it). What the attributes depend on, per class (formulas
1.3.4, read in ``formulas/tokens``):

* ``Error``, ``String``, ``Number``, ``OperatorToken``, ``Separator``, ``Array``,
  ``Parenthesis``, ``Intersect``: the match only;
* ``Function``: the match, and whether the parser reads a cell and knows the function
  (else its attributes hold a ``Range`` token of their own: never remembered);
* ``Range``: the match, the next character (whether a function call follows) and the
  context. The context's ``cr``/``cc`` (the formula's own cell) enter only a relative
  R1C1 reference's parts; any other reference's attributes carry them over as given,
  so those are remembered without them and given this formula's (a reference whose
  attributes do not hold the very ``cr``/``cc`` objects given is remembered with them).
* ``Lambda`` reads the formula further with the parser: always made by formulas.

:func:`usable` says whether these are still formulas' own ``process`` methods (a
patched one, or another formulas release, and every token is made by formulas).
Attributes are remembered only inside :func:`remembering` (the compile stage:
``compile.compile_nodes``, ``FormulaCompiler.compile``) and forgotten when it ends, so
nothing is kept per formula after it (:func:`on`).
``tests/test_fastparse.py`` compares the tokens with formulas' own, made afresh, on
every formula of the template and the corpus, the memo warm and cold.
"""
from __future__ import annotations

import re

import formulas
from formulas.errors import TokenError
from formulas.functions import get_functions
from formulas.tokens import Token
from formulas.tokens.function import Array, Function
from formulas.tokens.operand import Error, Number, Range, String
from formulas.tokens.operator import Intersect, OperatorToken, Separator
from formulas.tokens.parenthesis import Parenthesis

from .stagememo import StageMemo

KNOWN_VERSIONS = frozenset({"1.3.4"})
MAX_KEPT = 4_096    # attribute sets remembered (~1 KB each), then forgotten all at once
_HOST = ("cr", "cc")  # the context's parts that name the formula's own cell
_REFUSED = object()   # formulas refused the match (TokenError): so again



def _own(process):
    """formulas' ``process`` under ``process``: itself, or the one a wrapper marked
    ``_zvm_pure_over`` wraps (:func:`~.excel.numbers.install_double_negation`'s, which
    adds an attribute read off the match's)."""
    return getattr(process, "_zvm_pure_over", process)


# the methods whose results are remembered, as formulas defines them
_PROCESS = {cls: (_own(cls.process), getattr(cls, "_process", None))
            for cls in (Error, String, Number, OperatorToken, Separator, Array, Parenthesis,
                        Intersect, Function, Range)}
_RELATIVE = ("rr1", "rc1", "rr2", "rc2")  # groups of a relative R1C1 reference
_PLAIN_RUN = re.compile(r"[A-Za-z0-9_.$:!\\]+").match   # (see _range)
_STOPS = frozenset(",;)}+-*/^&=<>% ") | {""}
_READS_ON = re.compile(r"INDIRECT|ANCHORARRAY", re.I).search
_NO_MATCH = object()
_kept = StageMemo(MAX_KEPT)


def usable() -> bool:
    """Are the token classes' ``process`` (and ``_process``) still formulas' own, of the
    release this module was written for?"""
    if formulas.__version__ not in KNOWN_VERSIONS:
        return False
    for cls, (process, inner) in _PROCESS.items():
        if _own(cls.process) is not process or getattr(cls, "_process", None) is not inner or \
                cls.__init__ is not Token.__init__:
            return False
    return True


def on() -> bool:
    """Is :func:`make` to be used: inside :func:`remembering`, while :func:`usable`?"""
    return _kept.depth > 0 and usable()


def forget() -> None:
    """Forget every remembered attribute set."""
    _kept.clear()


remembering = _kept.remembering  # the compile stage remembers inside this


def make(cls, rest: str, context, parser):
    """``cls(rest, context, parser)`` as formulas makes it -- the same class, source,
    ``end_match`` and attributes, or the same ``TokenError`` -- with the attributes of an
    earlier token of the same key copied when there is one (the module docstring). For
    use only while :func:`usable` holds."""
    if cls not in _PROCESS:
        return cls(rest, context, parser)
    if cls is Range:
        return _range(rest, context, parser)
    m = cls._re.match(rest)
    end = m.end(0) if m is not None else 0
    if not end:  # Token.__init__: no match (or an empty one), no attributes
        raise TokenError(rest)
    if cls is Function:
        key = (cls, m.group(0), rest[end:end + 1], bool(getattr(parser, "is_cell", False)))
    else:
        key = (cls, m.group(0), rest[end:end + 1])
    got = _kept.get(key)
    if got is None:
        return _first(cls, rest, context, parser, key, False)
    if cls is Function and key[3] and got is not _REFUSED and \
            got["name"].upper() not in get_functions():
        return cls(rest, context, parser)  # (formulas gives it a Range of its own)
    return _made(cls, rest, context, got, end, False)


def _made(cls, rest, context, got, end: int, host: bool):
    """The token of remembered attributes ``got`` (or formulas' refusal)."""
    if got is _REFUSED:
        raise TokenError(rest)
    attr = got.copy()
    if host and context:
        for k in _HOST:
            if k in context:
                attr[k] = context[k]
    token = cls.__new__(cls)
    token.source, token.attr, token.end_match = rest, attr, end
    return token


def _range(rest: str, context, parser):
    """:func:`make` for a ``Range``. A text that begins with a run of the characters of
    an unquoted reference or name (:data:`_PLAIN_RUN`: letters, digits, ``_ . $ : !`` and the backslash)
    followed by an operator, a separator, a space, ``)``, ``}`` or the end
    (:data:`_STOPS`) is matched by formulas' pattern exactly as far as that run, or not
    at all, whatever follows: no alternative of the pattern takes any of those
    characters unless it began with a quote or a ``[``, and its lookaheads read one
    character. So when that run and character have been matched before in this context,
    the remembered token is given without matching; likewise a run followed by ``(``
    (a function's name) that the pattern did not match before is refused again -- but for
    the names whose alternatives read past the ``(`` (``INDIRECT("``, ``ANCHORARRAY(``).
    """
    try:
        ctx = tuple((k, None if k in _HOST else v)
                    for k, v in context.items()) if context else ()
        hash(ctx)
    except (AttributeError, TypeError):  # a context that is no plain dict
        return Range(rest, context, parser)
    run = _PLAIN_RUN(rest)
    seen = None
    if run is not None:
        n = run.end()
        after = rest[n:n + 1]
        if after in _STOPS:
            seen = (Range, rest[:n], after, ctx)
            got = _kept.get(seen)
            if got is not None:
                return _made(Range, rest, context, got, n, True)
        elif after == "(" and not _READS_ON(rest[:n]):
            seen = (Range, rest[:n], "(", ctx, _NO_MATCH)
            if seen in _kept:
                raise TokenError(rest)
    m = Range._re.match(rest)
    end = m.end(0) if m is not None else 0
    if not end:  # Token.__init__: no match (or an empty one), no attributes
        if seen is not None and len(seen) == 5:
            _kept.make_room()
            _kept[seen] = _NO_MATCH
        raise TokenError(rest)
    host = all(m.group(g) is None for g in _RELATIVE)
    if not host:  # a relative R1C1 reference: this cell's parts
        ctx = tuple(context.items()) if context else ()
    key = (Range, m.group(0), rest[end:end + 1], ctx)
    got = _kept.get(key)
    if got is None:
        return _first(Range, rest, context, parser, key, host)
    return _made(Range, rest, context, got, end, host)


def _first(cls, rest, context, parser, key, host):
    """The token formulas makes, its attributes remembered under ``key`` when they can
    be given to the next token of that key."""
    _kept.make_room()
    try:
        token = cls(rest, context, parser)
    except TokenError:
        _kept[key] = _REFUSED
        raise
    attr = token.attr
    if cls is Function and "func_token" in attr:
        return token
    if host:  # the formula's own cell carried over as given, or not remembered
        context = context or {}
        for k in _HOST:
            if k in context and (k not in attr or attr[k] is not context[k]):
                return token
            if k not in context and k in attr:
                return token
    _kept[key] = attr.copy()
    return token

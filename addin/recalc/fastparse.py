"""formulas' parser without the token attempts that cannot succeed (issue 19).

formulas' ``Parser.ast`` reads a formula left to right: at each position it tries its
token classes (``Parser.filters``: Error, String, Number, Lambda, Range, OperatorToken,
Separator, Function, Array, Parenthesis, Intersect) in that order, constructing each on
the rest of the text, until one is made and accepted by the token list built so far
(its ``ast``); a class that does not match raises ``TokenError`` and the next is tried.
For the template's 150 formula shapes that is ~43,000 constructions, ~36,000 of them
failing -- a third of the compile stage.

A token class whose ``__init__`` and ``match`` are formulas' ``Token`` ones is made only
if its pattern (``_re``) matches at the start of the text; when it does not, the
constructor raises ``TokenError`` having done nothing else. :class:`FastParser` reads
the formula as formulas' parser reads it, but at each position tries only the classes
whose pattern can match a text beginning with the position's first character
(:data:`STARTS`: for each class, the characters its pattern can start with, derived by
reading the patterns; ``tests/test_fastparse.py`` checks each against the pattern with
the ``regex`` module's partial matching) and leaves ``Error`` out of a formula with no
``#`` in it (each error literal holds one). The classes it skips are exactly classes
formulas' loop would have tried and seen fail, so the same tokens come out in the same
order, with the same attributes, through the same ``ast`` calls into the same builder,
and a formula formulas refuses is refused with the same exception.

It is used only for the formulas release whose parser it was written against: the
version, the token classes in ``Parser.filters`` (by identity, in order), their
``__init__``/``match`` (formulas' ``Token`` ones) and their patterns (their text and flags,
by digest) are checked at each call; on any difference, or an expression that is not a
``str``, it is formulas' own ``Parser.ast`` that runs.

Each token is made by :func:`~.tokenmemo.make`: formulas' constructor, or the same token
with the attributes of an earlier one of the same matched text (while the compile stage
remembers them and the token classes' ``process`` methods are formulas' own,
:func:`~.tokenmemo.on`).
"""
from __future__ import annotations

import hashlib
import string

import formulas
from formulas.errors import FormulaError, ParenthesesError, TokenError
from formulas.parser import Parser
from formulas.tokens import Token
from formulas.tokens.function import Array, Function, Lambda
from formulas.tokens.operand import Error, Number, Range, String
from formulas.tokens.operator import Intersect, OperatorToken, Separator
from formulas.tokens.parenthesis import Parenthesis

from . import tokenmemo

# the release, the filters and the digest of their patterns this module was checked
# against (tests/test_fastparse.py recomputes the digest)
KNOWN_VERSIONS = frozenset({"1.3.4"})
FILTERS = (Error, String, Number, Lambda, Range, OperatorToken, Separator, Function,
           Array, Parenthesis, Intersect)
PATTERNS_DIGEST = "8dd76c1cf49838fd9557ed04d92aca11e6b319c51fca1f5b3a7788fcff06e1da"

_LETTERS = string.ascii_letters
# For each class: the characters (printable ASCII, not a space) a text matched by its
# pattern can begin with -- the first character its pattern accepts after any leading
# whitespace. A superset is safe (the class is tried and fails as in formulas' loop);
# a missing character would not be, and the test checks there is none.
STARTS = {
    Error: "#'[_" + _LETTERS,             # #REF!, or a sheet before it: 'S'!, [1]S!, S!
    String: '"',
    Number: string.digits + ".TtFf",      # 12, .5, 1E+3, TRUE, FALSE
    Lambda: "_Ll",                        # LAMBDA(, LET(, _xlfn.LAMBDA(, _xleta.F
    Range: _LETTERS + string.digits + "_\\$:'[",  # A1, $A$1, 1:2, :B, R1C1, names, 'S'!A1
    OperatorToken: "<>*/^&=%+-:@",
    Separator: ",",
    Function: _LETTERS + "_",
    Array: "{};",
    Parenthesis: "()",
    Intersect: "",                        # a space only
}
# classes whose pattern cannot begin with whitespace (no leading ``\s*``)
NO_LEADING_SPACE = frozenset({Range})


def patterns_digest(classes) -> str:
    """A digest of the token classes' names and patterns (text and flags)."""
    h = hashlib.sha256()
    for cls in classes:
        h.update(f"{cls.__module__}.{cls.__qualname__}\0{cls._re.pattern}\0"
                 f"{cls._re.flags}\0".encode())
    return h.hexdigest()


def _candidates(has_error_literal: bool) -> tuple[dict, tuple]:
    """(first character -> the classes of :data:`FILTERS` to try, in order; the classes
    to try before any other character), for a formula with or without a ``#``."""
    every = tuple(cls for cls in FILTERS if has_error_literal or cls is not Error)
    table = {}
    for ch in map(chr, range(33, 127)):
        table[ch] = tuple(cls for cls in every if ch in STARTS[cls])
    table[" "] = tuple(cls for cls in every if cls not in NO_LEADING_SPACE)
    return table, every


_TABLES = {flag: _candidates(flag) for flag in (False, True)}
_FORMULAS_AST = Parser.__dict__["ast"]   # formulas' own, unless patched before this import
_OWN_AST = getattr(_FORMULAS_AST, "__module__", None) == "formulas.parser" and \
    getattr(_FORMULAS_AST, "__qualname__", None) == "Parser.ast"
_checked: dict = {}   # (version, the filters and their parts) -> the patterns are known


def known(filters) -> bool:
    """Is ``filters`` (a parser's token classes) the list this module was written for,
    in the formulas release it knows, each class made by formulas' ``Token.__init__`` and
    ``Token.match`` with the patterns of :data:`PATTERNS_DIGEST`?"""
    try:
        key = (formulas.__version__, tuple(filters),
               tuple((c.__init__, c.match, c._re) for c in filters))
    except (AttributeError, TypeError):
        return False
    got = _checked.get(key)
    if got is None:
        got = (key[0] in KNOWN_VERSIONS and key[1] == FILTERS and
               all(init is Token.__init__ and match is Token.match
                   for init, match, _ in key[2]) and
               _OWN_AST and Parser.__dict__.get("ast") is _FORMULAS_AST and
               patterns_digest(FILTERS) == PATTERNS_DIGEST)
        if len(_checked) > 16:
            _checked.clear()
        _checked[key] = got
    return got


class FastParser(Parser):
    """formulas' ``Parser`` whose :meth:`ast` skips the token classes that cannot match
    (the module docstring); the same tokens and builder as formulas' own."""

    def ast(self, expression, context=None):
        if not isinstance(expression, str) or not known(self.filters):
            return super().ast(expression, context=context)
        try:
            match = self.is_formula(expression.replace("\n", "")).groupdict()
            rest = match["name"]
        except (AttributeError, KeyError):
            raise FormulaError(expression)
        builder = self.ast_builder(match=match)
        tokens, stack = [], []
        Parenthesis("(").ast(tokens, stack, builder)
        if rest:
            table, others = _TABLES["#" in rest]
            make = tokenmemo.make if tokenmemo.on() else _construct
            while rest:
                rest = rest[_read_one(rest, table.get(rest[0], others), context, self,
                                      tokens, stack, builder, expression, make):]
        Parenthesis(")").ast(tokens, stack, builder)
        while stack:
            if isinstance(stack[-1], Parenthesis):
                raise ParenthesesError()
            builder.append(stack.pop())
        if len(builder) != 1:
            raise FormulaError(expression)
        builder.finish()
        return tokens[1:-1], builder


def _construct(cls, rest, context, parser):
    return cls(rest, context, parser)


def _read_one(rest, classes, context, parser, tokens, stack, builder, expression,
              make=_construct) -> int:
    """Make (with ``make``: formulas' constructor, or :func:`~.tokenmemo.make`) the
    first of ``classes`` that matches at the start of ``rest`` and that the token list
    accepts (its ``ast``); the length of text it took. A ``TokenError`` (no match, or not
    accepted here) moves on to the next class; any other formulas error refuses the
    formula, as does no class left."""
    for cls in classes:
        try:
            token = make(cls, rest, context, parser)
            token.ast(tokens, stack, builder)
            return token.end_match
        except TokenError:
            continue
        except FormulaError:
            raise FormulaError(expression)
    raise FormulaError(expression)

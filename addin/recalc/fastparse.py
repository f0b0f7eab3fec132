"""formulas' formula parser with the token filters that cannot match skipped.

``formulas.Parser.ast`` reads a formula left to right; at each position it tries its
token classes (:attr:`formulas.Parser.filters`: Error, String, Number, Lambda, Range,
operator, separator, Function, Array, parenthesis, intersection) in that order, and the
first whose regular expression matches makes the token. Each class that does not match
costs a token object, a regex match and a raised ``TokenError``: about six of them per
token, some 40 % of parsing the template's 150 formula shapes.

:class:`FastParser` runs the same loop, the same classes in the same order, but does not
try a class whose expression cannot match the text at this position, judged from its
first character when that is a printable ASCII character other than a space (every
expression starts with ``^\\s*`` or less, so that character is the first one the
expression must match): a string needs ``"``, a number a digit, ``.``, ``T`` or ``F``, an
error a ``#`` somewhere, and so on (:data:`_FIRST`). At any other character (a space, a
non-ASCII letter) every class is tried, as formulas does. A class skipped is one whose
match would have failed without side effects (no match: no ``process``), so the tokens,
and every error raised, are formulas' own. Range has no such test and is always tried.

The test is tied to the expressions it was written from: :func:`parser` gives the fast
parser only when formulas is a version whose loop it was checked against and each
class's expression is the one it was checked against (:data:`_PATTERNS`); otherwise
formulas' own parser. ``tests/test_fastparse.py`` parses the template's formulas, the
test workbooks' formulas and malformed ones both ways and compares the tokens.
"""
from __future__ import annotations

import hashlib

import formulas
from formulas.errors import FormulaError, ParenthesesError, TokenError
from formulas.tokens.function import Array, Function, Lambda
from formulas.tokens.operand import Error, Number, Range, String
from formulas.tokens.operator import Intersect, OperatorToken, Separator
from formulas.tokens.parenthesis import Parenthesis

_DIGITS = "0123456789"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

#: token class -> the printable ASCII characters its expression can start with (None:
#: any; Error: needs a ``#`` anywhere, tested apart)
_FIRST = {
    String: frozenset('"'),
    Number: frozenset(_DIGITS + ".TtFf"),          # 1, .5, TRUE, FALSE (any case)
    Lambda: frozenset("_Ll"),                       # LAMBDA(, LET(, _XLFN., _XLETA.
    Range: None,
    OperatorToken: frozenset("<>*/^&=%+-:@"),
    Separator: frozenset(","),
    Function: frozenset(_LETTERS + "_"),            # [A-Z_][\w.]*( ignoring case
    Array: frozenset("{};"),
    Parenthesis: frozenset("()"),
    Intersect: frozenset(),                         # a whitespace character only
}

#: formulas' versions whose ``Parser.ast`` loop FastParser repeats
_VERSIONS = frozenset({"1.3.4"})

#: the first 8 hex digits of the sha256 of every class's expression (pattern and flags), in
#: order, as FastParser was checked against them (:func:`_digest`)
_PATTERNS = "6695f0b6"


def _digest(filters) -> str:
    text = "\n".join(f"{f.__name__}:{f._re.pattern}:{f._re.flags}" for f in filters)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


class FastParser(formulas.Parser):
    """``formulas.Parser`` skipping the token classes that cannot match (module
    docstring); the same tokens, builder and errors."""

    def ast(self, expression, context=None):
        try:
            match = self.is_formula(expression.replace('\n', '')).groupdict()
            expr = match['name']
        except (AttributeError, KeyError):
            raise FormulaError(expression)
        builder = self.ast_builder(match=match)
        filters, tokens, stack = self.filters, [], []
        Parenthesis('(').ast(tokens, stack, builder)
        while expr:
            first = expr[0]
            known = "!" <= first <= "~"
            for f in filters:
                if known:
                    if f is Error:
                        if "#" not in expr:
                            continue
                    else:
                        starts = _FIRST[f]
                        if starts is not None and first not in starts:
                            continue
                try:
                    token = f(expr, context, self)
                    token.ast(tokens, stack, builder)
                    expr = expr[token.end_match:]
                    break
                except TokenError:
                    pass
                except FormulaError:
                    raise FormulaError(expression)
            else:
                raise FormulaError(expression)
        Parenthesis(')').ast(tokens, stack, builder)
        tokens = tokens[1:-1]
        while stack:
            if isinstance(stack[-1], Parenthesis):
                raise ParenthesesError()
            builder.append(stack.pop())
        if len(builder) != 1:
            raise FormulaError(expression)
        builder.finish()
        return tokens, builder


def _usable() -> bool:
    filters = list(formulas.Parser.filters)
    return getattr(formulas, "__version__", None) in _VERSIONS and \
        filters == [Error, String, Number, Lambda, Range, OperatorToken, Separator, Function,
                    Array, Parenthesis, Intersect] and \
        formulas.Parser.ast_builder is FastParser.ast_builder and \
        _digest(filters) == _PATTERNS


#: the parser class the compile stage uses: FastParser when :func:`_usable`
PARSER = FastParser if _usable() else formulas.Parser


def parser(is_cell: bool = True) -> formulas.Parser:
    """A parser for one formula: :class:`FastParser` where it is known to give formulas'
    tokens, else ``formulas.Parser``."""
    return PARSER(is_cell)

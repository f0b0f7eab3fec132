"""Where a formula breaks Excel's grammar, said in one line a person can act on.

Excel refuses to enter such a formula ("There's a problem with this formula") rather
than giving an error value, so neither ``zvmplan eval`` nor ``zvmplan calc`` answers it
with one: ``eval`` refuses it and ``calc`` keeps the cell's cached value and says why.
The formula engine only tells *that* a formula is not valid ("Mismatched or misplaced
parentheses!"); :func:`syntax_error` says *where*: a string, a sheet name in quotes, a
parenthesis or an array-constant brace left open or closed twice, or a formula ending
with an operator. Positions count characters from 1, the leading ``=`` included as
typed. Kept free of heavy imports: ``zvmplan eval`` starts without the engine.
"""
from __future__ import annotations

#: binary operators after which Excel needs an operand
_TRAILING = set("+-*/^&=<>,:")
_CLOSE = {")": "(", "}": "{"}


def syntax_error(formula: str) -> str | None:
    """The first thing that makes ``formula`` unreadable, or None when the brackets,
    quotes and ending are well formed (the formula may still be invalid otherwise).

    >>> syntax_error("=SUM(1,2")
    'syntax error: the ( at position 5 is never closed'
    >>> syntax_error('=CPCPU_PER_MB("IUCV",9000))')
    'syntax error: the ) at position 27 closes nothing'
    >>> syntax_error("=1+")
    'syntax error: the formula ends with + at position 3: an operand is missing'
    >>> syntax_error('=SUM(1,2)&")"') is None
    True
    """
    text = formula.rstrip()
    lead = len(text) - len(text.lstrip())
    open_: list[tuple[str, int]] = []
    i, n = lead, len(text)
    if text[i:i + 1] == "=":
        i += 1
    while i < n:
        ch = text[i]
        if ch in "\"'":
            end = _closing_quote(text, i)
            if end is None:
                what = "text" if ch == '"' else "sheet name"
                return (f"syntax error: the {what} opened by {ch} at position {i + 1} is "
                        "never closed")
            i = end + 1
            continue
        if ch == "[":  # a structured or external reference: skip to its end
            end = text.find("]", i)
            if end < 0:
                return f"syntax error: the [ at position {i + 1} is never closed"
            i = end + 1
            continue
        if ch in "({":
            open_.append((ch, i))
        elif ch in ")}":
            if not open_ or open_[-1][0] != _CLOSE[ch]:
                return f"syntax error: the {ch} at position {i + 1} closes nothing"
            open_.pop()
        i += 1
    if open_:
        ch, at = open_[-1]
        return f"syntax error: the {ch} at position {at + 1} is never closed"
    body = text[lead:].lstrip("=").strip()
    if not body:
        return "syntax error: the formula is empty"
    if body[-1] in _TRAILING:
        return (f"syntax error: the formula ends with {body[-1]} at position {len(text)}: "
                "an operand is missing")
    return None


def _closing_quote(text: str, start: int) -> int | None:
    """The index of the quote that closes the one at ``start`` (a doubled quote is one
    character of the text), or None."""
    q = text[start]
    i = start + 1
    while i < len(text):
        if text[i] == q:
            if text[i + 1:i + 2] == q:
                i += 2
                continue
            return i
        i += 1
    return None

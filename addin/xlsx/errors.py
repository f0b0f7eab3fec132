"""The one exception of the xlsx layer, and how a cause becomes one line."""
from __future__ import annotations


class UnsafeWorkbookError(Exception):
    """A file that zvmplan refuses to read or write; the message is one line, fit for a user."""


def one_line(exc: BaseException) -> str:
    """The text of ``exc`` on one line (its type name if it has no text)."""
    return " ".join(str(exc).split()) or type(exc).__name__

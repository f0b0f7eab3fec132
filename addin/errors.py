"""The one place where exceptions become Excel errors.

=====================================  ==========
zvmplan exception                      Excel error
=====================================  ==========
UnknownNameError, ArgumentTypeError    #VALUE!
OutOfRangeError                        #NUM!
NoDataError                            #N/A
any other exception (a bug)            #VALUE!
=====================================  ==========

An :class:`ExcelError` given to a function as input passes through unchanged.
Every error carries a reason a planner can read (``zvmplan eval`` prints it and
the ``ZVM_BASIS`` worksheet function returns it); it is never put in a cell.
"""
from __future__ import annotations

from zvmplan.errors import (ArgumentTypeError, NoDataError, OutOfRangeError,
                            UnknownNameError, ZvmplanError)

VALUE, NUM, NA, DIV0, NAME, REF, NULL = "#VALUE!", "#NUM!", "#N/A", "#DIV/0!", "#NAME?", "#REF!", "#NULL!"
CODES = (NULL, DIV0, VALUE, REF, NAME, NUM, NA)


class ExcelError:
    """An Excel error value with the reason behind it. Compares equal by code."""

    __slots__ = ("code", "reason")

    def __init__(self, code: str, reason: str = ""):
        if code not in CODES:
            raise ValueError(f"not an Excel error code: {code!r}")
        self.code, self.reason = code, reason

    def __eq__(self, other):
        if isinstance(other, ExcelError):
            return self.code == other.code
        return isinstance(other, str) and other == self.code

    def __hash__(self):
        return hash(self.code)

    def __repr__(self):
        return f"ExcelError({self.code!r}, {self.reason!r})"

    def __str__(self):
        return self.code


_MAP = ((NoDataError, NA), (OutOfRangeError, NUM), (UnknownNameError, VALUE),
        (ArgumentTypeError, VALUE), (ZvmplanError, VALUE))


def to_excel_error(exc: BaseException) -> ExcelError:
    """Map any exception to the Excel error a cell should show."""
    for cls, code in _MAP:
        if isinstance(exc, cls):
            return ExcelError(code, str(exc))
    return ExcelError(VALUE, f"internal error ({type(exc).__name__}: {exc}); please report it")

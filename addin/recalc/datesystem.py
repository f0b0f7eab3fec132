"""The 1904 date system (``<workbookPr date1904="1"/>``): serial 0 is 1 January 1904.

Excel stores a date as a serial number of days; a workbook in the 1904 system (made on
an old Mac, or so set in Excel's options) counts from 1 January 1904, which is serial
1,462 of the 1900 system (Microsoft: "Date systems in Excel"). Arithmetic on serials is
the same in both; only the functions that turn a serial into a date or a date into a
serial differ. formulas implements the 1900 system, so while a 1904 workbook is
evaluated (:func:`active`) :func:`install` has those functions

* read each serial argument 1,462 days later (YEAR, MONTH, DAY, WEEKDAY, WEEKNUM,
  ISOWEEKNUM, DAYS360, YEARFRAC, DATEDIF, NETWORKDAYS, TEXT of a date format ...),
* give each serial result 1,462 days earlier (DATE, DATEVALUE, TODAY, NOW, EDATE,
  EOMONTH, WORKDAY, ...);

a serial before 1 January 1904 (negative) is #NUM!, as in Excel. Any other workbook is
not touched: outside :func:`active`, the functions run as they were.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools

import numpy as np
import schedula as sh
from formulas.ranges import Ranges

from .during import during
from ..prefixes import spellings
from .values import XL
from ..lazyre import lazy_pattern

OFFSET_1904 = 1462          # serial of 1904-01-01 in the 1900 date system [days]
_ACTIVE: contextvars.ContextVar[bool] = contextvars.ContextVar("zvmplan_date1904",
                                                              default=False)

# function -> (positions of serial arguments, is the result a serial?)
SERIAL_FUNCTIONS = {
    "YEAR": ((0,), False), "MONTH": ((0,), False), "DAY": ((0,), False),
    "WEEKDAY": ((0,), False), "WEEKNUM": ((0,), False), "ISOWEEKNUM": ((0,), False),
    "DAYS360": ((0, 1), False), "YEARFRAC": ((0, 1), False), "DATEDIF": ((0, 1), False),
    "NETWORKDAYS": ((0, 1, 2), False), "NETWORKDAYS.INTL": ((0, 1, 3), False),
    "DATE": ((), True), "DATEVALUE": ((), True), "TODAY": ((), True), "NOW": ((), True),
    "EDATE": ((0,), True), "EOMONTH": ((0,), True), "WORKDAY": ((0, 2), True),
    "WORKDAY.INTL": ((0, 3), True),
}
_QUOTED = lazy_pattern(r'"[^"]*"|\[[^\]]*\]|\\.|_.|\*.')


@contextlib.contextmanager
def active(date1904: bool):
    """Evaluate in the 1904 date system while the block runs, if ``date1904``."""
    with during(_ACTIVE, bool(date1904)):
        yield


def is_active() -> bool:
    """Is a 1904 workbook being evaluated (TEXT then shows negative times signed)?"""
    return _ACTIVE.get()


def install(table: dict) -> None:
    """Wrap the functions of :data:`SERIAL_FUNCTIONS` and TEXT in formulas' ``table`` (once)."""
    for name, (ins, out) in SERIAL_FUNCTIONS.items():
        for spelled in spellings(name, builtin=True):
            _wrap(table, spelled, ins, out, False)
    for spelled in spellings("TEXT", builtin=True):
        _wrap(table, spelled, (), False, True)


def _wrap(table, name, ins, out, text_format) -> None:
    entry = table.get(name)
    if entry is None:
        return
    func = entry["function"] if isinstance(entry, dict) else entry
    if getattr(func, "_zvm_1904", False):
        return
    skip = len(entry.get("extra_inputs", ())) if isinstance(entry, dict) else 0

    @functools.wraps(func)
    def call(*args, **kwargs):
        if not _ACTIVE.get():
            return func(*args, **kwargs)
        args = list(args)
        for k in ins:
            if skip + k < len(args):
                args[skip + k] = _later(args[skip + k], empty=k < 2)
        if text_format and len(args) > skip + 1 and _date_format(args[skip + 1]):
            args[skip] = _later(args[skip], empty=True)
        result = func(*args, **kwargs)
        return _earlier(result) if out else result
    call._zvm_1904 = True
    table[name] = {**entry, "function": call} if isinstance(entry, dict) else call


def _date_format(fmt) -> bool:
    """Does TEXT's format ``fmt`` show a date (year, month or day codes), not only a time
    or a number? (An elapsed ``[h]`` or ``mm:ss`` reads no date.)"""
    if isinstance(fmt, Ranges):
        fmt = fmt.value
    if isinstance(fmt, np.ndarray):
        fmt = fmt.reshape(-1)[0] if fmt.size else ""
    if not isinstance(fmt, str):
        return False
    codes = _QUOTED().sub("", fmt).lower()
    if "y" in codes or "d" in codes:
        return True
    return "m" in codes and "h" not in codes and "s" not in codes


def _later(v, empty: bool):
    """A serial argument of the 1904 system as the 1900 system's serial (arrays and
    ranges element by element; text, booleans and errors as they are)."""
    if isinstance(v, Ranges):
        v = v.value
    if isinstance(v, np.ndarray):
        out = np.empty(v.shape, dtype=object)
        flat, into = v.reshape(-1), out.reshape(-1)
        for k in range(flat.size):
            into[k] = _later(flat[k], empty)
        return out.view(type(v)) if type(v) is not np.ndarray else out
    if v is sh.EMPTY:
        return float(OFFSET_1904) if empty else v
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)):
        return XL["#NUM!"] if v < 0 else v + OFFSET_1904
    return v


def _earlier(v):
    """A serial result of the 1900 system as the 1904 system's (#NUM! before 1904)."""
    if isinstance(v, np.ndarray):
        out = np.empty(v.shape, dtype=object)
        flat, into = v.reshape(-1), out.reshape(-1)
        for k in range(flat.size):
            into[k] = _earlier(flat[k])
        return out.view(type(v)) if type(v) is not np.ndarray else out
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)):
        return XL["#NUM!"] if v < OFFSET_1904 else v - OFFSET_1904
    return v


__all__ = ["OFFSET_1904", "SERIAL_FUNCTIONS", "active", "install", "is_active"]

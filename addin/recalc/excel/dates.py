"""YEARFRAC as Excel computes it (the day counts of each basis, with Excel's rules
for the end of February and for actual/actual spans).

* basis 0 (US 30/360): a start on the last day of February counts as the 30th, and so
  does an end on the last day of February when the start is one too; an end on the
  31st counts as the 30th when the start is the 30th or 31st; a start on the 31st as
  the 30th (``YEARFRAC(DATE(2023,2,28),DATE(2024,2,29),0)`` is 1);
* basis 1 (actual/actual): a span of at most a year is divided by 366 when a 29
  February lies within it (or the span lies in a leap year), else by 365; a longer span
  by the average length of the calendar years it touches;
* basis 2 actual/360, 3 actual/365, 4 European 30/360 (the 31st counts as the 30th);
* the basis is read first: its error, #VALUE! for text or a logical value, #NUM! for a
  number outside 0-4, whatever the dates are; a date beyond 31 December 9999 is #NUM!
  (Excel's saved values in pycel's yearfrac.xlsx).

The dates are truncated to whole days and may come in either order; TRUE/FALSE is
#VALUE!, and serial 0 is Excel's 0 January 1900 (``YEARFRAC(0,4382,1)`` is 12). These rules
reproduce Excel's values held in PhpSpreadsheet's test data
(tests/data/Calculation/DateTime/YEARFRAC.php), which tests/test_excel_rules.py checks.

WORKDAY and WORKDAY.INTL (:func:`workday_intl`) count whole working days from a start
date that may itself be a weekend day or a holiday: ``WORKDAY(DATE(2013,6,9),123)``, a
Sunday, is 41605 (Excel's saved value in SheetJS's formula_stress_test.xlsx
Date!B26), the first working day after the start being day 1 (day -1 before it), and 0
days the start itself; an empty weekend argument is weekend 1, Saturday and Sunday
(``WORKDAY.INTL(F44,24,,G44:G47)`` 41745 in ClosedXML's functions-excel-2010.xlsx, where
13 and "0101010" from the Tuesday 11 March 2014 give 41740 and 41754). formulas asked
numpy to move from the start without saying which way to leave a day off, so such a
start was #VALUE! and an empty weekend #NUM!.
"""
from __future__ import annotations

import calendar
import datetime
import math

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from .coercion import to_number
from .parse import serial_date
from .values import XL, is_left_out

_EMPTY = sh.EMPTY
_EPOCH = datetime.date(1899, 12, 30)


def _last_of_february(y, m, d) -> bool:
    return m == 2 and d == (29 if calendar.isleap(y) or y == 1900 else 28)


def _feb29_within(s1, s2, ymd1, ymd2) -> bool:
    for y in range(ymd1[0], ymd2[0] + 1):
        if calendar.isleap(y):
            feb29 = (datetime.date(y, 2, 29) - _EPOCH).days
            if s1 <= feb29 <= s2:
                return True
    return False


#: 31 December 9999, Excel's last date
LAST_SERIAL = 2958465


def yearfrac(start, end, basis=0):
    # the basis is read first: its error, or #VALUE!/#NUM! for a bad basis, is the
    # answer whatever the dates are (Excel's saved values in pycel's yearfrac.xlsx)
    if isinstance(basis, (bool, np.bool_)):
        return XL["#VALUE!"]  # a logical value is not a basis here
    b = to_number(basis)
    if isinstance(b, XlError):
        return b
    if b is None:
        return XL["#VALUE!"]
    b = math.floor(0.0 if b is _EMPTY else b)
    if b not in (0, 1, 2, 3, 4):
        return XL["#NUM!"]
    if any(isinstance(v, (bool, np.bool_)) for v in (start, end)):
        return XL["#VALUE!"]  # a logical value is not a date here
    values = [to_number(v) for v in (start, end)]
    for v in values:
        if isinstance(v, XlError):
            return v
    if any(v is None for v in values):
        return XL["#VALUE!"]
    s1, s2 = (0.0 if v is _EMPTY else v for v in values)
    s1, s2 = math.floor(s1), math.floor(s2)
    if not (0 <= s1 <= LAST_SERIAL and 0 <= s2 <= LAST_SERIAL):
        return XL["#NUM!"]
    if s1 > s2:
        s1, s2 = s2, s1
    (y1, m1, d1), (y2, m2, d2) = serial_date(s1), serial_date(s2)
    days = s2 - s1
    if b == 2:
        return days / 360.0
    if b == 3:
        return days / 365.0
    if b == 1:
        within = y1 == y2 or y2 == y1 + 1 and (m1 > m2 or m1 == m2 and d1 >= d2)
        if within:
            leap = (y1 == y2 and calendar.isleap(y1)) or \
                _feb29_within(s1, s2, (y1, m1, d1), (y2, m2, d2)) or (m2 == 2 and d2 == 29)
            return days / (366.0 if leap else 365.0)
        span = (datetime.date(y2 + 1, 1, 1) - datetime.date(y1, 1, 1)).days
        return days / (span / (y2 - y1 + 1))
    if b == 0:
        if _last_of_february(y1, m1, d1):
            if _last_of_february(y2, m2, d2):
                d2 = 30
            d1 = 30
        if d2 == 31 and d1 >= 30:
            d2 = 30
        if d1 == 31:
            d1 = 30
    else:
        d1, d2 = min(d1, 30), min(d2, 30)
    return ((y2 - y1) * 360 + (m2 - m1) * 30 + (d2 - d1)) / 360.0


def time_of_day(hour: float, minute: float, second: float):
    """TIME(hour, minute, second) of whole numbers: the fraction of a day of the total
    seconds, ``(h*3600 + m*60 + s) / 86400`` less its whole days; #NUM! for a negative
    total or an argument above 32767 (Microsoft's TIME page). Excel divides the total
    seconds once: ``TIME(32767,-1,67)`` is 0.29174768518510064 (formulas' test.xlsx 'DATE
    & TIME'!R19); formulas' h/24 + m/1440 + s/86400 gave 0.291747685185328."""
    if max(hour, minute, second) > 32767:
        return XL["#NUM!"]
    total = (hour * 3600 + minute * 60 + second) / 86400
    if total < 0:
        return XL["#NUM!"]
    return total - math.floor(total)


def workday_intl(start_date, days, weekend=1, holidays=()):
    """WORKDAY.INTL(start_date, days, [weekend], [holidays]) as Excel counts it, on the
    arguments formulas' ``args_xworkday_intl`` parses (``holidays`` a tuple of dates):
    ``days`` truncated toward zero; 0 is the start itself; from a start that is a day
    off, the first working day after it (before it, for negative ``days``) is day 1."""
    import formulas.functions.date as date
    from formulas.functions import raise_errors
    raise_errors(start_date)
    start = datetime.date(*date.xday(start_date, slice(0, 3)))
    raise_errors(days)
    count = int(date._convert2float(days))  # truncated toward zero
    mask = _weekmask(weekend)
    if isinstance(mask, XlError):
        return mask
    if count == 0:
        return date.xdate(start.year, start.month, start.day)
    try:
        day = np.busday_offset(start, count, roll="backward" if count > 0 else "forward",
                               weekmask=mask, holidays=list(holidays)).astype("O")
    except ValueError:  # every day a day off ("1111111")
        return XL["#VALUE!"]
    return date.xdate(day.year, day.month, day.day)


_WEEKEND_CODES = {1: "1111100", 2: "0111110", 3: "0011111", 4: "1001111", 5: "1100111",
                  6: "1110011", 7: "1111001", 11: "1111110", 12: "0111111",
                  13: "1011111", 14: "1101111", 15: "1110111", 16: "1111011",
                  17: "1111101"}


def _weekmask(weekend):
    """numpy's week mask (1 = working day, Monday first) of WORKDAY.INTL's ``weekend``:
    a code (1-7 two days, 11-17 one day; #NUM! otherwise) or seven characters 0/1 with
    1 a day off (#VALUE! otherwise), as Microsoft's WORKDAY.INTL page lists them."""
    if isinstance(weekend, XlError):
        return weekend
    if isinstance(weekend, (bool, np.bool_)):
        return XL["#VALUE!"]
    if isinstance(weekend, str):
        if len(weekend) == 7 and set(weekend) <= {"0", "1"}:
            return "".join("1" if ch == "0" else "0" for ch in weekend)
        return XL["#VALUE!"]
    try:
        return _WEEKEND_CODES[int(weekend)]
    except (KeyError, TypeError, ValueError):
        return XL["#NUM!"]


def install(table, put) -> None:
    import formulas.functions.date as date
    from formulas.functions import wrap_ufunc
    put(table, "YEARFRAC", _scalar_args(yearfrac))

    def workday_arguments(start_date, days, weekend=1, holidays=(), true_err=False):
        # a weekend left out is weekend 1: formulas' parser would make it 0 (#NUM!)
        one = weekend.ravel()[0] if isinstance(weekend, np.ndarray) and \
            weekend.size == 1 else weekend
        return date.args_xworkday_intl(start_date, days, 1 if is_left_out(one) else weekend,
                                       holidays, true_err)
    table["WORKDAY.INTL"] = table["_XLFN.WORKDAY.INTL"] = wrap_ufunc(
        workday_intl, input_parser=lambda *a: a, check_error=lambda *a: None,
        args_parser=workday_arguments, excluded={3})
    table["WORKDAY"] = wrap_ufunc(
        workday_intl, input_parser=lambda *a: a, check_error=lambda *a: None,
        args_parser=lambda start_date, days, hdays=(): workday_arguments(
            start_date, days, 1, hdays, True), excluded={3})

    def datedif(start, end, unit):
        """formulas' DATEDIF with its unit read in any case, as Excel reads it
        (``DATEDIF(DATE(2024,1,1),DATE(2024,1,10),"d")`` is 9): formulas compared "D"
        before upper-casing the unit, so "d" was #NUM!."""
        unit = unit.upper() if isinstance(unit, str) else unit
        if unit == "MD":
            return datedif_md(int(start), int(end))
        return date.xdatedif(start, end, unit)
    import functools
    for n, name in enumerate(("HOUR", "MINUTE", "SECOND")):
        table[name] = wrap_ufunc(functools.partial(clock_part, n=n),
                                 input_parser=lambda *a: a)
    table["DAYS360"] = table["_XLFN.DAYS360"] = wrap_ufunc(
        days360, input_parser=lambda *a: a, check_error=lambda *a: None)
    table["DATEDIF"] = wrap_ufunc(datedif, input_parser=lambda *a: date.text2num(a))
    date.xtime = time_of_day  # formulas' TIMEVALUE calls it by this name
    table["TIME"] = wrap_ufunc(
        time_of_day, input_parser=lambda *a: map(lambda v: math.floor(float(v)), a))


def days360(start_date, end_date, method=False):
    """DAYS360(start_date, end_date, [method]) with the US method's end of February: a
    start on the last day of February counts as the 30th before the end's 31st is
    looked at, so ``DAYS360("2000-2-29","2000-3-31")`` is 30 (Excel's value in
    PhpSpreadsheet's tests/data/Calculation/DateTime/DAYS360.php; LibreOffice agrees)
    while a start on 28 February 2000 gives 33; formulas made the start the 30th only
    after the end had been kept at 31, and answered 31. The European method (``method``
    TRUE) counts each 31st as the 30th."""
    import formulas.functions.date as date
    from formulas.functions import raise_errors
    raise_errors(start_date)
    y1, m1, d1 = date.xday(start_date, slice(0, 3))
    raise_errors(end_date)
    y2, m2, d2 = date.xday(end_date, slice(0, 3))
    raise_errors(method)
    if date._convert2float(method):
        d1, d2 = min(d1, 30), min(d2, 30)
    else:
        if d1 == 31 or _last_of_february(y1, m1, d1):
            d1 = 30
        if d2 == 31 and d1 == 30:
            d2 = 30
    return 360 * (y2 - y1) + 30 * (m2 - m1) + (d2 - d1)


def clock_part(serial_number, n: int):
    """HOUR (``n`` 0), MINUTE (1) or SECOND (2) of a serial number, its time of day
    rounded to the nearest whole second first, so the three always make one clock
    reading within 0-23, 0-59 and 0-59 (Microsoft's SECOND page: "an integer in the
    range 0 (zero) to 59"), the reading TEXT(x,"hh:mm:ss") shows: 59.6 seconds after
    midnight is 0:01:00, MINUTE 1 and SECOND 0. formulas floored the hours and minutes
    but rounded the seconds, and answered SECOND 60 beside MINUTE 0. A text is read as
    formulas reads it; a negative number is #NUM!."""
    import formulas.functions.date as date
    from formulas.functions import FoundError
    try:
        x = float(serial_number)
    except ValueError:
        try:
            return date._text2datetime(serial_number)[3 + n]
        except FoundError as ex:
            return ex.err
    if x < 0:
        return XL["#NUM!"]
    total = math.floor((x - math.floor(x)) * 86400 + 0.5) % 86400
    return (total // 3600, total // 60 % 60, total % 60)[n]


def datedif_md(start: int, end: int):
    """DATEDIF(start, end, "MD") of whole serials: the end's day less the start's when it
    is not smaller, else the end's day plus the days of the month before the end's
    month less the start's day -- which is negative or short when that month is
    shorter than the start's day, as Microsoft's DATEDIF page warns ("The "MD"
    argument may result in a negative number, a zero, or an inaccurate result"):
    ``DATEDIF("2007-1-31","2007-3-1","MD")`` is -2 and ``DATEDIF("2007-12-25",
    "2010-3-17","MD")`` 20 (Excel's values in PhpSpreadsheet's
    tests/data/Calculation/DateTime/DATEDIF.php; LibreOffice agrees). formulas stepped
    the start a month on and answered 1 and 22."""
    import formulas.functions.date as date
    if start > end:
        return XL["#NUM!"]
    s, e = date._int2date(start), date._int2date(end)
    if e[2] >= s[2]:
        return e[2] - s[2]
    days_before = date._int2date(date.xdate(e[0], e[1], 1) - 1)[2]
    return e[2] + days_before - s[2]


def _scalar_args(func):
    """``func`` of single values, element by element over ranges and arrays
    (:func:`~.values.elementwise`): Excel's YEARFRAC over ranges gives an array (a
    legacy cell then intersects it: ``YEARFRAC(C27:D27,E27:F27,D27:E27)`` in a column
    outside C:F is #VALUE!, formulas' test.xlsx 'DATE & TIME'!AG27; formulas took each
    range's first value)."""
    from .values import elementwise
    return elementwise(func)

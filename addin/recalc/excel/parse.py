"""Text read as a number, as Excel (en-US) reads it: ``VALUE``, ``DATEVALUE``,
``TIMEVALUE``, and every place a text is coerced to a number (``"1"+1``, ``SUM("1")``).

Excel accepts (Microsoft's VALUE documentation: "text can be in any of the constant
number, date, or time formats recognized by Microsoft Excel"):

* a number with an optional sign, ``$``, thousands separators in groups of three
  (``"1,234"`` is 1234, never a date), a decimal point, an exponent, a trailing ``%``,
  or parentheses for a negative (``"(5)"`` is -5);
* a date: ``2024-01-05``, ``1/5/2024``, ``1/5/24``, ``5-Jan-2024``, ``5 January 2024``,
  ``January 5, 2024``, ``Jan-2024``: the serial number of the 1900 date system. A day
  that does not exist (``2024-02-30``) is not a date (#VALUE!). A date without a year
  (``"1/5"``), which Excel reads in the current year, is refused here: a result must
  not depend on the day the workbook is recalculated;
* a time: ``12:00``, ``12:00:30.5``, ``3 PM``, ``3:30 am``: the fraction of a day, with
  no date added (``VALUE("12:00")`` is 0.5 on every day); hours may pass 24
  (``"25:00"`` is 1.0417) when no AM/PM is given; the last field may reach 9999
  (``"0:59:99"``, ``"23:99"`` below 24 hours, ``"59:9999.0"`` minutes and seconds;
  not ``"24:99"`` nor ``"23:60:99"``: pycel's text.xlsx, saved by Excel);
* a date followed by a time.

VALUE, DATEVALUE and TIMEVALUE (:data:`FUNCTIONS`) read text so: ``VALUE("1,234")`` is
1234, ``DATEVALUE("2024-02-30")`` #VALUE!, ``VALUE("12:00")`` 0.5 on every day;
VALUE(TRUE) is #VALUE!, DATEVALUE and TIMEVALUE take text only.

Every other place formulas reads text as a number or a date -- DAY, MONTH, YEAR, HOUR,
MINUTE, SECOND, EDATE, EOMONTH, NETWORKDAYS, the financial and statistical functions --
goes through its ``_text2num`` and ``_text2datetime``; :func:`install` puts
:func:`text_to_number` and :func:`text_to_datetime` in their place, so
``MONTH("2024-02-30")`` is #VALUE! (was 2), ``YEAR("1,234")`` 1903 (was 234) and no
result takes the current year from the clock.

Two-digit years: 00-29 are 2000-2029, 30-99 are 1930-1999 (Excel's cut-off). Serial
numbers follow Excel's 1900 system, with its 29 February 1900 (serial 60).
"""
from __future__ import annotations

import datetime
import re
import sys

import numpy as np
import schedula as sh
from formulas.tokens.operand import XlError

from .values import XL, each, is_collection, single

_NUMBER = re.compile(r"""
    (?P<sign>[+-]?)\s*(?P<cur>\$?)\s*
    (?P<int>\d{1,3}(?:,\d{3})+|\d*)(?P<frac>\.\d*)?
    (?:[eE](?P<exp>[+-]?\d+))?\s*(?P<pct>%?)$""", re.X)
_MONTHS = {m: k for k, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    start=1)}
_MONTH = r"(?P<mon>[A-Za-z]{3,9})"
_DATES = [re.compile(p, re.I) for p in (
    r"(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})(?!\d)",          # 2024-01-05, 2024/1/5
    r"(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4}|\d{2})(?!\d)",          # 1/5/2024
    r"(?P<m>\d{1,2})-(?P<d>\d{1,2})-(?P<y>\d{4}|\d{2})(?!\d)",          # 1-5-2024
    r"(?P<d>\d{1,2})[- ]" + _MONTH + r"[- ,]+(?P<y>\d{4}|\d{2})(?!\d)",  # 5-Jan-2024
    _MONTH + r"[- ](?P<d>\d{1,2}),?[- ]+(?P<y>\d{4})(?!\d)",       # January 5, 2024
    _MONTH + r"[- ](?P<y>\d{4})(?!\d)",                                   # Jan-2024
)]
_TIME = re.compile(r"""(?P<h>\d{1,4})(?::(?P<mi>\d{1,4})(?::(?P<s>\d{1,4}(?:\.\d*)?))?)?
    (?P<point>\.\d*)?\s*(?P<ampm>[AaPp][Mm])?$""", re.X)
_EPOCH = datetime.date(1899, 12, 30)


def number_from_text(text: str) -> float | None:
    """``text`` as the number Excel reads in it (a plain number, a date or a time), or
    None when Excel would answer #VALUE!. [serial days for a date or time]"""
    s = text.strip()
    if not s:
        return None
    value = _plain_number(s)
    if value is not None:
        return value
    return date_time(s)


def _plain_number(s: str) -> float | None:
    negative = s.startswith("(") and s.endswith(")")
    if negative:
        s = s[1:-1].strip()
    m = _NUMBER.match(s)
    if m is None or not (m["int"] or m["frac"] and len(m["frac"]) > 1):
        return None
    if negative and m["sign"]:
        return None
    digits = m["int"].replace(",", "") + (m["frac"] or "")
    value = float(digits + (f"e{m['exp']}" if m["exp"] else ""))
    if m["pct"]:
        value /= 100.0
    if m["sign"] == "-" or negative:
        value = -value
    return value


def date_time(s: str) -> float | None:
    """A date, a time, or a date then a time -> serial days; None if not one."""
    date, rest = _date_prefix(s)
    if date is None:
        return _time(s)
    if not rest:
        return float(date)
    t = _time(rest)
    return None if t is None else date + t


def date_part(s: str) -> float | None:
    """DATEVALUE: the date's serial number, the time ignored; None if no date."""
    date, rest = _date_prefix(s.strip())
    if date is None or rest and _time(rest) is None:
        return None
    return float(date)


def time_part(s: str) -> float | None:
    """TIMEVALUE: the time's fraction of a day, the date ignored; None if neither.
    With a date, Excel takes the fraction of the whole serial number, date plus time,
    so the date's digits cost the time its last ones: ``TIMEVALUE("1/1/1987 05:00
    AM")`` is 0.20833333333212067, not 5/24 (Excel's value in formulas' test.xlsx
    'DATE & TIME'!X20)."""
    s = s.strip()
    date, rest = _date_prefix(s)
    if date is not None:
        if not rest:
            return 0.0
        t = _time(rest)
        if t is None:
            return None
        serial = date + t
        return serial - float(int(serial))
    t = _time(s)
    return None if t is None else t % 1.0


def _date_prefix(s: str):
    for pattern in _DATES:
        m = pattern.match(s)
        if m is None:
            continue
        rest = s[m.end():]
        if rest and not rest[0].isspace():
            continue
        serial = _serial(m.groupdict())
        if serial is not None:
            return serial, rest.strip()
    return None, s


def _serial(g: dict) -> int | None:
    if g.get("mon") is not None:
        month = _MONTHS.get(g["mon"][:3].lower())
        full = g["mon"].lower()
        if month is None or len(full) > 3 and not _full_month(full, month):
            return None
    else:
        month = int(g["m"])
    day = int(g["d"]) if g.get("d") else 1
    year = int(g["y"])
    if len(g["y"]) == 2:
        year += 2000 if year < 30 else 1900
    if year == 1900 and month == 2 and day == 29:
        return 60  # Excel's 29 February 1900
    try:
        date = datetime.date(year, month, day)
    except ValueError:
        return None
    if not 1900 <= year <= 9999:
        return None
    serial = (date - _EPOCH).days
    return serial - 1 if serial <= 60 else serial


def _full_month(name: str, month: int) -> bool:
    return datetime.date(2000, month, 1).strftime("%B").lower() == name or \
        name in ("sept",) and month == 9


def serial_date(serial: int) -> tuple[int, int, int]:
    """(year, month, day) of a whole serial number in Excel's 1900 system: 0 is
    0 January 1900, 60 Excel's 29 February 1900."""
    if serial == 0:
        return 1900, 1, 0
    if serial == 60:
        return 1900, 2, 29
    d = _EPOCH + datetime.timedelta(days=serial + (1 if serial < 60 else 0))
    return d.year, d.month, d.day


def _time(s: str) -> float | None:
    m = _TIME.match(s.strip())
    if m is None or m["mi"] is None and m["ampm"] is None:
        return None
    h, mi = int(m["h"]), int(m["mi"] or 0)
    sec = float(m["s"] or 0)
    point = m["point"]
    if point and (m["s"] is not None or m["mi"] is None):
        return None
    if m["ampm"]:
        if point or mi >= 60 or sec >= 60 or not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if m["ampm"].lower() == "pm" else 0)
    elif point and point != ".":  # "23:59.0123" is minutes and seconds
        if h >= 60:
            return None
        h, mi, sec = 0, h, mi + float("0" + point)
    elif m["s"] is not None:  # the last field may reach 9999: "0:59:99"
        if mi >= 60:
            return None
    elif h > 9999 or mi >= 60 and h >= 24:  # "25:00", "23:99"; not "24:99"
        return None
    return (h * 3600 + mi * 60 + sec) / 86400.0


def value(text):
    """VALUE: a number stays, text is read as a number, date or time, TRUE is #VALUE!."""
    if is_collection(text):
        return each(value, text)
    v = single(text)
    if isinstance(v, XlError):
        return v
    if v is sh.EMPTY:
        return 0.0
    if isinstance(v, (bool, np.bool_)):
        return XL["#VALUE!"]
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    x = number_from_text(v)
    return XL["#VALUE!"] if x is None else x


def _of_text(read):
    def call(text):
        if is_collection(text):
            return each(call, text)
        v = single(text)
        if isinstance(v, XlError):
            return v
        if not isinstance(v, str) or v is sh.EMPTY:
            return XL["#VALUE!"]
        x = read(v)
        return XL["#VALUE!"] if x is None else x
    return call


datevalue = _of_text(date_part)
timevalue = _of_text(time_part)


FUNCTIONS = {"VALUE": value, "DATEVALUE": datevalue, "TIMEVALUE": timevalue}


def text_to_number(value):
    """formulas' ``_text2num``: a text read as a number, date or time; any other value,
    or a text that is none of these, unchanged."""
    if isinstance(value, np.ndarray) and not value.shape:
        value = value.tolist()
    if isinstance(value, str) and not isinstance(value, XlError) and value is not sh.EMPTY:
        x = number_from_text(value)
        return value if x is None else x
    return value


def text_to_datetime(text) -> tuple:
    """formulas' ``_text2datetime``: (year, month, day, hour, minute, second) of a text
    read as Excel reads it; AssertionError (formulas' "not a date") when it is not one."""
    x = number_from_text(str(text))
    assert x is not None and x >= 0, "not a date"
    day = int(x)
    seconds = int(round((x - day) * 86400))
    if seconds == 86400:
        day, seconds = day + 1, 0
    y, m, d = serial_date(day)
    return y, m, d, seconds // 3600, seconds // 60 % 60, seconds % 60


def install(table, put) -> None:
    import formulas.functions as functions
    import formulas.functions.date as date
    for name, func in FUNCTIONS.items():
        put(table, name, func)
    date._text2datetime = text_to_datetime
    functions._text2num = text_to_number
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("formulas.functions.") and \
                hasattr(module, "_text2num"):
            module._text2num = text_to_number
    functions._text2num_vectorize.cache_clear()

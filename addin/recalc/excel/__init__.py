"""Excel's rules where the ``formulas`` package answers otherwise, owned here, one
module per concern, each module's docstring citing what Excel does:

* :mod:`.values` -- an argument as formulas hands it over (reference, array, value);
* :mod:`.parse` -- text read as a number, date or time (VALUE, DATEVALUE, TIMEVALUE and
  every coercion of text to a number);
* :mod:`.coercion` -- a reference or array gives only its numbers to SUM, COUNT,
  AVERAGE, MAX, ...; a direct value is coerced; ISNUMBER and N;
* :mod:`.criteria` -- the cells COUNTIF, SUMIF, AVERAGEIF, MAXIFS ... pick;
* :mod:`.numbers` -- 15 significant digits in comparisons, ROUND, FLOOR, CEILING;
  the arithmetic operators' coercion of text; 0^0; RANDBETWEEN;
* :mod:`.text` -- numbers as text (Excel's General format), CHAR/CODE in
  Windows-1252 (Mac Roman in a workbook saved by Excel for Mac), TRIM, TEXTJOIN;
* :mod:`.textformat` -- TEXT's sections, General, date, time and elapsed-time formats;
  :mod:`.numberformat` its numbers, scientific notation and fractions;
* :mod:`.lookup` -- approximate MATCH/LOOKUP/VLOOKUP/HLOOKUP by binary search; SWITCH;
  AREAS;
* :mod:`.dates` -- YEARFRAC's bases;
* :mod:`.arrays` -- WRAPROWS/WRAPCOLS pad with a real #N/A, not the text;
* :mod:`.engineering` -- DEC2BIN, HEX2DEC, ... and their #NUM!/#VALUE! cases;
* :mod:`.regression` -- LINEST, LOGEST, TREND, GROWTH: Excel's QR fit, collinear
  columns removed, const left out TRUE, the statistics in Excel's layout;
* :mod:`.groupby` -- GROUPBY and PIVOTBY (their common forms);
* :mod:`.sequences` -- SEQUENCE, RANDARRAY and HYPERLINK, which formulas lacks;
* :mod:`.database` -- DSUM, DCOUNT, DGET and the other database functions;
* :mod:`.depreciation` -- VDB, the variable declining balance;
* :mod:`.lacking` -- COMBIN, COMBINA, QUOTIENT, SERIESSUM, BASE, DOLLAR;
* :mod:`.subtotals` -- SUBTOTAL and AGGREGATE (hidden and filtered rows, nested
  subtotals, AGGREGATE's options and array form);
* :mod:`.moments` -- SKEW and SKEW.P in Excel's order of operations; MODE, MODE.SNGL,
  MODE.MULT;
* :mod:`.trig` -- SIN, COS, TAN near their zeros: the x87's pi of Excel's reduction;
* :mod:`.unknown` -- why a call of a function the engine does not know is not computed:
  an Excel function it lacks, or the workbook's own VBA or add-in function.

:func:`install` puts them in formulas' function table (called once by
:func:`~zvmplan_addin.recalc.install.install_functions`; calling it again changes
nothing).
"""
from __future__ import annotations

from formulas.functions import wrap_func

from . import (arrays, coercion, criteria, database, dates, depreciation, engineering,
               groupby, lacking, lookup, moments, numbers, parse, regression, sequences,
               subtotals, text, textformat, toolpak, trig, values)


def put(table, name: str, func) -> None:
    """``table[name] = func`` as formulas calls it: references given as ``Ranges``, and
    an exception inside becomes #VALUE!."""
    wrapped = wrap_func(func, ranges=True)
    wrapped._zvm_excel = True
    table[name] = wrapped


def install(table, left_out=None) -> None:
    """Excel's rules into formulas' function table ``table`` (idempotent);
    ``left_out``: what the engine hands a function for an argument left empty."""
    if left_out is not None and not any(left_out is x for x in values.LEFT_OUT):
        values.LEFT_OUT.append(left_out)
    if getattr(table.get("ISNUMBER"), "_zvm_excel", False):
        return
    for module in (coercion, criteria, numbers, text, parse, lookup, dates, arrays,
                   engineering, textformat, regression, groupby, sequences, database,
                   lacking, subtotals, depreciation, moments, trig, toolpak):
        module.install(table, put)

"""Why a formula calling a function the engine does not know was not computed, named
so a person can tell an Excel function the engine lacks from a workbook's own function.

Excel's own functions are the names of ECMA-376 Part 1, 18.17.7 ("Predefined Function
Definitions", the functions of Excel 2007; openpyxl's ``FORMULAE`` lists them) and every
function added since, which Excel writes with the prefix ``_xlfn.`` (or ``_xlws.``) in
the file (Microsoft, "Issue: An _xlfn. prefix is displayed in front of a formula"). Any
other name called in a formula is a *user-defined function*: a VBA ``Function`` of the
workbook's macros (``xl/vbaProject.bin`` of an .xlsm) or of an add-in. Excel runs that
code; the engine does not run VBA, so such a cell is never computed here, whatever value
the code would give (e.g. ``SROUND`` of Apache POI's ``stress002.xlsx``, ``NumFmt`` and
``Dofmt`` of SheetJS's ``number_format.xlsm``: VBA functions of those workbooks).
"""
from __future__ import annotations

import re

from openpyxl.utils.formulas import FORMULAE

#: the prefixes Excel writes before a function newer than Excel 2007
NEW_FUNCTION_PREFIXES = ("_XLFN.", "_XLWS.")
#: Excel's functions outside ECMA-376's list: ``_FV(cell, "field")``, a field of a linked
#: data type (``=A9.High``, Stocks and Geography; Excel writes it so in the file)
OTHER_EXCEL_FUNCTIONS = frozenset({"_FV", "USDOLLAR"})


def excel_function(name: str) -> bool:
    """Is ``name`` (any case, with or without ``_xlfn.``) one of Excel's own functions?"""
    upper = name.upper()
    return upper.startswith(NEW_FUNCTION_PREFIXES) or upper in FORMULAE or \
        upper in OTHER_EXCEL_FUNCTIONS


def called(name: str, formula: str) -> bool:
    """Does ``formula`` call ``name`` (``NAME(``), rather than refer to a defined name?"""
    return re.search(r"(?<![A-Za-z0-9_.])" + re.escape(name) + r"\s*\(", formula,
                     re.IGNORECASE) is not None


def three_d(name: str, formula: str) -> bool:
    """Is ``name`` the first sheet of a 3-D reference (``Sheet1:Sheet3!C1``) in
    ``formula``? formulas reads that sheet name as an unknown name."""
    return re.search(r"(?<![A-Za-z0-9_.])'?" + re.escape(name) + r"'?:'?[^!:()]+'?!",
                     formula, re.IGNORECASE) is not None


def not_computed_reason(names, formula: str = "", vba: bool = False) -> str:
    """The reason a cell whose ``formula`` uses ``names`` the engine does not know is not
    computed; ``vba``: the workbook carries VBA macros (``xl/vbaProject.bin``).

    >>> not_computed_reason({"SROUND"}, "SROUND(C17)", vba=True)
    'a VBA function of the workbook, which the engine does not run: SROUND'
    >>> not_computed_reason({"CUBEVALUE"}, "CUBEVALUE(A1)")
    'not implemented by the engine: CUBEVALUE'
    >>> not_computed_reason({"SHEET1"}, "COUNTA(Sheet1:Sheet3!C1)")
    'a 3-D reference across sheets, which the engine does not read: SHEET1:...'
    >>> not_computed_reason({"SHEET1:..."})
    'a 3-D reference across sheets, which the engine does not read: SHEET1:...'
    """
    builtin, user, other, sheets = [], [], [], []
    for name in sorted(map(str, names)):
        if name.endswith(":..."):  # marked by the compile stage
            sheets.append(name[:-4])
        elif formula and three_d(name, formula):
            sheets.append(name)
        elif excel_function(name):
            builtin.append(name)
        elif not formula or called(name, formula):
            user.append(name)
        else:
            other.append(name)
    parts = []
    if builtin:
        parts.append("not implemented by the engine: " + ", ".join(builtin))
    if user:
        what = "a VBA function of the workbook" if vba else \
            "not an Excel function: a VBA or add-in function"
        parts.append(f"{what}, which the engine does not run: " + ", ".join(user))
    if other:
        parts.append("unknown name: " + ", ".join(other))
    if sheets:
        parts.append("a 3-D reference across sheets, which the engine does not read: "
                     + ", ".join(sheets) + ":...")
    return "; ".join(parts)

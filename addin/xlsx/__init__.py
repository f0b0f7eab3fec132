"""The xlsx package layer shared by the calculator and the workbook builder.

Read in this order:

* :mod:`.package` -- open a file safely: bounded inflation of every part, DTDs refused in
  any part, the package kind from its content types;
* :mod:`.xml` -- the defused, linear-time expat parser every XML part goes through;
* :mod:`.sheet` -- read cells, formulas, shared strings and defined names;
* :mod:`.rewrite` -- splice cached values into a sheet's original bytes, adjust
  ``<calcPr>``;
* :mod:`.output` -- write a file safely (regular files only, atomic, signal-safe);
* :mod:`.zipwrite` -- the two writers: a recalculated copy, a reproducible build.

Refusals are :class:`UnsafeWorkbookError` with a one-line message.
"""
from .cells import a1, col_letters, col_number, parse_a1, parse_area
from .errors import UnsafeWorkbookError
from .output import OutputError, atomic_output, remove_stale_temps, target_of
from .package import (MAX_ENTRIES, MAX_FILE_BYTES, MAX_PART_BYTES, MAX_RATIO, MAX_TOTAL_BYTES,
                      MemoryPackage, XlsxPackage, check_output_name, open_parts,
                      safe_open_xlsx)
from .rewrite import (CellUpdate, CellValues, encode_value, rewrite_sheet,
                      rewrite_sheet_blocks, rewrite_workbook)
from .sheet import (DefinedName, FormulaCell, SheetData, Workbook, XlError, decode_xml,
                    read_shared_strings, read_sheet, read_workbook)
from .zipwrite import drop_calc_chain, write_package, write_zip
from . import fastsheet as _fastsheet, sheet as _sheet

_sheet.FAST_READER = _fastsheet.read_fast   # read_sheet tries it first (see there)

__all__ = ["safe_open_xlsx", "open_parts", "MemoryPackage", "XlsxPackage", "UnsafeWorkbookError", "OutputError",
           "read_workbook", "read_sheet", "read_shared_strings", "Workbook", "SheetData",
           "FormulaCell", "DefinedName", "XlError", "decode_xml", "CellUpdate",
           "encode_value", "rewrite_sheet", "rewrite_sheet_blocks", "CellValues",
           "rewrite_workbook", "write_package", "write_zip",
           "drop_calc_chain", "atomic_output", "target_of", "remove_stale_temps",
           "check_output_name", "a1", "col_letters", "col_number", "parse_a1", "parse_area",
           "MAX_FILE_BYTES", "MAX_ENTRIES", "MAX_PART_BYTES", "MAX_TOTAL_BYTES", "MAX_RATIO"]

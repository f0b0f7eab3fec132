"""Excel's *legacy* evaluation of a formula stored as a plain ``<f>`` (or a shared one):
how Excel before dynamic arrays -- and Excel 365 for such a formula, which it shows with
``@`` where that matters -- reads a range where one value is expected, and what one cell
shows of an array result.

Implicit intersection (:func:`intersected_inputs`). A range is read as its one cell in
the formula's row (a column range) or column (a row range), ``#VALUE!`` beside it, when
it is given

* to an operator (``=B:B*2`` in C5 reads B5; ``=A1:A5&"x"``), also inside a function that
  evaluates its arguments as single values (``SUM(A1:A5*1)`` in row 4 is 4:
  :data:`VALUE_CONTEXT`);
* to a function's *value* parameter (``=ABS(K9:N9)`` in N96 is ``ABS(N9)``,
  ``=ATAN2(I167:I169,I11:K11)`` in J168 is ``ATAN2(I168,J11)``): the parameter classes of
  :data:`PARAMETERS`;
* as the value ``IF`` or ``CHOOSE`` returns (they return the reference itself), where
  that value is the formula's result or an operator's operand
  (``=IF(A1>1,B1:B3,0)`` in P2 reads B2);
* as the whole formula (``=A1:A5`` in row 3 shows A3);
* as the reference INDEX, OFFSET or INDIRECT gives, in those same places
  (:func:`intersected_results`): ``=INDEX(B1:B8,0)`` in C3 shows B3 and
  ``=OFFSET(B1,0,0,8,1)+1`` in C3 is B3+1, ``#VALUE!`` in row 20; given to SUM they stay
  whole. The reference is made only as the formula runs, so it is cut there, at the
  cell being evaluated (:func:`reading_at`).

A function's argument that Excel evaluates as an array (SUMPRODUCT's, MMULT's, and
under the functions this module does not know: INDEX's, MATCH's, ...) is left whole,
and so is everything inside it.

An array result (:func:`array_result`): a legacy formula in one cell shows the top-left
element of an array it computes (``={1,2;1,2}`` shows 1, ``=COLUMN(B11:D11)`` 2,
``=MMULT(C1:D2,E1:F2)`` the product's first element, ``=ISNA({1,2,3})`` FALSE): only a
dynamic-array formula spills. Where a range reached a function whose parameters this
module does not know, Excel may have intersected it where the engine did not: that
result is ``#VALUE!`` with the reason, never a plausible first element.

Excel's values: Apache POI's ``FormulaEvalTestData_Copy.xlsx`` (EverythingTests, saved
by Excel: ``ABS(K9:N9)`` in N96 is 345, ``COLUMN(B11:D11)`` in G252 is 2), SheetJS's
``ErrorTypes.xlsx`` (``=ERROR.TYPE({1,2,3})`` is #N/A), formulas' ``test.xlsx``
(``CORE!K6 ={1,2;1,2}`` is 1), koala's ``basic.xlsx`` (``=IF(A1>1,B1:B3,0)``).
"""
from __future__ import annotations

import contextvars
import functools

import numpy as np

from formulas.ranges import Ranges
from formulas.tokens.operand import XlError

from ..prefixes import bare_name
from .during import during
from .excel.values import ReferenceValues, is_number
from .program import COPY_SUFFIX, NotStraight
from .shapes import rect_of
from .values import XL

# formulas' operators: a reference they read in a legacy formula is implicitly intersected
OPERATORS = frozenset(("+", "-", "*", "/", "^", "&", "=", "<>", "<", ">", "<=", ">=", "u-",
                       "u+", "%"))
# functions that evaluate their arguments as single values in a legacy formula, so an
# operator on a range inside them is implicitly intersected (SUM(A1:A5*1) in row 4 is 4)
VALUE_CONTEXT = frozenset((
    "SUM", "AVERAGE", "MIN", "MAX", "COUNT", "COUNTA", "PRODUCT", "AND", "OR", "NOT", "IF",
    "IFERROR", "IFNA", "ABS", "ROUND", "ROUNDUP", "ROUNDDOWN", "INT", "TRUNC", "SQRT", "EXP",
    "LN", "LOG", "LOG10", "MOD", "POWER", "SIGN", "TEXT", "LEN", "LEFT", "RIGHT", "MID",
    "UPPER", "LOWER", "TRIM", "VALUE", "CONCATENATE", "ISNUMBER", "ISTEXT", "ISBLANK",
    "ISERROR", "ISERR", "ISNA", "ISLOGICAL", "N", "T", "DATE", "YEAR", "MONTH", "DAY"))


def intersection(rect, row: int, col: int):
    """Excel's implicit intersection of ``rect`` with the cell (``row``, ``col``) that
    reads it: a column gives its cell in that row, a row its cell in that column, a
    block the cell at both; None (#VALUE! in Excel) when the cell is beside it."""
    sheet, r1, c1, r2, c2 = rect
    if r1 == r2 and c1 == c2:
        return rect
    if r1 != r2:
        if not r1 <= row <= r2:
            return None
        r1 = r2 = row
    if c1 != c2:
        if not c1 <= col <= c2:
            return None
        c1 = c2 = col
    return (sheet, r1, c1, r2, c2)


def _classes(table: str) -> dict[str, str]:
    return dict(item.split(":") for item in table.split())


# Each function's parameter classes, in order, the last one repeated for further
# arguments: V a value (a reference given is implicitly intersected), R a reference
# (kept whole), A an array (kept whole, and so is everything inside the argument).
# The functions of Excel's file format (BIFF) with a value parameter, as Apache POI's
# functionMetadata.txt lists them (it took them from OpenOffice's documentation of
# the Excel file format, excelfileformat.odt); then functions Excel added later whose
# every parameter is one number, date or text on Microsoft's pages, and the dynamic-array
# functions (an array and single values; SORTBY's later sort orders read as arrays).
PARAMETERS = _classes("""
ABS:V ACOS:V ACOSH:V ADDRESS:VVVVV ASC:V ASIN:V ASINH:V ATAN:V ATAN2:VV ATANH:V
BETADIST:VVVVV BETAINV:VVVVV BINOMDIST:VVVV CEILING:VV CELL:VR CHAR:V CHIDIST:VV
CHIINV:VV CHOOSE:VR CLEAN:V CODE:V COMBIN:VV CONCATENATE:V CONFIDENCE:VVV COS:V COSH:V
COUNTIF:RV CRITBINOM:VVV DATE:VVV DATEDIF:VVV DATEVALUE:V DAY:V DAYS360:VVV DB:VVVVV
DBCS:V DDB:VVVVV DEGREES:V DOLLAR:VV EVEN:V EXACT:VV EXP:V EXPONDIST:VVV FACT:V
FDIST:VVV FIND:VVV FINDB:VVV FINV:VVV FISHER:V FISHERINV:V FIXED:VVV FLOOR:VV
FORECAST:VAA FV:VVVVV GAMMADIST:VVVV GAMMAINV:VVV GAMMALN:V GETPIVOTDATA:VR
GROWTH:RRRV HLOOKUP:VRRV HOUR:V HYPERLINK:VV HYPGEOMDIST:VVVV IF:VRR INDEX:RVVV
INDIRECT:VV INFO:V INT:V IPMT:VVVVVV IRR:AV ISBLANK:V ISERR:V ISERROR:V ISLOGICAL:V
ISNA:V ISNONTEXT:V ISNUMBER:V ISPMT:VVVV ISTEXT:V JIS:V LARGE:RV LEFT:VV LEFTB:VV
LEN:V LENB:V LINEST:RRVV LN:V LOG:VV LOG10:V LOGEST:RRVV LOGINV:VVV LOGNORMDIST:VVV
LOOKUP:VRR LOWER:V MATCH:VRR MID:VVV MIDB:VVV MINUTE:V MIRR:AVV MOD:VV MONTH:V
NEGBINOMDIST:VVV NORMDIST:VVVV NORMINV:VVV NORMSDIST:V NORMSINV:V NOT:V NPER:VVVVV
NPV:VR ODD:V OFFSET:RVVVV PERCENTILE:RV PERCENTRANK:RVV PERMUT:VV PMT:VVVVV
POISSON:VVV POWER:VV PPMT:VVVVVV PROB:AAVV PROPER:V PV:VVVVV QUARTILE:RV RADIANS:V
RANK:VRV RATE:VVVVVV REPLACE:VVVV REPLACEB:VVVV REPT:VV RIGHT:VV RIGHTB:VV ROMAN:VV
ROUND:VV ROUNDDOWN:VV ROUNDUP:VV SEARCH:VVV SEARCHB:VVV SECOND:V SIGN:V SIN:V SINH:V
SLN:VVV SMALL:RV SQRT:V STANDARDIZE:VVV SUBSTITUTE:VVVV SUBTOTAL:VR SUMIF:RVR SYD:VVVV
TAN:V TANH:V TDIST:VVV TEXT:VV TIME:VVV TIMEVALUE:V TINV:VV TREND:RRRV TRIM:V
TRIMMEAN:RV TRUNC:VV TTEST:AAVV TYPE:V UPPER:V USDOLLAR:VV VALUE:V VDB:VVVVVVV
VLOOKUP:VRRV WEEKDAY:VV WEIBULL:VVVV YEAR:V ZTEST:RVV
SUMPRODUCT:A MMULT:AA MINVERSE:A MDETERM:A TRANSPOSE:A FREQUENCY:RR ROWS:A COLUMNS:A
ROW:R COLUMN:R AREAS:R ISREF:R
IFERROR:VV IFNA:VV EDATE:VV EOMONTH:VV MROUND:VV QUOTIENT:VV ISEVEN:V ISODD:V YEARFRAC:VVV
WEEKNUM:VV ISOWEEKNUM:V DAYS:VV SEC:V SECH:V CSC:V CSCH:V COT:V COTH:V ACOT:V ACOTH:V
UNICHAR:V UNICODE:V ARABIC:V BASE:VVV DECIMAL:VV FLOOR.MATH:VVV CEILING.MATH:VVV
FLOOR.PRECISE:VV CEILING.PRECISE:VV ISO.CEILING:VV BIN2DEC:V BIN2HEX:VV BIN2OCT:VV
DEC2BIN:VV DEC2HEX:VV DEC2OCT:VV HEX2BIN:VV HEX2DEC:V HEX2OCT:VV OCT2BIN:VV OCT2DEC:V
OCT2HEX:VV SQRTPI:V FACTDOUBLE:V ERF:VV ERFC:V ERF.PRECISE:V ERFC.PRECISE:V GAMMA:V
GAMMALN.PRECISE:V PHI:V GAUSS:V NORM.DIST:VVVV NORM.S.DIST:VV NORM.INV:VVV NORM.S.INV:V
T.DIST:VVV T.DIST.2T:VV T.DIST.RT:VV T.INV:VV T.INV.2T:VV CHISQ.DIST:VVV
CHISQ.DIST.RT:VV CHISQ.INV:VV CHISQ.INV.RT:VV F.DIST:VVVV F.DIST.RT:VVV F.INV:VVV
F.INV.RT:VVV BINOM.DIST:VVVV BINOM.INV:VVV EXPON.DIST:VVV GAMMA.DIST:VVVV GAMMA.INV:VVV
LOGNORM.DIST:VVVV LOGNORM.INV:VVV POISSON.DIST:VVV WEIBULL.DIST:VVVV BETA.DIST:VVVVVV
BETA.INV:VVVVV NEGBINOM.DIST:VVVV HYPGEOM.DIST:VVVVV CONFIDENCE.NORM:VVV
CONFIDENCE.T:VVV PERMUTATIONA:VV COMBINA:VV BITAND:VV BITOR:VV BITXOR:VV BITLSHIFT:VV
BITRSHIFT:VV EFFECT:VV NOMINAL:VV DOLLARDE:VV DOLLARFR:VV RRI:VVV PDURATION:VVV
SORT:AVVV SORTBY:AAV FILTER:AAV UNIQUE:AVV XLOOKUP:VAAVVV XMATCH:VAVV TAKE:AVV DROP:AVV
CHOOSECOLS:AV CHOOSEROWS:AV VSTACK:A HSTACK:A TOCOL:AVV TOROW:AVV WRAPROWS:AVV
WRAPCOLS:AVV EXPAND:AVVV SEQUENCE:VVVV RANDARRAY:VVVVV
""")
# the parameters through which IF and CHOOSE return the reference they are given
_RETURNED = {"IF": (1, 2), "CHOOSE": None}  # None: every parameter after the first


def _bare(function: str) -> str:
    """``function`` without its prefixes, all of them (``_xlfn._xlws.SORT``: SORT)."""
    bare = bare_name(function, builtin=True)
    while bare != function:
        function, bare = bare, bare_name(bare, builtin=True)
    return bare


def parameter_class(function: str, k: int) -> str | None:
    """The class (V, R or A) of parameter ``k`` (from 0) of ``function`` (formulas' node
    name: upper case, maybe ``_xlfn.``-prefixed), or None for a function not known."""
    classes = PARAMETERS.get(_bare(function))
    if classes is None:
        return None
    return classes[min(k, len(classes) - 1)]


def _name(node) -> str | None:
    return COPY_SUFFIX.sub("", node) if isinstance(node, str) else None


def _positions(dsp, function, data) -> list[int]:
    """The parameters (from 0) through which ``function`` reads ``data``; the extra
    inputs formulas gives some functions first (the cell, ``Run``: schedula tokens, not
    plain str) are no parameter."""
    inputs = [x for x in dsp.nodes[function].get("inputs", ()) if type(x) is str]
    return [k for k, x in enumerate(inputs) if x == data]


def value_context(pipe, node, depth: int = 0, memo: dict | None = None) -> bool:
    """Does everything that reads function ``node``'s result, up to the formula's result,
    evaluate it as a single value -- operators, the :data:`VALUE_CONTEXT` functions and
    value parameters, through the range operator ``:`` (``INDEX(r,1,A16:G16-1):B4``)?
    An argument Excel evaluates as an array (SUMPRODUCT's, INDEX's, MATCH's ...) works
    on the whole range, also in a legacy formula; only what is known to take values is
    followed, anything else keeps the whole range. ``memo``: (node, depth) -> the answer,
    for one ``pipe`` (its inputs read through one function ask it once)."""
    if depth > 64:
        return False
    if memo is not None:
        got = memo.get((node, depth))
        if got is None:
            got = memo[(node, depth)] = _value_context(pipe, node, depth, memo)
        return got
    return _value_context(pipe, node, depth, None)


def _value_context(pipe, node, depth: int, memo: dict | None) -> bool:
    succ, dsp = pipe.dsp.dmap.succ, pipe.dsp
    for data in succ.get(node, ()):
        for reader in succ.get(data, ()):
            name = _name(reader)
            if name is None:
                return False
            if name not in OPERATORS and name != ":" and _bare(name) not in VALUE_CONTEXT \
                    and not all(parameter_class(name, k) == "V"
                                for k in _positions(dsp, reader, data)):
                return False
            if not value_context(pipe, reader, depth + 1, memo):
                return False
    return True


def _returned_through(name: str, positions: list) -> bool:
    """Does IF or CHOOSE ``name`` return what it reads at ``positions``?"""
    bare = _bare(name)
    if bare not in _RETURNED or not positions:
        return False
    returned = _RETURNED[bare]
    return all(k in returned if returned else k >= 1 for k in positions)


def _read_as_one_value(pipe, node, memo: dict | None = None, depth: int = 0) -> bool:
    """Is function ``node``'s result the formula's result, or read only by operators and
    value parameters (themselves in a value context), also through IF and CHOOSE
    returning it (``=IF(A1,INDEX(B1:B8,0),0)``)? A reference IF, CHOOSE, INDEX, OFFSET or
    INDIRECT returns is then implicitly intersected; given to SUM it stays whole."""
    if depth > 64:
        return False
    succ, dsp = pipe.dsp.dmap.succ, pipe.dsp
    for data in succ.get(node, ()):
        for reader in succ.get(data, ()):
            name = _name(reader)
            if name is None:
                return False
            positions = _positions(dsp, reader, data)
            if _returned_through(name, positions):
                if not _read_as_one_value(pipe, reader, memo, depth + 1):
                    return False
                continue
            if name not in OPERATORS and not all(
                    parameter_class(name, k) == "V" for k in positions):
                return False
            if not value_context(pipe, reader, 0, memo):
                return False
    return True


def _intersects(pipe, reader, key, memo: dict | None = None) -> bool:
    """Does function ``reader`` read input ``key`` as one value in a legacy formula?"""
    name = _name(reader)
    if name is None:
        return False
    if name in OPERATORS:
        return value_context(pipe, reader, 0, memo)
    positions = _positions(pipe.dsp, reader, key)
    if _returned_through(name, positions):
        return _read_as_one_value(pipe, reader, memo)
    return bool(positions) and all(parameter_class(name, k) == "V" for k in positions) \
        and value_context(pipe, reader, 0, memo)


# functions whose result is a reference made as the formula runs
REFERENCE_RESULTS = frozenset(("INDEX", "OFFSET", "INDIRECT"))
# (row, column, ranges(rect) -> its value as formulas passes a reference) of the legacy
# formula cell being evaluated; WHOLE for an array formula, a dynamic-array formula or a
# defined name; None for a column of cells run at once (.columnar)
_CELL: contextvars.ContextVar = contextvars.ContextVar("zvmplan_legacy_cell", default=None)
WHOLE = "whole"


def reading_at(row: int, col: int, ranges):
    """While the block runs, a reference INDEX, OFFSET or INDIRECT gives where the legacy
    formula of the cell at (``row``, ``col``) reads one value is cut to its one cell there;
    ``ranges(rect)`` gives that cell's value as formulas passes a reference."""
    return during(_CELL, (row, col, ranges))


def keeping_whole():
    """While the block runs, such a reference stays whole (a formula that is not legacy)."""
    return during(_CELL, WHOLE)


def intersected_results(pipe) -> frozenset:
    """The function nodes of ``pipe`` -- INDEX, OFFSET, INDIRECT -- whose reference a
    legacy formula reads as one value (see the module's docstring)."""
    memo: dict = {}
    return frozenset(
        node for node, attrs in pipe.dsp.nodes.items()
        if attrs.get("type") == "function" and _name(node) is not None
        and _bare(_name(node)) in REFERENCE_RESULTS
        and _read_as_one_value(pipe, node, memo))


def cut_results(pipe, nodes: frozenset) -> None:
    """Make each function node of ``nodes`` give its reference cut to the evaluated
    legacy cell's row or column (:func:`one_cell_of`); marked ``_zvm_per_cell``, so it is
    never computed once for several cells."""
    for node in nodes:
        attrs = pipe.dsp.nodes[node]
        func = attrs["function"]
        if getattr(func, "_zvm_per_cell", False):
            continue

        def cut(*args, _func=func):
            return one_cell_of(_func(*args))
        functools.update_wrapper(cut, func)
        cut._zvm_per_cell = True
        attrs["function"] = cut


def may_give_several_cells(positions) -> bool:
    """Could INDEX with these ``positions`` (its arguments after the range: values, or
    columns of them) give a reference of several cells, cut only cell by cell? Yes
    unless each is a number >= 1 or an error (0, an empty cell, text or TRUE/FALSE
    may read as a whole row or column)."""
    for pos in positions:
        if isinstance(pos, Ranges):
            pos = pos.value
        for x in np.asarray(pos, dtype=object).ravel().tolist():
            if isinstance(x, XlError):
                continue
            if not is_number(x) or not x >= 1:
                return True
    return False


def one_cell_of(result):
    """A reference ``result`` as the legacy cell being evaluated reads it: its one cell in
    that cell's row (a column) or column (a row), #VALUE! beside it or for a reference of
    several areas; anything else, or a formula that is not legacy, unchanged. Run for a
    column of cells at once, a reference of several cells raises
    :class:`~.program.NotStraight`: the column is then evaluated cell by cell."""
    cell = _CELL.get()
    if cell is WHOLE:
        return result
    if isinstance(result, ReferenceValues) and "rect" in result.__dict__:
        rect = result.rect
    elif not isinstance(result, Ranges) or not result.ranges:
        return result
    elif len(result.ranges) != 1:
        return XL["#VALUE!"]
    else:
        rect = rect_of(result.ranges[0])
    if rect[1] == rect[3] and rect[2] == rect[4]:
        return result
    if cell is None:  # cells run as one column: each cell is cut alone (columns.py)
        raise NotStraight("a reference of several cells read as one value")
    row, col, ranges = cell
    cut = intersection(rect, row, col)
    return XL["#VALUE!"] if cut is None else ranges(cut)


def intersected_inputs(pipe) -> frozenset:
    """The positions of ``pipe``'s inputs that a legacy formula reads through implicit
    intersection (see the module's docstring), and the formula's result when it is a
    reference itself (``=A1:A5``)."""
    succ = pipe.dsp.dmap.succ
    out = set()
    memo: dict = {}
    for k, key in enumerate(pipe.inputs):
        readers = succ.get(key, ())
        if readers and all(_intersects(pipe, f, key, memo) for f in readers):
            out.add(k)
        elif not readers and key in pipe.outputs:
            out.add(k)
    return frozenset(out)


def unknown_readers(pipe) -> dict:
    """Input position -> the function not known to this module that reads it directly
    (whose parameter classes :data:`PARAMETERS` lacks): if such an input is a range of
    more than one cell and the legacy formula's result is an array, Excel may have
    intersected the range where the engine did not (:func:`array_result`)."""
    succ = pipe.dsp.dmap.succ
    out = {}
    for k, key in enumerate(pipe.inputs):
        for reader in succ.get(key, ()):
            name = _name(reader)
            if name is None or name in OPERATORS:
                continue
            bare = _bare(name)
            if bare not in PARAMETERS and bare not in VALUE_CONTEXT:
                out[k] = bare
                break
    return out

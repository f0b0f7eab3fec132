"""What formulas' parser makes of a formula, in a form compared with ``==``: used by
``test_fastparse.py`` and ``test_pipeorder.py`` to compare
:class:`~zvmplan_addin.recalc.fastparse.FastParser` and the order of
:mod:`~zvmplan_addin.recalc.pipeorder` with formulas' and schedula's own."""
from __future__ import annotations

import functools
import glob
import os
import re

import numpy as np
import schedula as sh
from formulas.builder import AstBuilder
from formulas.ranges import Ranges
from formulas.tokens import Token

CORPUS = "/work/corpus"


def describe(obj, _seen=None):
    """``obj`` (tokens, a builder, its graph, their attributes) as nested tuples of plain
    values: classes by identity, functions by code object, tokens and builders by
    content; an object met again is named by its first visit's number."""
    seen = {} if _seen is None else _seen
    if isinstance(obj, (str, int, float, bool, type(None), type)):
        return (type(obj), obj)
    key = id(obj)
    if key in seen:
        return ("again", seen[key][0])
    seen[key] = (len(seen), obj)  # obj kept: a temporary's id is not reused meanwhile
    d = functools.partial(describe, _seen=seen)
    if isinstance(obj, Token):
        return ("token", type(obj), obj.source, getattr(obj, "end_match", None),
                d(obj.attr), d({k: v for k, v in vars(obj).items()
                                if k not in ("attr", "source", "end_match")}))
    if isinstance(obj, AstBuilder):
        return ("builder", d(obj.match), d(list(obj._deque)),
                d(list(obj.nodes.items())), len(obj.missing_operands), d(obj.dsp))
    if isinstance(obj, sh.Dispatcher):
        succ = obj.dmap.succ
        return ("dsp", d(list(obj.nodes.items())),
                d([(u, list(succ[u].items())) for u in succ]),
                d(list(obj.default_values.items())))
    if isinstance(obj, dict):
        return ("dict", type(obj), tuple((d(k), d(v)) for k, v in obj.items()))
    if isinstance(obj, (list, tuple)):
        return ("seq", type(obj), tuple(d(x) for x in obj))
    if isinstance(obj, (set, frozenset)):
        return ("set", type(obj), len(obj))
    if isinstance(obj, functools.partial):
        return ("partial", type(obj), d(obj.func), d(obj.args), d(obj.keywords))
    if isinstance(obj, Ranges):
        return ("ranges", repr(obj))
    if isinstance(obj, np.ndarray):
        return ("array", obj.shape, str(obj.dtype), repr(obj.tolist()))
    code = getattr(obj, "__code__", None)
    if code is not None:
        return ("function", code, d(getattr(obj, "__defaults__", None)))
    if isinstance(obj, sh.utils.dsp.SubDispatch):
        return ("pipe", type(obj), d(obj.dsp), d(getattr(obj, "inputs", None)),
                d(getattr(obj, "outputs", None)))
    if callable(obj) or isinstance(obj, sh.Token):
        return ("object", obj)   # formulas' functions, schedula's tokens: the very object
    return ("other", type(obj), repr(obj))


def outcome(parser_class, expression: str, context):
    """(``"ok"``, tokens, builder) as :func:`describe` gives them, or (``"raised"``, the
    exception's class, its arguments) for what ``parser_class(True).ast`` makes of
    ``expression`` in ``context``."""
    try:
        tokens, builder = parser_class(True).ast(expression, context=dict(context or {}))
    except Exception as exc:  # the same refusal is part of being the same parser
        return ("raised", type(exc), describe(exc.args))
    seen: dict = {}
    return ("ok", describe(tokens, seen), describe(builder, seen))


def skeleton(text: str, digits_only: bool = False) -> str:
    """A formula with its texts, cell references and numbers blanked (only its digits if
    ``digits_only``): formulas that differ only there are read the same way."""
    if not digits_only:
        text = re.sub(r'"[^"]*"', '""', text)
        text = re.sub(r"\$?\b[A-Za-z]{1,3}\$?\d+\b", "A0", text)
    return re.sub(r"\d+", "0", text)


def workbook_formulas(path: str) -> list:
    """(``=text``, context) of each cell formula and defined name of the workbook at
    ``path``, one per :func:`skeleton` of its digits, as the compile stage hands them to
    the parser."""
    from zvmplan_addin import xlsx
    out, keys = [], set()
    with xlsx.safe_open_xlsx(path, parse_sheets=False) as pkg:
        book = xlsx.read_workbook(pkg)
    for sheet in book.sheets:
        for (r, c), cell in sorted(sheet.formulas.items()):
            key = skeleton(cell.text, digits_only=True)
            if key not in keys:
                keys.add(key)
                out.append(("=" + cell.text, {"sheet": sheet.name.upper(), "cr": str(r),
                                              "cc": c}))
    for name in book.names:
        if name.text and skeleton(name.text, digits_only=True) not in keys:
            keys.add(skeleton(name.text, digits_only=True))
            out.append(("=" + name.text, {"sheet": "", "cr": "1", "cc": 1}))
    return out


@functools.lru_cache(maxsize=2)   # read once for both test files of a run
def corpus_formulas(every: bool = False) -> list:
    """(``=text``, context) of the corpus's formulas (:data:`CORPUS`, Excel-saved
    workbooks from other projects' test suites): one per :func:`skeleton` across the
    corpus, or each distinct text if ``every``. [] without the corpus. The list is
    shared: copy it before changing it."""
    from zvmplan_addin import xlsx
    files = sorted(p for p in glob.glob(os.path.join(CORPUS, "**", "*"), recursive=True)
                   if p.lower().endswith((".xlsx", ".xlsm", ".xltx", ".xltm")))
    out, keys = [], set()
    for path in files:
        try:
            with xlsx.safe_open_xlsx(path, parse_sheets=False) as pkg:
                book = xlsx.read_workbook(pkg)
        except Exception:  # a workbook the reader refuses has no formulas to parse
            continue
        texts = [(s.name.upper(), r, c, cell.text) for s in book.sheets
                 for (r, c), cell in sorted(s.formulas.items())]
        texts += [("", 1, 1, n.text) for n in book.names if n.text]
        for sheet, r, c, text in texts:
            key = text if every else skeleton(text)
            if key not in keys:
                keys.add(key)
                out.append(("=" + text, {"sheet": sheet, "cr": str(r), "cc": c}))
    return out

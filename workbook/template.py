"""``zvmplan template -o FILE [--for excel|lite]``: the template workbook, from the
installed package (no checkout needed: it is package data of ``zvmplan_workbook``).

``--for excel`` (the default) copies the template as built: its formulas call the
functions by their names (``=CPCPU_PER_MB(...)``), as the classic xlwings add-in and
``zvmplan calc`` provide them.

``--for lite`` is the same workbook for **xlwings Lite**. Lite's functions are Office.js
custom functions in the ``ZVMPLAN`` namespace (``=ZVMPLAN.CPCPU_PER_MB(...)``); opened
in Lite, the plain template shows its cached values until Excel recalculates, then
``#NAME?`` in every computed cell and the red "zvmplan functions unavailable" warning.
This variant calls them as Excel stores a namespaced custom function in the file,
``_xldudf_ZVMPLAN_CPCPU_PER_MB(...)`` (see docs/functions.md), which Lite computes and
``zvmplan calc`` reads too. Only function calls outside text are renamed (the text
``"CPCPU_PER_MB"`` given to ``ZVM_RANGE``/``ZVM_BASIS`` names a function and stays).
The About sheet's examples, text cells holding a formula to type (``=CPCPU_PER_MB(...)``),
are spelt as a Lite user types them (``=ZVMPLAN.CPCPU_PER_MB(...)``), and its install
steps are Lite's (``notes.toml``'s ``install_lite``, :func:`~.about.lite_prose`); cached
values and every other byte are kept.

A file that exists is never overwritten unless ``--force`` is given.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path
from xml.sax.saxutils import escape, unescape

#: where the template lives inside the installed package
TEMPLATE_NAME = "zvmplan_template.xlsx"
TARGETS = ("excel", "lite")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def packaged_template() -> Path:
    """The template installed with :mod:`zvmplan_workbook` (a file on disk: setuptools
    installs package data as files, and the executable unpacks its data to a folder)."""
    from importlib.resources import files
    path = Path(str(files("zvmplan_workbook").joinpath(TEMPLATE_NAME)))
    if not path.is_file():  # pragma: no cover - a broken installation
        raise FileNotFoundError(f"{path}: the zvmplan template is not installed with the "
                                "package; reinstall zvmplan")
    return path


def lite_formula(text: str, names: set[str], namespace: str, typed: bool = False) -> str:
    """``text`` (a formula without ``=``) with every call of a function in ``names``
    renamed to its stored Lite form ``_xldudf_<namespace>_<NAME>`` (``typed``: to the
    form a user types and Excel shows, ``<namespace>.<NAME>``); text in double quotes and
    sheet names in single quotes are left as they are.

    >>> lite_formula('IF(A1="","",CPCPU_PER_MB("IUCV",9000)&"CPCPU_PER_MB(")', {"CPCPU_PER_MB"},
    ...              "ZVMPLAN")
    'IF(A1="","",_xldudf_ZVMPLAN_CPCPU_PER_MB("IUCV",9000)&"CPCPU_PER_MB(")'
    >>> lite_formula('ZVM_RANGE("CPCPU_PER_MB","IUCV")', {"ZVM_RANGE", "CPCPU_PER_MB"},
    ...              "ZVMPLAN", typed=True)
    'ZVMPLAN.ZVM_RANGE("CPCPU_PER_MB","IUCV")'
    """
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < n:
                if text[j] == ch:
                    if text[j + 1:j + 2] == ch:
                        j += 2
                        continue
                    break
                j += 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        m = _IDENT.match(text, i)
        if m is None:
            out.append(ch)
            i += 1
            continue
        word = m.group(0)
        if text[m.end():m.end() + 1] == "(" and word.upper() in names:
            word = (f"{namespace}.{word.upper()}" if typed else
                    f"_xldudf_{namespace}_{word.upper()}")
        out.append(word)
        i = m.end()
    return "".join(out)


def lite_sheet(data: bytes, name: str, names: set[str], namespace: str,
               prose: dict | None = None) -> bytes:
    """A worksheet part with every formula's calls renamed by :func:`lite_formula`, every
    inline text that is a formula to type (it starts with ``=``: the About sheet's
    examples) spelt as a Lite user types it, and every inline text that is a key of
    ``prose`` (the About sheet's install steps for classic xlwings) replaced by its
    value."""
    from zvmplan_addin.xlsx import xml as xmlparse
    out, pos = [], 0
    for kind, _, start, stop, tag in xmlparse.elements(data, name, {"f", "t"}):
        if tag.group(3):  # <f .../>: a shared formula's dependent, no text of its own
            continue
        inner = data[tag.end():data.rindex(b"</", start, stop)]
        text = unescape(inner.decode("utf-8"), {"&quot;": '"', "&apos;": "'"})
        if kind == "f":
            new = lite_formula(text, names, namespace)
        elif text.startswith("="):
            new = "=" + lite_formula(text[1:], names, namespace, typed=True)
        elif prose and text in prose:
            new = prose[text]
        else:
            continue
        if new != text:
            out += [data[pos:tag.end()], escape(new).encode("utf-8")]
            pos = tag.end() + len(inner)
    out.append(data[pos:])
    return b"".join(out)


def write_template(out, target: str = "excel", force: bool = False) -> Path:
    """Write the template for ``target`` (:data:`TARGETS`) to ``out``; returns the path.
    Raises FileExistsError if ``out`` exists and not ``force``."""
    import os
    import tempfile
    import zipfile
    from zvmplan_addin.xlsx import safe_open_xlsx
    if target not in TARGETS:
        raise ValueError(f"--for {target}: choose one of {', '.join(TARGETS)}")
    out = Path(out)
    if out.exists() and not force:
        raise FileExistsError(f"{out} exists; give --force to overwrite it")
    src = packaged_template()
    fd, tmp = tempfile.mkstemp(suffix=".xlsx", dir=out.parent if str(out.parent) else ".")
    os.close(fd)
    try:
        if target == "excel":
            Path(tmp).write_bytes(src.read_bytes())
        else:
            from zvmplan_addin.calls import load_functions
            from zvmplan_addin.registry import NAMESPACE
            from .about import lite_prose
            from .build import notes
            names, prose = set(load_functions()), lite_prose(notes())
            with safe_open_xlsx(src) as pkg:
                sheets = {t for _, rtype, t in pkg.rels(pkg.main)
                          if rtype.endswith("/worksheet")}
                with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
                    for part, info in pkg.infos.items():
                        data = pkg.read(part)
                        if part in sheets:
                            data = lite_sheet(data, part, names, NAMESPACE, prose)
                        zout.writestr(info, data)
        os.replace(tmp, out)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return out


# ---------------------------------------------------------------- command ----
def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", required=True, metavar="FILE.xlsx",
                   help="where to write the template")
    p.add_argument("--for", dest="target", choices=TARGETS, default="excel",
                   help="excel (default): the functions as the xlwings add-in and zvmplan "
                   "calc name them; lite: as xlwings Lite stores them (=ZVMPLAN.NAME)")
    p.add_argument("--force", action="store_true", help="overwrite FILE if it exists")


def run(args: argparse.Namespace) -> int:
    from zvmplan_addin.commands import UserError
    out = Path(args.output)
    if not out.parent.is_dir():
        raise UserError(f"{out.parent}: no such directory")
    try:
        path = write_template(out, args.target, args.force)
    except FileExistsError as exc:
        raise UserError(str(exc)) from None
    print(f"wrote {path} ({path.stat().st_size:,} bytes), the zvmplan template"
          + (" for xlwings Lite: load the functions with zvmplan export-lite" if
             args.target == "lite" else ""))
    return 0


def _register() -> None:
    try:
        from zvmplan_addin.commands import Command, register
    except ImportError:  # pragma: no cover - the command line is not installed
        return
    register(Command("template", "write the template workbook from the installed package "
                     "(--for lite: for xlwings Lite)", configure, run))


_register()

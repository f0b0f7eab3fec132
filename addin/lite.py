"""Export the worksheet functions for xlwings Lite: one self-contained ``main.py``.

xlwings Lite runs Python in the browser (Pyodide) and reads one ``main.py`` and one
``requirements.txt`` from the workbook; it cannot ``pip install`` this project. The
export therefore carries the project inside ``main.py``:

* the source of every module the worksheet functions need (``zvmplan`` and the three
  add-in modules ``registry``, ``errors``, ``functions``), found by following their
  imports, verbatim, so the Lite functions run the very code the headless engine runs;
* every file of ``zvmplan/data`` verbatim, provenance headers included;
* one ``@func``-decorated function per :data:`~zvmplan_addin.registry.REGISTRY` entry,
  with the registry's description as docstring and its argument help as ``@arg`` docs.
  Each body is one line: it hands the raw cell values to the registry entry.

At import, ``main.py`` writes the bundled package files to a private temporary folder
(Pyodide's in-memory file system in Lite), imports them from there and refuses to mix
with another copy of ``zvmplan``. Only the standard library, numpy and xlwings are
imported; the export checks that and fails if any other package creeps in.

How Lite differs from classic xlwings, and what the generated functions do about it:

* **Errors.** Lite's Office.js engine turns a returned text that is exactly an error code
  (``"#N/A"``, ``"#NUM!"``, ...) into a real error cell (``errorstr_to_errortype`` in
  ``xlwings/pro/_xlofficejs.py``), so the registry's results, converted as for classic
  xlwings, arrive as real ``#VALUE!``/``#NUM!``/``#N/A``. A raised exception would show
  as ``#VALUE!`` with the message in the error flag, but the registry never raises.
* **Error inputs.** Office.js passes an error cell as an error object, which xlwings
  turns into ``None`` unless the argument has ``err_to_str=True``. ``None`` means "left
  out", so an ``#N/A`` in an optional argument would silently give the default. Every
  argument is therefore declared with ``err_to_str=True``; the registry turns the codes
  back into :class:`~zvmplan_addin.errors.ExcelError` and passes them through.
* **Empty cells** arrive as ``None`` (xlwings declares every argument ``type: any``; an
  empty cell comes as ``""`` or JS ``null``, both cleaned to ``None``), not as ``0`` as
  they would for an Office.js ``number`` parameter, so no special case is needed.
* **Names.** Office.js puts custom functions in a namespace: the functions are
  ``=ZVMPLAN.CPCPU_PER_MB(...)`` in Lite (:data:`NAMESPACE`), stored in the file as
  ``_xldudf_ZVMPLAN_CPCPU_PER_MB``.

Command line: ``zvmplan export-lite OUTDIR`` (:mod:`zvmplan_addin.export_lite`), or
``python -m zvmplan_addin.lite OUTDIR``, or ``python build/export_lite.py OUTDIR``.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import sys
from pathlib import Path

from .registry import NAMESPACE, REGISTRY, WorksheetFunction  # NAMESPACE: =ZVMPLAN.X(...)

#: The modules the worksheet functions are built from; their imports are followed.
ROOT_MODULES = ("zvmplan_addin.functions",)
#: Packages whose modules are bundled into main.py.
BUNDLED_PACKAGES = ("zvmplan", "zvmplan_addin")
#: Third-party packages main.py may import (xlwings Lite provides them).
ALLOWED_THIRD_PARTY = ("numpy", "xlwings")
#: requirements.txt for xlwings Lite: numpy is a Pyodide package (do not pin it); xlwings
#: itself is installed from requirements.txt in Lite, with an upper bound as its docs advise.
REQUIREMENTS = ("xlwings<1.0.0", "numpy")


# --------------------------------------------------------------- collecting ----
def _module_file(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise RuntimeError(f"cannot find the source of {name} (origin {getattr(spec, 'origin', None)})"
                           "; the Lite export needs the .py files")
    return Path(spec.origin)


def _is_package(name: str) -> bool:
    return _module_file(name).name == "__init__.py"


def _imports(name: str, source: str) -> tuple[set[str], set[str]]:
    """(bundled modules, other top-level packages) imported anywhere in a module."""
    package = name if _is_package(name) else name.rpartition(".")[0]
    bundled, other = set(), set()

    def add(module: str, names=()):
        top = module.split(".")[0]
        if top not in BUNDLED_PACKAGES:
            other.add(top)
            return
        parts = module.split(".")
        for i in range(1, len(parts) + 1):  # the module and its parent packages
            bundled.add(".".join(parts[:i]))
        if names and _is_package(module):  # `from pkg import submodule`
            folder = _module_file(module).parent
            for n in names:
                if (folder / f"{n}.py").is_file() or (folder / n / "__init__.py").is_file():
                    bundled.add(f"{module}.{n}")

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            if module != "__future__":
                names = [a.name for a in node.names if a.name != "*"]
                add(module, names if module.split(".")[0] in BUNDLED_PACKAGES else ())
    return bundled, other


def collect_modules(roots=ROOT_MODULES) -> dict[str, str]:
    """Source of every bundled module reachable from ``roots``, by module name."""
    todo, sources, third_party = list(roots), {}, set()
    while todo:
        name = todo.pop()
        if name in sources:
            continue
        sources[name] = _module_file(name).read_text(encoding="utf-8")
        bundled, other = _imports(name, sources[name])
        third_party |= other
        todo.extend(sorted(bundled - set(sources)))
    stdlib = set(sys.stdlib_module_names)
    foreign = sorted(third_party - stdlib - set(ALLOWED_THIRD_PARTY))
    if foreign:
        raise RuntimeError("the worksheet functions import " + ", ".join(foreign) +
                           "; xlwings Lite gets only numpy and xlwings")
    return dict(sorted(sources.items()))


def collect_data() -> dict[str, str]:
    """Every file of zvmplan/data, by bundle path (``zvmplan/data/<file>``)."""
    folder = _module_file("zvmplan").parent / "data"
    return {f"zvmplan/data/{p.name}": p.read_text(encoding="utf-8")
            for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".")}


def _bundle_path(module: str) -> str:
    parts = module.split(".")
    return "/".join(parts) + ("/__init__.py" if _is_package(module) else ".py")


# --------------------------------------------------------------- rendering ----
def _literal(text: str) -> str:
    """A readable Python literal for ``text`` (raw triple-quoted where that round-trips)."""
    for quote in ('"""', "'''"):
        if quote not in text and not text.endswith(("\\", quote[0])):
            literal = f"r{quote}{text}{quote}"
            try:
                if ast.literal_eval(literal) == text:
                    return literal
            except (SyntaxError, ValueError):
                pass
    return repr(text)


def _arg_doc(p) -> str:
    # the same text the registry gives classic xlwings' @arg(doc=...)
    return p.help + (f" [{p.unit}]" if p.unit else "")


def _render_function(fn: WorksheetFunction) -> str:
    py_name = fn.impl.__name__
    params = ", ".join(f"{p.name}=None" if p.optional else p.name for p in fn.params)
    args = "".join(f", {p.name}" for p in fn.params)
    lite_example = fn.example.replace(f"={fn.name}(", f"={NAMESPACE}.{fn.name}(", 1)
    doc = f"{fn.description}. Example: {lite_example}"
    lines = ["@func(namespace=NAMESPACE)"]
    for p in fn.params:
        lines.append(f"@arg({p.name!r}, doc={_arg_doc(p)!r}, err_to_str=True)")
    lines += [f"def {py_name}({params}):",
              f"    {_literal(doc)}",
              f"    return _call({fn.name!r}{args})"]
    return "\n".join(lines)


_RUNTIME = '''
# ------------------------------------------------------------------ runtime ----
def _call(name, *args):
    """Evaluate one worksheet function from raw cell values; never raises. An error cell
    arrives as its code (err_to_str=True) and the registry passes it through."""
    return for_xlwings(REGISTRY[name](*args))


def _install(files):
    """Write the bundled packages to a private folder and import them from there."""
    import atexit
    import importlib
    import shutil
    import tempfile

    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("zvmplan", "zvmplan_addin"):
            origin = str(getattr(module, "__file__", "") or "")
            if "zvmplan-lite-" not in origin:
                raise ImportError(f"{name} is already imported from {origin or 'elsewhere'}; "
                                  "this main.py brings its own copy: run it in a fresh Python")
            del sys.modules[name]  # an earlier run of this main.py (Lite re-runs it)
    sys.path[:] = [p for p in sys.path if "zvmplan-lite-" not in p]
    root = Path(tempfile.mkdtemp(prefix="zvmplan-lite-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    functions = importlib.import_module("zvmplan_addin.functions")
    zvmplan = importlib.import_module("zvmplan")
    if root.resolve() not in Path(zvmplan.__file__).resolve().parents:
        raise ImportError(f"zvmplan was imported from {zvmplan.__file__}, not from the bundle")
    return functions
'''

_LOAD = '''
# ------------------------------------------------------------------ load ----
_install({**_SOURCES, **_DATA})
from zvmplan_addin.registry import REGISTRY, for_xlwings  # noqa: E402

_MISSING = sorted(set(EXCEL_NAMES) - set(REGISTRY))
if _MISSING:  # pragma: no cover - the export and the bundle come from one registry
    raise ImportError(f"bundle and functions disagree on {_MISSING}")
'''


def exported_functions(sources=None) -> dict[str, WorksheetFunction]:
    """The registry entries the export carries: those declared in a bundled module (not,
    say, a function a test or a plug-in registered at run time)."""
    import zvmplan_addin.functions  # noqa: F401 - fills the registry
    sources = collect_modules() if sources is None else sources
    return {name: fn for name, fn in REGISTRY.items() if fn.impl.__module__ in sources}


def render_main() -> str:
    """The text of main.py."""
    sources = collect_modules()
    registry = exported_functions(sources)
    data = collect_data()
    files = {_bundle_path(m): s for m, s in sources.items()}
    digest = hashlib.sha256()
    for rel, text in {**files, **data}.items():
        digest.update(rel.encode() + b"\0" + text.encode("utf-8") + b"\0")
    import zvmplan
    version = getattr(zvmplan, "__version__", None) or _dist_version()
    names = ", ".join(f"{NAMESPACE}.{n}" for n in registry)
    head = f'''"""zvmplan worksheet functions for xlwings Lite.

Generated by `zvmplan export-lite` from zvmplan {version} (bundle sha256
{digest.hexdigest()[:16]}). Do not edit: regenerate from the project.

Functions: {names}.

Each function hands the raw cell values to zvmplan's worksheet-function registry,
bundled below with the model and its data files (provenance headers included), and
returns a number, text, an array that spills, or a real Excel error (#VALUE! bad
argument, #NUM! out of range, #N/A no data). =ZVMPLAN.ZVM_BASIS("CPCPU_PER_MB",
"IUCV",9000) says what any answer rests on, or why it is an error.
"""
'''
    head = _wrap_doc(head)
    parts = [head,
             "import sys\nfrom pathlib import Path\n\n"
             "from xlwings import arg, func, ret  # noqa: F401 (ret: kept for Lite's template)\n",
             f"NAMESPACE = {NAMESPACE!r}\nEXCEL_NAMES = {list(registry)!r}\n",
             "\n# ---------------------------------------------------- worksheet functions ----"]
    for fn in registry.values():
        parts.append("\n" + _render_function(fn) + "\n")
    parts.append(_RUNTIME)
    parts.append("\n# ------------------------------------------- bundled sources (verbatim) ----")
    parts.append("_SOURCES = {\n" + "".join(f"    {rel!r}: {_literal(text)},\n"
                                            for rel, text in files.items()) + "}\n")
    parts.append("# ------------------------------------------ bundled data files (verbatim) ----")
    parts.append("_DATA = {\n" + "".join(f"    {rel!r}: {_literal(text)},\n"
                                         for rel, text in data.items()) + "}\n")
    parts.append(_LOAD)
    text = "\n".join(parts)
    compile(text, "main.py", "exec")  # fail here, not in Excel
    return text


def _wrap_doc(text: str) -> str:
    import textwrap
    out = []
    for line in text.splitlines():
        out.extend(textwrap.wrap(line, 92) or [""])
    return "\n".join(out) + "\n"


def _dist_version() -> str:
    try:
        from importlib.metadata import version
        return version("zvmplan")
    except Exception:  # pragma: no cover - not installed (e.g. a frozen binary)
        return "unknown"


def render_requirements() -> str:
    return ("# xlwings Lite requirements of the zvmplan export (generated; see main.py)\n" +
            "\n".join(REQUIREMENTS) + "\n")


def export_lite(outdir) -> dict[str, Path]:
    """Write ``main.py`` and ``requirements.txt`` for xlwings Lite into ``outdir``."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = {"main.py": out / "main.py", "requirements.txt": out / "requirements.txt"}
    written["main.py"].write_text(render_main(), encoding="utf-8")
    written["requirements.txt"].write_text(render_requirements(), encoding="utf-8")
    return written


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(
        prog="zvmplan export-lite",
        description="Write main.py and requirements.txt for xlwings Lite into OUTDIR.")
    parser.add_argument("outdir", help="folder to write into (created if missing)")
    args = parser.parse_args(argv)
    import zvmplan_addin.functions  # noqa: F401 - fills the registry
    for name, path in export_lite(args.outdir).items():
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    print(f"In Excel: open xlwings Lite, paste main.py and requirements.txt into its editor "
          f"tabs, then use ={NAMESPACE}.CPCPU_PER_MB(\"IUCV\",9000)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

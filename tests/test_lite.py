"""The xlwings Lite export: one self-contained main.py that behaves like the package.

The export is generated into a temporary folder and imported in a *clean* virtual
environment (numpy and xlwings only, installed with pip, no zvmplan, no openpyxl, no
formulas), as xlwings Lite would run it. A sample of calls (published points, projections,
ranges, each kind of error, errors given as input) must give the same answers there as
the installed package's registry gives here.

The venv costs a few seconds once per test session (``python -m venv`` + ``pip install
numpy xlwings``); set ``ZVMPLAN_TEST_VENV`` to an existing venv with those two packages to
reuse it. CI runs this test.
"""
from __future__ import annotations

import ast
import json
import math
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import zvmplan_addin.functions  # noqa: F401 - fills the registry
from zvmplan_addin.lite import (NAMESPACE, REQUIREMENTS, collect_data, export_lite,
                                exported_functions)
from zvmplan_addin.registry import REGISTRY, for_xlwings

# (Excel name, raw cell values as Lite delivers them). Ranges are lists of lists.
CALLS = [
    # published points, returned as printed (000 Table 2; 003 Table 2, z/VM 4.3.0)
    ("CPCPU_PER_MB", ["IUCV", 9000]),
    ("TX_PER_SEC", ["OSA_GBE", "CRR", 1492, 1, "4.3.0"]),
    ("MB_PER_SEC", ["CMS_IUCV", 1500]),
    ("MB_PER_CPUSEC", ["CMS_IUCV", 32764]),
    ("VCPU_PER_MB", ["VCTC", 32764]),
    ("TOTCPU_PER_MB", ["LCS", 1500, "4.1.0"]),
    ("CPCPU_PER_TX", ["OSA_GBE", "RR", 1492, 50, "4.4.0"]),
    ("VCPU_PER_TX", ["HIPERSOCKETS", "STRG", 57344, 20, "4.4.0"]),
    ("TOTCPU_PER_TX", ["GUEST_LAN", "CRR", 57344, 50, "4.3.0"]),
    # projections: between and beyond measured sizes, connections, levels, speed factor
    ("CPCPU_PER_MB", ["IUCV", 5000]),
    ("CPCPU_PER_MB", ["IUCV", 50000]),
    ("TOTCPU_PER_MB", ["CMS_IUCV", 3000, "4.4.0", 2]),
    ("TX_PER_SEC", ["HIPERSOCKETS", "RR", 12000, 7, "4.4.0"]),
    ("TX_PER_SEC", ["OSA_GBE", "RR", 1492, 80]),
    ("MB_PER_SEC", ["OSA_GBE", 8992, "4.4.0", None, 10]),
    # ranges spill; a bad cell in a range gives an error in that cell only
    ("CPCPU_PER_MB", ["IUCV", [[1500], [9000], [32764], [1e9], ["x"], [None]]]),
    ("TX_PER_SEC", ["OSA_GBE", "CRR", 1492, [[1, 10, 50]], "4.3.0"]),
    # aliases, text numbers, numeric levels, empty optional arguments
    ("CPCPU_PER_MB", ["linux_iucv", "9000", 3.1]),
    ("CPCPU_PER_MB", ["IUCV", 9000, None, None, None]),
    ("CPCPU_PER_MB", ["IUCV", 9000, ""]),
    # a skipped middle argument: Office.js passes null, xlwings None -> level left out
    ("CPCPU_PER_MB", ["IUCV", 9000, None, 2]),
    # text Excel's VALUE reads, and text it refuses (Python's float() would take it)
    ("CPCPU_PER_MB", ["IUCV", " 9e3 "]),
    ("CPCPU_PER_MB", ["IUCV", "9_000"]),
    ("CPCPU_PER_MB", ["IUCV", "\uff19\uff10\uff10\uff10"]),
    ("CPCPU_PER_MB", ["IUCV", "nan"]),
    # an overflowing result is #NUM!, not a float infinity
    ("MB_PER_SEC", ["IUCV", 9000, None, 1e308]),
    ("ZVM_BASIS", ["CPCPU_PER_MB", "IUCV", 9000, None, None, None, "x"]),
    # errors: #VALUE! bad argument, #NUM! out of range, #N/A no data
    ("CPCPU_PER_MB", ["NOPE", 9000]),
    ("CPCPU_PER_MB", ["IUCV", True]),
    ("CPCPU_PER_MB", [None, 9000]),
    ("CPCPU_PER_MB", ["IUCV", 1]),
    ("CPCPU_PER_MB", ["IUCV", 9000, None, -1]),
    ("CPCPU_PER_TX", ["IUCV", "RR", 1500, 1]),
    ("TX_PER_SEC", ["LCS", "FTP_GET", 1500, 1]),
    # an error given as input passes through, also in an optional argument
    ("CPCPU_PER_MB", ["IUCV", "#N/A"]),
    ("CPCPU_PER_MB", ["IUCV", 9000, "#N/A"]),
    ("TX_PER_SEC", ["OSA_GBE", "CRR", 1492, "#DIV/0!", "4.3.0"]),
    # explanation, discovery, confidence interval
    ("ZVM_BASIS", ["CPCPU_PER_MB", "IUCV", 9000]),
    ("ZVM_BASIS", ["CPCPU_PER_MB", "IUCV", 1]),
    ("ZVM_TRANSPORTS", []),
    ("ZVM_WORKLOADS", []),
    ("ZVM_LEVELS", []),
    ("ZVM_CI", ["LCS", "cp_cpusec_per_mb", "4.1.0"]),
]

RUNNER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import main
calls = json.load(sys.stdin)
out = []
for py_name, args in calls:
    out.append(getattr(main, py_name)(*args))
import zvmplan
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("openpyxl", "formulas", "schedula"))
print(json.dumps({"results": out, "zvmplan_file": zvmplan.__file__, "heavy": heavy,
                  "lite_names": [main.NAMESPACE + "." + n for n in main.EXCEL_NAMES]}))
"""


def _expected(name, args):
    """What the installed package's registry gives for the same raw cell values."""
    return json.loads(json.dumps(for_xlwings(REGISTRY[name](*args))))


def _same(got, want):
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(_same, got, want))
    if isinstance(want, float):
        return isinstance(got, float) and math.isclose(got, want, rel_tol=1e-12)
    return got == want


@pytest.fixture(scope="session")
def lite_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("lite")
    export_lite(out)
    return out


@pytest.fixture(scope="session")
def clean_python(tmp_path_factory):
    """A plain venv (no system site-packages) with only numpy and xlwings from pip."""
    reuse = os.environ.get("ZVMPLAN_TEST_VENV")
    if reuse:
        return Path(reuse) / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    where = tmp_path_factory.mktemp("lite-venv") / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-input",
                    "--disable-pip-version-check", "numpy", "xlwings"], check=True,
                   timeout=600)
    return python


def _main_tree(lite_dir):
    return ast.parse((lite_dir / "main.py").read_text(encoding="utf-8"))


def test_export_writes_main_and_requirements(lite_dir):
    assert (lite_dir / "requirements.txt").read_text().split("\n")[1:-1] == list(REQUIREMENTS)
    text = (lite_dir / "main.py").read_text(encoding="utf-8")
    assert "from xlwings import arg, func, ret" in text
    compile(text, "main.py", "exec")


def test_one_lite_function_per_registry_entry(lite_dir):
    """Excel name, description and argument help all come from the registry."""
    functions = {}
    for node in _main_tree(lite_dir).body:
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            functions[node.name.upper()] = node
    assert list(functions) == list(exported_functions())
    assert set(functions) >= {"CPCPU_PER_MB", "TX_PER_SEC", "ZVM_BASIS", "ZVM_TRANSPORTS"}
    for name, node in functions.items():
        fn = REGISTRY[name]
        decorators = [ast.unparse(d) for d in node.decorator_list]
        assert decorators[0] == "func(namespace=NAMESPACE)"
        docs = {d.args[0].value: {k.arg: k.value.value for k in d.keywords}
                for d in node.decorator_list[1:]}
        assert list(docs) == [p.name for p in fn.params]
        for p in fn.params:
            assert docs[p.name]["doc"].startswith(p.help)
            assert docs[p.name]["err_to_str"] is True
        assert ast.get_docstring(node).startswith(fn.description)
        assert f"={NAMESPACE}.{name}(" in ast.get_docstring(node)
        optional = [a.arg for a in node.args.args[len(node.args.args) - len(node.args.defaults):]]
        assert optional == [p.name for p in fn.params if p.optional]


def test_data_files_are_embedded_verbatim_with_provenance(lite_dir):
    assigns = {n.targets[0].id: n.value for n in _main_tree(lite_dir).body
               if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
    data = ast.literal_eval(assigns["_DATA"])
    assert data == collect_data()
    assert all(text.startswith("# zvmplan data: ") for p, text in data.items() if p.endswith(".csv"))
    sources = ast.literal_eval(assigns["_SOURCES"])
    assert "zvmplan_addin/registry.py" in sources and "zvmplan/api.py" in sources
    assert not any(p.startswith("zvmplan_addin/") and p.split("/")[-1] in ("engine.py", "cli.py")
                   for p in sources)


def test_clean_venv_gives_the_same_answers(lite_dir, clean_python):
    calls = [(REGISTRY[name].impl.__name__, args) for name, args in CALLS]
    run = subprocess.run([str(clean_python), "-I", "-c", RUNNER, str(lite_dir)],
                         input=json.dumps(calls), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert "zvmplan-lite-" in got["zvmplan_file"]  # the bundle, not an installed package
    assert got["heavy"] == []
    assert got["lite_names"] == [f"ZVMPLAN.{n}" for n in exported_functions()]
    results = dict(enumerate(got["results"]))
    # published numbers, exactly as printed (000 Table 2; 003 Table 2 at z/VM 4.3.0)
    assert results[0] == 0.012367
    assert results[1] == 491.463
    for i, (name, args) in enumerate(CALLS):
        want = _expected(name, args)
        assert _same(results[i], want), (name, args, results[i], want)
    # every kind of error is exercised, and none carries exception text into a cell
    flat = json.dumps(got["results"])
    assert all(code in flat for code in ("#VALUE!", "#NUM!", "#N/A", "#DIV/0!"))
    assert "Traceback" not in flat and "Error(" not in flat


def test_error_input_in_optional_argument_is_not_taken_as_left_out():
    """An #N/A in the level cell must give #N/A, not the answer at the default level."""
    idx = CALLS.index(("CPCPU_PER_MB", ["IUCV", 9000, "#N/A"]))
    assert _expected(*CALLS[idx]) == "#N/A"
    assert _expected("CPCPU_PER_MB", ["IUCV", 9000, None]) == 0.012367


def test_lite_and_the_registry_agree_on_skipped_and_refused_arguments():
    """What the clean-venv run is compared with, pinned: a skipped level is left out
    (Excel passes a skipped argument as missing; Office.js as null), text Excel's VALUE
    refuses is #VALUE!, an overflow #NUM!."""
    assert _expected("CPCPU_PER_MB", ["IUCV", 9000, None, 2]) == 0.012367 / 2  # 000 Table 2
    assert _expected("CPCPU_PER_MB", ["IUCV", " 9e3 "]) == 0.012367
    assert _expected("CPCPU_PER_MB", ["IUCV", "9_000"]) == "#VALUE!"
    assert _expected("MB_PER_SEC", ["IUCV", 9000, None, 1e308]) == "#NUM!"


def test_main_py_uses_only_public_names_of_the_registry(lite_dir):
    """main.py is generated against the registry's public interface (its __all__), so a
    rename inside registry.py cannot break the Lite export unnoticed."""
    from zvmplan_addin import registry
    imported = [a.name for node in ast.walk(_main_tree(lite_dir))
                if isinstance(node, ast.ImportFrom) and node.module == "zvmplan_addin.registry"
                for a in node.names]
    assert imported and set(imported) <= set(registry.__all__)
    assert "for_xlwings" in imported


def test_lite_export_imports_no_engine_dependency():
    """The bundle is built by following imports; openpyxl/formulas would make it fail."""
    from zvmplan_addin.lite import collect_modules
    sources = collect_modules()
    assert set(sources) >= {"zvmplan", "zvmplan.api", "zvmplan.data", "zvmplan_addin.registry",
                            "zvmplan_addin.functions", "zvmplan_addin.errors"}
    for text in sources.values():
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""]
                assert not any(m.split(".")[0] in ("openpyxl", "formulas", "schedula")
                               for m in mods)


def test_zvmplan_export_lite_command_writes_the_export(tmp_path):
    from zvmplan_addin.cli import main
    assert main(["export-lite", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "main.py").read_text(encoding="utf-8") == \
        (tmp_path / "out" / "main.py").read_text(encoding="utf-8")
    assert (tmp_path / "out" / "requirements.txt").exists()


def test_module_entry_point_writes_the_export(tmp_path):
    run = subprocess.run([sys.executable, "-m", "zvmplan_addin.lite", str(tmp_path / "out")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out" / "main.py").stat().st_size > 10_000

"""No import cycle among zvmplan, zvmplan_addin and zvmplan_workbook.

The graph is built from the source (AST), not by importing: a module's edges are every
``import`` and ``from ... import`` it holds, at module level *and inside functions*. A lazy
import in a function hides a cycle from Python's import machinery, not from the reader: the
cycles issue 15 named (the CLI and its plugins; ``xlsx/rewrite`` and ``xlsx/splice``) ran
through such imports. Imports under ``if TYPE_CHECKING:`` are left out (they never run).
The command line's plugins, which it imports by name (:data:`zvmplan_addin.cli.PLUGINS`),
are edges too.

A cycle is a strongly connected component of more than one module; there is none.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"zvmplan": ROOT / "model", "zvmplan_addin": ROOT / "addin",
            "zvmplan_workbook": ROOT / "workbook"}

#: cycles being broken elsewhere (issue 15, the engine's branch): name -> its modules
def modules() -> dict[str, Path]:
    """Every module of the three packages, by dotted name."""
    found = {}
    for package, root in PACKAGES.items():
        for path in sorted(root.rglob("*.py")):
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (
        isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
        or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_by(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules ``name`` (at ``path``) imports, anywhere in its source."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out: set[str] = set()

    def owner(dotted: str) -> str | None:  # the module itself, or the package holding it
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                out.update(filter(None, (owner(a.name) for a in child.names)))
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[:len(package) - (child.level - 1)]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                for a in child.names:  # `from pkg import mod` imports the module pkg.mod
                    target = f"{source}.{a.name}" if f"{source}.{a.name}" in known else \
                        owner(source)
                    if target:
                        out.add(target)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    out.discard(name)
    return out


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph = {name: imported_by(name, path, known) for name, path in known.items()}
    from zvmplan_addin.cli import PLUGINS
    graph["zvmplan_addin.cli"] |= {p for p in PLUGINS if p in known}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_cycle_finder_finds_cycles():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}, "f": {"g"},
         "g": {"f"}}
    assert sorted(map(sorted, cycles(g))) == [["a", "b", "c"], ["f", "g"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_graph_sees_relative_lazy_and_plugin_imports(graph):
    """The graph is not empty by mistake: edges of each kind it must see are there."""
    assert "zvmplan.transactions" in graph["zvmplan.api"]          # from .x import y
    assert "zvmplan.names" in graph["zvmplan.api"]                 # from . import names
    assert "zvmplan.tables" in graph["zvmplan.validation"]
    assert "zvmplan_addin.commands" in graph["zvmplan_workbook.fill"]  # inside a function
    assert "zvmplan_workbook.fill" in graph["zvmplan_addin.cli"]   # a plugin, by name
    assert "zvmplan_workbook.results" in graph["zvmplan_addin.cli"]
    assert len(graph) > 60 and sum(map(len, graph.values())) > 200


def test_no_import_cycle(graph):
    """No cycle in model/, addin/ or workbook/, nor across them."""
    assert [sorted(c) for c in cycles(graph)] == []


def test_model_imports_nothing_from_the_addin_or_workbook(graph):
    """zvmplan is the bottom layer: it imports neither zvmplan_addin nor zvmplan_workbook."""
    model = [m for m in graph if m.split(".")[0] == "zvmplan"]
    assert len(model) > 10
    upward = {m: sorted(t for t in graph[m] if t.split(".")[0] != "zvmplan") for m in model}
    assert {m: t for m, t in upward.items() if t} == {}


def test_no_test_imports_from_build():
    """Tests import the package (or tests/ helpers), never a script of build/: what they need
    from there lives in the package (zvmplan.transcribe, zvmplan_workbook.planner_sheet)."""
    scripts = {p.stem for p in (ROOT / "build").glob("*.py")}
    offenders = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        if path.name == Path(__file__).name:  # this test names build/ to look for it
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] in scripts | {"build"} for n in names) or (
                    isinstance(node, ast.Constant) and node.value == "build"):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def _stdlib_imports(path: Path) -> set[str]:
    """The top-level names of every absolute import in ``path`` (lazy ones too)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_tomllib_is_imported_only_where_python_3_10_gets_tomli():
    """pyproject.toml says ``requires-python >= 3.10``, and ``tomllib`` is in the standard
    library only from Python 3.11: on 3.10, ``zvmplan fill --machine m.toml`` ended in
    "ModuleNotFoundError: No module named 'tomllib' (this is a bug)". Every TOML read goes
    through ``zvmplan_workbook.tomlread`` (tomllib, else tomli), and pyproject.toml
    installs tomli on Python 3.10 only."""
    users = sorted(name for name, path in modules().items()
                   if "tomllib" in _stdlib_imports(path))
    assert users == ["zvmplan_workbook.tomlread"]
    tests = sorted(p.name for p in (ROOT / "tests").glob("*.py")
                   if "tomllib" in _stdlib_imports(p))
    assert tests == []
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "\"tomli>=1.1; python_version < '3.11'\"" in pyproject
    from zvmplan_workbook.tomlread import tomllib
    assert tomllib.loads("a = 1") == {"a": 1}

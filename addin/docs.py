"""Documentation generated from the registry: the README's function table.

``python -m zvmplan_addin.docs`` prints it; ``tests/test_readme.py`` checks README.md
carries exactly this table, so the README cannot drift from the functions.
"""
from __future__ import annotations

import numpy as np

from . import functions  # noqa: F401  (registers the functions)
from .errors import ExcelError
from .calls import parse_call, resolve
from .registry import REGISTRY

START, END = "<!-- functions:start -->", "<!-- functions:end -->"


def _show(value) -> str:
    if isinstance(value, ExcelError):
        return value.code
    if isinstance(value, np.ndarray):
        flat = [_show(v) for v in value.reshape(-1)]
        return "{" + ", ".join(flat[:3]) + (", ..." if len(flat) > 3 else "") + "}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def function_table() -> str:
    rows = ["| Function | Returns | Example | Result |", "| --- | --- | --- | --- |"]
    for fn in REGISTRY.values():
        name, args = parse_call(fn.example)
        result = resolve(name)(*args)
        if fn.name == "ZVM_BASIS":
            result = str(result).split(".")[0] + ". ..."
        rows.append(f"| `{fn.signature()}`<br>{fn.description} | {fn.returns} | "
                    f"`{fn.example}` | {_show(result)} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(START)
    print(function_table())
    print(END)

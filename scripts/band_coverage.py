"""Print every band rule of a projected answer with the coverage it was measured to have out
of sample (zvmplan.coverage; recounted by tests/test_band_coverage.py), as the Markdown table
of docs/method.md.

    python scripts/band_coverage.py
"""
from __future__ import annotations

from zvmplan.coverage import LEFT_OUT, all_rules


def table() -> str:
    lines = ["| rule | applies to | metric | band (value / k .. value x k) | held out of sample |",
             "| --- | --- | --- | --- | --- |"]
    for r in all_rules():
        lines.append(f"| {r.key} | {r.scope} | {r.metric} | k = {r.factor:.3f} | "
                     f"{r.held} of {r.tested} ({100 * r.coverage:.0f}%) |")
    lines.append("")
    lines.append("Left out in turn: " + "; ".join(f"{k}: {v}" for k, v in LEFT_OUT.items()) + ".")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())

"""The target machine of a plan: its per-engine capacity relative to each measured processor.

The sources measured each transport on its own processor (``zvmplan.processor``:
9672-XZ7, 2064-108, 2084-C24 (z990), 2064-109). A planner names the machine the plan is
for once, as the per-engine capacity of that machine relative to each of them, read from
zPCR or LSPR (zvmplan supplies none), in one of three places:

* ``zvmplan fill ... --machine FILE.toml``, a file with a ``[machine]`` table::

      [machine.capacity]
      "9672-XZ7" = ...
      "2084-C24" = ...

* ``zvmplan fill ... --capacity 9672-XZ7=X,2084-C24=Y``;
* the same ``[machine]`` table in the scenarios TOML file.

A processor is named as ``zvmplan.processor`` names it or by its model alone
(``2084-C24`` for ``2084-C24 (z990)``), in any case. Only the processors the plan uses
need a capacity: :meth:`Machine.check` refuses a plan with a link (without its own speed
factor) or a scenario transport on a processor the machine does not give. The capacities
go into the Assumptions sheet's capacity cells (:func:`zvmplan_workbook.fill.input_cells`),
from which every link, total and scenario of the workbook takes its speed factor.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path


class MachineError(ValueError):
    """A target machine that cannot be used: the message is one line naming where."""


def processors() -> tuple[str, ...]:
    """The measured processors, as the Assumptions sheet lists them."""
    from .planner import PROCESSORS
    return PROCESSORS


def processor_name(text: str, where: str) -> str:
    """The measured processor ``text`` names: its full name or its model alone.

    >>> processor_name("2084-c24", "x")
    '2084-C24 (z990)'
    """
    key = " ".join(str(text).split()).upper()
    for p in processors():
        if key in (p.upper(), p.split(" ")[0].upper()):
            return p
    raise MachineError(f"{where}: {text!r} is not a measured processor; valid: "
                       f"{', '.join(p.split(' ')[0] for p in processors())}")


def _capacity(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise MachineError(f"{where}: {value!r} is not a number")
    try:
        x = float(value)
    except ValueError:
        raise MachineError(f"{where}: {value!r} is not a number") from None
    if not (math.isfinite(x) and x > 0):
        raise MachineError(f"{where}: {value!r} must be a number greater than 0")
    return x


@dataclass(frozen=True)
class Machine:
    """Measured processor -> the target's per-engine capacity relative to it [x]."""
    capacity: dict
    source: str      # where it was named, for messages

    def check(self, links: list[dict], scenarios: list[dict]) -> None:
        """Refuse a plan that needs a capacity this machine does not give: a link without
        its own speed factor, or a scenario's transport, on a processor not named."""
        import zvmplan
        for i, link in enumerate(links, start=1):
            p = zvmplan.processor(link["transport"]).name
            if link.get("speed_factor") is None and p not in self.capacity:
                raise MachineError(
                    f"{self.source}: no capacity for the {p}, which link {i} "
                    f"({link['link']}, {link['transport']}) was measured on; give it (from "
                    "zPCR or LSPR) or the link's own speed_factor")
        for sc in scenarios:
            t = sc.get("transport")
            if t and zvmplan.processor(t).name not in self.capacity:
                raise MachineError(
                    f"{self.source}: no capacity for the {zvmplan.processor(t).name}, which "
                    f"scenario {sc['name']!r} moves links to ({t}); give it (from zPCR or "
                    "LSPR)")


def from_table(table, where: str) -> Machine:
    """A machine from a TOML ``[machine]`` table: ``capacity = {PROC = X, ...}``."""
    if not isinstance(table, dict):
        raise MachineError(f"{where}: expected a table with capacity = {{PROC = X, ...}}")
    unknown = [k for k in table if k != "capacity"]
    if unknown:
        raise MachineError(f"{where}, key {unknown[0]}: unknown; valid: capacity")
    cap = table.get("capacity")
    if not isinstance(cap, dict) or not cap:
        raise MachineError(f"{where}: expected capacity = {{PROC = X, ...}} (the per-engine "
                           "capacity relative to each measured processor, from zPCR or LSPR)")
    out: dict[str, float] = {}
    for k, v in cap.items():
        p = processor_name(k, f"{where}, capacity key {k}")
        if p in out:
            raise MachineError(f"{where}, capacity key {k}: {p} given twice")
        out[p] = _capacity(v, f"{where}, capacity {k}")
    return Machine(out, where)


def read(path) -> Machine:
    """The machine of a TOML file's ``[machine]`` table."""
    from .tomlread import tomllib
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise MachineError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise MachineError(f"{path.name}: not valid TOML ({exc})") from None
    if "machine" not in data:
        raise MachineError(f"{path.name}: no [machine] table")
    return from_table(data["machine"], f"{path.name} [machine]")


def parse(text: str, where: str = "--capacity") -> Machine:
    """A machine from ``PROC=X,PROC=X`` (as ``--capacity`` takes it).

    >>> parse("9672-XZ7=2,2084-C24=1.5").capacity
    {'9672-XZ7': 2.0, '2084-C24 (z990)': 1.5}
    """
    out: dict[str, float] = {}
    for part in [p for p in str(text).split(",") if p.strip()] or [""]:
        name, eq, value = part.partition("=")
        if not eq:
            raise MachineError(f"{where}: {part.strip()!r} is not PROC=X (e.g. "
                               "9672-XZ7=2.5,2084-C24=1)")
        p = processor_name(name.strip(), where)
        if p in out:
            raise MachineError(f"{where}: {p} given twice")
        out[p] = _capacity(value.strip(), f"{where} {name.strip()}")
    return Machine(out, where)

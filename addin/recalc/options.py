"""How the engine runs: one :class:`Options` object, built once by the caller (the
``zvmplan`` command, a test, :func:`~zvmplan_addin.recalc.engine.calc`) and handed to the
stages, instead of switches read from the environment deep inside them.

Every option keeps the values the engine writes the same; each only takes a slower
path that the tests compare with the usual one."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

#: the environment variables :meth:`Options.from_environ` reads, one per option
ENVIRON = {"cellwise": "ZVMPLAN_ENGINE_CELLWISE", "check": "ZVMPLAN_ENGINE_CHECK",
           "exact": "ZVMPLAN_ENGINE_EXACT", "pipe": "ZVMPLAN_ENGINE_PIPE"}


@dataclass(frozen=True)
class Options:
    """``cellwise``: every cell evaluated on its own (no column groups), as the engine did
    before it had them. ``check``: each column group also evaluated cell by cell, the
    cell-by-cell values kept and the cells where they differ listed, and the first
    cell of each generic shape also compiled as written. ``exact``: every formula
    compiled as written (no generic shapes with their literals as inputs). ``pipe``:
    formulas' own compiled pipe run instead of the straight-line :class:`~.program.Program`."""
    cellwise: bool = False
    check: bool = False
    exact: bool = False
    pipe: bool = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> "Options":
        """The options set in ``environ`` (default ``os.environ``): a variable of
        :data:`ENVIRON` set to anything but the empty string turns its option on."""
        environ = os.environ if environ is None else environ
        return cls(**{name: bool(environ.get(var)) for name, var in ENVIRON.items()})

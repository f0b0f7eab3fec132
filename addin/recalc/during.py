"""One way for a run to make something current while a block runs: a context variable
set on entry and reset on exit (the 1904 date system, the workbook's facts, the reasons
being noted, the character set, ISFORMULA's and INDIRECT's lookups)."""
from __future__ import annotations

import contextlib
import contextvars


@contextlib.contextmanager
def during(var: contextvars.ContextVar, value, result=None):
    """Set ``var`` to ``value`` while the block runs (and give ``result``), then reset it,
    also when the block raises."""
    token = var.set(value)
    try:
        yield result
    finally:
        var.reset(token)

"""Regular expressions compiled on their first use instead of at import.

A module-level ``re.compile`` runs at every start-up of the command line, whether or not
the run reads what the pattern matches (defined names, 3-D references, external links,
entities in shared strings...): 0.02-0.4 ms each, a few ms in all for the patterns a
template calc never uses. ``_WORD = lazy_pattern(r"...")`` makes ``_WORD()`` compile the
pattern on its first call and return the same compiled pattern on every later one; a loop
that matches once per row takes ``_WORD()`` once, before the loop.
"""
from __future__ import annotations

import functools
import re
from typing import Callable


def lazy_pattern(pattern: str | bytes, flags: int = 0) -> Callable[[], re.Pattern]:
    """A function returning ``re.compile(pattern, flags)``, compiled on its first call."""
    return functools.cache(lambda: re.compile(pattern, flags))

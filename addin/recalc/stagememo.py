"""Answers remembered while a compile stage runs, and forgotten when it ends.

:mod:`.tokenmemo` and :mod:`.rangememo` each keep one :class:`StageMemo`: a dict filled
only inside :meth:`StageMemo.remembering` blocks (nested blocks share it), cleared when the
outermost block ends, so nothing is kept per formula after a calc, and cleared whole when
it would pass its limit."""
from __future__ import annotations

import contextlib


class StageMemo(dict):
    """A dict of remembered answers, at most ``limit`` of them, live inside
    :meth:`remembering` blocks (:attr:`depth` > 0)."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit
        self.depth = 0   # remembering() blocks under way

    @contextlib.contextmanager
    def remembering(self):
        """Answers remembered inside this block (nested blocks share them), all
        forgotten when the outermost ends."""
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if not self.depth:
                self.clear()

    def make_room(self) -> None:
        """Forget everything if one more answer would pass the limit."""
        if len(self) >= self.limit:
            self.clear()

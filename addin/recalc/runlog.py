"""What a run of the engine notes besides the values: the reason behind each error a
zvmplan function returned (:class:`Reasons`) and the warnings, formulas kept with
their cached value and functions the engine does not implement (:class:`RunLog`).

Each run holds its own :class:`RunLog`. The registry's adapters, installed once in
formulas' function table (:mod:`.install`), cannot be handed the run: they leave a
reason with :func:`note`, which goes to the :class:`Reasons` made active by
:meth:`Reasons.active` (a context variable), or nowhere."""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field

from .during import during
from ..errors import ExcelError

#: how the reason of an error starts when the engine did not compute the formula (a form
#: of a function it leaves out, e.g. GROUPBY's generated headers): ``zvmplan check`` counts
#: such a cell as not computed, not as a value that differs
NOT_COMPUTED = "not computed: "

_ACTIVE: contextvars.ContextVar["Reasons | None"] = contextvars.ContextVar(
    "zvmplan_reasons", default=None)


class Reasons:
    """Cell label (``Sheet!A1``) -> (code, reason) of the first error with a reason a
    zvmplan function gave while that cell was evaluated; :attr:`cell` is the cell being
    evaluated (None between cells: a reason then has no cell and is dropped)."""

    __slots__ = ("log", "cell")

    def __init__(self):
        self.log: dict = {}
        self.cell = None

    def note(self, err: ExcelError) -> None:
        if err.reason and self.cell is not None:
            self.log.setdefault(self.cell, (err.code, err.reason))

    @contextlib.contextmanager
    def active(self):
        """Where :func:`note` leaves reasons while the block runs."""
        with during(_ACTIVE, self, self):
            yield self


def note(err: ExcelError) -> None:
    """Leave the reason of ``err`` with the active :class:`Reasons`, if any."""
    reasons = _ACTIVE.get()
    if reasons is not None:
        reasons.note(err)


@dataclass
class RunLog:
    """What one run noted. ``reasons``: see :class:`Reasons`; ``warnings``: one line each;
    ``kept_cached``: formula cells that kept their cached value (a data table, a formula
    formulas cannot compile); ``unsupported``: names of functions formulas does not
    implement."""
    reasons: Reasons = field(default_factory=Reasons)
    warnings: list = field(default_factory=list)
    kept_cached: int = 0
    unsupported: set = field(default_factory=set)

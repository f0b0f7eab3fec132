"""Moved to :mod:`zvmplan_addin.recalc.shapes` (the engine's "shape of a formula" stage);
this name stays for the code that imports it from here."""
from .recalc.shapes import *  # noqa: F401,F403
from .recalc.shapes import LITERAL_PREFIX, __all__  # noqa: F401

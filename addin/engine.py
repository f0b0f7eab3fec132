"""The headless recalculation engine now lives in :mod:`zvmplan_addin.recalc` (one module
per stage); these names stay importable from here."""
from .recalc.calc import Engine, EngineError, StaleValues, calc
from .recalc.formula import evaluate_formula
from .recalc.install import install_functions
from .recalc.values import make_ranges as _make_ranges  # noqa: F401 (tests)
from .recalc.write import CalcReport

__all__ = ["calc", "CalcReport", "Engine", "EngineError", "StaleValues", "install_functions",
           "evaluate_formula"]

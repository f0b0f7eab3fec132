"""Start-up of the recalculation engine: SciPy is loaded only for a formula that needs it
(zvmplan_addin/recalc/startup.py), and the statistics functions that need it still give
Excel's results."""
import json
import subprocess
import sys

import pytest

from zvmplan_addin.recalc import evaluate_formula

_CHILD = r"""
import json, sys
from zvmplan_addin.recalc import evaluate_formula
out = {"sum": float(evaluate_formula("=SUM(1,2)+MAX(4,5)")),
       "scipy_after_sum": "scipy.stats" in sys.modules}
out["kurt"] = float(evaluate_formula("=KURT(3,4,5,2,3,4,5,6,4,7)"))
out["scipy_after_kurt"] = "scipy.stats" in sys.modules
print(json.dumps(out))
"""


def test_scipy_is_imported_only_when_a_formula_needs_it():
    """A fresh engine computes SUM and MAX (formulas' math and statistics modules) without
    importing scipy.stats; KURT, which calls scipy.stats.kurtosis, imports it then and
    gives Excel's documented result for its example data (-0.151799637)."""
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                         check=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["sum"] == 8.0
    assert got["scipy_after_sum"] is False
    assert got["kurt"] == pytest.approx(-0.151799637, abs=1e-9)
    assert got["scipy_after_kurt"] is True


@pytest.mark.parametrize("formula, excel", [
    # Excel's documentation examples for each function
    ("=SKEW(3,4,5,2,3,4,5,6,4,7)", 0.359543),
    ("=NORM.S.INV(0.908789)", 1.3333),
    ("=LOGNORM.DIST(4,3.5,1.2,TRUE)", 0.0390836),
    ("=LOGNORM.INV(0.039084,3.5,1.2)", 4.0000252),
    ("=WEIBULL.DIST(105,20,100,TRUE)", 0.929581),
    ("=BETA.DIST(2,8,10,TRUE,1,3)", 0.6854706),
    ("=PERCENTILE({1,2,3,4},0.3)", 1.9),
])
def test_statistics_functions_behind_the_deferred_scipy(formula, excel):
    """Each function that reads scipy.stats, scipy.linalg or interp1d through the
    stand-ins gives the value in Excel's documentation, to the digits printed there
    (within half a unit of the last one)."""
    decimals = len(repr(excel).split(".")[1])
    assert float(evaluate_formula(formula)) == pytest.approx(excel, abs=0.5 * 10 ** -decimals)

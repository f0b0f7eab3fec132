"""Start-up of the recalculation engine: SciPy is loaded only for a formula that needs it
(zvmplan_addin/recalc/startup.py), and the statistics functions that need it still give
Excel's results."""
import json
import re
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


_CHILD_T = r"""
import json, sys
from zvmplan_addin.recalc import evaluate_formula
out = {f: float(evaluate_formula(f)) for f in (
    "=T.INV.2T(0.05,10)", "=T.DIST.2T(1.96,60)", "=CONFIDENCE.T(0.05,1,50)",
    "=RANK(3,{5,3,3,1})", "=RANK.AVG(3,{5,3,3,1})")}
out["loaded"] = sorted(m for m in ("scipy.stats", "scipy.special", "numpy.f2py", "xlwings",
                                   "matplotlib", "openpyxl") if m in sys.modules)
from zvmplan_addin.recalc.startup import special_ufuncs
early = special_ufuncs()
import scipy.special  # the real package, after the compiled module was loaded alone
out["same_module"] = scipy.special._ufuncs is early and \
    scipy.special.stdtrit is early.stdtrit and special_ufuncs() is early
print(json.dumps(out))
"""


def test_the_templates_statistics_need_no_scipy_stats():
    """T.INV.2T, T.DIST.2T, CONFIDENCE.T and RANK (the template's confidence intervals and
    ranks) are computed without importing scipy.stats, nor the scipy.special package (its
    compiled functions are loaded alone; a later import of the package takes the same
    module), nor xlwings, matplotlib, openpyxl, with Excel's values: T.INV.2T(0.05,10) = 2.228138852, T.DIST.2T(1.96,60) =
    0.054645, CONFIDENCE.T(0.05,1,50) = 0.284196855, RANK 2 and RANK.AVG 2.5."""
    out = subprocess.run([sys.executable, "-c", _CHILD_T], capture_output=True, text=True,
                         check=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got.pop("loaded") == []
    assert got.pop("same_module") is True
    assert got["=T.INV.2T(0.05,10)"] == pytest.approx(2.228138852, abs=5e-10)
    assert got["=T.DIST.2T(1.96,60)"] == pytest.approx(0.054645, abs=5e-7)
    assert got["=CONFIDENCE.T(0.05,1,50)"] == pytest.approx(0.284196855, abs=5e-10)
    assert got["=RANK(3,{5,3,3,1})"] == 2.0 and got["=RANK.AVG(3,{5,3,3,1})"] == 2.5


def test_student_t_and_rankdata_stand_ins_give_scipy_stats_floats():
    """The stand-ins compute the same floats as scipy.stats, bit for bit (sign of zero
    and type included), over a grid of arguments, and hand anything else to it."""
    import math

    import numpy as np
    from scipy import stats

    from zvmplan_addin.recalc.startup import STUDENT_T, rankdata

    def same(a, b):
        return type(a) is type(b) and (a == b and math.copysign(1, a) == math.copysign(1, b)
                                       or math.isnan(a) and math.isnan(b))
    for df in (1, 2, 3, 5, 10, 30, 100, 1000, 2.5):
        for x in [*np.linspace(-40, 40, 81).tolist(), 0.0, -0.0, 1e-300, 3, -3]:
            assert same(STUDENT_T.cdf(x, df), stats.t.cdf(x, df))
            assert same(STUDENT_T.sf(x, df), stats.t.sf(x, df))
        for q in [*np.linspace(1e-4, 1 - 1e-4, 99).tolist(), 0.5, 1e-300, 0.0, 1.0]:
            assert same(STUDENT_T.ppf(q, df), stats.t.ppf(q, df))
    assert math.isnan(STUDENT_T.sf(1.0, 0))         # df <= 0: scipy's own answer
    rng = np.random.default_rng(19)
    for n in (1, 2, 5, 40):
        for a in (rng.normal(size=n), rng.integers(-3, 3, n).astype(float),
                  np.array([-0.0, 0.0, 1.0] * n)):
            for method in ("min", "average"):
                mine, theirs = rankdata(a, method=method), stats.rankdata(a, method=method)
                assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
    nan = np.array([1.0, np.nan])
    assert np.isnan(rankdata(nan, method="min")).all()      # scipy: NaN propagates


_CHILD_CALC = r"""
import json, sys
from zvmplan_addin.cli import main
code = main(["calc", sys.argv[1], "-o", sys.argv[2]])  # with the summary read back
print(json.dumps({"code": code, "loaded": sorted(
    m for m in ("zvmplan_workbook.fill", "zvmplan_workbook.render", "zvmplan_workbook.report",
                "zvmplan_workbook.template", "zvmplan_addin.export_lite", "scipy.special",
                "scipy.stats", "openpyxl", "numpy.ma", "urllib.request", "numpy.random",
                "difflib")
    if m in sys.modules)}))
"""


def test_calc_loads_no_plugin_and_help_lists_every_command(tmp_path):
    """``zvmplan calc`` on the template computes it and prints its summary (exit 0)
    without importing the command line's plugins (fill, render, report, template,
    export-lite), the scipy.special package, openpyxl (the plan is read back by
    :mod:`zvmplan_workbook.readback`), ``numpy.ma`` (``np.unique`` imports it),
    ``urllib.request`` (``xml.sax.saxutils`` does), ``numpy.random`` (formulas' RAND) or
    ``difflib`` (a misspelt name's "did you mean"):
    ~0.1 CPU-s of start-up in all;
    ``zvmplan --help`` still lists the plugins' commands."""
    from pathlib import Path
    template = Path(__file__).parent.parent / "workbook" / "zvmplan_template.xlsx"
    out = subprocess.run([sys.executable, "-c", _CHILD_CALC, str(template),
                          str(tmp_path / "out.xlsx")], capture_output=True, text=True,
                         check=True, timeout=300)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"code": 0, "loaded": []}
    assert (tmp_path / "out.xlsx").stat().st_size > 10_000
    helped = subprocess.run([sys.executable, "-m", "zvmplan_addin.cli", "--help"],
                            capture_output=True, text=True, timeout=120)
    for command in ("calc", "fill", "render", "report", "template", "export-lite"):
        assert re.search(rf"^ +{command}\s", helped.stdout, re.M), command


_CHILD_FALLBACK = r"""
import json, sys
from zvmplan_addin.recalc import startup
startup._has_t = lambda module: module.__name__ == "scipy.special"  # another SciPy layout
got = startup.special_ufuncs()
print(json.dumps({"name": got.__name__, "loaded": "scipy.special" in sys.modules,
                  "ppf": startup.STUDENT_T.ppf(0.975, 10)}))
"""


def test_student_t_falls_back_to_the_scipy_special_package():
    """Where SciPy's compiled module does not hold stdtr and stdtrit (another SciPy's
    layout), the stand-in imports the scipy.special package and computes the same
    T.INV.2T(0.05,10) = 2.228138852 (Excel's value) from it."""
    out = subprocess.run([sys.executable, "-c", _CHILD_FALLBACK], capture_output=True,
                         text=True, check=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["name"] == "scipy.special" and got["loaded"] is True
    assert got["ppf"] == pytest.approx(2.228138852, abs=5e-10)


_CHILD_BLAS = r"""
import json, os, sys
seen = {}
class Spy:  # notes the environment as numpy (and with it OpenBLAS) starts to load
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "numpy" and "numpy" not in seen:
            seen["numpy"] = os.environ.get("OPENBLAS_THREAD_TIMEOUT")
        return None
sys.meta_path.insert(0, Spy)
import zvmplan_addin.cli
print(json.dumps(seen))
"""

_CHILD_BLAS_VALUES = r"""
import numpy as np
rng = np.random.default_rng(19)
a, b = rng.random(3_000_000), rng.random(3_000_000)
m = rng.random((400, 400))
print(float(a @ b).hex(), (m @ m).tobytes().hex()[:4000], np.linalg.solve(m, a[:400]).tobytes().hex())
"""


def _env_without_blas_settings() -> dict:
    import os
    return {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "OMP_"))}


@pytest.mark.parametrize("given, expected", [(None, "4"), ("12", "12")])
def test_the_command_line_lets_idle_blas_workers_sleep(given, expected):
    """``zvmplan`` sets OPENBLAS_THREAD_TIMEOUT to 4 (OpenBLAS's least: an idle worker
    thread sleeps at once instead of spinning ~0.1 s of CPU after its start and after each
    job, ~0.04 CPU-s of a template calc) before numpy, and with it OpenBLAS, is loaded;
    a value the user set is kept."""
    env = _env_without_blas_settings()
    if given is not None:
        env["OPENBLAS_THREAD_TIMEOUT"] = given
    out = subprocess.run([sys.executable, "-c", _CHILD_BLAS], capture_output=True, text=True,
                         check=True, timeout=120, env=env)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"numpy": expected}


def test_blas_results_do_not_depend_on_how_long_idle_workers_spin():
    """The setting changes when an idle OpenBLAS thread sleeps, never how many threads
    share a job: a 3-million-term dot product, a 400x400 matrix product and a solve
    (large enough for OpenBLAS to split them among its threads) give the same bits with
    and without it."""
    runs = []
    for extra in ({}, {"OPENBLAS_THREAD_TIMEOUT": "4"}):
        env = {**_env_without_blas_settings(), **extra}
        runs.append(subprocess.run([sys.executable, "-c", _CHILD_BLAS_VALUES],
                                   capture_output=True, text=True, check=True, timeout=120,
                                   env=env).stdout)
    assert runs[0] == runs[1] and len(runs[0]) > 4000


_CHILD_RAND = r"""
import json, sys
import zvmplan_addin.recalc.install  # first: its formulas imports wait for the stand-ins
from zvmplan_addin.recalc import evaluate_formula
out = {"sum": float(evaluate_formula("=SUM(1,2)")),
       "loaded": sorted(m for m in ("numpy.random", "scipy.stats") if m in sys.modules)}
first = float(evaluate_formula("=RAND()"))
out["first_in_unit"] = 0.0 <= first < 1.0
out["loaded_after_rand"] = "numpy.random" in sys.modules
import numpy as np
np.random.seed(19)
rand = float(evaluate_formula("=RAND()"))
np.random.seed(19)
out["same_generator"] = rand == float(np.random.rand())
print(json.dumps(out))
"""


def test_numpy_random_is_imported_only_when_rand_is_called():
    """formulas reads ``np.random.rand`` at its math module's top (for RAND); the engine
    imports that module (and SciPy's users) with a stand-in, so SUM is computed without
    loading ``numpy.random`` or ``scipy.stats`` even when
    :mod:`zvmplan_addin.recalc.install` is imported first; RAND loads it on its first call
    and draws from numpy's global generator, as formulas' RAND does: after the same seed,
    the same number as ``np.random.rand()``."""
    out = subprocess.run([sys.executable, "-c", _CHILD_RAND], capture_output=True, text=True,
                         check=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"sum": 3.0, "loaded": [], "first_in_unit": True,
                   "loaded_after_rand": True, "same_generator": True}


_CHILD_PATTERNS = r"""
import json, sys
from zvmplan_addin.cli import main
code = main(["calc", sys.argv[1], "-o", sys.argv[2], "-q"])
lazy, compiled = [], []
for name, module in list(sys.modules.items()):
    if name.startswith("zvmplan"):
        for attr, value in vars(module).items():
            inner = getattr(value, "__wrapped__", None)
            if hasattr(value, "cache_info") and inner is not None and \
                    inner.__code__.co_filename.endswith("lazyre.py"):
                lazy.append(f"{name}.{attr}")
                if value.cache_info().currsize:
                    compiled.append(f"{name}.{attr}")
print(json.dumps({"code": code, "lazy": sorted(lazy), "compiled": compiled}))
"""


def test_calc_of_the_template_compiles_none_of_the_lazy_patterns(tmp_path):
    """The regular expressions for what the template does not contain (defined names,
    3-D and external references, tables, ANCHORARRAY, entities and _xHHHH_ escapes,
    the fast sheet reader's cell token...) are compiled on first use
    (:mod:`zvmplan_addin.lazyre`): a template calc compiles none of them."""
    from pathlib import Path
    template = Path(__file__).parent.parent / "workbook" / "zvmplan_template.xlsx"
    out = subprocess.run([sys.executable, "-c", _CHILD_PATTERNS, str(template),
                          str(tmp_path / "out.xlsx")], capture_output=True, text=True,
                         check=True, timeout=300)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["code"] == 0 and got["compiled"] == []
    assert {"zvmplan_addin.recalc.names._WORD", "zvmplan_addin.recalc.threed.THREE_D",
            "zvmplan_addin.xlsx.fastsheet._TOKEN", "zvmplan_addin.recalc.read._ANCHOR"} \
        <= set(got["lazy"])


def test_a_lazy_pattern_is_compiled_once_with_its_flags():
    """``lazy_pattern`` gives the pattern ``re.compile`` gives, flags included, and the
    same object on every call."""
    import re

    from zvmplan_addin.lazyre import lazy_pattern
    word = lazy_pattern(r"lambda\s*\(", re.I)
    assert word() is word() and word().pattern == r"lambda\s*\(" and word().flags & re.I
    assert word().match("LAMBDA (x)") and not word().match("LAMBDAX")

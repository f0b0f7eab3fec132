"""How the engine runs is one :class:`Options` object built at the edge; the function-name
prefixes a file may store are one table (:mod:`zvmplan_addin.prefixes`)."""
from __future__ import annotations

from zvmplan_addin.calls import did_you_mean, excel_names, load_functions, resolve
from zvmplan_addin.prefixes import bare_name, spellings
from zvmplan_addin.recalc.options import Options


def test_options_from_the_environment_read_in_one_place():
    """A variable set to anything but the empty string turns its option on; the others
    stay off."""
    got = Options.from_environ({"ZVMPLAN_ENGINE_CELLWISE": "1", "ZVMPLAN_ENGINE_CHECK": "",
                                "ZVMPLAN_ENGINE_PIPE": "yes", "UNRELATED": "1"})
    assert got == Options(cellwise=True, pipe=True)
    assert Options.from_environ({}) == Options()


def test_one_prefix_table_for_every_spelling():
    """Excel stores an add-in function it does not know as ``_xludf.NAME``, a newer
    builtin as ``_xlfn.NAME``, a worksheet-only one as ``_xlws.NAME``; xlwings Lite as
    ``_xldudf_ZVMPLAN_NAME`` or ``ZVMPLAN.NAME``. Each resolves to the same function."""
    load_functions()
    assert excel_names("cpcpu_per_mb") == (
        "CPCPU_PER_MB", "_XLUDF.CPCPU_PER_MB", "_XLFN.CPCPU_PER_MB",
        "_XLDUDF_ZVMPLAN_CPCPU_PER_MB", "ZVMPLAN.CPCPU_PER_MB")
    fn = resolve("CPCPU_PER_MB")
    assert fn is not None and all(resolve(n.lower()) is fn for n in excel_names(fn.name))
    assert resolve("_xlws.CPCPU_PER_MB") is None  # Excel never stores a UDF so
    assert spellings("ifna", builtin=True) == ("IFNA", "_XLFN.IFNA", "_XLWS.IFNA")
    assert bare_name("_xlws.sort", builtin=True) == "SORT"
    assert bare_name("_xlws.sort") == "_XLWS.SORT"


def test_did_you_mean_strips_the_prefixes_as_resolve_does():
    load_functions()
    assert did_you_mean("_xludf.CPCPU_PER_M") == " (did you mean CPCPU_PER_MB?)"
    assert did_you_mean("ZVMPLAN.CPCPU_PER_M") == " (did you mean CPCPU_PER_MB?)"
    assert did_you_mean("NOTHING_LIKE_IT_AT_ALL") == ""

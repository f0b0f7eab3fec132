"""``zvmplan template``: the template from the installed package, for Excel and for
xlwings Lite, and ``zvmplan fill`` using it when no template is given."""
from __future__ import annotations

import re
import zipfile

import openpyxl
import pytest

from zvmplan_addin import cli
from zvmplan_workbook import about, build, template


def test_the_packaged_template_is_the_built_one():
    assert template.packaged_template().read_bytes() == build.TEMPLATE.read_bytes()


def test_template_command_writes_it_and_never_overwrites(tmp_path, capsys):
    out = tmp_path / "t.xlsx"
    assert cli.main(["template", "-o", str(out)]) == 0
    assert out.read_bytes() == build.TEMPLATE.read_bytes()
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    out.write_bytes(b"the planner's own work")
    assert cli.main(["template", "-o", str(out)]) == 1
    assert capsys.readouterr().err == f"zvmplan: error: {out} exists; give --force to overwrite it\n"
    assert out.read_bytes() == b"the planner's own work"
    assert cli.main(["template", "-o", str(out), "--force"]) == 0
    assert out.read_bytes() == build.TEMPLATE.read_bytes()


def _formulas(path) -> dict[str, str]:
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n).decode("utf-8") for n in z.namelist()
                if re.fullmatch(r"xl/worksheets/sheet\d+\.xml", n)}


@pytest.fixture(scope="module")
def lite(tmp_path_factory):
    out = tmp_path_factory.mktemp("lite") / "lite.xlsx"
    assert cli.main(["template", "-o", str(out), "--for", "lite"]) == 0
    return out


def test_lite_template_calls_the_functions_as_lite_stores_them(lite):
    """Every call of a zvmplan function is _xldudf_ZVMPLAN_<NAME>(...), as Excel stores an
    xlwings Lite (Office.js, namespace ZVMPLAN) custom function; a function named as text
    (ZVM_RANGE's first argument) stays text; nothing else changes but the About sheet's
    install steps (:func:`~zvmplan_workbook.about.lite_prose`)."""
    from xml.sax.saxutils import escape

    from zvmplan_addin.calls import load_functions
    prose = about.lite_prose(build.notes())
    names = set(load_functions())
    plain, renamed = _formulas(build.TEMPLATE), _formulas(lite)
    calls = re.compile(r"(?<![\w.])(" + "|".join(sorted(names, key=len, reverse=True))
                       + r")\(")
    n = 0
    for part, xml in renamed.items():
        for f in re.findall(r"<f>([^<]*)</f>", xml):
            assert not calls.search(re.sub(r'"[^"]*"', '""', f)), (part, f[:200])
        n += xml.count("_xldudf_ZVMPLAN_")
        back = re.sub(r"_xldudf_ZVMPLAN_(\w+)\(", r"\1(", xml)
        back = re.sub(r"(<t[^>]*>=[^<]*)", lambda m: m.group(1).replace("ZVMPLAN.", ""), back)
        for classic, lite_text in prose.items():
            back = back.replace(f">{escape(lite_text)}</t>", f">{escape(classic)}</t>")
        assert back == plain[part], part
    assert n > 1000
    planner = renamed["xl/worksheets/sheet2.xml"]
    assert not re.search(r'(?<!_)ZVM_RANGE\("CPCPU_PER_TX",', planner)  # renamed, called
    assert '_xldudf_ZVMPLAN_ZVM_RANGE("CPCPU_PER_TX",' in planner


def test_lite_template_examples_are_spelt_as_a_lite_user_types_them(lite):
    """In xlwings Lite a zvmplan function is typed, and shown by Excel, as
    ``=ZVMPLAN.NAME(...)``: ``=CPCPU_PER_MB(...)`` typed there is #NAME?. The About sheet's
    Example column (text to type) says so in the Lite variant, and keeps the plain name in
    the classic one; the text given to ZVM_RANGE stays a name, and prose other than the
    install steps (:func:`~zvmplan_workbook.about.lite_prose`) is untouched."""
    prose = about.lite_prose(build.notes())
    plain = openpyxl.load_workbook(build.TEMPLATE)["About"]
    lite_about = openpyxl.load_workbook(lite)["About"]
    examples = 0
    for row in plain.iter_rows():
        for c in row:
            v, w = c.value, lite_about[c.coordinate].value
            if isinstance(v, str) and v.startswith("=") and c.data_type == "s":
                examples += 1
                assert w.startswith("=ZVMPLAN."), (c.coordinate, w)
                assert w.replace("ZVMPLAN.", "") == v
            elif c.data_type == "s":
                assert w == prose.get(v, v), c.coordinate
    assert examples >= 20
    texts = [c.value for row in lite_about.iter_rows() for c in row if c.data_type == "s"]
    assert '=ZVMPLAN.CPCPU_PER_MB("IUCV",9000)' in texts
    assert any(t.startswith('=ZVMPLAN.ZVM_RANGE("CPCPU_PER_MB"') for t in texts
               if isinstance(t, str))
    assert '=CPCPU_PER_MB("IUCV",9000)' in [c.value for row in plain.iter_rows() for c in row]


def test_lite_template_install_steps_are_lites(lite):
    """The classic template's About sheet tells how to install the classic xlwings add-in
    (pip, ``xlwings addin install``, the VBA trust setting, a .xlsm, Import Functions);
    none of that applies in xlwings Lite, whose functions come from the add-in's editor
    (``main.py``/``requirements.txt`` from ``zvmplan export-lite``) and are typed
    ``=ZVMPLAN.NAME``. The Lite template's install section says so, line for line in the
    same cells, each fitting the row height the classic line was given."""
    def texts(ws):
        return {c.coordinate: c.value for row in ws.iter_rows() for c in row
                if isinstance(c.value, str)}
    plain_ws = openpyxl.load_workbook(build.TEMPLATE)["About"]
    lite_ws = openpyxl.load_workbook(lite)["About"]
    plain, lite_texts = texts(plain_ws), texts(lite_ws)
    notes = build.notes()
    at = {v: k for k, v in plain.items()}
    heading = at[about.INSTALL_HEADING]
    assert lite_texts[heading] == about.LITE_INSTALL_HEADING
    cells = [at[line] for line in notes["install"]]
    assert [lite_texts[c] for c in cells] == notes["install_lite"]
    joined = "\n".join(lite_texts[c] for c in cells)
    for classic_only in ("xlwings addin install", "Import Functions", "UDF Modules", ".xlsm",
                         "Trust access to the VBA", "=CPCPU_PER_MB("):
        assert classic_only in "\n".join(plain[c] for c in cells)
        assert classic_only not in joined, classic_only
    for lite_step in ("xlwings Lite", "zvmplan export-lite lite/", "main.py",
                      "requirements.txt", '=ZVMPLAN.CPCPU_PER_MB("IUCV",9000)', "0.012367"):
        assert lite_step in joined, lite_step
    for c in cells:  # styles.note's rule: ~220 characters a line at 12.5 points a line
        lines = -(-len(lite_texts[c]) // 220)
        assert lite_ws.row_dimensions[lite_ws[c].row].height >= 12.5 * lines + 2, c
    assert len(lite_texts) == len(plain)
    assert sum(lite_texts[k] != plain[k] for k in plain if not plain[k].startswith("=")) == \
        len(about.lite_prose(notes))


def test_lite_template_recalculates_to_the_same_values(lite, tmp_path):
    """zvmplan calc reads the Lite names: recalculated, every cell of the Lite template
    holds the value the committed template caches."""
    from zvmplan_addin import recalc as engine
    out = tmp_path / "lite-calc.xlsx"
    report = engine.calc(lite, out)
    assert not report.unsupported
    want = openpyxl.load_workbook(build.TEMPLATE, data_only=True)
    got = openpyxl.load_workbook(out, data_only=True)
    formulas = openpyxl.load_workbook(lite)
    checked = 0
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                a, b = want[ws.title][c.coordinate].value, got[ws.title][c.coordinate].value
                if isinstance(a, float) and isinstance(b, float):
                    assert b == pytest.approx(a, rel=1e-12, abs=1e-15), (ws.title, c.coordinate)
                else:
                    assert (a if a != "" else None) == (b if b != "" else None), \
                        (ws.title, c.coordinate, a, b)
                checked += 1
    assert checked > 4000
    assert got["Planner"]["O5"].value == pytest.approx(1.936, abs=5e-4)
    assert got["Planner"]["A3"].value in (None, "")   # the functions answered

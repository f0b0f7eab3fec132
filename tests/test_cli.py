"""The ``zvmplan`` command line: calc, eval, functions; refusing bad files with one line
on stderr and a non-zero exit; eval starting without the formula engine."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile

import openpyxl
import pytest

from zvmplan_addin import cli
from zvmplan_addin.registry import MISSING, REGISTRY

from builders import write_book

# Declared in the child processes too (they start from a fresh registry).
DECLARE = textwrap.dedent('''
    from zvmplan_addin.registry import REGISTRY, Param, as_number, worksheet_function
    from zvmplan.errors import NoDataError
    if "ZC_DOUBLE" not in REGISTRY:
        @worksheet_function(description="twice x", example="=ZC_DOUBLE(2)", returns="number",
                            params=[Param("x", "a number", lambda v: as_number(v, "x"), unit="MB")])
        def zc_double(x):
            if x == 13:
                raise NoDataError("13 was never measured")
            return 2 * x
''')


@pytest.fixture(autouse=True, scope="module")
def zc_functions():
    """ZC_DOUBLE, in the registry for this module's tests only."""
    exec(DECLARE, {})
    yield
    REGISTRY.pop("ZC_DOUBLE", None)


def run_cli(*args, code=""):
    """Run the command line in a child process; (exit code, stdout, stderr)."""
    prog = DECLARE + code + "\nimport sys\nfrom zvmplan_addin.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    p = subprocess.run([sys.executable, "-c", prog, *map(str, args)], capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def book(tmp_path):
    return write_book(tmp_path / "book.xlsx", {"Plan": {
        "A1": 21, "B1": "=ZC_DOUBLE(A1)", "C1": "=IFERROR(ZC_DOUBLE(13),-1)"}})


# ------------------------------------------------------------------- calc ----
def test_calc_writes_output(book, tmp_path):
    out = tmp_path / "out.xlsx"
    rc, stdout, stderr = run_cli("calc", book, "-o", out)
    assert rc == 0, stderr
    assert stderr == ""  # no progress bar off a terminal
    assert "2 formula cells recalculated" in stdout
    ws = openpyxl.load_workbook(out, data_only=True)["Plan"]
    assert ws["B1"].value == 42 and ws["C1"].value == -1


def test_calc_in_place(book):
    before = book.read_bytes()
    assert cli.main(["calc", str(book), "--in-place", "-q"]) == 0
    assert book.read_bytes() != before
    assert openpyxl.load_workbook(book, data_only=True)["Plan"]["B1"].value == 42


@pytest.mark.parametrize("out", ["out.xlsm", "a_directory"])
def test_calc_refuses_a_bad_output_before_recalculating(book, tmp_path, capsys, monkeypatch,
                                                        out):
    """A refused OUT (a macro-enabled name for a plain workbook, a directory) is refused
    before the engine runs: one line, nothing written, no recalculation spent."""
    import zvmplan_addin.recalc as engine

    def engine_ran(*a, **k):
        raise AssertionError("the engine ran before OUT was checked")
    monkeypatch.setattr(engine, "calc", engine_ran)
    (tmp_path / "a_directory").mkdir()
    assert cli.main(["calc", str(book), "-o", str(tmp_path / out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and out in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_directory"] + (
        [book.name] if book.parent == tmp_path else [])


def test_calc_needs_an_output(book, capsys):
    assert cli.main(["calc", str(book)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-o OUT.xlsx" in err


def _xlsx_bytes(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=1+1"
    path = tmp_path / "good.xlsx"
    wb.save(path)
    return path.read_bytes()


def _rezip(src: bytes, dst, replace: dict[str, bytes], compress=zipfile.ZIP_DEFLATED):
    import io
    with zipfile.ZipFile(io.BytesIO(src)) as zin, zipfile.ZipFile(dst, "w", compress) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, replace.pop(info.filename, zin.read(info.filename)))
        for name, data in replace.items():
            zout.writestr(name, data)
    return dst


BOMB = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
        b' <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n'
        b' <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">\n]>\n'
        b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">&lol3;</workbook>')


def _bad_files(tmp_path):
    good = _xlsx_bytes(tmp_path)
    files = {}
    files["missing"] = tmp_path / "missing.xlsx"
    (tmp_path / "truncated.xlsx").write_bytes(good[: len(good) // 2])
    files["truncated zip"] = tmp_path / "truncated.xlsx"
    (tmp_path / "text.xlsx").write_text("transport,size\nIUCV,9000\n")
    files["text renamed .xlsx"] = tmp_path / "text.xlsx"
    cfb = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504 + \
        "EncryptionInfo".encode("utf-16-le") + b"\0" * 512
    (tmp_path / "encrypted.xlsx").write_bytes(cfb)
    files["password-protected (CFB)"] = tmp_path / "encrypted.xlsx"
    files["DOCTYPE entity bomb"] = _rezip(good, tmp_path / "bomb.xlsx", {"xl/workbook.xml": BOMB})
    files["zip bomb-like entry"] = _rezip(good, tmp_path / "zipbomb.xlsx",
                                         {"xl/media/zeros.bin": b"\0" * (8 * 2**20)})
    (tmp_path / "empty.xlsx").write_bytes(b"")
    files["empty"] = tmp_path / "empty.xlsx"
    files["a zip that is not a workbook"] = _rezip(
        good, tmp_path / "docx.xlsx", {"[Content_Types].xml": b'<?xml version="1.0"?><Types '
                                       b'xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'})
    return files


EXPECT = {"missing": "no such file", "truncated zip": "zip", "text renamed .xlsx": "not an .xlsx",
          "password-protected (CFB)": "password-protected", "DOCTYPE entity bomb": "DTD",
          "zip bomb-like entry": "zip bomb", "empty": "empty",
          "a zip that is not a workbook": "not an Excel workbook"}


def test_bad_files_are_refused_with_one_line(tmp_path):
    for label, path in _bad_files(tmp_path).items():
        out = tmp_path / "out.xlsx"
        rc, stdout, stderr = run_cli("calc", path, "-o", out)
        assert rc != 0, label
        assert stderr.count("\n") == 1 and stderr.startswith("zvmplan: error:"), (label, stderr)
        assert "Traceback" not in stderr, label
        assert EXPECT[label] in stderr, (label, stderr)
        assert not out.exists(), label


def test_refusals_from_the_api(tmp_path):
    from zvmplan_addin.xlsx import UnsafeWorkbookError, safe_open_xlsx
    for label, path in _bad_files(tmp_path).items():
        with pytest.raises(UnsafeWorkbookError) as info:
            safe_open_xlsx(path)
        assert "\n" not in str(info.value), label


# ------------------------------------------------------------------- eval ----
def test_eval_prints_the_value(capsys):
    assert cli.main(["eval", "=ZC_DOUBLE(21)"]) == 0
    assert capsys.readouterr().out == "42\n"


def test_eval_prints_code_and_reason_and_exits_1(capsys):
    assert cli.main(["eval", "=ZC_DOUBLE(13)"]) == 1
    assert capsys.readouterr().out == "#N/A 13 was never measured\n"
    assert cli.main(["eval", '=ZC_DOUBLE("x")']) == 1
    assert capsys.readouterr().out.startswith("#VALUE! x must be a number")


def test_eval_literals_and_arrays(capsys):
    assert cli.main(["eval", '=zc_double(50%)']) == 0
    assert capsys.readouterr().out == "1\n"
    # x takes one value: an array constant is refused, with the reason, on both paths
    assert cli.main(["eval", "=ZC_DOUBLE({1,2;3,4})"]) == 1
    literal = capsys.readouterr().out
    assert cli.main(["eval", "=ZC_DOUBLE({1,2;3,4})*1"]) == 1  # through the engine
    assert capsys.readouterr().out == literal == \
        "#VALUE! ZC_DOUBLE: argument x takes a single value, not a range\n"
    assert cli.main(["eval", "={1,2;3,4}*2"]) == 0
    assert capsys.readouterr().out == "2\t4\n6\t8\n"


def test_eval_falls_back_to_the_engine(capsys):
    assert cli.main(["eval", "=ZC_DOUBLE(20)+SUM(1,1)"]) == 0
    assert capsys.readouterr().out == "42\n"
    assert cli.main(["eval", "=IFERROR(ZC_DOUBLE(13),\"none\")"]) == 0
    assert capsys.readouterr().out == "none\n"


def test_parse_call_takes_literals_only():
    from zvmplan_addin.calls import parse_call
    assert parse_call('=CPCPU_PER_MB("IUCV",9000)') == ("CPCPU_PER_MB", ["IUCV", 9000.0])
    name, args = parse_call('=F("a""b",,TRUE,-1.5e3,{1,2;3,4})')
    assert name == "F" and args[:4] == ['a"b', MISSING, True, -1500.0]  # skipped: missing
    assert args[4].tolist() == [[1, 2], [3, 4]]
    assert parse_call("=F()") == ("F", [])
    for text in ["=F(1)+1", "=F(G(1))", "=F(A1)", "=F(1,2", '=F("x)', "=F({1,2;3})", "1+2"]:
        assert parse_call(text) is None, text


def test_eval_basis_prints_the_basis(capsys):
    if "ZVM_BASIS" not in _loaded() or "CPCPU_PER_MB" not in REGISTRY:
        pytest.skip("no ZVM_BASIS in this installation")
    assert cli.main(["eval", '=CPCPU_PER_MB("IUCV",9000)', "--basis"]) == 0
    value, basis = capsys.readouterr().out.splitlines()
    assert value == "0.012367 CPU-s/MB"  # 000 Table 2, with the unit
    assert basis == REGISTRY["ZVM_BASIS"]("CPCPU_PER_MB", "IUCV", 9000)


def _loaded():
    from zvmplan_addin.calls import load_functions
    return load_functions()


def test_eval_does_not_import_the_engine():
    code = textwrap.dedent("""
        import sys, io, contextlib
        from zvmplan_addin import cli
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = cli.main(["eval", "=ZC_DOUBLE(21)"])
            rc2 = cli.main(["eval", '=CPCPU_PER_MB("IUCV",9000)'])
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("formulas", "openpyxl", "schedula"))
        print(rc, out.getvalue().split()[0], heavy)
    """)
    p = subprocess.run([sys.executable, "-c", DECLARE + code], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "0 42 []"
    p = subprocess.run([sys.executable, "-c", "import sys, zvmplan_addin.cli; print(sorted(m for m in "
                        "sys.modules if m.split('.')[0] in ('formulas', 'openpyxl')))"],
                       capture_output=True, text=True, timeout=120)
    assert p.stdout.strip() == "[]", p.stderr


# -------------------------------------------------------------- functions ----
def test_functions_lists_signature_description_and_args(capsys):
    assert cli.main(["functions"]) == 0
    out = capsys.readouterr().out
    assert "ZC_DOUBLE(x)\n    twice x  -> number\n      x  a number ([MB])\n" in out
    assert "example: =ZC_DOUBLE(2)" in out
    assert cli.main(["functions", "--json"]) == 0
    listed = {f["name"]: f for f in json.loads(capsys.readouterr().out)}
    assert listed["ZC_DOUBLE"]["args"][0] == {"name": "x", "help": "a number", "unit": "MB",
                                              "optional": False, "range": False}
    assert set(listed) == set(REGISTRY)


def test_subcommands_can_be_added():
    seen = []
    cli.register(cli.Command("hello", "say hello", lambda p: p.add_argument("who"),
                             lambda a: seen.append(a.who) or 0))
    try:
        assert cli.main(["hello", "world"]) == 0
        assert seen == ["world"]
    finally:
        del cli.COMMANDS["hello"]


@pytest.mark.parametrize("command", ["fill", "render", "export-lite"])
def test_python_m_cli_sees_the_plugin_subcommands(command):
    """``python -m zvmplan_addin.cli`` runs the module as ``__main__``: the plugins register
    in :mod:`zvmplan_addin.commands`, the one registry both entry points read (they used to
    register into a second copy of the cli module, and ``fill`` was an invalid choice)."""
    proc = subprocess.run([sys.executable, "-m", "zvmplan_addin.cli", command, "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: zvmplan {command} ")


def test_plugin_errors_are_one_line_under_python_m(tmp_path):
    """A plugin's UserError is the command line's own: one line, exit 1, no 'this is a bug'."""
    proc = subprocess.run([sys.executable, "-m", "zvmplan_addin.cli", "render",
                           str(tmp_path / "none.xlsx"), "-o", str(tmp_path), "--dpi", "5"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr == "zvmplan: error: --dpi 5: give 10 to 600\n"


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["nosuchcommand"])
    assert info.value.code == 2


def test_formula_errors_make_no_noise_on_stderr(tmp_path):
    """A formula that fails is a cell value; schedula's log of the failing function
    (with its traceback) must not reach the terminal."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["B1"] = "=NOSUCH(1)", "=IF(B1,NOSUCH(B1),2)", 1
    path = tmp_path / "nosuch.xlsx"
    wb.save(path)
    rc, stdout, stderr = run_cli("calc", path, "-o", tmp_path / "out.xlsx")
    assert rc == 0 and stderr == "", stderr
    assert "not an Excel function: a VBA or add-in function, which the engine does not " \
        "run: NOSUCH" in stdout
    rc, stdout, stderr = run_cli("eval", "=NOSUCH(1)")
    assert rc == 1 and stderr == "" and stdout.startswith("#NAME?")


# ---------------------------------------------------- version, progress bar ----
def test_version(capsys):
    from importlib.metadata import version
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"zvmplan {version('zvmplan')}"


def test_the_version_is_looked_up_only_for_version():
    """Building the command line and running ``calc --help`` leave ``importlib.metadata``
    (~30 ms of every start) unimported; ``--version`` alone reads it (test above)."""
    code = ("import sys, contextlib, io\n"
            "from zvmplan_addin import cli\n"
            "cli.build_parser()\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            "        cli.main(['calc', '--help'])\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print('importlib.metadata' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "False"


class _Terminal(__import__("io").StringIO):
    def isatty(self):
        return True


def test_progress_bar_shows_on_a_terminal_only():
    """No bar when stderr is a pipe or a file; on a terminal the engine's progress calls
    draw one (here with no delay)."""
    assert cli.progress_bar(__import__("io").StringIO()) is None
    term = _Terminal()
    bar = cli.progress_bar(term, delay=0)
    assert "calc: " in term.getvalue()  # drawn at once with no delay
    for done in (256, 512, 700):
        bar.update(done, 700)
    assert (bar.bar.n, bar.bar.total) == (700, 700)
    bar.close()


def test_progress_bar_waits_before_it_shows():
    """A recalculation that ends before the delay (2 s by default) leaves the terminal clean."""
    assert cli.PROGRESS_DELAY == 2.0
    term = _Terminal()
    bar = cli.progress_bar(term)
    bar.update(256, 700)
    bar.close()
    assert term.getvalue() == ""


def test_quiet_calc_has_no_bar(book, tmp_path, monkeypatch):
    """-q: no progress bar even on a terminal."""
    monkeypatch.setattr(cli, "progress_bar", lambda *a, **k: pytest.fail("bar made with -q"))
    assert cli.main(["calc", str(book), "-o", str(tmp_path / "o.xlsx"), "-q"]) == 0


# ----------------------------------------------------------------- render ----
def test_render_a_sheet_of_the_template(tmp_path, capsys):
    """``zvmplan render`` prints the named sheet through LibreOffice to a PNG of its first
    page; an unknown sheet is refused in one line naming the sheets there are."""
    import shutil
    from zvmplan_workbook import build
    if not (shutil.which("soffice") or shutil.which("libreoffice")):
        pytest.skip("LibreOffice is not installed")
    pytest.importorskip("pypdfium2")
    Image = pytest.importorskip("PIL.Image")
    out = tmp_path / "png"
    assert cli.main(["render", str(build.TEMPLATE), "-o", str(out), "--sheet", "Planner",
                     "--dpi", "50"]) == 0
    png = out / "02_Planner.png"
    assert capsys.readouterr().out.split() == [str(png)]
    with Image.open(png) as img:  # one printed page at 50 dpi: 5 to 20 inches a side
        assert img.format == "PNG" and all(250 <= side <= 1000 for side in img.size), img.size
        assert sum(1 for n in img.convert("L").histogram() if n) > 10  # not a blank page
    assert cli.main(["render", str(build.TEMPLATE), "-o", str(out), "--sheet", "Plannr"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no sheet 'Plannr'; sheets: About, Planner" in err


# ------------------------------------------------------------ pipes ----
@pytest.mark.parametrize("args", [["functions"], ["functions", "--json"],
                                  ["eval", '=CPCPU_PER_MB("IUCV",{1500,9000})']])
def test_reader_that_stops_early_is_no_error(args):
    """``zvmplan functions | head -1``: the reader closes the pipe after what it wanted.
    Here it is closed before anything is read, so every write fails (EPIPE): the command
    stops quietly with exit 0 -- no "Broken pipe" on stderr, no exit 1."""
    p = subprocess.Popen([sys.executable, "-m", "zvmplan_addin.cli", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0
    assert err == b""


def test_calc_says_where_a_formula_breaks_the_grammar(tmp_path, capsys):
    """A cell holding =SUM(1,2 (Excel would not have accepted it) keeps its cached value,
    and calc's warning says where the formula breaks, not only that it does."""
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=SUM(1,2"
    wb.active["A2"] = "=1+1"
    wb.save(tmp_path / "in.xlsx")
    # a value the engine cannot compute is never written as if computed: exit 3, nothing
    # written, the cell listed with where its formula breaks
    assert cli.main(["calc", str(tmp_path / "in.xlsx"), "-o", str(tmp_path / "out.xlsx")]) == 3
    assert not (tmp_path / "out.xlsx").exists()
    err = capsys.readouterr().err
    assert ("Sheet!A1: cannot evaluate =SUM(1,2 (syntax error: the ( at position 5 "
            "is never closed)") in err
    assert cli.main(["calc", str(tmp_path / "in.xlsx"), "-o", str(tmp_path / "out.xlsx"),
                     "--keep-stale"]) == 0
    assert ("Sheet!A1: cannot evaluate =SUM(1,2 (syntax error: the ( at position 5 "
            "is never closed)") in capsys.readouterr().err


_CHILD_EXIT = r"""
import atexit, sys
from zvmplan_addin.cli import main
out = sys.argv[1]
atexit.register(lambda: open(out, "w").write("earlier handler ran"))  # a library's cleanup
code = main(["eval", "=1+1"])
code = main(["calc", sys.argv[2], "-o", sys.argv[3]]) or code
print("printed last", end="")  # still buffered when the interpreter exits
sys.exit(code)
"""


def test_the_exit_freeze_keeps_output_handlers_and_files(tmp_path):
    """The command line freezes the objects still alive when the interpreter exits (so
    Python's shutdown does not scan them for cycles): what it printed, even what was
    still buffered, arrives whole; the recalculated workbook is complete; an exit
    handler registered before ``main`` (a library's cleanup) still runs; the exit code
    is kept."""
    marker, out = tmp_path / "marker.txt", tmp_path / "out.xlsx"
    book = write_book(tmp_path / "plain.xlsx", {"Plan": {"A1": 21, "B1": "=A1*2"}})
    run = subprocess.run([sys.executable, "-c", _CHILD_EXIT, str(marker), str(book),
                          str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("2\n") and run.stdout.endswith("printed last")
    assert "formula cells recalculated" in run.stdout
    assert marker.read_text() == "earlier handler ran"
    assert openpyxl.load_workbook(out, data_only=True)["Plan"]["B1"].value == 42


def test_main_registers_the_exit_freeze_once(monkeypatch, capsys):
    """However often ``main`` runs in one process, one ``gc.freeze`` handler is
    registered, and it runs only at exit (the process goes on collecting)."""
    import gc
    from types import SimpleNamespace
    registered = []
    monkeypatch.setattr(cli, "_EXIT_FREEZE", False)
    monkeypatch.setattr(cli, "atexit", SimpleNamespace(register=registered.append))
    assert cli.main(["eval", "=1+1"]) == 0
    assert cli.main(["eval", "=2+2"]) == 0
    assert registered == [gc.freeze]
    assert gc.get_freeze_count() == 0  # nothing frozen while the process goes on

"""The ``zvmplan`` command line.

::

    zvmplan calc IN.xlsx -o OUT.xlsx       recalculate; OUT keeps formulas and caches values
    zvmplan calc IN.xlsx --in-place        ... writing IN itself (atomically)
    zvmplan calc ... --keep-stale          ... even if some formulas could not be computed
    zvmplan check IN.xlsx [--json]         recalculate in memory; list the formula cells
                                           whose value differs from the one Excel saved
    zvmplan eval '=CPCPU_PER_MB("IUCV",9000)' [--basis]   an answer outside the measured
                                           points ends in "(extrapolated)"
    zvmplan functions [--json]             every worksheet function, with its arguments

Subcommands live in the registry of :mod:`zvmplan_addin.commands`: the four above are
registered here, the others (``fill``, ``render``, ``report``, ``template``,
``export-lite``) by the modules listed in
:data:`PLUGINS`, which the command line imports by name when it starts. A plugin imports
:mod:`zvmplan_addin.commands`, never this module, so the dependency runs one way
(cli -> plugin -> commands) and ``python -m zvmplan_addin.cli`` sees the same registry as
the ``zvmplan`` script.

Exit codes: 0 success (also when the reader of stdout stops early, as ``| head`` does:
nothing more is printed, and no "Broken pipe"); 1 an error value from ``eval``, or a file
refused or not written (one line on stderr, never a traceback); 2 a usage error; 3 ``calc``:
some formulas could not be computed and would keep the values cached in the file, nothing
written (the cells listed; ``--keep-stale`` writes them); ``fill`` and ``report`` also 4
(the plan does not fit) and 5 (the plan cannot tell whether it fits); ``check``: 4 some
formula cells differ from the values Excel saved, 5 some could not be computed at all.
"""
from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import json
import os
import sys

#: OpenBLAS, numpy's BLAS, starts its worker threads as numpy is imported and lets each
#: spin for 2**28 clock ticks before it sleeps (after its start and after every job):
#: ~0.04 CPU-s of a ~1.2 CPU-s template calc spent waiting. At 4, OpenBLAS's least, an
#: idle worker sleeps at once. The number of threads, and so how BLAS splits its work and
#: every value it returns, stay as they are; a value set in the environment is kept.
#: OpenBLAS reads it once, when it is loaded: this precedes the first import of numpy.
BLAS_IDLE = ("OPENBLAS_THREAD_TIMEOUT", "4")
os.environ.setdefault(*BLAS_IDLE)

import numpy as np  # noqa: E402  (after BLAS_IDLE, which OpenBLAS reads as it loads)

from .commands import COMMANDS, PROGRESS_DELAY, Command, UserError, progress_bar, register

__all__ = ["main", "build_parser", "PLUGINS", "COMMANDS", "Command", "UserError", "register",
           "progress_bar", "PROGRESS_DELAY"]

PROG = "zvmplan"
#: modules that may add subcommands (``fill``, ``render``, ``report``, ``template``,
#: ``export-lite``); missing ones are skipped
PLUGINS = ("zvmplan_workbook.fill", "zvmplan_workbook.render", "zvmplan_workbook.report",
           "zvmplan_workbook.template",
           "zvmplan_addin.export_lite")


# ------------------------------------------------------------------- calc ----
def _calc_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.xlsx", help="workbook to recalculate (never modified "
                   "unless --in-place)")
    p.add_argument("-o", "--output", metavar="OUT.xlsx",
                   help="where to write the recalculated workbook")
    p.add_argument("--in-place", action="store_true",
                   help="overwrite IN.xlsx (atomically) instead of writing -o")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    p.add_argument("--keep-stale", action="store_true",
                   help="write OUT even if some formulas cannot be computed here: they keep "
                   "the value cached in IN (listed, and the file asks Excel to recalculate "
                   "on open); without it such a run writes nothing and exits 3")


#: ``zvmplan calc``: some formula cells could not be computed; nothing written
EXIT_STALE = 3
STALE_SHOWN = 50        # stale cells listed before "... and N more"


def _print_stale(stale: dict, stream) -> None:
    for cell, why in list(stale.items())[:STALE_SHOWN]:
        print(f"  {cell}: {why}", file=stream)
    if len(stale) > STALE_SHOWN:
        print(f"  ... and {len(stale) - STALE_SHOWN} more", file=stream)


def _calc(args: argparse.Namespace) -> int:
    if not args.in_place and not args.output:
        raise UserError("give -o OUT.xlsx, or --in-place to overwrite the input")
    if args.in_place and args.output:
        raise UserError("give either -o OUT.xlsx or --in-place, not both")
    from .xlsx import check_output_name, target_of
    from .xlsx import safe_open_xlsx
    package = safe_open_xlsx(args.input, parse_sheets=False)  # refuse a bad file first
    try:
        out = args.input if args.in_place else args.output
        check_output_name(package, out)   # and a bad OUT before spending a recalculation
        target_of(out)
        from .recalc import Options, StaleValues, calc
    except BaseException:
        package.close()
        raise
    bar = progress_bar() if not args.quiet else None
    try:
        report = calc(args.input, args.output, in_place=args.in_place,
                      options=Options.from_environ(),  # the engine's switches, read here once
                      progress=bar.update if bar else None, package=package,
                      keep_stale=args.keep_stale)
    except StaleValues as exc:
        if bar:
            bar.close()
            bar = None
        print(f"{PROG}: {exc}:", file=sys.stderr)
        _print_stale(exc.report.stale, sys.stderr)
        return EXIT_STALE
    finally:
        if bar:
            bar.close()
    if report.stale:  # kept as asked: said even with -q
        print(f"{PROG}: warning: {len(report.stale)} formula cells could not be computed "
              "and keep the value cached in the input (the file asks Excel to recalculate "
              "on open):", file=sys.stderr)
        _print_stale(report.stale, sys.stderr)
    if not args.quiet:
        print(f"{report.out_path}: {report.summary()}")
        plan = _plan_results(report.out_path) if "Planner" in report.sheets else None
        errors = [f"{cell}: {code} {reason}" for cell, (code, reason) in report.errors.items()]
        if plan is not None:  # a plan: the errors of the planner's own links, link by link
            from zvmplan_workbook.results import error_lines, planners_cell
            for line in error_lines(plan, report.error_cells):
                print(f"  {line}")
            errors = plan.errors() or [
                f"{cell}: {code} {reason}" for cell, (code, reason) in report.errors.items()
                if planners_cell(plan, cell)]
        for line in errors[:5]:
            print(f"  {line}")
        if len(errors) > 5:
            print(f"  ... and {len(errors) - 5} more")
        others = [w for w in report.warnings if w.partition(": ")[0] not in report.stale]
        for line in others[:10]:
            print(f"  warning: {line}")
        if len(others) > 10:
            print(f"  ... and {len(others) - 10} more warnings")
        if report.unsupported:
            from .recalc.excel.unknown import not_computed_reason
            print(f"  {not_computed_reason(report.unsupported)}")
        if report.full_calc_on_load:
            print("  the file asks Excel to recalculate on open (some values could not be "
                  "computed here)")
        if plan is not None:  # a plan: reading the output back is worth it
            from zvmplan_workbook.results import totals_lines
            for line in totals_lines(plan):
                print(f"  {line}")
    return 0


def _plan_results(path):
    """For a zvmplan plan (a workbook with the Planner table): its results
    (:mod:`zvmplan_workbook.results`); None for any other workbook."""
    try:
        from zvmplan_workbook import results
    except ImportError:  # pragma: no cover - the workbook package is not installed
        return None
    # the collector paused while the plan is read back: what reading makes is rows of
    # values, no cycles, and a full collection started by its allocations would scan
    # the finished engine's objects (0.1 CPU-s after a template's calc), which the exit
    # leaves alone anyway (_freeze_at_exit)
    was = gc.isenabled()
    gc.disable()
    try:
        return results.read(path, written=True)  # the engine wrote it: read it back fast
    except (results.ResultsError, OSError, KeyError, ValueError):
        return None  # not a plan: the counts above are all there is
    finally:
        if was:
            gc.enable()


# ------------------------------------------------------------------ check ----
def _check_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.xlsx", help="an Excel-saved workbook (never modified)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--all", action="store_true",
                   help="list every cell that differs (default: the first 50)")


def _check(args: argparse.Namespace) -> int:
    """Exit 0 when every formula cell agrees with the value Excel saved, 4 when some
    differ, 5 when some could not be computed (see :mod:`zvmplan_addin.check`)."""
    from .check import check, print_report
    report = check(args.input)
    if args.json:
        print(report.to_json())
    else:
        print_report(report, limit=None if args.all else 50)
    return report.exit_code()


# ------------------------------------------------------------------- eval ----
def _eval_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("formula", help="a formula, e.g. '=CPCPU_PER_MB(\"IUCV\",9000)'")
    p.add_argument("--basis", action="store_true",
                   help="also print the basis of the answer (ZVM_BASIS), for each element "
                   "of an array")
    p.add_argument("--no-unit", action="store_true",
                   help="print the value alone, without its unit or the (extrapolated) "
                   "mark, which then goes to stderr (for scripts)")


def _eval(args: argparse.Namespace) -> int:
    """Print the value, its unit, and (``--basis``) why; an error prints its code and
    reason instead. Exit 1 when the answer is an error or an array holding one."""
    from .errors import ExcelError
    from .calls import format_value, load_functions, outer_function, parse_call, resolve
    from .registry import excel_value
    load_functions()
    call = parse_call(args.formula)
    fn = resolve(call[0]) if call else None
    if args.basis and fn is None:
        raise UserError("--basis needs a single zvmplan function call with literal "
                        "arguments, e.g. '=CPCPU_PER_MB(\"IUCV\",9000)'")
    if fn is not None:
        result = fn(*call[1])
    else:  # anything more than one literal call of a zvmplan function
        from .syntax import syntax_error
        bad = syntax_error(args.formula)
        if bad:  # Excel would not take it either: no value, a usage error
            raise UserError(f"{args.formula.strip()}: {bad}")
        result = _eval_with_engine(args.formula)
        if isinstance(result, ExcelError) and result.reason == "cannot read the formula":
            raise UserError(f"{args.formula.strip()}: not a formula Excel can read")
    result = excel_value(result)  # a non-finite number is #NUM!, whichever path gave it
    if isinstance(result, ExcelError):
        print(f"{result.code} {result.reason}".rstrip())
        return 1
    unit_fn = fn or resolve(outer_function(args.formula) or "")
    unit = "" if args.no_unit or unit_fn is None else unit_fn.unit
    basis = fn.explain_each(*call[1]) if fn is not None else None
    if not isinstance(result, np.ndarray):
        text = format_value(result)
        numeric = isinstance(result, (int, float)) and not isinstance(result, bool)
        line = f"{text} {unit}" if unit and numeric else text
        marked = numeric and not args.basis and _extrapolated(basis)
        if marked and not args.no_unit:
            line += f" {EXTRAPOLATED}"
        print(line)
        if marked and args.no_unit:  # stdout stays a number for scripts
            print(f"{PROG}: note: the answer is extrapolated (--basis says how)",
                  file=sys.stderr)
        if args.basis:
            print(basis)
        return 0
    grid = np.atleast_2d(result)
    print(format_value(grid))
    if unit:
        print(f"unit: {unit}")
    errors = [(idx, v) for idx, v in np.ndenumerate(grid) if isinstance(v, ExcelError)]
    if not args.basis and isinstance(basis, np.ndarray) and basis.shape == grid.shape:
        for (r, c), why in np.ndenumerate(basis):
            if _extrapolated(why) and not isinstance(grid[r, c], ExcelError):
                print(f"({r + 1},{c + 1}) {EXTRAPOLATED}")
    if args.basis:
        if isinstance(basis, np.ndarray) and basis.shape == grid.shape:
            for (r, c), why in np.ndenumerate(basis):
                print(f"({r + 1},{c + 1}) {why}")
        else:  # one basis for the whole array (a list such as ZVM_TRANSPORTS)
            print(basis)
    else:
        for (r, c), err in errors:
            print(f"({r + 1},{c + 1}) {err.code} {err.reason}".rstrip())
    return 1 if errors else 0


#: how ``eval`` marks an answer outside the measured points (``--basis`` says how)
EXTRAPOLATED = "(extrapolated)"


def _extrapolated(basis) -> bool:
    """True when the basis text of an answer (:meth:`explain`) says it is extrapolated."""
    return isinstance(basis, str) and basis.startswith("extrapolated")


def _eval_with_engine(formula: str):
    """Evaluate with the formula engine; a call of a function neither zvmplan nor the
    engine knows is #NAME? naming it (even under IFERROR, which would hide it)."""
    from .recalc import evaluate_formula  # the recalculation engine's one parser
    from .errors import NAME, ExcelError
    from .calls import called_functions, did_you_mean, resolve
    from formulas.functions import get_functions, not_implemented
    result = evaluate_formula(formula)
    table = get_functions()  # a defaultdict: a name it was asked for maps to not_implemented
    unknown = [n for n in called_functions(formula) if resolve(n) is None and
               table.get(n.upper(), not_implemented) is not_implemented]
    if unknown:
        return ExcelError(NAME, "; ".join(
            f"{n} is neither a zvmplan function nor one the engine implements{did_you_mean(n)}"
            for n in unknown))
    return result


# -------------------------------------------------------------- functions ----
def _functions_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _functions(args: argparse.Namespace) -> int:
    from .calls import load_functions
    registry = load_functions()
    if args.json:
        print(json.dumps([{
            "name": fn.name, "signature": fn.signature(), "description": fn.description,
            "returns": fn.returns, "example": fn.example, "spill": fn.spill,
            "args": [{"name": p.name, "help": p.help, "unit": p.unit, "optional": p.optional,
                      "range": p.vector} for p in fn.params]} for fn in registry.values()],
            indent=2))
        return 0
    for fn in registry.values():
        print(fn.signature())
        print(f"    {fn.description}" + (f"  -> {fn.returns}" if fn.returns else ""))
        width = max((len(p.name) for p in fn.params), default=0)
        for p in fn.params:
            extra = [p.unit and f"[{p.unit}]", p.optional and "optional"]
            note = ", ".join(e for e in extra if e)
            print(f"      {p.name:<{width}}  {p.help}" + (f" ({note})" if note else ""))
        print(f"    example: {fn.example}")
        print()
    return 0


register(Command("calc", "recalculate a workbook; OUT keeps the formulas and caches the "
                 "values", _calc_args, _calc))
register(Command("check", "recalculate a workbook in memory and list the formula cells "
                 "whose value differs from the one Excel saved", _check_args, _check))
register(Command("eval", "evaluate one formula and print the value (or the error and why)",
                 _eval_args, _eval))
register(Command("functions", "list the worksheet functions with their arguments",
                 _functions_args, _functions))


#: the commands registered above, which need no plugin: ``zvmplan calc`` imports none of
#: them (~0.06 s of a template's recalculation)
BUILTIN_COMMANDS = frozenset(COMMANDS)


# ------------------------------------------------------------------- main ----
def _load_plugins() -> None:
    for module in PLUGINS:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Capacity planning for z/VM networking: recalculate "
        "workbooks, evaluate and list the worksheet functions.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in COMMANDS.values():
        p = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(p)
        p.set_defaults(_run=command.run)
    return parser


class _Version(argparse.Action):
    """``--version``: argparse's version action, the version looked up only when asked
    (``importlib.metadata`` costs ~30 ms, a tenth of a small workbook's ``calc``)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show program's version number and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("zvmplan")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def _names_a_builtin(argv: list[str]) -> bool:
    """Does ``argv`` run one of the commands this module registers (``calc``, ``check``,
    ``eval``, ``functions``)? Its first argument that is not an option is the command
    (the top-level parser's only option, ``--version``, takes no value)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first in BUILTIN_COMMANDS


def _freeze_at_exit() -> None:
    """When the interpreter exits, first move every object still alive out of the cyclic
    garbage collector's view (``gc.freeze``, as an ``atexit`` handler, registered once).

    Python's shutdown clears the modules and runs the collector over every object still
    tracked -- after a template's recalculation, numpy's, formulas' and the engine's
    tables: 0.13-0.23 CPU-s of the command's 1.9, measured as the process's total minus
    its own figure at the end of ``main`` -- to find cycles that nothing needs any more
    as the process ends. Frozen, they are left to the operating system, as Python itself
    leaves whatever is alive at exit (it does not promise ``__del__`` then). Everything
    the command writes is closed before ``main`` returns (the output by
    :func:`~zvmplan_addin.xlsx.atomic_output`), the standard streams are flushed by the
    interpreter after the handlers, and handlers registered earlier
    (``weakref.finalize``, temporary directories) still run after this one. Only the
    exit is affected: a process that goes on after ``main`` (a test) collects as
    before until it ends."""
    global _EXIT_FREEZE
    if not _EXIT_FREEZE:
        atexit.register(gc.freeze)
        _EXIT_FREEZE = True


_EXIT_FREEZE = False


def main(argv: list[str] | None = None) -> int:
    _freeze_at_exit()
    if not _names_a_builtin(sys.argv[1:] if argv is None else list(argv)):
        _load_plugins()  # a plugin's command, --help or a usage error: every command known
    args = build_parser().parse_args(argv)
    try:
        code = args._run(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        return _reader_gone()
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if os.environ.get("ZVMPLAN_DEBUG"):
            raise
        print(f"{PROG}: error: {_message(exc)}", file=sys.stderr)
        return 1


def _reader_gone() -> int:
    """stdout's reader went away (``zvmplan functions | head -1``): it asked for no more,
    so stop quietly with exit 0, and point stdout at the null device so that Python's
    final flush of what is still buffered cannot complain either (Python's documented
    recipe, "Note on SIGPIPE" in the signal module's documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):  # pragma: no cover - no real stdout
        pass
    return 0


def _message(exc: BaseException) -> str:
    """One line, whatever the exception."""
    from .xlsx import UnsafeWorkbookError
    known = isinstance(exc, (UserError, UnsafeWorkbookError)) or \
        type(exc).__name__ == "EngineError"
    text = " ".join(str(exc).split())
    if known:
        return text
    if isinstance(exc, OSError):
        return f"{exc.filename or ''}: {exc.strerror or text}".lstrip(": ")
    return (f"{type(exc).__name__}: {text} (this is a bug; run with ZVMPLAN_DEBUG=1 for "
            "the traceback)")


if __name__ == "__main__":  # python -m zvmplan_addin.cli
    sys.exit(main())

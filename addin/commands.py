"""The registry of ``zvmplan`` subcommands, and what a subcommand needs from the command line.

Adding a subcommand: write a :class:`Command` (a name, a one-line help, ``configure`` to
declare its arguments on an argparse parser and ``run`` returning the exit code) and pass it
to :func:`register`, in a module listed in :data:`zvmplan_addin.cli.PLUGINS` (imported when
the command line starts, if it is installed). Keep that module's top-level imports light and
import heavy packages inside ``run``: ``zvmplan eval`` must start without ``formulas`` or
``openpyxl``. Raise :class:`UserError` for anything the user can fix.

This module imports nothing from the rest of zvmplan: plugins import it, and
:mod:`zvmplan_addin.cli` imports it and (by name, at start) the plugins.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Callable

__all__ = ["Command", "COMMANDS", "register", "UserError", "progress_bar", "PROGRESS_DELAY"]


class UserError(Exception):
    """Something the user can fix; printed as one line, exit code 1."""


@dataclass
class Command:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


COMMANDS: dict[str, Command] = {}


def register(command: Command) -> Command:
    """Add (or replace) a subcommand."""
    COMMANDS[command.name] = command
    return command


class _Bar:
    """A tqdm bar fed by the engine's ``progress(done, total)``. Nothing is drawn for the
    first ``delay`` seconds, so a quick recalculation stays silent; after that a thread
    redraws it twice a second, so the elapsed time moves even while the engine reads,
    compiles, or evaluates a long column without reporting."""

    def __init__(self, stream, delay: float):
        import threading
        from tqdm import tqdm
        self.bar = tqdm(total=None, unit="cell", desc="calc", leave=False, file=stream,
                        delay=delay, dynamic_ncols=True)
        self._stop = threading.Event()
        self._drawn = False
        self._thread = threading.Thread(target=self._tick, args=(delay,), daemon=True)
        self._thread.start()

    def _tick(self, delay: float) -> None:
        if self._stop.wait(delay):
            return
        while not self._stop.wait(0.5):
            self.bar.refresh()
            self._drawn = True

    def update(self, done: int, total: int) -> None:
        self.bar.total = total
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        if self._drawn:  # tqdm clears only what its own update() drew
            self.bar.clear()
        self.bar.close()


#: seconds a recalculation runs before its progress bar appears
PROGRESS_DELAY = 2.0


def progress_bar(stream=None, delay: float = PROGRESS_DELAY) -> _Bar | None:
    """A progress bar on ``stream`` (stderr) if it is an interactive terminal, else None."""
    stream = sys.stderr if stream is None else stream
    try:
        return _Bar(stream, delay) if stream.isatty() else None
    except (AttributeError, ValueError):
        return None

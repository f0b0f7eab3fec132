"""Writing a file safely: atomically, never onto a device, cleaned up on signals.

:func:`atomic_output` is the one way zvmplan writes a workbook (``calc -o``,
``calc --in-place``, ``fill``, the template build):

* OUT must be a regular file or not exist yet. A device, FIFO, socket or directory is
  refused (``-o /dev/null`` as root once replaced the device node with a file).
* OUT a symbolic link: the file it points to is written (the link stays a link), as
  ``--in-place`` does with a linked input.
* The bytes go to a hidden temporary file ``.zvmplan-*.xlsx.tmp`` next to the target,
  are flushed to disk and moved into place with :func:`os.replace`, so a reader never
  sees half a file. On an error, Ctrl-C, SIGTERM or SIGHUP the temporary file is
  removed (then the signal takes its usual effect); a SIGKILL cannot be caught, so each
  run also removes such temporary files of its own user in the target folder that are
  older than :data:`STALE_TEMP_SECONDS`.
* Every message names the path the user gave, never the temporary file: "OUT: cannot
  write (No space left on device)".
"""
from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
import time

from .errors import UnsafeWorkbookError, one_line

TEMP_PREFIX = ".zvmplan-"
TEMP_SUFFIX = ".xlsx.tmp"
STALE_TEMP_SECONDS = 15 * 60        #: a temp file of ours older than this is a leftover
_SIGNALS = tuple(getattr(signal, s) for s in ("SIGTERM", "SIGHUP") if hasattr(signal, s))


class OutputError(UnsafeWorkbookError):
    """OUT cannot be written; the message names OUT as the user gave it."""


class _Signalled(BaseException):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def target_of(out_path: str) -> str:
    """The file that writing ``out_path`` replaces: the path itself, or the end of its
    chain of symbolic links. Refuses anything but a regular file or a new name."""
    out_path = os.fspath(out_path)
    target = os.path.realpath(out_path) if os.path.islink(out_path) else os.path.abspath(out_path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{out_path}: cannot write ({exc.strerror or one_line(exc)})") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else
                "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else
                "a FIFO" if stat.S_ISFIFO(st.st_mode) else
                "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise OutputError(f"{out_path}: is {kind}, not a regular file; refused (nothing written)")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise OutputError(f"{out_path}: no such directory {folder}")
    return target


def remove_stale_temps(folder: str, now: float | None = None) -> list[str]:
    """Remove this user's leftover ``.zvmplan-*.xlsx.tmp`` files older than
    :data:`STALE_TEMP_SECONDS` in ``folder``; returns their names."""
    now = time.time() if now is None else now
    uid = os.getuid() if hasattr(os, "getuid") else None
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)):
            continue
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode) or (uid is not None and st.st_uid != uid) or \
                    now - st.st_mtime < STALE_TEMP_SECONDS:
                continue
            os.unlink(path)
            removed.append(name)
        except OSError:
            continue
    return removed


@contextlib.contextmanager
def _signals_raise():
    """Turn SIGTERM/SIGHUP into an exception while the block runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise _Signalled(signum)
    old = {}
    try:
        for s in _SIGNALS:
            if signal.getsignal(s) is not signal.SIG_IGN:   # nohup stays nohup
                old[s] = signal.signal(s, handler)
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(out_path: str, *, before_replace=None, mode: int | None = None):
    """Yield a binary file handle; on success its bytes replace OUT atomically.

    ``before_replace``: called after the bytes are on disk, before the move (the
    calculator closes its input there: Windows cannot replace an open file).
    ``mode``: permissions of a new file (default: 0o666 less the umask; an existing
    OUT keeps its own)."""
    shown = os.fspath(out_path)
    target = target_of(shown)
    folder = os.path.dirname(target)
    remove_stale_temps(folder)
    try:
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise OutputError(f"{shown}: cannot write ({exc.strerror or one_line(exc)})") from None
    signalled = None
    try:
        with _signals_raise():
            try:
                with os.fdopen(fd, "wb") as fh:
                    yield fh
                    fh.flush()
                    os.fsync(fh.fileno())
                if before_replace is not None:
                    before_replace()
                try:
                    keep = os.stat(target).st_mode & 0o7777
                except FileNotFoundError:
                    keep = (0o666 & ~_umask()) if mode is None else mode
                os.chmod(tmp, keep)
                target_of(shown)        # still a regular file (or none) at the last moment
                os.replace(tmp, target)
                tmp = None
            except _Signalled as exc:
                signalled = exc.signum
    except OSError as exc:
        raise OutputError(f"{shown}: cannot write ({exc.strerror or one_line(exc)})") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    if signalled is not None:    # cleaned up: now let the signal do what it would have done
        os.kill(os.getpid(), signalled)
        raise SystemExit(128 + signalled)

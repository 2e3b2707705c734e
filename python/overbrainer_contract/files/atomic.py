"""The one writer of the files we create: a temporary beside the target, then a rename.

A file (or a folder of files) we write is first written to a temporary beside its
target, named `.NAME.PID.RANDOM.tmp`: `PID` the writing process, `RANDOM` 16 hex digits
from `os.urandom`, so no one can plant the name ahead. The file is created exclusively
(`O_CREAT|O_EXCL|O_NOFOLLOW`: neither a file nor a symlink already there is written
through), written, flushed to disk (`fsync`) and put in place by `os.replace`, which
is atomic on one file system: the target is the earlier file or the whole new one,
never half of one, and a symlink at the target is replaced, not followed.

The temporary is removed when the writing fails (a full disk: the earlier file stays as
it was) and when the process is ended by SIGINT, SIGTERM or SIGHUP while writing (their
default action is kept: after the removal the signal ends the process as it would have).
A SIGKILL leaves it; the next writer of the same target removes it (`clean_stale`): a
temporary of that target whose process is gone (`os.kill(PID, 0)` finds none) is stale.
The rule is by process id on this machine: a pid reused since keeps its temporary until
that process is gone too.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import IO, Any

CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
"""How a file we create is opened: only if nothing (no file, no symlink) has that name."""

_ENDING: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that end a process by default and after which no temporary is left."""


class Ended(BaseException):
    """A signal (`signum`) that ends the process arrived while a temporary was open."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def create_exclusive(path: str | os.PathLike[str], mode: int = 0o666) -> IO[bytes]:
    """`path` created for writing, exclusively: `FileExistsError` when anything (a file, a
    symlink, a folder) already has that name. `mode` before the umask."""
    return os.fdopen(os.open(path, CREATE_FLAGS, mode), "wb")


def temporary_name(target: Path) -> Path:
    """A fresh temporary's name for `target`, beside it: `.NAME.PID.RANDOM.tmp`."""
    return target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(8).hex()}.tmp")


def _stale_pattern(target: Path) -> re.Pattern[str]:
    # `.NAME.PID.tmp` too: the name temporaries had before they held a random part.
    return re.compile(rf"\.{re.escape(target.name)}\.([0-9]+)(?:\.[0-9a-f]{{16}})?\.tmp")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except (OverflowError, OSError):  # not a pid this system has
        return False
    return True


def clean_stale(target: Path) -> list[Path]:
    """Remove the temporaries of `target` left by processes that are gone (a SIGKILL):
    those beside it named for it (`.NAME.PID...tmp`) whose `PID` no process has. The
    paths removed; nothing else is touched (a symlink is removed, never followed)."""
    pattern = _stale_pattern(target)
    removed: list[Path] = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        found = pattern.fullmatch(name)
        if found is None or _alive(int(found.group(1))):
            continue
        path = target.parent / name
        if _remove(path):
            removed.append(path)
    return removed


def _remove_tree(path: Path) -> None:
    """A temporary folder (a partitioned export's) removed with what it holds; shutil is
    loaded only here: not every command's start."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _remove(path: Path) -> bool:
    """A temporary removed (a folder with what it holds, a symlink itself, never what it
    points to); whether it could be."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            _remove_tree(path)
        else:
            path.unlink()
    except OSError:
        return False
    return True


def _sync_folder(folder: Path) -> None:
    """The rename made durable: the folder's entry flushed (where the system allows)."""
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


@contextlib.contextmanager
def _ended_by_signals() -> Iterator[None]:
    """Within: a signal whose action is to end the process raises `Ended` instead (so the
    temporary is removed on the way out); after: the action restored, and an `Ended` sent
    again, so the process ends by the signal as it would have. Only the main thread
    receives signals: elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    taken: dict[int, Any] = {}

    def raise_ended(signum: int, _frame: FrameType | None) -> None:
        raise Ended(signum)

    for ending in _ENDING:
        if signal.getsignal(ending) is signal.SIG_DFL:
            taken[ending] = signal.signal(ending, raise_ended)
    try:
        yield
    except Ended as ended:
        for signum, before in taken.items():
            signal.signal(signum, before)
        taken.clear()
        if ended.signum in _ENDING and signal.getsignal(ended.signum) is signal.SIG_DFL:
            os.kill(os.getpid(), ended.signum)
        raise
    finally:
        for signum, before in taken.items():
            signal.signal(signum, before)


@contextlib.contextmanager
def atomic_path(target: Path, *, folder: bool = False) -> Iterator[Path]:
    """A temporary path for `target`: with `folder`, an empty folder created (by `mkdir`,
    exclusive by nature); else a name on which nothing exists yet, for the caller to
    create with `create_exclusive`. Once the block ends without error it replaces
    `target` (an empty folder too); on an error or an ending signal it is removed and
    `target` left as it was. Stale temporaries of `target` are removed first."""
    clean_stale(target)
    temporary = temporary_name(target)
    if folder:
        temporary.mkdir()
    with _ended_by_signals():
        try:
            yield temporary
            os.replace(temporary, target)
        except BaseException:
            _remove(temporary)
            raise
    _sync_folder(target.parent)


@contextlib.contextmanager
def atomic_file(target: Path, mode: int = 0o666) -> Iterator[IO[bytes]]:
    """`target` written atomically: an open binary file (the temporary, created
    exclusively) to write; once the block ends without error it is flushed to disk and
    renamed onto `target`. On an error (a full disk) or an ending signal it is removed
    and `target` left as it was, byte for byte."""
    with atomic_path(target) as temporary:
        handle = create_exclusive(temporary, mode)
        try:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        finally:
            handle.close()


def write_atomically(target: Path, data: bytes, mode: int = 0o666) -> None:
    """`target` replaced by `data`, atomically (see `atomic_file`)."""
    with atomic_file(target, mode) as handle:
        handle.write(data)


__all__ = [
    "CREATE_FLAGS",
    "Ended",
    "atomic_file",
    "atomic_path",
    "clean_stale",
    "create_exclusive",
    "temporary_name",
    "write_atomically",
]

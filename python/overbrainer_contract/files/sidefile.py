"""Opening the files of a run folder that someone else may have put there: without
blocking, only when they are what they should be, with a bound on what is read.

A run folder is written by a training job, an orchestrator and people; any of its files
may be a FIFO (opening it for reading would wait for a writer for ever), a symlink to
`/dev/zero` (reading it would never end), a sparse file of a terabyte, a symlink loop or
a folder. Every file the command line opens goes through here: it is opened with
`O_NONBLOCK` (a FIFO opens at once), looked at with `fstat` on what was opened (no race
with a rename), and refused, with one line naming the path and what it is, unless it is a
regular file — a metrics file may also be a pipe, as standard input is.

The side files (`snapshot.request`, `snapshot.json`) are opened with `O_NOFOLLOW` too: a
symlink there is refused unread (`a symlink, not read`), whatever it points to. They are
written by the plugin and by `snapshot`, never as links; one planted in the folder could
point at a file its planter may not read (a token, a key) that `status` would print
otherwise. A metrics file may be a link: an orchestrator may set one up before the run.

What a side file's bytes mean (a proof's problems, a request's word, the pending rule) is
the core's (`overbrainer_core::side`): this module only opens and reads.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

# The most bytes `snapshot.request` and `snapshot.json` may hold: the contract's
# `max_bytes` (schema/contract.json), the request's what the plugin reads of it.
from ..contract.constants import PROOF_LIMIT as PROOF_LIMIT
from ..contract.constants import REQUEST_LIMIT as REQUEST_LIMIT

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class SideFileError(OSError):
    """A file that cannot be read as one: its message is the one line the user sees."""

    def __init__(self, path: Path | str, what: str) -> None:
        super().__init__(f"{path}: {what}")
        self.message = f"{path}: {what}"
        self.what = what

    def __str__(self) -> str:
        return self.message


def what_it_is(mode: int) -> str:
    """`a FIFO`, `a folder`, ... for a file's mode; `a regular file` for one."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


SYMLINK = "a symlink, not read"
"""What a side file that is a symlink is said to be (it is refused unread)."""


def _is_link(path: Path | str) -> bool:
    """Whether `path` itself (its last component) is a symlink."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _reason(path: Path | str, error: OSError, *, follow: bool = True) -> SideFileError:
    """The one line for a failed open or stat (`follow`: whether the open followed a
    symlink at `path`; without, a symlink there fails with ELOOP too)."""
    if error.errno == errno.ELOOP:
        if not follow and _is_link(path):
            return SideFileError(path, SYMLINK)
        return SideFileError(path, "a symlink loop (too many levels of symbolic links)")
    if error.errno == errno.ENXIO:  # a socket, or a device without its driver
        try:
            return SideFileError(path, f"{what_it_is(os.stat(path).st_mode)}, not a file")
        except OSError:
            pass
    return SideFileError(path, (error.strerror or str(error)).lower())


def _open(path: Path | str, *, follow: bool = True) -> tuple[int, os.stat_result]:
    """A descriptor opened without blocking, and what it is; FileNotFoundError if missing.
    Without `follow`, a symlink at `path` is refused (`O_NOFOLLOW`), a dangling one too."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= os.O_NOFOLLOW
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise _reason(path, error, follow=follow) from error
    try:
        return descriptor, os.fstat(descriptor)
    except OSError as error:  # pragma: no cover - fstat of an open descriptor
        os.close(descriptor)
        raise _reason(path, error) from error


def read_side_file(path: Path, limit: int) -> bytes | None:
    """The bytes of `path`, a regular file (not a symlink) of at most `limit` bytes; None
    when it does not exist. Anything else raises `SideFileError`, without blocking, without
    following a link and without reading more than `limit + 1` bytes."""
    read = read_stamped(path, limit)
    return None if read is None else read[0]


def read_stamped(path: Path, limit: int) -> tuple[bytes, int] | None:
    """As `read_side_file`, with the file's modification time (ns) of what was read."""
    try:
        descriptor, info = _open(path, follow=False)
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(info.st_mode):
            raise SideFileError(path, f"{what_it_is(info.st_mode)}, not a file")
        if info.st_size > limit:
            raise SideFileError(path, f"{info.st_size:,} bytes, over the {limit:,} it may hold")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # it may grow after fstat: read at most one byte too many
            chunk = os.read(descriptor, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise SideFileError(path, f"over the {limit:,} bytes it may hold")
        return b"".join(chunks), info.st_mtime_ns
    except SideFileError:
        raise
    except OSError as error:
        raise _reason(path, error) from error
    finally:
        os.close(descriptor)


def exists(path: Path) -> bool:
    """Whether something is at `path` (a dangling symlink is nothing; a loop is something)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def open_metrics(path: Path | str, *, pipe: bool = True) -> BinaryIO:
    """`path` opened for reading binary lines: a regular file, or (`pipe`) a FIFO read as a
    stream, as standard input is — a FIFO without a writer reads as empty, at once.
    FileNotFoundError when it does not exist; anything else is a `SideFileError`."""
    descriptor, info = _open(path)
    mode = info.st_mode
    if not (stat.S_ISREG(mode) or (pipe and stat.S_ISFIFO(mode))):
        os.close(descriptor)
        raise SideFileError(path, f"{what_it_is(mode)}, not a file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")

"""Following a growing metrics file: the complete lines appended since the last look.

Used by `watch` (the whole run, live) and `snapshot --wait` (the lines written after the
request: did the run end without a proof?). The bytes appended are fed to a scan of the
core, which holds a line until its newline, whatever its length, and gives back what its
lines are worth: `reader.StateScan` by default (the lines a run's state is made of),
`reader.WatchScan` for `watch` (the events of a run followed, its state folded by the
core). Each look reads at most one chunk, so a backlog of millions of lines is taken a
chunk at a time in flat memory.

The file is the one at the path, whoever put it there: at every look the follower checks
that what it reads is still that file, as it was read (`Change`). A file that is not (cut
shorter, rewritten in place, replaced by another, removed) is never read on from the old
offset, which would start in the middle of a line of other bytes: it is read again from
its start, a run of its own (a removed one once a file is there again).
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Generic, Protocol, TypeVar, overload

from .. import _core
from ..reader import StateScan
from .chunks import CHUNK
from .sidefile import open_metrics

if TYPE_CHECKING:
    from .._core import StateItem

SAMPLE = 64
"""Bytes kept of what was read, at its start and just before the offset: read back at
each look, they tell a file rewritten in place from one that only grew (a truncated file
written again past the old offset has the same size and identity, other bytes)."""


T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Scanner(Protocol[T_co]):
    """A scan of the core a followed file is fed to (`StateScan`, `WatchScan`)."""

    def feed(self, chunk: bytes, /) -> T_co: ...
    @property
    def lines(self) -> int: ...


class Change(enum.Enum):
    """What a look found of the file at the path, other than new bytes."""

    TRUNCATED = "truncated"
    """The same file, shorter than what was read: read again from its start."""
    REWRITTEN = "rewritten"
    """The same file, its bytes already read changed (truncated and written again past
    the offset between two looks): read again from its start."""
    REPLACED = "replaced"
    """Another file at the path (its st_dev/st_ino): the old one read to the size it had
    then, the new one from its start."""
    REMOVED = "removed"
    """Nothing at the path: the old file read to the size it had then, and left."""
    BACK = "back"
    """A file at the path again after it was removed: read from its start."""

    def text(self, path: str) -> str:
        """What every face says on finding this change of the file it shows as `path`
        (the core's words: `watch`, the viewer)."""
        return _core.change_text(self.value, path)


class Follower(Generic[T]):
    """The complete lines appended to a file since the last look, as the core keeps them.

    Keeps the file open and its offset: each look reads only new bytes, at most `block`
    of them (`behind` says whether more are there already). A partial last line waits for
    its newline (a line over the user's `max_line` bytes is skipped, and kept as `over`).
    Each look says in `change` what it found (a `Change`, or None); every one but
    `REMOVED` restarts the reading from the file's start (`restarted` set, the line
    numbers from 1). Only a regular file is followed: anything else is a `SideFileError`.
    """

    @overload
    def __init__(
        self: Follower[list[StateItem]],
        path: Path,
        offset: int = 0,
        block: int = CHUNK,
        max_line: int | None = None,
    ) -> None: ...
    @overload
    def __init__(
        self,
        path: Path,
        offset: int = 0,
        block: int = CHUNK,
        max_line: int | None = None,
        *,
        scan: Callable[[int | None], Scanner[T]],
    ) -> None: ...
    def __init__(
        self,
        path: Path,
        offset: int = 0,
        block: int = CHUNK,
        max_line: int | None = None,
        *,
        scan: Callable[[int | None], Scanner[T]] | None = None,
    ) -> None:
        """`scan`: what makes the scan the bytes are fed to, given `max_line` (a
        `StateScan` by default); a new one at each restart."""
        self.path = path
        self.handle: BinaryIO | None = None
        self.offset = offset
        self.block = block
        self.max_line = max_line
        self._new_scan: Callable[[int | None], Scanner[T]] = (
            scan if scan is not None else StateScan  # type: ignore[assignment]
        )
        self.scan = self._new_scan(max_line)
        self.restarted = False
        """Set when the reading starts again from the file's start; the caller clears it."""
        self.change: Change | None = None
        """What the latest look found (None: the same file, maybe grown)."""
        self.behind = False
        """Whether the last look left bytes unread (the next one needs no wait)."""
        self._identity: tuple[int, int] | None = None
        self._known = False  # a file was opened at the path once
        self._gone = False  # ... and the path has been empty since
        self._head = b""
        self._tail = b""
        self._leaving: Change | None = None  # REPLACED or REMOVED: read to `_until`, then left
        self._until = 0

    @property
    def lines(self) -> int:
        """Complete lines read so far (since the last restart)."""
        return self.scan.lines

    def poll(self) -> T | None:
        """What the scan gives of the complete lines appended (its `feed`); None while the
        file does not exist (`change` is `REMOVED` at the look that finds it gone)."""
        self.change = None
        data = self._read()
        return None if data is None else self.scan.feed(data)

    def _read(self) -> bytes | None:
        """The next bytes appended (b"": none yet), at most a block; None while the file
        does not exist."""
        if self.handle is None and not self._open():
            return None
        assert self.handle is not None
        size = os.fstat(self.handle.fileno()).st_size
        if self._leaving is None:
            found = self._look(size)
            if found in (Change.TRUNCATED, Change.REWRITTEN):
                self._restart(found)
            elif found is not None:  # what was written before it went is read first
                self._leaving, self._until = found, size
        if self._leaving is not None:
            if self.offset >= self._until:
                self._leave()
                return self._read()
            size = self._until
        if size <= self.offset:
            self.behind = False
            return b""
        self.handle.seek(self.offset)
        data = self.handle.read(min(self.block, size - self.offset))
        self._took(data)
        # maybe more there: read on without a wait (and a file being left, left at once)
        self.behind = len(data) == self.block or self._leaving is not None
        return data

    def _open(self) -> bool:
        """Open the file at the path; whether there is one. A file opened after one was
        followed is a new one: the reading restarts (`REPLACED`, or `BACK` after
        `REMOVED`); a followed file found missing is `REMOVED`, said once."""
        try:
            handle = open_metrics(self.path, pipe=False)
        except FileNotFoundError:
            if self._known and not self._gone:
                self._gone, self.change = True, Change.REMOVED
            return False
        info = os.fstat(handle.fileno())
        if self._known:
            self._restart(Change.BACK if self._gone else Change.REPLACED)
        self._known, self._gone = True, False
        self.handle, self._identity = handle, (info.st_dev, info.st_ino)
        return True

    def _look(self, size: int) -> Change | None:
        """Whether the file open is still the one at the path, as it was read."""
        assert self.handle is not None
        try:
            there = os.stat(self.path)
        except FileNotFoundError:
            return Change.REMOVED
        except OSError:  # a loop, a folder on the way: opening it again says what it is
            return Change.REPLACED
        if (there.st_dev, there.st_ino) != self._identity:
            return Change.REPLACED
        if size < self.offset:
            return Change.TRUNCATED
        descriptor = self.handle.fileno()
        head = os.pread(descriptor, len(self._head), 0) if self._head else b""
        start = self.offset - len(self._tail)
        tail = os.pread(descriptor, len(self._tail), start) if self._tail else b""
        if head != self._head or tail != self._tail:
            return Change.REWRITTEN
        return None

    def _took(self, data: bytes) -> None:
        """Keep the samples of what was read (`SAMPLE`), and move the offset past it."""
        self.offset += len(data)
        if len(self._head) < SAMPLE:
            self._head += data[: SAMPLE - len(self._head)]
        self._tail = data[-SAMPLE:] if len(data) >= SAMPLE else (self._tail + data)[-SAMPLE:]

    def _leave(self) -> None:
        """Close the file being left; the next look opens what is at the path."""
        self._close()
        self._leaving = None

    def _restart(self, change: Change) -> None:
        """Read from the file's start again, a run of its own."""
        self.offset = 0
        self.behind = False
        self.scan = self._new_scan(self.max_line)
        self._head = self._tail = b""
        self.restarted = True
        self.change = change

    def _close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None

    def close(self) -> None:
        self._close()

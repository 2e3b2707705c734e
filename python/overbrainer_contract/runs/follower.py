"""Following a growing metrics file: the complete lines appended since the last look.

Used by `watch` (the whole run, live) and `snapshot --wait` (the lines written after the
request: did the run end without a proof?). The bytes appended are fed to the core
(`reader.StateScan`), which holds a line until its newline, whatever its length, and gives
back only the lines a run's state is made of. Each look reads at most one chunk, so a
backlog of millions of lines is taken a chunk at a time in flat memory.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from ..reader import StateScan
from .chunks import CHUNK
from .sidefile import open_metrics

if TYPE_CHECKING:
    from overbrainer_contract_core._core import StateItem


class Follower:
    """The complete lines appended to a file since the last look, as the core keeps them.

    Keeps the file open and its offset: each look reads only new bytes, at most `block`
    of them (`behind` says whether more are there already). A partial last line waits for
    its newline (a line over the user's `max_line` bytes is skipped, and kept as `over`). A
    file that shrinks or is replaced is read again from its start (`restarted`). Only a
    regular file is followed: anything else is a `SideFileError`.
    """

    def __init__(
        self, path: Path, offset: int = 0, block: int = CHUNK, max_line: int | None = None
    ) -> None:
        self.path = path
        self.handle: BinaryIO | None = None
        self.offset = offset
        self.block = block
        self.max_line = max_line
        self.scan = StateScan(max_line)
        self.restarted = False
        self.behind = False
        """Whether the last look left bytes unread (the next one needs no wait)."""

    @property
    def lines(self) -> int:
        """Complete lines read so far (since the last restart)."""
        return self.scan.lines

    def poll(self) -> list[StateItem] | None:
        """What the complete lines appended keep (`StateScan.feed`); None while the file
        does not exist.

        Within a backlog (`behind`) the next block is read at once; between blocks, and
        only there, the file is looked at: shrunk or replaced, it is read again."""
        data = self._read()
        return None if data is None else self.scan.feed(data)

    def _read(self) -> bytes | None:
        """The next bytes appended (b"": none yet), at most a block; None while the file
        does not exist."""
        if self.handle is None:
            try:
                self.handle = open_metrics(self.path, pipe=False)
            except FileNotFoundError:
                return None
        if not self.behind:
            size = os.fstat(self.handle.fileno()).st_size
            if size < self.offset or self._replaced():
                self.reopen()
                return self._read()
            if size == self.offset:
                return b""
            self.handle.seek(self.offset)
        data = self.handle.read(self.block)
        self.offset += len(data)
        self.behind = len(data) == self.block  # maybe more there: read on without a wait
        return data

    def _replaced(self) -> bool:
        assert self.handle is not None
        try:
            return os.stat(self.path).st_ino != os.fstat(self.handle.fileno()).st_ino
        except FileNotFoundError:
            return False

    def reopen(self) -> None:
        if self.handle is not None:
            self.handle.close()
        self.handle = None
        self.offset = 0
        self.behind = False
        self.scan = StateScan(self.max_line)
        self.restarted = True

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None

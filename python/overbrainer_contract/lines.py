"""The lines of a metrics file, read in blocks with a bound on memory.

Iterating a binary file line by line holds a whole line in memory, however long: a file
of junk without a newline, or `/dev/zero`, is read whole before its first "line" comes.
Here the file is read a block at a time; a line is held until its newline only while it
is at most `MAX_LINE` bytes, and a longer one is skipped to its newline and stands as an
`Overlong` marker. Memory stays under `MAX_LINE + BLOCK` whatever the input.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import IO

MAX_LINE = 1 << 20
"""The longest line held whole: 1 MiB (overbrainer's lines are a few hundred bytes)."""

BLOCK = 1 << 16
"""Bytes read at a time: 64 KiB, small enough that a line is still in the CPU's cache when
it is parsed (1 MiB blocks cost `check` 15% more per line, `nox -s bench`)."""


class Overlong(bytes):
    """Stands for a line longer than `MAX_LINE` (its bytes are not kept): `size` is its
    length, its newline included when `complete`."""

    size: int
    complete: bool

    def __new__(cls, size: int, complete: bool) -> Overlong:
        marker = super().__new__(cls)
        marker.size = size
        marker.complete = complete
        return marker


class LineSplitter:
    """Cuts blocks of bytes into lines (each with its newline), holding the incomplete
    last one until its newline comes, as long as it is at most `max_line` bytes."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self.pending = b""
        self.skipped = 0
        """Bytes of an overlong line skipped so far (0: none under way)."""

    def feed(self, block: bytes) -> Iterable[bytes]:
        """The lines that `block` completes, in order."""
        first: Overlong | None = None
        if self.skipped:
            end = block.find(b"\n")
            if end < 0:
                self.skipped += len(block)
                return ()
            first = Overlong(self.skipped + end + 1, True)
            self.skipped = 0
            block = block[end + 1 :]
        data = self.pending + block if self.pending else block
        end = data.rfind(b"\n") + 1
        body, rest = data[:end], data[end:]
        if len(rest) > self.max_line:
            self.skipped, rest = len(rest), b""
        self.pending = rest
        lines: Iterable[bytes] = io.BytesIO(body) if body else ()
        return lines if first is None else (first, *lines)

    def finish(self) -> bytes | None:
        """The last line, without its newline (or an `Overlong`), at the end of the input."""
        last: bytes | None = self.pending or None
        if self.skipped:  # an empty marker: not falsy in meaning, so never `or`-ed
            last = Overlong(self.skipped, False)
        self.pending, self.skipped = b"", 0
        return last


def read_blocks(
    handle: IO[bytes], max_line: int = MAX_LINE, block: int = BLOCK
) -> Iterator[Iterable[bytes]]:
    """The lines of `handle`, a block's worth at a time (see `read_lines`)."""
    read = getattr(handle, "read1", handle.read)  # what is there: a pipe is not waited on
    splitter = LineSplitter(max_line)
    while True:
        data = read(block)
        if not data:
            break
        yield splitter.feed(data)
    last = splitter.finish()
    if last is not None:
        yield (last,)


def read_lines(handle: IO[bytes], max_line: int = MAX_LINE, block: int = BLOCK) -> Iterator[bytes]:
    """The lines of `handle` (each with its newline but maybe the last), read a block at a
    time: as iterating the file, with memory bounded by `max_line + block`. Chained in C
    (no Python frame per line): it costs what iterating the file costs."""
    return chain.from_iterable(read_blocks(handle, max_line, block))

"""The lines of a metrics file, read in blocks with a bound on memory.

Iterating a binary file line by line holds a whole line in memory, however long: a file
of junk without a newline, or `/dev/zero`, is read whole before its first "line" comes.
Here the file is read a block at a time; a line is held until its newline only while it
is at most `max_line` bytes (`MAX_LINE` unless the user gives another bound: the CLI's
`--max-line`), and a longer one is skipped to its newline and stands as an `Overlong`
marker. Memory stays under `max_line + BLOCK` whatever the input, and whether a line is
overlong depends on its length alone, never on how the input was cut into blocks.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import IO, TypeVar

from ..contract.models import MetricLine
from ..reader import parse_block, summarize_block

_Found = TypeVar("_Found")

MAX_LINE = 1 << 20
"""The longest line held whole by default: 1 MiB (overbrainer's lines are a few hundred
bytes; the reference itself reads a line of any length, so the bound is the user's)."""

BLOCK = 1 << 16
"""Bytes read at a time: 64 KiB, small enough that a line is still in the CPU's cache when
it is parsed (1 MiB blocks cost `check` 15% more per line, `nox -s bench`)."""

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+)\s*([KMGT]?)(?:I?B)?\s*\Z", re.IGNORECASE)


class Overlong(bytes):
    """Stands for a line longer than its reader's bound (its bytes are not kept): `size`
    is its length, its newline included when `complete`; `limit` is the bound it passed."""

    size: int
    complete: bool
    limit: int

    def __new__(cls, size: int, complete: bool, limit: int = MAX_LINE) -> Overlong:
        marker = super().__new__(cls)
        marker.size = size
        marker.complete = complete
        marker.limit = limit
        return marker

    def reason(self) -> str:
        """What is wrong, naming the bound and the option that sets it (check, watch)."""
        return overlong_reason(self.size, self.complete, self.limit)


def overlong_reason(size: int, complete: bool, limit: int) -> str:
    """What is wrong with a line of `size` bytes (its newline included when `complete`) over
    the user's bound of `limit` bytes, naming the option that sets it (check, watch)."""
    shown = f"{size:,} bytes" + ("" if complete else ", without its newline")
    return (
        f"a line of {shown}: over the {limit:,} bytes a line is read to"
        f" (--max-line {size_text(limit)}; a larger --max-line reads it)"
    )


def parse_size(text: str) -> int:
    """A size in bytes from `1048576`, `512K`, `64M`, `1GiB` (binary units); ValueError
    for anything else, zero included."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"not a size: {text!r} (a number of bytes, or with K, M, G: 64M)")
    size = int(match.group(1)) * _UNITS[match.group(2).upper()]
    if size < 1:
        raise ValueError(f"a size of at least one byte, not {text!r}")
    return size


def size_text(size: int) -> str:
    """A size as `parse_size` reads it, shortest first: `1M`, `64M`, `1536K`, `1000`."""
    for unit in ("T", "G", "M", "K"):
        if size >= _UNITS[unit] and size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]}{unit}"
    return str(size)


class LineSplitter:
    """Cuts blocks of bytes into lines (each with its newline), holding the incomplete
    last one until its newline comes, as long as it is at most `max_line` bytes.

    A held line is a list of pieces joined once, at its newline: a line arriving in many
    blocks costs its length, not its length times its blocks."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self.pieces: list[bytes | memoryview] = []
        """The held start of the line under way, in pieces."""
        self.held = 0
        """Bytes in `pieces`: at most `max_line`."""
        self.skipped = 0
        """Bytes of an overlong line skipped so far (0: none under way)."""

    def feed(self, block: bytes) -> Iterable[bytes]:
        """The lines that `block` completes, in order."""
        first, body = self.cut(block)
        lines = self.lines_of(body)
        return lines if first is None else chain((first,), lines)

    def cut(self, block: bytes) -> tuple[Overlong | None, bytes]:
        """What `block` completes: the marker of an overlong line it ends (or None), then
        a run of complete lines (`b""`: none), each ending in its newline; the rest is held."""
        first: Overlong | None = None
        if self.skipped:
            end = block.find(b"\n") + 1
            if not end:
                self.skipped += len(block)
                return None, b""
            first = Overlong(self.skipped + end, True, self.max_line)
            self.skipped = 0
            block = block[end:]
        last = block.rfind(b"\n") + 1
        if not last:  # no line ends here: the block is held (or skipped) whole
            if block:
                self._hold(block)
            return first, b""
        if self.pieces:  # the held line ends here (none was skipped): joined to the lines after
            end = block.find(b"\n") + 1
            if self.held + end - 1 > self.max_line:
                first = Overlong(self.held + end, True, self.max_line)
                body = block[end:last]
            else:  # one copy: the held pieces and the block's lines, joined
                self.pieces.append(block if last == len(block) else memoryview(block)[:last])
                body = b"".join(self.pieces)
            self.pieces, self.held = [], 0
        else:
            body = block if last == len(block) else block[:last]
        if last < len(block):
            self._hold(block[last:])
        return first, body

    def whole(self, body: bytes) -> bool:
        """Whether every line of `body` (from `cut`) is within the bound: always, unless
        `body` itself is longer (a bound under the block's size, or a held line near it)."""
        return len(body) <= self.max_line + 1

    def piece(self, block: bytes) -> Piece:
        """What `block` completes, as a `Piece`: a run within the bound, or its lines."""
        first, body = self.cut(block)
        if not self.whole(body):
            return ([] if first is None else [first]) + list(self.lines_of(body)), b""
        return (() if first is None else (first,)), body

    def lines_of(self, body: bytes) -> Iterable[bytes]:
        """The lines of `body` (from `cut`), one over the bound as an `Overlong`: when none
        can be, as iterating a file gives them, in C."""
        if not self.whole(body):
            return self._measured(body)
        return io.BytesIO(body) if body else ()

    def _hold(self, piece: bytes) -> None:
        """Hold `piece` (no newline in it) as part of the line under way, or skip it all
        once the line passes the bound."""
        self.held += len(piece)
        if self.held > self.max_line:
            self.skipped, self.pieces, self.held = self.held, [], 0
        else:
            self.pieces.append(piece)

    def _measured(self, body: bytes) -> list[bytes]:
        """The lines of `body`, one over the bound as an `Overlong`."""
        bound = self.max_line + 1  # with its newline
        return [
            line if len(line) <= bound else Overlong(len(line), True, self.max_line)
            for line in io.BytesIO(body)
        ]

    def finish(self) -> bytes | None:
        """The last line, without its newline (or an `Overlong`), at the end of the input."""
        last: bytes | None = b"".join(self.pieces) if self.pieces else None
        if self.skipped:  # an empty marker: not falsy in meaning, so never `or`-ed
            last = Overlong(self.skipped, False, self.max_line)
        self.pieces, self.held, self.skipped = [], 0, 0
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


Piece = tuple[Sequence[bytes], bytes]
"""What `read_pieces` gives: lines to take one at a time (an `Overlong` marker, the last
line without its newline, the lines of a run that may hold an overlong one), then a run
of complete lines, each within the bound and ending in its newline (`b""`: none)."""


def split_pieces(blocks: Iterable[bytes], max_line: int = MAX_LINE) -> Iterator[Piece]:
    """The lines of the input cut into `blocks`, a block's worth at a time, as `Piece`s:
    the lines of the pieces, in order, are those `read_lines` gives."""
    splitter = LineSplitter(max_line)
    piece = splitter.piece
    for data in blocks:
        single, body = piece(data)
        if single or body:
            yield single, body
    last = splitter.finish()
    if last is not None:
        yield (last,), b""


def read_pieces(handle: IO[bytes], max_line: int = MAX_LINE, block: int = BLOCK) -> Iterator[Piece]:
    """The lines of `handle` as `Piece`s (see `split_pieces`), read as `read_lines` reads:
    for a reader that takes a run of lines at once (`checker.check_pieces`)."""
    read = getattr(handle, "read1", handle.read)  # what is there: a pipe is not waited on
    return split_pieces(iter(lambda: read(block), b""), max_line)


def read_lines(handle: IO[bytes], max_line: int = MAX_LINE, block: int = BLOCK) -> Iterator[bytes]:
    """The lines of `handle` (each with its newline but maybe the last), read a block at a
    time: as iterating the file, with memory bounded by `max_line + block`. Chained in C
    (no Python frame per line): it costs what iterating the file costs."""
    return chain.from_iterable(read_blocks(handle, max_line, block))


MAX_BACKOFF = 64
"""At most this many runs of a file left to `parse_line` after a run holding a bad line,
before the next try (`BlockStream`)."""


class BlockStream:
    """The runs of complete lines of one file (`Piece`s' bodies), in order, each read at
    once by `parse_block` (or `summarize_block`, for a reader that only counts). After a run
    holding a bad line, the next 1, 2, 4 …
    `MAX_BACKOFF` runs are not tried (None at once: read them line by line), so that a
    file with a bad line in every block pays for the failed read (the core stops at the
    bad line, but its lines are read again one by one) rarely; a run read whole ends the
    back-off."""

    def __init__(self) -> None:
        self.skip = 0
        self.backoff = 1

    def parse(self, body: bytes) -> list[MetricLine] | None:
        """`parse_block(body)`, or None at once while backing off."""
        return self._tried(parse_block, body)

    def summarize(self, body: bytes) -> tuple[bytes, int | None, int | None, bool] | None:
        """`summarize_block(body)` (no model built), or None at once while backing off."""
        return self._tried(summarize_block, body)

    def _tried(self, read: Callable[[bytes], _Found | None], body: bytes) -> _Found | None:
        if self.skip:
            self.skip -= 1
            return None
        found = read(body)
        if found is None:
            self.skip, self.backoff = self.backoff, min(2 * self.backoff, MAX_BACKOFF)
        else:
            self.backoff = 1
        return found

"""A file's bytes in large chunks, for the core's scans (`reader.CheckScan`, `TableScan`).

The core finds the lines itself (memchr) and holds a line that spans chunks until its
newline, whatever its length; Python only reads. A chunk is what one read gives, up to
`CHUNK` bytes: a pipe's or a FIFO's reads are not waited on to fill it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO

CHUNK = 4 << 20
"""Bytes read at a time: 4 MiB, enough lines (about 20,000) to keep every core busy."""


def read_chunks(
    handle: IO[bytes], chunk: int = CHUNK, progress: Callable[[int], None] | None = None
) -> Iterator[bytes]:
    """The bytes of `handle`, a read at a time; `progress(bytes so far)` after each."""
    read = getattr(handle, "read1", handle.read)
    done = 0
    while data := read(chunk):
        yield data
        if progress is not None:
            done += len(data)
            progress(done)

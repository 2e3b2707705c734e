"""A file's bytes in large chunks, for the core's scans (`reader.CheckScan`, `TableScan`).

The core finds the lines itself (memchr) and holds a line that spans chunks until its
newline, whatever its length; Python only reads. A chunk is what one read gives, up to
`CHUNK` bytes: a pipe's or a FIFO's reads are not waited on to fill it.

Given the file's name (`name=`), a metrics file is read as people keep them:

- a name ending in `.gz` (`metrics.jsonl.gz`) is read gzip-compressed (stdlib gzip, in
  chunks: flat memory), its lines as if it were not; a stream that is not gzip or corrupt
  is a `CompressedError` naming it; one cut short (no end-of-stream marker) gives every
  byte it holds up to the cut, then raises `GzipCutError`, so the lines before the cut are
  read. A line of any length is read from a `.gz` as from any file: a small `.gz` may hold
  one line of gigabytes (a megabyte of gzip holds a gigabyte of one repeated byte), which
  a line without a bound holds whole; `--max-line` (the scans' `max_line`) is the guard;
- any other file whose first bytes are gzip's magic bytes (`1f 8b`) is a
  `GzipNotNamedError`: it is gzip-compressed data, not JSON lines (`check` makes it one
  finding instead of a screen of `invalid UTF-8`).

What a file's first bytes say it is (gzip's magic bytes, a UTF-8 byte order mark) is
`files.signatures`'.
"""

from __future__ import annotations

import contextlib
import os
import queue
import stat
import threading
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import IO

from .. import _core
from .sidefile import SideFileError
from .signatures import GZIP_MAGIC, is_gzip_name

CHUNK = 4 << 20
"""Bytes read at a time: 4 MiB, enough lines (about 20,000) to keep every core busy."""


class CompressedError(SideFileError):
    """A `.gz` metrics file that cannot be read: not gzip, cut short, corrupt."""


class GzipCutError(CompressedError):
    """A `.gz` whose gzip stream ends before its end-of-stream marker (a file still being
    written, a copy cut short). Raised only after every byte the stream held up to the cut
    was given: the lines before the cut are read, and the bytes after the last newline are
    the last line, cut short. `size`: those bytes, decompressed."""

    def __init__(self, path: Path | str, size: int) -> None:
        super().__init__(path, _core.gzip_cut_text(size))
        self.size = size


class GzipNotNamedError(SideFileError):
    """gzip-compressed data in a file whose name does not say so (or standard input)."""


def gzip_not_named(name: str | Path) -> GzipNotNamedError:
    """The error for gzip data where JSON lines should be: what it is, what to do."""
    return GzipNotNamedError(name, _core.gzip_not_named_text(str(name) == "-"))


def ahead(chunks: Iterable[bytes]) -> Generator[bytes, None, None]:
    """`chunks` as they are, each next one read on a thread of its own while the caller
    works on the one it was given: a file's read and the core's scan (both release the
    GIL) overlap. What reading raises is raised here, in its place after the chunks before
    it. One chunk waits at most, so memory grows by one chunk.

    For reads that always return (a regular file's): a caller that stops early waits for
    the read under way, and the thread ends with it."""
    slot: queue.Queue[tuple[bytes | None, BaseException | None]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def read() -> None:
        try:
            for chunk in chunks:
                slot.put((chunk, None))
                if stop.is_set():
                    return
            slot.put((None, None))
        except BaseException as error:  # handed to the caller, raised there
            slot.put((None, error))

    reader = threading.Thread(target=read, name="chunks ahead", daemon=True)
    reader.start()
    try:
        while True:
            chunk, error = slot.get()
            if error is not None:
                raise error
            if chunk is None:
                return
            yield chunk
    finally:
        stop.set()
        with contextlib.suppress(queue.Empty):
            slot.get_nowait()  # a reader waiting to hand one more chunk goes on, and ends
        reader.join()


def read_chunks(
    handle: IO[bytes],
    chunk: int = CHUNK,
    progress: Callable[[int], None] | None = None,
    *,
    name: str | Path | None = None,
) -> Generator[bytes, None, None]:
    """The bytes of `handle`, a read at a time; `progress(bytes so far)` after each (of
    the file as it is on disk: compressed bytes for a `.gz`).

    With `name` (the file's name as given; `-` for standard input): a `.gz` is read
    decompressed, and gzip data under another name raises `GzipNotNamedError` before any
    chunk is given (see the module's docstring). Without it, the bytes as they are.

    A regular file's next chunk is read (and decompressed) while the caller works on the
    last (`ahead`); a pipe's, a FIFO's or a terminal's only when asked, as a read there may
    wait for ever.
    """
    if is_gzip_name(name):
        assert name is not None
        chunks = _gunzipped(handle, name, chunk, progress)
    else:
        chunks = _read(handle, chunk, progress, name)
    yield from ahead(chunks) if _regular(handle) else chunks


def _regular(handle: IO[bytes]) -> bool:
    """Whether `handle` reads a regular file."""
    try:
        return stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):  # in memory, closed, no descriptor
        return False


def _read(
    handle: IO[bytes], chunk: int, progress: Callable[[int], None] | None, name: str | Path | None
) -> Iterator[bytes]:
    read = getattr(handle, "read1", handle.read)
    done = 0
    first = name is not None
    while data := read(chunk):
        if first:
            first = False
            if len(data) < len(GZIP_MAGIC) and GZIP_MAGIC.startswith(data):
                data += read(chunk)  # a pipe's first read of one byte: look at two
            if data.startswith(GZIP_MAGIC):
                assert name is not None
                raise gzip_not_named(name)
        yield data
        if progress is not None:
            done += len(data)
            progress(done)


def _gunzipped(
    handle: IO[bytes], name: str | Path, chunk: int, progress: Callable[[int], None] | None
) -> Iterator[bytes]:
    import gzip  # only for a .gz: zlib and its kin are not every command's start
    import zlib

    tell = handle.tell if handle.seekable() else None
    with gzip.GzipFile(fileobj=handle, mode="rb") as stream:
        done = given = 0
        while True:
            try:
                data = stream.read1(chunk)
            except gzip.BadGzipFile as error:
                raise CompressedError(
                    name, f"not gzip-compressed, although named .gz ({error})"
                ) from error
            except EOFError as error:  # every byte before the cut was given: see GzipCutError
                raise GzipCutError(name, given) from error
            except zlib.error as error:
                raise CompressedError(name, f"corrupt gzip data ({error})") from error
            if not data:
                return
            given += len(data)
            yield data
            if progress is not None:
                done = tell() if tell is not None else done + len(data)
                progress(done)

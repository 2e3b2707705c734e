"""`files.chunks.ahead`: a regular file's chunks read on a thread of their own while the
caller works, given in their order, what reading raises raised in its place, and nothing left
running when the caller stops early; a pipe's read only when asked."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from overbrainer_contract.files.chunks import GzipCutError, ahead, read_chunks


def test_the_chunks_come_as_they_are_in_their_order() -> None:
    chunks = [bytes([n]) * n for n in range(1, 50)]
    assert list(ahead(iter(chunks))) == chunks
    assert list(ahead(iter([]))) == []


def test_what_reading_raises_is_raised_after_the_chunks_before_it() -> None:
    def chunks() -> Iterator[bytes]:
        yield b"a\n"
        yield b"b"
        raise GzipCutError("metrics.jsonl.gz", 3)

    got: list[bytes] = []

    def take_all() -> None:
        got.extend(ahead(chunks()))

    with pytest.raises(GzipCutError) as raised:
        take_all()
    assert got == [b"a\n", b"b"]
    assert raised.value.size == 3


def counted(count: int, asked: list[int]) -> Iterator[bytes]:
    """`count` chunks of `x`, each noted in `asked` as it is read."""
    for n in range(count):
        asked.append(n)
        yield b"x"


def readers() -> list[threading.Thread]:
    """The threads reading chunks ahead."""
    return [thread for thread in threading.enumerate() if thread.name == "chunks ahead"]


def test_the_next_chunk_is_read_while_the_caller_works() -> None:
    asked: list[int] = []
    given = ahead(counted(3, asked))
    assert next(given) == b"x"
    deadline = time.monotonic() + 10
    while len(asked) < 2 and time.monotonic() < deadline:
        time.sleep(0.001)
    assert asked == [0, 1]  # the second read, before the caller asked for it
    given.close()


def test_a_caller_that_stops_early_leaves_no_thread_and_the_rest_unread() -> None:
    asked: list[int] = []
    given = ahead(counted(1000, asked))
    assert next(given) == b"x"
    given.close()
    assert not readers()
    assert len(asked) <= 3


def test_a_regular_file_is_read_ahead_and_a_pipe_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b"abc\n" * 1000)
    with path.open("rb") as handle:
        chunks = read_chunks(handle, chunk=1000, name=path.name)
        assert next(chunks) == (b"abc\n" * 250)
        assert readers()
        assert b"".join(chunks) == b"abc\n" * 750
    read, write = os.pipe()
    with os.fdopen(read, "rb") as out, os.fdopen(write, "wb") as into:
        into.write(b"line\n")
        into.flush()
        chunks = read_chunks(out, name="-")
        assert next(chunks) == b"line\n"  # a second read would wait for the writer
        assert not readers()
        chunks.close()

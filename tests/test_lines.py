"""`lines`: the bounded reading of a metrics file gives the lines that iterating the file
gives, however the input is cut into blocks, and stands for a line over the bound with one
`Overlong` marker instead of holding it."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from overbrainer_contract.runs.lines import LineSplitter, Overlong, read_lines, read_pieces

MAX = 16

# Bytes rich in newlines and in `\r` (a line ends at `\n` only, as iterating a file).
text = st.lists(st.sampled_from([b"a", b"\n", b"\r", b"{}", b"x" * 7]), max_size=60).map(b"".join)


def expected(data: bytes, bound: int = MAX) -> list[tuple[str, int, bool] | bytes]:
    """What the reading must give: the file's own lines, an overlong one as (size, complete)."""
    out: list[tuple[str, int, bool] | bytes] = []
    for line in io.BytesIO(data):
        if len(line.rstrip(b"\n")) > bound:
            out.append(("overlong", len(line), line.endswith(b"\n")))
        else:
            out.append(line)
    return out


def seen(lines: list[bytes]) -> list[tuple[str, int, bool] | bytes]:
    return [
        ("overlong", line.size, line.complete) if isinstance(line, Overlong) else line
        for line in lines
    ]


@given(text, st.integers(min_value=1, max_value=40))
def test_read_lines_is_iterating_the_file_with_a_bound(data: bytes, block: int) -> None:
    lines = list(read_lines(io.BufferedReader(io.BytesIO(data)), max_line=MAX, block=block))
    check_cover(data, lines)
    # A line is an Overlong exactly when it is longer than the bound, whatever the block.
    assert seen(lines) == expected(data)


@given(
    text,
    st.lists(st.integers(min_value=0, max_value=70), max_size=12),
    st.integers(min_value=1, max_value=24),
)
def test_any_split_into_blocks_gives_the_lines_of_the_whole(
    data: bytes, cuts: list[int], bound: int
) -> None:
    """Blocks of any sizes (empty ones too, and blocks longer than the bound) give the
    lines, markers and sizes that the whole input given as one block gives."""
    whole = LineSplitter(bound)
    want = list(whole.feed(data)) if data else []
    end = whole.finish()
    want += [] if end is None else [end]
    splitter = LineSplitter(bound)
    got: list[bytes] = []
    position = 0
    for cut in sorted(cuts):
        got += splitter.feed(data[position:cut])
        position = max(position, cut)
    got += splitter.feed(data[position:])
    end = splitter.finish()
    got += [] if end is None else [end]
    assert seen(got) == seen(want) == expected(data, bound)
    assert all(line.limit == bound for line in got if isinstance(line, Overlong))


def check_cover(data: bytes, out: list[bytes]) -> None:
    """`out` covers `data` in order: each line is the data's next line, each marker stands
    for the next line, longer than the bound, of exactly its size."""
    position = 0
    for index, line in enumerate(out):
        last = index == len(out) - 1
        if isinstance(line, Overlong):
            part = data[position : position + line.size]
            assert len(part) == line.size
            assert part.count(b"\n") == (1 if line.complete else 0)
            assert len(part.rstrip(b"\n")) > MAX
            assert line.complete or last
            position += line.size
        else:
            assert data[position : position + len(line)] == line
            assert line.count(b"\n") == (1 if line.endswith(b"\n") else 0)
            assert line.endswith(b"\n") or last
            position += len(line)
    assert position == len(data)


@given(text, st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=10))
def test_the_splitter_holds_at_most_the_bound(data: bytes, cuts: list[int]) -> None:
    splitter = LineSplitter(MAX)
    out: list[bytes] = []
    position, index = 0, 0
    while position < len(data):
        size = cuts[index % len(cuts)]
        out += splitter.feed(data[position : position + size])
        assert splitter.held == sum(map(len, splitter.pieces)) <= MAX  # never over the bound
        position += size
        index += 1
    last = splitter.finish()
    if last is not None:
        out.append(last)
    check_cover(data, out)


def test_a_gigabyte_of_zeros_is_one_marker_read_in_blocks() -> None:
    class Zeros(io.RawIOBase):
        """A gigabyte of zero bytes, made as it is read."""

        left = 2**30

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            size = min(len(buffer), self.left)
            buffer[:size] = bytes(size)
            self.left -= size
            return size

    lines = list(read_lines(io.BufferedReader(Zeros())))
    assert len(lines) == 1
    assert isinstance(lines[0], Overlong)
    assert (lines[0].size, lines[0].complete) == (2**30, False)


@given(text, st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=24))
def test_read_pieces_gives_the_lines_of_read_lines(data: bytes, block: int, bound: int) -> None:
    """The pieces' lines, in order, are `read_lines`'s; a piece's run holds only complete
    lines within the bound, so that it can be decoded at once."""
    lines = list(read_lines(io.BufferedReader(io.BytesIO(data)), max_line=bound, block=block))
    got: list[bytes] = []
    for single, body in read_pieces(
        io.BufferedReader(io.BytesIO(data)), max_line=bound, block=block
    ):
        got += single
        run = list(io.BytesIO(body))
        assert all(line.endswith(b"\n") and len(line) <= bound + 1 for line in run)
        assert not any(isinstance(line, Overlong) for line in run)
        got += run
    assert seen(got) == seen(lines)
    assert seen(got) == expected(data, bound)

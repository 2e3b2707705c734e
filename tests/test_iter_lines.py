"""`iter_lines` and `read_run` from Python, in a child process under a timeout, over real
files: a strict error names its line, the lines left out are counted per category, and a
`.gz` still being written (its gzip stream flushed, never closed) gives its lines up to
the cut and says the cut."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BEGIN = b'{"event":"begin","time":1.0,"max_steps":null}\n'
END = b'{"event":"end","time":2.0,"step":%d}\n'


def child(code: str, cwd: Path) -> list[Any]:
    """What `code` prints, a JSON value a line, run by this Python in a child."""
    done = subprocess.run(
        [sys.executable, "-c", f"import json, overbrainer_contract as oc\n{code}"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


STRICT = """
try:
    list(oc.iter_lines("metrics.jsonl", strict=True))
except oc.ParseError as error:
    print(json.dumps([error.line, str(error), error.category, error.path, error.column]))
"""


def test_a_strict_error_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "metrics.jsonl").write_bytes(BEGIN + END % 1 + b"GARBAGE\n" + END % 2)
    # The reference (serde_json) rejects `GARBAGE` at its first byte: `expected value`.
    assert child(STRICT, tmp_path) == [[3, "line 3: expected value at column 1", "syntax", "$", 1]]


def test_a_strict_error_counts_lines_across_chunks(tmp_path: Path) -> None:
    """Line numbers go on across the reads (4 MiB each) and a line held between them."""
    long = b'{"event":"end","time":2.0,"step":1,"pad":"' + b"x" * (5 << 20) + b'"}\n'
    (tmp_path / "metrics.jsonl").write_bytes(BEGIN * 100_000 + long + BEGIN + b"{}\n")
    [[line, text, *_]] = child(STRICT, tmp_path)
    # serde_json finds the tag missing at the object's end: column 2 of `{}`
    assert (line, text) == (100_003, "line 100003: missing field `event` at column 2")


COUNTS = """
lines = oc.iter_lines("metrics.jsonl")
kinds = [type(line).__name__ for line in lines]
print(json.dumps([kinds, lines.lines, lines.rejected, lines.cut.decode()]))
"""


def test_the_lines_left_out_are_counted(tmp_path: Path) -> None:
    (tmp_path / "metrics.jsonl").write_bytes(
        BEGIN
        + b"GARBAGE\n"  # syntax: not JSON
        + b'{"event":"nope","time":1.0}\n'  # data: JSON, no such event
        + b'{"event":\n'  # eof: ends before its value, a newline all the same
        + END % 3
        + b'{"event":"end","ti'  # the last line, cut short: apart
    )
    assert child(COUNTS, tmp_path) == [
        [["Begin", "End"], 6, {"syntax": 1, "eof": 1, "data": 1}, '{"event":"end","ti']
    ]


def _writing(path: Path, whole: int) -> None:
    """A `.gz` as a writer still at work leaves it: `whole` lines and half of one more
    flushed through gzip (a sync flush), its stream never closed."""
    raw = path.open("wb")
    stream = gzip.GzipFile(fileobj=raw, mode="wb")
    stream.write(BEGIN + b"".join(END % step for step in range(1, whole)))
    stream.write(b'{"event":"end","ti')
    stream.flush()  # every byte so far decompressible; no end-of-stream marker
    raw.close()  # the GzipFile is never closed: no trailer, as when its writer is killed


CUT = """
lines = oc.iter_lines("metrics.jsonl.gz")
steps = [getattr(line, "step", None) for line in lines]
print(json.dumps([steps, lines.lines, lines.cut.decode(), lines.gzip_cut]))
state = oc.read_run("metrics.jsonl.gz")
print(json.dumps([state.lines, state.invalid_lines, state.partial_last_line, state.step,
                  state.valid]))
strict = oc.iter_lines("metrics.jsonl.gz", strict=True)
given = []
try:
    for line in strict:
        given.append(line)
except oc.RunError as error:
    print(json.dumps([len(given), str(error)]))
"""


def test_a_gz_cut_short_gives_its_lines_up_to_the_cut(tmp_path: Path) -> None:
    _writing(tmp_path / "metrics.jsonl.gz", 50)
    said = "gzip data cut short after {:,} bytes (the stream ends before its end: a file"
    size = len(BEGIN) + sum(len(END % step) for step in range(1, 50)) + 18
    said = said.format(size) + " still being written, or cut)"
    lines, state, strict = child(CUT, tmp_path)
    assert lines == [[None, *range(1, 50)], 51, '{"event":"end","ti', said]
    assert state == [51, 0, True, 49, False]  # a cut gzip is not valid (its words: above)
    assert strict == [50, f"metrics.jsonl.gz: {said}"]

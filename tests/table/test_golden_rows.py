"""Rows of metrics files against the reference's reading, line by line.

Every golden suite file as a run: each line the reference accepts becomes a row whose
values are the expectation's `value` (floats to the bit, the sign of zero included; u64
exactly; a field the variant lacks is null), each line it rejects is counted under its
category. The suite's manifest and expectation files are read as the suite's README says,
and checked against their own schemas first.

Then any file (the suite's, the examples, the bench's writers, files hypothesis makes of
good and bad lines, a last line cut or not, lines of every form): the rows `RunReader`
builds from the core's columns (`TableScan`) are the rows `parse_line` gives each line,
one at a time, field by field (floats to the bit), with their line numbers and the
counts (lines, rows, the lines left out by the category `parse_line` gives the line
without its newline, the first of them, a cut last line); whatever the chunks the file
comes in (cut anywhere, a byte at a time) and whatever `batch_lines`; and each batch
holds the rows of `batch_lines` lines, as before the core read whole files.
"""

from __future__ import annotations

import io
import json
import math
import struct
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict
from itertools import pairwise
from pathlib import Path
from typing import IO, Any

import jsonschema
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from overbrainer_contract.reader import ParseError, parse_line
from overbrainer_contract.table import COUNTS_KEY, SCHEMA, RunReader, iter_batches, read_runs
from overbrainer_contract.table import reader as reader_module
from overbrainer_contract.table.schema import VARIANT_FIELDS

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "conformance"
MANIFEST = json.loads((SUITE / "manifest.json").read_text(encoding="utf-8"))
EXPECT_SCHEMA = json.loads((SUITE / "expect.schema.json").read_text(encoding="utf-8"))
SUITES = MANIFEST["suites"]
EXAMPLES = sorted((ROOT / "examples").glob("*/metrics.jsonl"))

sys.path.insert(0, str(ROOT / "benchmarks"))
from workloads import bad_line, other_writer, realistic_lines  # noqa: E402

CATEGORIES = ("syntax", "eof", "data", "length")
"""The categories a table counts its left-out lines under (the reference's, and the
user's bound)."""


def test_the_manifest_follows_its_schema() -> None:
    schema = json.loads((SUITE / "manifest.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(MANIFEST)
    assert len(SUITES) >= 20


def _same(actual: Any, expected: Any) -> bool:
    """Equal as the expectation means it: floats to the bit (-0.0 is not 0.0), of the
    same type (an integer is no float)."""
    if isinstance(expected, float) or isinstance(actual, float):
        return (
            type(actual) is float
            and type(expected) is float
            and struct.pack("<d", actual) == struct.pack("<d", expected)
        )
    return bool(actual == expected) and type(actual) is type(expected)


# -- the oracle: every line through parse_line, one at a time ---------------------------


def row_of(number: int, value: Any, run: str) -> dict[str, Any]:
    """The row of a line `parse_line` read as `value`: every column of the table."""
    tag = type(value).__struct_config__.tag
    row: dict[str, Any] = {"run": run, "line": number, "event": tag}
    for column in SCHEMA.names[3:]:
        field = getattr(value, column) if column in VARIANT_FIELDS[tag] else None
        row[column] = field.value if column == "name" and field is not None else field
    return row


def by_lines(
    data: bytes, run: str, path: str, max_line: int | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows and counts of a file read line by line: split on newlines as the golden
    suite splits a file, each line (without its newline) through `parse_line`; a line over
    `max_line` (without its newline) left out under `length`, the last one too; a last line
    without its newline that the reference reads to its end (`eof`: more bytes could mend
    it): `cut`; one it rejects otherwise (`GARBAGE`), rejected under its category."""
    pieces = data.split(b"\n")
    last = pieces.pop()
    rows: list[dict[str, Any]] = []
    rejected = dict.fromkeys(CATEGORIES, 0)
    first: int | None = None
    cut = False
    lines = pieces + ([last] if last else [])
    for number, bare in enumerate(lines, 1):
        complete = number <= len(pieces)
        if max_line is not None and len(bare) > max_line:
            rejected["length"] += 1
            first = number if first is None else first
            continue
        try:
            value = parse_line(bare)
        except ParseError as error:
            if not complete and error.category == "eof":
                cut = True
                continue
            category = error.category
            rejected[category] += 1  # a KeyError for a category a table does not count
            first = number if first is None else first
            continue
        rows.append(row_of(number, value, run))
    counts = {
        "run": run,
        "path": path,
        "lines": len(lines),
        "rows": len(rows),
        "rejected": rejected,
        "first_rejected": first,
        "cut": cut,
        "gzip_cut": None,
    }
    return rows, counts


# -- the new path: RunReader over the core's columns, fed the chunks we choose ------------


def chunked(data: bytes, cuts: list[int] | None) -> list[bytes]:
    """`data` cut at `cuts` (sorted, dedup'd); a byte at a time for `None`."""
    if cuts is None:
        return [data[at : at + 1] for at in range(len(data))]
    bounds = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in pairwise(bounds) if b > a]


def table_of(
    data: bytes,
    *,
    batch_lines: int = 65_536,
    cuts: list[int] | str | None = "whole",
    max_line: int | None = None,
) -> tuple[list[pa.RecordBatch], dict[str, Any]]:
    """The batches and counts `RunReader` gives for `data` as standard input, its chunks
    those of `cuts` (see `chunked`; "whole": one chunk)."""
    pieces = [data] if cuts == "whole" else chunked(data, cuts)  # type: ignore[arg-type]

    def fed(handle: IO[bytes], *_: Any, **__: Any) -> Iterator[bytes]:
        assert handle.read() == data
        yield from pieces

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reader_module, "read_chunks", fed)
        reader = RunReader(
            ["-"], batch_lines=batch_lines, stdin=io.BytesIO(data), max_line=max_line
        )
        batches = list(reader.batches())
    for batch in batches:
        assert batch.schema.equals(SCHEMA)
    return batches, asdict(reader.counts[0])


def assert_same_rows(got: list[dict[str, Any]], want: list[dict[str, Any]], where: str) -> None:
    assert [row["line"] for row in got] == [row["line"] for row in want], where
    for mine, theirs in zip(got, want, strict=True):
        assert list(mine) == list(theirs)
        for column, value in theirs.items():
            if value is None:
                assert mine[column] is None, (where, theirs["line"], column, mine[column])
            else:
                assert _same(mine[column], value), (where, theirs["line"], column, mine[column])


def assert_read_as_by_lines(
    data: bytes,
    *,
    batch_lines: int = 65_536,
    cuts: list[int] | str | None = "whole",
    max_line: int | None = None,
) -> list[pa.RecordBatch]:
    """`data` through `RunReader` gives `by_lines`' rows and counts, in batches of the rows
    of `batch_lines` lines each (none empty)."""
    batches, counts = table_of(data, batch_lines=batch_lines, cuts=cuts, max_line=max_line)
    rows, want = by_lines(data, "-", "-", max_line)
    where = f"batch_lines={batch_lines} cuts={cuts!r} max_line={max_line}"
    got = pa.Table.from_batches(batches, schema=SCHEMA).to_pylist()
    assert_same_rows(got, rows, where)
    assert counts == want, where
    # a batch holds the rows of `batch_lines` lines: lines 1..b, b+1..2b, ... (none empty)
    groups: dict[int, list[int]] = {}
    for row in rows:
        groups.setdefault((row["line"] - 1) // batch_lines, []).append(row["line"])
    assert [batch.column("line").to_pylist() for batch in batches] == list(groups.values()), where
    return batches


# -- the golden suite, against its expectations -------------------------------------------


@pytest.mark.parametrize("suite", SUITES, ids=[suite["name"] for suite in SUITES])
def test_a_golden_file_becomes_the_references_rows(suite: dict[str, Any]) -> None:
    expect = json.loads((SUITE / suite["expect"]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(EXPECT_SCHEMA).validate(expect)
    source = SUITE / suite["input"]
    data = source.read_bytes()
    assert data.endswith(b"\n")
    assert data.count(b"\n") == len(expect["lines"])  # lines split on "\n" only

    table = read_runs([source])
    rows = table.to_pylist()
    accepted = [
        (number, entry["reference"]["value"], entry["reference"].get("scalars"))
        for number, entry in enumerate(expect["lines"], 1)
        if entry["reference"]["ok"]
    ]
    assert len(rows) == len(accepted)
    keys = sorted({key for *_, scalars in accepted if scalars for key in scalars["value"]})
    # A key that a fixed column already names (a non-finite `loss` named in `scalars`) is that
    # key with `#2`: the suite's keys differ from one another, letter case aside.
    fixed = {name.casefold() for name in SCHEMA.names}
    assert len({key.casefold() for key in keys}) == len(keys)
    columns = {key: f"{key}#2" if key.casefold() in fixed else key for key in keys}
    assert table.schema.names == [*SCHEMA.names, *columns.values()]
    for row, (number, value, scalars) in zip(rows, accepted, strict=True):
        assert row["run"] == source.name
        assert row["line"] == number
        for column in SCHEMA.names[2:]:
            want = value.get(column)  # a field of another variant: null
            got = row[column]
            assert (got is None) if want is None else _same(got, want), (number, column, got)
        for key in keys:  # a scalar's column: its value as a float, null where absent or null
            want = (scalars or {"value": {}})["value"].get(key)
            got = row[columns[key]]
            if isinstance(want, str):
                want = float(want.replace("Infinity", "inf"))
            if want is not None and math.isnan(float(want)):
                assert isinstance(got, float), (number, key, got)
                assert math.isnan(got), (number, key, got)
                continue
            assert (got is None) if want is None else _same(got, float(want)), (number, key, got)

    rejected = Counter(
        entry["reference"]["category"] for entry in expect["lines"] if not entry["reference"]["ok"]
    )
    counts = json.loads(table.schema.metadata[COUNTS_KEY])[0]
    assert counts["lines"] == len(expect["lines"])
    assert counts["rows"] == len(accepted)
    assert counts["rejected"] == {category: rejected[category] for category in counts["rejected"]}
    assert counts["cut"] is False
    first = next((n for n, e in enumerate(expect["lines"], 1) if not e["reference"]["ok"]), None)
    assert counts["first_rejected"] == first


def test_the_whole_suite_at_once_in_small_batches() -> None:
    """All the suite's files as runs of one table, two lines a batch: the same rows as each
    file alone, in the order of the runs and of their lines."""
    sources = [SUITE / suite["input"] for suite in SUITES]
    reader = RunReader(sources, batch_lines=2)
    batches = list(reader.batches())
    assert all(0 < batch.num_rows <= 2 for batch in batches)
    assert all(batch.schema.equals(SCHEMA) for batch in batches)
    whole = pa.Table.from_batches(batches, schema=SCHEMA)
    alone = [
        {name: row[name] for name in SCHEMA.names}  # each alone with its scalars' columns too
        for source in sources
        for row in read_runs([source]).to_pylist()
    ]
    assert whole.to_pylist() == alone
    assert [c.run for c in reader.counts] == [source.name for source in sources]
    assert sum(c.rows for c in reader.counts) == whole.num_rows
    for source, counts in zip(sources, reader.counts, strict=True):
        _, want = by_lines(source.read_bytes(), source.name, str(source))
        assert asdict(counts) == want


def test_batches_stream_while_the_run_is_still_being_written(tmp_path: Path) -> None:
    """`iter_batches` over a FIFO: the first batch comes while the writer still holds the
    pipe open, before the run has ended."""
    import os
    import threading

    fifo = tmp_path / "metrics.jsonl"
    os.mkfifo(fifo)
    line = b'{"event":"log","time":1.5,"step":7}\n'
    more = threading.Event()

    # The writer is there before the reader opens, as a producer blocked in its open is:
    # a FIFO is opened without waiting (as `check` does), and one without a writer is empty.
    writer = os.open(fifo, os.O_RDWR)

    def write() -> None:
        try:
            os.write(writer, line * 5)  # the fifth line closes the first batch of four
            more.wait(timeout=30)
            os.write(writer, line)
        finally:
            os.close(writer)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    batches = iter_batches([fifo], batch_lines=4)
    first = next(batches)
    assert not more.is_set()  # the writer is still waiting: this batch was streamed
    assert first.column("line").to_pylist() == [1, 2, 3, 4]
    more.set()
    rest = list(batches)
    thread.join(timeout=30)
    assert [batch.column("line").to_pylist() for batch in rest] == [[5, 6]]
    assert first.column("run").to_pylist()[0] == tmp_path.name  # the folder's name


def test_a_batch_streams_once_its_last_line_is_in(tmp_path: Path) -> None:
    """`iter_batches` over a FIFO: the batch of lines 1-4 comes as soon as line 4 is in,
    while the writer waits before writing line 5 (as the reader did before the core)."""
    import os
    import threading

    fifo = tmp_path / "metrics.jsonl"
    os.mkfifo(fifo)
    line = b'{"event":"log","time":1.5,"step":7}\n'
    more = threading.Event()
    delivered: list[bool] = []
    writer = os.open(fifo, os.O_RDWR)

    def write() -> None:
        try:
            os.write(writer, line * 4)
            delivered.append(more.wait(timeout=3))
            os.write(writer, line * 2)
        finally:
            os.close(writer)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    batches = iter_batches([fifo], batch_lines=4)
    first = next(batches)
    more.set()
    rest = list(batches)
    thread.join(timeout=30)
    assert first.column("line").to_pylist() == [1, 2, 3, 4]
    assert [batch.column("line").to_pylist() for batch in rest] == [[5, 6]]
    assert delivered == [True]  # the batch came while the writer waited


def accepted_lines() -> list[tuple[bytes, dict[str, Any]]]:
    """Every line the reference accepts, from every suite, with the expectation's value."""
    accepted: list[tuple[bytes, dict[str, Any]]] = []
    for suite in SUITES:
        expect = json.loads((SUITE / suite["expect"]).read_text(encoding="utf-8"))
        raw = (SUITE / suite["input"]).read_bytes().split(b"\n")
        for line, entry in zip(raw, expect["lines"], strict=False):
            if entry["reference"]["ok"]:
                accepted.append((line, entry["reference"]["value"]))
    return accepted


ACCEPTED = accepted_lines()
ACCEPTED_BODY = b"".join(line + b"\n" for line, _ in ACCEPTED)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, len(ACCEPTED_BODY)), max_size=30),
    st.sampled_from([1, 2, 3, 7, 64, 1 << 20]),
)
def test_the_accepted_lines_alone_are_the_expectations_values(
    cuts: list[int], batch_lines: int
) -> None:
    """Every line the reference accepts, from every suite, in one file with no bad line
    between them, cut anywhere: every row is the expectation's value."""
    batches, counts = table_of(ACCEPTED_BODY, batch_lines=batch_lines, cuts=cuts)
    rows = pa.Table.from_batches(batches, schema=SCHEMA).to_pylist()
    assert len(rows) == len(ACCEPTED)
    for number, (row, (_, value)) in enumerate(zip(rows, ACCEPTED, strict=True), 1):
        assert row["line"] == number
        for column in SCHEMA.names[2:]:
            want = value.get(column)
            got = row[column]
            assert (got is None) if want is None else _same(got, want), (row, column)
    assert counts["rows"] == counts["lines"] == len(ACCEPTED)


# -- any file, against parse_line line by line --------------------------------------------


@pytest.mark.parametrize(
    "source",
    [SUITE / suite["input"] for suite in SUITES] + EXAMPLES,
    ids=[suite["name"] for suite in SUITES] + [path.parent.name for path in EXAMPLES],
)
def test_a_file_is_its_lines_read_one_by_one_however_it_is_fed(source: Path) -> None:
    """The suite's files and the examples: whole, a byte at a time, in batches of one
    line, two, three; and the file without its last newline, and cut in its last line."""
    data = source.read_bytes()
    for batch_lines in (1, 2, 3, 65_536):
        assert_read_as_by_lines(data, batch_lines=batch_lines)
    assert_read_as_by_lines(data, batch_lines=3, cuts=None)
    assert_read_as_by_lines(data[:-1], batch_lines=2, cuts=None)
    assert_read_as_by_lines(data[:-5], batch_lines=2)
    assert_read_as_by_lines(data, max_line=60)


def test_the_file_is_read_from_disk_as_from_standard_input(tmp_path: Path) -> None:
    """A run folder read by `read_runs` from disk: the oracle's rows under its name."""
    data = b"".join(EXAMPLES[0].read_bytes() for _ in range(3)) + b'{"event":"log","ti'
    folder = tmp_path / "run-7"
    folder.mkdir()
    (folder / "metrics.jsonl").write_bytes(data)
    table = read_runs([folder])
    rows, counts = by_lines(data, "run-7", str(folder))
    assert_same_rows(table.to_pylist(), rows, "disk")
    assert json.loads(table.schema.metadata[COUNTS_KEY]) == [counts]


@pytest.mark.parametrize("form", ["plugin", "other", "bad"])
def test_both_writers_forms_give_parse_lines_rows(form: str) -> None:
    """The bench's runs in the plugin's form, in another writer's (keys absent, another
    order, an unknown `tokens_per_second`), and with bad lines of every kind: every row
    is what `parse_line` gives its line, field by field, in chunks cut anywhere."""
    plugin = list(realistic_lines(3000))
    kinds = ("cut", "NaN", "duplicate key", "wrong type", "-0", "not JSON")
    lines = {
        "plugin": plugin,
        "other": list(other_writer(plugin)),
        "bad": [
            bad_line(text, kinds[index % 6]) if index % 7 == 3 else text
            for index, text in enumerate(plugin)
        ],
    }[form]
    data = "".join(line + "\n" for line in lines).encode()
    step = len(data) // 37
    assert_read_as_by_lines(data, batch_lines=1000, cuts=list(range(5, len(data), step)))
    batches = assert_read_as_by_lines(data, batch_lines=256)
    assert len(batches) == -(-len(lines) // 256)


# Lines of every kind, for the files hypothesis makes: the suite's, good and bad; the two
# writers'; bad ones of every category; white space and carriage returns.
GOLDEN_LINES = sorted(
    {
        line
        for suite in SUITES
        for line in (SUITE / suite["input"]).read_bytes().split(b"\n")
        if line
    }
)
FORMS = [
    b'{"event":"stage","name":"train","time":1764467476}',
    b'{"event":"begin","time":1764467476.5,"max_steps":12}',
    b'{"event":"log","time":1764467477.4098756,"step":4,"epoch":0.0013333333333333333,'
    b'"max_steps":12,"loss":3.233425859797991,"eval_loss":null,'
    b'"learning_rate":1.999999998976714e-05,"grad_norm":0.1814260266877301}',
    b'{"event":"eval","time":1764467479.5,"step":20,"total":60}',
    b'{"event":"end","time":1764467490.5,"step":12}',
    b'{"time": 1764467476.25, "event": "log", "step": 3, "loss": 0.5, "tokens_per_second": 4.5}',
    b'\t{ "step" : 3 , "event" : "eval" , "time" : 1.5 }\r',
    b'{"time": 2, "event": "end", "step": 7, "ok": true, "gpu": null, "n": -0, "total": 3}',
    b'{"event":"log","time":-0.0,"step":0,"loss":-0.0,"learning_rate":5e-324}',
    b'["log",1.5,3,null,12,0.5]',
    b'["stage",1,"merge"]',
]
BAD = [
    b"",
    b"   ",
    b"\r",
    b"not json",
    b"\xff\xfe{}",
    b'{"event":"log","time":1,"step":-1}',
    b'{"event":"log","time":1,"step":2,"note":"ab',  # eof without its newline
    b'{"event":"log","time":NaN,"step":2}',
    b'{"event":"begin","time":1}{"event":"begin","time":1}',
    b'{"event":"begin","time":1,"time":2}',
    b'{"event":"stage","name":"deploy","time":1}',
    b"[",
    b"{",
    b'"log"',
]
lines = st.one_of(
    st.sampled_from(FORMS),
    st.sampled_from(FORMS).map(lambda line: line + b"\r"),
    st.sampled_from(GOLDEN_LINES),
    st.sampled_from(BAD),
    st.binary(max_size=12).map(lambda data: data.replace(b"\n", b" ")),
)


@st.composite
def files(draw: st.DrawFn) -> bytes:
    """A metrics file: lines of every kind, its last one with its newline or without, or
    cut short anywhere."""
    body = b"".join(line + b"\n" for line in draw(st.lists(lines, max_size=30)))
    end = draw(st.sampled_from(["newline", "none", "cut", "cut"]))
    last = draw(lines)
    if end == "none":
        body += last
    elif end == "cut":
        body += last[: draw(st.integers(0, len(last)))]
    return body


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files(),
    st.one_of(st.none(), st.lists(st.integers(0, 4000), max_size=12)),
    st.sampled_from([1, 2, 3, 5, 65_536]),
    st.one_of(st.none(), st.none(), st.integers(1, 80)),
)
@example(b'{"event":"log","time":1,"step":2,"note":"ab\n', [], 1, None)
@example(b'{"event":"log","time":1,"step":2,"note":"ab', [], 1, None)
@example(b'{"event":"begin","time":1}\n{"event":"begin","ti', [30], 1, None)
@example(b'{"event":"begin","time":1}\n{"event":"begin","time":1}', None, 1, 10)
@example(b"\n\n\n", None, 2, None)
def test_any_file_is_its_lines_read_one_by_one(
    data: bytes, cuts: list[int] | None, batch_lines: int, max_line: int | None
) -> None:
    if cuts is not None:
        cuts = [min(cut, len(data)) for cut in cuts]
    assert_read_as_by_lines(data, batch_lines=batch_lines, cuts=cuts, max_line=max_line)


BIG = 2 << 20
"""Past the length from which the core looks at a long line's start (1 MiB)."""


@pytest.mark.parametrize(
    "line",
    [
        b'{"event":"log","time":1,"step":2,"loss":0.5,"note":"' + b"y" * BIG + b'"}',
        b"\0" * BIG,
        b'{"event":"log","time":1,"x":"\x01' + b"z" * BIG + b'"}',
        b'{"event":"log","time":1,"step":2,"x":"\xff' + b"z" * BIG + b'"}',
        b'{"event":"log","time":1,"step":2,"x":[' + b"1," * (BIG // 2) + b"1]}",
        b'{"event":"log","time":1,"step":2,"x":"' + b"z" * BIG,  # cut: eof
    ],
    ids=["valid", "zeros", "control", "not-utf8", "long-array", "cut-string"],
)
def test_a_long_line_is_read_as_parse_line_reads_it(line: bytes) -> None:
    """A line of megabytes among small ones, fed in chunks of 64 KiB: a row when
    `parse_line` reads it, else left out under `parse_line`'s category (junk decided by
    its start and skipped unheld, yet counted as the whole line would be); the last line
    too, without its newline."""
    small = FORMS[1] + b"\n" + FORMS[2] + b"\n"
    data = small + line + b"\n" + small
    cuts = list(range(0, len(data), 1 << 16))
    assert_read_as_by_lines(data, batch_lines=2, cuts=cuts)
    assert_read_as_by_lines(small + line, batch_lines=2, cuts=cuts)
    assert_read_as_by_lines(data, batch_lines=2, cuts=cuts, max_line=BIG // 2)

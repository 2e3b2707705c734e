"""Every golden suite file as a run: each line the reference accepts becomes a row whose
values are the expectation's `value` (floats to the bit, the sign of zero included; u64
exactly; a field the variant lacks is null), each line it rejects is counted under its
category. The suite's manifest and expectation files are read as the suite's README says,
and checked against their own schemas first."""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import jsonschema
import pyarrow as pa
import pytest
from overbrainer_contract.runs import lines as lines_module
from overbrainer_contract.runs.lines import read_pieces
from overbrainer_contract.table import COUNTS_KEY, SCHEMA, RunReader, iter_batches, read_runs

SUITE = Path(__file__).resolve().parents[1] / "conformance"
MANIFEST = json.loads((SUITE / "manifest.json").read_text(encoding="utf-8"))
EXPECT_SCHEMA = json.loads((SUITE / "expect.schema.json").read_text(encoding="utf-8"))
SUITES = MANIFEST["suites"]


def test_the_manifest_follows_its_schema() -> None:
    schema = json.loads((SUITE / "manifest.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(MANIFEST)
    assert len(SUITES) >= 20


def _same(actual: Any, expected: Any) -> bool:
    """Equal as the expectation means it: floats to the bit (-0.0 is not 0.0)."""
    if isinstance(expected, float):
        return (
            isinstance(actual, float)
            and actual == expected
            and math.copysign(1, actual) == math.copysign(1, expected)
        )
    return bool(actual == expected) and type(actual) is type(expected)


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
        (number, entry["reference"]["value"])
        for number, entry in enumerate(expect["lines"], 1)
        if entry["reference"]["ok"]
    ]
    assert len(rows) == len(accepted)
    for row, (number, value) in zip(rows, accepted, strict=True):
        assert row["run"] == source.name
        assert row["line"] == number
        for column in SCHEMA.names[2:]:
            want = value.get(column)  # a field of another variant: null
            got = row[column]
            assert (got is None) if want is None else _same(got, want), (number, column, got)

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
    """All the suite's files as runs of one table, two rows a batch: the same rows as each
    file alone, in the order of the runs and of their lines."""
    sources = [SUITE / suite["input"] for suite in SUITES]
    reader = RunReader(sources, batch_lines=2)
    batches = list(reader.batches())
    assert all(0 < batch.num_rows <= 2 for batch in batches)
    assert all(batch.schema.equals(SCHEMA) for batch in batches)
    whole = pa.Table.from_batches(batches, schema=SCHEMA)
    alone = [row for source in sources for row in read_runs([source]).to_pylist()]
    assert whole.to_pylist() == alone
    assert [c.run for c in reader.counts] == [source.name for source in sources]
    assert sum(c.rows for c in reader.counts) == whole.num_rows


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
            os.write(writer, line * 4)
            more.wait(timeout=30)
            os.write(writer, line * 2)
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


def test_the_accepted_lines_alone_are_read_as_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line the reference accepts, from every suite, in one file with no bad line
    between them: every run of lines is read at once (`parse_block`, spied), and every row
    is still the expectation's value."""
    from overbrainer_contract.table import reader

    accepted: list[tuple[bytes, dict[str, Any]]] = []
    for suite in SUITES:
        expect = json.loads((SUITE / suite["expect"]).read_text(encoding="utf-8"))
        raw = (SUITE / suite["input"]).read_bytes().split(b"\n")
        for line, entry in zip(raw, expect["lines"], strict=False):
            if entry["reference"]["ok"]:
                accepted.append((line, entry["reference"]["value"]))
    source = tmp_path / "accepted.jsonl"
    source.write_bytes(b"".join(line + b"\n" for line, _ in accepted))
    parse_block = lines_module.parse_block
    read: list[int | None] = []

    def spy(body: bytes) -> Any:
        values = parse_block(body)
        read.append(None if values is None else len(values))
        return values

    monkeypatch.setattr(lines_module, "parse_block", spy)
    for block in (64, 512, 1 << 20):  # runs of one line, a few, the whole file
        read.clear()
        monkeypatch.setattr(reader, "read_pieces", partial(read_pieces, block=block))
        rows = read_runs([source]).to_pylist()
        assert len(rows) == len(accepted)
        for row, (_, value) in zip(rows, accepted, strict=True):
            for column in SCHEMA.names[2:]:
                want = value.get(column)
                got = row[column]
                assert (got is None) if want is None else _same(got, want), (row, column)
        assert read, block
        assert None not in read, block  # every run read whole


def test_both_writers_forms_read_as_blocks_give_parse_lines_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bench's runs in the plugin's form and in another writer's (keys absent, another
    order, an unknown `tokens_per_second`): read in blocks (`parse_block`, spied), every
    row is what `parse_line` gives its line, field by field."""
    from overbrainer_contract import parse_line

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from workloads import other_writer, realistic_lines

    plugin = list(realistic_lines(3000))
    parse_block = lines_module.parse_block
    read: list[bool] = []

    def spy(body: bytes) -> Any:
        values = parse_block(body)
        read.append(values is not None)
        return values

    monkeypatch.setattr(lines_module, "parse_block", spy)
    for name, lines in (("plugin", plugin), ("other", list(other_writer(plugin)))):
        source = tmp_path / f"{name}.jsonl"
        source.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        read.clear()
        rows = read_runs([source]).to_pylist()
        assert len(rows) == len(lines)
        assert read, name
        assert all(read), name  # every run read whole
        for row, line in zip(rows, lines, strict=True):
            value = parse_line(line)
            assert row["event"] == type(value).__struct_config__.tag
            for column in SCHEMA.names[2:]:
                if column in ("event", "name"):
                    continue
                want = getattr(value, column, None)
                assert (row[column] is None) if want is None else _same(row[column], want), (
                    line,
                    column,
                )

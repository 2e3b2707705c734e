"""Rows from metrics files, in Arrow record batches: every line through `parse_line`.

A row is what the reference reads from a line, nothing else: a line `parse_line` rejects
is left out and counted (by the reference's error category), never guessed at, and so is
a line over the bound (`length`). Lines are read in binary from disk in bounded blocks,
as `check` reads them, and turned into columns a batch at a time, so memory stays flat
whatever the runs' size. A run of complete lines is parsed at once when every line of it
is valid (`parse_block`: what `parse_line` gives each), line by line else. The
loop that fills the columns is compiled from the generated Arrow schema and the generated
models (one branch per variant), so it follows the schema, and a `log` line costs the
parser and one append per field it has.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from itertools import chain, islice
from typing import IO, Any

import pyarrow as pa

from ..contract.constants import METRICS_FILE
from ..contract.models import Begin, End, Eval, JobStage, Log, Stage
from ..reader import ParseError, parse_line
from ..runs.lines import MAX_LINE, BlockStream, Overlong, Piece, read_pieces
from ..runs.sidefile import open_metrics
from ..runs.state import Run, resolve
from .schema import DICTIONARIES, SCHEMA, VARIANT_FIELDS

BATCH_LINES = 65_536
"""Lines per record batch (one Parquet row group each): as many rows, less the lines left out."""

_CHUNK_LINES = 4_096
"""Lines turned into Arrow at a time, within a batch (see `RunReader._read`)."""

COUNTS_KEY = b"overbrainer:counts"
"""The key of `read_runs`'s schema metadata holding each run's counts (JSON)."""

_TABLE_COLUMNS = ("run", "line")
_LINE_COLUMNS = tuple(name for name in SCHEMA.names if name not in _TABLE_COLUMNS)
"""The columns a line fills: `event`, then one per field of any variant."""

_CATEGORIES = ("syntax", "eof", "data", "length")
"""Why a line is left out: the reference's error categories (`ParseError.category`), and
`length` for a line over the reader's bound (`max_line`), skipped unread as `check` does."""

REFERENCE_CATEGORIES = _CATEGORIES[:3]
"""The categories of lines the reference itself rejects."""


@dataclass
class RunCounts:
    """What reading one run gave: its lines, its rows, the lines left out."""

    run: str
    """The run's name in the table (the `run` column)."""
    path: str
    """The run as the user named it: a folder, a metrics file or `-`."""
    lines: int = 0
    rows: int = 0
    rejected: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_CATEGORIES, 0))
    """Lines left out, per category: the reference's error categories (`syntax`, `eof`,
    `data`), and `length` for a line over the bound (the last line too)."""
    first_rejected: int | None = None
    """The number of the first rejected line."""
    cut: bool = False
    """Whether the last line has no newline and does not parse (a run still writing, or
    killed): left out, but not counted among the rejected lines."""

    @property
    def left_out(self) -> int:
        """Lines that gave no row."""
        return sum(self.rejected.values()) + self.cut


def run_name(run: Run) -> str:
    """The `run` value of a run: its folder's name, or a metrics file's name when it is
    not `metrics.jsonl` (which stands for its folder); `-` for standard input."""
    if run.metrics is None:
        return run.name
    if run.is_folder or run.metrics.name == METRICS_FILE:
        folder = run.folder if run.folder is not None else run.metrics.parent
        return folder.resolve().name
    return run.metrics.name


class RunReader:
    """Reads runs into record batches of the table's schema, one run after another.

    `runs` are run folders, metrics files or `-` (standard input), as on the command line.
    Raises `RunError` for a run that does not exist, `ValueError` for two runs of the
    same name (they would mix in the table). `counts` fills as the batches are read;
    `bytes_read` / `bytes_total` tell the progress over the files.

    Each metrics file is opened as `check` opens it (`sidefile.open_metrics`: a FIFO
    without a writer reads as empty, a device or a folder is a `SideFileError`) and read
    in bounded blocks (`lines.read_pieces`): a line over `max_line` bytes is left out,
    counted under `length`, in flat memory.
    """

    def __init__(
        self,
        runs: Iterable[str | os.PathLike[str]],
        *,
        batch_lines: int = BATCH_LINES,
        stdin: IO[bytes] | None = None,
        max_line: int = MAX_LINE,
    ) -> None:
        if batch_lines < 1:
            raise ValueError("batch_lines must be at least 1")
        if max_line < 1:
            raise ValueError("max_line must be at least 1")
        self.max_line = max_line
        self.runs = [resolve(os.fspath(run)) for run in runs]
        names = [run_name(run) for run in self.runs]
        seen: dict[str, str] = {}
        for run, name in zip(self.runs, names, strict=True):
            if name in seen:
                raise ValueError(
                    f"two runs are named {name!r} ({seen[name]} and {run.name}): "
                    "each run needs a name of its own in the table"
                )
            seen[name] = run.name
        self.counts = [
            RunCounts(name, run.name) for run, name in zip(self.runs, names, strict=True)
        ]
        self.batch_lines = batch_lines
        self.stdin = stdin
        self.bytes_read = 0
        self.bytes_total = sum(_size(run) for run in self.runs)
        self._run_dictionary = pa.array(names, pa.string())

    def batches(self) -> Iterator[pa.RecordBatch]:
        """The rows of every run, in order: a run's rows in the order of its lines."""
        done = 0
        for index, (run, counts) in enumerate(zip(self.runs, self.counts, strict=True)):
            if run.metrics is None:
                handle = self.stdin if self.stdin is not None else sys.stdin.buffer
                yield from self._read(handle, index, counts, lambda: 0)
                continue
            with open_metrics(run.metrics) as handle:
                tell = handle.tell if handle.seekable() else lambda: 0  # a FIFO has no position
                yield from self._read(handle, index, counts, tell, done)
            done += _size(run)
            self.bytes_read = done

    def reader(self) -> pa.RecordBatchReader:
        """The batches as a `pyarrow.RecordBatchReader` (what Arrow's writers take)."""
        return pa.RecordBatchReader.from_batches(SCHEMA, self.batches())

    def _read(
        self,
        handle: IO[bytes],
        index: int,
        counts: RunCounts,
        tell: Callable[[], int],
        done: int = 0,
    ) -> Iterator[pa.RecordBatch]:
        run_index: pa.Int32Scalar = pa.scalar(index, pa.int32())
        rejected: list[int] = []

        def reject(line: int, raw: bytes, error: ParseError) -> None:
            rejected.append(line)
            if raw.__class__ is Overlong:  # never parsed: too long to hold (the last too)
                counts.rejected["length"] += 1
                if counts.first_rejected is None:
                    counts.first_rejected = line
                return
            if raw[-1:] != b"\n":  # only the last line can lack it
                counts.cut = True
                return
            # The line is what comes before its newline (as the golden suite splits a
            # file): without it, a cut string is `eof`, not a control character.
            try:
                parse_line(raw[:-1])
            except ParseError as bare:
                error = bare
            counts.rejected[error.category] += 1
            if counts.first_rejected is None:
                counts.first_rejected = line

        # Lines are turned into Arrow a chunk at a time, then the chunks of a batch joined:
        # the Python values of a small chunk stay in the CPU's cache until converted.
        chunk_lines = min(_CHUNK_LINES, self.batch_lines)
        parse_run = BlockStream().parse  # this run's blocks, backing off after a bad one

        def parsed(piece: Piece) -> Iterable[Any]:
            """A piece's lines for `fill`: its single lines raw, its run of complete lines
            parsed at once when every line of it is valid (their models), raw (parsed one
            by one) else."""
            single, body = piece
            values = parse_run(body) if body else None
            rest: Iterable[Any] = io.BytesIO(body) if values is None else values
            return chain(single, rest) if single else rest

        lines_of_run = chain.from_iterable(map(parsed, read_pieces(handle, self.max_line)))
        first = 1
        ended = False
        while not ended:
            pieces: list[pa.RecordBatch] = []
            start = first
            while first - start < self.batch_lines:
                want = min(chunk_lines, self.batch_lines - (first - start))
                dense: list[list[Any]] = [[] for _ in _DENSE]
                sparse: list[list[tuple[int, Any]]] = [[] for _ in _SPARSE]
                rejected.clear()
                last = _FILL(islice(lines_of_run, want), first, dense, sparse, reject, parse_line)
                rows = len(dense[0])
                counts.lines = last
                counts.rows += rows
                if rows:
                    lines: Sequence[int] = range(first, last + 1)
                    if rejected:  # rare: the rows' line numbers skip them
                        gone = set(rejected)
                        lines = [line for line in lines if line not in gone]
                    pieces.append(self._batch(run_index, lines, dense, sparse))
                ended = last - first + 1 < want
                first = last + 1
                if ended:
                    break
            if pieces:
                self.bytes_read = done + tell()
                yield pieces[0] if len(pieces) == 1 else _joined(pieces)

    def _batch(
        self,
        run_index: pa.Int32Scalar,
        lines: Sequence[int],
        dense: list[list[Any]],
        sparse: list[list[tuple[int, Any]]],
    ) -> pa.RecordBatch:
        size = len(lines)
        columns: dict[str, list[Any]] = dict(zip(_DENSE, dense, strict=True))
        for (name, default), exceptions in zip(_SPARSE.items(), sparse, strict=True):
            values = [default] * size
            for row, value in exceptions:
                values[row] = value
            columns[name] = values
        arrays: list[pa.Array[Any]] = [
            pa.DictionaryArray.from_arrays(pa.repeat(run_index, size), self._run_dictionary),
            pa.array(lines, pa.uint64()),
        ]
        for name in _LINE_COLUMNS:
            kind = SCHEMA.field(name).type
            if isinstance(kind, pa.DictionaryType):
                indices = pa.array(columns[name], kind.index_type)
                arrays.append(pa.DictionaryArray.from_arrays(indices, _DICTIONARY_ARRAYS[name]))
            else:
                arrays.append(pa.array(columns[name], kind))
        return pa.RecordBatch.from_arrays(arrays, schema=SCHEMA)


def _joined(pieces: list[pa.RecordBatch]) -> pa.RecordBatch:
    """One record batch of the rows of `pieces`, in order (each column one buffer)."""
    joined = pa.Table.from_batches(pieces, schema=SCHEMA).combine_chunks().to_batches()
    assert len(joined) == 1
    return joined[0]


def iter_batches(
    runs: Iterable[str | os.PathLike[str]],
    *,
    batch_lines: int = BATCH_LINES,
    max_line: int = MAX_LINE,
) -> Iterator[pa.RecordBatch]:
    """The rows of `runs` as record batches of the table's schema, read as they are
    consumed (for runs larger than memory). `RunReader` also gives the counts."""
    return RunReader(runs, batch_lines=batch_lines, max_line=max_line).batches()


def read_runs(runs: Iterable[str | os.PathLike[str]], *, max_line: int = MAX_LINE) -> pa.Table:
    """One table of the rows of every run (see `SCHEMA`).

    The lines left out are counted per run in the schema's metadata under
    `overbrainer:counts` (JSON: a list of `RunCounts`, `rejected` per category: `syntax`,
    `eof`, `data`, `length`); `RunReader` gives them as objects.
    """
    reader = RunReader(runs, max_line=max_line)
    table = pa.Table.from_batches(list(reader.batches()), schema=SCHEMA)
    metadata: dict[bytes, bytes] = dict(SCHEMA.metadata or {})
    metadata[COUNTS_KEY] = json.dumps([asdict(counts) for counts in reader.counts]).encode()
    return table.replace_schema_metadata(metadata)


def _size(run: Run) -> int:
    if run.metrics is None:
        return 0
    try:
        return run.metrics.stat().st_size
    except OSError:
        return 0


# --- the loop that fills the columns, compiled from the schema ---

_DICTIONARY_ARRAYS = {name: pa.array(values, pa.string()) for name, values in DICTIONARIES.items()}
_VARIANTS = (Log, Eval, Stage, Begin, End)  # most frequent first: a `log` line a step
_STAGE_INDEX = {JobStage(value): index for index, value in enumerate(DICTIONARIES["name"])}


def _tag(variant: type[Any]) -> str:
    tag = variant.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


def _value(name: str, variant: type[Any]) -> str:
    """The expression that gives column `name` of a line `o` of `variant`."""
    if name == "event":
        return str(DICTIONARIES["event"].index(_tag(variant)))
    if name not in VARIANT_FIELDS[_tag(variant)]:
        return "None"
    if name in DICTIONARIES:
        if name != "name":  # pragma: no cover - the schema's only other enum is the tag
            raise TypeError(f"no index map for the dictionary column {name!r}")
        return "STAGE_INDEX[o.name]"
    return f"o.{name}"


def _constant(name: str, variant: type[Any]) -> tuple[bool, Any]:
    """Whether column `name` is the same for every line of `variant`, and that value."""
    if name == "event":
        return True, DICTIONARIES["event"].index(_tag(variant))
    return name not in VARIANT_FIELDS[_tag(variant)], None


# A column is dense when the most frequent variant (a `log`) gives it a value of the line:
# every row appends to it. Otherwise the `log` value is a constant (its `event`, None for
# `total` and `name`): the column starts as that constant and the other variants record
# (row, value) where they differ, so a `log` line costs one append per field it has.
_DENSE = tuple(name for name in _LINE_COLUMNS if not _constant(name, _VARIANTS[0])[0])
_SPARSE: dict[str, Any] = {
    name: _constant(name, _VARIANTS[0])[1] for name in _LINE_COLUMNS if name not in _DENSE
}


def _compile_fill() -> Callable[..., int]:
    """`fill(lines, first, dense, sparse, reject, parse)`: parses each of `lines` (numbered
    from `first`; a line already parsed, a generated model, is taken as it is), appends its
    values to the dense columns and records where a sparse column differs from its default;
    `reject(number, raw, error)` for a line the reference rejects. Returns the last line's
    number (`first - 1` for no line)."""
    for model in _VARIANTS:  # the models and the Arrow schema come from the same schema
        assert tuple(model.__struct_fields__) == VARIANT_FIELDS[_tag(model)], model
    assert {_tag(model) for model in _VARIANTS} == set(VARIANT_FIELDS)
    assert _DENSE[0] == "time"  # every variant has it: its length counts the rows
    dense = [f"d{index}" for index in range(len(_DENSE))]
    sparse = [f"s{index}" for index in range(len(_SPARSE))]
    body = [
        "def fill(lines, first, dense, sparse, reject, parse):",
        f"    {''.join(name + ', ' for name in dense)}= [column.append for column in dense]",
        f"    {''.join(name + ', ' for name in sparse)}= [column.append for column in sparse]",
        "    time_column = dense[0]",
        "    number = first - 1",
        "    for number, o in enumerate(lines, first):",
        "        c = o.__class__",
    ]
    branches = []  # each variant's appends, the variant's classes named by `{}`
    for variant in _VARIANTS:
        calls = []
        differs = [
            (append, name, _value(name, variant))
            for append, name in zip(sparse, _SPARSE, strict=True)
            if _value(name, variant) != repr(_SPARSE[name])
        ]
        if differs:
            calls.append("row = len(time_column)")
            calls += [f"{append}((row, {value}))" for append, _, value in differs]
        calls += [
            f"{append}({_value(name, variant)})" for append, name in zip(dense, _DENSE, strict=True)
        ]
        branches.append((variant, "; ".join(calls)))
    # a line already parsed (its model), else a raw line
    for position, (variant, appends) in enumerate(branches):
        keyword = "if" if position == 0 else "elif"
        body.append(f"        {keyword} c is {variant.__name__}:")
        body.append(f"            {appends}")
    body += [
        "        else:",
        "            try:",
        "                o = parse(o)",
        "            except ParseError as error:",
        "                reject(number, o, error)",
        "                continue",
        "            c = o.__class__",
    ]
    for position, (variant, appends) in enumerate(branches):
        body.append(f"            {'if' if position == 0 else 'elif'} c is {variant.__name__}:")
        body.append(f"                {appends}")
    body.append("    return number")
    namespace: dict[str, Any] = {
        "ParseError": ParseError,
        "STAGE_INDEX": _STAGE_INDEX,
        **{model.__name__: model for model in _VARIANTS},
    }
    exec(compile("\n".join(body) + "\n", f"<{__name__} fill>", "exec"), namespace)
    function: Callable[..., int] = namespace["fill"]
    return function


_FILL = _compile_fill()

"""Rows from metrics files, in Arrow record batches: every line as `parse_line` reads it.

A row is what the reference reads from a line, nothing else: a line the reference
rejects is left out and counted (by the reference's error category), never guessed at,
and so is a line over the user's bound (`length`). A file's chunks are fed to the core
(`reader.TableScan`), which reads every line, on every core, and builds the columns in
Arrow's layout (value buffers, validity bitmaps), a batch at a time; here they are handed
to Arrow as they are, with no Python object per value, so memory stays flat whatever the
runs' size. The core's fields and the Arrow schema are generated from the same schema.
"""

from __future__ import annotations

import json
import marshal
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import IO, TYPE_CHECKING, Any

import pyarrow as pa

from ..contract.models import JobStage
from ..files.chunks import GzipCutError, read_chunks
from ..reader import FIELD_NAMES, LEFT_OUT, TAGS, TableScan
from ..runs.discover import find_runs
from ..runs.state import STDIN, Run, name_of
from ..text.shown import as_text
from .schema import DICTIONARIES, LONG_SCHEMA, SCHEMA, wide_schema

if TYPE_CHECKING:
    from .._core import TableBatch

BATCH_LINES = 65_536
"""Lines per record batch (one Parquet row group each): as many rows, less the lines left out."""

COUNTS_KEY = b"overbrainer:counts"
"""The key of `read_runs`'s schema metadata holding each run's counts (JSON)."""

_TABLE_COLUMNS = ("run", "line")
_LINE_COLUMNS = tuple(name for name in SCHEMA.names if name not in _TABLE_COLUMNS)
"""The columns a line fills: `event`, then one per field of any variant."""

_CATEGORIES = LEFT_OUT
"""Why a line is left out: the reference's error categories (`ParseError.category`), and
`length` for a line over the user's bound (`max_line`), skipped unread as `check` does."""

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
    """Whether the last line has no newline and reads as cut short (a run still writing,
    or killed: the reference's `eof`, the core's rule, `check`'s):
    left out, but not counted among the rejected lines. A last line no byte can make valid
    (`GARBAGE`) is a rejected line of its category instead."""
    gzip_cut: str | None = None
    """For a `.gz` cut short (`chunks.GzipCutError`): what is said of it (its lines up to
    the cut are read); None otherwise."""

    @property
    def left_out(self) -> int:
        """Lines that gave no row."""
        return sum(self.rejected.values()) + self.cut


class KeptBatches:
    """The core's batches of standard input, read once as they come and kept in a
    temporary file (removed when closed) for a second reading: the wide table's columns
    are every scalar key, known once every run is read, and a stream cannot be read again.

    What is kept is what the lines gave (their columns and scalars, as the core hands
    them), never the stream's bytes: a line left out (junk, a line over `max_line`, read in
    flat memory as `check -` reads it) takes no room, so the file follows the rows. The
    first reading (`RunReader` given it, or `scalar_keys`) fills it and its run's counts;
    a later one reads them back instead of the stream."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by `close`
        self.counts: RunCounts | None = None
        """The stream's counts once it was read whole; None before."""

    def keeping(
        self, convert: Callable[[pa.Int32Scalar, TableBatch], pa.RecordBatch]
    ) -> Callable[[pa.Int32Scalar, TableBatch], pa.RecordBatch]:
        """`convert`, each batch kept first."""

        def kept(index: pa.Int32Scalar, batch: TableBatch) -> pa.RecordBatch:
            marshal.dump(batch, self._file)
            return convert(index, batch)

        return kept

    def done(self, counts: RunCounts) -> None:
        """The stream is read: its counts, for a later reading."""
        self.counts = RunCounts(**asdict(counts))

    def __iter__(self) -> Iterator[TableBatch]:
        self._file.flush()
        self._file.seek(0)
        while True:
            try:
                yield marshal.load(self._file)
            except EOFError:
                return

    def close(self) -> None:
        self._file.close()


def run_name(run: Run) -> str:
    """The `run` value of a run: its name among the runs read (`runs.discover`: its path
    below the folder the runs have in common, `exp1/seed1`); alone, its folder's name, or a
    metrics file's name when it is not `metrics.jsonl` or `metrics.jsonl.gz` (which stand
    for their folder); `-` for standard input (`runs.state.name_of`, the core's rule). A
    byte of the name that is not UTF-8 is the text `\\xff` (`text.shown.as_text`): the
    column is UTF-8, the name as the commands show it."""
    return as_text(name_of(run))


class RunReader:
    """Reads runs into record batches of the table's schema, one run after another.

    `runs` are run folders, folders of runs, metrics files or `-` (standard input), as on
    the command line (one path or many: `runs.discover`, which names each run by its path
    below the folder they have in common, `exp1/seed1`, unique by construction). Raises
    `RunError` for a path that names no run (missing, a folder without runs, a file of
    another name among several paths). `counts` fills as the batches are read;
    `bytes_read` / `bytes_total` tell the progress over the files.

    Each metrics file is opened as `check` opens it (`Run.open_metrics`: a FIFO only when
    it is the path named, a FIFO found in a folder, a device or a folder is a
    `SideFileError`) and read
    in chunks by the core (`TableScan`): a line of any length is read, and only a line
    over the user's bound (`max_line`, none by default) is left out unread,
    counted under `length`, in flat memory.
    """

    def __init__(
        self,
        runs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
        *,
        batch_lines: int = BATCH_LINES,
        stdin: IO[bytes] | None = None,
        max_line: int | None = None,
        scalars: Iterable[str] = (),
        kept: KeptBatches | None = None,
    ) -> None:
        if batch_lines < 1:
            raise ValueError("batch_lines must be at least 1")
        if max_line is not None and max_line < 1:
            raise ValueError("max_line must be at least 1")
        self.max_line = max_line
        self.scalars = list(scalars)
        """The scalar keys the wide batches hold a column of each (`wide_schema`)."""
        self.schema = wide_schema(self.scalars)
        """The schema of `batches()`: `SCHEMA`, then a column for each of `scalars`."""
        given = [runs] if isinstance(runs, str | os.PathLike) else list(runs)
        self.runs = find_runs([os.fspath(run) for run in given])
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
            RunCounts(name, as_text(run.name)) for run, name in zip(self.runs, names, strict=True)
        ]
        self.batch_lines = batch_lines
        self.stdin = stdin
        self.kept = kept
        """Standard input's batches: kept as it is read, read back once kept whole."""
        self.bytes_read = 0
        self.bytes_total = sum(_size(run) for run in self.runs)
        # One dictionary of every run's name, the same array shared by every batch (never
        # copied): one Arrow IPC file needs one dictionary for all its batches. Parquet's
        # writer cuts it to the runs of each row group (`writers`).
        self._run_dictionary = pa.array(names, pa.string())

    def keep(self, runs: Iterable[Run]) -> None:
        """Read only `runs` (some of `self.runs`, kept in their order), their names as they
        were among every run given: the `run` column's dictionary then names only them."""
        kept = {id(run) for run in runs}
        pairs = [pair for pair in zip(self.runs, self.counts, strict=True) if id(pair[0]) in kept]
        self.runs = [run for run, _ in pairs]
        self.counts = [counts for _, counts in pairs]
        self.bytes_total = sum(_size(run) for run in self.runs)
        self._run_dictionary = pa.array([counts.run for counts in self.counts], pa.string())

    def reading(self, path: str | os.PathLike[str]) -> str | None:
        """The run (as the user named it) whose metrics file is the file at `path`, the
        same file (device and inode, symlinks followed: a run folder's `metrics.jsonl`
        too, standard input when it is that file); None when no run reads it (or nothing
        is at `path`)."""
        try:
            target = os.stat(path)
        except (OSError, ValueError):
            return None
        for run in self.runs:
            try:
                if run.metrics is None:
                    handle = self.stdin if self.stdin is not None else sys.stdin.buffer
                    here = os.fstat(handle.fileno())
                else:
                    here = os.stat(run.metrics)
            except (OSError, ValueError, AttributeError):
                continue
            if (here.st_dev, here.st_ino) == (target.st_dev, target.st_ino):
                return run.name
        return None

    def batches(self) -> Iterator[pa.RecordBatch]:
        """The rows of every run, in order: a run's rows in the order of its lines (of
        `self.schema`: a column for each of `scalars` after `SCHEMA`'s)."""
        return self._batches(self._batch)

    def long_batches(self) -> Iterator[pa.RecordBatch]:
        """Every scalar of every run, one row each (`LONG_SCHEMA`), in the order of the
        runs, their lines and, within a line, its keys."""
        return self._batches(self._long)

    def _batches(
        self, convert: Callable[[pa.Int32Scalar, TableBatch], pa.RecordBatch]
    ) -> Iterator[pa.RecordBatch]:
        done = 0
        for index, (run, counts) in enumerate(zip(self.runs, self.counts, strict=True)):
            if run.metrics is None:
                yield from self._stdin(index, counts, convert)
                continue
            with run.open_metrics() as handle:
                tell = handle.tell if handle.seekable() else lambda: 0  # a FIFO has no position
                name = run.display(run.metrics)
                yield from self._read(handle, index, counts, convert, tell, done, name=name)
            done += _size(run)
            self.bytes_read = done

    def _stdin(
        self,
        index: int,
        counts: RunCounts,
        convert: Callable[[pa.Int32Scalar, TableBatch], pa.RecordBatch],
    ) -> Iterator[pa.RecordBatch]:
        """Standard input's rows: read as they come (kept, when `kept` is given), or read
        back from `kept` once it holds them all."""
        kept = self.kept
        if kept is not None and kept.counts is not None:
            run_index: pa.Int32Scalar = pa.scalar(index, pa.int32())
            yield from (convert(run_index, batch) for batch in kept)
            for name, value in asdict(kept.counts).items():
                if name not in ("run", "path"):
                    setattr(counts, name, value)
            return
        handle = self.stdin if self.stdin is not None else sys.stdin.buffer
        read = convert if kept is None else kept.keeping(convert)
        yield from self._read(handle, index, counts, read, lambda: 0, name=STDIN)
        if kept is not None:
            kept.done(counts)

    def reader(self) -> pa.RecordBatchReader:
        """The batches as a `pyarrow.RecordBatchReader` (what Arrow's writers take)."""
        return pa.RecordBatchReader.from_batches(self.schema, self.batches())

    def _read(
        self,
        handle: IO[bytes],
        index: int,
        counts: RunCounts,
        convert: Callable[[pa.Int32Scalar, TableBatch], pa.RecordBatch],
        tell: Callable[[], int],
        done: int = 0,
        *,
        name: str | None = None,
    ) -> Iterator[pa.RecordBatch]:
        """The rows of one metrics file: its chunks fed to the core (`TableScan`), which
        reads every line and hands back each batch's columns in Arrow's layout. A `.gz` is
        read decompressed (`chunks.read_chunks`, given the file's `name`)."""
        run_index: pa.Int32Scalar = pa.scalar(index, pa.int32())
        scan = TableScan(self.batch_lines, self.max_line)
        try:
            for chunk in read_chunks(handle, name=name):
                batches = scan.feed(chunk)
                self._count(counts, scan)
                if batches:
                    self.bytes_read = done + tell()
                    yield from (convert(run_index, batch) for batch in batches)
                if scan.stopped:
                    break
        except GzipCutError as error:  # after every byte before the cut: those lines count
            counts.gzip_cut = error.what
        batches = scan.finish()
        self._count(counts, scan)
        yield from (convert(run_index, batch) for batch in batches)

    @staticmethod
    def _count(counts: RunCounts, scan: TableScan) -> None:
        counts.lines = scan.lines
        counts.rejected = dict(zip(LEFT_OUT, scan.left_out, strict=True))
        counts.first_rejected = scan.first_left_out
        counts.cut = scan.cut
        counts.rows = counts.lines - counts.left_out

    def _batch(self, run_index: pa.Int32Scalar, batch: TableBatch) -> pa.RecordBatch:
        """A batch of the core's columns as a record batch of `SCHEMA`: each buffer handed
        to Arrow as it is (no copy per value)."""
        rows, lines, events, fields, scalars = batch
        arrays: list[pa.Array[Any]] = [
            pa.DictionaryArray.from_arrays(pa.repeat(run_index, rows), self._run_dictionary),
            _array(pa.uint64(), rows, lines),
        ]
        columns = dict(zip(FIELD_NAMES, fields, strict=True))
        for name in _LINE_COLUMNS:
            kind = SCHEMA.field(name).type
            if name == "event":
                indices = _array(kind.index_type, rows, events)
            else:
                values, validity, nulls = columns[name]
                value_type = kind.index_type if isinstance(kind, pa.DictionaryType) else kind
                indices = _array(value_type, rows, values, validity, nulls)
            if isinstance(kind, pa.DictionaryType):
                arrays.append(pa.DictionaryArray.from_arrays(indices, _DICTIONARY_ARRAYS[name]))
            else:
                arrays.append(indices)
        if self.scalars:
            arrays += _spread(rows, scalars, self.scalars)
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)

    def _long(self, run_index: pa.Int32Scalar, batch: TableBatch) -> pa.RecordBatch:
        """A batch's scalars as rows of `LONG_SCHEMA`: each its row's run, line, event,
        step and time, its key and its value."""
        import numpy as np

        rows, lines, events, fields, (entry_rows, entry_keys, values, keys) = batch
        count = len(entry_rows) // 4
        at = pa.array(np.frombuffer(entry_rows, dtype="<u4"), pa.uint32())
        columns = dict(zip(FIELD_NAMES, fields, strict=True))
        step_values, step_validity, step_nulls = columns["step"]
        step = _array(pa.uint64(), rows, step_values, step_validity, step_nulls)
        time_values, time_validity, time_nulls = columns["time"]
        time = _array(pa.float64(), rows, time_values, time_validity, time_nulls)
        event = pa.DictionaryArray.from_arrays(
            _array(pa.int8(), rows, events), _DICTIONARY_ARRAYS["event"]
        )
        key = pa.array(keys, pa.string()).take(
            pa.array(np.frombuffer(entry_keys, dtype="<u4"), pa.uint32())
        )
        arrays: list[pa.Array[Any]] = [
            pa.DictionaryArray.from_arrays(pa.repeat(run_index, count), self._run_dictionary),
            _array(pa.uint64(), rows, lines).take(at),
            event.take(at),
            step.take(at),
            time.take(at),
            key,
            _array(pa.float64(), count, *values),
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=LONG_SCHEMA)


def _spread(rows: int, scalars: Any, wanted: list[str]) -> list[pa.Array[Any]]:
    """The long scalars of a batch of `rows` rows spread into one float64 column per key of
    `wanted`: a row's value of the key, null where the row has none (or holds null)."""
    import numpy as np

    entry_rows, entry_keys, (values, validity, _), keys = scalars
    at = np.frombuffer(entry_rows, dtype="<u4")
    key = np.frombuffer(entry_keys, dtype="<u4")
    value = np.frombuffer(values, dtype="<f8")
    if validity is None:
        valid = np.ones(len(at), dtype=bool)
    else:
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        valid = bits[: len(at)].astype(bool)
    # The entries grouped by key (a stable sort: a key's entries in the order of their
    # rows), each key's group found by its bounds: every entry is looked at once, not once
    # per key.
    order = np.argsort(key, kind="stable")
    bounds = np.searchsorted(key[order], np.arange(len(keys) + 1))
    index = {name: number for number, name in enumerate(keys)}
    columns: list[pa.Array[Any]] = []
    for name in wanted:
        number = index.get(name)
        filled = np.zeros(rows, dtype="<f8")
        missing = np.ones(rows, dtype=bool)
        if number is not None:
            chosen = order[bounds[number] : bounds[number + 1]]
            filled[at[chosen]] = value[chosen]
            missing[at[chosen]] = ~valid[chosen]
        columns.append(pa.array(filled, pa.float64(), mask=missing))
    return columns


def scalar_keys(
    runs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    max_line: int | None = None,
    stdin: IO[bytes] | None = None,
    kept: KeptBatches | None = None,
) -> tuple[list[str], list[str]]:
    """Every scalar key of `runs` (a log's `scalars`, an end's `summary`), sorted: the
    columns a wide table of them needs, known once they are read (a reading of its own);
    and the runs (as the user named them) not read for it: a stream (a FIFO) is read once,
    by the table itself. Standard input is read from `stdin` (a file that can be read
    again), or read as it comes into `kept` (`KeptBatches`), which the table then reads;
    with neither, it is a stream not read here."""
    found: set[str] = set()
    reader = RunReader(runs, max_line=max_line, stdin=stdin, kept=kept)
    readable = stdin is not None or kept is not None
    streams = [run.name for run in reader.runs if _mode(run) == "fifo"]
    if not readable and any(run.metrics is None for run in reader.runs):
        streams.append(STDIN)
    reader.runs = [
        run for run in reader.runs if (run.metrics is None and readable) or _mode(run) == "regular"
    ]
    reader.counts = [RunCounts(run_name(run), as_text(run.name)) for run in reader.runs]

    def gather(_: pa.Int32Scalar, batch: TableBatch) -> pa.RecordBatch:
        found.update(batch[4][3])
        return _EMPTY

    for _ in reader._batches(gather):
        pass
    return sorted(found), streams


def _mode(run: Run) -> str:
    """What a run's metrics file is, links followed (as it is opened): `regular`, `fifo`,
    or `other` (standard input, a folder, a device, nothing: the table's own reading says
    what is wrong with it)."""
    import stat

    if run.metrics is None:
        return "other"
    try:
        mode = run.metrics.stat().st_mode
    except OSError:
        return "other"
    return "regular" if stat.S_ISREG(mode) else "fifo" if stat.S_ISFIFO(mode) else "other"


_EMPTY = pa.record_batch([], schema=pa.schema([]))


def _array(
    kind: pa.DataType,
    rows: int,
    values: bytes,
    validity: bytes | None = None,
    nulls: int = 0,
) -> pa.Array[Any]:
    """An Arrow array over the core's buffers, as they are."""
    buffers = [None if validity is None else pa.py_buffer(validity), pa.py_buffer(values)]
    return pa.Array.from_buffers(kind, rows, buffers, null_count=nulls)


def _joined(pieces: list[pa.RecordBatch]) -> pa.RecordBatch:
    """One record batch of the rows of `pieces`, in order (each column one buffer)."""
    joined = pa.Table.from_batches(pieces, schema=SCHEMA).combine_chunks().to_batches()
    assert len(joined) == 1
    return joined[0]


def iter_batches(
    runs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    batch_lines: int = BATCH_LINES,
    max_line: int | None = None,
) -> Iterator[pa.RecordBatch]:
    """The rows of `runs` as record batches of the table's schema, read as they are
    consumed (for runs larger than memory). The lines left out are not in the batches:
    for them, read through a `RunReader` (`RunReader(runs).batches()`, the same batches),
    whose `counts` (a `RunCounts` per run) fill as the batches are read."""
    return RunReader(runs, batch_lines=batch_lines, max_line=max_line).batches()


def read_runs(
    runs: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    max_line: int | None = None,
) -> pa.Table:
    """One table of the rows of every run (see `SCHEMA`), with a column for each scalar
    key the runs hold (`wide_schema`): `runs` is one path (a str is a path, never its
    characters) or many, as `RunReader` takes them.

    The lines left out are counted per run in the schema's metadata under
    `overbrainer:counts` (JSON: a list of `RunCounts`, `rejected` per category: `syntax`,
    `eof`, `data`, `length`, and `cut`, `gzip_cut`); `counts_of(table)` gives them back as
    `RunCounts`, and `RunReader` gives them as objects as it reads:

    >>> table = read_runs("examples/tiny-run")  # doctest: +SKIP
    >>> [(c.run, c.rows, c.left_out) for c in counts_of(table)]  # doctest: +SKIP
    [('tiny-run', 76, 0)]
    """
    reader = RunReader(runs, max_line=max_line)
    # One reading: the core's batches kept (the table is in memory anyway), then the wide
    # columns of every key they hold.
    kept: list[tuple[pa.Int32Scalar, TableBatch]] = []

    def keep(index: pa.Int32Scalar, batch: TableBatch) -> pa.RecordBatch:
        kept.append((index, batch))
        return _EMPTY

    for _ in reader._batches(keep):
        pass
    reader.scalars = sorted({key for _, batch in kept for key in batch[4][3]})
    reader.schema = wide_schema(reader.scalars)
    table = pa.Table.from_batches(
        [reader._batch(index, batch) for index, batch in kept], schema=reader.schema
    )
    metadata: dict[bytes, bytes] = dict(reader.schema.metadata or {})
    metadata[COUNTS_KEY] = json.dumps([asdict(counts) for counts in reader.counts]).encode()
    return table.replace_schema_metadata(metadata)


def counts_of(table: pa.Table | pa.Schema) -> list[RunCounts]:
    """The counts of each run that `read_runs` read into `table` (or its schema): its
    lines, rows, and lines left out per category, from the metadata `overbrainer:counts`.
    A `KeyError` when the table holds none (it was not made by `read_runs`)."""
    schema = table if isinstance(table, pa.Schema) else table.schema
    counts = json.loads((schema.metadata or {})[COUNTS_KEY])
    return [RunCounts(**item) for item in counts]


def _size(run: Run) -> int:
    if run.metrics is None:
        return 0
    try:
        return run.metrics.stat().st_size
    except OSError:
        return 0


_DICTIONARY_ARRAYS = {name: pa.array(values, pa.string()) for name, values in DICTIONARIES.items()}

# The core's tables and the Arrow schema come from the same schema: the same fields, the
# same variants and stages in the same order.
assert set(FIELD_NAMES) == set(_LINE_COLUMNS) - {"event"}, (FIELD_NAMES, _LINE_COLUMNS)
assert tuple(DICTIONARIES["event"]) == TAGS
assert tuple(DICTIONARIES["name"]) == tuple(stage.value for stage in JobStage)

"""Writing the table's record batches: Parquet, Arrow IPC or CSV, one file or Hive partitions.

A batch is written as soon as it is read, so memory stays flat. A file is written through
`files.atomic`: an exclusive temporary beside its destination, renamed into place once
complete, removed on an error (a full disk) or an ending signal (SIGINT, SIGTERM): an
export that fails or is interrupted leaves the previous file (or nothing), never half a
file. A partitioned export is written the same way, as a folder (`run=<name>/part-0.parquet`,
the name percent-encoded as Hive does), and never into a folder that already holds
something. A folder's name is bounded (`partition_folder`: a long name is cut and its
digest added), so the files hold the partition column too, each name whole.

Parquet is written in row groups of `ROW_GROUP_ROWS` rows whatever the runs' sizes (many
small runs share a row group), and each row group's `run` dictionary holds the runs of
that row group only: the file's size follows its rows, not the square of the runs.
"""

from __future__ import annotations

import hashlib
import io
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

import pyarrow as pa
import pyarrow.compute as pc

from ..files.atomic import atomic_file, atomic_path, create_exclusive
from .schema import SCHEMA

FORMATS = {".parquet": "parquet", ".arrow": "arrow", ".csv": "csv"}
"""The output formats, by the output's suffix."""

PARTITION_COLUMNS = ("run",)
"""The columns an export can be partitioned by: each batch holds one value of them."""

PART_NAME_MOST = 200
"""The most bytes of a partition folder's name (`run=...`), below any file system's bound
on a name (255 bytes): a longer one is cut, and the name's digest added."""

PART_PREFIX = 100
"""The bytes of a long name's percent-encoding kept before its digest."""

ROW_GROUP_ROWS = 65_536
"""Rows per Parquet row group (the last one of a file holds what is left)."""

_COMPACTED = ("run",)
"""Dictionary columns whose dictionary (every run of an export) is cut, in each Parquet
row group, to the values that row group holds (they hold no nulls)."""


class _Kept(Exception):
    """Raised inside an atomic write to leave the earlier file as it is."""


class OutputError(Exception):
    """An output that cannot be written as asked (its suffix, a folder in the way)."""


def format_of(path: Path) -> str:
    """The format an output path asks for, by its suffix."""
    try:
        return FORMATS[path.suffix.lower()]
    except KeyError:
        known = ", ".join(FORMATS)
        raise OutputError(f"{path}: unknown output format (the name must end in {known})") from None


def write_batches(
    batches: Iterable[pa.RecordBatch],
    path: Path,
    *,
    schema: pa.Schema = SCHEMA,
    partition_by: str | None = None,
    replace_if: Callable[[], bool] | None = None,
) -> bool:
    """Write every batch of `batches` (of `schema`) to `path` in the format its suffix
    names; with `partition_by` (`run`), `path` is a folder of Hive partitions. Once every
    batch is written, `replace_if()` (when given) decides whether the new file takes the
    place of one already at `path`: when it answers False, that earlier file is left as
    it was and nothing is written. Whether `path` was written."""
    kind = format_of(path)
    keep = None if replace_if is None else (lambda: path.exists() and not replace_if())
    if partition_by is None:
        if path.is_dir():
            raise OutputError(f"{path}: is a folder (--partition-by writes a folder)")
        try:
            with atomic_file(path) as handle:
                _write_file(batches, schema, handle, kind)
                if keep is not None and keep():
                    raise _Kept
        except _Kept:
            return False
        return True
    if partition_by not in PARTITION_COLUMNS or partition_by not in schema.names:
        raise OutputError(f"cannot partition by {partition_by!r} (only by {PARTITION_COLUMNS})")
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise OutputError(f"{path}: already exists; a partitioned export needs a new folder")
    try:
        with atomic_path(path, folder=True) as folder:
            _write_partitions(batches, schema, folder, kind, partition_by)
            if keep is not None and path.is_dir() and keep():
                raise _Kept
    except _Kept:
        return False
    return True


class _Held(io.RawIOBase):
    """`handle` as Arrow writes it: closing it only flushes it, leaving it to its owner
    (`files.atomic` syncs it to disk before closing it)."""

    def __init__(self, handle: IO[bytes]) -> None:
        super().__init__()
        self._handle = handle

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return self._handle.write(data)

    def tell(self) -> int:
        return self._handle.tell()

    def flush(self) -> None:
        if not self.closed:
            self._handle.flush()


class _Sink:
    """One output file of a format, open for batches: `handle`, a file we created (closed
    with the sink when `owned`)."""

    def __init__(
        self, handle: IO[bytes], schema: pa.Schema, kind: str, *, owned: bool = False
    ) -> None:
        self._stack = ExitStack()
        if owned:
            self._stack.callback(handle.close)
        # Arrow's writers write through the Python file we created (exclusively), never
        # opening a path themselves; a buffer makes their many small writes large ones.
        raw = self._stack.enter_context(pa.PythonFile(_Held(handle), mode="w"))
        stream = self._stack.enter_context(pa.BufferedOutputStream(raw, buffer_size=1 << 20))
        self.write: Callable[[pa.RecordBatch], None]
        self._flush: Callable[[], None] = lambda: None
        if kind == "parquet":
            import pyarrow.parquet as pq

            # Dictionary pages for the dictionary columns only: tried on float columns they
            # cost more than half the write, for values that hardly repeat.
            dictionaries = [f.name for f in schema if isinstance(f.type, pa.DictionaryType)]
            parquet = pq.ParquetWriter(
                stream,
                schema,
                use_dictionary=dictionaries,  # type: ignore[arg-type]  # a list: stubs lag
            )
            self._parquet = self._stack.enter_context(parquet)
            self._schema = schema
            self._pending: list[pa.RecordBatch] = []
            self._rows = 0
            self.write = self._group
            self._flush = self._write_group
        elif kind == "arrow":
            self.write = self._stack.enter_context(pa.ipc.new_file(stream, schema)).write_batch
        else:
            import pyarrow.csv as csv

            self.write = self._stack.enter_context(csv.CSVWriter(stream, schema)).write_batch  # type: ignore[arg-type]  # a NativeFile: stubs lag

    def _group(self, batch: pa.RecordBatch) -> None:
        """A batch into the row group being gathered; written once it holds enough rows."""
        self._pending.append(batch)
        self._rows += batch.num_rows
        if self._rows >= ROW_GROUP_ROWS:
            self._write_group()

    def _write_group(self) -> None:
        if not self._pending:
            return
        table = pa.Table.from_batches(self._pending, schema=self._schema).combine_chunks()
        self._pending, self._rows = [], 0
        for name in _COMPACTED:
            if name in table.schema.names:
                index = table.schema.get_field_index(name)
                column: Any = table.column(index).combine_chunks()
                table = table.set_column(index, table.schema.field(index), _compacted(column))
        self._parquet.write_table(table, row_group_size=ROW_GROUP_ROWS)

    def close(self) -> None:
        try:
            self._flush()
        finally:
            self._stack.close()


def _compacted(column: pa.DictionaryArray[Any, Any]) -> pa.DictionaryArray[Any, Any]:
    """`column` with a dictionary of the values it uses only (in their first order)."""
    used = pc.unique(column.indices)
    indices = pc.index_in(column.indices, value_set=used).cast(column.type.index_type)
    return pa.DictionaryArray.from_arrays(indices, column.dictionary.take(used))


def _write_file(
    batches: Iterable[pa.RecordBatch], schema: pa.Schema, handle: IO[bytes], kind: str
) -> None:
    sink = _Sink(handle, schema, kind)
    try:
        for batch in _read_ahead(batches):
            sink.write(batch)
    finally:
        sink.close()


def partition_folder(by: str, value: str) -> str:
    """The folder of the partition `by=value`: `value` percent-encoded as Hive does
    (`run=exp1%2Fseed1`) when that is at most `PART_NAME_MOST` bytes; else its first
    `PART_PREFIX` bytes of encoding, `-`, and the sha256 of `value` (64 hex digits), so
    that each name has a folder of its own within any file system's bound."""
    whole = f"{by}={quote(value, safe='')}"
    if len(whole) <= PART_NAME_MOST:
        return whole
    prefix = []
    size = len(by) + 1
    for char in value:  # whole escapes only: `%2F` is never cut
        encoded = quote(char, safe="")
        size += len(encoded)
        if size > len(by) + 1 + PART_PREFIX:
            break
        prefix.append(encoded)
    digest = hashlib.sha256(value.encode("utf-8", "surrogateescape")).hexdigest()
    return f"{by}={''.join(prefix)}-{digest}"


def _write_partitions(
    batches: Iterable[pa.RecordBatch], schema: pa.Schema, folder: Path, kind: str, by: str
) -> None:
    """One file per partition value, `BY=VALUE/part-N.EXT` (`partition_folder`), each file
    holding its rows whole, the partition column too: a dictionary of its one value (the
    batches' dictionary names every run, which every file would hold: the square of the
    runs)."""
    suffix = next(suffix for suffix, name in FORMATS.items() if name == kind)
    column = schema.get_field_index(by)
    zero = pa.scalar(0, schema.field(by).type.index_type)
    dictionary = pa.array([], pa.string())
    parts: dict[str, int] = {}
    """The files written in each folder (two names may share one: the counts go on)."""
    current: str | None = None
    sink: _Sink | None = None
    try:
        for batch in _read_ahead(batches):
            values = batch.column(by).unique().to_pylist()
            if len(values) != 1:  # pragma: no cover - a reader's batch holds one run
                raise OutputError(f"a batch holds several values of {by!r}: {values}")
            value = str(values[0])
            if value != current:
                if sink is not None:
                    sink.close()
                    sink = None
                name = partition_folder(by, value)
                (folder / name).mkdir(exist_ok=True)
                index = parts[name] = parts.get(name, -1) + 1
                handle = create_exclusive(folder / name / f"part-{index}{suffix}")
                sink = _Sink(handle, schema, kind, owned=True)
                dictionary = pa.array([value], pa.string())
                current = value
            assert sink is not None
            one = pa.DictionaryArray.from_arrays(pa.repeat(zero, batch.num_rows), dictionary)
            sink.write(batch.set_column(column, schema.field(by), one))
    finally:
        if sink is not None:
            sink.close()


_AHEAD = 2
"""Batches read ahead of the writer: memory holds at most this many more."""
_DONE = object()


_JOIN = 5.0
"""Seconds an interrupted export waits for its reading thread to stop (it does within one
chunk's reading; only one blocked on an idle pipe takes them all)."""


def _read_ahead(source: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The batches of `source`, read in a thread of their own while the caller writes the
    previous ones: Arrow's writers release the GIL, so on two cores the parsing and the
    encoding overlap. An error in the reading thread is raised here; leaving early (an
    error while writing, Ctrl-C) stops the reading thread. `source` is iterated in
    Python (never through Arrow's C++ reader), so a thread still blocked on a read when
    the process exits holds no Arrow state."""
    ready: queue.Queue[Any] = queue.Queue(maxsize=_AHEAD)
    stop = threading.Event()

    def hand(item: Any) -> bool:
        while not stop.is_set():
            try:
                ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            for batch in source:
                if not hand(batch):
                    return
            hand(_DONE)
        except BaseException as error:  # handed to the writing thread, raised there
            hand(error)

    thread = threading.Thread(target=read, name="overbrainer-export-reader", daemon=True)
    thread.start()
    try:
        while True:
            try:
                item = ready.get(timeout=0.1)  # a timeout: Ctrl-C reaches this thread
            except queue.Empty:
                continue
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        # Wait for the reading thread to leave the core: a daemon thread still inside the
        # core's reading (the GIL released) when the interpreter exits is ended by Python
        # as it comes back, and that ending cannot pass through Rust's frames (the process
        # aborts). It stops at its next hand-over; one blocked on a read of a pipe is left.
        thread.join(timeout=_JOIN)

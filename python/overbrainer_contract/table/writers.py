"""Writing the table's record batches: Parquet, Arrow IPC or CSV, one file or Hive partitions.

A batch is written as soon as it is read, so memory stays flat. A file is written beside
its destination under a temporary name and renamed into place once complete: an export
that fails or is interrupted leaves the previous file (or nothing), never half a file.
A partitioned export is written the same way, as a folder (`run=<name>/part-0.parquet`,
the name percent-encoded as Hive does; the partition column lives in the folder names,
not in the files), and never into a folder that already holds something.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyarrow as pa

from .schema import SCHEMA

FORMATS = {".parquet": "parquet", ".arrow": "arrow", ".csv": "csv"}
"""The output formats, by the output's suffix."""

PARTITION_COLUMNS = ("run",)
"""The columns an export can be partitioned by: each batch holds one value of them."""


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
) -> None:
    """Write every batch of `batches` (of `schema`) to `path` in the format its suffix
    names; with `partition_by` (`run`), `path` is a folder of Hive partitions."""
    kind = format_of(path)
    if partition_by is None:
        if path.is_dir():
            raise OutputError(f"{path}: is a folder (--partition-by writes a folder)")
        _atomically(path, lambda temporary: _write_file(batches, schema, temporary, kind))
        return
    if partition_by not in PARTITION_COLUMNS or partition_by not in schema.names:
        raise OutputError(f"cannot partition by {partition_by!r} (only by {PARTITION_COLUMNS})")
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise OutputError(f"{path}: already exists; a partitioned export needs a new folder")
    _atomically(
        path, lambda temporary: _write_partitions(batches, schema, temporary, kind, partition_by)
    )


def _atomically(path: Path, write: Callable[[Path], None]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temporary)
        if path.is_dir():  # an empty folder, checked above
            path.rmdir()
        os.replace(temporary, path)
    except BaseException:
        if temporary.is_dir():
            shutil.rmtree(temporary, ignore_errors=True)
        else:
            temporary.unlink(missing_ok=True)
        raise


class _Sink:
    """One output file of a format, open for batches."""

    def __init__(self, path: Path, schema: pa.Schema, kind: str) -> None:
        self._stack = ExitStack()
        write: Callable[[pa.RecordBatch], None]
        if kind == "parquet":
            import pyarrow.parquet as pq

            # Dictionary pages for the dictionary columns only: tried on float columns they
            # cost more than half the write, for values that hardly repeat.
            dictionaries = [f.name for f in schema if isinstance(f.type, pa.DictionaryType)]
            parquet = pq.ParquetWriter(
                path,
                schema,
                use_dictionary=dictionaries,  # type: ignore[arg-type]  # a list: stubs lag
            )
            write = self._stack.enter_context(parquet).write_batch
        elif kind == "arrow":
            sink = self._stack.enter_context(pa.OSFile(str(path), "wb"))
            write = self._stack.enter_context(pa.ipc.new_file(sink, schema)).write_batch
        else:
            import pyarrow.csv as csv

            write = self._stack.enter_context(csv.CSVWriter(path, schema)).write_batch
        self.write = write

    def close(self) -> None:
        self._stack.close()


def _write_file(
    batches: Iterable[pa.RecordBatch], schema: pa.Schema, path: Path, kind: str
) -> None:
    sink = _Sink(path, schema, kind)
    try:
        for batch in _read_ahead(batches):
            sink.write(batch)
    finally:
        sink.close()


def _write_partitions(
    batches: Iterable[pa.RecordBatch], schema: pa.Schema, folder: Path, kind: str, by: str
) -> None:
    """One file per partition value, `BY=VALUE/part-N.EXT`, the files without the column."""
    kept = [name for name in schema.names if name != by]
    inner = pa.schema([schema.field(name) for name in kept]).with_metadata(schema.metadata)
    suffix = next(suffix for suffix, name in FORMATS.items() if name == kind)
    folder.mkdir()
    parts: dict[str, int] = {}
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
                part = folder / f"{by}={quote(value, safe='')}"
                part.mkdir(exist_ok=True)
                index = parts[value] = parts.get(value, -1) + 1
                sink = _Sink(part / f"part-{index}{suffix}", inner, kind)
                current = value
            assert sink is not None
            sink.write(batch.select(kept))
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

"""Writing the table's record batches: Parquet, Arrow IPC or CSV, one file or Hive partitions.

A batch is written as soon as it is read, so memory stays flat. A file is written beside
its destination under a temporary name and renamed into place once complete: an export
that fails or is interrupted leaves the previous file (or nothing), never half a file.
A partitioned export (`run=<name>/part-0.parquet`, ...) is written the same way, as a
folder, and never into a folder that already holds something.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa

FORMATS = {".parquet": "parquet", ".arrow": "arrow", ".csv": "csv"}
"""The output formats, by the output's suffix."""

_DATASET_FORMATS: dict[str, Literal["parquet", "ipc", "csv"]] = {
    "parquet": "parquet",
    "arrow": "ipc",
    "csv": "csv",
}


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
    batches: pa.RecordBatchReader, path: Path, *, partition_by: str | None = None
) -> None:
    """Write every batch of `batches` to `path` in the format its suffix names; with
    `partition_by`, `path` is a folder of Hive partitions on that column."""
    kind = format_of(path)
    if partition_by is None:
        if path.is_dir():
            raise OutputError(f"{path}: is a folder (--partition-by writes a folder)")
        _atomically(path, lambda temporary: _write_file(batches, temporary, kind))
        return
    if partition_by not in batches.schema.names:
        raise OutputError(f"no column {partition_by!r} to partition by")
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise OutputError(f"{path}: already exists; a partitioned export needs a new folder")
    _atomically(path, lambda temporary: _write_partitions(batches, temporary, kind, partition_by))


def _atomically(path: Path, write: object) -> None:
    assert callable(write)
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


def _write_file(source: pa.RecordBatchReader, path: Path, kind: str) -> None:
    batches = _read_ahead(source)
    if kind == "parquet":
        import pyarrow.parquet as pq

        # Dictionary pages for the dictionary columns only: tried on float columns they cost
        # more than half the write, for values that hardly repeat.
        dictionaries = [f.name for f in source.schema if isinstance(f.type, pa.DictionaryType)]
        with pq.ParquetWriter(
            path,
            source.schema,
            use_dictionary=dictionaries,  # type: ignore[arg-type]  # a list: pyarrow-stubs lag
        ) as parquet:
            for batch in batches:
                parquet.write_batch(batch)
    elif kind == "arrow":
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, source.schema) as ipc:
            for batch in batches:
                ipc.write_batch(batch)
    else:
        import pyarrow.csv as csv

        with csv.CSVWriter(path, source.schema) as writer:
            for batch in batches:
                writer.write_batch(batch)


def _write_partitions(batches: pa.RecordBatchReader, folder: Path, kind: str, by: str) -> None:
    import pyarrow.dataset as ds

    partitioning = ds.partitioning(pa.schema([batches.schema.field(by)]), flavor="hive")
    suffix = next(suffix for suffix, name in FORMATS.items() if name == kind)
    ds.write_dataset(  # type: ignore[call-arg]  # preserve_order: pyarrow-stubs lags pyarrow
        batches,
        folder,
        format=_DATASET_FORMATS[kind],
        partitioning=partitioning,
        basename_template=f"part-{{i}}{suffix}",
        existing_data_behavior="error",
        preserve_order=True,
    )


_AHEAD = 2
"""Batches read ahead of the writer: memory holds at most this many more."""
_DONE = object()


def _read_ahead(source: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    """The batches of `source`, read in a thread of their own while the caller writes the
    previous ones: Arrow's writers release the GIL, so on two cores the parsing and the
    encoding overlap. An error in the reading thread is raised here; leaving early (an
    error while writing, Ctrl-C) stops the reading thread."""
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

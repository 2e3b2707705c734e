"""Writing the table's record batches: Parquet, Arrow IPC or CSV, one file or Hive partitions.

A batch is written as soon as it is read, so memory stays flat. A file is written beside
its destination under a temporary name and renamed into place once complete: an export
that fails or is interrupted leaves the previous file (or nothing), never half a file.
A partitioned export (`run=<name>/part-0.parquet`, ...) is written the same way, as a
folder, and never into a folder that already holds something.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Literal

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


def _write_file(batches: pa.RecordBatchReader, path: Path, kind: str) -> None:
    if kind == "parquet":
        import pyarrow.parquet as pq

        with pq.ParquetWriter(path, batches.schema) as parquet:
            for batch in batches:
                parquet.write_batch(batch)
    elif kind == "arrow":
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, batches.schema) as ipc:
            for batch in batches:
                ipc.write_batch(batch)
    else:
        import pyarrow.csv as csv

        with csv.CSVWriter(path, batches.schema) as writer:
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

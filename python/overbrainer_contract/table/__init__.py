"""Many runs as one table: metrics lines as Apache Arrow, Parquet, Arrow IPC or CSV.

Needs pyarrow (`pip install 'overbrainer-contract[table]'`). The schema is generated from
`schema/`; every row is what `parse_line` reads, and a line it rejects is left out and
counted (`counts_of(table)`: each run's lines, rows and lines left out).

>>> table = read_runs(["examples/tiny-run", "examples/sweep-lr3e-2-seed1"])  # doctest: +SKIP
"""

from __future__ import annotations

try:
    import pyarrow  # noqa: F401
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        "overbrainer_contract.table needs pyarrow: pip install 'overbrainer-contract[table]'"
    ) from error

from .reader import (
    BATCH_LINES,
    COUNTS_KEY,
    KeptBatches,
    RunCounts,
    RunReader,
    counts_of,
    iter_batches,
    read_runs,
    run_name,
    scalar_keys,
)
from .schema import (
    DICTIONARIES,
    EVENTS,
    LONG_SCHEMA,
    SCHEMA,
    VARIANT_FIELDS,
    WIDE_KEYS_MOST,
    wide_schema,
)
from .writers import FORMATS, ROW_GROUP_ROWS, OutputError, format_of, write_batches

__all__ = [
    "BATCH_LINES",
    "COUNTS_KEY",
    "DICTIONARIES",
    "EVENTS",
    "FORMATS",
    "LONG_SCHEMA",
    "ROW_GROUP_ROWS",
    "SCHEMA",
    "VARIANT_FIELDS",
    "WIDE_KEYS_MOST",
    "KeptBatches",
    "OutputError",
    "RunCounts",
    "RunReader",
    "counts_of",
    "format_of",
    "iter_batches",
    "read_runs",
    "run_name",
    "scalar_keys",
    "wide_schema",
    "write_batches",
]

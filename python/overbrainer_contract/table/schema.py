"""The table's Arrow schema, generated from `schema/` (by `tools/codegen/arrow.py` of the
repository), and its parts.

`SCHEMA` has one column per field of any variant of a metrics line, after `run` (the
run's name, dictionary-encoded) and `line` (the line's number): u64 fields as `uint64`,
f64 fields as `float64`, `event` and the stage `name` dictionary-encoded, null where a
line's variant has no such field or holds null.
"""

from __future__ import annotations

import pyarrow as pa

from .._models.metrics_line_arrow import (
    DICTIONARIES,
    EVENTS,
    METRICS_LINE_SCHEMA,
    VARIANT_FIELDS,
)

SCHEMA = METRICS_LINE_SCHEMA

LONG_SCHEMA = pa.schema(
    [
        SCHEMA.field("run"),
        SCHEMA.field("line"),
        SCHEMA.field("event"),
        pa.field("step", pa.uint64(), nullable=False),
        pa.field("time", pa.float64(), nullable=False),
        pa.field("key", pa.string(), nullable=False),
        pa.field("value", pa.float64()),
    ],
    metadata={
        b"description": b"Every scalar of the runs' lines (a log's scalars, an end's summary),"
        b" one row each: its run, line, event, step and time, its key as the writer gave it,"
        b" and its value (NaN, Infinity and -Infinity as those floats; null for null)."
    },
)
"""The long table of scalars: one row a scalar, a schema that never changes with the keys."""


WIDE_KEYS_MOST = 1_000
"""The most scalar keys a wide table takes, a column each. Its size is its rows times its
columns, whatever the lines hold: 10,000 lines each with a key of its own would be 100
million cells, for 10,000 values. Past this count the wide table is refused, before
anything is written; the long table (`LONG_SCHEMA`: a row a scalar, `export --long`)
holds any number of keys in the size of its scalars."""


def wide_names(keys: list[str]) -> list[str]:
    """The wide table's column of each scalar key (the keys in order): the key itself, as
    Parquet, DuckDB and polars take a column's name; a key that is empty or that another
    column's name already holds, letter case aside (DuckDB's identifiers ignore case), gets
    `#2`, `#3`... after it."""
    taken = {name.casefold() for name in SCHEMA.names}
    # The last number tried after each key (by its folded case, the same for every key
    # that folds alike): a name once taken stays taken, so the next such key goes on from
    # there rather than trying every number again.
    tried: dict[str, int] = {}
    names = []
    for key in keys:
        folded = key.casefold()
        name, number = key, tried.get(folded, 1)
        if number > 1:
            name = f"{key}#{number}"
        while not name or name.casefold() in taken:
            number += 1
            name = f"{key}#{number}"
        tried[folded] = number
        taken.add(name.casefold())
        names.append(name)
    return names


def wide_schema(keys: list[str]) -> pa.Schema:
    """`SCHEMA` with a float64 column after it for each scalar key (`wide_names`): a row's
    value of that key, null where its line has none (or holds null). More keys than
    `WIDE_KEYS_MOST` are a `ValueError` that names the long table."""
    if len(keys) > WIDE_KEYS_MOST:
        raise ValueError(
            f"{len(keys):,} scalar keys: a wide table takes at most {WIDE_KEYS_MOST:,} (a"
            " column each, over every row); --long writes a row per scalar, of any key"
        )
    extra = [pa.field(name, pa.float64()) for name in wide_names(keys)]
    metadata: dict[bytes | str, bytes | str] = {}
    for key, value in (SCHEMA.metadata or {}).items():
        metadata[key] = value
    if keys:
        import json

        names = dict(zip(wide_names(keys), keys, strict=True))
        metadata[b"overbrainer:scalars"] = json.dumps(names).encode()
    return pa.schema([*SCHEMA, *extra], metadata=metadata)


__all__ = [
    "DICTIONARIES",
    "EVENTS",
    "LONG_SCHEMA",
    "SCHEMA",
    "VARIANT_FIELDS",
    "WIDE_KEYS_MOST",
    "wide_names",
    "wide_schema",
]

"""The table's Arrow schema, generated from `schema/` (see `codegen.py`), and its parts.

`SCHEMA` has one column per field of any variant of a metrics line, after `run` (the
run's name, dictionary-encoded) and `line` (the line's number): u64 fields as `uint64`,
f64 fields as `float64`, `event` and the stage `name` dictionary-encoded, null where a
line's variant has no such field or holds null.
"""

from __future__ import annotations

from overbrainer_contract_models.metrics_line_arrow import (
    DICTIONARIES,
    EVENTS,
    METRICS_LINE_SCHEMA,
    VARIANT_FIELDS,
)

SCHEMA = METRICS_LINE_SCHEMA

__all__ = ["DICTIONARIES", "EVENTS", "SCHEMA", "VARIANT_FIELDS"]

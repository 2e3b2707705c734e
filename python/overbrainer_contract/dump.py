"""`dump_line`: a line's canonical JSON, as the reference's `Serialize` writes it."""

from __future__ import annotations

from msgspec import UNSET
from msgspec.structs import fields
from overbrainer_contract_models.job_stage_schema import JobStage

from ._serde import MetricLine
from .floats import format_f64


def _value(value: object) -> str:
    if value is None or value is UNSET:
        return "null"
    if isinstance(value, bool):  # pragma: no cover - no boolean field in the contract
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_f64(value)
    if isinstance(value, JobStage):
        return f'"{value.value}"'  # a plain word: nothing to escape
    raise TypeError(f"no JSON form for {value!r}")  # pragma: no cover


def dump_line(line: MetricLine) -> str:
    """The canonical JSON of a parsed line, as `serde_json::to_string` writes it.

    `event` first, then every field of the variant in declaration order, `null`
    for a missing optional; compact; floats formatted by ryu's rules. The result
    parses back to an equal line.
    """
    tag = type(line).__struct_config__.tag
    parts = [f'"event":"{tag}"']
    parts += [f'"{field.name}":{_value(getattr(line, field.name))}' for field in fields(line)]
    return "{" + ",".join(parts) + "}"

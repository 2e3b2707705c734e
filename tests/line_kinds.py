"""The variants of a metrics line, their fields and the reference's kind of each, read
from the generated models (one source, for the tests that build lines): `VARIANTS` (tag
to model), `FIELDS` (model to `(name, kind)` in declaration order: the reference's fields,
without the maps it does not know, `scalars` and `summary`), `STAGES` (the job stages'
names)."""

from __future__ import annotations

import typing

import msgspec
from golden_values import contract_only_fields
from overbrainer_contract.contract.models import Begin, End, Eval, JobStage, Log, MetricLine, Stage

U64_MAX = 18446744073709551615

F64, U64, OPT_F64, OPT_U64, STAGE = "f64", "u64", "Option<f64>", "Option<u64>", "JobStage"
"""The reference's types of the fields (`f64`, `u64`, `Option<...>`, `JobStage`)."""

VARIANTS: dict[str, type[MetricLine]] = {
    str(model.__struct_config__.tag): model for model in (Begin, Log, Stage, Eval, End)
}
STAGES: dict[str, JobStage] = {stage.value: stage for stage in JobStage}


def _kind(hint: object) -> str:
    args = [arg for arg in typing.get_args(hint) if arg not in (type(None), msgspec.UnsetType)]
    optional = bool(typing.get_args(hint))
    base = args[0] if optional else hint
    name = {float: F64, int: U64, JobStage: STAGE}[base]  # type: ignore[index]
    return f"Option<{name}>" if optional else name


_MAPS = contract_only_fields()

FIELDS: dict[type[MetricLine], tuple[tuple[str, str], ...]] = {
    model: tuple(
        (name, _kind(hint))
        for name, hint in typing.get_type_hints(model).items()
        if name not in _MAPS
    )
    for model in VARIANTS.values()
}


def split_lines(data: bytes) -> list[bytes]:
    """The lines of `data`, each with its newline but maybe the last (as iterating a file)."""
    pieces = data.split(b"\n")
    lines = [piece + b"\n" for piece in pieces[:-1]]
    return lines + ([pieces[-1]] if pieces[-1] else [])

"""Decode types under which msgspec alone vouches for a line of the plugin's form.

For each generated model, a subclass whose fields are the model's, each one required (the
plugin writes every key, `null` for a value it lacks), no unknown key allowed, and every
number bounded to where msgspec's reading and serde's cannot differ and no negative zero
can hide:

- a float strictly between 0 and `SAFE_MAGNITUDE` (msgspec reads the literal `-0` as +0.0
  where serde reads -0.0, and near f64::MAX serde's reading may say "out of range");
- a count from 1 to i64::MAX (msgspec reads `-0` as 0 where serde rejects it for a u64,
  and takes integers past u64::MAX; its bounds stop at i64::MAX, so a count above it, a
  u64 still, takes the usual path).

A line decoded so is what the reference reads but for one thing: a key written twice, which
serde rejects and msgspec overwrites. Its quotes tell: a vouched line holds exactly
`QUOTES[type]` (two a key, two for the tag's value and for a stage's name). Anything else
— a zero, a negative number, an absent key, an unknown key, a duplicate — is decoded again
by the usual path, whose verdicts are the reference's.

The subclasses add no slot: a vouched instance becomes the generated model by assigning its
`__class__`, the same object with the same values.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec.inspect import (
    EnumType,
    FloatType,
    IntType,
    Metadata,
    NoneType,
    StructType,
    Type,
    UnionType,
    type_info,
)

from ._serde import I64_MIN, VARIANTS, MetricLine
from .serde_float import SAFE_MAGNITUDE

POSITIVE_FLOAT = Annotated[float, msgspec.Meta(gt=0.0, lt=SAFE_MAGNITUDE)]
POSITIVE_COUNT = Annotated[int, msgspec.Meta(ge=1, le=-I64_MIN - 1)]


def bare(kind: Type) -> Type:
    """The type under its annotations (descriptions, titles)."""
    while isinstance(kind, Metadata):
        kind = kind.type
    return kind


def members(kind: Type) -> tuple[Type, ...]:
    """The members of a union, or the type alone."""
    return kind.types if isinstance(kind, UnionType) else (kind,)


def _vouched_type(variant: type[MetricLine]) -> tuple[type[msgspec.Struct], int]:
    """`variant`'s vouching subclass, and the quotes of a line it vouches for."""
    info = type_info(variant)
    assert isinstance(info, StructType)
    quotes = 4  # the `event` key and its value
    fields: list[tuple[str, Any]] = []
    for field in info.fields:
        kinds = [bare(kind) for kind in members(bare(field.type))]
        quotes += 2  # its key: every key present
        kind: Any
        if any(isinstance(kind, IntType) for kind in kinds):
            kind = POSITIVE_COUNT
        elif any(isinstance(kind, FloatType) for kind in kinds):
            kind = POSITIVE_FLOAT
        elif enums := [kind for kind in kinds if isinstance(kind, EnumType)]:
            kind = enums[0].cls
            quotes += 2  # its value: a string, one of the enum's
        else:  # pragma: no cover - the schema has no other kind of field
            raise TypeError(f"no vouched type for {variant.__name__}.{field.name}")
        if any(isinstance(kind, NoneType) for kind in kinds):
            kind = kind | None
        fields.append((field.name, kind))
    config = variant.__struct_config__
    struct = msgspec.defstruct(
        f"Vouched{variant.__name__}",
        fields,
        bases=(variant,),
        module=__name__,
        kw_only=True,
        forbid_unknown_fields=True,
        tag_field=config.tag_field,
        tag=config.tag,
    )
    return struct, quotes


_BUILT = {variant: _vouched_type(variant) for variant in VARIANTS.values()}

MODEL: dict[type[msgspec.Struct], type[MetricLine]] = {
    struct: variant for variant, (struct, _) in _BUILT.items()
}
"""The generated model of each vouching type: the class a vouched instance takes."""

QUOTES: dict[type[msgspec.Struct], int] = dict(_BUILT.values())
"""The quotes of a line each vouching type vouches for (a duplicate key adds two)."""

VOUCHED: dict[type[MetricLine], type[msgspec.Struct]] = {
    variant: struct for variant, (struct, _) in _BUILT.items()
}
"""The vouching type of each generated model."""


def _union() -> Any:
    union: Any = None
    for struct in VOUCHED.values():
        union = struct if union is None else union | struct
    return union


_UNION = _union()

decode = msgspec.json.Decoder(_UNION).decode
"""One line (bytes or str) as its vouching type; msgspec's errors for any other."""

_ROWS: Any = list[tuple[_UNION]]  # type: ignore[valid-type]
decode_rows = msgspec.json.Decoder(_ROWS).decode
"""`[[line],[line],...]` as a list of 1-tuples of vouching types (see `batch`)."""

"""Decode types under which msgspec alone vouches for a line: the plugin's form, and others'.

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

Another writer's lines (`Lenient`) leave optional keys out and add keys of their own: the
same bounds, an absent key `UNSET`, and each unknown key learned so far an optional field
that msgspec checks is what serde accepts of a value it ignores (`IGNORED_NUMBER`: a float
within `SAFE_MAGNITUDE`, an integer within i64, a boolean, null — no string, so that a
line's quotes are still its keys' and the tag's). The quotes of such a line are `base` plus
two for each optional field present.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import UNSET, UnsetType
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
IGNORED_NUMBER = (
    Annotated[float, msgspec.Meta(gt=-SAFE_MAGNITUDE, lt=SAFE_MAGNITUDE)]
    | Annotated[int, msgspec.Meta(ge=I64_MIN, le=-I64_MIN - 1)]
    | bool
    | None
)


def bare(kind: Type) -> Type:
    """The type under its annotations (descriptions, titles)."""
    while isinstance(kind, Metadata):
        kind = kind.type
    return kind


def members(kind: Type) -> tuple[Type, ...]:
    """The members of a union, or the type alone."""
    return kind.types if isinstance(kind, UnionType) else (kind,)


def _field_types(variant: type[MetricLine]) -> list[tuple[str, Any, bool, int]]:
    """Each field of `variant`: (name, vouching type, optional, quotes of its value)."""
    info = type_info(variant)
    assert isinstance(info, StructType)
    found: list[tuple[str, Any, bool, int]] = []
    for field in info.fields:
        kinds = [bare(kind) for kind in members(bare(field.type))]
        kind: Any
        quotes = 0
        if any(isinstance(kind, IntType) for kind in kinds):
            kind = POSITIVE_COUNT
        elif any(isinstance(kind, FloatType) for kind in kinds):
            kind = POSITIVE_FLOAT
        elif enums := [kind for kind in kinds if isinstance(kind, EnumType)]:
            kind = enums[0].cls
            quotes = 2  # its value: a string, one of the enum's
        else:  # pragma: no cover - the schema has no other kind of field
            raise TypeError(f"no vouched type for {variant.__name__}.{field.name}")
        optional = any(isinstance(kind, NoneType) for kind in kinds)
        found.append((field.name, kind | None if optional else kind, optional, quotes))
    return found


def _vouched_type(variant: type[MetricLine]) -> tuple[type[msgspec.Struct], int]:
    """`variant`'s vouching subclass, and the quotes of a line it vouches for."""
    quotes = 4  # the `event` key and its value
    fields: list[tuple[str, Any]] = []
    for name, kind, _, value_quotes in _field_types(variant):
        quotes += 2 + value_quotes  # its key: every key present
        fields.append((name, kind))
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


class Lenient:
    """The vouching types of another writer's lines, with the unknown keys `extras`.

    `types[struct]` is `(model, base, optional)`: the generated model, the quotes of the
    keys every line holds (the tag, the required fields), and the attribute names of the
    optional fields, each adding two quotes when present (not `UNSET`). `quotes(found)`
    sums the quotes of the decoded lines `found`; `model_of(value)` is a decoded line as
    its generated model (an absent field None, the unknown keys dropped)."""

    def __init__(self, extras: tuple[str, ...] = ()) -> None:
        self.extras = extras
        self.types: dict[type[msgspec.Struct], tuple[type[MetricLine], int, tuple[str, ...]]]
        self.types = {}
        for variant in VARIANTS.values():
            base = 4  # the `event` key and its value
            fields: list[Any] = []
            optional: list[str] = []
            known = {"event"}
            for name, kind, is_optional, value_quotes in _field_types(variant):
                known.add(name)
                if is_optional:
                    fields.append((name, kind | UnsetType, UNSET))
                    optional.append(name)
                else:
                    fields.append((name, kind))
                    base += 2 + value_quotes
            own = [key for key in extras if key not in known]  # unknown to this variant
            names = [f"extra_{index}" for index in range(len(own))]
            fields += [(name, IGNORED_NUMBER | UnsetType, UNSET) for name in names]
            config = variant.__struct_config__
            struct = msgspec.defstruct(
                f"Lenient{variant.__name__}",
                fields,
                module=__name__,
                kw_only=True,
                forbid_unknown_fields=True,
                tag_field=config.tag_field,
                tag=config.tag,
                rename=dict(zip(names, own, strict=True)),
            )
            self.types[struct] = (variant, base, (*optional, *names))
        union: Any = None
        for struct in self.types:
            union = struct if union is None else union | struct
        rows: Any = list[tuple[union]]
        self.decode_rows = msgspec.json.Decoder(rows).decode
        """`[[line],[line],...]` as a list of 1-tuples of these types (see `batch`)."""
        self.quotes, self.model_of = self._compile()

    def _compile(self) -> tuple[Any, Any]:
        """`quotes` and `model_of`, generated from `types`: no Python loop over fields."""
        namespace: dict[str, Any] = {"UNSET": UNSET}
        count = [
            "def quotes(found):",
            "    total = 0",
            "    for o in found:",
            "        c = o.__class__",
        ]
        model = ["def model_of(o):", "    c = o.__class__"]
        for index, (struct, (variant, base, optional)) in enumerate(self.types.items()):
            namespace[f"T{index}"] = struct
            namespace[f"M{index}"] = variant
            keyword = "if" if index == 0 else "elif"
            present = " + ".join(f"(o.{name} is not UNSET)" for name in optional) or "0"
            count += [
                f"        {keyword} c is T{index}:",
                f"            total += {base} + 2 * ({present})",
            ]
            values = [
                f"None if (v := o.{field}) is UNSET else v" if field in optional else f"o.{field}"
                for field in variant.__struct_fields__
            ]
            model += [
                f"    {keyword} c is T{index}:",
                f"        return M{index}({', '.join(values)})",
            ]
        count.append("    return total")
        model.append("    raise TypeError(c)")
        exec(compile("\n".join(count + model) + "\n", f"<{__name__} Lenient>", "exec"), namespace)
        return namespace["quotes"], namespace["model_of"]


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

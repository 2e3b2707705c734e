"""`parse_line`: the reference's verdict and values, at msgspec's speed.

Every line first goes through msgspec's typed decoder (the generated models).
Where msgspec and serde could disagree, the decoded line is not trusted and the
exact path (`_serde.parse_exact`) answers instead. The checks that vouch for a
decoded line, and why each is enough:

- the quote count equals that of the variant with every field written once:
  with every field present (next check), one more key — a duplicate, which
  serde rejects and msgspec overwrites, or an unknown field, whose value
  msgspec skips without all of serde's checks — would add two quotes;
- no field is `UNSET`: every field is present, so the count above is exact;
- no integer field is 0 and no float field is 0.0: msgspec reads `-0` as 0,
  serde reads it as the float -0.0 (an error for a u64, the sign kept for f64);
- every integer is at most u64::MAX: msgspec takes larger ones.

Anything else msgspec rejects (syntax, types, arrays, stage names as maps) goes
to the exact path too, which gives the reference's verdict and error category.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET
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

from ._serde import U64_MAX, VARIANTS, MetricLine, parse_exact

_DECODE = msgspec.json.Decoder(MetricLine).decode


def _bare(kind: Type) -> Type:
    """The type under its annotations (descriptions, titles)."""
    while isinstance(kind, Metadata):
        kind = kind.type
    return kind


def _members(kind: Type) -> tuple[Type, ...]:
    return kind.types if isinstance(kind, UnionType) else (kind,)


def _vouch(variant: type[Any], quote: str | bytes) -> Callable[[Any, Any], Any]:
    """The check that vouches for a line decoded as `variant` (see the module's doc).

    Compiled from the generated model's fields, so it follows the schema: one
    boolean expression, no loop, on the hot path. `quote` is `'"'` for str input,
    `b'"'` for bytes.
    """
    info = type_info(variant)
    assert isinstance(info, StructType)
    quotes = 2 * (len(info.fields) + 2)  # each key, plus the `event` key and its value
    terms = []
    for field in info.fields:
        kinds = [_bare(kind) for kind in _members(_bare(field.type))]
        optional = any(isinstance(kind, NoneType) for kind in kinds)
        attr = f"o.{field.name}"
        if any(isinstance(kind, IntType) for kind in kinds):
            term = f"0 < {attr} <= {U64_MAX}"
            if optional:
                term = f"((v := {attr}) is None or (v.__class__ is int and 0 < v <= {U64_MAX}))"
        elif any(isinstance(kind, FloatType) for kind in kinds):
            term = f"((v := {attr}) or v is None)" if optional else attr
        elif any(isinstance(kind, EnumType) for kind in kinds):
            quotes += 2  # its value is a string
            term = f"{attr} is not UNSET"
        else:  # pragma: no cover - the schema has no other kind of field
            raise TypeError(f"no fast check for {variant.__name__}.{field.name}")
        terms.append(term)
    source = f"lambda line, o: line.count(QUOTE) == {quotes} and {' and '.join(terms)}"
    vouch: Callable[[Any, Any], Any] = eval(source, {"UNSET": UNSET, "QUOTE": quote})
    return vouch


_VOUCH: dict[type[Any], dict[type[Any], Callable[[Any, Any], Any]]] = {
    kind: {variant: _vouch(variant, quote) for variant in VARIANTS.values()}
    for kind, quote in ((bytes, b'"'), (str, '"'))
}
_VOUCH_BYTES = _VOUCH[bytes]
_VOUCH_STR = _VOUCH[str]


def parse_line(line: str | bytes) -> MetricLine:
    """Parse one line of `metrics.jsonl` as the reference's `parse_line` does.

    Returns the generated model of the line (`Begin`, `Log`, `Stage`, `Eval`,
    `End`); a missing optional field is `None`, as in the reference. Raises
    `ParseError` — and nothing else — for any line the reference rejects, with
    the reference's error category. White space around the value (a trailing
    newline included) is accepted. Bytes must be UTF-8.
    """
    try:
        decoded = _DECODE(line)
        vouch = (_VOUCH_BYTES if line.__class__ is bytes else _VOUCH_STR)[decoded.__class__]
        if vouch(line, decoded):
            return decoded
    except Exception:  # msgspec's errors, a str it cannot encode, another input type
        pass
    return parse_exact(line)

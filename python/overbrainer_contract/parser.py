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


def _condition(variant: type[Any], quote: str) -> str:
    """The check that vouches for a line decoded as `variant` (see the module's doc), as
    one boolean expression over `line` and `o`, compiled from the generated model's fields:
    it follows the schema. `quote` names the quote of the input's type."""
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
    return f"line.count({quote}) == {quotes} and {' and '.join(terms)}"


# The variants, most frequent first: a run writes a `log` line a step.
_ORDER = ("log", "eval", "stage", "begin", "end")


def _compile_parse_line() -> Callable[[str | bytes], MetricLine]:
    """`parse_line` as one function: decode, then the variant's check inline, per input type.

    Generated (like the checks) so that the hot path makes no call but msgspec's decoder,
    `bytes.count` and, for a line it cannot vouch for, the exact path.
    """
    variants = [VARIANTS[name] for name in _ORDER]
    assert set(variants) == set(VARIANTS.values())
    lines = [
        "def parse_line(line):",
        "    try:",
        "        o = DECODE(line)",
        "        c = o.__class__",
    ]
    for kind, quote in (("bytes", "QUOTE_BYTES"), ("str", "QUOTE_STR")):
        lines.append(f"        {'if' if kind == 'bytes' else 'elif'} line.__class__ is {kind}:")
        for index, variant in enumerate(variants):
            keyword = "if" if index == 0 else "elif"
            lines.append(f"            {keyword} c is {variant.__name__}:")
            lines.append(f"                if {_condition(variant, quote)}:")
            lines.append("                    return o")
    lines += [
        "    except Exception:  # msgspec's errors, a str it cannot encode, another input type",
        "        pass",
        "    return parse_exact(line)",
    ]
    namespace: dict[str, Any] = {
        "DECODE": _DECODE,
        "QUOTE_BYTES": b'"',
        "QUOTE_STR": '"',
        "UNSET": UNSET,
        "parse_exact": parse_exact,
        **{variant.__name__: variant for variant in variants},
    }
    exec(compile("\n".join(lines) + "\n", f"<{__name__} parse_line>", "exec"), namespace)
    function: Callable[[str | bytes], MetricLine] = namespace["parse_line"]
    function.__module__ = __name__
    function.__doc__ = _DOC
    return function


_DOC = """Parse one line of `metrics.jsonl` as the reference's `parse_line` does.

Returns the generated model of the line (`Begin`, `Log`, `Stage`, `Eval`,
`End`); a missing optional field is `None`, as in the reference. Raises
`ParseError` — and nothing else — for any line the reference rejects, with
the reference's error category. White space around the value (a trailing
newline included) is accepted. Bytes must be UTF-8.
"""

parse_line = _compile_parse_line()

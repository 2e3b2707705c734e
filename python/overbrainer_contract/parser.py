"""`parse_line`: the reference's verdict and values, at msgspec's speed.

Every line first goes through msgspec's typed decoder (the generated models).
Where msgspec and serde could disagree, the decoded line is not trusted and the
exact path answers instead (`replay.parse_replayed`, which falls back on
`_serde.parse_exact`). What vouches for a decoded
line, and why it is enough:

- its quotes: with no unknown key, a line holds exactly two quotes per key
  present plus the tag's value (and a stage name's); a duplicate key, which
  serde rejects and msgspec overwrites, would add two. Lines whose every
  optional key is present (the plugin's form) are checked against the full
  count at once; others count their present fields (msgspec marks an absent
  one `UNSET`); a line with more quotes has unknown keys, checked by
  `extras.vouch_for_extras` (a second decode that lists the keys); a writer's
  unknown keys that repeat are learned, and its following lines decoded once by a
  Struct holding them (`keysets`), their quotes those of the keys present;
- no value at or beyond `SAFE_MAGNITUDE`: there serde_json's own float reading
  (`serde_float`) may say "out of range" where msgspec's correctly rounded one
  does not;
- a zero is not spelled `-0`: msgspec reads `-0` as 0 (for a float field too),
  serde reads it as the float -0.0 (an error for a u64, the sign kept for f64);
  a zero is let through only when no value in the line is spelled so
  (`NEGATIVE_ZERO`: `-0`, `-0.0`, `-0e5` after a colon or white space);
- every integer is at most u64::MAX: msgspec takes larger ones.

Anything else msgspec rejects (syntax, types, arrays, stage names as maps) goes
to the exact path too, which gives the reference's verdict and error category.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET
from msgspec.inspect import (
    EnumType,
    FloatType,
    IntType,
    NoneType,
    StructType,
    type_info,
)

from ._serde import U64_MAX, VARIANTS, MetricLine
from .extras import vouch_for_extras
from .keysets import IDLE_LINES, KeySets
from .replay import parse_replayed
from .serde_float import SAFE_MAGNITUDE
from .vouched import bare, members

_DECODE = msgspec.json.Decoder(MetricLine).decode


class _Checks:
    """The checks that vouch for a line decoded as one variant (see the module's doc),
    as Python expressions over `line`, `o` and `q` (the line's quote count), generated
    from the model's fields: they follow the schema."""

    def __init__(self, variant: type[Any]) -> None:
        info = type_info(variant)
        assert isinstance(info, StructType)
        self.base = 4  # the `event` key and its value
        self.name = variant.__name__
        self.optional: list[tuple[str, str]] = []  # (attribute, check of a value)
        self.required: list[str] = []  # checks of the required fields
        self.strict: list[str] = []  # every field present: UNSET fails
        self.fields = [field.name for field in info.fields]  # in declaration order
        for field in info.fields:
            kinds = [bare(kind) for kind in members(bare(field.type))]
            optional = any(isinstance(kind, NoneType) for kind in kinds)
            attr = f"o.{field.name}"
            if any(isinstance(kind, IntType) for kind in kinds):
                value = f"{{v}} <= {U64_MAX} and (v or not NEG0(line))"
            elif any(isinstance(kind, FloatType) for kind in kinds):
                # the bounds as literals: constants in the code, not a lookup and a negation
                bounds = f"{-SAFE_MAGNITUDE!r} < {{v}} < {SAFE_MAGNITUDE!r}"
                value = bounds + " and (v or not NEG0(line))"
            elif any(isinstance(kind, EnumType) for kind in kinds):
                self.base += 4  # its key, and its value: a string msgspec checked
                continue
            else:  # pragma: no cover - the schema has no other kind of field
                raise TypeError(f"no fast check for {variant.__name__}.{field.name}")
            if optional:
                check = value.format(v="v")
                self.optional.append((attr, check))
                self.strict.append(f"((v := {attr}) is None or v is not UNSET and {check})")
            else:  # msgspec requires it
                self.base += 2  # its key
                self.required.append(value.format(v=f"(v := {attr})"))
                self.strict.append(self.required[-1])
        self.full = self.base + 2 * len(self.optional)

    def lines(self, indent: str, kind: str) -> list[str]:
        """The vouching code for this variant in `parse_line`; `q` holds the line's quote
        count. A line with every optional key present is vouched for inline; any other goes
        to the variant's `lenient_` function (`lenient`)."""
        return [
            f"{indent}if q == {self.full} and {' and '.join(self.strict)}:",
            f"{indent}    return o",
            f"{indent}if (vouched := lenient_{self.name}_{kind}(line, o, q)) is not None:",
            f"{indent}    return vouched",
        ]

    def lenient(self, kind: str) -> list[str]:
        """`lenient_<Variant>_<kind>(line, o, q)`: `o` when its known fields are vouched for, its
        absent optional fields (`UNSET`) made None, and then either the quotes are those of
        the fields present or `EXTRAS` vouches for the unknown keys; else None."""
        code = [f"def lenient_{self.name}_{kind}(line, o, q):"]
        if self.required:
            code += [f"    if not ({' and '.join(self.required)}):", "        return None"]
        code.append("    absent = 0")
        for attr, check in self.optional:
            code += [
                f"    if (v := {attr}) is UNSET:",
                f"        {attr} = None",
                "        absent += 2",
                f"    elif v is not None and not ({check}):",
                "        return None",
            ]
        code += [
            f"    if q + absent == {self.full}:",
            "        return o",
            "    return EXTRAS(line, o, q, LEARN)",
        ]
        return code

    def voucher(self, names: tuple[str, ...]) -> list[str]:
        """`vouch(line, o, q)` for a line decoded as this variant specialised with the
        unknown keys `names` (`keysets`): the generated model when its known fields are
        vouched for as in `lenient`, its unknown values were checked by msgspec, and its
        quotes are exactly those of the keys present and the string values; else None."""
        code = self.lenient("")[1:-3]  # the known fields' checks, `absent` counted
        code.insert(0, "def vouch(line, o, q):")
        code.append("    found = 0")
        for name in names:
            code += [
                f"    if (v := o.{name}) is UNSET:",
                "        absent += 2",
                "    else:",
                "        found = 1",
                "        if v.__class__ is str:",
                "            absent -= 2",
            ]
        code += [
            f"    if q + absent != {self.full + 2 * len(names)}:",
            "        return None",
            "    if found:",
            "        IDLE[0] = 0",
            "    else:",
            "        IDLE[0] += 1",
            "        if IDLE[0] >= IDLE_LINES:",
            "            DROP()",
            f"    return VARIANT({', '.join(f'o.{name}' for name in self.fields)})",
        ]
        return code


# A number spelled as a negative zero (`-0`, `-0.00`, `-0e5`) where a field's value starts:
# after the colon or white space (an exponent's `e-05` is not one).
NEGATIVE_ZERO = r"[:\s]-0(?:\.0+)?(?![.0-9])"

# The variants, most frequent first: a run writes a `log` line a step.
_ORDER = ("log", "eval", "stage", "begin", "end")


def _source() -> str:
    """`parse_line` as one function: decode, then the variant's checks inline, per input type.

    Generated (like the checks) so that the hot path makes no call but msgspec's decoder
    and `count`; a line it cannot vouch for goes to the exact path. A line decoded as a
    variant specialised for its unknown keys (`keysets`) goes to that Struct's voucher;
    one that does not vouch, or that the specialised decoder rejects, to the usual path
    (`PLAIN`: this same code over the generated models' decoder).
    """
    variants = [VARIANTS[name] for name in _ORDER]
    assert set(variants) == set(VARIANTS.values())
    helpers: list[str] = []  # the lenient_ functions, one per variant and input type
    lines = [
        "def parse_line(line):",
        "    again = False",
        "    try:",
        "        o = DECODE(line)",
        "        c = o.__class__",
    ]
    for kind in ("bytes", "str"):
        lines.append(f"        {'if' if kind == 'bytes' else 'elif'} line.__class__ is {kind}:")
        lines.append(f"            q = line.count(QUOTE_{kind})")
        for index, variant in enumerate(variants):
            keyword = "if" if index == 0 else "elif"
            lines.append(f"            {keyword} c is {variant.__name__}:")
            checks = _Checks(variant)
            # NEG0 names the input type's negative-zero search
            lines += [text.replace("NEG0", f"NEG0_{kind}") for text in checks.lines(" " * 16, kind)]
            helpers += [text.replace("NEG0", f"NEG0_{kind}") for text in checks.lenient(kind)]
        lines += [
            "            elif (vouched := VOUCHERS[c](line, o, q)) is not None:",
            "                return vouched",
            "            else:",
            "                again = True",
        ]
    lines += [
        "    except Exception:  # msgspec's errors, a str it cannot encode, another input type",
        "        again = DECODE is not PLAIN_DECODE",
        "    return PLAIN(line) if again else parse_exact(line)",
    ]
    return "\n".join(helpers + lines) + "\n"


def _namespace() -> dict[str, Any]:
    return {
        "DECODE": _DECODE,
        "PLAIN_DECODE": _DECODE,
        "VOUCHERS": {},
        "QUOTE_bytes": b'"',
        "QUOTE_str": '"',
        "NEG0_bytes": _NEG0_BYTES,
        "NEG0_str": _NEG0_STR,
        "UNSET": UNSET,
        "parse_exact": parse_replayed,  # the exact path's answer, at C speed where it can
        **{variant.__name__: variant for variant in VARIANTS.values()},
    }


_NEG0_BYTES = re.compile(NEGATIVE_ZERO.encode()).search
_NEG0_STR = re.compile(NEGATIVE_ZERO).search


def _neg0(line: str | bytes) -> Any:
    """`NEGATIVE_ZERO` searched in a line of either type."""
    if isinstance(line, bytes):
        return _NEG0_BYTES(line)
    return _NEG0_STR(line)


def _compile_parse_line() -> Callable[[str | bytes], MetricLine]:
    """The live `parse_line` (its decoder swapped by `keysets`) over the plain one."""
    code = compile(_source(), f"<{__name__} parse_line>", "exec")
    plain = _namespace()
    live = _namespace()

    def compile_voucher(
        variant: type[MetricLine],
        struct: type[msgspec.Struct],
        names: tuple[str, ...],
        idle: list[int],
        drop: Callable[[], None],
    ) -> Any:
        source = "\n".join(_Checks(variant).voucher(names)) + "\n"
        namespace = {
            "UNSET": UNSET,
            "NEG0": _neg0,
            "IDLE": idle,
            "IDLE_LINES": IDLE_LINES,
            "DROP": drop,
            "VARIANT": variant,
        }
        exec(compile(source, f"<{__name__} vouch {struct.__name__}>", "exec"), namespace)
        return namespace["vouch"]

    def install(decode: Callable[[Any], Any]) -> None:
        live["DECODE"] = decode
        live["VOUCHERS"] = keysets.vouchers

    keysets = KeySets(_DECODE, compile_voucher, install)
    for namespace in (plain, live):
        namespace["EXTRAS"] = vouch_for_extras
        namespace["LEARN"] = keysets.learn
    plain["PLAIN"] = parse_replayed  # never called: its decoder is the plain one
    exec(code, plain)
    live["PLAIN"] = plain["parse_line"]
    live["KEYSETS"] = keysets  # the learned keys, for tests to see and reset
    exec(code, live)
    function: Callable[[str | bytes], MetricLine] = live["parse_line"]
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

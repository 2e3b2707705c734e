"""Vouching for a decoded line's unknown keys, which msgspec skips without telling;
and its absent optional fields, which it leaves `UNSET`, made None.

msgspec's typed decode drops unknown keys and checks their values only as JSON text:
it neither says they were there nor applies serde_json's limits to them (its number
range, its 127 levels of nesting, UTF-8 in strings of a bytes line). Here a second
decode into `dict[str, Raw]` lists the keys and their raw values, and each unknown
value is checked as serde_json reads it. The quotes of the line must then be exactly
those of one key each plus the values': a duplicate key, known or not, would add two.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET

from ._serde import FIELDS, RECURSION_LIMIT, STAGE, MetricLine, Reader
from .errors import ParseError
from .serde_float import SAFE_MAGNITUDE

_RAW = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_KNOWN = {
    variant: frozenset(["event", *(name for name, _ in fields)])
    for variant, fields in FIELDS.items()
}
_STRING_FIELDS = {  # the quotes of a string value: the stage's name
    variant: 2 * sum(kind == STAGE for _, kind in fields) for variant, fields in FIELDS.items()
}
_OPTIONAL = {
    variant: tuple(name for name, kind in fields if kind.startswith("Option<"))
    for variant, fields in FIELDS.items()
}
_NUMBER_START = frozenset(b"-0123456789")


def vouch_for_extras(line: str | bytes, decoded: MetricLine, quotes: int) -> MetricLine | None:
    """`decoded` when the line's unknown keys are all ones the reference ignores and no
    key is written twice; None when the exact path must answer. `quotes` is the line's
    count of `"`; the known fields' values were vouched for already."""
    if isinstance(line, bytes) and not line.isascii():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        entries = _RAW(line)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    variant = type(decoded)
    known = _KNOWN[variant]
    expected = 2 * len(entries) + 2 + _STRING_FIELDS[variant]  # keys, the tag, a stage name
    for key, raw in entries.items():
        if key in known:
            continue
        value = bytes(raw)
        first = value[0]
        if first == 0x22:  # a string: msgspec checked its escapes and surrogates
            expected += value.count(b'"')
        elif first in _NUMBER_START:
            if not abs(float(value)) < SAFE_MAGNITUDE:
                return None
        elif first in b"[{":
            expected += value.count(b'"')
            if not _container_as_serde_reads_it(value):
                return None
    return decoded if expected == quotes else None


def absent_as_none(decoded: MetricLine) -> MetricLine:
    """`decoded` with every field msgspec left `UNSET` (absent) set to None, as serde's
    `#[serde(default)]` leaves it."""
    for name in _OPTIONAL[type(decoded)]:
        if getattr(decoded, name) is UNSET:
            setattr(decoded, name, None)
    return decoded


def _container_as_serde_reads_it(value: bytes) -> bool:
    """An array or object value one level down: its nesting and numbers, as serde_json
    reads them (the exact path's reader, on this value alone)."""
    reader = Reader(value.decode("utf-8"))
    reader.depth = RECURSION_LIMIT - 1  # the line's own object is one level
    try:
        reader.value("$")
    except ParseError:
        return False
    return reader.skip_ws() is None

"""Vouching for a decoded line's unknown keys, which msgspec skips without telling.

msgspec's typed decode drops unknown keys and checks their values only as JSON text:
it neither says they were there nor applies serde_json's limits to them (its number
range, its 127 levels of nesting, UTF-8 in strings of a bytes line). Here a second
decode lists the keys and their values (plain Python values for a short line without
escapes, raw text otherwise), and each unknown value is checked as serde_json reads
it. The quotes of the line must then be exactly those of one key each plus the
values': a duplicate key, known or not, would add two. A short line of scalars is read
once, typed (`_FLAT`): when its unknown values hold no string, its quotes are its keys'
and the known strings', and nothing is walked in Python.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Annotated, Any

import msgspec

from ._serde import FIELDS, RECURSION_LIMIT, STAGE, MetricLine, Reader
from .errors import ParseError
from .serde_float import SAFE_MAGNITUDE

_RAW = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_KNOWN = {
    variant: frozenset(["event", *(name for name, _ in fields)])
    for variant, fields in FIELDS.items()
}
_VALUE_QUOTES = {  # the quotes of the known string values: the tag's, a stage's name
    variant: 2 + 2 * sum(kind == STAGE for _, kind in fields) for variant, fields in FIELDS.items()
}
_NUMBER_START = frozenset(b"-0123456789")
_DECODE = msgspec.json.Decoder().decode
# A line whose values are all scalars, its floats checked in C as `_plain_quotes` checks
# them: an integer here (a short line) is far below f64::MAX, as serde_json reads it.
_FLAT = msgspec.json.Decoder(
    dict[
        str,
        Annotated[float, msgspec.Meta(gt=-SAFE_MAGNITUDE, lt=SAFE_MAGNITUDE)]
        | int
        | str
        | bool
        | None,
    ]
).decode
DEPTH_SAFE = 2 * (RECURSION_LIMIT - 1)  # a shorter line cannot nest 127 levels


def vouch_for_extras(
    line: str | bytes,
    decoded: MetricLine,
    quotes: int,
    learn: Callable[[type[MetricLine], Iterable[str]], None] | None = None,
) -> MetricLine | None:
    """`decoded` when the line's unknown keys are all ones the reference ignores and no
    key is written twice; None when the exact path must answer. `quotes` is the line's
    count of `"`; the known fields' values were vouched for already. `learn` is told the
    keys of a line vouched for whose values are all scalars (`keysets`).

    A short line without a backslash (most) is decoded into Python values: each string
    then holds exactly its two quotes, and it cannot nest too deep. Any other goes
    through `_raw_extras`."""
    if line.__class__ is bytes:
        if line.find(0x5C) >= 0 or len(line) >= DEPTH_SAFE:  # a backslash
            return _raw_extras(line, decoded, quotes)
        if not line.isascii():
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return None
    elif line.find("\\") >= 0 or len(line) >= DEPTH_SAFE:  # type: ignore[arg-type]
        return _raw_extras(line, decoded, quotes)
    variant = decoded.__class__
    flat = False
    try:
        entries = _FLAT(line)
    except (msgspec.DecodeError, msgspec.ValidationError):  # a container, a number near MAX
        try:
            entries = _DECODE(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
    else:
        if quotes == 2 * len(entries) + _VALUE_QUOTES[variant]:
            if learn is not None:
                learn(variant, entries)
            return decoded  # one key each and no string among the unknown values
        flat = True
    known = _KNOWN[variant]
    expected = 2 * len(entries) + _VALUE_QUOTES[variant]  # one key each, the string values
    for key, value in entries.items():
        if key not in known:
            more = _plain_quotes(value)
            if more < 0:
                return None
            expected += more
    if expected != quotes:
        return None
    if flat and learn is not None:
        learn(variant, entries)
    return decoded


def _plain_quotes(value: object) -> int:
    """The quotes of a decoded value without escapes, or -1 where serde_json would find a
    number out of range (a float from msgspec at or beyond `SAFE_MAGNITUDE`)."""
    kind = value.__class__
    if kind is float:
        return 0 if -SAFE_MAGNITUDE < value < SAFE_MAGNITUDE else -1  # type: ignore[operator]
    if kind is str:
        return 2
    if kind is list:
        total = 0
        for item in value:  # type: ignore[attr-defined]
            more = _plain_quotes(item)
            if more < 0:
                return -1
            total += more
        return total
    if kind is dict:
        total = 2 * len(value)  # type: ignore[arg-type]
        for item in value.values():  # type: ignore[attr-defined]
            more = _plain_quotes(item)
            if more < 0:
                return -1
            total += more
        return total
    return 0  # int (fewer than 300 digits here), bool, None


def _raw_extras(line: str | bytes, decoded: MetricLine, quotes: int) -> MetricLine | None:
    """`vouch_for_extras` for any line: raw values, so that escaped quotes count."""
    if isinstance(line, bytes) and not line.isascii():
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        entries = _RAW(line)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    variant = decoded.__class__
    expected = 2 * len(entries) + _VALUE_QUOTES[variant]  # one key each, the string values
    for key in entries.keys() - _KNOWN[variant]:
        value = bytes(entries[key])
        first = value[0]
        if first == 0x22:  # a string: msgspec checked its escapes and surrogates
            expected += value.count(b'"')
        elif first in _NUMBER_START:
            # Without an exponent, fewer than 300 characters are far below f64::MAX.
            if (len(value) >= 300 or b"e" in value or b"E" in value) and not (
                abs(float(value)) < SAFE_MAGNITUDE
            ):
                return None
        elif first in b"[{":
            expected += value.count(b'"')
            if not _container_as_serde_reads_it(value):
                return None
    return decoded if expected == quotes else None


class _Entries(list):  # type: ignore[type-arg]
    """A decoded object's entries, in order, duplicates kept."""


def _no_constant(literal: str) -> None:
    raise ValueError(f"{literal} is not JSON")


_SCAN_PAIRS = json.JSONDecoder(object_pairs_hook=_Entries, parse_constant=_no_constant).decode


def _container_as_serde_reads_it(value: bytes) -> bool:
    """An array or object value one level down, as serde_json reads it: at most 126 more
    levels of nesting, every number within its range. Counting brackets bounds the
    nesting (strings' brackets only make it stricter); deeper-looking values go through
    the exact path's reader. Others are read by json's C scanner, every entry of their
    objects kept (a dict would keep only the last of two equal keys, and serde_json
    reads and range-checks both), and their numbers compared with `SAFE_MAGNITUDE`:
    time and memory in proportion to the value's size."""
    if value.count(b"[") + value.count(b"{") >= RECURSION_LIMIT - 1:
        reader = Reader(value.decode("utf-8"))
        reader.depth = RECURSION_LIMIT - 1  # the line's own object is one level
        try:
            reader.value("$")
        except ParseError:
            return False
        return reader.skip_ws() is None
    try:
        decoded = _SCAN_PAIRS(value.decode("utf-8"))
    except (ValueError, RecursionError):  # NaN, or nesting beyond Python's own limit
        return False
    return _in_range(decoded)


def _in_range(value: Any) -> bool:
    """Every number in a decoded value strictly within `SAFE_MAGNITUDE` (ints too: serde
    reads one beyond u64 as a float), walked without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = item.__class__
        if kind is list:
            try:  # numbers only: compared in C
                within = (
                    min(item, default=0) > -SAFE_MAGNITUDE and max(item, default=0) < SAFE_MAGNITUDE
                )
            except TypeError:  # other kinds among them: walk them
                pending.extend(item)
                continue
            if not within:
                return False
        elif kind is _Entries:
            pending.extend(entry for _, entry in item)
        elif (kind is float or kind is int) and not -SAFE_MAGNITUDE < item < SAFE_MAGNITUDE:
            return False
    return True

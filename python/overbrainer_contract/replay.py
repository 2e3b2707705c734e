"""The exact path's answer at C speed, for the lines msgspec or json's C scanner can read.

`parse_exact` reads a line character by character, as serde_json does, so that it can
say where each error is: 25 to 50 µs a line. Most lines that reach it are JSON objects
that the fast path could not vouch for (a wrong type, a duplicate key, a field missing,
`-0` for a count). A flat line without escapes, and a line that is not an object, are
answered by `flat` first, at C speed. For the others, msgspec (a flat line `flat`
leaves, `_read_flat`) or else Python's `json` scanner reads the whole line into the
exact path's own buffered form — entries in order, duplicates kept, every number as
serde_json reads it — and serde's build runs on it (`_from_object`): the same value,
or the same data error, message, path and column.

Whatever could make serde_json stop earlier, or differently, goes back to the exact
reader: a number out of range, a `\\u` escape of a surrogate, anything nested deep enough
to meet serde_json's limit, a line that is not an object, a tag that is missing its
variant or written twice. Text they refuse (a cut line, a syntax error, trailing
characters, `NaN`) is read by the exact reader only from the last member before where
they stopped, once they have read the line up to there (`_resumed`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from ._serde import (
    I64_MIN,
    MISSING_TAG,
    RECURSION_LIMIT,
    U64_MAX,
    VARIANTS,
    DataError,
    MetricLine,
    Number,
    Object,
    _from_object,
    number_from_literal,
    parse_exact,
    resume_object,
)
from .errors import ParseError
from .flat import answer as flat_answer
from .serde_float import SAFE_MAGNITUDE

_GENERIC = msgspec.json.Decoder().decode

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]").search
_WHITESPACE = " \t\n\r"


class _Unsure(Exception):
    """The scanner met something only `parse_exact` can place (see the module's doc)."""


def _integer(literal: str) -> Number:
    if len(literal) < 20 and literal[0] != "-":  # below 10**19: a u64, the common case
        return Number("u64", int(literal))
    number = number_from_literal(literal, False)
    if number is None:
        raise _Unsure
    return number


def _float(literal: str) -> Number:
    value = float(literal)
    if -SAFE_MAGNITUDE < value < SAFE_MAGNITUDE:  # the common case, as number_from_literal
        return Number("f64", value)
    number = number_from_literal(literal, True)
    if number is None:
        raise _Unsure
    return number


def _constant(_: str) -> None:
    raise _Unsure  # NaN, Infinity, -Infinity: not JSON


_SCAN = json.JSONDecoder(
    object_pairs_hook=Object,
    parse_float=_float,
    parse_int=_integer,
    parse_constant=_constant,
    strict=True,
).raw_decode
# For a line without nested values: its floats read in C, as plain floats (a buffered f64
# as the build takes it), checked against `SAFE_MAGNITUDE` by `_tagged`.
_SCAN_FLAT = json.JSONDecoder(
    object_pairs_hook=Object,
    parse_int=_integer,
    parse_constant=_constant,
    strict=True,
).raw_decode


def parse_replayed(line: str | bytes) -> MetricLine:
    """What `parse_exact(line)` answers, value or `ParseError`, sooner where it can."""
    if isinstance(line, str):
        text = line
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate code point: not UTF-8
                return parse_exact(line)
    elif isinstance(line, bytes):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            return parse_exact(line)
    else:
        return parse_exact(line)
    answered = flat_answer(line, text)  # a flat line, or not an object: at C speed
    if answered is not None:
        return answered
    start = len(text) - len(text.lstrip(_WHITESPACE))
    nesting = text.count("[") + text.count("{")
    if (
        text[start : start + 1] != "{"
        or nesting >= RECURSION_LIMIT - 1
        or ("\\u" in text and _SURROGATE_ESCAPE(text))
    ):
        return parse_exact(line)
    scan = _SCAN_FLAT if nesting == 1 else _SCAN  # 1: the line's own object alone
    plain = nesting == 1 and "\\" not in text  # msgspec can read it for serde (`_read_flat`)
    body = text.rstrip(_WHITESPACE)
    if not body.endswith("}"):  # cut, or trailing text: json fails
        return _resumed(line, text, start, len(text), scan, plain)
    if plain:
        try:
            read = _read_flat(line, text)
        except msgspec.DecodeError as error:  # where msgspec stopped: where to look back from
            return _resumed(line, text, start, _stopped_at(error, text), scan, plain)
        if read is not None:
            return _built(*read, len(body))
    try:
        found, end = scan(text, start)
    except json.JSONDecodeError as error:  # a syntax error about there
        return _resumed(line, text, start, error.pos, scan, plain)
    except _Unsure:  # out of range, or a constant json takes and serde_json refuses
        return _resumed(line, text, start, _constant_at(text), scan, plain)
    except (ValueError, RecursionError):
        return parse_exact(line)
    if text[end:].strip(_WHITESPACE):
        return parse_exact(line)  # trailing characters: serde builds first, then refuses
    try:
        variant, entries = _tagged(found.entries)
    except _Unsure:
        return parse_exact(line)
    return _built(variant, entries, end)


def _built(
    variant: type[MetricLine] | None, entries: list[tuple[str, Any]], end: int
) -> MetricLine:
    """serde's build of a whole object read without an error, ending at `end`."""
    if variant is None:
        raise ParseError("data", MISSING_TAG, "$", end + 1)
    try:
        return _from_object(variant, entries)
    except DataError as error:
        message, path = error.args
        raise ParseError("data", message, path, end) from None


def _read_flat(
    line: str | bytes, text: str
) -> tuple[type[MetricLine] | None, list[tuple[str, Any]]] | None:
    """The tag and entries of a line without nested values or escapes, read by msgspec
    (a fifth of json's time), as serde buffers them; None where only json's reading can
    say: a colon in a string, an integer beyond u64 or i64, a tag serde refuses;
    `msgspec.DecodeError` for text that is not JSON.

    msgspec's dict keeps the keys in order, the last value of a key written twice: with
    as many colons in the line as keys, none is (each key has its colon). Otherwise the
    line is read again as an array (`_pairs`), every entry kept. msgspec's floats are
    serde's, a negative zero's sign too; an integer `-0`, which msgspec reads as 0 and
    serde as the f64 -0.0, is found by its colon (`_NEGATIVE_ZERO`)."""
    found = _GENERIC(line)  # msgspec.DecodeError: not JSON
    if found.__class__ is not dict:
        return None
    items: Any = found.items()
    if text.count(":") != len(found):  # a key written twice, or a colon in a string
        items = _pairs(line, text)
        if items is None:
            return None
    # from here, every colon of the line ends a key: the n-th is the n-th entry's
    negative: set[int] | None = None  # the entries written as the integer -0
    variant = None
    entries: list[tuple[str, Any]] = []
    for index, (key, value) in enumerate(items):
        kind = value.__class__
        if kind is int:
            if 0 < value <= U64_MAX:
                value = Number("u64", value)
            elif value == 0:
                if "-0" in text:
                    if negative is None:
                        negative = {text.count(":", 0, at.start()) for at in _NEGATIVE_ZERO(text)}
                    value = -0.0 if index in negative else Number("u64", 0)
                else:
                    value = Number("u64", 0)
            elif I64_MIN <= value < 0:
                value = Number("i64", value)
            else:
                return None
        elif kind is float and not -SAFE_MAGNITUDE < value < SAFE_MAGNITUDE:
            return None
        if key != "event":
            entries.append((key, value))
        elif variant is None and kind is str and value in VARIANTS:
            variant = VARIANTS[value]
        else:  # a tag serde refuses where it stands: its column is the exact path's
            return None
    return variant, entries


# A value written as the integer -0, from the colon before it.
_NEGATIVE_ZERO = re.compile(r":[ \t\n\r]*-0(?![.0-9eE])").finditer
_AS_ARRAY = bytes.maketrans(b"{}:", b"[],")


def _pairs(line: str | bytes, text: str) -> Iterator[tuple[Any, Any]] | None:
    """The entries of a flat object that msgspec read, in order, every key written twice
    kept: `{"a":1,"a":2}` read as the array `["a",1,"a",2]`, the same tokens, when the
    line's only braces are its own and its only colons end keys (None otherwise)."""
    data = line if line.__class__ is bytes else text.encode()
    if data.count(b"}") != 1:
        return None
    try:
        flat = _GENERIC(data.translate(_AS_ARRAY))
    except msgspec.DecodeError:
        return None
    if len(flat) % 2 or data.count(b":") != len(flat) // 2:
        return None  # a colon in a string: the array's strings are not the line's
    tokens = iter(flat)
    return zip(tokens, tokens, strict=True)  # (key, value) in turn, no list of pairs built


def _tagged(found: list[tuple[str, Any]]) -> tuple[type[MetricLine] | None, list[tuple[str, Any]]]:
    """The tag and the other entries, as serde's visitor reads them; `_Unsure` for a tag
    that it refuses where it stands (its column is the exact path's), or a float (from
    `_SCAN_FLAT`) where serde_json's own reading may say "out of range"."""
    variant = None
    entries = []
    for key, value in found:
        if value.__class__ is float and not -SAFE_MAGNITUDE < value < SAFE_MAGNITUDE:
            raise _Unsure
        if key != "event":
            entries.append((key, value))
        elif variant is None and value.__class__ is str and value in VARIANTS:
            variant = VARIANTS[value]
        else:
            raise _Unsure
    return variant, entries


def _stopped_at(error: msgspec.DecodeError, text: str) -> int:
    """The character msgspec's error names (`... (byte 22)`), in an ASCII line; -1 when
    it names none."""
    _, found, tail = str(error).rpartition(" (byte ")
    if not found or not text.isascii():
        return -1
    return int(tail.rstrip(")"))


def _constant_at(text: str) -> int:
    """Where a `NaN` or an `Infinity` may stand (json reads them, serde_json does not);
    -1 when there is none, and a number out of range made the scanner stop."""
    found = [at for at in (text.find("NaN"), text.find("Infinity")) if at >= 0]
    return min(found, default=-1)


def _resumed(
    line: str | bytes,
    text: str,
    start: int,
    near: int,
    scan: Callable[[str, int], tuple[Object, int]],
    plain: bool,
) -> MetricLine:
    """`parse_exact`'s answer for a line json could not read whole (cut, trailing text,
    a syntax error about `near`): the exact reader reads on only from the last `,`
    before `near` that json's scanner (or msgspec, for a `plain` line) shows to end a
    member of the line's object with nothing serde_json refuses before it: the prefix,
    closed there, reads whole. The reader's state there (depth one, the tag, the
    buffered entries) is the prefix's."""
    comma = text.rfind(",", start, near) if near >= 0 else -1
    for _ in range(_CHECKPOINT_TRIES):
        if comma < 0:
            break
        prefix = text[:comma] + "}"
        read = None
        try:
            if plain:
                read = _read_flat(prefix, prefix)
            if read is None:
                found, end = scan(prefix, start)
                if end != comma + 1:  # the object closed before: trailing text
                    break
                read = _tagged(found.entries)
        except _Unsure:
            break
        except (ValueError, RecursionError):  # msgspec's and json's errors among them
            comma = text.rfind(",", start, comma)  # in a string or a nested value
            continue
        variant, entries = read
        if variant is None and not entries:  # `{,`: no member before that `,`
            break
        return resume_object(text, comma, variant, entries)
    return parse_exact(line)


# A `,` that turns out not to end a member (in a string, in a nested value) is tried
# again once, from the `,` before it; then the exact reader reads the whole line.
_CHECKPOINT_TRIES = 2

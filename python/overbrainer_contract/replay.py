"""The exact path's answer at C speed, for the lines json's C scanner can read for it.

`parse_exact` reads a line character by character, as serde_json does, so that it can
say where each error is: 25 to 50 µs a line. Most lines that reach it are JSON objects
that the fast path could not vouch for (a wrong type, a duplicate key, a field missing,
`-0` for a count). For those, Python's `json` scanner (C) reads the whole line into the
exact path's own buffered form — entries in order, duplicates kept, every number from
its literal as serde_json reads it (`number_from_literal`) — and serde's build runs on
it (`_from_object`): the same value, or the same data error, message, path and column.

Whatever could make serde_json stop earlier, or differently, goes back to `parse_exact`:
text `json` refuses (syntax, a cut line, trailing characters, `NaN`), a number out of
range, a `\\u` escape of a surrogate, anything nested deep enough to meet serde_json's
limit, a line that is not an object, a tag that is missing its variant or written twice.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ._serde import (
    RECURSION_LIMIT,
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
from .serde_float import SAFE_MAGNITUDE

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
    start = len(text) - len(text.lstrip(_WHITESPACE))
    if (
        text[start : start + 1] != "{"
        or text.count("[") + text.count("{") >= RECURSION_LIMIT - 1
        or ("\\u" in text and _SURROGATE_ESCAPE(text))
    ):
        return parse_exact(line)
    if not text.rstrip(_WHITESPACE).endswith("}"):  # cut, or trailing text: json fails
        return _resumed(line, text, start, len(text))
    try:
        found, end = _SCAN(text, start)
    except json.JSONDecodeError as error:  # a syntax error about there
        return _resumed(line, text, start, error.pos)
    except _Unsure:  # out of range, or a constant json takes and serde_json refuses
        return _resumed(line, text, start, _constant_at(text))
    except (ValueError, RecursionError):
        return parse_exact(line)
    if text[end:].strip(_WHITESPACE):
        return parse_exact(line)  # trailing characters: serde builds first, then refuses
    try:
        variant, entries = _tagged(found.entries)
    except _Unsure:
        return parse_exact(line)
    if variant is None:
        raise ParseError("data", "missing field `event`", "$", end + 1)
    try:
        return _from_object(variant, entries)
    except DataError as error:
        raise ParseError("data", error.message, error.path, end) from None


def _tagged(found: list[tuple[str, Any]]) -> tuple[type[MetricLine] | None, list[tuple[str, Any]]]:
    """The tag and the other entries, as serde's visitor reads them; `_Unsure` for a tag
    that it refuses where it stands (its column is the exact path's)."""
    variant = None
    entries = []
    for key, value in found:
        if key != "event":
            entries.append((key, value))
        elif variant is None and value.__class__ is str and value in VARIANTS:
            variant = VARIANTS[value]
        else:
            raise _Unsure
    return variant, entries


def _constant_at(text: str) -> int:
    """Where a `NaN` or an `Infinity` may stand (json reads them, serde_json does not);
    -1 when there is none, and a number out of range made the scanner stop."""
    found = [at for at in (text.find("NaN"), text.find("Infinity")) if at >= 0]
    return min(found, default=-1)


def _resumed(line: str | bytes, text: str, start: int, near: int) -> MetricLine:
    """`parse_exact`'s answer for a line json could not read whole (cut, trailing text,
    a syntax error about `near`): the exact reader reads on only from the last `,`
    before `near` that json's scanner shows to end a member of the line's object with
    nothing serde_json refuses before it: the prefix, closed there, reads whole. The
    reader's state there (depth one, the tag, the buffered entries) is the prefix's."""
    comma = text.rfind(",", start, near) if near >= 0 else -1
    for _ in range(_CHECKPOINT_TRIES):
        if comma < 0:
            break
        try:
            found, end = _SCAN(text[:comma] + "}", start)
        except (ValueError, _Unsure, RecursionError):
            comma = text.rfind(",", start, comma)  # in a string or a nested value
            continue
        if end != comma + 1:  # the object closed before: trailing text
            break
        try:
            variant, entries = _tagged(found.entries)
        except _Unsure:
            break
        return resume_object(text, comma, variant, entries)
    return parse_exact(line)


# A `,` that turns out not to end a member (in a string, in a nested value) is tried
# again once, from the `,` before it; then the exact reader reads the whole line.
_CHECKPOINT_TRIES = 2

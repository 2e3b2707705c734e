"""The exact answer for a flat line, at C speed: what a bad line mostly is.

A run's bad lines are its own lines gone wrong: cut by a kill, a `NaN`, a key written
twice, a value of the wrong type, `-0` for a count, or not JSON at all. Nearly all are
flat (one object of scalars) and hold no backslash. For those, msgspec reads the line
into Python values with serde_json's limits checked in C (`_OBJECT`: a float below
`SAFE_MAGNITUDE`, an integer within i64; anything else goes back), and what serde would
then say is settled in a few steps:

- not an object: a first character that starts no JSON value is serde_json's
  "expected value" at once;
- cut right after a value (in a number's digits, most of a line): the object closed
  there reads whole, so serde_json stands after a value at the line's end;
- cut elsewhere, or a syntax error (a `NaN` or `Infinity` looked for first, else where
  msgspec stopped): serde_json reads the members before the last `,` ahead of it
  without an error (msgspec reads them, the tag and the keys checked as serde reads
  them), and one regex over what follows that `,` names serde_json's error there
  (`_CUT_AFTER_COMMA`, `_STOP_AFTER_COMMA`); the rarer ends are read by `_MEMBER` and
  the exact reader's own steps for a number;
- a whole object: a generated check of every known field (`_checks`, from the schema's
  fields) builds the model of a line without an error; in one with an error, a scan of
  the entries in order finds the first value serde refuses, and serde's conversion of
  it says what serde says (serde's build, `_serde._from_object`, where a required field
  is absent); a key written twice is found by reading the tokens again as an array.

Anything else answers None, and the replay (`replay.parse_replayed`) or the exact reader
answers instead: nothing here guesses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Annotated, Any

import msgspec

from ._serde import (
    _PLANS,
    CONTROL_CHARACTER,
    DUPLICATE_FIELD,
    EOF_OBJECT,
    EOF_STRING,
    EOF_VALUE,
    EXPECTED_COLON,
    EXPECTED_COMMA_OR_BRACE,
    EXPECTED_IDENT,
    EXPECTED_VALUE,
    F64,
    FIELDS,
    I64_MIN,
    KEY_NOT_STRING,
    MISSING_TAG,
    OPT_F64,
    OPT_U64,
    OUT_OF_RANGE,
    STAGE,
    STAGES,
    TRAILING_COMMA,
    U64,
    VARIANTS,
    DataError,
    MetricLine,
    Number,
    Reader,
    _from_object,
    _member,
    number_from_literal,
)
from .errors import Category, ParseError
from .serde_float import SAFE_MAGNITUDE

_WHITESPACE = " \t\n\r"
_I64_MAX = 2**63 - 1

# A scalar as serde_json reads it without a word: below `SAFE_MAGNITUDE` serde_json's own
# float reading agrees that it is finite; an integer within i64 is a u64 or an i64 (msgspec
# bounds no integer beyond i64: a larger one goes back).
_Scalar = (
    Annotated[float, msgspec.Meta(gt=-SAFE_MAGNITUDE, lt=SAFE_MAGNITUDE)]
    | Annotated[int, msgspec.Meta(ge=I64_MIN, le=_I64_MAX)]
    | str
    | bool
    | None
)
_OBJECT = msgspec.json.Decoder(dict[str, _Scalar]).decode
_TOKENS = msgspec.json.Decoder(list[_Scalar]).decode
_AS_ARRAY = bytes.maketrans(b"{}:", b"[],")

# Where a value may start (serde_json's `deserialize_any`); any other first character is
# "expected value".
_VALUE_START = frozenset('{["-0123456789ntf')

# A value written as the integer -0 (msgspec reads 0, serde the f64 -0.0), from its colon.
_NEGATIVE_ZERO = re.compile(r":[ \t\n\r]*-0(?![.0-9eE])").finditer

# One member of an object after its `{` or a `,`, as far as serde_json's reader reads it
# without an error: white space, the key (a string without escapes), its colon, a scalar
# value. Where the match ends, and which group matched last, say what the reader meets next.
_PLAIN = r'[^"\\\x00-\x1f]*'
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
# A number or a literal cut where serde_json's reader needs more: after a sign, a point,
# an exponent's mark; within `null`, `true`, `false`.
_CUT_NUMBER = r"-|-?(?:0|[1-9][0-9]*)(?:\.|(?:\.[0-9]+)?[eE][+-]?)"
_CUT_LITERAL = r"n(?:u(?:l)?)?|t(?:r(?:u)?)?|f(?:a(?:l(?:s)?)?)?"
_MEMBER = re.compile(
    rf"""[,{{][ \t\n\r]*
    (?:(?P<key>"{_PLAIN})
      (?:(?P<closed>")[ \t\n\r]*
        (?:(?P<colon>:)[ \t\n\r]*
          (?:(?P<value>"{_PLAIN}"
             |(?P<number>{_NUMBER})
             |true|false|null)[ \t\n\r]*
          )?
        )?
      )?
    )?""",
    re.VERBOSE,
).match
_STRING_RUN = re.compile(_PLAIN).match
# The ends of a line cut after a member's `,` (from that `,`), where serde_json's reader
# stops at once: the line's end ("EOF while parsing ..."), or the control character (a
# line's own newline) that ends a string cut short. Each a named empty group (`_CUT_ENDS`).
_CUT_AFTER_COMMA = re.compile(
    rf"""
    ,[ \t\n\r]*(?:
      "{_PLAIN}(?P<in_key>)(?:\Z|(?P<control_in_key>)(?=[\x00-\x1f]))
    | "(?P<key>{_PLAIN})"[ \t\n\r]*(?:
        :[ \t\n\r]*(?:
          "{_PLAIN}(?P<in_string>)(?:\Z|(?P<control_in_string>)(?=[\x00-\x1f]))
        | (?:"{_PLAIN}"|(?P<number>{_NUMBER})|true|false|null)[ \t\n\r]*(?P<after_value>)\Z
        | (?:{_CUT_NUMBER}|{_CUT_LITERAL})(?P<in_value>)\Z
        | (?P<before_value>)\Z
        )
      | (?P<after_key>)\Z
      )
    | (?P<after_comma>)\Z
    )""",
    re.VERBOSE,
).match
_CUT_ENDS: dict[str | None, tuple[Category, str, bool]] = {  # and whether in the value
    "in_key": ("eof", EOF_STRING, False),
    "control_in_key": ("syntax", CONTROL_CHARACTER, False),
    "after_key": ("eof", EOF_OBJECT, False),
    "before_value": ("eof", EOF_VALUE, True),
    "in_value": ("eof", EOF_VALUE, True),
    "in_string": ("eof", EOF_STRING, True),
    "control_in_string": ("syntax", CONTROL_CHARACTER, True),
    "after_value": ("eof", EOF_OBJECT, False),
    "after_comma": ("eof", EOF_VALUE, False),
}
# The syntax errors serde_json's reader meets in the member after a `,` (from that `,`)
# at a character that cannot come next: a value that is not JSON (`NaN`), a missing
# colon or comma, a key that is not a string, a `,` before the `}`. Each a named empty
# group before that character (`_STOP_ENDS`); the line's end is `_CUT_AFTER_COMMA`'s.
_STOP_AFTER_COMMA = re.compile(
    rf"""
    ,[ \t\n\r]*(?:
      "(?P<key>{_PLAIN})"[ \t\n\r]*(?:
        :[ \t\n\r]*(?:
          (?:"{_PLAIN}"|(?P<number>{_NUMBER})(?![0-9.eE+-])|true|false|null)
          [ \t\n\r]*(?P<after_value>)(?=[^,}} \t\n\r])
        | (?P<before_value>)(?=[^-0-9"ntf\[{{ \t\n\r])
        )
      | (?P<after_key>)(?=[^: \t\n\r])
      )
    | (?P<before_brace>)(?=}})
    | (?P<after_comma>)(?=[^"}} \t\n\r])
    )""",
    re.VERBOSE,
).match
_STOP_ENDS: dict[str | None, tuple[Category, str, bool]] = {
    "after_value": ("syntax", EXPECTED_COMMA_OR_BRACE, False),
    "before_value": ("syntax", EXPECTED_VALUE, True),
    "after_key": ("syntax", EXPECTED_COLON, False),
    "before_brace": ("syntax", TRAILING_COMMA, False),
    "after_comma": ("syntax", KEY_NOT_STRING, False),
}
_WHITESPACE_RUN = re.compile("[ \t\n\r]*").match
_CONTINUES = frozenset("0123456789.eE+-")  # after a number: serde_json reads on
_LITERALS = {"n": "null", "t": "true", "f": "false"}
_VALUE_END = frozenset("0123456789el")  # how a number or a literal ends (a `"` may end a key)


def answer(line: str | bytes, text: str) -> MetricLine | None:
    """`parse_exact(line)`'s answer (the value, or its `ParseError` raised) for a line that
    is flat and holds no backslash, or is not an object; None for any other. `text` is
    the line as a str, valid UTF-8."""
    if text[:1] == "{":
        start = 0
    else:
        start = len(text) - len(text.lstrip(_WHITESPACE))
        first = text[start : start + 1]
        if not first:
            raise ParseError("eof", EOF_VALUE, "$", len(text) + 1)
        if first != "{":
            if first not in _VALUE_START:
                raise ParseError("syntax", EXPECTED_VALUE, "$", start + 1)
            return None  # a value: serde reads it whole, then names it
    if "\\" in text or "[" in text or text.count("{") != 1:
        return None  # escapes, or values in values: the replay reads them
    body = text.rstrip(_WHITESPACE)
    if body[-1] != "}":  # cut (a run killed mid-write), or trailing text
        if body[-1] in _VALUE_END and not text.count('"') % 2:
            _after_whole_value(text, body)  # raises, if cut right after a value
        return _after_comma(text, start, len(text), _CUT)
    near = text.find("NaN")  # a writer's non-finite float, which msgspec is slow to refuse
    if near < 0:
        near = text.find("Infinity")
    if near >= 0:  # serde_json's error raised where it is there (not in a string)
        _after_comma(text, start, near, _STOP)
    data = line if line.__class__ is bytes else text
    try:
        found = _OBJECT(data)
    except msgspec.ValidationError:  # a number only serde_json's reading can place
        return None
    except msgspec.DecodeError as error:
        return _after_comma(text, start, _stopped_at(error, len(text)), _STOP)
    colons = text.count(":")
    if colons != len(found):  # a key written twice, or a colon in a string
        return _with_duplicates(data, text, colons, len(body))
    name = found.get("event")
    variant = VARIANTS.get(name) if name.__class__ is str else None
    if variant is None:
        if "event" in found:
            return None  # a tag serde refuses where it stands: the replay places it
        raise ParseError("data", MISSING_TAG, "$", len(body) + 1)
    if 0 in found.values():  # msgspec reads `-0` as 0: a key's before its colon
        for at in _NEGATIVE_ZERO(text):
            close = text.rfind('"', 0, at.start())
            found[text[text.rfind('"', 0, close) + 1 : close]] = -0.0
    checked = _CHECKED[variant](found.get, _ABSENT)
    if checked is not None:
        return checked
    refused = _REFUSED[variant](found.items())  # serde's first error, in the entries' order
    try:
        if refused is not None:  # its conversion says what serde says of it
            convert, path = _PLANS[variant][refused]
            value: Any = found[refused]
            if value.__class__ is int:
                value = Number("u64" if value >= 0 else "i64", value)
            convert(value, path)
        return _from_object(variant, _content(found.items()))  # a required field absent
    except DataError as error:
        message, path = error.args
        raise ParseError("data", message, path, len(body)) from None


def _after_whole_value(text: str, body: str) -> None:
    """`parse_exact`'s error for a flat object cut right after a member's value (in a
    number's digits, most often), raised: the object closed there reads whole (msgspec
    reads it as serde reads it), so serde_json's reader met no error before the line's
    end and stands after a value. Returns where the line is not one of those."""
    try:
        found = _OBJECT(body + "}")
    except msgspec.DecodeError:  # not after a value; ValidationError included
        return
    if text.count(":") == len(found) and ("event" not in found or _tag(found) is not None):
        raise ParseError("eof", EOF_OBJECT, "$", len(text) + 1)


def _tag(found: dict[str, Any]) -> type[MetricLine] | None:
    """The variant the object's tag names, when serde accepts it where it stands."""
    name = found.get("event")
    return VARIANTS.get(name) if name.__class__ is str else None


def _build(variant: type[MetricLine], entries: Iterable[tuple[str, Any]], end: int) -> MetricLine:
    """serde's build of entries read whole (its `DataError` placed at `end`)."""
    try:
        return _from_object(variant, _content(entries))
    except DataError as error:
        message, path = error.args
        raise ParseError("data", message, path, end) from None


def _content(entries: Iterable[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """msgspec's values as serde buffers them, one at a time (the build may stop early):
    an integer is a u64 or an i64; a float, an f64 (the exact path's plain float)."""
    for key, value in entries:
        if value.__class__ is int:
            yield key, Number("u64" if value >= 0 else "i64", value)
        else:
            yield key, value


def _with_duplicates(data: str | bytes, text: str, colons: int, end: int) -> MetricLine | None:
    """A flat object with a key written twice (or a colon in a string): its tokens read
    again as an array (`{"a":1,"a":2}` as `["a",1,"a",2]`), every entry kept in order,
    when its only brace is its own closing one and its `colons` all end keys."""
    raw = data if isinstance(data, bytes) else text.encode()
    if raw.count(b"}") != 1:
        return None
    try:
        tokens: list[Any] = _TOKENS(raw.translate(_AS_ARRAY))
    except msgspec.DecodeError:  # ValidationError included
        return None
    keys = tokens[0::2]
    if len(tokens) != 2 * colons or keys.count("event") != 1:
        return None  # a colon in a string; the tag twice (refused where it stands), or none
    values = tokens[1::2]
    name = values[keys.index("event")]
    variant = VARIANTS.get(name) if name.__class__ is str else None
    if variant is None:
        return None
    if 0 in values:  # msgspec reads `-0` as 0: the n-th colon's value is the n-th
        for at in _NEGATIVE_ZERO(text):
            values[text.count(":", 0, at.start())] = -0.0
    # serde's build stops at the first known key written again, unless a value it took
    # before (the first of each key) is refused: when none is, that key is the error
    plan = _PLANS[variant]
    taken: dict[str, Any] = {}
    for key, value in zip(keys, values, strict=True):
        if key not in taken:
            taken[key] = value
        elif key in plan:
            if _PRESENT[variant](taken.get):
                raise ParseError("data", DUPLICATE_FIELD.format(key), plan[key][1], end)
            break
    return _build(variant, zip(keys, values, strict=True), end)


def _after_comma(
    text: str, start: int, near: int, ends: tuple[Callable[..., Any], dict[Any, Any]]
) -> MetricLine | None:
    """`parse_exact`'s error for a flat object where msgspec stopped about `near` after a
    member's `,`: the members before it read without an error (checked by msgspec as
    serde reads them), and what follows it one of the `ends` (`_CUT_AFTER_COMMA` for a
    line cut at `near`, `_STOP_AFTER_COMMA` for a syntax error). Any other goes to
    `_member_after`."""
    comma = text.rfind(",", start, near)
    match, named = ends
    found = match(text, comma) if comma > start else None
    if found is None or text.count('"', start, comma) % 2:  # that `,` is in a string
        return _member_after(text, start, near)
    try:
        before = _OBJECT(text[:comma] + "}")
    except msgspec.DecodeError:  # ValidationError included
        return None
    if not before or text.count(":", start, comma) != len(before):
        return None
    if "event" in before and _tag(before) is None:
        return None
    category, message, in_value = named[found.lastgroup]
    column = found.end() + 1 if category == "syntax" else len(text) + 1
    key = found["key"]
    if key is None:
        raise ParseError(category, message, "$", column)
    if key == "event":
        return None  # the tag is read as serde's variant identifier, or refused twice
    number = found["number"]
    if number is not None and ("." in number or "e" in number or "E" in number):
        if not -SAFE_MAGNITUDE < float(number) < SAFE_MAGNITUDE:
            return _member_after(text, start, near)  # out of range, maybe
    elif number is not None and len(number) > 20:
        return _member_after(text, start, near)
    raise ParseError(category, message, _member("$", key) if in_value else "$", column)


_CUT = (_CUT_AFTER_COMMA, _CUT_ENDS)
_STOP = (_STOP_AFTER_COMMA, _STOP_ENDS)


def _stopped_at(error: msgspec.DecodeError, length: int) -> int:
    """Where msgspec's error says it stopped (`... (byte 22)`), or the line's end. Only a
    hint: what is read before it is checked again, and byte offsets are characters only
    in an ASCII line."""
    _, found, tail = str(error).rpartition(" (byte ")
    return int(tail[:-1]) if found and tail[:-1].isdigit() else length


def _member_after(text: str, start: int, near: int) -> MetricLine | None:
    """`parse_exact`'s error for a flat object that msgspec stopped reading about `near`:
    the members before the last `,` ahead of it read without an error (checked by
    msgspec as serde reads them), the member after it read by `_MEMBER` to serde_json's
    first error. None where the error is not there or not one `_MEMBER` reads."""
    at = _boundary(text, start, near)
    if at is None:
        return None
    if at != start:  # the members before the `,`: read whole, no tag refused, no key twice
        try:
            before = _OBJECT(text[:at] + "}")
        except msgspec.DecodeError:
            return None
        if not before or text.count(":", start, at) != len(before):
            return None
        if "event" in before and _tag(before) is None:
            return None
    found = _MEMBER(text, at)
    assert found is not None  # the pattern matches the `,` or `{` alone
    end = found.end()
    char = text[end : end + 1]
    key = found["key"]
    if key is None:  # white space after the `,` or the `{`
        if not char:
            raise ParseError("eof", EOF_VALUE if at != start else EOF_OBJECT, "$", end + 1)
        if char == "}":
            if at == start:
                return None  # `{}`: an object read whole
            raise ParseError("syntax", TRAILING_COMMA, "$", end + 1)
        raise ParseError("syntax", KEY_NOT_STRING, "$", end + 1)
    if found["closed"] is None:  # in the key
        if not char:
            raise ParseError("eof", EOF_STRING, "$", end + 1)
        if char < " ":
            raise ParseError("syntax", CONTROL_CHARACTER, "$", end + 1)
        return None
    if key == '"event':
        return None  # the tag is read as serde's variant identifier, or refused twice
    if found["colon"] is None:
        if not char:
            raise ParseError("eof", EOF_OBJECT, "$", end + 1)
        raise ParseError("syntax", EXPECTED_COLON, "$", end + 1)
    path = _member("$", key[1:])
    if found["value"] is None:
        _value_error(text, end, char, path)
        return None
    number = found["number"]
    if number is not None:
        after = found.end("number")
        if text[after : after + 1] in _CONTINUES:  # cut short, or malformed
            _number_then(text, found.start("number"), path)
            return None
        if "." in number or "e" in number or "E" in number:
            safe = -SAFE_MAGNITUDE < float(number) < SAFE_MAGNITUDE
            if not safe and number_from_literal(number, True) is None:
                raise ParseError("syntax", OUT_OF_RANGE, path, after + 1)
        elif len(number) > 20 and number_from_literal(number, False) is None:  # beyond i64
            raise ParseError("syntax", OUT_OF_RANGE, path, after + 1)
    _after_value(text, end)
    return None


def _after_value(text: str, end: int) -> None:
    """What serde_json's reader says after a member's value and the white space after it
    (up to `end`): nothing when a `,` or the `}` follows (the error is elsewhere)."""
    char = text[end : end + 1]
    if not char:
        raise ParseError("eof", EOF_OBJECT, "$", end + 1)
    if char not in ",}":
        raise ParseError("syntax", EXPECTED_COMMA_OR_BRACE, "$", end + 1)


def _value_error(text: str, at: int, char: str, path: str) -> None:
    """Raises serde_json's error for the value at `at` (first character `char`) that
    `_MEMBER` did not read whole; returns where it is not one read here."""
    if not char:
        raise ParseError("eof", EOF_VALUE, path, at + 1)
    if char == '"':
        run = _STRING_RUN(text, at + 1)
        end = run.end() if run else at + 1
        if end == len(text):
            raise ParseError("eof", EOF_STRING, path, end + 1)
        if text[end] < " ":
            raise ParseError("syntax", CONTROL_CHARACTER, path, end + 1)
        return
    if char in "-0123456789":
        _number_then(text, at, path)
        return
    literal = _LITERALS.get(char)
    if literal is not None:  # read a character at a time, as serde_json's `parse_ident`
        stop = at + 1
        while stop < len(text) and stop - at < len(literal) and text[stop] == literal[stop - at]:
            stop += 1
        if stop == len(text):
            raise ParseError("eof", EOF_VALUE, path, stop + 1)
        raise ParseError("syntax", EXPECTED_IDENT, path, stop + 1)
    if char not in "[{":
        raise ParseError("syntax", EXPECTED_VALUE, path, at + 1)


def _number_then(text: str, at: int, path: str) -> None:
    """A number `_MEMBER` did not read (cut short, or malformed) read by the exact reader's
    own `number`, which raises serde_json's error in it; then what follows the value."""
    reader = Reader(text)
    reader.pos = at
    reader.number(path)
    run = _WHITESPACE_RUN(text, reader.pos)  # matches, if only nothing
    _after_value(text, run.end() if run else reader.pos)


def _boundary(text: str, start: int, near: int) -> int | None:
    """The last `,` before `near` that stands between two members (outside a string:
    the line has no escapes, so an even count of quotes before it), or the object's `{`
    at `start` when there is none; None after a few strings holding commas."""
    comma = text.rfind(",", start, near)
    for _ in range(_STRINGS_HOLDING_COMMAS):
        if comma < 0:
            return start
        if not text.count('"', start, comma) % 2:
            return comma
        comma = text.rfind(",", start, text.rfind('"', start, comma))
    return None


_STRINGS_HOLDING_COMMAS = 3


# -- checking a whole object's known fields at once ------------------------------------------

_ABSENT = object()  # a required field's value when the line lacks it: never accepted


def _checks(variant: type[MetricLine], mode: str) -> Callable[..., Any]:
    """Generated from `FIELDS`, each field's test one expression, for an object without a
    key written twice (`get`: its dict's), its integers written as serde reads them:

    - `check(get, absent)`: the model built as serde builds it when every known field
      holds a value serde accepts and none required is absent; else None;
    - `present(get)`: whether every known field present holds a value serde accepts
      (those absent are not looked at);
    - `refused(entries)`: the first key, in the entries' order, whose value serde
      refuses; None when there is none."""
    fields = FIELDS[variant]
    if mode == "refused":
        code = ["def refused(entries):", "    for key, v in entries:"]
        for index, (name, kind) in enumerate(fields):
            code.append(f"        {'elif' if index else 'if'} key == {name!r}:")
            code.append(f"            if not ({_ACCEPTS[kind]}):")
            code.append("                return key")
        source = "\n".join(code) + "\n"
    else:
        tests = []
        for name, kind in fields:
            accepts = _ACCEPTS[kind]  # a test of `v`, which it names first
            if kind in _OPTIONAL:
                tests.append(accepts.replace("v", f"(v := get({name!r}))", 1))
            elif mode == "present":
                tests.append(f"(v := get({name!r}, absent)) is absent or {accepts}")
            else:
                tests.append(accepts.replace("v", f"(v := get({name!r}, absent))", 1))
        test = " and ".join(f"({each})" for each in tests)
        if mode == "present":
            source = f"def present(get, absent=ABSENT):\n    return bool({test})\n"
        else:
            build = ", ".join(f"{name}={_VALUE[kind].format(name=name)}" for name, kind in fields)
            source = f"def check(get, absent):\n    if {test}:\n        return VARIANT({build})\n"
    namespace: dict[str, Any] = {"VARIANT": variant, "STAGES": STAGES, "ABSENT": _ABSENT}
    exec(compile(source, f"<{__name__} {mode} {variant.__name__}>", "exec"), namespace)
    return namespace[mode]  # type: ignore[no-any-return]


# What serde accepts for each kind of field (`_serde.CONVERT`), from msgspec's values: an
# integer within i64 is a u64 (when not negative) or an i64, a float an f64.
_ACCEPTS = {
    F64: "v.__class__ is float or v.__class__ is int",
    U64: "v.__class__ is int and v >= 0",
    OPT_F64: "v is None or v.__class__ is float or v.__class__ is int",
    OPT_U64: "v is None or v.__class__ is int and v >= 0",
    STAGE: "v.__class__ is str and v in STAGES",
}
_OPTIONAL = frozenset((OPT_F64, OPT_U64))
_VALUE = {  # the value serde builds, from one accepted
    F64: "float(get({name!r}))",
    U64: "get({name!r})",
    OPT_F64: "None if (v := get({name!r})) is None else float(v)",
    OPT_U64: "get({name!r})",
    STAGE: "STAGES[get({name!r})]",
}
_CHECKED: dict[type[MetricLine], Callable[..., MetricLine | None]] = {
    variant: _checks(variant, "check") for variant in FIELDS
}
_PRESENT = {variant: _checks(variant, "present") for variant in FIELDS}
_REFUSED = {variant: _checks(variant, "refused") for variant in FIELDS}

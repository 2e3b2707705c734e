"""The reference parser, step by step: `serde_json::from_str::<MetricLine>` in Python.

This is the exact path. It mirrors serde_json's reader (strict RFC 8259, its
number grammar, its recursion limit, the order in which it meets errors) and
serde's internally tagged enums (the tag read first and checked at once, the
rest of the entries buffered, the variant built from the buffer with
`visit_map` or `visit_seq`). `parse_exact` answers what the reference answers
for any line, error category included; `parse_line` calls it for every line
its fast path cannot vouch for.

Numbers get serde_json 1.0.87's verdict (`serde_float`: its best-effort reading
decides what is out of range) and a correctly rounded value, the fast path's: the
reference's value may differ in the last bit on long mantissas (README: "Floats").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

from overbrainer_contract_models.job_stage_schema import JobStage
from overbrainer_contract_models.metrics_line_schema import Begin, End, Eval, Log, Stage

from .errors import Category, ParseError
from .floats import format_f64
from .serde_float import SAFE_MAGNITUDE, serde_f64

MetricLine: TypeAlias = Begin | Log | Stage | Eval | End

U64_MAX = 18446744073709551615
I64_MIN = -9223372036854775808
RECURSION_LIMIT = 128  # serde_json's remaining_depth: 127 nested levels pass
WHITESPACE = " \t\n\r"
DIGITS = "0123456789"
HEX = "0123456789abcdefABCDEF"

# serde_json's messages that more than one reader of a line gives (`flat` too).
EOF_VALUE = "EOF while parsing a value"
EOF_OBJECT = "EOF while parsing an object"
EOF_STRING = "EOF while parsing a string"
EXPECTED_VALUE = "expected value"
KEY_NOT_STRING = "key must be a string"
TRAILING_COMMA = "trailing comma"
EXPECTED_COLON = "expected `:`"
EXPECTED_COMMA_OR_BRACE = "expected `,` or `}`"
CONTROL_CHARACTER = "control character (\\u0000-\\u001F) found while parsing a string"
OUT_OF_RANGE = "number out of range"
MISSING_TAG = "missing field `event`"
EXPECTED_IDENT = "expected ident"
DUPLICATE_FIELD = "duplicate field `{}`"
# Runs the reader skips in one step (C speed): digits, white space, a string's plain text.
_DIGITS = re.compile("[0-9]*")
_WHITESPACE = re.compile("[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?").match
_CONTINUES = frozenset("0123456789.eE+-")  # after a number: it was cut short or malformed
_PLAIN = re.compile('[^"\\\\\x00-\x1f]*')


def _run_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where the run of `pattern` (which also matches nothing) starting at `pos` ends."""
    found = pattern.match(text, pos)
    return found.end() if found else pos


VARIANTS: dict[str, type[MetricLine]] = {
    "begin": Begin,
    "log": Log,
    "stage": Stage,
    "eval": Eval,
    "end": End,
}
STAGES = {stage.value: stage for stage in JobStage}

# Field kinds, in declaration order (the order `visit_seq` reads them).
F64, U64, OPT_F64, OPT_U64, STAGE = "f64", "u64", "Option<f64>", "Option<u64>", "JobStage"
FIELDS: dict[type[MetricLine], tuple[tuple[str, str], ...]] = {
    Begin: (("time", F64), ("max_steps", OPT_U64)),
    Log: (
        ("time", F64),
        ("step", U64),
        ("epoch", OPT_F64),
        ("max_steps", OPT_U64),
        ("loss", OPT_F64),
        ("eval_loss", OPT_F64),
        ("learning_rate", OPT_F64),
        ("grad_norm", OPT_F64),
    ),
    Stage: (("time", F64), ("name", STAGE)),
    Eval: (("time", F64), ("step", U64), ("total", OPT_U64)),
    End: (("time", F64), ("step", U64)),
}
EXPECTING = {
    Begin: "struct variant MetricLine::Begin",
    Log: "struct TrainMetric",
    Stage: "struct variant MetricLine::Stage",
    Eval: "struct variant MetricLine::Eval",
    End: "struct variant MetricLine::End",
}


class Number:
    """A JSON number as serde_json reads it: `u64`, `i64` or `f64`. (The replay buffers
    an f64 below `SAFE_MAGNITUDE` as a plain float: the build takes both.)"""

    __slots__ = ("kind", "value")

    def __init__(self, kind: str, value: int | float) -> None:
        self.kind = kind
        self.value = value

    def unexpected(self) -> str:
        """How serde names this number in an error."""
        if self.kind == "f64":
            return f"floating point `{format_f64(float(self.value))}`"
        return f"integer `{self.value}`"


class Object:
    """A buffered JSON object: its entries in order, duplicates kept."""

    __slots__ = ("entries",)

    def __init__(self, entries: list[tuple[str, Any]]) -> None:
        self.entries = entries


def number_from_literal(literal: str, is_float: bool) -> Number | None:
    """The number serde_json reads from a valid JSON number literal (`is_float`: it has a
    fraction or an exponent), or None where it says "number out of range".

    An integer of more than 20 digits is beyond u64 and i64: serde reads it as f64.
    The verdict is serde_json's own (best-effort) reading's; the value is correctly
    rounded, as the fast path's, unless only serde_json's reading is finite. Below
    `SAFE_MAGNITUDE` both are finite, and serde_json's reading need not run.
    """
    negative = literal.startswith("-")
    if not is_float and len(literal) <= 21:
        value = int(literal)
        if not negative and value <= U64_MAX:
            return Number("u64", value)
        if negative and value != 0 and value >= I64_MIN:
            return Number("i64", value)
    number = float(literal)
    if -SAFE_MAGNITUDE < number < SAFE_MAGNITUDE:
        return Number("f64", number)
    reference = serde_f64(literal)
    if reference is None:
        return None
    return Number("f64", reference if math.isinf(number) else number)


def _unexpected(value: Any) -> str:
    """What serde's `Unexpected` says of a buffered value."""
    if value is None:
        return "null"
    if value is True or value is False:
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, Number):
        return value.unexpected()
    if isinstance(value, float):  # an f64 as the replay buffers it
        return f"floating point `{format_f64(value)}`"
    if isinstance(value, str):
        return f"string {_quote(value)}"
    if isinstance(value, list):
        return "sequence"
    return "map"


def _quote(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{out}"'


class Reader:
    """serde_json's `Deserializer<StrRead>`, reduced to what a metrics line meets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = RECURSION_LIMIT

    # -- errors ----------------------------------------------------------------
    def fail(self, category: Category, message: str, path: str | None = None) -> NoReturn:
        raise ParseError(category, message, path, self.pos + 1)

    def syntax(self, message: str, path: str | None = None) -> NoReturn:
        self.fail("syntax", message, path)

    def eof(self, message: str, path: str | None = None) -> NoReturn:
        self.fail("eof", message, path)

    # -- characters ------------------------------------------------------------
    def peek(self) -> str | None:
        return self.text[self.pos] if self.pos < len(self.text) else None

    def skip_ws(self) -> str | None:
        text, pos = self.text, self.pos
        if pos >= len(text):
            return None
        char = text[pos]
        if char not in WHITESPACE:  # a compact line: no run to skip
            return char
        pos = self.pos = _run_end(_WHITESPACE, text, pos)
        return text[pos] if pos < len(text) else None

    def next_or_null(self) -> str:
        char = self.peek()
        if char is None:
            return "\0"
        self.pos += 1
        return char

    def ident(self, rest: str, path: str) -> None:
        for expected in rest:
            char = self.peek()
            if char is None:
                self.eof(EOF_VALUE, path)
            if char != expected:
                self.syntax(EXPECTED_IDENT, path)
            self.pos += 1

    # -- numbers ---------------------------------------------------------------
    def number(self, path: str) -> Number:
        """`parse_any_number` / `parse_integer`: the sign is at `pos` when negative.

        A whole number followed by a character that cannot continue it is read in one
        step; anything else (a cut or malformed number) character by character, as
        serde_json meets its error."""
        found = _NUMBER(self.text, self.pos)
        if found is not None and self.text[found.end() : found.end() + 1] not in _CONTINUES:
            self.pos = found.end()
            is_float = found.group(1) is not None or found.group(2) is not None
            number = number_from_literal(found.group(), is_float)
            if number is None:
                self.syntax(OUT_OF_RANGE, path)
            return number
        start = self.pos
        negative = self.peek() == "-"
        if negative:
            self.pos += 1
        if self.peek() is None:  # serde_json's `next_char`: a cut sign is EOF
            self.eof(EOF_VALUE, path)
        first = self.next_or_null()
        if first == "0":
            if _is_digit(self.peek()):
                self.syntax("invalid number", path)
        elif not _is_digit(first):
            self.syntax("invalid number", path)
        else:
            self.pos = _run_end(_DIGITS, self.text, self.pos)
        is_float = False
        if self.peek() == ".":
            is_float = True
            self.pos += 1
            if not _is_digit(self.peek()):
                if self.peek() is None:
                    self.eof(EOF_VALUE, path)
                self.syntax("invalid number", path)
            self.pos = _run_end(_DIGITS, self.text, self.pos)
        if self.peek() in ("e", "E"):
            is_float = True
            self.pos += 1
            if self.peek() in ("+", "-"):
                self.pos += 1
            if self.peek() is None:  # a cut exponent is EOF too
                self.eof(EOF_VALUE, path)
            if not _is_digit(self.next_or_null()):
                self.syntax("invalid number", path)
            self.pos = _run_end(_DIGITS, self.text, self.pos)
        number = number_from_literal(self.text[start : self.pos], is_float)
        if number is None:
            self.syntax(OUT_OF_RANGE, path)
        return number

    # -- strings ---------------------------------------------------------------
    def string(self, path: str) -> str:
        """`parse_str`, the opening quote already eaten."""
        text, out = self.text, []
        while True:
            start = self.pos
            self.pos = _run_end(_PLAIN, text, self.pos)
            out.append(text[start : self.pos])
            char = self.peek()
            if char is None:
                self.eof(EOF_STRING, path)
            self.pos += 1
            if char == '"':
                return "".join(out)
            if char != "\\":
                self.pos -= 1
                self.syntax(CONTROL_CHARACTER, path)
            out.append(self.escape(path))

    def hex4(self, path: str) -> int:
        if self.pos + 4 > len(self.text):
            self.pos = len(self.text)
            self.eof(EOF_STRING, path)
        digits = self.text[self.pos : self.pos + 4]
        for i, char in enumerate(digits):
            if char not in HEX:
                self.pos += i
                self.syntax("invalid escape", path)
        self.pos += 4
        return int(digits, 16)

    def escape(self, path: str) -> str:
        char = self.peek()
        if char is None:
            self.eof(EOF_STRING, path)
        self.pos += 1
        simple = {
            '"': '"',
            "\\": "\\",
            "/": "/",
            "b": "\b",
            "f": "\f",
            "n": "\n",
            "r": "\r",
            "t": "\t",
        }
        if char in simple:
            return simple[char]
        if char != "u":
            self.syntax("invalid escape", path)
        code = self.hex4(path)
        if 0xDC00 <= code <= 0xDFFF:
            self.syntax("lone leading surrogate in hex escape", path)
        if not 0xD800 <= code <= 0xDBFF:
            return chr(code)
        for expected in "\\u":
            char = self.peek()
            if char is None:
                self.eof(EOF_STRING, path)
            self.pos += 1
            if char != expected:
                self.syntax("unexpected end of hex escape", path)
        low = self.hex4(path)
        if not 0xDC00 <= low <= 0xDFFF:
            self.syntax("lone leading surrogate in hex escape", path)
        return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))

    # -- values ----------------------------------------------------------------
    def enter(self, path: str) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.syntax("recursion limit exceeded", path)

    def value(self, path: str) -> Any:
        """`deserialize_any` into serde's buffered `Content`."""
        char = self.skip_ws()
        if char is None:
            self.eof(EOF_VALUE, path)
        if char == "n":
            self.pos += 1
            self.ident("ull", path)
            return None
        if char == "t":
            self.pos += 1
            self.ident("rue", path)
            return True
        if char == "f":
            self.pos += 1
            self.ident("alse", path)
            return False
        if char == "-" or char in DIGITS:
            return self.number(path)
        if char == '"':
            self.pos += 1
            return self.string(path)
        if char == "[":
            self.pos += 1
            self.enter(path)
            items: list[Any] = []
            while self.next_element(not items, path):
                items.append(self.value(f"{path}[{len(items)}]"))
            self.pos += 1  # the `]` next_element stopped at
            self.depth += 1
            return items
        if char == "{":
            self.pos += 1
            self.enter(path)
            entries: list[tuple[str, Any]] = []
            while True:
                key = self.next_key(not entries, path)
                if key is None:
                    break
                self.colon(path)
                entries.append((key, self.value(_member(path, key))))
            self.pos += 1  # the `}` next_key stopped at
            self.depth += 1
            return Object(entries)
        self.syntax(EXPECTED_VALUE, path)

    def next_element(self, first: bool, path: str) -> bool:
        """`SeqAccess::next_element_seed`: true when a value follows."""
        char = self.skip_ws()
        if char == "]":
            return False
        if char == "," and not first:
            self.pos += 1
            char = self.skip_ws()
        elif char is None:
            self.eof("EOF while parsing a list", path)
        elif not first:
            self.syntax("expected `,` or `]`", path)
        if char == "]":
            self.syntax(TRAILING_COMMA, path)
        if char is None:
            self.eof(EOF_VALUE, path)
        return True

    def next_key(self, first: bool, path: str) -> str | None:
        """`MapAccess::next_key_seed`: the next key, or None at `}`."""
        char = self.skip_ws()
        if char == "}":
            return None
        if char == "," and not first:
            self.pos += 1
            char = self.skip_ws()
        elif char is None:
            self.eof(EOF_OBJECT, path)
        elif not first:
            self.syntax(EXPECTED_COMMA_OR_BRACE, path)
        if char == '"':
            self.pos += 1
            return self.string(path)
        if char == "}":
            self.syntax(TRAILING_COMMA, path)
        if char is None:
            self.eof(EOF_VALUE, path)
        self.syntax(KEY_NOT_STRING, path)

    def colon(self, path: str) -> None:
        char = self.skip_ws()
        if char == ":":
            self.pos += 1
            return
        if char is None:
            self.eof(EOF_OBJECT, path)
        self.syntax(EXPECTED_COLON, path)

    # -- the tag -----------------------------------------------------------------
    def tag(self, path: str) -> type[MetricLine]:
        """The tag's value, read as serde's variant identifier (`deserialize_str`)."""
        char = self.skip_ws()
        if char is None:
            self.eof(EOF_VALUE, path)
        if char == '"':
            self.pos += 1
            name = self.string(path)
            variant = VARIANTS.get(name)
            if variant is None:
                self.fail("data", f"unknown variant `{name}`, {_EXPECTED_VARIANTS}", path)
            return variant
        # `peek_invalid_type`: serde_json reads a scalar to name it, not a container.
        if char in "ntf":
            self.pos += 1
            word = {"n": "ull", "t": "rue", "f": "alse"}[char]
            self.ident(word, path)
            found = {"n": "null", "t": "boolean `true`", "f": "boolean `false`"}[char]
        elif char == "-" or char in DIGITS:
            found = self.number(path).unexpected()
        elif char == "[":
            found = "sequence"
        elif char == "{":
            found = "map"
        else:
            self.syntax(EXPECTED_VALUE, path)
        self.fail("data", f"invalid type: {found}, expected variant identifier", path)


_EXPECTED_VARIANTS = "expected one of `begin`, `log`, `stage`, `eval`, `end`"


def _is_digit(char: str | None) -> bool:
    return char is not None and "0" <= char <= "9"


def _member(path: str, key: str) -> str:
    if key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{_quote(key)}]"


# -- building the variant from the buffer (serde's Content deserializers) --------


class DataError(Exception):
    """A data error met while building the variant; `parse_exact` places it.

    Made as `DataError(message, path)`, both kept as its `args` by `Exception` itself (no
    `__init__` in Python: a raise the build pays on every data error)."""

    if TYPE_CHECKING:  # the signature, for type checkers; `BaseException.__init__` runs

        def __init__(self, message: str, path: str) -> None: ...

    @property
    def message(self) -> str:
        message: str = self.args[0]
        return message

    @property
    def path(self) -> str:
        path: str = self.args[1]
        return path

    def __str__(self) -> str:
        return self.message


def _as_f64(value: Any, path: str) -> float:
    if value.__class__ is float:  # an f64 as the replay buffers it
        return value
    if isinstance(value, Number):
        return float(value.value)
    raise DataError(f"invalid type: {_unexpected(value)}, expected f64", path)


def _as_u64(value: Any, path: str) -> int:
    if isinstance(value, Number):
        if value.kind == "u64":
            return int(value.value)
        if value.kind == "i64":
            raise DataError(f"invalid value: {value.unexpected()}, expected u64", path)
    raise DataError(f"invalid type: {_unexpected(value)}, expected u64", path)


def _as_stage(value: Any, path: str) -> JobStage:
    """`JobStage` from buffered content: a name, or a one-key map holding unit."""
    if isinstance(value, str):
        return _stage_named(value, path)
    if isinstance(value, Object):
        if len(value.entries) != 1:
            raise DataError("invalid value: map, expected map with a single key", path)
        name, inner = value.entries[0]
        stage = _stage_named(name, path)
        if inner is None or (isinstance(inner, Object) and not inner.entries):
            return stage
        raise DataError(f"invalid type: {_unexpected(inner)}, expected unit", path)
    raise DataError(f"invalid type: {_unexpected(value)}, expected string or map", path)


def _stage_named(name: str, path: str) -> JobStage:
    stage = STAGES.get(name)
    if stage is None:
        raise DataError(
            f"unknown variant `{name}`, expected one of `train`, `merge`, `export`, `compare`",
            path,
        )
    return stage


def _optional(convert: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
    def read(value: Any, path: str) -> Any:
        return None if value is None else convert(value, path)

    return read


def _as_opt_f64(value: Any, path: str) -> float | None:
    """`_optional(_as_f64)` in one call for the common values (the replay's floats)."""
    if value.__class__ is float or value is None:
        return value
    return _as_f64(value, path)


CONVERT: dict[str, Callable[[Any, str], Any]] = {
    F64: _as_f64,
    U64: _as_u64,
    OPT_F64: _as_opt_f64,
    OPT_U64: _optional(_as_u64),
    STAGE: _as_stage,
}


# Each variant's fields: their conversions and paths, looked up once per entry.
_PLANS: dict[type[MetricLine], dict[str, tuple[Callable[[Any, str], Any], str]]] = {
    variant: {name: (CONVERT[kind], f"$.{name}") for name, kind in fields}
    for variant, fields in FIELDS.items()
}


def _from_object(variant: type[MetricLine], entries: Iterable[tuple[str, Any]]) -> MetricLine:
    """The derived `visit_map`: entries in order, unknown ones ignored."""
    plan = _PLANS[variant]
    values: dict[str, Any] = {}
    for key, value in entries:
        step = plan.get(key)
        if step is None:
            continue
        convert, path = step
        if key in values:
            raise DataError(DUPLICATE_FIELD.format(key), path)
        values[key] = convert(value, path)
    if len(values) < len(plan):
        for name, kind in FIELDS[variant]:
            if name not in values:
                if not kind.startswith("Option"):
                    raise DataError(f"missing field `{name}`", "$")
                values[name] = None
    return variant(**values)


def _from_array(variant: type[MetricLine], items: list[Any]) -> MetricLine:
    """The derived `visit_seq`: fields in declaration order, the tag at index 0."""
    fields = FIELDS[variant]
    values: dict[str, Any] = {}
    for index, (name, kind) in enumerate(fields):
        if index < len(items):
            values[name] = CONVERT[kind](items[index], f"$[{index + 1}]")
        elif kind.startswith("Option"):
            values[name] = None
        else:
            raise DataError(
                f"invalid length {index}, expected {EXPECTING[variant]} "
                f"with {len(fields)} elements",
                f"$[{index + 1}]",
            )
    if len(items) > len(fields):
        raise DataError(
            f"invalid length {len(items)}, expected {len(fields)} elements in sequence",
            f"$[{len(fields) + 1}]",
        )
    return variant(**values)


# -- the whole line ------------------------------------------------------------------


def parse_exact(line: str | bytes) -> MetricLine:
    """What `serde_json::from_str::<MetricLine>(line)` answers, for any input.

    Raises `ParseError` (and nothing else) for a line the reference rejects.
    Bytes must be UTF-8 (the reference takes `&str`); a str must be encodable
    as UTF-8 (no lone surrogate code points). Both are syntax errors.
    """
    text = _text(line)
    reader = Reader(text)
    char = reader.skip_ws()
    if char is None:
        reader.eof(EOF_VALUE, "$")
    if char == "{":
        reader.pos += 1
        reader.enter("$")
        variant, build = _tagged_object(reader)
    elif char == "[":
        reader.pos += 1
        reader.enter("$")
        variant, build = _tagged_array(reader)
    else:
        found = _unexpected(reader.value("$"))
        reader.fail(
            "data", f"invalid type: {found}, expected internally tagged enum MetricLine", "$"
        )
    return _built(reader, variant, build)


def _built(reader: Reader, variant: type[MetricLine], build: Builder) -> MetricLine:
    """The variant built from the buffer, then nothing but white space after it."""
    try:
        result = build(variant)
    except DataError as error:
        message, path = error.args
        raise ParseError("data", message, path, reader.pos) from None
    if reader.skip_ws() is not None:
        reader.syntax("trailing characters")
    return result


def resume_object(
    text: str, pos: int, variant: type[MetricLine] | None, entries: list[tuple[str, Any]]
) -> MetricLine:
    """`parse_exact(text)` for a line whose object the exact reader would have read up to
    `pos` (a `,` between two of its members) without an error, meeting the tag `variant`
    (None: not yet) and buffering `entries`: the reader picks up there, in that state."""
    reader = Reader(text)
    reader.pos = pos
    reader.depth = RECURSION_LIMIT - 1  # inside the line's own object
    found, build = _tagged_object(reader, variant, entries)
    return _built(reader, found, build)


def _text(line: str | bytes) -> str:
    if isinstance(line, str):
        try:
            line.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ParseError(
                "syntax", "not UTF-8: a lone surrogate code point", None, error.start + 1
            ) from None
        return line
    if isinstance(line, (bytes, bytearray, memoryview)):
        try:
            return bytes(line).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ParseError("syntax", "invalid UTF-8", None, error.start + 1) from None
    raise TypeError(f"parse_line takes str or bytes, not {type(line).__name__}")


Builder = Callable[[type[MetricLine]], MetricLine]


def _tagged_object(
    reader: Reader,
    variant: type[MetricLine] | None = None,
    entries: list[tuple[str, Any]] | None = None,
) -> tuple[type[MetricLine], Builder]:
    """serde's `TaggedContentVisitor::visit_map`; from its start, or (`entries` given)
    from after the members already read, where `variant` is the tag met among them."""
    first = entries is None
    buffered: list[tuple[str, Any]] = [] if entries is None else entries
    while True:
        key = reader.next_key(first, "$")
        if key is None:
            break
        first = False
        if key == "event":
            if variant is not None:
                reader.fail("data", DUPLICATE_FIELD.format("event"), "$.event")
            reader.colon("$")
            variant = reader.tag("$.event")
        else:
            reader.colon("$")
            buffered.append((key, reader.value(_member("$", key))))
    reader.pos += 1
    reader.depth += 1
    if variant is None:
        reader.fail("data", MISSING_TAG, "$")
    return variant, lambda found: _from_object(found, buffered)


def _tagged_array(reader: Reader) -> tuple[type[MetricLine], Builder]:
    """serde's `TaggedContentVisitor::visit_seq`: the tag first, the rest buffered."""
    if not reader.next_element(True, "$"):
        reader.fail("data", MISSING_TAG, "$")
    variant = reader.tag("$[0]")
    items: list[Any] = []
    while reader.next_element(False, "$"):
        items.append(reader.value(f"$[{len(items) + 1}]"))
    reader.pos += 1
    reader.depth += 1
    return variant, lambda found: _from_array(found, items)

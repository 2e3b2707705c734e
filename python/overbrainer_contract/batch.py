"""A block of lines decoded by msgspec in one call and vouched for whole.

`parse_line` pays, on every line, a Python call, msgspec's decode and a count of the line's
quotes. A reader that holds a block of complete lines (`lines.read_pieces`: 64 KiB) can pay
them once a block: the block becomes one JSON array of one-element arrays, a line each
(`[[line],[line],...]`: each newline replaced by `],[`), decoded by one of `vouched`'s
decoders, and the quotes of the whole block counted once.

Why that is each line's own verdict:

- every row is exactly one line. The `],[` put between two lines separates two rows only
  where it is not inside a value; a vouched line holds no array, no nested object, and no
  string but keys, the tag and a stage's name, all from fixed sets none of which holds `],[`:
  so each inserted separator separates rows, and a line holding a `],[` of its own would
  make one row more than there are lines, which is refused. A blank line is an empty row,
  which a one-element tuple refuses;
- msgspec reads a value inside an array as it reads it alone;
- a vouched line holds at least the quotes of its keys and its tag (and a stage's name),
  two more for each key written twice: the block's quotes equal the sum of those only when
  no line has a key written twice.

The plugin's form is tried first (`vouched.decode_rows`: every key present, the quotes of a
type fixed). A block that fails it for a key absent or unknown is tried as another writer's
(`vouched.Lenient`); an unknown key that msgspec names is learned (at most `MAX_EXTRAS` in
a process) and the block tried again. While blocks keep needing the lenient types, they are
tried first, and the plugin's form again after `LENIENT_RUN` blocks.

Anything else (a bad line, a zero, a negative number, an unknown key holding a string or a
nested value) makes the block `None`, and its lines go through `parse_line` one by one; a
reader of one file backs off after such a block (`BlockStream`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from ._serde import MetricLine
from .vouched import MODEL, QUOTES, Lenient, decode_rows

MAX_BACKOFF = 64
"""At most this many blocks of a stream left to `parse_line` after a block not vouched
for, before the next try (`BlockStream`): a file of many bad lines pays for a failed
decode once in 64 blocks."""
MAX_EXTRAS = 16
"""Unknown keys learned by the lenient types in a process, all variants together."""
LENIENT_RUN = 64
"""Blocks read with the lenient types first before the plugin's form is tried first again."""

_SEPARATOR = b"],["
_QUOTE = b'"'
_UNKNOWN = "Object contains unknown field `"
_PLAIN_KEY = re.compile('[^"\\\\\x00-\x1f]+\\Z')
_TRY_LENIENT = ("Object missing required field `", _UNKNOWN)


class BlockReader:
    """Vouches for blocks, learning another writer's unknown keys as it goes.

    `models[type(value)]` is the generated model of any value it returns."""

    def __init__(self) -> None:
        self.lenient: Lenient | None = None
        self.lenient_first = 0
        """Blocks left to read with the lenient types first."""
        self.models: dict[type[Any], type[MetricLine]] = dict(MODEL)

    def vouch(self, body: bytes) -> list[Any] | None:
        """The lines of `body` (complete lines, each ending in a newline) as vouching types,
        when every line is vouched for; None when any one is not."""
        if body[-1:] != b"\n":
            return None
        text = b"[[" + body[:-1].replace(b"\n", _SEPARATOR) + b"]]"
        lines = (len(text) - len(body) - 3) // 2 + 1  # each newline but the last grew by 2
        if self.lenient_first:
            self.lenient_first -= 1
            return self._lenient(text, lines, body.count(_QUOTE))
        try:
            rows = decode_rows(text)
        except msgspec.ValidationError as error:
            if not str(error).startswith(_TRY_LENIENT):
                return None
            found = self._lenient(text, lines, body.count(_QUOTE))
            if found is not None:
                self.lenient_first = LENIENT_RUN
            return found
        except msgspec.DecodeError:
            return None
        if len(rows) != lines:
            return None
        found = [row[0] for row in rows]
        if body.count(_QUOTE) != sum(map(QUOTES.__getitem__, map(type, found))):
            return None
        return found

    def _lenient(self, text: bytes, lines: int, quotes: int) -> list[Any] | None:
        lenient = self.lenient or self._build(())
        while True:
            try:
                rows = lenient.decode_rows(text)
                break
            except msgspec.ValidationError as error:
                message = str(error)
                if not message.startswith(_UNKNOWN) or len(lenient.extras) >= MAX_EXTRAS:
                    return None
                key = message[len(_UNKNOWN) :].rpartition("` - at `")[0]
                if not _PLAIN_KEY.match(key) or key in lenient.extras:
                    return None  # a key msgspec cannot rename a field to: left to parse_line
                lenient = self._build((*lenient.extras, key))
            except msgspec.DecodeError:
                return None
        if len(rows) != lines:
            return None
        found = [row[0] for row in rows]
        if quotes != lenient.quotes(found):
            return None
        return found

    def _build(self, extras: tuple[str, ...]) -> Lenient:
        lenient = self.lenient = Lenient(extras)
        for struct, (model, _, _) in lenient.types.items():
            self.models[struct] = model
        return lenient

    def parse(self, body: bytes) -> list[MetricLine] | None:
        """What `parse_line` gives each line of `body` (complete lines, each ending in a
        newline), when every line is vouched for; None when any is not (then read each
        line with `parse_line`)."""
        found = self.vouch(body)
        if found is None:
            return None
        if found[0].__class__ in MODEL:  # the plugin's form: each value's class swapped
            for value in found:
                value.__class__ = MODEL[value.__class__]
            return found
        return [self.as_model(value) for value in found]

    def as_model(self, value: Any) -> MetricLine:
        """A value `vouch` returned as its generated model, as `parse` gives it: the same
        object, its class swapped, in the plugin's form; a new one for another writer's
        (absent keys None, unknown ones dropped); a model as it is."""
        kind = value.__class__
        if kind in MODEL:
            value.__class__ = MODEL[kind]
            swapped: MetricLine = value
            return swapped
        if kind in _GENERATED:  # made so already
            made: MetricLine = value
            return made
        assert self.lenient is not None
        built: MetricLine = self.lenient.model_of(value)
        return built


_GENERATED = frozenset(MODEL.values())
_READER = BlockReader()


def forget() -> None:
    """Back to the start: no unknown key learned, the plugin's form tried first."""
    global _READER
    _READER = BlockReader()


def vouch_block(body: bytes) -> list[Any] | None:
    """The lines of `body` (complete lines, each ending in a newline) as vouching types,
    when every line is vouched for; None when any one is not. `block_models()` maps their
    types to the generated models, `as_model` makes one a model: for a reader that only
    looks at the values (`check`), no object changes class."""
    return _READER.vouch(body)


def as_model(value: Any) -> MetricLine:
    """A value `vouch_block` returned as its generated model (`BlockReader.as_model`): for
    a reader that keeps a few of a block's values (`watch`, `export`)."""
    return _READER.as_model(value)


def block_models() -> dict[type[Any], type[MetricLine]]:
    """The generated model of each type a value `vouch_block` returns may have: one
    look-up a type, for a reader that sees a block's types at once (`check`). The
    mapping grows as the reader learns another writer's keys."""
    return _READER.models


def parse_block(body: bytes) -> list[MetricLine] | None:
    """What `parse_line` gives each line of `body` (complete lines, each ending in a
    newline), when every line is vouched for; None when any is not (then read each line
    with `parse_line`)."""
    return _READER.parse(body)


class BlockStream:
    """The blocks of one file, in order. After a block not vouched for, the next 1, 2,
    4 … `MAX_BACKOFF` blocks are not tried (None at once: read them with `parse_line`),
    so that a file with a bad line in every block pays for a failed decode rarely; a
    block vouched for ends the back-off."""

    def __init__(self) -> None:
        self.skip = 0
        self.backoff = 1

    def vouch(self, body: bytes) -> list[Any] | None:
        """`vouch_block(body)`, or None at once while backing off."""
        return self._tried(vouch_block, body)

    def parse(self, body: bytes) -> list[MetricLine] | None:
        """`parse_block(body)`, or None at once while backing off."""
        return self._tried(parse_block, body)

    def _tried(self, read: Callable[[bytes], list[Any] | None], body: bytes) -> list[Any] | None:
        if self.skip:
            self.skip -= 1
            return None
        found = read(body)
        if found is None:
            self.skip, self.backoff = self.backoff, min(2 * self.backoff, MAX_BACKOFF)
        else:
            self.backoff = 1
        return found

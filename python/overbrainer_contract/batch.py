"""A block of lines of the plugin's form, decoded by msgspec in one call and vouched for whole.

`parse_line` pays, on every line, a Python call, msgspec's decode and a count of the line's
quotes. A reader that holds a block of complete lines (`lines.read_blocks`: 64 KiB) can pay
them once a block: the block becomes one JSON array of one-element arrays, a line each
(`[[line],[line],...]`: each newline replaced by `],[`), decoded by `vouched.decode_rows`,
and the quotes of the whole block counted once.

Why that is each line's own verdict:

- every row is exactly one line. The `],[` put between two lines separates two rows only
  where it is not inside a value; a vouched line holds no array, no nested object, and no
  string but keys, the tag and a stage's name, all from fixed sets none of which holds `],[`:
  so each inserted separator separates rows, and a line holding a `],[` of its own would
  make one row more than there are lines, which is refused. A blank line is an empty row,
  which a one-element tuple refuses;
- msgspec reads a value inside an array as it reads it alone;
- a vouched line holds at least `vouched.QUOTES[its type]` quotes (every key, the tag's
  value, a stage's name), two more for a key written twice: the block's quotes equal the
  sum of those only when no line has a key written twice.

Anything else (a bad line, another writer's form, a zero, an unknown key) makes the block
`None`, and its lines go through `parse_line` one by one.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ._serde import MetricLine
from .vouched import MODEL, QUOTES, decode_rows

_SEPARATOR = b"],["
_QUOTE = b'"'


def vouch_block(body: bytes) -> list[Any] | None:
    """The lines of `body` (complete lines, each ending in a newline) as their vouching
    types (`vouched.VouchedLog`...: each one's generated model is `vouched.MODEL[type]`),
    when every line is vouched for; None when any one is not.

    For a reader that only looks at the values (`check`): no object changes class."""
    if body[-1:] != b"\n":
        return None
    text = b"[[" + body[:-1].replace(b"\n", _SEPARATOR) + b"]]"
    lines = (len(text) - len(body) - 3) // 2 + 1  # each newline but the last grew by 2
    try:
        rows = decode_rows(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if len(rows) != lines:
        return None
    found = [row[0] for row in rows]
    if body.count(_QUOTE) != sum(map(QUOTES.__getitem__, map(type, found))):
        return None
    return found


def parse_block(body: bytes) -> list[MetricLine] | None:
    """What `parse_line` gives each line of `body` (complete lines, each ending in a
    newline), when every line is of the plugin's form and vouched for; None when any is not
    (then read each line with `parse_line`)."""
    found = vouch_block(body)
    if found is None:
        return None
    model = MODEL
    for value in found:
        value.__class__ = model[value.__class__]
    return found

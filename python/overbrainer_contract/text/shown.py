"""How a string that comes from a file or a name is shown on a terminal: as data.

A run folder is written by several hands (the plugin, the job's shell, an orchestrator,
people), and what its files and names hold reaches the screen: a folder's name, a
checkpoint's path in `snapshot.json`, an unknown event's name echoed by a message, an object
key in a JSON path. Printed raw, a control character in any of them would drive the
terminal (an escape sequence recolours, moves the cursor, retitles the window), a newline
or a carriage return would forge an output line, and a bidirectional override would show
the text in another order than it has.

`shown(text)` is the one function every text output uses for such a string: each of those
characters becomes a visible escape, everything else is left as it is.

- C0 controls, DEL and C1 controls: `\\n`, `\\r`, `\\t`, else `\\x1b`, `\\x7f`, `\\x9b`;
- the line and paragraph separators and the bidirectional controls (embeddings,
  overrides, isolates, marks): `\\u202e`, `\\u2028`...;
- a byte that was not UTF-8 in a name (Python's `surrogateescape`, as `os.fsdecode`
  gives it): `\\xff`, the byte itself — it could not be written to a UTF-8 terminal raw.

`as_text(name)` is a name as text that any UTF-8 output holds (JSON, an Arrow or CSV
column, the core's strings): each byte that was not UTF-8 shown as `\\xff`, as `shown`
shows it, every other character as it is (JSON escapes its own). So a name reads the same
on a terminal and in a report: `shown(as_text(name)) == shown(name)`.

Markup is never read from such a string either: rich is given `Text` (or `markup=False`)
and matplotlib's text `parse_math=False`, by the code that prints.
"""

from __future__ import annotations

import re

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f"  # C0, DEL, C1
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional marks and controls
    "\u2028\u2029"  # line and paragraph separators
    "\udc80-\udcff]"  # bytes that were not UTF-8 (surrogateescape)
)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` with every character that would act on a terminal shown as an escape."""
    return _UNSAFE.sub(_escape, text)


_NOT_UTF8 = re.compile("[\udc80-\udcff]")


def as_text(name: str) -> str:
    """`name` with each byte that was not UTF-8 (`os.fsdecode`'s surrogates) as `\\xff`:
    text any UTF-8 output holds; the rest as it is."""
    return _NOT_UTF8.sub(_escape, name)


def is_plain(text: str) -> bool:
    """Whether `shown(text)` is `text` itself."""
    return _UNSAFE.search(text) is None

"""NaN and Infinity in a metrics line: what Python's `json.dumps` writes by default for a
float that is not a finite number, and what JSON (so the reference) refuses.

`{"loss":NaN}` is the reference's `expected value at column 9`, `{"loss":-Infinity}` its
`invalid number at column 10`: its words, which every command keeps as they are. What a
command may add is said here, once for all of them: `nonfinite_token` tells whether a
rejected line's error lies on such a token (the line's bytes at the error's column read
`NaN`, `Infinity` or `-Infinity`), and `NONFINITE_HINT` says what they are and what the
plugin writes instead.
"""

from __future__ import annotations

NONFINITE_HINT = (
    "NaN, Infinity and -Infinity are not JSON (Python's json.dumps writes them unless"
    " allow_nan=False); the plugin writes null for a value that is not a finite number"
)
"""What a command says after a line rejected on one of those tokens."""

WINDOW_BEFORE, WINDOW_AFTER = 1, len(b"Infinity")
"""The bytes around an error's column that `nonfinite_token` reads: one before it (the sign
of `-Infinity`) and eight from it (`Infinity`)."""


def nonfinite_token(line: bytes, column: int | None, category: str) -> str | None:
    """`NaN`, `Infinity` or `-Infinity` when the reference rejected `line` for one of them,
    else None: a `syntax` error whose column (1-based, in bytes: `ParseError.column`) is
    where the line's bytes read the token. serde_json points at the token itself, past the
    sign of `-Infinity`. `line` may be a part of the line, `column` counted in that part,
    as long as it holds `WINDOW_BEFORE` bytes before the column and `WINDOW_AFTER` from it.
    """
    if category != "syntax" or column is None or column < 1:
        return None
    at = column - 1
    if line.startswith(b"NaN", at):
        return "NaN"
    if line.startswith(b"-Infinity", at):
        return "-Infinity"
    if line.startswith(b"Infinity", at):
        return "-Infinity" if at > 0 and line[at - 1 : at] == b"-" else "Infinity"
    return None

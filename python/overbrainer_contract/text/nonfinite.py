"""NaN and Infinity in a metrics line: what Python's `json.dumps` writes by default for a
float that is not a finite number, and what JSON (so the reference) refuses.

`{"loss":NaN}` is the reference's `expected value at column 9`, `{"loss":-Infinity}` its
`invalid number at column 10`: its words, which every command keeps as they are. The core
notes when a rejected line's error lies on such a token (`ParseError::nonfinite`: the line's
bytes at the error's column read `NaN`, `Infinity` or `-Infinity`); what a command says
beside the reference's words, `NONFINITE_HINT`, is said here once for all of them.
"""

from __future__ import annotations

NONFINITE_HINT = (
    "NaN, Infinity and -Infinity are not JSON (Python's json.dumps writes them unless"
    " allow_nan=False); the plugin writes null for a value that is not a finite number"
)
"""What a command says after a line rejected on one of those tokens."""

"""`decode_block`: the models of a run of complete lines at once, or None.

Placeholder until the batch decoder lands: each line through `parse_line`, which is
exactly the promise (the models `parse_line` gives each line), at its speed.
"""

from __future__ import annotations

import io

from .errors import ParseError
from .models import MetricLine
from .parser import parse_line


def decode_block(body: bytes) -> list[MetricLine] | None:
    """The generated model of every line of `body` (complete lines, each ending in
    b"\\n"), exactly what `parse_line` gives each; None when a line is not valid (then
    each line is read by `parse_line`, for its error)."""
    try:
        return [parse_line(line) for line in io.BytesIO(body)]
    except ParseError:
        return None

"""Sizes as the command line writes them (`--max-line 64M`), and the words for a line over
the user's bound.

The words are the core's (`overbrainer_core::check`), said the same by every face. The core
reads a line of any length (`reader.CheckScan` and the other scans); a bound on a
line's length is the user's own guard (`--max-line`), none by default.
"""

from __future__ import annotations

import re

from .. import _core

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*([0-9]+)\s*([KMGT]?)(?:I?B)?\s*\Z", re.IGNORECASE | re.ASCII)
"""ASCII digits only: `int` would take any script's (`٣` as 3)."""

LARGEST = 1 << 50
"""The largest size taken, 1024T: a bound on a line's length that every reader holds in
its integers (the core's `usize`), and far above any file."""


def parse_size(text: str) -> int:
    """A size in bytes from `1048576`, `512K`, `64M`, `1GiB` (binary units, ASCII digits),
    from one byte to `LARGEST`; ValueError for anything else."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"not a size: {text!r} (a number of bytes, or with K, M, G: 64M)")
    digits = match.group(1).lstrip("0")
    # At most 16 digits read: no more are needed up to LARGEST (int's own limit is 4,300).
    size = LARGEST + 1 if len(digits) > 16 else int(digits or "0")
    size *= _UNITS[match.group(2).upper()]
    if size < 1:
        raise ValueError(f"a size of at least one byte, not {text!r}")
    if size > LARGEST:
        raise ValueError(f"a size of at most {size_text(LARGEST)}, not {text!r}")
    return size


def size_text(size: int) -> str:
    """A size as `parse_size` reads it, shortest first: `1M`, `64M`, `1536K`, `1000` (the
    core's words)."""
    return _core.size_text(size)


def invalid_text(invalid: int, cut: bool) -> str:
    """The words every command says a run's bad lines in: `9 invalid lines`, `9 invalid
    lines and the last line cut short`, `the last line cut short`; `""` for none.

    An *invalid line* is one the reader rejects, or one over `--max-line`: what `check`
    counts as an error on a line. The last line *cut short* — no newline yet, and the
    reference finds it cut (category `eof`): a line still being written — is not one:
    `check`'s warning, counted apart, the same in `plot`, `status` and `watch`."""
    return _core.lines_text(invalid, cut)

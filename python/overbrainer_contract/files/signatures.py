"""What a file's name or first bytes say it is: gzip-compressed (`*.gz`, gzip's magic
bytes), or text behind a UTF-8 byte order mark (`EF BB BF`), which JSON lines may not hold
(the reference rejects such a line, `expected value at column 1`; the commands add
`BOM_NOTE`, which names the mark).

Imports nothing of the package but the core's words: `chunks` (metrics files) asks it.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import _core

GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of a gzip stream (RFC 1952)."""

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark."""

BOM_NOTE: str = _core.BOM_NOTE
"""What `check` and `status` add to the reference's error for a line that begins with it
(the core's words)."""


def is_gzip_name(name: str | Path | None) -> bool:
    """Whether a file's name says it is gzip-compressed (`*.gz`)."""
    return name is not None and os.fspath(name).endswith(".gz")

"""What a file's name or first bytes say it is: gzip-compressed (`*.gz`, gzip's magic
bytes), or text behind a UTF-8 byte order mark (`EF BB BF`), which JSON lines may not hold
(the reference rejects such a line, `expected value at column 1`; the commands add
`BOM_NOTE`, which names the mark).

Imports nothing of the package but the core's words: `chunks` (metrics files) and `sidefile` (the
snapshot files) both ask it.
"""

from __future__ import annotations

import os
from pathlib import Path

from overbrainer_contract_core import _core

GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of a gzip stream (RFC 1952)."""

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte order mark."""

BOM_NOTE: str = _core.BOM_NOTE
"""What `check` and `status` add to the reference's error for a line that begins with it
(the core's words)."""

FILE_BOM_NOTE = (
    "the file begins with a UTF-8 byte order mark, bytes EF BB BF, which JSON may not hold:"
    " save it without"
)
"""The same, for a side file (`snapshot.json`): one JSON document, not lines."""


def is_gzip_name(name: str | Path | None) -> bool:
    """Whether a file's name says it is gzip-compressed (`*.gz`)."""
    return name is not None and os.fspath(name).endswith(".gz")


def starts_with_bom(data: bytes) -> bool:
    """Whether `data`, a file's first bytes, begin with a UTF-8 byte order mark."""
    return data.startswith(BOM)

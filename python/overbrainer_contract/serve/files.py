"""A served file's bytes from an offset, read only while its path holds the file its id
was given for.

The path is opened without following a link in its place (`O_NOFOLLOW`) and without
blocking (`O_NONBLOCK`: a FIFO planted there since the listing opens at once, and is then
refused as not the file); what is open must be the regular file of the device and inode
the id was given for. Anything else — the file rotated away, removed, replaced by a
symlink to elsewhere — is `Gone`, and the page lists the runs again. At most `BLOCK`
bytes are read per answer, so the server's memory is bounded whatever the files' sizes.
"""

from __future__ import annotations

import os
import stat

from .listing import Served

BLOCK = 4 << 20
"""The most bytes one answer holds: the page asks again from where it ended."""


class Gone(Exception):
    """The id's file is no longer at its path (or cannot be read there now)."""


def read_range(served: Served, start: int, stop: int | None) -> tuple[bytes, int]:
    """The bytes of `served` from `start` up to `stop` (None: its end), at most `BLOCK` of
    them, and the file's size now (bounded by the file's `limit`). `start` at or past the
    end gives no bytes; `Gone` when the path no longer holds that file."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(served.path, flags | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise Gone(str(error)) from error
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != (
            served.device,
            served.inode,
        ):
            raise Gone("another file is at its path")
        size = info.st_size if served.limit is None else min(info.st_size, served.limit)
        end = size if stop is None else min(stop, size)
        if start >= end:
            return b"", size
        return os.pread(descriptor, min(end - start, BLOCK), start), size
    except OSError as error:
        raise Gone(str(error)) from error
    finally:
        os.close(descriptor)

"""A served file's bytes from an offset, read only while its place holds the file its id
was given for, reached as the listing reached it.

The file is reached from its held root one folder at a time, each opened without following
a link (`listing.below`), and opened itself without following one (`O_NOFOLLOW`) and
without blocking (`O_NONBLOCK`: a FIFO planted there since the listing opens at once, and
is then refused as not the file); what is open must be the regular file of the device and
inode the id was given for. Anything else — the file rotated away, removed, replaced by a
symlink, a folder on the way replaced by one — is `Gone`, and the page lists the runs
again.

An answer holds at most `BLOCK` bytes (the page asks again from where it ended), read and
written `CHUNK` bytes at a time as the asker reads them: the server's memory for an answer
is a chunk, whatever the file's size and however slowly it is read.
"""

from __future__ import annotations

import os
import stat

from .listing import FILE_FLAGS, Served, below

BLOCK = 4 << 20
"""The most bytes one answer holds: the page asks again from where it ended."""

CHUNK = 64 << 10
"""The bytes read from the file and handed to the connection at a time."""


class Gone(Exception):
    """The id's file is no longer at its place (or cannot be read there now)."""


class Opened:
    """The file of an id, open: its size now (bounded by its `limit`), read by `read`;
    closed by `close`."""

    def __init__(self, served: Served) -> None:
        try:
            with below(served.root, served.folders) as folder:
                self.descriptor = os.open(served.name, FILE_FLAGS, dir_fd=folder)
        except OSError as error:
            raise Gone(str(error)) from error
        try:
            info = os.fstat(self.descriptor)
            if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != (
                served.device,
                served.inode,
            ):
                raise Gone("another file is at its place")
        except BaseException:
            os.close(self.descriptor)
            raise
        self.size = info.st_size if served.limit is None else min(info.st_size, served.limit)

    def span(self, start: int, stop: int | None) -> tuple[int, int]:
        """The bytes an answer from `start` to `stop` (None: the end) holds: `(start, end)`,
        at most `BLOCK` of them, none when `start` is at or past the end."""
        end = self.size if stop is None else min(stop, self.size)
        return start, max(start, min(end, start + BLOCK))

    def read(self, at: int, count: int) -> bytes:
        """At most `count` bytes from `at` (fewer when the file was cut shorter meanwhile)."""
        try:
            return os.pread(self.descriptor, count, at)
        except OSError as error:
            raise Gone(str(error)) from error

    def close(self) -> None:
        os.close(self.descriptor)

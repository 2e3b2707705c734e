"""The runs served: found as every command finds them, each file given an id.

`Listing.scan()` finds the runs of the paths given (`runs.discover`: folders of runs at any
depth, so a run started later is found at the next scan) and describes each one: its name
as every command names it, its metrics file as the records name it, and its files —
`metrics.jsonl` (or `.gz`), `snapshot.json`, `snapshot.request` — each with an id and its
size now.

An id stands for one file: the path it was found at and its device and inode there, looked
at without following a link (`os.lstat`). The server reads a file only by its id, and only
while the path still holds that very file (`files.read_range`), so a request can name
nothing but a file found: no path is ever taken from it. A file replaced at its path (a
log rotated, a run started again) is another file with another id; the old id is refused.
A symlink in a file's place, a FIFO, a socket or a folder is not given an id: the run says
why (`problem`), in the words every command uses.

The listing is JSON (`body`), with an `etag` that changes only when the listing does, so a
page polling it twice a second is answered `304 Not Modified` while nothing moved. A run
once listed stays listed: when its metrics file is gone (removed, or rotated away and not
yet written again), its `metrics` is null, and the page says so.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import stat
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from ..contract.constants import PROOF_LIMIT, REQUEST_LIMIT, VERSION
from ..runs.discover import discover
from ..runs.sidefile import SYMLINK, what_it_is
from ..runs.state import Run

RESCAN_SECONDS = 0.5
"""The least time between two scans of the folders, whoever asks and however often: a
file grown or a run started is listed within it (a scan of 1,000 runs takes about 0.1 s)."""


@dataclass(frozen=True)
class Served:
    """A file an id was given for: where it was found, what it was there, how much of it
    may be served (None: all of it; a side file: one byte past its bound, so the page sees
    that it is over it)."""

    path: Path
    device: int
    inode: int
    limit: int | None


class FileEntry(msgspec.Struct):
    id: str
    name: str
    size: int
    """Its size now (a side file's whole size, though at most its bound and a byte is served)."""
    modified: float
    """When it was last written, milliseconds since the epoch (a File's `lastModified`)."""


class RunEntry(msgspec.Struct):
    name: str
    """The run's name among the runs (status's `name`: `lr1e-3/seed1`)."""
    run: str
    """The run as the command line names it (status's `run`)."""
    path: str
    """Its metrics file as the records name it (check's `file`)."""
    metrics: FileEntry | None
    snapshot: FileEntry | None
    request: FileEntry | None
    problem: str | None


class Refused(msgspec.Struct):
    path: str
    why: str


class ListingBody(msgspec.Struct):
    contract: str
    runs: list[RunEntry]
    refused: list[Refused]


class Listing:
    """The runs of `paths`, scanned again at most every `RESCAN_SECONDS`; thread-safe."""

    def __init__(self, paths: Sequence[str], *, rescan: float = RESCAN_SECONDS) -> None:
        self.paths = list(paths)
        self.rescan = rescan
        self._lock = threading.Lock()
        self._ids: dict[tuple[str, int, int], str] = {}
        self._files: dict[str, Served] = {}
        self._count = itertools.count(1)
        self._scanned_at = -float("inf")
        self._seen: dict[str, Run] = {}
        self.body = b""
        self.etag = ""
        self.runs = 0

    def current(self) -> tuple[bytes, str]:
        """The listing's JSON and its ETag, scanned again when older than `rescan`."""
        with self._lock:
            if time.monotonic() - self._scanned_at >= self.rescan:
                self._scan()
            return self.body, self.etag

    def served(self, file_id: str) -> Served | None:
        """The file `file_id` was given for, or None for an id never given."""
        with self._lock:
            return self._files.get(file_id)

    def scan(self) -> None:
        """Scan now (the first listing, before the address is printed)."""
        with self._lock:
            self._scan()

    def _scan(self) -> None:
        found = discover(self.paths)
        now = {run.name: run for run in found.runs}
        gone = [run for name, run in self._seen.items() if name not in now]
        self._seen.update(now)
        entries = [self._entry(run) for run in [*found.runs, *gone]]
        refused = [Refused(path, why) for path, why in found.refused]
        self.body = msgspec.json.encode(ListingBody(VERSION, entries, refused))
        self.etag = '"' + hashlib.sha256(self.body).hexdigest()[:32] + '"'
        self.runs = len(entries)
        self._scanned_at = time.monotonic()

    def _entry(self, run: Run) -> RunEntry:
        assert run.metrics is not None, "serve is given no standard input"
        metrics, problem = self._file(run.metrics, None)
        snapshot = request = None
        if run.is_folder:
            assert run.snapshot is not None
            assert run.request is not None
            snapshot, _ = self._file(run.snapshot, PROOF_LIMIT + 1)
            request, _ = self._file(run.request, REQUEST_LIMIT + 1)
        return RunEntry(
            name=run.label,
            run=run.name,
            path=run.display(run.metrics),
            metrics=metrics,
            snapshot=snapshot,
            request=request,
            problem=None if problem is None else f"{run.display(run.metrics)}: {problem}",
        )

    def _file(self, path: Path, limit: int | None) -> tuple[FileEntry | None, str | None]:
        """The entry of the file at `path` (None when there is none), or why it is not
        served: anything but a regular file, a symlink included, is refused."""
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return None, None
        except OSError as error:
            return None, (error.strerror or str(error)).lower()
        if stat.S_ISLNK(info.st_mode):
            return None, SYMLINK
        if not stat.S_ISREG(info.st_mode):
            return None, f"{what_it_is(info.st_mode)}, not a file"
        key = (os.fspath(path), info.st_dev, info.st_ino)
        file_id = self._ids.get(key)
        if file_id is None:
            file_id = f"f{next(self._count)}"
            self._ids[key] = file_id
            self._files[file_id] = Served(path, info.st_dev, info.st_ino, limit)
        return FileEntry(file_id, path.name, info.st_size, info.st_mtime_ns / 1e6), None

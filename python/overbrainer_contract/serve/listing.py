"""The runs served: found as every command finds them, each file given an id.

`Listing.scan()` finds the runs of the paths given (`runs.discover`: folders of runs at any
depth, so a run started later is found at the next scan) and describes each one: its name
as every command names it, its metrics file as the records name it, and its files —
`metrics.jsonl` (or `.gz`), `snapshot.json`, `snapshot.request` — each with an id and its
size now; and `parts`, the most files one request for their parts may ask for. Every name
is text any JSON holds: a byte that was not UTF-8 shown as `\\xff` (`text.shown.as_text`),
as every command shows it.

**Reached through real folders only.** Each path given is held open from the start (a
folder given, itself; a file given, its folder: `Roots`), and every file is reached from
there one folder at a time, each opened without following a link (`O_NOFOLLOW |
O_DIRECTORY`, `dir_fd=` the folder above), the file itself looked at without following one
either. A run folder, or any folder above it, swapped for a symlink after it was listed is
no longer reached: its run is dropped, and whatever the link points to is given no id.

An id stands for one file: where it was reached (its held root, its folders, its name) and
its device and inode there. The server reads a file only by its id, and only while that
place still holds that very file, reached the same way when it is opened (`files`), so a
request can name nothing but a file found: no path is ever taken from it. A file replaced
at its place (a log rotated, a run started again) is another file with another id; the old
id is refused. A symlink in a file's place, a FIFO, a socket or a folder is not given an id:
the run says why, in the words every command uses (`problem` for its metrics file,
`side_problem` for `snapshot.json` and `snapshot.request`, each named by its file's name).

**Incremental.** The runs are discovered again only when a folder that discovery looks at
changed since (`Folders`: a run or a folder made, removed or renamed), and at least every
`FULL_EVERY` scans; otherwise a scan takes the last discovery's runs (`discovered` counts
the discoveries). Where the kernel watches the folders (`watched`: every run's folder and
every folder above one, each by itself), a scan looks only at the runs whose folders it told
changed, and discovers again when a folder that is not a run's changed: a line appended to
one run of 10,000 is listed without a look at the 9,999 others; a look at every run at least
every `FULL_SECONDS` still, and a discovery every `DISCOVER_SECONDS`. A run whose files look
as they did at the last scan (their kind, device, inode, size and time written) is not
described again: its part of the listing is the one encoded then (`described` counts the
runs described, `looked` the looks at a run's files). The listing's `etag` changes only when
the listing does, so a page polling it four times a second is answered `304 Not Modified`
while nothing moved.

**Runs removed.** A run that is no longer found stays listed while its folder is still
there (its metrics file removed, or rotated away and not yet written again: its `metrics`
is null, and the page says so); a run whose folder is gone, or no longer reached through
real folders, is dropped at the next scan. So the listing holds the runs whose folders
exist, however many were created and removed while the server ran.

**Off the event loop.** A scan runs in a thread of its own (`current`, asked by the
listing's request alone: `app`), so neither the event loop nor the threads reading files
wait for it; the ids of the last scan are read without waiting for the next one
(`served`). Scans follow each other at most every `RESCAN_SECONDS`, and never closer than
`IDLE_SHARE` times what they took of late (`COST_WEIGHT`), so a page polling a sweep of any
size costs the server at most a fixed share of a core.
"""

from __future__ import annotations

import itertools
import os
import secrets
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import msgspec

from ..contract.constants import (
    PROOF_LIMIT,
    REQUEST_LIMIT,
    SNAPSHOT_FILE,
    SNAPSHOT_REQUEST,
    VERSION,
)
from ..files.sidefile import SYMLINK, what_it_is
from ..runs.discover import Found, discover, metrics_in
from ..runs.state import Run
from ..text.shown import as_text
from .watched import Watched

MANY = 64
"""The most files one request for their parts (`/api/parts`) asks for: the listing says it
(`parts`), so the page asks no more."""
RESCAN_SECONDS = 0.25
"""The least time between two scans of the folders, whoever asks and however often: a
file grown or a run started is listed within it (a scan of 1,000 runs takes about 0.1 s;
of one run the watch told changed, among 10,000, about 0.02 s)."""

IDLE_SHARE = 3.0
"""After a scan, the server waits at least this many times what it took before the next:
a scan takes at most a quarter of a core, whatever the runs' number."""

FULL_EVERY = 20
"""A discovery at least every this many scans, whatever the folders look like (their
folders not watched: `watched`)."""

FULL_SECONDS = 60.0
"""Where the folders are watched, a look at every run at least this often, whatever the
watch told (a change the kernel dropped is seen then)..."""
DISCOVER_SECONDS = 300.0
"""... and a discovery at least this often (10,000 runs: seconds of a core), whatever the
folders look like."""

KEPT_GONE = 1024
"""How many more runs gone than runs listed are remembered as gone, for the listings asked
since an earlier one (`since`)."""

COST_WEIGHT = 0.25
"""The weight of the last scan's time in the scans' average cost, which sets the wait."""

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_PATH = getattr(os, "O_PATH", os.O_RDONLY)
FOLDER_FLAGS = _PATH | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
"""A folder on the way to a file: a real folder, never a symlink to one (`O_PATH`: a
folder that may be searched but not listed is on the way too)."""
_HELD_FLAGS = _PATH | os.O_DIRECTORY | _CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC | getattr(os, "O_NOCTTY", 0)
"""A file served: not through a symlink, and a FIFO planted in its place opens at once."""


class Roots:
    """The paths given, held open from the start: each one's folder (the folder a run
    folder, a folder of runs or a file given lies in), itself a first folder on the way
    then; a path given that is a symlink (or `.`, `..`), the folder it leads to then, as the
    user named it. A file is served only when it is reached from one of these through real
    folders (`place`, `below`). Folders side by side share one held folder: `serve runs/*`
    holds one."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.held: list[tuple[tuple[str, ...], int]] = []
        holding: set[tuple[str, ...]] = set()
        for name in paths:
            path = Path(name)
            for folder in _held_for(path):
                if folder.parts in holding:
                    break
                try:  # the folder as given is the user's own, links and all
                    descriptor = os.open(folder, _HELD_FLAGS)
                except OSError:
                    continue  # the next one, or nothing is served below it
                holding.add(folder.parts)
                self.held.append((folder.parts, descriptor))
                break
        self.held.sort(key=lambda held: -len(held[0]))  # the nearest root first

    def place(self, folder: Path) -> tuple[int, tuple[str, ...]] | None:
        """The held root below which `folder` lies (as `discover` named it, from a path
        given), and the names of the folders from there; None when it lies below none."""
        parts = folder.parts
        for prefix, descriptor in self.held:
            if parts[: len(prefix)] == prefix and (prefix or not folder.is_absolute()):
                rest = parts[len(prefix) :]
                if ".." not in rest:
                    return descriptor, rest
        return None

    def close(self) -> None:
        for _, descriptor in self.held:
            os.close(descriptor)
        self.held = []


def _held_for(path: Path) -> list[Path]:
    """The folders that may be held for a path given, the first that opens held: its
    folder, else the path itself (a symlink, `.` or `..`, or a file: its folder alone)."""
    try:
        is_link = stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        is_link = False
    if is_link:
        return [path, path.parent]
    if path.name in ("", ".."):
        return [path]
    return [path.parent, path]


@contextmanager
def below(root: int, folders: tuple[str, ...]) -> Iterator[int]:
    """A descriptor of the folder `folders` below `root`, each folder on the way opened
    without following a link; OSError when one is not a real folder (a symlink: ELOOP or
    ENOTDIR) or is gone."""
    here = root
    try:
        for name in folders:
            opened = os.open(name, FOLDER_FLAGS, dir_fd=here)
            if here != root:
                os.close(here)
            here = opened
        yield here
    finally:
        if here != root:
            os.close(here)


@dataclass(frozen=True)
class Served:
    """A file an id was given for: where it was reached (its root, its folders, its name),
    what it was there, how much of it may be served (None: all of it; a side file: one byte
    past its bound, so the page sees that it is over it)."""

    root: int
    folders: tuple[str, ...]
    name: str
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
    """Why its metrics file is not served (`PATH: a symlink, not read`), if so."""
    side_problem: str | None
    """Why a side file is not served (`snapshot.json: a symlink, not read`), if so."""


class Refused(msgspec.Struct):
    path: str
    why: str


Look = tuple[int, int, int, int, int] | str | None
"""A file as a scan saw it: (mode, device, inode, size, time written), why it could not be
looked at, or None when it is not there."""


@dataclass
class _Described:
    """A run as the last scan described it: what it looked like, its part of the listing,
    its files' ids."""

    looks: tuple[object, ...]
    fragment: bytes
    files: dict[str, Served]


Signature = tuple[int, int, int, int] | int
"""A folder or a path given as a scan saw it: (kind, inode, time written, time changed),
or the error number that looking at it gave."""


class Folders:
    """The folders a discovery of `paths` looks at, each as it looked and with the folders
    in it, so that a scan tells cheaply whether a discovery could find anything new
    (`changed`): a run or a folder made, removed or renamed changes the time written of the
    folder it is in. Watched: each path given (followed, as `discover` follows it) and,
    below a folder given, every folder that is not a link, not descending into a run
    folder (`discover.metrics_in`) — hidden folders too, which `discover` passes over: a
    change there costs a discovery, never misses one."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = list(paths)
        self.known: dict[str, tuple[Signature, bool, list[str]]] = {}

    def changed(self) -> bool:
        """Whether anything a discovery looks at changed since the last call (the first
        call: True), each folder listed again only when it changed."""
        known: dict[str, tuple[Signature, bool, list[str]]] = {}
        changed = False
        stack: list[tuple[str, bool]] = [(name, True) for name in reversed(self.paths)]
        while stack:
            name, given = stack.pop()
            signature = _signature(name, follow=given)
            last = self.known.get(name)
            if last is not None and last[0] == signature:
                run, folders = last[1], last[2]
            else:
                changed = True
                run, folders = _folder_of(name, signature)
            known[name] = (signature, run, folders)
            if not run:
                stack.extend((os.path.join(name, each), False) for each in reversed(folders))
        changed = changed or known.keys() != self.known.keys()
        self.known = known
        return changed


def _signature(name: str, *, follow: bool) -> Signature:
    try:
        info = os.stat(name) if follow else os.lstat(name)
    except OSError as error:
        return error.errno or -1
    if not stat.S_ISDIR(info.st_mode):  # a file given: written to as it grows, still itself
        return (stat.S_IFMT(info.st_mode), info.st_ino, 0, 0)
    return (stat.S_IFMT(info.st_mode), info.st_ino, info.st_mtime_ns, info.st_ctime_ns)


def _folder_of(name: str, signature: Signature) -> tuple[bool, list[str]]:
    """Whether the folder `name` is a run folder, and the folders in it (not links)."""
    if isinstance(signature, int) or not stat.S_ISDIR(signature[0]):
        return True, []  # not a folder: nothing below it to watch
    if metrics_in(Path(name)) is not None:
        return True, []
    try:
        with os.scandir(name) as entries:
            return False, sorted(each.name for each in entries if _is_folder(each))
    except OSError:
        return False, []


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


class Listing:
    """The runs of `paths`, scanned again at most every `rescan` seconds (and `idle` times
    the last scan's time); thread-safe."""

    def __init__(
        self,
        paths: Sequence[str],
        *,
        rescan: float = RESCAN_SECONDS,
        idle: float = IDLE_SHARE,
        watch: bool = True,
    ) -> None:
        self.paths = list(paths)
        self.rescan = rescan
        self.idle = idle
        self.roots = Roots(self.paths)
        self.folders = Folders(self.paths)
        self.watched = Watched() if watch else Watched.never()
        self._found: Found | None = None
        self._scans = 0
        self.discovered = 0
        """How many scans ran a discovery (the others took the last one's runs)."""
        self._lock = threading.Lock()
        self._count = itertools.count(1)
        self._next_scan = -float("inf")
        self._seen: dict[str, Run] = {}
        self._by_folder: dict[str, list[Run]] = {}
        self._described: dict[str, _Described] = {}
        self._files: dict[str, Served] = {}
        self._ids: dict[tuple[int, tuple[str, ...], str, int, int], str] = {}
        self._nonce = secrets.token_hex(6)
        self._generation = 0
        self._full_at = self._discover_at = 0.0
        self._head = b"".join(
            [b'{"contract":', msgspec.json.encode(VERSION), b',"parts":', msgspec.json.encode(MANY)]
        )
        self._changed_at: dict[str, int] = {}
        self._removed_at: dict[str, int] = {}
        self._floor = 0
        self._cost = 0.0
        self._refused = b"[]"
        self.body = b""
        self.etag = ""
        self.runs = 0
        self.described = 0
        """How many runs were described (not taken as they were) by all the scans."""
        self.looked = 0
        """How many times a run's files were looked at, by all the scans."""

    def current(self, since: str | None = None) -> tuple[bytes, str]:
        """The listing's JSON and its ETag, scanned again when it is time to: every run, or,
        `since` an ETag this listing gave (its text between the quotes), the runs changed
        since and the names of those removed since (`since` says which); every run
        (`since` null) where `since` is another's, or older than the changes kept."""
        with self._lock:
            self._scan_if_due()
            delta = self._delta(since) if since is not None else None
            return (self.body if delta is None else delta), self.etag

    def _scan_if_due(self) -> None:
        if time.monotonic() >= self._next_scan:
            started = time.monotonic()
            self._scan()
            ended = time.monotonic()
            # the scans' cost, averaged: a full look now and then among the cheap scans of a
            # watched sweep does not leave it unlooked at for `idle` times its own length
            self._cost += COST_WEIGHT * (ended - started - self._cost)
            self._next_scan = ended + max(self.rescan, self.idle * self._cost)

    def _delta(self, since: str) -> bytes | None:
        nonce, _, told = since.partition("-")
        if nonce != self._nonce or not (told.isascii() and told.isdigit()) or len(told) > 18:
            return None
        generation = int(told)
        if not self._floor <= generation <= self._generation:
            return None
        changed = self._changed_at
        fragments = [
            entry.fragment
            for name, entry in self._described.items()
            if changed.get(name, 0) > generation
        ]
        removed = [as_text(name) for name, at in self._removed_at.items() if at > generation]
        return b"".join(
            [
                self._head,
                b',"since":',
                msgspec.json.encode(since),
                b',"runs":[',
                b",".join(fragments),
                b'],"removed":',
                msgspec.json.encode(removed),
                b',"refused":',
                self._refused,
                b"}",
            ]
        )

    def served(self, file_id: str) -> Served | None:
        """The file `file_id` was given for by the last scan, or None: an id never given,
        or one whose file the last scan did not find. Never waits for a scan."""
        return self._files.get(file_id)

    def scan(self) -> None:
        """Scan now (the first listing, before the address is printed)."""
        with self._lock:
            self._scan()
            self._next_scan = time.monotonic() + self.rescan

    def close(self) -> None:
        self.watched.close()
        self.roots.close()

    def _scan(self) -> None:
        touched = self.watched.taken()
        self._scans += 1
        now = time.monotonic()
        if touched is None:
            due = discover_due = (self._scans - 1) % FULL_EVERY == 0
        else:
            due, discover_due = now >= self._full_at, now >= self._discover_at
            if self._found is not None and not due and self._rescan(touched):
                return
        changed = self.folders.changed()  # before discovering: a change meanwhile is seen next
        if self._found is None or changed or discover_due:
            self._found = discover(self.paths)
            self.discovered += 1
            self._discover_at = now + DISCOVER_SECONDS
        self._full_at = now + FULL_SECONDS
        found = self._found
        named = {run.name: run for run in found.runs}
        runs = [*found.runs, *(run for name, run in self._seen.items() if name not in named)]
        # watched from here on: a change while the runs are looked at is told to the next scan
        folders = {name for name, (_, run, _) in self.folders.known.items() if not run}
        self.watched.follow(folders | {str(_folder_of_run(run)) for run in runs})
        described: dict[str, _Described] = {}
        seen: dict[str, Run] = {}
        for run in runs:
            entry = self._describe(run)
            if entry is None:
                continue  # its folder is gone, or not reached through real folders
            seen[run.name] = run
            described[run.name] = entry
        self._refused = msgspec.json.encode(
            [Refused(as_text(path), as_text(why)) for path, why in found.refused]
        )
        self._publish(seen, described)

    def _rescan(self, touched: set[str]) -> bool:
        """The runs whose folders the watch saw changed described again, the others taken
        as the last scan described them; False (nothing done) where a folder that is not a
        run's changed (a run may have come or gone) or a run's folder is no longer reached."""
        if not touched:
            return True
        by_folder = self._by_folder
        if any(folder not in by_folder for folder in touched):
            return False
        described = dict(self._described)
        for folder in touched:
            for run in by_folder[folder]:
                entry = self._describe(run)
                if entry is None:
                    return False
                described[run.name] = entry
        self._publish(self._seen, described)
        return True

    def _publish(self, seen: dict[str, Run], described: dict[str, _Described]) -> None:
        """The listing of the runs `described` (in their order), their files' ids served."""
        files: dict[str, Served] = {}
        for entry in described.values():
            files.update(entry.files)
        body = b"".join(
            [
                self._head,
                b',"since":null,"runs":[',
                b",".join(entry.fragment for entry in described.values()),
                b'],"removed":[],"refused":',
                self._refused,
                b"}",
            ]
        )
        if body != self.body:
            self._generation += 1
            self._changes(described)
            self.body = body
            self.etag = f'"{self._nonce}-{self._generation}"'
        if seen is not self._seen:
            self._by_folder = {}
            for run in seen.values():
                self._by_folder.setdefault(str(_folder_of_run(run)), []).append(run)
        self._seen = seen
        self._described = described
        self._ids = {
            (each.root, each.folders, each.name, each.device, each.inode): file_id
            for file_id, each in files.items()
        }
        self._files = files  # one assignment: `served` sees this scan's ids or the last's
        self.runs = len(described)

    def _changes(self, described: dict[str, _Described]) -> None:
        """The runs described anew and the runs gone, marked with the generation now; the
        oldest of the runs gone forgotten past `KEPT_GONE` more than the runs listed (a
        listing asked since before them is then answered whole)."""
        generation, last = self._generation, self._described
        for name, entry in described.items():
            if last.get(name) is not entry:
                self._changed_at[name] = generation
                self._removed_at.pop(name, None)
        for name in last.keys() - described.keys():
            self._removed_at[name] = generation
            self._changed_at.pop(name, None)
        if len(self._removed_at) > len(described) + KEPT_GONE:
            kept = sorted(self._removed_at.items(), key=lambda item: item[1])
            forgotten = kept[: len(kept) // 2]
            self._floor = forgotten[-1][1]
            self._removed_at = dict(kept[len(kept) // 2 :])

    def _describe(self, run: Run) -> _Described | None:
        """The run's part of the listing: the one of the last scan when its folder and
        files look the same; None when its folder is not reached through real folders."""
        assert run.metrics is not None, "serve is given no standard input"
        self.looked += 1
        placed = self.roots.place(run.metrics.parent)
        if placed is None:
            return None
        root, folders = placed
        names = [run.metrics.name]
        if run.is_folder:
            names += [SNAPSHOT_FILE, SNAPSHOT_REQUEST]
        try:
            with below(root, folders) as folder:
                looks = (run.label, *(_look(folder, name) for name in names))
        except OSError:
            return None
        last = self._described.get(run.name)
        if last is not None and last.looks == looks:
            return last
        self.described += 1
        files: dict[str, Served] = {}
        problems: list[str | None] = []
        entries: list[FileEntry | None] = []
        limits = (None, PROOF_LIMIT + 1, REQUEST_LIMIT + 1)
        for name, look, limit in zip(names, looks[1:], limits, strict=False):
            entry, problem = self._file(root, folders, name, look, limit, files)
            entries.append(entry)
            problems.append(problem)
        side = [f"{name}: {why}" for name, why in zip(names[1:], problems[1:], strict=True) if why]
        entries += [None] * (3 - len(entries))
        shown_path = as_text(run.display(run.metrics))
        described = RunEntry(
            name=as_text(run.label),
            run=as_text(run.name),
            path=shown_path,
            metrics=entries[0],
            snapshot=entries[1],
            request=entries[2],
            problem=None if problems[0] is None else f"{shown_path}: {problems[0]}",
            side_problem=as_text("; ".join(side)) if side else None,
        )
        return _Described(looks, msgspec.json.encode(described), files)

    def _file(
        self,
        root: int,
        folders: tuple[str, ...],
        name: str,
        look: Look,
        limit: int | None,
        files: dict[str, Served],
    ) -> tuple[FileEntry | None, str | None]:
        """The entry of the file `name` as `look` saw it (None when there is none), or why
        it is not served: anything but a regular file, a symlink included, is refused."""
        if look is None:
            return None, None
        if isinstance(look, str):
            return None, look
        mode, device, inode, size, written = look
        if stat.S_ISLNK(mode):
            return None, SYMLINK
        if not stat.S_ISREG(mode):
            return None, f"{what_it_is(mode)}, not a file"
        key = (root, folders, name, device, inode)
        file_id = self._ids.get(key)
        if file_id is None:
            file_id = f"f{next(self._count)}"
        files[file_id] = Served(root, folders, name, device, inode, limit)
        return FileEntry(file_id, as_text(name), size, written / 1e6), None


def _folder_of_run(run: Run) -> Path:
    """The folder a run's files are in (a run given as a file: the file's folder)."""
    assert run.metrics is not None, "serve is given no standard input"
    return run.metrics.parent


def _look(folder: int, name: str) -> Look:
    """The file `name` of the open `folder`, looked at without following a link."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as error:
        return (error.strerror or str(error)).lower()
    return (info.st_mode, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)

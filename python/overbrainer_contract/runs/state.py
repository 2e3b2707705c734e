"""Resolving a RUN — a run folder, a metrics file or `-` — and what its files say.

A run folder holds `metrics.jsonl`, and maybe `snapshot.request` (an orchestrator asks
for a snapshot) and `snapshot.json` (the plugin took it). A metrics file given alone
stands for the folder it lies in.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, BinaryIO

from .. import _core
from ..contract.constants import METRICS_FILE, SNAPSHOT_FILE, SNAPSHOT_REQUEST
from ..contract.models import MetricLine
from ..files import sidefile
from ..files.chunks import GzipCutError, GzipNotNamedError, read_chunks
from ..reader import LineScan, ParseError, StatusScan

STDIN = "-"

METRICS_GZ = METRICS_FILE + ".gz"
"""A run folder's metrics file, gzip-compressed (read when there is no `metrics.jsonl`)."""


class RunError(Exception):
    """A RUN that cannot be read: missing, not a run folder, unreadable. `invalid`: what
    it holds is not JSON lines (gzip data under another name), which `check` finds invalid
    (exit 1) rather than unreadable."""

    def __init__(self, message: str, *, invalid: bool = False) -> None:
        super().__init__(message)
        self.invalid = invalid


@dataclass(frozen=True)
class Run:
    """Where a run's files are. `metrics` is None for standard input."""

    name: str
    """How the user named it (for messages and reports)."""
    metrics: Path | None
    folder: Path | None
    """The run folder (the metrics file's folder when a file was named); None for stdin."""
    is_folder: bool = False
    """Whether the user named a folder (then its snapshot files are part of the run)."""
    label: str = ""
    """The run's name among the runs given (`runs.discover`: `exp1/seed1`); its folder's
    name (or a metrics file's own name) when resolved alone."""
    named: bool = False
    """Whether the metrics file is the path the user named itself (not a run folder's
    file, nor one a folder walk found): only then may it be a FIFO, read as a stream."""

    @property
    def is_stdin(self) -> bool:
        return self.metrics is None

    @property
    def request(self) -> Path | None:
        return None if self.folder is None else self.folder / SNAPSHOT_REQUEST

    @property
    def snapshot(self) -> Path | None:
        return None if self.folder is None else self.folder / SNAPSHOT_FILE

    def open_metrics(self) -> BinaryIO:
        """The metrics file opened for reading, as every command reads it: a regular file (a
        symlink to one is followed); a FIFO only when the user named it (`named`), read as a
        stream. Anything else — a FIFO in a run folder, whose writer may hold it open and
        never write — is a `SideFileError` (`PATH: a FIFO, not a file`), without blocking.
        FileNotFoundError when it does not exist. Not for standard input (`metrics` None)."""
        assert self.metrics is not None, "standard input is read, not opened"
        return sidefile.open_metrics(self.metrics, pipe=self.named)

    def display(self, path: Path) -> str:
        """`path` as the user would write it, relative to the name they gave."""
        if self.is_folder:
            return str(Path(self.name) / path.name)
        return str(path)


def resolve(name: str, *, must_exist: bool = True) -> Run:
    """The run that `name` names: `-` (standard input), a folder or a metrics file.

    Raises `RunError` when it does not exist (unless `must_exist` is false: a folder or a
    file that will appear), is a symlink loop, or is a folder without a metrics file. A
    file named is `named` (it may be a FIFO, read as a stream); a folder's metrics file is
    not.
    """
    if name == STDIN:
        return Run(name, None, None, label=STDIN)
    path = Path(name)
    try:
        mode: int | None = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:  # a symlink loop, a folder on the way that is not one...
        raise RunError(str(sidefile.SideFileError(name, _what(error)))) from error
    if mode is not None and stat.S_ISDIR(mode):
        metrics = path / METRICS_FILE
        if not sidefile.exists(metrics) and sidefile.exists(path / METRICS_GZ):
            metrics = path / METRICS_GZ
        if must_exist and not sidefile.exists(metrics):
            if path.name in (METRICS_FILE, METRICS_GZ):
                raise RunError(f"{name}: a folder, not a file")
            raise RunError(f"{name}: no {METRICS_FILE} in this folder")
        return _named(Run(name, metrics, path, is_folder=True))
    if mode is not None or not must_exist:
        if mode is None and not path.suffix:  # a run folder still to come
            return _named(Run(name, path / METRICS_FILE, path, is_folder=True))
        return _named(Run(name, path, path.parent, named=True))
    raise RunError(f"{name}: no such file or folder")


def _named(run: Run) -> Run:
    """`run` with its name alone (`names_of`): its folder's last part (the working folder's
    for `.`), or a metrics file's own name when it is not one of a run folder's."""
    return replace(run, label=names_of([run])[0])


METRICS_NAMES = (METRICS_FILE, METRICS_GZ)
"""The names of a run folder's metrics file, in the order looked for."""


def unit_of(run: Run) -> str | None:
    """What a run's name is made from, as an absolute path (as the user wrote it: no link
    followed): its folder — a run folder, or the folder of a metrics file named
    `metrics.jsonl` or `metrics.jsonl.gz` — or a metrics file of any other name itself;
    None for standard input."""
    if run.metrics is None:
        return None
    if run.is_folder and run.folder is not None:
        return os.path.abspath(run.folder)
    return _core.unit_of(os.path.abspath(run.metrics), list(METRICS_NAMES))


def names_of(runs: Sequence[Run]) -> list[str]:
    """The runs' names, by the core's one rule (the viewer's too): each its unit's path
    (`unit_of`) below the folder the runs have in common (`exp1/seed1`; one run alone, its
    unit's last part), standard input `-`; names alike numbered ` (2)`..."""
    units = [unit_of(run) for run in runs]
    return _core.run_names([(STDIN, False) if unit is None else (unit, True) for unit in units])


def names_below(folder: Path, runs: Sequence[Run]) -> list[str]:
    """The names of `runs`, all below `folder`, by the core's rule (`names_of`) with `folder`
    as the folder they have in common: each its unit's path below `folder`, whichever runs
    are there beside it, so that a run keeps its name as runs come and go (`watch SWEEP`)."""
    units = [unit_of(run) for run in runs]
    given = [(STDIN, False) if unit is None else (unit, True) for unit in units]
    return _core.run_names(given, below=os.path.abspath(folder))


def name_of(run: Run) -> str:
    """A run's name as the commands show it: its name among the runs found (`label`), else
    its name alone (`names_of`)."""
    return run.label or names_of([run])[0]


def _what(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "a symlink loop (too many levels of symbolic links)"
    return (error.strerror or str(error)).lower()


def read_side(path: Path, limit: int) -> tuple[bytes, float] | None:
    """A side file (`snapshot.request`, `snapshot.json`) as the core takes it: its bytes and
    when it was written (seconds since the epoch), or None when there is none;
    `SideFileError` when it is not a regular file of at most `limit` bytes (a symlink is
    refused unread). What the bytes mean is the core's (`_core.snapshot_state`,
    `_core.side_check`)."""
    read = sidefile.read_stamped(path, limit)
    return None if read is None else (read[0], read[1] / 1e9)


@dataclass(frozen=True)
class StatusRead:
    """A run's lines as `status` reads them: the state the core folded them into (`scan`,
    whose `report` is the run's `StatusReport`), and for a `.gz` cut short what is said of
    it (`gzip_cut`: `gzip data cut short after N bytes ...`, without the path)."""

    scan: StatusScan
    gzip_cut: str | None


def read_status(run: Run, max_line: int | None = None) -> StatusRead:
    """The state of a run after all its lines (standard input read to its end), folded by
    the core as its chunks are read (`reader.StatusScan`, a line of any length; one over
    the user's bound, `max_line`, an invalid one): memory stays flat whatever the file."""
    scan = StatusScan(max_line)

    def take(chunk: bytes) -> bool:
        scan.feed(chunk)
        return not scan.stopped

    cut = _each_chunk(run, take)
    if cut is not None:
        scan.gzip_cut()
    scan.finish()
    return StatusRead(scan, cut)


def _each_chunk(run: Run, take: Callable[[bytes], bool]) -> str | None:
    """Each chunk of the run's metrics file (standard input for `-`), in order, given to
    `take` until it says stop (False). For a `.gz` cut short, every chunk before the cut
    given, what is said of it (`GzipCutError.what`); None otherwise. `RunError` for a run
    that cannot be read (`invalid` for gzip data under another name)."""
    import sys

    if run.metrics is None:
        try:
            return _chunks_of(sys.stdin.buffer, STDIN, take)
        except GzipNotNamedError as error:
            raise RunError(str(error), invalid=True) from error
    try:
        with run.open_metrics() as handle:
            return _chunks_of(handle, run.display(run.metrics), take)
    except GzipNotNamedError as error:
        raise RunError(str(error), invalid=True) from error
    except sidefile.SideFileError as error:
        raise RunError(str(error)) from error
    except FileNotFoundError as error:
        raise RunError(f"{run.display(run.metrics)}: no such file") from error
    except OSError as error:
        raise RunError(f"{run.name}: {error.strerror or error}") from error


def _chunks_of(handle: IO[bytes], name: str, take: Callable[[bytes], bool]) -> str | None:
    try:
        for chunk in read_chunks(handle, name=name):
            if not take(chunk):
                break
    except GzipCutError as error:  # raised after every byte before the cut: those lines read
        return error.what
    return None


class LineParseError(ParseError):
    """A `ParseError` that knows its line: `line`, the line's number in the file (from 1),
    also the start of its text (`line 7: expected value at column 1`). `category`,
    `message`, `path` and `column` are the reference's, as on any `ParseError`."""

    line: int = 0

    @classmethod
    def at(cls, error: ParseError, line: int) -> LineParseError:
        """`error`, the parser's answer for the line numbered `line`, with that number."""
        made = cls(error.category, error.message, error.path, error.column)
        made.line = line
        return made

    def _text(self) -> str:
        return f"line {self.line}: {super()._text()}"

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, line={self.line!r})"


REJECTED = ("syntax", "eof", "data")
"""The categories of the lines `iter_lines` leaves out: the reference's (`ParseError`)."""


class Lines(Iterator[MetricLine]):
    """The lines of one run's metrics file, each as `parse_line` reads it, read as they
    are consumed (flat memory): what `iter_lines` gives. What it left out, read at any
    time (complete once the iteration ends):

    - `lines`: the lines read so far, rejected ones and a cut last line included;
    - `rejected`: the lines left out, per category of the reference (`syntax`, `eof`,
      `data`): what `status` counts invalid;
    - `cut`: the last line when it is cut short (no newline, and the reference finds it
      cut: category `eof`; a run still writing, or killed), its bytes; None otherwise;
    - `gzip_cut`: for a `.gz` whose stream is cut short, what is said of it (`gzip data cut
      short after N bytes ...`); its lines up to the cut are given; None otherwise.
    """

    def __init__(self, path: str | os.PathLike[str], *, strict: bool = False) -> None:
        self.lines = 0
        self.rejected: dict[str, int] = dict.fromkeys(REJECTED, 0)
        self.cut: bytes | None = None
        self.gzip_cut: str | None = None
        self._strict = strict
        self._read = self._lines(os.fspath(path))

    def __iter__(self) -> Lines:
        return self

    def __next__(self) -> MetricLine:
        return next(self._read)

    def _lines(self, path: str) -> Iterator[MetricLine]:
        import sys

        run = resolve(path)
        if run.metrics is None:
            yield from self._lines_of(sys.stdin.buffer, STDIN)
            return
        try:
            with run.open_metrics() as handle:
                yield from self._lines_of(handle, run.display(run.metrics))
        except GzipCutError as error:  # strict: after every line before the cut
            raise RunError(str(error)) from error
        except sidefile.SideFileError as error:
            raise RunError(str(error), invalid=isinstance(error, GzipNotNamedError)) from error
        except FileNotFoundError as error:
            raise RunError(f"{run.display(run.metrics)}: no such file") from error

    def _lines_of(self, handle: IO[bytes], name: str) -> Iterator[MetricLine]:
        """The parsed lines of a stream, cut and answered by the core a chunk at a time
        (`LineScan`: a line that spans chunks is held until its newline, a last line cut
        short kept apart by the core's rule)."""
        scan = LineScan()
        cut: GzipCutError | None = None
        try:
            for chunk in read_chunks(handle, name=name):
                yield from self._answers(scan, scan.feed(chunk))
        except GzipCutError as error:  # every byte before the cut was given
            cut = error
            self.gzip_cut = error.what
        yield from self._answers(scan, scan.finish())
        self.cut = scan.cut  # not an error, as in `check`
        if cut is not None and self._strict:
            raise cut

    def _answers(
        self, scan: LineScan, answers: list[MetricLine | ParseError]
    ) -> Iterator[MetricLine]:
        first = self.lines + 1
        self.lines = scan.lines
        for index, answer in enumerate(answers):
            if not isinstance(answer, ParseError):
                yield answer
            else:
                self.rejected[answer.category] += 1
                if self._strict:
                    raise LineParseError.at(answer, first + index)


def iter_lines(path: str | os.PathLike[str], *, strict: bool = False) -> Lines:
    """The lines of one run's metrics file, each as `parse_line` reads it, in order, read
    as they are consumed (flat memory): a run folder, a metrics file (`.jsonl`,
    `.jsonl.gz`) or `-`. The iterator is a `Lines`, which counts what it leaves out
    (`rejected`, per category; `cut`, the last line cut short; `gzip_cut`).

    A line the reference rejects is skipped and counted (`status` counts it invalid), or
    with `strict` raises its `ParseError`, a `LineParseError` that holds the line's number
    (`line`; `line 7: ...`). A last line cut short (no newline: a run still writing) is
    skipped either way, as `check` only warns of it. A `.gz` cut short gives its lines up
    to the cut, then ends (`gzip_cut` says so), or with `strict` raises `RunError` saying
    so. Raises `RunError` for a path that names no run.

    >>> lines = iter_lines("examples/tiny-run")  # doctest: +SKIP
    >>> [type(line).__name__ for line in lines][:2], lines.rejected  # doctest: +SKIP
    (['Stage', 'Begin'], {'syntax': 0, 'eof': 0, 'data': 0})
    """
    return Lines(path, strict=strict)

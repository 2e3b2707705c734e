"""The streaming check of a run's files: every line as `parse_line` reads it, findings
only for problems.

A metrics file is checked by the core (`reader.CheckScan`), fed the file's chunks: it finds
the lines (of any length), answers each on every core and makes the findings — their
severity, category, JSON path and words — as the contract's `ReportFinding` records
(`schema/check-report.schema.json`), then the file's `ReportFile`. What is left here is
Python's own: the chunks of a file (gzip, standard input), the hint said beside a finding
on a terminal, and the snapshot files. Memory stays flat whatever the file's size; a line
is held whole only while it is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Literal

from overbrainer_contract_core import _core
from overbrainer_contract_models.check_report_schema import (
    Category,
    EventCounts,
    FileKind,
    ReportFile,
    ReportFinding,
    Severity,
)

from ..reader import CheckScan
from ..runs.chunks import GzipCutError, GzipNotNamedError
from ..runs.nonfinite import NONFINITE_HINT, WINDOW_AFTER, WINDOW_BEFORE, nonfinite_token
from ..runs.sidefile import ProofError
from ..runs.state import REQUEST_PATTERN, Run, read_request, read_snapshot

_core.bind_reports((ReportFinding, ReportFile, EventCounts), (Severity, Category, FileKind))

Kind = Literal["metrics", "snapshot", "snapshot-request"]

Finding = ReportFinding
"""One problem: where (file, line, column, JSON path), how bad, and what — the contract's
record, made by the core for a metrics file's lines."""


@dataclass(frozen=True, slots=True)
class FileResult:
    """The summary of one checked file: its record, and what the text says beside it."""

    report: ReportFile
    invalid: int = 0
    """A metrics file's invalid lines: rejected by the reader, or over `--max-line` (its
    errors on lines); what `status` and `plot` count too."""
    cut: bool = False
    """Whether a metrics file's last line is cut short (no newline, category `eof`): a
    warning, not an invalid line."""

    @property
    def file(self) -> str:
        return self.report.file

    @property
    def kind(self) -> Kind:
        kind: Kind = self.report.kind.value
        return kind

    @property
    def lines(self) -> int | None:
        return self.report.lines

    @property
    def errors(self) -> int:
        return self.report.errors

    @property
    def warnings(self) -> int:
        return self.report.warnings

    @property
    def valid(self) -> bool:
        return self.report.valid


def side_result(name: str, kind: FileKind, errors: int = 0, warnings: int = 0) -> FileResult:
    """The summary of a snapshot file (no lines)."""
    return FileResult(ReportFile(name, kind, errors == 0, None, None, errors, warnings))


Emit = Callable[[Finding], None]
Hint = Callable[[Finding, str], None]


def check_stream(
    chunks: Iterable[bytes],
    name: str,
    emit: Emit,
    max_line: int | None = None,
    hint: Hint | None = None,
) -> FileResult:
    """Check the lines of a metrics file, its bytes in `chunks` (any cut: `chunks.read_chunks`),
    calling `emit` for every problem found, in the file's order; the file's summary.

    The core makes every finding (`CheckScan`; its rules: `overbrainer_core::check`). The
    chunks are fed in pieces of at most `PIECE_LINES` lines, and each finding is emitted as
    it is made: nothing is held but one piece's findings and the counts.
    Chunks that raise `GzipNotNamedError` (gzip data not named `.gz`) make the core's one
    finding of the whole file; chunks that raise `GzipCutError` (a `.gz` cut short, after
    every byte it held) end the file there, and the core says the cut instead of the last
    line's finding.
    With `hint`, a rejected line whose error lies on `NaN`, `Infinity` or `-Infinity`
    (`runs.nonfinite`) is followed by `hint(finding, NONFINITE_HINT)`: the reference's words
    stay as they are, the hint is said beside them (a terminal's, not the report's).
    """
    scan = CheckScan(name, max_line)
    lines = _LineBytes() if hint is not None else None
    tell: Hint = hint if hint is not None else _no_hint

    def take(found: list[Finding]) -> None:
        for finding in found:
            emit(finding)
            if lines is None or not lines.holds or finding.category is not Category.syntax:
                continue
            if finding.line is not None and finding.column:
                window, at = lines.window(finding.line, finding.column)
                if nonfinite_token(window, at, "syntax") is not None:
                    tell(finding, NONFINITE_HINT)

    try:
        for chunk in chunks:
            for piece in _pieces(chunk):
                if lines is not None:
                    lines.fed(piece, scan.lines + 1)
                take(scan.feed(piece))
                if lines is not None:
                    lines.done()
                if scan.stopped:
                    break
            if scan.stopped:
                break
    except GzipNotNamedError:  # before any line: the file is gzip, not lines
        emit(scan.gzip_data(name == "-"))
        return FileResult(scan.report())
    except GzipCutError as error:  # after every byte the stream held
        scan.gzip_cut(error.size)
    if lines is not None:
        lines.fed(b"", scan.lines + 1)
    take(scan.finish())
    return FileResult(scan.report(), invalid=scan.invalid, cut=scan.cut)


PIECE_LINES = 32768
"""The most lines fed to the core at once: a feed's facts are held until they are reported
(about 0.5 KiB each, in the core and then in Python), and a bad file has one a line — 16 MiB
of findings at most whatever the file. A realistic line is about 200 bytes: a 4 MiB chunk
of them (about 20k lines) is fed whole, and answered on every core."""

HELD = 64 * 1024
"""The first bytes of a line under way that are kept, beside the core, for the hint on a
rejected line (`_LineBytes`): past them a long line's error gets no hint."""


def _pieces(chunk: bytes, most: int = PIECE_LINES) -> Iterator[bytes]:
    """`chunk` in pieces of at most `most` newlines each (whole when it has no more), cut
    in halves: the core holds a line that spans pieces until its newline."""
    if len(chunk) <= most or chunk.count(b"\n") <= most:
        yield chunk
        return
    half = len(chunk) // 2
    yield from _pieces(chunk[:half], most)
    yield from _pieces(chunk[half:], most)


class _LineBytes:
    """The bytes of the lines the core completes, as much as the hint on a rejected line
    reads (`nonfinite_token`): the piece fed last, and the first `HELD` bytes of the line
    that began before it. Looked at only where a piece holds one of the tokens."""

    def __init__(self) -> None:
        self.head = b""
        """The first `HELD` bytes of the line under way (not yet ended by a newline)."""
        self.carried = 0
        """The length of that line so far, all of it."""
        self.head_holds = False
        self.piece = b""
        self.number = 1
        self.start = 0
        self.holds = False
        self._lengths: list[int] | None = None
        """The lengths of the lines begun in the piece, summed (found when first asked)."""
        self._first = 0
        """Where the first line begun in the piece starts."""

    def fed(self, piece: bytes, number: int) -> None:
        """`piece` is fed; it goes on with line `number` (the line under way, or the next)."""
        self.piece, self.number, self.start = piece, number, -self.carried
        edge = self.head[-len(b"-Infinit") :] + piece[: len(b"Infinity")] if self.carried else b""
        self.holds = self.head_holds or _holds(piece) or _holds(edge)
        self._lengths = None

    def window(self, number: int, column: int) -> tuple[bytes, int]:
        """Line `number`'s bytes around `column` (1-based, in bytes), and that column in them:
        `nonfinite_token`'s window; nothing where the bytes are not held, or where the line
        holds no token at all."""
        low = max(column - 1 - WINDOW_BEFORE, 0)
        high = column - 1 + WINDOW_AFTER
        if number == self.number and self.start < 0:  # the line began in an earlier piece
            line = self.head
            if self.carried == len(line):  # the head is the whole start of the line
                line += self.piece[: max(high - self.carried, 0)]
            return line[low:high], column - low
        start = self._line_start(number)
        if start is None:
            return b"", 0
        return self.piece[start + low : start + high], column - low

    def _line_start(self, number: int) -> int | None:
        """Where line `number` starts in the piece (a line that begins in it). The lengths
        of the piece's lines are found once, when first asked, by bytes' own split and
        `accumulate` over them: never a line at a time in Python, where a bad file has a
        rejected line in every few."""
        if self._lengths is None:
            self._first = 0 if self.start >= 0 else self.piece.find(b"\n") + 1
            lines = self.piece[self._first :].split(b"\n") if self._first or self.start >= 0 else []
            self._lengths = list(accumulate(map(len, lines)))
        index = number - self.number - (self.start < 0)  # among the lines begun in the piece
        if not 0 <= index < len(self._lengths):
            return None
        return self._first + index + (self._lengths[index - 1] if index else 0)

    def done(self) -> None:
        """The piece's facts are taken: keep the start of the line it leaves under way."""
        piece = self.piece
        end = piece.rfind(b"\n")
        if end < 0:
            if len(self.head) == self.carried and self.carried < HELD:
                self.head += piece[: HELD - self.carried]
            self.carried += len(piece)
        else:
            self.head = piece[end + 1 : end + 1 + HELD]
            self.carried = len(piece) - end - 1
        self.head_holds = _holds(self.head)


def _no_hint(finding: Finding, text: str) -> None:
    """No hint is asked for (`check -o json`, the API): none is looked for."""


def _holds(data: bytes) -> bool:
    return b"NaN" in data or b"Infinity" in data


def check_snapshot(path: Path, name: str, emit: Emit) -> FileResult:
    """Check `snapshot.json` against its model (read by `sidefile`: `SideFileError` when it
    is not a small regular file, FileNotFoundError when it is gone)."""
    errors = 0
    try:
        if read_snapshot(path) is None:
            raise FileNotFoundError(2, "No such file or directory", str(path))
    except ProofError as error:  # every problem, in the line findings' words
        for at, message in error.problems:
            errors += 1
            emit(Finding(name, None, None, at, Severity.error, Category.schema, message))
    return side_result(name, FileKind.snapshot, errors=errors)


def check_request(path: Path, name: str, emit: Emit) -> FileResult:
    """Check `snapshot.request`: one word, or nothing, white space around it allowed.

    Anything else (two words...) is a warning, as the plugin takes it (its docstring and
    the request's schema; the reference: the request's existence asks for the snapshot):
    the snapshot is taken all the same, with no reason."""
    read = read_request(path)
    if read is None:
        raise FileNotFoundError(2, "No such file or directory", str(path))
    text = read[0]
    if REQUEST_PATTERN.match(text):
        return side_result(name, FileKind.snapshot_request)
    shown = text if len(text) <= 40 else text[:37] + "..."
    message = (
        f"the request is not one word (1 to 64 of A-Z a-z 0-9 _ -): {shown!r};"
        " the plugin takes the snapshot all the same, with no reason"
    )
    emit(Finding(name, None, None, "$", Severity.warning, Category.schema, message))
    return side_result(name, FileKind.snapshot_request, warnings=1)


def run_files(run: Run) -> list[tuple[Path, Kind]]:
    """The files of a run that `check` reads: its metrics file, and in a run folder the
    snapshot request and proof that are there — a symlink among them, even a dangling one,
    is there (the plugin takes a link's presence as a request; reading it refuses it)."""
    files: list[tuple[Path, Kind]] = []
    if run.metrics is not None:
        files.append((run.metrics, "metrics"))
    if run.is_folder and run.request is not None and run.snapshot is not None:
        if os.path.lexists(run.request):
            files.append((run.request, "snapshot-request"))
        if os.path.lexists(run.snapshot):
            files.append((run.snapshot, "snapshot"))
    return files

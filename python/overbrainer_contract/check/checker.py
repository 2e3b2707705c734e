"""The streaming check of a run's files: every line as `parse_line` reads it, findings
only for problems.

A metrics file is checked by the core (`reader.CheckScan`), fed the file's chunks: it finds
the lines (of any length), answers each on every core and makes the findings — their
severity, category, JSON path and words — as the contract's `ReportFinding` records
(`schema/check-report.schema.json`), then the file's `ReportFile`. What is left here is
Python's own: the chunks of a file (gzip, standard input), the hint said beside a finding
on a terminal, and the snapshot files' bytes, read safely and given to the core (their
findings are its too). Memory stays flat whatever the file's size; a line is held whole
only while it is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import msgspec

from .. import _core
from .._models.check_report_schema import (
    FileKind,
    ReportFile,
    ReportFinding,
)
from ..files.chunks import GzipCutError, GzipNotNamedError
from ..files.sidefile import PROOF_LIMIT, REQUEST_LIMIT, SideFileError
from ..reader import CheckScan
from ..runs.state import Run, read_side
from ..text.nonfinite import NONFINITE_HINT

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


Emit = Callable[[Finding], None]
Hint = Callable[[Finding, str], None]


def check_stream(
    chunks: Iterable[bytes],
    name: str,
    emit: Emit,
    max_line: int | None = None,
    hint: Hint | None = None,
    shown: int = 0,
) -> FileResult:
    """Check the lines of a metrics file, its bytes in `chunks` (any cut: `chunks.read_chunks`),
    calling `emit` for every problem found, in the file's order; the file's summary.

    The core makes every finding (`CheckScan`; its rules: `overbrainer_core::check`) and
    emits each as it is made, reading a chunk a piece of lines at a time: nothing is held
    but one piece's findings and the counts.
    Chunks that raise `GzipNotNamedError` (gzip data not named `.gz`) make the core's one
    finding of the whole file; chunks that raise `GzipCutError` (a `.gz` cut short, after
    every byte it held) end the file there, and the core says the cut instead of the last
    line's finding.
    With `hint`, a rejected line whose error lies on `NaN`, `Infinity` or `-Infinity` (the
    core notes the token: `ParseError::nonfinite`) is followed by `hint(finding,
    NONFINITE_HINT)`: the reference's words stay as they are, the hint is said beside them
    (a terminal's, not the report's).

    `shown` (0: all): the most findings of each severity `emit` is given; the rest are
    counted in the summary only, and are not made at all.
    """
    scan = CheckScan(name, max_line, shown)
    noted = None if hint is None else _noted(hint)
    try:
        for chunk in chunks:
            scan.feed(chunk, emit, noted)
            if scan.stopped:
                break
    except GzipNotNamedError:  # before any line: the file is gzip, not lines
        emit(scan.gzip_data(name == "-"))
        return FileResult(scan.report())
    except GzipCutError as error:  # after every byte the stream held
        scan.gzip_cut(error.size)
    scan.finish(emit, noted)
    return FileResult(scan.report(), invalid=scan.invalid, cut=scan.cut)


def _noted(hint: Hint) -> Callable[[Finding, str], None]:
    """What the core calls after a finding whose error lies on a non-finite token."""

    def noted(finding: Finding, _token: str) -> None:
        hint(finding, NONFINITE_HINT)

    return noted


def check_snapshot(path: Path, name: str, emit: Emit) -> FileResult:
    """Check `snapshot.json`, named `name` in the findings: every problem of the proof, in
    serde's words, as the core finds them (`SideFileError` when it is not a small regular
    file, FileNotFoundError when it is gone)."""
    return _check_side(path, name, emit, FileKind.snapshot, PROOF_LIMIT)


def check_request(path: Path, name: str, emit: Emit) -> FileResult:
    """Check `snapshot.request`: one word, or nothing, white space around it allowed
    (its schema's pattern). Anything else is the core's warning: the plugin takes the
    snapshot all the same, with no reason."""
    return _check_side(path, name, emit, FileKind.snapshot_request, REQUEST_LIMIT)


def _check_side(path: Path, name: str, emit: Emit, kind: FileKind, limit: int) -> FileResult:
    """A side file read here (safely: `sidefile`), checked by the core
    (`overbrainer_core::side`): its findings emitted, its summary."""
    read = read_side(path, limit)
    if read is None:
        raise FileNotFoundError(2, "No such file or directory", str(path))
    try:
        made = _core.side_check(kind.value, name, read[0])
    except ValueError as error:  # over the contract's max_bytes
        raise SideFileError(name, str(error)) from None
    findings, report = msgspec.json.decode(made, type=tuple[list[ReportFinding], ReportFile])
    for finding in findings:
        emit(finding)
    return FileResult(report)


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

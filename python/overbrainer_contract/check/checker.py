"""The streaming check of a run's files: every line as `parse_line` reads it, findings
only for problems.

A metrics file is read by the core (`reader.CheckScan`), fed the file's chunks: it finds
the lines (of any length), answers each on every core and keeps the counts and the order
the reader relies on, handing back only the facts worth a finding. What a fact means (its
severity, its words, the rule for the last line) is said here. Memory stays flat whatever
the file's size; a line is held whole only while it is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any, Literal

import msgspec

from ..reader import SKIP_LIMIT, TAGS, CheckScan, ParseError
from ..reader.errors import cut_short
from ..runs.chunks import GzipCutError, GzipNotNamedError
from ..runs.nonfinite import NONFINITE_HINT, WINDOW_AFTER, WINDOW_BEFORE, nonfinite_token
from ..runs.sidefile import ProofError
from ..runs.signatures import BOM_NOTE, starts_with_bom
from ..runs.sizes import overlong_reason, size_text
from ..runs.state import REQUEST_PATTERN, Run, read_request, read_snapshot

Severity = Literal["error", "warning"]
Kind = Literal["metrics", "snapshot", "snapshot-request"]

EVENTS = ("begin", "log", "eval", "stage", "end")
"""The variants' tags, in the order a file's summary counts them."""


class Finding(msgspec.Struct, frozen=True):
    """One problem: where (file, line, JSON path), how bad, and what. (A frozen Struct:
    built in 0.05 µs where a frozen dataclass takes 0.5, on every bad line of a file.)"""

    file: str
    line: int | None
    path: str
    """JSON path of the offending value (`$.step`), `$` for the whole line."""
    severity: Severity
    category: str
    """`syntax`, `eof`, `data` (the parser's categories), `length`, `order`, `truncated` or
    `schema`: the `Category` of `schema/check-report.schema.json`."""
    message: str
    column: int | None = None


@dataclass(slots=True)
class FileResult:
    """The summary of one checked file."""

    file: str
    kind: Kind
    lines: int | None = None
    events: dict[str, int] = field(default_factory=dict)
    errors: int = 0
    warnings: int = 0
    invalid: int = 0
    """A metrics file's invalid lines: rejected by the reader, or over `--max-line` (its
    errors on lines); what `status` and `plot` count too."""
    cut: bool = False
    """Whether a metrics file's last line is cut short (no newline, category `eof`): a
    warning, not an invalid line."""

    @property
    def valid(self) -> bool:
        return self.errors == 0


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

    Every line is read by the core (`CheckScan`: any length, on every core), which gives
    the facts; what they mean is said here. The chunks are fed in pieces of at most
    `PIECE_LINES` lines, and each finding is emitted as it is made: nothing is held but
    one piece's facts and the counts, whatever the count of problems.
    Errors: a line the reference rejects, and a line longer than the user's bound
    (`max_line`, the CLI's `--max-line`; none by default). The last line without its
    newline is a warning only when the reference would read it as a line cut short: a
    whole line (its newline missing) or one it rejects with the category `eof`; any other
    last line is an error.
    A first line that begins with a UTF-8 byte order mark keeps the reference's error, and
    says so (`BOM_NOTE`); chunks that raise `GzipNotNamedError` (`chunks.read_chunks` given
    the file's name: gzip data not named `.gz`) make one finding of the whole file
    (line null, no line read) instead of a screen of invalid UTF-8. Chunks that raise
    `GzipCutError` (a `.gz` cut short, after every byte it held) end the file there: its
    lines are checked and counted, its last bytes are its last line, and the cut is one
    error (category `truncated`, at that last line; line null when the cut falls after a
    newline), where the last line's own finding would be.
    Warnings too: the order the reader relies on — a log, an evaluation or an end before
    the first `begin`, a log or an evaluation after an `end` (until the next `begin`), a
    training step going back.
    With `hint`, a rejected line whose error lies on `NaN`, `Infinity` or `-Infinity`
    (`runs.nonfinite`) is followed by `hint(finding, NONFINITE_HINT)`: the reference's words
    stay as they are, the hint is said beside them.
    """
    scan = CheckScan(max_line)
    errors = warnings = 0
    cut = False
    bom = False
    first = True
    lines = _LineBytes() if hint is not None else None
    tell: Hint = hint if hint is not None else _no_hint
    gzip_cut: GzipCutError | None = None

    def take(found: list[tuple[Any, ...]]) -> None:
        nonlocal errors, warnings, cut
        for fact in found:
            if fact[0] == "rejected":  # most facts of a bad file: made here, at once
                _, number, path, category, text, column = fact
                errors += 1
                if number == 1 and bom:
                    text = f"{text} ({BOM_NOTE})"
                finding = Finding(name, number, path or "$", "error", category, text, column)
                emit(finding)
                if lines is not None and lines.holds and category == "syntax" and column:
                    window, at = lines.window(number, column)
                    if nonfinite_token(window, at, category) is not None:
                        tell(finding, NONFINITE_HINT)
                continue
            if fact[0] == "last" and gzip_cut is not None:
                continue  # the cut is said instead, once
            finding = _finding(name, fact, scan.stopped)
            if finding.severity == "error":
                errors += 1
            else:
                warnings += 1
                # the last line rejected as cut short (not a whole line without its newline)
                cut = cut or (finding.category == "truncated" and fact[2] is not None)
            emit(finding)
            if lines is not None and fact[0] == "last" and fact[2] is not None:
                error = fact[2]
                window, at = lines.window(number=fact[1], column=error.column or 0)
                if nonfinite_token(window, at, error.category) is not None:
                    tell(finding, NONFINITE_HINT)

    try:
        for chunk in chunks:
            if first and chunk:
                first, bom = False, starts_with_bom(chunk)
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
    except GzipNotNamedError as error:  # before any line: the file is gzip, not lines
        emit(Finding(name, None, "$", "error", "syntax", error.what))
        return FileResult(name, "metrics", 0, dict.fromkeys(EVENTS, 0), 1, 0)
    except GzipCutError as error:  # after every byte the stream held
        gzip_cut = error
    if lines is not None:
        lines.fed(b"", scan.lines + 1)
    partial = scan.lines
    take(scan.finish())
    if gzip_cut is not None:
        errors += 1
        at = scan.lines if scan.lines > partial else None
        cut = at is not None
        emit(Finding(name, at, "$", "error", "truncated", gzip_cut.what))
    counts = dict(zip(TAGS, scan.counts, strict=True))
    return FileResult(
        name,
        "metrics",
        scan.lines,
        {event: counts[event] for event in EVENTS},
        errors,
        warnings,
        invalid=errors - (gzip_cut is not None),
        cut=cut,
    )


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


def _finding(name: str, fact: tuple[Any, ...], stopped: bool) -> Finding:
    """What one of the core's facts (`CheckScan`) other than a rejected line means (those,
    most facts of a bad file, `check_stream` makes at once)."""
    what, number = fact[0], fact[1]
    if what == "order":
        return _order(name, number, 0 if fact[3] == "before" else 2, fact[2])
    if what == "back":
        step, last = fact[2], fact[3]
        return Finding(
            name,
            number,
            "$.step",
            "warning",
            "order",
            f"step {step} goes back (after step {last})",
        )
    if what == "over":
        reason = overlong_reason(*fact[2:])
        if stopped and not fact[3]:
            reason += f" ({_STOPPED})"
        return Finding(name, number, "$", "error", "length", reason)
    return _last_line(name, number, fact[2], stopped)


def _last_line(name: str, number: int, error: ParseError | None, stopped: bool) -> Finding:
    """The finding for a last line without its newline (`error`: the reference's, or None
    for a metrics line). A warning when the reference reads it as a line cut short, else
    an error."""
    if error is None:
        return Finding(
            name, number, "$", "warning", "truncated", "truncated last line: no newline at its end"
        )
    if cut_short(error):
        return Finding(
            name,
            number,
            error.path or "$",
            "warning",
            "truncated",
            f"truncated last line: {error}",
            error.column,
        )
    where = _STOPPED if stopped else "the last line, without its newline"
    message = f"{error} ({where})"
    return Finding(name, number, error.path or "$", "error", error.category, message, error.column)


_SKIPPED_MOST = size_text(SKIP_LIMIT)
_STOPPED = f"the last line read: no newline in its first {_SKIPPED_MOST}, the reading stopped there"
"""Said of a line skipped for `SKIP_LIMIT` bytes without a newline, where the reading ends."""


def _order(name: str, number: int, phase: int, event: str) -> Finding:
    where = "before the first begin line" if phase == 0 else "after the end line"
    return Finding(name, number, "$.event", "warning", "order", f"{event} line {where}")


def check_snapshot(path: Path, name: str, emit: Emit) -> FileResult:
    """Check `snapshot.json` against its model (read by `sidefile`: `SideFileError` when it
    is not a small regular file, FileNotFoundError when it is gone)."""
    result = FileResult(name, "snapshot")
    try:
        if read_snapshot(path) is None:
            raise FileNotFoundError(2, "No such file or directory", str(path))
    except ProofError as error:  # every problem, in the line findings' words
        for at, message in error.problems:
            result.errors += 1
            emit(Finding(name, None, at, "error", "schema", message))
    return result


def check_request(path: Path, name: str, emit: Emit) -> FileResult:
    """Check `snapshot.request`: one word, or nothing, white space around it allowed.

    Anything else (two words...) is a warning, as the plugin takes it (its docstring and
    the request's schema; the reference: the request's existence asks for the snapshot):
    the snapshot is taken all the same, with no reason."""
    result = FileResult(name, "snapshot-request")
    read = read_request(path)
    if read is None:
        raise FileNotFoundError(2, "No such file or directory", str(path))
    text = read[0]
    if not REQUEST_PATTERN.match(text):
        result.warnings += 1
        shown = text if len(text) <= 40 else text[:37] + "..."
        emit(
            Finding(
                name,
                None,
                "$",
                "warning",
                "schema",
                f"the request is not one word (1 to 64 of A-Z a-z 0-9 _ -): {shown!r};"
                " the plugin takes the snapshot all the same, with no reason",
            )
        )
    return result


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

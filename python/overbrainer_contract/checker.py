"""The streaming check of a run's files: every line through `parse_line`, findings
only for problems.

The loop over a metrics file is the core's loop plus a few comparisons: it reads
binary lines, parses each one and keeps counts; it builds a `Finding` only for a
line that is invalid or out of order. Memory stays flat whatever the file's size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec

from .errors import ParseError
from .lines import Overlong
from .models import Begin, End, Eval, Log, Stage
from .parser import parse_line
from .runs import REQUEST_PATTERN, Run, read_request, read_snapshot
from .sidefile import exists

Severity = Literal["error", "warning"]
Kind = Literal["metrics", "snapshot", "snapshot-request"]

EVENTS: tuple[tuple[type[object], str], ...] = (
    (Begin, "begin"),
    (Log, "log"),
    (Eval, "eval"),
    (Stage, "stage"),
    (End, "end"),
)


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: where (file, line, JSON path), how bad, and what."""

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

    @property
    def valid(self) -> bool:
        return self.errors == 0


Emit = Callable[[Finding], None]


def check_lines(lines: Iterable[bytes], name: str, emit: Emit) -> FileResult:
    """Check the lines of a metrics file (binary, each with its newline), calling `emit`
    for every problem found; the file's summary.

    Errors: a line the reference rejects, and a line longer than the reader's bound (an
    `Overlong` from `read_lines`: `lines.MAX_LINE`, or the user's `--max-line`). The last
    line without its newline is a warning only when the reference would read it as a line
    cut short: a whole line (its newline missing) or one it rejects with the category
    `eof`; any other last line is an error.
    Warnings too: the order the reader relies on — a log, an evaluation or an end before
    the first `begin`, a log or an evaluation after an `end` (until the next `begin`), a
    training step going back.
    """
    parse = parse_line
    counts: dict[type[object], int] = dict.fromkeys((kind for kind, _ in EVENTS), 0)
    errors = warnings = 0
    phase = 0  # 0: before begin, 1: training, 2: after end
    last_step = -1
    logs = 0
    number = 0
    raw = b"\n"
    for number, raw in enumerate(lines, 1):
        try:
            line = parse(raw)
        except ParseError as error:
            if raw.__class__ is Overlong:
                errors += 1
                emit(_overlong(name, number, raw))
                continue
            if raw[-1:] != b"\n":  # the last line, cut: checked after the loop
                continue
            errors += 1
            emit(
                Finding(
                    name,
                    number,
                    error.path or "$",
                    "error",
                    error.category,
                    str(error),
                    error.column,
                )
            )
            continue
        kind = line.__class__
        if kind is Log:  # most lines: counted apart, in order unless a warning says
            logs += 1
            step = line.step  # type: ignore[union-attr]
            if step < last_step or phase != 1:
                if phase != 1:
                    warnings += 1
                    emit(_order(name, number, phase, "log"))
                if step < last_step:
                    warnings += 1
                    emit(
                        Finding(
                            name,
                            number,
                            "$.step",
                            "warning",
                            "order",
                            f"step {step} goes back (after step {last_step})",
                        )
                    )
            last_step = step
            continue
        counts[kind] += 1
        if kind is Eval:
            if phase != 1:
                warnings += 1
                emit(_order(name, number, phase, "eval"))
        elif kind is Begin:
            phase = 1
        elif kind is End:
            if phase != 1:
                warnings += 1
                emit(_order(name, number, phase, "end"))
            phase = 2
    if number and raw[-1:] != b"\n" and raw.__class__ is not Overlong:
        finding = _last_line(name, number, raw)
        if finding is not None:
            if finding.severity == "error":
                errors += 1
            else:
                warnings += 1
            emit(finding)
    counts[Log] = logs
    return FileResult(
        name,
        "metrics",
        number,
        {event: counts[kind] for kind, event in EVENTS},
        errors,
        warnings,
    )


def _last_line(name: str, number: int, raw: bytes) -> Finding | None:
    """The finding for a last line without its newline (None: not one, it parsed in the
    loop). A warning when the reference reads it as a line cut short, else an error."""
    try:
        parse_line(raw)
        return Finding(
            name, number, "$", "warning", "truncated", "truncated last line: no newline at its end"
        )
    except ParseError as error:
        if error.category == "eof":
            return Finding(
                name,
                number,
                error.path or "$",
                "warning",
                "truncated",
                f"truncated last line: {error}",
                error.column,
            )
        message = f"{error} (the last line, without its newline)"
        return Finding(
            name, number, error.path or "$", "error", error.category, message, error.column
        )


def _overlong(name: str, number: int, marker: Overlong) -> Finding:
    return Finding(name, number, "$", "error", "length", marker.reason())


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
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        message, at = _split_msgspec(str(error))
        result.errors += 1
        emit(Finding(name, None, at, "error", "schema", message))
    return result


def check_request(path: Path, name: str, emit: Emit) -> FileResult:
    """Check `snapshot.request`: one word, or nothing, white space around it allowed."""
    result = FileResult(name, "snapshot-request")
    read = read_request(path)
    if read is None:
        raise FileNotFoundError(2, "No such file or directory", str(path))
    text = read[0]
    if not REQUEST_PATTERN.match(text):
        result.errors += 1
        shown = text if len(text) <= 40 else text[:37] + "..."
        emit(
            Finding(
                name,
                None,
                "$",
                "error",
                "schema",
                f"the request is not one word (1 to 64 of A-Z a-z 0-9 _ -): {shown!r}",
            )
        )
    return result


def _split_msgspec(message: str) -> tuple[str, str]:
    """msgspec's `Expected int, got str - at `$.step`` as (message, JSON path)."""
    head, sep, tail = message.rpartition(" - at `")
    if sep and tail.endswith("`"):
        return head, tail[:-1]
    return message, "$"


def run_files(run: Run) -> list[tuple[Path, Kind]]:
    """The files of a run that `check` reads: its metrics file, and in a run folder the
    snapshot request and proof that exist."""
    files: list[tuple[Path, Kind]] = []
    if run.metrics is not None:
        files.append((run.metrics, "metrics"))
    if run.is_folder and run.request is not None and run.snapshot is not None:
        if exists(run.request):
            files.append((run.request, "snapshot-request"))
        if exists(run.snapshot):
            files.append((run.snapshot, "snapshot"))
    return files

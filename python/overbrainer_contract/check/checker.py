"""The streaming check of a run's files: every line as `parse_line` reads it, findings
only for problems.

The loop over a metrics file is the core's loop plus a few comparisons: it reads
binary lines, parses each one and keeps counts; it builds a `Finding` only for a
line that is invalid or out of order. Memory stays flat whatever the file's size.
`check_pieces`, what the CLI runs, takes a block's run of lines at once where the core
reads it whole (`parse_block`: every line valid) and none of its lines needs a finding;
any other run goes through the same line-by-line loop, so the findings are the same.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec

from ..contract.models import Begin, End, Eval, Log, Stage
from ..reader import TAGS, ParseError, parse_line
from ..runs.lines import BlockStream, Overlong, Piece
from ..runs.sidefile import exists
from ..runs.state import REQUEST_PATTERN, Run, read_request, read_snapshot

Severity = Literal["error", "warning"]
Kind = Literal["metrics", "snapshot", "snapshot-request"]

EVENTS: tuple[tuple[type[object], str], ...] = (
    (Begin, "begin"),
    (Log, "log"),
    (Eval, "eval"),
    (Stage, "stage"),
    (End, "end"),
)


BY_INDEX: tuple[type[object], ...] = tuple({tag: kind for kind, tag in EVENTS}[tag] for tag in TAGS)
"""The model of each of the core's variants, by its index in `TAGS`."""


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
    check = MetricsCheck(name, emit)
    check.lines(lines)
    return check.result()


def check_pieces(pieces: Iterable[Piece], name: str, emit: Emit) -> FileResult:
    """`check_lines` over the lines of `pieces` (`lines.read_pieces`): each run of complete
    lines read at once (`parse_block`) where it can be, with the same findings, in the
    same order, and the same summary."""
    check = MetricsCheck(name, emit)
    lines, run = check.lines, check.run
    for single, body in pieces:
        if single:
            lines(single)
        if body:
            run(body)
    return check.result()


class MetricsCheck:
    """The state of one metrics file's check, fed lines (`lines`) or runs of complete
    lines (`run`) in the file's order; `result` is the summary."""

    def __init__(self, name: str, emit: Emit) -> None:
        self.name = name
        self.emit = emit
        self.counts: dict[type[object], int] = dict.fromkeys((kind for kind, _ in EVENTS), 0)
        self.errors = self.warnings = 0
        self.phase = 0  # 0: before begin, 1: training, 2: after end
        self.last_step = -1
        self.number = 0
        self.raw = b"\n"  # the last line read
        self.blocks = BlockStream()  # its runs, backing off after one holding a bad line

    def run(self, body: bytes) -> None:
        """A run of complete lines, each within the bound: read at once by the core with no
        model built (`summarize_block`), and counted at once when no line in it needs a
        finding; else read line by line."""
        summary = self.blocks.summarize(body)
        if summary is None or not self._counted(*summary):
            # a bad line (or backing off), or a warning: each found, and placed, as line by line
            self.lines(io.BytesIO(body))
            return
        self.number += len(summary[0])
        self.raw = b"\n"

    def _counted(self, kinds: bytes, first: int | None, last: int | None, ordered: bool) -> bool:
        """Count a run's lines (`kinds`: each line's variant, its index in the core's `TAGS`;
        the first and last log steps, whether they never go back) and keep the last log's
        step, when they need no order warning; else False, nothing counted. (A begin or an
        end in the run, rare, is left to the line-by-line reading.)"""
        found = {BY_INDEX[index]: kinds.count(index) for index in set(kinds)}
        if Begin in found or End in found or (self.phase != 1 and (Log in found or Eval in found)):
            return False
        if last is not None:  # logs in the run
            if first is None or first < self.last_step or not ordered:
                return False
            self.last_step = last
        counts = self.counts
        for kind, count in found.items():
            counts[kind] += count
        return True

    def lines(self, lines: Iterable[bytes]) -> None:
        """Lines one at a time, each through `parse_line`."""
        name, emit, counts = self.name, self.emit, self.counts
        parse = parse_line
        errors, warnings = self.errors, self.warnings
        phase, last_step = self.phase, self.last_step
        logs = 0
        first = self.number + 1
        number, raw = self.number, self.raw  # the last line read: kept after the loop
        for number, raw in enumerate(lines, first):
            try:
                line = parse(raw)
            except ParseError as error:
                if raw.__class__ is Overlong:
                    errors += 1
                    emit(_overlong(name, number, raw))
                    continue
                if raw[-1:] != b"\n":  # the last line, cut: checked in `result`
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
        counts[Log] += logs
        self.errors, self.warnings = errors, warnings
        self.phase, self.last_step = phase, last_step
        self.number, self.raw = number, raw

    def result(self) -> FileResult:
        """The file's summary, once its last line is in: a last line without its newline
        gets its finding here (see `check_lines`)."""
        name, number, raw = self.name, self.number, self.raw
        if number and raw[-1:] != b"\n" and raw.__class__ is not Overlong:
            finding = _last_line(name, number, raw)
            if finding is not None:
                if finding.severity == "error":
                    self.errors += 1
                else:
                    self.warnings += 1
                self.emit(finding)
        counts = self.counts
        return FileResult(
            name,
            "metrics",
            number,
            {event: counts[kind] for kind, event in EVENTS},
            self.errors,
            self.warnings,
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

"""The line-by-line oracles the core's scans are held to: what `check`, `export`, `status`
and `watch` did before the core read whole files, every line through `parse_line` (the
reference's own reading, held to the reference by the golden suite and the fuzzing), with
the commands' policy written out here once, line by line, as it was.

`check_lines` is the checker as it was (`check/checker.py` at 1.1.1, its `MetricsCheck`),
less its block path, with the user's bound (`max_line`) applied to each line as the old
splitter did: a line longer than the bound, without its newline, is a `length` error.
A line is read as its bytes before its newline, as the reference runner and the golden
suite read it (a line cut short mid-file is `eof`; a blank line is `""`, `eof` at column 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from overbrainer_contract.check.checker import FileResult, Finding
from overbrainer_contract.contract.models import Begin, End, Eval, Log, Stage
from overbrainer_contract.reader import ParseError, parse_line
from overbrainer_contract.runs.sizes import overlong_reason

Emit = Callable[[Finding], None]

EVENTS: tuple[tuple[type[object], str], ...] = (
    (Begin, "begin"),
    (Log, "log"),
    (Eval, "eval"),
    (Stage, "stage"),
    (End, "end"),
)


def split_lines(data: bytes) -> list[bytes]:
    """The lines of `data`, each with its newline but maybe the last (as iterating a file)."""
    return _split_on_newline(data)


def _split_on_newline(data: bytes) -> list[bytes]:
    pieces = data.split(b"\n")
    lines = [piece + b"\n" for piece in pieces[:-1]]
    return lines + ([pieces[-1]] if pieces[-1] else [])


def check_lines(
    lines: Iterable[bytes], name: str, emit: Emit, max_line: int | None = None
) -> FileResult:
    """The findings and summary of a metrics file's lines, line by line (see the module)."""
    check = MetricsCheck(name, emit, max_line)
    check.lines(lines)
    return check.result()


class MetricsCheck:
    """The state of one metrics file's check, fed its lines in order (`lines`); `result`
    is the summary."""

    def __init__(self, name: str, emit: Emit, max_line: int | None) -> None:
        self.name = name
        self.max_line = max_line
        self.emit = emit
        self.counts: dict[type[object], int] = dict.fromkeys((kind for kind, _ in EVENTS), 0)
        self.errors = self.warnings = 0
        self.phase = 0  # 0: before begin, 1: training, 2: after end
        self.last_step = -1
        self.number = 0
        self.raw = b"\n"  # the last line read

    def lines(self, lines: Iterable[bytes]) -> None:
        """Lines one at a time, each through `parse_line`."""
        name, emit, counts, max_line = self.name, self.emit, self.counts, self.max_line
        parse = parse_line
        errors, warnings = self.errors, self.warnings
        phase, last_step = self.phase, self.last_step
        logs = 0
        first = self.number + 1
        number, raw = self.number, self.raw  # the last line read: kept after the loop
        for number, raw in enumerate(lines, first):
            if max_line is not None and len(raw.rstrip(b"\n")) > max_line:
                errors += 1
                emit(_overlong(name, number, len(raw), raw[-1:] == b"\n", max_line))
                continue
            try:
                line = parse(raw[:-1] if raw[-1:] == b"\n" else raw)  # the bytes before it
            except ParseError as error:
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
        over = self.max_line is not None and len(raw) > self.max_line
        cut = False  # the last line rejected as cut short (category eof): not invalid
        if number and raw[-1:] != b"\n" and not over:
            finding = _last_line(name, number, raw)
            if finding is not None:
                if finding.severity == "error":
                    self.errors += 1
                else:
                    self.warnings += 1
                    cut = finding.column is not None  # not a whole line without its newline
                self.emit(finding)
        counts = self.counts
        return FileResult(
            name,
            "metrics",
            number,
            {event: counts[kind] for kind, event in EVENTS},
            self.errors,
            self.warnings,
            invalid=self.errors,  # every error of a metrics file is a line's
            cut=cut,
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


def _overlong(name: str, number: int, size: int, complete: bool, limit: int) -> Finding:
    return Finding(name, number, "$", "error", "length", overlong_reason(size, complete, limit))


def _order(name: str, number: int, phase: int, event: str) -> Finding:
    where = "before the first begin line" if phase == 0 else "after the end line"
    return Finding(name, number, "$.event", "warning", "order", f"{event} line {where}")

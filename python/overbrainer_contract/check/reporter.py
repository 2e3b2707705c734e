"""Output of `check`: plain text for people and JSON Lines for machines, both streamed
as problems are found.

Every string the text shows that comes from a file or a name (the file's display name, a
message that echoes a line's content or a path, a JSON path's keys) goes through
`text.shown.shown`: a control character is a visible escape, never a terminal's command.
The JSON Lines are JSON's own escapes, the strings as they are (a file's name with each
byte that is not UTF-8 as `\\xff`, as the text shows it: `text.shown.as_text`)."""

from __future__ import annotations

from typing import Protocol

import msgspec

from .. import _core
from .._models.check_report_schema import (
    ReportFile,
    ReportFinding,
    ReportUnreadable,
    Severity,
)
from .._models.check_total_schema import CheckTotal
from ..text.shown import shown
from ..text.sizes import invalid_text
from .checker import FileResult, Finding


class Total:
    """Counts over every file and path of a check: what its last line says."""

    def __init__(self) -> None:
        self.files = self.invalid_files = self.unreadable = 0
        self.lines = self.errors = self.warnings = 0

    def add(self, result: FileResult) -> None:
        self.files += 1
        self.invalid_files += not result.valid
        self.lines += result.lines or 0
        self.errors += result.errors
        self.warnings += result.warnings

    @property
    def valid(self) -> bool:
        return self.errors == 0 and self.unreadable == 0


class Writer(Protocol):
    """Where a report goes: a text stream."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


RESET = "\x1b[0m"
STYLES = {"error": "\x1b[1;31m", "warning": "\x1b[33m", "ok": "\x1b[32m", "bold": "\x1b[1m"}


def paint(text: str, style: str, colour: bool) -> str:
    """`text` in the ANSI style `style` when `colour` is on."""
    return f"{STYLES[style]}{text}{RESET}" if colour else text


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


class TextReporter:
    """`PATH:LINE $.field: message` per problem, then a summary line per file.

    At most `limit` errors and `limit` warnings are printed per file (0: all); one line
    counts those not shown, and the summary counts them all (the not shown are counted from
    the summary: a checker given the limit need not hand them over). A hint (`hint`: what a
    finding's words do not say) is printed once per file, indented, after the first
    finding shown that it explains.
    """

    def __init__(self, out: Writer, colour: bool = False, limit: int = 0) -> None:
        self.out = out
        self.colour = colour
        self.limit = limit
        self.shown = {"error": 0, "warning": 0}
        self.last: Finding | None = None
        """The finding printed last, in this file (None when the last one was not shown)."""
        self.hinted: set[str] = set()

    def finding(self, finding: Finding) -> None:
        severity = finding.severity.value
        if self.limit and self.shown[severity] >= self.limit:
            self.last = None
            return
        self.shown[severity] += 1
        self.last = finding
        file = shown(finding.file)
        where = file if finding.line is None else f"{file}:{finding.line}"
        # the reference's words, then what they mean in plain words (a line that is not JSON)
        said = finding.message
        if finding.line is not None:
            said = _core.finding_said(said, finding.category.value)
        if severity == "warning":
            message = f"{paint('warning', 'warning', self.colour)}: {shown(said)}"
        else:
            message = shown(said)
        self.out.write(f"{where} {shown(finding.path)}: {message}\n")

    def hint(self, finding: Finding, text: str) -> None:
        """`  hint: TEXT` after `finding`, when it was printed and the hint not yet in
        this file."""
        if finding is self.last and text not in self.hinted:
            self.hinted.add(text)
            self.out.write(f"  hint: {text}\n")

    def result(self, result: FileResult) -> None:
        found = {"error": result.errors, "warning": result.warnings}
        hidden = {s: found[s] - self.shown[s] for s in found}
        if any(hidden.values()):
            counts = [plural(n, f"more {s}") for s, n in hidden.items() if n]
            self.out.write(
                f"{shown(result.file)}: {' and '.join(counts)} not shown"
                f" (--max-errors {self.limit})\n"
            )
        self.shown = dict.fromkeys(self.shown, 0)
        self.last = None
        self.hinted.clear()
        parts = []
        by_event = result.report.events
        if result.lines is not None and by_event is not None:
            events = ", ".join(
                f"{name} {getattr(by_event, name):,}" for name in by_event.__struct_fields__
            )
            parts.append(f"{plural(result.lines, 'line')} ({events})")
        errors = plural(result.errors, "error")
        warnings = plural(result.warnings, "warning")
        if result.errors:
            errors = paint(errors, "error", self.colour)
        if result.warnings:
            warnings = paint(warnings, "warning", self.colour)
        parts.append(f"{errors}, {warnings}")
        lines = invalid_text(result.invalid, result.cut) if result.kind == "metrics" else ""
        if lines:  # in the words `status` and `plot` say them in
            parts[-1] += f" ({lines})"
        verdict = paint("valid", "ok", self.colour) if result.valid else "invalid"
        self.out.write(f"{shown(result.file)}: {verdict}: {', '.join(parts)}\n")

    def unreadable_path(self, name: str, message: str) -> None:
        """Nothing on standard output: the command says it on standard error."""

    def total(self, total: Total) -> None:
        """`total: valid: 42 files, 4,321 lines, 0 errors, 0 warnings` (the invalid and
        unreadable counted when there are any)."""
        files = plural(total.files, "file")
        troubles = []
        if total.invalid_files:
            troubles.append(f"{total.invalid_files:,} invalid")
        if total.unreadable:
            troubles.append(f"{plural(total.unreadable, 'path')} unreadable")
        if troubles:
            files += f" ({', '.join(troubles)})"
        errors = plural(total.errors, "error")
        warnings = plural(total.warnings, "warning")
        if total.errors:
            errors = paint(errors, "error", self.colour)
        if total.warnings:
            warnings = paint(warnings, "warning", self.colour)
        verdict = paint("valid", "ok", self.colour) if total.valid else "invalid"
        self.out.write(
            f"total: {verdict}: {files}, {plural(total.lines, 'line')}, {errors}, {warnings}\n"
        )

    def close(self) -> None:
        self.out.flush()


class JsonReporter:
    """The same as JSON Lines, streamed: one `finding` object per problem as it is found,
    one `file` object per file, one `unreadable` object per path that cannot be read —
    `schema/check-report.schema.json`, encoded from its generated models. Nothing is kept:
    memory is flat whatever the count. At most `limit` findings of each severity per file
    (0, the default: all)."""

    def __init__(self, out: Writer, limit: int = 0) -> None:
        self.out = out
        self.limit = limit
        self.counts = {Severity.error: 0, Severity.warning: 0}
        self.encode = msgspec.json.Encoder().encode
        self.hint = None
        """No hints: the findings' objects are the schema's, their messages the reference's
        words (`check_stream` skips what a hint costs)."""

    def _line(self, item: ReportFinding | ReportFile | ReportUnreadable | CheckTotal) -> None:
        self.out.write(self.encode(item).decode() + "\n")

    def finding(self, finding: Finding) -> None:
        if self.limit:
            severity = finding.severity
            if self.counts[severity] >= self.limit:
                return
            self.counts[severity] += 1
        self._line(finding)

    def result(self, result: FileResult) -> None:
        self.counts = dict.fromkeys(self.counts, 0)
        self._line(result.report)

    def unreadable_path(self, name: str, message: str) -> None:
        self._line(ReportUnreadable(file=name, message=message))

    def total(self, total: Total) -> None:
        """The last line, `schema/check-total.schema.json` (`check --total`)."""
        self._line(
            CheckTotal(
                type="total",
                files=total.files,
                invalid_files=total.invalid_files,
                unreadable=total.unreadable,
                lines=total.lines,
                errors=total.errors,
                warnings=total.warnings,
                valid=total.valid,
            )
        )

    def close(self) -> None:
        self.out.flush()

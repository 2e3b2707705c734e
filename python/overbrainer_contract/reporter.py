"""Output of `check`: plain text for people (streamed as problems are found) and JSON
for machines (one document at the end)."""

from __future__ import annotations

import json
from typing import Any, Protocol

from .checker import FileResult, Finding


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
    """`PATH:LINE $.field: message` per problem, then a summary line per file."""

    def __init__(self, out: Writer, colour: bool = False) -> None:
        self.out = out
        self.colour = colour

    def finding(self, finding: Finding) -> None:
        where = finding.file if finding.line is None else f"{finding.file}:{finding.line}"
        if finding.severity == "warning":
            message = f"{paint('warning', 'warning', self.colour)}: {finding.message}"
        else:
            message = finding.message
        self.out.write(f"{where} {finding.path}: {message}\n")

    def result(self, result: FileResult) -> None:
        parts = []
        if result.lines is not None:
            events = ", ".join(f"{name} {count:,}" for name, count in result.events.items())
            parts.append(f"{plural(result.lines, 'line')} ({events})")
        errors = plural(result.errors, "error")
        warnings = plural(result.warnings, "warning")
        if result.errors:
            errors = paint(errors, "error", self.colour)
        if result.warnings:
            warnings = paint(warnings, "warning", self.colour)
        parts.append(f"{errors}, {warnings}")
        verdict = paint("valid", "ok", self.colour) if result.valid else "invalid"
        self.out.write(f"{result.file}: {verdict}: {', '.join(parts)}\n")

    def close(self) -> None:
        self.out.flush()


class JsonReporter:
    """The same as one JSON document: `{"valid", "files": [...], "unreadable": [...]}`."""

    def __init__(self, out: Writer) -> None:
        self.out = out
        self.files: list[dict[str, Any]] = []
        self.findings: list[dict[str, Any]] = []
        self.unreadable: list[dict[str, str]] = []

    def finding(self, finding: Finding) -> None:
        self.findings.append(
            {
                "line": finding.line,
                "path": finding.path,
                "severity": finding.severity,
                "category": finding.category,
                "message": finding.message,
                "column": finding.column,
            }
        )

    def result(self, result: FileResult) -> None:
        self.files.append(
            {
                "file": result.file,
                "kind": result.kind,
                "valid": result.valid,
                "lines": result.lines,
                "events": result.events if result.lines is not None else None,
                "errors": result.errors,
                "warnings": result.warnings,
                "findings": self.findings,
            }
        )
        self.findings = []

    def unreadable_path(self, name: str, message: str) -> None:
        self.unreadable.append({"file": name, "message": message})

    def close(self) -> None:
        document = {
            "valid": all(item["valid"] for item in self.files) and not self.unreadable,
            "files": self.files,
            "unreadable": self.unreadable,
        }
        json.dump(document, self.out, indent=2)
        self.out.write("\n")
        self.out.flush()

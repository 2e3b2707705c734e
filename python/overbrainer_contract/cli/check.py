"""`check PATH...`: validate metrics files and run folders, line by line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from ..checker import FileResult, check_lines, check_request, check_snapshot, run_files
from ..reporter import JsonReporter, TextReporter
from ..runs import RunError, resolve
from ._common import EXIT_CODES, INVALID, OK, PROG, USAGE, Stdout, colour_on, formatter, say

PROGRESS_BYTES = 64 * 2**20
"""A file at least this large shows a progress bar (on a terminal)."""

DESCRIPTION = """\
Validate metrics files, run folders or standard input (`-`): every line goes through
parse_line, as overbrainer reads it. Each problem is one line `PATH:LINE $.field: message`,
then a summary per file. A last line without its newline (a run still writing, or killed)
is a warning, not an error; so are the order checks: a step going back, lines before
`begin`, lines after `end`. In a run folder, snapshot.json and snapshot.request are
checked too."""

EPILOG = f"""\
examples:
  {PROG} check runs/7                       # metrics.jsonl and the snapshot files
  {PROG} check a.jsonl b.jsonl -o json
  ssh gpu cat runs/7/metrics.jsonl | {PROG} check -

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "check",
        parents=parents,
        help="validate metrics files and run folders",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a metrics file, a run folder, -")
    parser.add_argument(
        "-o", "--output", choices=("text", "json"), default="text", help="text (default) or json"
    )
    parser.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr: auto shows it on a terminal for a file over 64 MiB",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    text = args.output == "text"
    reporter: TextReporter | JsonReporter
    reporter = (
        TextReporter(Stdout(), colour_on(sys.stdout, args.color))
        if text
        else JsonReporter(sys.stdout)
    )
    invalid = unreadable = False

    def fail(name: str, message: str) -> None:
        nonlocal unreadable
        unreadable = True
        say(f"error: {name}: {message}")
        if isinstance(reporter, JsonReporter):
            reporter.unreadable_path(name, message)

    for name in args.paths:
        try:
            target = resolve(name)
        except RunError as error:
            fail(name, str(error).removeprefix(f"{name}: "))
            continue
        if target.metrics is None:  # standard input
            result = check_lines(sys.stdin.buffer, "-", reporter.finding)
            reporter.result(result)
            invalid |= not result.valid
            continue
        for path, kind in run_files(target):
            display = target.display(path)
            try:
                if kind == "metrics":
                    result = _check_metrics(path, display, reporter, args.progress)
                elif kind == "snapshot":
                    result = check_snapshot(path, display, reporter.finding)
                else:
                    result = check_request(path, display, reporter.finding)
            except OSError as error:
                fail(display, error.strerror or str(error))
                continue
            reporter.result(result)
            invalid |= not result.valid
    reporter.close()
    return USAGE if unreadable else INVALID if invalid else OK


def _check_metrics(
    path: Path, display: str, reporter: TextReporter | JsonReporter, progress: str
) -> FileResult:
    with path.open("rb") as handle:
        size = _size(handle)
        show = progress == "always" or (
            progress == "auto" and size >= PROGRESS_BYTES and sys.stderr.isatty()
        )
        if show:
            try:
                return check_lines(_with_progress(handle, size, display), display, reporter.finding)
            except ImportError:  # no rich: no bar
                pass
        return check_lines(handle, display, reporter.finding)


def _size(handle: IO[bytes]) -> int:
    try:
        import os

        return os.fstat(handle.fileno()).st_size
    except OSError:
        return 0


def _with_progress(handle: IO[bytes], size: int, label: str) -> Iterator[bytes]:
    """The lines of `handle`, read in blocks, with a transient rich progress bar on stderr."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    console = Console(stderr=True)
    # Findings printed meanwhile go above the bar when both streams are the terminal.
    redirect = sys.stdout.isatty()
    with Progress(*columns, console=console, transient=True, redirect_stdout=redirect) as bar:
        task = bar.add_task(label, total=size or None)
        while True:
            block: Iterable[bytes] = handle.readlines(1 << 22)
            if not block:
                break
            yield from block
            bar.update(task, completed=handle.tell())

"""`check PATH...`: validate metrics files and run folders, line by line."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

from .. import _core
from ..check.checker import FileResult, check_request, check_snapshot, check_stream, run_files
from ..check.reporter import JsonReporter, TextReporter, Total
from ..files.chunks import read_chunks
from ..files.sidefile import SideFileError
from ..runs.discover import discover
from ..runs.state import Run
from ..text.shown import as_text, shown
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    USAGE,
    CliError,
    Stdout,
    add_max_line,
    colour_on,
    formatter,
    say,
)

DEFAULT_MAX_ERRORS: int = _core.SHOWN_DEFAULT
"""Errors (and warnings) printed per file in text: a file of random bytes is one screen (the
core's `check::SHOWN_DEFAULT`, what the npm package's `check()` returns too)."""

COUNT_MOST = 2**64 - 1
"""The most findings of a kind the checker counts to (the core's `u64`): a larger
`--max-errors` is no bound, as 0 is."""

PROGRESS_BYTES = 64 * 2**20
"""A file at least this large shows a progress bar (on a terminal)."""

DESCRIPTION = """\
Validate metrics files, run folders or standard input (`-`): every line goes through
parse_line, as overbrainer reads it. Each problem is one line `PATH:LINE $.field: message`,
then a summary per file (at most --max-errors problems printed per file, then one line
counting the rest; the summary counts them all). A last line without its newline is a
warning when it is a line cut short (a run still writing, or killed: a whole line, or one
the reference finds cut, category `eof`); any other bad last line is an error. The order
checks are warnings too: a step going back, lines before `begin`, lines after `end`. In a
run folder, snapshot.json and snapshot.request are checked too (regular files only, of
bounded size). A folder of runs is every run below it, at any depth; a `.jsonl.gz` is read
compressed. Over more than one run or path, a last line `total: ...` counts every file
(-o json: with --total, a `total` object, schema check-total). A line of any length is
read, as the reference reads it; junk without a newline is an error as soon as its first
bytes say so, and the rest of it is skipped in flat memory. --max-line sets a bound of
yours: a longer line is skipped unread and is an error, category `length`. -o json writes
JSON Lines: one object per finding, one per file, one per unreadable path (`schema
check-report` prints their schema)."""

EPILOG = f"""\
examples:
  {PROG} check runs/7                       # metrics.jsonl and the snapshot files
  {PROG} check a.jsonl b.jsonl -o json
  {PROG} check sweep/                       # every run below: sweep/exp1/seed1, ...
  ssh gpu cat runs/7/metrics.jsonl | {PROG} check -
  {PROG} check big.jsonl --max-line 64M   # refuse lines over 64 MiB

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
    parser.add_argument(
        "--max-errors",
        type=max_errors,
        metavar="N",
        help=f"print at most N errors and N warnings per file, then one line counting the"
        f" rest (text: {DEFAULT_MAX_ERRORS} by default; json: all; 0, or a count past"
        f" {COUNT_MOST:,}: all)",
    )
    parser.add_argument(
        "--total",
        action="store_true",
        help="json: end with a total over every file and path (schema check-total); text"
        " ends with one whenever more than one run or path was checked",
    )
    add_max_line(parser)
    parser.set_defaults(run=run)


def max_errors(text: str) -> int:
    """`--max-errors N` (argparse's type): a count in ASCII digits; one past `COUNT_MOST`,
    of any length, is 0 (all), never converted whole. A negative count is refused by the
    command, in its words."""
    digits = text.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()) or (
        digits != text and len(digits) > len(str(COUNT_MOST))
    ):
        raise argparse.ArgumentTypeError(f"not a count: {text[:40]!r} (0 or more, e.g. 20)")
    if len(digits) > len(str(COUNT_MOST)):  # past any count, and past int()'s digits
        return 0
    value = int(text)
    return 0 if value > COUNT_MOST else value


def run(args: argparse.Namespace) -> int:
    if args.paths.count("-") > 1:
        raise CliError("standard input (-) can be read only once")
    if args.max_errors is not None and args.max_errors < 0:
        raise CliError(f"--max-errors must be 0 (all) or more, not {args.max_errors}")
    reporter: TextReporter | JsonReporter
    if args.output == "text":
        limit = DEFAULT_MAX_ERRORS if args.max_errors is None else args.max_errors
        reporter = TextReporter(Stdout(), colour_on(sys.stdout, args.color), limit)
    else:
        reporter = JsonReporter(Stdout(), args.max_errors or 0)
    invalid = unreadable = False
    total = Total()

    def fail(name: str, message: str) -> None:
        nonlocal unreadable
        unreadable = True
        total.unreadable += 1
        say(f"error: {shown(name)}: {shown(message)}")
        reporter.unreadable_path(as_text(name), as_text(message))

    found = discover(args.paths)
    for name, why in found.refused:
        fail(name, why)
    for target in found.runs:
        if target.metrics is None:  # standard input
            chunks = read_chunks(sys.stdin.buffer, name="-")
            result = check_stream(
                chunks, "-", reporter.finding, args.max_line, reporter.hint, reporter.limit
            )
            total.add(result)
            reporter.result(result)
            invalid |= not result.valid
            continue
        for path, kind in run_files(target):
            display = as_text(target.display(path))  # the file's name in the report
            try:
                if kind == "metrics":
                    result = _check_metrics(target, display, reporter, args)
                elif kind == "snapshot":
                    result = check_snapshot(path, display, reporter.finding)
                else:
                    result = check_request(path, display, reporter.finding)
            except BrokenPipeError:  # nobody reads standard output any more: not this file
                raise
            except SideFileError as error:
                fail(display, error.what)
                continue
            except OSError as error:
                fail(display, (error.strerror or str(error)).lower())
                continue
            total.add(result)
            reporter.result(result)
            invalid |= not result.valid
    if args.total if args.output == "json" else len(found.runs) + len(found.refused) > 1:
        reporter.total(total)
    reporter.close()
    return USAGE if unreadable else INVALID if invalid else OK


def _check_metrics(
    target: Run, display: str, reporter: TextReporter | JsonReporter, args: argparse.Namespace
) -> FileResult:
    progress, max_line, hint, limit = args.progress, args.max_line, reporter.hint, reporter.limit
    with target.open_metrics() as handle:
        size = _size(handle)
        show = progress == "always" or (
            progress == "auto" and size >= PROGRESS_BYTES and sys.stderr.isatty()
        )
        if show:
            try:
                with _progress_bar(size, display) as advance:
                    chunks = read_chunks(handle, progress=advance, name=display)
                    return check_stream(chunks, display, reporter.finding, max_line, hint, limit)
            except ImportError:  # no rich: no bar
                pass
        chunks = read_chunks(handle, name=display)
        return check_stream(chunks, display, reporter.finding, max_line, hint, limit)


def _size(handle: IO[bytes]) -> int:
    try:
        return os.fstat(handle.fileno()).st_size
    except OSError:
        return 0


@contextlib.contextmanager
def _progress_bar(size: int, label: str) -> Iterator[Callable[[int], None]]:
    """A transient rich progress bar on stderr, over `size` bytes: the function that moves
    it to the bytes read so far. `label`, a file's name, is data: shown escaped
    (`text.shown`), and never read as rich markup."""
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
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    console = Console(stderr=True)
    # Findings printed meanwhile go above the bar when both streams are the terminal.
    redirect = sys.stdout.isatty()
    with Progress(*columns, console=console, transient=True, redirect_stdout=redirect) as bar:
        task = bar.add_task(shown(label), total=size or None)
        yield lambda done: bar.update(task, completed=done)

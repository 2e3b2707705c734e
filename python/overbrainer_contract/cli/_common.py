"""What every command shares: the parser class, colour, errors, exit codes."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn, TextIO

from .._core import Pattern
from ..text.shown import shown
from ..text.sizes import parse_size

if TYPE_CHECKING:
    from ..runs.state import Run

PROG = "overbrainer-contract"

OK, INVALID, USAGE = 0, 1, 2
INTERRUPTED = 130
PIPE_CLOSED = 141
"""128 + SIGPIPE: what a shell shows for `grep ... | head -1` once `head` has left (grep
is ended by the signal); a command that finds its standard output closed ends with it,
quietly, as grep does."""

EXIT_CODES = """\
exit codes:
  0    everything valid (or the command did what it was asked)
  1    something invalid, or a wait that timed out
  2    usage error, or a path that cannot be read
  130  interrupted (Ctrl-C)
  141  standard output closed by its reader (`... | head`), as grep's 128 + SIGPIPE"""


class CliError(Exception):
    """An error the user can fix: printed as one line, with its exit code."""

    def __init__(self, message: str, code: int = USAGE) -> None:
        super().__init__(message)
        self.code = code


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


MAX_LINE_HELP = (
    "a bound on a line's length, yours to set: bytes (ASCII digits), or with K, M, G, up to"
    " 1024T (default: none, a line"
    " of any length is read, as the reference reads it); a longer line is skipped unread, in"
    " flat memory, and counts as invalid (category length)"
)


def max_line_size(text: str) -> int:
    """`--max-line SIZE`: `64M`, `1G`, `1048576` (argparse's type)."""
    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


_SECONDS = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?", re.ASCII)
"""A number of seconds as the command line writes one: ASCII digits, a point, an
exponent (`0.5`, `2`, `1e-2`); no sign, no `nan` or `inf`, no other script's digits."""


def seconds(least: float, most: float) -> Callable[[str], float]:
    """argparse's type for an option in seconds, from `least` to `most` (both included):
    anything else is a usage error of one line (exit 2) before the command does anything."""

    def parse(text: str) -> float:
        value = float(text) if _SECONDS.fullmatch(text) else math.nan
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r} (e.g. 0.5)")
        if not least <= value <= most:
            raise argparse.ArgumentTypeError(
                f"{text!r} seconds: from {least:g} to {most:g} s, not outside"
            )
        return value

    parse.__name__ = "seconds"  # argparse's words for a value it cannot convert
    return parse


NOW_HELP = (
    "report at this time, in seconds since the epoch (the clock of the lines' `time`), not"
    " this machine's: how long ago the last line came, the ETA counted down and whether it"
    " is stale are told at it, and `now` in -o json is it (e.g. 1764467600)"
)


def add_now(parser: argparse.ArgumentParser) -> None:
    """`--now SECONDS`: the time a report is made at, instead of the machine's clock."""
    parser.add_argument(
        "--now", type=seconds(0.0, math.inf), default=None, metavar="SECONDS", help=NOW_HELP
    )


def refuse_folder_of_runs(name: str, command: str) -> None:
    """A folder with no metrics file of its own but runs below (`runs.discover`): `command`
    takes one run, so the runs found are named, and it ends (exit 2) before anything is
    read or written. A folder with no run below is left to the command."""
    from pathlib import Path

    from ..runs.discover import discover, metrics_in  # here: the core, for one command

    try:
        if not os.path.isdir(name) or metrics_in(Path(name)) is not None:
            return
    except (OSError, ValueError):
        return
    runs = [run.folder for run in discover([name]).runs if run.folder is not None]
    if not runs:
        return
    paths = [shown(os.fspath(folder)) for folder in runs]
    listed = ", ".join(paths[:3]) + (f" and {len(paths) - 3:,} more" if len(paths) > 3 else "")
    many = f"{len(runs):,} runs" if len(runs) != 1 else "one run"
    raise CliError(f"{shown(name)}: a folder of {many}, not a run: {command} one ({listed})")


def regex(text: str) -> Pattern:
    """A regular expression given on the command line (`--only`, `--group`), in the syntax
    of Rust's `regex` crate and matched by the core in linear time (`Pattern`), or a usage
    error of one line (argparse's type): a pattern the core refuses, for its syntax, its size
    or its nesting, is said with why."""
    try:
        return Pattern(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"not a regular expression: {text!r} ({error})") from error


regex.__name__ = "regular expression"  # argparse's words for a value it cannot convert

ONLY_HELP = (
    "only the runs whose names match this regular expression (found anywhere in the name;"
    " Rust's regex syntax, matched in linear time; a run's name is its path below the folder"
    " the runs have in common, as the command shows it)"
)


def add_only(parser: argparse.ArgumentParser) -> None:
    """`--only REGEX`: the runs read, by their names."""
    parser.add_argument("--only", type=regex, default=None, metavar="REGEX", help=ONLY_HELP)


NAMES_LISTED = 10
"""The most run names an error of `--only` lists."""


def run_name(run: Run) -> str:
    """A run's name as the commands show it (`runs.state.name_of`: the core's rule)."""
    from ..runs.state import name_of

    return name_of(run)


def only_runs(runs: Sequence[Run], pattern: Pattern | None) -> list[Run]:
    """The runs whose names `pattern` matches (anywhere), all without one; none matching
    is a usage error naming the pattern and the runs' names (exit 2)."""
    if pattern is None:
        return list(runs)
    kept = [run for run in runs if pattern.search(run_name(run))]
    if not kept:
        names = [shown(run_name(run)) for run in runs]
        listed = ", ".join(names[:NAMES_LISTED])
        if len(names) > NAMES_LISTED:
            listed += f" and {len(names) - NAMES_LISTED:,} more"
        raise CliError(
            f"--only {shown(repr(pattern.pattern))}: no run's name matches it"
            f" (the runs: {listed or 'none'})"
        )
    return kept


def add_max_line(parser: argparse.ArgumentParser) -> None:
    """`--max-line SIZE`, for the commands that read a metrics file's lines."""
    parser.add_argument(
        "--max-line", type=max_line_size, default=None, metavar="SIZE", help=MAX_LINE_HELP
    )


def formatter(prog: str) -> argparse.HelpFormatter:
    width = terminal_columns() - 2  # what argparse takes when given no width
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=28, width=width)


def terminal_columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` gives it (`COLUMNS`, else the
    terminal of standard output, else 80), without importing shutil: argparse would at
    every command's start, and bz2, lzma and zlib with it (2.7 ms of `check`'s start)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = 0 if stdout is None else os.get_terminal_size(stdout.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def colour_on(stream: TextIO, choice: str = "auto") -> bool:
    """Colour for `stream`: `always`, `never`, or `auto` — a terminal, and no `NO_COLOR`."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def say(message: str) -> None:
    """One line for the user on standard error, shown as data (`text.shown`): whatever
    path or file content a message carries, it stays one line and drives no terminal
    (`shown` leaves what it already escaped as it is)."""
    sys.stderr.write(f"{PROG}: {shown(message)}\n")
    sys.stderr.flush()


class Stdout:
    """Writes to whatever `sys.stdout` is at the time (rich may redirect it)."""

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()

    def isatty(self) -> bool:
        return sys.stdout.isatty()


def quiet_stdout() -> None:
    """Standard output pointed at /dev/null once its reader has left: what is still
    buffered, and what Python flushes at exit, goes nowhere instead of raising again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's capture)
        pass

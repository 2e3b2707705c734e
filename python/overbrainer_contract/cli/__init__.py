"""The command line, `overbrainer-contract` (also `python -m overbrainer_contract`).

One module per command, named as the command; each gives `add(subparsers, parents)` and its
`run(args)`. A command's module is imported only when that command runs (or for the help
that lists them all): each holds what its command needs, and a process starting `check`
need not load what `plot` or `watch` use.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .. import __version__
from ._common import (
    EXIT_CODES,
    INTERRUPTED,
    PIPE_CLOSED,
    PROG,
    USAGE,
    CliError,
    Parser,
    formatter,
    quiet_stdout,
    say,
)

COMMANDS = (
    "check",
    "status",
    "watch",
    "plot",
    "serve",
    "snapshot",
    "stage",
    "plugin",
    "schema",
    "export",
)
"""The commands, in the order the help lists them; `cli/<command>.py` is each one's module."""

DESCRIPTION = """\
Validate overbrainer's training metrics offline, follow a live run, plot it, ask
for a snapshot. A RUN is a run folder (holding metrics.jsonl, maybe snapshot.request
and snapshot.json) or a metrics file; `-` reads standard input."""

EPILOG = f"""\
examples:
  {PROG} check runs/7/metrics.jsonl
  {PROG} status runs/7
  {PROG} watch runs/7
  {PROG} <command> --help

{EXIT_CODES}"""


def common_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--debug", action="store_true", default=default, help="show the traceback of an error"
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default=default,
        help="colour: on a terminal without NO_COLOR (auto, the default), always, never",
    )


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; given a `command`, only that command's module is imported and
    its arguments added, the others are names alone (a parser that can run that one)."""
    parser = Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG, formatter_class=formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    common_options(parser, None)
    parser.set_defaults(debug=False, color="auto")
    shared = argparse.ArgumentParser(add_help=False, formatter_class=formatter)
    common_options(shared, argparse.SUPPRESS)  # after the command too, without resetting
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for name in COMMANDS:
        if command is None or name == command:
            importlib.import_module(f"{__name__}.{name}").add(commands, [shared])
        else:
            commands.add_parser(name, add_help=False)
    return parser


def named_command(argv: Sequence[str]) -> str | None:
    """The command `argv` runs: its first word naming one, before any `--` (no option of the
    command line's own takes a command's name as its value), or None."""
    for word in argv:
        if word == "--":
            return None
        if word in COMMANDS:
            return word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status (usage errors included, never SystemExit)."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser(named_command(argv)).parse_args(argv)
    except SystemExit as leave:  # --help, --version, usage errors
        return leave.code if isinstance(leave.code, int) else USAGE
    try:
        code: int = args.run(args)
    except CliError as error:
        say(f"error: {error}")
        return error.code
    except KeyboardInterrupt:
        if args.debug:
            raise
        sys.stderr.write("\n")
        say("interrupted")
        return INTERRUPTED
    except BrokenPipeError:  # `... | head`: nobody reads any more; quiet, as grep
        quiet_stdout()
        return PIPE_CLOSED
    except Exception as error:
        if args.debug:
            raise
        say(f"error: {error.__class__.__name__}: {error} (--debug shows the traceback)")
        return USAGE
    return code


def entry() -> NoReturn:
    """The process: `main`, then leave (the `overbrainer-contract` script, `python -m
    overbrainer_contract`). When nothing is left to run at exit (no other thread, no
    `atexit` callback), it leaves at once once its output is flushed: the interpreter's
    teardown frees every module and object, 5 ms of `check`'s process, for nothing."""
    code = main()
    if _nothing_left_at_exit():
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe or stream: Python's own exit says it
            sys.exit(code)
        os._exit(code)
    sys.exit(code)


def _nothing_left_at_exit() -> bool:
    threading = sys.modules.get("threading")
    if threading is not None and (
        threading.active_count() > 1 or getattr(threading, "_threading_atexits", None)
    ):  # another thread, or what concurrent.futures runs at exit
        return False
    callbacks = getattr(atexit, "_ncallbacks", None)  # CPython's count of them
    return callbacks is not None and callbacks() == 0


__all__ = ["build_parser", "entry", "main"]

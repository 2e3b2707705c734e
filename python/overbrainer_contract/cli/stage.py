"""`stage NAME`: append the job's stage line to `$OVERBRAINER_METRICS`."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from ..contract.constants import METRICS_ENV
from ..plugin.source import JOB_STAGES
from ._common import EXIT_CODES, OK, PROG, CliError, formatter

DESCRIPTION = f"""\
Append {{"event":"stage","name":NAME,"time":<epoch seconds>}} to the file named by
${METRICS_ENV}: the line the job's shell writes before each of its commands (the same
line as `plugin.source.stage_command(NAME)` renders), in one write."""

EPILOG = f"""\
examples:
  {PROG} stage export --file runs/7/metrics.jsonl
  {METRICS_ENV}=runs/7/metrics.jsonl {PROG} stage merge

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "stage",
        parents=parents,
        help=f"append a stage line to ${METRICS_ENV}",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument("name", choices=JOB_STAGES, metavar="NAME", help=", ".join(JOB_STAGES))
    parser.add_argument("--file", help=f"the metrics file (default: ${METRICS_ENV})")
    parser.set_defaults(run=run)


def stage_line(name: str, when: float | None = None) -> bytes:
    """The stage line, as the shell helper renders it (integer epoch seconds)."""
    seconds = int(time.time() if when is None else when)
    return f'{{"event":"stage","name":"{name}","time":{seconds}}}\n'.encode("ascii")


def run(args: argparse.Namespace) -> int:
    path = args.file or os.environ.get(METRICS_ENV)
    if not path:
        raise CliError(f"${METRICS_ENV} is not set (or give --file)")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, stage_line(args.name))
        finally:
            os.close(descriptor)
    except OSError as error:
        raise CliError(f"{path}: {error.strerror or error}") from error
    return OK

"""`stage NAME`: append the job's stage line to `$OVERBRAINER_METRICS`.

The line is written by the plugin's own writer, the plugin file run as a script with this
Python (`python3 overbrainer_metrics.py stage NAME`, what `plugin.source.stage_command`
renders for the job's shell): one set of rules for every hand that appends to a metrics
file. The plugin file is run rather than imported because importing it imports
transformers and torch, which the command line neither needs nor has; as a script it
stops before them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Any

from ..contract.constants import METRICS_ENV
from ..plugin.source import JOB_STAGES, PLUGIN_PATH
from ..text.shown import shown
from ._common import EXIT_CODES, OK, PROG, CliError, formatter

DESCRIPTION = f"""\
Append {{"event":"stage","name":NAME,"time":<epoch seconds>}} to the file named by
${METRICS_ENV}: the line the job's shell writes before each of its commands (the same
line, by the same writer, as `plugin.source.stage_command(NAME)` renders). It never
blocks, appends only to a regular file (a link in the file's place is not followed),
writes the whole line or nothing, and starts a fresh line after a cut one."""

EPILOG = f"""\
examples:
  {PROG} stage export --file runs/7/metrics.jsonl
  {METRICS_ENV}=runs/7/metrics.jsonl {PROG} stage merge

{EXIT_CODES}"""

WRITER_TIMEOUT = 60.0
"""Seconds the plugin's writer may take; it never blocks, so this is a broken machine."""


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


def run(args: argparse.Namespace) -> int:
    path = args.file or os.environ.get(METRICS_ENV)
    if not path:
        raise CliError(f"${METRICS_ENV} is not set (or give --file)")
    command = [sys.executable, str(PLUGIN_PATH), "stage", args.name]
    try:
        done = subprocess.run(
            command,
            env={**os.environ, METRICS_ENV: path},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="backslashreplace",
            timeout=WRITER_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CliError(shown(f"{path}: the plugin's writer did not run ({error})")) from error
    if done.returncode != 0:
        said = done.stderr.strip() or f"the plugin's writer ended with status {done.returncode}"
        raise CliError(shown(said.removeprefix("overbrainer_metrics: ")))
    return OK

"""`snapshot RUN`: ask the plugin for a snapshot; `--wait` for its proof."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from ..contract import SNAPSHOT_FILE, SNAPSHOT_REQUEST
from ..runs import WORD, read_snapshot, resolve
from ._common import EXIT_CODES, INVALID, OK, PROG, USAGE, CliError, formatter

DEFAULT_WAIT = 3600.0

DESCRIPTION = f"""\
Write {SNAPSHOT_REQUEST} into the run folder, atomically (a temporary file, then a rename),
holding the reason: one word of 1 to 64 letters, digits, `_` or `-`. At the end of its
current step the plugin saves a checkpoint, stops the training and writes {SNAPSHOT_FILE}.
With --wait, wait for that proof and print it (exit 1 when the time runs out).
Delete or rename {SNAPSHOT_REQUEST} before resuming from the checkpoint."""

EPILOG = f"""\
examples:
  {PROG} snapshot runs/7
  {PROG} snapshot runs/7 --reason before-merge --wait 600

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "snapshot",
        parents=parents,
        help="ask the plugin for a snapshot (checkpoint and stop)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument("run_name", metavar="RUN", help="the run folder (or its metrics file)")
    parser.add_argument("--reason", default="manual", help="one word (default: manual)")
    parser.add_argument(
        "--wait",
        nargs="?",
        type=float,
        const=DEFAULT_WAIT,
        default=None,
        metavar="SECONDS",
        help=f"wait for {SNAPSHOT_FILE} and print it (default {DEFAULT_WAIT:.0f} s)",
    )
    parser.add_argument(
        "--interval", type=float, default=0.5, help="seconds between looks (default 0.5)"
    )
    parser.set_defaults(run=run)


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


def write_request(folder: Path, reason: str) -> Path:
    """Write `snapshot.request` in `folder` atomically; its path."""
    target = folder / SNAPSHOT_REQUEST
    descriptor, temporary = tempfile.mkstemp(prefix=f".{SNAPSHOT_REQUEST}.", dir=folder)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(f"{reason}\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def run(args: argparse.Namespace) -> int:
    if not WORD.match(args.reason):
        raise CliError(
            f"the reason must be one word of 1 to 64 letters, digits, _ or -: {args.reason!r}"
        )
    target = resolve(args.run_name, must_exist=False)
    folder = target.folder
    if folder is None:
        raise CliError("a snapshot needs a run folder, not standard input")
    if not folder.is_dir():
        raise CliError(f"{args.run_name}: no such run folder", USAGE)
    proof = folder / SNAPSHOT_FILE
    before = _identity(proof)
    try:
        request = write_request(folder, args.reason)
    except OSError as error:
        raise CliError(
            f"{folder}: cannot write {SNAPSHOT_REQUEST}: {error.strerror or error}"
        ) from error
    print(f"requested a snapshot ({args.reason}): {request}", file=sys.stderr)
    if args.wait is None:
        return OK
    deadline = time.monotonic() + args.wait
    while True:
        now = _identity(proof)
        if now is not None and now != before:
            try:
                read_snapshot(proof)
            except (msgspec.ValidationError, msgspec.DecodeError) as error:
                raise CliError(f"{proof}: not a valid proof: {error}", INVALID) from error
            except FileNotFoundError:
                pass
            else:
                sys.stdout.write(proof.read_text(encoding="utf-8").rstrip("\n") + "\n")
                return OK
        if time.monotonic() >= deadline:
            raise CliError(f"no {SNAPSHOT_FILE} in {folder} after {args.wait:g} s", INVALID)
        time.sleep(max(0.0, min(args.interval, deadline - time.monotonic())))

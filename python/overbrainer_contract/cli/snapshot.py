"""`snapshot RUN`: ask the plugin for a snapshot; `--wait` for its proof."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from .. import _core
from .._models.status_report_schema import SnapshotState
from ..contract.constants import SNAPSHOT_FILE, SNAPSHOT_REQUEST
from ..contract.models import Begin, End, Stage
from ..files import sidefile
from ..files.atomic import write_atomically
from ..files.follower import Follower
from ..plugin.source import JOB_STAGES
from ..runs.state import RunError, resolve
from ..text.shown import shown
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    USAGE,
    CliError,
    formatter,
    refuse_folder_of_runs,
    seconds,
)

DEFAULT_WAIT = 3600.0
MAX_WAIT = 7 * 86400.0
"""The longest --wait: a week."""
MIN_INTERVAL, MAX_INTERVAL = 0.01, 3600.0
"""The seconds between looks: a floor (no busy polling), and an hour."""

TRAIN = JOB_STAGES[0]

DESCRIPTION = f"""\
Write {SNAPSHOT_REQUEST} into the run folder, atomically (a temporary file of a name no one
can guess, created exclusively, then a rename; one a killed snapshot left is removed by
the next once its process is gone), holding the reason: one word of 1 to 64 letters, digits, `_`
or `-`. At the end of its current step the plugin saves a checkpoint, stops the training
and writes {SNAPSHOT_FILE}.
A run that has ended (its latest `end` line, or a stage after training, with no `begin`
since) takes no snapshot: that is said, nothing is written, exit 1.
With --wait, wait for that proof (a snapshot.json newer than the request) and print it;
exit 1 when the time runs out (the request stays: the run may still take it), or as soon
as the run shows it ended without one (an `end` line written after the request, or a stage
after training, up to `compare`: the request, still the one written, is removed, so that a
run resumed later does not stop at once). A folder of runs is refused (the runs found are
named: snapshot one), as is any --wait or --interval that is not a number of seconds in
range, before anything is written. The request is written with the mode your umask
gives a new file (readable by the plugin's user). Delete or rename {SNAPSHOT_REQUEST}
before resuming from the checkpoint."""

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
        type=seconds(0.0, MAX_WAIT),
        const=DEFAULT_WAIT,
        default=None,
        metavar="SECONDS",
        help=f"wait for {SNAPSHOT_FILE} and print it, up to {MAX_WAIT:g} s"
        f" (default {DEFAULT_WAIT:.0f} s)",
    )
    parser.add_argument(
        "--interval",
        type=seconds(MIN_INTERVAL, MAX_INTERVAL),
        default=0.5,
        help=f"seconds between looks, {MIN_INTERVAL:g} to {MAX_INTERVAL:g} (default 0.5)",
    )
    parser.set_defaults(run=run)


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


def write_request(folder: Path, reason: str) -> Path:
    """Write `snapshot.request` in `folder` atomically (`files.atomic`: an exclusive
    temporary of a name no one can plant ahead, then a rename; stale temporaries of a
    snapshot killed meanwhile removed first), with the mode the user's umask gives a new
    file (0600 would hide the reason from a plugin running as another user); its path."""
    target = folder / SNAPSHOT_REQUEST
    write_atomically(target, f"{reason}\n".encode("ascii"))
    return target


def run(args: argparse.Namespace) -> int:
    if not _core.is_word(args.reason):
        raise CliError(
            f"the reason must be one word of 1 to 64 letters, digits, _ or -: {args.reason!r}"
        )
    try:
        target = resolve(args.run_name, must_exist=False)
    except RunError as error:
        raise CliError(shown(str(error))) from error
    folder = target.folder
    if folder is None or target.metrics is None:
        raise CliError("a snapshot needs a run folder, not standard input")
    if not folder.is_dir():
        raise CliError(f"{shown(args.run_name)}: no such run folder", USAGE)
    refuse_folder_of_runs(args.run_name, "a snapshot asks")
    proof = folder / SNAPSHOT_FILE
    before = _identity(proof)
    with contextlib.closing(Follower(target.metrics)) as follower:
        # What the run said before the request; the lines after it are followed from here.
        ended_before = _ended(follower)
        if ended_before is not None:
            raise CliError(
                f"{shown(args.run_name)}: the run has ended ({ended_before}): no snapshot will"
                f" come; no {SNAPSHOT_REQUEST} written",
                INVALID,
            )
        try:
            request = write_request(folder, args.reason)
            written = _identity(request)
            requested_at = request.stat().st_mtime_ns
        except OSError as error:
            raise CliError(
                shown(f"{folder}: cannot write {SNAPSHOT_REQUEST}: {error.strerror or error}")
            ) from error
        print(f"requested a snapshot ({args.reason}): {shown(str(request))}", file=sys.stderr)
        if args.wait is None:
            return OK
        try:
            return _wait(proof, before, requested_at, follower, args.wait, args.interval)
        except Ended as ended:
            removed = _identity(request) == written and _remove(request)
            gone = f"; {SNAPSHOT_REQUEST} removed" if removed else ""
            raise CliError(f"{ended}{gone}", INVALID) from None


class Ended(Exception):
    """The run ended after the request without a new proof."""


def _remove(request: Path) -> bool:
    """Remove the request written (the run that ended will not take it); whether it did."""
    try:
        request.unlink()
    except OSError:
        return False
    return True


def _wait(
    proof: Path,
    before: tuple[int, int, int] | None,
    requested_at: int,
    follower: Follower[Any],
    wait: float,
    interval: float,
) -> int:
    """Wait for a proof newer than the request; `Ended` when the run ends without one,
    exit 1 when the time runs out."""
    deadline = time.monotonic() + wait
    while True:
        if _print_new_proof(proof, before, requested_at):
            return OK
        ended = _ended(follower)
        if ended is not None:
            if _print_new_proof(proof, before, requested_at):  # written just before the end
                return OK
            raise Ended(
                f"the run ended ({ended}, after the request) without a new {SNAPSHOT_FILE}"
                f" in {shown(str(proof.parent))}"
            )
        if time.monotonic() >= deadline:
            older = "; the one there is older than the request" if before is not None else ""
            raise CliError(
                f"no new {SNAPSHOT_FILE} in {shown(str(proof.parent))} after {wait:g} s{older}",
                INVALID,
            )
        time.sleep(max(0.0, min(interval, deadline - time.monotonic())))


def _print_new_proof(proof: Path, before: tuple[int, int, int] | None, requested_at: int) -> bool:
    """Print the proof if there is one that answers the request (the core's pending rule:
    a valid proof not older than the request); whether it did."""
    now = _identity(proof)
    if now is None or now == before:
        return False
    try:
        read = sidefile.read_stamped(proof, sidefile.PROOF_LIMIT)
    except sidefile.SideFileError as error:
        raise CliError(shown(str(error))) from error
    if read is None:
        return False
    asked = (b"", requested_at / 1e9)  # the request's words do not matter here
    state = _core.snapshot_state(asked, (read[0], read[1] / 1e9))
    answered = msgspec.json.decode(state, type=SnapshotState)
    if answered.taken is None:  # not a proof: every problem, in the core's words
        said = "; ".join(
            message if path == "$" else f"{path}: {message}"
            for path, message in _core.proof_problems(read[0])
        )
        raise CliError(shown(f"{proof}: not a valid proof: {said}"), INVALID)
    if answered.pending:  # older than the request
        return False
    # JSON again, as the plugin writes it: ASCII, every control character in its strings
    # (a checkpoint's path, a reason) an escape that no terminal acts on.
    document = msgspec.json.decode(read[0])
    sys.stdout.write(json.dumps(document, separators=(",", ":"), ensure_ascii=True) + "\n")
    return True


def _ended(follower: Follower[Any], ended: str | None = None) -> str | None:
    """How the run shows it ended, from the lines not read yet (`ended`: what the lines
    before said): its latest `end` line, or a stage after training (the job moved on),
    unless training began again after it; None while it has not ended."""
    while True:
        try:
            lines = follower.poll()
        except sidefile.SideFileError as error:
            raise CliError(shown(str(error))) from error
        for item in lines or ():
            if item[0] != "line":  # logs change nothing here; a bad line says nothing
                continue
            line = item[2]
            if isinstance(line, End):
                ended = f"an end line at step {line.step:,}"
            elif isinstance(line, Stage):
                name = line.name.value
                ended = None if name == TRAIN else f"the {shown(name)} stage began"
            elif isinstance(line, Begin):
                ended = None
        if not follower.behind:
            return ended

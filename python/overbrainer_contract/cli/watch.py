"""`watch RUN`: follow a growing metrics file live, until the job is done."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract.models import Begin, End, Eval, Log, MetricLine, Stage
from ..plugin.source import JOB_STAGES
from ..reader import EvalMark, ParseError
from ..runs import clock
from ..runs.follower import Change, Follower
from ..runs.shown import shown
from ..runs.sidefile import SideFileError, open_metrics
from ..runs.signatures import GZIP_MAGIC, is_gzip_name
from ..runs.sizes import overlong_reason
from ..runs.state import RunError, RunState, resolve
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    CliError,
    add_max_line,
    colour_on,
    format_duration,
    formatter,
    refuse_folder_of_runs,
    seconds,
)

if TYPE_CHECKING:
    from overbrainer_contract_core._core import StateItem

LAST_STAGE = JOB_STAGES[-1]

MIN_INTERVAL, MAX_INTERVAL = 0.01, 3600.0
"""The seconds between looks: a floor (no busy polling of the file), and an hour."""
MAX_GRACE = 86400.0
"""The most seconds waited after the end line: a day."""

DESCRIPTION = f"""\
Follow a run's metrics file as it grows: read only what was appended, hold a partial
last line until its newline, wait for a file that does not exist yet. Shows the stage,
a progress bar with the time left (from the pace of the training logs), the evaluations
and their progress. Leaves by itself when the job's last stage (`{LAST_STAGE}`) starts,
or when --grace seconds pass after the `end` line (or a stage line after it) with
nothing new; Ctrl-C leaves at once (exit 130). Exit 1 when an invalid line was seen.

The progress says when the last line came (`last line 25 s ago`, from the lines' `time`)
and, as tqdm does, `[elapsed<remaining, rate]`: elapsed since the latest `begin` (to the
`end` line once there is one), the time left counted down, the pace's steps per second
(once ended, the training's average: its steps over its elapsed time).
The ETA is shown as `eta stale`, not counted down, once the run has been silent for
longer than 50 steps take at its pace (never under 2 minutes): said once as an event.
A folder that does not exist ends the watch at once (exit 2), as does a gzip-compressed
file (it cannot grow line by line: `check`, `status` and `plot` read it), and a folder of
runs (the runs found are named: watch one).

The file followed is the one at the path, checked at every look: one cut shorter,
rewritten in place or replaced by another file is said once and read again from its
start, as a run starting over (the progress, stage and evaluations shown are the new
file's; an invalid line seen before still makes the exit 1). A file removed is said once;
what was shown stays until a file is there again, read from its start."""

EPILOG = f"""\
examples:
  {PROG} watch runs/7
  {PROG} watch runs/7/metrics.jsonl --interval 2 --grace 60

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "watch",
        parents=parents,
        help="follow a live run: progress, ETA, evaluations, stages",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument("run_name", metavar="RUN", help="a run folder or a metrics file")
    parser.add_argument(
        "--interval",
        type=seconds(MIN_INTERVAL, MAX_INTERVAL),
        default=1.0,
        help=f"seconds between looks at the file, {MIN_INTERVAL:g} to {MAX_INTERVAL:g} (default 1)",
    )
    parser.add_argument(
        "--grace",
        type=seconds(0.0, MAX_GRACE),
        default=10.0,
        help=f"seconds to wait after the end line for a next stage, up to {MAX_GRACE:g}"
        " (default 10)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="plain lines, no progress bar (the default off a terminal)",
    )
    add_max_line(parser)
    parser.set_defaults(run=run)


@dataclass
class Span:
    """When the training being watched began and ended, from its lines' `time`."""

    began: float | None = None
    """The latest `begin` line's time (the first line's, before any `begin`)."""
    began_step: int = 0
    """The step the training stood at then (a resumed run's begins later)."""
    ended: float | None = None
    """The `end` line's time after it, once there is one."""

    def take(self, line: MetricLine, step: int) -> None:
        """Take a line into account, `step` the run's step before it."""
        if line.__class__ is Begin:
            self.began, self.began_step, self.ended = line.time, step, None
        elif line.__class__ is End:
            self.ended = line.time
        elif self.began is None:
            self.began, self.began_step = line.time, step

    def rate(self, step: int) -> float | None:
        """Steps per second from the start to the end (tqdm's average: steps over elapsed
        time), once ended; None before."""
        if self.began is None or self.ended is None or self.ended <= self.began:
            return None
        done = step - self.began_step
        return done / (self.ended - self.began) if done > 0 else None

    def elapsed(self, at: float) -> float | None:
        """Seconds from the start to the end, or to `at` while the training runs."""
        if self.began is None:
            return None
        return max((at if self.ended is None else self.ended) - self.began, 0.0)


class PlainView:
    """One line per event, progress at most every few seconds: for logs and pipes."""

    every = 5.0

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.shown = -1.0
        self.last = ""
        self.span = Span()
        self.stale_said = False

    def event(self, text: str) -> None:
        self.write(text + "\n")

    def progress(self, state: RunState, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.shown < self.every:
            return
        text = progress_text(state)
        if text == self.last:  # nothing new since the last one (the time aside)
            return
        self.shown, self.last = now, text
        self.stale_said = False
        self.write(progress_text(state, self.span, time.time()) + "\n")

    def idle(self, state: RunState) -> None:
        """Nothing new since the last look: say once that the ETA went stale."""
        if self.stale_said or state.ended:
            return
        estimate = clock.estimate_run(state, time.time())
        if estimate.stale:
            self.stale_said = True
            self.event(f"eta stale: {clock.last_line_text(state.last_time)}")

    def close(self) -> None:
        pass


def progress_text(state: RunState, span: Span | None = None, at: float | None = None) -> str:
    """`step 2/4, loss 2, eval loss 2.5, eta 0:00:02`; with `span`, the time shown too:
    `…, eta 0:00:02, last line 1 s ago [00:02<00:02, 1.00it/s]` (the ETA counted down to
    `at`, or `eta stale`; `runs.clock`)."""
    total = state.total_steps
    parts = [f"step {state.step:,}" + (f"/{total:,}" if total is not None else "")]
    if state.loss is not None:
        parts.append(f"loss {state.loss.value:.4g}")
    if state.eval_loss is not None:
        parts.append(f"eval loss {state.eval_loss.value:.4g}")
    if span is None:
        eta = state.pace.eta_seconds()
        if not state.ended:
            parts.append(f"eta {'?' if eta is None else format_duration(eta)}")
        return ", ".join(parts)
    at = clock.now() if at is None else at
    estimate = clock.estimate_run(state, at)
    if state.ended:  # nothing left; the rate: the training's average
        rate = span.rate(state.step)
        step_seconds = None if rate is None else 1.0 / rate
        estimate = clock.Estimate(0.0, False, estimate.silence, step_seconds)
    else:
        parts.append(estimate.text())
    parts.append(clock.last_line_text(state.last_time, at))
    return ", ".join(parts) + " " + clock.tqdm_text(span.elapsed(at), estimate)


class RichView:
    """A rich progress bar with the time left, and one for the evaluation under way."""

    def __init__(self, colour: bool) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        console = Console(no_color=not colour, highlight=False)
        self.bar = Progress(
            # The stage's name comes from the file: shown, and never read as markup.
            TextColumn("{task.description}", markup=False, highlighter=None),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}", markup=False, highlighter=None),
            console=console,
        )
        self.bar.start()
        self.train = self.bar.add_task("waiting", total=None, info="")
        self.evaluation: Any = None
        self.span = Span()

    def event(self, text: str) -> None:
        self.bar.console.print(text, markup=False)

    def progress(self, state: RunState, force: bool = False) -> None:  # noqa: ARG002
        label = shown(state.stage) if state.stage else ("training" if state.began else "waiting")
        info = progress_text(state, self.span).partition(", ")[2]
        self.bar.update(
            self.train, description=label, completed=state.step, total=state.total_steps, info=info
        )
        mark = state.evaluation
        if mark is None:
            if self.evaluation is not None:
                self.bar.remove_task(self.evaluation)
                self.evaluation = None
            return
        if self.evaluation is None:
            self.evaluation = self.bar.add_task("evaluation", total=mark.total, info="")
        self.bar.update(self.evaluation, completed=mark.step, total=mark.total)

    def idle(self, state: RunState) -> None:
        """Nothing new since the last look: the time shown moves on."""
        self.progress(state)

    def close(self) -> None:
        self.bar.stop()


def describe(line: MetricLine, state: RunState, was: EvalMark | None) -> str | None:
    """The event a line is worth showing for, if any (`was`: the evaluation before it).
    (The parser's classes are exact: compared by identity, cheaper than `isinstance` on
    msgspec's classes, on every evaluation line of a backlog.)"""
    kind = line.__class__
    if kind is Eval:
        return None if was is not None else f"evaluation at step {state.pace.step:,}"
    if kind is Stage:
        return f"stage {shown(line.name.value)}"  # type: ignore[union-attr]
    if kind is Begin:
        steps = line.max_steps  # type: ignore[union-attr]
        return "training began" + ("" if not isinstance(steps, int) else f": {steps:,} steps")
    if kind is Log and isinstance(line.eval_loss, float):  # type: ignore[union-attr]
        return eval_loss_event(line)  # type: ignore[arg-type]
    if kind is End:
        return f"training ended at step {line.step:,}"  # type: ignore[union-attr]
    return None


def run(args: argparse.Namespace) -> int:
    if args.run_name == "-":
        raise CliError("watch follows a file or a run folder, not standard input")
    try:
        target = resolve(args.run_name, must_exist=False)
    except RunError as error:  # pragma: no cover - resolve does not fail without must_exist
        raise CliError(str(error)) from error
    assert target.metrics is not None
    refuse_folder_of_runs(args.run_name, "watch follows")
    _refuse_unfollowable(args.run_name, target.metrics)
    plain = args.plain or not sys.stdout.isatty()
    view: PlainView | RichView
    if not plain:
        try:
            view = RichView(colour_on(sys.stdout, args.color))
        except ImportError:
            plain = True
    if plain:
        view = PlainView(_write)
    try:
        return follow(target.metrics, args.interval, args.grace, view, args.max_line)
    finally:
        view.close()


def _refuse_unfollowable(name: str, metrics: Path) -> None:
    """A metrics file whose folder does not exist (nothing will write into it), or one
    compressed with gzip (it cannot grow line by line): exit 2 at once."""
    folder = metrics.parent
    if not folder.is_dir():
        where = name if metrics.name != Path(name).name else str(folder)
        raise CliError(f"{shown(where)}: no such folder")
    gzipped = metrics.with_name(metrics.name + ".gz")
    if is_gzip_name(metrics) or (not metrics.exists() and gzipped.exists()):
        compressed = metrics if is_gzip_name(metrics) else gzipped
        raise CliError(
            f"{shown(str(compressed))}: compressed with gzip: watch cannot follow one ({_READERS})"
        )
    try:
        with open_metrics(metrics, pipe=False) as handle:
            start = handle.read(len(GZIP_MAGIC))
    except OSError:  # absent (watch waits for it), or what the follower will say
        return
    if start == GZIP_MAGIC:
        raise CliError(
            f"{shown(str(metrics))}: compressed with gzip: watch cannot follow one ({_READERS})"
        )


_READERS = "check, status and plot read it"


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def follow(
    path: Path,
    interval: float,
    grace: float,
    view: PlainView | RichView,
    max_line: int | None = None,
) -> int:
    """Follow `path` until the job is done; the exit status.

    A backlog is read a chunk at a time (`Follower`), without waiting between chunks: the
    memory stays flat. The core reads the lines and keeps those the run's state is made of
    (`reader.StateScan`): of a run of logs, the few the state depends on and every one with
    an evaluation loss, taken at once (`RunState.take_logs`); every other line, one at a
    time. The same events, in the same order, as taking each line in turn.
    """
    follower = Follower(path, max_line=max_line)
    state = RunState()
    waiting_said = False
    had_file = False
    first = True
    quiet_since = time.monotonic()

    def taken(items: list[StateItem]) -> int | None:
        """Take what the core kept of the new lines and show their events; the number of
        the line after which the job is done, or None."""
        for item in items:
            what = item[0]
            if what == "logs":
                if view.span.began is None:
                    view.span.take(item[1][0], state.step)
                for log in state.take_logs(item[1]):
                    if not first:
                        view.event(eval_loss_event(log))
                continue
            line_number: int = item[1]
            if what == "line":
                line = item[2]
                was = state.evaluation
                view.span.take(line, state.step)
                state.take(line)
                text = describe(line, state, was)
                if text is not None and not (first and isinstance(line, Eval)):
                    view.event(text)
                if isinstance(line, Stage) and line.name.value == LAST_STAGE:
                    return line_number
                continue
            state.invalid += 1
            view.event(_invalid(path, line_number, item))
        return None

    try:
        while True:
            seen = follower.lines
            try:
                items = follower.poll()
            except SideFileError as error:
                raise CliError(shown(str(error))) from error
            if follower.change is not None:
                view.event(change_text(path, follower.change))
            if follower.restarted:  # a run starting over; what was invalid stays seen
                follower.restarted = False
                invalid, state, seen = state.invalid, RunState(), 0
                state.invalid = invalid
                view.span = Span()
            if items is None:
                if not had_file:
                    if not waiting_said:
                        view.event(f"waiting for {shown(str(path))}")
                        waiting_said = True
                    time.sleep(interval)
                    continue
                items = []  # removed: what was shown stays, and the time goes on
            had_file = True
            done_at = taken(items)
            if done_at is not None:
                state.lines += done_at - seen
                view.progress(state, force=True)
                return INVALID if state.invalid else OK
            state.lines += follower.lines - seen
            if follower.behind:  # a backlog: on to its next chunk at once
                continue
            now = time.monotonic()
            if follower.lines > seen:
                quiet_since = now
                view.progress(state, force=first)
            else:
                view.idle(state)
            done = state.ended or (state.stage is not None and state.stage != "train")
            if done:
                caught_up_old = (
                    first and state.last_time is not None and time.time() - state.last_time > grace
                )
                if caught_up_old or now - quiet_since >= grace:
                    view.progress(state, force=True)
                    return INVALID if state.invalid else OK
            first = False
            time.sleep(interval)
    finally:
        follower.close()


def change_text(path: Path, change: Change) -> str:
    """The event of a look that found another file than the one read (`Follower.change`)."""
    name = shown(str(path))
    if change is Change.REMOVED:
        return f"{name} was removed: waiting for it to come back (the run as last read shown)"
    if change is Change.REPLACED:
        return f"{name} was replaced by another file: reading the new file from its start"
    if change is Change.BACK:
        return f"{name} is there again: reading the new file from its start"
    how = "truncated" if change is Change.TRUNCATED else "rewritten in place"
    return f"{name} was {how}: reading it again from its start"


def eval_loss_event(log: Log) -> str:
    """The event of a log with an evaluation loss."""
    return f"eval loss {log.eval_loss:.4g} at step {log.step:,}"


def _invalid(path: Path, number: int, item: StateItem) -> str:
    """The event of a line the reader rejects (`rejected`) or over the bound (`over`)."""
    name = shown(str(path))
    if item[0] == "over":
        return f"{name}:{number} $: {overlong_reason(*item[2:])}"
    error: ParseError = item[2]
    return f"{name}:{number} {shown(error.path or '$')}: {shown(str(error))}"

"""`watch RUN`: follow a growing metrics file live, until the job is done."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract.models import Begin, End, Eval, Log, MetricLine, Stage
from ..plugin.source import JOB_STAGES
from ..reader import EvalMark, ParseError
from ..runs.follower import Follower
from ..runs.sidefile import SideFileError
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
)

if TYPE_CHECKING:
    from overbrainer_contract_core._core import StateItem

LAST_STAGE = JOB_STAGES[-1]

DESCRIPTION = f"""\
Follow a run's metrics file as it grows: read only what was appended, hold a partial
last line until its newline, wait for a file that does not exist yet. Shows the stage,
a progress bar with the time left (from the pace of the training logs), the evaluations
and their progress. Leaves by itself when the job's last stage (`{LAST_STAGE}`) starts,
or when --grace seconds pass after the `end` line (or a stage line after it) with
nothing new; Ctrl-C leaves at once (exit 130). Exit 1 when an invalid line was seen."""

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
        "--interval", type=float, default=1.0, help="seconds between looks at the file (default 1)"
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=10.0,
        help="seconds to wait after the end line for a next stage (default 10)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="plain lines, no progress bar (the default off a terminal)",
    )
    add_max_line(parser)
    parser.set_defaults(run=run)


class PlainView:
    """One line per event, progress at most every few seconds: for logs and pipes."""

    every = 5.0

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.shown = -1.0
        self.last = ""

    def event(self, text: str) -> None:
        self.write(text + "\n")

    def progress(self, state: RunState, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.shown < self.every:
            return
        text = progress_text(state)
        if text == self.last:  # nothing new since the last one
            return
        self.shown, self.last = now, text
        self.write(text + "\n")

    def close(self) -> None:
        pass


def progress_text(state: RunState) -> str:
    total = state.total_steps
    parts = [f"step {state.step:,}" + (f"/{total:,}" if total is not None else "")]
    if state.loss is not None:
        parts.append(f"loss {state.loss.value:.4g}")
    if state.eval_loss is not None:
        parts.append(f"eval loss {state.eval_loss.value:.4g}")
    eta = state.pace.eta_seconds()
    if not state.ended:
        parts.append(f"eta {'?' if eta is None else format_duration(eta)}")
    return ", ".join(parts)


class RichView:
    """A rich progress bar with the time left, and one for the evaluation under way."""

    def __init__(self, colour: bool) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        console = Console(no_color=not colour, highlight=False)
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            console=console,
        )
        self.bar.start()
        self.train = self.bar.add_task("waiting", total=None, info="")
        self.evaluation: Any = None

    def event(self, text: str) -> None:
        self.bar.console.print(text, markup=False)

    def progress(self, state: RunState, force: bool = False) -> None:  # noqa: ARG002
        label = state.stage or ("training" if state.began else "waiting")
        info = progress_text(state).partition(", ")[2]
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
        return f"stage {line.name.value}"  # type: ignore[union-attr]
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
    first = True
    quiet_since = time.monotonic()

    def taken(items: list[StateItem]) -> int | None:
        """Take what the core kept of the new lines and show their events; the number of
        the line after which the job is done, or None."""
        for item in items:
            what = item[0]
            if what == "logs":
                for shown in state.take_logs(item[1]):
                    if not first:
                        view.event(eval_loss_event(shown))
                continue
            line_number: int = item[1]
            if what == "line":
                line = item[2]
                was = state.evaluation
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
                raise CliError(str(error)) from error
            if items is None:
                if not waiting_said:
                    view.event(f"waiting for {path}")
                    waiting_said = True
                time.sleep(interval)
                continue
            if follower.restarted:
                follower.restarted = False
                view.event(f"{path} was truncated or replaced: reading it again")
                state, seen = RunState(), 0
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


def eval_loss_event(log: Log) -> str:
    """The event of a log with an evaluation loss."""
    return f"eval loss {log.eval_loss:.4g} at step {log.step:,}"


def _invalid(path: Path, number: int, item: StateItem) -> str:
    """The event of a line the reader rejects (`rejected`) or over the bound (`over`)."""
    if item[0] == "over":
        return f"{path}:{number} $: {overlong_reason(*item[2:])}"
    error: ParseError = item[2]
    return f"{path}:{number} {error.path or '$'}: {error}"

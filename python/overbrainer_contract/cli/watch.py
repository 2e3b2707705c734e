"""`watch RUN`: follow a growing metrics file live, until the job is done; `watch SWEEP`:
every run below a folder, runs started meanwhile too, until each is done."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from .. import _core
from .._models.status_report_schema import Alert, StatusReport
from ..files.follower import Follower
from ..files.sidefile import SideFileError, open_metrics
from ..files.signatures import GZIP_MAGIC, is_gzip_name
from ..plugin.source import JOB_STAGES
from ..reader import (
    EvaluationEnded,
    EvaluationResult,
    EvaluationStarted,
    LineOver,
    LineRejected,
    WatchScan,
)
from ..runs import clock
from ..runs.discover import discover, metrics_in
from ..runs.state import RunError, names_below, resolve, unit_of
from ..text.shown import shown
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    USAGE,
    CliError,
    add_max_line,
    colour_on,
    formatter,
    say,
    seconds,
)

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from .._core import WatchEvent

LAST_STAGE = JOB_STAGES[-1]

MIN_INTERVAL, MAX_INTERVAL = 0.01, 3600.0
"""The seconds between looks: a floor (no busy polling of the file), and an hour."""
MAX_GRACE = 86400.0
"""The most seconds waited after the end line: a day."""
PLAIN_EVERY = 5.0
"""The fewest seconds between two progress lines of the plain view (off a terminal)."""

ON_ALERT_TIMEOUT = 30.0
"""The seconds an `--on-alert` command may take by default before it is killed."""

RESCAN_EVERY = 2.0
"""The fewest seconds between two looks for new runs below a sweep's folder (a walk of its
folders); a walk is spaced out to at least three times as long as the last one took."""


DESCRIPTION = f"""\
Follow a run's metrics file as it grows: read only what was appended, hold a partial
last line until its newline, wait for a file that does not exist yet. Shows the stage,
a progress bar with the time left (from the pace of the training logs), the evaluations
and their progress. Off a terminal (piped) or with --plain: a line each event (a stage, a
training's begin and end, an evaluation's start, end and eval loss) and the progress at
most every {PLAIN_EVERY:g} s. Leaves by itself when the job's last stage (`{LAST_STAGE}`) starts,
or when --grace seconds pass after the `end` line (or a stage line after it) with
nothing new; Ctrl-C leaves at once (exit 130). Exit 1 when an invalid line was seen.

The progress says when the last line came (`last line 25 s ago`, from the lines' `time`)
and, as tqdm does, `[elapsed<remaining, rate]`: elapsed since the latest `begin` (to the
`end` line once there is one), the time left counted down, the pace's steps per second
(once ended, the training's average: its steps over its elapsed time).
The ETA is shown as `eta stale`, not counted down, once the run has been silent for
longer than 50 steps take at its pace (never under 2 minutes): said once as an event.
A folder that does not exist ends the watch at once (exit 2), as does a gzip-compressed
file (it cannot grow line by line: `check`, `status` and `plot` read it).

A folder of runs (a sweep: run folders below it, at any depth) is followed whole: every run
found, and every run started below it while it is watched (looked for every {RESCAN_EVERY:g} s
at the most often), each line led by the run's name, its path below the folder (`exp1/seed1:
training began: 100 steps`); on a terminal, a bar a run. Each run is left as one run is;
the watch leaves once every run has, and no new run was found after. A gzip-compressed run
is said and not followed; a run whose metrics file is no file (a FIFO) is said and left,
and the exit is 2. A folder with no run below is a run folder still to come: waited for.

The file followed is the one at the path, checked at every look: one cut shorter,
rewritten in place or replaced by another file is said once and read again from its
start, as a run starting over (the progress, stage and evaluations shown are the new
file's; an invalid line seen before still makes the exit 1). A file removed is said once;
what was shown stays until a file is there again, read from its start.

--on-alert CMD runs CMD once for each new alert of a run (the alerts `status` shows: stalled,
nonfinite, spike, invalid), from the core's fold of the lines read so far, at each look once
the backlog is read. An alert is its run, its kind and its step: one that stands look after
look is not run again; one that goes and comes back (a run silent again) is new, as is a
later spike. The alerts there when the watch begins are new to it. CMD is split as a shell
splits words (shlex) and run directly, never by a shell, one at a time, with
OVERBRAINER_ALERT (the kind), OVERBRAINER_STEP (empty when the alert has none),
OVERBRAINER_RUN (the run's path, its bytes as they are) and OVERBRAINER_MESSAGE in its
environment, its standard output sent to standard error. One that fails (not found, a
non-zero exit, past --on-alert-timeout seconds: its process group killed) is said on
standard error and the watch goes on."""

EPILOG = f"""\
examples:
  {PROG} watch runs/7
  {PROG} watch runs/7/metrics.jsonl --interval 2 --grace 60
  {PROG} watch sweep/ | grep 'eval loss'
  {PROG} watch sweep/ --on-alert 'notify-send overbrainer'

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "watch",
        parents=parents,
        help="follow a live run or sweep: progress, ETA, evaluations, stages",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument(
        "run_name", metavar="RUN", help="a run folder, a metrics file or a folder of runs"
    )
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
    parser.add_argument(
        "--on-alert",
        type=command,
        default=None,
        metavar="CMD",
        help="a command run once for each new alert of a run, its words split as a shell"
        " splits them, run without a shell; OVERBRAINER_ALERT, _STEP, _RUN and _MESSAGE in its"
        " environment",
    )
    parser.add_argument(
        "--on-alert-timeout",
        type=seconds(MIN_INTERVAL, MAX_GRACE),
        default=ON_ALERT_TIMEOUT,
        metavar="S",
        help=f"seconds an --on-alert command may run before it is killed (default"
        f" {ON_ALERT_TIMEOUT:g})",
    )
    add_max_line(parser)
    parser.set_defaults(run=run)


def command(text: str) -> list[str]:
    """`--on-alert CMD` (argparse's type): its words, split as a shell splits them."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{shown(repr(text))}: {error}") from error
    if not words:
        raise argparse.ArgumentTypeError("an empty command")
    return words


command.__name__ = "command"


class OnAlert:
    """`--on-alert CMD`: CMD run once for each new alert of a run, one at a time.

    A run's alerts are the core's, told at each look from its fold of the lines so far
    (`WatchScan.alerts`: kept as the lines come, so a look costs nothing of the lines read
    before it). An alert is identified by its kind and step within its run: those of the
    previous look stand, and are not run again; the others are new."""

    def __init__(self, argv: list[str], timeout: float) -> None:
        self.argv = argv
        self.timeout = timeout
        self.standing: dict[bytes, set[tuple[str, int | None]]] = {}

    def look(self, run: bytes, scan: WatchScan) -> None:
        """The run's alerts now: CMD for each that did not stand at its previous look."""
        alerts = msgspec.json.decode(scan.alerts(time.time()), type=list[Alert])
        before = self.standing.get(run, set())
        now = {(alert.kind.value, alert.step) for alert in alerts}
        self.standing[run] = now
        for alert in alerts:
            if (alert.kind.value, alert.step) not in before:
                self.call(run, alert)

    def call(self, run: bytes, alert: Alert) -> None:
        """CMD for `alert` of `run`, waited for; a failure said on standard error."""
        env = os.environb.copy()
        env[b"OVERBRAINER_ALERT"] = alert.kind.value.encode()
        env[b"OVERBRAINER_STEP"] = b"" if alert.step is None else str(alert.step).encode()
        env[b"OVERBRAINER_RUN"] = run
        env[b"OVERBRAINER_MESSAGE"] = alert.message.encode()
        what = f"--on-alert {shlex.join(self.argv)} ({alert.kind.value} of {os.fsdecode(run)})"
        try:
            process = subprocess.Popen(
                self.argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=2,  # this process's standard error: watch's standard output is its own
                start_new_session=True,  # its own process group: killed whole past the timeout
            )
        except (OSError, ValueError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            say(f"{what}: cannot run it: {reason}")
            return
        try:
            code = process.wait(self.timeout)
        except subprocess.TimeoutExpired:
            _kill(process)
            say(f"{what}: still running after {self.timeout:g} s: killed")
            return
        except BaseException:  # Ctrl-C: the command's group does not outlive the watch
            _kill(process)
            raise
        if code < 0:
            say(f"{what}: killed by signal {-code}")
        elif code != 0:
            say(f"{what}: exit status {code}")


def _kill(process: subprocess.Popen[bytes]) -> None:
    """A command's process group killed, and the command waited for."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _on_alert(args: argparse.Namespace) -> OnAlert | None:
    return None if args.on_alert is None else OnAlert(args.on_alert, args.on_alert_timeout)


@dataclass(frozen=True)
class Look:
    """What watch shows of a run at a time, all the core's: its state told at that time
    (the `StatusReport` `status -o json` writes), the time left and the mean time a step
    takes (`Estimate`; once ended, the training's average), the training's time so far."""

    report: StatusReport
    estimate: clock.Estimate
    elapsed: float | None


def look(scan: WatchScan, at: float) -> Look:
    """The run folded by `scan` as it stands at `at` (seconds since the epoch)."""
    report = msgspec.json.decode(scan.report("", "", at), type=StatusReport)
    told = scan.estimate(at)
    estimate = clock.Estimate(told.remaining, told.stale, told.silence, told.step_seconds)
    return Look(report, estimate, scan.elapsed(at))


class PlainView:
    """One line per event, progress at most every few seconds: for logs and pipes."""

    every = PLAIN_EVERY

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write
        self.shown = -1.0
        self.last = ""
        self.stale_said = False

    def event(self, text: str) -> None:
        self.write(text + "\n")

    def progress(self, scan: WatchScan, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.shown < self.every:
            return
        seen = look(scan, time.time())
        text = progress_text(seen.report)
        if text == self.last:  # nothing new since the last one (the time aside)
            return
        self.shown, self.last = now, text
        self.stale_said = False
        self.write(progress_text(seen.report, seen) + "\n")

    def idle(self, scan: WatchScan) -> None:
        """Nothing new since the last look: say once that the ETA went stale."""
        if self.stale_said:
            return
        report = look(scan, time.time()).report
        if report.eta_stale:  # never once ended
            self.stale_said = True
            self.event(_core.stale_event(msgspec.json.encode(report)))

    def close(self) -> None:
        pass


def progress_text(report: StatusReport, seen: Look | None = None) -> str:
    """The progress line in the core's words (`view::progress`): `step 2/4, loss 2, eval
    loss 2.5, eta 0:00:02` (the pace's ETA); with `seen`, the time shown too: `…, eta
    0:00:02, last line 1 s ago [00:02<00:02, 1.00it/s]` (the ETA counted down to the
    report's time, or `eta stale`)."""
    told = None
    if seen is not None:
        estimate = seen.estimate
        told = (
            estimate.remaining,
            estimate.stale,
            estimate.silence,
            estimate.step_seconds,
            seen.elapsed,
        )
    return shown(_core.progress(msgspec.json.encode(report), told))


class RichView:
    """A rich progress bar with the time left, and one for the evaluation under way."""

    def __init__(self, colour: bool) -> None:
        self.bar = _bars(colour)
        self.bar.start()
        self.train = self.bar.add_task("waiting", total=None, info="")
        self.evaluation: Any = None

    def event(self, text: str) -> None:
        self.bar.console.print(text, markup=False)

    def progress(self, scan: WatchScan, force: bool = False) -> None:  # noqa: ARG002
        seen = look(scan, time.time())
        report = seen.report
        label, info = bar_text(seen)
        self.bar.update(
            self.train,
            description=label,
            completed=report.step,
            total=report.max_steps,
            info=info,
        )
        mark = report.evaluation
        if mark is None:
            if self.evaluation is not None:
                self.bar.remove_task(self.evaluation)
                self.evaluation = None
            return
        if self.evaluation is None:
            self.evaluation = self.bar.add_task("evaluation", total=mark.total, info="")
        self.bar.update(self.evaluation, completed=mark.step, total=mark.total)

    def idle(self, scan: WatchScan) -> None:
        """Nothing new since the last look: the time shown moves on."""
        self.progress(scan)

    def close(self) -> None:
        self.bar.stop()


def _bars(colour: bool) -> Progress:
    """Rich's progress bars as watch lays them out: a label, the bar, the steps, the rest of
    the progress line."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(no_color=not colour, highlight=False)
    return Progress(
        # The labels come from the file and its name: shown, and never read as markup.
        TextColumn("{task.description}", markup=False, highlighter=None),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}", markup=False, highlighter=None),
        console=console,
    )


def bar_text(seen: Look) -> tuple[str, str]:
    """A run's bar's label (its stage, shown; `training` or `waiting` before any) and the
    text after the bar (the progress line past its step)."""
    report = seen.report
    if report.stage is not None:
        label = shown(report.stage.value)
    else:
        label = "training" if report.begins else "waiting"
    return label, progress_text(report, seen).partition(", ")[2]


class SweepBars:
    """A sweep on a terminal: a bar a run, led by its name (`RunRow`), and each event above
    them as a line led by its run's name."""

    def __init__(self, colour: bool) -> None:
        self.bar = _bars(colour)
        self.bar.start()

    def row(self, name: str) -> RunRow:
        return RunRow(self.bar, name)

    def close(self) -> None:
        self.bar.stop()


class RunRow:
    """One run's bar among a sweep's (`SweepBars`), there from its first progress (a run
    said and not followed has none); `name` is shown already."""

    def __init__(self, bar: Progress, name: str) -> None:
        self.bar = bar
        self.name = name
        self.task: TaskID | None = None

    def event(self, text: str) -> None:
        self.bar.console.print(f"{self.name}: {text}", markup=False)

    def progress(self, scan: WatchScan, force: bool = False) -> None:  # noqa: ARG002
        seen = look(scan, time.time())
        label, info = bar_text(seen)
        if self.task is None:
            self.task = self.bar.add_task("", total=None, info="")
        self.bar.update(
            self.task,
            description=f"{self.name} {label}",
            completed=seen.report.step,
            total=seen.report.max_steps,
            info=info,
        )

    def idle(self, scan: WatchScan) -> None:
        """Nothing new since the last look: the time shown moves on."""
        self.progress(scan)


def describe(path: Path, event: WatchEvent, backlog: bool) -> str | None:
    """The line an event of the core is shown as, in the core's words (`view::event_words`;
    a line's after `PATH:LINE `); None for one not shown (`backlog`: of the lines there at the
    first look, whose evaluations are not told one by one)."""
    if backlog and isinstance(event, EvaluationStarted | EvaluationEnded | EvaluationResult):
        return None
    if isinstance(event, LineRejected | LineOver):
        return f"{shown(str(path))}:{event.line} {shown(event.words)}"
    return shown(event.words)


def run(args: argparse.Namespace) -> int:
    if args.run_name == "-":
        raise CliError("watch follows a file or a run folder, not standard input")
    plain = args.plain or not sys.stdout.isatty()
    if _is_sweep(args.run_name):
        return _watch_sweep(Path(args.run_name), args, plain)
    try:
        target = resolve(args.run_name, must_exist=False)
    except RunError as error:  # pragma: no cover - resolve does not fail without must_exist
        raise CliError(str(error)) from error
    assert target.metrics is not None
    _refuse_unfollowable(args.run_name, target.metrics)
    view: PlainView | RichView
    if not plain:
        try:
            view = RichView(colour_on(sys.stdout, args.color))
        except ImportError:
            plain = True
    if plain:
        view = PlainView(_write)
    try:
        return follow(
            target.metrics,
            args.interval,
            args.grace,
            view,
            args.max_line,
            _on_alert(args),
            os.fsencode(target.name),
        )
    finally:
        view.close()


def _is_sweep(name: str) -> bool:
    """Whether `name` is a folder of runs: a folder with no metrics file of its own and a
    run below it (`runs.discover`). A folder with neither is a run folder still to come."""
    try:
        if not os.path.isdir(name) or metrics_in(Path(name)) is not None:
            return False
    except (OSError, ValueError):
        return False
    return bool(discover([name]).runs)


def _watch_sweep(folder: Path, args: argparse.Namespace, plain: bool) -> int:
    bars: SweepBars | None = None
    if not plain:
        try:
            bars = SweepBars(colour_on(sys.stdout, args.color))
        except ImportError:
            bars = None
    rows: Callable[[str], PlainView | RunRow] = _plain_row if bars is None else bars.row
    try:
        return follow_sweep(folder, args.interval, args.grace, rows, args.max_line, _on_alert(args))
    finally:
        if bars is not None:
            bars.close()


def _plain_row(name: str) -> PlainView:
    """A run's plain view among a sweep's: each line led by its name (shown already)."""
    return PlainView(lambda text: _write(f"{name}: {text}"))


def _refuse_unfollowable(name: str, metrics: Path) -> None:
    """A metrics file whose folder does not exist (nothing will write into it), or one
    compressed with gzip (it cannot grow line by line): exit 2 at once."""
    folder = metrics.parent
    if not folder.is_dir():
        where = name if metrics.name != Path(name).name else str(folder)
        raise CliError(f"{shown(where)}: no such folder")
    why = _unfollowable(metrics)
    if why is not None:
        raise CliError(why)


def _unfollowable(metrics: Path) -> str | None:
    """Why `metrics` cannot be followed, shown: compressed with gzip (by its name, a
    compressed file beside a missing one, or its first bytes); None when it can be."""
    gzipped = metrics.with_name(metrics.name + ".gz")
    if is_gzip_name(metrics) or (not metrics.exists() and gzipped.exists()):
        compressed = metrics if is_gzip_name(metrics) else gzipped
        return (
            f"{shown(str(compressed))}: compressed with gzip: watch cannot follow one ({_READERS})"
        )
    try:
        with open_metrics(metrics, pipe=False) as handle:
            start = handle.read(len(GZIP_MAGIC))
    except OSError:  # absent (watch waits for it), or what the follower will say
        return None
    if start == GZIP_MAGIC:
        return f"{shown(str(metrics))}: compressed with gzip: watch cannot follow one ({_READERS})"
    return None


_READERS = "check, status and plot read it"


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


class Watched:
    """One run followed, a look at a time (`look`): its follower, what its view was told,
    and whether the watch of it is over (`left`) and with what (`status`).

    Each look reads what was appended (at most a chunk: `behind` says more is there
    already), tells the view the run's events, and leaves the run once its job is done
    (its last stage began), or `grace` seconds after its training is over with nothing
    new. `events` holds the events of the latest look, and `scan` the run's state as the
    core folds it, for a caller that acts on what a look found.
    """

    def __init__(
        self,
        path: Path,
        grace: float,
        view: PlainView | RichView | RunRow,
        max_line: int | None = None,
    ) -> None:
        self.path = path
        self.grace = grace
        self.view = view
        self.follower = Follower(path, max_line=max_line, scan=WatchScan)
        self.invalid = False  # an invalid line seen, before a restart too
        self.left = False
        self.behind = False
        self.events: list[WatchEvent] = []
        self._waiting_said = False
        self._had_file = False
        self._first = True
        self._quiet_since = time.monotonic()

    @property
    def scan(self) -> WatchScan:
        """The scan the follower feeds (a new one at each restart): the run's state."""
        return _scan(self.follower)

    @property
    def status(self) -> int:
        """The exit status of this run's watch: 1 when an invalid line was seen."""
        return INVALID if self.invalid else OK

    def look(self) -> None:
        """One look at the file; `SideFileError` when what is at the path is no file."""
        follower, view = self.follower, self.view
        self.events = []
        self.behind = False
        seen = follower.lines
        events = follower.poll()
        if follower.change is not None:
            view.event(follower.change.text(shown(str(self.path))))
        if follower.restarted:  # a run starting over, from a new scan
            follower.restarted = False
            seen = 0
        if events is None:
            if not self._had_file:
                if not self._waiting_said:
                    view.event(f"waiting for {shown(str(self.path))}")
                    self._waiting_said = True
                return
            events = []  # removed: what was shown stays, and the time goes on
        self._had_file = True
        self.events = events
        for event in events:
            text = describe(self.path, event, self._first)
            if text is not None:
                view.event(text)
            self.invalid = self.invalid or isinstance(event, LineRejected | LineOver)
        scan = self.scan
        if scan.job_done:
            view.progress(scan, force=True)
            self.left = True
            return
        if follower.behind:  # a backlog: on to its next chunk at once
            self.behind = True
            return
        now = time.monotonic()
        if follower.lines > seen:
            self._quiet_since = now
            view.progress(scan, force=self._first)
        else:
            view.idle(scan)
        if scan.training_over:
            last_time = look(scan, time.time()).report.last_time
            caught_up_old = (
                self._first and last_time is not None and time.time() - last_time > self.grace
            )
            if caught_up_old or now - self._quiet_since >= self.grace:
                view.progress(scan, force=True)
                self.left = True
                return
        self._first = False

    def close(self) -> None:
        self.follower.close()


def follow(
    path: Path,
    interval: float,
    grace: float,
    view: PlainView | RichView,
    max_line: int | None = None,
    on_alert: OnAlert | None = None,
    run: bytes = b"",
) -> int:
    """Follow `path` until the job is done; the exit status.

    A backlog is read a chunk at a time (`Follower`), without waiting between chunks: the
    memory stays flat. The core folds the lines into the run's state and tells their
    events (`reader.WatchScan`); this shows them. With `on_alert`, its command runs for each
    new alert of the run (named `run`), at each look once the backlog is read.
    """
    watched = Watched(path, grace, view, max_line)
    try:
        while True:
            try:
                watched.look()
            except SideFileError as error:
                raise CliError(shown(str(error))) from error
            if on_alert is not None and not watched.behind:
                on_alert.look(run, watched.scan)
            if watched.left:
                return watched.status
            if not watched.behind:
                time.sleep(interval)
    finally:
        watched.close()


@dataclass
class Member:
    """A run of a sweep followed: its name (shown: as its lines lead with it) and its watch,
    whose latest look's events and state (`Watched.events`, `Watched.scan`) are the run's."""

    name: str
    watched: Watched
    run: bytes = b""
    """The run's path, its bytes as found (what `--on-alert`'s command is told)."""


class Sweep:
    """The runs below a folder, followed (`follow_sweep`): those found at the start and
    those found by a later look (`rescan`), each named by its path below the folder."""

    def __init__(
        self,
        folder: Path,
        grace: float,
        rows: Callable[[str], PlainView | RunRow],
        max_line: int | None,
        on_alert: OnAlert | None = None,
    ) -> None:
        self.folder = folder
        self.on_alert = on_alert
        self.grace = grace
        self.rows = rows
        self.max_line = max_line
        self.known: set[str] = set()
        """Every run met (its unit: `runs.state.unit_of`), followed or not."""
        self.following: list[Member] = []
        """The runs still followed, in the order they were found."""
        self.invalid = False
        self.unreadable = False

    def rescan(self) -> int:
        """Follow the runs below the folder not met before; how many."""
        runs = [run for run in discover([str(self.folder)]).runs if run.metrics is not None]
        fresh = [run for run in runs if unit_of(run) not in self.known]
        for run, name in zip(fresh, names_below(self.folder, fresh), strict=True):
            assert run.metrics is not None
            self.known.add(str(unit_of(run)))
            row = self.rows(shown(name))
            why = _unfollowable(run.metrics)
            if why is not None:  # an archived run: said, and not followed
                row.event(why)
                continue
            self.following.append(
                Member(
                    shown(name),
                    Watched(run.metrics, self.grace, row, self.max_line),
                    os.fsencode(run.name),
                )
            )
        return len(fresh)

    def look(self, member: Member) -> None:
        """One look at a run, and `--on-alert`'s command for its new alerts once its backlog
        is read; one that is no file is said, and left."""
        watched = member.watched
        try:
            watched.look()
        except SideFileError as error:
            watched.view.event(shown(str(error)))
            watched.left = True
            self.unreadable = True
            return
        if self.on_alert is not None and not watched.behind:
            self.on_alert.look(member.run, watched.scan)

    def drop_left(self) -> None:
        """Stop following the runs whose watch is over."""
        for member in self.following:
            if member.watched.left:
                self.invalid = self.invalid or member.watched.invalid
                member.watched.close()
        self.following = [member for member in self.following if not member.watched.left]

    @property
    def status(self) -> int:
        """The exit status: 2 when a run could not be read, else 1 when an invalid line was
        seen."""
        if self.unreadable:
            return USAGE
        return INVALID if self.invalid else OK

    def close(self) -> None:
        for member in self.following:
            member.watched.close()


def follow_sweep(
    folder: Path,
    interval: float,
    grace: float,
    rows: Callable[[str], PlainView | RunRow],
    max_line: int | None = None,
    on_alert: OnAlert | None = None,
) -> int:
    """Follow every run below `folder` until each has left, as `follow` leaves one, and a
    look for new runs after that found none; the exit status.

    Every `interval` each run is looked at once; a run with a backlog is looked at again at
    once, the others not, until the interval is over, so that a backlog costs the other runs
    nothing. Runs are looked for again every `RESCAN_EVERY` seconds at the most often.
    """
    _more_open_files()
    sweep = Sweep(folder, grace, rows, max_line, on_alert)
    next_rescan = 0.0
    try:
        while True:
            started = time.monotonic()
            if started >= next_rescan:
                sweep.rescan()
                took = time.monotonic() - started
                next_rescan = time.monotonic() + max(RESCAN_EVERY, 3 * took)
            members = sweep.following
            while members:
                for member in members:
                    sweep.look(member)
                members = [m for m in members if m.watched.behind and not m.watched.left]
                if time.monotonic() - started >= interval:
                    break
            sweep.drop_left()
            if not sweep.following:
                if sweep.rescan() == 0:  # every run has left, and none came meanwhile
                    return sweep.status
                next_rescan = time.monotonic() + RESCAN_EVERY
                continue
            if not members:
                time.sleep(max(0.0, interval - (time.monotonic() - started)))
    finally:
        sweep.close()


def _more_open_files() -> None:
    """Each run followed holds its file open: let this process hold as many files as the
    system lets it (the soft limit raised to the hard one)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not a POSIX system
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(OSError, ValueError):  # the limit it has is kept
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _scan(follower: Follower[list[WatchEvent]]) -> WatchScan:
    """The scan the follower feeds (a new one at each restart)."""
    scan = follower.scan
    assert isinstance(scan, WatchScan)
    return scan

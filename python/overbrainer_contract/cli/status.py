"""`status RUN...`: one screen on a run — stage, steps, losses, evaluation, ETA, when its
last line came, snapshot; over many runs, a table of one row a run.

Every string that comes from a file or a folder's name (a run's name, a stage, a
checkpoint's path, a reason, an error's line) is shown through `runs.shown.shown()` on the
screen and on standard error, and given to rich as `Text`, never as markup: a name such as
`exp[lr=0.1]` shows as itself. `-o json` writes the values as they are (JSON escapes them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import msgspec

from ..check.checker import Finding, check_request, check_snapshot, run_files
from ..check.reporter import paint, plural
from ..runs import clock
from ..runs.discover import discover, natural_key
from ..runs.shown import shown
from ..runs.sidefile import SideFileError
from ..runs.sizes import invalid_text
from ..runs.state import (
    Run,
    RunError,
    RunState,
    read_request,
    read_snapshot,
    read_state,
    request_reason,
)
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    USAGE,
    CliError,
    add_max_line,
    add_now,
    colour_on,
    format_duration,
    formatter,
    need_rich,
    say,
    terminal_columns,
)

DESCRIPTION = """\
One screen on a run: its stage, step / max_steps, the latest loss and eval loss, an
evaluation under way and its progress, the time left (ETA, from the pace of the training
logs, as overbrainer computes it, counted down since), when the last line came, and
whether a snapshot was requested or taken. An ETA is shown as stale, not counted down,
when the run has been silent for much longer than its pace predicts (50 steps at its
pace, and at least 2 minutes). A request not yet answered (no proof newer than it) is
always shown, beside an older proof.

Over many runs (several RUNs, or a folder of runs at any depth) a table, one row a run:
its name (its path below the folder the runs have in common), stage, step / max_steps,
latest loss, best eval loss and its step, ETA, how long ago its last line came, snapshot,
invalid lines; --sort orders it. -o json writes the run's state as one JSON object, or
over many runs JSON Lines, one object a run (`schema status-report` prints their schema).

Exit 1 when `check` would find a run invalid (an invalid line, a bad snapshot.json or
snapshot.request), with one line on stderr; 2 when a RUN cannot be read."""

EPILOG = f"""\
examples:
  {PROG} status runs/7
  {PROG} status runs/7/metrics.jsonl -o json
  {PROG} status sweep/                      # a table: every run below sweep/
  {PROG} status runs/* --sort eval_loss     # the best evaluation first
  {PROG} status sweep/ -o json | jq -r 'select(.eta_stale) | .name'
  {PROG} status runs/7 -o json --now 1764467600   # as it stood at that time

{EXIT_CODES}"""

SORTS = ("name", "stage", "step", "loss", "eval_loss", "eta", "age", "invalid")
"""What `--sort` orders the table by: the name (numbers in it as numbers), the phase, the
step, the latest loss, the best eval loss, the time left, how long ago the last line came
(the latest first), the invalid lines. A run without the value comes last."""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "status",
        parents=parents,
        help="one screen on a run: stage, step, losses, ETA, snapshot",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="a run folder, a folder of runs, a metrics file (.jsonl, .jsonl.gz), or -",
    )
    parser.add_argument(
        "-o",
        "--output",
        choices=("text", "json"),
        default="text",
        help="text (default) or json (JSON Lines over many runs)",
    )
    parser.add_argument(
        "--sort",
        choices=SORTS,
        default="name",
        help="order of the runs: name (default), stage, step, loss, eval_loss (the best),"
        " eta, age (of the last line, the latest first), invalid",
    )
    parser.add_argument(
        "-r", "--reverse", action="store_true", help="the order of --sort, reversed"
    )
    add_max_line(parser)
    add_now(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.runs.count("-") > 1:
        raise CliError("standard input (-) can be read only once")
    found = discover(args.runs)
    if len(found.runs) == 1 and not found.refused:
        return _one(found.runs[0], args)
    code = OK
    for name, why in found.refused:
        say(shown(f"error: {name}: {why}"))
        code = USAGE
    at = clock.now() if args.now is None else args.now
    rows: list[dict[str, Any]] = []
    for target in found.runs:
        try:
            state = read_state(target, max_line=args.max_line)
            rows.append(summary(target, state, at))
        except RunError as error:
            say(shown(f"error: {error}"))
            code = max(code, INVALID if error.invalid else USAGE)
            continue
        except SideFileError as error:
            say(shown(f"error: {error}"))
            code = USAGE
            continue
        if not rows[-1]["valid"]:
            _say_invalid(target, state, rows[-1])
            code = max(code, INVALID)
    rows = sort_rows(rows, args.sort, args.reverse)
    if args.output == "json":
        for row in rows:
            sys.stdout.write(json.dumps(row, separators=(",", ":")) + "\n")
    elif rows:
        need_rich()
        _table(rows, colour_on(sys.stdout, args.color))
    return code


def _one(target: Run, args: argparse.Namespace) -> int:
    """One run: today's screen, or its state as one JSON object."""
    try:
        state = read_state(target, max_line=args.max_line)
        document = summary(target, state, args.now)
    except RunError as error:
        raise CliError(shown(str(error)), INVALID if error.invalid else USAGE) from error
    except SideFileError as error:
        raise CliError(shown(str(error))) from error
    if args.output == "json":
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(document, colour_on(sys.stdout, args.color)))
    if not document["valid"]:
        _say_invalid(target, state, document)
        return INVALID
    return OK


def _say_invalid(target: Run, state: RunState, document: dict[str, Any]) -> None:
    """The one line on stderr for a run `check` finds invalid."""
    said = []
    if state.invalid:
        bom = " (the first line begins with a UTF-8 byte order mark)" if state.bom else ""
        said.append(
            f"{plural(state.lines, 'line')}: {invalid_text(state.invalid, state.partial)}{bom}"
        )
    if state.gzip_cut is not None:  # its lines up to the cut are shown
        said.append(state.gzip_cut)
    snapshot = document["snapshot"]
    if snapshot is not None and snapshot["problem"]:
        said.append(snapshot["problem"])
    name = shown(target.name)
    say(shown(f"{name}: {'; '.join(said)} ('{PROG} check {name}' says which)"))


def snapshot_status(target: Run) -> dict[str, Any]:
    """Whether a snapshot was requested (and why), whether it was taken, and whether the
    request is pending: there, and newer than the proof if there is one. `problem`: the
    errors `check` finds in the snapshot files, in its words (`snapshot.json $.step: ...`)."""
    assert target.request is not None
    assert target.snapshot is not None
    request = read_request(target.request)
    reason = None if request is None else request_reason(request[0])
    taken: dict[str, Any] | None = None
    proof_time: int | None = None
    try:
        proof = read_snapshot(target.snapshot)
        if proof is not None:
            taken, proof_time = msgspec.to_builtins(proof[0]), proof[1]
    except (msgspec.ValidationError, msgspec.DecodeError):
        pass  # `check`'s findings say what is wrong
    by_file: dict[str, list[str]] = {}
    for finding in side_findings(target):
        if finding.severity == "error":
            where = "" if finding.path == "$" else f"{finding.path}: "
            by_file.setdefault(finding.file, []).append(where + finding.message)
    errors = [f"{name}: {'; '.join(said)}" for name, said in by_file.items()]
    pending = request is not None and (proof_time is None or proof_time < request[1])
    return {
        "requested": request is not None,
        "pending": pending,
        "reason": reason,
        "taken": taken,
        "problem": "; ".join(errors) or None,
    }


def side_findings(target: Run) -> list[Finding]:
    """What `check` finds in a run folder's snapshot files (named by their file's name)."""
    found: list[Finding] = []
    for path, kind in run_files(target):
        if kind == "snapshot":
            check_snapshot(path, path.name, found.append)
        elif kind == "snapshot-request":
            check_request(path, path.name, found.append)
    return found


def summary(target: Run, state: RunState, at: float | None = None) -> dict[str, Any]:
    """The status as a JSON object (`schema/status-report.schema.json`), at the time `at`
    (now by default)."""
    at = clock.now() if at is None else at
    total = state.total_steps
    step = state.step
    evaluation = state.evaluation
    estimate = clock.estimate_run(state, at)
    snapshot = snapshot_status(target) if target.folder is not None else None
    stale = estimate.stale and not state.ended
    return {
        "run": target.name,
        "name": target.label or target.name,
        "lines": state.lines,
        "invalid_lines": state.invalid,
        "partial_last_line": state.partial,
        "phase": state.phase,
        "stage": state.stage,
        "step": step,
        "max_steps": total,
        "progress": (min(step / total, 1.0) if total else None),
        "ended": state.ended,
        "begins": len(state.begins),
        "loss": _value(state.loss),
        "eval_loss": _value(state.eval_loss),
        "best_eval_loss": _value(state.best_eval),
        "learning_rate": None if state.learning_rate is None else state.learning_rate.value,
        "evaluation": (
            None if evaluation is None else {"step": evaluation.step, "total": evaluation.total}
        ),
        "eta_seconds": state.pace.eta_seconds(),
        "eta_remaining_seconds": None if state.ended or stale else estimate.remaining,
        "eta_stale": stale,
        "last_time": state.last_time,
        "last_line_seconds": None if state.last_time is None else at - state.last_time,
        "now": at,
        "snapshot": snapshot,
        "valid": not state.invalid
        and state.gzip_cut is None
        and (snapshot is None or snapshot["problem"] is None),
    }


def _value(value: Any) -> dict[str, Any] | None:
    return None if value is None else {"step": value.step, "value": value.value}


_PHASES = ("waiting", "started", "training", "evaluating", "ended")


def _key(sort: str) -> Callable[[dict[str, Any]], Any]:
    """The value a row is ordered by for `--sort` (None: without one, last)."""

    def metric(name: str) -> Callable[[dict[str, Any]], Any]:
        return lambda row: None if row[name] is None else row[name]["value"]

    keys: dict[str, Callable[[dict[str, Any]], Any]] = {
        "name": lambda row: natural_key(row["name"]),
        "stage": lambda row: _PHASES.index(row["phase"]),
        "step": lambda row: row["step"],
        "loss": metric("loss"),
        "eval_loss": metric("best_eval_loss"),
        "eta": lambda row: row["eta_remaining_seconds"],
        "age": lambda row: row["last_line_seconds"],
        "invalid": lambda row: row["invalid_lines"],
    }
    return keys[sort]


def sort_rows(rows: list[dict[str, Any]], sort: str, reverse: bool = False) -> list[dict[str, Any]]:
    """The rows in the order of `--sort` (stable: ties keep the order of the names); the
    rows without the value last, whichever the direction."""
    key = _key(sort)
    named = sorted(rows, key=_key("name"))
    known = [row for row in named if key(row) is not None and key(row) == key(row)]
    unknown = [row for row in named if not (key(row) is not None and key(row) == key(row))]
    return sorted(known, key=key, reverse=reverse) + unknown


def _number(value: float) -> str:
    return f"{value:.4g}"


def render(document: dict[str, Any], colour: bool) -> str:
    """The status as the lines of one screen (each string from the run shown escaped)."""
    rows: list[tuple[str, str]] = [("run", shown(document["run"]))]
    phase = document["phase"]
    if document["ended"]:
        phase = f"ended at step {document['step']:,}"
    rows.append(("stage", f"{shown(document['stage'] or '-')} ({phase})"))
    total = document["max_steps"]
    step = f"{document['step']:,}" + (f" / {total:,}" if total is not None else "")
    if document["progress"] is not None:
        step += f" ({document['progress']:.0%})"
    rows.append(("step", step))
    for key, label in (("loss", "loss"), ("eval_loss", "eval loss")):
        value = document[key]
        rows.append(
            (
                label,
                "-" if value is None else f"{_number(value['value'])} at step {value['step']:,}",
            )
        )
    if document["learning_rate"] is not None:
        rows.append(("learning rate", f"{document['learning_rate']:.3g}"))
    evaluation = document["evaluation"]
    if evaluation is None:
        rows.append(("evaluation", "none under way"))
    elif evaluation["total"]:
        share = evaluation["step"] / evaluation["total"]
        rows.append(
            ("evaluation", f"{evaluation['step']:,} / {evaluation['total']:,} ({share:.0%})")
        )
    else:
        rows.append(("evaluation", f"{evaluation['step']:,} steps done"))
    rows.append(("eta", _eta_text(document)))
    rows.append(("last line", _age_text(document)))
    rows.append(("snapshot", _snapshot_text(document["snapshot"])))
    lines = f"{document['lines']:,}"
    words = invalid_text(document["invalid_lines"], document["partial_last_line"])
    if words:  # in the words check and plot use
        lines += " " + paint(
            f"({words})", "error" if document["invalid_lines"] else "warning", colour
        )
    if document["begins"] > 1:
        lines += f" ({document['begins']} begin lines: resumed)"
    rows.append(("lines", lines))
    width = max(len(label) for label, _ in rows) + 2
    return "".join(f"{paint(label.ljust(width), 'bold', colour)}{value}\n" for label, value in rows)


def _eta_text(document: dict[str, Any]) -> str:
    """The ETA as the screen says it: counted down since it was measured, or stale."""
    if document["ended"]:
        return "- (training ended)"
    if document["eta_stale"]:
        silence = clock.ago(document["last_line_seconds"])
        return f"stale (no line for {silence}, much longer than its pace predicts)"
    remaining = document["eta_remaining_seconds"]
    return "unknown yet" if remaining is None else format_duration(remaining)


def _age_text(document: dict[str, Any]) -> str:
    """`30 h ago` (`last line 30 h ago` less its first words), or `none yet`."""
    if document["last_time"] is None:
        return "none yet"
    return clock.last_line_text(document["last_time"], document["now"]).removeprefix("last line ")


def _snapshot_text(snapshot: dict[str, Any] | None) -> str:
    if snapshot is None:
        return "- (standard input)"
    parts = []
    if snapshot["pending"]:
        reason = shown(snapshot["reason"] or "no reason")
        parts.append(f"requested ({reason}), not taken yet")
    taken = snapshot["taken"]
    if taken is not None:
        reason = shown(taken["reason"] or "no reason")
        earlier = "an earlier one " if snapshot["pending"] else ""
        checkpoint = shown(taken["checkpoint"])
        parts.append(f"{earlier}taken at step {taken['step']:,}: {checkpoint} ({reason})")
    if snapshot["problem"]:
        parts.append(shown(snapshot["problem"]))
    return "; ".join(parts) or "none requested"


# -- many runs: a table ------------------------------------------------------------------


def _cells(row: dict[str, Any]) -> list[str]:
    """A run's row of the table: name, stage (its phase; `, resumed` after a second
    `begin`), step/max_steps, loss, best eval `value @step`, eta, last line, snapshot,
    invalid; each string from the run shown escaped (`shown`)."""
    phase = row["phase"]
    evaluation = row["evaluation"]
    if evaluation is not None and evaluation["total"]:
        phase += f" {evaluation['step']}/{evaluation['total']}"
    stage = phase if row["stage"] is None else f"{shown(row['stage'])} ({phase})"
    if row["begins"] > 1:
        stage += ", resumed"
    total = row["max_steps"]
    step = f"{row['step']:,}" + ("" if total is None else f"/{total:,}")
    loss = "-" if row["loss"] is None else _number(row["loss"]["value"])
    best = row["best_eval_loss"]
    best_text = "-" if best is None else f"{_number(best['value'])} @{best['step']:,}"
    if row["ended"]:
        eta = "-"
    elif row["eta_stale"]:
        eta = "stale"
    elif row["eta_remaining_seconds"] is None:
        eta = "?"
    else:
        eta = format_duration(row["eta_remaining_seconds"])
    age = "-" if row["last_time"] is None else _age_text(row)
    return [shown(row["name"]), stage, step, loss, best_text, eta, age, _snapshot_cell(row)]


def _snapshot_cell(row: dict[str, Any]) -> str:
    snapshot = row["snapshot"]
    if snapshot is None:
        return "-"
    if snapshot["problem"]:
        return "invalid"
    if snapshot["pending"]:
        return "requested"
    if snapshot["taken"] is not None:
        return f"taken @{snapshot['taken']['step']:,}"
    return "-"


def _table(rows: list[dict[str, Any]], colour: bool) -> None:
    """The rows as a rich table on standard output, as wide as the terminal. Every cell
    is a `Text`: rich reads no markup in a run's name (`[bold]x`, `sw/[/]`)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # As wide as the terminal; written to a file or a pipe, as wide as its rows need.
    wide = not sys.stdout.isatty() and not os.environ.get("COLUMNS")
    console = Console(
        file=sys.stdout,
        width=400 if wide else terminal_columns(),
        force_terminal=colour,
        no_color=not colour,
        highlight=False,
        soft_wrap=False,
    )
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    for heading, justify in (
        ("run", "left"),
        ("stage", "left"),
        ("step", "right"),
        ("loss", "right"),
        ("best eval", "right"),
        ("eta", "right"),
        ("last line", "right"),
        ("snapshot", "left"),
        ("invalid", "right"),
    ):
        table.add_column(heading, justify=justify, no_wrap=heading == "run")  # type: ignore[arg-type]
    for row in rows:
        invalid = row["invalid_lines"]
        cells = [Text(cell) for cell in (*_cells(row), f"{invalid:,}" if invalid else "")]
        style = "red" if not row["valid"] else ("yellow" if row["eta_stale"] else None)
        table.add_row(*cells, style=style)
    console.print(table)
    count = len(rows)
    ended = sum(1 for row in rows if row["ended"])
    stale = sum(1 for row in rows if row["eta_stale"])
    bad = sum(1 for row in rows if not row["valid"])
    parts = [plural(count, "run"), f"{ended:,} ended"]
    if stale:
        parts.append(f"{stale:,} silent for longer than their pace predicts")
    if bad:
        parts.append(f"{bad:,} invalid")
    console.print(Text(", ".join(parts)))

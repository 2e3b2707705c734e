"""`status RUN`: one screen on a run — stage, steps, losses, evaluation, ETA, snapshot."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import msgspec

from ..check.reporter import paint, plural
from ..runs.sidefile import SideFileError
from ..runs.state import (
    Run,
    RunError,
    RunState,
    read_request,
    read_snapshot,
    read_state,
    request_reason,
    resolve,
)
from ._common import (
    EXIT_CODES,
    INVALID,
    OK,
    PROG,
    USAGE,
    CliError,
    add_max_line,
    colour_on,
    format_duration,
    formatter,
    say,
)

DESCRIPTION = """\
One screen on a run: its stage, step / max_steps, the latest loss and eval loss, an
evaluation under way and its progress, the time left (ETA, from the pace of the training
logs, as overbrainer computes it), and whether a snapshot was requested or taken.
A request not yet answered (no proof newer than it) is always shown, beside an older proof.
Exit 1, with one line on stderr, when a line of the metrics file is invalid (`check` says
which)."""

EPILOG = f"""\
examples:
  {PROG} status runs/7
  {PROG} status runs/7/metrics.jsonl -o json

{EXIT_CODES}"""


def add(commands: Any, parents: list[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "status",
        parents=parents,
        help="one screen on a run: stage, step, losses, ETA, snapshot",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=formatter,
    )
    parser.add_argument("run_name", metavar="RUN", help="a run folder, a metrics file, or -")
    parser.add_argument(
        "-o", "--output", choices=("text", "json"), default="text", help="text (default) or json"
    )
    add_max_line(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        target = resolve(args.run_name)
        state = read_state(target, max_line=args.max_line)
        document = summary(target, state)
    except RunError as error:
        raise CliError(str(error), INVALID if error.invalid else USAGE) from error
    except SideFileError as error:
        raise CliError(str(error)) from error
    if args.output == "json":
        json.dump(document, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(document, colour_on(sys.stdout, args.color)))
    if state.invalid:
        bom = " (the first line begins with a UTF-8 byte order mark)" if state.bom else ""
        say(
            f"{target.name}: {plural(state.invalid, 'invalid line')} of {state.lines:,}{bom}"
            f" ('{PROG} check {args.run_name}' says which)"
        )
        return INVALID
    return OK


def snapshot_status(target: Run) -> dict[str, Any]:
    """Whether a snapshot was requested (and why), whether it was taken, and whether the
    request is pending: there, and newer than the proof if there is one."""
    assert target.request is not None
    assert target.snapshot is not None
    request = read_request(target.request)
    reason = None if request is None else request_reason(request[0])
    taken: dict[str, Any] | None = None
    problem: str | None = None
    proof_time: int | None = None
    try:
        proof = read_snapshot(target.snapshot)
        if proof is not None:
            taken, proof_time = msgspec.to_builtins(proof[0]), proof[1]
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        problem = f"{target.snapshot.name} is not a valid proof: {error}"
    pending = request is not None and (proof_time is None or proof_time < request[1])
    return {
        "requested": request is not None,
        "pending": pending,
        "reason": reason,
        "taken": taken,
        "problem": problem,
    }


def summary(target: Run, state: RunState) -> dict[str, Any]:
    """The status as a JSON object."""
    total = state.total_steps
    step = state.step
    evaluation = state.evaluation
    return {
        "run": target.name,
        "lines": state.lines,
        "invalid_lines": state.invalid,
        "partial_last_line": state.partial,
        "phase": state.phase,
        "stage": state.stage,
        "step": step,
        "max_steps": total,
        "progress": (min(step / total, 1.0) if total else None),
        "ended": state.ended,
        "loss": None
        if state.loss is None
        else {"step": state.loss.step, "value": state.loss.value},
        "eval_loss": (
            None
            if state.eval_loss is None
            else {"step": state.eval_loss.step, "value": state.eval_loss.value}
        ),
        "learning_rate": None if state.learning_rate is None else state.learning_rate.value,
        "evaluation": (
            None if evaluation is None else {"step": evaluation.step, "total": evaluation.total}
        ),
        "eta_seconds": state.pace.eta_seconds(),
        "last_time": state.last_time,
        "snapshot": snapshot_status(target) if target.folder is not None else None,
    }


def _number(value: float) -> str:
    return f"{value:.4g}"


def render(document: dict[str, Any], colour: bool) -> str:
    """The status as the lines of one screen."""
    rows: list[tuple[str, str]] = [("run", document["run"])]
    phase = document["phase"]
    if document["ended"]:
        phase = f"ended at step {document['step']:,}"
    rows.append(("stage", f"{document['stage'] or '-'} ({phase})"))
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
    eta = document["eta_seconds"]
    if document["ended"]:
        rows.append(("eta", "- (training ended)"))
    else:
        rows.append(("eta", "unknown yet" if eta is None else format_duration(eta)))
    rows.append(("snapshot", _snapshot_text(document["snapshot"])))
    lines = f"{document['lines']:,}"
    if document["invalid_lines"]:
        lines += " " + paint(f"({document['invalid_lines']:,} invalid)", "error", colour)
    if document["partial_last_line"]:
        lines += " (the last one incomplete)"
    rows.append(("lines", lines))
    width = max(len(label) for label, _ in rows) + 2
    return "".join(f"{paint(label.ljust(width), 'bold', colour)}{value}\n" for label, value in rows)


def _snapshot_text(snapshot: dict[str, Any] | None) -> str:
    if snapshot is None:
        return "- (standard input)"
    parts = []
    if snapshot["pending"]:
        parts.append(f"requested ({snapshot['reason'] or 'no reason'}), not taken yet")
    taken = snapshot["taken"]
    if taken is not None:
        reason = taken["reason"] or "no reason"
        earlier = "an earlier one " if snapshot["pending"] else ""
        parts.append(f"{earlier}taken at step {taken['step']:,}: {taken['checkpoint']} ({reason})")
    if snapshot["problem"]:
        parts.append(snapshot["problem"])
    return "; ".join(parts) or "none requested"

"""Sample logs and helpers of the command line's tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

T = 1764467476.0


def _line(**fields: object) -> str:
    return json.dumps(fields, separators=(",", ":"))


def _log(
    time: float, step: int, loss: float | None, eval_loss: float | None = None, **more: object
) -> str:
    values: dict[str, object] = {"epoch": step / 4, "max_steps": 4, "loss": loss}
    values["eval_loss"] = eval_loss
    values |= {"learning_rate": None, "grad_norm": None} | more
    return _line(event="log", time=time, step=step, **values)


VALID = "".join(
    line + "\n"
    for line in (
        _line(event="stage", name="train", time=int(T)),
        _line(event="begin", time=T, max_steps=4),
        _log(T + 1, 1, 3.25, learning_rate=0.0002, grad_norm=1.5),
        _log(T + 2, 2, 2.75, learning_rate=0.00015, grad_norm=1.25),
        _line(event="eval", time=T + 3, step=1, total=2),
        _line(event="eval", time=T + 5, step=2, total=2),
        _log(T + 5.5, 2, None, 2.5),
        _log(T + 6.5, 3, 2.5, learning_rate=0.0001, grad_norm=1.0),
        _log(T + 7.5, 4, 2.25, learning_rate=0.00005, grad_norm=0.75),
        _line(event="end", time=T + 8, step=4),
        _line(event="stage", name="merge", time=int(T) + 10),
    )
)

INVALID = f"""\
{{"event":"begin","time":{T},"max_steps":4}}
{{"event":"log","time":{T + 1},"step":"one","loss":3.0}}
not json at all
{{"event":"stage","name":"deploy","time":{int(T)}}}

{{"event":"log","time":{T + 2},"step":2,"max_steps":4,"loss":2.5}}
{{"event":"party","time":{T + 3}}}
{{"event":"end","time":{T + 4},"step":-2}}
"""

TRUNCATED = VALID[:-1].rsplit("\n", 2)[0] + "\n" + '{"event":"log","time":1764467484.5,"st'

OUT_OF_ORDER = f"""\
{{"event":"log","time":{T},"step":1,"max_steps":4,"loss":3.0}}
{{"event":"begin","time":{T + 1},"max_steps":4}}
{{"event":"log","time":{T + 2},"step":3,"max_steps":4,"loss":2.0}}
{{"event":"log","time":{T + 3},"step":2,"max_steps":4,"loss":2.5}}
{{"event":"end","time":{T + 4},"step":3}}
{{"event":"eval","time":{T + 5},"step":1,"total":3}}
{{"event":"log","time":{T + 6},"step":4,"max_steps":4,"loss":1.5}}
{{"event":"stage","name":"merge","time":{int(T) + 7}}}
"""

# A run in the middle of an evaluation, with a snapshot requested.
EVALUATING = "\n".join(VALID.splitlines()[:5]) + "\n"

LOGS = {
    "valid": VALID,
    "invalid": INVALID,
    "truncated": TRUNCATED,
    "out-of-order": OUT_OF_ORDER,
}


def make_run(
    folder: Path, metrics: str, request: str | None = None, proof: str | None = None
) -> Path:
    """A run folder with its metrics file and, if given, its snapshot files."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "metrics.jsonl").write_text(metrics)
    if request is not None:
        (folder / "snapshot.request").write_text(request)
    if proof is not None:
        (folder / "snapshot.json").write_text(proof)
    return folder


def line(**fields: Any) -> str:
    """A metrics line of `fields`: compact JSON and its newline."""
    return _line(**fields) + "\n"


def append(metrics: Path, *lines: str) -> None:
    """Appends `lines` to the metrics file, all in one write."""
    with metrics.open("a") as handle:
        handle.write("".join(lines))


def python_env() -> dict[str, str]:
    """The environment for a child Python that imports this package as the tests do."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.pop("NO_COLOR", None)
    return env


PROOF = '{"checkpoint":"out/checkpoint-2","step":2,"time":1764467481.0,"reason":"manual"}\n'
"""A valid snapshot.json for the runs above."""

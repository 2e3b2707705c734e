"""The benchmarks' metrics files, written by the standard library alone: the tests read
them too (`tests/test_flat.py`: every bad line of the bench, cut anywhere).

- `realistic_lines`: a real run in the plugin's form (a `log` every step with loss, learning
  rate, grad norm and epoch; every 50 steps an evaluation — three `eval` progress lines and a
  `log` with eval_loss —; `stage`, `begin`, `end`);
- `other_writer`: the same run as another writer of the contract writes it;
- `with_bad_lines`: the plugin's lines, one in ten bad (`BAD_KINDS`, made by `bad_line`).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable
from pathlib import Path

EVAL_EVERY = 50


def log(now: float, step: int, max_steps: int, **values: float) -> dict[str, object]:
    """A `log` line as the plugin writes it: every key, null where absent."""
    line: dict[str, object] = {"event": "log", "time": now, "step": step, "epoch": step / 3000}
    line["max_steps"] = max_steps
    for name in ("loss", "eval_loss", "learning_rate", "grad_norm"):
        line[name] = values.get(name)
    return line


def realistic_lines(count: int, seed: int = 7) -> Iterable[str]:
    """The lines a real run writes, in the plugin's format, `count` of them."""
    rng = random.Random(seed)
    per_cycle = EVAL_EVERY + 4
    max_steps = count * EVAL_EVERY // per_cycle
    now = 1764467476.0
    dumps = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
    yield dumps({"event": "stage", "name": "train", "time": int(now)})
    yield dumps({"event": "begin", "time": now, "max_steps": max_steps})
    written, step, loss = 2, 0, 3.2
    while written < count - 4:
        step += 1
        now += 0.35 + rng.random() * 0.01
        loss = max(0.05, loss * 0.9999 + rng.gauss(0, 0.02))
        lr = 2e-05 * 0.5 * (1 + math.cos(math.pi * step / max_steps))
        yield dumps(
            log(now, step, max_steps, loss=loss, learning_rate=lr, grad_norm=rng.random() * 2)
        )
        written += 1
        if step % EVAL_EVERY == 0:
            for k in (1, 2, 3):
                yield dumps({"event": "eval", "time": now + 2 * k, "step": k * 20, "total": 60})
            now += 7
            yield dumps(log(now, step, max_steps, eval_loss=loss * 1.1))
            written += 4
    yield dumps({"event": "end", "time": now, "step": step})
    yield dumps({"event": "stage", "name": "merge", "time": int(now) + 5})
    yield dumps({"event": "stage", "name": "export", "time": int(now) + 60})


def write_realistic_file(path: Path, count: int) -> Path:
    """`path`, holding `count` realistic lines."""
    with path.open("w") as handle:
        for text in realistic_lines(count):
            handle.write(text + "\n")
    return path


BAD_KINDS = ("cut", "NaN", "duplicate key", "wrong type", "-0", "not JSON")


def other_writer(lines: Iterable[str]) -> Iterable[str]:
    """The same run as another writer of the contract writes it: every line valid."""
    rng = random.Random(11)
    lines = list(lines)
    last_log = max(i for i, text in enumerate(lines) if '"event":"log"' in text)
    first_log = min(i for i, text in enumerate(lines) if '"event":"log"' in text)
    for index, text in enumerate(lines):
        line = json.loads(text)
        event = line.pop("event")
        values = {key: value for key, value in line.items() if value is not None}
        if event == "log":
            if index in (first_log, last_log):  # a linear schedule's first and last step
                values["learning_rate"] = 0.0
            values["tokens_per_second"] = round(rng.uniform(3000, 5000), 1)
        ordered = {"time": values.pop("time"), "event": event, **values}
        yield json.dumps(ordered, allow_nan=False)  # ", " and ": " between tokens


def with_bad_lines(lines: Iterable[str]) -> Iterable[str]:
    """The plugin's lines, one in ten replaced by a bad one, the kinds in turn."""
    for index, text in enumerate(lines):
        if index % 10 != 9:
            yield text
            continue
        kind = BAD_KINDS[(index // 10) % len(BAD_KINDS)]
        yield bad_line(text, kind)


def bad_line(text: str, kind: str) -> str:
    """`text` (a valid line of the plugin) made bad in the way `kind` names."""
    if kind == "cut":
        return text[: len(text) // 2]
    if kind == "NaN":
        return text.replace('"time":', '"time":NaN,"was":', 1)
    if kind == "duplicate key":
        return text[:-1] + ',"time":1.5}'
    if kind == "wrong type":
        return text.replace('"time":', '"time":"soon","was":', 1)
    if kind == "-0":
        return text.replace('"time":', '"time":-0,"was":', 1).replace(
            '"event":"stage"', '"event":"end","step":-0'
        )
    return f"Traceback (most recent call last): {text[:40]}"

"""Benchmark of what computing a run's alerts adds to its status (goal: at most 5 %).

Two files of 1M lines (`--lines`): a real run in the plugin's form, and the same run with a
loss spike and a stretch of non-finite values every 10,000 steps (losses logged as `null`,
their names in `scalars`, the plugin's form of a NaN). For each, the core's own example
(`core/reader/examples/alerts_cost.rs`, built here by cargo, release) times on one thread, in
one run, the status of the file as a whole and the alerts' own work on the same lines (every
log and end line through the spike window and the non-finite stretches), and prints the share
the second is of the first's work without it. Exit 1 when a file misses the goal.

    nox -s bench
    python benchmarks/alerts.py --lines 200000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # workloads.py, beside this file

from workloads import realistic_lines

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core"
EXAMPLE = CORE / "target" / "release" / "examples" / "alerts_cost"


def troubled(lines: Iterable[str]) -> Iterator[str]:
    """The run's lines with, every 10,000 steps, a loss 50 times the last, then 20 logs whose
    loss was not finite (`null` in its field, `"NaN"` under `scalars`)."""
    for text in lines:
        line = json.loads(text)
        step = line.get("step") if line.get("event") == "log" else None
        if isinstance(step, int) and line.get("loss") is not None and step % 10_000 == 0:
            line["loss"] = line["loss"] * 50
        elif isinstance(step, int) and line.get("loss") is not None and 0 < step % 10_000 <= 20:
            line["loss"] = None
            line["scalars"] = {"loss": "NaN"}
        yield json.dumps(line, separators=(",", ":"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args, _ = parser.parse_known_args()  # nox -s bench passes the other scripts' options too
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--example", "alerts_cost"],
        cwd=CORE / "reader",
        check=True,
    )
    missed = 0
    with tempfile.TemporaryDirectory() as folder:
        for name, lines in (
            ("the plugin's form", realistic_lines(args.lines)),
            ("spikes and non-finite values", troubled(realistic_lines(args.lines))),
        ):
            path = Path(folder) / "metrics.jsonl"
            with path.open("w") as handle:
                handle.writelines(f"{line}\n" for line in lines)
            print(f"{name}: ", end="", flush=True)
            done = subprocess.run([str(EXAMPLE), str(path), str(args.rounds)], check=False)
            missed += done.returncode != 0
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

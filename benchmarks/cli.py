"""Benchmark of the command line's per-line costs and peak memory.

On the realistic `metrics.jsonl` of `benchmarks/parse.py` (default 1M lines), measured
side by side in one run, interleaved, best of several rounds, in this process:

- `check` (text), `check -o json` and `watch` reading the whole file as a backlog, in
  nanoseconds per line; the goal: `watch` within 1.2x of `check`;
- on a file of 200k problems (log lines before any `begin`: one warning each), `check`
  (text, its default of 20 printed) and `check -o json` (every finding a JSON line), per
  problem.

Then the peak resident memory (VmHWM of the child) of each command run as a child
process: a tiny file (the start-up), the 1M-line backlog through `check`, `status`,
`watch`, and the 200k problems through `check -o json`. Flat memory: all near the start-up.

    nox -s bench
    python benchmarks/cli.py --lines 200000 --problems 50000
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # parse.py, beside this file

from overbrainer_contract.cli import main
from overbrainer_contract.cli.watch import PlainView, follow
from workloads import write_realistic_file

GOAL = 1.2
"""`watch` per line, at most this many times `check`'s."""

PROBLEM = (
    '{"event":"log","time":1764467476.0,"step":1,"epoch":0.25,"max_steps":4,"loss":1.5,'
    '"eval_loss":null,"learning_rate":0.0001,"grad_norm":1.0}\n'
)
"""A log line before any `begin`: one warning (`order`), the parser's fast path."""


def quiet(run: Callable[[], object]) -> Callable[[], None]:
    """`run` with standard output thrown away (the outputs are written, to /dev/null)."""

    def call() -> None:
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            run()

    return call


def contenders(path: Path) -> dict[str, Callable[[], None]]:
    def watch() -> None:
        with open(os.devnull, "w") as sink:
            follow(path, 0.0, 0.0, PlainView(sink.write))

    return {
        "check": quiet(lambda: main(["check", str(path), "--progress", "never"])),
        "check -o json": quiet(lambda: main(["check", str(path), "-o", "json"])),
        "watch (backlog)": watch,
    }


def timed(run: Callable[[], None]) -> float:
    gc.collect()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def best_of(runs: dict[str, Callable[[], None]], rounds: int) -> dict[str, float]:
    """Best seconds of each, interleaved round by round."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, run in runs.items():
            best[name] = min(best[name], timed(run))
    return best


PEAK = """\
import sys
from overbrainer_contract.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
with open("/proc/self/status") as status:
    sys.stderr.write(next(line for line in status if line.startswith("VmHWM")))
sys.exit(code)
"""


def peak_mib(*args: str) -> float:
    """Peak resident memory of `overbrainer-contract ARGS` run as a child, in MiB: its
    VmHWM, which (unlike ru_maxrss) does not count the parent it was forked from."""
    with open(os.devnull, "wb") as sink:
        child = subprocess.run(
            [sys.executable, "-c", PEAK, *args],
            stdout=sink,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            check=False,
        )
    last = child.stderr.splitlines()[-1]  # VmHWM:   27364 kB
    return int(last.split()[1]) / 1024


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--problems", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args, _ = parser.parse_known_args()  # nox -s bench passes the other scripts' options too
    with tempfile.TemporaryDirectory() as tmp:
        path = write_realistic_file(Path(tmp) / "metrics.jsonl", args.lines)
        problems = Path(tmp) / "problems.jsonl"
        problems.write_text(PROBLEM * args.problems)
        tiny = Path(tmp) / "tiny.jsonl"
        tiny.write_text(PROBLEM)
        size = path.stat().st_size
        print(f"{args.lines:,} lines, {size / 2**20:.1f} MiB; {args.problems:,} problems")

        per_line = best_of(contenders(path), args.rounds)
        on_problems = best_of(
            {
                "check (text)": quiet(lambda: main(["check", str(problems)])),
                "check -o json": quiet(lambda: main(["check", str(problems), "-o", "json"])),
            },
            args.rounds,
        )
        peaks = {
            "start-up: check, 1 line": peak_mib("check", str(tiny)),
            f"check, {args.lines:,} lines": peak_mib("check", str(path)),
            f"status, {args.lines:,} lines": peak_mib("status", str(path)),
            f"watch, {args.lines:,}-line backlog": peak_mib(
                "watch", str(path), "--plain", "--grace", "0", "--interval", "0"
            ),
            f"check -o json, {args.problems:,} problems": peak_mib(
                "check", str(problems), "-o", "json"
            ),
        }

    base = per_line["check"]
    print(f"\n{'per line':<22}{'ns/line':>10}{'x check':>10}")
    for name, seconds in per_line.items():
        print(f"{name:<22}{seconds / args.lines * 1e9:>10.0f}{seconds / base:>10.2f}")
    print(f"\n{'per problem':<22}{'ns/problem':>10}")
    for name, seconds in on_problems.items():
        print(f"{name:<22}{seconds / args.problems * 1e9:>10.0f}")
    print(f"\n{'peak memory (RSS)':<40}{'MiB':>8}")
    for name, mib in peaks.items():
        print(f"{name:<40}{mib:>8.1f}")
    ratio = per_line["watch (backlog)"] / base
    verdict = "ok" if ratio <= GOAL else "TOO SLOW"
    print(f"\nwatch / check = {ratio:.2f}x the time per line (goal <= {GOAL}x): {verdict}")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main_bench())

"""Benchmark of the npm package's whole-file reader under Node against the reference itself.

The three 1M-line files of `benchmarks/reference.py` (the plugin's form, another writer's form
of the same run, the plugin's form with one line in ten bad), each read as a whole process,
side by side in one run, interleaved, best of several rounds:

- the reference runner's `count FILE` (`metrics.rs` built by cargo: startup, reading the file,
  every line through `parse_line`);
- `node benchmarks/js_reader.mjs FILE`: Node's startup, the package's import (the module
  compiled), reading the file, `readLines` of it: every line answered by the core in
  WebAssembly, each typed line or ParseError made in JavaScript; by one thread, and by the
  package's default (a file of 16 MiB and more: parts of it answered by worker threads, one
  instance of the module each, the answers decoded on the main thread in order).

Before timing, the processes' counts (lines, accepted, rejected) are checked to agree. The goal:
the package (its default) at >= 0.8x the reference's lines/s on each file (exit 1 when a file
misses it).

    nox -s bench
    python benchmarks/js.py --lines 200000 --runner PATH
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # workloads.py, beside this file

from reference import ROOT, RUNNER, write
from workloads import other_writer, realistic_lines, with_bad_lines

READER = Path(__file__).resolve().parent / "js_reader.mjs"
PACKAGE = ROOT / "js" / "dist" / "index.js"
GOAL = 0.8


def counts(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, check=True, timeout=600)
    return done.stdout.decode().strip()


def process(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, timeout=600)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runner", default=os.environ.get("OVERBRAINER_REFERENCE_RUNNER"))
    parser.add_argument("--package", default=str(PACKAGE), help="the package's main module")
    args, _ = parser.parse_known_args()  # nox -s bench passes the other scripts' options too
    runner = args.runner or str(RUNNER)
    if not Path(runner).is_file():
        sys.exit(f"no reference runner at {runner}: nox -s bench builds it (cargo)")
    if not Path(args.package).is_file():
        sys.exit(f"no package at {args.package}: build it with `cd js && node build.mjs`")
    node = subprocess.run(["node", "--version"], capture_output=True, check=True, text=True)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        plugin = list(realistic_lines(args.lines))
        files = {
            "plugin's form": write(Path(tmp) / "plugin.jsonl", plugin),
            "another writer's form": write(Path(tmp) / "other.jsonl", list(other_writer(plugin))),
            "1 bad line in 10": write(Path(tmp) / "bad.jsonl", list(with_bad_lines(plugin))),
        }
        del plugin
        print(f"{args.lines:,} lines a file; reference: {runner}; Node {node.stdout.strip()}")
        for name, path in files.items():
            commands = {
                "reference": [runner, "count", str(path)],
                "one thread": ["node", str(READER), str(path), "1", args.package],
                "default": ["node", str(READER), str(path), "default", args.package],
            }
            answered = {key: counts(command) for key, command in commands.items()}
            if len(set(answered.values())) != 1:
                sys.exit(f"{name}: the counts differ: {answered}")
            theirs = answered["reference"]
            lines = int(theirs.split()[0])
            print(f"{name}: {lines:,} lines, {theirs.split()[2]} rejected, the same counts")
            best = dict.fromkeys(commands, math.inf)
            for _ in range(args.rounds):  # interleaved, best of each
                for key, command in commands.items():
                    best[key] = min(best[key], process(command))
            rows.append((name, lines, best))

    threads = os.cpu_count()
    head = ("reference", "one thread", "ratio", "default", "ratio")
    print(f"\n{'file':<24}" + "".join(f"{word:>12}" for word in head))
    missed = []
    for name, lines, best in rows:
        ref, one, default = (lines / best[key] for key in ("reference", "one thread", "default"))
        cells = [f"{ref:,.0f}", f"{one:,.0f}", f"{one / ref:.2f}x"]
        cells += [f"{default:,.0f}", f"{default / ref:.2f}x"]
        print(f"{name:<24}" + "".join(f"{cell:>12}" for cell in cells))
        if default / ref < GOAL:
            missed.append(name)
    print(
        "lines/s of whole processes (the reference runner's `count`; Node reading the file with\n"
        "the package's readLines, by one thread and by its default: worker threads for a file of\n"
        f"16 MiB and more, {threads} CPUs here), ratios side by side in this run; goal: the\n"
        f"default >= {GOAL}x"
    )
    if missed:
        print(f"goal not met on: {', '.join(missed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

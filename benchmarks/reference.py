"""Benchmark of parse_line against the reference itself: the Rust runner, side by side.

Three realistic files (default 1M lines each): the plugin's form (`benchmarks/parse.py`'s
file); another writer's valid form of the same run (optional keys left out, keys in
another order, white space after separators, `"learning_rate": 0.0` at the ends of the
schedule, an extra metric `tokens_per_second`); and the plugin's form with one line in
ten bad (cut, NaN, a duplicate key, a wrong type, `-0`, a line that is not JSON). For
each, in one run, interleaved, best of several rounds:

- `parse_line` over the file's lines in this process, against the reference runner
  (`conformance/rust/`, `metrics.rs` built by cargo) parsing the same file as a whole
  process (`count FILE`: startup, reading and every line through `parse_line`);
- the whole file in one call: `parse_lines` (each line's model or its error), the core
  reading the lines a batch ahead on other threads while this one builds the models;
- `overbrainer-contract check FILE` as a whole process against the same reference run
  (the core reads the file on every core and hands back only the findings);
- `overbrainer-contract export FILE -o runs.parquet` as a whole process (the core builds
  the columns; pyarrow writes them).

Before timing, every value of every accepted line is checked to be the reference's to the
bit: `dump_line` of each line `parse_line` accepts equals the runner's `dump` of it (`lines
FILE`), and the verdicts agree.

Then the cost of one line of each bad kind, and of one 40 MB line (an unknown field
holding a 5M-number array) in time and peak memory, against `json.loads` on that line,
each in a fresh process.

    nox -s bench
    python benchmarks/reference.py --lines 200000 --runner PATH
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable, Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # parse.py, beside this file

import json

from overbrainer_contract import ParseError, dump_line, parse_line, parse_lines
from workloads import BAD_KINDS, bad_line, other_writer, realistic_lines, with_bad_lines

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "conformance" / "rust" / "target" / "release" / "overbrainer-reference-runner"


def write(path: Path, lines: Iterable[str]) -> Path:
    with path.open("w") as handle:
        for text in lines:
            handle.write(text + "\n")
    return path


def parse_all(lines: list[bytes]) -> None:
    for line in lines:
        try:  # noqa: SIM105 - contextlib.suppress would cost more than some lines
            parse_line(line)
        except ParseError:
            pass


def whole_file(body: list[bytes]) -> None:
    parse_lines(body[0])


def exact(runner: str, path: Path, lines: list[bytes]) -> int:
    """Every line's verdict and every accepted line's values the reference's (`dump_line`
    against the runner's `dump`, which holds each float as ryu writes it: equal text is
    equal bits); the number of lines accepted. Exits on the first difference."""
    done = subprocess.run([runner, "lines", str(path)], capture_output=True, check=True)
    answers = done.stdout.splitlines()
    if len(answers) != len(lines):
        sys.exit(f"{path}: {len(answers)} answers from the reference for {len(lines)} lines")
    accepted = 0
    for number, (line, answer) in enumerate(zip(lines, answers, strict=True), 1):
        reference = json.loads(answer)
        try:
            ours: str | None = dump_line(parse_line(line.rstrip(b"\n")))
        except ParseError:
            ours = None
        if ours != reference.get("dump"):
            sys.exit(f"{path}:{number}: parse_line {ours!r}, the reference {reference!r}")
        accepted += ours is not None
    return accepted


def in_process(run: Callable[[list[bytes]], None], lines: list[bytes]) -> float:
    gc.collect()
    start = time.perf_counter()
    run(lines)
    return time.perf_counter() - start


def process(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def check_command() -> list[str]:
    found = shutil.which("overbrainer-contract", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "overbrainer_contract"]


def bad_line_costs(sample: str) -> dict[str, tuple[float, float]]:
    """µs per call of parse_line on one line of each bad kind (best of several): the raise
    caught alone, and with the error's category and text read (what `check` pays: a
    `ParseError` formats its text only when asked)."""
    costs = {}
    for kind in BAD_KINDS:
        line = bad_line(sample, kind).encode()

        def call(line: bytes = line) -> None:
            try:  # noqa: SIM105 - as in parse_all
                parse_line(line)
            except ParseError:
                pass

        def read(line: bytes = line) -> None:
            try:
                parse_line(line)
            except ParseError as error:
                error.category, str(error)  # read, as check reads them

        alone, text = (
            min(timeit.repeat(each, number=2000, repeat=5)) / 2000 * 1e6 for each in (call, read)
        )
        costs[kind] = (alone, text)
    return costs


# The peak is VmHWM, this process's own high-water mark (ru_maxrss would keep the parent's).
HUGE = """
import json, sys, time
from overbrainer_contract import parse_line
data = open(sys.argv[2], "rb").read()
start = time.perf_counter()
parse_line(data) if sys.argv[1] == "parse_line" else json.loads(data)
seconds = time.perf_counter() - start
status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
print(seconds, int(status) * 1024)
"""


def huge_line(path: Path, numbers: int) -> tuple[dict[str, tuple[float, int]], int]:
    """(seconds, peak RSS bytes) of parse_line and json.loads on one line holding an
    unknown field with `numbers` numbers, each in a fresh process; and the line's size."""
    rng = random.Random(3)
    with path.open("w") as handle:
        handle.write('{"event":"log","time":1764467476.5,"step":12,"loss":0.25,"samples":[')
        handle.write(",".join(f"{rng.random():.5f}" for _ in range(numbers)))
        handle.write("]}\n")
    results = {}
    for name in ("json.loads", "parse_line"):
        done = subprocess.run(
            [sys.executable, "-c", HUGE, name, str(path)], capture_output=True, check=True
        )
        seconds, peak = done.stdout.split()
        results[name] = (float(seconds), int(peak))
    return results, path.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--numbers", type=int, default=5_000_000, help="of the huge line")
    parser.add_argument("--runner", default=os.environ.get("OVERBRAINER_REFERENCE_RUNNER"))
    args, _ = parser.parse_known_args()  # nox -s bench passes parse.py's options too
    runner = args.runner or str(RUNNER)
    if not Path(runner).is_file():
        sys.exit(f"no reference runner at {runner}: nox -s bench builds it (cargo)")

    with tempfile.TemporaryDirectory() as tmp:
        plugin = list(realistic_lines(args.lines))
        files = {
            "plugin's form": write(Path(tmp) / "plugin.jsonl", plugin),
            "another writer's form": write(Path(tmp) / "other.jsonl", other_writer(plugin)),
            "1 bad line in 10": write(Path(tmp) / "bad.jsonl", with_bad_lines(plugin)),
        }
        print(f"{args.lines:,} lines a file; reference: {runner}")
        rows = []
        for name, path in files.items():
            with path.open("rb") as handle:
                lines = handle.readlines()
            body = [b"".join(lines)]
            accepted = exact(runner, path, lines)
            print(f"{name}: {accepted:,} of {len(lines):,} lines accepted, every value exact")
            best = dict.fromkeys(("parse_line", "parse_lines", "check", "export", "ref"), math.inf)
            parquet = str(Path(tmp) / "runs.parquet")
            for _ in range(args.rounds):  # interleaved, best of each
                best["parse_line"] = min(best["parse_line"], in_process(parse_all, lines))
                best["parse_lines"] = min(best["parse_lines"], in_process(whole_file, body))
                best["ref"] = min(best["ref"], process([runner, "count", str(path)]))
                best["check"] = min(best["check"], process([*check_command(), "check", str(path)]))
                export = [*check_command(), "export", str(path), "-o", parquet]
                best["export"] = min(best["export"], process(export))
            rows.append((name, len(lines), best))
        costs = bad_line_costs(plugin[3])
        huge, size = huge_line(Path(tmp) / "huge.jsonl", args.numbers)

    head = ("reference", "parse_line", "ratio", "parse_lines", "ratio", "check", "ratio")
    head += ("export", "ratio")
    print(f"\n{'file':<24}" + "".join(f"{word:>12}" for word in head))
    for name, count, best in rows:
        ref, ours, block, check, export = (
            count / best[key] for key in ("ref", "parse_line", "parse_lines", "check", "export")
        )
        cells = [f"{ref:,.0f}"]
        for value in (ours, block, check, export):
            cells += [f"{value:,.0f}", f"{value / ref:.2f}x"]
        print(f"{name:<24}" + "".join(f"{cell:>12}" for cell in cells))
    print(
        "lines/s, and ratios to the reference's lines/s, side by side in this run; goals:\n"
        "parse_line >= 1.0x, the whole file >= 1.5x, check >= 2.0x, export >= 1.0x"
    )
    reference_line = rows[2][2]["ref"] / rows[2][1] * 1e6
    print(f"\ncost of one bad line in parse_line (the reference: {reference_line:.2f} µs a line)")
    print(f"  {'':<16}{'raised':>10}{'and read':>10}  (µs; read: its category and text)")
    for kind, (alone, text) in costs.items():
        print(f"  {kind:<16}{alone:>10.2f}{text:>10.2f}")
    (json_s, json_peak), (ours_s, ours_peak) = huge["json.loads"], huge["parse_line"]
    print(f"\none {size / 1e6:.0f} MB line ({args.numbers:,} numbers in an unknown field;")
    print("each in a fresh process, the peak its own VmHWM, the line itself included)")
    print(f"  json.loads  {json_s:>7.3f} s  peak {json_peak / 2**20:>7.1f} MiB")
    print(f"  parse_line  {ours_s:>7.3f} s  peak {ours_peak / 2**20:>7.1f} MiB")
    print(f"  parse_line / json.loads = {ours_s / json_s:.2f}x the time (goal <= 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

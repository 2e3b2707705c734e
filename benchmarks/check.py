"""Benchmark of `check` against a bare loop of `parse_line` over the same file.

Writes the realistic `metrics.jsonl` of `benchmarks/parse.py` (default 1M lines), then
times, interleaved and best of several rounds, a bare `for line in f: parse_line(line)`
and the checker (what `overbrainer-contract check` runs: the file's chunks read by the
core, `check_stream`), both reading the file from disk. The goal: check within 1.5x of the
bare loop (the core reads on every core: below 1x).

    nox -s bench
    python benchmarks/check.py --lines 200000
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # parse.py, beside this file

from overbrainer_contract import parse_line
from overbrainer_contract.check.checker import Finding, check_stream
from overbrainer_contract.files.chunks import read_chunks
from workloads import write_realistic_file

GOAL = 1.5


def bare(path: Path) -> None:
    with path.open("rb") as handle:
        for line in handle:
            parse_line(line)


def check(path: Path) -> None:
    findings: list[Finding] = []
    with path.open("rb") as handle:
        result = check_stream(read_chunks(handle), str(path), findings.append)
    if not result.valid or findings:
        raise SystemExit(f"the bench file has problems: {findings[:3]}")


def best(run: Callable[[Path], None], path: Path) -> float:
    gc.collect()
    start = time.perf_counter()
    run(path)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args, _ = parser.parse_known_args()  # nox -s bench passes parse.py's options too
    with tempfile.TemporaryDirectory() as tmp:
        path = write_realistic_file(Path(tmp) / "metrics.jsonl", args.lines)
        size = path.stat().st_size
        print(f"{args.lines:,} lines, {size / 2**20:.1f} MiB: {path.name}")
        times = {"bare parse_line loop": float("inf"), "check": float("inf")}
        for _ in range(args.rounds):  # interleaved, best of each
            times["bare parse_line loop"] = min(times["bare parse_line loop"], best(bare, path))
            times["check"] = min(times["check"], best(check, path))
        tracemalloc.start()
        check(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    print(f"\n{'contender':<24}{'lines/s':>14}{'MiB/s':>10}")
    for name, seconds in times.items():
        print(f"{name:<24}{args.lines / seconds:>14,.0f}{size / 2**20 / seconds:>10.1f}")
    ratio = times["check"] / times["bare parse_line loop"]
    verdict = "ok" if ratio <= GOAL else "TOO SLOW"
    print(f"\ncheck / bare loop = {ratio:.2f}x the time (goal <= {GOAL}x): {verdict}")
    print(f"check streams: peak {peak / 1024:.0f} KiB allocated for a {size / 2**20:.0f} MiB file")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark of the bounded line reader (`overbrainer_contract.runs.lines`): what it adds to
iterating a file on ordinary lines, and what holding a long line costs.

Ordinary lines: `read_lines` over the realistic `metrics.jsonl` of `benchmarks/parse.py`
beside a bare `for line in file`, interleaved, best of several rounds. A long line: one
line of 1 to 64 MiB fed to a `LineSplitter` in 64 KiB blocks (as `check --max-line` reads
it), beside the floor, one join of the same blocks. Held as pieces joined once at the
newline, its cost grows with its length: the ratio to the floor stays flat (a line held by
concatenating each block would cost its length times its blocks: 19 s for 64 MiB).

    nox -s bench
    python benchmarks/lines.py --lines 200000
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # parse.py, beside this file

from overbrainer_contract.runs.lines import BLOCK, LineSplitter, read_lines
from workloads import write_realistic_file


def seconds(run: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def iterate(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def bounded(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in read_lines(handle))


def held(blocks: list[bytes], size: int) -> None:
    splitter = LineSplitter(size)
    lines = [line for block in blocks for line in splitter.feed(block)]
    assert [len(line) for line in lines] == [size + 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    args, _ = parser.parse_known_args()  # nox -s bench passes the other scripts' options too
    with tempfile.TemporaryDirectory() as tmp:
        path = write_realistic_file(Path(tmp) / "metrics.jsonl", args.lines)
        size = path.stat().st_size
        times = {"for line in file": float("inf"), "read_lines": float("inf")}
        for _ in range(args.rounds):
            times["for line in file"] = min(
                times["for line in file"], seconds(lambda: iterate(path))
            )
            times["read_lines"] = min(times["read_lines"], seconds(lambda: bounded(path)))
    print(f"{args.lines:,} ordinary lines, {size / 2**20:.1f} MiB")
    print(f"\n{'reader':<20}{'lines/s':>14}{'ns/line':>10}")
    for name, spent in times.items():
        print(f"{name:<20}{args.lines / spent:>14,.0f}{spent / args.lines * 1e9:>10.0f}")
    print(f"read_lines / for line in file = {times['read_lines'] / times['for line in file']:.2f}x")

    print(f"\n{'one long line':<16}{'blocks':>8}{'held (s)':>10}{'floor (s)':>11}{'ratio':>7}")
    for mib in (1, 4, 16, 64):
        line = b"7" * (mib << 20) + b"\n"
        blocks = [line[start : start + BLOCK] for start in range(0, len(line), BLOCK)]
        cost = min(seconds(lambda b=blocks, n=mib << 20: held(b, n)) for _ in range(3))
        floor = min(seconds(lambda b=blocks: b"".join(b)) for _ in range(3))
        print(
            f"{mib:>4} MiB{'':<8}{len(blocks):>8,}{cost:>10.4f}{floor:>11.4f}{cost / floor:>6.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

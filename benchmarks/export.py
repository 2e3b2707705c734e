"""Benchmark of `export` beside `check` on the same file, and export's peak memory.

Writes the realistic `metrics.jsonl` of `benchmarks/parse.py` (default 1M lines) and
times, interleaved and best of several rounds, the checker (what `overbrainer-contract
check` runs: `check_stream`, the core reading the file) and the export of the same file to
Parquet (what `overbrainer-contract export -o runs.parquet` runs: the core's columns in
`RunReader`'s batches into `ParquetWriter`). Goal: export at least half of check's lines
per second.

Then the peak memory (resident set, Arrow's buffers included) of the real command,
`overbrainer-contract export FILE -o runs.parquet` in a process of its own, on a file of
`--memory-lines` lines (default 5M) beside one a fifth of its size: flat memory means the
same peak for both. Goal: flat, under 200 MB.

    nox -s bench
    python benchmarks/export.py --lines 200000 --memory-lines 1000000
"""

from __future__ import annotations

import argparse
import gc
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # parse.py, beside this file

from overbrainer_contract.check.checker import Finding, check_stream
from overbrainer_contract.files.chunks import read_chunks
from overbrainer_contract.table import RunReader, write_batches
from workloads import write_realistic_file

GOAL_RATE = 0.5
GOAL_PEAK_MB = 200
GOAL_FLAT = 1.25
"""Flat: the large file's peak at most this many times the small file's."""


def check(path: Path, _: Path) -> None:
    findings: list[Finding] = []
    with path.open("rb") as handle:
        result = check_stream(read_chunks(handle), str(path), findings.append)
    if not result.valid or findings:
        raise SystemExit(f"the bench file has problems: {findings[:3]}")


def export(path: Path, out: Path) -> None:
    reader = RunReader([path])
    write_batches(reader.batches(), out)
    if reader.counts[0].left_out:
        raise SystemExit(f"the bench file has lines left out: {reader.counts[0]}")


def timed(run: Callable[[Path, Path], None], path: Path, out: Path) -> float:
    gc.collect()
    start = time.perf_counter()
    run(path, out)
    return time.perf_counter() - start


def peak_rss_mb(path: Path, out: Path) -> float:
    """The peak resident memory of `overbrainer-contract export PATH -o OUT`, in MB."""
    script = (
        "import resource, sys\n"
        "from overbrainer_contract.cli import main\n"
        "code = main(['export', sys.argv[1], '-o', sys.argv[2], '--progress', 'never'])\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert resource.RUSAGE_SELF is not None
    return int(done.stdout.split()[-1]) / 1024  # ru_maxrss: KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-lines", type=int, default=5_000_000)
    args, _ = parser.parse_known_args()  # nox -s bench passes the other scripts' options too
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = write_realistic_file(folder / "metrics.jsonl", args.lines)
        out = folder / "runs.parquet"
        size = path.stat().st_size
        print(f"{args.lines:,} lines, {size / 2**20:.1f} MiB: {path.name}")
        times = {"check": float("inf"), "export to Parquet": float("inf")}
        for _ in range(args.rounds):  # interleaved, best of each
            times["check"] = min(times["check"], timed(check, path, out))
            times["export to Parquet"] = min(times["export to Parquet"], timed(export, path, out))
        parquet = out.stat().st_size
        path.unlink()

        small_lines = max(args.memory_lines // 5, 1)
        peaks = {}
        for lines in (small_lines, args.memory_lines):
            source = write_realistic_file(folder / "memory.jsonl", lines)
            peaks[lines] = peak_rss_mb(source, folder / "memory.parquet")
            source.unlink()

    print(f"\n{'contender':<20}{'lines/s':>14}{'MiB/s':>10}")
    for name, seconds in times.items():
        print(f"{name:<20}{args.lines / seconds:>14,.0f}{size / 2**20 / seconds:>10.1f}")
    rate = times["check"] / times["export to Parquet"]
    rate_ok = rate >= GOAL_RATE
    print(f"\nexport / check = {rate:.2f}x the lines per second (goal >= {GOAL_RATE}x): ", end="")
    print("ok" if rate_ok else "TOO SLOW")
    print(f"Parquet written: {parquet / 2**20:.1f} MiB ({parquet / size:.0%} of the JSON lines)")

    small, large = peaks[small_lines], peaks[args.memory_lines]
    flat = large <= small * GOAL_FLAT
    memory_ok = flat and large < GOAL_PEAK_MB
    print(
        f"export's peak memory (resident): {small:.0f} MB for {small_lines:,} lines, "
        f"{large:.0f} MB for {args.memory_lines:,} lines "
        f"(goal: flat, under {GOAL_PEAK_MB} MB): {'ok' if memory_ok else 'NOT FLAT'}"
    )
    return 0 if rate_ok and memory_ok else 1


if __name__ == "__main__":
    sys.exit(main())

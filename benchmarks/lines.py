"""Benchmark of long lines through `check`: a valid line of any length is read, and junk
without a newline ends at once.

- A valid 40 MB line (an unknown field holding a 5M-number array: the reference reads it,
  serde_json skipping the field), then a 400 MB one: `overbrainer-contract check` on a file
  holding it, as a whole process, exit 0, beside `json.loads` of the same line in a fresh
  process; the time and the peak resident memory (VmHWM) of each, and of `check` on a tiny
  file (its start-up). Goals, on the 40 MB line: check at most 2x json.loads's time, and
  at most twice the line's size in memory above its start-up.
- A gigabyte of zeros without a newline (a sparse file): `check` ends with the reference's
  error, reading the rest unheld; its time and peak.

    nox -s bench
    python benchmarks/lines.py --numbers 1000000
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

GOAL_TIME = 2.0
"""check on the 40 MB line, at most this many times json.loads's time on it."""
GOAL_MEMORY = 2.0
"""check's peak above its start-up, at most this many times the line's size."""

# A child measuring itself: the peak is its own VmHWM (the line read in included).
MEASURED = """
import sys, time
start = time.perf_counter()
code = 0
if sys.argv[1] == "json.loads":
    import json
    json.loads(open(sys.argv[2], "rb").read())
else:
    from overbrainer_contract.cli import main
    code = main(["check", sys.argv[2]])
seconds = time.perf_counter() - start
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) * 1024
print(seconds, peak, code, file=sys.stderr)
"""


def measured(what: str, path: Path) -> tuple[float, int, int]:
    """(seconds, peak bytes, exit status) of `what` (`json.loads` or `check`) on `path`, in a
    fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, what, str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    seconds, peak, code = done.stderr.split()[-3:]
    return float(seconds), int(peak), int(code)


def huge_line(path: Path, numbers: int) -> int:
    """Write a valid line holding an unknown field of `numbers` numbers; its size."""
    rng = random.Random(3)
    with path.open("w") as handle:
        handle.write('{"event":"log","time":1764467476.5,"step":12,"loss":0.25,"samples":[')
        for start in range(0, numbers, 100_000):
            count = min(100_000, numbers - start)
            handle.write(",".join(f"{rng.random():.5f}" for _ in range(count)))
            handle.write("," if start + count < numbers else "")
        handle.write("]}\n")
    return path.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numbers", type=int, default=5_000_000, help="of the 40 MB line")
    args, _ = parser.parse_known_args()  # nox -s bench passes parse.py's options too
    met = True
    with tempfile.TemporaryDirectory() as tmp:
        tiny = Path(tmp) / "tiny.jsonl"
        tiny.write_text('{"event":"begin","time":1}\n')
        start_s, start_peak, _ = measured("check", tiny)
        print(f"check start-up: {start_s:.3f} s, peak {start_peak / 2**20:.1f} MiB")
        for scale in (1, 10):
            path = Path(tmp) / f"huge{scale}.jsonl"
            size = huge_line(path, args.numbers * scale)
            json_s, json_peak, _ = measured("json.loads", path)
            ours_s, ours_peak, code = measured("check", path)
            above = (ours_peak - start_peak) / size
            print(f"\none valid {size / 1e6:.0f} MB line ({args.numbers * scale:,} numbers):")
            print(f"  json.loads  {json_s:>7.3f} s  peak {json_peak / 2**20:>8.1f} MiB")
            peak = f"peak {ours_peak / 2**20:>8.1f} MiB"
            print(f"  check       {ours_s:>7.3f} s  {peak}  exit {code}")
            print(
                f"  check / json.loads = {ours_s / json_s:.2f}x the time (goal <= {GOAL_TIME}x);"
                f" memory above start-up = {above:.2f}x the line (goal <= {GOAL_MEMORY}x)"
            )
            if scale == 1:
                met &= code == 0 and ours_s <= GOAL_TIME * json_s and above <= GOAL_MEMORY
            path.unlink()
        junk = Path(tmp) / "junk.jsonl"
        with junk.open("wb") as handle:
            handle.truncate(2**30)
        junk_s, junk_peak, code = measured("check", junk)
        print(
            f"\na gigabyte of zeros, no newline: check {junk_s:.3f} s,"
            f" peak {junk_peak / 2**20:.1f} MiB, exit {code} (the reference's error)"
        )
    if not met:
        print("a goal on the 40 MB line is not met", file=sys.stderr)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

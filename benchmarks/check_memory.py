"""Peak memory of `check` over files of nothing but bad lines: findings in flat memory.

The real command (`python -m overbrainer_contract check FILE`, text and `-o json`, its
output thrown away) is run as a child process over 200k and 1M bad lines of two kinds:
`x` (no JSON value: one finding per two bytes, the densest a file can be) and a log line
as Python's `json.dumps` writes it with a NaN loss (what people write). Each child's peak
resident memory is its own `ru_maxrss` (`os.wait4`; it counts what the child was forked
with, so this process holds no file whole), beside the start-up's (a file of one
valid line). The goal: at most 64 MB each (findings are written as they come, never held).

    nox -s bench
    python benchmarks/check_memory.py --sizes 200000
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

GOAL = 64 * 10**6
"""Bytes of peak resident memory a check may take."""

KINDS = {
    "x": b"x\n",
    "NaN": json.dumps({"event": "log", "time": 1.0, "step": 1, "loss": math.nan}).encode() + b"\n",
}


def write(path: Path, line: bytes, lines: int) -> None:
    """`lines` times `line`, a block at a time: this process stays small, as a child's
    peak counts what it was forked with."""
    block = line * 10_000
    with path.open("wb") as handle:
        for _ in range(lines // 10_000):
            handle.write(block)
        handle.write(line * (lines % 10_000))


def peak(path: Path, *options: str) -> tuple[int, int]:
    """`check PATH OPTIONS`'s exit status and peak resident bytes."""
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(
            [sys.executable, "-m", "overbrainer_contract", "check", str(path), *options],
            stdout=sink,
            stderr=sink,
        )
        _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return child.returncode, usage.ru_maxrss * 1024  # KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000])
    args, _ = parser.parse_known_args()  # nox -s bench passes parse.py's options too
    missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        start = Path(tmp) / "start.jsonl"
        start.write_bytes(b'{"event":"begin","time":1.0}\n')
        _, started = peak(start)
        print(f"check's start-up: peak {started / 1e6:.1f} MB")
        print(f"\n{'file':<28}{'output':>8}{'exit':>6}{'peak MB':>10}  goal <= {GOAL / 1e6:.0f} MB")
        for lines in args.sizes:
            for kind, line in KINDS.items():
                path = Path(tmp) / f"{kind}-{lines}.jsonl"
                write(path, line, lines)
                for output in ("text", "json"):
                    code, used = peak(path, "-o", output)
                    verdict = "ok" if used <= GOAL and code == 1 else "MISSED"
                    missed += verdict != "ok"
                    name = f"{lines:,} lines of {kind}"
                    print(f"{name:<28}{output:>8}{code:>6}{used / 1e6:>10.1f}  {verdict}")
                path.unlink()
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

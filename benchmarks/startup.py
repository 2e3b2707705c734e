"""Benchmark of what a `check` process pays before its first line, against the reference.

On a one-line file, each a whole process, interleaved, best of several rounds: the
reference runner (`count FILE`), the interpreter alone (`python -c pass`), the interpreter
importing msgspec (what any reader of this package imports: the floor under `check`),
`import overbrainer_contract` and `from overbrainer_contract import parse_line`, and
`overbrainer-contract check FILE`. Then the cost `check` adds, per line, at 300k and 1M
lines, the reference's own rate for comparison.

    nox -s bench
    python benchmarks/startup.py --runs 20
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "conformance" / "rust" / "target" / "release" / "overbrainer-reference-runner"
LINE = b'{"event":"begin","time":1764467476.5,"max_steps":7206}\n'


def check_command() -> list[str]:
    found = shutil.which("overbrainer-contract", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "overbrainer_contract"]


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--runner", default=os.environ.get("OVERBRAINER_REFERENCE_RUNNER"))
    args, _ = parser.parse_known_args()  # nox -s bench passes the other scripts' options
    runner = args.runner or str(RUNNER)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "metrics.jsonl"
        path.write_bytes(LINE)
        python = [sys.executable, "-c"]
        commands = {
            "reference runner (count FILE)": [runner, "count", str(path)],
            "python -c pass": [*python, "pass"],
            "python: import msgspec": [*python, "import msgspec.json, msgspec.inspect"],
            "python: import overbrainer_contract": [*python, "import overbrainer_contract"],
            "python: from overbrainer_contract import parse_line": [
                *python,
                "from overbrainer_contract import parse_line",
            ],
            "overbrainer-contract check FILE": [*check_command(), "check", str(path)],
        }
        if not Path(runner).is_file():
            del commands["reference runner (count FILE)"]
        best = dict.fromkeys(commands, float("inf"))
        for _ in range(args.runs):  # interleaved: the machine's state changes alike for each
            for name, command in commands.items():
                best[name] = min(best[name], seconds(command))
    print(f"startup on a one-line file, best of {args.runs} runs, each a whole process")
    for name, value in best.items():
        print(f"  {name:<52}{value * 1e3:>8.1f} ms")
    check = best["overbrainer-contract check FILE"]
    floor = best["python: import msgspec"]
    print(f"  check above the interpreter with msgspec: {(check - floor) * 1e3:.1f} ms")
    if "reference runner (count FILE)" in best:
        reference = best["reference runner (count FILE)"]
        for lines in (300_000, 1_000_000):
            extra = (check - reference) / lines * 1e9
            print(f"  at {lines:,} lines, check's start adds {extra:.0f} ns a line")
    return 0


if __name__ == "__main__":
    sys.exit(main())

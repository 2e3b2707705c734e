"""Benchmark of `serve` on a sweep of 1,000 runs of 10,000 lines each (about 1.2 GB).

The sweep is written to a temporary folder (a `begin` line, then log lines of the plugin's
form, steps 1 to 9,999), `overbrainer-contract serve --port 0` started on it, and the page
opened in Debian's headless Chromium (`benchmarks/serve_page.mjs`). Measured, in one run:

- the runs table painted: a row for each of the 1,000 runs (goal: within 3 s of opening);
- every run read: each run's card at step 9,999, every byte of every run read by the page;
- a line appended to one run, then shown on its card (goal: within 2 s);
- the server's peak resident memory (`VmHWM`, goal: under 100 MB), and the page's memory
  (its JavaScript heap, its process's and the whole browser's proportional set size: said,
  no goal).

Exit 1 when a goal is missed.

    nox -s bench
    python benchmarks/serve.py --runs 100 --lines 1000   # smaller, by hand
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = Path(__file__).resolve().parent / "serve_page.mjs"
VIEWER = ROOT / "js" / "viewer" / "dist" / "viewer.html"

GOALS = {"painted_ms": 3000.0, "appended_ms": 2000.0, "server_peak_mb": 100.0}


def write_sweep(top: Path, runs: int, lines: int) -> list[Path]:
    """`runs` run folders of `lines` lines each (lr{i % 10}/seed{i}); their metrics files."""
    files = []
    body = "".join(
        f'{{"event":"log","step":{step},"time":{1733000000 + step * 0.5:.3f},'
        f'"epoch":{step / lines:.4f},"loss":{2.5 - step / lines:.6f},'
        f'"learning_rate":0.0001,"grad_norm":{0.5 + step % 7:.5f}}}\n'
        for step in range(1, lines)
    )
    for index in range(runs):
        folder = top / f"lr{index % 10}" / f"seed{index}"
        folder.mkdir(parents=True)
        path = folder / "metrics.jsonl"
        begin = (
            f'{{"event":"begin","time":1733000000.0,"max_steps":{lines},"num_train_epochs":1}}\n'
        )
        path.write_text(begin + body)
        files.append(path)
    return files


def peak_mb(pid: int) -> float:
    found = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(found.group(1)) / 1024 if found else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--command", default=shutil.which("overbrainer-contract") or "")
    parser.add_argument("--page", type=Path, default=VIEWER)
    options = parser.parse_args()
    if not options.page.exists():
        sys.exit(f"no {options.page}: build the viewer (docs/viewer.md)")
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp) / "sweep"
        started = time.perf_counter()
        files = write_sweep(top, options.runs, options.lines)
        size = sum(path.stat().st_size for path in files)
        print(
            f"serve: {options.runs:,} runs x {options.lines:,} lines, {size / 1e6:,.0f} MB"
            f" (written in {time.perf_counter() - started:.1f} s)"
        )
        command = [options.command, "serve", "--port", "0", "--page", str(options.page), str(top)]
        server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            found = re.search(r"at (http://\S+) \(Ctrl-C", line)
            if found is None:
                sys.exit(f"serve printed {line!r}")
            middle = files[len(files) // 2]
            name = str(middle.parent.relative_to(top))
            page = subprocess.run(
                [
                    "node",
                    str(PAGE),
                    found.group(1),
                    str(options.runs),
                    str(options.lines - 1),
                    str(middle),
                    name,
                ],
                capture_output=True,
                text=True,
                check=False,
                env={**os.environ},
            )
            if page.returncode != 0:
                sys.exit(f"the page's measure failed: {page.stderr[-2000:]}")
            figures = json.loads(page.stdout.strip().splitlines()[-1])
            figures["server_peak_mb"] = peak_mb(server.pid)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)
    heap = figures["js_heap_bytes"]
    print(f"  runs table painted ({options.runs:,} rows): {figures['painted_ms'] / 1000:.2f} s")
    print(f"  every run read (every card at its last step): {figures['read_ms'] / 1000:.2f} s")
    print(f"  a line appended, shown on its card: {figures['appended_ms'] / 1000:.2f} s")
    print(f"  server peak memory (VmHWM): {figures['server_peak_mb']:.1f} MB")
    print(
        f"  page memory: JavaScript heap {heap / 1e6:,.0f} MB; the page's process"
        f" {figures['renderer_pss_bytes'] / 1e6:,.0f} MB and the whole browser"
        f" {figures['browser_pss_bytes'] / 1e6:,.0f} MB (PSS)"
    )
    missed = [key for key, goal in GOALS.items() if not figures[key] <= goal]
    for key in missed:
        print(f"  goal missed: {key} {figures[key]:.1f} > {GOALS[key]:.0f}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

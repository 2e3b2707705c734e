"""Benchmark of `serve` at a sweep's scale: the page in headless Chromium, against the goals.

Two sweeps, each written to a temporary folder (a `begin` line, then log lines of a
preference-tuning run's shape: six scalars a log, `loss`, `learning_rate` and `grad_norm`
in their fields and three rewards in `scalars`), `overbrainer-contract serve --port 0`
started on it, and the page opened in Debian's headless Chromium
(`benchmarks/serve_page.mjs`):

- 1,000 runs of 10,000 lines (about 2 GB);
- 10,000 runs of 300 lines.

Measured, for each:

- every run's row: the runs table holding a row for every run;
- every run read: no run left that the page has not read (the line above its runs counts
  them), checked by the table sorted by step, whose least is the runs' last step;
- a line appended to one run, then shown in the table (sorted by step, descending: that run
  first, at its new step);
- the browser's memory once every run is read and the line shown: the proportional set size
  of all its processes (`/proc`), and the page's process and JavaScript heap (said, no goal);
- the server's peak resident memory (`VmHWM`).

The table printed puts each figure beside its goal. Exit 1 when a goal is missed.

    nox -s bench
    python benchmarks/serve.py --sweep wide          # 10,000 runs x 300 lines only
    python benchmarks/serve.py --runs 100 --lines 1000   # a sweep of any size, no goals
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

SWEEPS = {"long": (1000, 10_000), "wide": (10_000, 300)}
"""The sweeps measured: runs, lines."""

# the figures measured, in the table's order: (key, heading, unit, scale from the measure)
FIGURES = (
    ("painted_ms", "every run's row", "s", 1e-3),
    ("read_ms", "every run read", "s", 1e-3),
    ("appended_ms", "a line appended, shown", "s", 1e-3),
    ("browser_pss_bytes", "browser (PSS)", "MB", 1e-6),
    ("server_peak_mb", "server (peak)", "MB", 1.0),
)

GOALS = {
    "long": {
        "painted_ms": 2e3,
        "read_ms": 10e3,
        "appended_ms": 1e3,
        "browser_pss_bytes": 600e6,
        "server_peak_mb": 150.0,
    },
    "wide": {
        "painted_ms": 5e3,
        "read_ms": 30e3,
        "appended_ms": 1e3,
        "browser_pss_bytes": 1e9,
        "server_peak_mb": 300.0,
    },
}
"""The goals of each sweep, in the figures' own units (ms, bytes, MB)."""


def write_sweep(top: Path, runs: int, lines: int) -> list[Path]:
    """`runs` run folders of `lines` lines each (lr{i % 10}/seed{i}); their metrics files."""
    files = []
    body = "".join(
        f'{{"event":"log","step":{step},"time":{1733000000 + step * 0.5:.3f},'
        f'"epoch":{step / lines:.4f},"loss":{2.5 - step / lines:.6f},'
        f'"learning_rate":0.0001,"grad_norm":{0.5 + step % 7:.5f},'
        f'"scalars":{{"rewards/chosen":{0.1 + step / lines:.6f},'
        f'"rewards/rejected":{-0.2 - step % 11 / 100:.6f},'
        f'"rewards/margins":{0.3 + step / lines + step % 11 / 100:.6f}}}}}\n'
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


def measure(runs: int, lines: int, command: str, page: Path) -> dict[str, float]:
    """The figures of a sweep of `runs` runs of `lines` lines, served by `command`, the page
    `page` opened in Chromium."""
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp) / "sweep"
        started = time.perf_counter()
        files = write_sweep(top, runs, lines)
        size = sum(path.stat().st_size for path in files)
        print(
            f"serve: {runs:,} runs x {lines:,} lines, {size / 1e6:,.0f} MB"
            f" (written in {time.perf_counter() - started:.1f} s)",
            flush=True,
        )
        served = [command, "serve", "--port", "0", "--page", str(page), str(top)]
        server = subprocess.Popen(served, stdout=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            found = re.search(r"at (http://\S+) \(Ctrl-C", line)
            if found is None:
                sys.exit(f"serve printed {line!r}")
            middle = files[len(files) // 2]
            name = str(middle.parent.relative_to(top))
            opened = subprocess.run(
                ["node", str(PAGE), found.group(1), str(runs), str(lines - 1), str(middle), name],
                capture_output=True,
                text=True,
                check=False,
                env={**os.environ},
            )
            if opened.returncode != 0:
                sys.exit(f"the page's measure failed: {opened.stderr[-2000:]}")
            figures: dict[str, float] = json.loads(opened.stdout.strip().splitlines()[-1])
            figures["server_peak_mb"] = peak_mb(server.pid)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)
    heap, renderer = figures["js_heap_bytes"], figures["renderer_pss_bytes"]
    print(f"  the page: JavaScript heap {heap / 1e6:,.0f} MB, its process {renderer / 1e6:,.0f} MB")
    return figures


def table(rows: list[tuple[str, dict[str, float], dict[str, float] | None]]) -> list[str]:
    """The figures of each sweep, each beside its goal (`-`: none); the goals missed."""
    print("| sweep | " + " | ".join(heading for _, heading, _, _ in FIGURES) + " |")
    print("|---|" + "---:|" * len(FIGURES))
    missed = []
    for sweep, figures, goals in rows:
        cells = []
        for key, heading, unit, scale in FIGURES:
            value = figures[key] * scale
            text = f"{value:,.2f} {unit}" if unit == "s" else f"{value:,.0f} {unit}"
            if goals is not None:
                goal = goals[key] * scale
                met = figures[key] <= goals[key]
                text += f" (goal {goal:,.0f} {unit}: {'met' if met else 'NOT MET'})"
                if not met:
                    missed.append(f"{sweep}: {heading}")
            cells.append(text)
        print(f"| {sweep} | " + " | ".join(cells) + " |")
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", choices=[*SWEEPS, "both"], default="both")
    parser.add_argument("--runs", type=int, help="a sweep of this many runs, no goals")
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--command", default=shutil.which("overbrainer-contract") or "")
    parser.add_argument("--page", type=Path, default=VIEWER)
    options = parser.parse_args()
    if not options.page.exists():
        sys.exit(f"no {options.page}: build the viewer (docs/viewer.md)")
    rows: list[tuple[str, dict[str, float], dict[str, float] | None]] = []
    if options.runs is not None:
        figures = measure(options.runs, options.lines, options.command, options.page)
        rows.append((f"{options.runs:,} x {options.lines:,}", figures, None))
    else:
        for sweep in SWEEPS if options.sweep == "both" else [options.sweep]:
            runs, lines = SWEEPS[sweep]
            figures = measure(runs, lines, options.command, options.page)
            rows.append((f"{runs:,} x {lines:,}", figures, GOALS[sweep]))
    missed = table(rows)
    for each in missed:
        print(f"  goal missed: {each}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

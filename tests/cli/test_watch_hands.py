"""`watch` of a metrics file other hands change under it, for real: a child `watch` follows
a run folder while the test truncates and rewrites the file in place, replaces it, removes
it and puts it back, and reads what the child prints, line by line, under a timeout. Then
what a file or a name holds, on a real terminal (a pty): shown as data, never acted on."""

from __future__ import annotations

import json
import os
import pty
import queue
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from cli_samples import python_env
from overbrainer_contract.plugin.source import JOB_STAGES

BOUND = 20.0  # seconds: each case is done well before
LAST_STAGE = JOB_STAGES[-1]
COMMAND = (sys.executable, "-m", "overbrainer_contract", "watch")


def line(**fields: Any) -> bytes:
    return json.dumps(fields, separators=(",", ":")).encode() + b"\n"


def run_lines(started: float, max_steps: int, steps: range, pad: int = 0) -> bytes:
    """A run's `begin` and its logs (each log `pad` bytes longer by a long `epoch`'s
    neighbour, a learning rate written out)."""
    lines = [line(event="begin", time=started, max_steps=max_steps)]
    for step in steps:
        lines.append(
            line(
                event="log",
                time=started + step,
                step=step,
                loss=1.0 / step,
                learning_rate=float("0." + "0" * pad + "1"),
            )
        )
    return b"".join(lines)


class Watch:
    """A child `watch --plain` of `run`, its standard output read line by line."""

    def __init__(self, run: Path, interval: str = "0.05") -> None:
        self.process = subprocess.Popen(
            [*COMMAND, str(run), "--plain", "--interval", interval, "--grace", "60"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=python_env(),
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            self.lines.put(text.rstrip("\n"))
        self.lines.put(None)

    def expect(self, fragment: str) -> list[str]:
        """The lines up to the first holding `fragment` (failing after `BOUND` seconds)."""
        deadline = time.monotonic() + BOUND
        got: list[str] = []
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {fragment!r} in {self.seen}"
            try:
                text = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            assert text is not None, f"watch left before {fragment!r}: {self.seen}"
            self.seen.append(text)
            got.append(text)
            if fragment in text:
                return got

    def finish(self) -> int:
        """The exit, once watch left by itself."""
        code = self.process.wait(timeout=BOUND)
        while (text := self.lines.get(timeout=BOUND)) is not None:
            self.seen.append(text)
        return code

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=BOUND)


def invalid_events(lines: list[str], metrics: Path) -> list[str]:
    """The events of lines watch found invalid (`PATH:NUMBER ...`)."""
    return [text for text in lines if text.startswith(f"{metrics}:")]


def test_a_file_truncated_and_rewritten_past_the_offset_is_read_again_from_its_start(
    tmp_path: Path,
) -> None:
    """Truncated and written again, longer than what watch had read, within one look:
    same file (st_dev/st_ino), no smaller than the offset. Read on from the old offset,
    the new bytes would start in the middle of a line: an invalid line made up."""
    run = tmp_path / "run"
    run.mkdir()
    metrics = run / "metrics.jsonl"
    metrics.write_bytes(run_lines(1000.0, 4, range(1, 3)))
    watch = Watch(run, interval="0.5")
    try:
        watch.expect("training began: 4 steps")
        identity = os.stat(metrics).st_ino
        time.sleep(0.6)  # watch has looked at the whole first file
        fresh = run_lines(2000.0, 8_000, range(1, 40), pad=7)
        assert len(fresh) > metrics.stat().st_size
        with metrics.open("r+b") as handle:  # in place, in one go: within one interval
            handle.truncate(0)
            handle.write(fresh)
        assert os.stat(metrics).st_ino == identity
        said = watch.expect("training began: 8,000 steps")
        with metrics.open("ab") as handle:
            handle.write(line(event="stage", name=LAST_STAGE, time=2100))
        code = watch.finish()
    finally:
        watch.stop()
    assert any("reading it again from its start" in text for text in said), said
    assert invalid_events(watch.seen, metrics) == []
    assert code == 0


def test_a_removed_file_is_said_once_and_followed_again_when_it_comes_back(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    metrics = run / "metrics.jsonl"
    metrics.write_bytes(run_lines(1000.0, 4, range(1, 3)))
    watch = Watch(run)
    try:
        watch.expect("training began: 4 steps")
        metrics.unlink()
        watch.expect("was removed")
        time.sleep(0.5)  # ten looks at a path with nothing there: said once
        metrics.write_bytes(run_lines(2000.0, 8_000, range(1, 3)))
        said = watch.expect("training began: 8,000 steps")
        with metrics.open("ab") as handle:
            handle.write(line(event="stage", name=LAST_STAGE, time=2100))
        code = watch.finish()
    finally:
        watch.stop()
    assert sum("was removed" in text for text in watch.seen) == 1, watch.seen
    assert any("reading the new file from its start" in text for text in said), said
    assert invalid_events(watch.seen, metrics) == []
    assert code == 0


def test_a_replaced_file_is_read_to_its_end_then_the_new_one_from_its_start(
    tmp_path: Path,
) -> None:
    """The old file's last lines, written just before another file took its name, are
    read (to the size it had when the change was seen); then the new file from its start."""
    run = tmp_path / "run"
    run.mkdir()
    metrics = run / "metrics.jsonl"
    metrics.write_bytes(run_lines(1000.0, 4, range(1, 3)))
    watch = Watch(run, interval="0.5")
    try:
        watch.expect("training began: 4 steps")
        time.sleep(0.6)
        with metrics.open("ab") as handle:  # the old run's last words ...
            handle.write(line(event="log", time=1003.0, step=3, eval_loss=1.25))
        fresh = run / "metrics.jsonl.new"  # ... and at once, another file in its place
        fresh.write_bytes(run_lines(2000.0, 8_000, range(1, 3)))
        os.replace(fresh, metrics)
        said = watch.expect("training began: 8,000 steps")
        with metrics.open("ab") as handle:
            handle.write(line(event="stage", name=LAST_STAGE, time=2100))
        code = watch.finish()
    finally:
        watch.stop()
    assert any("eval loss 1.25 at step 3" in text for text in said), said
    assert any("was replaced by another file" in text for text in said), said
    assert code == 0


# -- what a file or a name holds, on a terminal --------------------------------------------


def terminal_watch(run: Path, *options: str) -> bytes:
    """What `watch RUN` writes to a real terminal (a pty, 2,000 columns: no line wrapped)
    before it leaves."""
    controller, terminal = pty.openpty()
    env = python_env() | {"COLUMNS": "2000", "LINES": "30", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [*COMMAND, str(run), *options, "--interval", "0.05", "--grace", "0"],
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=terminal,
        env=env,
    )
    os.close(terminal)
    out = bytearray()
    deadline = time.monotonic() + BOUND
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.2)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the child's side closed: all read
                break
            if not chunk:
                break
            out += chunk
        process.wait(timeout=BOUND)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=BOUND)
        os.close(controller)
    return bytes(out)


HOSTILE_LINES = (
    # an unknown stage name and an unknown event, echoed by the reader's message: a screen
    # clear, a window title, rich markup
    b'{"event":"stage","name":"\\u001b[2J[bold red]x","time":1}\n'
    b'{"event":"bogus\\u001b]0;pwned\\u0007[/]","time":1}\n'
    b'{"event":"begin","time":1,"max_steps":2}\n'
    b'{"event":"end","time":2,"step":2}\n'
)


def test_watch_shows_what_files_and_names_hold_as_data_on_a_terminal(tmp_path: Path) -> None:
    """A folder named with an escape sequence and rich markup, and lines whose reader
    messages echo others: on a real terminal, both views (rich's and `--plain`), every
    one shown as visible escapes, the markup as its text; no sequence reaches the terminal."""
    run = tmp_path / "run[bold]\x1b[31m\u202e"
    run.mkdir()
    (run / "metrics.jsonl").write_bytes(HOSTILE_LINES)
    for options in ((), ("--plain",)):
        out = terminal_watch(run, *options)
        text = out.decode("utf-8", errors="replace")
        for raw in (b"\x1b[31m", b"\x1b[2J", b"\x1b]0;pwned", b"\x07", "\u202e".encode()):
            assert raw not in out, (options, raw, text)
        assert "run[bold]\\x1b[31m\\u202e" in text, (options, text)  # the folder, as data
        assert "\\x1b[2J[bold red]x" in text, (options, text)  # the stage name echoed
        assert "bogus\\x1b]0;pwned\\x07[/]" in text, (options, text)

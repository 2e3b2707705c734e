"""`overbrainer-contract stage` where an append with no care fails the run: a FIFO with no
reader, a link planted in the metrics file's place, a cut last line, a real full disk. Each
case runs the command in a child under a timeout (`hostile.capped_cli`).

It writes with the plugin's own writer: never blocks, appends only to a regular file (the
last component never followed), the whole line or nothing, a fresh line after a cut one.
A line not written is exit 2 and one line on stderr, its path escaped."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hostile import capped_cli, sized_lines, tmpfs

TIMEOUT = 30  # seconds; a stage line takes well under one, an open() onto a FIFO for ever
MEMORY = 2**30
BEGIN = b'{"event":"begin","time":1.5,"max_steps":null}\n'


def stage(cwd: Path, metrics: Path, name: str = "merge") -> tuple[int, str]:
    result = capped_cli(
        "stage", name, "--file", str(metrics), cwd=cwd, memory=MEMORY, timeout=TIMEOUT
    )
    assert result.stdout == ""
    return result.returncode, result.stderr


def stage_lines(data: bytes) -> list[str]:
    """The names of the stage lines, each a whole line of the exact form the plugin writes."""
    names = []
    for raw in data.splitlines():
        text = raw.decode()
        head, _, tail = text.partition('","time":')
        assert head.startswith('{"event":"stage","name":"'), text
        assert tail[:-1].isdigit(), text
        assert tail.endswith("}")
        names.append(head.removeprefix('{"event":"stage","name":"'))
    return names


def test_a_fifo_with_no_reader_is_refused_at_once(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    os.mkfifo(metrics)
    code, err = stage(tmp_path, metrics)  # an open() for writing waits for a reader: timeout
    assert code == 2
    assert "not a regular file" in err
    assert err.count("\n") == 1


def test_a_planted_link_is_not_written_through_and_its_name_is_escaped(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"kept\n")
    metrics = tmp_path / "run\x1b[2J" / "metrics.jsonl"
    metrics.parent.mkdir()
    metrics.symlink_to(target)
    code, err = stage(tmp_path, metrics)
    assert code == 2
    assert "a symbolic link: not written through" in err
    assert "\x1b" not in err
    assert "run\\x1b[2J" in err
    assert err.count("\n") == 1
    assert target.read_bytes() == b"kept\n"


def test_after_a_cut_last_line_the_stage_line_starts_a_fresh_one(tmp_path: Path) -> None:
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_bytes(BEGIN + b'{"event":"st')
    assert stage(tmp_path, metrics, "export") == (0, "")
    data = metrics.read_bytes()
    assert data.startswith(BEGIN + b'{"event":"st\n'), "the cut line stays, alone"
    assert stage_lines(data[len(BEGIN) + len(b'{"event":"st\n') :]) == ["export"]


def test_a_full_disk_leaves_no_fragment_and_the_next_line_is_whole(tmp_path: Path) -> None:
    """On a small real tmpfs: the file's last block 20 bytes short of full, the rest of the
    disk filled, so the 51-byte line fits only in part: exit 2 and nothing of it stays;
    once there is room, the next line is whole, on its own line."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugin"))
    from plugin_helpers import Filler

    with tmpfs(tmp_path / "disk", "256k") as disk:
        metrics = disk / "metrics.jsonl"
        block = os.statvfs(disk).f_bsize
        before = sized_lines(block - 20)
        assert len(before) == block - 20
        metrics.write_bytes(before)
        filler = Filler(disk)
        filler.fill()
        try:
            code, err = stage(tmp_path, metrics)
            after_cut = metrics.read_bytes()
        finally:
            filler.free()
        assert code == 2
        assert "cut short: 20 of 51 bytes" in err
        assert after_cut == before, "a fragment of the line stayed"
        assert stage(tmp_path, metrics, "export") == (0, "")
        data = metrics.read_bytes()
    assert data.startswith(before)
    assert stage_lines(data[len(before) :]) == ["export"]

"""Every command's one line on standard error shows a path from the command line or a file
as data: a missing run named with an escape sequence and a newline is said on one line,
the controls as visible escapes (`_common.say`, through `text.shown`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

NAME = "gone\x1b]0;owned\x07\nforged: valid"
SHOWN = "gone\\x1b]0;owned\\x07\\nforged: valid"


@pytest.mark.parametrize(
    "argv",
    [
        ["check", NAME],
        ["status", NAME],
        ["watch", f"{NAME}/run"],
        ["plot", NAME, "-o", "out.png"],
        ["snapshot", NAME],
    ],
    ids=["check", "status", "watch", "plot", "snapshot"],
)
def test_a_missing_run_is_said_on_one_line_escaped(tmp_path: Path, argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *argv],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done
    err = done.stderr.decode()
    assert "\x1b" not in err
    assert "\x07" not in err
    lines = err.splitlines()
    assert len(lines) == 1, lines
    assert SHOWN in lines[0]
    assert list(tmp_path.iterdir()) == []  # nothing written

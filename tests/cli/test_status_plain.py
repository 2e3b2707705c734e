"""`status` of several runs without rich (the package without its `cli` extra): the table
laid out as plain text. rich is made unimportable in a child Python (an import hook that
refuses it), and the same command with rich is the reference: each line of the plain table
is rich's line (its trailing blanks aside), the rule under the headings `-` where rich
draws `─`. The runs are written here, a wide-character name among them, so that
the columns are aligned by the cells' widths on a terminal, not by their lengths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_samples import python_env

WITHOUT_RICH = """\
import runpy, sys

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name == "rich" or name.startswith("rich."):
            raise ImportError(f"No module named {name!r} (refused by the test)")
        return None

sys.meta_path.insert(0, Refuse())
sys.argv = ["overbrainer-contract", *sys.argv[1:]]
runpy.run_module("overbrainer_contract", run_name="__main__")
"""

WITH_RICH = """\
import runpy, sys
import rich  # the reference: the table rich lays out
sys.argv = ["overbrainer-contract", *sys.argv[1:]]
runpy.run_module("overbrainer_contract", run_name="__main__")
"""


def write(folder: Path, lines: list[object]) -> None:
    folder.mkdir(parents=True)
    text = "".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    (folder / "metrics.jsonl").write_text(text)


def status(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = python_env()
    env.pop("COLUMNS", None)
    return subprocess.run(
        [sys.executable, "-c", code, "status", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )


def test_status_of_several_runs_is_a_plain_table_without_rich(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep"
    write(
        sweep / "a",
        [
            {"event": "begin", "time": 1, "max_steps": 4},
            {"event": "log", "time": 2, "step": 1, "loss": 2.5},
            {"event": "log", "time": 3, "step": 2, "eval_loss": 2.25},
        ],
    )
    write(
        sweep / "日本語の実行",
        [
            {"event": "begin", "time": 1},
            {"event": "log", "time": 2, "step": 3, "loss": 1.5, "scalars": {"acc": 0.5}},
            "not json\n",
        ],
    )
    write(sweep / "c", [{"event": "log", "time": 5, "step": 30, "loss": 0.125}])
    args = (str(sweep), "--now", "10", "--metric", "acc")
    plain = status(WITHOUT_RICH, *args)
    assert "refused by the test" not in plain.stderr
    rich = status(WITH_RICH, *args)
    # one run has an invalid line: exit 1 both ways, the same words on stderr
    assert (plain.returncode, rich.returncode) == (1, 1), plain.stderr
    assert plain.stderr == rich.stderr
    lines = plain.stdout.splitlines()
    expected = [line.rstrip() for line in rich.stdout.splitlines()]
    assert len(lines) == len(expected) == 6  # headings, rule, three runs, the footer
    assert lines[0] == expected[0]
    # the rule: `-` across the table, where rich draws its `─`
    assert set(expected[1]) == {"─"}
    assert lines[1] == expected[1].replace("─", "-")
    assert lines[2:] == expected[2:]
    assert lines[2].startswith("a ")
    assert lines[4].startswith("日本語の実行 ")  # after `c`: names in their natural order
    assert lines[-1].startswith("3 runs")

"""Every example in the README is a test.

- A ```console block holds commands (`$ ...`, run by bash) and the output each prints (standard
  output and standard error as one stream, unbuffered: in the order a terminal shows them).
  The block runs in a fresh folder holding a copy of `examples/` and of `schema/`, with the
  console script on the PATH and colour off; each command's output is held to the block's text with
  doctest's rules (`...` stands for any text, white space compared loosely), and its exit status
  to the `# exit N` comment that ends its `$` line (0 without one).
- A ```python block runs as a script in the same kind of folder (with `examples/tiny-run`'s
  `metrics.jsonl` at its top, the file the reading examples open); it must run without error.
- A ```sh block is how the project itself is installed or tested (`.ci/run` runs those commands);
  `test_sh_blocks_are_what_ci_runs` holds each to what CI runs.
- The blocks of "Many runs as one table" (an export, then a DuckDB and a polars query of it)
  are run by `tests/table/test_export.py` in `nox -s table`, where pyarrow, duckdb and polars
  are installed; `test_the_table_section_is_run_by_the_export_tests` holds it to that.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)
EXIT = re.compile(r"\s+# exit (\d+)$")
CHECKER = doctest.OutputChecker()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Command:
    line: str
    status: int
    expected: str


TABLE_SECTION = "Many runs as one table"


def section(text: str, title: str) -> tuple[int, int]:
    """Where the README's `## title` section starts and ends."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return start, end if end != -1 else len(text)


def blocks(kind: str, *, table: bool = False) -> list[tuple[int, str]]:
    """Each ```kind block of the README, with the line it starts on: those of the table
    section (`table=True`) or those of every other."""
    text = README.read_text(encoding="utf-8")
    start, end = section(text, TABLE_SECTION)
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) == kind and (start <= match.start() < end) is table:
            found.append((text.count("\n", 0, match.start()) + 1, match.group(2)))
    return found


def commands(block: str) -> list[Command]:
    """The block's commands, each with its exit status and the output shown after it."""
    found: list[Command] = []
    line: str | None = None
    status = 0
    output: list[str] = []
    for row in block.splitlines():
        if row.startswith("$ "):
            if line is not None:
                found.append(Command(line, status, "\n".join(output)))
            line, output = row[2:], []
            exit_comment = EXIT.search(line)
            status = int(exit_comment.group(1)) if exit_comment else 0
            line = line[: exit_comment.start()] if exit_comment else line
        elif line is not None:
            output.append(row)
    if line is not None:
        found.append(Command(line, status, "\n".join(output)))
    return found


def workspace(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "schema", tmp_path / "schema")
    shutil.copy(ROOT / "examples" / "tiny-run" / "metrics.jsonl", tmp_path / "metrics.jsonl")
    return tmp_path


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("COLUMNS", None)  # output to a pipe: as wide as its rows
    env.update({"NO_COLOR": "1", "TERM": "dumb", "PYTHONUTF8": "1", "PYTHONUNBUFFERED": "1"})
    return env


CONSOLE = blocks("console")
PYTHON = blocks("python")


def test_the_readme_has_examples() -> None:
    assert CONSOLE, "no ```console block in the README"
    assert PYTHON, "no ```python block in the README"
    assert all(commands(block) for _, block in CONSOLE), "a console block without a `$` line"


@pytest.mark.parametrize(("start", "block"), CONSOLE, ids=[f"line{n}" for n, _ in CONSOLE])
def test_console_example(start: int, block: str, tmp_path: Path) -> None:
    cwd = workspace(tmp_path)
    env = environment()
    for command in commands(block):
        done = subprocess.run(
            ["bash", "-c", command.line],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        shown = done.stdout
        want = command.expected + "\n" if command.expected else ""
        assert CHECKER.check_output(want, shown, FLAGS), (
            f"README line {start}: `{command.line}` printed\n{shown}\nbut the README shows\n{want}"
        )
        assert done.returncode == command.status, (
            f"README line {start}: `{command.line}` exited {done.returncode}, "
            f"the README says {command.status}"
        )


@pytest.mark.parametrize(("start", "block"), PYTHON, ids=[f"line{n}" for n, _ in PYTHON])
def test_python_example(start: int, block: str, tmp_path: Path) -> None:
    cwd = workspace(tmp_path)
    script = cwd / "example.py"
    script.write_text(block, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"README line {start}:\n{done.stderr}"


def test_sh_blocks_are_what_ci_runs() -> None:
    """Each ```sh block is a set-up command that `.ci/run` (or the nox sessions it runs) runs
    too: the pinned nox, the crates script, the package's own install."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    for start, block in blocks("sh"):
        for part in re.split(r"\s*&&\s*|\n", block.strip()):
            if not part or part.startswith("#"):
                continue
            words = part.split()
            if part.startswith("python3 -m pip install nox=="):
                assert words[-1] in ci, f"README line {start}: {part} is not .ci/run's nox"
            elif part == "python3 -m nox":
                assert "python3 -m nox" in ci
            elif part == "sh core/debian-crates.sh":
                assert part in ci
            elif part.startswith("python3 -m pip install ./core/python"):
                assert "core_wheel" in noxfile
            elif part == "cd js":
                assert 'JS = ROOT / "js"' in noxfile
            elif part == "cd viewer":
                assert 'JS / "viewer"' in noxfile
            elif part in ("npm ci", "node build.mjs"):
                assert f'"{part.split()[0]}", "{part.split()[1]}"' in noxfile, part
            else:
                pytest.fail(
                    f"README line {start}: `{part}` is neither run by CI nor a console example"
                )


def test_the_table_section_is_run_by_the_export_tests() -> None:
    """Its export command, its SQL and its polars query are each the export tests' own."""
    tests = (ROOT / "tests" / "table" / "test_export.py").read_text(encoding="utf-8")
    assert f'_section("{TABLE_SECTION}")' in tests
    for kind in ("sh", "sql", "python"):
        assert len(blocks(kind, table=True)) == 1, f"one ```{kind} block in {TABLE_SECTION}"
        assert f"```{kind}" in tests, f"test_export.py does not run the ```{kind} block"

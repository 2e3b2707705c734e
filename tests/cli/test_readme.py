"""Every example in the README and in docs/ is a test.

The pages are README.md, every docs/*.md and every file a page includes (`--8<-- "PATH"`,
the snippets the docs site is built with). Their fenced blocks, by language:

- A ```console block holds commands (`$ ...`, run by bash) and the output each prints (standard
  output and standard error as one stream, unbuffered: in the order a terminal shows them).
  The block runs in a fresh folder holding a copy of `examples/` and of `schema/`, with the
  console script on the PATH and colour off; each command's output is held to the block's text with
  doctest's rules (`...` stands for any text, white space compared loosely), and its exit status
  to the `# exit N` comment that ends its `$` line (0 without one).
- A ```python block runs as a script in the same kind of folder (with `examples/tiny-run`'s
  `metrics.jsonl` at its top, the file the reading examples open); it must run without error.
- A ```json block holds metrics lines, one a line: each must be one `parse_line` accepts.
- A ```sh block is how the project itself is installed or tested (`.ci/run` runs those commands);
  `test_sh_blocks_are_what_ci_runs` holds each to what CI runs.
- A ```js block runs in `nox -s js`, against the package installed from its tarball
  (`js/test/readme.mjs`, given every page); `test_js_blocks_are_run_by_the_js_session` holds
  the session to the pages that hold one.
- The blocks of docs/table.md (an export, then a DuckDB and a polars query of it) are run by
  `tests/table/test_export.py` in `nox -s table`, where pyarrow, duckdb and polars are
  installed; `test_the_table_page_is_run_by_the_export_tests` holds it to that.

`nox -s cli` runs them all in its own wide environment. `nox -s pages` runs each page's
```console and ```python blocks again after exactly the install the page states, in a venv
of their own: `OVERBRAINER_PAGES` names the pages to run (comma-separated, as `name` gives
them) and `OVERBRAINER_PAGES_PYTHON` that venv's Python, whose folder is put first on the
PATH (its console script) and which runs the ```python blocks.
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
from overbrainer_contract import ParseError, parse_line

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)
EXIT = re.compile(r"\s+# exit (\d+)$")
CHECKER = doctest.OutputChecker()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Command:
    line: str
    status: int
    expected: str


TABLE_PAGE = ROOT / "docs" / "table.md"


def pages() -> list[Path]:
    """The README, every page of docs/ and each file a page includes."""
    found = [README, *sorted((ROOT / "docs").glob("*.md"))]
    for page in list(found):
        for included in SNIPPET.findall(page.read_text(encoding="utf-8")):
            found.append(ROOT / included)
    return found


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def blocks(kind: str, *, table: bool = False) -> list[tuple[str, int, str]]:
    """Each ```kind block of the pages, with its page and the line it starts on: those of
    docs/table.md (`table=True`) or those of every other page."""
    found = []
    for page in pages():
        if (page == TABLE_PAGE) is not table:
            continue
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(1) == kind:
                line = text.count("\n", 0, match.start()) + 1
                found.append((name(page), line, match.group(2)))
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


PAGES_PYTHON = os.environ.get("OVERBRAINER_PAGES_PYTHON") or sys.executable
"""The Python the examples run with, and whose folder holds the console script."""


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(PAGES_PYTHON).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("COLUMNS", None)  # output to a pipe: as wide as its rows
    env.update({"NO_COLOR": "1", "TERM": "dumb", "PYTHONUTF8": "1", "PYTHONUNBUFFERED": "1"})
    return env


def chosen(found: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """The blocks of the pages OVERBRAINER_PAGES names, or every block when it is not set."""
    named = os.environ.get("OVERBRAINER_PAGES")
    if not named:
        return found
    wanted = set(named.split(","))
    return [block for block in found if block[0] in wanted]


CONSOLE = chosen(blocks("console"))
PYTHON = chosen(blocks("python"))
JSON = blocks("json")


def ids(found: list[tuple[str, int, str]]) -> list[str]:
    return [f"{page}:{line}" for page, line, _ in found]


def test_the_pages_have_examples() -> None:
    every = blocks("console") + blocks("python")
    shown = {page for page, _, _ in every}
    assert "README.md" in shown, "no ```console or ```python block in the README"
    assert {"docs/cli.md", "docs/python.md"} <= shown
    console = blocks("console")
    assert all(commands(block) for _, _, block in console), "a console block without a `$` line"


@pytest.mark.parametrize(("page", "start", "block"), CONSOLE, ids=ids(CONSOLE))
def test_console_example(page: str, start: int, block: str, tmp_path: Path) -> None:
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
            f"{page} line {start}: `{command.line}` printed\n{shown}\nbut the page shows\n{want}"
        )
        assert done.returncode == command.status, (
            f"{page} line {start}: `{command.line}` exited {done.returncode}, "
            f"the page says {command.status}"
        )


@pytest.mark.parametrize(("page", "start", "block"), PYTHON, ids=ids(PYTHON))
def test_python_example(page: str, start: int, block: str, tmp_path: Path) -> None:
    cwd = workspace(tmp_path)
    script = cwd / "example.py"
    script.write_text(block, encoding="utf-8")
    done = subprocess.run(
        [PAGES_PYTHON, str(script)],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{page} line {start}:\n{done.stderr}"


@pytest.mark.parametrize(("page", "start", "block"), JSON, ids=ids(JSON))
def test_json_lines_are_metrics_lines(page: str, start: int, block: str) -> None:
    for number, line in enumerate(block.splitlines(), start + 1):
        try:
            parse_line(line)
        except ParseError as error:
            pytest.fail(f"{page} line {number}: {error}")


def test_js_blocks_are_run_by_the_js_session() -> None:
    """`nox -s js` gives js/test/readme.mjs the README, every docs page and js/README.md: each
    page holding a ```js block is one of those."""
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert '"readme.mjs", *pages' in noxfile
    assert 'glob("*.md")' in noxfile
    assert 'JS / "README.md"' in noxfile
    given = {README, *(ROOT / "docs").glob("*.md"), ROOT / "js" / "README.md"}
    for page in pages():
        if "```js\n" in page.read_text(encoding="utf-8"):
            assert page in given, f"{name(page)} holds a ```js block that nox -s js does not run"


def test_sh_blocks_are_what_ci_runs() -> None:
    """Each ```sh block is a set-up command that `.ci/run` (or the nox sessions it runs) runs
    too: the pinned nox, the crates script, the package's own install."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    for page, start, block in blocks("sh"):
        for part in re.split(r"\s*&&\s*|\n", block.strip()):
            if not part or part.startswith("#"):
                continue
            words = part.split()
            if part.startswith("python3 -m pip install nox=="):
                assert words[-1] in ci, f"{page} line {start}: {part} is not .ci/run's nox"
            elif part == "python3 -m nox":
                assert "python3 -m nox" in ci
            elif part == "sh core/debian-crates.sh":
                assert part in ci
            elif re.fullmatch(r"python3 -m pip install '\.\[[\w,]+\]'", part):
                # the wheel of `.`, with the page's extras: `nox -s pages` installs it so
                assert "def project_wheel(" in noxfile
                assert "def pages(" in noxfile
            elif part == "cd js":
                assert 'JS = ROOT / "js"' in noxfile
            elif part == "cd viewer":
                assert 'JS / "viewer"' in noxfile
            elif part in ("npm ci", "node build.mjs"):
                assert f'"{part.split()[0]}", "{part.split()[1]}"' in noxfile, part
            else:
                pytest.fail(
                    f"{page} line {start}: `{part}` is neither run by CI nor a console example"
                )


def test_the_table_page_is_run_by_the_export_tests() -> None:
    """Its export command, its SQL and its polars query are each the export tests' own."""
    tests = (ROOT / "tests" / "table" / "test_export.py").read_text(encoding="utf-8")
    assert f'PAGE = "{name(TABLE_PAGE)}"' in tests
    for kind in ("sh", "sql", "python"):
        assert len(blocks(kind, table=True)) == 1, f"one ```{kind} block in {name(TABLE_PAGE)}"
        assert f"```{kind}" in tests, f"test_export.py does not run the ```{kind} block"

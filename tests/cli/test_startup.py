"""What a process pays before its first line: `check` loads only what it runs.

Each case is a fresh interpreter (the modules already loaded in this one would hide a
regression), asked which modules it holds once the command is done.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import overbrainer_contract
import pytest
from overbrainer_contract.cli._common import formatter, terminal_columns

SHOW_MODULES = """
import json, sys
from overbrainer_contract.cli import main
main(sys.argv[1:])
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""

# Modules only other commands need (the snapshot request's atomic write: tempfile, and
# random under it) or that `check` never needs (importlib.resources: the contract's
# folder is the package's own; shutil, which argparse loads for the terminal's width).
NOT_FOR_CHECK = (
    "tempfile",
    "random",
    "importlib.resources",
    "shutil",
    "bz2",
    "lzma",
)


def modules_after(*argv: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", SHOW_MODULES, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return set(json.loads(done.stderr.splitlines()[-1]))


def test_check_loads_no_module_it_does_not_run(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b'{"event":"begin","time":1.0}\n{"event":"log","time":2.0,"step":1}\n')
    loaded = modules_after("check", str(path))
    assert "overbrainer_contract._core" in loaded  # it did check the lines
    assert loaded.isdisjoint(NOT_FOR_CHECK), sorted(loaded.intersection(NOT_FOR_CHECK))


def test_the_package_alone_loads_no_contract_document() -> None:
    """The reader (the core) loads with the package; the contract's document, the models
    of the other files and the CLI on first use only."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys, overbrainer_contract; print(json.dumps([*sys.modules]))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded = set(json.loads(done.stdout))
    assert "overbrainer_contract._core" in loaded
    assert loaded.isdisjoint(
        {
            "overbrainer_contract.contract.constants",
            "overbrainer_contract.contract.models",
            "overbrainer_contract._models.snapshot_schema",
            "overbrainer_contract.cli",
        }
    )


def test_every_public_name_loads_on_first_use() -> None:
    # In a fresh process each name, asked for alone, is the object its module defines.
    for name in overbrainer_contract.__all__:
        code = (
            "import overbrainer_contract as package, importlib, sys;"
            f"value = getattr(package, {name!r});"
            f"home = package._HOME.get({name!r}, 'reader');"
            "module = importlib.import_module('overbrainer_contract.' + home);"
            f"assert value is getattr(module, {name!r}), (value, home)"
        )
        subprocess.run([sys.executable, "-c", code], timeout=60, check=True)
    # the marks' module (`reader.marks`) loaded by name leaves `mark` the function
    code = (
        "import overbrainer_contract.reader.marks, overbrainer_contract.runs.state;"
        "from overbrainer_contract import mark;"
        "from overbrainer_contract.reader import mark as reader_mark;"
        "assert callable(mark) and mark.__name__ == 'mark' and mark is reader_mark, mark"
    )
    subprocess.run([sys.executable, "-c", code], timeout=60, check=True)


@pytest.mark.parametrize("columns", [None, "100", "37", "0", "-5", "wide", ""])
def test_the_help_is_as_wide_as_argparse_would_make_it(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`terminal_columns` stands for `shutil.get_terminal_size().columns`, which argparse
    asks when given no width: the same help for any `COLUMNS`, set or not."""
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns
    assert wrapped_help(formatter) == wrapped_help(argparse_default)


def argparse_default(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=28)


def wrapped_help(formatter_class: Callable[..., argparse.HelpFormatter]) -> str:
    """A help long enough to be wrapped at the width its formatter takes."""
    parser = argparse.ArgumentParser(prog="p", formatter_class=formatter_class)
    parser.add_argument("--max-line", help=" ".join(["a line is read whole up to"] * 20))
    text = parser.format_help()
    assert max(map(len, text.splitlines())) < 160  # it was wrapped
    return text


# A process running the CLI's entry with an object whose finalizer says when the
# interpreter's teardown runs (a module global is freed then, not before), and, when
# asked, a callback at exit (atexit's, threading's) or a thread, each left to Python.
TEARDOWN = """
import atexit, sys, threading, time
class Said:
    def __del__(self):
        sys.__stderr__.write("teardown\\n")
said = Said()
def say():
    sys.__stderr__.write("teardown\\n")
if "atexit" in sys.argv:
    atexit.register(say)
def until_exit():  # alive until the interpreter's exit begins, however long check takes
    while threading.main_thread().is_alive():
        time.sleep(0.01)
if "thread" in sys.argv:
    threading.Thread(target=until_exit).start()
if "futures" in sys.argv:  # as concurrent.futures registers its own exit
    threading._register_atexit(say)
sys.argv = ["overbrainer-contract", "check", *sys.argv[1:2], "-o", "json"]
from overbrainer_contract.cli import entry
entry()
"""


BUFFERED = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
"""The environment with Python's output buffered, as it is by default."""


def bad_file(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b'{"event":"begin","time":1.0}\n' + b"not json\n" * lines)
    return path


@pytest.mark.parametrize("leftover", ["", "atexit", "thread", "futures"])
def test_the_process_leaves_without_the_teardown_when_nothing_is_left(
    tmp_path: Path, leftover: str
) -> None:
    """No teardown when nothing is left to run at exit; with an atexit callback, a
    thread still running or a callback of threading's, Python's own exit, which runs them."""
    path = bad_file(tmp_path, 3)
    done = subprocess.run(
        [sys.executable, "-c", TEARDOWN, str(path), leftover],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1].startswith('{"type":"file"')
    assert ("teardown" in done.stderr) is bool(leftover), done.stderr


@pytest.mark.parametrize("to_file", [False, True])
def test_leaving_at_once_loses_no_output(tmp_path: Path, to_file: bool) -> None:
    """Output larger than any buffer, to a pipe and to a file (block-buffered), is all
    there, the summary last, when the process leaves without the teardown."""
    path = bad_file(tmp_path, 30_000)
    out = tmp_path / "out.jsonl"
    with out.open("wb") as handle:
        done = subprocess.run(
            [sys.executable, "-m", "overbrainer_contract", "check", str(path), "-o", "json"],
            stdout=handle if to_file else subprocess.PIPE,
            env=BUFFERED,
            timeout=120,
            check=False,
        )
    text = out.read_bytes() if to_file else done.stdout
    lines = text.splitlines()
    assert done.returncode == 1
    assert len(lines) == 30_001
    assert json.loads(lines[-1])["errors"] == 30_000


def test_leaving_at_once_flushes_what_a_command_printed(tmp_path: Path) -> None:
    """`plugin --path` prints one line and flushes nothing itself: the entry does."""
    out = tmp_path / "out.txt"
    with out.open("wb") as handle:
        subprocess.run(
            [sys.executable, "-m", "overbrainer_contract", "plugin", "--path"],
            stdout=handle,
            env=BUFFERED,
            timeout=60,
            check=True,
        )
    assert out.read_text().strip().endswith("overbrainer_metrics.py")

"""`snapshot`, `stage`, `plugin`, `schema`, help on every command, errors and --debug."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_samples import EVALUATING, PROOF, VALID, make_run, python_env
from overbrainer_contract import parse_line
from overbrainer_contract.cli import build_parser
from overbrainer_contract.contract.models import Stage
from overbrainer_contract.contract.schemas import schema_paths
from overbrainer_contract.plugin.source import PLUGIN_FILE, PLUGIN_PATH

COMMANDS = (
    "check",
    "status",
    "watch",
    "plot",
    "serve",
    "snapshot",
    "stage",
    "plugin",
    "schema",
    "export",
)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_on_every_command_has_an_example_and_the_exit_codes(
    command: str, cli: Callable[..., Any]
) -> None:
    result = cli(command, "--help")
    assert result.code == 0
    assert "examples:\n  overbrainer-contract " + command in result.out
    assert "exit codes:" in result.out
    assert "2    usage error" in result.out


def test_main_help_lists_the_commands(cli: Callable[..., Any]) -> None:
    result = cli("--help")
    assert result.code == 0
    for command in COMMANDS:
        assert f"    {command} " in result.out
    assert cli().code == 2  # a command is required
    assert set(build_parser()._subparsers._group_actions[0].choices) == set(COMMANDS)  # type: ignore[union-attr, arg-type]


def test_a_word_that_is_no_command_is_refused_with_every_command_named(
    cli: Callable[..., Any],
) -> None:
    result = cli("chek", "status")  # `status` later is an argument, not the command
    assert result.code == 2
    assert "invalid choice: 'chek'" in result.err
    for command in COMMANDS:
        assert repr(command) in result.err


@pytest.mark.parametrize("command", ["check", "status"])
def test_a_command_loads_its_own_module_and_no_other_commands(command: str, tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", VALID)
    probe = (
        "import sys\n"
        "from overbrainer_contract.cli import COMMANDS, main\n"
        f"code = main([{command!r}, {str(run)!r}])\n"
        "print(code, sorted(c for c in COMMANDS if f'overbrainer_contract.cli.{c}' in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=python_env(), check=True
    )
    assert done.stdout.splitlines()[-1] == f"0 {[command]}"


def test_snapshot_writes_the_request_atomically(tmp_path: Path, cli: Callable[..., Any]) -> None:
    run = make_run(tmp_path / "run", EVALUATING)  # a run still training
    result = cli("snapshot", str(run))
    assert result.code == 0
    assert (run / "snapshot.request").read_text() == "manual\n"
    assert cli("snapshot", str(run / "metrics.jsonl"), "--reason", "before-merge_2").code == 0
    assert (run / "snapshot.request").read_text() == "before-merge_2\n"
    assert sorted(p.name for p in run.iterdir()) == ["metrics.jsonl", "snapshot.request"]


@pytest.mark.parametrize("reason", ["two words", "", "x" * 65, "é", "a/b", "-\n"])
def test_snapshot_refuses_a_reason_that_is_not_one_word(
    reason: str, tmp_path: Path, cli: Callable[..., Any]
) -> None:
    run = make_run(tmp_path / "run", VALID)
    result = cli("snapshot", str(run), f"--reason={reason}")
    assert result.code == 2
    assert result.err.startswith("overbrainer-contract: error: the reason must be one word")
    assert result.err.count("\n") == 1
    assert not (run / "snapshot.request").exists()


def test_snapshot_of_a_missing_folder(tmp_path: Path, cli: Callable[..., Any]) -> None:
    result = cli("snapshot", str(tmp_path / "nowhere"))
    assert result.code == 2
    assert "no such run folder" in result.err


def test_snapshot_wait_times_out(tmp_path: Path, cli: Callable[..., Any]) -> None:
    run = make_run(tmp_path / "run", EVALUATING, proof=PROOF)  # an old proof does not count
    start = time.monotonic()
    result = cli("snapshot", str(run), "--wait", "0.3", "--interval", "0.05")
    assert result.code == 1
    assert time.monotonic() - start < 3
    assert result.err.endswith(
        f"error: no new snapshot.json in {run} after 0.3 s; the one there is older than the"
        " request\n"
    )
    assert result.out == ""
    assert (run / "snapshot.request").exists()  # the run may still take it


def test_snapshot_wait_prints_the_new_proof(tmp_path: Path, cli: Callable[..., Any]) -> None:
    run = make_run(tmp_path / "run", EVALUATING)  # a run still training

    def plugin() -> None:  # what the plugin does, once it sees the request
        deadline = time.monotonic() + 10
        while not (run / "snapshot.request").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
        (run / ".snapshot.json.tmp").write_text(PROOF)
        os.replace(run / ".snapshot.json.tmp", run / "snapshot.json")

    thread = threading.Thread(target=plugin)
    thread.start()
    result = cli("snapshot", str(run), "--wait", "10", "--interval", "0.02")
    thread.join()
    assert result.code == 0
    assert json.loads(result.out) == json.loads(PROOF)


def test_stage_appends_the_stage_line(
    tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text(VALID)
    monkeypatch.setenv("OVERBRAINER_METRICS", str(metrics))
    before = int(time.time())
    assert cli("stage", "export").code == 0
    last = metrics.read_text().splitlines()[-1]
    line = parse_line(last)
    assert isinstance(line, Stage)
    assert line.name.value == "export"
    assert before <= line.time <= time.time()
    assert last == f'{{"event":"stage","name":"export","time":{int(line.time)}}}'
    assert cli("check", str(metrics)).code == 0


def test_stage_writes_what_the_shell_helper_writes(
    tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from overbrainer_contract.plugin.source import PLUGIN_PATH, stage_command

    ours, theirs = tmp_path / "ours.jsonl", tmp_path / "theirs.jsonl"
    monkeypatch.setenv("OVERBRAINER_METRICS", str(ours))
    assert cli("stage", "merge").code == 0
    # a job's shell: the plugin's folder on PYTHONPATH (the command runs the plugin)
    env = {**os.environ, "OVERBRAINER_METRICS": str(theirs), "PYTHONPATH": str(PLUGIN_PATH.parent)}
    subprocess.run(["sh", "-c", stage_command("merge")], env=env, check=True)

    def strip(text: str) -> str:  # the time may differ by a second
        return text.rsplit(":", 1)[0]

    assert strip(ours.read_text()) == strip(theirs.read_text())


def test_stage_errors(
    tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OVERBRAINER_METRICS", raising=False)
    result = cli("stage", "train")
    assert result.code == 2
    assert "$OVERBRAINER_METRICS is not set" in result.err
    assert cli("stage", "deploy", "--file", str(tmp_path / "m.jsonl")).code == 2
    unwritable = cli("stage", "train", "--file", str(tmp_path / "no" / "such" / "m.jsonl"))
    assert unwritable.code == 2
    assert unwritable.err.count("\n") == 1


def test_plugin_path_and_copy(tmp_path: Path, cli: Callable[..., Any]) -> None:
    assert cli("plugin").out == f"{PLUGIN_PATH}\n"
    assert cli("plugin", "--path").out == f"{PLUGIN_PATH}\n"
    result = cli("plugin", "--copy", str(tmp_path / "run" / "plugin"))
    assert result.code == 0
    copied = tmp_path / "run" / "plugin" / PLUGIN_FILE
    assert result.out == f"{copied}\n"
    assert copied.read_bytes() == PLUGIN_PATH.read_bytes()
    assert cli("plugin", "--path", "--copy", str(tmp_path)).code == 2


def test_schema_lists_and_prints(cli: Callable[..., Any]) -> None:
    listing = cli("schema")
    assert listing.code == 0
    paths = schema_paths()
    assert [line.split()[0] for line in listing.out.splitlines()] == list(paths)
    printed = cli("schema", "metrics-line")
    assert json.loads(printed.out) == json.loads(paths["metrics-line"].read_text())
    unknown = cli("schema", "nope")
    assert unknown.code == 2
    assert "known: " in unknown.err


def test_errors_are_one_line_unless_debug(
    tmp_path: Path, cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from overbrainer_contract.cli import status

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("something broke")

    monkeypatch.setattr(status, "read_status", broken)
    run = make_run(tmp_path / "run", VALID)
    result = cli("status", str(run))
    assert result.code == 2
    assert result.err == (
        "overbrainer-contract: error: RuntimeError: something broke (--debug shows the traceback)\n"
    )
    with pytest.raises(RuntimeError):
        cli("--debug", "status", str(run))
    with pytest.raises(RuntimeError):
        cli("status", str(run), "--debug")


def test_python_dash_m_and_the_console_script(tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_text(VALID)
    result = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", "check", str(tmp_path / "m.jsonl")],
        capture_output=True,
        text=True,
        env=python_env(),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert ": valid: 11 lines" in result.stdout

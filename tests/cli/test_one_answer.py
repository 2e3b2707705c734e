"""One answer everywhere: a file's invalid lines counted and said alike by `check`,
`status` and `plot` (the last line cut short apart); every problem of a `snapshot.json`
listed in the line findings' words; a request that is not one word the same to `check`
as to the plugin; `snapshot` on a run that has ended. Through the console script, in a
child process; the expected words reasoned from the files written here."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from cli_samples import EVALUATING, VALID, make_run, python_env
from sweep import BAD, ROOT, Sweep, load_plugin

PREFIX = "overbrainer-contract: "


def console(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("overbrainer-contract")
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, env=python_env(), cwd=cwd, check=False
    )


def nine_bad_and_a_cut_line(folder: Path) -> Path:
    """A run of 20 lines: a begin, 9 logs each followed by a bad line, and a last log cut
    short (no newline, the reference: EOF while parsing)."""
    folder.mkdir()
    lines = [json.dumps({"event": "begin", "time": 1.0, "max_steps": 10})]
    for step in range(1, 10):
        lines.append(json.dumps({"event": "log", "time": 1.0 + step, "step": step, "loss": 1.0}))
        lines.append(f"bad {step}")
    (folder / "metrics.jsonl").write_text("\n".join(lines) + '\n{"event":"log","time":20,"st')
    return folder


def test_check_status_and_plot_count_the_same_lines_in_the_same_words(tmp_path: Path) -> None:
    nine_bad_and_a_cut_line(tmp_path / "run")
    words = "9 invalid lines and the last line cut short"
    check = console("check", "run", cwd=tmp_path)
    status = console("status", "run", cwd=tmp_path)
    plot = console("plot", "run", "-o", "run.png", cwd=tmp_path)
    assert check.returncode == status.returncode == 1  # invalid lines: exit 1 for both
    assert check.stdout.splitlines()[-1] == (
        "run/metrics.jsonl: invalid: 20 lines (begin 1, log 9, eval 0, stage 0, end 0),"
        f" 9 errors, 1 warning ({words})"
    )
    assert f"lines       20 ({words})" in status.stdout.splitlines()
    assert (
        status.stderr == f"{PREFIX}run: 20 lines: {words} ('{PREFIX[:-2]} check run' says which)\n"
    )
    assert plot.returncode == 0, plot.stderr
    assert plot.stderr == f"{PREFIX}warning: run: {words} (skipped)\n"
    assert plot.stdout == "wrote run.png: 1 run\n"


def test_the_sweeps_bad_runs_are_said_alike(sweep: Sweep) -> None:
    from overbrainer_contract.text.sizes import invalid_text

    for name in BAD:
        run = sweep.runs[name]
        words = invalid_text(run.invalid, run.cut)
        assert words, name
        check = console("check", name, cwd=sweep.root)
        plot = console("plot", name, "-o", str(sweep.root.parent / "bad.png"), cwd=sweep.root)
        status = console("status", name, cwd=sweep.root)
        assert check.stdout.splitlines()[-1].endswith(f" ({words})"), check.stdout
        assert plot.stderr == f"{PREFIX}warning: {name}: {words} (skipped)\n"
        assert f"({words})" in status.stdout
        assert check.returncode == status.returncode == 1


def test_every_problem_of_a_snapshot_proof_is_listed_in_the_line_findings_words(
    tmp_path: Path,
) -> None:
    proof = '{"checkpoint":"","step":-1,"time":"x","reason":"two words"}'
    make_run(tmp_path / "run", VALID, proof=proof)
    check = console("check", "run", cwd=tmp_path)
    assert check.returncode == 1
    found = [line for line in check.stdout.splitlines() if line.startswith("run/snapshot.json")]
    assert found == [
        'run/snapshot.json $.checkpoint: invalid value: string "", expected a string of at'
        " least 1 character",
        "run/snapshot.json $.step: invalid value: integer `-1`, expected u64",
        'run/snapshot.json $.time: invalid type: string "x", expected f64',
        'run/snapshot.json $.reason: invalid value: string "two words", expected a Word (a'
        " string matching ^[A-Za-z0-9_-]{1,64}$) or null",
        "run/snapshot.json: invalid: 4 errors, 0 warnings",
    ]
    findings = [
        json.loads(line)
        for line in console("check", "run", "-o", "json", cwd=tmp_path).stdout.splitlines()
    ]
    paths = [
        f["path"] for f in findings if f["type"] == "finding" and f["file"] == "run/snapshot.json"
    ]
    assert paths == ["$.checkpoint", "$.step", "$.time", "$.reason"]
    status = console("status", "run", cwd=tmp_path)
    assert status.returncode == check.returncode  # status and check agree


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            '{"checkpoint":"out/c-2","step":2}',
            ["$: missing field `time`", "$: missing field `reason`"],
        ),
        ("[1]", ["$: invalid type: sequence, expected struct Snapshot"]),
        ('{"checkpoint":', ["$.checkpoint: EOF while parsing a value at column 14"]),
    ],
)
def test_a_proof_that_is_not_one(tmp_path: Path, text: str, shown: list[str]) -> None:
    make_run(tmp_path / "run", VALID, proof=text)
    check = console("check", "run", cwd=tmp_path)
    found = [
        line.removeprefix("run/snapshot.json ")
        for line in check.stdout.splitlines()
        if line.startswith("run/snapshot.json $")
    ]
    assert found == shown


def test_a_request_of_two_words_means_the_same_to_check_as_to_the_plugin(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    make_run(tmp_path / "run", EVALUATING, request="two words\n")
    check = console("check", "run", cwd=tmp_path)
    assert check.returncode == 0, check.stdout  # a warning: the snapshot is taken
    assert (
        "run/snapshot.request $: warning: the request is not one word (1 to 64 of A-Z a-z 0-9"
        ' _ -): "two words\\n"; the plugin takes the snapshot all the same, with no reason'
    ) in check.stdout.splitlines()
    assert "run/snapshot.request: valid: 0 errors, 1 warning" in check.stdout.splitlines()
    # the plugin: the same request, a warning, and the snapshot taken with no reason
    plugin = load_plugin()  # the file uploaded alone (transformers stubbed where missing)
    with caplog.at_level(logging.WARNING):
        assert plugin._reason(b"two words\n") is None
    assert "not one word" in caplog.text
    assert "taking the snapshot with no reason" in caplog.text
    status = console("status", "run", cwd=tmp_path)
    assert status.returncode == 0
    assert "requested (no reason)" in status.stdout


def test_a_padded_request_means_the_same_to_check_as_to_the_plugin(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """10 KiB of white space then `manual`: one word to the plugin (which reads a request
    up to its own bound), so to check and status too; one byte past the contract's bound
    (`max_bytes.snapshot_request`), refused unread by the command line and no reason to the
    plugin."""
    limit = json.loads((ROOT / "schema" / "contract.json").read_text())["max_bytes"]
    bound = limit["snapshot_request"]
    plugin = load_plugin()  # the file uploaded alone (transformers stubbed where missing)
    callback = plugin.OverbrainerMetricsCallback()
    padded = b" " * 10 * 1024 + b"manual\n"
    run = make_run(tmp_path / "run", EVALUATING, request=padded.decode())
    callback._request = str(run / "snapshot.request")
    assert callback._read_reason() == "manual"
    check = console("check", "run", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert "run/snapshot.request: valid: 0 errors, 0 warnings" in check.stdout.splitlines()
    status = console("status", "run", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    assert "requested (manual)" in status.stdout
    # at the bound: still the word; a byte past it: no reason, and refused unread
    (run / "snapshot.request").write_bytes(b" " * (bound - 6) + b"manual")
    assert callback._read_reason() == "manual"
    assert console("check", "run", cwd=tmp_path).returncode == 0
    (run / "snapshot.request").write_bytes(b" " * (bound - 5) + b"manual")
    with caplog.at_level(logging.WARNING):
        assert callback._read_reason() is None
    assert f"longer than {bound} bytes" in caplog.text
    for command in ("check", "status"):
        refused = console(command, "run", cwd=tmp_path)
        assert refused.returncode == 2
        assert refused.stderr == (
            f"{PREFIX}error: run/snapshot.request: {bound + 1:,} bytes, over the {bound:,} it"
            " may hold\n"
        )


def test_snapshot_of_a_run_that_has_ended_writes_nothing(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", VALID)  # an end line, then the merge stage
    result = console("snapshot", "run", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (
        f"{PREFIX}error: run: the run has ended (the merge stage began): no snapshot will come;"
        " no snapshot.request written\n"
    )
    assert sorted(path.name for path in run.iterdir()) == ["metrics.jsonl"]
    ended = make_run(tmp_path / "ended", VALID.rsplit("\n", 2)[0] + "\n")  # its end line last
    result = console("snapshot", "ended", "--wait", "5", cwd=tmp_path)
    assert result.returncode == 1
    assert "the run has ended (an end line at step 4)" in result.stderr
    assert not (ended / "snapshot.request").exists()

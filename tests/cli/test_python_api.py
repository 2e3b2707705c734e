"""The Python API of issue 18: `read_run` (the state `status` shows: its `StatusReport`) and
`iter_lines` in `__all__`, `read_runs` of one path or many, `Pace.add` of a line that is
not a log, `oc.table` without an import (and without pyarrow at `import`), types in
`help()`; held against what the console script says of the same runs."""

from __future__ import annotations

import json
import os
import pydoc
import subprocess
import sys
from pathlib import Path

import msgspec
import overbrainer_contract as oc
import pytest
from overbrainer_contract._models.status_report_schema import StatusReport
from sweep import BAD, GZIPPED, RESUMED, STALLED, Sweep

SCRIPT = str(Path(sys.executable).with_name("overbrainer-contract"))
ROOT = Path(__file__).resolve().parents[2]


def cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [SCRIPT, *argv], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def test_read_run_and_iter_lines_are_public() -> None:
    assert {"read_run", "iter_lines"} <= set(oc.__all__)
    assert oc.read_run.__module__ == "overbrainer_contract.runs.status"


@pytest.mark.parametrize("name", [RESUMED, STALLED, GZIPPED, *BAD])
def test_read_run_is_the_state_status_shows(sweep: Sweep, name: str) -> None:
    """`read_run` at a time is the record `status -o json --now` writes at that time."""
    at = sweep.now
    report = oc.read_run(sweep.root / name, now=at)
    document = json.loads(
        cli("status", name, "-o", "json", "--now", repr(at), cwd=sweep.root).stdout
    )
    assert isinstance(report, StatusReport)
    got = msgspec.to_builtins(report)
    assert {**got, "run": name} == document
    assert report.begins == sweep.runs[name].begins


@pytest.mark.parametrize("name", [GZIPPED, *BAD, "exp1/seed1"])
def test_iter_lines_gives_the_valid_lines_check_counts(sweep: Sweep, name: str) -> None:
    lines = list(oc.iter_lines(str(sweep.root / name)))
    report = cli("check", name, "-o", "json", cwd=sweep.root).stdout.splitlines()
    counts = json.loads(report[-1])
    assert counts["type"] == "file"
    assert len(lines) == sum(counts["events"].values())
    assert [type(line).__name__ for line in lines].count("Begin") == counts["events"]["begin"]
    if sweep.runs[name].invalid:
        with pytest.raises(oc.ParseError):
            list(oc.iter_lines(sweep.root / name, strict=True))


def test_read_runs_takes_one_path_as_one_path() -> None:
    table = pytest.importorskip("overbrainer_contract.table")
    one = table.read_runs(str(ROOT / "examples/tiny-run"))
    assert set(one.column("run").to_pylist()) == {"tiny-run"}
    many = table.read_runs([ROOT / "examples/tiny-run", ROOT / "examples/sweep-lr3e-2-seed1"])
    assert set(many.column("run").to_pylist()) == {"tiny-run", "sweep-lr3e-2-seed1"}


def test_pace_add_of_a_line_that_is_not_a_log_says_what_it_takes() -> None:
    end = oc.parse_line('{"event":"end","time":1.0,"step":2}')
    with pytest.raises(TypeError) as raised:
        oc.Pace().add(end)  # type: ignore[arg-type]  # a wrong type, on purpose
    assert str(raised.value) == (
        "Pace.add takes a Log (a training log line: step, max_steps, loss, time), not End"
    )
    begin = oc.parse_line('{"event":"begin","time":1.0,"max_steps":null}')
    with pytest.raises(TypeError, match="not Begin"):
        oc.Pace().add_logs([begin])  # type: ignore[list-item]  # a wrong type, on purpose


def test_table_is_an_attribute_and_pyarrow_waits_for_it() -> None:
    pytest.importorskip("pyarrow")
    code = (
        "import sys, overbrainer_contract as oc\n"
        "assert 'pyarrow' not in sys.modules\n"
        "assert 'table' in dir(oc)\n"
        "print(oc.table.read_runs('examples/tiny-run').num_rows)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == 76


@pytest.mark.parametrize(
    ("function", "words"),
    [
        (oc.parse_line, ["parse_line(line, /)", "line: str | bytes", "raises `ParseError`"]),
        (oc.parse_lines, ["parse_lines(body, /)", "list[MetricLine | ParseError]"]),
        (oc.dump_line, ["dump_line(line, /)", "Returns str"]),
        (oc.mark, ["mark(line, /)", "StageMark | EvalMark | EndMark | None"]),
        (oc.Pace.add, ["add(self, metric, /)", "metric: Log"]),
        (oc.read_run, ["read_run(path: 'str | os.PathLike[str]'", "-> 'StatusReport'"]),
        (oc.iter_lines, ["iter_lines(path: 'str | os.PathLike[str]'", "-> 'Lines'", "rejected"]),
    ],
)
def test_help_shows_the_types(function: object, words: list[str]) -> None:
    text = pydoc.render_doc(function, renderer=pydoc.plaintext)  # type: ignore[attr-defined]  # not in typeshed
    for word in words:
        assert word in text, text

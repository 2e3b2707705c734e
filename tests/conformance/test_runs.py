"""The run-level golden suite (`runs/`): what a whole run's files mean. Each case is a run
folder and what `check -o json` and `status -o json --now NOW` write for it, each way the
run is named, and the words `status --color never` prints for it; the console command runs
on a copy of the case, its side files given the manifest's modification times. The manifest
and every expectation are checked against their schemas; runs/README.md says how other
runners read the files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from schema_registry import validator

RUNS = Path(__file__).parent / "runs"
MANIFEST: dict[str, Any] = json.loads((RUNS / "manifest.json").read_text(encoding="utf-8"))
TIMEOUT = 60


def differences(actual: Any, expected: Any, at: str = "") -> list[str]:
    """Where two JSON values differ, one line each (`[0].column: 37, expected 36`): numbers
    compared as doubles (`1` and `1.0` are the same number), `true` never a number, objects
    by their keys whatever their order, arrays (records) in order."""

    def number(value: Any) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool)

    if number(actual) and number(expected):
        same = float(actual) == float(expected)
        return [] if same else [f"{at}: {actual!r}, expected {expected!r}"]
    if isinstance(actual, dict) and isinstance(expected, dict):
        found = [f"{at}.{key}: missing" for key in expected if key not in actual]
        found += [f"{at}.{key}: not expected" for key in actual if key not in expected]
        for key in expected:
            if key in actual:
                found += differences(actual[key], expected[key], f"{at}.{key}")
        return found
    if isinstance(actual, list) and isinstance(expected, list):
        found = []
        if len(actual) != len(expected):
            found.append(f"{at or '$'}: {len(actual)} records, expected {len(expected)}")
        for index, (one, other) in enumerate(zip(actual, expected, strict=False)):
            found += differences(one, other, f"{at}[{index}]")
        return found
    if type(actual) is type(expected) and actual == expected:
        return []
    return [f"{at or '$'}: {actual!r}, expected {expected!r}"]


def _runs() -> Iterator[Any]:
    for case in MANIFEST["cases"]:
        for run in case["runs"]:
            for command in ("check", "status"):
                marks = []
                why = run[command].get("known_failing")
                if why is not None:
                    marks.append(pytest.mark.xfail(strict=True, reason=why))
                name = f"{case['name']}:{run['variant']}:{command}"
                yield pytest.param(case, run, command, id=name, marks=marks)


def placed(case: dict[str, Any], into: Path) -> Path:
    """A copy of the case's folder in `into`, its side files given the manifest's times."""
    folder: Path = into / case["name"]
    shutil.copytree(RUNS / case["name"], folder)
    for path, seconds in case["mtimes"].items():
        stamp = round(seconds * 1e9)
        os.utime(folder / path, ns=(stamp, stamp))
    return folder


def command_line(case: dict[str, Any], run: dict[str, Any], command: str) -> list[str]:
    if command == "check":
        return ["check", "-o", "json", run["named"]]
    return ["status", "-o", "json", "--now", repr(float(case["now"])), run["named"]]


def run_command(
    case: dict[str, Any], run: dict[str, Any], command: str, into: Path
) -> tuple[int, Any]:
    """The console command on a copy of the case: its exit status, and its records (check),
    its object or None where it wrote nothing (status)."""
    folder = placed(case, into)
    given = (folder / run["stdin"]).read_bytes() if "stdin" in run else b""
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *command_line(case, run, command)],
        cwd=folder,
        input=given,
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, "NO_COLOR": "1"},
    )
    out = done.stdout.decode("utf-8")
    if command == "check":
        return done.returncode, [json.loads(line) for line in out.splitlines()]
    return done.returncode, (json.loads(out) if out else None)


def expected(case: dict[str, Any], run: dict[str, Any], command: str) -> Any:
    """The expectation of one command: check's records, status's object or None."""
    name = run[command]["expect"]
    if name is None:
        return None
    text = (RUNS / case["name"] / name).read_text(encoding="utf-8")
    if command == "check":
        return [json.loads(line) for line in text.splitlines()]
    return json.loads(text)


@pytest.mark.parametrize(("case", "run", "command"), list(_runs()))
def test_a_case_reads_as_expected(
    case: dict[str, Any], run: dict[str, Any], command: str, tmp_path: Path
) -> None:
    code, got = run_command(case, run, command, tmp_path)
    want = expected(case, run, command)
    found = differences(got, want)
    if code != run[command]["exit"]:
        found.insert(0, f"exit status {code}, expected {run[command]['exit']}")
    assert not found, "\n".join(found)


def test_the_manifest_follows_its_schema() -> None:
    schema = json.loads((RUNS / "manifest.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(MANIFEST)


def test_the_manifest_names_every_case_and_file() -> None:
    """What the manifest's schema cannot say: unique names and variants, every folder
    beside the manifest a case, every file named there, and no expectation file unnamed."""
    names = [case["name"] for case in MANIFEST["cases"]]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(path.name for path in RUNS.iterdir() if path.is_dir())
    for case in MANIFEST["cases"]:
        folder = RUNS / case["name"]
        variants = [run["variant"] for run in case["runs"]]
        assert len(variants) == len(set(variants)), case["name"]
        named = set(case["mtimes"])
        for run in case["runs"]:
            named.update(run[command]["expect"] for command in ("check", "status"))
            named.add(run.get("stdin"))
            named.add(run.get("view", {}).get("expect"))
            has_status = run["status"]["expect"] is not None
            assert ("view" in run) == has_status, f"{case['name']} {run['variant']}: its view"
        named.discard(None)
        for path in named:
            assert (folder / path).is_file(), f"{case['name']}: {path}"
        own = {path.name for path in folder.iterdir() if path.is_file()}
        assert own <= named, f"{case['name']}: files the manifest does not name: {own - named}"
        assert (folder / "run").is_dir(), case["name"]


def _expectations() -> Iterator[Any]:
    for case in MANIFEST["cases"]:
        for run in case["runs"]:
            for command in ("check", "status"):
                if run[command]["expect"] is not None:
                    name = f"{case['name']}/{run[command]['expect']}"
                    yield pytest.param(case, run, command, id=name)


@pytest.mark.parametrize(("case", "run", "command"), list(_expectations()))
def test_every_expectation_follows_its_schema(
    case: dict[str, Any], run: dict[str, Any], command: str
) -> None:
    want = expected(case, run, command)
    if command == "check":
        assert want, "check writes at least one record"
        for record in want:
            validator("check-report").validate(record)
    else:
        validator("status-report").validate(want)


def _views() -> Iterator[Any]:
    for case in MANIFEST["cases"]:
        for run in case["runs"]:
            if "view" in run:
                name = f"{case['name']}:{run['variant']}:screen"
                yield pytest.param(case, run, id=name)


def view_of(case: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    """The words the suite reasons from a status (`<variant>.view.json`)."""
    path = RUNS / case["name"] / run["view"]["expect"]
    view: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return view


def screen_text(rows: list[list[str]]) -> str:
    """The rows as `status` lays them out: each label padded to the longest and two spaces."""
    width = max(len(label) for label, _ in rows) + 2
    return "".join(f"{label.ljust(width)}{words}\n" for label, words in rows)


@pytest.mark.parametrize(("case", "run"), list(_views()))
def test_the_screen_says_the_suites_words(
    case: dict[str, Any], run: dict[str, Any], tmp_path: Path
) -> None:
    """`status --color never --now NOW RUN` prints the view's rows, word for word."""
    folder = placed(case, tmp_path)
    given = (folder / run["stdin"]).read_bytes() if "stdin" in run else b""
    line = ["status", "--color", "never", "--now", repr(float(case["now"])), run["named"]]
    done = subprocess.run(
        [sys.executable, "-m", "overbrainer_contract", *line],
        cwd=folder,
        input=given,
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == run["status"]["exit"], done.stderr
    assert done.stdout.decode("utf-8") == screen_text(view_of(case, run)["screen"])


@pytest.mark.parametrize(("case", "run"), list(_views()))
def test_every_view_follows_its_schema(case: dict[str, Any], run: dict[str, Any]) -> None:
    schema = json.loads((RUNS / "view.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(view_of(case, run))


def _case(name: str) -> dict[str, Any]:
    (case,) = (case for case in MANIFEST["cases"] if case["name"] == name)
    found: dict[str, Any] = case
    return found


def test_the_comparison_fails_on_one_field_changed(tmp_path: Path) -> None:
    """One field of one expectation changed in memory (a finding's column, its message,
    a status's ETA), and the comparison with what the command writes says so, there."""
    case = _case("cut-mid-file")
    (run,) = (run for run in case["runs"] if run["variant"] == "folder")
    _, records = run_command(case, run, "check", tmp_path / "check")
    want = expected(case, run, "check")
    assert differences(records, want) == []
    want[0]["column"] += 1
    column = want[0]["column"]
    assert differences(records, want) == [f"[0].column: {column - 1}, expected {column}"]
    want[0]["column"] -= 1
    want[0]["message"] += "!"
    assert [line.split(":")[0] for line in differences(records, want)] == ["[0].message"]

    case = _case("evaluating")
    (run,) = (run for run in case["runs"] if run["variant"] == "stdin")
    _, document = run_command(case, run, "status", tmp_path / "status")
    want = expected(case, run, "status")
    assert differences(document, want) == []
    want["eta_remaining_seconds"] += 1e-9
    found = differences(document, want)
    assert [line.split(":")[0] for line in found] == [".eta_remaining_seconds"]


def test_numbers_compare_as_doubles_and_records_in_order() -> None:
    assert differences({"a": 1, "b": [2.0]}, {"b": [2], "a": 1.0}) == []
    assert differences(True, 1) == ["$: True, expected 1"]
    assert differences([{"x": 1}, {"y": 2}], [{"y": 2}, {"x": 1}]) != []
    assert differences([1], [1, 2]) == ["$: 1 records, expected 2"]

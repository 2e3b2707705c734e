"""The breaking-change check of the schemas (tools/release/compat.py): one pair
of small schemas per rule in cases/<RULE>/ (previous.schema.json, current.schema.json and
expect.json, the rule ids and JSON pointers it must report), as buf's breaking-rule tests do,
plus a pair whose changes are all compatible; then the folder comparison and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tools.release import compat

HERE = Path(__file__).parent
CASES = sorted(p for p in (HERE / "cases").iterdir() if p.is_dir())
ROOT = HERE.parent.parent
FOLDER_RULES = {compat.FILE_NO_DELETE, compat.CONSTANT_NO_CHANGE, compat.CONSTANT_NO_DELETE}


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _pairs(changes: list[compat.Change]) -> list[list[str]]:
    return sorted([c.rule, c.pointer] for c in changes)


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_rule_case(case: Path) -> None:
    """Each case reports exactly the rule ids and paths of its expect.json, per direction."""
    expect = _load(case / "expect.json")
    changes = compat.compare_schema(
        _load(case / "previous.schema.json"), _load(case / "current.schema.json"), "line"
    )
    assert _pairs([c for c in changes if compat.BACKWARD in c.breaks]) == sorted(expect["backward"])
    assert _pairs([c for c in changes if compat.FORWARD in c.breaks]) == sorted(expect["forward"])
    assert _pairs([c for c in changes if not c.breaks]) == sorted(expect["compatible"])
    assert all(c.path == f"line#{c.pointer}" for c in changes)


def test_every_breaking_rule_has_a_case() -> None:
    """A case folder per schema-level rule (the file and constants rules are folder-level,
    below), in which that rule is reported; the compatible pair breaks nothing, nor does a
    case named after a compatible rule (ANNOTATION_CHANGE: `x-` keywords), which reports it."""
    names = {p.name for p in CASES}
    compatible = {name for name in names if compat.RULE_BREAKS.get(name) == compat.NEITHER}
    assert names - compatible == (set(compat.BREAKING_RULES) - FOLDER_RULES) | {"compatible"}
    for case in CASES:
        expect = _load(case / "expect.json")
        rules = {rule for rule, _ in expect["backward"] + expect["forward"]}
        if case.name == "compatible":
            assert rules == set()
        elif case.name in compatible:
            assert rules == set(), case.name
            assert case.name in {rule for rule, _ in expect["compatible"]}, case.name
        else:
            assert case.name in rules, case.name


def test_the_compatible_pair_reverses_to_breaking() -> None:
    """Read backwards, the compatible pair breaks: the rules are not blind in one direction."""
    case = HERE / "cases" / "compatible"
    changes = compat.compare_schema(
        _load(case / "current.schema.json"), _load(case / "previous.schema.json")
    )
    assert {c.rule for c in changes if c.breaks} == {compat.PROPERTY_NO_DELETE}


def test_every_rule_breaks_in_the_directions_its_cases_show() -> None:
    """The rule table agrees with the cases: a rule is backward (or forward) exactly when
    some case reports it in that direction."""
    seen: dict[str, set[str]] = {}
    for case in CASES:
        expect = _load(case / "expect.json")
        for direction in (compat.BACKWARD, compat.FORWARD):
            for rule, _ in expect[direction]:
                seen.setdefault(rule, set()).add(direction)
    assert seen == {
        rule: set(breaks)
        for rule, breaks in compat.RULE_BREAKS.items()
        if breaks and rule not in FOLDER_RULES
    }


def _folder(tmp: Path, name: str, files: dict[str, Any]) -> Path:
    folder = tmp / name
    folder.mkdir()
    for file, doc in files.items():
        (folder / file).write_text(json.dumps(doc), encoding="utf-8")
    return folder


def test_folders_file_removed_and_added(tmp_path: Path) -> None:
    schema = {"type": "string"}
    baseline = _folder(tmp_path, "1.0.0", {"a.schema.json": schema, "b.schema.json": schema})
    current = _folder(tmp_path, "current", {"a.schema.json": schema, "c.schema.json": schema})
    report = compat.compare_dirs(baseline, current)
    assert [(c.rule, c.path) for c in report.breaking] == [("FILE_NO_DELETE", "b.schema.json#")]
    assert [(c.rule, c.path) for c in report.compatible] == [("FILE_ADD", "c.schema.json#")]
    assert report.summary() == "breaking (full): 2 changes, 1 breaking"


def test_constants_renamed_removed_and_added() -> None:
    """contract.json is compared too: an environment variable renamed breaks every
    orchestrator; the version is an identifier, the reference an annotation."""
    before = json.loads((ROOT / "schema" / "contract.json").read_text())
    after = json.loads(json.dumps(before))
    after["env"]["metrics"] = "OVERBRAINER_METRICS_FILE"
    del after["files"]["snapshot"]
    after["files"]["lock"] = "metrics.lock"
    after["version"] = f"{int(before['version'].split('.')[0]) + 1}.0.0"  # the next major
    after["reference"] = "overbrainer 0.9.0, module metrics"
    changes = compat.compare_constants(before, after)
    assert sorted((c.rule, c.pointer, bool(c.breaks)) for c in changes) == [
        ("ANNOTATION_CHANGE", "/reference", False),
        ("CONSTANT_ADD", "/files/lock", False),
        ("CONSTANT_NO_CHANGE", "/env/metrics", True),
        ("CONSTANT_NO_DELETE", "/files/snapshot", True),
        ("ID_CHANGE", "/version", False),
    ]
    assert str(next(c for c in changes if c.rule == "CONSTANT_NO_CHANGE")) == (
        'contract.json#/env/metrics: env/metrics "OVERBRAINER_METRICS" became '
        '"OVERBRAINER_METRICS_FILE" [CONSTANT_NO_CHANGE]'
    )


def test_cli_compatible_breaking_and_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = HERE / "cases" / "compatible"
    previous = _folder(
        tmp_path, "1.0.0", {"line.schema.json": _load(case / "previous.schema.json")}
    )
    current = _folder(tmp_path, "now", {"line.schema.json": _load(case / "current.schema.json")})
    assert compat.main(["--baseline", str(previous), "--current", str(current)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "compatible (full): 3 changes, 0 breaking"
    assert "ok       line.schema.json#/properties/grad_norm: property 'grad_norm' added" in out

    assert compat.main(["--baseline", str(current), "--current", str(previous)]) == 1
    out = capsys.readouterr().out
    assert (
        "BREAKING line.schema.json#/properties/grad_norm: property 'grad_norm' removed"
        " [PROPERTY_NO_DELETE] (backward+forward)"
    ) in out
    assert out.splitlines()[-1] == "breaking (full): 3 changes, 1 breaking"

    with pytest.raises(SystemExit) as usage:
        compat.main(["--baseline", str(tmp_path / "missing"), "--current", str(current)])
    assert usage.value.code == 2
    with pytest.raises(SystemExit) as usage:
        compat.main(["--baseline", str(previous), "--current", str(current), "--mode", "sideways"])
    assert usage.value.code == 2


@pytest.mark.parametrize(
    ("mode", "status", "summary"),
    [
        ("full", 1, "breaking (full): 1 changes, 1 breaking"),
        ("forward", 1, "breaking (forward): 1 changes, 1 breaking"),
        ("backward", 0, "compatible (backward): 1 changes, 0 breaking"),
    ],
)
def test_a_new_stage_name_breaks_readers_already_deployed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, status: int, summary: str
) -> None:
    """A stage added to the enum: new readers read old logs (backward holds), but a reader of
    the release refuses the new name, as the reference refuses an unknown variant."""
    case = HERE / "cases" / "ENUM_VALUE_NO_ADD"
    previous = _folder(
        tmp_path, "1.0.0", {"line.schema.json": _load(case / "previous.schema.json")}
    )
    current = _folder(tmp_path, "now", {"line.schema.json": _load(case / "current.schema.json")})
    argv = ["--baseline", str(previous), "--current", str(current), "--mode", mode]
    assert compat.main(argv) == status
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == summary
    marker = "BREAKING" if status else "ok      "
    assert out[1] == (
        f'{marker} line.schema.json#/properties/stage/enum: enum value "compare" added'
        " [ENUM_VALUE_NO_ADD]" + (" (forward)" if status else "")
    )


def test_the_first_release_is_kept(tmp_path: Path) -> None:
    """schema-releases/1.0.0 holds the files of schema/ as released (contract 1.0.0)."""
    release = ROOT / "schema-releases" / "1.0.0"
    assert _load(release / "contract.json")["version"] == "1.0.0"
    assert {p.name for p in release.glob("*.schema.json")} >= {
        "metrics-line.schema.json",
        "job-stage.schema.json",
        "snapshot.schema.json",
        "snapshot-request.schema.json",
        "contract.schema.json",
    }
    # the real schemas through the comparer: a release against itself has no change at all
    copy = tmp_path / "copy"
    shutil.copytree(release, copy)
    assert (
        compat.compare_dirs(release, copy).summary() == "compatible (full): 0 changes, 0 breaking"
    )


def test_a_constant_added_with_its_property_is_compatible(tmp_path: Path) -> None:
    """A new env variable in contract.json and its property in contract.schema.json, whose
    object the release closed: a constant added, compatible in every mode (each version
    reads the contract.json it ships with); the same property in a line's schema breaks."""
    release = ROOT / "schema-releases" / "1.0.0"
    current = tmp_path / "current"
    shutil.copytree(release, current)
    constants, schema = _load(current / "contract.json"), _load(current / "contract.schema.json")
    constants["env"]["extra"] = "OVERBRAINER_EXTRA"
    schema["properties"]["env"]["properties"]["extra"] = {"type": "string"}
    (current / "contract.json").write_text(json.dumps(constants), encoding="utf-8")
    (current / "contract.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    report = compat.compare_dirs(release, current)
    assert [(c.rule, c.path) for c in report.changes] == [
        ("CONSTANT_ADD", "contract.schema.json#/properties/env/properties/extra"),
        ("CONSTANT_ADD", "contract.json#/env/extra"),
    ]
    assert report.summary() == "compatible (full): 2 changes, 0 breaking"
    (current / "line.schema.json").write_text(
        json.dumps(schema["properties"]["env"]), encoding="utf-8"
    )
    (release_copy := tmp_path / "release").mkdir()
    for path in release.iterdir():
        shutil.copy(path, release_copy / path.name)
    closed = dict(schema["properties"]["env"])
    closed["properties"] = {k: v for k, v in closed["properties"].items() if k != "extra"}
    (release_copy / "line.schema.json").write_text(json.dumps(closed), encoding="utf-8")
    elsewhere = compat.compare_dirs(release_copy, current)
    assert [(c.rule, c.path) for c in elsewhere.breaking] == [
        ("PROPERTY_NO_ADD_TO_CLOSED", "line.schema.json#/properties/extra")
    ]

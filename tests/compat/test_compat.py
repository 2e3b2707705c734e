"""The breaking-change check of the schemas (overbrainer_contract.compat): one pair of small
schemas per rule in cases/<RULE>/ (previous.schema.json, current.schema.json and expect.json,
the rule ids and JSON pointers it must report), as buf's breaking-rule tests do, plus a pair
whose changes are all compatible; then the folder comparison and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from overbrainer_contract import compat

HERE = Path(__file__).parent
CASES = sorted(p for p in (HERE / "cases").iterdir() if p.is_dir())
ROOT = HERE.parent.parent


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _pairs(changes: list[compat.Change]) -> list[list[str]]:
    return sorted([c.rule, c.pointer] for c in changes)


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_rule_case(case: Path) -> None:
    """Each case reports exactly the rule ids and paths of its expect.json."""
    expect = _load(case / "expect.json")
    changes = compat.compare_schema(
        _load(case / "previous.schema.json"), _load(case / "current.schema.json"), "line"
    )
    assert _pairs([c for c in changes if c.breaking]) == sorted(expect["breaking"])
    assert _pairs([c for c in changes if not c.breaking]) == sorted(expect["compatible"])
    assert all(c.path == f"line#{c.pointer}" for c in changes)


def test_every_breaking_rule_has_a_case() -> None:
    """A case folder per schema-level rule (FILE_NO_DELETE is a folder-level rule, below)."""
    names = {p.name for p in CASES}
    assert names == (set(compat.BREAKING_RULES) - {compat.FILE_NO_DELETE}) | {"compatible"}
    for case in CASES:
        if case.name != "compatible":
            rules = {rule for rule, _ in _load(case / "expect.json")["breaking"]}
            assert rules == {case.name}, case.name


def test_the_compatible_pair_reverses_to_breaking() -> None:
    """Read backwards, the compatible pair breaks: the rules are not blind in one direction."""
    case = HERE / "cases" / "compatible"
    changes = compat.compare_schema(
        _load(case / "current.schema.json"), _load(case / "previous.schema.json")
    )
    assert {c.rule for c in changes if c.breaking} == {
        compat.PROPERTY_NO_DELETE,
        compat.ENUM_VALUE_NO_DELETE,
        compat.BOUND_NO_TIGHTEN,
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
    assert report.summary() == "breaking: 2 changes, 1 breaking"


def test_latest_release_is_by_version_not_by_name(tmp_path: Path) -> None:
    for name in ("1.0.0", "1.10.0", "1.9.2", "notes"):
        (tmp_path / name).mkdir()
    assert compat.latest_release(tmp_path) == tmp_path / "1.10.0"
    assert compat.latest_release(tmp_path / "absent") is None


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
    assert out.splitlines()[-1] == "compatible: 5 changes, 0 breaking"
    assert "ok       line.schema.json#/properties/grad_norm: property 'grad_norm' added" in out

    assert compat.main(["--baseline", str(current), "--current", str(previous)]) == 1
    out = capsys.readouterr().out
    assert "BREAKING line.schema.json#/properties/grad_norm: property 'grad_norm' removed" in out
    assert out.splitlines()[-1] == "breaking: 5 changes, 3 breaking"

    with pytest.raises(SystemExit) as usage:
        compat.main(["--baseline", str(tmp_path / "missing"), "--current", str(current)])
    assert usage.value.code == 2


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
    assert compat.compare_dirs(release, copy).summary() == "compatible: 0 changes, 0 breaking"

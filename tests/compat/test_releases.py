"""The release rules (tools/release/releases.py): a change to schema/ raises the
version, a release folder is never edited, and `nox -s compat` enforces both on this
repository."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tools.release import compat, releases

ROOT = Path(__file__).resolve().parent.parent.parent
SCHEMA = ROOT / "schema"


def _contract(folder: Path, version: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "contract.json").write_text(json.dumps({"version": version}), encoding="utf-8")
    return folder


def test_latest_release_is_by_version_not_by_name(tmp_path: Path) -> None:
    for name in ("1.0.0", "1.10.0", "1.9.2", "notes", "01.2.3"):
        (tmp_path / name).mkdir()
    assert releases.latest_release(tmp_path) == tmp_path / "1.10.0"
    assert releases.latest_release(tmp_path / "absent") is None


@pytest.mark.parametrize(
    ("released", "working", "changes", "problem"),
    [
        ("1.0.0", "1.0.0", 0, None),
        ("1.0.0", "1.0.0", 3, "still says version 1.0.0: raise it"),
        ("1.0.0", "1.0.1", 3, None),
        ("1.2.3", "1.10.0", 1, None),  # by number, not by text
        ("1.2.0", "1.1.9", 0, "version 1.1.9 is lower than the release"),
        ("1.0.0", "one", 0, "versions not comparable"),
    ],
)
def test_version_is_raised_with_any_change(
    tmp_path: Path, released: str, working: str, changes: int, problem: str | None
) -> None:
    baseline, current = _contract(tmp_path / "r", released), _contract(tmp_path / "w", working)
    found = releases.version_problems(baseline, current, changes)
    if problem is None:
        assert found == []
    else:
        assert [p.rule for p in found] == [releases.VERSION_NO_BUMP]
        assert problem in found[0].message


def test_the_bump_message_names_the_next_versions(tmp_path: Path) -> None:
    baseline, current = _contract(tmp_path / "r", "1.4.2"), _contract(tmp_path / "w", "1.4.2")
    (problem,) = releases.version_problems(baseline, current, 2)
    assert "(1.4.3 for notes, 1.5.0 for an addition, 2.0.0 for a break)" in problem.message


def _release(folder: Path, version: str, files: dict[str, Any]) -> Path:
    release = folder / version
    release.mkdir(parents=True)
    for name, doc in files.items():
        (release / name).write_text(json.dumps(doc), encoding="utf-8")
    return release


def test_record_then_every_edit_is_caught(tmp_path: Path) -> None:
    folder = tmp_path / "schema-releases"
    release = _release(folder, "1.0.0", {"a.schema.json": {"type": "string"}})
    assert [p.message for p in releases.edited_releases(folder)] == [
        f"not in {folder.as_posix()}/SHA256SUMS: record the release with --record 1.0.0"
    ]
    (line,) = releases.record(folder, "1.0.0")
    # the sha256sum line of the file's bytes, json.dumps({"type": "string"}) as written above
    assert line == hashlib.sha256(b'{"type": "string"}').hexdigest() + "  1.0.0/a.schema.json"
    assert releases.edited_releases(folder) == []
    with pytest.raises(ValueError, match="recorded already"):
        releases.record(folder, "1.0.0")

    (release / "a.schema.json").write_text('{"type": "integer"}', encoding="utf-8")
    (release / "b.schema.json").write_text("{}", encoding="utf-8")
    found = {
        (Path(p.path).name, p.message.split(" (")[0].split(":")[0])
        for p in releases.edited_releases(folder)
    }
    assert found == {
        ("a.schema.json", "edited since its release"),
        ("b.schema.json", f"not in {folder.as_posix()}/SHA256SUMS"),
    }
    shutil.rmtree(release)
    assert [p.message for p in releases.edited_releases(folder)] == [
        f"listed in {folder.as_posix()}/SHA256SUMS but gone: a release is never removed"
    ]


def test_a_committed_digest_cannot_be_rewritten(tmp_path: Path) -> None:
    """Editing a release and its digest together passes the digest check; git history
    still shows the line that changed."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    folder = tmp_path / "schema-releases"
    release = _release(folder, "1.0.0", {"a.schema.json": {"type": "string"}})
    releases.record(folder, "1.0.0")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "release 1.0.0"], check=True)
    assert releases.edited_releases(folder) == []

    (release / "a.schema.json").write_text('{"type": "integer"}', encoding="utf-8")
    (folder / "SHA256SUMS").unlink()
    releases.record(folder, "1.0.0")
    subprocess.run([*git, "commit", "-qam", "quietly edit 1.0.0"], check=True)
    (problem,) = releases.edited_releases(folder)
    assert problem.rule == releases.RELEASE_NO_EDIT
    assert "1.0.0/a.schema.json' of " in problem.message
    assert problem.message.endswith("changed or removed since")


def test_this_repository_keeps_its_releases() -> None:
    """schema-releases/ matches SHA256SUMS, and schema/ differs from the newest release only
    under a higher version: what `nox -s compat` runs."""
    folder = ROOT / "schema-releases"
    assert releases.edited_releases(folder) == []
    latest = releases.latest_release(folder)
    assert latest is not None
    report = compat.compare_dirs(latest, SCHEMA)
    changed = sum(1 for c in report.changes if c.rule != compat.ID_CHANGE)
    assert releases.version_problems(latest, SCHEMA, changed) == []


def test_compat_fails_on_a_change_without_a_new_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A description edited in schema/ is compatible, yet fails until the version is raised."""
    folder = tmp_path / "schema-releases"
    shutil.copytree(ROOT / "schema-releases", folder)
    current = tmp_path / "schema"
    newest = releases.latest_release(folder)
    assert newest is not None
    shutil.copytree(newest, current)  # schema/ as released, whatever the newest release is
    line = current / "metrics-line.schema.json"
    doc = json.loads(line.read_text())
    doc["description"] += " Edited."
    line.write_text(json.dumps(doc), encoding="utf-8")
    argv = ["--current", str(current), "--releases", str(folder)]
    assert compat.main(argv) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == "compatible (full): 1 changes, 0 breaking"
    assert out[-1].startswith(f"RELEASE  {current}/contract.json: {current}/ differs from")
    assert out[-1].endswith("[VERSION_NO_BUMP]")

    contract = json.loads((current / "contract.json").read_text())
    version = releases.parse_version(contract["version"])
    assert version is not None
    patch = f"{version[0]}.{version[1]}.{version[2] + 1}"
    contract["version"] = patch
    (current / "contract.json").write_text(json.dumps(contract), encoding="utf-8")
    assert compat.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == "compatible (full): 2 changes, 0 breaking"
    assert out[-1] == f"releases: {folder}/ as released, version {patch}"


def test_record_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "schema-releases"
    _release(folder, "2.0.0", {"a.schema.json": {}})
    assert releases.main(["--record", "2.0.0", "--releases", str(folder)]) == 0
    assert capsys.readouterr().out.endswith("  2.0.0/a.schema.json\n")
    with pytest.raises(SystemExit) as usage:
        releases.main(["--record", "3.0.0", "--releases", str(folder)])
    assert usage.value.code == 2


def test_without_git_the_digests_are_still_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "schema-releases"
    release = _release(folder, "1.0.0", {"a.schema.json": {"type": "string"}})
    releases.record(folder, "1.0.0")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    assert releases.edited_releases(folder) == []
    (release / "a.schema.json").write_text("{}", encoding="utf-8")
    assert [p.rule for p in releases.edited_releases(folder)] == [releases.RELEASE_NO_EDIT]

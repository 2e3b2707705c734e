"""The released versions of the contract's schemas, and the two rules that keep them honest.

Every release of `schema/` is a folder `schema-releases/<version>/`, copied once and never
edited afterwards: readers in other languages pin a release by its `$id`s. Its files' digests
are appended to `schema-releases/SHA256SUMS` when it is made (`sha256sum -c SHA256SUMS`
checks them from a shell too). So

- ``RELEASE_NO_EDIT``: every file of a release folder is listed in `SHA256SUMS` with its
  digest, every listed file is there, and no line of `SHA256SUMS` ever committed has changed
  or gone (git history, when there is one);
- ``VERSION_NO_BUMP``: `schema/` may differ from the newest release only under a higher
  `version` in `schema/contract.json` (the `$id`s carry it too, a schema test checks).

To release: raise the version in `schema/` (contract.json and the `$id`s), copy `schema/` to
`schema-releases/<version>/`, run
`python -m tools.release.releases --record <version>` and commit both.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

RELEASE_NO_EDIT: Final = "RELEASE_NO_EDIT"
VERSION_NO_BUMP: Final = "VERSION_NO_BUMP"

_VERSION = re.compile(r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$")


@dataclass(frozen=True)
class Problem:
    """A release rule broken, at `path`."""

    rule: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.rule}]"


def parse_version(text: str) -> tuple[int, int, int] | None:
    """`(major, minor, patch)` of a semantic version `X.Y.Z`, or None."""
    match = _VERSION.match(text)
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def releases(folder: Path) -> list[Path]:
    """The release folders of `folder` (`1.0.0`, `1.2.0`...), oldest first."""
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.is_dir() and parse_version(p.name)]
    return sorted(found, key=lambda p: parse_version(p.name) or (0, 0, 0))


def latest_release(folder: Path) -> Path | None:
    """The newest release folder of `folder`, or None when there is none."""
    found = releases(folder)
    return found[-1] if found else None


def contract_version(folder: Path) -> str | None:
    """The `version` of `folder/contract.json`, or None when there is none."""
    contract = folder / "contract.json"
    if not contract.is_file():
        return None
    version = json.loads(contract.read_text(encoding="utf-8")).get("version")
    return version if isinstance(version, str) else None


def version_problems(baseline: Path, current: Path, changes: int) -> list[Problem]:
    """`VERSION_NO_BUMP` when `current` differs from the release `baseline` by `changes`
    changes (`$id`s and the version aside) yet does not carry a higher version."""
    before, after = contract_version(baseline), contract_version(current)
    old, new = parse_version(before or ""), parse_version(after or "")
    where = str(current / "contract.json")
    if old is None or new is None:
        return [Problem(VERSION_NO_BUMP, where, f"versions not comparable: {before} and {after}")]
    if new < old:
        message = f"version {after} is lower than the release {baseline} ({before})"
        return [Problem(VERSION_NO_BUMP, where, message)]
    if changes and new == old:
        major, minor, patch = old
        message = (
            f"{current}/ differs from the release {baseline}/ ({changes} changes) but still "
            f"says version {after}: raise it, and the $ids with it ({major}.{minor}.{patch + 1} "
            f"for notes, {major}.{minor + 1}.0 for an addition, {major + 1}.0.0 for a break)"
        )
        return [Problem(VERSION_NO_BUMP, where, message)]
    return []


SUMS: Final = "SHA256SUMS"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _files(release: Path, folder: Path) -> dict[str, Path]:
    """The files of `release`, named relative to `folder` as SHA256SUMS names them."""
    found = (p for p in sorted(release.rglob("*")) if p.is_file())
    return {p.relative_to(folder).as_posix(): p for p in found}


def read_sums(text: str) -> dict[str, str]:
    """`name: digest` of a `sha256sum` listing (`<digest>  <name>` lines)."""
    sums = {}
    for line in text.splitlines():
        if line.strip():
            digest, _, name = line.partition("  ")
            sums[name.lstrip("*")] = digest
    return sums


def record(folder: Path, version: str) -> list[str]:
    """Append the digests of release `version` to `folder/SHA256SUMS`; the lines written."""
    release = folder / version
    if parse_version(version) is None or not release.is_dir():
        raise ValueError(f"{release}: not a release folder")
    sums_path = folder / SUMS
    text = sums_path.read_text(encoding="utf-8") if sums_path.is_file() else ""
    known = read_sums(text)
    files = _files(release, folder)
    if any(name in known for name in files):
        raise ValueError(f"{version} is recorded already: a release is never recorded twice")
    lines = [f"{_digest(path)}  {name}" for name, path in files.items()]
    sums_path.write_text(text + "".join(f"{line}\n" for line in lines), encoding="utf-8")
    return lines


def _git(root: Path, *args: str) -> str:
    """What git prints, or "" where there is no git (the digests are then checked alone)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
        )
    except OSError:
        return ""
    return done.stdout if done.returncode == 0 else ""


def edited_releases(folder: Path) -> list[Problem]:
    """`RELEASE_NO_EDIT` for each file of a release folder that differs from `SHA256SUMS`,
    and each line of `SHA256SUMS` once committed and since changed (git, when available)."""
    sums_path = folder / SUMS
    where = sums_path.as_posix()
    text = sums_path.read_text(encoding="utf-8") if sums_path.is_file() else ""
    sums = read_sums(text)
    problems = []
    present: dict[str, Path] = {}
    for release in releases(folder):
        present |= _files(release, folder)
    for name, path in present.items():
        if name not in sums:
            message = f"not in {where}: record the release with --record {name.split('/')[0]}"
            problems.append(Problem(RELEASE_NO_EDIT, f"{folder.as_posix()}/{name}", message))
        elif _digest(path) != sums[name]:
            message = (
                f"edited since its release ({where} has another digest): restore it "
                "and release a new version instead"
            )
            problems.append(Problem(RELEASE_NO_EDIT, f"{folder.as_posix()}/{name}", message))
    for name in sorted(sums.keys() - present.keys()):
        message = f"listed in {where} but gone: a release is never removed"
        problems.append(Problem(RELEASE_NO_EDIT, f"{folder.as_posix()}/{name}", message))
    if _git(folder, "rev-parse", "--is-inside-work-tree").strip() == "true":
        commits = _git(folder, "log", "--format=%H", "--", SUMS).split()
        lines = set(text.splitlines())
        for commit in commits:
            for line in _git(folder, "show", f"{commit}:./{SUMS}").splitlines():
                if line.strip() and line not in lines:
                    message = f"line {line!r} of {commit[:10]} changed or removed since"
                    problems.append(Problem(RELEASE_NO_EDIT, where, message))
                    lines.add(line)  # once per line
    return problems


def main(argv: list[str] | None = None) -> int:
    """`--record VERSION`: append a new release's digests to SHA256SUMS."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m tools.release.releases",
        description="Record a new schema release's digests in SHA256SUMS.",
    )
    parser.add_argument("--record", metavar="VERSION", required=True)
    parser.add_argument("--releases", type=Path, default=Path("schema-releases"))
    args = parser.parse_args(argv)
    try:
        for line in record(args.releases, args.record):
            print(line)
    except ValueError as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())

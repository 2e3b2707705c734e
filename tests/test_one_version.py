"""One version everywhere: every manifest that states the package's version states the
contract's, `schema/contract.json`'s `version` (the schemas' `$id`s are held to it in
test_schemas.py).

Each manifest is read with a parser made for its format (tomllib, json, ast), from this
checkout, not from an installed wheel. A manifest that states no release's version is named
in NOT_HELD with the reason; a new manifest anywhere in the tree must be one or the other.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli, which pytest brings there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CONTRACT_JSON = "schema/contract.json"
VERSION = json.loads((ROOT / CONTRACT_JSON).read_text(encoding="utf-8"))["version"]
CORE_CRATES = ("overbrainer-core", "overbrainer-core-python", "overbrainer-core-wasm")
MANIFEST_NAMES = {"pyproject.toml", "Cargo.toml", "Cargo.lock", "package.json", "package-lock.json"}
# Folders of build outputs, installed dependencies and tools' state: no manifest of ours.
PRUNED = {"node_modules", "target", "dist", "build", "__pycache__"}


def toml(path: str) -> dict[str, Any]:
    return tomllib.loads((ROOT / path).read_text(encoding="utf-8"))


def json_file(path: str) -> Any:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def locked(crate: str) -> str:
    (entry,) = (p for p in toml("core/Cargo.lock")["package"] if p["name"] == crate)
    return str(entry["version"])


def dunder_version(path: str) -> str:
    """`__version__ = "..."` read from the module's syntax tree (the module is not run)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"), filename=path)
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
            and isinstance(node.value, ast.Constant)
        ):
            return str(node.value.value)
    return "no __version__ assignment"


class Place(NamedTuple):
    file: str
    what: str
    read: Callable[[], str]
    expected: str
    fix: str


def cargo_place(path: str) -> Place:
    return Place(
        path,
        "[package] version",
        lambda: str(toml(path)["package"]["version"]),
        VERSION,
        f'set `version = "{VERSION}"` under [package] in {path}, then run '
        "`cargo update --workspace --offline` in core/ for core/Cargo.lock",
    )


NPM_FIX = f"run `npm version {VERSION} --no-git-tag-version` in js/ (it writes both files)"
PLACES = [
    Place(
        "pyproject.toml",
        "[project] version",
        lambda: str(toml("pyproject.toml")["project"]["version"]),
        VERSION,
        f'set `version = "{VERSION}"` under [project] in pyproject.toml',
    ),
    cargo_place("core/reader/Cargo.toml"),
    cargo_place("core/python/Cargo.toml"),
    cargo_place("core/wasm/Cargo.toml"),
    *(
        Place(
            "core/Cargo.lock",
            f"the locked version of {crate}",
            partial(locked, crate),
            VERSION,
            "run `cargo update --workspace --offline` in core/ (cargo writes its members' "
            "versions into the lock)",
        )
        for crate in CORE_CRATES
    ),
    Place(
        "js/package.json",
        '"version"',
        lambda: json_file("js/package.json")["version"],
        VERSION,
        NPM_FIX,
    ),
    Place(
        "js/package-lock.json",
        '"version"',
        lambda: json_file("js/package-lock.json")["version"],
        VERSION,
        NPM_FIX,
    ),
    Place(
        "js/package-lock.json",
        'the root package\'s "version" (packages[""])',
        lambda: json_file("js/package-lock.json")["packages"][""]["version"],
        VERSION,
        NPM_FIX,
    ),
    Place(
        "python/overbrainer_contract/__init__.py",
        "__version__",
        lambda: dunder_version("python/overbrainer_contract/__init__.py"),
        VERSION,
        f'set `__version__ = "{VERSION}"` in python/overbrainer_contract/__init__.py',
    ),
]


@pytest.mark.parametrize("place", PLACES, ids=[f"{p.file}: {p.what}" for p in PLACES])
def test_the_version_is_the_contracts(place: Place) -> None:
    found = place.read()
    assert found == place.expected, (
        f"{place.file}: {place.what} is {found!r}, but the contract's version "
        f"({CONTRACT_JSON} `version`) is {VERSION!r}. Fix: {place.fix}. "
        f"A release raises {CONTRACT_JSON} first, then every manifest to it (CONTRIBUTING.md)."
    )


def unpacked(path: str) -> bool:
    """An npm manifest that no one installs: private, and no module, file or export of it."""
    manifest = json_file(path)
    shipped = {"exports", "main", "module", "files", "bin", "types"}.intersection(manifest)
    return manifest.get("private") is True and not shipped


# Manifests that state no release's version, each with why and what keeps it so: when that
# no longer holds, the manifest ships and must follow the contract's version (PLACES).
NOT_HELD: dict[str, tuple[str, Callable[[], bool]]] = {
    "core/Cargo.toml": (
        "the workspace: its members state the version, it states none",
        lambda: (
            "package" not in toml("core/Cargo.toml")
            and "version" not in toml("core/Cargo.toml")["workspace"].get("package", {})
        ),
    ),
    "conformance/rust/Cargo.toml": (
        "the reference runner, a test tool built by nox, never published",
        lambda: toml("conformance/rust/Cargo.toml")["package"].get("publish") is False,
    ),
    "conformance/rust/Cargo.lock": (
        "the reference runner's lock",
        lambda: toml("conformance/rust/Cargo.toml")["package"].get("publish") is False,
    ),
    "js/viewer/package.json": (
        "the run viewer's build and test dependencies: private and exporting nothing, never "
        "packed (the page ships, and shows the contract's version from schema/contract.json)",
        lambda: unpacked("js/viewer/package.json"),
    ),
    "js/viewer/package-lock.json": (
        "the run viewer's lock",
        lambda: unpacked("js/viewer/package.json"),
    ),
    "js/lint/package.json": (
        "the linter's dependencies (ESLint, typescript-eslint): private and exporting nothing, "
        "never packed",
        lambda: unpacked("js/lint/package.json"),
    ),
    "js/lint/package-lock.json": (
        "the linter's lock",
        lambda: unpacked("js/lint/package.json"),
    ),
}


@pytest.mark.parametrize("path", sorted(NOT_HELD))
def test_a_manifest_left_apart_still_ships_no_version(path: str) -> None:
    reason, holds = NOT_HELD[path]
    assert holds(), (
        f"{path} is left apart from the one version ({reason}), but that no longer holds: "
        "hold its version to the contract's (PLACES in tests/test_one_version.py), or make "
        "it so again"
    )


def manifests() -> set[str]:
    """Every manifest in the checkout, outside hidden folders and build outputs."""
    found = set()
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d not in PRUNED]
        for name in MANIFEST_NAMES.intersection(files):
            found.add((Path(folder) / name).relative_to(ROOT).as_posix())
    return found


def test_every_manifest_is_held_or_left_apart_with_a_reason() -> None:
    held = {place.file for place in PLACES}
    unnamed = manifests() - held - set(NOT_HELD)
    assert not unnamed, (
        f"{sorted(unnamed)}: a manifest neither held to the contract's version nor left "
        "apart: add its version to PLACES in tests/test_one_version.py, or it to NOT_HELD "
        "with why it states no release's version"
    )
    gone = set(NOT_HELD) - manifests()
    assert not gone, f"{sorted(gone)}: left apart in NOT_HELD but no longer in the tree"

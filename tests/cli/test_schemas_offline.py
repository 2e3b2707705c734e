"""The shipped schemas used by another tool, offline: `check-jsonschema` (pinned in the
schema-tools group) validates a `snapshot.json` against `schema/snapshot.schema.json`, its `$ref`s
(`metrics-line.schema.json#/$defs/U64`, `snapshot-request.schema.json#/$defs/Word`)
resolved in `schema/` by `--base-uri`, as docs/contract.md shows.

No network is touched: the child runs with a `sitecustomize` that makes every socket
connection fail (a download would fail the run), and a cache of its own. Without
`--base-uri` the same command fails on the `$id`'s address, as the issue found."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_samples import PROOF
from sweep import SNAPSHOT, Sweep

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "schema"

NO_NETWORK = """\
import socket

def _refused(*args, **kwargs):
    raise OSError("no network in this test")

socket.socket.connect = _refused
socket.socket.connect_ex = _refused
socket.create_connection = _refused
socket.getaddrinfo = _refused
"""


def check_jsonschema() -> str:
    found = Path(sys.executable).with_name("check-jsonschema")
    if found.exists():
        return str(found)
    which = shutil.which("check-jsonschema")
    if which is None:
        pytest.fail("no check-jsonschema: the schema-tools group pins it (nox -s cli)")
    return which


def offline(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`check-jsonschema ARGS` with no network and a cache of its own, from `tmp_path`."""
    guard = tmp_path / "guard"
    guard.mkdir(exist_ok=True)
    (guard / "sitecustomize.py").write_text(NO_NETWORK)
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(guard),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
    }
    return subprocess.run(
        [check_jsonschema(), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )


def readme_command(proof: Path) -> list[str]:
    """The command of docs/contract.md, for a proof at `proof`."""
    return [
        "--schemafile",
        str(SCHEMA / "snapshot.schema.json"),
        "--base-uri",
        SCHEMA.as_uri() + "/",
        str(proof),
    ]


def test_a_snapshot_proof_validates_offline_with_the_shipped_schemas(
    tmp_path: Path, sweep: Sweep
) -> None:
    taken = sweep.root / SNAPSHOT / "snapshot.json"  # written by the plugin's callback
    assert taken.exists()
    result = offline(tmp_path, *readme_command(taken))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "ok -- validation done"


def test_a_bad_proof_is_refused_offline_with_each_problem(tmp_path: Path) -> None:
    bad = tmp_path / "snapshot.json"
    bad.write_text('{"checkpoint":"","step":-1,"time":1.0,"reason":"two words"}')
    result = offline(tmp_path, *readme_command(bad))
    assert result.returncode == 1
    # the refs resolved in schema/: the bound of U64 and the Word's pattern both checked
    for said in (
        f"{bad}::$.checkpoint: '' should be non-empty",
        f"{bad}::$.step: -1 is less than the minimum of 0",
        f"{bad}::$.reason: 'two words' is not valid under any of the given schemas",
    ):
        assert said in result.stdout, result.stdout


def test_without_a_base_uri_the_ids_address_is_fetched_and_fails_offline(tmp_path: Path) -> None:
    proof = tmp_path / "snapshot.json"
    proof.write_text(PROOF)
    result = offline(tmp_path, "--schemafile", str(SCHEMA / "snapshot.schema.json"), str(proof))
    assert result.returncode != 0
    assert "Unretrievable: 'https://overbrainer.dev/contract/" in result.stdout + result.stderr
    assert "no network in this test" in result.stdout + result.stderr  # the guard held

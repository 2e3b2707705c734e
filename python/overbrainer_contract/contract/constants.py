"""The contract's constants, read from `schema/contract.json` — their one source."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import msgspec

from .._models.contract_schema import Contract, Stale


def schema_dir() -> Path:
    """The folder holding the schemas and `contract.json`.

    Inside an installed package they ship as `overbrainer_contract/schema`, beside this
    room (`overbrainer_contract/contract/`); in a source checkout they are the repository's
    `schema/`, above `python/overbrainer_contract/contract/`. (The package's own folder,
    as `importlib.resources` would find it for a package on disk, without importing that:
    every command reads this at its start.)
    """
    package = Path(__file__).parent.parent
    packaged = package / "schema"
    if packaged.is_dir():
        return packaged
    return package.resolve().parents[1] / "schema"


@cache
def load_contract() -> Contract:
    """The contract document, decoded and checked against its generated model."""
    data = (schema_dir() / "contract.json").read_bytes()
    return msgspec.json.decode(data, type=Contract)


CONTRACT = load_contract()
VERSION: str = CONTRACT.version
PLUGIN_FILE: str = CONTRACT.plugin.file
PLUGIN_CLASS: str = CONTRACT.plugin.qualified_name
METRICS_ENV: str = CONTRACT.env.metrics
SNAPSHOT_ENV: str = CONTRACT.env.snapshot


def _since_1_1(value: object, name: str) -> str:
    """A constant optional in the schema (older contracts lack it) but in this contract.json."""
    if not isinstance(value, str):
        raise RuntimeError(f"{schema_dir() / 'contract.json'} lacks {name}")
    return value


SNAPSHOT_ON_SIGTERM_ENV: str = _since_1_1(
    CONTRACT.env.snapshot_on_sigterm, "env.snapshot_on_sigterm"
)
"""Set to `1`, SIGTERM is a snapshot request with reason `preempted` (contract 1.1.0)."""
METRICS_FILE: str = CONTRACT.files.metrics
SNAPSHOT_REQUEST: str = CONTRACT.files.snapshot_request
SNAPSHOT_FILE: str = CONTRACT.files.snapshot


def _since_1_2(value: object, name: str) -> int:
    """A limit optional in the schema (older contracts lack it) but in this contract.json."""
    if not isinstance(value, int):
        raise RuntimeError(f"{schema_dir() / 'contract.json'} lacks {name}")
    return value


_MAX_BYTES = CONTRACT.max_bytes
REQUEST_LIMIT: int = _since_1_2(
    getattr(_MAX_BYTES, "snapshot_request", None), "max_bytes.snapshot_request"
)
"""The most bytes `snapshot.request` may hold (contract 1.2.0): what the plugin reads of it."""
PROOF_LIMIT: int = _since_1_2(getattr(_MAX_BYTES, "snapshot", None), "max_bytes.snapshot")
"""The most bytes `snapshot.json` may hold (contract 1.2.0)."""

_STALE = CONTRACT.stale
"""When a run's ETA is stale (contract 2.0.0): optional in the schema, older contracts lack it."""
if not isinstance(_STALE, Stale):
    raise RuntimeError(f"{schema_dir() / 'contract.json'} lacks stale")
STALE_STEPS: int = _STALE.steps
"""Silence, in steps at the run's own pace, after which its ETA is stale (contract 2.0.0)."""
STALE_FLOOR: float = float(_STALE.floor_seconds)
"""Silence, in seconds, below which an ETA is never stale (contract 2.0.0)."""

"""The contract's JSON Schemas, by name, for this package and for other languages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .constants import schema_dir

SUFFIX = ".schema.json"


def schema_paths() -> dict[str, Path]:
    """Every schema of the contract, by name (`metrics-line`, `snapshot`, ...)."""
    return {path.name[: -len(SUFFIX)]: path for path in sorted(schema_dir().glob(f"*{SUFFIX}"))}


def load_schema(name: str) -> dict[str, Any]:
    """The schema called `name`, as a JSON object; KeyError names the known ones."""
    paths = schema_paths()
    if name not in paths:
        raise KeyError(f"no schema {name!r}; known: {', '.join(paths)}")
    loaded: dict[str, Any] = json.loads(paths[name].read_text(encoding="utf-8"))
    return loaded

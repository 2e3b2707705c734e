"""The contract's schemas as a `referencing` registry, for jsonschema validators."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
import referencing
from overbrainer_contract.contract.schemas import load_schema, schema_paths


@cache
def registry() -> referencing.Registry[Any]:
    resources = []
    for path in schema_paths().values():
        contents = json.loads(path.read_text(encoding="utf-8"))
        resources.append((contents["$id"], referencing.Resource.from_contents(contents)))
    return referencing.Registry().with_resources(resources)


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    """A 2020-12 validator of schema `name`, its `$ref`s resolved in the registry."""
    return jsonschema.Draft202012Validator(load_schema(name), registry=registry())

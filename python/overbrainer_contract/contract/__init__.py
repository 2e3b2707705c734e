"""The contract itself: what `schema/` says, as this package reads it.

- `constants`: the constants of `schema/contract.json` (file names, environment variables,
  the plugin's module and class, the version) and `schema_dir()`, where the schemas lie;
- `schemas`: the JSON Schemas by name (`metrics-line`, `snapshot`, ...);
- `models`: the generated models under the names the package exports (`MetricLine`, ...);
- `compat`: the breaking-change check of `schema/` against its last release
  (`python -m overbrainer_contract.contract.compat`);
- `releases`: the released schemas and their digests
  (`python -m overbrainer_contract.contract.releases --record VERSION`).

The bottom of the package: it imports nothing of it. Nothing is imported here, so that a
module of this room loads only what it needs (`constants` reads `contract.json`).
"""

"""The contract itself: what `schema/` says, as this package reads it.

- `constants`: the constants of `schema/contract.json` (file names, environment variables,
  the plugin's module and class, the version) and `schema_dir()`, where the schemas lie;
- `schemas`: the JSON Schemas by name (`metrics-line`, `snapshot`, ...);
- `models`: the generated models under the names the package exports (`MetricLine`, ...).

The release tooling (the breaking-change check, the released schemas' digests) and the
generators are the project's, not the package's: `tools/` in the repository.

The bottom of the package: it imports nothing of it. Nothing is imported here, so that a
module of this room loads only what it needs (`constants` reads `contract.json`).
"""

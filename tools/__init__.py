"""The project's own tooling, run from a checkout by nox and never shipped in the wheel.

- `codegen`: everything generated from `schema/` that is not datamodel-code-generator's or
  the TypeScript generator's own output: the Arrow schema, the reader core's Rust types and
  reports, the docs' tables. `nox -s generate` runs every generator; `nox -s generated`
  fails, naming that command, where a committed file differs from a fresh generation.
- `release`: the breaking-change check of `schema/` against its newest release (`nox -s
  compat`) and the released schemas' digests (`python -m tools.release.releases --record
  VERSION`, when a release is made).

Tools import the package where they need it (the package never imports a tool); each runs
from the project's root as `python -m tools.<room>.<module>`.
"""

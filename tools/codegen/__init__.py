"""Generators from `schema/`, each a module run by `nox -s generate` (and checked by
`nox -s generated`): `arrow` (the Arrow schema of a table of lines), `docs_tables` (the
tables of the README and `docs/contract.md`)."""

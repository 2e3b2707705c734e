"""The contract's releases: `releases` (released schemas, their digests, the two rules that
keep them honest) and `compat` (what a change to `schema/` breaks, by reader and writer)."""

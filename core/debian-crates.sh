#!/bin/sh
# Points this machine's cargo at Debian's packaged crates, offline, for machines that cannot
# reach the public crate registry (the crates themselves are not changed: the same Cargo.toml
# builds against crates.io where it is reachable). Installs the packages the reader core
# needs (serde, serde_json 1.0.87, PyO3 0.17, rayon, unicode-ident, regex), Debian's Rust 1.63
# beside the machine's own, and its WebAssembly standard library; then appends the source
# replacement to $CARGO_HOME/config.toml (default ~/.cargo), unless a replacement is already
# there. That file is the user's: the replacement holds for every cargo project of that user
# (what an offline machine needs); to undo it, delete the block between its two marker lines.
set -eu
PACKAGES="librust-pyo3-dev librust-memchr-dev librust-rayon-dev librust-serde-json-dev librust-serde-derive-dev librust-serde-dev librust-unicode-ident-dev librust-regex-dev rustc cargo libstd-rust-dev-wasm32"
if ! dpkg -s $PACKAGES >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq $PACKAGES >/dev/null
fi
config="${CARGO_HOME:-$HOME/.cargo}/config.toml"
mkdir -p "$(dirname "$config")"
if ! grep -q 'replace-with *= *"debian"' "$config" 2>/dev/null; then
  cat >>"$config" <<'TOML'
# BEGIN Debian's packaged crates, offline (overbrainer-contract's core/debian-crates.sh)
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"

[net]
offline = true
# END Debian's packaged crates
TOML
  echo "core/debian-crates.sh: cargo now reads Debian's crates, offline, for every project of this user ($config); to undo, delete the block between its BEGIN and END lines"
fi

// find-cargo.mjs's choice of the Rust that builds the WebAssembly module, on fake toolchains: a
// temporary folder of `cargo` and `rustc` scripts, each rustc telling a sysroot that does or does
// not hold lib/rustlib/wasm32-unknown-unknown.
//
//   node --test test/find-cargo.test.mjs

import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { findCargo } from "../find-cargo.mjs";

const ROOT = mkdtempSync(join(tmpdir(), "find-cargo-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));

/** A folder holding a fake `cargo` and (unless `rustc: false`) a fake `rustc` whose sysroot
 * has the wasm32 standard library when `wasm` is true; `broken` makes rustc fail. */
function toolchain(name, { wasm, rustc = true, broken = false, version = "rustc 9.9.9 (fake)" }) {
  const bin = join(ROOT, name, "bin");
  const sysroot = join(ROOT, name, "sysroot");
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(sysroot, "lib", "rustlib", "x86_64-unknown-linux-gnu"), { recursive: true });
  if (wasm) mkdirSync(join(sysroot, "lib", "rustlib", "wasm32-unknown-unknown", "lib"), { recursive: true });
  const script = (path, text) => {
    writeFileSync(path, `#!/bin/sh\n${text}\n`);
    chmodSync(path, 0o755);
  };
  script(join(bin, "cargo"), "exit 0");
  if (rustc) {
    script(
      join(bin, "rustc"),
      broken
        ? 'echo "error: toolchain not installed" >&2; exit 1'
        : `case "$1" in --version) echo "${version}";; --print) echo "${sysroot}";; *) exit 2;; esac`,
    );
  }
  return bin;
}

const withWasm = toolchain("rustup-wasm", { wasm: true, version: "rustc 1.95.0 (fake rustup)" });
const without = toolchain("rustup-plain", { wasm: false, version: "rustc 1.95.0 (fake rustup)" });
const debian = toolchain("debian", { wasm: true, version: "rustc 1.63.0" });
const debianPlain = toolchain("debian-plain", { wasm: false, version: "rustc 1.63.0" });
const lone = toolchain("lone-cargo", { wasm: false, rustc: false });
const broken = toolchain("broken", { wasm: true, broken: true });
const nothing = join(ROOT, "nothing");
mkdirSync(nothing);

const find = (env, debianFolder = nothing) => findCargo({ env, debian: debianFolder, cwd: ROOT });

test("the cargo on the PATH, when its rustc has the target", () => {
  const found = find({ PATH: `${withWasm}:${debian}` }, debian);
  assert.equal(found.source, "PATH");
  assert.equal(found.cargo, join(withWasm, "cargo"));
  assert.equal(found.rustc, join(withWasm, "rustc"));
  assert.equal(found.version, "rustc 1.95.0 (fake rustup)");
});

test("Debian's cargo and rustc when the PATH's rustc has no wasm32 std", () => {
  const found = find({ PATH: without }, debian);
  assert.equal(found.source, "Debian");
  assert.equal(found.cargo, join(debian, "cargo"));
  assert.equal(found.rustc, join(debian, "rustc"));
  assert.equal(found.version, "rustc 1.63.0");
});

test("Debian's when the PATH holds no cargo", () => {
  const found = find({ PATH: nothing }, debian);
  assert.equal(found.source, "Debian");
});

test("Debian's cargo first on the PATH is that one, tried once", () => {
  const found = find({ PATH: `${debian}:${withWasm}` }, debian);
  assert.equal(found.source, "PATH");
  assert.equal(found.cargo, join(debian, "cargo"));
  assert.throws(
    () => find({ PATH: `${debianPlain}:${withWasm}` }, debianPlain),
    (error) => error.message.split("\n").filter((line) => line.includes(debianPlain)).length === 1,
  );
});

test("OVERBRAINER_WASM_CARGO first, whatever the PATH holds", () => {
  const found = find({ PATH: withWasm, OVERBRAINER_WASM_CARGO: join(debian, "cargo") }, debian);
  assert.equal(found.source, "OVERBRAINER_WASM_CARGO");
  assert.equal(found.rustc, join(debian, "rustc"));
});

test("OVERBRAINER_WASM_CARGO empty is unset", () => {
  assert.equal(find({ PATH: withWasm, OVERBRAINER_WASM_CARGO: "" }).source, "PATH");
});

test("OVERBRAINER_WASM_CARGO without the target fails; no other Rust is taken instead", () => {
  const named = join(without, "cargo");
  assert.throws(() => find({ PATH: withWasm, OVERBRAINER_WASM_CARGO: named }, debian), (error) => {
    assert.match(error.message, new RegExp(`^OVERBRAINER_WASM_CARGO=${named} cannot build for wasm32-unknown-unknown`));
    assert.match(error.message, /rustc 1\.95\.0 \(fake rustup\): no .*rustup-plain\/sysroot\/lib\/rustlib\/wasm32-unknown-unknown/);
    assert.match(error.message, /rustup target add wasm32-unknown-unknown/);
    return true;
  });
  assert.throws(() => find({ PATH: withWasm, OVERBRAINER_WASM_CARGO: join(nothing, "cargo") }), /cannot build .*: not there/);
});

test("a cargo without a rustc beside it is judged by the PATH's rustc", () => {
  assert.equal(find({ PATH: `${lone}:${withWasm}` }).rustc, join(withWasm, "rustc"));
  assert.throws(() => find({ PATH: lone }), /lone-cargo\/bin\/cargo\): no rustc beside it nor on the PATH/);
});

test("a rustc that does not run is passed over, said why", () => {
  const found = find({ PATH: broken }, debian);
  assert.equal(found.source, "Debian");
  assert.throws(() => find({ PATH: broken }), /did not run: error: toolchain not installed/);
});

test("none with the target: each Rust tried and each way to get one", () => {
  assert.throws(() => find({ PATH: without }, debianPlain), (error) => {
    const lines = error.message.split("\n");
    assert.equal(lines[0], "no Rust here can build for wasm32-unknown-unknown:");
    assert.match(lines[1], /^ {2}the cargo on the PATH \(.*rustup-plain\/bin\/cargo\): rustc 1\.95\.0 \(fake rustup\): no /);
    assert.match(lines[2], /^ {2}Debian's .*debian-plain\/bin\/cargo: rustc 1\.63\.0: no .*wasm32-unknown-unknown$/);
    assert.equal(lines[3], "To get one:");
    assert.match(error.message, /rustup target add wasm32-unknown-unknown/);
    assert.match(error.message, /apt-get install rustc cargo libstd-rust-dev-wasm32/);
    assert.match(error.message, /OVERBRAINER_WASM_CARGO=/);
    return true;
  });
  assert.throws(() => find({ PATH: nothing }), (error) => {
    assert.match(error.message, /^ {2}the PATH: no cargo$/m);
    assert.match(error.message, /^ {2}Debian's .*nothing\/cargo: not installed$/m);
    return true;
  });
});

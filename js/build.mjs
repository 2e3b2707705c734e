#!/usr/bin/env node
// Builds the package into dist/: the reader core for WebAssembly (core/wasm, for
// wasm32-unknown-unknown, against the crates cargo is pointed at: Debian's packaged ones here,
// offline), then the glue and its declarations (tsc).
//
//   node build.mjs             the module and the glue
//   node build.mjs --no-wasm   the glue alone (dist/overbrainer_core.wasm kept)
//
// The Rust is the first with the wasm32 target of: OVERBRAINER_WASM_CARGO, the cargo on the PATH
// (rustup's), Debian's /usr/bin/cargo (find-cargo.mjs); the core keeps to Debian's 1.63, which
// `nox -s js` builds with. Symbols are stripped (`-C strip=symbols`, by every Rust since 1.59):
// the module is about 730 KB. Its target folder is core/target/wasm.

import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findCargo } from "./find-cargo.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const CORE = join(HERE, "..", "core");
const TARGET = join(CORE, "target", "wasm");
const DIST = join(HERE, "dist");
const WASM = join(DIST, "overbrainer_core.wasm");

mkdirSync(DIST, { recursive: true });
if (!process.argv.includes("--no-wasm")) {
  let rust;
  try {
    rust = findCargo({ cwd: join(CORE, "wasm") });
  } catch (error) {
    console.error(`build.mjs: ${error.message}`);
    process.exit(1);
  }
  const { cargo, rustc, version, source } = rust;
  console.log(`core/wasm: ${cargo} (${version}, from ${source})`);
  const args = ["build", "--release", "--quiet", "--target", "wasm32-unknown-unknown", "-p", "overbrainer-core-wasm"];
  const built = spawnSync(cargo, args, {
    cwd: join(CORE, "wasm"),
    stdio: "inherit",
    env: {
      ...process.env,
      PATH: `${dirname(rustc)}${delimiter}${process.env.PATH ?? ""}`,
      RUSTC: rustc,
      CARGO_TARGET_DIR: TARGET,
      // bulk memory: memcpy as `memory.copy` (without it a byte loop: an eighth of the time);
      // non-trapping float-to-int conversions. Both in every engine since 2021.
      RUSTFLAGS: "-C strip=symbols -C target-feature=+bulk-memory,+nontrapping-fptoint",
    },
  });
  if (built.status !== 0) {
    console.error(`build.mjs: ${cargo} ${args.join(" ")} failed (${built.error ?? `exit ${built.status ?? built.signal}`})`);
    process.exit(1);
  }
  copyFileSync(join(TARGET, "wasm32-unknown-unknown", "release", "overbrainer_core_wasm.wasm"), WASM);
  console.log(`dist/overbrainer_core.wasm: ${statSync(WASM).size} bytes`);
}
execFileSync(process.execPath, [join(HERE, "node_modules", "typescript", "bin", "tsc"), "-p", join(HERE, "tsconfig.json")], {
  stdio: "inherit",
});
console.log("dist/: index.js, core.js and their declarations");

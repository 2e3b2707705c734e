#!/usr/bin/env node
// Builds the package into dist/: the reader core for WebAssembly (core/wasm, by Debian's Rust
// 1.63 for wasm32-unknown-unknown, against the crates cargo is pointed at: Debian's packaged
// ones here, offline), then the glue and its declarations (tsc).
//
//   node build.mjs             the module and the glue
//   node build.mjs --no-wasm   the glue alone (dist/overbrainer_core.wasm kept)
//
// OVERBRAINER_WASM_CARGO names the cargo to build with (default /usr/bin/cargo, Debian's, with
// /usr/bin first on the PATH so that its rustc is the one used); symbols are stripped
// (`-C strip=symbols`): the module is about 240 KB. Its target folder is core/target/wasm.

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const CORE = join(HERE, "..", "core");
const TARGET = join(CORE, "target", "wasm");
const DIST = join(HERE, "dist");
const WASM = join(DIST, "overbrainer_core.wasm");

mkdirSync(DIST, { recursive: true });
if (!process.argv.includes("--no-wasm")) {
  const cargo = process.env.OVERBRAINER_WASM_CARGO ?? "/usr/bin/cargo";
  execFileSync(cargo, ["build", "--release", "--quiet", "--target", "wasm32-unknown-unknown", "-p", "overbrainer-core-wasm"], {
    cwd: join(CORE, "wasm"),
    stdio: "inherit",
    env: {
      ...process.env,
      PATH: `${dirname(cargo)}:${process.env.PATH ?? ""}`,
      CARGO_TARGET_DIR: TARGET,
      // bulk memory: memcpy as `memory.copy` (without it a byte loop: an eighth of the time);
      // non-trapping float-to-int conversions. Both in every engine since 2021.
      RUSTFLAGS: "-C strip=symbols -C target-feature=+bulk-memory,+nontrapping-fptoint",
    },
  });
  copyFileSync(join(TARGET, "wasm32-unknown-unknown", "release", "overbrainer_core_wasm.wasm"), WASM);
  console.log(`dist/overbrainer_core.wasm: ${statSync(WASM).size} bytes`);
}
execFileSync(process.execPath, [join(HERE, "node_modules", "typescript", "bin", "tsc"), "-p", join(HERE, "tsconfig.json")], {
  stdio: "inherit",
});
console.log("dist/: index.js, core.js and their declarations");

// What `npm pack` puts in the package's tarball, from the built package (`node build.mjs`
// first): exactly the glue, its declarations, the stripped .wasm, the contract's types, the
// README, the licence and package.json; every entry of "exports" in it.
//
//   node --test test/pack.test.mjs

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const JS = join(HERE, "..");
const WASM = join(JS, "dist", "overbrainer_core.wasm");
const TYPES = [
  "check-report",
  "check-total",
  "contract",
  "job-stage",
  "metrics-line",
  "snapshot-request",
  "snapshot",
  "status-report",
];
const SHIPPED = [
  "LICENSE",
  "README.md",
  "dist/core.d.ts",
  "dist/core.js",
  "dist/index.d.ts",
  "dist/index.js",
  "dist/names.d.ts",
  "dist/names.js",
  "dist/overbrainer_core.wasm",
  "dist/run.d.ts",
  "dist/run.js",
  "dist/worker.js",
  "package.json",
  ...TYPES.map((name) => `types/${name}.d.ts`),
].sort();

/** The tarball's files as `npm pack --dry-run` lists them (the build step left out: the package
 * is built already). */
function packed() {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const out = execFileSync(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: JS, encoding: "utf8" });
  const [pack] = JSON.parse(out);
  return pack.files.map((file) => file.path).sort();
}

test("the tarball holds exactly what ships", () => {
  assert.ok(existsSync(WASM), "no dist/overbrainer_core.wasm: node build.mjs first");
  assert.deepEqual(packed(), SHIPPED);
});

test("every module a shipped file imports is shipped too", () => {
  const files = packed();
  for (const file of files.filter((name) => /\.(js|d\.ts)$/.test(name))) {
    const text = readFileSync(join(JS, file), "utf8");
    for (const [, target] of text.matchAll(/\bfrom\s+"(\.{1,2}\/[^"]+)"/g)) {
      const path = join(dirname(file), target).replaceAll("\\", "/");
      const wanted = file.endsWith(".d.ts") ? path.replace(/\.js$/, ".d.ts") : path;
      assert.ok(files.includes(wanted), `${file} imports ${target}, which the tarball lacks`);
    }
  }
});

test("package.json's exports each name a shipped file", () => {
  const manifest = JSON.parse(readFileSync(join(JS, "package.json"), "utf8"));
  const targets = [];
  const walk = (value) => {
    if (typeof value === "string") targets.push(value);
    else for (const inner of Object.values(value)) walk(inner);
  };
  walk(manifest.exports);
  targets.push(manifest.main, manifest.types);
  for (const target of targets) {
    const path = target.replace(/^\.\//, "");
    if (path.includes("*")) {
      const pattern = new RegExp(`^${path.replaceAll(".", "\\.").replace("*", ".+")}$`);
      assert.ok(SHIPPED.some((file) => pattern.test(file)), `${target} matches no shipped file`);
    } else {
      assert.ok(SHIPPED.includes(path), `${target} is not shipped`);
    }
  }
  assert.equal(manifest.private, undefined, "a private package is not published");
  assert.equal(manifest.type, "module");
  assert.ok(manifest.scripts.prepack.includes("build.mjs"), "npm pack builds dist/ first");
});

test("the licence shipped is the project's", () => {
  assert.equal(readFileSync(join(JS, "LICENSE"), "utf8"), readFileSync(join(JS, "..", "LICENSE"), "utf8"));
});

test("the .wasm is stripped: no name section, no debug info", () => {
  assert.ok(existsSync(WASM), "no dist/overbrainer_core.wasm: node build.mjs first");
  const bytes = readFileSync(WASM);
  assert.ok(WebAssembly.validate(bytes));
  const custom = [];
  let at = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 0) {
      const length = leb();
      custom.push(bytes.subarray(at, at + length).toString());
    }
    at = end;
  }
  const kept = custom.filter((name) => name === "name" || name.startsWith(".debug"));
  assert.deepEqual(kept, [], `custom sections: ${custom.join(", ")}`);
});

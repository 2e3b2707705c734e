// The module's memory grows by an eighth of its size at least (core/wasm/src/room.rs), not
// by the 64 KiB pages the standard allocator asks for: an engine pays for every growth (V8
// collects garbage past a few tens of MB), so a memory grown page by page to the hundreds of
// MB a page of many runs holds costs time quadratic in its size.
//
//   node --test test/memory.test.mjs          (after `node build.mjs`)

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const WASM = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "overbrainer_core.wasm");

test("the module's memory grows by an eighth, not a page at a time, past 16 MiB", async () => {
  const { instance } = await WebAssembly.instantiate(await readFile(WASM), {});
  const ex = instance.exports;
  // Runs' statuses, each with its digests (the many small allocations a page of runs makes),
  // made through the module's own edge (js/src/run.ts calls it so), until the memory passes
  // 64 MiB.
  const lines = [];
  for (let step = 1; step <= 300; step++) {
    lines.push(`{"event":"log","step":${step},"time":${1733000000 + step},"loss":${2.5 - step / 300},"learning_rate":0.0001}`);
  }
  const body = new TextEncoder().encode(`${lines.join("\n")}\n`);
  let buffer = ex.memory.buffer;
  const sizes = [];
  for (let runs = 0; buffer.byteLength <= 64 << 20 && runs < 100_000; runs++) {
    const id = ex.ob_status_new(1, 0, 0, 512, 0, 0n, 0n, 0, 0, 0, 0, 0, 0);
    const at = ex.ob_input(body.length) >>> 0;
    new Uint8Array(ex.memory.buffer, at, body.length).set(body);
    assert.equal(ex.ob_status_feed(id, body.length), 1); // fed (2: gzip data)
    if (ex.memory.buffer !== buffer) {
      buffer = ex.memory.buffer;
      sizes.push(buffer.byteLength);
    }
  }
  assert.ok(buffer.byteLength > 64 << 20);
  // Up to 16 MiB the memory grows as asked (256 pages at most); from there on each growth
  // adds an eighth of the size at least: 16 MiB * 1.125^12 > 64 MiB, a dozen growths.
  const past = sizes.filter((size) => size > 16 << 20);
  assert.ok(past.length <= 13, `${past.length} growths past 16 MiB: a page at a time`);
  for (let i = 1; i < past.length; i++) {
    assert.ok(past[i] >= past[i - 1] * 1.125, `grew from ${past[i - 1]} to ${past[i]} bytes`);
  }
  assert.ok(sizes.length <= 256 + 13, `${sizes.length} growths to 64 MiB`);
});

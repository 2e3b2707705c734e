// The npm package's status of a run folder against the command line's: for every case of
// the run-level golden suite (tests/conformance/runs/), `status(bytes, {now, name,
// snapshot, request})` of the case's run folder equals what `overbrainer-contract status
// -o json --now NOW run` writes for a copy of that folder whose side files were given the
// manifest's times (the installed command line, a child process): the snapshot state, the
// record's validity and every other field, value for value. The command is found as
// OVERBRAINER_CONTRACT_CLI names it, else on PATH.
//
//   node --test test/runs-cli.test.mjs

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { status } from "../dist/index.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const SUITE = join(HERE, "..", "..", "tests", "conformance", "runs");
const CLI = process.env.OVERBRAINER_CONTRACT_CLI ?? "overbrainer-contract";
const manifest = JSON.parse(readFileSync(join(SUITE, "manifest.json"), "utf8"));

/** A copy of the case's folder in a temporary folder, its side files given their times. */
function placed(item) {
  const into = mkdtempSync(join(tmpdir(), "runs-cli-"));
  cpSync(join(SUITE, item.name), into, { recursive: true });
  for (const [path, seconds] of Object.entries(item.mtimes)) utimesSync(join(into, path), seconds, seconds);
  return into;
}

/** What the command line writes for `run` in `folder`: its exit status and its object. */
function told(item, folder) {
  const done = spawnSync(CLI, ["status", "-o", "json", "--now", String(item.now), "run"], {
    cwd: folder,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 60_000,
  });
  if (done.error) throw new Error(`${CLI} could not be run (${done.error.message}): install the package, or name it in OVERBRAINER_CONTRACT_CLI`);
  return { code: done.status, record: done.stdout === "" ? null : JSON.parse(done.stdout) };
}

/** The package's status of the run folder in `folder`, from the files there as read. */
async function package_(item, folder) {
  const run = join(folder, "run");
  const gz = join(run, "metrics.jsonl.gz");
  const bytes = existsSync(gz) ? gunzipSync(readFileSync(gz)) : readFileSync(join(run, "metrics.jsonl"));
  const side = (file) => {
    const path = join(run, file);
    return existsSync(path) ? { bytes: readFileSync(path), mtime: item.mtimes[`run/${file}`] } : undefined;
  };
  const options = { now: item.now, name: "run", snapshot: side("snapshot.json"), request: side("snapshot.request") };
  return status(bytes, options).catch((error) => ({ refused: String(error) }));
}

for (const item of manifest.cases) {
  test(`${item.name}: the package's status of the run folder is the command line's`, async () => {
    const folder = placed(item);
    try {
      const { code, record } = told(item, folder);
      const made = await package_(item, folder);
      if (record === null) {
        // gzip data where lines should be: no run is read, by either
        assert.equal(code, 1);
        assert.match(made.refused ?? "", /gzip/);
        return;
      }
      assert.deepEqual(made, record);
      assert.equal(code, record.valid ? 0 : 1);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
}

test("the suite has its cases, side files among them", () => {
  assert.ok(manifest.cases.length >= 20);
  assert.ok(manifest.cases.filter((item) => Object.keys(item.mtimes).length > 0).length >= 6);
});

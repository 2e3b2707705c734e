#!/usr/bin/env node
// The run-level golden suite (tests/conformance/runs/, its README) through the npm package:
// each case's metrics file as bytes alone (the `stdin` variant, named `-`), checked by
// `check(bytes)` and told by `status(bytes, {now})`; and each case's run folder (the
// `folder` variant, named `run`) told by `status(bytes, {now, name, snapshot, request})`,
// its side files given as read, with the manifest's `mtimes`. The records are compared with
// the expectations value by value (numbers as doubles, records in order). Prints `N passed,
// N failed`; exit status 0 when nothing failed. And each status's words (`screen`, `cells`)
// against the case's view (`<variant>.view.json`). A changed expectation must be found: the
// comparison is run once more on a copy with one field changed, and must fail.
//
//   node test/runs.mjs [SUITE_DIR]

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { gunzipSync } from "node:zlib";
import { cells, check, screen, status } from "../dist/index.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const SUITE = process.argv[2] ?? join(HERE, "..", "..", "tests", "conformance", "runs");

/** Where `got` differs from `expected`, as JSON values (numbers as doubles). */
function differences(at, got, expected, out) {
  if (typeof expected === "number" || typeof got === "number") {
    if (!(typeof got === "number" && typeof expected === "number" && Object.is(got, expected))) {
      out.push(`${at}: ${JSON.stringify(got)} where ${JSON.stringify(expected)} is expected`);
    }
  } else if (Array.isArray(expected) && Array.isArray(got)) {
    if (got.length !== expected.length) out.push(`${at}: ${got.length} items where ${expected.length} are expected`);
    expected.forEach((value, index) => index < got.length && differences(`${at}[${index}]`, got[index], value, out));
  } else if (expected !== null && typeof expected === "object" && got !== null && typeof got === "object" && !Array.isArray(got)) {
    for (const key of Object.keys(expected)) {
      if (key in got) differences(`${at}.${key}`, got[key], expected[key], out);
      else out.push(`${at}.${key}: missing`);
    }
    for (const key of Object.keys(got)) if (!(key in expected)) out.push(`${at}.${key}: not expected`);
  } else if (!isDeepStrictEqual(got, expected)) {
    out.push(`${at}: ${JSON.stringify(got)} where ${JSON.stringify(expected)} is expected`);
  }
}

const jsonLines = (path) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));

/** What the package says of one case, against its `stdin` expectations. */
async function caseProblems(item) {
  const folder = join(SUITE, item.name);
  const run = item.runs.find((each) => each.variant === "stdin");
  const bytes = readFileSync(join(folder, run.stdin));
  const problems = [];
  const found = await check(bytes, { maxFindings: Infinity });
  differences(`${item.name} check`, found, jsonLines(join(folder, run.check.expect)), problems);
  if (run.status.expect === null) {
    // No run is read (gzip data where lines should be): `status` refuses it.
    const refused = await status(bytes, { now: item.now }).then(
      () => false,
      (error) => error instanceof Error && /gzip/.test(error.message),
    );
    if (!refused) problems.push(`${item.name} status: expected a refusal`);
  } else {
    const report = await status(bytes, { now: item.now });
    differences(`${item.name} status`, report, JSON.parse(readFileSync(join(folder, run.status.expect), "utf8")), problems);
  }
  problems.push(...(await folderProblems(item, folder)));
  return problems;
}

/** A case's run folder as `status run` reads it: its metrics file's bytes (a `.gz`
 * decompressed here, as `status` does before its lines are read; the record is named
 * `run`, not by the file) and its side files as read, each with the manifest's time. */
function folderInput(item, folder) {
  const run = join(folder, "run");
  const gz = join(run, "metrics.jsonl.gz");
  const bytes = existsSync(gz) ? gunzipSync(readFileSync(gz)) : readFileSync(join(run, "metrics.jsonl"));
  const side = (file) => {
    const path = join(run, file);
    if (!existsSync(path)) return undefined;
    return { bytes: readFileSync(path), mtime: item.mtimes[`run/${file}`] };
  };
  return { bytes, options: { now: item.now, name: "run", snapshot: side("snapshot.json"), request: side("snapshot.request") } };
}

/** What the package says of one case's run folder, against its `folder` status. */
async function folderProblems(item, folder) {
  const run = item.runs.find((each) => each.variant === "folder");
  const problems = [];
  const { bytes, options } = folderInput(item, folder);
  if (run.status.expect === null) {
    const refused = await status(bytes, options).then(
      () => false,
      (error) => error instanceof Error && /gzip/.test(error.message),
    );
    if (!refused) problems.push(`${item.name} folder status: expected a refusal`);
  } else {
    const report = await status(bytes, options);
    const expected = JSON.parse(readFileSync(join(folder, run.status.expect), "utf8"));
    differences(`${item.name} folder status`, report, expected, problems);
  }
  return problems;
}

/** The words of each status of a case (`<variant>.view.json`): `screen(record)` and
 * `cells(record)` of the package's own record of the `stdin` bytes and of the run folder,
 * and of the expected record of a `file` run (a metrics file named alone), against the rows
 * and cells the suite reasons from the record. */
async function viewProblems(item) {
  const folder = join(SUITE, item.name);
  const problems = [];
  for (const run of item.runs) {
    if (run.view === undefined) continue;
    const want = JSON.parse(readFileSync(join(folder, run.view.expect), "utf8"));
    let record;
    if (run.variant === "stdin") record = await status(readFileSync(join(folder, run.stdin)), { now: item.now });
    else if (run.variant === "folder") {
      const { bytes, options } = folderInput(item, folder);
      record = await status(bytes, options);
    } else record = JSON.parse(readFileSync(join(folder, run.status.expect), "utf8"));
    differences(`${item.name} ${run.variant} screen`, screen(record), want.screen, problems);
    differences(`${item.name} ${run.variant} cells`, cells(record), want.cells, problems);
  }
  return problems;
}

const manifest = JSON.parse(readFileSync(join(SUITE, "manifest.json"), "utf8"));
let passed = 0;
const failed = [];
for (const item of manifest.cases) {
  const problems = [...(await caseProblems(item)), ...(await viewProblems(item))];
  if (problems.length === 0) passed += 1;
  else failed.push(...problems);
}

// The comparison finds one changed field: a column, a message, an ETA.
const sample = { type: "finding", line: 2, column: 27, message: "EOF", eta: 1.5 };
for (const [key, value] of [["column", 28], ["message", "EOF "], ["eta", 1.5000000000000002]]) {
  const out = [];
  differences("$", sample, { ...sample, [key]: value }, out);
  if (out.length !== 1) failed.push(`a change of ${key} is not found: ${JSON.stringify(out)}`);
}
const none = [];
differences("$", sample, { ...sample }, none);
if (none.length !== 0) failed.push(`an unchanged record differs: ${JSON.stringify(none)}`);

for (const problem of failed) console.log(`FAIL ${problem}`);
console.log(`${passed} passed, ${manifest.cases.length - passed} failed (run-level suite, npm package)`);
if (manifest.cases.length < 20) {
  console.log(`only ${manifest.cases.length} cases`);
  process.exit(1);
}
process.exit(failed.length === 0 ? 0 : 1);

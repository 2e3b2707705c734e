// `check()` returns a bounded array: at most `maxFindings` findings of each severity (20 by
// default, as `overbrainer-contract check` prints), then the file's summary, which counts every
// finding; `checkRecords` gives them all. A gzip of a few KiB that holds millions of blank lines
// (each an error) is checked by a Node whose heap is 64 MiB: holding every finding would need
// hundreds of MiB and abort it.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { check, checkRecords } from "../dist/index.js";

/** Blank lines in the gzip: each a finding (`EOF while parsing a value`) of about 150 bytes as
 * a JavaScript object, some 600 MB if all were kept. */
const BLANK = 4_000_000;

/** What `check()` makes of each severity unless asked: the core's `SHOWN_DEFAULT`, the
 * command line's default `--max-errors`. */
const DEFAULT = 20;

const INDEX = new URL("../dist/index.js", import.meta.url).href;

it("checks a gzip of millions of blank lines in a 64 MiB heap, its summary counting them all", async () => {
  const folder = mkdtempSync(join(tmpdir(), "check-bound-"));
  try {
    const file = join(folder, "blank.jsonl.gz");
    writeFileSync(file, gzipSync(Buffer.alloc(BLANK, 0x0a)));
    const script = `
      import { readFileSync } from "node:fs";
      import { check } from ${JSON.stringify(INDEX)};
      const records = await check(readFileSync(${JSON.stringify(file)}), { name: "blank.jsonl.gz" });
      process.stdout.write(JSON.stringify(records));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--max-old-space-size=64", "--input-type=module", "-e", script], {
      timeout: 120_000,
      maxBuffer: 1 << 20,
    });
    const records = JSON.parse(stdout);
    const findings = records.slice(0, -1);
    const file_ = records.at(-1);
    assert.equal(findings.length, DEFAULT);
    assert.deepEqual(
      findings.map((finding) => [finding.type, finding.severity, finding.line]),
      Array.from({ length: DEFAULT }, (_, at) => ["finding", "error", at + 1]),
    );
    assert.equal(file_.type, "file");
    assert.equal(file_.lines, BLANK);
    assert.equal(file_.errors, BLANK);
    assert.equal(file_.warnings, 0);
    assert.equal(file_.valid, false);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

// A begin, four logs whose steps go back three times (three warnings), five blank lines (five
// errors).
const log = (step) => `{"event":"log","time":${step},"step":${step},"epoch":0.1,"max_steps":10,"loss":1.0,"eval_loss":null,"learning_rate":0.1,"grad_norm":1.0}\n`;
const MIXED = new TextEncoder().encode(`{"event":"begin","time":1,"max_steps":10}\n${[5, 4, 3, 2].map(log).join("")}${"\n".repeat(5)}`);

const counted = (records) => {
  const findings = records.slice(0, -1);
  const of = (severity) => findings.filter((finding) => finding.severity === severity).length;
  const file = records.at(-1);
  return { errors: of("error"), warnings: of("warning"), summary: [file.type, file.errors, file.warnings] };
};

it("makes at most maxFindings of each severity, the summary counting them all", async () => {
  const summary = ["file", 5, 3];
  assert.deepEqual(counted(await check(MIXED)), { errors: 5, warnings: 3, summary });
  assert.deepEqual(counted(await check(MIXED, { maxFindings: 2 })), { errors: 2, warnings: 2, summary });
  assert.deepEqual(counted(await check(MIXED, { maxFindings: 0 })), { errors: 0, warnings: 0, summary });
  assert.deepEqual(counted(await check(MIXED, { maxFindings: Infinity })), { errors: 5, warnings: 3, summary });
  // the findings kept are the first of each severity, in the file's order
  const two = (await check(MIXED, { maxFindings: 2 })).slice(0, -1).map((finding) => [finding.severity, finding.line]);
  assert.deepEqual(two, [["warning", 3], ["warning", 4], ["error", 6], ["error", 7]]);
});

it("makes 20 of each by default in check(), all in checkRecords()", async () => {
  const many = new TextEncoder().encode("\n".repeat(DEFAULT + 5));
  assert.deepEqual(counted(await check(many)), { errors: DEFAULT, warnings: 0, summary: ["file", DEFAULT + 5, 0] });
  const batches = [];
  for await (const batch of checkRecords(many)) batches.push(...batch);
  assert.deepEqual(counted(batches), { errors: DEFAULT + 5, warnings: 0, summary: ["file", DEFAULT + 5, 0] });
  const some = [];
  for await (const batch of checkRecords(many, { maxFindings: 1 })) some.push(...batch);
  assert.deepEqual(counted(some), { errors: 1, warnings: 0, summary: ["file", DEFAULT + 5, 0] });
});

it("refuses a maxFindings that is not a count", async () => {
  for (const wrong of [-1, 1.5, Number.NaN, "3"]) {
    await assert.rejects(check(MIXED, { maxFindings: wrong }), TypeError);
  }
});

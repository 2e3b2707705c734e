#!/usr/bin/env node
// The JSON path of a rejected line's value at fault, through the package: the core's path,
// the same string Python's `parse_line` gives (tests/test_json_paths.py reads the same cases,
// tests/json_paths.json). Keys holding code points that the JavaScript engine's Unicode
// version and the core's tables class otherwise are among the cases: the path is the core's.
// Each line read as a string, as its UTF-8 bytes, and by the whole-file `Reader`.
//
//   node test/paths.mjs [CASES_FILE]
//
// Prints `N cases: N passed, N failed`; exit status 1 on any failure.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ParseError, parseLine, Reader } from "overbrainer-contract";

const HERE = dirname(fileURLToPath(import.meta.url));
const FILE = process.argv[2] ?? join(HERE, "..", "..", "tests", "json_paths.json");
const { cases } = JSON.parse(readFileSync(FILE, "utf8"));
const encoder = new TextEncoder();

/** The path of the ParseError `parseLine` throws, or how it answered otherwise. */
function pathOf(line) {
  try {
    return `accepted: ${JSON.stringify(parseLine(line))}`;
  } catch (error) {
    return error instanceof ParseError ? error.path : `raised ${error}`;
  }
}

const reader = new Reader();
const body = encoder.encode(cases.map((each) => `${each.line}\n`).join(""));
const fromReader = [...reader.feed(body), ...reader.finish()].map((answer) =>
  answer.kind === "error" ? answer.error.path : `answered ${answer.kind}`,
);

let failed = 0;
cases.forEach((each, index) => {
  const got = { string: pathOf(each.line), bytes: pathOf(encoder.encode(each.line)), reader: fromReader[index] };
  for (const [how, path] of Object.entries(got)) {
    if (path !== each.path) {
      failed += 1;
      console.log(`FAIL ${each.what} (${how}): ${JSON.stringify(path)}, expected ${JSON.stringify(each.path)}`);
    }
  }
});
if (fromReader.length !== cases.length) {
  failed += 1;
  console.log(`FAIL the Reader answered ${fromReader.length} lines for ${cases.length}`);
}
console.log(`${cases.length} cases: ${cases.length * 3 - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

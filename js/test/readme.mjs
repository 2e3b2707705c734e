#!/usr/bin/env node
// Every ```js example of the project's README, run against the package as a user installs it.
//
//   node readme.mjs README.md    (in a folder where `overbrainer-contract` is installed and
//                                 `examples/` holds the example runs)
//
// Each block is written beside this folder's node_modules as `readme-<line>.mjs` and run by
// node; a block that throws, or that prints nothing, fails. Exit status: 0 when all ran.

import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const text = readFileSync(process.argv[2], "utf8");
const fence = /^```js\n([\s\S]*?)^```\n/gm;
let count = 0;
let failed = 0;
for (const match of text.matchAll(fence)) {
  const line = text.slice(0, match.index).split("\n").length;
  const file = `readme-${line}.mjs`;
  writeFileSync(file, match[1]);
  const done = spawnSync(process.execPath, [file], { encoding: "utf8" });
  count += 1;
  if (done.status !== 0 || done.stdout.trim() === "") {
    failed += 1;
    console.error(`README line ${line}: exit ${done.status}\n${done.stdout}${done.stderr}`);
  } else {
    console.log(`README line ${line}: ran\n${done.stdout}`);
  }
}
if (count === 0) {
  console.error("no ```js block in the README");
  process.exit(1);
}
console.log(`${count - failed} of ${count} README examples ran`);
process.exit(failed ? 1 : 0);

#!/usr/bin/env node
// Every ```js example of the project's pages (the README, docs/*.md, js/README.md), run against
// the package as a user installs it.
//
//   node readme.mjs PAGE...    (in a folder where `overbrainer-contract` is installed and
//                               `examples/` holds the example runs)
//
// Each block is written beside this folder's node_modules as `readme-<n>.mjs` and run by node (a
// block whose first line is a `// CommonJS` comment as `readme-<n>.cjs`, a CommonJS module); a
// block that throws, or that prints nothing, fails. A page without a ```js block is passed
// over; no block in any page fails. Exit status: 0 when all ran.

import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const fence = /^```js\n([\s\S]*?)^```\n/gm;
let count = 0;
let failed = 0;
for (const page of process.argv.slice(2)) {
  const text = readFileSync(page, "utf8");
  for (const match of text.matchAll(fence)) {
    const line = text.slice(0, match.index).split("\n").length;
    const file = `readme-${count + 1}.${match[1].startsWith("// CommonJS") ? "cjs" : "mjs"}`;
    writeFileSync(file, match[1]);
    const done = spawnSync(process.execPath, [file], { encoding: "utf8" });
    count += 1;
    if (done.status !== 0 || done.stdout.trim() === "") {
      failed += 1;
      console.error(`${page} line ${line}: exit ${done.status}\n${done.stdout}${done.stderr}`);
    } else {
      console.log(`${page} line ${line}: ran\n${done.stdout}`);
    }
  }
}
if (count === 0) {
  console.error("no ```js block in any page");
  process.exit(1);
}
console.log(`${count - failed} of ${count} examples ran`);
process.exit(failed ? 1 : 0);

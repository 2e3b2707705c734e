#!/usr/bin/env node
// The npm package's whole-file reader as a process, the benchmark's counterpart of the reference
// runner's `count FILE` (benchmarks/js.py): the file read, every line answered by `readLines`
// (the reader core as WebAssembly: no call across the boundary per line), each answer's typed
// line or ParseError made in JavaScript, and only the counts printed (`lines ok errors`), as
// `count` prints them.
//
//   node benchmarks/js_reader.mjs FILE [THREADS [PACKAGE]]
//
// THREADS: `readLines`'s `threads` option (default: the package's own default, the machine's
// parallelism for a file of 16 MiB and more); PACKAGE: the package's main module (default:
// js/dist/index.js beside this).

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [file, threads, entry] = process.argv.slice(2);
const where = entry ? pathToFileURL(entry).href : new URL("../js/dist/index.js", import.meta.url).href;
const { readLines } = await import(where);

const data = readFileSync(file);
let ok = 0;
let errors = 0;
const options = threads && threads !== "default" ? { threads: Number(threads) } : {};
for await (const batch of readLines(data, options)) {
  for (const answer of batch) {
    if (answer.kind === "line") ok += 1;
    else errors += 1;
  }
}
console.log(`${ok + errors} ${ok} ${errors}`);

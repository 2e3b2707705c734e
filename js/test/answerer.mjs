#!/usr/bin/env node
// The package as an answerer over a pipe, as the reference runner's `frames` mode is
// (conformance/rust/src/main.rs), for the differential fuzzing (tests/reference/test_fuzz.py).
//
// Each request is a header line, `LENGTH MODE [CUTS]`, then LENGTH bytes:
//
// - `b`: the bytes are one line, given to `parseLine` as a Uint8Array;
// - `s`: the bytes are a JSON string (ASCII, escapes for anything else: a lone surrogate
//   included), given to `parseLine` as the JavaScript string it reads to;
// - `f`: the bytes are a whole file, fed to a `Reader` in chunks cut at CUTS (comma-separated
//   offsets, or `-` for none), then finished;
// - `r`: the bytes are a whole metrics file, named `-`: its `check` records and its `status`
//   at NOW (the third field, seconds), or `{"refused": message}` where `status` refuses it.
//
// Each reply is one JSON line: for `b` and `s` one answer, for `f` an array of answers, each
// with its `line` and `complete`. An answer is the runner's: `{"ok":true,"dump","mark","pace"}`
// (the pace of a fresh `Pace` fed the line when it is a log) plus `values` (each field of the
// variant in order: a float as the 16 hex digits of its bits, little-endian, a count as its
// decimal digits, a stage's name, null) and `event`; or `{"ok":false,"category","message"}`,
// `message` with serde_json's position (" at line L column C", from the error's byte column)
// as the runner writes it, plus the bare `bare`, `column` and `path`; `{"ok":null,"raised"}`
// when anything but a ParseError was thrown; for `f` also `{"over": [size, limit]}`.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { check, dumpLine, mark, Pace, ParseError, parseLine, Reader, status } from "overbrainer-contract";
import { splitter } from "./extras.mjs";

const encoder = new TextEncoder();

function exact(value) {
  if (typeof value === "number") {
    const bytes = new Uint8Array(new Float64Array([value]).buffer);
    return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  if (typeof value === "bigint") return String(value);
  return value;
}

const counts = new Set(["step", "max_steps", "total"]);
/** A line split into the reference's value and the fields it does not know (`scalars`). */
const split = splitter(join(dirname(fileURLToPath(import.meta.url)), "..", "..", "schema", "metrics-line.schema.json"));

/** serde_json's " at line L column C" for a byte column in `data`. */
function position(data, column) {
  if (column === null) return "";
  if (data === null) return ` at line 1 column ${column}`; // a line of a file: no newline in it
  let line = 1;
  let start = 0;
  for (let at = 0; at < column && at < data.length; at += 1) {
    if (data[at] === 0x0a) {
      line += 1;
      start = at + 1;
    }
  }
  return ` at line ${line} column ${column - start}`;
}

/** JSON text of a reply, a bigint written as the integer literal it is. */
function json(value) {
  const text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `\u0000bigint:${v}` : v));
  return text.replace(/"\\u0000bigint:([0-9]+)"/g, "$1");
}

function accepted(value) {
  const pace = new Pace();
  if (value.event === "log") pace.add(value);
  const eta = pace.eta();
  const values = Object.entries(split(value)[0])
    .slice(1)
    .map(([name, field]) => (field === null || typeof field === "string" ? field : counts.has(name) ? String(field) : exact(field)));
  return {
    ok: true,
    event: value.event,
    values,
    dump: dumpLine(value),
    mark: mark(value),
    pace: { step: pace.step, max_steps: pace.maxSteps, eta: eta === null ? null : { secs: eta.secs, nanos: eta.nanos } },
  };
}

function rejected(error, data) {
  return {
    ok: false,
    category: error.category,
    bare: error.message,
    message: error.message + position(data, error.column),
    column: error.column,
    path: error.path,
  };
}

function answerLine(input, data) {
  try {
    return accepted(parseLine(input));
  } catch (error) {
    if (error instanceof ParseError) return rejected(error, data);
    return { ok: null, raised: String(error && error.stack ? error.stack : error) };
  }
}

function answerFile(data, cuts) {
  try {
    const reader = new Reader();
    const bounds = [0, ...cuts, data.length];
    const answers = [];
    for (let i = 0; i + 1 < bounds.length; i += 1) answers.push(...reader.feed(data.subarray(bounds[i], bounds[i + 1])));
    answers.push(...reader.finish());
    return answers.map((answer) => {
      const head = { line: answer.line, complete: answer.complete };
      if (answer.kind === "line") return { ...head, ...accepted(answer.value) };
      if (answer.kind === "over") return { ...head, over: [answer.size, answer.limit] };
      return { ...head, ...rejected(answer.error, null) };
    });
  } catch (error) {
    return { ok: null, raised: String(error && error.stack ? error.stack : error) };
  }
}

/** The run-level records of a whole file (`r`). */
async function answerRun(data, now) {
  const records = await check(data, { maxFindings: Infinity });
  const told = await status(data, { now }).catch((error) => ({ refused: String(error.message) }));
  return { check: records, status: told };
}

/** The requests of standard input, answered as they come. */
async function main() {
  let pending = Buffer.alloc(0);
  const out = [];
  const flush = () => {
    if (out.length > 0) process.stdout.write(out.splice(0).join(""));
  };
  for await (const chunk of process.stdin) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const newline = pending.indexOf(0x0a);
      if (newline < 0) break;
      const [length, mode, cuts] = pending.subarray(0, newline).toString("latin1").split(" ");
      const size = Number(length);
      if (pending.length < newline + 1 + size) break;
      const data = new Uint8Array(pending.subarray(newline + 1, newline + 1 + size));
      pending = pending.subarray(newline + 1 + size);
      let reply;
      if (mode === "b") reply = answerLine(data, data);
      else if (mode === "s") {
        const text = JSON.parse(Buffer.from(data).toString("latin1"));
        reply = answerLine(text, encoder.encode(text));
      } else if (mode === "f") reply = answerFile(data, cuts === undefined || cuts === "-" ? [] : cuts.split(",").map(Number));
      else if (mode === "r") reply = await answerRun(data, Number(cuts));
      else throw new Error(`bad frame header ${JSON.stringify(pending.subarray(0, newline).toString())}`);
      out.push(`${json(reply)}\n`);
    }
    flush();
  }
}

await main();

#!/usr/bin/env node
// The whole golden conformance suite (tests/conformance/manifest.json) through the package: every
// expectation of every line, the bignum lines included (a u64 beyond 2^53 is a bigint here):
//
// - the verdict; for a rejected line its category, and a ParseError thrown (nothing else);
// - for an accepted line: its value (every field of the variant, in order, floats compared with
//   Object.is: -0 is not 0; counts exactly), `dumpLine` byte for byte, `mark`;
// - the pace after each line (`step`, `maxSteps`, `eta()` to the nanosecond) where the suite has it;
// - each line read as a string and as its UTF-8 bytes; and each whole input file read by the
//   whole-file readers (`Reader` fed chunks cut at every few bytes, `readLines` of the bytes, by
//   one thread and by several, and of a ReadableStream): the same answer for every line as `parseLine`'s.
//
// The expectation files are read with a JSON reader that keeps integers beyond 2^53 exact (as
// bigints), so that nothing is compared after rounding.
//
//   node test/golden.mjs [CONFORMANCE_DIR] [--verbose]
//
// Prints `N lines: N passed, N failed (B bignum lines among them)`; exit status 1 on any failure.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dumpLine, mark, Pace, ParseError, parseLine, readLines, Reader } from "overbrainer-contract";
import { splitter } from "./extras.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const VERBOSE = args.includes("--verbose");
const CONFORMANCE = args.find((arg) => !arg.startsWith("--")) ?? join(HERE, "..", "..", "tests", "conformance");

/** JSON text read with every integer literal beyond 2^53 - 1 as a bigint, every other number
 * as JSON.parse reads it (so `-0.0` is -0). */
export function exactJson(text) {
  let at = 0;
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at])) at += 1;
  };
  const fail = (what) => {
    throw new SyntaxError(`${what} at ${at}`);
  };
  const value = () => {
    space();
    const c = text[at];
    if (c === "{") {
      at += 1;
      const out = {};
      space();
      if (text[at] === "}") {
        at += 1;
        return out;
      }
      for (;;) {
        space();
        const key = value();
        if (typeof key !== "string") fail("a key");
        space();
        if (text[at++] !== ":") fail("':'");
        out[key] = value();
        space();
        const next = text[at++];
        if (next === "}") return out;
        if (next !== ",") fail("',' or '}'");
      }
    }
    if (c === "[") {
      at += 1;
      const out = [];
      space();
      if (text[at] === "]") {
        at += 1;
        return out;
      }
      for (;;) {
        out.push(value());
        space();
        const next = text[at++];
        if (next === "]") return out;
        if (next !== ",") fail("',' or ']'");
      }
    }
    if (c === '"') {
      const start = at;
      at += 1;
      while (text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
      at += 1;
      return JSON.parse(text.slice(start, at));
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/.exec(text.slice(at, at + 400));
    if (literal === null) fail("a value");
    at += literal[0].length;
    const word = literal[0];
    if (/^-?[0-9]+$/.test(word) && !Number.isSafeInteger(Number(word))) return BigInt(word);
    return JSON.parse(word);
  };
  const found = value();
  space();
  if (at !== text.length) fail("the end");
  return found;
}

/** Two values the same: numbers by Object.is (-0 apart from 0), bigints by value, objects
 * key for key in the same order, arrays item for item. */
function same(a, b) {
  if (typeof a === "number" || typeof b === "number") return Object.is(a, b);
  if (typeof a === "bigint" || typeof b === "bigint") return a === b;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((key, i) => key === kb[i] && same(a[key], b[key]));
}

const show = (value) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : Object.is(v, -0) ? "-0" : v));

/** The lines of an input file, as the suite's README says: split on "\n", the last piece dropped. */
function inputLines(text) {
  if (!text.endsWith("\n")) throw new Error("an input file ends with a newline");
  return text.slice(0, -1).split("\n");
}

/** A line split into the reference's value and the fields it does not know (`scalars`). */
const split = splitter(join(CONFORMANCE, "..", "..", "schema", "metrics-line.schema.json"));

/** What parseLine answers, as a comparable object: {ok, value} or {ok: false, error}. */
function answerOf(line) {
  try {
    return { ok: true, value: parseLine(line) };
  } catch (error) {
    if (!(error instanceof ParseError)) return { ok: null, raised: String(error) };
    return { ok: false, error };
  }
}

/** How an answer differs from the line's expectation (empty: not at all). */
function problems(answer, expected) {
  if (answer.ok === null) return [`raised ${answer.raised}, not a ParseError`];
  if (answer.ok !== expected.ok) {
    return [`verdict: ${answer.ok ? show(answer.value) : String(answer.error)}, expected ok=${expected.ok}`];
  }
  if (!expected.ok) {
    return answer.error.category === expected.category ? [] : [`category ${answer.error.category} (${answer.error}), expected ${expected.category}`];
  }
  const wrong = [];
  const [value, extra] = split(answer.value);
  if (!same(value, expected.value)) wrong.push(`value ${show(value)}, expected ${show(expected.value)}`);
  const wanted = expected.scalars ? { [expected.scalars.field]: expected.scalars.value } : {};
  if (!same(extra, wanted)) wrong.push(`scalars ${show(extra)}, expected ${show(wanted)}`);
  const dump = dumpLine(answer.value);
  if (dump !== expected.dump) wrong.push(`dump ${dump}, expected ${expected.dump}`);
  if (!same(exactJson(dump), expected.value)) wrong.push(`dump ${dump} reads back otherwise than ${show(expected.value)}`);
  if (!same(mark(answer.value), expected.mark)) wrong.push(`mark ${show(mark(answer.value))}, expected ${show(expected.mark)}`);
  return wrong;
}

/** The same answer (a whole-file reader's against parseLine's). */
function sameAnswer(fromReader, fromLine) {
  if (fromReader.kind === "line") return fromLine.ok === true && same(fromReader.value, fromLine.value);
  if (fromReader.kind !== "error" || fromLine.ok !== false) return false;
  const [a, b] = [fromReader.error, fromLine.error];
  return a instanceof ParseError && a.category === b.category && a.message === b.message && a.column === b.column && a.path === b.path;
}

async function wholeFile(bytes, lineAnswers) {
  const wrong = [];
  const check = (name, answers) => {
    if (answers.length !== lineAnswers.length) {
      wrong.push(`${name}: ${answers.length} answers for ${lineAnswers.length} lines`);
      return;
    }
    answers.forEach((answer, i) => {
      if (answer.line !== i + 1 || !answer.complete || !sameAnswer(answer, lineAnswers[i])) {
        wrong.push(`${name}, line ${i + 1}: ${show(answer)} is not parseLine's answer`);
      }
    });
  };
  for (const step of [1, 7, 64, bytes.length]) {
    const reader = new Reader();
    const answers = [];
    for (let at = 0; at < bytes.length; at += step) answers.push(...reader.feed(bytes.subarray(at, at + step)));
    answers.push(...reader.finish());
    check(`Reader fed ${step} bytes at a time`, answers);
  }
  const batches = [];
  for await (const batch of readLines(bytes, { chunkSize: 100 })) batches.push(batch);
  if (batches.some((batch) => batch.length === 0)) wrong.push("readLines yielded an empty batch");
  check("readLines of the bytes", batches.flat());
  for (const threads of [2, 5]) {
    const parts = [];
    for await (const batch of readLines(bytes, { threads, chunkSize: 50 })) parts.push(...batch);
    check(`readLines of the bytes by ${threads} threads`, parts);
  }
  const stream = new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 33) controller.enqueue(bytes.slice(at, at + 33));
      controller.close();
    },
  });
  const streamed = [];
  for await (const batch of readLines(stream)) streamed.push(...batch);
  check("readLines of a ReadableStream", streamed);
  return wrong;
}

async function main() {
  const manifest = JSON.parse(readFileSync(join(CONFORMANCE, "manifest.json"), "utf8"));
  const encoder = new TextEncoder();
  let passed = 0;
  let failed = 0;
  let bignums = 0;
  let paced = 0;
  const failures = [];
  for (const suite of manifest.suites) {
    const raw = readFileSync(join(CONFORMANCE, suite.input));
    const lines = inputLines(raw.toString("utf8"));
    const expect = exactJson(readFileSync(join(CONFORMANCE, suite.expect), "utf8"));
    if (lines.length !== expect.lines.length) {
      failed += 1;
      failures.push(`${suite.name}: ${lines.length} input lines, ${expect.lines.length} expectations`);
      continue;
    }
    const pace = new Pace();
    const lineAnswers = [];
    lines.forEach((line, index) => {
      const e = expect.lines[index];
      const where = `${suite.name}:${index + 1} (${e.description})`;
      const answer = answerOf(line);
      lineAnswers.push(answer);
      const wrong = problems(answer, e.reference);
      const fromBytes = answerOf(encoder.encode(line));
      if (!(fromBytes.ok === answer.ok && (answer.ok ? same(fromBytes.value, answer.value) : sameAnswer({ kind: "error", error: fromBytes.error }, answer)))) {
        wrong.push(`as bytes: ${show(fromBytes)}, as a string: ${show(answer)}`);
      }
      if (expect.pace !== undefined) {
        if (answer.ok && answer.value.event === "log") pace.add(answer.value);
        const p = expect.pace[index];
        const got = { step: pace.step, max_steps: pace.maxSteps, eta: pace.eta() };
        if (!same(got, p)) wrong.push(`pace ${show(got)}, expected ${show(p)}`);
        paced += 1;
      }
      if ((e.optional ?? []).includes("bignum")) bignums += 1;
      if (wrong.length === 0) {
        passed += 1;
        if (VERBOSE) console.log(`ok   ${where}`);
      } else {
        failed += 1;
        failures.push(`${where}: ${wrong.join("; ")}`);
      }
    });
    for (const problem of await wholeFile(new Uint8Array(raw), lineAnswers)) {
      failed += 1;
      failures.push(`${suite.name}: ${problem}`);
    }
  }
  for (const failure of failures) console.log(`FAIL ${failure}`);
  console.log(
    `golden suite through overbrainer-contract: ${passed + failed} lines of ${manifest.suites.length} suites: ` +
      `${passed} passed, ${failed} failed (${bignums} bignum lines among them, none skipped; ${paced} pace states)`,
  );
  if (failed > 0) process.exitCode = 1;
}

await main();

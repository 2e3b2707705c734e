// A consumer of the package, written against its declarations: `tsc` (strict, exact optional
// properties) checks that the types say what the package gives (the union narrows on `event`,
// a u64 is `number | bigint`, an answer narrows on `kind`), and, compiled, it runs as a user's
// program does: in `nox -s js` from a fresh folder where only the `npm pack` tarball was
// installed, with no build step of the package.
//
//   node consumer.js FILE...   each file read whole: its lines, the errors, the pace at the end

import { createReadStream } from "node:fs";
import { strict as assert } from "node:assert";
import { changeText, check, dumpLine, linesText, mark, Pace, ParseError, parseLine, readLines, Reader, status, Status } from "overbrainer-contract";
import type { Answer, CheckRecord, FileChange, Line, LogLine, Mark, StatusReport } from "overbrainer-contract";
import { load } from "overbrainer-contract/core";
import type { MetricLine } from "overbrainer-contract/types/metrics-line.js";

/** One sentence a line, using each variant's own typed fields. */
function describe(line: Line): string {
  switch (line.event) {
    case "begin":
      return `begin at ${line.time}, ${line.max_steps ?? "?"} steps`;
    case "log":
      return `step ${line.step}: loss ${line.loss ?? "-"}`;
    case "stage":
      return `stage ${line.name}`;
    case "eval":
      return `evaluation ${line.step}/${line.total ?? "?"}`;
    case "end":
      return `end at step ${line.step}`;
    default: {
      const unreachable: never = line; // a new variant in the schema breaks the build here
      return unreachable;
    }
  }
}

// The reader's lines are the generated MetricLine's, with every field present.
const asJson: MetricLine = parseLine('{"event":"end","time":1,"step":2}');
assert.equal(asJson.event, "end");

// A count beyond 2^53 stays exact: a bigint; below it a number.
const big = parseLine('{"event":"log","time":1.5,"step":18446744073709551615,"max_steps":12}');
assert.ok(big.event === "log");
assert.equal(big.step, 18446744073709551615n);
assert.equal(big.max_steps, 12);
assert.equal(big.loss, null);
assert.equal(dumpLine(big), '{"event":"log","time":1.5,"step":18446744073709551615,"epoch":null,"max_steps":12,"loss":null,"eval_loss":null,"learning_rate":null,"grad_norm":null}');

// -0 is kept, and the reference's errors are Python's.
const zero = parseLine('{"event":"begin","time":-0}');
assert.ok(Object.is(zero.time, -0));
assert.throws(
  () => parseLine('{"event":"log","time":1,"step":3.0}'),
  (error: unknown) => error instanceof ParseError && error.category === "data" && error.path === "$.step" && error.column === null,
);
const marked: Mark | null = mark(parseLine('{"event":"stage","time":1,"name":"merge"}'));
assert.deepEqual(marked, { kind: "stage", stage: "merge" });
assert.throws(() => new Pace().add(zero as unknown as LogLine), TypeError);

// The browser's entry gives the same API from the module's bytes.
const { readFile } = await import("node:fs/promises");
const { createRequire } = await import("node:module");
const wasmPath = createRequire(import.meta.url).resolve("overbrainer-contract/overbrainer_core.wasm");
const other = await load(await readFile(wasmPath));
assert.equal(other.dumpLine(other.parseLine('["end",2.0,7]')), '{"event":"end","time":2.0,"step":7}');

// A synchronous reader fed chunks cut anywhere.
const reader = new Reader({ maxLine: 40 });
const fed: Answer[] = [...reader.feed(new TextEncoder().encode('{"event":"end","time":1,"step":2}\n{"event":"e')), ...reader.feed(new TextEncoder().encode(`nd","time":1,"step":3,"padding":"${"x".repeat(40)}"}\n[`)), ...reader.finish()];
assert.deepEqual(
  fed.map((answer) => [answer.line, answer.kind, answer.complete]),
  [[1, "line", true], [2, "over", true], [3, "error", false]],
);

// A line is the bytes before its newline, for every reader: a line cut short mid-file is
// `eof`, a blank line `eof` at column 0 (the reference runner's answers to those bytes).
// `newlineInErrors` is still accepted, and changes nothing.
const cutMidFile = new TextEncoder().encode('{"event":"log","time":2.0,"step":1,"no\n\n{"event":"end","time":1,"step":2}\n');
const placed = (answers: Answer[]): (string | number | null)[][] =>
  answers.map((answer) => (answer.kind === "error" ? [answer.line, answer.error.category, answer.error.column] : [answer.line, answer.kind]));
const wants = [[1, "eof", 38], [2, "eof", 0], [3, "line"]];
for (const options of [{}, { newlineInErrors: true }, { newlineInErrors: false }]) {
  const alone = new Reader(options);
  assert.deepEqual(placed([...alone.feed(cutMidFile), ...alone.finish()]), wants);
  const batches: Answer[] = [];
  for await (const batch of readLines(cutMidFile, { ...options, threads: 1 })) batches.push(...batch);
  assert.deepEqual(placed(batches), wants);
}

// A Uint8Array read by worker threads (the package's worker.js, beside its main module): the
// same answers as one thread's, in order.
const many = new TextEncoder().encode(
  Array.from({ length: 3000 }, (_, i) => (i % 7 === 3 ? `{"event":"end","time":${i},"step":-${i}}` : `{"event":"end","time":${i},"step":${i}}`)).join("\n"),
);
const summary = async (threads: number): Promise<string[]> => {
  const seen: string[] = [];
  for await (const batch of readLines(many, { threads, chunkSize: 4096 })) {
    for (const answer of batch) seen.push(`${answer.line} ${answer.kind === "line" ? dumpLine(answer.value) : answer.kind === "error" ? String(answer.error) : "over"}`);
  }
  return seen;
};
const byOne = await summary(1);
assert.equal(byOne.length, 3000);
assert.deepEqual(await summary(3), byOne);

// The run level: the records `check -o json` and `status -o json` write, made by the core.
const run = new TextEncoder().encode(
  '{"event":"begin","time":100,"max_steps":10}\n{"event":"log","time":101,"step":1,"loss":2.5}\n{"event":"log","time":10',
);
const records: CheckRecord[] = await check(run, { name: "run/metrics.jsonl" });
const last = records[records.length - 1];
assert.ok(last !== undefined && last.type === "file" && last.valid && last.warnings === 1);
const finding = records[0];
assert.ok(finding !== undefined && finding.type === "finding");
assert.equal(finding.category, "truncated"); // the last line cut short: a warning
const none: CheckRecord[] = await check(run, { name: "run/metrics.jsonl", maxFindings: 0 });
assert.deepEqual(none, [last]); // no finding made, the summary counting it
const told: StatusReport = await status(run, { now: 103 });
assert.equal(told.phase, "training");
assert.deepEqual(told.loss, { step: 1, value: 2.5 });
assert.equal(told.partial_last_line, true);
assert.equal(linesText(told.invalid_lines, told.partial_last_line), "the last line cut short");
assert.equal(changeText("back", "runs/7/metrics.jsonl"), "runs/7/metrics.jsonl is there again: reading the new file from its start");
assert.throws(() => changeText("moved" as FileChange, "m.jsonl"), TypeError);
const growing = new Status({ name: "run" });
growing.feed(run);
growing.end();
assert.equal(growing.report(110).last_line_seconds, 9);
growing.close();

for (const file of process.argv.slice(2)) {
  const pace = new Pace();
  let lines = 0;
  const errors: string[] = [];
  let last = "";
  for await (const batch of readLines(createReadStream(file))) {
    for (const answer of batch) {
      lines = answer.line;
      if (answer.kind === "line") {
        if (answer.value.event === "log") pace.add(answer.value);
        last = describe(answer.value);
      } else if (answer.kind === "error") {
        errors.push(`line ${answer.line}: ${answer.error.category}: ${answer.error}`);
      } else {
        errors.push(`line ${answer.line}: ${answer.size} bytes, over ${answer.limit}`);
      }
    }
  }
  const eta = pace.eta();
  console.log(`${file}: ${lines} lines, ${errors.length} bad; last: ${last}; step ${pace.step}/${pace.maxSteps ?? "?"}, eta ${eta === null ? "none" : `${eta.secs}.${String(eta.nanos).padStart(9, "0")} s`}`);
  for (const error of errors) console.log(`  ${error}`);
}
console.log("consumer: every check passed");

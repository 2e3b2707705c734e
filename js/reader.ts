// A small typed reader of the golden fixtures: every line the reference accepts
// (tests/conformance/cases/*.expect.json, `reference.value`) read into the `MetricLine` type that
// json-schema-to-typescript generated from schema/metrics-line.schema.json, and narrowed on
// `event`. `tsc --noEmit` proves the generated types compile under `strict` and that the union
// narrows; run (compiled) it also checks each value's `mark` against the fixture.
//
//   npx tsc --noEmit                                  (what `nox -s js` runs)
//   npx tsc --outDir /tmp/reader && node /tmp/reader/reader.js ../tests/conformance

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JobStage, MetricLine } from "./types/metrics-line.js";

/** The reference's `mark()`, as the fixtures write it. */
type Mark =
  | null
  | { kind: "stage"; stage: JobStage }
  | { kind: "eval"; step: number; total: number | null }
  | { kind: "end"; step: number };

interface Accepted {
  ok: true;
  value: unknown;
  dump: string;
  mark: Mark;
}
interface Rejected {
  ok: false;
  category: "syntax" | "eof" | "data";
}
interface Expectation {
  description: string;
  reference: Accepted | Rejected;
  schema: boolean | null;
  optional?: "bignum"[];
}
interface ExpectFile {
  description: string;
  origin: string;
  lines: Expectation[];
}
interface Manifest {
  contract: string;
  suites: { name: string; input: string; expect: string; origin: string }[];
}

const EVENTS: ReadonlySet<string> = new Set<MetricLine["event"]>(["begin", "log", "stage", "eval", "end"]);

/** A fixture value as a MetricLine: the tag is checked here, the fields by the schema suite. */
export function asMetricLine(value: unknown): MetricLine {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError("a metrics line is a JSON object");
  }
  const event: unknown = (value as { event?: unknown }).event;
  if (typeof event !== "string" || !EVENTS.has(event)) {
    throw new TypeError(`unknown event ${JSON.stringify(event)}`);
  }
  return value as MetricLine;
}

/** `mark()` of the reference, written against the generated union: narrowing on `event`. */
export function mark(line: MetricLine): Mark {
  switch (line.event) {
    case "begin":
    case "log":
      return null;
    case "stage":
      return { kind: "stage", stage: line.name };
    case "eval":
      return { kind: "eval", step: line.step, total: line.total ?? null };
    case "end":
      return { kind: "end", step: line.step };
    default: {
      const unreachable: never = line; // a new variant in the schema breaks the build here
      return unreachable;
    }
  }
}

/** One sentence per line, using each variant's own typed fields. */
export function describe(line: MetricLine): string {
  switch (line.event) {
    case "begin":
      return `begin at ${line.time}, max_steps ${line.max_steps ?? "unknown"}`;
    case "log": {
      const loss: number | null | undefined = line.loss;
      return `log step ${line.step} at ${line.time}, loss ${loss ?? "none"}`;
    }
    case "stage":
      return `stage ${line.name} at ${line.time}`;
    case "eval":
      return `eval step ${line.step} of ${line.total ?? "?"}`;
    case "end":
      return `end at step ${line.step}`;
  }
}

function main(conformance: string): number {
  const manifest = JSON.parse(readFileSync(join(conformance, "manifest.json"), "utf8")) as Manifest;
  let read = 0;
  let wrong = 0;
  const events = new Map<MetricLine["event"], number>();
  for (const suite of manifest.suites) {
    const expect = JSON.parse(readFileSync(join(conformance, suite.expect), "utf8")) as ExpectFile;
    expect.lines.forEach((entry, index) => {
      if (!entry.reference.ok) return;
      const line = asMetricLine(entry.reference.value);
      read += 1;
      events.set(line.event, (events.get(line.event) ?? 0) + 1);
      describe(line);
      if (JSON.stringify(mark(line)) !== JSON.stringify(entry.reference.mark)) {
        wrong += 1;
        console.error(`${suite.name}:${index + 1}: mark ${JSON.stringify(mark(line))}, expected ${JSON.stringify(entry.reference.mark)}`);
      }
    });
  }
  const counts = [...events].map(([event, n]) => `${n} ${event}`).join(", ");
  console.log(`${read} accepted lines read as MetricLine (${counts}); ${wrong} marks differ`);
  return wrong === 0 ? 0 : 1;
}

const conformanceDir = process.argv[2];
if (conformanceDir !== undefined) process.exitCode = main(conformanceDir);

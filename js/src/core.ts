// overbrainer's metrics lines read in JavaScript exactly as its reference reads them: the
// reader core (core/reader, Rust) compiled to WebAssembly (core/wasm), and this glue. Bytes go
// into the module's memory, answers come back as compact binary records (core/wasm/src/lib.rs,
// "Records") read here with a DataView. No call crosses the boundary per line of a file.
//
// This module runs anywhere (browsers, workers, Node, Deno): `load(bytes)` instantiates the
// module from its bytes. The package's main entry (index.ts) does that for Node with the .wasm
// shipped beside it.

import type { Begin, End, Eval, JobStage, Log, Stage } from "../types/metrics-line.js";
import { bindNames } from "./names.js";
import type { NamesApi, NamesExports } from "./names.js";
import { asU64, bindRun } from "./run.js";
import type { RunApi, RunExports } from "./run.js";

export type { JobStage, MetricLine, U64 } from "../types/metrics-line.js";
export type { Band, BandPoints, Entry, Section, Unit } from "./names.js";
export type {
  CheckOptions,
  CheckRecord,
  FileChange,
  ReportFile,
  ReportFinding,
  RunSource,
  RunCheck,
  RunCheckConstructor,
  RunStatus,
  RunStatusConstructor,
  RunStatusOptions,
  Digest,
  SideFileRead,
  SideFileRefused,
  SideFiles,
  StatusOptions,
  StatusReport,
  ViewOptions,
} from "./run.js";

/** The fields of a generated line type as the reader gives them: every field of the variant,
 * present (an optional field left out or null is `null`), and no other key. */
export type Known<T> = { [K in keyof T as string extends K ? never : K]-?: Exclude<T[K], undefined> };

/** A `begin` line as read. */
export type BeginLine = Known<Begin>;
/** A `log` line as read. */
export type LogLine = Known<Log>;
/** A `stage` line as read. */
export type StageLine = Known<Stage>;
/** An `eval` line as read. */
export type EvalLine = Known<Eval>;
/** An `end` line as read. */
export type EndLine = Known<End>;

/**
 * A metrics line as the reader gives it (`parseLine`, `Reader`, `readLines`): tagged by
 * `event`, every field of its variant in declaration order (the order `dumpLine` writes), an
 * optional field left out or written `null` as `null`, unknown keys dropped (the reference
 * ignores them).
 *
 * A u64 field (`step`, `max_steps`, `total`) is exact: a `number` when at most
 * `Number.MAX_SAFE_INTEGER`, a `bigint` beyond. A float is the reference's to the bit, `-0`
 * kept.
 */
export type Line = BeginLine | LogLine | StageLine | EvalLine | EndLine;

/** `serde_json::Error::classify()`'s category: `io` never comes from a line in memory. */
export type Category = "syntax" | "eof" | "data" | "io";

/** The path of the error of a line, as the core writes it (`null`: none). */
type Locate = (line: string) => string | null;

/** A `ParseError` whose path is located in `line` when it is first read. */
let unlocated: (category: Category, message: string, column: number | null, line: string, locate: Locate) => ParseError;

/**
 * A line the reference rejects, as Python's `overbrainer_contract.ParseError` describes it.
 *
 * - `category`: the reference's (`serde_json::Error::classify()`): `syntax` (not JSON, a
 *   number out of range, trailing characters), `eof` (the line ends too early) or `data`
 *   (JSON, but not a metrics line).
 * - `message`: the reference's message, without its position.
 * - `column`: where the reference found the error, 1-based, in bytes of the line's UTF-8
 *   from its start; `null` where the reference gives no position. (A string holding a lone
 *   surrogate, which is no UTF-8, is a syntax error at its code point, counted from 1, as
 *   Python says of a `str`.)
 * - `path`: the JSON path of the value at fault as the core writes it, Python's string
 *   (`$.step`, `$[2]`, `$["a b"]`, `$` for the line as a whole), `null` after the value
 *   (trailing characters). An error the package's reader makes keeps its line instead and
 *   has the core locate the path in it when `path` is first read (walking a line again
 *   costs more than the rest of its error).
 *
 * `toString()` is Python's `str()` of it: the message, then ` at column N` when there is one.
 */
export class ParseError extends Error {
  readonly category: Category;
  override readonly message: string;
  readonly column: number | null;
  #path: string | null;
  /** The line the path is still to be located in, and how (the core's `path_of`). */
  #line: string | null = null;
  #locate: Locate | null = null;

  constructor(category: Category, message: string, path: string | null = null, column: number | null = null) {
    super(message);
    this.name = "ParseError";
    this.category = category;
    this.message = message;
    this.#path = path;
    this.column = column;
  }

  get path(): string | null {
    if (this.#line !== null && this.#locate !== null) {
      this.#path = this.#locate(this.#line);
      this.#line = null;
      this.#locate = null;
    }
    return this.#path;
  }

  override toString(): string {
    return this.column === null ? this.message : `${this.message} at column ${this.column}`;
  }

  static {
    unlocated = (category, message, column, line, locate) => {
      const made = new ParseError(category, message, null, column);
      made.#line = line;
      made.#locate = locate;
      return made;
    };
  }
}

/** `mark()` of the reference: what a stage, evaluation or end line says of the job's progress. */
export type Mark =
  | { kind: "stage"; stage: JobStage }
  | { kind: "eval"; step: number | bigint; total: number | bigint | null }
  | { kind: "end"; step: number | bigint };

/** The reference's `Pace::eta()`: a `Duration`, exactly (`secs` exact as a u64 field is). */
export interface Duration {
  secs: number | bigint;
  nanos: number;
}

/** One line's answer from a whole-file reader. `line` is its number, from 1; `complete`
 * whether it ends in its newline (only the input's last line may not). */
export type Answer =
  | { line: number; complete: boolean; kind: "line"; value: Line }
  | { line: number; complete: boolean; kind: "error"; error: ParseError }
  /** A line over the `maxLine` bound: its bytes (its newline included) and the bound. */
  | { line: number; complete: boolean; kind: "over"; size: number; limit: number };

/** How a whole-file reader answers lines. */
export interface ReaderOptions {
  /** The longest line read, in bytes without its newline; a longer line is answered
   * `over`, unread and unheld. Default: none (a line of any length is read; junk without a
   * newline is recognised by its start and skipped, as the core's splitter does). */
  maxLine?: number | null;
  /** Accepted and without effect: every reader reads a line as the bytes before its
   * newline (as `parseLine` of those bytes, the reference runner and
   * `overbrainer-contract check` read it), so an error is placed the same way in each.
   * @deprecated kept so that code passing it still compiles and runs. */
  newlineInErrors?: boolean;
}

/** A pace of training: the reference's `Pace`, field for field. */
export interface Pace {
  /** Takes the next log into account (a `log` line as `parseLine` gives it); a `TypeError`
   * for anything else. */
  add(log: LogLine): void;
  /** Latest step, of any log (`0` before the first). */
  readonly step: number | bigint;
  /** Total steps of the run, as last given; `null` until given. */
  readonly maxSteps: number | bigint | null;
  /** Time left to reach the last step at the pace seen so far, exactly as the reference
   * computes it; `null` until two training logs apart in steps and time, or without a step
   * count. */
  eta(): Duration | null;
}

export interface PaceConstructor {
  new (): Pace;
}

/** A synchronous whole-file reader: fed chunks cut anywhere, it answers each line they
 * complete, in order (the core's `Scan`: no call across the boundary per line). */
export interface Reader {
  /** The answers to the lines `chunk` completes. */
  feed(chunk: Uint8Array): Answer[];
  /** The end of the input: the answer to its last line, if it has one without a newline.
   * The reader is done with after it (its memory goes back). */
  finish(): Answer[];
  /** Lines answered so far. */
  readonly lines: number;
  /** Whether the reading stopped within a line skipped for 4 GiB without a newline: what
   * is fed after is ignored. */
  readonly stopped: boolean;
  /** Gives the reader's memory back without finishing (`finish` does it too). */
  close(): void;
}

export interface ReaderConstructor {
  new (options?: ReaderOptions): Reader;
}

/** Where a whole file comes from. */
export type Source = Uint8Array | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** What the package gives, from one instance of the module. */
export interface Api extends RunApi, NamesApi {
  /** A line (a string, or its bytes) read as the reference reads it: the typed line, or a
   * thrown `ParseError`. White space around the value, a trailing newline included, is the
   * reference's too. Bytes that are not UTF-8 are a syntax error. */
  parseLine(line: string | Uint8Array): Line;
  /** The reference's `mark()`: `null` for begin and log lines. */
  mark(line: Line): Mark | null;
  /** The reference's serialisation (`serde_json::to_string`) of a line, exactly: the tag,
   * then every field in order, compact, floats in ryu's shortest form. A `TypeError` for a
   * value that is not a line (a missing required field, a value of the wrong kind, a count
   * that is not an integer from 0 to 2^64 - 1). */
  dumpLine(line: Line): string;
  Pace: PaceConstructor;
  Reader: ReaderConstructor;
  /** Every line of `source` answered, in batches (one per chunk read, never empty). */
  readLines(source: Source, options?: ReaderOptions & { chunkSize?: number }): AsyncGenerator<Answer[], void, undefined>;
  /** The answers in `records` (what a reader of the module wrote, in core/wasm's format),
   * numbered from `first`: how answers made by the module in another thread (the Node
   * entry's threaded `readLines`) are read. */
  readRecords(records: Uint8Array, first: number): Answer[];
  /** `pattern` matched against each of `texts` by the core, as the command line matches
   * it (Rust's `regex` crate, in time linear in the pattern and the text): a regular
   * expression found anywhere in a text (`--only`, `--group`), or with `glob` a glob
   * (fnmatch's `*`, `?`, `[...]`: `--metric`) matched against the whole of it. For each
   * text, `null` where the pattern does not match it, else its group's key: the first
   * capture group's text ("" when it took no part in the match), else the whole match (a
   * glob's: the text). A pattern the core refuses (its syntax, its size, its nesting) is a
   * thrown `SyntaxError` saying why, in one line. */
  matchPattern(pattern: string, texts: readonly string[], options?: { glob?: boolean }): (string | null)[];
}

interface Exports extends RunExports, NamesExports {
  memory: WebAssembly.Memory;
  ob_input(len: number): number;
  ob_output(): number;
  ob_output_len(): number;
  ob_tables(): void;
  ob_parse(len: number): void;
  ob_path(len: number): number;
  ob_dump(len: number): number;
  ob_eta(
    firstStep: bigint,
    firstTime: number,
    lastStep: bigint,
    lastTime: number,
    hasMax: number,
    maxSteps: bigint,
    step: bigint,
  ): number;
  ob_reader_new(hasMax: number, maxLine: number): number;
  ob_reader_feed(id: number, len: number): number;
  ob_reader_finish(id: number): number;
  ob_reader_stopped(id: number): number;
  ob_reader_free(id: number): void;
  ob_pattern_keys(len: number, glob: number): number;
}

/** A variant as the records are read: its tag, its fields' names and kinds, and how its line
 * is made from its values in order. */
interface Variant {
  tag: string;
  names: string[];
  kinds: number[];
  /** The field the reference does not know (`scalars`, `summary`), after the values. */
  extra: string | null;
  make: (values: unknown[]) => Line;
}

/** How a variant's line is made from its values: an object literal of the variant's own keys,
 * in order (one shape a variant, built as fast as a literal in code), compiled once from the
 * core's tables (names written as JSON strings, never from any input); where the page forbids
 * compiling code (a Content-Security-Policy without 'unsafe-eval'), the keys set one by one. */
function maker(tag: string, value: string, names: string[]): (values: unknown[]) => Line {
  const fields = names.map((name, index) => `${JSON.stringify(name)}: v[${index}]`);
  try {
    return new Function("v", `return { ${JSON.stringify(tag)}: ${JSON.stringify(value)}, ${fields.join(", ")} };`) as (
      values: unknown[],
    ) => Line;
  } catch {
    return (values) => {
      const made: Record<string, unknown> = { [tag]: value };
      names.forEach((name, index) => {
        made[name] = values[index];
      });
      return made as Line;
    };
  }
}

type KindName = "f64" | "u64" | "Option<f64>" | "Option<u64>" | "stage";

/** The core's generated tables (`ob_tables`): what the records are read with. */
interface Tables {
  tag: string;
  variants: { tag: string; name: string; extra: string | null; fields: [string, KindName][] }[];
  stages: JobStage[];
  categories: Category[];
}

const F64 = 0;
const U64 = 1;
const OPT_F64 = 2;
const OPT_U64 = 3;
const STAGE = 4;
const KIND_CODES: Record<KindName, number> = { f64: F64, u64: U64, "Option<f64>": OPT_F64, "Option<u64>": OPT_U64, stage: STAGE };

/** Added to a rejected line's category in its record: its path not located, the line in its place. */
const UNLOCATED = 0x80;
const TWO_32 = 4294967296;
const HI_SAFE = 0x200000; // a u64 whose high word is below 2^21 is at most 2^53 - 1

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string's first lone surrogate, as Python's `str` says: its code point index (from 0). */
function loneSurrogate(text: string): number | null {
  const wellFormed = (text as { isWellFormed?: () => boolean }).isWellFormed;
  if (wellFormed !== undefined && wellFormed.call(text)) return null;
  const found = LONE_SURROGATE.exec(text);
  if (found === null) return null;
  let points = 0;
  for (let at = 0; at < found.index; at += 1) {
    const unit = text.charCodeAt(at);
    if (unit >= 0xd800 && unit <= 0xdbff && at + 1 < found.index) {
      const next = text.charCodeAt(at + 1);
      if (next >= 0xdc00 && next <= 0xdfff) at += 1;
    }
    points += 1;
  }
  return points;
}


function exactNumber(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

/** The API over one instance of the module, given its bytes (`BufferSource`: the .wasm file's
 * contents) or an already compiled `WebAssembly.Module`. Asynchronous compilation only
 * (browsers refuse to compile a large module synchronously on their main thread). */
export async function load(wasm: BufferSource | WebAssembly.Module): Promise<Api> {
  const instance =
    wasm instanceof WebAssembly.Module
      ? await WebAssembly.instantiate(wasm, {})
      : (await WebAssembly.instantiate(wasm, {})).instance;
  return bind(instance.exports as unknown as Exports);
}

function bind(ex: Exports): Api {
  let buffer: ArrayBufferLike = ex.memory.buffer;
  let view: DataView<ArrayBufferLike> = new DataView(buffer);
  let bytes: Uint8Array<ArrayBufferLike> = new Uint8Array(buffer);
  /** The module's memory as it is now (it grows: a grown memory has a new buffer). */
  const fresh = (): void => {
    if (ex.memory.buffer !== buffer) {
      buffer = ex.memory.buffer;
      view = new DataView(buffer);
      bytes = new Uint8Array(buffer);
    }
  };
  const output = (): [number, number] => {
    const start = ex.ob_output() >>> 0; // addresses and lengths are u32: none is negative
    const length = ex.ob_output_len() >>> 0;
    fresh();
    return [start, start + length];
  };

  ex.ob_tables();
  const [tablesStart, tablesEnd] = output();
  const tables = JSON.parse(decoder.decode(bytes.subarray(tablesStart, tablesEnd))) as Tables;
  const TAG = tables.tag;
  const VARIANTS: Variant[] = tables.variants.map((variant) => {
    const names = variant.fields.map(([name]) => name);
    const kinds = variant.fields.map(([, kind]) => KIND_CODES[kind]);
    return { tag: variant.tag, names, kinds, extra: variant.extra, make: maker(TAG, variant.tag, names) };
  });
  const BY_TAG = new Map(VARIANTS.map((variant, index) => [variant.tag, index]));
  const STAGES = tables.stages;
  const CATEGORIES = tables.categories;

  /** Bytes into the module's input: their length there. */
  const put = (line: string | Uint8Array): number => {
    if (typeof line === "string") {
      const room = line.length * 3;
      const at = ex.ob_input(room) >>> 0;
      fresh();
      return encoder.encodeInto(line, bytes.subarray(at, at + room)).written;
    }
    const at = ex.ob_input(line.length) >>> 0;
    fresh();
    bytes.set(line, at);
    return line.length;
  };

  const u64At = (at: number): number | bigint => {
    const hi = view.getUint32(at + 4, true);
    const lo = view.getUint32(at, true);
    return hi < HI_SAFE ? hi * TWO_32 + lo : view.getBigUint64(at, true);
  };

  let at = 0; // the record under way

  const text = (): string => {
    const length = view.getUint32(at, true);
    at += 4;
    const found = decoder.decode(bytes.subarray(at, at + length));
    at += length;
    return found;
  };

  /** The values of the line at `at`, into `values`: its variant. */
  const lineValues = (values: unknown[]): Variant => {
    const variant = VARIANTS[bytes[at++]!]!;
    const kinds = variant.kinds;
    let p = at;
    for (let index = 0; index < kinds.length; index += 1) {
      const kind = kinds[index];
      if (kind === F64) {
        values[index] = view.getFloat64(p, true);
        p += 8;
      } else if (kind === U64) {
        values[index] = u64At(p);
        p += 8;
      } else if (kind === STAGE) {
        values[index] = STAGES[bytes[p++]!];
      } else if (bytes[p++] === 0) {
        values[index] = null;
      } else {
        values[index] = kind === OPT_F64 ? view.getFloat64(p, true) : u64At(p);
        p += 8;
      }
    }
    at = p;
    return variant;
  };
  const scratch: unknown[] = [];
  const line = (): Line => {
    const variant = lineValues(scratch);
    const made = variant.make(scratch);
    if (variant.extra !== null && bytes[at++] === 1) {
      (made as unknown as Record<string, unknown>)[variant.extra] = JSON.parse(text()) as unknown;
    }
    return made;
  };

  const outputText = (): string => {
    const [start, end] = output();
    return decoder.decode(bytes.subarray(start, end));
  };
  /** The path of the error of `line` (the core's `path_of`). */
  const locate = (line: string): string | null => (ex.ob_path(put(line)) === 0 ? null : outputText());

  const error = (): ParseError => {
    const code = bytes[at++]!;
    const category = CATEGORIES[code & ~UNLOCATED]!;
    const stored = view.getUint32(at, true);
    const column = stored === 0 ? null : stored - 1;
    at += 4;
    const message = text();
    const length = view.getUint32(at, true);
    at += 4;
    if ((code & UNLOCATED) !== 0) {
      // the path not located: the line (UTF-8) in its place, kept as text (a buffer that is
      // reused cannot hold it, and a string costs less to make than a copy of the bytes)
      const line = decoder.decode(bytes.subarray(at, at + length));
      at += length;
      return unlocated(category, message, column, line, locate);
    }
    let path: string | null = null;
    if (length > 0) {
      path = decoder.decode(bytes.subarray(at, at + length - 1));
      at += length - 1;
    }
    return new ParseError(category, message, path, column);
  };

  /** The records from the output's start to `end`, answers numbered from `first`. */
  const answers = (end: number, first: number, into: Answer[]): number => {
    let number = first;
    while (at < end) {
      const head = bytes[at++]!;
      const complete = (head & 0x80) === 0;
      const kind = head & 0x7f;
      if (kind === 0) {
        into.push({ line: number, complete, kind: "line", value: line() });
      } else if (kind === 1) {
        into.push({ line: number, complete, kind: "error", error: error() });
      } else {
        const size = view.getFloat64(at, true);
        const limit = view.getFloat64(at + 8, true);
        at += 16;
        into.push({ line: number, complete, kind: "over", size, limit });
      }
      number += 1;
    }
    return number;
  };

  function parseLine(input: string | Uint8Array): Line {
    if (typeof input === "string") {
      const surrogate = loneSurrogate(input);
      if (surrogate !== null) {
        throw new ParseError("syntax", "not UTF-8: a lone surrogate code point", null, surrogate + 1);
      }
    } else if (!(input instanceof Uint8Array)) {
      throw new TypeError(`parseLine takes a string or a Uint8Array, not ${describe(input)}`);
    }
    ex.ob_parse(put(input));
    [at] = output();
    const head = bytes[at++];
    if (head === 0) return line();
    throw error();
  }

  function mark(value: Line): Mark | null {
    switch (value.event) {
      case "begin":
      case "log":
        return null;
      case "stage":
        return { kind: "stage", stage: value.name };
      case "eval":
        return { kind: "eval", step: value.step, total: value.total };
      case "end":
        return { kind: "end", step: value.step };
      default: {
        const unknown: never = value;
        throw new TypeError(`mark takes a metrics line, not ${describe(unknown)}`);
      }
    }
  }

  /** A line's record (variant and values) in the module's input: its length. */
  const record = (value: unknown, caller: string): number => {
    if (typeof value !== "object" || value === null) {
      throw new TypeError(`${caller} takes a metrics line, not ${describe(value)}`);
    }
    const fields = value as Record<string, unknown>;
    const index = BY_TAG.get(fields[TAG] as string);
    if (index === undefined) {
      throw new TypeError(`${caller} takes a metrics line: ${TAG} ${describe(fields[TAG])} is no variant`);
    }
    const { names, kinds } = VARIANTS[index]!;
    const out: number[] = [index];
    const eight = (write: (into: DataView) => void): void => {
      const cell = new DataView(new ArrayBuffer(8));
      write(cell);
      for (let byte = 0; byte < 8; byte += 1) out.push(cell.getUint8(byte));
    };
    names.forEach((name, at) => {
      const kind = kinds[at];
      const field = fields[name];
      const optional = kind === OPT_F64 || kind === OPT_U64;
      if (optional && (field === null || field === undefined)) {
        out.push(0);
        return;
      }
      if (optional) out.push(1);
      if (kind === F64 || kind === OPT_F64) {
        if (typeof field !== "number") {
          throw new TypeError(`${caller}: ${fields[TAG]}.${name} is a float, not ${describe(field)}`);
        }
        eight((cell) => cell.setFloat64(0, field, true));
      } else if (kind === STAGE) {
        const stage = STAGES.indexOf(field as JobStage);
        if (stage < 0) throw new TypeError(`${caller}: ${fields[TAG]}.${name} is a stage (${STAGES.join(", ")}), not ${describe(field)}`);
        out.push(stage);
      } else {
        const count = asU64(field);
        if (count === null) {
          throw new TypeError(`${caller}: ${fields[TAG]}.${name} is an integer from 0 to 2^64 - 1, not ${describe(field)}`);
        }
        eight((cell) => cell.setBigUint64(0, count, true));
      }
    });
    const at = ex.ob_input(out.length) >>> 0;
    fresh();
    bytes.set(out, at);
    return out.length;
  };

  function dumpLine(value: Line): string {
    if (ex.ob_dump(record(value, "dumpLine")) === 0) throw new TypeError("dumpLine takes a metrics line");
    const [start, end] = output();
    return decoder.decode(bytes.subarray(start, end));
  }

  class CorePace implements Pace {
    #first: [bigint, number] | null = null;
    #last: [bigint, number] | null = null;
    #step = 0n;
    #maxSteps: bigint | null = null;

    add(log: LogLine): void {
      const given = log as unknown as Record<string, unknown> | null;
      if (typeof given !== "object" || given === null || given[TAG] !== "log") {
        throw new TypeError(`Pace.add takes a log line (${TAG} "log", as parseLine gives it), not ${describe(log)}`);
      }
      const step = asU64(given.step);
      const maxSteps = given.max_steps === null || given.max_steps === undefined ? null : asU64(given.max_steps);
      const { time, loss } = given;
      if (step === null || typeof time !== "number" || (maxSteps === null && given.max_steps != null)) {
        throw new TypeError(`Pace.add takes a log line: its step and max_steps integers from 0 to 2^64 - 1, its time a float`);
      }
      if (loss !== null && loss !== undefined && typeof loss !== "number") {
        throw new TypeError(`Pace.add takes a log line: its loss a float or null, not ${describe(loss)}`);
      }
      this.#step = step;
      if (maxSteps !== null) this.#maxSteps = maxSteps;
      if (loss !== null && loss !== undefined) {
        this.#first ??= [step, time];
        this.#last = [step, time];
      }
    }

    get step(): number | bigint {
      return exactNumber(this.#step);
    }

    get maxSteps(): number | bigint | null {
      return this.#maxSteps === null ? null : exactNumber(this.#maxSteps);
    }

    eta(): Duration | null {
      if (this.#first === null || this.#last === null) return null;
      const [firstStep, firstTime] = this.#first;
      const [lastStep, lastTime] = this.#last;
      const max = this.#maxSteps;
      const some = ex.ob_eta(firstStep, firstTime, lastStep, lastTime, max === null ? 0 : 1, max ?? 0n, this.#step);
      if (some === 0) return null;
      const [start] = output();
      return { secs: u64At(start), nanos: view.getUint32(start + 8, true) };
    }
  }

  const registry = new FinalizationRegistry<number>((id) => ex.ob_reader_free(id));

  class CoreReader implements Reader {
    #id: number | null;
    #lines = 0;

    constructor(options: ReaderOptions = {}) {
      const { maxLine = null } = options;
      if (maxLine !== null && !(Number.isInteger(maxLine) && maxLine >= 0)) {
        throw new TypeError(`maxLine is a number of bytes (an integer from 0) or null, not ${describe(maxLine)}`);
      }
      this.#id = ex.ob_reader_new(maxLine === null ? 0 : 1, maxLine ?? 0);
      registry.register(this, this.#id, this);
    }

    #answered(): Answer[] {
      const found: Answer[] = [];
      const [start, end] = output();
      at = start;
      // A rejected line's ParseError is an answer here, never thrown: the stack of where it
      // was made would only cost (a V8 setting; other engines ignore it).
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        this.#lines = answers(end, this.#lines + 1, found) - 1;
      } finally {
        Error.stackTraceLimit = limit;
      }
      return found;
    }

    #open(): number {
      if (this.#id === null) throw new Error("this Reader is finished (or closed)");
      return this.#id;
    }

    feed(chunk: Uint8Array): Answer[] {
      const id = this.#open();
      if (!(chunk instanceof Uint8Array)) throw new TypeError(`Reader.feed takes a Uint8Array, not ${describe(chunk)}`);
      ex.ob_reader_feed(id, put(chunk));
      return this.#answered();
    }

    finish(): Answer[] {
      const id = this.#open();
      ex.ob_reader_finish(id);
      const found = this.#answered();
      this.close();
      return found;
    }

    get lines(): number {
      return this.#lines;
    }

    get stopped(): boolean {
      return this.#id !== null && ex.ob_reader_stopped(this.#id) !== 0;
    }

    close(): void {
      if (this.#id === null) return;
      registry.unregister(this);
      ex.ob_reader_free(this.#id);
      this.#id = null;
    }
  }

  async function* readLines(
    source: Source,
    options: ReaderOptions & { chunkSize?: number } = {},
  ): AsyncGenerator<Answer[], void, undefined> {
    const { chunkSize = 1 << 20, ...readerOptions } = options;
    const reader = new CoreReader(readerOptions);
    try {
      for await (const chunk of chunks(source, chunkSize)) {
        const found = reader.feed(chunk);
        if (found.length > 0) yield found;
      }
      const last = reader.finish();
      if (last.length > 0) yield last;
    } finally {
      reader.close();
    }
  }

  function readRecords(records: Uint8Array, first: number): Answer[] {
    const found: Answer[] = [];
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0; // answers, never thrown (see Reader)
    const memory = [buffer, view, bytes] as const;
    buffer = records.buffer;
    view = new DataView(records.buffer, records.byteOffset, records.byteLength);
    bytes = records;
    try {
      at = 0;
      answers(records.length, first, found);
    } finally {
      [buffer, view, bytes] = memory;
      Error.stackTraceLimit = limit;
    }
    return found;
  }

  function matchPattern(pattern: string, texts: readonly string[], options: { glob?: boolean } = {}): (string | null)[] {
    let room = 4 + pattern.length * 3;
    for (const text of texts) room += 4 + text.length * 3;
    const start = ex.ob_input(room) >>> 0;
    fresh();
    let end = start;
    for (const text of [pattern, ...texts]) {
      const written = encoder.encodeInto(text, bytes.subarray(end + 4, start + room)).written;
      view.setUint32(end, written, true);
      end += 4 + written;
    }
    const glob = options.glob === true;
    if (ex.ob_pattern_keys(end - start, glob ? 1 : 0) === 0) throw new SyntaxError(outputText());
    const [from] = output();
    let next = from;
    return texts.map((text) => {
      const size = view.getUint32(next, true);
      next += 4;
      if (size === 0) return null;
      if (glob) return text;
      const key = decoder.decode(bytes.subarray(next, next + size - 1));
      next += size - 1;
      return key;
    });
  }

  const { check, checkRecords, Check, status, Status, linesText, changeText, screen, cells, headings, footer, formatNumber, formatDuration } = bindRun(ex, { put, text: outputText, chunks });

  const names = bindNames(ex, {
    put,
    output: () => {
      const [start, end] = output();
      return bytes.subarray(start, end);
    },
  });

  return { parseLine, mark, dumpLine, Pace: CorePace, Reader: CoreReader, readLines, readRecords, matchPattern, check, checkRecords, Check, status, Status, linesText, changeText, screen, cells, headings, footer, formatNumber, formatDuration, ...names };
}

/** The chunks of a source: a Uint8Array cut in `size` pieces, a stream's or an iterable's own. */
async function* chunks(source: Source, size: number): AsyncGenerator<Uint8Array, void, undefined> {
  if (source instanceof Uint8Array) {
    for (let at = 0; at < source.length; at += size) yield source.subarray(at, at + size);
    return;
  }
  if (typeof (source as ReadableStream<Uint8Array>).getReader === "function") {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (typeof (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === "function") {
    for await (const chunk of source as AsyncIterable<Uint8Array>) yield chunk;
    return;
  }
  throw new TypeError(`readLines takes a Uint8Array, an AsyncIterable<Uint8Array> or a ReadableStream<Uint8Array>, not ${describe(source)}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "object") return "an object";
  return typeof value === "number" ? String(value) : `a ${typeof value}`;
}

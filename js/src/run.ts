// The run level: the check of a metrics file and the status of a run, made by the reader core
// (core/wasm/src/reports.rs over overbrainer_core::check and ::status) and handed over as the
// contract's records — what `overbrainer-contract check -o json` and `status -o json` write,
// field for field (types generated from schema/check-report.schema.json and
// status-report.schema.json; an integer beyond 2^53, which JSON's numbers cannot hold in
// JavaScript, comes as a bigint, exact, as the package's reader gives a u64). Nothing of what a run's lines mean is written here: the glue
// feeds bytes, decompresses a `.gz`, and parses the core's JSON.

import type { ReportFile, ReportFinding } from "../types/check-report.js";
import type { StatusReport } from "../types/status-report.js";

export type { ReportFile, ReportFinding, StatusReport };

/** One record of a check: a finding, or the file's summary (always the last). */
export type CheckRecord = ReportFinding | ReportFile;

/** Where a whole file comes from. */
export type RunSource = Uint8Array | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** Options of `check`. */
export interface CheckOptions {
  /** The file as the records name it (`file`); default `-`, standard input's name. A name
   * ending in `.gz` is decompressed (a stream cut short is said as `check` says it). */
  name?: string;
  /** The user's bound on a line's length, in bytes without its newline (`--max-line`). */
  maxLine?: number | null;
  /** Bytes fed to the core at a time (default 1 MiB). */
  chunkSize?: number;
  /** The most findings of each severity made (errors, and as many warnings), in the file's
   * order; past them a finding is counted in the summary only. A whole number from 0, or
   * `Infinity` for all. `check` makes 20 of each by default (the core's `SHOWN_DEFAULT`, as
   * `overbrainer-contract check` prints by default): a file of a million bad lines is 20
   * findings and its summary, every one counted there. `checkRecords` makes all by default. */
  maxFindings?: number;
}

/** A run folder's side file as it was read: its bytes, and when it was last written
 * (seconds since the epoch, as a file's `mtime`; a browser's `File.lastModified / 1000`).
 * `size`: the file's size, where only part of it was read (a file over the contract's
 * `max_bytes` is refused by its size, as the command line refuses it unread). */
export interface SideFileRead {
  bytes: Uint8Array;
  mtime: number;
  size?: number;
}

/** A side file there but refused unread, in the reader's words (`a symlink, not read`):
 * said in the snapshot's `problem`, after the file's name. */
export interface SideFileRefused {
  refused: string;
}

/** A run folder's side files, `snapshot.json` (`snapshot`) and `snapshot.request`
 * (`request`): each as read, or `undefined` / `null` where the file is absent. Given (either
 * key, even undefined), the run is a run folder's: the record's `snapshot` is the core's
 * state of these files (requested, pending, reason, the proof taken, what is wrong in
 * `check`'s words) and `valid` accounts for it, as `status` of the folder says; not given,
 * the run is its metrics file alone and `snapshot` is null. */
export interface SideFiles {
  snapshot?: SideFileRead | SideFileRefused | null | undefined;
  request?: SideFileRead | SideFileRefused | null | undefined;
}

/** Options of `status`. */
export interface StatusOptions extends CheckOptions, SideFiles {
  /** The time the status is told at, seconds since the epoch (the lines' clock): `--now`. */
  now: number;
  /** The run as the user named it (`run`); default `name`. */
  run?: string;
}

/** A run's status under way: fed its metrics file's bytes, told at any time now. */
export interface RunStatus {
  /** The run's name among the runs (`name`). */
  readonly name: string;
  /** More of the file; an `Error` when the bytes are gzip data where lines should be. */
  feed(chunk: Uint8Array): void;
  /** A gzip stream cut short (after `size` decompressed bytes: what a status made with
   * `check` says at the end): its lines are those before the cut. */
  gzipCut(size?: number): void;
  /** The end of the file: its last line, without its newline, read. */
  end(): void;
  /** The `StatusReport` of the lines fed so far at `now` (seconds since the epoch); `run`:
   * the run as the user named it (default `name`); `side`: a run folder's side files (see
   * `SideFiles`; not given, `snapshot` is null). */
  report(now: number, run?: string, side?: SideFiles): StatusReport;
  /** The numbers of the lines rejected since the last call (the reference rejects them, or
   * they are over `maxLine`), in order, the first 4,096 of them: a page shows their text
   * while it has their bytes. */
  rejected(): number[];
  /** The logs' series digested for a plot (a Status made with `digest`), of `keys` (every
   * key when not given; a key without points left out): each key's points drawn, at most 8
   * a bucket (see `Digest`). `{}` without `digest`. */
  digests(keys?: readonly string[]): Record<string, Digest>;
  /** The metric keys of the logs so far, in the order they came, those `keys` did not pick
   * included (`[]` without `digest`). */
  digestKeys(): string[];
  /** The records of the file's check (a Status made with `check`) made since the last call,
   * as `Check.feed` and `Check.end` make them of the same bytes: its findings, then, once
   * `end()` was called, its summary. An `Error` for a Status made without `check`. */
  findings(): CheckRecord[];
  /** Its memory given back (also when it is collected). */
  close(): void;
}

/** A metric's series digested by the core for a plot: bounded whatever the run's length,
 * it draws what every point draws at a plot's width. Consecutive points whose steps fall in
 * one span of `2 ** shift` steps form a bucket, of which the first, last, least and greatest
 * points are kept (M4), and the first of each non-finite word and of the gaps: a spike one
 * step wide and every non-finite marker are drawn at every width, the first and last points
 * exactly. `points`: `[step, value, time]` in the series' order, the value a number, a
 * non-finite value's word, or null for a gap (a scalar logged as null), the time its line's
 * (a plot's x-axis in time). */
export interface Digest {
  shift: number;
  /** The points folded into it. */
  count: number | bigint;
  points: [number | bigint, number | "NaN" | "Infinity" | "-Infinity" | null, number][];
}

/** A metrics file's check under way, fed its bytes as they come, synchronously: what a page
 * following a growing file keeps (nothing of the bytes it was fed). The records are those
 * `checkRecords` makes of the same bytes, in order. */
export interface RunCheck {
  /** The findings of the lines `chunk` completes (a `.gz` name: the bytes decompressed). */
  feed(chunk: Uint8Array): CheckRecord[];
  /** A `.gz` stream cut short after `size` decompressed bytes: said at the end. */
  gzipCut(size: number): void;
  /** The end of the file: the findings of its last line, then its summary. The check's
   * memory goes back. */
  end(): CheckRecord[];
  /** Its memory given back (also when it is collected). */
  close(): void;
}

export interface RunCheckConstructor {
  /** `name`, `maxLine` and `maxFindings` (every finding by default) as `checkRecords`
   * takes them. */
  new (options?: Omit<CheckOptions, "chunkSize">): RunCheck;
}

/** A Status's options: a metrics file's (`name`, `maxLine`), and `digest`: its logs' series
 * digested for a plot as they are fed, in at most that many buckets a key (`digests()`;
 * default none); `steps`: `[first, last]`, the logs digested only where their step is from
 * `first` to `last` (a plot zoomed in to them, at the digest's full resolution; default every
 * log's). */
export interface RunStatusOptions extends Omit<StatusOptions, "now" | "run"> {
  digest?: number;
  steps?: readonly [number | bigint, number | bigint];
  /** The file's check too, in the same pass over its bytes (each line read once, not once
   * for a Status and again for a Check): its records by `findings()`, made as a `Check` of
   * the same `name`, `maxLine` and `maxFindings` makes them (every finding by default). */
  check?: boolean;
  /** The keys whose series are digested: those the globs of this comma-separated list pick
   * (`loss,eval_*`, as `plot --metric` and the viewer's metrics field take them); every key
   * by default. A key not picked is listed by `digestKeys()`, with no point in `digests()`:
   * a page holds the points of the keys it shows only. */
  keys?: string;
}

export interface RunStatusConstructor {
  new (options?: RunStatusOptions): RunStatus;
}

export interface RunApi {
  /** The check of a metrics file: its findings in the file's order, at most
   * `options.maxFindings` of each severity (20 by default), then its summary, which counts
   * them all. */
  check(source: RunSource, options?: CheckOptions): Promise<CheckRecord[]>;
  /** The same records as they are made, in batches (never empty), the summary last, every
   * finding by default (`options.maxFindings`): a file of a million bad lines in flat
   * memory. */
  checkRecords(source: RunSource, options?: CheckOptions): AsyncGenerator<CheckRecord[], void, undefined>;
  /** A check fed as its file's bytes come, synchronously (a page following a file): the
   * records `checkRecords` makes, each call's own. */
  Check: RunCheckConstructor;
  /** The status of a run at `now`: its metrics file's bytes, and a run folder's side files
   * when `options` gives them (`snapshot`, `request`: see `SideFiles`; else `snapshot` null).
   * An `Error` for gzip data where lines should be (no run is read, as `status` refuses it). */
  status(source: RunSource, options: StatusOptions): Promise<StatusReport>;
  /** A status fed as its file grows, told again as time goes (a page's countdown). */
  Status: RunStatusConstructor;
  /** The words every face says a file's bad lines in: `7 invalid lines and the last line cut
   * short` (`invalid_lines`, `partial_last_line` of a status); `""` for none. */
  linesText(invalid: number, cut: boolean): string;
  /** The words every face says a followed file's change in, found at `path` (as the page
   * shows it): `runs/7/metrics.jsonl was truncated: reading it again from its start`. */
  changeText(change: FileChange, path: string): string;
  /** The rows `overbrainer-contract status --color never` prints for the run of `record` (a
   * `StatusReport`, as `status()` or `Status.report(now)` gives it), `[label, words][]`, word
   * for word: the words are told at the record's own `now` (tell the record again for
   * another time). `options.metrics`: the scalars asked for (`KEY[:last|min|max]`, as
   * `--metric`), a row each. Strings from the run's files are in the words as they are. */
  screen(record: StatusReport, options?: ViewOptions): [string, string][];
  /** A run's cells in `status`'s table of runs, in the order of `headings()` (a cell for each
   * scalar of `options.metrics` after the fifth). */
  cells(record: StatusReport, options?: ViewOptions): string[];
  /** The table's headings: those before the scalars asked for, and those after. */
  headings(): [string[], string[]];
  /** The line under the table of these runs: `3 runs, 1 ended, 1 invalid`. */
  footer(records: StatusReport[]): string;
  /** `x` as Python's `format(x, spec)` writes it, for the specifications the faces use: `,`
   * (a whole number), `.4g`, `.2f`, `.0%` (any count of digits). */
  formatNumber(x: number, spec: string): string;
  /** `seconds` as `status` writes a duration: `H:MM:SS` (days counted in hours), rounded to
   * the second, below zero `0:00:00`. */
  formatDuration(seconds: number): string;
}

/** The scalars a screen or a row shows besides the record's own fields. */
export interface ViewOptions {
  metrics?: string[];
}

/** What a look at a followed file found there other than new bytes. */
export type FileChange = "truncated" | "rewritten" | "replaced" | "removed" | "back";

/** The module's run-level exports (core/wasm/src/reports.rs). */
export interface RunExports {
  ob_check_new(nameLen: number, raw: number, hasMax: number, maxLine: number, hasShown: number, shown: number): number;
  ob_check_feed(id: number, len: number): number;
  ob_check_gzip_cut(id: number, size: number): number;
  ob_check_finish(id: number): number;
  ob_check_free(id: number): void;
  ob_status_new(
    raw: number,
    hasMax: number,
    maxLine: number,
    digest: number,
    hasSteps: number,
    first: bigint,
    last: bigint,
    check: number,
    nameLen: number,
    hasShown: number,
    shown: number,
    hasKeys: number,
    keysLen: number,
  ): number;
  ob_status_findings(id: number): number;
  ob_status_rejected(id: number): number;
  ob_status_digests(id: number, keysLen: number, all: number): number;
  ob_status_digest_keys(id: number): number;
  ob_status_feed(id: number, len: number): number;
  ob_status_gzip_cut(id: number, size: number): number;
  ob_status_finish(id: number): number;
  ob_status_report(id: number, runLen: number, nameLen: number, now: number): number;
  ob_status_report_side(
    id: number,
    runLen: number,
    nameLen: number,
    now: number,
    present: number,
    requestLen: number,
    requestMtime: number,
    requestSize: number,
    proofLen: number,
    proofMtime: number,
    proofSize: number,
  ): number;
  ob_status_free(id: number): void;
  ob_lines_text(invalid: number, cut: number): void;
  ob_change_text(nameLen: number, pathLen: number): number;
  ob_gzip_not_named_text(stdin: number): void;
  ob_screen(recordLen: number, askedLen: number): number;
  ob_cells(recordLen: number, askedLen: number): number;
  ob_headings(): number;
  ob_footer(len: number): number;
  ob_format(x: number, specLen: number): number;
  ob_duration(seconds: number): void;
}

/** How the glue reaches the module: bytes into its input (their length there), and its last
 * output as text. */
export interface Io {
  put(data: string | Uint8Array): number;
  text(): string;
  chunks(source: RunSource, size: number): AsyncGenerator<Uint8Array, void, undefined>;
}

const encoder = new TextEncoder();

/** The bytes of `source`, decompressed when `name` says gzip (`.gz`), and whether the stream
 * was cut short (its decompressed size so far). */
async function* bytesOf(
  io: Io,
  source: RunSource,
  name: string,
  size: number,
  cut: { size: number | null },
): AsyncGenerator<Uint8Array, void, undefined> {
  if (!name.endsWith(".gz")) {
    yield* io.chunks(source, size);
    return;
  }
  const compressed = io.chunks(source, size);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await compressed.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  }).pipeThrough(new DecompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
  const reader = stream.getReader();
  let given = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      given += value.length;
      yield value;
    }
  } catch (error) {
    // A stream that ends before its end, every byte it held given: zlib's words (Node),
    // "Compressed input was truncated." (Chromium).
    if (error instanceof Error && /unexpected end|truncated/i.test(error.message)) {
      cut.size = given;
      return;
    }
    throw error;
  } finally {
    reader.releaseLock();
  }
}

/** A count as a u64, exactly: a whole number or a bigint, from 0 to 2^64 - 1; else null. */
export function asU64(value: unknown): bigint | null {
  if (typeof value === "bigint") return value >= 0n && value < 1n << 64n ? value : null;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value < 2 ** 64) return BigInt(value);
  return null;
}

function bound(maxLine: number | null | undefined): [number, number] {
  if (maxLine === null || maxLine === undefined) return [0, 0];
  if (!(Number.isInteger(maxLine) && maxLine >= 0)) {
    throw new TypeError(`maxLine is a number of bytes (an integer from 0) or null, not ${String(maxLine)}`);
  }
  return [1, maxLine];
}

/** A string, or an integer of 16 digits or more (a whole number token, not a float's
 * digits), in the core's JSON: beyond 2^53 an integer is kept exact as a bigint (a count, a
 * step: the core writes every digit). */
const TOKENS = /"(?:[^"\\]|\\.)*"|(?<![0-9.eE+-])-?[0-9]{16,}(?![.eE0-9])/g;
const BIG = "\u0000big:";

/** Whether a value parsed holds a number that is an integer beyond 2^53 - 1 (either sign):
 * what an integer token past it parses to, and what nothing else exact does. Walked without
 * recursion, each value once. */
function beyondSafe(value: unknown): boolean {
  const left: unknown[] = [value];
  while (left.length > 0) {
    const each = left.pop();
    if (typeof each === "number") {
      if (Number.isInteger(each) && !Number.isSafeInteger(each)) return true;
    } else if (Array.isArray(each)) {
      for (const item of each) left.push(item);
    } else if (each !== null && typeof each === "object") {
      for (const item of Object.values(each)) left.push(item);
    }
  }
  return false;
}

/** The core's JSON as values, every integer exact: a `number` up to 2^53 - 1, a `bigint`
 * beyond (as the package's reader gives a u64). */
export function parseExact(text: string): unknown {
  // Parsed as numbers first: where no number is an integer past 2^53 - 1, every integer
  // token was one up to it, read exactly (a float's many digits are no such token). Only
  // otherwise is the text read again, its integer tokens past 2^53 - 1 as bigints.
  const parsed: unknown = JSON.parse(text);
  if (!beyondSafe(parsed)) return parsed;
  let big = false;
  const marked = text.replace(TOKENS, (token) => {
    if (token.startsWith('"')) return token;
    big = true;
    return `"\\u0000big:${token}"`; // JSON's escape of BIG's first character
  });
  if (!big) return parsed;
  return JSON.parse(marked, (_, value: unknown) => {
    if (typeof value !== "string" || !value.startsWith(BIG)) return value;
    const exact = BigInt(value.slice(BIG.length));
    return exact <= BigInt(Number.MAX_SAFE_INTEGER) && exact >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(exact) : exact;
  });
}

/** A value as the core's JSON, every integer exact: a `bigint` written as its digits (the
 * other values as `JSON.stringify` writes them; `undefined` in an object left out). */
export function stringifyExact(value: unknown): string {
  try {
    // a record without a bigint (the usual one): at once
    return JSON.stringify(value) ?? "null";
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  return written(value);
}

function written(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map((each) => (each === undefined ? "null" : written(each))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const fields: string[] = [];
    for (const [key, each] of Object.entries(value)) {
      if (each !== undefined) fields.push(`${JSON.stringify(key)}:${written(each)}`);
    }
    return `{${fields.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function records(text: string): CheckRecord[] {
  const found: CheckRecord[] = [];
  if (text === "") return found;
  for (const line of text.split("\n")) if (line !== "") found.push(parseExact(line) as CheckRecord);
  return found;
}

/** `maxFindings` for the core: `[0, 0]` for its default, `[1, n]` for `n`, `Infinity` all. */
function shownOf(maxFindings: number | undefined, all: boolean): [number, number] {
  if (maxFindings === undefined) return all ? [1, Infinity] : [0, 0];
  if (!(maxFindings === Infinity || (Number.isInteger(maxFindings) && maxFindings >= 0))) {
    throw new TypeError(`maxFindings is a number of findings (an integer from 0, or Infinity), not ${String(maxFindings)}`);
  }
  return [1, maxFindings];
}

/** A side file as the glue hands it over: read, refused, or `null` where it is absent. */
type SideFile = SideFileRead | SideFileRefused | null;

/** A side file as given, checked: `null` where it is absent. */
function sideFile(given: SideFileRead | SideFileRefused | null | undefined, key: string): SideFile {
  if (given === undefined || given === null) return null;
  if ("refused" in given && typeof given.refused === "string") return given;
  const read = given as SideFileRead;
  const size = read.size === undefined || (typeof read.size === "number" && read.size >= 0);
  if (!(read.bytes instanceof Uint8Array) || typeof read.mtime !== "number" || !Number.isFinite(read.mtime) || !size) {
    throw new TypeError(`${key} is a side file as read, {bytes: Uint8Array, mtime: seconds since the epoch, size?}, or {refused: words}, or absent`);
  }
  return read;
}

/** The bytes a side file puts in the core's input: its own, or the words it was refused in. */
function sideBytes(file: SideFile): Uint8Array {
  if (file === null) return new Uint8Array(0);
  return "refused" in file ? encoder.encode(file.refused) : file.bytes;
}

/** The bits of `present` for one side file: `there` when it is, `refused` too when refused. */
function presence(file: SideFile, there: number, refused: number): number {
  if (file === null) return 0;
  return "refused" in file ? there | refused : there;
}

export function bindRun(ex: RunExports, io: Io): RunApi {
  /** The check's records as they are made, in batches (never empty); the summary last. `all`:
   * every finding unless `options.maxFindings` says otherwise (else the core's default). */
  async function* madeRecords(source: RunSource, options: CheckOptions, all: boolean): AsyncGenerator<CheckRecord[], void, undefined> {
    const { name = "-", maxLine = null, chunkSize = 1 << 20, maxFindings } = options;
    const [hasMax, max] = bound(maxLine);
    const [hasShown, shown] = shownOf(maxFindings, all);
    const gz = name.endsWith(".gz");
    const id = ex.ob_check_new(io.put(name), gz ? 0 : 1, hasMax, max, hasShown, shown);
    try {
      const cut = { size: null as number | null };
      for await (const chunk of bytesOf(io, source, name, chunkSize, cut)) {
        ex.ob_check_feed(id, io.put(chunk));
        const found = records(io.text());
        if (found.length > 0) yield found;
      }
      if (cut.size !== null) ex.ob_check_gzip_cut(id, cut.size);
      ex.ob_check_finish(id);
      yield records(io.text());
    } finally {
      ex.ob_check_free(id);
    }
  }

  const checks = new FinalizationRegistry<number>((id) => ex.ob_check_free(id));

  /** A check fed synchronously: the same handle `madeRecords` drives, without its loop. */
  class Check implements RunCheck {
    #id: number | null;

    constructor(options: Omit<CheckOptions, "chunkSize"> = {}) {
      const { name = "-", maxLine = null, maxFindings } = options;
      const [hasMax, max] = bound(maxLine);
      const [hasShown, shown] = shownOf(maxFindings, true);
      this.#id = ex.ob_check_new(io.put(name), name.endsWith(".gz") ? 0 : 1, hasMax, max, hasShown, shown);
      checks.register(this, this.#id, this);
    }

    #open(): number {
      if (this.#id === null) throw new Error("this check has ended (or is closed)");
      return this.#id;
    }

    feed(chunk: Uint8Array): CheckRecord[] {
      if (!(chunk instanceof Uint8Array)) throw new TypeError(`Check.feed takes a Uint8Array, not ${typeof chunk}`);
      ex.ob_check_feed(this.#open(), io.put(chunk));
      return records(io.text());
    }

    gzipCut(size: number): void {
      ex.ob_check_gzip_cut(this.#open(), size);
    }

    end(): CheckRecord[] {
      ex.ob_check_finish(this.#open());
      const found = records(io.text());
      this.close();
      return found;
    }

    close(): void {
      if (this.#id === null) return;
      checks.unregister(this);
      ex.ob_check_free(this.#id);
      this.#id = null;
    }
  }

  function checkRecords(source: RunSource, options: CheckOptions = {}): AsyncGenerator<CheckRecord[], void, undefined> {
    return madeRecords(source, options, true);
  }

  async function check(source: RunSource, options: CheckOptions = {}): Promise<CheckRecord[]> {
    const found: CheckRecord[] = [];
    for await (const batch of madeRecords(source, options, false)) for (const record of batch) found.push(record);
    return found;
  }

  const registry = new FinalizationRegistry<number>((id) => ex.ob_status_free(id));

  /** A run's status as its metrics file is fed (`feed`, `end`), told at any time now. */
  class Status implements RunStatus {
    #id: number | null;
    #ended = false;
    readonly name: string;

    constructor(options: RunStatusOptions = {}) {
      const { name = "-", maxLine = null, digest = 0, steps, check = false, maxFindings, keys } = options;
      if (keys !== undefined && typeof keys !== "string") throw new TypeError(`keys is a comma-separated list of globs, not ${String(keys)}`);
      const [hasMax, max] = bound(maxLine);
      if (!Number.isInteger(digest) || digest < 0 || digest > 0xffff_ffff) {
        throw new TypeError(`digest is a count of buckets, a whole number from 0, not ${String(digest)}`);
      }
      let range: [bigint, bigint] = [0n, 0n];
      if (steps !== undefined) {
        const given = steps as readonly unknown[];
        const first = Array.isArray(given) && given.length === 2 ? asU64(given[0]) : null;
        const last = Array.isArray(given) && given.length === 2 ? asU64(given[1]) : null;
        if (first === null || last === null || first > last) {
          throw new TypeError(`steps is [first, last], two steps from 0 to 2^64 - 1, the first not after the last, not ${String(steps)}`);
        }
        range = [first, last];
      }
      this.name = name;
      const [hasShown, shown] = shownOf(maxFindings, true);
      // the input: the name (for the check), then the globs
      const nameBytes = check ? encoder.encode(name) : new Uint8Array(0);
      const keysBytes = encoder.encode(keys ?? "");
      const input = new Uint8Array(nameBytes.length + keysBytes.length);
      input.set(nameBytes);
      input.set(keysBytes, nameBytes.length);
      io.put(input);
      const raw = name.endsWith(".gz") ? 0 : 1;
      const ranged = steps === undefined ? 0 : 1;
      const picked = keys === undefined ? 0 : 1;
      this.#id = ex.ob_status_new(raw, hasMax, max, digest, ranged, range[0], range[1], check ? 1 : 0, nameBytes.length, hasShown, shown, picked, keysBytes.length);
      registry.register(this, this.#id, this);
    }

    #open(): number {
      if (this.#id === null) throw new Error("this status is closed");
      return this.#id;
    }

    feed(chunk: Uint8Array): void {
      if (this.#ended) throw new Error("this status's input has ended");
      if (ex.ob_status_feed(this.#open(), io.put(chunk)) === 2) {
        // The core's words for such bytes: what `check` reports of them.
        ex.ob_gzip_not_named_text(this.name === "-" ? 1 : 0);
        throw new Error(`${this.name}: ${io.text()}`);
      }
    }

    gzipCut(size = 0): void {
      ex.ob_status_gzip_cut(this.#open(), size);
    }

    end(): void {
      if (!this.#ended) ex.ob_status_finish(this.#open());
      this.#ended = true;
    }

    report(now: number, run: string = this.name, side?: SideFiles): StatusReport {
      if (typeof now !== "number" || !Number.isFinite(now)) {
        throw new TypeError(`a status is told at now, seconds since the epoch (a finite number), not ${String(now)}`);
      }
      const id = this.#open();
      const runBytes = encoder.encode(run);
      const nameBytes = encoder.encode(this.name);
      const request = side === undefined ? null : sideFile(side.request, "request");
      const proof = side === undefined ? null : sideFile(side.snapshot, "snapshot");
      const requestBytes = sideBytes(request);
      const proofBytes = sideBytes(proof);
      const input = new Uint8Array(runBytes.length + nameBytes.length + requestBytes.length + proofBytes.length);
      input.set(runBytes);
      input.set(nameBytes, runBytes.length);
      input.set(requestBytes, runBytes.length + nameBytes.length);
      input.set(proofBytes, runBytes.length + nameBytes.length + requestBytes.length);
      io.put(input);
      if (side === undefined) {
        ex.ob_status_report(id, runBytes.length, nameBytes.length, now);
      } else {
        const present = presence(request, 1, 4) | presence(proof, 2, 8);
        const read = (file: SideFile): [number, number] => (file === null || "refused" in file ? [0, 0] : [file.mtime, file.size ?? 0]);
        ex.ob_status_report_side(id, runBytes.length, nameBytes.length, now, present, requestBytes.length, ...read(request), proofBytes.length, ...read(proof));
      }
      return parseExact(io.text()) as StatusReport;
    }

    rejected(): number[] {
      ex.ob_status_rejected(this.#open());
      return (parseExact(io.text()) as (number | bigint)[]).map(Number);
    }

    digests(keys?: readonly string[]): Record<string, Digest> {
      const id = this.#open();
      if (keys === undefined) ex.ob_status_digests(id, 0, 1);
      else ex.ob_status_digests(id, io.put(JSON.stringify(keys)), 0);
      return parseExact(io.text()) as Record<string, Digest>;
    }

    digestKeys(): string[] {
      ex.ob_status_digest_keys(this.#open());
      return JSON.parse(io.text()) as string[];
    }

    findings(): CheckRecord[] {
      if (ex.ob_status_findings(this.#open()) === 2) throw new Error("this status was made without check: its findings are a Check's");
      return records(io.text());
    }

    close(): void {
      if (this.#id === null) return;
      registry.unregister(this);
      ex.ob_status_free(this.#id);
      this.#id = null;
    }
  }

  async function status(source: RunSource, options: StatusOptions): Promise<StatusReport> {
    const { chunkSize = 1 << 20, now, run, snapshot, request, ...rest } = options;
    const side = "snapshot" in options || "request" in options ? { snapshot, request } : undefined;
    if (side !== undefined) {
      sideFile(snapshot, "snapshot"); // a bad one refused before the file is read
      sideFile(request, "request");
    }
    const told = new Status(rest);
    try {
      const cut = { size: null as number | null };
      for await (const chunk of bytesOf(io, source, told.name, chunkSize, cut)) told.feed(chunk);
      if (cut.size !== null) told.gzipCut(cut.size);
      told.end();
      return told.report(now, run, side);
    } finally {
      told.close();
    }
  }

  function linesText(invalid: number, cut: boolean): string {
    if (!(Number.isInteger(invalid) && invalid >= 0)) throw new TypeError(`invalid is a count of lines, not ${String(invalid)}`);
    ex.ob_lines_text(invalid, cut ? 1 : 0);
    return io.text();
  }

  function changeText(change: FileChange, path: string): string {
    const nameBytes = encoder.encode(String(change));
    const pathBytes = encoder.encode(String(path));
    const both = new Uint8Array(nameBytes.length + pathBytes.length);
    both.set(nameBytes);
    both.set(pathBytes, nameBytes.length);
    io.put(both);
    if (ex.ob_change_text(nameBytes.length, pathBytes.length) === 0) throw new TypeError(`no such change of a file: ${JSON.stringify(String(change))}`);
    return io.text();
  }

  /** The record and the scalars asked for in the input: their lengths. */
  function putView(record: StatusReport, options: ViewOptions | undefined): [number, number] {
    const metrics = options?.metrics ?? [];
    if (!Array.isArray(metrics) || !metrics.every((each) => typeof each === "string")) {
      throw new TypeError("metrics is an array of KEY[:last|min|max] texts");
    }
    // the words read no scalar but those asked for (`KEY`, or the text before its last `:`),
    // nor the summary: a record of 100,000 keys is not written out for a screen of 12 rows
    const all = (record.scalars ?? {}) as Record<string, unknown>;
    const scalars: Record<string, unknown> = {};
    for (const text of metrics) {
      const colon = text.lastIndexOf(":");
      for (const key of colon < 0 ? [text] : [text, text.slice(0, colon)]) {
        if (Object.hasOwn(all, key)) scalars[key] = all[key];
      }
    }
    const recordBytes = encoder.encode(stringifyExact({ ...record, scalars, summary: null }));
    const askedBytes = encoder.encode(metrics.length === 0 ? "" : JSON.stringify(metrics));
    const both = new Uint8Array(recordBytes.length + askedBytes.length);
    both.set(recordBytes);
    both.set(askedBytes, recordBytes.length);
    io.put(both);
    return [recordBytes.length, askedBytes.length];
  }

  function viewed<T>(done: number): T {
    if (done === 0) throw new TypeError("not a StatusReport (the record status() gives)");
    return JSON.parse(io.text()) as T;
  }

  function screen(record: StatusReport, options?: ViewOptions): [string, string][] {
    const [recordLen, askedLen] = putView(record, options);
    return viewed(ex.ob_screen(recordLen, askedLen));
  }

  function cells(record: StatusReport, options?: ViewOptions): string[] {
    const [recordLen, askedLen] = putView(record, options);
    return viewed(ex.ob_cells(recordLen, askedLen));
  }

  function headings(): [string[], string[]] {
    return viewed(ex.ob_headings());
  }

  function footer(records: StatusReport[]): string {
    return viewed(ex.ob_footer(io.put(encoder.encode(stringifyExact(records)))));
  }

  function formatNumber(x: number, spec: string): string {
    if (typeof x !== "number") throw new TypeError(`formatNumber formats a number, not ${typeof x}`);
    if (ex.ob_format(x, io.put(encoder.encode(String(spec)))) === 0) {
      throw new TypeError(`no such format for ${String(x)}: ${JSON.stringify(String(spec))} (",", ".Ng", ".Nf" or ".N%")`);
    }
    return io.text();
  }

  function formatDuration(seconds: number): string {
    if (typeof seconds !== "number") throw new TypeError(`formatDuration formats a number of seconds, not ${typeof seconds}`);
    ex.ob_duration(seconds);
    return io.text();
  }

  return { check, checkRecords, Check, status, Status, linesText, changeText, screen, cells, headings, footer, formatNumber, formatDuration };
}

// The package's main entry, for Node: the reader core's WebAssembly module shipped beside this
// file, loaded once at import (top-level await), so that no call needs an init first.
//
//   import { parseLine, ParseError, mark, dumpLine, Pace, Reader, readLines, check, status } from "overbrainer-contract";
//
// Elsewhere (a browser page, a worker, a bundle that inlines the module): `load(bytes)` from
// "overbrainer-contract/core" gives the same API from the module's bytes.

import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { load } from "./core.js";
import type { Answer, Api, Pace as PaceType, Reader as ReaderType, ReaderOptions, Source } from "./core.js";
import type { Reply, Request } from "./worker.js";

export { ParseError, load } from "./core.js";
export type { Band, BandPoints, Entry, Section, Unit } from "./names.js";
export type {
  Answer,
  Api,
  BeginLine,
  Category,
  CheckOptions,
  CheckRecord,
  Duration,
  EndLine,
  EvalLine,
  FileChange,
  JobStage,
  Known,
  Line,
  LogLine,
  Mark,
  MetricLine,
  PaceConstructor,
  ReaderConstructor,
  ReaderOptions,
  ReportFile,
  ReportFinding,
  Source,
  StageLine,
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
  U64,
  ViewOptions,
} from "./core.js";

const module = await WebAssembly.compile(await readFile(new URL("./overbrainer_core.wasm", import.meta.url)));
const api: Api = await load(module);

/** `readLines`'s options in Node: the reader's, the size of a chunk read, and the threads. */
export interface ReadOptions extends ReaderOptions {
  /** Bytes fed to a reader at a time (default 1 MiB). */
  chunkSize?: number;
  /** For a `Uint8Array` source: how many threads answer its lines, each with its own instance
   * of the module, handed pieces of complete lines in turn, the answers handed over in order
   * (the same answers as one reader's: they do not depend on how the input is cut). Default:
   * the machine's parallelism (at most 8) for 16 MiB and more, else 1. */
  threads?: number;
}

const THREADED = 16 << 20;
/** The pieces a worker is handed ahead of the reading. */
const AHEAD = 3;

/** Where `data` is cut in `count` pieces: about equal, each but the last ending in a newline (the
 * core's `scan::parts`). */
function parts(data: Uint8Array, count: number): [number, number][] {
  const found: [number, number][] = [];
  const size = Math.floor(data.length / count) + 1;
  let start = 0;
  while (start < data.length) {
    const goal = Math.min(start + size, data.length);
    const newline = goal >= data.length ? -1 : data.indexOf(0x0a, goal - 1);
    const end = newline < 0 ? data.length : newline + 1;
    found.push([start, end]);
    start = end;
  }
  return found;
}

/** The answers of `data`'s lines, read by worker threads: the data cut in pieces of about
 * `chunkSize` bytes after a newline, handed to the workers in turn, a few ahead of the reading
 * (the next piece goes when one is read), each piece's records read here in the data's order. */
async function* threaded(data: Uint8Array, options: ReadOptions, threads: number): AsyncGenerator<Answer[], void, undefined> {
  const { maxLine = null, chunkSize = 1 << 20 } = options;
  const pieces = parts(data, Math.max(threads, Math.ceil(data.length / chunkSize)));
  const workers = Array.from({ length: Math.min(threads, pieces.length) }, () => {
    const worker = new Worker(new URL("./worker.js", import.meta.url), { workerData: { module } });
    const state = { worker, replies: [] as Reply[], failed: null as unknown, wake: (): void => {} };
    worker.on("message", (reply: Reply) => {
      state.replies.push(reply);
      state.wake();
    });
    worker.on("error", (error) => {
      state.failed = error;
      state.wake();
    });
    return state;
  });
  const buffers: ArrayBuffer[] = []; // pieces' buffers given back
  const spares: ArrayBuffer[] = []; // records' buffers read
  let sent = 0;
  const send = (): void => {
    const [start, end] = pieces[sent]!;
    const size = end - start;
    const at = buffers.findIndex((buffer) => buffer.byteLength >= size);
    const buffer = at < 0 ? new ArrayBuffer(size) : buffers.splice(at, 1)[0]!;
    const piece = new Uint8Array(buffer, 0, size);
    piece.set(data.subarray(start, end)); // a copy, transferred
    const spare = spares.pop() ?? null;
    const request: Request = { piece, maxLine, spare };
    workers[sent % workers.length]!.worker.postMessage(request, spare === null ? [buffer] : [buffer, spare]);
    sent += 1;
  };
  try {
    while (sent < Math.min(pieces.length, workers.length * AHEAD)) send();
    let first = 1;
    for (let index = 0; index < pieces.length; index += 1) {
      const state = workers[index % workers.length]!;
      let reply = state.replies.shift();
      while (reply === undefined) {
        if (state.failed !== null) throw state.failed;
        await new Promise<void>((resolve) => {
          state.wake = resolve;
        });
        reply = state.replies.shift();
      }
      if (sent < pieces.length) send(); // one piece read: the next goes
      const found = api.readRecords(reply.records, first);
      buffers.push(reply.piece);
      spares.push(reply.records.buffer as ArrayBuffer); // read: nothing answered holds it
      first += found.length;
      if (found.length > 0) yield found;
      // The workers' messages are events, handled only when this thread goes back to its
      // event loop: go back now, so that their replies come in while this thread reads.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    for (const state of workers) void state.worker.terminate();
  }
}

/** Every line of `source` answered, in batches (never empty); a large `Uint8Array` is read by
 * several threads (`options.threads`). */
function readLinesNode(source: Source, options: ReadOptions = {}): AsyncGenerator<Answer[], void, undefined> {
  const { threads: given, ...rest } = options;
  const threads =
    given ?? (source instanceof Uint8Array && source.length >= THREADED ? Math.min(availableParallelism(), 8) : 1);
  if (!Number.isInteger(threads) || threads < 1) throw new TypeError(`threads is a whole number from 1, not ${threads}`);
  if (threads === 1 || !(source instanceof Uint8Array)) return api.readLines(source, rest);
  return threaded(source, rest, threads);
}

export const parseLine: Api["parseLine"] = api.parseLine;
export const mark: Api["mark"] = api.mark;
export const dumpLine: Api["dumpLine"] = api.dumpLine;
export const readLines: (source: Source, options?: ReadOptions) => AsyncGenerator<Answer[], void, undefined> = readLinesNode;
export const check: Api["check"] = api.check;
export const checkRecords: Api["checkRecords"] = api.checkRecords;
export const Check: Api["Check"] = api.Check;
export const status: Api["status"] = api.status;
export const Status: Api["Status"] = api.Status;
export const linesText: Api["linesText"] = api.linesText;
export const changeText: Api["changeText"] = api.changeText;
export const screen: Api["screen"] = api.screen;
export const cells: Api["cells"] = api.cells;
export const headings: Api["headings"] = api.headings;
export const footer: Api["footer"] = api.footer;
export const formatNumber: Api["formatNumber"] = api.formatNumber;
export const formatDuration: Api["formatDuration"] = api.formatDuration;
export const matchPattern: Api["matchPattern"] = api.matchPattern;
export const naturalCompare: Api["naturalCompare"] = api.naturalCompare;
export const naturalOrder: Api["naturalOrder"] = api.naturalOrder;
export const runNames: Api["runNames"] = api.runNames;
export const unitOf: Api["unitOf"] = api.unitOf;
export const labelsOf: Api["labelsOf"] = api.labelsOf;
export const labelOf: Api["labelOf"] = api.labelOf;
export const LABEL_CHARS: Api["LABEL_CHARS"] = api.LABEL_CHARS;
export const DEFAULT_PATTERNS: Api["DEFAULT_PATTERNS"] = api.DEFAULT_PATTERNS;
export const patternsOf: Api["patternsOf"] = api.patternsOf;
export const pickKeys: Api["pickKeys"] = api.pickKeys;
export const sections: Api["sections"] = api.sections;
export const groupEntries: Api["groupEntries"] = api.groupEntries;
export const band: Api["band"] = api.band;
export const Pace: Api["Pace"] = api.Pace;
export type Pace = PaceType;
export const Reader: Api["Reader"] = api.Reader;
export type Reader = ReaderType;

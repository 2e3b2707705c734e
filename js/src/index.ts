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
  RunStatus,
  RunStatusConstructor,
  StatusOptions,
  StatusReport,
  U64,
} from "./core.js";

const module = await WebAssembly.compile(await readFile(new URL("./overbrainer_core.wasm", import.meta.url)));
const api: Api = await load(module);

/** `readLines`'s options in Node: the reader's, the size of a chunk read, and the threads. */
export interface ReadOptions extends ReaderOptions {
  /** Bytes fed to a reader at a time (default 1 MiB). */
  chunkSize?: number;
  /** For a `Uint8Array` source: how many threads answer its lines, each a part of complete
   * lines with its own instance of the module, the answers handed over in order (the same
   * answers as one reader's: they do not depend on how the input is cut). Default: the
   * machine's parallelism (at most 8) for 16 MiB and more, else 1. */
  threads?: number;
}

const THREADED = 16 << 20;
/** The pieces of its part a worker holds ahead of its reading. */
const AHEAD = 3;

/** Where `data` is cut for `count` threads: about equal parts, each but the last ending in a
 * newline (the core's `scan::parts`). */
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

/** The answers of `data`'s lines, its parts read by worker threads (see `ReadOptions.threads`). */
async function* threaded(data: Uint8Array, options: ReadOptions, threads: number): AsyncGenerator<Answer[], void, undefined> {
  const { maxLine = null, chunkSize = 1 << 20 } = options;
  const queues = parts(data, threads).map(([start, end]) => {
    const worker = new Worker(new URL("./worker.js", import.meta.url), { workerData: { module } });
    const queue = {
      worker,
      records: [] as Uint8Array[],
      /** Records' buffers read, to go back with the next piece. */
      spares: [] as ArrayBuffer[],
      done: false,
      failed: null as unknown,
      wake: (): void => {},
    };
    const pieces: ArrayBuffer[] = []; // pieces' buffers given back
    let next = start; // the part's bytes not yet sent
    const send = (): void => {
      if (next >= end) {
        if (next === end) worker.postMessage({ kind: "end" } satisfies Request);
        next = end + 1;
        return;
      }
      const stop = Math.min(next + chunkSize, end);
      const piece = new Uint8Array(pieces.pop() ?? new ArrayBuffer(chunkSize), 0, stop - next);
      piece.set(data.subarray(next, stop)); // a copy, transferred
      next = stop;
      const spare = queue.spares.pop() ?? null;
      const moved = [piece.buffer as ArrayBuffer, ...(spare === null ? [] : [spare])];
      worker.postMessage({ kind: "piece", piece, spare } satisfies Request, moved);
    };
    worker.on("message", ({ records, done, piece }: Reply) => {
      queue.records.push(records);
      queue.done ||= done;
      if (piece !== null) pieces.push(piece);
      if (!done) send(); // a piece answered: the next one goes
      queue.wake();
    });
    worker.on("error", (error) => {
      queue.failed = error;
      queue.wake();
    });
    worker.postMessage({ kind: "begin", maxLine } satisfies Request);
    for (let ahead = 0; ahead < AHEAD; ahead += 1) send();
    return queue;
  });
  let first = 1;
  try {
    for (const queue of queues) {
      for (;;) {
        const records = queue.records.shift();
        if (records !== undefined) {
          const found = api.readRecords(records, first);
          queue.spares.push(records.buffer as ArrayBuffer); // read: nothing answered holds it
          first += found.length;
          if (found.length > 0) yield found;
          // The workers' messages are events, handled only when this thread goes back to its
          // event loop: go back now, so that each worker gets its next pieces while this thread
          // reads what is queued, whichever part it is reading.
          await new Promise<void>((resolve) => setImmediate(resolve));
        } else if (queue.failed !== null) {
          throw queue.failed;
        } else if (queue.done) {
          break;
        } else {
          await new Promise<void>((resolve) => {
            queue.wake = resolve;
          });
        }
      }
      void queue.worker.terminate();
    }
  } finally {
    for (const queue of queues) void queue.worker.terminate();
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
export const status: Api["status"] = api.status;
export const Status: Api["Status"] = api.Status;
export const linesText: Api["linesText"] = api.linesText;
export const changeText: Api["changeText"] = api.changeText;
export const Pace: Api["Pace"] = api.Pace;
export type Pace = PaceType;
export const Reader: Api["Reader"] = api.Reader;
export type Reader = ReaderType;

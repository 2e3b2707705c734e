// A thread of the Node entry's threaded `readLines` (index.ts): one instance of the module, a part
// of a file (complete lines) read by its own reader (the core's `Scan`). The part comes in pieces,
// a few ahead of the reading (the main thread sends the next when a piece's answers come back), and
// the records of each piece's answers are posted back as they are made. Pieces and records are
// transferred, never copied across, and their buffers go back and forth to be used again: a new
// buffer costs its pages, and the garbage collector's attention, more than the copy into it.

import { parentPort, workerData } from "node:worker_threads";

interface Exports {
  memory: WebAssembly.Memory;
  ob_input(len: number): number;
  ob_output(): number;
  ob_output_len(): number;
  ob_reader_new(hasMax: number, maxLine: number): number;
  ob_reader_feed(id: number, len: number): number;
  ob_reader_finish(id: number): number;
  ob_reader_free(id: number): void;
}

/** What the main thread sends, in order: how to answer the part's lines, its pieces, its end;
 * with a piece, a buffer of records it is done with (`spare`), to write the next ones into. */
export type Request =
  | { kind: "begin"; maxLine: number | null }
  | { kind: "piece"; piece: Uint8Array; spare: ArrayBuffer | null }
  | { kind: "end" };

/** What the worker posts: a piece's records (`done`: the part's last), and the piece's buffer
 * given back. */
export interface Reply {
  records: Uint8Array;
  done: boolean;
  piece: ArrayBuffer | null;
}

const port = parentPort;
if (port === null) throw new Error("worker.js runs as a worker thread of overbrainer-contract's readLines");
const { module } = workerData as { module: WebAssembly.Module };
const ex = (await WebAssembly.instantiate(module, {})).exports as unknown as Exports;

const spares: ArrayBuffer[] = []; // records' buffers given back

/** The records the last call wrote, copied out of the module's memory (into a spare buffer
 * where one is large enough). */
function records(): Uint8Array {
  const start = ex.ob_output() >>> 0;
  const length = ex.ob_output_len() >>> 0;
  const written = new Uint8Array(ex.memory.buffer, start, length);
  const spare = spares.pop();
  if (spare === undefined || spare.byteLength < length) return written.slice();
  const into = new Uint8Array(spare, 0, length);
  into.set(written);
  return into;
}

function post(done: boolean, piece: ArrayBuffer | null): void {
  const found = records();
  const moved = [found.buffer as ArrayBuffer, ...(piece === null ? [] : [piece])];
  port!.postMessage({ records: found, done, piece } satisfies Reply, moved);
}

let id: number | null = null; // the part's reader
port.on("message", (request: Request) => {
  if (request.kind === "begin") {
    id = ex.ob_reader_new(request.maxLine === null ? 0 : 1, request.maxLine ?? 0);
    return;
  }
  if (id === null) throw new Error("a piece of a part that did not begin");
  if (request.kind === "piece") {
    const chunk = request.piece;
    if (request.spare !== null) spares.push(request.spare);
    const into = ex.ob_input(chunk.length) >>> 0;
    new Uint8Array(ex.memory.buffer, into, chunk.length).set(chunk);
    ex.ob_reader_feed(id, chunk.length);
    post(false, chunk.buffer as ArrayBuffer);
    return;
  }
  try {
    ex.ob_reader_finish(id);
    post(true, null);
  } finally {
    ex.ob_reader_free(id);
    id = null;
  }
});

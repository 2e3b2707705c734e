// A thread of the Node entry's threaded `readLines` (index.ts): one instance of the module, which
// answers the pieces of a file it is sent (each of complete lines, but the file's last), one
// reader (the core's `Scan`) each, and posts back each piece's records. Pieces and records are
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

/** A piece to answer, how (the user's bound on a line), and a buffer of records the main
 * thread is done with (`spare`), to write these into. */
export interface Request {
  piece: Uint8Array;
  maxLine: number | null;
  spare: ArrayBuffer | null;
}

/** A piece's records, and its buffer given back. */
export interface Reply {
  records: Uint8Array;
  piece: ArrayBuffer;
}

const port = parentPort;
if (port === null) throw new Error("worker.js runs as a worker thread of overbrainer-contract's readLines");
const { module } = workerData as { module: WebAssembly.Module };
const ex = (await WebAssembly.instantiate(module, {})).exports as unknown as Exports;

/** What the last call wrote in the module's memory. */
function output(): Uint8Array {
  const start = ex.ob_output() >>> 0;
  return new Uint8Array(ex.memory.buffer, start, ex.ob_output_len() >>> 0);
}

/** `written` copied out of the module's memory, into `spare` where it is large enough. */
function copied(written: Uint8Array, spare: ArrayBuffer | null): Uint8Array {
  if (spare === null || spare.byteLength < written.length) return written.slice();
  const into = new Uint8Array(spare, 0, written.length);
  into.set(written);
  return into;
}

port.on("message", ({ piece, maxLine, spare }: Request) => {
  const id = ex.ob_reader_new(maxLine === null ? 0 : 1, maxLine ?? 0);
  let records: Uint8Array;
  try {
    const into = ex.ob_input(piece.length) >>> 0;
    new Uint8Array(ex.memory.buffer, into, piece.length).set(piece);
    ex.ob_reader_feed(id, piece.length);
    records = copied(output(), spare);
    ex.ob_reader_finish(id); // a last line without its newline: only the file's last piece has one
    const last = output();
    if (last.length > 0) {
      const both = new Uint8Array(records.length + last.length);
      both.set(records);
      both.set(last, records.length);
      records = both;
    }
  } finally {
    ex.ob_reader_free(id);
  }
  const reply: Reply = { records, piece: piece.buffer as ArrayBuffer };
  port.postMessage(reply, [records.buffer as ArrayBuffer, piece.buffer as ArrayBuffer]);
});

// A thread of the Node entry's threaded `readLines` (index.ts): one instance of the module, a part
// of a file (complete lines) read by its own reader (the core's `Scan`), the records of its answers
// posted back, a slice at a time, as they are made. The part's bytes and each slice's records are
// transferred, never copied across.

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

/** What the main thread asks: a part, and how to answer its lines. */
export interface Request {
  part: Uint8Array;
  maxLine: number | null;
  slice: number;
}

const port = parentPort;
if (port === null) throw new Error("worker.js runs as a worker thread of overbrainer-contract's readLines");
const { module } = workerData as { module: WebAssembly.Module };
const ex = (await WebAssembly.instantiate(module, {})).exports as unknown as Exports;

/** The records the last call wrote, copied out of the module's memory. */
function records(): Uint8Array {
  const start = ex.ob_output() >>> 0;
  const length = ex.ob_output_len() >>> 0;
  return new Uint8Array(ex.memory.buffer, start, length).slice();
}

port.on("message", ({ part, maxLine, slice }: Request) => {
  const id = ex.ob_reader_new(maxLine === null ? 0 : 1, maxLine ?? 0);
  try {
    for (let at = 0; at < part.length; at += slice) {
      const chunk = part.subarray(at, at + slice);
      const into = ex.ob_input(chunk.length) >>> 0;
      new Uint8Array(ex.memory.buffer, into, chunk.length).set(chunk);
      ex.ob_reader_feed(id, chunk.length);
      const found = records();
      port.postMessage({ records: found, done: false }, [found.buffer as ArrayBuffer]);
    }
    ex.ob_reader_finish(id);
    const found = records();
    port.postMessage({ records: found, done: true }, [found.buffer as ArrayBuffer]);
  } finally {
    ex.ob_reader_free(id);
  }
});

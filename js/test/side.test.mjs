// A run folder's side files through the npm package's status(): the snapshot state is the
// core's, made of the files' bytes and times as given (or the words of a file refused
// unread), and the record's validity accounts for it. Expected words are serde's for the
// proof's fields (each value deserialized into its Rust type: `u64`, `a string`) and the
// contract's `max_bytes` (65,536) for a file too large.

import { test } from "node:test";
import assert from "node:assert/strict";
import { status } from "../dist/index.js";

const encoder = new TextEncoder();
const LINES = encoder.encode(
  '{"event":"begin","time":1764460000.0,"max_steps":4}\n{"event":"log","time":1764460010.0,"step":1,"loss":2.0}\n',
);
const NOW = 1764460025;
const read = (text, mtime) => ({ bytes: encoder.encode(text), mtime });

test("a proof of the wrong types is said in serde's words, and the run is not valid", async () => {
  const record = await status(LINES, { now: NOW, name: "run", snapshot: read('{"checkpoint": 7, "step": "x"}', 1) });
  assert.equal(record.valid, false);
  assert.deepEqual(record.snapshot, {
    requested: false,
    pending: false,
    reason: null,
    taken: null,
    problem:
      'snapshot.json: $.checkpoint: invalid type: integer `7`, expected a string; $.step: invalid type: string "x", expected u64; missing field `time`; missing field `reason`',
  });
});

test("without side files given, the run is its metrics file alone", async () => {
  const record = await status(LINES, { now: NOW, name: "run" });
  assert.equal(record.snapshot, null);
  assert.equal(record.valid, true);
  const folder = await status(LINES, { now: NOW, name: "run", snapshot: undefined, request: undefined });
  assert.deepEqual(folder.snapshot, { requested: false, pending: false, reason: null, taken: null, problem: null });
});

test("a request newer than the proof is pending; an older one is answered", async () => {
  const proof = '{"checkpoint":"out/checkpoint-1","step":1,"time":1764460012.0,"reason":"manual"}';
  const older = await status(LINES, { now: NOW, snapshot: read(proof, 1764460012), request: read("manual\n", 1764460011) });
  assert.equal(older.snapshot.pending, false);
  assert.equal(older.snapshot.reason, "manual");
  assert.equal(older.snapshot.taken.checkpoint, "out/checkpoint-1");
  const newer = await status(LINES, { now: NOW, snapshot: read(proof, 1764460012), request: read("again\n", 1764460020) });
  assert.equal(newer.snapshot.pending, true);
  assert.equal(newer.snapshot.reason, "again");
  assert.equal(newer.valid, true);
});

test("a file refused unread, and one too large, are problems", async () => {
  const record = await status(LINES, {
    now: NOW,
    snapshot: { refused: "a symlink, not read" },
    request: { bytes: new Uint8Array(0), mtime: 1, size: 65_537 },
  });
  assert.equal(record.valid, false);
  assert.equal(record.snapshot.requested, true);
  assert.equal(record.snapshot.problem, "snapshot.request: 65,537 bytes, over the 65,536 it may hold; snapshot.json: a symlink, not read");
  const whole = await status(LINES, { now: NOW, request: { bytes: new Uint8Array(65_537).fill(32), mtime: 1 } });
  assert.equal(whole.snapshot.problem, "snapshot.request: 65,537 bytes, over the 65,536 it may hold");
});

test("bytes that are not UTF-8 are a proof's problem, never a failure", async () => {
  const record = await status(LINES, { now: NOW, snapshot: { bytes: new Uint8Array([0x7b, 0xff]), mtime: 1 } });
  assert.equal(record.snapshot.problem, "snapshot.json: invalid UTF-8 at column 2");
  await assert.rejects(status(LINES, { now: NOW, snapshot: { bytes: "text", mtime: 1 } }), TypeError);
});

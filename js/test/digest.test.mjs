// What a page following a growing file feeds, synchronously: a Status made with `digest`
// (the core's digest of a run's series for a plot: each key's points bounded, what every
// point draws at a plot's width, its spikes and non-finite markers kept), the numbers of the
// lines it rejected, and a Check (the records `checkRecords` makes); neither keeps a chunk it
// was fed (a page following 1,000 runs would hold every run's last chunk). Every expected value is
// reasoned from the lines this test writes, or is `checkRecords` of the same bytes.
//
//   node --test test/          (after `node build.mjs`: the package's dist/)

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Check, checkRecords, formatDuration, Status } from "../dist/index.js";

const encode = (text) => new TextEncoder().encode(text);
const line = (fields) => `${JSON.stringify(fields)}\n`;

/** A run of `steps` logs, step n at time n: loss 1 + n / steps, a spike of 50 at `spike`, an
 * `acc` scalar logged as "NaN" at `nan` and as null at `gap`. */
function run(steps, { spike, nan, gap }) {
  let text = line({ event: "begin", time: 0, max_steps: steps });
  for (let step = 1; step <= steps; step += 1) {
    const acc = step === nan ? "NaN" : step === gap ? null : step / steps;
    text += line({ event: "log", time: step, step, loss: step === spike ? 50 : 1 + step / steps, scalars: { acc } });
  }
  return text;
}

const plain = (value) => (typeof value === "bigint" ? Number(value) : value);
const points = (digest) => digest.points.map(([step, value]) => [plain(step), plain(value)]);

describe("a Status's digests", () => {
  it("keeps a spike, a NaN, a gap and both ends of 10,000 steps in 16 buckets", () => {
    const status = new Status({ name: "run", digest: 16 });
    status.feed(encode(run(10_000, { spike: 6_789, nan: 4_321, gap: 9_000 })));
    status.end();
    assert.deepEqual(status.digestKeys(), ["loss", "acc"]);
    const { loss, acc } = status.digests(["loss", "acc", "absent"]);
    assert.deepEqual(Object.keys(status.digests(["absent"])), []);
    // steps 1..10,000 fit 16 buckets from spans of 1,024 steps (10 of them), not of 512 (20)
    assert.equal(loss.shift, 10);
    assert.equal(plain(loss.count), 10_000);
    assert.equal(plain(acc.count), 10_000);
    const drawn = points(loss);
    assert.deepEqual(drawn[0], [1, 1 + 1 / 10_000]);
    assert.deepEqual(drawn.at(-1), [10_000, 2]);
    assert.ok(drawn.some(([step, value]) => step === 6_789 && value === 50), "the spike");
    // at most 4 finite points a bucket (first, least, greatest, last), in the series' order
    assert.ok(drawn.length <= 4 * 10, `${drawn.length} points`);
    const steps = drawn.map(([step]) => step);
    assert.deepEqual(steps, [...steps].sort((a, b) => a - b));
    const accDrawn = points(acc);
    assert.ok(accDrawn.some(([step, value]) => step === 4_321 && value === "NaN"), "the NaN");
    assert.ok(accDrawn.some(([step, value]) => step === 9_000 && value === null), "the gap");
    status.close();
  });

  it("keeps every point of a run shorter than its buckets, as written", () => {
    const status = new Status({ name: "run", digest: 64 });
    const text = run(20, { spike: 7, nan: 3, gap: 5 });
    status.feed(encode(text));
    status.end();
    const logs = text.trim().split("\n").map((each) => JSON.parse(each)).filter((each) => each.event === "log");
    const { loss, acc } = status.digests();
    assert.equal(loss.shift, 0);
    assert.deepEqual(points(loss), logs.map((log) => [log.step, log.loss]));
    assert.deepEqual(points(acc), logs.map((log) => [log.step, log.scalars.acc]));
    // each point with its line's time
    assert.deepEqual(loss.points.map((point) => point[2]), logs.map((log) => log.time));
  });

  it("is the same however the bytes are cut", () => {
    const text = encode(run(3_000, { spike: 1_500, nan: 100, gap: 2_999 }));
    const whole = new Status({ name: "run", digest: 32 });
    whole.feed(text);
    whole.end();
    for (const size of [1, 7, 4096, 65_537]) {
      const cut = new Status({ name: "run", digest: 32 });
      for (let at = 0; at < text.length; at += size) cut.feed(text.subarray(at, at + size));
      cut.end();
      assert.deepEqual(cut.digests(), whole.digests(), `cut every ${size} bytes`);
    }
  });

  it("digests the logs of a range of steps alone, every point of it when it fits", () => {
    const text = run(100_000, { spike: 73_219, nan: 73_100, gap: 90_000 });
    // steps 73,000 to 73,400: 401 steps, one bucket each at 512 buckets
    const zoomed = new Status({ name: "run", digest: 512, steps: [73_000, 73_400] });
    zoomed.feed(encode(text));
    zoomed.end();
    const { loss, acc } = zoomed.digests();
    assert.equal(loss.shift, 0);
    const inside = text
      .trim()
      .split("\n")
      .map((each) => JSON.parse(each))
      .filter((each) => each.event === "log" && each.step >= 73_000 && each.step <= 73_400);
    assert.equal(inside.length, 401);
    // every step of the range, each its own point (the values as the reference reads their
    // text: serde_json's parsing of a float, checked against a Status fed those lines below)
    assert.deepEqual(points(loss).map(([step]) => step), inside.map((log) => log.step));
    assert.deepEqual(points(acc).map(([step]) => step), inside.map((log) => log.step));
    assert.ok(points(loss).some(([step, value]) => step === 73_219 && value === 50), "the spike");
    assert.ok(points(acc).some(([step, value]) => step === 73_100 && value === "NaN"), "the NaN");
    // the same as a whole Status fed those logs alone; steps as bigints too
    const alone = new Status({ name: "run", digest: 512 });
    alone.feed(encode(inside.map(line).join("")));
    alone.end();
    const big = new Status({ name: "run", digest: 512, steps: [73_000n, 73_400n] });
    big.feed(encode(text));
    big.end();
    assert.deepEqual(zoomed.digests(), alone.digests());
    assert.deepEqual(big.digests(), alone.digests());
    for (const steps of [[2, 1], [-1, 5], [0], [0, 2 ** 64], [0.5, 1], "0-5", [0, 2n ** 64n]]) {
      assert.throws(() => new Status({ digest: 8, steps }), TypeError, String(steps));
    }
  });

  it("digests the keys its globs pick, and lists every key", () => {
    const text = encode(run(2_000, { spike: 1_234, nan: 500, gap: 600 }));
    const every = new Status({ name: "run", digest: 16 });
    every.feed(text);
    for (const [keys, picked] of [["loss", ["loss"]], ["a*, nothing", ["acc"]], ["", []], ["l*,acc", ["loss", "acc"]]]) {
      const status = new Status({ name: "run", digest: 16, keys });
      status.feed(text.subarray(0, 777));
      status.feed(text.subarray(777));
      assert.deepEqual(status.digestKeys(), ["loss", "acc"], keys);
      assert.deepEqual(Object.keys(status.digests()).sort(), [...picked].sort(), keys);
      assert.deepEqual(status.digests(["loss", "acc"]), every.digests(picked), keys);
      status.close();
    }
    assert.throws(() => new Status({ name: "run", digest: 16, keys: ["loss"] }), /comma-separated list of globs/);
    every.close();
  });

  it("is empty without digest, and refuses a digest that is no count", () => {
    const status = new Status({ name: "run" });
    status.feed(encode(run(5, { spike: 0, nan: 0, gap: 0 })));
    assert.deepEqual(status.digests(), {});
    assert.deepEqual(status.digestKeys(), []);
    for (const digest of [-1, 1.5, Number.NaN, 2 ** 32]) {
      assert.throws(() => new Status({ digest }), TypeError, String(digest));
    }
  });
});

describe("a Status's rejected lines", () => {
  it("are the lines the core rejects, each told once, as they are fed", () => {
    const status = new Status({ name: "run", maxLine: 200 });
    const good = line({ event: "log", time: 1, step: 1, loss: 1 });
    // line 2 is not JSON, line 4 has a NaN number, line 6 is over 200 bytes; line 7 is cut
    const long = line({ event: "log", time: 2, step: 2, loss: 1, note: "x".repeat(300) });
    status.feed(encode(good + "not json\n" + good + '{"event":"log","time":1,"step":1,"loss":NaN}\n'));
    assert.deepEqual(status.rejected(), [2, 4]);
    assert.deepEqual(status.rejected(), [], "each told once");
    status.feed(encode(good + long + '{"event":"lo'));
    assert.deepEqual(status.rejected(), [6]);
    status.end();
    // the last line, cut short, is told too (a page shows it); the record counts it apart
    assert.deepEqual(status.rejected(), [7]);
    const record = status.report(10);
    assert.equal(plain(record.invalid_lines), 3);
    assert.equal(record.partial_last_line, true);
  });
});

describe("a Check fed synchronously", () => {
  const plain = (records) => JSON.parse(JSON.stringify(records, (_, value) => (typeof value === "bigint" ? Number(value) : value)));
  const text = encode(
    line({ event: "begin", time: 0, max_steps: 5 }) +
      "not json\n" +
      '{"event":"log","time":1,"step":1,"loss":NaN}\n' +
      line({ event: "log", time: 2, step: 2, loss: 1 }) +
      '{"event":"lo',
  );

  it("makes the records checkRecords makes of the same bytes, however they are cut", async () => {
    const whole = [];
    for await (const batch of checkRecords(text, { name: "runs/7/metrics.jsonl" })) whole.push(...batch);
    // line 2 is not JSON, line 3 holds NaN (errors), line 5 is cut short (a warning), then
    // the file's summary
    assert.deepEqual(
      plain(whole).map((record) => (record.type === "file" ? ["file", record.errors, record.warnings] : [record.line, record.severity])),
      [[2, "error"], [3, "error"], [5, "warning"], ["file", 2, 1]],
    );
    for (const size of [1, 5, 40, text.length]) {
      const check = new Check({ name: "runs/7/metrics.jsonl" });
      const got = [];
      for (let at = 0; at < text.length; at += size) got.push(...check.feed(text.subarray(at, at + size)));
      got.push(...check.end());
      assert.deepEqual(plain(got), plain(whole), `cut every ${size} bytes`);
      assert.throws(() => check.feed(text), /ended/);
    }
  });

  it("keeps at most 4,096 rejected line numbers between two asks", () => {
    const status = new Status({ name: "run" });
    status.feed(encode("\n".repeat(10_000)));
    const told = status.rejected();
    assert.equal(told.length, 4096);
    assert.deepEqual(told.slice(0, 3), [1, 2, 3]);
    status.feed(encode("\n"));
    assert.deepEqual(status.rejected(), [10_001]);
  });
});

describe("a Status made with check: both from one pass", () => {
  const plain = (records) => JSON.parse(JSON.stringify(records, (_, value) => (typeof value === "bigint" ? Number(value) : value)));
  const RUNS = new URL("../../tests/conformance/runs/", import.meta.url).pathname;
  /** Every metrics file of the run-level suite (a .gz's decompressed bytes, where whole),
   * and a file of every kind of bad line. */
  const files = [["bad/metrics.jsonl", encode(line({ event: "begin", time: 0, max_steps: 5 }) + "not json\n" + '{"event":"log","time":1,"step":1,"loss":NaN}\n' + "\n".repeat(30) + line({ event: "log", time: 2, step: 2, loss: 1 }) + '{"event":"lo')]];
  for (const name of readdirSync(RUNS)) {
    const folder = join(RUNS, name, "run");
    let entries;
    try {
      entries = readdirSync(folder);
    } catch {
      continue;
    }
    for (const file of entries.filter((entry) => entry.startsWith("metrics.jsonl"))) {
      const bytes = readFileSync(join(folder, file));
      if (!file.endsWith(".gz")) files.push([`${name}/${file}`, new Uint8Array(bytes)]);
      else {
        try {
          files.push([`${name}/${file}`, new Uint8Array(gunzipSync(bytes))]);
        } catch {
          // a gzip stream cut short: read whole by the suite's own tests
        }
      }
    }
  }

  it("makes a Check's records and a Status's report, digests and rejected lines, however the bytes are cut", async () => {
    assert.ok(files.length >= 10, `${files.length} files`);
    for (const [name, bytes] of files) {
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
        // gzip data under a plain name: refused by a status, with check or not, in the same words
        const refused = (status) => assert.throws(() => status.feed(bytes), /gzip-compressed data, not JSON lines/);
        refused(new Status({ name }));
        refused(new Status({ name, check: true }));
        continue;
      }
      for (const size of [1, 7, 64, bytes.length || 1]) {
        const alone = new Status({ name, digest: 8 });
        const check = new Check({ name });
        const both = new Status({ name, digest: 8, check: true });
        const want = [];
        const got = [];
        const rejected = [[], []];
        for (let at = 0; at < bytes.length; at += size) {
          const chunk = bytes.subarray(at, at + size);
          alone.feed(chunk);
          want.push(...check.feed(chunk));
          both.feed(chunk);
          got.push(...both.findings());
          rejected[0].push(...alone.rejected());
          rejected[1].push(...both.rejected());
        }
        alone.end();
        want.push(...check.end());
        both.end();
        got.push(...both.findings());
        const said = `${name}, cut every ${size} bytes`;
        assert.deepEqual(plain(got), plain(want), said);
        assert.ok(got.at(-1).type === "file", said);
        assert.deepEqual(both.findings(), [], said);
        assert.deepEqual(rejected[1], rejected[0], said);
        assert.deepEqual(plain(both.report(1_800_000_000)), plain(alone.report(1_800_000_000)), said);
        assert.deepEqual(plain(both.digests()), plain(alone.digests()), said);
        alone.close();
        both.close();
      }
    }
  });

  it("keeps to maxFindings as a Check does, and is refused findings() without check", () => {
    const text = encode("not json\n".repeat(50));
    const both = new Status({ name: "m", check: true, maxFindings: 3 });
    both.feed(text);
    both.end();
    const records = plain(both.findings());
    assert.deepEqual(records.map((record) => record.type ?? "finding").slice(0, 3), ["finding", "finding", "finding"]);
    assert.equal(records.length, 4);
    assert.equal(records[3].errors, 50);
    const alone = new Status({ name: "m" });
    assert.throws(() => alone.findings(), /made without check/);
  });
});

describe("what a Status and a Check keep of their bytes", () => {
  it("holds none of the chunks it was fed: each is collected once the caller lets it go", async () => {
    // the collector asked for by hand (node's --expose-gc, set from here)
    setFlagsFromString("--expose-gc");
    const collect = runInNewContext("gc");
    const status = new Status({ name: "run", digest: 16 });
    const check = new Check({ name: "run" });
    const fed = [];
    let cut = "";
    (() => {
      // 50 chunks of 64 KiB, cut mid-line: the line under way is the core's to hold, not the chunk
      const text = run(40_000, { spike: 77, nan: 5, gap: 9 });
      for (let at = 0; at < 50 * 65_536 && at < text.length; at += 65_536) {
        const chunk = encode(text.slice(at, at + 65_536));
        status.feed(chunk);
        check.feed(chunk);
        fed.push(new WeakRef(chunk.buffer)); // the bytes themselves, whatever view holds them
      }
      cut = text.slice(50 * 65_536);
    })();
    assert.equal(fed.length, 50);
    // a WeakRef holds its target to the end of the job that made it
    await new Promise((resolve) => setTimeout(resolve, 0));
    collect();
    assert.deepEqual(fed.filter((each) => each.deref() !== undefined).length, 0, "every chunk collected");
    // and both read on from where they were
    status.feed(encode(cut));
    status.end();
    check.feed(encode(cut));
    check.end();
    assert.equal(plain(status.report(10).step), 40_000);
  });
});

describe("a duration as status writes it (a plot's axis in time since a run began)", () => {
  it("is H:MM:SS, days counted in hours, rounded to the second, ties to even; below zero 0:00:00", () => {
    const written = [0, 20, 2.5, 3.5, 3661, 90_000, -5, Number.NaN].map((seconds) => formatDuration(seconds));
    assert.deepEqual(written, ["0:00:00", "0:00:20", "0:00:02", "0:00:04", "1:01:01", "25:00:00", "0:00:00", "0:00:00"]);
    assert.throws(() => formatDuration(/** @type {any} */ ("20")), TypeError);
  });
});

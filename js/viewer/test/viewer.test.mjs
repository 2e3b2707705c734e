// The run viewer in a real browser: Debian's Chromium, headless, driven by playwright-core,
// opens the built page from disk (file://) and the test reads what the page shows. Every
// expected value comes from the core's records of the same file — the package's `status()`
// and `check()` (held equal to `overbrainer-contract status -o json` and `check -o json` by
// tests/reference/test_npm_reports.py) — from the command line's screen of it (`status
// --now`, the layout the page follows), from the reference runner (conformance/rust:
// overbrainer's metrics.rs answering each line) or from the files the test writes, never
// from the page.
//
//   node --test test/          (after `cd js && node build.mjs`: the package's dist/)
//
// OVERBRAINER_REFERENCE_RUNNER names the runner (default: conformance/rust's release build);
// OVERBRAINER_CONTRACT the console script (default: `overbrainer-contract` on the PATH);
// CHROMIUM the browser (default /usr/bin/chromium); VIEWER_ARTEFACTS where the screenshots
// go (default js/viewer/test-output/).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import * as core from "../../dist/index.js";
import { screenOf } from "./cli.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const VIEWER = resolve(HERE, "..");
const ROOT = resolve(VIEWER, "..", "..");
const EXAMPLES = join(ROOT, "examples");
const RUNNER =
  process.env.OVERBRAINER_REFERENCE_RUNNER ||
  join(ROOT, "conformance", "rust", "target", "release", "overbrainer-reference-runner");
const BROWSER = process.env.CHROMIUM || "/usr/bin/chromium";
const CONTRACT = JSON.parse(readFileSync(join(ROOT, "schema", "contract.json"), "utf8"));
/** The most bytes `snapshot.request` and `snapshot.json` may hold: the contract's. */
const { snapshot_request: REQUEST_BOUND, snapshot: PROOF_BOUND } = CONTRACT.max_bytes;
const ARTEFACTS = resolve(process.env.VIEWER_ARTEFACTS || join(VIEWER, "test-output"));

/** The reference's answer to each line of `path` (the runner's `lines` mode). */
function reference(path) {
  const out = execFileSync(RUNNER, ["lines", path], { maxBuffer: 1 << 30 });
  return out.toString("utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/** A reference error as the page must show it (as Python's ParseError gives it): the
 * message without its position, and the column the position gives (`null` without one). */
function shownError(answer) {
  const found = /^(.*) at line 1 column (\d+)$/.exec(answer.message);
  if (!found) return { category: answer.category, message: answer.message, column: null };
  return { category: answer.category, message: found[1], column: Number(found[2]) };
}

/** The core's check of the metrics file `path` (the package's `check()`: the records of
 * `overbrainer-contract check -o json`): all its findings and its summary. */
async function checked(path) {
  const records = await core.check(readFileSync(path), { name: basename(path), maxFindings: Infinity });
  return { findings: records.filter((each) => each.type === "finding"), file: records.find((each) => each.type === "file") };
}

/** A row of the page's list of findings, its line number read back from its digits. */
function cells({ line, category, message, column, path }) {
  return { line: Number(line.replaceAll(",", "")), category, message, column, path };
}

/** An error as the page lists it: each field as the core gives it, as text. */
function listedError(finding) {
  const { line, category, message, column, path } = finding;
  return { line, category, message, column: column === null ? "" : String(column), path: path ?? "" };
}

let browser;
let page;
let work;
let pageUrl;

before(async () => {
  work = mkdtempSync(join(tmpdir(), "viewer-test-"));
  mkdirSync(ARTEFACTS, { recursive: true });
  const built = join(work, "viewer.html");
  execFileSync(process.execPath, [join(VIEWER, "build.mjs"), "--out", built], { stdio: "inherit" });
  pageUrl = pathToFileURL(built).href;
  browser = await chromium.launch({ executablePath: BROWSER, headless: true });
});

after(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A page of the viewer; `now` (seconds since the epoch) fixes its clock. */
async function freshPage(url = pageUrl, now = null) {
  const opened = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  if (now !== null) await opened.clock.setFixedTime(now * 1000);
  const problems = [];
  opened.on("pageerror", (error) => problems.push(error.message));
  opened.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  await opened.goto(url);
  await opened.waitForSelector("body[data-ready=true]");
  opened.problems = problems;
  return opened;
}

async function idle(opened, runs) {
  await opened.waitForFunction(
    (count) => document.body.dataset.state === "idle" && document.querySelectorAll(".run").length === count,
    runs,
  );
  // the plot is drawn on the next frame
  await opened.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** The status rows of the run named `name`, label → {text, title}. */
async function statusOf(opened, name) {
  return opened.evaluate((wanted) => {
    const run = [...document.querySelectorAll(".run")].find((each) => each.dataset.run === wanted);
    if (!run) return null;
    const rows = {};
    for (const row of run.querySelectorAll("table.status tr")) {
      const cell = row.querySelector("td");
      rows[row.querySelector("th").textContent] = { text: cell.textContent, title: cell.title || null };
    }
    return rows;
  }, name);
}

async function badLinesOf(opened, name) {
  return opened.evaluate((wanted) => {
    const run = [...document.querySelectorAll(".run")].find((each) => each.dataset.run === wanted);
    const rows = [...run.querySelectorAll("table.bad tbody tr")].map((row) => {
      const cells = {};
      for (const cell of row.querySelectorAll("td")) cells[cell.dataset.col] = cell.textContent;
      return cells;
    });
    return { rows, heading: run.querySelector(".errors h3")?.textContent ?? null, more: run.querySelector(".more")?.textContent ?? "" };
  }, name);
}

/** Pixels of the plot's panels (every canvas) in each run's colour (its card's `--colour`). */
async function plotted(opened) {
  return opened.evaluate(() => {
    const images = [...document.querySelectorAll("#panels canvas")].map((canvas) => canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data);
    const counts = {};
    for (const run of document.querySelectorAll(".run")) {
      const hex = getComputedStyle(run).getPropertyValue("--colour").trim();
      const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
      let count = 0;
      for (const data of images) {
        for (let i = 0; i < data.length; i += 4) {
          if (Math.abs(data[i] - r) < 8 && Math.abs(data[i + 1] - g) < 8 && Math.abs(data[i + 2] - b) < 8) count += 1;
        }
      }
      counts[run.dataset.run] = count;
    }
    return counts;
  });
}

/** The status the page shows of the run `name` (its metrics file `path`) at `now`, held to
 * the core's record of the same bytes (the package's `status()`) and to the command line's
 * screen of them, row for row, in its order: every row but the snapshot's (the page's own,
 * from the folder it was given) and the run's (the record's `run`, the page's name). */
async function heldStatus(opened, name, path, now) {
  const shown = await statusOf(opened, name);
  assert.ok(shown, `${name} is shown`);
  const record = await core.status(readFileSync(path), { name: basename(path), now, run: name });
  const screen = screenOf(path, now);
  assert.deepEqual(Object.keys(shown), Object.keys(screen), `${name}: the screen's rows`);
  assert.equal(shown.run.text, record.run);
  for (const label of Object.keys(screen).filter((each) => each !== "run" && each !== "snapshot")) {
    assert.equal(shown[label].text, screen[label], `${name}: ${label}`);
  }
  // the exact values behind the rounded ones
  assert.equal(shown.loss.title, record.loss === null ? null : String(record.loss.value));
  assert.equal(shown["eval loss"].title, record.eval_loss === null ? null : String(record.eval_loss.value));
  const counting = record.eta_remaining_seconds !== null && !record.ended && !record.eta_stale;
  assert.equal(shown.eta.title, counting ? String(record.eta_remaining_seconds) : null);
  const words = core.linesText(record.invalid_lines, record.partial_last_line);
  if (words) assert.ok(shown.lines.text.includes(`(${words})`), `${name}: the core's words for its bad lines`);
  return { shown, record };
}

describe("the run viewer in headless Chromium", () => {
  it("shows the example runs as status and plot do, from their folder", async () => {
    // named by their folders below the one they have in common (examples/)
    const names = ["sweep-lr3e-2-seed1", "sweep-lr3e-4-seed2", "tiny-run"];
    const lastTimes = await Promise.all(names.map(async (name) => (await core.status(readFileSync(join(EXAMPLES, name, "metrics.jsonl")), { now: 0 })).last_time));
    const now = Math.floor(Math.max(...lastTimes)) + 37 * 3600 + 100; // 37 h later
    page = await freshPage(pageUrl, now);
    await page.setInputFiles("#folder", EXAMPLES);
    await idle(page, names.length);
    for (const name of names) {
      const { record } = await heldStatus(page, name, join(EXAMPLES, name, "metrics.jsonl"), now);
      assert.equal(record.phase, "ended");
      assert.ok(record.last_line_seconds > 37 * 3600);
    }
    const proof = JSON.parse(readFileSync(join(EXAMPLES, "tiny-run", "snapshot.json"), "utf8"));
    const tiny = await statusOf(page, "tiny-run");
    assert.equal(tiny.snapshot.text, `taken at step ${proof.step}: ${proof.checkpoint} (${proof.reason})`);
    assert.equal((await statusOf(page, "sweep-lr3e-4-seed2")).snapshot.text, "none requested");
    const pixels = await plotted(page);
    for (const name of names) assert.ok(pixels[name] > 100, `${name} is drawn in its colour (${pixels[name]} pixels)`);
    await page.screenshot({ path: join(ARTEFACTS, "examples.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("lists every bad line with check's error, and a cut run's step, evaluation and ETA", async () => {
    const tiny = readFileSync(join(EXAMPLES, "tiny-run", "metrics.jsonl"), "utf8").split("\n");
    const cut = join(work, "cut-run.jsonl");
    writeFileSync(cut, `${tiny.slice(0, 23).join("\n")}\n`); // up to the first evaluation's progress
    const cutRecord = await core.status(readFileSync(cut), { now: 0 });
    const now = Math.ceil(cutRecord.last_time) + 2; // two seconds after its last line
    page = await freshPage(pageUrl, now);
    const bad = [
      tiny[0],
      '{"event":"log","time":1,"step":3.0}',
      "not json",
      '{"event":"log","time":2,"step":', // cut short, in the middle of the file
      '{"event":"log","time":1,"step":1,"step":2}',
      '{"event":"stage","name":"warmup","time":1}',
      "",
      "   ",
      '{"event":"log","time":1e400,"step":1}',
      '{"event":"end","time":1,"step":7} trailing',
      '["end", 2.0, 7]',
      '{"event":"begin","time":1,"max_steps":-1}',
      '{"event":"log","time":1,"step":18446744073709551616}',
      '{"event":"eval","time":1,"step":1,"total":5,"step":2}',
      '{"event":"log","time":"1","step":1}',
      '{"event":"log","time":1,"step":1',
    ];
    const badFile = join(work, "bad-lines.jsonl");
    writeFileSync(badFile, `${bad.join("\n")}\n`);
    const bomFile = join(work, "bom.jsonl");
    writeFileSync(bomFile, `\ufeff${tiny[0]}\n${tiny[1]}\n`);
    // a last line without its newline, refused (not cut short: not a line still written)
    const lastFile = join(work, "last-line.jsonl");
    writeFileSync(lastFile, `${tiny[0]}\nnot json`);
    await page.setInputFiles("#files", [cut, badFile, bomFile, lastFile]);
    await idle(page, 4);
    const bomRows = (await badLinesOf(page, "bom.jsonl")).rows;
    const bomCheck = (await checked(bomFile)).findings.filter((finding) => finding.severity === "error");
    assert.equal(bomCheck.length, 1);
    assert.match(bomCheck[0].message, / \(the line begins with a UTF-8 byte order mark, bytes EF BB BF, /);
    assert.deepEqual(bomRows.map(cells), bomCheck.map(listedError));
    const lastCheck = (await checked(lastFile)).findings.filter((finding) => finding.severity === "error");
    assert.deepEqual(lastCheck.map((finding) => [finding.line, finding.message]), [[2, "expected ident at column 2 (the last line, without its newline)"]]);
    assert.deepEqual((await badLinesOf(page, "last-line.jsonl")).rows.map(cells), lastCheck.map(listedError));

    // the lines the reference refuses are the lines check reports as errors, and listed
    const answers = reference(badFile);
    assert.equal(answers.length, bad.length);
    const refused = answers.map((answer, at) => ({ at, answer })).filter(({ answer }) => !answer.ok);
    const report = await checked(badFile);
    const errors = report.findings.filter((finding) => finding.severity === "error");
    assert.deepEqual(errors.map((finding) => finding.line), refused.map(({ at }) => at + 1));
    assert.equal(report.file.errors, errors.length);
    const shown = await badLinesOf(page, "bad-lines.jsonl");
    assert.equal(shown.heading, core.linesText(errors.length, false));
    // each with check's category, message, column and path, and with the reference's
    // category, message and column for the line's bytes before its newline: a blank line,
    // white space or a line cut short in the middle of the file placed as the reference
    // places it (a blank line at column 0, before its first byte)
    assert.deepEqual(shown.rows.map(cells), errors.map(listedError));
    shown.rows.forEach((listed, index) => assert.equal(listed.text, bad[errors[index].line - 1], `line ${errors[index].line} shown as written`));
    for (const { at, answer } of refused) {
      const listed = shown.rows.find((row) => row.line === String(at + 1));
      const want = shownError(answer);
      assert.deepEqual(
        { category: listed.category, column: listed.column },
        { category: want.category, column: want.column === null ? "" : String(want.column) },
        `line ${at + 1} as the reference reads ${JSON.stringify(bad[at])}`,
      );
      assert.ok(listed.message.startsWith(want.message), `line ${at + 1}: the reference's message, ${JSON.stringify(want.message)}`);
    }
    const blank = shown.rows.find((row) => row.line === String(bad.indexOf("") + 1));
    assert.deepEqual([blank.category, blank.column], ["eof", "0"]);
    for (const [name, path] of [["bad-lines.jsonl", badFile], ["bom.jsonl", bomFile], ["last-line.jsonl", lastFile]]) {
      await heldStatus(page, name, path, now);
    }
    // the cut run: training, an evaluation under way, its ETA counted down by the core
    const { record: cutNow } = await heldStatus(page, "cut-run.jsonl", cut, now);
    assert.equal(cutNow.phase, "evaluating");
    assert.ok(cutNow.eta_remaining_seconds > 0 && !cutNow.eta_stale, JSON.stringify(cutNow));
    await page.screenshot({ path: join(ARTEFACTS, "bad-lines.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();

    // three days of silence: far longer than 50 steps at its pace, and than two minutes
    const later = now + 3 * 86400 + 5;
    page = await freshPage(pageUrl, later);
    await page.setInputFiles("#files", cut);
    await idle(page, 1);
    const { record: stale } = await heldStatus(page, "cut-run.jsonl", cut, later);
    assert.equal(stale.eta_stale, true);
    await page.close();
  });

  it("tells the status again as its clock goes: the ETA counted down by the core", async () => {
    const tiny = readFileSync(join(EXAMPLES, "tiny-run", "metrics.jsonl"), "utf8").split("\n");
    const cut = join(work, "ticking.jsonl");
    writeFileSync(cut, `${tiny.slice(0, 23).join("\n")}\n`);
    const now = Math.ceil((await core.status(readFileSync(cut), { now: 0 })).last_time) + 1;
    page = await freshPage(pageUrl, now);
    await page.setInputFiles("#files", cut);
    await idle(page, 1);
    const before = await heldStatus(page, "ticking.jsonl", cut, now);
    await page.clock.setFixedTime((now + 30) * 1000);
    // the page's ten-second tick
    await page.waitForFunction((text) => document.querySelector("[data-field=eta]").title !== text, before.shown.eta.title, { timeout: 20_000 });
    const after = await heldStatus(page, "ticking.jsonl", cut, now + 30);
    assert.ok(after.record.eta_remaining_seconds < before.record.eta_remaining_seconds);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("writes counts beyond 2^53 exactly, as the command line does", async () => {
    const huge = join(work, "huge.jsonl");
    writeFileSync(huge, '{"event":"log","time":1,"step":18446744073709551614,"max_steps":18446744073709551615,"loss":1.5}\n');
    page = await freshPage(pageUrl, 10);
    await page.setInputFiles("#files", huge);
    await idle(page, 1);
    try {
      await heldStatus(page, "huge.jsonl", huge, 10);
    } finally {
      await page.close();
    }
  });

  it("reads a 1M-line file in chunks, answering input between them", async () => {
    const LINES = 1_000_000;
    const now = 1_800_000_000 + LINES * 0.25 + 10; // ten seconds after its last line
    page = await freshPage(pageUrl, now);
    const big = join(work, "million.jsonl");
    const out = createWriteStream(big);
    // line numbers, from 1, of bad lines: more than the page lists (200)
    const wrong = new Set([1, 250_000, 500_000, 999_999]);
    for (let line = 3_000; line < LINES; line += 4_000) wrong.add(line);
    const listedWrong = [...wrong].sort((a, b) => a - b).slice(0, 200);
    let block = "";
    for (let step = 1; step <= LINES; step += 1) {
      if (wrong.has(step)) block += "oops\n";
      else {
        const loss = 4 / Math.sqrt(step);
        block += `{"event":"log","time":${1_800_000_000 + step * 0.25},"step":${step},"max_steps":${LINES},"loss":${loss},"learning_rate":${1e-4 * (1 - step / LINES)}}\n`;
      }
      if (block.length > 1 << 20) {
        if (!out.write(block)) await new Promise((done) => out.once("drain", done));
        block = "";
      }
    }
    out.end(block);
    await new Promise((done) => out.once("finish", done));

    await page.setInputFiles("#files", big);
    // the page draws its progress while it reads: a first chunk's lines are shown
    await page.waitForFunction(() => Number(document.getElementById("progress").dataset.lines) > 0);
    await page.click("#pause");
    await page.waitForSelector("body[data-state=paused]");
    const atPause = await page.evaluate(() => ({ ...document.getElementById("progress").dataset, value: document.getElementById("progress").value }));
    assert.ok(Number(atPause.lines) < LINES, `paused after ${atPause.lines} lines: the click came between two chunks`);
    assert.ok(atPause.value < 1);
    // paused, the page still answers, and reads nothing more
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    assert.equal(await page.evaluate(() => document.getElementById("progress").dataset.lines), atPause.lines);
    await page.screenshot({ path: join(ARTEFACTS, "million-paused.png") });
    await page.click("#pause");
    await idle(page, 1);

    const { record } = await heldStatus(page, "million.jsonl", big, now);
    assert.equal(record.invalid_lines, wrong.size);
    const findings = (await checked(big)).findings.filter((finding) => finding.severity === "error");
    const listed = await badLinesOf(page, "million.jsonl");
    assert.deepEqual(listed.rows.map(cells), findings.slice(0, 200).map(listedError));
    assert.deepEqual(listed.rows.map((row) => Number(row.line.replaceAll(",", ""))), listedWrong);
    assert.equal(listed.heading, core.linesText(record.invalid_lines, record.partial_last_line));
    assert.equal(listed.more, `… and ${findings.length - 200} more (not listed; overbrainer-contract check lists them all)`);
    for (const row of listed.rows) assert.equal(row.text, "oops");
    const chunks = Number(await page.evaluate(() => document.getElementById("progress").dataset.chunks));
    const size = readFileSync(big).length;
    assert.equal(chunks, Math.ceil(size / (1 << 20)), "read in 1 MiB chunks");
    assert.ok((await plotted(page))["million.jsonl"] > 100);
    await page.screenshot({ path: join(ARTEFACTS, "million.png") });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("says whether a snapshot was requested and taken, from the folder's side files", async () => {
    page = await freshPage();
    const parent = join(work, "snapshots");
    const metrics = readFileSync(join(EXAMPLES, "tiny-run", "metrics.jsonl"));
    const proof = readFileSync(join(EXAMPLES, "tiny-run", "snapshot.json"));
    const taken = JSON.parse(proof);
    const folders = {
      pending: { "snapshot.json": proof, "snapshot.request": " manual\n" },
      answered: { "snapshot.request": "manual", "snapshot.json": proof },
      wordless: { "snapshot.request": "not one word" },
      refused: { "snapshot.json": JSON.stringify({ ...taken, step: 26.5 }) },
      requested: { "snapshot.request": "" },
      // the contract's bounds (schema/contract.json `max_bytes`), as check and the plugin
      padded: { "snapshot.request": `${" ".repeat(10 * 1024)}manual\n` },
      bounded: { "snapshot.request": `${" ".repeat(REQUEST_BOUND - 6)}manual` },
      "over-request": { "snapshot.request": `${" ".repeat(REQUEST_BOUND - 5)}manual` },
      "over-proof": { "snapshot.json": " ".repeat(PROOF_BOUND + 1) },
    };
    for (const [name, files] of Object.entries(folders)) {
      mkdirSync(join(parent, name), { recursive: true });
      writeFileSync(join(parent, name, "metrics.jsonl"), metrics);
      let time = 1_800_000_000; // seconds: each file newer than the one written before it
      for (const [file, text] of Object.entries(files)) {
        writeFileSync(join(parent, name, file), text);
        utimesSync(join(parent, name, file), time, time);
        time += 60;
      }
    }
    await page.setInputFiles("#folder", parent);
    await idle(page, Object.keys(folders).length);
    const text = async (name) => (await statusOf(page, name)).snapshot.text;
    const proofText = `taken at step ${taken.step}: ${taken.checkpoint} (${taken.reason})`;
    assert.equal(await text("pending"), `requested (manual), not taken yet; an earlier one ${proofText}`);
    assert.equal(await text("answered"), proofText);
    assert.equal(await text("wordless"), "requested (no reason), not taken yet");
    // serde's words: the step's value deserialized into its type, a u64
    assert.equal(await text("refused"), "snapshot.json: $.step: invalid type: floating point `26.5`, expected u64");
    assert.equal(await text("requested"), "requested (no reason), not taken yet");
    assert.equal(await text("padded"), "requested (manual), not taken yet");
    assert.equal(await text("bounded"), "requested (manual), not taken yet");
    const over = (name, bound) => `${name}: ${(bound + 1).toLocaleString("en-US")} bytes, over the ${bound.toLocaleString("en-US")} it may hold`;
    // a request too large is still a request (the plugin takes its presence as one, with no
    // reason), and said too large
    assert.equal(await text("over-request"), `requested (no reason), not taken yet; ${over("snapshot.request", REQUEST_BOUND)}`);
    assert.equal(await text("over-proof"), over("snapshot.json", PROOF_BOUND));
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("reads a run folder's metrics.jsonl.gz, and says what gzip data under another name is", async () => {
    const now = 1_900_000_000;
    page = await freshPage(pageUrl, now);
    const folder = join(work, "zipped", "tiny-run");
    mkdirSync(folder, { recursive: true });
    const metrics = join(EXAMPLES, "tiny-run", "metrics.jsonl");
    writeFileSync(join(folder, "metrics.jsonl.gz"), gzipSync(readFileSync(metrics)));
    const disguised = join(work, "disguised.jsonl");
    writeFileSync(disguised, gzipSync(readFileSync(metrics)));
    await page.setInputFiles("#folder", join(work, "zipped"));
    await idle(page, 1);
    const notGzip = join(work, "plain.jsonl.gz");
    writeFileSync(notGzip, readFileSync(metrics));
    const cutShort = join(work, "cut.jsonl.gz");
    writeFileSync(cutShort, gzipSync(readFileSync(metrics)).subarray(0, 300));
    await page.setInputFiles("#files", [disguised, notGzip, cutShort]);
    await idle(page, 4);
    const problemOf = (name) => page.evaluate((wanted) => [...document.querySelectorAll(".run")].find((run) => run.dataset.run === wanted).querySelector(".problem")?.textContent, name);
    assert.equal(await problemOf("plain.jsonl.gz"), "plain.jsonl.gz: not gzip-compressed, although named .gz (it does not begin with gzip's magic bytes 1f 8b)");
    await heldStatus(page, "tiny-run", join(folder, "metrics.jsonl.gz"), now);
    // a stream cut short: the lines before the cut, the last one cut short, as status says
    const { record: cutRecord } = await heldStatus(page, "cut.jsonl.gz", cutShort, now);
    assert.equal(cutRecord.partial_last_line, true);
    const [said] = (await checked(disguised)).findings;
    assert.equal(await problemOf("disguised.jsonl"), `disguised.jsonl: ${said.message}`);
    assert.equal((await statusOf(page, "disguised.jsonl")).lines.text, "0");
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("lists a gzip stream cut short as check does", async () => {
    page = await freshPage();
    const cutShort = join(work, "cut-listed.jsonl.gz");
    writeFileSync(cutShort, gzipSync(readFileSync(join(EXAMPLES, "tiny-run", "metrics.jsonl"))).subarray(0, 300));
    await page.setInputFiles("#files", cutShort);
    await idle(page, 1);
    try {
      const listed = await badLinesOf(page, "cut-listed.jsonl.gz");
        assert.deepEqual(listed.rows.map(cells), (await checked(cutShort)).findings.filter((finding) => finding.severity === "error").map(listedError));
    } finally {
      await page.close();
    }
  });

  it("opens from a web server too, and reads files dropped on it", async () => {
    const html = readFileSync(join(work, "viewer.html"));
    const server = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(html);
    });
    await new Promise((done) => server.listen(0, "127.0.0.1", done));
    try {
      const now = 1_900_000_000;
      page = await freshPage(`http://127.0.0.1:${server.address().port}/viewer.html`, now);
      const runs = ["sweep-lr3e-2-seed1", "sweep-lr3e-4-seed2"];
      const texts = runs.map((name) => readFileSync(join(EXAMPLES, name, "metrics.jsonl"), "utf8"));
      const dataTransfer = await page.evaluateHandle(
        ([names, contents]) => {
          const dropped = new DataTransfer();
          names.forEach((name, at) => dropped.items.add(new File([contents[at]], `${name}.jsonl`)));
          return dropped;
        },
        [runs, texts],
      );
      await page.dispatchEvent("#drop", "drop", { dataTransfer });
      await idle(page, 2);
      for (const name of runs) {
        await heldStatus(page, `${name}.jsonl`, join(EXAMPLES, name, "metrics.jsonl"), now);
      }
      const pixels = await plotted(page);
      assert.ok(runs.every((name) => pixels[`${name}.jsonl`] > 100), JSON.stringify(pixels));
      assert.deepEqual(page.problems, []);
      await page.close();
    } finally {
      server.close();
    }
  });

  it("runs no script but its own and reaches no network: its Content-Security-Policy holds", async () => {
    page = await freshPage();
    const verdict = await page.evaluate(async () => {
      const refused = [];
      document.addEventListener("securitypolicyviolation", (event) => refused.push(event.effectiveDirective));
      const inline = document.createElement("script");
      inline.textContent = "window.__injected = true;";
      document.body.append(inline);
      const handler = document.createElement("img");
      handler.setAttribute("src", "data:,x");
      handler.setAttribute("onerror", "window.__handler = true");
      document.body.append(handler);
      try {
        await fetch("http://127.0.0.1:9/");
      } catch {
        // refused: the policy's report below says by what
      }
      await new Promise((done) => setTimeout(done, 100));
      return {
        injected: window.__injected ?? false,
        handler: window.__handler ?? false,
        refused: [...new Set(refused)].sort(),
      };
    });
    assert.equal(verdict.injected, false, "an inserted script ran");
    assert.equal(verdict.handler, false, "an inserted event handler ran");
    // each refused by the page's policy, not by chance (a closed port, a bad image)
    assert.deepEqual(verdict.refused, ["connect-src", "img-src", "script-src-attr", "script-src-elem"]);
    await page.close();
  });

  it("shows what a file holds as text: markup in lines, names and a proof runs nothing", async () => {
    page = await freshPage();
    const hostile = [
      "<script>window.__pwned = 1</script>",
      '<img src=x onerror="window.__pwned = 2">',
      '{"event":"stage","name":"<img src=x onerror=window.__pwned=3>","time":1}',
      '{"event":"log","time":1,"step":1,"<svg onload=window.__pwned=4>":1,"loss":1.5}',
      '{"event":"log","time":2,"step":"<b>bold</b><iframe srcdoc=\\"<script>parent.__pwned=5</script>\\">"}',
      '<style>body{display:none}</style>',
      '{"event":"log","time":3,"step":2,"scalars":{"<img src=x onerror=window.__pwned=8>/<svg onload=window.__pwned=9>":1}}',
    ];
    const folder = join(work, "<img src=x onerror=window.__pwned=6>");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "metrics.jsonl"), `${hostile.join("\n")}\n`);
    writeFileSync(join(folder, "snapshot.json"), JSON.stringify({ checkpoint: "<script>window.__pwned=7</script>", step: 1, time: 1, reason: null }));
    await page.setInputFiles("#folder", folder);
    await idle(page, 1);
    const name = "<img src=x onerror=window.__pwned=6>";
    const facts = await page.evaluate(() => ({
      pwned: window.__pwned,
      parentPwned: window.parent.__pwned,
      scripts: document.querySelectorAll("script").length,
      // the legend's swatches are the page's own SVG (#legend .swatch); any other is foreign
      foreign: document.querySelectorAll("img, svg:not(#legend svg.swatch), iframe, b, style:not(head style), body style").length,
      styles: document.querySelectorAll("style").length,
      visible: getComputedStyle(document.body).display,
    }));
    assert.deepEqual(facts, { pwned: undefined, parentPwned: undefined, scripts: 1, foreign: 0, styles: 1, visible: "block" });
    // a scalar's key holding markup: its panel, its heading and its button in the list of keys,
    // and the run's name in the legend, each as text
    const key = "<img src=x onerror=window.__pwned=8>/<svg onload=window.__pwned=9>";
    await page.fill("#metrics", "*");
    await page.waitForSelector("figure.panel figcaption");
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const drawnKey = await page.evaluate(() => ({
      pwned: window.__pwned,
      foreign: document.querySelectorAll("img, svg:not(#legend svg.swatch), iframe, b").length,
      heading: document.querySelector(".panel-group h3")?.textContent,
      captions: [...document.querySelectorAll("figure.panel figcaption")].map((each) => each.textContent),
      keys: [...document.querySelectorAll("#metric-keys button")].map((each) => each.textContent),
      legend: [...document.querySelectorAll("#legend li")].map((each) => each.textContent),
    }));
    assert.deepEqual(drawnKey, {
      pwned: undefined,
      foreign: 0,
      heading: "<img src=x onerror=window.__pwned=8>",
      captions: ["loss", key],
      keys: [key, "loss"],
      legend: [name],
    });
    const status = await statusOf(page, name);
    assert.equal(status.run.text, name, "the folder's name shown as written");
    assert.equal(status.snapshot.text, "taken at step 1: <script>window.__pwned=7</script> (no reason)");
    const answers = reference(join(folder, "metrics.jsonl"));
    const listed = await badLinesOf(page, name);
    const bad = answers.map((answer, at) => ({ at, answer })).filter(({ answer }) => !answer.ok);
    assert.equal(listed.rows.length, bad.length);
    const findings = (await checked(join(folder, "metrics.jsonl"))).findings.filter((finding) => finding.severity === "error");
    assert.deepEqual(listed.rows.map(cells), findings.map(listedError));
    listed.rows.forEach((row, index) => {
      const { at, answer } = bad[index];
      assert.equal(row.text, hostile[at], `line ${at + 1} shown as written`);
      assert.ok(row.message.startsWith(shownError(answer).message));
    });
    assert.ok(listed.rows.some((row) => row.message.includes("<img src=x onerror=window.__pwned=3>")));
    await page.screenshot({ path: join(ARTEFACTS, "markup.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("reads a line of 200,000 scalar keys in time about linear in them and lists every key", async () => {
    // More keys than a spread of arguments may hold. A reading quadratic in the keys (each
    // looked up among those before it) takes minutes here; the page is waited for under a hang
    // guard far beyond the seconds a linear reading takes. Keys k0... of value their number,
    // k0 given again at the end (its last value read).
    const keys = 200_000;
    const scalars = Array.from({ length: keys }, (_, at) => `"k${at}":${at}`).join(",");
    const log = `{"event":"log","time":2,"step":1,"epoch":0.1,"max_steps":10,"loss":1.5,"eval_loss":null,"learning_rate":0.1,"grad_norm":1.0,"scalars":{${scalars},"k0":-1}}`;
    const file = join(work, "many-keys.jsonl");
    writeFileSync(file, `{"event":"begin","time":1,"max_steps":10}\n${log}\n`);
    const page = await freshPage();
    await page.setInputFiles("#files", file);
    const hang = 180_000;
    await page.waitForFunction(() => document.body.dataset.state === "idle" && document.querySelectorAll(".run").length === 1, null, { timeout: hang });
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    assert.deepEqual(page.problems, []);
    // the line's own numbers (loss, learning_rate, grad_norm: eval_loss is null) and every key
    const listed = await page.evaluate((wanted) => {
      const shown = [...document.querySelectorAll("#metric-keys button[data-key]")].map((button) => button.dataset.key);
      return { count: shown.length, some: shown.filter((key) => wanted.includes(key)).sort() };
    }, ["k0", "k1", `k${keys - 1}`, "loss", "grad_norm"]);
    assert.equal(listed.count, keys + 3);
    assert.deepEqual(listed.some, ["grad_norm", "k0", "k1", `k${keys - 1}`, "loss"]);
    await page.close();
  });
});

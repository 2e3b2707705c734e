// The run viewer in a real browser: Debian's Chromium, headless, driven by playwright-core,
// opens the built page from disk (file://) and the test reads what the page shows. Every
// expected value comes from the reference runner (conformance/rust: overbrainer's metrics.rs
// answering each line: verdict, message, mark, dump, pace) or from the files the test writes,
// never from the page.
//
//   node --test test/          (after `cd js && node build.mjs`: the package's dist/)
//
// The errors listed are held to what `overbrainer-contract check -o json` reports of the same
// file (line, category, message, column, path) and to the reference's answer to each line's
// bytes before its newline, the one reading of a line every command and the page share.
//
// OVERBRAINER_REFERENCE_RUNNER names the runner (default: conformance/rust's release build);
// OVERBRAINER_CONTRACT the console script (default: `overbrainer-contract` on the PATH);
// CHROMIUM the browser (default /usr/bin/chromium); VIEWER_ARTEFACTS where the screenshots
// go (default js/viewer/test-output/).

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const VIEWER = resolve(HERE, "..");
const ROOT = resolve(VIEWER, "..", "..");
const EXAMPLES = join(ROOT, "examples");
const RUNNER =
  process.env.OVERBRAINER_REFERENCE_RUNNER ||
  join(ROOT, "conformance", "rust", "target", "release", "overbrainer-reference-runner");
const CLI = process.env.OVERBRAINER_CONTRACT || "overbrainer-contract";
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

/** What `overbrainer-contract check -o json` reports of the metrics file `path`: its
 * findings (each `{line, column, path, severity, category, message}`) and its summary. */
function checked(path) {
  const done = spawnSync(CLI, ["check", "-o", "json", path], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (done.error) throw new Error(`${CLI}: ${done.error.message} (OVERBRAINER_CONTRACT names the console script)`);
  assert.ok(done.status === 0 || done.status === 1, `check ${path}: exit ${done.status}: ${done.stderr}`);
  const records = done.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));
  return { findings: records.filter((each) => each.type === "finding"), file: records.find((each) => each.type === "file") };
}

/** A line's error as the page must list it, from check's finding: its message without
 * check's ` at column N` (the page gives the column a cell of its own). */
function listedError(finding) {
  let { message } = finding;
  if (finding.column !== null) {
    const at = ` at column ${finding.column}`;
    assert.equal(message.split(at).length, 2, `one position in ${JSON.stringify(message)}`);
    message = message.replace(at, "");
  }
  return { line: finding.line, category: finding.category, message, column: finding.column === null ? "" : String(finding.column), path: finding.path ?? "" };
}

/** `H:MM:SS` of a Duration, rounded to the second, ties to even (Python's `round`). */
function clock({ secs, nanos }) {
  let whole = secs;
  if (nanos > 500_000_000 || (nanos === 500_000_000 && secs % 2 === 1)) whole += 1;
  const two = (n) => String(n).padStart(2, "0");
  return `${Math.floor(whole / 3600)}:${two(Math.floor((whole % 3600) / 60))}:${two(whole % 60)}`;
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

/** Pixels of the plot's canvas in each run's colour (its card's `--colour`). */
async function plotted(opened) {
  return opened.evaluate(() => {
    const canvas = document.getElementById("plot");
    const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
    const counts = {};
    for (const run of document.querySelectorAll(".run")) {
      const hex = getComputedStyle(run).getPropertyValue("--colour").trim();
      const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - r) < 8 && Math.abs(data[i + 1] - g) < 8 && Math.abs(data[i + 2] - b) < 8) count += 1;
      }
      counts[run.dataset.run] = count;
    }
    return counts;
  });
}

/** What status must show of a run, from the reference's answers to its lines. */
function expectedStatus(answers) {
  let stage = null;
  let end = null;
  let begins = 0;
  let measured = null;
  let last = null;
  let loss = null;
  let evalLoss = null;
  for (const answer of answers) {
    if (!answer.ok) continue;
    const line = JSON.parse(answer.dump);
    if (answer.mark?.kind === "stage") stage = answer.mark.stage;
    if (answer.mark?.kind === "end") end = answer.mark.step;
    last = line.time;
    if (line.event === "begin") {
      end = null;
      begins += 1;
    }
    if (line.event === "log" && line.loss !== null) {
      loss = { step: line.step, value: line.loss };
      measured = line.time;
    }
    if (line.event === "log" && line.eval_loss !== null) evalLoss = { step: line.step, value: line.eval_loss };
  }
  const pace = answers.at(-1).pace;
  const invalid = answers.filter((each) => !each.ok).length;
  return { stage, end, begins, measured, last, loss, evalLoss, pace, lines: answers.length, invalid };
}

describe("the run viewer in headless Chromium", () => {
  it("shows the example runs as status and plot do, from their folder", async () => {
    const names = ["examples/sweep-lr3e-2-seed1", "examples/sweep-lr3e-4-seed2", "examples/tiny-run"];
    const wants = Object.fromEntries(names.map((name) => [name, expectedStatus(reference(join(ROOT, name, "metrics.jsonl")))]));
    const now = Math.max(...names.map((name) => wants[name].last)) + 37 * 3600 + 100; // 37 h later
    page = await freshPage(pageUrl, now);
    await page.setInputFiles("#folder", EXAMPLES);
    await idle(page, names.length);
    for (const name of names) {
      const want = wants[name];
      const shown = await statusOf(page, name);
      assert.ok(shown, `${name} is shown`);
      assert.equal(shown.run.text, name);
      assert.equal(want.end, want.pace.step, `${name}: ended at its last log's step`);
      assert.equal(shown.stage.text, `${want.stage} (ended at step ${want.end})`);
      assert.equal(shown.step.text, `${want.end} / ${want.pace.max_steps} (100%)`);
      assert.equal(Number(shown.loss.title), want.loss.value, `${name}: the last training loss, exactly`);
      assert.match(shown.loss.text, new RegExp(` at step ${want.loss.step}$`));
      assert.equal(Number(shown["eval loss"].title), want.evalLoss.value);
      assert.equal(shown.eta.text, "- (training ended)");
      const resumed = want.begins > 1 ? ` (${want.begins} begin lines: resumed)` : "";
      assert.equal(shown.lines.text, `${want.lines}${resumed}`);
      assert.equal(want.invalid, 0);
      const hours = Math.floor((now - want.last) / 3600);
      assert.ok(hours >= 37 && hours < 48);
      assert.equal(shown["last line"].text, `${hours} h ago`);
    }
    const proof = JSON.parse(readFileSync(join(EXAMPLES, "tiny-run", "snapshot.json"), "utf8"));
    const tiny = await statusOf(page, "examples/tiny-run");
    assert.equal(tiny.snapshot.text, `taken at step ${proof.step}: ${proof.checkpoint} (${proof.reason})`);
    assert.equal((await statusOf(page, "examples/sweep-lr3e-4-seed2")).snapshot.text, "none requested");
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
    const run = reference(cut);
    const cutState = expectedStatus(run);
    const now = cutState.measured + 2; // two seconds after the pace's latest point
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
    // counts beyond 2^53, exact: the core's u64, never a double
    const huge = join(work, "huge.jsonl");
    writeFileSync(huge, '{"event":"log","time":1,"step":18446744073709551614,"max_steps":18446744073709551615,"loss":1.5}\n');
    const raw = execFileSync(RUNNER, ["lines", huge]).toString();
    const [, hugeMax, hugeStep] = /"max_steps":(\d+),"step":(\d+)/.exec(raw);
    const grouped = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    const bomFile = join(work, "bom.jsonl");
    writeFileSync(bomFile, `\ufeff${tiny[0]}\n${tiny[1]}\n`);
    // a last line without its newline, refused (not cut short: not a line still written)
    const lastFile = join(work, "last-line.jsonl");
    writeFileSync(lastFile, `${tiny[0]}\nnot json`);
    await page.setInputFiles("#files", [cut, badFile, bomFile, huge, lastFile]);
    await idle(page, 5);
    const hugeShown = await statusOf(page, "huge.jsonl");
    assert.equal(hugeShown.step.text, `${grouped(hugeStep)} / ${grouped(hugeMax)} (100%)`);
    assert.equal(hugeShown.loss.text, `1.5 at step ${grouped(hugeStep)}`);
    const cells = ({ line, category, message, column, path }) => ({ line: Number(line.replaceAll(",", "")), category, message, column, path });
    const bomRows = (await badLinesOf(page, "bom.jsonl")).rows;
    const bomCheck = checked(bomFile).findings.filter((finding) => finding.severity === "error");
    assert.equal(bomCheck.length, 1);
    assert.match(bomCheck[0].message, / \(the line begins with a UTF-8 byte order mark, bytes EF BB BF, /);
    assert.deepEqual(bomRows.map(cells), bomCheck.map(listedError));
    const lastCheck = checked(lastFile).findings.filter((finding) => finding.severity === "error");
    assert.deepEqual(lastCheck.map((finding) => [finding.line, finding.message]), [[2, "expected ident at column 2 (the last line, without its newline)"]]);
    assert.deepEqual((await badLinesOf(page, "last-line.jsonl")).rows.map(cells), lastCheck.map(listedError));

    // the lines the reference refuses are the lines check reports as errors, and listed
    const answers = reference(badFile);
    assert.equal(answers.length, bad.length);
    const refused = answers.map((answer, at) => ({ at, answer })).filter(({ answer }) => !answer.ok);
    const report = checked(badFile);
    const errors = report.findings.filter((finding) => finding.severity === "error");
    assert.deepEqual(errors.map((finding) => finding.line), refused.map(({ at }) => at + 1));
    assert.equal(report.file.errors, errors.length);
    const shown = await badLinesOf(page, "bad-lines.jsonl");
    assert.equal(shown.heading, `${errors.length} invalid lines`);
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
        { category: listed.category, message: listed.message, column: listed.column },
        { category: want.category, message: want.message, column: want.column === null ? "" : String(want.column) },
        `line ${at + 1} as the reference reads ${JSON.stringify(bad[at])}`,
      );
    }
    const blank = shown.rows.find((row) => row.line === String(bad.indexOf("") + 1));
    assert.deepEqual([blank.category, blank.column], ["eof", "0"]);
    const status = await statusOf(page, "bad-lines.jsonl");
    assert.equal(status.lines.text, `${bad.length} (${errors.length} invalid)`);

    const last = run.at(-1);
    const evaluation = [...run].reverse().find((answer) => answer.mark?.kind === "eval").mark;
    const shownCut = await statusOf(page, "cut-run.jsonl");
    assert.equal(shownCut.stage.text, "train (evaluating)");
    const share = (100 * last.pace.step) / last.pace.max_steps;
    assert.notEqual(share % 1, 0.5); // no tie to round
    assert.equal(shownCut.step.text, `${last.pace.step} / ${last.pace.max_steps} (${Math.round(share)}%)`);
    assert.equal(shownCut.evaluation.text, `${evaluation.step} / ${evaluation.total} (${Math.round((100 * evaluation.step) / evaluation.total)}%)`);
    assert.ok(last.pace.eta !== null);
    // the ETA counted down since the pace measured it (status: tqdm's remaining time)
    const remaining = last.pace.eta.secs + last.pace.eta.nanos / 1e9 - (now - cutState.measured);
    assert.notEqual(Math.abs((remaining % 1) - 0.5) < 1e-6, true); // no tie to round
    assert.equal(shownCut.eta.text, clock({ secs: Math.floor(remaining), nanos: Math.round((remaining % 1) * 1e9) }));
    assert.equal(Number(shownCut.eta.title), remaining);
    assert.equal(shownCut["last line"].text, `${Math.floor(now - cutState.last)} s ago`);
    await page.screenshot({ path: join(ARTEFACTS, "bad-lines.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();

    // three days of silence: far longer than 50 steps at its pace, and than two minutes
    page = await freshPage(pageUrl, cutState.last + 3 * 86400 + 5);
    await page.setInputFiles("#files", cut);
    await idle(page, 1);
    const stale = await statusOf(page, "cut-run.jsonl");
    assert.equal(stale.eta.text, "stale (no line for 3 days, much longer than its pace predicts)");
    assert.equal(stale["last line"].text, "3 days ago");
    await page.close();
  });

  it("reads a 1M-line file in chunks, answering input between them", async () => {
    page = await freshPage();
    const LINES = 1_000_000;
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
    const oopsFile = join(work, "oops.jsonl");
    writeFileSync(oopsFile, "oops\n");
    const oops = listedError(checked(oopsFile).findings.find((finding) => finding.severity === "error"));

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

    const status = await statusOf(page, "million.jsonl");
    assert.equal(status.lines.text, `1,000,000 (${wrong.size} invalid)`);
    assert.equal(status.step.text, "1,000,000 / 1,000,000 (100%)");
    assert.equal(Number(status.loss.title), 4 / Math.sqrt(LINES));
    assert.equal(status.eta.text, "0:00:00");
    const listed = await badLinesOf(page, "million.jsonl");
    assert.deepEqual(listed.rows.map((row) => Number(row.line.replaceAll(",", ""))), listedWrong);
    assert.equal(listed.heading, `${wrong.size} invalid lines`);
    assert.equal(listed.more, `… and ${wrong.size - 200} more (not listed; overbrainer-contract check lists them all)`);
    for (const row of listed.rows) assert.deepEqual([row.category, row.message, row.column, row.text], [oops.category, oops.message, oops.column, "oops"]);
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
    const text = async (name) => (await statusOf(page, `snapshots/${name}`)).snapshot.text;
    const proofText = `taken at step ${taken.step}: ${taken.checkpoint} (${taken.reason})`;
    assert.equal(await text("pending"), `requested (manual), not taken yet; an earlier one ${proofText}`);
    assert.equal(await text("answered"), proofText);
    assert.equal(await text("wordless"), "requested (no reason), not taken yet");
    assert.match(await text("refused"), /^snapshot\.json: \$\.step: /);
    assert.equal(await text("requested"), "requested (no reason), not taken yet");
    assert.equal(await text("padded"), "requested (manual), not taken yet");
    assert.equal(await text("bounded"), "requested (manual), not taken yet");
    const over = (name, bound) => `${name}: ${(bound + 1).toLocaleString("en-US")} bytes, over the ${bound.toLocaleString("en-US")} it may hold`;
    assert.equal(await text("over-request"), over("snapshot.request", REQUEST_BOUND));
    assert.equal(await text("over-proof"), over("snapshot.json", PROOF_BOUND));
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("reads a run folder's metrics.jsonl.gz, and says what gzip data under another name is", async () => {
    page = await freshPage();
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
    assert.match(await problemOf("cut.jsonl.gz"), /^cut\.jsonl\.gz: the gzip stream is cut short or corrupt \(/);
    const want = expectedStatus(reference(metrics));
    const shown = await statusOf(page, "zipped/tiny-run");
    assert.equal(shown.step.text, `${want.end} / ${want.pace.max_steps} (100%)`);
    assert.equal(shown.lines.text, `${want.lines} (${want.begins} begin lines: resumed)`);
    assert.equal(Number(shown.loss.title), want.loss.value);
    assert.equal(await problemOf("disguised.jsonl"), "disguised.jsonl: gzip-compressed data, not JSON lines (it begins with gzip's magic bytes 1f 8b): name it .jsonl.gz, or gunzip it");
    assert.equal((await statusOf(page, "disguised.jsonl")).lines.text, "0");
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("opens from a web server too, and reads files dropped on it", async () => {
    const html = readFileSync(join(work, "viewer.html"));
    const server = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(html);
    });
    await new Promise((done) => server.listen(0, "127.0.0.1", done));
    try {
      page = await freshPage(`http://127.0.0.1:${server.address().port}/viewer.html`);
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
        const want = expectedStatus(reference(join(EXAMPLES, name, "metrics.jsonl")));
        const shown = await statusOf(page, `${name}.jsonl`);
        assert.equal(shown.step.text, `${want.end} / ${want.pace.max_steps} (100%)`);
        assert.equal(Number(shown.loss.title), want.loss.value);
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
      foreign: document.querySelectorAll("img, svg, iframe, b, style:not(head style), body style").length,
      styles: document.querySelectorAll("style").length,
      visible: getComputedStyle(document.body).display,
    }));
    assert.deepEqual(facts, { pwned: undefined, parentPwned: undefined, scripts: 1, foreign: 0, styles: 1, visible: "block" });
    const status = await statusOf(page, name);
    assert.equal(status.run.text, name, "the folder's name shown as written");
    assert.equal(status.snapshot.text, "taken at step 1: <script>window.__pwned=7</script> (no reason)");
    const answers = reference(join(folder, "metrics.jsonl"));
    const listed = await badLinesOf(page, name);
    const bad = answers.map((answer, at) => ({ at, answer })).filter(({ answer }) => !answer.ok);
    assert.equal(listed.rows.length, bad.length);
    listed.rows.forEach((row, index) => {
      const { at, answer } = bad[index];
      assert.equal(row.text, hostile[at], `line ${at + 1} shown as written`);
      assert.equal(row.message, shownError(answer).message);
    });
    assert.ok(listed.rows.some((row) => row.message.includes("<img src=x onerror=window.__pwned=3>")));
    await page.screenshot({ path: join(ARTEFACTS, "markup.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

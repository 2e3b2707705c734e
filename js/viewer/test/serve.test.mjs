// The viewer served by `overbrainer-contract serve`, in a real browser: the server started on a
// sweep the test writes, Debian's headless Chromium (playwright-core) opening the address it
// prints, and the test changing the sweep while the page is open. Expected values come from
// `overbrainer-contract status -o json` of the same files (the page's clock fixed at its now)
// and from the files the test writes, never from the page.
//
//   node --test test/serve.test.mjs     (after the page's build: js/viewer/dist/viewer.html)
//
// OVERBRAINER_CONTRACT names the console script (default: `overbrainer-contract` on the PATH,
// with the `serve` extra); CHROMIUM the browser (default /usr/bin/chromium).

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import * as core from "../../dist/index.js";
import { CLI, screenOf } from "./cli.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const PAGE = resolve(HERE, "..", "dist", "viewer.html");
const BROWSER = process.env.CHROMIUM || "/usr/bin/chromium";
/** The page's clock, fixed (seconds since the epoch): its status is told at this now. */
const NOW = 1_733_000_600;
/** A line appended, a run started: each must show within this (the goal). */
const SHOWN_WITHIN_MS = 2000;

const line = (fields) => `${JSON.stringify(fields)}\n`;
const begin = (maxSteps) => line({ event: "begin", time: NOW - 500, max_steps: maxSteps, num_train_epochs: 1 });
const log = (step) => line({ event: "log", step, time: NOW - 500 + step, epoch: step / 100, loss: 2 - step / 100, learning_rate: 1e-4 });
/** A live run's lines: its begin, then a log at each step up to `steps`. */
const live = (steps, maxSteps = 100) => begin(maxSteps) + Array.from({ length: steps }, (_, at) => log(at + 1)).join("");
const thousands = (value) => Number(value).toLocaleString("en-US");

/** `overbrainer-contract status -o json --now NOW` of a run folder: its record. */
function statusOf(folder) {
  const done = spawnSync(CLI, ["status", "-o", "json", "--now", String(NOW), folder], { encoding: "utf8" });
  if (done.error) throw new Error(`${CLI}: ${done.error.message} (OVERBRAINER_CONTRACT names the console script)`);
  assert.ok(done.status === 0 || done.status === 1, `status ${folder}: exit ${done.status}: ${done.stderr}`);
  return JSON.parse(done.stdout);
}

/** The server on `folder`: its process and the address it printed. */
async function serve(folder) {
  const server = spawn(CLI, ["serve", "--port", "0", "--page", PAGE, folder], { stdio: ["ignore", "pipe", "pipe"] });
  let printed = "";
  const address = await new Promise((found, failed) => {
    server.stdout.on("data", (data) => {
      printed += String(data);
      const match = /at (http:\/\/\S+) \(Ctrl-C to stop\)/.exec(printed);
      if (match) found(match[1]);
    });
    server.on("exit", (code) => failed(new Error(`serve ended (${code}) before its address: ${printed}`)));
  });
  return { server, address };
}

/** The table's row of the run `name`: each cell's text by column. */
function rowOf(page, name) {
  return page.evaluate((wanted) => {
    for (const row of document.querySelectorAll("#run-table tbody tr")) {
      if (!(row instanceof HTMLElement) || row.dataset.run !== wanted) continue;
      const cells = {};
      for (const cell of row.querySelectorAll("td[data-column]")) if (cell instanceof HTMLElement) cells[cell.dataset.column ?? ""] = cell.textContent;
      return cells;
    }
    return null;
  }, name);
}

/** The status rows of the card of `name` (shown or not): words by label. */
function cardOf(page, name) {
  return page.evaluate((wanted) => {
    const card = [...document.querySelectorAll("article.run")].find((each) => each instanceof HTMLElement && each.dataset.run === wanted);
    if (!card) return null;
    const rows = {};
    for (const row of card.querySelectorAll("table.status tr")) rows[row.querySelector("th")?.textContent ?? ""] = row.querySelector("td")?.textContent ?? "";
    return rows;
  }, name);
}

/** `look`'s answer with the cards shown (a served page opens on the table, and draws the
 * cards when they are shown), the table shown again after. */
async function withCards(page, look) {
  await page.locator("#view-cards").check();
  try {
    return await look();
  } finally {
    await page.locator("#view-table").check();
  }
}

/** Until the line above the runs says `text`. */
function untilServed(page, text) {
  return page.waitForFunction((wanted) => document.getElementById("served")?.textContent === wanted, text, { timeout: 10_000, polling: 20 });
}

/** Milliseconds until the row of `name` shows `step` in its step cell. */
async function untilStep(page, name, step) {
  const start = performance.now();
  await page.waitForFunction(
    ([wanted, text]) => {
      for (const row of document.querySelectorAll("#run-table tbody tr")) {
        if (row instanceof HTMLElement && row.dataset.run === wanted) {
          const cell = row.querySelector('td[data-column="step"]');
          return cell !== null && (cell.textContent ?? "").split("/")[0] === text;
        }
      }
      return false;
    },
    [name, thousands(step)],
    { timeout: 30_000, polling: 20 },
  );
  return performance.now() - start;
}

describe("the viewer served by overbrainer-contract serve", () => {
  let work;
  let sweep;
  let browser;
  let page;
  let served;
  const problems = [];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "serve-test-"));
    sweep = join(work, "sweep");
    for (const [name, steps] of [["lr1/seed1", 10], ["lr1/seed2", 20], ["lr2/seed1", 30]]) {
      mkdirSync(join(sweep, name), { recursive: true });
      writeFileSync(join(sweep, name, "metrics.jsonl"), live(steps));
    }
    served = await serve(sweep);
    browser = await chromium.launch({ executablePath: BROWSER, headless: true });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.clock.setFixedTime(NOW * 1000);
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    await page.goto(served.address);
    await page.waitForSelector("body[data-ready=true]");
    await untilStep(page, "lr2/seed1", 30);
  });

  after(async () => {
    await browser?.close();
    if (served) {
      const ended = new Promise((done) => served.server.on("exit", (code) => done(code)));
      served.server.kill("SIGINT");
      assert.equal(await ended, 0, "serve ends cleanly on Ctrl-C");
    }
    rmSync(work, { recursive: true, force: true });
  });

  it("opens on the table of the sweep, each row in the words of status -o json", async () => {
    assert.equal(await page.locator("#view-table").isChecked(), true);
    assert.equal(await page.locator("#open").isHidden(), true);
    await untilServed(page, "following 3 runs of the server");
    const names = await page.locator("#run-table tbody tr").evaluateAll((rows) => rows.map((row) => row.dataset.run));
    assert.deepEqual(names, ["lr1/seed1", "lr1/seed2", "lr2/seed1"]);
    for (const name of names) {
      const path = join(sweep, name, "metrics.jsonl");
      // the package's record of the same bytes: every cell of the row is the table's of it
      const record = await core.status(readFileSync(path), { name: path, now: NOW, run: name });
      const row = await rowOf(page, name);
      const cells = core.cells({ ...record, name }, { metrics: [] });
      const ids = ["name", "stage", "step", "loss", "best_eval_loss", "eta", "last_line", "snapshot", "invalid"];
      ids.forEach((id, at) => assert.equal(row[id], cells[at], `${name}: ${id}`));
      // and that record is the command line's, in every field the clock does not move
      const told = statusOf(join(sweep, name));
      const plain = (/** @type {unknown} */ value) => (typeof value === "bigint" ? Number(value) : value);
      for (const field of ["step", "max_steps", "lines", "invalid_lines", "phase", "valid", "ended", "last_time"]) {
        assert.equal(plain(record[field]), told[field], `${name}: ${field}`);
      }
      assert.equal(record.loss.value, told.loss.value, `${name}: loss`);
      assert.equal(row.step, `${thousands(told.step)}/${thousands(told.max_steps)}`, name);
    }
    assert.deepEqual(problems, []);
  });

  it("tells the cards what the clock alone changed, when they are shown after the table", async () => {
    // a page of its own, whose clock moves three days on (the other tests' stays at NOW); its
    // cards, hidden behind the table, are drawn when shown, at the page's clock then
    const later = NOW + 3 * 86400;
    const name = "lr1/seed1";
    const folder = join(sweep, name);
    const own = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    try {
      await own.clock.setFixedTime(NOW * 1000);
      await own.goto(served.address);
      await own.waitForSelector("body[data-ready=true]");
      await untilStep(own, name, 10);
      const without = (/** @type {Record<string, string>} */ rows) => Object.fromEntries(Object.entries(rows).filter(([label]) => label !== "run" && label !== "snapshot"));
      const atLater = screenOf(folder, later);
      const bytes = readFileSync(join(folder, "metrics.jsonl"));
      const column = [...core.headings()[0], ...core.headings()[1]].indexOf("last line");
      const cellAt = async (/** @type {number} */ now) => core.cells({ ...(await core.status(bytes, { name: join(folder, "metrics.jsonl"), now, run: name })), name }, { metrics: [] })[column];
      const [before, cell] = [await cellAt(NOW), await cellAt(later)];
      assert.notEqual(before, cell);
      assert.equal((await rowOf(own, name)).last_line, before);
      // the clock moves: the table's row is told again at the page's ten-second tick
      await own.clock.setFixedTime(later * 1000);
      const shows = ([selector, text]) => document.querySelector(selector)?.textContent === text;
      await own.waitForFunction(shows, [`#run-table tr[data-run="${name}"] td[data-column="last_line"]`, cell], { timeout: 20_000 });
      // and the cards, shown now, say what the command line says at that clock
      await own.locator("#view-cards").check();
      await own.waitForFunction(shows, [`article.run[data-run="${name}"] td[data-field="last_line"]`, atLater["last line"]], { timeout: 5000 });
      assert.deepEqual(without(await cardOf(own, name)), without(atLater));
    } finally {
      await own.close();
    }
  });

  it("shows a line appended to a run within 2 s", async () => {
    appendFileSync(join(sweep, "lr1", "seed2", "metrics.jsonl"), log(21));
    const took = await untilStep(page, "lr1/seed2", 21);
    console.log(`a line appended shown in ${took.toFixed(0)} ms`);
    assert.ok(took < SHOWN_WITHIN_MS, `${took} ms`);
    const record = statusOf(join(sweep, "lr1", "seed2"));
    assert.equal(record.step, 21);
    assert.equal((await rowOf(page, "lr1/seed2")).step, `${thousands(record.step)}/${thousands(record.max_steps)}`);
  });

  it("shows a run started while the page is open within 2 s", async () => {
    const started = join(sweep, "lr2", "seed2");
    mkdirSync(started, { recursive: true });
    writeFileSync(join(started, "metrics.jsonl"), live(5));
    const took = await untilStep(page, "lr2/seed2", 5);
    console.log(`a new run shown in ${took.toFixed(0)} ms`);
    assert.ok(took < SHOWN_WITHIN_MS, `${took} ms`);
    await untilServed(page, "following 4 runs of the server");
  });

  it("marks a run whose loss is not finite with its alerts, as status -o json tells them", async () => {
    const folder = join(sweep, "lr4", "seed1");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "metrics.jsonl"), live(6));
    await untilStep(page, "lr4/seed1", 6);
    // the plugin's form of a NaN loss: null in its field, its name in scalars
    appendFileSync(join(folder, "metrics.jsonl"), line({ event: "log", step: 7, time: NOW - 493, loss: null, scalars: { loss: "NaN" } }));
    await untilStep(page, "lr4/seed1", 7);
    const card = 'article.run[data-run="lr4/seed1"]';
    const told = statusOf(folder);
    assert.ok(told.alerts.some((alert) => alert.kind === "nonfinite" && alert.step === 7), JSON.stringify(told.alerts));
    // the page opens on the table: the card's badges are drawn once the cards are shown
    const badges = await withCards(page, async () => {
      await page.waitForSelector(`${card} .badge[data-kind="nonfinite"]`, { timeout: 5000 });
      return page.locator(`${card} .badges .badge`).evaluateAll((each) => each.map((badge) => [badge.textContent, badge.title]));
    });
    assert.deepEqual(badges, told.alerts.map((alert) => [alert.kind, alert.message]));
    const headings = [...core.headings()[0], ...core.headings()[1]];
    const cell = core.cells({ ...told, name: "lr4/seed1" }, { metrics: [] })[headings.indexOf("alerts")];
    assert.equal((await rowOf(page, "lr4/seed1")).alerts, cell);
    assert.equal(await page.locator('#run-table tr[data-run="lr4/seed1"]').getAttribute("class").then((value) => (value ?? "").split(" ").includes("alerted")), true);
  });

  it("asks file by file when an answer for many files fails", async () => {
    // every answer for many files broken off, as by a file cut shorter while it was written
    const asked = [];
    const broken = (route) => {
      asked.push(route.request().url());
      return route.abort("connectionreset");
    };
    const alone = [];
    const seen = (request) => {
      if (new URL(request.url()).pathname.includes("/api/files/")) alone.push(request.url());
    };
    await page.route("**/api/parts?**", broken);
    page.on("request", seen);
    try {
      appendFileSync(join(sweep, "lr2", "seed1", "metrics.jsonl"), log(31));
      const folder = join(sweep, "lr5", "seed1");
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "metrics.jsonl"), live(4));
      await untilStep(page, "lr2/seed1", 31);
      await untilStep(page, "lr5/seed1", 4);
      assert.ok(asked.length > 0, "the reads were asked for together first");
      assert.ok(alone.length >= 2, `each file then asked for alone: ${alone.join(", ")}`);
      assert.equal((await rowOf(page, "lr5/seed1")).step, `${thousands(statusOf(folder).step)}/100`);
    } finally {
      page.off("request", seen);
      await page.unroute("**/api/parts?**", broken);
    }
    // what the browser logs of the answers broken off here: nothing else
    const reset = "Failed to load resource: net::ERR_CONNECTION_RESET";
    assert.ok(problems.includes(reset));
    problems.splice(0, problems.length, ...problems.filter((problem) => problem !== reset));
    assert.deepEqual(problems, []);
  });

  it("says a file rotated and reads the new one from its start", async () => {
    const folder = join(sweep, "lr1", "seed1");
    const path = join(folder, "metrics.jsonl");
    // rotated with no moment where the path holds no file (a listing then would rightly say
    // the file removed, then there again): the old file kept under its new name, the new
    // one put in its place at once
    linkSync(path, join(folder, "metrics.jsonl.1"));
    writeFileSync(join(folder, "metrics.jsonl.new"), live(3));
    renameSync(join(folder, "metrics.jsonl.new"), path);
    await untilStep(page, "lr1/seed1", 3);
    const said = page.locator('article.run[data-run="lr1/seed1"] p.change');
    assert.equal(await said.textContent(), `${path} was replaced by another file: reading the new file from its start`);
    assert.equal((await rowOf(page, "lr1/seed1")).step, `${thousands(3)}/${thousands(100)}`);
  });

  it("says a file truncated and reads it again from its start", async () => {
    const path = join(sweep, "lr2", "seed1", "metrics.jsonl");
    writeFileSync(path, live(2)); // the same file, cut shorter and written again
    await untilStep(page, "lr2/seed1", 2);
    const said = page.locator('article.run[data-run="lr2/seed1"] p.change');
    assert.equal(await said.textContent(), `${path} was truncated: reading it again from its start`);
    assert.equal(statusOf(join(sweep, "lr2", "seed1")).step, 2);
  });

  it("says a file removed, keeps the run as last read, and reads it when it is there again", async () => {
    const path = join(sweep, "lr1", "seed2", "metrics.jsonl");
    const said = page.locator('article.run[data-run="lr1/seed2"] p.change');
    rmSync(path);
    await page.waitForFunction(
      () => document.querySelector('article.run[data-run="lr1/seed2"] p.change')?.textContent?.includes("was removed") ?? false,
      null,
      { timeout: 5000, polling: 20 },
    );
    assert.equal(await said.textContent(), `${path} was removed: waiting for it to come back (the run as last read shown)`);
    assert.equal((await rowOf(page, "lr1/seed2")).step, `${thousands(21)}/${thousands(100)}`);
    writeFileSync(path, live(7));
    await untilStep(page, "lr1/seed2", 7);
    assert.equal(await said.textContent(), `${path} is there again: reading the new file from its start`);
  });

  it("says a run whose folder is removed removed, and keeps it as last read", async () => {
    const folder = join(sweep, "lr2", "seed2");
    const path = join(folder, "metrics.jsonl");
    rmSync(folder, { recursive: true });
    await page.waitForFunction(
      () => document.querySelector('article.run[data-run="lr2/seed2"] p.change')?.textContent?.includes("was removed") ?? false,
      null,
      { timeout: 5000, polling: 20 },
    ).catch(() => {});
    const said = page.locator('article.run[data-run="lr2/seed2"] p.change');
    assert.equal(await said.textContent(), `${path} was removed: waiting for it to come back (the run as last read shown)`);
    assert.equal((await rowOf(page, "lr2/seed2")).step, `${thousands(5)}/${thousands(100)}`);
  });

  it("says why a side file is not read, in the words of status", async () => {
    const folder = join(sweep, "lr3", "seed1");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "metrics.jsonl"), live(3));
    symlinkSync(join(work, "elsewhere.json"), join(folder, "snapshot.json"));
    // status refuses the run, naming the file and why: `PATH/snapshot.json: a symlink, not read`
    const told = spawnSync(CLI, ["status", folder], { encoding: "utf8" }).stderr;
    const named = `${join(folder, "snapshot.json")}: `;
    assert.ok(told.includes(named), told);
    const why = told.slice(told.indexOf(named) + named.length).split("\n")[0];
    await untilStep(page, "lr3/seed1", 3);
    const cell = page.locator('article.run[data-run="lr3/seed1"] td[data-field="snapshot"]');
    const shown = await withCards(page, async () => {
      await page.waitForFunction(
        (wanted) => document.querySelector('article.run[data-run="lr3/seed1"] td[data-field="snapshot"]')?.textContent === wanted,
        `snapshot.json: ${why}`,
        { timeout: 5000, polling: 20 },
      ).catch(() => {});
      return cell.textContent();
    });
    assert.equal(shown, `snapshot.json: ${why}`);
  });

  it("shows a run's name that holds markup as text", async () => {
    const name = "<img src=x onerror=document.title='run'>";
    mkdirSync(join(sweep, name), { recursive: true });
    writeFileSync(join(sweep, name, "metrics.jsonl"), live(4));
    await untilStep(page, name, 4);
    assert.equal(await page.locator("#run-table img").count(), 0);
    assert.equal(await page.locator("#runs img").count(), 0);
    assert.notEqual(await page.title(), "run");
    assert.deepEqual(problems, []);
  });

  it("reads the runs again from the server for a key asked for outside the metrics patterns", async () => {
    // a run whose logs hold a scalar no default pattern picks: its name listed, no point kept
    const folder = join(sweep, "lr9", "seed1");
    mkdirSync(folder, { recursive: true });
    const logs = [1, 2, 3, 4, 5].map((step) => line({ event: "log", step, time: NOW - 500 + step, loss: 2 - step / 10, scalars: { acc: step / 8 } }));
    writeFileSync(join(folder, "metrics.jsonl"), begin(5) + logs.join(""));
    await untilStep(page, "lr9/seed1", 5);
    await page.waitForSelector('#metric-keys button[data-key="acc"]');
    await page.fill("#metrics", "loss,acc");
    const drawn = await page.waitForFunction(
      (name) => {
        const acc = globalThis.overbrainerViewer.panels.get("acc");
        const line = acc?.lines.find((each) => each.label === name);
        if (line === undefined) return null;
        return { steps: [...line.points.steps.subarray(0, line.points.length)], values: [...line.points.values.subarray(0, line.points.length)] };
      },
      "lr9/seed1",
      { timeout: 30_000, polling: 50 },
    );
    assert.deepEqual(await drawn.jsonValue(), { steps: [1, 2, 3, 4, 5], values: [1, 2, 3, 4, 5].map((step) => step / 8) });
    // every run read again is the same run: its row and the loss it draws as before
    const record = statusOf(folder);
    assert.equal((await rowOf(page, "lr9/seed1")).step, `${thousands(record.step)}/${thousands(record.max_steps)}`);
    const loss = await page.evaluate(() => globalThis.overbrainerViewer.panels.get("loss").lines.map((each) => [each.label, [...each.points.values.subarray(0, each.points.length)]]));
    assert.deepEqual(loss.find(([label]) => label === "lr9/seed1"), ["lr9/seed1", [1, 2, 3, 4, 5].map((step) => 2 - step / 10)]);
    // and a line appended after it goes on to the new digest
    appendFileSync(join(folder, "metrics.jsonl"), line({ event: "log", step: 6, time: NOW - 494, scalars: { acc: 0.75 } }));
    await page.waitForFunction(
      (name) => globalThis.overbrainerViewer.panels.get("acc")?.lines.find((each) => each.label === name)?.points.length === 6,
      "lr9/seed1",
      { timeout: 30_000, polling: 50 },
    );
    await page.fill("#metrics", core.DEFAULT_PATTERNS);
    assert.deepEqual(problems, []);
  });
});

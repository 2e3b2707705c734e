// The run viewer's plot and table of many runs, in Debian's headless Chromium (playwright-core):
// runs named by their folders, the metric picker's globs and its headings, values that are
// not finite drawn as markers, groups drawn as mean ± one standard deviation, the line styles
// of `plot`, the log scale, and the table of runs sorted by any column. Every run is a file
// the test writes; every expected value is computed here from the lines written, or is the
// package's `status()` record of the same bytes, never read from the page. The page exposes
// what each panel drew as `overbrainerViewer.panels` (key → its lines, bands and markers, in
// the canvas's pixels): the test reads it, and the canvas's pixels where it says a marker is.
//
//   node --test test/          (after `cd js && node build.mjs`: the package's dist/)

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import * as core from "../../dist/index.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const VIEWER = resolve(HERE, "..");
const BROWSER = process.env.CHROMIUM || "/usr/bin/chromium";
const ARTEFACTS = resolve(process.env.VIEWER_ARTEFACTS || join(VIEWER, "test-output"));

/** matplotlib's tab10 and line styles, as plot.py's `style()` takes them. */
const TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const DASHES = ["solid", "dashed", "dotted", "dashdot"];

let browser;
let work;
let pageUrl;

before(async () => {
  work = mkdtempSync(join(tmpdir(), "viewer-panels-"));
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

async function freshPage() {
  const opened = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const problems = [];
  opened.on("pageerror", (error) => problems.push(error.message));
  opened.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  await opened.goto(pageUrl);
  await opened.waitForSelector("body[data-ready=true]");
  opened.problems = problems;
  return opened;
}

/** Every run read, and the panels drawn after it. */
async function idle(opened, runs) {
  await opened.waitForFunction(
    (count) => document.body.dataset.state === "idle" && document.querySelectorAll(".run").length === count,
    runs,
  );
  await frames(opened);
}

async function frames(opened) {
  await opened.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** `action` done, and the panels drawn again after it. */
async function redrawn(opened, action) {
  const before = await opened.evaluate(() => Number(document.getElementById("panels").dataset.drawn || 0));
  await action();
  await opened.waitForFunction((count) => Number(document.getElementById("panels").dataset.drawn || 0) > count, before);
}

/** A run folder's metrics.jsonl of these lines (objects, written as JSON). */
function writeRun(folder, lines) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "metrics.jsonl"), lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
}

/** The panels shown: each heading (`""` for the keys without `/`) and its panels' keys. */
async function panels(opened) {
  return opened.evaluate(() =>
    [...document.querySelectorAll("#panels .panel-group")].map((group) => ({
      heading: group.dataset.heading,
      title: group.querySelector("h3")?.textContent ?? null,
      keys: [...group.querySelectorAll("figure.panel")].map((figure) => figure.dataset.key),
      captions: [...group.querySelectorAll("figure.panel figcaption")].map((caption) => caption.textContent),
    })),
  );
}

/** What the panel of `key` drew (the page's `overbrainerViewer.panels`), its typed arrays as
 * arrays. */
async function drawnOf(opened, key) {
  return opened.evaluate((wanted) => {
    const drawn = globalThis.overbrainerViewer.panels.get(wanted);
    if (drawn === undefined) return null;
    const points = (each) => ({ steps: [...each.steps.subarray(0, each.length)], values: [...each.values.subarray(0, each.length)], kinds: [...each.kinds.subarray(0, each.length)] });
    const raw = (line) => (line.raw ? { raw: points(line.raw) } : {});
    return {
      log: drawn.log,
      box: drawn.box,
      xRange: drawn.xRange,
      yRange: drawn.yRange,
      markers: drawn.markers,
      lines: drawn.lines.map((line) => ({ label: line.label, colour: line.colour, dash: line.dash, faint: line.faint, ...points(line.points), ...raw(line) })),
      bands: drawn.bands.map(({ label, colour, dash, band }) => ({ label, colour, dash, steps: [...band.steps], mean: [...band.mean], std: [...band.std], count: [...band.count] })),
    };
  }, key);
}

/** Pixels within `radius` of (x, y) of the panel of `key` (CSS pixels) in `hex`'s colour. */
async function pixelsNear(opened, key, x, y, hex, radius = 2) {
  return opened.evaluate(
    ({ wanted, x, y, hex, radius }) => {
      const canvas = document.querySelector(`figure.panel[data-key="${CSS.escape(wanted)}"] canvas`);
      const scale = canvas.width / canvas.clientWidth;
      const [r, g, b] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
      const size = Math.ceil(radius * 2 * scale) + 1;
      const left = Math.round((x - radius) * scale);
      const top = Math.round((y - radius) * scale);
      const { data } = canvas.getContext("2d").getImageData(left, top, size, size);
      let count = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i] - r) < 40 && Math.abs(data[i + 1] - g) < 40 && Math.abs(data[i + 2] - b) < 40) count += 1;
      }
      return count;
    },
    { wanted: key, x, y, hex, radius },
  );
}

/** The legend: each entry's text, colour, line style and whether it is a group. */
async function legendOf(opened) {
  return opened.evaluate(() =>
    [...document.querySelectorAll("#legend li")].map((item) => ({
      text: item.textContent,
      colour: item.dataset.colour,
      dash: item.dataset.dash,
      group: item.dataset.group === "true",
      hidden: item.dataset.hidden === "true",
    })),
  );
}

describe("the viewer's panels, groups and table", () => {
  it("cuts a long key and a long group's key where shown (80 characters), the key whole in its data", async () => {
    const page = await freshPage();
    const folder = join(work, "long");
    const heading = "g".repeat(150_000);
    const key = `${heading}/${"k".repeat(150_000)}`; // 300 KB
    const long = "n".repeat(200);
    for (const name of [`${long}-a`, `${long}-b`, "other"]) {
      writeRun(join(folder, name), [1, 2, 3].map((step) => ({ event: "log", time: step, step, scalars: { [key]: step } })));
    }
    await page.setInputFiles("#folder", folder);
    await idle(page, 3);
    await redrawn(page, () => page.fill("#metrics", "g*"));
    await redrawn(page, () => page.fill("#group", "^(n+)"));
    // the first 79 characters and an ellipsis
    const cut = (text) => `${text.slice(0, 79)}\u2026`;
    assert.deepEqual(await panels(page), [{ heading, title: cut(heading), keys: [key], captions: [cut(key)] }]);
    const legend = await legendOf(page);
    assert.deepEqual(legend.map(({ text }) => text), [`${cut(long)} (2 runs)`, "other"]);
    const drawn = await drawnOf(page, key);
    assert.equal(drawn.lines.length, 3);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("names runs by their folders below the folder they have in common", async () => {
    const page = await freshPage();
    const pair = join(work, "pair");
    const lines = (loss) => [{ event: "begin", time: 1, max_steps: 2 }, { event: "log", time: 2, step: 1, loss }];
    writeRun(join(pair, "a"), lines(2));
    writeRun(join(pair, "b"), lines(3));
    await page.setInputFiles("#folder", pair);
    await idle(page, 2);
    const names = () => page.evaluate(() => [...document.querySelectorAll(".run")].map((run) => [run.dataset.run, run.querySelector("h2").textContent, run.querySelector("[data-field=run]").textContent]));
    // two files called metrics.jsonl: two runs, named by their folders, not by the file
    assert.deepEqual(await names(), [["a", "a", "a"], ["b", "b", "b"]]);
    assert.deepEqual((await legendOf(page)).map((entry) => entry.text), ["a", "b"]);
    // a run from another folder: the folder they have in common is now above both
    writeRun(join(work, "other", "c"), lines(4));
    await page.setInputFiles("#folder", join(work, "other"));
    await idle(page, 3);
    assert.deepEqual(await names(), [["pair/a", "pair/a", "pair/a"], ["pair/b", "pair/b", "pair/b"], ["other/c", "other/c", "other/c"]]);
    // a file opened alone keeps its file name, and moves no other run's name
    const lone = join(work, "lone.jsonl");
    writeFileSync(lone, `${JSON.stringify(lines(5)[1])}\n`);
    await page.click("#clear");
    await page.setInputFiles("#files", lone);
    await idle(page, 1);
    assert.deepEqual(await names(), [["lone.jsonl", "lone.jsonl", "lone.jsonl"]]);
    await page.setInputFiles("#folder", pair);
    await idle(page, 3);
    assert.deepEqual(await names(), [["lone.jsonl", "lone.jsonl", "lone.jsonl"], ["a", "a", "a"], ["b", "b", "b"]]);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("picks metric keys by globs, under a heading per prefix, and draws NaN and the infinities as markers", async () => {
    const page = await freshPage();
    const folder = join(work, "picker");
    const first = [{ event: "begin", time: 1, max_steps: 6 }];
    const second = [{ event: "begin", time: 1, max_steps: 6 }];
    const chosen = [0.5, 0.7, "NaN", 0.9, null, "Infinity"];
    const rejected = [-0.5, -0.2, 0.1, 0.3, "-Infinity", 0.6];
    for (let step = 1; step <= 6; step += 1) {
      first.push({ event: "log", time: 1 + step, step, loss: 3 - step * 0.1, learning_rate: 1e-4, scalars: { "rewards/chosen": chosen[step - 1], "rewards/rejected": rejected[step - 1] } });
      second.push({ event: "log", time: 1 + step, step, loss: 3.1 - step * 0.1, scalars: { "rewards/chosen": 0.4 + step / 10, "rewards/rejected": -0.1 * step } });
      if (step % 3 === 0) {
        first.push({ event: "log", time: 1.5 + step, step, eval_loss: 2.5, scalars: { eval_accuracy: 0.5 + step / 100 } });
      }
    }
    first.push({ event: "end", time: 20, step: 6, summary: { train_runtime: 12.5, total_flos: 1.23456789e15, train_loss: "NaN", epoch: null } });
    writeRun(join(folder, "r1"), first);
    writeRun(join(folder, "r2"), second);
    await page.setInputFiles("#folder", folder);
    await idle(page, 2);
    // the default patterns: loss, eval_loss, learning_rate, each a panel without a heading
    assert.equal(await page.inputValue("#metrics"), "loss,eval_loss,learning_rate");
    assert.deepEqual(await panels(page), [{ heading: "", title: null, keys: ["loss", "eval_loss", "learning_rate"], captions: ["loss", "eval_loss", "learning_rate"] }]);
    // the end line's summary on r1's card, as the record gives it
    const summary = await page.evaluate(() => [...document.querySelectorAll('.run[data-run="r1"] table.summary tr')].map((row) => [row.querySelector("th").textContent, row.querySelector("td").textContent, row.querySelector("td").title]));
    assert.deepEqual(summary, [["train_runtime", "12.5", "12.5"], ["total_flos", core.formatNumber(1.23456789e15, ".4g"), "1234567890000000"], ["train_loss", "NaN", ""], ["epoch", "null", ""]]);
    assert.equal(await page.isVisible('.run[data-run="r2"] table.summary'), false);
    // every key of the runs' logs listed, in sorted order
    const listed = await page.evaluate(() => [...document.querySelectorAll("#metric-keys button")].map((button) => button.dataset.key));
    assert.deepEqual(listed, ["eval_accuracy", "eval_loss", "learning_rate", "loss", "rewards/chosen", "rewards/rejected"]);

    await redrawn(page, () => page.fill("#metrics", "rewards/*"));
    assert.deepEqual(await panels(page), [{ heading: "rewards", title: "rewards", keys: ["rewards/chosen", "rewards/rejected"], captions: ["rewards/chosen", "rewards/rejected"] }]);
    assert.equal(await page.locator("figure.panel").count(), 2);

    const drawn = await drawnOf(page, "rewards/chosen");
    const bottom = drawn.box.top + drawn.box.height;
    const r1 = drawn.lines.find((line) => line.label === "r1");
    // every point kept: the null a gap (kind 1), NaN and Infinity as the doubles they name
    assert.deepEqual(r1.steps, [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(r1.kinds, [0, 0, 0, 0, 1, 0]);
    assert.ok(Number.isNaN(r1.values[2]) && r1.values[5] === Infinity);
    const [nan, infinity, ...others] = drawn.markers;
    assert.deepEqual(others, [], "one marker each for NaN and Infinity, none for the null");
    assert.deepEqual([nan.label, nan.step, nan.value, nan.shape, nan.y], ["r1", 3, "NaN", "cross", bottom]);
    assert.deepEqual([infinity.label, infinity.step, infinity.value, infinity.shape, infinity.y], ["r1", 6, "Infinity", "up", drawn.box.top]);
    // and drawn there, in r1's colour (the first run's: tab10's first)
    assert.equal(r1.colour, TAB10[0]);
    assert.ok((await pixelsNear(page, "rewards/chosen", nan.x, nan.y, TAB10[0])) >= 3, "the NaN's cross is on the canvas");
    assert.ok((await pixelsNear(page, "rewards/chosen", infinity.x, infinity.y + 4, TAB10[0])) >= 3, "the Infinity's ▲ is on the canvas");
    // the tooltip at the NaN's step says so
    const canvas = await page.locator('figure.panel[data-key="rewards/chosen"] canvas').boundingBox();
    await page.mouse.move(canvas.x + nan.x, canvas.y + drawn.box.top + 20);
    await page.waitForSelector("#tooltip:not([hidden])");
    const tip = await page.textContent("#tooltip");
    assert.match(tip, /^rewards\/chosen at step 3/);
    assert.ok(tip.includes("r1: NaN") && tip.includes("r2: 0.7"), tip);
    await page.mouse.move(canvas.x + xOf(drawn, 5), canvas.y + drawn.box.top + 20);
    await page.waitForFunction(() => document.getElementById("tooltip").textContent.includes("at step 5"));
    assert.ok((await page.textContent("#tooltip")).includes("r1: null"));
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(ARTEFACTS, "picker.png"), fullPage: true });

    // -Infinity on the bottom edge; on a log scale, every value not above 0 too
    const linear = await drawnOf(page, "rewards/rejected");
    assert.deepEqual(linear.markers.map((each) => [each.label, each.step, each.value, each.shape]), [["r1", 5, "-Infinity", "down"]]);
    await redrawn(page, () => page.check("#log"));
    const log = await drawnOf(page, "rewards/rejected");
    assert.equal(log.log, true);
    const below = [];
    for (const [label, values] of [["r1", rejected], ["r2", [1, 2, 3, 4, 5, 6].map((step) => -0.1 * step)]]) {
      values.forEach((value, at) => {
        if (value === "-Infinity" || value <= 0) below.push([label, at + 1, value === "-Infinity" ? "-Infinity" : String(value), "down"]);
      });
    }
    assert.deepEqual(log.markers.map((each) => [each.label, each.step, each.value, each.shape]), below);
    for (const each of log.markers) assert.equal(each.y, log.box.top + log.box.height);
    // the value axis spans the values above 0, in decades
    assert.deepEqual(log.yRange.map((at) => at.toFixed(6)), padded(Math.log10(0.1), Math.log10(0.6)).map((at) => at.toFixed(6)));
    await redrawn(page, () => page.uncheck("#log"));

    // a key clicked in the list joins the patterns: a panel without a heading, first
    await redrawn(page, () => page.click('#metric-keys button[data-key="eval_accuracy"]'));
    assert.equal(await page.inputValue("#metrics"), "rewards/*,eval_accuracy");
    assert.deepEqual((await panels(page)).map(({ heading, keys }) => [heading, keys]), [["", ["eval_accuracy"]], ["rewards", ["rewards/chosen", "rewards/rejected"]]]);
    assert.equal(await page.getAttribute('#metric-keys button[data-key="eval_accuracy"]', "aria-pressed"), "true");
    // patterns in their order; `?` one character, `[...]` a class, `*` across `/`
    await redrawn(page, () => page.fill("#metrics", "rewards/r?jected, [el]*_*, *"));
    // (picked: rewards/rejected, then eval_accuracy, eval_loss, learning_rate, then loss and
    // rewards/chosen; the keys without a heading first)
    assert.deepEqual((await panels(page)).map(({ heading, keys }) => [heading, keys]), [
      ["", ["eval_accuracy", "eval_loss", "learning_rate", "loss"]],
      ["rewards", ["rewards/rejected", "rewards/chosen"]],
    ]);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("draws a group as its mean and a band of one standard deviation, its runs faint behind it", async () => {
    const page = await freshPage();
    const folder = join(work, "sweep");
    /** loss[run][step - 1]: seed3 logs no loss at step 4 */
    const losses = {
      "lr1e-4-seed1": [2.0, 1.7, 1.5, 1.21, 1.1],
      "lr1e-4-seed2": [2.2, 1.6, 1.45, 1.3, 1.0],
      "lr1e-4-seed3": [1.9, 1.8, 1.55, null, 1.05],
      baseline: [2.5, 2.4, 2.3, 2.2, 2.1],
    };
    for (const [name, values] of Object.entries(losses)) {
      writeRun(
        join(folder, name),
        values.map((loss, at) => ({ event: "log", time: at + 1, step: (at + 1) * 10, loss })),
      );
    }
    await page.setInputFiles("#folder", folder);
    await idle(page, 4);
    await redrawn(page, () => page.fill("#group", "lr[^-]*"));
    // the runs in their order (baseline first); the group at its first run's place
    assert.deepEqual(await legendOf(page), [
      { text: "baseline", colour: TAB10[0], dash: "solid", group: false, hidden: false },
      { text: "lr1e (3 runs)", colour: TAB10[1], dash: "solid", group: true, hidden: false },
    ]);
    const drawn = await drawnOf(page, "loss");
    assert.equal(drawn.bands.length, 1);
    const [band] = drawn.bands;
    assert.equal(band.label, "lr1e (3 runs)");
    const members = Object.keys(losses).filter((name) => name.startsWith("lr1e-4"));
    assert.deepEqual(drawn.lines.map((line) => [line.label, line.faint, line.colour]), [
      ["baseline", false, TAB10[0]],
      ...members.map((name) => [name, true, TAB10[1]]),
    ]);
    // per step, over the runs with a value there: mean, and the population's deviation
    assert.deepEqual(band.steps, [10, 20, 30, 40, 50]);
    band.steps.forEach((step, at) => {
      const values = members.map((name) => losses[name][at]).filter((value) => value !== null);
      const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
      const std = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
      assert.equal(band.count[at], values.length, `step ${step}`);
      assert.ok(Math.abs(band.mean[at] - mean) <= 1e-12 * Math.abs(mean), `step ${step}: mean ${band.mean[at]}, not ${mean}`);
      assert.ok(Math.abs(band.std[at] - std) <= 1e-12 * Math.max(std, 1), `step ${step}: std ${band.std[at]}, not ${std}`);
    });
    assert.equal(band.count[3], 2, "step 40: seed3 logged no loss there");
    // the band is drawn: the group's colour between mean - std and mean + std, faint
    const cards = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll(".run")].map((run) => [run.dataset.run, getComputedStyle(run).getPropertyValue("--colour").trim()])));
    assert.deepEqual(cards, { baseline: TAB10[0], "lr1e-4-seed1": TAB10[1], "lr1e-4-seed2": TAB10[1], "lr1e-4-seed3": TAB10[1] });
    // the tooltip gives the group's mean ± std at a step
    const canvas = await page.locator('figure.panel[data-key="loss"] canvas').boundingBox();
    await page.mouse.move(canvas.x + xOf(drawn, 30), canvas.y + drawn.box.top + 10);
    await page.waitForSelector("#tooltip:not([hidden])");
    assert.ok((await page.textContent("#tooltip")).includes(`lr1e (3 runs): ${band.mean[2]} ± ${band.std[2]} (3 runs)`));
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(ARTEFACTS, "groups.png"), fullPage: true });
    // a capture group names the groups: one per seed here, each of one run
    await redrawn(page, () => page.fill("#group", "seed(\\d)"));
    assert.deepEqual((await legendOf(page)).map((entry) => entry.text), ["baseline", "1 (1 run)", "2 (1 run)", "3 (1 run)"]);
    // not a regular expression: said, and no groups
    await redrawn(page, () => page.fill("#group", "lr["));
    assert.match(await page.textContent("#group-problem"), /^not a regular expression: /);
    assert.equal((await legendOf(page)).length, 4);
    assert.ok((await legendOf(page)).every((entry) => !entry.group));
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("draws a point no line can show as a dot: a value logged once, one between nulls, a group's one step", async () => {
    const page = await freshPage();
    // a loss logged once: a panel of one point
    writeRun(join(work, "once", "a"), [{ event: "log", time: 1, step: 5, loss: 2.5 }]);
    await page.setInputFiles("#folder", join(work, "once"));
    await idle(page, 1);
    let drawn = await drawnOf(page, "loss");
    assert.deepEqual(drawn.lines.map(({ steps, values }) => [steps, values]), [[[5], [2.5]]]);
    assert.ok((await pixelsNear(page, "loss", xOf(drawn, 5), yOf(drawn, 2.5), TAB10[0])) >= 5, "the lone loss is a dot");

    // 40 points of a scalar, the one at step 20 between two nulls (steps 19 and 21)
    await page.click("#clear");
    const value = (step) => (step === 20 ? 10 : 1 + step / 100);
    writeRun(
      join(work, "between", "a"),
      Array.from({ length: 40 }, (_, step) => ({ event: "log", time: step, step, scalars: { "rewards/x": step === 19 || step === 21 ? null : value(step) } })),
    );
    await page.setInputFiles("#folder", join(work, "between"));
    await idle(page, 1);
    await redrawn(page, () => page.fill("#metrics", "rewards/*"));
    drawn = await drawnOf(page, "rewards/x");
    assert.equal(drawn.lines[0].values[20], 10);
    assert.ok((await pixelsNear(page, "rewards/x", xOf(drawn, 20), yOf(drawn, 10), TAB10[0])) >= 5, "the point between nulls is a dot");
    // a point of the line (not alone) is no dot: only the line's width in its colour there
    const inLine = await pixelsNear(page, "rewards/x", xOf(drawn, 30), yOf(drawn, value(30)), TAB10[0]);
    assert.ok(inLine >= 1, "the line is drawn");

    // two runs of a group, each with a scalar logged once at step 3 (2 and 4): the group's
    // mean (3) is one point, its runs faint
    await page.click("#clear");
    for (const [name, once] of [["g-1", 2], ["g-2", 4]]) {
      writeRun(join(work, "grouped", name), [{ event: "log", time: 1, step: 3, scalars: { once } }]);
    }
    await page.setInputFiles("#folder", join(work, "grouped"));
    await idle(page, 2);
    await redrawn(page, () => page.fill("#metrics", "once"));
    await redrawn(page, () => page.fill("#group", "^(g)"));
    drawn = await drawnOf(page, "once");
    assert.deepEqual(drawn.bands.map(({ steps, mean, std }) => [steps, mean, std]), [[[3], [3], [1]]]);
    assert.ok((await pixelsNear(page, "once", xOf(drawn, 3), yOf(drawn, 3), TAB10[0])) >= 5, "the group's one mean is a dot");
    await page.screenshot({ path: join(ARTEFACTS, "lone-points.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("shows 40 runs in one table, sorted by any column, the runs without a value last", async () => {
    const page = await freshPage();
    const folder = join(work, "many");
    const files = [];
    for (let run = 1; run <= 40; run += 1) {
      const lines = [{ event: "begin", time: 1, max_steps: 100 }];
      // runs 5, 10, ... log no loss; the odd runs an accuracy, run 7's last NaN
      for (let step = 1; step <= 1 + (run % 7); step += 1) {
        const line = { event: "log", time: 1 + step, step: step * 10 };
        if (run % 5 !== 0) line.loss = Math.round(1000 * Math.sin(run * 7 + step)) / 100 + 20;
        if (run % 2 === 1) line.scalars = { eval_accuracy: run === 7 && step === 1 + (run % 7) ? "NaN" : ((run * 37) % 41) / 41 };
        lines.push(line);
      }
      writeRun(join(folder, `run${run}`), lines);
      files.push({ name: `run${run}`, path: join(folder, `run${run}`, "metrics.jsonl") });
    }
    await page.setInputFiles("#folder", folder);
    await idle(page, 40);
    // the legend: plot's styles, colour by i % 10 and line style by floor(i / 10)
    const legend = await legendOf(page);
    assert.deepEqual(
      legend.map((entry) => [entry.text, entry.colour, entry.dash]),
      files.map(({ name }, index) => [name, TAB10[index % 10], DASHES[Math.floor(index / 10) % 4]]),
    );
    await page.click("#view-table");
    await page.waitForSelector("#run-table tbody tr");
    assert.equal(await page.isVisible("#runs"), false);
    const records = Object.fromEntries(
      await Promise.all(files.map(async ({ name, path }) => [name, await core.status(readFileSync(path), { now: 0, run: name })])),
    );
    const rows = () =>
      page.evaluate(() =>
        [...document.querySelectorAll("#run-table tbody tr")].map((row) => ({
          name: row.dataset.run,
          cells: Object.fromEntries([...row.querySelectorAll("td")].map((cell) => [cell.dataset.column, cell.textContent])),
        })),
      );
    let shown = await rows();
    assert.equal(shown.length, 40);
    assert.deepEqual(shown.map((row) => row.name), files.map((each) => each.name));
    const headings = await page.evaluate(() => [...document.querySelectorAll("#run-table th")].map((cell) => cell.dataset.column));
    assert.deepEqual(headings, ["name", "stage", "step", "loss", "best_eval_loss", "scalars:eval_accuracy", "eta", "last_line", "snapshot", "invalid", "alerts"]);
    const texts = await page.evaluate(() => [...document.querySelectorAll("#run-table th")].map((cell) => cell.textContent));
    const [before, after] = core.headings();
    assert.deepEqual(texts, [...before, "eval_accuracy", ...after], "the command line's headings");
    // each row the command line's cells of the record (`status --metric eval_accuracy`), but
    // what the clock moves (the page's now is not the record's here): the eta, the last
    // line's age, and of the alerts, `stalled` (the first kind, told at that now)
    const unclocked = (/** @type {string} */ text) => text.split(", ").filter((part) => !part.startsWith("stalled@")).join(", ");
    for (const row of shown) {
      const record = records[row.name];
      const cells = core.cells({ ...record, name: row.name }, { metrics: ["eval_accuracy"] });
      headings.forEach((id, at) => {
        if (id === "alerts") assert.equal(unclocked(row.cells[id]), unclocked(cells[at]), `${row.name}: ${id}`);
        else if (id !== "eta" && id !== "last_line") assert.equal(row.cells[id], cells[at], `${row.name}: ${id}`);
      });
      assert.equal(row.cells.name, row.name);
      const accuracy = record.scalars.eval_accuracy;
      const value = accuracy === undefined ? "" : typeof accuracy.last.value === "number" ? core.formatNumber(accuracy.last.value, ".4g") : accuracy.last.value;
      assert.equal(row.cells["scalars:eval_accuracy"], value, row.name);
    }
    assert.equal(shown.find((row) => row.name === "run7").cells["scalars:eval_accuracy"], "NaN");

    /** The names in the order of `key(record)` (null or NaN: last, in name order). */
    const expected = (key, descending) => {
      const names = files.map((each) => each.name);
      const known = names.filter((name) => key(records[name]) !== null && !Number.isNaN(key(records[name])));
      const unknown = names.filter((name) => !known.includes(name));
      known.sort((a, b) => (descending ? key(records[b]) - key(records[a]) : key(records[a]) - key(records[b])));
      return [...known, ...unknown];
    };
    const accuracy = (record) => {
      const value = record.scalars.eval_accuracy?.last.value;
      return typeof value === "number" ? value : null;
    };
    const loss = (record) => (record.loss === null ? null : record.loss.value);
    await page.click('#run-table th[data-column="scalars:eval_accuracy"]');
    shown = await rows();
    assert.deepEqual(shown.map((row) => row.name), expected(accuracy, false));
    assert.equal(shown.at(-1).cells["scalars:eval_accuracy"], "");
    assert.equal(await page.getAttribute('#run-table th[data-column="scalars:eval_accuracy"]', "aria-sort"), "ascending");
    await page.click('#run-table th[data-column="scalars:eval_accuracy"]');
    shown = await rows();
    assert.deepEqual(shown.map((row) => row.name), expected(accuracy, true));
    assert.equal(shown.at(-1).cells["scalars:eval_accuracy"], "", "the runs without a value still last");
    assert.equal(await page.getAttribute('#run-table th[data-column="scalars:eval_accuracy"]', "aria-sort"), "descending");
    await page.click('#run-table th[data-column="loss"]');
    shown = await rows();
    assert.deepEqual(shown.map((row) => row.name), expected(loss, false));
    assert.deepEqual(shown.slice(-8).map((row) => row.cells.loss), Array(8).fill("-"));
    await page.click('#run-table th[data-column="loss"]');
    assert.deepEqual((await rows()).map((row) => row.name), expected(loss, true));
    await page.screenshot({ path: join(ARTEFACTS, "table.png"), fullPage: true });
    await page.click("#view-cards");
    assert.equal(await page.isVisible("#table-box"), false);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("shows 1,000 runs' rows as a virtual table: the rows in view in the page, every one reached by scrolling", async () => {
    const page = await freshPage();
    const folder = join(work, "thousand");
    const count = 1_000;
    // run r<i>: one log, its loss a permutation of 0..count-1 (i * 7919 mod count)
    const loss = (index) => (index * 7919) % count;
    for (let index = 0; index < count; index += 1) {
      writeRun(join(folder, `r${index}`), [{ event: "log", time: 1, step: 1, loss: loss(index) }]);
    }
    await page.setInputFiles("#folder", folder);
    await page.waitForFunction((total) => document.body.dataset.state === "idle" && document.querySelectorAll(".run").length === total, count, { timeout: 120_000 });
    await page.click("#view-table");
    await page.waitForFunction((total) => document.getElementById("run-table").getAttribute("aria-rowcount") === String(total + 1), count);
    const rows = () => page.evaluate(() => [...document.querySelectorAll("#run-table tbody tr")].map((row) => [row.dataset.run, Number(row.getAttribute("aria-rowindex")), row.querySelector('td[data-column="loss"]').textContent]));
    const lossText = (value) => core.formatNumber(value, ".4g");
    // the runs in natural order (r0, r1, ..., r999); only the rows about the box's view made
    let shown = await rows();
    assert.ok(shown.length >= 20 && shown.length < 120, `${shown.length} rows in the page`);
    shown.forEach(([name, index, text], at) => {
      assert.deepEqual([name, index, text], [`r${at}`, at + 2, lossText(loss(at))]);
    });
    // the box scrolls over every row: its height is every row's
    const sizes = await page.evaluate(() => {
      const box = document.getElementById("table-box");
      const row = document.querySelector("#run-table tbody tr").getBoundingClientRect().height;
      return { scroll: box.scrollHeight, row };
    });
    assert.ok(Math.abs(sizes.scroll - sizes.row * count) < sizes.row * 4 + 100, `${sizes.scroll} px for ${count} rows of ${sizes.row} px`);
    // scrolled to the middle and to the end: those rows made, as few
    for (const wanted of [count / 2, count - 1]) {
      await page.evaluate((at) => {
        const box = document.getElementById("table-box");
        const row = document.querySelector("#run-table tbody tr").getBoundingClientRect().height;
        box.scrollTop = at * row;
      }, wanted);
      await page.waitForFunction((name) => document.querySelector(`#run-table tr[data-run="${name}"]`) !== null, `r${wanted}`);
      shown = await rows();
      assert.ok(shown.length < 120, `${shown.length} rows in the page`);
      const found = shown.find(([name]) => name === `r${wanted}`);
      assert.deepEqual(found, [`r${wanted}`, wanted + 2, lossText(loss(wanted))]);
      // the rows made are consecutive, in order
      shown.forEach(([name, index], at) => assert.equal(index, shown[0][1] + at, name));
    }
    // sorted by loss, descending: the greatest loss's run first, at the top of the box
    await page.click('#run-table th[data-column="loss"]');
    await page.click('#run-table th[data-column="loss"]');
    await page.evaluate(() => {
      document.getElementById("table-box").scrollTop = 0;
    });
    const greatest = Array.from({ length: count }, (_, index) => index).sort((a, b) => loss(b) - loss(a))[0];
    await page.waitForFunction((name) => document.querySelector("#run-table tbody tr")?.dataset.run === name, `r${greatest}`);
    assert.equal(await page.getAttribute('#run-table th[data-column="loss"]', "aria-sort"), "descending");
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("shows a run's alerts as badges on its card and its row, and only the runs with one when asked", async () => {
    const page = await freshPage();
    const folder = join(work, "alerting");
    const calm = (step) => ({ event: "log", time: step, step, loss: 2 - step / 100 });
    // each run ended (none is stalled, whatever the page's clock): calm has no alert; nan's
    // loss at step 7 was not finite (null in its field, its name in scalars); spiky's loss at
    // step 9 is 50× the median of the eight before it (the contract's rule: 4×, 5 logs at least);
    // broken has a line that is not JSON
    const lines = {
      calm: [1, 2, 3, 4, 5, 6].map(calm),
      nan: [1, 2, 3, 4, 5, 6, { event: "log", time: 7, step: 7, loss: null, scalars: { loss: "NaN" } }].map((each) => (typeof each === "number" ? calm(each) : each)),
      spiky: [...[1, 2, 3, 4, 5, 6, 7, 8].map(calm), { event: "log", time: 9, step: 9, loss: 100 }],
      broken: [1, 2, 3].map(calm),
    };
    const expectedKinds = { calm: [], nan: ["nonfinite"], spiky: ["spike"], broken: ["invalid"] };
    const records = {};
    for (const [name, logs] of Object.entries(lines)) {
      const written = [{ event: "begin", time: 0, max_steps: 10 }, ...logs, { event: "end", time: 20, step: logs.length }];
      const text = written.map((line) => `${JSON.stringify(line)}\n`).join("");
      const bytes = name === "broken" ? text.replace("\n", "\nthis is not json\n") : text;
      mkdirSync(join(folder, name), { recursive: true });
      writeFileSync(join(folder, name, "metrics.jsonl"), bytes);
      records[name] = await core.status(Buffer.from(bytes), { now: 100, run: name });
    }
    for (const [name, kinds] of Object.entries(expectedKinds)) {
      assert.deepEqual(records[name].alerts.map((alert) => alert.kind), kinds, `the package's record of ${name}`);
    }
    await page.setInputFiles("#folder", folder);
    await idle(page, 4);
    const badges = () =>
      page.evaluate(() =>
        Object.fromEntries(
          [...document.querySelectorAll(".run")].map((card) => [
            card.dataset.run,
            {
              shown: !card.hidden,
              badges: [...card.querySelectorAll(".badges .badge")].map((badge) => [badge.textContent, badge.title]),
              badgesShown: !card.querySelector(".badges").hidden,
            },
          ]),
        ),
      );
    let cards = await badges();
    for (const [name, kinds] of Object.entries(expectedKinds)) {
      // each badge the kind, the core's message as its title (the record's, the same bytes)
      assert.deepEqual(cards[name].badges, records[name].alerts.map((alert) => [alert.kind, alert.message]), name);
      assert.deepEqual(cards[name].badges.map(([kind]) => kind), kinds, name);
      assert.equal(cards[name].badgesShown, kinds.length > 0, name);
      assert.equal(cards[name].shown, true, name);
    }
    assert.equal(await page.textContent("#alerted-count"), "3");
    await page.check("#alerted-only");
    cards = await badges();
    for (const [name, kinds] of Object.entries(expectedKinds)) assert.equal(cards[name].shown, kinds.length > 0, `${name} with the filter`);
    await page.click("#view-table");
    await page.waitForSelector("#run-table tbody tr");
    const rows = () =>
      page.evaluate(() =>
        [...document.querySelectorAll("#run-table tbody tr")].map((row) => [
          row.dataset.run,
          row.classList.contains("alerted"),
          row.querySelector('td[data-column="alerts"]').textContent,
        ]),
      );
    const cellOf = (name) => {
      const headings = [...core.headings()[0], ...core.headings()[1]];
      return core.cells({ ...records[name], name })[headings.indexOf("alerts")];
    };
    assert.deepEqual(
      await rows(),
      ["broken", "nan", "spiky"].map((name) => [name, true, cellOf(name)]),
      "the table: the runs with an alert, each its badge (the core's cell)",
    );
    await page.screenshot({ path: join(ARTEFACTS, "alerts-table.png"), fullPage: true });
    await page.uncheck("#alerted-only");
    await page.waitForFunction(() => document.querySelectorAll("#run-table tbody tr").length === 4);
    assert.deepEqual(
      await rows(),
      ["broken", "calm", "nan", "spiky"].map((name) => [name, name !== "calm", cellOf(name)]),
    );
    await page.click("#view-cards");
    cards = await badges();
    for (const name of Object.keys(expectedKinds)) assert.equal(cards[name].shown, true, `${name} without the filter`);
    await page.screenshot({ path: join(ARTEFACTS, "alerts-cards.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

describe("the viewer's legend, run filter, smoothing and tooltip", () => {
  /** A page with four runs opened from the folder `name`, each a scalar `x`, their values at
   * step 2: a 1, b 3, c 2, d NaN; the panel of `x` shown. */
  async function fourRunsPage(name) {
    const page = await freshPage();
    const folder = join(work, name);
    const at2 = { a: 1, b: 3, c: 2, d: "NaN" };
    for (const [run, value] of Object.entries(at2)) {
      writeRun(join(folder, run), [
        { event: "log", time: 1, step: 1, scalars: { x: 0.5 } },
        { event: "log", time: 2, step: 2, scalars: { x: value } },
        { event: "log", time: 3, step: 3, scalars: { x: 0.25 } },
      ]);
    }
    await page.setInputFiles("#folder", folder);
    await idle(page, 4);
    await redrawn(page, () => page.fill("#metrics", "x"));
    // `x` is no metric the runs were read for: drawn once each run is read again for it
    await page.waitForFunction(() => globalThis.overbrainerViewer.panels.get("x")?.lines.length === 4);
    return page;
  }

  /** The tooltip's rows (each `name: value`) with the pointer over the panel of `key` at `x`
   * (its axis's place), once its heading starts with `heading`. */
  async function tooltipRows(page, key, x, heading) {
    const drawn = await drawnOf(page, key);
    const canvas = await page.locator(`figure.panel[data-key="${key}"] canvas`).boundingBox();
    await page.mouse.move(canvas.x + xOf(drawn, x), canvas.y + drawn.box.top + 20);
    await page.waitForFunction((text) => document.getElementById("tooltip").textContent.startsWith(text), heading);
    return page.evaluate(() => [...document.querySelectorAll("#tooltip > div:not(.step)")].map((row) => row.textContent));
  }

  it("hides a run by a click on its legend entry and shows it by another, its style kept", async () => {
    const page = await fourRunsPage("legend-click");
    const labels = async () => (await drawnOf(page, "x")).lines.map((line) => [line.label, line.colour]);
    const styled = ["a", "b", "c", "d"].map((name, index) => [name, TAB10[index]]);
    assert.deepEqual(await labels(), styled);
    await redrawn(page, () => page.click('#legend button[data-entry="run:b"]'));
    // b's line is gone; the others keep their colours; b stays in the legend, marked hidden
    assert.deepEqual(await labels(), styled.filter(([name]) => name !== "b"));
    assert.deepEqual((await legendOf(page)).map(({ text, colour, hidden }) => [text, colour, hidden]), styled.map(([name, colour]) => [name, colour, name === "b"]));
    assert.equal(await page.getAttribute('#legend button[data-entry="run:b"]', "aria-pressed"), "false");
    // its card stays: the legend hides a line, not a run
    assert.equal(await page.isVisible('.run[data-run="b"]'), true);
    await redrawn(page, () => page.click('#legend button[data-entry="run:b"]'));
    assert.deepEqual(await labels(), styled);
    // a group's entry hides its runs and its band
    await redrawn(page, () => page.fill("#group", "^([ab])"));
    await redrawn(page, () => page.click('#legend button[data-entry="group:a"]'));
    const drawn = await drawnOf(page, "x");
    assert.deepEqual(drawn.lines.map((line) => line.label), ["b", "c", "d"]);
    assert.deepEqual(drawn.bands.map((band) => band.label), ["b (1 run)"]);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("shows only the runs whose names the run filter finds: their cards, rows and lines", async () => {
    const page = await fourRunsPage("run-filter");
    await redrawn(page, () => page.fill("#run-filter", "a|c"));
    // the runs shown are styled in their order, as `plot --only` styles them
    assert.deepEqual((await drawnOf(page, "x")).lines.map((line) => [line.label, line.colour]), [["a", TAB10[0]], ["c", TAB10[1]]]);
    assert.deepEqual((await legendOf(page)).map(({ text }) => text), ["a", "c"]);
    const cards = () => page.evaluate(() => [...document.querySelectorAll(".run")].filter((card) => !card.hidden).map((card) => card.dataset.run));
    assert.deepEqual(await cards(), ["a", "c"]);
    await page.click("#view-table");
    const rows = () => page.evaluate(() => [...document.querySelectorAll("#run-table tbody tr[data-run]")].map((row) => row.dataset.run));
    await page.waitForFunction(() => document.querySelectorAll("#run-table tbody tr[data-run]").length === 2);
    assert.deepEqual(await rows(), ["a", "c"]);
    // with the alerts filter too, both filters hold
    const rendered = await page.evaluate(() => Number(document.getElementById("run-table").dataset.rendered));
    await page.check("#alerted-only");
    await page.waitForFunction((count) => Number(document.getElementById("run-table").dataset.rendered) > count, rendered);
    // every run has an alert (their lines are from 1970: stalled), and the run filter still holds
    assert.equal(await page.textContent("#alerted-count"), "4");
    assert.deepEqual(await rows(), ["a", "c"]);
    assert.deepEqual(await cards(), ["a", "c"]);
    await page.uncheck("#alerted-only");
    // a pattern the core refuses: said beside the input, every run shown
    await redrawn(page, () => page.fill("#run-filter", "a("));
    assert.match(await page.textContent("#run-filter-problem"), /^not a regular expression: /);
    assert.equal(await page.isVisible("#run-filter-problem"), true);
    assert.deepEqual(await rows(), ["a", "b", "c", "d"]);
    await page.click("#view-cards");
    assert.deepEqual(await cards(), ["a", "b", "c", "d"]);
    assert.equal((await drawnOf(page, "x")).lines.length, 4);
    await redrawn(page, () => page.fill("#run-filter", ""));
    assert.equal(await page.isVisible("#run-filter-problem"), false);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("smooths each line as TensorBoard does, the values as logged faint behind it", async () => {
    const page = await freshPage();
    const folder = join(work, "smoothing");
    // a gap (null) and a NaN: kept as they are and left out of the average
    const logged = [4, 8, null, 2, "NaN", 6, 10, 1];
    writeRun(join(folder, "r"), logged.map((value, at) => ({ event: "log", time: at, step: at + 1, scalars: { y: value } })));
    // a run of one value throughout: left as it is
    writeRun(join(folder, "s"), logged.map((_, at) => ({ event: "log", time: at, step: at + 1, scalars: { y: 3 } })));
    await page.setInputFiles("#folder", folder);
    await idle(page, 2);
    await redrawn(page, () => page.fill("#metrics", "y"));
    const weight = 0.6;
    await redrawn(page, () =>
      page.evaluate((value) => {
        const slider = document.getElementById("smoothing");
        slider.value = String(value);
        slider.dispatchEvent(new Event("input", { bubbles: true }));
      }, weight),
    );
    assert.equal(await page.textContent("#smoothing-value"), "0.600");
    // TensorBoard's smoothing (its scalar card's `smoothingWeight`), as its code states it
    let last = 0;
    let count = 0;
    const expected = logged.map((value) => {
      if (typeof value !== "number") return value === null ? null : NaN;
      last = last * weight + (1 - weight) * value;
      count += 1;
      return last / (1 - Math.pow(weight, count));
    });
    const drawn = await drawnOf(page, "y");
    const [r, s] = drawn.lines;
    assert.deepEqual(r.steps, logged.map((_, at) => at + 1));
    r.values.forEach((value, at) => {
      if (expected[at] === null) assert.equal(r.kinds[at], 1, "a gap stays a gap");
      else if (Number.isNaN(expected[at])) assert.ok(Number.isNaN(value), "NaN stays NaN");
      else assert.equal(value, expected[at], `step ${at + 1}`);
    });
    assert.deepEqual(r.raw.values.filter((_, at) => typeof logged[at] === "number"), logged.filter((value) => typeof value === "number"));
    assert.deepEqual(s.values, logged.map(() => 3));
    // the NaN is still a marker; the tooltip says both values
    assert.deepEqual(drawn.markers.map(({ label, step, value }) => [label, step, value]), [["r", 5, "NaN"]]);
    const canvas = await page.locator('figure.panel[data-key="y"] canvas').boundingBox();
    await page.mouse.move(canvas.x + xOf(drawn, 2), canvas.y + drawn.box.top + 20);
    await page.waitForFunction(() => document.getElementById("tooltip").textContent.includes("at step 2"));
    assert.ok((await page.textContent("#tooltip")).includes(`r: ${expected[1]} (logged 8)`));
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(ARTEFACTS, "smoothing.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("zooms in to the steps dragged across, a spike one step wide and a NaN drawn at every zoom, every point of a short range", async () => {
    const page = await freshPage();
    const folder = join(work, "zoom");
    const steps = 100_000;
    const [spike, nanFar, nanNear] = [73_219, 51_234, 73_100];
    // loss 1 + step / 10^6, 50 at the spike; acc 0.5, "NaN" at two steps
    const lines = [];
    for (let step = 1; step <= steps; step += 1) {
      const acc = step === nanFar || step === nanNear ? "NaN" : 0.5;
      lines.push({ event: "log", time: step, step, loss: step === spike ? 50 : 1 + step / 1e6, scalars: { acc } });
    }
    writeRun(join(folder, "long"), lines);
    await page.setInputFiles("#folder", folder);
    await idle(page, 1);
    await redrawn(page, () => page.fill("#metrics", "loss,acc"));
    /** The panel's line: its points, and whether the spike is among them and drawn there. */
    const spikeDrawn = async () => {
      // the panel drawn at its size as laid out now (a scrollbar come or gone resizes it, and
      // it is drawn again at its new size a frame later)
      await page.waitForFunction(() => {
        const canvas = document.querySelector('figure.panel[data-key="loss"] canvas');
        const drawn = globalThis.overbrainerViewer.panels.get("loss");
        return canvas.width === Math.round(canvas.clientWidth * (devicePixelRatio || 1)) && drawn.box.width === Math.max(canvas.clientWidth - 64 - 12, 10);
      });
      const drawn = await drawnOf(page, "loss");
      const [line] = drawn.lines;
      const at = line.steps.indexOf(spike);
      assert.ok(at >= 0 && line.values[at] === 50, "the spike is a point of the line");
      assert.ok(drawn.yRange[1] >= 50, "the value axis reaches the spike");
      // the spike's line on the canvas, halfway up (its tip is an edge, half blended into the
      // white)
      assert.ok((await pixelsNear(page, "loss", xOf(drawn, spike), yOf(drawn, 25), TAB10[0], 3)) >= 2, "the spike is on the canvas");
      return drawn;
    };
    const nanSteps = async () => (await drawnOf(page, "acc")).markers.map((marker) => marker.step);
    await spikeDrawn();
    assert.deepEqual(await nanSteps(), [nanFar, nanNear]);

    /** A drag across the loss panel from `from` to `to` (steps), and the panels zoomed in to
     * what it covers, the runs read again for it. */
    const drag = async (from, to) => {
      const drawn = await drawnOf(page, "loss");
      const canvas = await page.locator('figure.panel[data-key="loss"] canvas').boundingBox();
      const y = canvas.y + drawn.box.top + drawn.box.height / 2;
      await redrawn(page, async () => {
        await page.mouse.move(canvas.x + xOf(drawn, from), y);
        await page.mouse.down();
        await page.mouse.move(canvas.x + (xOf(drawn, from) + xOf(drawn, to)) / 2, y);
        await page.mouse.move(canvas.x + xOf(drawn, to), y);
        await page.mouse.up();
      });
      // the run read again for those steps: drawn from its digest of them
      await page.waitForFunction(() => {
        const said = document.getElementById("zoomed");
        const drawnLoss = globalThis.overbrainerViewer.panels.get("loss");
        const first = Number(said.dataset.first);
        return drawnLoss !== undefined && drawnLoss.lines.length === 1 && drawnLoss.lines[0].points.first >= first;
      });
      await frames(page);
      return page.evaluate(() => [Number(document.getElementById("zoomed").dataset.first), Number(document.getElementById("zoomed").dataset.last)]);
    };
    let [first, last] = await drag(70_000, 80_000);
    assert.ok(Math.abs(first - 70_000) < 1_000 && Math.abs(last - 80_000) < 1_000, `${first} to ${last}`);
    assert.equal(await page.textContent("#zoomed"), `steps ${core.formatNumber(first, ",")} to ${core.formatNumber(last, ",")}: double-click a panel to see every step`);
    let drawn = await spikeDrawn();
    assert.ok(drawn.xRange[0] < first && drawn.xRange[0] > first - 1_000, "the step axis is the range's");
    assert.ok(drawn.lines[0].steps.every((step) => step >= first && step <= last), "the range's points only");
    // the NaN in the range is drawn, the one out of it is not
    assert.deepEqual(await nanSteps(), [nanNear]);

    // a range of a few hundred steps: every point of it
    [first, last] = await drag(73_050, 73_300);
    assert.ok(last - first < 512 && first <= nanNear && last >= spike, `${first} to ${last}`);
    drawn = await spikeDrawn();
    const every = Array.from({ length: last - first + 1 }, (_, at) => first + at);
    assert.deepEqual(drawn.lines[0].steps, every);
    assert.deepEqual((await drawnOf(page, "acc")).lines[0].steps, every);
    assert.deepEqual(await nanSteps(), [nanNear]);

    // a double-click: every step again
    const canvas = await page.locator('figure.panel[data-key="loss"] canvas').boundingBox();
    await redrawn(page, () => page.mouse.dblclick(canvas.x + drawn.box.left + 20, canvas.y + drawn.box.top + 20));
    assert.equal(await page.isVisible("#zoomed"), false);
    drawn = await spikeDrawn();
    assert.ok(drawn.xRange[0] < 1 && drawn.xRange[1] > steps, "every step");
    assert.deepEqual(await nanSteps(), [nanFar, nanNear]);
    await page.screenshot({ path: join(ARTEFACTS, "zoom.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("draws against the step, the wall time or the time since each run began", async () => {
    const page = await freshPage();
    const folder = join(work, "x-axis");
    // run a logs every 10 s from t = 10^6 + 10, run b every 20 s from 2 * 10^6 + 20
    const runsAt = { a: [1_000_000, 10], b: [2_000_000, 20] };
    for (const [name, [start, every]] of Object.entries(runsAt)) {
      writeRun(join(folder, name), [1, 2, 3, 4, 5].map((step) => ({ event: "log", time: start + every * step, step, loss: step * (name === "a" ? 1 : 2) })));
    }
    await page.setInputFiles("#folder", folder);
    await idle(page, 2);
    await redrawn(page, () => page.fill("#metrics", "loss"));
    await redrawn(page, () => page.fill("#group", "^([ab])"));
    const xs = async () => {
      const drawn = await drawnOf(page, "loss");
      return { axis: await page.evaluate(() => globalThis.overbrainerViewer.panels.get("loss").axis), lines: drawn.lines.map((line) => [line.label, line.steps]), bands: drawn.bands.length, xRange: drawn.xRange };
    };
    let shown = await xs();
    assert.deepEqual(shown.lines, [["a", [1, 2, 3, 4, 5]], ["b", [1, 2, 3, 4, 5]]]);
    assert.equal(shown.bands, 2);
    await redrawn(page, () => page.selectOption("#x-axis", "wall"));
    shown = await xs();
    assert.equal(shown.axis, "wall");
    assert.deepEqual(shown.lines, [
      ["a", [1, 2, 3, 4, 5].map((step) => 1_000_000 + 10 * step)],
      ["b", [1, 2, 3, 4, 5].map((step) => 2_000_000 + 20 * step)],
    ]);
    assert.equal(shown.bands, 0, "a group's band is drawn against the step only");
    assert.deepEqual((await drawnOf(page, "loss")).lines.map((line) => line.faint), [false, false], "its runs drawn whole then");
    const span = 2_000_100 - 1_000_010;
    assert.ok(Math.abs(shown.xRange[0] - (1_000_010 - span * 0.02)) < 1e-6 && Math.abs(shown.xRange[1] - (2_000_100 + span * 0.02)) < 1e-6);
    await redrawn(page, () => page.selectOption("#x-axis", "relative"));
    shown = await xs();
    assert.deepEqual(shown.lines, [["a", [0, 10, 20, 30, 40]], ["b", [0, 20, 40, 60, 80]]]);
    // the tooltip at 0:00:20 since each began: a's step 3 (loss 3), b's step 2 (loss 4),
    // greatest first
    assert.deepEqual(await tooltipRows(page, "loss", 20, "loss at 0:00:20"), ["b: 4", "a: 3"]);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(ARTEFACTS, "x-axis.png"), fullPage: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("lists the values under the pointer greatest first, NaN last", async () => {
    const page = await fourRunsPage("hover-sorted");
    assert.deepEqual(await tooltipRows(page, "x", 2, "x at step 2"), ["b: 3", "c: 2", "a: 1", "d: NaN"]);
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});

/** The pixel column of `step` in a drawn panel (its box and its step axis). */
function xOf(drawn, step) {
  const [first, last] = drawn.xRange;
  return drawn.box.left + ((step - first) / (last - first)) * drawn.box.width;
}

/** The pixel row of `value` in a drawn panel (its box and its value axis, linear). */
function yOf(drawn, value) {
  const [bottom, top] = drawn.yRange;
  return drawn.box.top + drawn.box.height - ((value - bottom) / (top - bottom)) * drawn.box.height;
}

/** plot.js's room around a range (5 %). */
function padded(low, high) {
  const room = (high - low) * 0.05;
  return [low - room, high + room];
}

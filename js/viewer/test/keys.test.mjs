// The run viewer given a line of very many scalar keys, in Debian's headless Chromium
// (playwright-core): the page reads it in time about linear in the keys and lists every key.
// A reading quadratic in the keys (each looked up among those before it) takes minutes here;
// the page waits under a hang guard (`HANG`) far beyond the seconds a linear reading takes.
// Every expected value is computed here from the line written, never read from the page.
//
//   node --test test/          (after `cd js && node build.mjs`: the package's dist/)

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const VIEWER = resolve(HERE, "..");
const BROWSER = process.env.CHROMIUM || "/usr/bin/chromium";

/** Distinct scalar keys of the line: more than a spread of arguments may hold. */
const KEYS = 200_000;
/** Milliseconds the page may take to read the file: a hang guard. */
const HANG = 180_000;

let browser;
let work;
let pageUrl;

before(async () => {
  work = mkdtempSync(join(tmpdir(), "viewer-keys-"));
  const built = join(work, "viewer.html");
  execFileSync(process.execPath, [join(VIEWER, "build.mjs"), "--out", built], { stdio: "inherit" });
  pageUrl = pathToFileURL(built).href;
  browser = await chromium.launch({ executablePath: BROWSER, headless: true });
});

after(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

it(`reads a line of ${KEYS.toLocaleString("en")} scalar keys and lists every key`, async () => {
  // keys k0... of value their number; k0 given again at the end (its last value read)
  const scalars = Array.from({ length: KEYS }, (_, at) => `"k${at}":${at}`).join(",");
  const log = `{"event":"log","time":2,"step":1,"epoch":0.1,"max_steps":10,"loss":1.5,"eval_loss":null,"learning_rate":0.1,"grad_norm":1.0,"scalars":{${scalars},"k0":-1}}`;
  const file = join(work, "many-keys.jsonl");
  writeFileSync(file, `{"event":"begin","time":1,"max_steps":10}\n${log}\n`);

  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const problems = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  await page.goto(pageUrl);
  await page.waitForSelector("body[data-ready=true]");
  await page.setInputFiles("#files", file);
  await page.waitForFunction(() => document.body.dataset.state === "idle" && document.querySelectorAll(".run").length === 1, null, {
    timeout: HANG,
  });
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  assert.deepEqual(problems, []);
  // the line's own numbers (loss, learning_rate, grad_norm: eval_loss is null) and every key
  const listed = await page.evaluate((wanted) => {
    const keys = [...document.querySelectorAll("#metric-keys button[data-key]")].map((button) => button.dataset.key);
    return { count: keys.length, some: keys.filter((key) => wanted.includes(key)).sort() };
  }, ["k0", "k1", `k${KEYS - 1}`, "loss", "grad_norm"]);
  assert.equal(listed.count, KEYS + 3);
  assert.deepEqual(listed.some, ["grad_norm", "k0", "k1", `k${KEYS - 1}`, "loss"]);
  await page.close();
});

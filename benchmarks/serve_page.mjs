// The page's side of benchmarks/serve.py: Debian's Chromium, headless (playwright-core, from
// js/viewer's packages), opens the address `serve` printed and measures, from the start of
// the navigation:
//   painted  the runs table holding a row for every run of the sweep (a virtual table: its
//            row count, `aria-rowcount`, the rows in view alone in the page);
//   read     no run left to read (the line above the runs, `following N runs of the server`,
//            counts none `not read yet`), then checked: the table sorted by step, the least
//            is the runs' last step (every byte read);
// then appends a log line to one run and measures the time until the table, sorted by step
// descending, shows that run first at the new step;
// then the page's memory: the JavaScript heap (the DevTools protocol's JSHeapUsedSize), and the
// proportional set size of the page's process and of every process of this browser (/proc).
// One JSON object on stdout.
//
//   node benchmarks/serve_page.mjs ADDRESS RUNS LAST_STEP APPEND_TO_FILE APPEND_RUN_NAME

import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { chromium } = await import(pathToFileURL(join(ROOT, "js", "viewer", "node_modules", "playwright-core", "index.mjs")).href);
const [address, runsText, lastText, appendFile, appendRun] = process.argv.slice(2);
const runs = Number(runsText);
const last = Number(lastText);
const thousands = (value) => value.toLocaleString("en-US");

/** The proportional set size (bytes: shared pages split among the processes sharing them)
 * of every process whose command line names `marker`, in all and of its renderers alone
 * (the page's process).
 * @returns {{ all: number, renderer: number }} */
function browserPss(marker) {
  const total = { all: 0, renderer: 0 };
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!command.includes(marker)) continue;
      const found = /Pss:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      if (!found) continue;
      total.all += Number(found[1]) * 1024;
      if (command.includes("--type=renderer")) total.renderer += Number(found[1]) * 1024;
    } catch {
      // a process gone meanwhile
    }
  }
  return total;
}

const profile = mkdtempSync(join(tmpdir(), "serve-bench-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
try {
  const page = browser.pages()[0] ?? (await browser.newPage());
  const start = performance.now();
  await page.goto(address);
  await page.waitForFunction(
    (n) => {
      const table = document.getElementById("run-table");
      const counted = Number(table?.getAttribute("aria-rowcount") ?? 0) - 1;
      return Math.max(counted, document.querySelectorAll("#run-table tbody tr").length) >= n;
    },
    runs,
    { timeout: 600_000, polling: 50 },
  );
  const painted = performance.now() - start;
  await page.waitForFunction(
    (text) => document.getElementById("served")?.textContent === text,
    `following ${thousands(runs)} runs of the server`,
    { timeout: 1_800_000, polling: 250 },
  );
  const read = performance.now() - start;
  /** Until the table's first row is `name`'s (any run when null) and its step begins with `text`. */
  const firstRow = (name, text, timeout) =>
    page.waitForFunction(
      ([wanted, step]) => {
        const row = document.querySelector("#run-table tbody tr");
        if (!(row instanceof HTMLElement) || (wanted !== null && row.dataset.run !== wanted)) return false;
        return (row.querySelector('td[data-column="step"]')?.textContent ?? "").startsWith(`${step}/`);
      },
      [name, text],
      { timeout, polling: 20 },
    );
  const stepHeading = page.locator('#run-table th[data-column="step"]');
  await stepHeading.click(); // ascending: the least step first
  await firstRow(null, thousands(last), 10_000);
  await stepHeading.click(); // descending: the run appended to comes first
  await firstRow(null, thousands(last), 10_000);
  const next = last + 1;
  const appended = performance.now();
  appendFileSync(appendFile, `{"event":"log","step":${next},"time":1733000000.5,"epoch":1.0,"loss":1.25,"learning_rate":1e-05,"grad_norm":0.5}\n`);
  await firstRow(appendRun, thousands(next), 120_000);
  const shown = performance.now() - appended;
  const cdp = await browser.newCDPSession(page);
  await cdp.send("Performance.enable");
  const { metrics } = await cdp.send("Performance.getMetrics");
  const heap = metrics.find((metric) => metric.name === "JSHeapUsedSize")?.value ?? null;
  const pss = browserPss(profile);
  console.log(JSON.stringify({ painted_ms: painted, read_ms: read, appended_ms: shown, js_heap_bytes: heap, renderer_pss_bytes: pss.renderer, browser_pss_bytes: pss.all }));
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}

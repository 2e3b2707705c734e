// The run viewer: runs opened or dropped, each metrics file read in chunks and handed to the
// reader core (the package's WebAssembly): its status (`Status`, told again as the clock
// ticks) and its check (`check`'s findings) are the core's records, laid out here as the
// command line lays them out; the Reader's answers give the plot its values. Everything a
// file holds reaches the page as text (textContent), never as markup.

import { load } from "overbrainer-contract/core";
import wasmBase64 from "viewer:wasm";
import { validateRequest, validateSnapshot } from "viewer:validators";
import { files as contractFiles, version as contractVersion } from "viewer:contract";
import { Excerpts } from "./excerpts.js";
import { thousands } from "./format.js";
import { COLOURS, draw } from "./plot.js";
import { Series } from "./series.js";
import { snapshotText } from "./snapshot.js";
import { statusRows } from "./status.js";

/** Bytes read from a file at a time: one feed of the core between two turns of the page. */
const CHUNK = 1 << 20;
/** Findings listed per run; the rest are counted. */
const LISTED = 200;
/** Characters of a bad line shown. */
const SHOWN = 240;

const METRICS_FILE = contractFiles.metrics;
/** A run folder's metrics file, gzip-compressed: read when there is no metrics.jsonl. */
const METRICS_GZ = `${METRICS_FILE}.gz`;
const SNAPSHOT_FILE = contractFiles.snapshot;
const SNAPSHOT_REQUEST = contractFiles.snapshot_request;

const $ = (id) => document.getElementById(id);
const validators = { snapshot: validateSnapshot, request: validateRequest };

function element(tag, text, attributes = {}) {
  const made = document.createElement(tag);
  if (text !== undefined && text !== null) made.textContent = String(text);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A turn of the event loop: input, timers and painting happen between two chunks. */
function yieldToPage() {
  if (globalThis.scheduler && typeof globalThis.scheduler.yield === "function") {
    return globalThis.scheduler.yield();
  }
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

let core;
try {
  core = await load(decodeBase64(wasmBase64));
} catch (error) {
  $("problem").hidden = false;
  $("problem").textContent = `the reader core could not be loaded: ${error && error.message ? error.message : error}`;
  throw error;
}

const runs = []; // {name, path, files, side, status, series, findings, view, colour, done}
const queue = [];
let loading = false;
let paused = null; // a {promise, resume} while paused
let drawPending = false;
const progress = { total: 0, done: 0, chunks: 0 };

function setState(value) {
  document.body.dataset.state = value;
}
setState("idle");

let drawnAt = -Infinity;
let drawCost = 0;

/** A redraw on the next frame. While a file is read, the plot is redrawn at most every
 * quarter of a second, and never more than a fifth of the time: a redraw costs a pass over
 * every point, and reading goes on meanwhile. */
function scheduleDraw() {
  if (drawPending) return;
  if (loading && performance.now() - drawnAt < Math.max(250, drawCost * 4)) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    const start = performance.now();
    redraw();
    drawnAt = performance.now();
    drawCost = drawnAt - start;
  });
}

function redraw() {
  const shown = runs.filter((run) => !run.series.empty);
  $("plot-box").hidden = shown.length === 0;
  if (shown.length === 0) return;
  const title = shown.length === 1 ? shown[0].name : "loss"; // plot's title
  const entries = draw($("plot"), shown.map((run) => ({ label: run.name, series: run.series, colour: run.colour })), title);
  $("legend").replaceChildren(
    ...entries.map(({ text, colour, dashed }) => {
      const item = element("li");
      const swatch = element("span", null, { class: dashed ? "swatch dashed" : "swatch" });
      swatch.style.borderColor = colour;
      item.append(swatch, element("span", text));
      return item;
    }),
  );
  $("plot").dataset.drawn = String(Number($("plot").dataset.drawn || 0) + 1);
}

function runView(run) {
  const view = element("article", null, { class: "run" });
  view.style.setProperty("--colour", run.colour);
  view.dataset.run = run.name;
  view.append(element("h2", run.name));
  const status = element("table", null, { class: "status" });
  view.append(status);
  const errors = element("section", null, { class: "errors" });
  errors.hidden = true;
  view.append(errors);
  $("runs").append(view);
  return { view, status, errors, listed: 0 };
}

/** The run's status at this page's now: the core's record, told again at each call. */
async function renderStatus(run) {
  if (run.snapshot === null) run.snapshot = await snapshotText(run.side, validators);
  const record = run.status.report(Date.now() / 1000, run.name);
  run.lines = record.lines;
  const body = element("tbody");
  for (const [label, text, title] of statusRows(record, run.snapshot, core.linesText)) {
    const row = element("tr");
    row.append(element("th", label));
    const cell = element("td", text, { "data-field": label.replace(" ", "_") });
    if (title !== null) cell.title = title;
    row.append(cell);
    body.append(row);
  }
  run.view.status.replaceChildren(body);
  return record;
}

/** The file's errors, as `check` reports them (line, column, path, category, message), the
 * first LISTED of them, under the core's words for its bad lines; its warnings counted. */
function renderFindings(run, record) {
  const { errors } = run.view;
  const { listed, summary } = run.findings;
  const heading = core.linesText(record.invalid_lines, record.partial_last_line);
  errors.hidden = listed.length === 0 && heading === "";
  if (errors.hidden) return;
  run.view.view.classList.add("has-errors");
  const table = element("table", null, { class: "bad" });
  const head = element("tr");
  const columns = ["line", "category", "column", "path", "message", "text"];
  for (const name of columns) head.append(element("th", name));
  table.append(element("thead"), element("tbody"));
  table.tHead.append(head);
  for (const finding of listed.slice(0, LISTED)) {
    const row = element("tr");
    const cells = {
      line: finding.line === null ? "" : thousands(finding.line),
      category: finding.category,
      column: finding.column ?? "",
      path: finding.path ?? "",
      message: finding.message,
      text: finding.line === null ? "" : run.excerpts.get(finding.line) ?? "",
    };
    for (const name of columns) row.append(element("td", cells[name], { "data-col": name, class: name }));
    table.tBodies[0].append(row);
  }
  const more = run.findings.more;
  const warned = summary ? summary.warnings : 0;
  errors.replaceChildren(
    element("h3", heading),
    table,
    element("p", more > 0 ? `… and ${thousands(more)} more (not listed; overbrainer-contract check lists them all)` : "", { class: "more" }),
    element("p", warned > 0 ? `${thousands(warned)} ${warned === 1 ? "warning" : "warnings"} (overbrainer-contract check lists them)` : "", { class: "warnings" }),
  );
}

function showProgress(run) {
  const share = progress.total ? progress.done / progress.total : 1;
  $("progress").value = share;
  $("progress").dataset.chunks = String(progress.chunks);
  $("progress").dataset.lines = String(run.lines);
  const mib = (bytes) => (bytes / (1 << 20)).toFixed(1);
  $("progress-text").textContent = `${run.name}: ${thousands(run.lines)} lines, ${mib(progress.done)} of ${mib(progress.total)} MiB${paused ? " (paused)" : ""}`;
}

/** gzip's first two bytes (RFC 1952). */
const GZIP_MAGIC = [0x1f, 0x8b];

/** The bytes of a file as they are, in chunks of CHUNK, each read while the one before is
 * used; `took(chunk)` sees each as it is read. */
async function* fileChunks(file, took) {
  const readAt = (at) => file.slice(at, at + CHUNK).arrayBuffer();
  let next = file.size > 0 ? readAt(0) : null;
  for (let offset = 0; next !== null; ) {
    const chunk = new Uint8Array(await next);
    offset += chunk.length;
    next = chunk.length > 0 && offset < file.size ? readAt(offset) : null;
    if (chunk.length === 0) return; // the file shrank while read
    took(chunk);
    yield chunk;
  }
}

/** The decompressed bytes of a `.gz` file's chunks (the browser's DecompressionStream).
 * `cut.short` is set when the stream ends before its end: every byte given, and the
 * decompressor still wanting more (its error at the close, not at a chunk). */
async function* gunzipped(name, chunks, cut) {
  const stream = new DecompressionStream("gzip");
  const writer = stream.writable.getWriter();
  let given = false;
  let refused = null;
  const feeding = (async () => {
    let first = true;
    for await (const chunk of chunks) {
      if (first && !(chunk[0] === GZIP_MAGIC[0] && chunk[1] === GZIP_MAGIC[1])) {
        refused = new Error(`${name}: not gzip-compressed, although named .gz (it does not begin with gzip's magic bytes 1f 8b)`);
        await writer.abort(refused);
        return;
      }
      first = false;
      await writer.write(chunk);
    }
    given = true;
    await writer.close();
  })();
  feeding.catch(() => {}); // its failure is the readable side's, answered below
  const reader = stream.readable.getReader();
  try {
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (error) {
        if (refused) throw refused;
        if (given) {
          cut.short = true;
          return;
        }
        const why = error && error.message ? error.message : String(error);
        throw new Error(`${name}: the gzip stream is corrupt (${why})`, { cause: error });
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    reader.cancel().catch(() => {}); // a reading stopped early: the feeding stops too
  }
}

/** Chunks handed on as they come to a reader that awaits them (the core's `check`). */
function handOn() {
  const waiting = [];
  let wake = null;
  let closed = false;
  const woken = () => {
    if (wake) wake();
    wake = null;
  };
  return {
    push(chunk) {
      waiting.push(chunk);
      woken();
    },
    close() {
      closed = true;
      woken();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (waiting.length) yield waiting.shift();
        else if (closed) return;
        else await new Promise((resolve) => (wake = resolve));
      }
    },
  };
}

/** A run's file read once: its bytes to the core's Status and check as they are read, its
 * lines to a Reader for the plot and the excerpts of the lines listed. */
async function readRun(run) {
  const file = run.files.metrics;
  const excerpts = new Excerpts(SHOWN);
  const reader = new core.Reader();
  const toCheck = handOn();
  // The check's records as they come: the first LISTED errors kept, the rest counted, in
  // flat memory whatever the file holds.
  const found = { listed: [], more: 0, summary: null };
  const checked = (async () => {
    for await (const batch of core.checkRecords(toCheck, { name: run.path })) {
      for (const record of batch) {
        if (record.type === "file") found.summary = record;
        else if (record.severity !== "error") continue;
        else if (found.listed.length < LISTED) found.listed.push(record);
        else found.more += 1;
      }
    }
    return found;
  })();
  checked.catch(() => {}); // answered once the file is read
  const take = (answers) => {
    run.series.take(answers);
    for (const answer of answers) {
      if (answer.kind !== "line" && run.excerpts.size <= LISTED) run.excerpts.set(answer.line, excerpts.text(answer.line));
    }
  };
  const took = (chunk) => {
    toCheck.push(chunk);
    progress.done += chunk.length;
  };
  const cut = { short: false };
  const raw = fileChunks(file, took);
  const chunks = file.name.endsWith(".gz") ? gunzipped(run.path, raw, cut) : raw;
  try {
    for (;;) {
      if (paused) await paused.promise;
      const next = await chunks.next();
      if (next.done) break;
      const chunk = next.value;
      run.status.feed(chunk);
      excerpts.add(chunk, run.excerpts.size <= LISTED);
      take(reader.feed(chunk));
      progress.chunks += 1;
      await renderStatus(run);
      showProgress(run);
      scheduleDraw();
      await yieldToPage();
    }
    if (cut.short) run.status.gzipCut();
    run.status.end();
    take(reader.finish());
    toCheck.close();
    run.findings = await checked.catch((error) => {
      throw new Error(`${run.path}: ${error && error.message ? error.message : error}`);
    });
  } finally {
    toCheck.close();
    reader.close();
    run.done = true;
  }
}

async function loadQueued() {
  if (loading) return;
  loading = true;
  setState("loading");
  $("loading").hidden = false;
  $("problem").hidden = true;
  try {
    while (queue.length) {
      const run = queue.shift();
      try {
        await readRun(run);
      } catch (error) {
        // the run's reading stopped: said on its card, in place of its bad lines
        run.done = true;
        const said = element("p", error && error.message ? error.message : String(error), { class: "problem", role: "alert" });
        run.view.view.insertBefore(said, run.view.errors);
        run.view.view.classList.add("has-errors");
      }
      renderFindings(run, await renderStatus(run));
      scheduleDraw();
    }
  } finally {
    loading = false;
    $("loading").hidden = true;
    scheduleDraw();
    setState("idle");
  }
}

/** Runs to read: [{name, metrics: File, side: {proof, request} | null}]. */
function open(found) {
  for (const each of found) {
    const run = {
      name: each.name,
      path: each.path,
      files: { metrics: each.metrics },
      side: each.side,
      status: new core.Status({ name: each.path }),
      series: new Series(),
      findings: { listed: [], more: 0, summary: null },
      excerpts: new Map(),
      lines: 0,
      colour: COLOURS[runs.length % COLOURS.length],
      done: false,
      snapshot: null,
    };
    run.view = runView(run);
    runs.push(run);
    queue.push(run);
    progress.total += each.metrics.size;
    renderStatus(run);
  }
  if (found.length === 0) {
    $("problem").hidden = false;
    $("problem").textContent = `no ${METRICS_FILE} there`;
    return;
  }
  loadQueued();
}

/** Runs of loose files (each a metrics file) and of folders' files (path → File): a folder
 * with a metrics.jsonl is a run, its snapshot files beside it. */
function runsOf(loose, inFolders) {
  const found = loose.map((file) => ({ name: file.name, path: file.name, metrics: file, side: null }));
  const folders = new Map();
  for (const [path, file] of inFolders) {
    const cut = path.lastIndexOf("/");
    const folder = cut < 0 ? "" : path.slice(0, cut);
    if (!folders.has(folder)) folders.set(folder, {});
    folders.get(folder)[path.slice(cut + 1)] = file;
  }
  for (const [folder, files] of [...folders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const metrics = files[METRICS_FILE] || files[METRICS_GZ];
    if (!metrics) continue;
    found.push({
      name: folder || metrics.name,
      path: folder ? `${folder}/${metrics.name}` : metrics.name,
      metrics,
      side: { proof: files[SNAPSHOT_FILE] || null, request: files[SNAPSHOT_REQUEST] || null },
    });
  }
  return found;
}

$("files").addEventListener("change", (event) => {
  open(runsOf([...event.target.files], []));
  event.target.value = "";
});

$("folder").addEventListener("change", (event) => {
  open(runsOf([], [...event.target.files].map((file) => [file.webkitRelativePath || file.name, file])));
  event.target.value = "";
});

function entries(directory) {
  const reader = directory.createReader();
  const all = [];
  return new Promise((resolve, reject) => {
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

async function walk(entry, into) {
  if (entry.isFile) {
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    into.push([entry.fullPath.replace(/^\//, ""), file]);
  } else if (entry.isDirectory) {
    for (const child of await entries(entry)) await walk(child, into);
  }
}

const drop = $("drop");
drop.addEventListener("click", () => $("files").click());
drop.addEventListener("keydown", (event) => {
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    $("files").click();
  }
});
for (const name of ["dragenter", "dragover"]) {
  document.addEventListener(name, (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
}
document.addEventListener("dragleave", () => drop.classList.remove("over"));
document.addEventListener("drop", async (event) => {
  event.preventDefault();
  drop.classList.remove("over");
  const loose = [];
  const inFolders = [];
  // the items are only there while the event is handled: their entries and files first
  const dropped = [...(event.dataTransfer.items || [])]
    .filter((item) => item.kind === "file")
    .map((item) => ({ entry: item.webkitGetAsEntry ? item.webkitGetAsEntry() : null, file: item.getAsFile() }));
  for (const { entry, file } of dropped) {
    if (entry && entry.isDirectory) await walk(entry, inFolders);
    else if (file) loose.push(file);
  }
  open(runsOf(loose, inFolders));
});

$("pause").addEventListener("click", () => {
  if (paused) {
    const { resume } = paused;
    paused = null;
    $("pause").textContent = "Pause";
    setState("loading");
    resume();
  } else if (loading) {
    let resume;
    const promise = new Promise((resolve) => {
      resume = resolve;
    });
    paused = { promise, resume };
    $("pause").textContent = "Resume";
    setState("paused");
  }
  const current = runs.find((run) => !run.done);
  if (current) showProgress(current);
});

$("clear").addEventListener("click", () => {
  if (loading) return;
  for (const run of runs) run.status.close();
  runs.length = 0;
  progress.total = 0;
  progress.done = 0;
  $("runs").replaceChildren();
  $("plot-box").hidden = true;
  $("problem").hidden = true;
});

window.addEventListener("resize", scheduleDraw);
// the last line's age and the ETA's count down move with the clock: the core tells the
// status again at each now
setInterval(() => {
  for (const run of runs) if (run.done) renderStatus(run);
}, 10_000);
$("core-version").textContent = `contract ${contractVersion}; the reader core: overbrainer's reference, compiled to WebAssembly`;
document.body.dataset.ready = "true";

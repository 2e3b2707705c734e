// The run viewer: runs opened or dropped, each metrics file read in chunks through the
// package's Reader (the reference's reader compiled to WebAssembly), status and plot shown as
// the command line shows them. Everything a file holds reaches the page as text
// (textContent), never as markup.

import { load } from "overbrainer-contract/core";
import wasmBase64 from "viewer:wasm";
import { validateRequest, validateSnapshot } from "viewer:validators";
import { files as contractFiles, version as contractVersion } from "viewer:contract";
import { thousands } from "./format.js";
import { COLOURS, draw } from "./plot.js";
import { KEPT_ERRORS, RunState } from "./run.js";
import { snapshotText } from "./snapshot.js";
import { statusRows } from "./status.js";
import { answerParts, Excerpts } from "./answers.js";

/** Bytes read from a file at a time: one feed of the Reader between two turns of the page. */
const CHUNK = 1 << 20;
/** Bad lines listed per run; the rest are counted. */
const LISTED = KEPT_ERRORS;
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

const runs = []; // {name, files, state, view, colour, done}
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
  const shown = runs.filter((run) => run.state.points.loss.length || run.state.points.eval_loss.length || run.state.points.learning_rate.length);
  $("plot-box").hidden = shown.length === 0;
  if (shown.length === 0) return;
  const title = shown.length === 1 ? shown[0].name : "loss"; // plot's title
  const entries = draw($("plot"), shown.map((run) => ({ label: run.name, state: run.state, colour: run.colour })), title);
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

async function renderStatus(run) {
  if (run.snapshot === null) run.snapshot = await snapshotText(run.side, validators);
  const snapshot = run.snapshot;
  const body = element("tbody");
  for (const [label, text, title] of statusRows(run.name, run.state, snapshot, Date.now() / 1000)) {
    const row = element("tr");
    row.append(element("th", label));
    const cell = element("td", text, { "data-field": label.replace(" ", "_") });
    if (title !== null) cell.title = title;
    row.append(cell);
    body.append(row);
  }
  run.view.status.replaceChildren(body);
}

function renderErrors(run) {
  const { state } = run;
  const { errors } = run.view;
  if (state.invalid === 0) {
    errors.hidden = true;
    return;
  }
  errors.hidden = false;
  run.view.view.classList.add("has-errors");
  if (!errors.firstChild) {
    errors.append(element("h3"));
    const table = element("table", null, { class: "bad" });
    const head = element("tr");
    for (const name of ["line", "category", "column", "path", "message", "text"]) head.append(element("th", name));
    table.append(element("thead"), element("tbody"));
    table.tHead.append(head);
    errors.append(table, element("p", null, { class: "more" }));
  }
  errors.querySelector("h3").textContent = `${thousands(state.invalid)} invalid ${state.invalid === 1 ? "line" : "lines"}`;
  const body = errors.querySelector("tbody");
  const upTo = Math.min(state.errors.length, LISTED);
  for (let i = run.view.listed; i < upTo; i += 1) {
    const bad = state.errors[i];
    const row = element("tr");
    row.append(
      element("td", thousands(bad.line), { "data-col": "line" }),
      element("td", bad.category, { "data-col": "category" }),
      element("td", bad.column ?? "", { "data-col": "column" }),
      element("td", bad.path ?? "$", { "data-col": "path" }), // the line as a whole, as check says
      element("td", bad.message, { "data-col": "message" }),
      element("td", bad.text ?? "", { "data-col": "text", class: "text" }),
    );
    body.append(row);
  }
  run.view.listed = upTo;
  const more = state.invalid - upTo;
  errors.querySelector(".more").textContent = more > 0 ? `… and ${thousands(more)} more (not listed; overbrainer-contract check lists them all)` : "";
}

function showProgress(run) {
  const share = progress.total ? progress.done / progress.total : 1;
  $("progress").value = share;
  $("progress").dataset.chunks = String(progress.chunks);
  $("progress").dataset.lines = String(run.state.lines);
  const mib = (bytes) => (bytes / (1 << 20)).toFixed(1);
  $("progress-text").textContent = `${run.name}: ${thousands(run.state.lines)} lines, ${mib(progress.done)} of ${mib(progress.total)} MiB${paused ? " (paused)" : ""}`;
}

/** What check and status add to the error of a first line that begins with a UTF-8 byte
 * order mark (runs/chunks.py, BOM_NOTE). */
const BOM_NOTE = "the line begins with a UTF-8 byte order mark, bytes EF BB BF, which a JSON line may not hold: save the file without it";

/** What check adds to the error of a last line without its newline that is not a line cut
 * short (check/checker.py, `_last_line`). */
const LAST_LINE_NOTE = "the last line, without its newline";

/** gzip's first two bytes (RFC 1952). */
const GZIP_MAGIC = [0x1f, 0x8b];

/** The chunks of a file as it is, each read while the one before is used. */
async function* plainChunks(file) {
  const readAt = (at) => file.slice(at, at + CHUNK).arrayBuffer();
  let next = file.size > 0 ? readAt(0) : null;
  for (let offset = 0; next !== null; ) {
    const chunk = new Uint8Array(await next);
    offset += chunk.length;
    next = chunk.length > 0 && offset < file.size ? readAt(offset) : null;
    if (chunk.length === 0) return; // the file shrank while read
    if (offset === chunk.length && chunk[0] === GZIP_MAGIC[0] && chunk[1] === GZIP_MAGIC[1]) {
      throw new Error(
        `${file.name}: gzip-compressed data, not JSON lines (it begins with gzip's magic bytes 1f 8b): name it .jsonl.gz, or gunzip it`,
      );
    }
    yield { chunk, read: chunk.length };
  }
}

/** The chunks of a `.gz` file, decompressed (the browser's DecompressionStream), gathered
 * into chunks of about CHUNK bytes; `read` counts the compressed bytes behind each. */
async function* gunzippedChunks(file) {
  const magic = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  if (file.size > 0 && !(magic[0] === GZIP_MAGIC[0] && magic[1] === GZIP_MAGIC[1])) {
    throw new Error(`${file.name}: not gzip-compressed, although named .gz (it does not begin with gzip's magic bytes 1f 8b)`);
  }
  let read = 0;
  const counted = new TransformStream({
    transform(part, controller) {
      read += part.length;
      controller.enqueue(part);
    },
  });
  const stream = file.stream().pipeThrough(counted).pipeThrough(new DecompressionStream("gzip"));
  const reader = stream.getReader();
  let parts = [];
  let size = 0;
  let reported = 0;
  const gathered = () => {
    const chunk = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      chunk.set(part, at);
      at += part.length;
    }
    parts = [];
    size = 0;
    const delta = read - reported;
    reported = read;
    return { chunk, read: delta };
  };
  try {
    for (;;) {
      let step;
      try {
        step = await reader.read();
      } catch (error) {
        const why = error && error.message ? error.message : String(error);
        throw new Error(`${file.name}: the gzip stream is cut short or corrupt (${why})`);
      }
      if (step.done) break;
      parts.push(step.value);
      size += step.value.length;
      if (size >= CHUNK) yield gathered();
    }
    if (size > 0 || read > reported) yield gathered();
  } finally {
    reader.releaseLock();
  }
}

async function readRun(run) {
  const { state } = run;
  // a line is the bytes before its newline, as check and the reference read it
  const reader = new core.Reader();
  const excerpts = new Excerpts(SHOWN);
  const file = run.files.metrics;
  let bom = false;
  const takeAll = (answers) => {
    for (const answer of answers) {
      const { number, line, error, terminated } = answerParts(answer);
      if (bom && number === 1 && error) error.message += ` (${BOM_NOTE})`;
      if (error && !terminated && error.category !== "eof") error.message += ` (${LAST_LINE_NOTE})`;
      state.lines += 1;
      if (line) state.take(line);
      else {
        const kept = state.errors.length;
        state.reject(number, error, terminated);
        if (state.errors.length > kept) state.errors[kept].text = excerpts.text(number);
      }
    }
  };
  const chunks = file.name.endsWith(".gz") ? gunzippedChunks(file) : plainChunks(file);
  run.firstChunk = progress.chunks;
  try {
    for (;;) {
      if (paused) await paused.promise;
      const next = await chunks.next();
      if (next.done) break;
      const { chunk, read } = next.value;
      if (progress.chunks === run.firstChunk) bom = chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
      excerpts.add(chunk, state.errors.length < LISTED);
      takeAll(reader.feed(chunk));
      progress.done += read;
      progress.chunks += 1;
      showProgress(run);
      renderErrors(run);
      renderStatus(run);
      scheduleDraw();
      await yieldToPage();
    }
    takeAll(reader.finish());
  } catch (error) {
    reader.close();
    throw error;
  }
  run.done = true;
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
      await renderStatus(run);
      renderErrors(run);
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
      files: { metrics: each.metrics },
      side: each.side,
      state: new RunState(new core.Pace()),
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
  const found = loose.map((file) => ({ name: file.name, metrics: file, side: null }));
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
  runs.length = 0;
  progress.total = 0;
  progress.done = 0;
  $("runs").replaceChildren();
  $("plot-box").hidden = true;
  $("problem").hidden = true;
});

window.addEventListener("resize", scheduleDraw);
// the last line's age and the ETA's count down move with the clock
setInterval(() => {
  for (const run of runs) if (run.done) renderStatus(run);
}, 10_000);
$("core-version").textContent = `contract ${contractVersion}; the reader core: overbrainer's reference, compiled to WebAssembly`;
document.body.dataset.ready = "true";

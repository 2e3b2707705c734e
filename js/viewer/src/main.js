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

/** @typedef {import("overbrainer-contract/core").Api} Api */
/** @typedef {import("overbrainer-contract/core").Answer} Answer */
/** @typedef {import("overbrainer-contract/core").ReportFile} ReportFile */
/** @typedef {import("overbrainer-contract/core").ReportFinding} ReportFinding */
/** @typedef {import("overbrainer-contract/core").RunStatus} RunStatus */
/** @typedef {import("overbrainer-contract/core").StatusReport} StatusReport */
/** A run folder's snapshot files (each a File, or null where the folder has none).
 * @typedef {{ proof: File | null, request: File | null }} Side */
/** A run to read: its name, its metrics file as the records name it, the file, its side files
 * (null for a file opened alone).
 * @typedef {{ name: string, path: string, metrics: File, side: Side | null }} Found */
/** A run's errors as `check` makes them: the first LISTED, how many more, the file's summary.
 * @typedef {{ listed: ReportFinding[], more: number, summary: ReportFile | null }} Findings */
/** A run's card: the card, its status table, its section of bad lines.
 * @typedef {{ view: HTMLElement, status: HTMLElement, errors: HTMLElement, listed: number }} RunView */
/** A run opened: its file, the core's Status of it, its plotted series, its findings, the
 * excerpts of its bad lines (by line number), its card.
 * @typedef {{
 *   name: string, path: string, files: { metrics: File }, side: Side | null, status: RunStatus,
 *   series: Series, findings: Findings, excerpts: Map<number, string | null>, lines: number,
 *   colour: string, done: boolean, snapshot: string | null, view: RunView,
 * }} Run */

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

/** The page's element of that id (page.html has each one this script asks for).
 * @param {string} id
 * @returns {HTMLElement} */
function $(id) {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`page.html has no #${id}`);
  return found;
}

/** The page's element of that id, of that kind (a canvas, an input, a progress bar).
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, name: string }} kind
 * @returns {T} */
function $of(id, kind) {
  const found = $(id);
  if (!(found instanceof kind)) throw new Error(`page.html's #${id} is not a ${kind.name}`);
  return found;
}

const validators = { snapshot: validateSnapshot, request: validateRequest };

/** What an error says: its message, else the thrown value as text.
 * @param {unknown} error
 * @returns {string} */
function messageOf(error) {
  if (typeof error === "object" && error !== null && "message" in error && error.message) return String(error.message);
  return String(error);
}

/** A new element, its text (as text, never markup) and attributes.
 * @param {string} tag
 * @param {string | number | null} [text]
 * @param {Record<string, string>} [attributes]
 * @returns {HTMLElement} */
function element(tag, text, attributes = {}) {
  const made = document.createElement(tag);
  if (text !== undefined && text !== null) made.textContent = String(text);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}

/** The bytes of base64 `text`: `Uint8Array.fromBase64` where the browser has it (ES2026, not
 * yet in every browser the page targets), else through `atob`.
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>} */
function decodeBase64(text) {
  const typed = /** @type {typeof Uint8Array & { fromBase64?: (text: string) => Uint8Array<ArrayBuffer> }} */ (Uint8Array);
  if (typeof typed.fromBase64 === "function") return typed.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A turn of the event loop: input, timers and painting happen between two chunks.
 * @returns {Promise<void>} */
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

/** @type {Api} */
let core;
try {
  core = await load(decodeBase64(wasmBase64));
} catch (error) {
  $("problem").hidden = false;
  $("problem").textContent = `the reader core could not be loaded: ${messageOf(error)}`;
  throw error;
}

/** @type {Run[]} */
const runs = [];
/** @type {Run[]} */
const queue = [];
let loading = false;
/** @type {{ promise: Promise<void>, resume: () => void } | null} while paused */
let paused = null;
let drawPending = false;
const progress = { total: 0, done: 0, chunks: 0 };

/** @param {"idle" | "loading" | "paused"} value */
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
  const entries = draw($of("plot", HTMLCanvasElement), shown.map((run) => ({ label: run.name, series: run.series, colour: run.colour })), title);
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

/** A run's card, added to the page.
 * @param {string} name
 * @param {string} colour
 * @returns {RunView} */
function runView(name, colour) {
  const view = element("article", null, { class: "run" });
  view.style.setProperty("--colour", colour);
  view.dataset.run = name;
  view.append(element("h2", name));
  const status = element("table", null, { class: "status" });
  view.append(status);
  const errors = element("section", null, { class: "errors" });
  errors.hidden = true;
  view.append(errors);
  $("runs").append(view);
  return { view, status, errors, listed: 0 };
}

/** The run's status at this page's now: the core's record, told again at each call.
 * @param {Run} run
 * @returns {Promise<StatusReport>} */
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
 * first LISTED of them, under the core's words for its bad lines; its warnings counted.
 * @param {Run} run
 * @param {StatusReport} record */
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
  const thead = element("thead");
  const tbody = element("tbody");
  table.append(thead, tbody);
  thead.append(head);
  for (const finding of listed.slice(0, LISTED)) {
    const row = element("tr");
    /** @type {Record<string, string | number>} */
    const cells = {
      line: finding.line === null ? "" : thousands(finding.line),
      category: finding.category,
      column: finding.column ?? "",
      path: finding.path ?? "",
      message: finding.message,
      text: finding.line === null ? "" : run.excerpts.get(finding.line) ?? "",
    };
    for (const name of columns) row.append(element("td", cells[name], { "data-col": name, class: name }));
    tbody.append(row);
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

/** The progress bar and its words: the run being read, its lines, the bytes read of all.
 * @param {Run} run */
function showProgress(run) {
  const share = progress.total ? progress.done / progress.total : 1;
  $of("progress", HTMLProgressElement).value = share;
  $("progress").dataset.chunks = String(progress.chunks);
  $("progress").dataset.lines = String(run.lines);
  const mib = (/** @type {number} */ bytes) => (bytes / (1 << 20)).toFixed(1);
  $("progress-text").textContent = `${run.name}: ${thousands(run.lines)} lines, ${mib(progress.done)} of ${mib(progress.total)} MiB${paused ? " (paused)" : ""}`;
}

/** gzip's first two bytes (RFC 1952). */
const GZIP_MAGIC = [0x1f, 0x8b];

/** The bytes of a file as they are, in chunks of CHUNK, each read while the one before is
 * used; `took(chunk)` sees each as it is read.
 * @param {File} file
 * @param {(chunk: Uint8Array<ArrayBuffer>) => void} took
 * @returns {AsyncGenerator<Uint8Array<ArrayBuffer>, void, undefined>} */
async function* fileChunks(file, took) {
  const readAt = (/** @type {number} */ at) => file.slice(at, at + CHUNK).arrayBuffer();
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
 * decompressor still wanting more (its error at the close, not at a chunk).
 * @param {string} name
 * @param {AsyncIterable<Uint8Array<ArrayBuffer>>} chunks
 * @param {{ short: boolean }} cut
 * @returns {AsyncGenerator<Uint8Array<ArrayBuffer>, void, undefined>} */
async function* gunzipped(name, chunks, cut) {
  const stream = new DecompressionStream("gzip");
  const writer = stream.writable.getWriter();
  let given = false;
  /** @type {Error | null} */
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
        const why = messageOf(error);
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
  /** @type {Uint8Array[]} */
  const waiting = [];
  /** @type {(() => void) | null} */
  let wake = null;
  let closed = false;
  const woken = () => {
    if (wake) wake();
    wake = null;
  };
  return {
    /** @param {Uint8Array} chunk */
    push(chunk) {
      waiting.push(chunk);
      woken();
    },
    close() {
      closed = true;
      woken();
    },
    /** @returns {AsyncGenerator<Uint8Array, void, undefined>} */
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const chunk = waiting.shift();
        if (chunk !== undefined) yield chunk;
        else if (closed) return;
        else {
          /** @type {Promise<void>} */
          const next = new Promise((resolve) => (wake = resolve));
          await next;
        }
      }
    },
  };
}

/** A run's file read once: its bytes to the core's Status and check as they are read, its
 * lines to a Reader for the plot and the excerpts of the lines listed.
 * @param {Run} run */
async function readRun(run) {
  const file = run.files.metrics;
  const excerpts = new Excerpts(SHOWN);
  const reader = new core.Reader();
  const toCheck = handOn();
  // The check's records as they come: the first LISTED errors kept, the rest counted, in
  // flat memory whatever the file holds.
  /** @type {Findings} */
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
  const take = (/** @type {Answer[]} */ answers) => {
    run.series.take(answers);
    for (const answer of answers) {
      if (answer.kind !== "line" && run.excerpts.size <= LISTED) run.excerpts.set(answer.line, excerpts.text(answer.line));
    }
  };
  const took = (/** @type {Uint8Array} */ chunk) => {
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
      throw new Error(`${run.path}: ${messageOf(error)}`);
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
    for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
      try {
        await readRun(run);
      } catch (error) {
        // the run's reading stopped: said on its card, in place of its bad lines
        run.done = true;
        const said = element("p", messageOf(error), { class: "problem", role: "alert" });
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

/** Runs to read, each a card on the page, read in turn.
 * @param {Found[]} found */
function open(found) {
  for (const each of found) {
    const colour = COLOURS[runs.length % COLOURS.length];
    /** @type {Run} */
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
      colour,
      done: false,
      snapshot: null,
      view: runView(each.name, colour),
    };
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
 * with a metrics.jsonl is a run, its snapshot files beside it.
 * @param {File[]} loose
 * @param {[string, File][]} inFolders
 * @returns {Found[]} */
function runsOf(loose, inFolders) {
  /** @type {Found[]} */
  const found = loose.map((file) => ({ name: file.name, path: file.name, metrics: file, side: null }));
  /** @type {Map<string, Record<string, File>>} */
  const folders = new Map();
  for (const [path, file] of inFolders) {
    const cut = path.lastIndexOf("/");
    const folder = cut < 0 ? "" : path.slice(0, cut);
    let files = folders.get(folder);
    if (files === undefined) folders.set(folder, (files = {}));
    files[path.slice(cut + 1)] = file;
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

const filesInput = $of("files", HTMLInputElement);
filesInput.addEventListener("change", () => {
  open(runsOf([...(filesInput.files ?? [])], []));
  filesInput.value = "";
});

const folderInput = $of("folder", HTMLInputElement);
folderInput.addEventListener("change", () => {
  open(runsOf([], [...(folderInput.files ?? [])].map((file) => [file.webkitRelativePath || file.name, file])));
  folderInput.value = "";
});

/** A dropped entry that is a file (the entry's own `isFile` says it).
 * @param {FileSystemEntry} entry
 * @returns {entry is FileSystemFileEntry} */
const isFileEntry = (entry) => entry.isFile;

/** A dropped entry that is a folder (the entry's own `isDirectory` says it).
 * @param {FileSystemEntry | null} entry
 * @returns {entry is FileSystemDirectoryEntry} */
const isDirectoryEntry = (entry) => entry !== null && entry.isDirectory;

/** A dropped folder's entries, every batch its reader gives.
 * @param {FileSystemDirectoryEntry} directory
 * @returns {Promise<FileSystemEntry[]>} */
function entries(directory) {
  const reader = directory.createReader();
  /** @type {FileSystemEntry[]} */
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

/** A dropped entry's files, each with its path, into `into`.
 * @param {FileSystemEntry} entry
 * @param {[string, File][]} into */
async function walk(entry, into) {
  if (isFileEntry(entry)) {
    /** @type {File} */
    const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
    into.push([entry.fullPath.replace(/^\//, ""), file]);
  } else if (isDirectoryEntry(entry)) {
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
  /** @type {File[]} */
  const loose = [];
  /** @type {[string, File][]} */
  const inFolders = [];
  // the items are only there while the event is handled: their entries and files first
  const dropped = [...(event.dataTransfer?.items ?? [])]
    .filter((item) => item.kind === "file")
    .map((item) => ({ entry: item.webkitGetAsEntry ? item.webkitGetAsEntry() : null, file: item.getAsFile() }));
  for (const { entry, file } of dropped) {
    if (isDirectoryEntry(entry)) await walk(entry, inFolders);
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
    /** @type {() => void} */
    let resume = () => {};
    /** @type {Promise<void>} */
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

// The run viewer: runs opened or dropped, each metrics file read in chunks and handed to the
// reader core (the package's WebAssembly): its status (`Status`, told again as the clock
// ticks) and its check (`check`'s findings) are the core's records, laid out here as the
// command line lays them out, on a card per run or in one table of every run; the Reader's
// answers give the plot its values: one panel per metric key the picker's patterns match,
// runs alone or in groups (a regular expression over their names), in `plot`'s styles.
// Everything a file holds reaches the page as text (textContent), never as markup.

import { load } from "overbrainer-contract/core";
import wasmBase64 from "viewer:wasm";
import { files as contractFiles, version as contractVersion } from "viewer:contract";
import { Excerpts } from "./excerpts.js";
import { bandOf, groupKeys } from "./groups.js";
import { useCore } from "./names.js";
import { axisText, dashPattern, drawPanel, style, tooltipAt } from "./plot.js";
import { servedBy } from "./served.js";
import { againstAxis, AXES, Series, smoothed } from "./series.js";
import { PROOF_LIMIT, REQUEST_LIMIT, sideFiles } from "./snapshot.js";
import { RunTable } from "./table.js";

/** @typedef {import("overbrainer-contract/core").Api} Api */
/** @typedef {import("overbrainer-contract/core").ReportFile} ReportFile */
/** @typedef {import("overbrainer-contract/core").ReportFinding} ReportFinding */
/** @typedef {import("overbrainer-contract/core").RunStatus} RunStatus */
/** @typedef {import("overbrainer-contract/core").StatusReport} StatusReport */
/** @typedef {import("./series.js").Points} Points */
/** A run folder's snapshot files (each a File, or null where the folder has none).
 * @typedef {{ proof: File | null, request: File | null }} Side */
/** A run to read: what its name is made from (names.js), its metrics file as the records
 * name it, the file, its side files (null for a file opened alone).
 * @typedef {{ unit: import("overbrainer-contract/core").Unit, path: string, metrics: File, side: Side | null }} Found */
/** A run's errors as `check` makes them: the first LISTED, how many more, the file's summary.
 * @typedef {{ listed: ReportFinding[], more: number, summary: ReportFile | null }} Findings */
/** A run's card: the card, its alerts' badges, its status table, its training's summary, its
 * section of bad lines.
 * @typedef {{ view: HTMLElement, badges: HTMLElement, status: HTMLElement, summary: HTMLElement, errors: HTMLElement, listed: number }} RunView */
/** A run served, followed: its latest listing entry, the file read (its id, or null before
 * the first) and how far, its side files' signature, the reading under way (its bytes go on
 * to it as the file grows), and whether the file was found removed.
 * @typedef {{ entry: import("./served.js").ServedRun, id: string | null, offset: number, side: string,
 *   reading: Reading | null, removed: boolean, busy: boolean, handled: import("./served.js").ServedRun | null, ended: boolean }} Following */
/** A run's bytes going on as they come: to its Status (the run's state, its series digested
 * for the plot and its check's findings, in one pass of the core) and to the excerpts.
 * @typedef {{ feed: (chunk: Uint8Array) => void }} Reading */
/** A run opened: its name (among the runs opened) and what it is made from, its file (null
 * for a run served, until it is read whole), the core's Status of it and its latest record,
 * its plotted series, its findings, the excerpts of its bad lines (by line number), its
 * style, its card, its side files as the core's status takes them (read once, null before);
 * a run served, how it is followed; the metric patterns its Status digests the keys of, and
 * the Status reading it again for more keys, while one does; whether its card is behind its
 * record (told while the cards were not shown: told again when they are).
 * @typedef {{
 *   name: string, unit: import("overbrainer-contract/core").Unit, path: string, files: { metrics: File | null }, side: Side | null, status: RunStatus,
 *   record: StatusReport | null, series: Series, findings: Findings, excerpts: Map<number, string | null>,
 *   lines: number, colour: string, done: boolean, sideFiles: import("overbrainer-contract/core").SideFiles | null, view: RunView, following?: Following,
 *   zoomed?: Zoomed | null, digested: string, again?: RunStatus | null, stale?: boolean,
 * }} Run */
/** A run's logs of the steps the panels are zoomed in to, read again from its bytes: a Status
 * made with `steps` (the core's digest of those steps alone, at its full resolution), its
 * series, the chunks it was fed, and whether it has read every byte the run's Status has (a
 * run followed: from then on, each chunk of the run goes on to it too).
 * @typedef {{ range: [number, number], status: RunStatus, series: Series, fed: number, done: boolean }} Zoomed */

/** Bytes read from a file at a time: one feed of the core between two turns of the page. */
const CHUNK = 1 << 20;
/** Findings listed per run; the rest are counted. */
const LISTED = 200;
/** Characters of a bad line shown. */
const SHOWN = 240;
/** The buckets of a key's series the core keeps for the plot (`Status`'s `digest`), about a
 * panel's width in pixel columns: a bucket draws as its every point would at that width (its
 * first, least, greatest and last point, and its markers); a panel wider than 512 columns
 * draws a bucket across two or three of them. */
const DIGEST = 512;
/** The metric patterns whose keys' series the runs' Statuses digest: the patterns the metrics
 * field asked for so far (a key no panel shows is kept by its name alone, with no point).
 * Widened when a pattern asks for a key outside them: every run is read again for it. */
let digestPatterns = "";
/** Runs being read again for the keys of `digestPatterns` now. */
let readingAgain = 0;

const METRICS_FILE = contractFiles.metrics;
/** A run folder's metrics file, gzip-compressed: read when there is no metrics.jsonl. */
const METRICS_GZ = `${METRICS_FILE}.gz`;
/** The names of a run folder's metrics file: a file of either name stands for its folder. */
const METRICS_NAMES = [METRICS_FILE, METRICS_GZ];
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
  useCore(core);
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
/** Runs served being read for the first time now: while any is, the plot and the table are
 * redrawn at most every quarter of a second, as while files are read. */
let reading = 0;
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
/** @type {ReturnType<typeof setTimeout> | null} a redraw put off while files are read */
let drawLater = null;
let drawCost = 0;

/** Whether the page follows the runs of a server (`overbrainer-contract serve`). */
let live = false;

/** A redraw under way (its panels drawn a slice at a time), and whether another was asked
 * for meanwhile: that one starts when this one is done. */
let redrawing = false;
let drawAgain = false;

/** The main thread's time a redraw may take before it hands the page back (to reading, the
 * table, the page's input) and goes on in a later task. */
const SLICE_MS = 30;

/** A redraw on the next frame. While a file is read, and on a page following runs served
 * (a sweep's runs each growing), the plot is redrawn at most every quarter of a second, and
 * never more than a fifth of the time; while runs served are read a first time, a tenth: a
 * redraw costs a pass over every point of every run and their rasterising, and reading, the
 * table and the page's input go on meanwhile. */
function scheduleDraw() {
  if (drawPending) return;
  if (redrawing) {
    drawAgain = true;
    return;
  }
  const share = live && reading > 0 ? 9 : 4;
  const wait = loading || reading > 0 || readingAgain > 0 || live ? Math.max(250, drawCost * share) - (performance.now() - drawnAt) : 0;
  if (wait > 0) {
    // the redraw put off, not dropped: the last change is drawn once the wait is over
    drawLater ??= setTimeout(() => {
      drawLater = null;
      scheduleDraw();
    }, wait);
    return;
  }
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    redrawing = true;
    // a redraw begun while runs were read again drew their old points, even when the reading
    // ended before the redraw did
    const settled = readingAgain === 0;
    void drawPanels(redraw).finally(() => {
      redrawing = false;
      if (drawAgain) {
        drawAgain = false;
        scheduleDraw();
        return;
      }
      // the panels show the page as it is now (for tests: `data-drawn` counts such redraws);
      // not while runs are read again for keys asked for, whose points are still to come (a
      // reading again that ends asks for a redraw: `drawAgain` above, when it ends meanwhile)
      if (settled && readingAgain === 0) $("panels").dataset.drawn = String(Number($("panels").dataset.drawn || 0) + 1);
    });
  });
}

/** A task queued behind the page's other work: the page's turn, between slices of a redraw. */
function handBack() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** The panels of a redraw drawn, slice by slice, the page handed back whenever a slice has
 * taken SLICE_MS. The redraw's cost is the main thread's time it took, rasterising included.
 * @param {() => Generator<void, void, void>} redraw the page laid out, then its panels' drawing */
async function drawPanels(redraw) {
  let cost = 0;
  let since = performance.now();
  const panels = redraw();
  for (;;) {
    if (panels.next().done) break;
    if (performance.now() - since >= SLICE_MS) {
      cost += performance.now() - since;
      await handBack();
      since = performance.now();
    }
  }
  drawnAt = performance.now();
  drawCost = cost + (drawnAt - since);
}

/** `element` hidden or shown; left alone when it already is (a change, even to the same
 * value, has the page restyled).
 * @param {HTMLElement} element
 * @param {boolean} hidden */
function setHidden(element, hidden) {
  if (element.hidden !== hidden) element.hidden = hidden;
}

/** Each panel canvas's CSS size, as a ResizeObserver tells it after a layout: a redraw
 * reads no size, so it never forces a layout of the page (hundreds of cards). A canvas
 * resized is drawn again. */
/** @type {WeakMap<Element, { width: number, height: number }>} */
const panelSizes = new WeakMap();
const resized = new ResizeObserver((entries) => {
  let changed = false;
  for (const entry of entries) {
    const box = entry.contentBoxSize[0];
    const size = { width: Math.round(box.inlineSize), height: Math.round(box.blockSize) }; // as clientWidth
    const before = panelSizes.get(entry.target);
    if (before === undefined || before.width !== size.width || before.height !== size.height) changed = true;
    panelSizes.set(entry.target, size);
  }
  if (changed) scheduleDraw();
});

/** What the panels drew, by key: for their tooltips, and for tests
 * (`overbrainerViewer.panels`). */
/** @type {Map<string, import("./plot.js").Drawn>} */
const drawnPanels = new Map();
/** Each metric key's panel, kept between redraws. */
/** @type {Map<string, { figure: HTMLElement, canvas: HTMLCanvasElement }>} */
const panelViews = new Map();
Object.defineProperty(globalThis, "overbrainerViewer", { value: Object.freeze({ panels: drawnPanels }) });

/** The groups' keys of the runs' names (`groupKeys`) by the expression of its input: null
 * for none; an error said beside the input, and then no groups.
 * @param {string[]} names
 * @returns {(string | null)[] | null} */
function groupsAsked(names) {
  const asked = patternAsked("group", names);
  return asked instanceof Error ? null : asked;
}

/** The keys of the runs' names by the expression of the input `id` (`groupKeys`), a text the
 * core refuses said beside it (`#ID-problem`).
 * @param {string} id
 * @param {string[]} names
 * @returns {(string | null)[] | null | Error} */
function patternAsked(id, names) {
  const asked = groupKeys(core, $of(id, HTMLInputElement).value, names);
  const problem = $(`${id}-problem`);
  setHidden(problem, !(asked instanceof Error));
  const said = asked instanceof Error ? `not a regular expression: ${asked.message}` : "";
  if (problem.textContent !== said) problem.textContent = said;
  return asked;
}

const SVG = "http://www.w3.org/2000/svg";
/** The swatches made, one for each style: each entry of the legend takes a copy.
 * @type {Map<string, SVGSVGElement>} */
const swatches = new Map();

/** A swatch of a line's style (its colour, its dash pattern; a band's under it for a group),
 * a small SVG: a copy of the one made for that style (a legend of 10,000 runs draws a few
 * dozen styles, not 10,000 canvases).
 * @param {string} colour
 * @param {import("./plot.js").Dash} dash
 * @param {boolean} band
 * @returns {Node} */
function swatch(colour, dash, band) {
  const key = JSON.stringify([colour, dash, band]);
  let made = swatches.get(key);
  if (made === undefined) {
    made = document.createElementNS(SVG, "svg");
    const attributes = (/** @type {Element} */ node, /** @type {Record<string, string>} */ values) => {
      for (const [name, value] of Object.entries(values)) node.setAttribute(name, value);
      return node;
    };
    attributes(made, { class: "swatch", width: "28", height: "12", viewBox: "0 0 28 12", "aria-hidden": "true" });
    if (band) made.append(attributes(document.createElementNS(SVG, "rect"), { x: "0", y: "1", width: "28", height: "10", fill: colour, "fill-opacity": "0.2" }));
    const pattern = dashPattern(dash);
    const line = { x1: "0", y1: "6", x2: "28", y2: "6", stroke: colour, "stroke-width": band ? "2" : "1.5" };
    made.append(attributes(document.createElementNS(SVG, "line"), pattern.length > 0 ? { ...line, "stroke-dasharray": pattern.join(" ") } : line));
    swatches.set(key, made);
  }
  return made.cloneNode(true);
}

/** `parent`'s children made `children`, however many: through a fragment, one at a time (a
 * spread of 200,000 arguments overflows the stack).
 * @param {Element} parent
 * @param {Iterable<Node>} children */
function replaceAllChildren(parent, children) {
  const fragment = document.createDocumentFragment();
  for (const child of children) fragment.append(child);
  parent.replaceChildren(fragment);
}

/** The list of every metric key the runs' logs hold, each a button that adds the key to the
 * picker's patterns (or takes it out); pressed when picked.
 * @param {string[]} keys sorted
 * @param {Set<string>} picked */
function renderKeys(keys, picked) {
  const list = $("metric-keys");
  const signature = JSON.stringify([keys, [...picked]]);
  if (list.dataset.signature === signature) return; // unchanged: the page is not laid out again
  list.dataset.signature = signature;
  const labels = core.labelsOf(keys);
  const items = keys.map((key, at) => {
    const item = element("li");
    item.append(element("button", labels[at], { type: "button", "data-key": key, "aria-pressed": String(picked.has(key)) }));
    return item;
  });
  replaceAllChildren(list, items);
}

$("metric-keys").addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-key]") : null;
  if (!(button instanceof HTMLElement) || button.dataset.key === undefined) return;
  const key = button.dataset.key;
  const input = $of("metrics", HTMLInputElement);
  const patterns = core.patternsOf(input.value);
  input.value = (patterns.includes(key) ? patterns.filter((each) => each !== key) : [...patterns, key]).join(",");
  scheduleDraw();
});

/** Every run's style (run or group i in the order shown: plot's `style(i)`), the legend, and
 * one panel per picked key, under its prefix's heading. */
function redraw() {
  const shownRuns = runs.filter(runShown);
  const names = shownRuns.map((run) => run.name);
  const entries = core.groupEntries(names.length, groupsAsked(names));
  const legend = entries.map((entry, index) => {
    const look = style(index);
    for (const member of entry.members) {
      const run = shownRuns[member];
      if (run.colour === look.colour) continue; // a style set again would restyle every card
      run.colour = look.colour;
      run.view.view.style.setProperty("--colour", look.colour);
    }
    const grouped = entry.key !== null;
    const count = entry.members.length;
    const text = grouped ? `${core.labelOf(entry.key ?? "")} (${count} ${count === 1 ? "run" : "runs"})` : core.labelOf(shownRuns[entry.members[0]].name);
    const members = entry.members.map((member) => shownRuns[member]);
    const id = grouped ? `group:${entry.key}` : `run:${members[0].name}`;
    return { entry, members, ...look, text, grouped, id, hidden: hiddenEntries.has(id) };
  });
  const signature = JSON.stringify(legend.map(({ text, colour, dash, grouped, id, hidden }) => [text, colour, dash, grouped, id, hidden]));
  if ($("legend").dataset.signature !== signature) {
    $("legend").dataset.signature = signature;
    $("legend").replaceChildren(
    ...legend.map(({ text, colour, dash, grouped, id, hidden }) => {
      const item = element("li", null, { "data-colour": colour, "data-dash": dash, "data-group": String(grouped), "data-hidden": String(hidden) });
      const button = element("button", null, { type: "button", "data-entry": id, "aria-pressed": String(!hidden), title: hidden ? "hidden: click to show" : "click to hide" });
      button.append(swatch(colour, dash, grouped), element("span", text));
      item.append(button);
      return item;
    }),
    );
  }

  const found = new Set();
  for (const run of runs) {
    run.series.takeKeys(run.status, run.lines);
    for (const key of run.series.keys) found.add(key);
  }
  const picked = core.pickKeys(core.patternsOf($of("metrics", HTMLInputElement).value), found);
  widenDigests(picked);
  // the points of the keys shown only, from each run's digest, or, zoomed in, from its digest
  // of those steps once it is read (the whole run's meanwhile: its spikes and markers are
  // there too, at a coarser width)
  /** @type {Map<Run, Series>} */
  const shownSeries = new Map();
  for (const run of runs) {
    run.series.take(run.status, run.lines, picked);
    const zoomed = run.zoomed;
    if (zoom !== null && zoomed && zoomed.done && zoomed.range === zoom) {
      zoomed.series.take(zoomed.status, zoomed.fed, picked);
      shownSeries.set(run, zoomed.series);
    } else shownSeries.set(run, run.series);
  }
  renderKeys(core.pickKeys(["*"], found), new Set(picked));
  setHidden($("plot-box"), runs.length === 0);
  setHidden($("no-panels"), picked.length > 0 || found.size === 0);

  // one x-axis for every panel, as plot shares it; on a time axis, each run's points against
  // their times (less the run's first, since it began)
  const axis = axisAsked();
  /** @type {Map<Run, number>} */
  const origins = new Map();
  if (axis !== "step") {
    for (const run of shownRuns) {
      let origin = Infinity;
      for (const points of (shownSeries.get(run) ?? run.series).points.values()) {
        for (let i = 0; i < points.length; i += 1) if (points.times[i] < origin) origin = points.times[i];
      }
      origins.set(run, origin);
    }
  }
  /** @type {Map<Points, Points>} each run's points against the axis, made once a redraw */
  const placed = new Map();
  const onAxis = (/** @type {Run} */ run, /** @type {Points} */ points) => {
    let found = placed.get(points);
    if (found === undefined) placed.set(points, (found = againstAxis(points, axis, origins.get(run) ?? 0)));
    return found;
  };
  let first = Infinity;
  let last = -Infinity;
  for (const run of shownRuns) {
    for (const key of picked) {
      const points = (shownSeries.get(run) ?? run.series).points.get(key);
      if (points === undefined) continue;
      const against = onAxis(run, points);
      first = Math.min(first, against.first);
      last = Math.max(last, against.last);
    }
  }
  /** @type {[number, number]} */
  const xRange = zoom !== null ? [zoom[0], zoom[1]] : !(last >= first) ? [0, 1] : last > first ? [first, last] : [first - 1, last + 1];
  const log = $of("log", HTMLInputElement).checked;
  const weight = smoothingWeight();

  /** @type {HTMLElement[]} */
  const groups = [];
  // a panel keeps its record (its tooltip) until it is drawn again; one no longer shown goes
  for (const key of [...drawnPanels.keys()]) if (!picked.includes(key)) drawnPanels.delete(key);
  const drawing = [];
  const laidOut = core.sections(picked);
  // the panels' elements made again only when the keys shown or their headings change
  const layout = JSON.stringify(laidOut);
  const relaid = $("panels").dataset.layout !== layout;
  $("panels").dataset.layout = layout;
  for (const { heading, keys } of laidOut) {
    const group = element("section", null, { class: "panel-group", "data-heading": heading });
    if (heading !== "") group.append(element("h3", core.labelOf(heading)));
    const grid = element("div", null, { class: "panels" });
    group.append(grid);
    for (const key of keys) {
      let view = panelViews.get(key);
      if (view === undefined) {
        const figure = element("figure", null, { class: "panel", "data-key": key });
        const canvas = document.createElement("canvas");
        const label = core.labelOf(key);
        canvas.setAttribute("aria-label", `${label} against step`);
        figure.append(element("figcaption", label), canvas);
        resized.observe(canvas);
        view = { figure, canvas };
        panelViews.set(key, view);
      }
      if (relaid) grid.append(view.figure);
      drawing.push({ key, canvas: view.canvas });
    }
    groups.push(group);
  }
  if (relaid) replaceAllChildren($("panels"), groups);
  for (const [key, view] of [...panelViews]) {
    if (picked.includes(key)) continue;
    resized.unobserve(view.canvas);
    panelViews.delete(key);
  }

  // each panel at its size of the last layout; a new one measured (one layout, for them all)
  const sizes = drawing.map(({ canvas }) => {
    let size = panelSizes.get(canvas);
    if (size === undefined) panelSizes.set(canvas, (size = { width: canvas.clientWidth, height: canvas.clientHeight }));
    return size;
  });
  return drawingPanels(drawing, sizes, legend.filter((entry) => !entry.hidden), log, xRange, weight, shownSeries, axis, onAxis);
}

/** The panels of a redraw, one after the other, each drawn a slice at a time (it yields
 * between slices), and its record kept for its tooltip. A panel no longer shown when its
 * turn comes (the runs cleared, its metric unpicked meanwhile) is left.
 * @param {{ key: string, canvas: HTMLCanvasElement }[]} drawing
 * @param {{ width: number, height: number }[]} sizes
 * @param {{ members: Run[], colour: string, dash: import("./plot.js").Dash, text: string, grouped: boolean }[]} legend
 *   the entries shown (not hidden by a click on the legend), each run or group's runs
 * @param {boolean} log
 * @param {[number, number]} xRange
 * @param {number} weight the smoothing's (0: none)
 * @param {Map<Run, Series>} shownSeries each run's series drawn
 * @param {import("./series.js").Axis} axis
 * @param {(run: Run, points: Points) => Points} onAxis a run's points against the axis
 * @returns {Generator<void, void, void>} */
function* drawingPanels(drawing, sizes, legend, log, xRange, weight, shownSeries, axis, onAxis) {
  const shown = (/** @type {string} */ key, /** @type {HTMLCanvasElement} */ canvas) => panelViews.get(key)?.canvas === canvas;
  for (const [at, { key, canvas }] of drawing.entries()) {
    if (!shown(key, canvas)) continue;
    /** @type {import("./plot.js").Line[]} */
    const lines = [];
    /** @type {import("./plot.js").Banded[]} */
    const bands = [];
    for (const { members: entryRuns, colour, dash, text, grouped } of legend) {
      const members = entryRuns.map((run) => {
        const points = (shownSeries.get(run) ?? run.series).points.get(key);
        return points === undefined ? null : onAxis(run, points);
      });
      entryRuns.forEach((run, at) => {
        const points = members[at];
        if (points === null) return;
        // faint behind their group's band, which is drawn against the step only
        const faint = grouped && axis === "step";
        if (weight > 0) lines.push({ label: run.name, colour, dash, points: smoothed(points, weight), faint, raw: points });
        else lines.push({ label: run.name, colour, dash, points, faint });
      });
      // a group's band is of its runs' values at each step: drawn against the step only
      if (grouped && axis === "step" && members.some((points) => points !== null)) bands.push({ label: text, colour, dash, band: bandOf(core, members) });
    }
    const drawn = yield* drawPanel(canvas, { key, lines, bands, log, xRange, fit: zoom !== null, axis }, sizes[at]);
    if (shown(key, canvas)) drawnPanels.set(key, drawn);
  }
}

/** The x-axis asked for (its select).
 * @returns {import("./series.js").Axis} */
function axisAsked() {
  const value = $of("x-axis", HTMLSelectElement).value;
  return AXES.find((each) => each === value) ?? "step";
}
$("x-axis").addEventListener("change", () => zoomTo(null));

/** The steps the panels are zoomed in to, `[first, last]` (on a time axis, the times), or
 * null: every step. */
/** A run's Status: its state, its check, and its series digested for the panels, of the keys
 * `digestPatterns` picks.
 * @param {string} path */
function statusOf(path) {
  return new core.Status({ name: path, digest: DIGEST, check: true, keys: digestPatterns });
}

/** The keys `picked` for the panels digested: when one is outside `digestPatterns`, the metrics
 * field's patterns join them, and every run is read again for their series (the panels show
 * the keys digested meanwhile).
 * @param {string[]} picked */
function widenDigests(picked) {
  const digested = core.patternsOf(digestPatterns);
  if (picked.every((key) => core.pickKeys(digested, [key]).length > 0)) return;
  const asked = core.patternsOf($of("metrics", HTMLInputElement).value);
  digestPatterns = [...new Set([...digested, ...asked])].join(",");
  for (const run of runs) void readAgain(run);
  if (zoom !== null) zoomTo(zoom);
}

/** A run read again from its bytes for the keys of `digestPatterns`, into a new Status that
 * takes the place of its Status once it has read what that one read: a file opened, once it
 * is read whole; a run served, from its start to where its reading is (its next bytes then
 * go to the new Status). A run not read yet is only given a new Status; a run whose file the
 * server no longer has, and a fault, leave the run as it was.
 * @param {Run} run */
async function readAgain(run) {
  if (run.digested === digestPatterns) return;
  const following = run.following;
  const started = following === undefined ? run.done || queue.indexOf(run) === -1 : following.id !== null;
  if (!started) {
    run.status.close();
    run.status = statusOf(run.path);
    run.digested = digestPatterns;
    return;
  }
  if (following === undefined && !run.done) return; // being read: read again once it is (readRun)
  // a file removed from the server: the run is kept as last read, with the keys it had
  if (following !== undefined && (following.removed || following.entry.metrics === null)) return;
  run.again?.close();
  const again = statusOf(run.path);
  const digested = digestPatterns;
  run.again = again;
  readingAgain += 1;
  try {
    const file = run.files.metrics;
    if (file !== null && (following === undefined || following.ended)) {
      const raw = fileChunks(file, () => {});
      const cut = { short: false };
      const chunks = file.name.endsWith(".gz") ? gunzipped(run.path, raw, cut) : raw;
      let read = 0;
      for await (const chunk of chunks) {
        if (run.again !== again) return;
        again.feed(chunk);
        read += chunk.length;
        await yieldToPage();
      }
      if (cut.short) again.gzipCut(read);
      again.end();
    } else if (following !== undefined && server !== null) {
      for (let offset = 0; offset < following.offset; ) {
        const id = following.id;
        if (id === null) break;
        const read = await server.read(id, offset);
        if (run.again !== again || read.kind !== "bytes") return;
        const data = read.data.subarray(0, Math.max(0, following.offset - offset));
        again.feed(data);
        offset += data.length;
        await yieldToPage();
      }
    }
    if (run.again !== again) return;
    // what the run's reading took of these already: its findings and rejected lines
    again.findings();
    again.rejected();
    run.status.close();
    run.status = again;
    run.again = null;
    run.digested = digested;
    run.series = new Series();
  } catch {
    if (run.again === again) {
      again.close();
      run.again = null;
    }
  } finally {
    readingAgain -= 1;
    scheduleDraw();
  }
}

/** @type {[number, number] | null} */
let zoom = null;

/** The panels zoomed in to `range` (null: every step again): each run shown read again, in
 * turn, for its digest of those steps; the whole run's digest drawn meanwhile. */
/** @param {[number, number] | null} range */
function zoomTo(range) {
  zoom = range;
  for (const run of runs) dropZoomed(run);
  const said = $("zoomed");
  setHidden(said, range === null);
  const axis = axisAsked();
  const span = range === null ? 0 : range[1] - range[0];
  const [from, to] = range === null ? ["", ""] : axis === "step" ? range.map(thousands) : range.map((x) => axisText(axis, x, span));
  said.textContent = range === null ? "" : `${axis === "step" ? "steps" : "from"} ${from} to ${to}: double-click a panel to see every step`;
  said.dataset.first = range === null ? "" : String(range[0]);
  said.dataset.last = range === null ? "" : String(range[1]);
  scheduleDraw();
  if (range !== null && axisAsked() === "step") void zoomEach(range);
}

/** @param {Run} run */
function dropZoomed(run) {
  run.zoomed?.status.close();
  run.zoomed = null;
}

/** Every run shown read again for `range`, one after the other, while the panels stay zoomed
 * in to it; the panels drawn again after each.
 * @param {[number, number]} range */
async function zoomEach(range) {
  for (const run of runs.filter(runShown)) {
    if (zoom !== range) return;
    await readZoomed(run, range);
    scheduleDraw();
  }
}

/** A run's digest of the steps of `range`, read again from its bytes: a file opened, read
 * whole; a run served, from its start to where its reading is (and, from then on, each chunk
 * of it as it comes, by its reading). A fault leaves the run drawn from its whole digest.
 * @param {Run} run
 * @param {[number, number]} range */
async function readZoomed(run, range) {
  /** @type {Zoomed} */
  const zoomed = { range, status: new core.Status({ name: run.path, digest: DIGEST, steps: range, keys: digestPatterns }), series: new Series(), fed: 0, done: false };
  dropZoomed(run);
  run.zoomed = zoomed;
  const feed = (/** @type {Uint8Array} */ chunk) => {
    zoomed.status.feed(chunk);
    zoomed.fed += 1;
  };
  try {
    const file = run.files.metrics;
    const following = run.following;
    if (file !== null && (following === undefined || following.ended)) {
      const raw = fileChunks(file, () => {});
      const chunks = file.name.endsWith(".gz") ? gunzipped(run.path, raw, { short: false }) : raw;
      for await (const chunk of chunks) {
        if (run.zoomed !== zoomed) return;
        feed(chunk);
        await yieldToPage();
      }
      zoomed.status.end();
    } else if (following !== undefined && server !== null) {
      // the bytes its Status has read; caught up, the next ones come by its reading
      for (let offset = 0; offset < following.offset; ) {
        const id = following.id;
        if (id === null) break;
        const read = await server.read(id, offset);
        if (run.zoomed !== zoomed || read.kind !== "bytes") return;
        const data = read.data.subarray(0, Math.max(0, following.offset - offset));
        feed(data);
        offset += data.length;
      }
    }
    if (run.zoomed === zoomed) zoomed.done = true;
  } catch {
    if (run.zoomed === zoomed) dropZoomed(run);
  }
}

/** A drag across a panel under way: the canvas, what it drew, where it began and is now (CSS
 * pixels of the canvas). */
/** @type {{ canvas: HTMLCanvasElement, drawn: import("./plot.js").Drawn, from: number, to: number } | null} */
let dragging = null;

/** The step at pixel column `px` of a drawn panel.
 * @param {import("./plot.js").Drawn} drawn
 * @param {number} px */
function stepAt(drawn, px) {
  const [first, last] = drawn.xRange;
  return first + ((px - drawn.box.left) / drawn.box.width) * (last - first);
}

/** The selection of a drag, shown over its panel. */
function showSelection() {
  const selection = $("selection");
  if (dragging === null) {
    setHidden(selection, true);
    return;
  }
  const { canvas, drawn, from, to } = dragging;
  const place = canvas.getBoundingClientRect();
  const box = $("plot-box").getBoundingClientRect();
  selection.style.left = `${place.left - box.left + Math.min(from, to)}px`;
  selection.style.width = `${Math.abs(to - from)}px`;
  selection.style.top = `${place.top - box.top + drawn.box.top}px`;
  selection.style.height = `${drawn.box.height}px`;
  setHidden(selection, false);
}

$("panels").addEventListener("mousedown", (event) => {
  if (event.button !== 0 || !(event.target instanceof HTMLCanvasElement)) return;
  const canvas = event.target;
  const figure = canvas.closest("figure[data-key]");
  const drawn = figure instanceof HTMLElement && figure.dataset.key !== undefined ? drawnPanels.get(figure.dataset.key) : undefined;
  if (drawn === undefined) return;
  const px = event.clientX - canvas.getBoundingClientRect().left;
  if (px < drawn.box.left || px > drawn.box.left + drawn.box.width) return;
  event.preventDefault();
  dragging = { canvas, drawn, from: px, to: px };
  showSelection();
});
window.addEventListener("mousemove", (event) => {
  if (dragging === null) return;
  const { box } = dragging.drawn;
  const px = event.clientX - dragging.canvas.getBoundingClientRect().left;
  dragging.to = Math.min(Math.max(px, box.left), box.left + box.width);
  showSelection();
});
window.addEventListener("mouseup", () => {
  if (dragging === null) return;
  const { drawn, from, to } = dragging;
  dragging = null;
  showSelection();
  if (Math.abs(to - from) < 4) return; // a click, not a drag
  if (drawn.axis !== "step") {
    // a time axis: the range drawn from the runs' whole digests
    zoomTo([stepAt(drawn, Math.min(from, to)), stepAt(drawn, Math.max(from, to))]);
    return;
  }
  const first = Math.max(0, Math.floor(stepAt(drawn, Math.min(from, to))));
  const last = Math.min(Number.MAX_SAFE_INTEGER, Math.max(first, Math.ceil(stepAt(drawn, Math.max(from, to)))));
  zoomTo([first, last]);
});
$("panels").addEventListener("dblclick", (event) => {
  if (event.target instanceof HTMLCanvasElement && zoom !== null) zoomTo(null);
});

/** The tooltip of the panel under the pointer: the nearest step's value of each line there.
 * @param {MouseEvent} event */
function showTooltip(event) {
  const tooltip = $("tooltip");
  const figure = event.target instanceof Element ? event.target.closest("figure[data-key]") : null;
  const canvas = figure?.querySelector("canvas");
  const drawn = figure instanceof HTMLElement && figure.dataset.key !== undefined ? drawnPanels.get(figure.dataset.key) : undefined;
  if (!canvas || drawn === undefined || event.target !== canvas) {
    tooltip.hidden = true;
    return;
  }
  const place = canvas.getBoundingClientRect();
  const told = tooltipAt(drawn, event.clientX - place.left);
  if (told === null) {
    tooltip.hidden = true;
    return;
  }
  const rows = told.rows.map(([name, value]) => {
    const row = element("div");
    row.append(element("span", `${name}: `, { class: "name" }), element("span", value));
    return row;
  });
  const where = drawn.axis === "step" ? `step ${thousands(told.step)}` : axisText(drawn.axis, told.step, drawn.xRange[1] - drawn.xRange[0]);
  tooltip.replaceChildren(element("div", `${core.labelOf(drawn.key)} at ${where}`, { class: "step" }), ...rows);
  tooltip.hidden = false;
  const box = $("plot-box").getBoundingClientRect();
  tooltip.style.left = `${Math.min(event.clientX - box.left + 14, box.width - 260)}px`;
  tooltip.style.top = `${event.clientY - box.top + 14}px`;
}
$("panels").addEventListener("mousemove", showTooltip);
$("panels").addEventListener("mouseleave", () => {
  $("tooltip").hidden = true;
});
for (const id of ["metrics", "group"]) $(id).addEventListener("input", scheduleDraw);
$("log").addEventListener("change", scheduleDraw);

/** The legend's entries hidden by a click (a run by its name, a group by its key): their
 * lines not drawn, the entry kept in the legend, struck out. */
/** @type {Set<string>} */
const hiddenEntries = new Set();
$("legend").addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button[data-entry]") : null;
  if (!(button instanceof HTMLElement) || button.dataset.entry === undefined) return;
  const id = button.dataset.entry;
  if (hiddenEntries.has(id)) hiddenEntries.delete(id);
  else hiddenEntries.add(id);
  scheduleDraw();
});

/** The smoothing's weight, from its slider (0: the lines as logged), said beside it. */
function smoothingWeight() {
  const weight = Number($of("smoothing", HTMLInputElement).value);
  const said = weight.toFixed(3);
  if ($("smoothing-value").textContent !== said) $("smoothing-value").textContent = said;
  return Number.isFinite(weight) ? Math.min(Math.max(weight, 0), 0.999) : 0;
}
$("smoothing").addEventListener("input", scheduleDraw);

/** The run filter's runs: those whose names its pattern finds (the core's `matchPattern`,
 * a regular expression found anywhere in the name, as `--only` finds it), by the names and the
 * pattern they were matched at; null (every run) for an empty pattern. A pattern the core
 * refuses is said beside the input, and then every run is shown. */
let runFilter = { key: "", matched: /** @type {Set<Run> | null} */ (null) };
/** Counts the changes of the runs' names (a run added, renamed, the runs cleared). */
let namesChanged = 0;

/** @returns {Set<Run> | null} */
function filteredRuns() {
  const pattern = $of("run-filter", HTMLInputElement).value;
  const key = `${namesChanged} ${runs.length} ${pattern}`;
  if (runFilter.key === key) return runFilter.matched;
  const asked = patternAsked("run-filter", runs.map((run) => run.name));
  const matched = asked === null || asked instanceof Error ? null : new Set(runs.filter((_, at) => asked[at] !== null));
  runFilter = { key, matched };
  return matched;
}

/** Whether a run is shown (its card, its row, its lines): its name passes the run filter
 * and, when only the runs with alerts are asked for, it has one.
 * @param {Run} run */
function runShown(run) {
  if (alertedOnly() && !alerted.has(run)) return false;
  const matched = filteredRuns();
  return matched === null || matched.has(run);
}

/** Every run's card shown or hidden by the filters, the table and the panels made again. */
function filtersChanged() {
  for (const run of runs) setHidden(run.view.view, !runShown(run));
  if (!$("table-box").hidden) renderTable();
  scheduleDraw();
}
$("run-filter").addEventListener("input", filtersChanged);

const runTable = new RunTable($of("run-table", HTMLTableElement), core);
let tablePending = false;
let tableAt = -Infinity;
/** @type {ReturnType<typeof setTimeout> | null} a table put off while files are read */
let tableLater = null;

/** What the last table cost to render and lay out, in ms. */
let tableCost = 0;

/** The table of runs redrawn on the next frame, when shown; while files are read, at most
 * every quarter of a second, and never more than a fifth of the time (a table of 1,000 runs
 * costs its layout, and reading goes on meanwhile). */
function scheduleTable() {
  if (tablePending || $("table-box").hidden) return;
  const wait = loading || reading > 0 ? Math.max(250, tableCost * 4) - (performance.now() - tableAt) : 0;
  if (wait > 0) {
    tableLater ??= setTimeout(() => {
      tableLater = null;
      scheduleTable();
    }, wait);
    return;
  }
  tablePending = true;
  requestAnimationFrame(() => {
    tablePending = false;
    const start = performance.now();
    renderTable();
    // the layout the table asks for is counted: it is most of a large table's cost
    void $("run-table").offsetHeight;
    tableAt = performance.now();
    tableCost = tableAt - start;
  });
}

function renderTable() {
  /** @type {{ name: string, record: StatusReport }[]} */
  const rows = [];
  for (const run of runs) {
    if (run.record === null || !runShown(run)) continue;
    rows.push({ name: run.name, record: run.record });
  }
  runTable.render(rows);
  $("run-table").dataset.rendered = String(Number($("run-table").dataset.rendered || 0) + 1);
}

/** The runs shown as cards or as one table.
 * @param {string} view */
function showView(view) {
  const table = view === "table";
  $("table-box").hidden = !table;
  $("runs").hidden = table;
  document.body.dataset.view = table ? "table" : "cards";
  if (table) renderTable();
  else for (const run of runs) if (run.stale) void tell(run);
}

/** Whether the runs are shown as cards (else as the table: the cards hidden). */
const cardsShown = () => document.body.dataset.view !== "table";
for (const input of document.querySelectorAll("input[name=view]")) {
  input.addEventListener("change", () => {
    if (input instanceof HTMLInputElement && input.checked) showView(input.value);
  });
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
  const badges = element("p", null, { class: "badges", "aria-label": "alerts" });
  badges.hidden = true;
  view.append(badges);
  const status = element("table", null, { class: "status" });
  view.append(status);
  const summary = element("table", null, { class: "summary" });
  summary.hidden = true;
  view.append(summary);
  const errors = element("section", null, { class: "errors" });
  errors.hidden = true;
  view.append(errors);
  $("runs").append(view);
  return { view, badges, status, summary, errors, listed: 0 };
}

/** The runs that have an alert now (their records' `alerts`), counted beside the filter. */
const alerted = new Set();

/** Only the runs with an alert shown (the filter checked): the cards of the others hidden,
 * their rows left out of the table. */
const alertedOnly = () => $of("alerted-only", HTMLInputElement).checked;

/** A run's badges: one per alert of its record, the kind's name, the core's message as its
 * title (the one-run screen's alerts row says them all); its card hidden by the filter when it
 * has none.
 * @param {Run} run
 * @param {StatusReport} record */
function renderAlerts(run, record) {
  const alerts = record.alerts ?? [];
  if (alerts.length > 0) alerted.add(run);
  else alerted.delete(run);
  $("alerted-count").textContent = thousands(alerted.size);
  const { badges, view } = run.view;
  setHidden(view, !runShown(run));
  view.classList.toggle("alerted", alerts.length > 0);
  const signature = JSON.stringify(alerts.map(({ kind, step, message }) => [kind, step, message]));
  if (badges.dataset.signature === signature) return; // unchanged: the card is not laid out again
  badges.dataset.signature = signature;
  badges.hidden = alerts.length === 0;
  badges.replaceChildren(
    ...alerts.map(({ kind, message }) => element("span", kind, { class: "badge", "data-kind": kind, title: message })),
  );
}

$("alerted-only").addEventListener("change", filtersChanged);

/** The training's one-shot values (the record's `summary`: the latest `end` line's), one row
 * each: `.4g`, the exact value as the title; a non-finite value's word and null as written.
 * @param {HTMLElement} table
 * @param {import("overbrainer-contract/types/status-report.js").Scalars | null} summary */
function renderSummary(table, summary) {
  const signature = JSON.stringify(summary);
  if (table.dataset.signature === signature) return; // unchanged: the page is not laid out again
  table.dataset.signature = signature;
  table.hidden = summary === null || Object.keys(summary).length === 0;
  if (summary === null) {
    table.replaceChildren();
    return;
  }
  const body = element("tbody");
  for (const [key, value] of Object.entries(summary)) {
    const row = element("tr");
    const text = typeof value === "number" ? core.formatNumber(value, ".4g") : String(value);
    const cell = element("td", text, { "data-key": key });
    if (typeof value === "number") cell.title = String(value);
    row.append(element("th", key), cell);
    body.append(row);
  }
  table.replaceChildren(element("caption", "summary (the end line's)"), body);
}

/** The exact value behind a rounded row of the screen (its title), or null.
 * @param {StatusReport} record
 * @param {string} label
 * @returns {string | null} */
function exactOf(record, label) {
  if (label === "loss") return record.loss === null ? null : String(record.loss.value);
  if (label === "eval loss") return record.eval_loss === null ? null : String(record.eval_loss.value);
  if (label === "learning rate") return record.learning_rate === null ? null : String(record.learning_rate);
  const counting = label === "eta" && record.eta_remaining_seconds !== null && !record.ended && !record.eta_stale;
  return counting ? String(record.eta_remaining_seconds) : null;
}

/** A count as the command line writes it, digits grouped by three: the core's.
 * @param {number | bigint} count
 * @returns {string} */
const thousands = (count) => core.formatNumber(Number(count), ",");

/** The run's status at this page's now: the core's record, told again at each call, a run
 * folder's with its side files (the snapshot row's words the core's, as `status` says them);
 * its card told too, unless `card` is false (the record alone, for the table: the card is
 * marked behind it, and told when the cards are shown).
 * @param {Run} run
 * @param {boolean} [card]
 * @returns {Promise<StatusReport>} */
async function renderStatus(run, card = true) {
  if (run.side !== null && run.sideFiles === null) run.sideFiles = await sideFiles(run.side);
  const record = run.status.report(Date.now() / 1000, run.name, run.sideFiles ?? undefined);
  run.record = record;
  run.lines = record.lines;
  scheduleTable();
  run.stale = !card;
  if (!card) return record;
  const body = element("tbody");
  for (const [label, words] of core.screen(record)) {
    const title = exactOf(record, label);
    const row = element("tr");
    row.append(element("th", label));
    const cell = element("td", words, { "data-field": label.replace(" ", "_") });
    if (title !== null) cell.title = title;
    row.append(cell);
    body.append(row);
  }
  run.view.status.replaceChildren(body);
  renderAlerts(run, record);
  renderSummary(run.view.summary, record.summary ?? null);
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

/** A check's records into a run's findings: the first LISTED errors kept, the rest counted,
 * the summary once it comes (flat memory whatever the file holds).
 * @param {Findings} found
 * @param {import("overbrainer-contract/core").CheckRecord[]} records
 * @returns {boolean} whether they changed */
function takeFindings(found, records) {
  for (const record of records) {
    if (record.type === "file") found.summary = record;
    else if (record.severity !== "error") continue;
    else if (found.listed.length < LISTED) found.listed.push(record);
    else found.more += 1;
  }
  return records.length > 0;
}

/** The excerpts of the run's lines the core rejected in the bytes just fed (the first
 * LISTED), while the excerpts have their bytes; then those bytes let go.
 * @param {Run} run
 * @param {Excerpts} excerpts */
function takeRejected(run, excerpts) {
  for (const line of run.status.rejected()) {
    if (run.excerpts.size <= LISTED) run.excerpts.set(line, excerpts.text(line));
  }
  excerpts.release();
}

/** A run's file read once: its bytes to the core's Status (its state, and its series
 * digested for the plot) and check as they are read, the excerpts of the lines listed kept.
 * @param {Run} run */
async function readRun(run) {
  const file = run.files.metrics;
  if (file === null) throw new Error(`${run.path}: no file to read`);
  const excerpts = new Excerpts(SHOWN);
  /** @type {Findings} */
  const found = { listed: [], more: 0, summary: null };
  const took = (/** @type {Uint8Array} */ chunk) => {
    progress.done += chunk.length;
  };
  const cut = { short: false };
  const raw = fileChunks(file, took);
  const chunks = file.name.endsWith(".gz") ? gunzipped(run.path, raw, cut) : raw;
  let read = 0;
  try {
    for (;;) {
      if (paused) await paused.promise;
      const next = await chunks.next();
      if (next.done) break;
      const chunk = next.value;
      read += chunk.length;
      run.status.feed(chunk);
      takeFindings(found, run.status.findings());
      excerpts.add(chunk, run.excerpts.size <= LISTED);
      takeRejected(run, excerpts);
      progress.chunks += 1;
      await renderStatus(run);
      showProgress(run);
      scheduleDraw();
      await yieldToPage();
    }
    if (cut.short) run.status.gzipCut(read);
    run.status.end();
    takeRejected(run, excerpts);
    takeFindings(found, run.status.findings());
    run.findings = found;
  } finally {
    run.done = true;
  }
  if (run.digested !== digestPatterns) void readAgain(run); // keys asked for while it was read
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

/** Every run named again among the runs opened (names.js): a run opened later may move the
 * folder they have in common. A run renamed has its card and status told again. */
function rename() {
  const names = core.runNames(runs.map((run) => run.unit));
  runs.forEach((run, index) => {
    if (run.name === names[index]) return;
    run.name = names[index];
    namesChanged += 1;
    run.view.view.dataset.run = run.name;
    const heading = run.view.view.querySelector("h2");
    if (heading !== null) heading.textContent = run.name;
    if (run.done) renderStatus(run);
  });
}

/** A run to read, nothing read of it yet, with its card on the page.
 * @param {string} name
 * @param {import("overbrainer-contract/core").Unit} unit
 * @param {string} path its metrics file as the records name it
 * @param {File | null} metrics the file (null for a run served, until it is read whole)
 * @param {Side | null} side
 * @param {string} colour
 * @returns {Run} */
function newRun(name, unit, path, metrics, side, colour) {
  return {
    name,
    unit,
    path,
    files: { metrics },
    side,
    status: statusOf(path),
    digested: digestPatterns,
    record: null,
    series: new Series(),
    findings: { listed: [], more: 0, summary: null },
    excerpts: new Map(),
    lines: 0,
    colour,
    done: false,
    sideFiles: null,
    view: runView(name, colour),
  };
}

/** Runs to read, each a card on the page, read in turn.
 * @param {Found[]} found */
function open(found) {
  const names = core.runNames([...runs.map((run) => run.unit), ...found.map((each) => each.unit)]).slice(runs.length);
  rename();
  found.forEach((each, index) => {
    const { colour } = style(runs.length);
    const name = names[index];
    /** @type {Run} */
    const run = newRun(name, each.unit, each.path, each.metrics, each.side, colour);
    runs.push(run);
    queue.push(run);
    progress.total += each.metrics.size;
    renderStatus(run);
  });
  rename();
  scheduleDraw();
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
  const found = loose.map((file) => ({ unit: { unit: file.name, placed: false }, path: file.name, metrics: file, side: null }));
  /** @type {Map<string, Record<string, File>>} */
  const folders = new Map();
  for (const [path, file] of inFolders) {
    const cut = path.lastIndexOf("/");
    const folder = cut < 0 ? "" : path.slice(0, cut);
    let files = folders.get(folder);
    if (files === undefined) folders.set(folder, (files = {}));
    files[path.slice(cut + 1)] = file;
  }
  const listed = [...folders];
  const order = core.naturalOrder(listed.map(([folder]) => folder)); // one call of the core
  for (const [folder, files] of order.map((at) => listed[at])) {
    const metrics = files[METRICS_FILE] || files[METRICS_GZ];
    if (!metrics) continue;
    const path = folder ? `${folder}/${metrics.name}` : metrics.name;
    found.push({
      unit: { unit: core.unitOf(path, METRICS_NAMES), placed: true },
      path,
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
  zoomTo(null);
  for (const run of runs) run.status.close();
  runs.length = 0;
  namesChanged += 1;
  alerted.clear();
  $("alerted-count").textContent = "0";
  progress.total = 0;
  progress.done = 0;
  $("runs").replaceChildren();
  $("panels").replaceChildren();
  delete $("panels").dataset.layout;
  for (const view of panelViews.values()) resized.unobserve(view.canvas);
  panelViews.clear();
  drawnPanels.clear();
  $("legend").replaceChildren();
  delete $("legend").dataset.signature;
  $("metric-keys").replaceChildren();
  delete $("metric-keys").dataset.signature;
  $("plot-box").hidden = true;
  if (!$("table-box").hidden) renderTable();
  $("problem").hidden = true;
});

// --- runs served (`overbrainer-contract serve`): listed, read and followed ---

/** How often the listing is asked for, in ms (the server scans at most as often): a line
 * appended shows within this, the server's scan and one reading. The readers wait for a
 * listing that changed, and look again at least every IDLE_WAIT ms. */
const LISTING_EVERY = 250;
const IDLE_WAIT = 1000;

/** What a followed run's card says of its file: the latest change, in `watch`'s words.
 * @param {Run} run
 * @param {string} text */
function sayChange(run, text) {
  let said = run.view.view.querySelector("p.change");
  if (said === null) {
    said = element("p", null, { class: "change", role: "status" });
    run.view.view.insertBefore(said, run.view.status);
  }
  said.textContent = text;
}

/** The run's bytes from here on, to a fresh reading of it (a new Status and series: the run
 * read from its start).
 * @param {Run} run
 * @returns {Reading} */
function startReading(run) {
  const excerpts = new Excerpts(SHOWN);
  /** @type {Findings} */
  const found = { listed: [], more: 0, summary: null };
  run.findings = found;
  let pending = false;
  return {
    feed(chunk) {
      run.status.feed(chunk);
      if (run.zoomed?.done) {
        run.zoomed.status.feed(chunk);
        run.zoomed.fed += 1;
      }
      const changed = takeFindings(found, run.status.findings());
      excerpts.add(chunk, run.excerpts.size <= LISTED);
      takeRejected(run, excerpts);
      if (!changed || pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        if (run.record !== null) renderFindings(run, run.record);
      });
    },
  };
}

/** The run read again from its start: what was read of it dropped.
 * @param {Run} run
 * @param {Following} following */
function restart(run, following) {
  dropZoomed(run);
  following.reading = null;
  following.offset = 0;
  run.status.close();
  run.again?.close();
  run.again = null;
  run.status = statusOf(run.path);
  run.digested = digestPatterns;
  run.series = new Series();
  run.excerpts = new Map();
  run.findings = { listed: [], more: 0, summary: null };
  run.record = null;
  if (zoom !== null) void readZoomed(run, zoom); // read from its start again, as the run is
}

/** A run of the listing, new to the page: its card and its row, read by the readers.
 * @param {import("./served.js").ServedRun} entry
 * @returns {Run} */
function servedRun(entry) {
  const { colour } = style(runs.length);
  const run = newRun(entry.name, { unit: entry.name, placed: true }, entry.path, null, { proof: null, request: null }, colour);
  run.following = { entry, id: null, offset: 0, side: "", reading: null, removed: false, busy: false, handled: null, ended: false };
  runs.push(run);
  // its row now; its card once a reader has read it (every turn tells it), or the cards shown
  renderStatus(run, cardsShown());
  return run;
}

/** The side files of an entry, as a signature: read again when it changes.
 * @param {import("./served.js").ServedRun} entry */
function sideSignature(entry) {
  return JSON.stringify([entry.snapshot, entry.request, entry.side_problem]);
}

/** A run told: its record (the table's row), and its card and bad lines when the cards are
 * shown (else the card is marked, and drawn when they are: showView).
 * @param {Run} run */
async function tell(run) {
  const card = cardsShown();
  const record = await renderStatus(run, card);
  if (card) renderFindings(run, record);
}

/** One turn of a followed run: what its listing entry says of its file said and done (a file
 * removed, back, replaced or cut shorter), its side files read again when they changed, and
 * the bytes appended since the last turn read.
 * @param {Run} run
 * @param {Following} following
 * @param {import("./served.js").Server} server */
async function followTurn(run, following, server) {
  const entry = following.entry;
  following.handled = entry;
  const file = entry.metrics;
  if (entry.problem !== null) sayChange(run, entry.problem);
  if (sideSignature(entry) !== following.side) {
    following.side = sideSignature(entry);
    const [proof, request] = await Promise.all([
      entry.snapshot === null ? null : server.sideFile(entry.snapshot, PROOF_LIMIT),
      entry.request === null ? null : server.sideFile(entry.request, REQUEST_LIMIT),
    ]);
    run.side = { proof, request };
    // told again from these, with why a side file was refused (a symlink, a FIFO), if so
    run.sideFiles = await sideFiles(run.side, entry.side_problem);
  }
  if (file === null) {
    if (following.id !== null && !following.removed) {
      sayChange(run, core.changeText("removed", entry.path));
      following.removed = true;
    }
    await tell(run);
    return;
  }
  // a file back after its removal is a new file, even where it has the old one's inode (and
  // so its id): the freed inode is often the next one given
  if (following.id !== null && (file.id !== following.id || following.removed)) {
    sayChange(run, core.changeText(following.removed ? "back" : "replaced", entry.path));
    restart(run, following);
    following.ended = false;
  } else if (following.id === file.id && file.size < following.offset) {
    sayChange(run, core.changeText("truncated", entry.path));
    restart(run, following);
  }
  following.removed = false;
  following.id = file.id;
  if (following.ended) return; // a .gz, read whole once
  if (file.name.endsWith(".gz")) {
    // compressed: a finished run, read whole once through the page's gunzip, not followed
    /** @type {Uint8Array<ArrayBuffer>[]} */
    const parts = [];
    for (let offset = 0; ; ) {
      const read = await server.read(file.id, offset);
      if (read.kind !== "bytes") break;
      parts.push(read.data);
      offset += read.data.length;
      if (offset >= read.size) break;
    }
    run.files.metrics = new File(parts, file.name);
    following.ended = true;
    try {
      await readRun(run);
    } catch (error) {
      sayChange(run, messageOf(error));
    }
    await tell(run);
    scheduleDraw();
    return;
  }
  if (file.size <= following.offset) {
    await tell(run); // the snapshot, or the clock
    return;
  }
  following.reading ??= startReading(run);
  for (;;) {
    const read = await server.read(file.id, following.offset);
    if (read.kind !== "bytes") break; // gone, or cut shorter: the next listing says what
    following.reading.feed(read.data);
    following.offset += read.data.length;
    if (following.offset >= read.size) break;
    await yieldToPage();
  }
  await tell(run);
  // the plot a frame after the table: the row is painted before a redraw of every point
  requestAnimationFrame(() => scheduleDraw());
}

/** The runs of `server`: its listing asked for every LISTING_EVERY ms, each new run a card and
 * a row, and readers reading the runs whose listing changed, in the listing's order: as many
 * readers as the listing says one request may ask for files (`parts`), so that the reads of
 * the runs read at the same time go to the server together (served.js), in one request.
 * @param {import("./served.js").Server} server */
function follow(server) {
  live = true;
  $("open").hidden = true;
  $of("view-table", HTMLInputElement).checked = true;
  showView("table");
  /** @type {Map<string, Run>} */
  const known = new Map();
  /** The runs whose entry changed since their last turn, in the order they changed: the
   * readers take them from here (a look costs the runs due, not every run known).
   * @type {Set<Run>} */
  const due = new Set();
  /** The readers waiting for a listing that changed. @type {(() => void)[]} */
  let waiting = [];
  /** The readers started: as many as the last listing allows at once (`server.many`). */
  let readers = 0;
  /** The runs listed whose first turn has not ended: the line above the runs counts them. */
  const unread = new Set();
  const sayFollowing = () => {
    const count = known.size;
    const left = unread.size === 0 ? "" : `, ${thousands(unread.size)} not read yet`;
    $("served").textContent = `following ${thousands(count)} ${count === 1 ? "run" : "runs"} of the server${left}`;
  };
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const resume of woken) resume();
  };
  const list = async () => {
    try {
      const listing = await server.listing();
      if (listing !== null) {
        let added = false;
        for (const entry of listing.runs) {
          const run = known.get(entry.run);
          if (run === undefined) {
            const made = servedRun(entry);
            known.set(entry.run, made);
            due.add(made);
            unread.add(made);
            added = true;
          }
          // a run whose entry did not change is not turned again (1,000 runs, one of them growing)
          else if (run.following && JSON.stringify(run.following.entry) !== JSON.stringify(entry)) {
            run.following.entry = entry;
            due.add(run);
          }
        }
        // a run dropped from the listing (its folder removed): its file said removed, the run
        // kept as last read, and read again if it is listed again. A listing of every run
        // drops those it does not list; one of the changes since the last, those it names.
        /** @param {Run} run */
        const dropped = (run) => {
          const entry = run.following?.entry;
          if (run.following && entry && entry.metrics !== null) {
            run.following.entry = { ...entry, metrics: null, snapshot: null, request: null, problem: null, side_problem: null };
            due.add(run);
          }
        };
        if (listing.since === null) {
          const listed = new Set(listing.runs.map((entry) => entry.run));
          for (const [name, run] of known) if (!listed.has(name)) dropped(run);
        } else {
          for (const name of listing.removed) {
            const run = known.get(name);
            if (run !== undefined) dropped(run);
          }
        }
        $("served").hidden = false;
        sayFollowing();
        // a new run's row and line now; a changed run's once its reader has read it
        if (added) {
          scheduleTable();
          scheduleDraw();
        }
        while (readers < server.many) {
          readers += 1;
          readOn();
        }
        wake();
      }
      $("problem").hidden = true;
    } catch (error) {
      $("problem").hidden = false;
      $("problem").textContent = messageOf(error);
    }
    setTimeout(list, LISTING_EVERY);
  };
  const next = () => {
    for (const run of due) {
      const following = run.following;
      if (following?.busy) continue; // due again once its turn is over
      due.delete(run);
      if (following && following.handled !== following.entry) return run;
    }
    return null;
  };
  const readOn = async () => {
    for (;;) {
      const run = next();
      if (run === null || !run.following) {
        await new Promise((resolve) => {
          waiting.push(() => resolve(undefined));
          setTimeout(resolve, IDLE_WAIT);
        });
        continue;
      }
      const following = run.following;
      following.busy = true;
      // only a run's first reading counts as reading (the redraws are bounded meanwhile): a
      // line appended to a run read is shown at once
      const first = following.id === null;
      if (first) reading += 1;
      try {
        await followTurn(run, following, server);
      } catch (error) {
        sayChange(run, messageOf(error));
      } finally {
        following.busy = false;
        if (first) reading -= 1;
        if (unread.delete(run)) sayFollowing();
      }
    }
  };
  list();
}

window.addEventListener("resize", scheduleDraw);
// the last line's age and the ETA's count down move with the clock: the core tells the
// status again at each now
setInterval(() => {
  // the table's rows from the records; the cards, hidden behind it, told when shown
  const cards = cardsShown();
  for (const run of runs) if (run.done || (run.following && !run.following.busy)) renderStatus(run, cards);
}, 10_000);
$of("metrics", HTMLInputElement).value = core.DEFAULT_PATTERNS;
digestPatterns = core.DEFAULT_PATTERNS;
$("core-version").textContent = `contract ${contractVersion}; the reader core: overbrainer's reference, compiled to WebAssembly`;
const server = servedBy();
if (server !== null) follow(server);
document.body.dataset.ready = "true";

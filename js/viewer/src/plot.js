// The panels of `overbrainer-contract plot`, drawn on canvases: one metric a panel, its value
// against the step, for every run (or group of runs) in the style `plot` gives it. A series of
// many points is drawn through its extremes per pixel column: a million points cost one pass,
// and no spike is lost. A value that is not a number the axis can place is never dropped: NaN
// is a cross (✕) on the panel's bottom edge, +Infinity a ▲ on its top edge, -Infinity (and, on
// a log scale, a value not above 0) a ▼ on its bottom edge; a null is a gap in the line. A
// point the line cannot show (a value logged once, one between gaps) is a dot.

import { durationText } from "./names.js";
import { GAP } from "./series.js";

/** matplotlib's tab10: the colour of run (or group) i is COLOURS[i % 10]. */
export const COLOURS = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
];

/** matplotlib's line styles, in plot's order: run i has DASHES[floor(i / 10) % 4]. */
export const DASHES = /** @type {const} */ (["solid", "dashed", "dotted", "dashdot"]);

/** @typedef {typeof DASHES[number]} Dash */

const LINE_WIDTH = 1.5;

/** Each line style's dash pattern, matplotlib's (lines.dashed_pattern and the others),
 * scaled by the line's width as matplotlib scales it. */
const PATTERNS = {
  solid: [],
  dashed: [3.7, 1.6],
  dotted: [1, 1.65],
  dashdot: [6.4, 1.6, 1, 1.6],
};

/** The dash pattern of `dash` for a line `width` wide.
 * @param {Dash} dash
 * @param {number} [width]
 * @returns {number[]} */
export function dashPattern(dash, width = LINE_WIDTH) {
  return PATTERNS[dash].map((each) => each * width);
}

/** The style of the `index`th run or group in the order shown: plot.py's `style()` (its
 * colour and line style; the page draws no per-run markers).
 * @param {number} index
 * @returns {{ colour: string, dash: Dash }} */
export function style(index) {
  return { colour: COLOURS[index % COLOURS.length], dash: DASHES[Math.floor(index / COLOURS.length) % DASHES.length] };
}

const FONT = "12px system-ui, sans-serif";

/** The path vertices a panel's lines add before its drawing is rasterised and the panel
 * yields: about 15 runs of 10,000 points each, some 20 ms of a software rasteriser. */
const SLICE_VERTICES = 50_000;

/** @typedef {CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D} Context */

/** @typedef {import("./series.js").Points} Points */
/** @typedef {import("./groups.js").Band} Band */
/** @typedef {{ left: number, top: number, width: number, height: number }} Box */
/** @typedef {[number, number]} Range */
/** A run's line in a panel: its label, style, its points; `faint` behind its group's mean;
 * `raw`, when the line is smoothed: the points before smoothing, drawn faint behind it.
 * @typedef {{ label: string, colour: string, dash: Dash, points: Points, faint: boolean, raw?: Points | null }} Line */
/** A group's mean and band in a panel.
 * @typedef {{ label: string, colour: string, dash: Dash, band: Band }} Banded */
/** A value drawn as a marker on an edge: the point's label, step and value, and where.
 * @typedef {{ label: string, step: number, value: string, shape: "cross" | "up" | "down", x: number, y: number }} Marker */
/** What a panel drew, kept for its tooltip and for tests: the scale, the box, the ranges,
 * its lines and bands, the markers of its values that are not on the axis.
 * @typedef {{ key: string, log: boolean, box: Box, xRange: Range, yRange: Range,
 *   lines: Line[], bands: Banded[], markers: Marker[], axis: import("./series.js").Axis }} Drawn */

/** Round steps for an axis from `low` to `high`: 1, 2 or 5 times a power of ten.
 * @param {number} low
 * @param {number} high
 * @param {number} count
 * @returns {number[]} */
function ticks(low, high, count) {
  if (!(high > low)) return [low];
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = [1, 2, 5, 10].map((each) => each * power).find((each) => raw <= each) || raw;
  const out = [];
  for (let at = Math.ceil(low / unit) * unit; at <= high + unit * 1e-9; at += unit) {
    out.push(Math.abs(at) < unit * 1e-9 ? 0 : at);
  }
  return out;
}

/** Ticks of a log axis from 10^low to 10^high: each power of ten, or 1, 2 and 5 times each
 * when the range spans less than two decades (returned as values, not exponents).
 * @param {number} low
 * @param {number} high
 * @returns {number[]} */
function logTicks(low, high) {
  const out = [];
  const few = high - low < 2;
  for (let power = Math.floor(low); power <= Math.ceil(high); power += 1) {
    for (const each of few ? [1, 2, 5] : [1]) {
      const at = Math.log10(each) + power;
      if (at >= low - 1e-9 && at <= high + 1e-9) out.push(each * 10 ** power);
    }
  }
  return out.length > 0 ? out : [10 ** low];
}

/** A tick's label: six significant digits at most, an exponent for the very large or small.
 * @param {number} value
 * @returns {string} */
function label(value) {
  if (value === 0) return "0";
  const size = Math.abs(value);
  if (size >= 1e6 || size < 1e-3) return Number(value.toPrecision(6)).toExponential().replace("e+", "e");
  return String(Number(value.toPrecision(6)));
}

/** The title of each x-axis. */
const AXIS_TITLES = { step: "step", wall: "wall time (UTC)", relative: "time since the run began" };

/** A place on an x-axis as the page writes it: a step with its digits grouped; a wall time as
 * the UTC date and time (the time alone within a day, to the second); a time since the run
 * began as `status` writes a duration (the core's `H:MM:SS`).
 * @param {import("./series.js").Axis} axis
 * @param {number} x
 * @param {number} [span] the axis's span, which says how much of a wall time to write
 * @returns {string} */
export function axisText(axis, x, span = 0) {
  if (axis === "step") return label(x);
  if (axis === "wall") {
    const date = new Date(x * 1000);
    if (Number.isNaN(date.getTime())) return String(x);
    const written = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
    return span > 0 && span < 86_400 ? written.slice(11, 19) : `${written.slice(0, 10)} ${written.slice(11, 16)}`;
  }
  return durationText(x);
}

/** A range with room around it (5 %), a single value made a range.
 * @param {number} low
 * @param {number} high
 * @returns {Range} */
export function padded(low, high) {
  if (high > low) {
    const room = (high - low) * 0.05;
    return [low - room, high + room];
  }
  const room = Math.abs(low) * 0.05 || 1;
  return [low - room, high + room];
}

/** The word of a value that is not finite, as the contract writes it.
 * @param {number} value
 * @returns {string} */
export function word(value) {
  if (Number.isNaN(value)) return "NaN";
  return value > 0 ? "Infinity" : "-Infinity";
}

/** A panel's mapping of a point to its pixel: the column `ax * step + bx`, the row
 * `by - ay * value` (of `log10(value)` on a log scale). Straight arithmetic, so that the pass
 * over every point of every line costs no call a point.
 * @typedef {{ ax: number, bx: number, ay: number, by: number, log: boolean }} Scale */

/** A series drawn through its points, or through each pixel column's first, lowest,
 * highest and last point when there are more points than columns: one tight pass. A gap,
 * a value not finite or not on the scale breaks the line.
 * @param {Context} context
 * @param {Float64Array} steps
 * @param {Float64Array} values
 * @param {Uint8Array | null} kinds
 * @param {number} length
 * @param {Scale} scale
 * @param {number} columns */
function trace(context, steps, values, kinds, length, scale, columns) {
  const { ax, bx, ay, by, log } = scale;
  context.beginPath();
  let open = false;
  const few = length <= columns * 2;
  let column = NaN;
  let lowest = 0;
  let highest = 0;
  let latest = 0;
  for (let i = 0; i < length; i += 1) {
    const value = values[i];
    // the row, NaN off the scale: a gap, a value not finite (v - v is 0 for a finite one
    // alone), on a log scale one not above 0
    let py = NaN;
    if (kinds === null || kinds[i] !== GAP) {
      if (log) {
        if (value > 0 && value - value === 0) py = by - ay * Math.log10(value);
      } else if (value - value === 0) py = by - ay * value;
    }
    if (Number.isNaN(py)) {
      if (open && !few) {
        context.lineTo(column, lowest);
        context.lineTo(column, highest);
        context.lineTo(column, latest);
      }
      open = false;
      column = NaN;
      continue;
    }
    if (few) {
      const px = ax * steps[i] + bx;
      if (open) context.lineTo(px, py);
      else {
        context.moveTo(px, py);
        open = true;
      }
      continue;
    }
    const px = Math.round(ax * steps[i] + bx);
    if (px !== column) {
      if (open) {
        context.lineTo(column, lowest);
        context.lineTo(column, highest);
        context.lineTo(column, latest);
        context.lineTo(px, py);
      } else {
        context.moveTo(px, py);
        open = true;
      }
      column = px;
      lowest = py;
      highest = py;
    } else if (py > lowest) lowest = py;
    else if (py < highest) highest = py;
    latest = py;
  }
  if (open && !few) {
    context.lineTo(column, lowest);
    context.lineTo(column, highest);
    context.lineTo(column, latest);
  }
  context.stroke();
}

/** The indices of a series' points that its line cannot show: each on the scale with no
 * neighbour on it (the first or last point, or one between gaps, values not finite or, on
 * a log scale, not above 0), which a line through it would draw as nothing. Each is drawn
 * as a dot.
 * @param {Float64Array} values
 * @param {Uint8Array | null} kinds
 * @param {number} length
 * @param {boolean} log
 * @returns {number[]} */
export function lonePoints(values, kinds, length, log) {
  const on = (/** @type {number} */ i) => {
    if (i < 0 || i >= length || (kinds !== null && kinds[i] === GAP)) return false;
    const value = values[i];
    return log ? value > 0 && value - value === 0 : value - value === 0;
  };
  /** @type {number[]} */
  const lone = [];
  let before = false;
  let here = on(0);
  for (let i = 0; i < length; i += 1) {
    const next = on(i + 1);
    if (here && !before && !next) lone.push(i);
    before = here;
    here = next;
  }
  return lone;
}

/** A dot at (x, y), in the context's fill colour.
 * @param {Context} context
 * @param {number} x
 * @param {number} y
 * @param {number} radius */
function dot(context, x, y, radius) {
  context.beginPath();
  context.arc(x, y, radius, 0, Math.PI * 2);
  context.fill();
}

/** A marker's shape at (x, y), in the context's colour: a cross, a ▲ or a ▼.
 * @param {Context} context
 * @param {Marker["shape"]} shape
 * @param {number} x
 * @param {number} y */
function mark(context, shape, x, y) {
  const size = 5;
  context.beginPath();
  if (shape === "cross") {
    context.moveTo(x - size, y - size);
    context.lineTo(x + size, y + size);
    context.moveTo(x + size, y - size);
    context.lineTo(x - size, y + size);
    context.save();
    context.lineWidth = 2;
    context.setLineDash([]);
    context.stroke();
    context.restore();
    return;
  }
  // a triangle pointing off the axis, its tip on the edge
  const base = shape === "up" ? y + size * 1.8 : y - size * 1.8;
  context.moveTo(x, y);
  context.lineTo(x - size, base);
  context.lineTo(x + size, base);
  context.closePath();
  context.fill();
}

/** The least and greatest finite value (on a log scale, above 0) of the points whose steps
 * are in `range`: `[Infinity, -Infinity]` for none.
 * @param {Points} points
 * @param {Range} range
 * @param {boolean} log
 * @returns {Range} */
function rangeWithin(points, range, log) {
  let low = Infinity;
  let high = -Infinity;
  for (let i = 0; i < points.length; i += 1) {
    const step = points.steps[i];
    const value = points.values[i];
    if (step < range[0] || step > range[1] || points.kinds[i] === GAP || !Number.isFinite(value) || (log && !(value > 0))) continue;
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return [low, high];
}

/** Each panel canvas's scratch surface, where a drawing is made before the canvas shows it. */
/** @type {WeakMap<HTMLCanvasElement, OffscreenCanvas>} */
const scratches = new WeakMap();

/** One panel on `canvas`, of `size` (its CSS box, measured by the caller: measuring every
 * panel before drawing any costs the page one layout, not one a panel): its grid, ticks and
 * labels, then each group's band and mean, each run's line (faint behind its group), and the
 * markers of the values not on the axis.
 *
 * A generator: the drawing is made on a scratch surface and rasterised a slice of lines at
 * a time (SLICE_VERTICES), and it yields after each slice, so that its caller can hand the
 * page back to its other work between slices (1,000 runs' lines take seconds of a software
 * rasteriser). The canvas shows the drawing whole, once it is done: never half a panel.
 * It returns what it drew.
 * With `fit` (a panel zoomed in to `xRange`), the value axis spans the points in that range
 * only. `axis`: what the lines' `steps` hold (the step, or a time) and how the axis is
 * written.
 * @param {HTMLCanvasElement} canvas
 * @param {{ key: string, lines: Line[], bands: Banded[], log: boolean, xRange: Range, fit?: boolean, axis?: import("./series.js").Axis }} what
 * @param {{ width: number, height: number }} size
 * @returns {Generator<void, Drawn, void>} */
export function* drawPanel(canvas, { key, lines, bands, log, xRange, fit = false, axis = "step" }, size) {
  const scale = globalThis.devicePixelRatio || 1;
  const cssWidth = size.width || 480;
  const cssHeight = size.height || 260;
  const width = Math.round(cssWidth * scale);
  const height = Math.round(cssHeight * scale);
  let scratch = scratches.get(canvas);
  if (scratch === undefined || scratch.width !== width || scratch.height !== height) {
    scratch = new OffscreenCanvas(width, height);
    scratches.set(canvas, scratch);
  }
  const context = scratch.getContext("2d");
  if (context === null) throw new Error("no 2D context for a panel's canvas");
  context.reset();
  context.setTransform(scale, 0, 0, scale, 0, 0);
  context.fillStyle = "#fff";
  context.fillRect(0, 0, cssWidth, cssHeight);
  const box = { left: 64, top: 12, width: Math.max(cssWidth - 64 - 12, 10), height: Math.max(cssHeight - 12 - 36, 10) };

  // the value axis: over the finite values (above 0 on a log scale) and the bands' edges
  let low = Infinity;
  let high = -Infinity;
  for (const { points, raw } of lines) {
    for (const each of raw ? [points, raw] : [points]) {
      const [from, to] = fit ? rangeWithin(each, xRange, log) : [log ? each.lowPositive : each.low, each.high];
      if (to >= from) {
        low = Math.min(low, from);
        high = Math.max(high, to);
      }
    }
  }
  for (const { band } of bands) {
    const from = log ? band.lowPositive : band.low;
    if (band.high >= from) {
      low = Math.min(low, from);
      high = Math.max(high, band.high);
    }
  }
  /** @type {Range} */
  let yRange;
  if (!(high >= low)) yRange = [0, 1];
  else if (log) yRange = padded(Math.log10(low), Math.log10(high));
  else yRange = padded(low, high);
  const [bottomValue, topValue] = yRange;
  // the step axis with room at its ends (2 %), so that a point or a marker there is seen whole
  const room = (xRange[1] - xRange[0]) * 0.02;
  const [first, last] = [xRange[0] - room, xRange[1] + room];
  const x = (/** @type {number} */ step) => box.left + ((step - first) / (last - first)) * box.width;
  const bottom = box.top + box.height;
  /** @type {Scale} the same mapping as `x` and `y`, for the lines' pass */
  const mapping = {
    ax: box.width / (last - first),
    bx: box.left - (first * box.width) / (last - first),
    ay: box.height / (topValue - bottomValue),
    by: bottom + (bottomValue * box.height) / (topValue - bottomValue),
    log,
  };
  /** The pixel row of a value; NaN for one off the scale (not finite; not above 0 on a log).
   * @param {number} value */
  const y = (value) => {
    if (!Number.isFinite(value) || (log && !(value > 0))) return NaN;
    const at = log ? Math.log10(value) : value;
    return bottom - ((at - bottomValue) / (topValue - bottomValue)) * box.height;
  };

  context.save();
  context.font = FONT;
  context.fillStyle = "#222";
  context.strokeStyle = "rgba(0,0,0,0.12)";
  context.lineWidth = 1;
  context.textAlign = "right";
  context.textBaseline = "middle";
  const yTicks = log ? logTicks(bottomValue, topValue) : ticks(bottomValue, topValue, Math.max(2, Math.floor(box.height / 45)));
  for (const at of yTicks) {
    const py = Math.round(log ? y(at) : bottom - ((at - bottomValue) / (topValue - bottomValue)) * box.height) + 0.5;
    if (!Number.isFinite(py)) continue;
    context.beginPath();
    context.moveTo(box.left, py);
    context.lineTo(box.left + box.width, py);
    context.stroke();
    context.fillText(label(at), box.left - 6, py);
  }
  context.textAlign = "center";
  context.textBaseline = "top";
  const wide = axis === "step" ? 80 : 110; // a time's words are wider than a step's
  for (const at of ticks(first, last, Math.max(2, Math.floor(box.width / wide)))) {
    const px = Math.round(x(at)) + 0.5;
    context.beginPath();
    context.moveTo(px, box.top);
    context.lineTo(px, bottom);
    context.stroke();
    context.fillText(axisText(axis, at, last - first), px, bottom + 5);
  }
  context.fillText(AXIS_TITLES[axis], box.left + box.width / 2, bottom + 20);
  context.strokeStyle = "#444";
  context.strokeRect(box.left + 0.5, box.top + 0.5, box.width, box.height);
  context.beginPath();
  context.rect(box.left, box.top, box.width, box.height);
  context.clip();

  const columns = Math.max(1, Math.round(box.width));
  // the groups' bands first, each under its runs and its mean
  for (const { colour, band } of bands) {
    const { steps, mean, std } = band;
    context.globalAlpha = 0.2;
    context.fillStyle = colour;
    for (let i = 0; i < steps.length; ) {
      // one polygon a stretch of steps whose edges are on the scale
      const edge = (/** @type {number} */ value) => {
        const py = y(value);
        if (Number.isFinite(py)) return py;
        return log ? bottom : NaN;
      };
      if (!Number.isFinite(edge(mean[i] + std[i]))) {
        i += 1;
        continue;
      }
      let end = i;
      while (end < steps.length && Number.isFinite(edge(mean[end] + std[end]))) end += 1;
      context.beginPath();
      for (let k = i; k < end; k += 1) context.lineTo(x(steps[k]), edge(mean[k] + std[k]));
      for (let k = end - 1; k >= i; k -= 1) context.lineTo(x(steps[k]), edge(mean[k] - std[k]));
      context.closePath();
      context.fill();
      i = end;
    }
    context.globalAlpha = 1;
  }
  context.lineWidth = LINE_WIDTH;
  let vertices = 0;
  for (const { points, colour, dash, faint, raw } of lines) {
    if (!points.length) continue;
    if (vertices >= SLICE_VERTICES) {
      // what is drawn so far rasterised now (a read of one pixel has the surface draw what
      // it recorded), then the page's turn
      context.getImageData(0, 0, 1, 1);
      vertices = 0;
      yield;
    }
    vertices += (raw ? 2 : 1) * (points.length <= columns * 2 ? points.length : Math.min(points.length, columns * 4));
    context.strokeStyle = colour;
    context.fillStyle = colour;
    context.setLineDash(dashPattern(dash));
    if (raw) {
      // the values as logged, faint behind their smoothed line
      context.globalAlpha = faint ? 0.1 : 0.25;
      trace(context, raw.steps, raw.values, raw.kinds, raw.length, mapping, columns);
    }
    context.globalAlpha = faint ? 0.25 : 1;
    trace(context, points.steps, points.values, points.kinds, points.length, mapping, columns);
    context.setLineDash([]);
    if (points.length <= 24 && !faint) {
      // few points (an eval loss): each one shown
      for (let i = 0; i < points.length; i += 1) {
        const py = points.kinds[i] === GAP ? NaN : y(points.values[i]);
        if (Number.isFinite(py)) dot(context, x(points.steps[i]), py, 2.5);
      }
    } else {
      // a point the line cannot show (alone, or between gaps): a dot
      for (const i of lonePoints(points.values, points.kinds, points.length, log)) {
        dot(context, x(points.steps[i]), y(points.values[i]), faint ? 2 : 2.5);
      }
    }
  }
  context.globalAlpha = 1;
  for (const { band, colour, dash } of bands) {
    context.strokeStyle = colour;
    context.fillStyle = colour;
    context.setLineDash(dashPattern(dash));
    context.lineWidth = 2;
    trace(context, band.steps, band.mean, null, band.steps.length, mapping, columns);
    for (const i of lonePoints(band.mean, null, band.steps.length, log)) dot(context, x(band.steps[i]), y(band.mean[i]), 3);
  }
  context.setLineDash([]);
  context.restore();

  // the values off the axis, on its edges, over everything (drawn outside the clip, so that
  // a marker on an edge is seen whole); one per pixel column and shape for each line
  /** @type {Marker[]} */
  const markers = [];
  context.save();
  for (const { points, colour, label: name, faint } of lines) {
    const odd = points.odd > 0 || (log && points.low <= 0);
    if (!odd) continue;
    context.strokeStyle = colour;
    context.fillStyle = colour;
    context.globalAlpha = faint ? 0.6 : 1;
    const seen = new Set();
    for (let i = 0; i < points.length; i += 1) {
      if (points.kinds[i] === GAP || points.steps[i] < xRange[0] || points.steps[i] > xRange[1]) continue;
      const value = points.values[i];
      /** @type {Marker["shape"] | null} */
      let shape = null;
      if (Number.isNaN(value)) shape = "cross";
      else if (value === Infinity) shape = "up";
      else if (value === -Infinity || (log && !(value > 0))) shape = "down";
      if (shape === null) continue;
      const px = x(points.steps[i]);
      const py = shape === "up" ? box.top : bottom;
      const at = `${Math.round(px)} ${shape}`;
      if (seen.has(at)) continue;
      seen.add(at);
      mark(context, shape, px, py);
      markers.push({ label: name, step: points.steps[i], value: Number.isFinite(value) ? String(value) : word(value), shape, x: px, y: py });
    }
  }
  context.restore();
  context.getImageData(0, 0, 1, 1);
  yield;
  // the canvas resized only when its size changed (a resize clears it), then shown whole
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  const shown = canvas.getContext("2d");
  if (shown === null) throw new Error("no 2D context for a panel's canvas");
  shown.drawImage(scratch, 0, 0);
  return { key, log, box, xRange: [first, last], yRange, lines, bands, markers, axis };
}

/** What the tooltip says at pixel column `px` of a drawn panel: the nearest step any line
 * or band has, and each one's value there (a gap as null, a value not finite in its word;
 * a band as mean ± std over its n runs; a smoothed line, its smoothed value and the value
 * logged), sorted by value, the greatest first (a band by its mean), NaN and gaps last. Null
 * when the panel holds no point.
 * @param {Drawn} drawn
 * @param {number} px
 * @returns {{ step: number, rows: [string, string][] } | null} */
export function tooltipAt(drawn, px) {
  const [first, last] = drawn.xRange;
  const wanted = first + ((px - drawn.box.left) / drawn.box.width) * (last - first);
  let best = NaN;
  let distance = Infinity;
  const consider = (/** @type {Float64Array} */ steps, /** @type {number} */ length) => {
    for (let i = 0; i < length; i += 1) {
      const away = Math.abs(steps[i] - wanted);
      if (away < distance) {
        distance = away;
        best = steps[i];
      }
    }
  };
  for (const { points } of drawn.lines) consider(points.steps, points.length);
  for (const { band } of drawn.bands) consider(band.steps, band.steps.length);
  if (Number.isNaN(best)) return null;
  /** @type {{ row: [string, string], rank: number }[]} */
  const ranked = [];
  for (const { band, label: name } of drawn.bands) {
    const at = band.steps.indexOf(best);
    if (at >= 0) {
      const row = /** @type {[string, string]} */ ([name, `${band.mean[at]} ± ${band.std[at]} (${band.count[at]} ${band.count[at] === 1 ? "run" : "runs"})`]);
      ranked.push({ row, rank: band.mean[at] });
    }
  }
  const said = (/** @type {Points} */ points, /** @type {number} */ at) => {
    if (points.kinds[at] === GAP) return "null";
    const value = points.values[at];
    return Number.isFinite(value) ? String(value) : word(value);
  };
  for (const { points, label: name, raw } of drawn.lines) {
    let found = -1;
    for (let i = 0; i < points.length; i += 1) if (points.steps[i] === best) found = i;
    if (found < 0) continue;
    const text = raw ? `${said(points, found)} (logged ${said(raw, found)})` : said(points, found);
    ranked.push({ row: [name, text], rank: points.kinds[found] === GAP ? NaN : points.values[found] });
  }
  // the greatest value first (+Infinity before any number), then the least; NaN and gaps last
  const order = (/** @type {number} */ rank) => (Number.isNaN(rank) ? 1 : 0);
  ranked.sort((a, b) => order(a.rank) - order(b.rank) || (order(a.rank) === 1 ? 0 : b.rank - a.rank || 0));
  const rows = ranked.map(({ row }) => row);
  return { step: best, rows };
}

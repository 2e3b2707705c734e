// The plot of `overbrainer-contract plot`, drawn on a canvas: training loss (solid) and eval
// loss (dashed, with markers) against the step on the top panel, the learning rate on the
// bottom one; several runs overlaid, one colour each (matplotlib's default cycle).
// A series of many points is drawn through its extremes per pixel column: a million points
// cost one pass, and no spike is lost.

/** matplotlib's default colour cycle (tab10). */
export const COLOURS = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
];

const FONT = "12px system-ui, sans-serif";

/** @typedef {import("./series.js").Points} Points */
/** @typedef {import("./series.js").Series} Series */
/** @typedef {{ left: number, top: number, width: number, height: number }} Box */
/** @typedef {[number, number]} Range */
/** @typedef {{ low: number, high: number, first: number, last: number, any: boolean }} Extent */
/** @typedef {{ points: Points, colour: string, dashed: boolean }} Drawn */
/** @typedef {{ text: string, colour: string, dashed: boolean }} LegendEntry */
/** @typedef {{ label: string, series: Series, colour?: string | null }} Run */

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

/** A tick's label: six significant digits at most, an exponent for the very large or small.
 * @param {number} value
 * @returns {string} */
function label(value) {
  if (value === 0) return "0";
  const size = Math.abs(value);
  if (size >= 1e6 || size < 1e-3) return Number(value.toPrecision(6)).toExponential().replace("e+", "e");
  return String(Number(value.toPrecision(6)));
}

/** The range of some Points' finite points (kept by Points as they come), into `into`.
 * @param {Points} each
 * @param {Extent} into */
function extent(each, into) {
  if (!(each.high >= each.low)) return;
  into.low = Math.min(into.low, each.low);
  into.high = Math.max(into.high, each.high);
  into.first = Math.min(into.first, each.first);
  into.last = Math.max(into.last, each.last);
  into.any = true;
}

/** A range with room around it (5 %), a single value made a range.
 * @param {number} low
 * @param {number} high
 * @returns {Range} */
function padded(low, high) {
  if (high > low) {
    const room = (high - low) * 0.05;
    return [low - room, high + room];
  }
  const room = Math.abs(low) * 0.05 || 1;
  return [low - room, high + room];
}

/** A series drawn through its points, or through each pixel column's first, lowest,
 * highest and last point when there are more points than columns: one tight pass.
 * @param {CanvasRenderingContext2D} context
 * @param {Points} points
 * @param {Box} box
 * @param {Range} xRange
 * @param {Range} yRange */
function trace(context, points, box, xRange, yRange) {
  const { steps, values, length } = points;
  const [first, last] = xRange;
  const [low, high] = yRange;
  const scaleX = box.width / (last - first);
  const scaleY = box.height / (high - low);
  const left = box.left;
  const bottom = box.top + box.height;
  context.beginPath();
  let started = false;
  if (length <= box.width * 2) {
    for (let i = 0; i < length; i += 1) {
      const value = values[i];
      if (!Number.isFinite(value)) continue;
      const px = left + (steps[i] - first) * scaleX;
      const py = bottom - (value - low) * scaleY;
      if (started) context.lineTo(px, py);
      else {
        context.moveTo(px, py);
        started = true;
      }
    }
  } else {
    let column = NaN;
    let lowest = 0;
    let highest = 0;
    let latest = 0;
    const flush = () => {
      context.lineTo(column, bottom - (lowest - low) * scaleY);
      context.lineTo(column, bottom - (highest - low) * scaleY);
      context.lineTo(column, bottom - (latest - low) * scaleY);
    };
    for (let i = 0; i < length; i += 1) {
      const value = values[i];
      if (!Number.isFinite(value)) continue;
      const px = Math.round(left + (steps[i] - first) * scaleX);
      if (px !== column) {
        if (started) flush();
        const py = bottom - (value - low) * scaleY;
        if (started) context.lineTo(px, py);
        else {
          context.moveTo(px, py);
          started = true;
        }
        column = px;
        lowest = value;
        highest = value;
      } else if (value < lowest) lowest = value;
      else if (value > highest) highest = value;
      latest = value;
    }
    if (started) flush();
  }
  context.stroke();
}

/** A dot at each point (a series of 400 points at most, unless `always`).
 * @param {CanvasRenderingContext2D} context
 * @param {Points} points
 * @param {(step: number) => number} x
 * @param {(value: number) => number} y
 * @param {boolean} always */
function markers(context, points, x, y, always) {
  if (points.length > 400 && !always) return;
  for (let i = 0; i < points.length; i += 1) {
    if (!Number.isFinite(points.values[i])) continue;
    context.beginPath();
    context.arc(x(points.steps[i]), y(points.values[i]), 3, 0, Math.PI * 2);
    context.fill();
  }
}

/** One panel: its grid, ticks and labels, then its series, clipped to its box.
 * @param {CanvasRenderingContext2D} context
 * @param {Box} box
 * @param {Range} xRange
 * @param {Drawn[]} series
 * @param {string} yLabel
 * @param {string | null} xLabel */
function panel(context, box, xRange, series, yLabel, xLabel) {
  const range = { low: Infinity, high: -Infinity, first: Infinity, last: -Infinity, any: false };
  for (const { points } of series) extent(points, range);
  const [low, high] = range.any ? padded(range.low, range.high) : [0, 1];
  const [first, last] = xRange;
  const x = (/** @type {number} */ step) => box.left + ((step - first) / (last - first)) * box.width;
  const y = (/** @type {number} */ value) => box.top + box.height - ((value - low) / (high - low)) * box.height;
  context.save();
  context.font = FONT;
  context.fillStyle = "#222";
  context.strokeStyle = "rgba(0,0,0,0.12)";
  context.lineWidth = 1;
  context.textAlign = "right";
  context.textBaseline = "middle";
  for (const at of ticks(low, high, Math.max(2, Math.floor(box.height / 45)))) {
    const py = Math.round(y(at)) + 0.5;
    context.beginPath();
    context.moveTo(box.left, py);
    context.lineTo(box.left + box.width, py);
    context.stroke();
    context.fillText(label(at), box.left - 6, py);
  }
  context.textAlign = "center";
  context.textBaseline = "top";
  for (const at of ticks(first, last, Math.max(2, Math.floor(box.width / 90)))) {
    const px = Math.round(x(at)) + 0.5;
    context.beginPath();
    context.moveTo(px, box.top);
    context.lineTo(px, box.top + box.height);
    context.stroke();
    if (xLabel) context.fillText(label(at), px, box.top + box.height + 5);
  }
  context.strokeStyle = "#444";
  context.strokeRect(box.left + 0.5, box.top + 0.5, box.width, box.height);
  context.save();
  context.translate(14, box.top + box.height / 2);
  context.rotate(-Math.PI / 2);
  context.textBaseline = "top";
  context.fillText(yLabel, 0, -10);
  context.restore();
  if (xLabel) context.fillText(xLabel, box.left + box.width / 2, box.top + box.height + 22);
  context.beginPath();
  context.rect(box.left, box.top, box.width, box.height);
  context.clip();
  for (const { points, colour, dashed } of series) {
    if (!points.length) continue;
    context.strokeStyle = colour;
    context.fillStyle = colour;
    context.lineWidth = 1.5;
    context.setLineDash(dashed ? [6, 4] : []);
    trace(context, points, box, xRange, [low, high]);
    context.setLineDash([]);
    if (dashed || points.length === 1) markers(context, points, x, y, points.length === 1);
  }
  context.restore();
}

/** Draw `runs` ([{label, series, colour}]: a Series of series.js each) on `canvas`, sized to
 * its CSS box. The legend's entries
 * come back ({text, colour, dashed}: each series of a lone run; else each run's colour,
 * then the line of a loss and of an eval loss): the page writes them beside the canvas, as
 * text.
 * @param {HTMLCanvasElement} canvas
 * @param {Run[]} runs
 * @param {string} title
 * @returns {LegendEntry[]} */
export function draw(canvas, runs, title) {
  const scale = globalThis.devicePixelRatio || 1;
  const cssWidth = canvas.clientWidth || 900;
  const cssHeight = canvas.clientHeight || 600;
  canvas.width = Math.round(cssWidth * scale);
  canvas.height = Math.round(cssHeight * scale);
  const context = canvas.getContext("2d");
  if (context === null) throw new Error("no 2D context for the plot's canvas");
  context.setTransform(scale, 0, 0, scale, 0, 0);
  context.fillStyle = "#fff";
  context.fillRect(0, 0, cssWidth, cssHeight);
  const several = runs.length > 1;
  /** @type {Drawn[]} */
  const top = [];
  /** @type {Drawn[]} */
  const bottom = [];
  /** @type {LegendEntry[]} */
  const topLegend = [];
  /** @type {LegendEntry[]} */
  const bottomLegend = [];
  /** @type {Extent} */
  const xs = { low: Infinity, high: -Infinity, first: Infinity, last: -Infinity, any: false };
  const colourOf = (/** @type {Run} */ run, /** @type {number} */ index) => run.colour || COLOURS[index % COLOURS.length];
  runs.forEach((run, index) => {
    const { label: name, series } = run;
    const colour = colourOf(run, index);
    const prefix = several ? `${name}: ` : "";
    const { loss, eval_loss: evalLoss, learning_rate: rate } = series;
    for (const each of [loss, evalLoss, rate]) extent(each, xs);
    if (loss.length) {
      top.push({ points: loss, colour, dashed: false });
      topLegend.push({ text: `${prefix}loss`, colour, dashed: false });
    }
    if (evalLoss.length) {
      top.push({ points: evalLoss, colour, dashed: true });
      topLegend.push({ text: `${prefix}eval loss`, colour, dashed: true });
    }
    if (rate.length) {
      bottom.push({ points: rate, colour, dashed: false });
      bottomLegend.push({ text: name, colour, dashed: false });
    }
  });
  /** @type {Range} */
  const xRange = xs.any ? (xs.last > xs.first ? [xs.first, xs.last] : padded(xs.first, xs.last)) : [0, 1];
  const left = 78;
  const width = cssWidth - left - 16;
  const titleHeight = 30;
  const usable = cssHeight - titleHeight - 48;
  const topBox = { left, top: titleHeight, width, height: Math.round(usable * 0.68) };
  const bottomBox = { left, top: topBox.top + topBox.height + 14, width, height: usable - topBox.height - 14 };
  context.font = "bold 14px system-ui, sans-serif";
  context.fillStyle = "#222";
  context.textAlign = "center";
  context.textBaseline = "middle";
  context.fillText(title, left + width / 2, titleHeight / 2);
  context.textAlign = "left";
  panel(context, topBox, xRange, top, "loss", null);
  panel(context, bottomBox, xRange, bottom, "learning rate", "step");
  if (!several) return [...topLegend, ...bottomLegend.map((each) => ({ ...each, text: "learning rate (below)" }))];
  const key = [{ text: "loss", colour: "#555", dashed: false }, { text: "eval loss", colour: "#555", dashed: true }];
  return [...runs.map((run, index) => ({ text: run.label, colour: colourOf(run, index), dashed: false })), ...key];
}

// The values the plot draws, by step: each metric key of a run's logs — the line's own fields
// (loss, eval_loss, learning_rate, grad_norm) and every key of its `scalars` — as the core
// digests it (the package's `Status`, made with `digest`), one Points per key shown. Data
// only: what a run's lines mean (its status, its bad lines) is the core's too.

/** What a point holds, beside its value: a number (finite, or a non-finite value's word read
 * as NaN, Infinity, -Infinity), or null (a gap in the line). */
export const VALUE = 0;
export const GAP = 1;

/** Growing Float64Arrays: the steps, the values and the times (each point's line's) of one
 * plotted metric, and which points are gaps (a scalar logged as null). A value "NaN",
 * "Infinity", "-Infinity" is kept as the double it names. On a time axis, `steps` holds each
 * point's x (its time, or the time since its run began) in place of its step. */
export class Points {
  /** @param {number} [size] the points it will hold (it grows past them, doubling) */
  constructor(size = 4) {
    const room = Math.max(1, size);
    this.steps = new Float64Array(room);
    this.values = new Float64Array(room);
    /** each point's line's time (seconds since the epoch; NaN where unknown) */
    this.times = new Float64Array(room);
    /** @type {Uint8Array} GAP where the point is a null */
    this.kinds = new Uint8Array(room);
    this.length = 0;
    // the range of the finite points, kept as they come: a redraw need not pass over them
    this.low = Infinity;
    this.high = -Infinity;
    /** the lowest finite value above 0, for a log scale */
    this.lowPositive = Infinity;
    this.first = Infinity;
    this.last = -Infinity;
    /** points whose value is not finite (NaN, ±Infinity): drawn as markers */
    this.odd = 0;
  }

  /** @param {number | bigint} step @param {number} value @param {number} [kind] @param {number} [time] */
  push(step, value, kind = VALUE, time = NaN) {
    if (this.length === this.steps.length) {
      const size = this.length * 2;
      const steps = new Float64Array(size);
      const values = new Float64Array(size);
      const times = new Float64Array(size);
      const kinds = new Uint8Array(size);
      steps.set(this.steps);
      values.set(this.values);
      times.set(this.times);
      kinds.set(this.kinds);
      this.steps = steps;
      this.values = values;
      this.times = times;
      this.kinds = kinds;
    }
    const at = Number(step);
    this.steps[this.length] = at;
    this.values[this.length] = value;
    this.times[this.length] = time;
    this.kinds[this.length] = kind;
    this.length += 1;
    if (Number.isFinite(at)) {
      if (at < this.first) this.first = at;
      if (at > this.last) this.last = at;
    }
    if (kind !== VALUE) return;
    if (Number.isFinite(value)) {
      if (value < this.low) this.low = value;
      if (value > this.high) this.high = value;
      if (value > 0 && value < this.lowPositive) this.lowPositive = value;
    } else this.odd += 1;
  }
}

/** A scalar's value as a double: a number as it is, a non-finite value's word as the double
 * it names; null for a null (and for anything else, which the contract does not allow).
 * @param {unknown} value
 * @returns {number | null} */
export function scalarValue(value) {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (value === "NaN") return NaN;
  if (value === "Infinity") return Infinity;
  if (value === "-Infinity") return -Infinity;
  return null;
}

/** The Points of a digest's points, sized to them.
 * @param {import("overbrainer-contract/core").Digest} digest
 * @returns {Points} */
export function pointsOf(digest) {
  const points = new Points(digest.points.length);
  for (const [step, value, time] of digest.points) {
    const number = scalarValue(value);
    if (number === null) points.push(step, NaN, GAP, time);
    else points.push(step, number, VALUE, time);
  }
  return points;
}

/** The x-axes a panel can draw against: the step, the wall time (the lines' `time`, seconds
 * since the epoch), the time since the run began (its first point's time in the panels). */
export const AXES = /** @type {const} */ (["step", "wall", "relative"]);
/** @typedef {typeof AXES[number]} Axis */

/** The points against `axis`: on a time axis, a copy whose `steps` are each point's time
 * (less `origin`); on the step axis, the points themselves.
 * @param {Points} points
 * @param {Axis} axis
 * @param {number} origin
 * @returns {Points} */
export function againstAxis(points, axis, origin) {
  if (axis === "step") return points;
  const out = new Points(points.length);
  const shift = axis === "relative" ? origin : 0;
  for (let i = 0; i < points.length; i += 1) out.push(points.times[i] - shift, points.values[i], points.kinds[i], points.times[i]);
  return out;
}

/** The points smoothed as TensorBoard smooths a scalar's line (its smoothing slider): a
 * debiased exponential moving average of weight `weight` (0 to 1: 0 leaves every value as it
 * is), over the finite values in order, `last = last * weight + (1 - weight) * value` shown
 * as `last / (1 - weight^n)` after n of them. A value not finite and a gap stay as they are
 * and are not averaged in; a series whose finite values are all one value is left as it is.
 * It smooths the points the page holds: a run's every point while its digest holds them all
 * (at most four a bucket), else the digest's, as TensorBoard smooths its sampled points.
 * @param {Points} points
 * @param {number} weight
 * @returns {Points} */
export function smoothed(points, weight) {
  const out = new Points(points.length);
  let constant = true;
  let seen = NaN;
  for (let i = 0; i < points.length; i += 1) {
    const value = points.values[i];
    if (points.kinds[i] === GAP || !Number.isFinite(value)) continue;
    if (Number.isNaN(seen)) seen = value;
    else if (value !== seen) {
      constant = false;
      break;
    }
  }
  let last = 0;
  let count = 0;
  for (let i = 0; i < points.length; i += 1) {
    const value = points.values[i];
    const kind = points.kinds[i];
    if (kind === GAP || !Number.isFinite(value) || constant || weight <= 0) {
      out.push(points.steps[i], value, kind, points.times[i]);
      continue;
    }
    last = last * weight + (1 - weight) * value;
    count += 1;
    out.push(points.steps[i], weight >= 1 ? last : last / (1 - weight ** count), VALUE, points.times[i]);
  }
  return out;
}

/** A run's series as the plot draws them, from the core's digest of its logs (the run's
 * Status made with `digest`: each key's series bounded, what every point draws at a plot's
 * width): the keys its logs hold, and the Points of the keys shown only, made again when the
 * run has read more lines or other keys are shown. A key not shown holds no point here. */
export class Series {
  constructor() {
    /** @type {Map<string, Points>} the keys shown */
    this.points = new Map();
    /** @type {string[]} every key of the run's logs, in the order they came */
    this.keys = [];
    /** the run's lines when the keys, and when the points, were made */
    this.keysAt = -1;
    this.pointsAt = -1;
    this.shown = "";
  }

  /** The keys of the run's logs, after `lines` lines read.
   * @param {import("overbrainer-contract/core").RunStatus} status
   * @param {number} lines */
  takeKeys(status, lines) {
    if (lines === this.keysAt) return;
    this.keysAt = lines;
    this.keys = status.digestKeys();
  }

  /** The Points of the keys `shown`, after `lines` lines read.
   * @param {import("overbrainer-contract/core").RunStatus} status
   * @param {number} lines
   * @param {string[]} shown */
  take(status, lines, shown) {
    const asked = JSON.stringify(shown);
    if (lines === this.pointsAt && asked === this.shown) return;
    this.pointsAt = lines;
    this.shown = asked;
    const digests = status.digests(shown);
    this.points = new Map();
    for (const key of shown) {
      const digest = digests[key];
      if (digest !== undefined) this.points.set(key, pointsOf(digest));
    }
  }
}

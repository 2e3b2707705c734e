// The values the plot draws, by step: each log line's metrics as the package's Reader answers
// it — the line's own fields (loss, eval_loss, learning_rate, grad_norm) and every key of its
// `scalars` — one Points per key. Data only: what a run's lines mean (its status, its bad
// lines) is the core's (the package's `Status` and `check`).

/** What a point holds, beside its value: a number (finite, or a non-finite value's word read
 * as NaN, Infinity, -Infinity), or null (a gap in the line). */
export const VALUE = 0;
export const GAP = 1;

/** A growing pair of Float64Arrays: the steps and the values of one plotted metric, and
 * which points are gaps (a scalar logged as null). A value "NaN", "Infinity", "-Infinity"
 * is kept as the double it names. */
export class Points {
  constructor() {
    // a few points first, twice as many each time they are full: a key logged once (a run
    // may log 100,000 keys in one line) holds a few bytes, not a key's worth of a long run
    this.steps = new Float64Array(4);
    this.values = new Float64Array(4);
    /** @type {Uint8Array} GAP where the point is a null */
    this.kinds = new Uint8Array(4);
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

  /** @param {number | bigint} step @param {number} value @param {number} [kind] */
  push(step, value, kind = VALUE) {
    if (this.length === this.steps.length) {
      const size = this.length * 2;
      const steps = new Float64Array(size);
      const values = new Float64Array(size);
      const kinds = new Uint8Array(size);
      steps.set(this.steps);
      values.set(this.values);
      kinds.set(this.kinds);
      this.steps = steps;
      this.values = values;
      this.kinds = kinds;
    }
    const at = Number(step);
    this.steps[this.length] = at;
    this.values[this.length] = value;
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

/** The line's own numeric fields, in the order the picker lists them. */
export const OWN = /** @type {const} */ (["loss", "eval_loss", "learning_rate", "grad_norm"]);

/** A scalar's value as a double: a number as it is, a non-finite value's word as the double
 * it names; null for a null (and for anything else, which the contract does not allow).
 * @param {unknown} value
 * @returns {number | null} */
export function scalarValue(value) {
  if (typeof value === "number") return value;
  if (value === "NaN") return NaN;
  if (value === "Infinity") return Infinity;
  if (value === "-Infinity") return -Infinity;
  return null;
}

/** Each metric key's Points, fed the Reader's answers. */
export class Series {
  constructor() {
    /** @type {Map<string, Points>} */
    this.points = new Map();
  }

  /** The Points of `key`, made on first use.
   * @param {string} key
   * @returns {Points} */
  of(key) {
    let found = this.points.get(key);
    if (found === undefined) this.points.set(key, (found = new Points()));
    return found;
  }

  /** The answers of a Reader's `feed` or `finish`: the values of its log lines. A line's own
   * field left out (null) is no point; a scalar logged as null is a gap.
   * @param {Iterable<import("overbrainer-contract/core").Answer>} answers
   * @returns {boolean} whether a key was seen for the first time */
  take(answers) {
    const before = this.points.size;
    for (const answer of answers) {
      if (answer.kind !== "line" || answer.value.event !== "log") continue;
      const line = answer.value;
      for (const field of OWN) {
        const value = line[field];
        if (typeof value === "number") this.of(field).push(line.step, value);
      }
      const { scalars } = line;
      if (scalars === undefined || scalars === null) continue;
      for (const key of Object.keys(scalars)) {
        const value = scalarValue(scalars[key]);
        if (value === null) this.of(key).push(line.step, NaN, GAP);
        else this.of(key).push(line.step, value);
      }
    }
    return this.points.size !== before;
  }

  /** The keys this run's logs hold. */
  get keys() {
    return [...this.points.keys()];
  }

  get empty() {
    return this.points.size === 0;
  }
}

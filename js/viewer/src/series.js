// The values plot draws, by step: each log line's loss, eval loss and learning rate as the
// package's Reader answers it. Data only: what a run's lines mean (its status, its bad lines)
// is the core's (the package's `Status` and `check`).

/** A growing pair of Float64Arrays: the steps and the values of one plotted metric. */
export class Points {
  constructor() {
    this.steps = new Float64Array(1024);
    this.values = new Float64Array(1024);
    this.length = 0;
    // the range of the finite points, kept as they come: a redraw need not pass over them
    this.low = Infinity;
    this.high = -Infinity;
    this.first = Infinity;
    this.last = -Infinity;
  }

  /** @param {number | bigint} step @param {number} value */
  push(step, value) {
    if (this.length === this.steps.length) {
      const steps = new Float64Array(this.length * 2);
      const values = new Float64Array(this.length * 2);
      steps.set(this.steps);
      values.set(this.values);
      this.steps = steps;
      this.values = values;
    }
    const at = Number(step);
    this.steps[this.length] = at;
    this.values[this.length] = value;
    this.length += 1;
    if (Number.isFinite(value) && Number.isFinite(at)) {
      if (value < this.low) this.low = value;
      if (value > this.high) this.high = value;
      if (at < this.first) this.first = at;
      if (at > this.last) this.last = at;
    }
  }
}

/** @typedef {"loss" | "eval_loss" | "learning_rate"} Plotted */

/** The plotted fields of a log line (a field left out is `null` in the Reader's line).
 * @type {readonly Plotted[]} */
export const PLOTTED = ["loss", "eval_loss", "learning_rate"];

/** Each plotted field's Points, fed the Reader's answers. */
export class Series {
  constructor() {
    this.loss = new Points();
    this.eval_loss = new Points();
    this.learning_rate = new Points();
  }

  /** The answers of a Reader's `feed` or `finish`: the values of its log lines.
   * @param {Iterable<import("overbrainer-contract/core").Answer>} answers */
  take(answers) {
    for (const answer of answers) {
      if (answer.kind !== "line" || answer.value.event !== "log") continue;
      const line = answer.value;
      for (const field of PLOTTED) if (typeof line[field] === "number") this[field].push(line.step, line[field]);
    }
  }

  get empty() {
    return PLOTTED.every((field) => this[field].length === 0);
  }
}

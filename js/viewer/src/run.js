// A run as `overbrainer-contract status` and `plot` see it: its state after every line (the
// command line's RunState, fed the same way) and the points that plot draws. Pure logic, no
// page: each answer of the package's Reader goes through `take`.

/** Bad lines kept, with their error, for the list (the count goes on past it). */
export const KEPT_ERRORS = 200;

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

/** The plotted fields of a log line, as plot draws them. */
export const PLOTTED = ["loss", "eval_loss", "learning_rate"];

const isFloat = (value) => typeof value === "number";
const isCount = (value) => typeof value === "number" || typeof value === "bigint";

export class RunState {
  /** `pace` is a Pace of the package: the reference's, field for field. */
  constructor(pace) {
    this.pace = pace;
    this.lines = 0;
    this.invalid = 0;
    this.partial = false;
    this.began = false;
    this.begins = 0; // begin lines: more than one, the run was resumed
    this.stage = null;
    this.endStep = null;
    this.loss = null; // {step, value, time}: the latest training loss (the pace's latest point)
    this.evalLoss = null;
    this.learningRate = null;
    this.evaluation = null; // {step, total}: the evaluation under way
    this.lastTime = null;
    this.beginMaxSteps = null;
    this.errors = []; // {line, category, message, column, path}, the first KEPT_ERRORS
    this.points = { loss: new Points(), eval_loss: new Points(), learning_rate: new Points() };
  }

  /** A metrics line (the package's typed line): what RunState.take does, and its points. */
  take(line) {
    this.lastTime = line.time;
    switch (line.event) {
      case "log": {
        this.pace.add(line);
        const { step } = line;
        if (isFloat(line.loss)) {
          this.loss = { step, value: line.loss, time: line.time };
          this.points.loss.push(step, line.loss);
        }
        if (isFloat(line.eval_loss)) {
          this.evalLoss = { step, value: line.eval_loss };
          this.points.eval_loss.push(step, line.eval_loss);
          this.evaluation = null;
        }
        if (isFloat(line.learning_rate)) {
          this.learningRate = { step, value: line.learning_rate };
          this.points.learning_rate.push(step, line.learning_rate);
        }
        break;
      }
      case "eval":
        this.evaluation = { step: line.step, total: isCount(line.total) ? line.total : null };
        break;
      case "stage":
        this.stage = line.name;
        this.evaluation = null;
        break;
      case "begin":
        this.began = true;
        this.begins += 1;
        this.endStep = null;
        if (isCount(line.max_steps)) this.beginMaxSteps = line.max_steps;
        break;
      case "end":
        this.endStep = line.step;
        this.evaluation = null;
        break;
      default:
        break;
    }
  }

  /** A line the reference refuses (or one over the bound): counted invalid and listed,
   * except the last line still being written (cut, without its newline: `eof`), which
   * status calls incomplete, as check does. */
  reject(number, error, terminated) {
    if (!terminated && error.category === "eof") {
      this.partial = true;
      return;
    }
    this.invalid += 1;
    if (this.errors.length < KEPT_ERRORS) this.errors.push({ line: number, ...error });
  }

  get ended() {
    return this.endStep !== null;
  }

  get step() {
    return this.endStep !== null ? this.endStep : this.pace.step;
  }

  /** Total steps: from the logs (as Pace), else from the begin line. */
  get totalSteps() {
    const fromLogs = this.pace.maxSteps;
    return fromLogs !== null && fromLogs !== undefined ? fromLogs : this.beginMaxSteps;
  }

  get phase() {
    if (this.ended) return "ended";
    if (this.evaluation !== null) return "evaluating";
    if (this.pace.step > 0) return "training";
    if (this.began || this.lines) return "started";
    return "waiting";
  }
}

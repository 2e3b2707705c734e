/* Generated from schema/metrics-line.schema.json by js/generate-types.mjs (json-schema-to-typescript). Do not edit: change the schema, then run `nox -s generate`. */

/**
 * A line of `metrics.jsonl`: one JSON object, tagged by `event`. The plugin writes `begin`, `log`, `eval` and `end`; the job's shell writes `stage`.
 */
export type MetricLine = Begin | Log | Stage | Eval | End;
/**
 * Unix time, in seconds.
 */
export type UnixTime = number;
/**
 * An unsigned 64-bit count. In JavaScript: a `number` up to `Number.MAX_SAFE_INTEGER`, a `bigint` beyond (the package's reader keeps every value exact).
 */
export type U64 = number | bigint;
/**
 * A value the Trainer logged: a finite number; null where it had none (a mean over nothing); or `"NaN"`, `"Infinity"` or `"-Infinity"` for a value that is not finite (a bare NaN is not JSON, and null would lose what it was).
 */
export type Scalar = number | null | "NaN" | "Infinity" | "-Infinity";
/**
 * A command of a training job, as its stage event names it: `train` (the training itself), `merge` (the merge of the adapter into the base model), `export` (the export of the model to GGUF), `compare` (the child's answers to the eval questions, for `overbrainer compare`).
 */
export type JobStage = "train" | "merge" | "export" | "compare";

/**
 * Training started: the plugin is loaded.
 */
export interface Begin {
  event: "begin";
  /**
   * Unix time, in seconds.
   */
  time: UnixTime;
  /**
   * Total steps of the run, when known.
   */
  max_steps?: U64 | null;
  [k: string]: unknown;
}
/**
 * A training or evaluation log: the trainer's step and the values it logged (the reference's `TrainMetric`).
 */
export interface Log {
  event: "log";
  /**
   * Unix time of the log, in seconds.
   */
  time: UnixTime;
  /**
   * Optimizer steps done.
   */
  step: U64;
  /**
   * Fractional epoch, when known.
   */
  epoch?: number | null;
  /**
   * Total steps of the run, when known.
   */
  max_steps?: U64 | null;
  /**
   * Training loss.
   */
  loss?: number | null;
  /**
   * Loss on `data/eval.jsonl`, on evaluation lines.
   */
  eval_loss?: number | null;
  /**
   * Learning rate.
   */
  learning_rate?: number | null;
  /**
   * Gradient norm.
   */
  grad_norm?: number | null;
  /**
   * The log's other numeric values (`eval_accuracy`, `rewards/chosen`, `num_input_tokens_seen`), each under the key the Trainer gave it; and a `loss`, `eval_loss`, `learning_rate` or `grad_norm` that was not finite, which its field cannot hold (`null` there), by its name (`"NaN"`, `"Infinity"`, `"-Infinity"`) under the same key (since contract 2.2.0). Unknown to the reference, which ignores it.
   */
  scalars?: Scalars;
  [k: string]: unknown;
}
/**
 * Scalar values by their key, exactly as the Trainer gave it; the order is the writer's.
 */
export interface Scalars {
  [k: string]: Scalar;
}
/**
 * The job starts one of its commands; written by the job's own shell before the command, not by the plugin.
 */
export interface Stage {
  event: "stage";
  /**
   * Unix time, in seconds.
   */
  time: UnixTime;
  /**
   * The command starting.
   */
  name: JobStage;
  [k: string]: unknown;
}
/**
 * An evaluation is under way: at most one line every 2 seconds.
 */
export interface Eval {
  event: "eval";
  /**
   * Unix time, in seconds.
   */
  time: UnixTime;
  /**
   * Prediction steps done in this evaluation, from 1.
   */
  step: U64;
  /**
   * Prediction steps of the whole evaluation, when known.
   */
  total?: U64 | null;
  [k: string]: unknown;
}
/**
 * The training loop ended: what follows is the trainer's final work.
 */
export interface End {
  event: "end";
  /**
   * Unix time, in seconds.
   */
  time: UnixTime;
  /**
   * Optimizer steps done.
   */
  step: U64;
  /**
   * The training's one-shot values, logged once at its end (`train_runtime`, `train_samples_per_second`, `total_flos`, `train_loss`). Unknown to the reference, which ignores it.
   */
  summary?: Scalars;
  [k: string]: unknown;
}

/* Generated from schema/status-report.schema.json by js/generate-types.mjs (json-schema-to-typescript). Do not edit: change the schema, then run `nox -s generate`. */

/**
 * A number of lines or steps.
 */
export type Count = number;
/**
 * Where the run is: `waiting` (no line yet), `started` (a line, no training step), `training`, `evaluating` (an evaluation under way), `ended`.
 */
export type Phase = "waiting" | "started" | "training" | "evaluating" | "ended";
/**
 * A command of a training job, as its stage event names it: `train` (the training itself), `merge` (the merge of the adapter into the base model), `export` (the export of the model to GGUF), `compare` (the child's answers to the eval questions, for `overbrainer compare`).
 */
export type JobStage = "train" | "merge" | "export" | "compare";
/**
 * Optimizer steps done when the checkpoint was saved.
 */
export type U64 = number;
/**
 * One word: 1 to 64 ASCII letters, digits, `_` or `-`.
 */
export type Word = string;
/**
 * A value the Trainer logged: a finite number; null where it had none (a mean over nothing); or `"NaN"`, `"Infinity"` or `"-Infinity"` for a value that is not finite (a bare NaN is not JSON, and null would lose what it was).
 */
export type Scalar = number | null | "NaN" | "Infinity" | "-Infinity";
/**
 * What an alert is: `stalled`, a run that has not ended and has been silent for longer than its pace predicts (`eta_stale`); `nonfinite`, a loss, evaluation loss or gradient norm that was not finite (`alerts.nonfinite` in `contract.json`); `spike`, a training loss far above the median of the losses before it (`alerts.spike`); `invalid`, an invalid line (or a gzip stream cut short) or invalid snapshot files.
 */
export type AlertKind = "stalled" | "nonfinite" | "spike" | "invalid";

/**
 * The state of one run as `overbrainer-contract status -o json` writes it: one JSON object for one run, one such object a line (JSON Lines) for several, in the order asked for (`--sort`). What the run's lines say so far, how long ago its last line came and whether its ETA still holds, its snapshot files, and whether `check` would find it valid.
 */
export interface StatusReport {
  /**
   * The run as the user named it: a run folder, a metrics file, `-` for standard input (or the folder found below a folder of runs).
   */
  run: string;
  /**
   * The run's name among the runs asked for: its path below the folder they have in common (`exp1/seed1`); its folder's name alone.
   */
  name: string;
  /**
   * Lines read.
   */
  lines: Count;
  /**
   * Lines the reference rejects (and lines over `--max-line`): what `check` counts as errors in the metrics file.
   */
  invalid_lines: Count;
  /**
   * The last line is cut short (no newline yet): a run still writing, or killed; not counted invalid.
   */
  partial_last_line: boolean;
  phase: Phase;
  /**
   * The latest `stage` line's command, if any.
   */
  stage: JobStage | null;
  /**
   * The latest training step (the `end` line's after it).
   */
  step: Count;
  /**
   * The training's total steps, when known (from the logs, else the `begin` line).
   */
  max_steps: Count | null;
  /**
   * `step / max_steps`, at most 1; null without `max_steps`.
   */
  progress: number | null;
  /**
   * An `end` line came, and no `begin` since.
   */
  ended: boolean;
  /**
   * `begin` lines: more than one, the run was resumed.
   */
  begins: Count;
  /**
   * The latest training loss.
   */
  loss: StepValue | null;
  /**
   * The latest evaluation loss.
   */
  eval_loss: StepValue | null;
  /**
   * The lowest evaluation loss, at the first step that reached it.
   */
  best_eval_loss: StepValue | null;
  /**
   * The latest learning rate.
   */
  learning_rate: number | null;
  /**
   * The evaluation under way (its latest `eval` line), until its result is logged.
   */
  evaluation: Evaluation | null;
  /**
   * The time left as the pace measured it at its latest training log (overbrainer's ETA); null until it can be told.
   */
  eta_seconds: number | null;
  /**
   * The time left at `now`: `eta_seconds` less the time since that log, at least 0; null without an ETA, when stale, or once ended.
   */
  eta_remaining_seconds: number | null;
  /**
   * The run has been silent for much longer than its pace predicts (longer than 50 steps at its pace, and than 120 s): its ETA no longer holds. Never for a run that ended.
   */
  eta_stale: boolean;
  /**
   * The `time` of the last valid line.
   */
  last_time: number | null;
  /**
   * Seconds from `last_time` to `now` (negative when the line is ahead of this clock); null without a line.
   */
  last_line_seconds: number | null;
  /**
   * When this report was made (seconds since the epoch, the lines' clock).
   */
  now: number;
  /**
   * The run folder's snapshot files; null for a run read from a file or standard input alone.
   */
  snapshot: SnapshotState | null;
  /**
   * What `check` of the same run would say: no invalid line, and its snapshot files valid. `status` exits 1 when a run is not.
   */
  valid: boolean;
  /**
   * Every key of the logs' `scalars` and of the `end` lines' `summary`, by key: its latest value and its lowest and highest finite values, each at its step.
   */
  scalars?: {
    [k: string]: ScalarStats;
  };
  /**
   * The latest `end` line's `summary`: the training's one-shot values; null without one.
   */
  summary?: Scalars | null;
  /**
   * What in the run needs a look, by the rules of `alerts` and `stale` in `contract.json`: at most one alert of each kind but `invalid` (one for the lines, one for the snapshot files), in the order of `AlertKind`; empty when nothing does. Since contract 2.2.0.
   */
  alerts?: Alert[];
  [k: string]: unknown;
}
/**
 * A metric's value and the step it was logged at.
 */
export interface StepValue {
  step: Count;
  value: number;
  [k: string]: unknown;
}
/**
 * An evaluation's progress: steps done, of how many when known.
 */
export interface Evaluation {
  step: Count;
  total: Count | null;
  [k: string]: unknown;
}
/**
 * Whether a snapshot was requested (and why), whether it was taken, whether the request waits for an answer.
 */
export interface SnapshotState {
  /**
   * `snapshot.request` is there.
   */
  requested: boolean;
  /**
   * The request is there and newer than the proof, or there is no proof.
   */
  pending: boolean;
  /**
   * The request's word, if it holds one.
   */
  reason: string | null;
  /**
   * The proof, `snapshot.json`, when valid.
   */
  taken: Snapshot | null;
  /**
   * What is wrong with the snapshot files, in one line, if anything.
   */
  problem: string | null;
  [k: string]: unknown;
}
/**
 * The proof of a snapshot, `snapshot.json`, written by the plugin once the checkpoint is saved.
 */
export interface Snapshot {
  /**
   * The checkpoint folder, relative to the run folder (the request's folder), with `/` separators, e.g. `out/checkpoint-12`.
   */
  checkpoint: string;
  step: U64;
  /**
   * Unix time the proof was written, in seconds.
   */
  time: number;
  /**
   * The request's one word, or null when the request was empty, not one word, not a regular file or longer than 64 KiB; `preempted` for a snapshot taken on SIGTERM (`OVERBRAINER_SNAPSHOT_ON_SIGTERM`, contract 1.1.0).
   */
  reason: Word | null;
  [k: string]: unknown;
}
/**
 * One scalar over a run: its latest value, and its lowest and highest finite values (the first step that reached each; null when none was finite).
 */
export interface ScalarStats {
  last: ScalarValue;
  min: StepValue | null;
  max: StepValue | null;
  [k: string]: unknown;
}
/**
 * A scalar's value as logged (a number, null, or a non-finite value's word) and the step it was logged at.
 */
export interface ScalarValue {
  step: Count;
  value: Scalar;
  [k: string]: unknown;
}
/**
 * Scalar values by their key, exactly as the Trainer gave it; the order is the writer's.
 */
export interface Scalars {
  [k: string]: Scalar;
}
/**
 * One thing in a run that needs a look: its kind, where it stands in the run (the step, and the time of the line it was seen in, when it has them) and one line of words, made by the core.
 */
export interface Alert {
  kind: AlertKind;
  /**
   * The training step it was seen at (`stalled`: the run's step; `invalid`: the step the run had reached before its first invalid line); null for the snapshot files.
   */
  step: Count | null;
  /**
   * The `time` of the line it was seen in (`stalled`: the run's last line); null for invalid lines and files, which have none.
   */
  time: number | null;
  /**
   * What happened, in one line.
   */
  message: string;
  [k: string]: unknown;
}

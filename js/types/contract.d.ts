/* Generated from schema/contract.schema.json by js/generate-types.mjs (json-schema-to-typescript). Do not edit: change the schema, then run `nox -s generate`. */

/**
 * The constants of the metrics contract, in one document that every language reads instead of retyping them: the plugin's file, module and class, the environment variables it reads, the files of a run folder, the most bytes its side files may hold and when a run's ETA is stale.
 */
export interface Contract {
  /**
   * This schema's `$id`.
   */
  $schema?: string;
  /**
   * Version of the contract (semantic versioning); the schemas' `$id`s carry it.
   */
  version: string;
  /**
   * The Rust module whose behaviour this contract describes.
   */
  reference: string;
  /**
   * The Axolotl plugin that writes `metrics.jsonl`.
   */
  plugin: {
    /**
     * File name of the plugin module, inside the run's `plugin/` directory (`PLUGIN_FILE`). It is uploaded alone and found through `PYTHONPATH`.
     */
    file: string;
    /**
     * The module that `file` defines.
     */
    module: string;
    /**
     * The plugin class in `module`.
     */
    class: string;
    /**
     * The plugin as Axolotl's `plugins` list names it: module, then class (`PLUGIN_CLASS`).
     */
    qualified_name: string;
  };
  /**
   * Environment variables the plugin reads.
   */
  env: {
    /**
     * Env variable naming the file the plugin appends to (`METRICS_ENV`).
     */
    metrics: string;
    /**
     * Env variable naming the snapshot request the plugin watches for (`SNAPSHOT_ENV`).
     */
    snapshot: string;
    /**
     * Env variable that, set to `1`, makes SIGTERM a snapshot request with reason `preempted` (`SNAPSHOT_ON_SIGTERM_ENV`): at the end of the current step every rank saves and stops, the proof and the `end` line are written, and the process exits by itself. Since contract 1.1.0.
     */
    snapshot_on_sigterm?: string;
  };
  /**
   * Files of a run folder, relative to it.
   */
  files: {
    /**
     * The metrics log: one JSON line per event (see `metrics-line.schema.json`).
     */
    metrics: string;
    /**
     * The snapshot request (`SNAPSHOT_REQUEST`). Once it exists, the plugin saves a checkpoint at the end of the current step and stops training. It holds the reason, one word, or nothing (see `snapshot-request.schema.json`).
     */
    snapshot_request: string;
    /**
     * The proof of a snapshot (`SNAPSHOT_FILE`), written by the plugin once the checkpoint is saved (see `snapshot.schema.json`).
     */
    snapshot: string;
  };
  /**
   * The most bytes each side file of a run folder may hold, by its key in `files`: the command line refuses a larger one unread, the plugin reads no reason from a larger request. Since contract 1.2.0.
   */
  max_bytes?: {
    /**
     * `snapshot.request` (`REQUEST_LIMIT`): its word of at most 64 characters and any white space around it. What the plugin reads of a request (its own `_REQUEST_READ_LIMIT`, since it travels alone), so that the command line and the plugin agree on every request.
     */
    snapshot_request: number;
    /**
     * `snapshot.json` (`PROOF_LIMIT`): four short fields and a checkpoint's path.
     */
    snapshot: number;
  };
  /**
   * When a run's ETA is stale: the run silent (no line of any kind) for longer than `max(steps * step_seconds, floor_seconds)`, `step_seconds` being the mean time a step takes at the run's own pace (the floor alone without a pace). A stale ETA is said as such, never counted down. Since contract 2.0.0.
   */
  stale?: {
    /**
     * Silence, in steps at the run's own pace, after which its ETA is stale (`STALE_STEPS`): a run writes a line every few steps, and may go quiet longer while it saves a checkpoint.
     */
    steps: number;
    /**
     * Silence, in seconds, below which an ETA is never stale (`STALE_FLOOR`): a fast run's saves and evaluations are not taken for a stall.
     */
    floor_seconds: number;
  };
  /**
   * The rules of a run's alerts (`alerts` in the status record), as thresholds: `stalled` is the `stale` rule for a run that has not ended; `invalid` an invalid line or snapshot file; `spike` and `nonfinite` are these. Since contract 2.2.0.
   */
  alerts?: {
    /**
     * A training loss that jumps: a log's `loss` above `ratio` times the median (of an even count, the lower of the two middle values) of the finite training losses of the `window` logs with a loss before it (fewer at the start of the stream), judged once `min_logs` such losses came before it and only where that median is above 0. The latest such log is the alert.
     */
    spike: {
      /**
       * How many times the median a loss must exceed (`SPIKE_RATIO`).
       */
      ratio: number;
      /**
       * How many training losses before a log its median is taken over (`SPIKE_WINDOW`): a constant, so that judging every log costs `window` at most each.
       */
      window: number;
      /**
       * How many training losses must come before a log for it to be judged (`SPIKE_MIN_LOGS`), at most `window`: the first logs of a training have no median to speak of.
       */
      min_logs: number;
    };
    /**
     * A value that was not finite: a log whose `scalars` hold `"NaN"`, `"Infinity"` or `"-Infinity"` under one of `keys` (the plugin writes a `loss`, `eval_loss` or `grad_norm` that is not finite there, and `null` in its field), or an `end` line's `summary` that does. The alert is the first log of the latest stretch of such logs, a stretch ended by a log that holds a finite value under one of `keys` (in its field or its `scalars`).
     */
    nonfinite: {
      /**
       * The keys watched (`NONFINITE_KEYS`).
       *
       * @minItems 1
       */
      keys: [string, ...string[]];
    };
  };
  /**
   * An evaluation under way writes at most one `eval` line per this many seconds.
   */
  eval_progress_interval_seconds: number;
}

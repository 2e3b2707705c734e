/* Generated from schema/snapshot.schema.json by js/generate-types.mjs (json-schema-to-typescript). Do not edit: change the schema, then run `nox -s generate`. */

/**
 * An unsigned 64-bit count.
 */
export type U64 = number;
/**
 * One word: 1 to 64 ASCII letters, digits, `_` or `-`.
 */
export type Word = string;

/**
 * The proof of a snapshot, `snapshot.json`, written by the plugin once the checkpoint is saved.
 */
export interface Snapshot {
  /**
   * The checkpoint folder, relative to the run folder (the request's folder), with `/` separators, e.g. `out/checkpoint-12`.
   */
  checkpoint: string;
  /**
   * Optimizer steps done when the checkpoint was saved.
   */
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

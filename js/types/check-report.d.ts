/* Generated from schema/check-report.schema.json by js/generate-types.mjs (json-schema-to-typescript). Do not edit: change the schema, then run `nox -s generate`. */

/**
 * One line of `overbrainer-contract check -o json` (JSON Lines: one JSON object a line, tagged by `type`). For each file checked, in order: a `finding` for each problem as it is found, then the file's `file` summary, which counts every problem; a path that cannot be read gives one `unreadable` line instead. With `--total`, one last line more: a `total` over every file and path (`check-total.schema.json`).
 */
export type CheckReport = ReportFinding | ReportFile | ReportUnreadable;
/**
 * `error`: the file is invalid (the reference rejects the line, or a snapshot file breaks its schema). `warning`: what a reader copes with (a last line cut short, lines out of order).
 */
export type Severity = "error" | "warning";
/**
 * What kind of problem: `syntax`, `eof`, `data` (the reference's `serde_json::Error::classify()` of a rejected line), `length` (a line over the length `check` reads), `order` (a step going back, a line before `begin` or after `end`), `truncated` (a last line cut short: no newline, and a whole line or one the reference finds cut, category `eof`), `schema` (a snapshot file against its schema; a warning where a line's `scalars` or `summary` breaks its schema, which the reference ignores).
 */
export type Category = "syntax" | "eof" | "data" | "length" | "order" | "truncated" | "schema";
/**
 * What a checked file is: a metrics file, `snapshot.json` or `snapshot.request`.
 */
export type FileKind = "metrics" | "snapshot" | "snapshot-request";
/**
 * A number of lines or problems.
 */
export type Count = number;

/**
 * One problem in a file, where it is and what it is.
 */
export interface ReportFinding {
  type: "finding";
  /**
   * The file, as the user named it (`-` for standard input).
   */
  file: string;
  /**
   * 1-based line number; null for a snapshot file, or a finding of the whole file (gzip-compressed data where lines should be).
   */
  line: number | null;
  /**
   * The column in the line where the problem was found, when known: the reference's (serde_json's), counted in bytes of the line without its newline, 1 for its first byte; 0 is before the first byte, where a line with no byte at all (a blank line) is rejected. Null when no column is known. From 0 since contract 2.0.0 (1 before).
   */
  column: number | null;
  /**
   * JSON path of the offending value (`$.step`); `$` for the whole line or file.
   */
  path: string;
  severity: Severity;
  category: Category;
  /**
   * What is wrong, in one line.
   */
  message: string;
  [k: string]: unknown;
}
/**
 * The summary of one checked file, after its findings: it counts them all.
 */
export interface ReportFile {
  type: "file";
  /**
   * The file, as the user named it (`-` for standard input).
   */
  file: string;
  kind: FileKind;
  /**
   * No error (warnings allowed).
   */
  valid: boolean;
  /**
   * Lines read from a metrics file; null for a snapshot file.
   */
  lines: Count | null;
  /**
   * Valid lines by event, for a metrics file; null for a snapshot file.
   */
  events: EventCounts | null;
  errors: Count;
  warnings: Count;
  [k: string]: unknown;
}
/**
 * Valid lines of a metrics file, by event.
 */
export interface EventCounts {
  begin: Count;
  log: Count;
  eval: Count;
  stage: Count;
  end: Count;
  [k: string]: unknown;
}
/**
 * A path that could not be read (missing, a FIFO, a folder, too large...): `check` exits 2.
 */
export interface ReportUnreadable {
  type: "unreadable";
  /**
   * The path, as the user named it.
   */
  file: string;
  /**
   * Why it cannot be read, in one line.
   */
  message: string;
  [k: string]: unknown;
}

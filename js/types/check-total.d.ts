/* Generated from schema/check-total.schema.json by js/generate-types.mjs (json-schema-to-typescript). Do not edit: change the schema, then run `nox -s generate`. */

/**
 * A number of files, lines or problems.
 */
export type Count = number;

/**
 * The last line of `overbrainer-contract check -o json --total`, after the lines of `check-report.schema.json`: a total over every file checked and every path that could not be read. (A line of its own schema, asked for: a reader of the check report as it was released reads the report without it.)
 */
export interface CheckTotal {
  type: "total";
  /**
   * Files checked (metrics files and snapshot files).
   */
  files: Count;
  /**
   * Files with at least one error.
   */
  invalid_files: Count;
  /**
   * Paths that could not be read.
   */
  unreadable: Count;
  /**
   * Lines read from the metrics files.
   */
  lines: Count;
  /**
   * Errors in every file.
   */
  errors: Count;
  /**
   * Warnings in every file.
   */
  warnings: Count;
  /**
   * No error and no unreadable path: `check` exits 0.
   */
  valid: boolean;
  [k: string]: unknown;
}

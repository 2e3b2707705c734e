// The rows of a run's status: a `StatusReport` of the core (the package's `Status`, the
// record `overbrainer-contract status -o json` writes) laid out in the order and labels of
// the command line's screen (cli/status.py `render`). Every value is the record's; this page
// only writes it.

import { ago, formatDuration, formatG, percent, thousands } from "./format.js";

/** @typedef {import("overbrainer-contract/core").StatusReport} StatusReport */
/** @typedef {NonNullable<StatusReport["loss"]>} StepValue */

/** The "eta" row: counted down to the record's `now` by the core, or stale.
 * @param {StatusReport} record
 * @returns {string} */
function etaText(record) {
  if (record.ended) return "- (training ended)";
  if (record.eta_stale && record.last_line_seconds !== null) {
    return `stale (no line for ${ago(record.last_line_seconds)}, much longer than its pace predicts)`;
  }
  const remaining = record.eta_remaining_seconds;
  return remaining === null ? "unknown yet" : formatDuration(remaining);
}

/** The "last line" row: `30 h ago`, `5 s ahead of this clock`, or `none yet`.
 * @param {StatusReport} record
 * @returns {string} */
function ageText(record) {
  const silence = record.last_line_seconds;
  if (record.last_time === null || silence === null) return "none yet";
  return silence < 0 ? `${ago(-silence)} ahead of this clock` : `${ago(silence)} ago`;
}

/** A run's status as [label, text, title] rows; `title` (or null) is the exact value behind
 * a rounded one. `record` is the core's StatusReport, `snapshot` the snapshot row's text,
 * `linesText` the core's words for a file's bad lines (the package's `linesText`).
 * @param {StatusReport} record
 * @param {string} snapshot
 * @param {(invalid: number, cut: boolean) => string} linesText
 * @returns {[string, string, string | null][]} */
export function statusRows(record, snapshot, linesText) {
  const phase = record.ended ? `ended at step ${thousands(record.step)}` : record.phase;
  let step = thousands(record.step);
  if (record.max_steps !== null) step += ` / ${thousands(record.max_steps)}`;
  if (record.progress !== null) step += ` (${percent(record.progress)})`;
  /** @type {[string, string, string | null][]} */
  const rows = [
    ["run", record.run, null],
    ["stage", `${record.stage ?? "-"} (${phase})`, null],
    ["step", step, null],
  ];
  /** @type {[StepValue | null, string][]} */
  const values = [
    [record.loss, "loss"],
    [record.eval_loss, "eval loss"],
  ];
  for (const [value, label] of values) {
    if (value === null) rows.push([label, "-", null]);
    else rows.push([label, `${formatG(value.value, 4)} at step ${thousands(value.step)}`, String(value.value)]);
  }
  const rate = record.learning_rate;
  if (rate !== null) rows.push(["learning rate", formatG(rate, 3), String(rate)]);
  const { evaluation } = record;
  let evaluated = "none under way";
  if (evaluation !== null && evaluation.total) {
    const share = percent(evaluation.step / evaluation.total);
    evaluated = `${thousands(evaluation.step)} / ${thousands(evaluation.total)} (${share})`;
  } else if (evaluation !== null) evaluated = `${thousands(evaluation.step)} steps done`;
  rows.push(["evaluation", evaluated, null]);
  const remaining = record.eta_remaining_seconds;
  const exact = remaining !== null && !record.ended && !record.eta_stale ? String(remaining) : null;
  rows.push(["eta", etaText(record), exact]);
  rows.push(["last line", ageText(record), null]);
  rows.push(["snapshot", snapshot, null]);
  let lines = thousands(record.lines);
  const words = linesText(record.invalid_lines, record.partial_last_line);
  if (words) lines += ` (${words})`;
  if (record.begins > 1) lines += ` (${record.begins} begin lines: resumed)`;
  rows.push(["lines", lines, null]);
  return rows;
}

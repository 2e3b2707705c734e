// The rows of `overbrainer-contract status`, in its order and words (cli/status.py `render`).

import { ago, estimate, lastLineText } from "./clock.js";
import { formatDuration, formatG, percent, thousands } from "./format.js";

/** The pace's ETA in seconds (`Duration::as_secs_f64`), or null. The package gives a
 * `Duration` (`{secs, nanos}`, secs a number or a bigint). */
export function etaSeconds(pace) {
  const eta = typeof pace.eta === "function" ? pace.eta() : pace.eta;
  if (eta === null || eta === undefined) return null;
  if (typeof eta === "number") return eta;
  return Number(eta.secs) + eta.nanos / 1e9;
}

/** The status of a run as [label, text, title] rows; `title` (or null) is the exact value
 * behind a rounded one. `snapshot` is the text of the snapshot row; `now` the time, in
 * seconds since the epoch. */
export function statusRows(name, state, snapshot, now) {
  const rows = [["run", name, null]];
  let phase = state.phase;
  if (state.ended) phase = `ended at step ${thousands(state.step)}`;
  rows.push(["stage", `${state.stage ?? "-"} (${phase})`, null]);
  const total = state.totalSteps;
  let step = thousands(state.step);
  if (total !== null && total !== undefined) {
    step += ` / ${thousands(total)}`;
    if (Number(total) !== 0) {
      step += ` (${percent(Math.min(Number(state.step) / Number(total), 1.0))})`;
    }
  }
  rows.push(["step", step, null]);
  for (const [value, label] of [
    [state.loss, "loss"],
    [state.evalLoss, "eval loss"],
  ]) {
    if (value === null) rows.push([label, "-", null]);
    else
      rows.push([
        label,
        `${formatG(value.value, 4)} at step ${thousands(value.step)}`,
        String(value.value),
      ]);
  }
  if (state.learningRate !== null) {
    const rate = state.learningRate.value;
    rows.push(["learning rate", formatG(rate, 3), String(rate)]);
  }
  const evaluation = state.evaluation;
  if (evaluation === null) rows.push(["evaluation", "none under way", null]);
  else if (evaluation.total !== null && Number(evaluation.total) !== 0) {
    const share = Number(evaluation.step) / Number(evaluation.total);
    rows.push([
      "evaluation",
      `${thousands(evaluation.step)} / ${thousands(evaluation.total)} (${percent(share)})`,
      null,
    ]);
  } else rows.push(["evaluation", `${thousands(evaluation.step)} steps done`, null]);
  const { pace } = state;
  const paceTotal = pace.maxSteps;
  const left = paceTotal === null || paceTotal === undefined ? null : Math.max(Number(paceTotal) - Number(pace.step), 0);
  const measured = state.loss === null ? null : state.loss.time;
  const time = estimate(etaSeconds(pace), left, measured, state.lastTime, now);
  if (state.ended) rows.push(["eta", "- (training ended)", null]);
  else if (time.stale) {
    rows.push(["eta", `stale (no line for ${ago(time.silence)}, much longer than its pace predicts)`, null]);
  } else if (time.remaining === null) rows.push(["eta", "unknown yet", null]);
  else rows.push(["eta", formatDuration(time.remaining), String(time.remaining)]);
  rows.push(["last line", lastLineText(state.lastTime, now), null]);
  rows.push(["snapshot", snapshot, null]);
  let lines = thousands(state.lines);
  if (state.invalid) lines += ` (${thousands(state.invalid)} invalid)`;
  if (state.partial) lines += " (the last one incomplete)";
  if (state.begins > 1) lines += ` (${state.begins} begin lines: resumed)`;
  rows.push(["lines", lines, null]);
  return rows;
}

// Time as status shows it (runs/clock.py): how long ago the last line came, and the ETA
// counted down since the pace measured it, or stale when the run has been silent for much
// longer than its pace predicts. `now` is seconds since the epoch, the lines' clock.

import { stale } from "viewer:contract";

/** Silence, in steps at the run's own pace, after which its ETA is stale (the contract's
 * `stale.steps`, schema/contract.json, read at build time). */
export const STALE_STEPS = stale.steps;
/** Silence, in seconds, below which an ETA is never stale (the contract's
 * `stale.floor_seconds`). */
export const STALE_FLOOR = stale.floor_seconds;

const UNITS = [
  [86400, "days"],
  [3600, "h"],
  [60, "min"],
  [1, "s"],
];

/** `25 s`, `12 min`, `30 h`, `3 days`: the largest unit that fits, rounded down, days from
 * two on. */
export function ago(seconds) {
  if (!Number.isFinite(seconds)) return "?";
  const span = Math.max(seconds, 0);
  for (const [size, unit] of UNITS) {
    const count = Math.floor(span / size);
    if (count >= (unit === "days" ? 2 : 1)) return `${count} ${unit}`;
  }
  return "0 s";
}

/** The "last line" row: `30 h ago`, `5 s ahead of this clock`, or `none yet`. */
export function lastLineText(lastTime, now) {
  if (lastTime === null) return "none yet";
  const silence = now - lastTime;
  return silence < 0 ? `${ago(-silence)} ahead of this clock` : `${ago(silence)} ago`;
}

function staleAfter(stepSeconds) {
  if (stepSeconds === null || !Number.isFinite(stepSeconds) || stepSeconds <= 0) return STALE_FLOOR;
  return Math.max(STALE_STEPS * stepSeconds, STALE_FLOOR);
}

/** The time left now and whether it is stale (clock.estimate): `eta` the pace's ETA in
 * seconds (or null), `left` the steps left (or null), `measuredAt` the time of the pace's
 * latest training log, `lastTime` the run's last line's. */
export function estimate(eta, left, measuredAt, lastTime, now) {
  const silence = lastTime === null ? null : Math.max(now - lastTime, 0);
  let stepSeconds = null;
  if (eta !== null && left !== null && left > 0) {
    const value = eta / left;
    stepSeconds = Number.isFinite(value) && value > 0 ? value : null;
  }
  const stale = silence !== null && silence > staleAfter(stepSeconds);
  let remaining = null;
  if (eta !== null && !stale) {
    const since = measuredAt === null ? 0 : Math.max(now - measuredAt, 0);
    remaining = Math.max(eta - since, 0);
  }
  return { remaining, stale, silence };
}

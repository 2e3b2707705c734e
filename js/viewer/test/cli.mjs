// The command line as the viewer's tests ask it: the console script OVERBRAINER_CONTRACT names
// (default: `overbrainer-contract` on the PATH), and the rows of its one-run screen.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

export const CLI = process.env.OVERBRAINER_CONTRACT || "overbrainer-contract";

/** The rows of the command line's screen of `path` (a run folder or its metrics file) at
 * `now` (`overbrainer-contract status --color never --now`), label → text: each row its
 * label, padded, then its text. */
export function screenOf(path, now) {
  const done = spawnSync(CLI, ["status", "--color", "never", "--now", String(now), path], { encoding: "utf8" });
  if (done.error) throw new Error(`${CLI}: ${done.error.message} (OVERBRAINER_CONTRACT names the console script)`);
  assert.ok(done.status === 0 || done.status === 1, `status ${path}: exit ${done.status}: ${done.stderr}`);
  const rows = {};
  for (const line of done.stdout.split("\n").filter(Boolean)) {
    const [, label, text] = /^(\S+(?: \S+)*) {2,}(.*)$/.exec(line);
    rows[label] = text;
  }
  return rows;
}

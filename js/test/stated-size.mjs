// A size the docs state of a built file ("about 930 KB", "about 1.3 MB": decimal units), and
// how far it may be from the file's: SLACK, a share of the file's size. Used by the tests that
// hold the docs to the build (test/sizes.test.mjs, viewer/test/sizes.test.mjs).

import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";

/** How far a size the docs state may be from the built file's, as a share of the file's. */
export const SLACK = 0.1;

/** The bytes of "N KB" or "N MB" (decimal units, the number maybe with commas). */
export function bytesOf(number, unit) {
  return Number(number.replaceAll(",", "")) * { KB: 1e3, MB: 1e6 }[unit];
}

/** Asserts that `doc` states, where `before` (a regular expression's source) is followed by
 * "about N KB" or "about N MB", the size of the file at `built` within SLACK. */
export function assertStated(doc, before, built) {
  const text = readFileSync(doc, "utf8");
  const stated = new RegExp(`${before}\\s+\\(?about ([\\d,.]+) (KB|MB)\\b`).exec(text);
  assert.ok(stated, `${doc} states the size after /${before}/ as "about N KB" or "about N MB"`);
  const size = statSync(built).size;
  const said = bytesOf(stated[1], stated[2]);
  const nearest = size >= 1e6 ? `${(size / 1e6).toFixed(1)} MB` : `${Math.round(size / 1e4) * 10} KB`;
  assert.ok(
    Math.abs(said - size) <= size * SLACK,
    `${doc} says about ${stated[1]} ${stated[2]}; the build made ${built} of ${size.toLocaleString("en")} bytes: say about ${nearest}`,
  );
}

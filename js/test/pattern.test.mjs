// The core's patterns through the package (`matchPattern`): matched as the command line
// matches them, in one pass over a long text; a pattern past the core's bounds refused in one
// line. Each answer is reasoned from the pattern and the text.

import assert from "node:assert/strict";
import { it } from "node:test";
import { matchPattern } from "../dist/index.js";

it("answers each text with its group's key, the first capture group else the match", () => {
  const names = ["a-lr1-s1", "b-lr2-s1", "solo", "seed1"];
  assert.deepEqual(matchPattern("lr(\\d)", names), ["1", "2", null, null]);
  assert.deepEqual(matchPattern("lr\\d", names), ["lr1", "lr2", null, null]);
  assert.deepEqual(matchPattern("(x)|seed", names), [null, null, null, ""]);
  assert.deepEqual(matchPattern("é(.)", ["aéü", "e"]), ["ü", null]);
  assert.deepEqual(matchPattern("a", []), []);
});

it("matches a glob against the whole key, as fnmatch does", () => {
  const keys = ["rewards/chosen", "loss", "eval_loss", "a]b", "x!"];
  assert.deepEqual(matchPattern("*loss", keys, { glob: true }), [null, "loss", "eval_loss", null, null]);
  assert.deepEqual(matchPattern("a[]]b", keys, { glob: true }), [null, null, null, "a]b", null]);
  assert.deepEqual(matchPattern("x[!a-z]", keys, { glob: true }), [null, null, null, null, "x!"]);
});

it("answers a pattern that backtracks elsewhere in one pass", () => {
  // a backtracking engine tries every split of the a's between the two `+`
  const long = `${"a".repeat(100_000)}!`;
  assert.deepEqual(matchPattern("(a+)+$", [long, "aa"]), [null, "aa"]);
  const stars = `${"*a".repeat(50)}*b`;
  assert.deepEqual(matchPattern(stars, ["a".repeat(300_000)], { glob: true }), [null]);
});

it("refuses a pattern past the core's bounds in one line", () => {
  for (const [pattern, why] of [["a{99999999999}", /decimal/], ["(".repeat(2000) + ")".repeat(2000), /nest/], ["a{1000}{1000}", /size limit/], ["(", /unclosed/]]) {
    assert.throws(() => matchPattern(pattern, ["a"]), (error) => error instanceof SyntaxError && why.test(error.message) && !error.message.includes("\n"));
  }
});

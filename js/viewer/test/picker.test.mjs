// The picker's globs, the runs' names and order, the picked keys' sections, the groups and the
// labels: the reader core's rules (overbrainer_core::names, ::groups), which the page asks
// through the package's WebAssembly and the command line through Python's binding. The
// expectations are reasoned from the rules; each face is held to them, the page's here and
// Python's through python3 (the package installed), so that both give the core's answer. The
// globs are held to Python's fnmatch.fnmatchcase, the rule they follow.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { it } from "node:test";
import * as core from "../../dist/index.js";
import { bandOf, groupKeys } from "../src/groups.js";
import { naturalCompare, useCore } from "../src/names.js";

useCore(/** @type {any} */ (core));

const PYTHON = process.env.PYTHON || "python3";

/** `script` run by python3 on `input` (JSON), its JSON answer. */
function python(script, input) {
  return JSON.parse(execFileSync(PYTHON, ["-c", script], { input: JSON.stringify(input), encoding: "utf8" }));
}

const KEYS = [
  "loss", "eval_loss", "learning_rate", "grad_norm", "eval_accuracy", "rewards/chosen", "rewards/rejected",
  "rewards/margins", "train/x", "train/y/z", "a-b", "a.b", "a]b", "x[1]", "x!", "Ünïcode/ß", "num_input_tokens_seen",
  "", "*", "?", "[", "a\nb", "logps/chosen", "logits/rejected",
];
const PATTERNS = [
  "*", "?", "??*", "rewards/*", "*/*", "eval_*", "*loss", "[el]*", "[!el]*", "[a-f]*", "[z-a]*", "a[.-]b", "a[]]b",
  "x[[]1]", "x[!]]*", "x[1", "[", "[!]", "*[!/]", "r*s/m*", "Ü*", "*ß", "\\*", "a?b", "log[ip]*/*", "[*]", "[?]",
];

it("matches a glob as Python's fnmatch.fnmatchcase does", () => {
  const script = "import sys, json, fnmatch; d = json.load(sys.stdin); print(json.dumps([[fnmatch.fnmatchcase(k, p) for k in d['keys']] for p in d['patterns']]))";
  const want = python(script, { keys: KEYS, patterns: PATTERNS });
  PATTERNS.forEach((pattern, at) => {
    const matched = core.matchPattern(pattern, KEYS, { glob: true }).map((key) => key !== null);
    assert.deepEqual(matched, want[at], `pattern ${JSON.stringify(pattern)}`);
  });
});

// Names in the natural order, reasoned: numbers (runs of ASCII digits) as numbers of any size,
// the rest by code point, a name that ends first before a longer one, a tie by code point.
const NAMES = ["seed10", "seed2", "seed1", "a/seed2", "a/seed10", "b", "B", "lr1e-4-seed3", "lr1e-4-seed12", "x01", "x1", "é", "z", "10", "9", "", "ü2", "ü10", `n${"9".repeat(5000)}`, `n1${"0".repeat(5000)}`, "\u0661\u0662"];
const ORDERED = ["", "9", "10", "B", "a/seed2", "a/seed10", "b", "lr1e-4-seed3", "lr1e-4-seed12", `n${"9".repeat(5000)}`, `n1${"0".repeat(5000)}`, "seed1", "seed2", "seed10", "x01", "x1", "z", "é", "ü2", "ü10", "\u0661\u0662"];

it("orders names by the core's natural order, as the command line does", () => {
  assert.deepEqual([...NAMES].sort(naturalCompare), ORDERED);
  assert.deepEqual(core.naturalOrder(NAMES).map((at) => NAMES[at]), ORDERED);
  const script = "import sys, json; from overbrainer_contract.runs.discover import natural_key; print(json.dumps(sorted(json.load(sys.stdin), key=natural_key)))";
  assert.deepEqual(python(script, NAMES), ORDERED);
});

it("picks keys in the patterns' order, each once, under their prefixes", () => {
  const picked = core.pickKeys(["rewards/*", "eval_*", "*loss", "rewards/chosen"], KEYS);
  assert.deepEqual(picked, ["rewards/chosen", "rewards/margins", "rewards/rejected", "eval_accuracy", "eval_loss", "loss"]);
  assert.deepEqual(core.sections(picked), [
    { heading: "", keys: ["eval_accuracy", "eval_loss", "loss"] },
    { heading: "rewards", keys: ["rewards/chosen", "rewards/margins", "rewards/rejected"] },
  ]);
  assert.deepEqual(core.sections(core.pickKeys(["train/*"], KEYS)), [{ heading: "train", keys: ["train/x"] }, { heading: "train/y", keys: ["train/y/z"] }]);
  assert.deepEqual(core.pickKeys(["nothing"], KEYS), []);
  assert.deepEqual(core.patternsOf(" loss, eval_*,, "), ["loss", "eval_*"]);
  assert.equal(core.DEFAULT_PATTERNS, "loss,eval_loss,learning_rate");
  // a glob of many stars over a long key: one pass of the core's (a backtracking engine
  // tries every way of placing the stars)
  const long = "a".repeat(300_000);
  assert.deepEqual(core.pickKeys([`${"*a".repeat(50)}*b`, "a*"], [long, "b"]), [long]);
  const script = [
    "import sys, json; from overbrainer_contract.cli import plot",
    "d = json.load(sys.stdin); p = plot.pick_keys(d['globs'], d['keys'])",
    "print(json.dumps([p, plot.sections(p), list(plot.PLOTTED)]))",
  ].join("\n");
  const globs = ["rewards/*", "eval_*", "*loss", "rewards/chosen"];
  assert.deepEqual(python(script, { globs, keys: KEYS }), [
    picked,
    core.sections(picked).map(({ heading, keys }) => [heading, keys]),
    core.patternsOf(core.DEFAULT_PATTERNS),
  ]);
});

it("names runs by their path below the folder they have in common", () => {
  const placed = (unit) => ({ unit, placed: true });
  assert.deepEqual(core.runNames([placed("runs/a"), placed("runs/b")]), ["a", "b"]);
  assert.deepEqual(core.runNames([placed("nest/exp1/seed1"), placed("nest/exp2/seed1")]), ["exp1/seed1", "exp2/seed1"]);
  assert.deepEqual(core.runNames([placed("runs/7")]), ["7"]);
  assert.deepEqual(core.runNames([placed("tiny-run")]), ["tiny-run"]);
  assert.deepEqual(core.runNames([placed("x/a"), placed("y/b"), { unit: "metrics.jsonl", placed: false }, { unit: "metrics.jsonl", placed: false }]), [
    "x/a", "y/b", "metrics.jsonl", "metrics.jsonl (2)",
  ]);
  // a metrics file of another name stands for itself; a run folder's for its folder
  const names = ["metrics.jsonl", "metrics.jsonl.gz"];
  assert.equal(core.unitOf("runs/7/metrics.jsonl.gz", names), "runs/7");
  assert.equal(core.unitOf("runs/7/other.jsonl", names), "runs/7/other.jsonl");
  assert.deepEqual(core.runNames([placed(core.unitOf("runs/7/other.jsonl", names)), placed("runs/7")]), ["7/other.jsonl", "7"]);
  // Python's commands name runs of the same paths alike
  const script = [
    "import sys, json; from overbrainer_contract import _core",
    "print(json.dumps(_core.run_names([(u, True) for u in json.load(sys.stdin)])))",
  ].join("\n");
  assert.deepEqual(python(script, ["/w/nest/exp1/seed1", "/w/nest/exp2/seed1"]), ["exp1/seed1", "exp2/seed1"]);
});

it("groups runs by the expression's first capture group, else its whole match", () => {
  const names = ["baseline", "lr1e-4-seed1", "lr1e-4-seed2", "lr3e-4-seed1", "lr1e-4-seed3"];
  const of = (text) => core.groupEntries(names.length, /** @type {(string | null)[] | null} */ (groupKeys(core, text, names))).map(({ key, members }) => [key, members]);
  assert.deepEqual(of("lr[^-]*"), [[null, [0]], ["lr1e", [1, 2, 4]], ["lr3e", [3]]]);
  assert.deepEqual(of("lr[^-]*-[^-]*"), [[null, [0]], ["lr1e-4", [1, 2, 4]], ["lr3e-4", [3]]]);
  assert.deepEqual(of("(lr.*)-seed"), [[null, [0]], ["lr1e-4", [1, 2, 4]], ["lr3e-4", [3]]]);
  assert.deepEqual(of("seed(\\d)|base"), [["", [0]], ["1", [1, 3]], ["2", [2]], ["3", [4]]]);
  assert.deepEqual(of(""), names.map((_, at) => [null, [at]]));
  assert.ok(groupKeys(core, "(", names) instanceof Error);
  assert.ok(groupKeys(core, "(".repeat(2000) + ")".repeat(2000), names) instanceof Error);
  // a name a backtracking engine would never be done with: answered in one pass
  const long = `${"a".repeat(100_000)}!`;
  assert.deepEqual(core.groupEntries(2, /** @type {(string | null)[]} */ (groupKeys(core, "(a+)+$", [long, "aa"]))), [
    { key: null, members: [0] },
    { key: "aa", members: [1] },
  ]);
  // Python's plot makes the same entries
  const script = [
    "import sys, json; from overbrainer_contract.cli import plot; from overbrainer_contract._core import Pattern",
    "print(json.dumps([[e.key, e.members] for e in plot.entries_of(json.load(sys.stdin), Pattern('lr[^-]*'))]))",
  ].join("\n");
  assert.deepEqual(python(script, names), of("lr[^-]*"));
});

it("bands a group: the mean and population deviation per step of the runs' last finite values", () => {
  // Step 0: 1 and 3 (mean 2, deviation 1); step 10: 5 alone (the other's last value there a
  // null); step 20: the first run's last value, 4, and 6 (mean 5, deviation 1).
  const points = (steps, values) => ({ steps: Float64Array.from(steps), values: Float64Array.from(values), length: steps.length });
  const members = [points([0, 10, 20, 20], [1, 5, 9, 4]), points([20, 0, 10, 10], [6, 3, 7, NaN]), null];
  const band = bandOf(core, members);
  assert.deepEqual([...band.steps], [0, 10, 20]);
  assert.deepEqual([...band.mean], [2, 5, 5]);
  assert.deepEqual([...band.std], [1, 0, 1]);
  assert.deepEqual([...band.count], [2, 1, 2]);
  assert.deepEqual([band.low, band.high, band.lowPositive], [1, 6, 1]);
  const script = [
    "import sys, json; from overbrainer_contract.cli import plot",
    "b = plot.band([(s, v) for s, v in json.load(sys.stdin)])",
    "print(json.dumps([list(map(float, each)) for each in b]))",
  ].join("\n");
  assert.deepEqual(python(script, [[[0, 10, 20, 20], [1, 5, 9, 4]], [[20, 0, 10, 10], [6, 3, 7, null]]]), [[0, 10, 20], [2, 5, 5], [1, 0, 1], [2, 1, 2]]);
});

it("cuts a long label to the core's LABEL_CHARS characters, as plot does", () => {
  assert.equal(core.LABEL_CHARS, 80);
  assert.equal(core.labelOf("k".repeat(300_000)), `${"k".repeat(79)}\u2026`);
  assert.equal(core.labelOf("é".repeat(80)), "é".repeat(80)); // 80 characters: whole
  assert.equal(core.labelOf("😀".repeat(80)), "😀".repeat(80)); // 160 UTF-16 units, 80 characters
  assert.equal(core.labelOf("😀".repeat(81)), `${"😀".repeat(79)}\u2026`);
  assert.deepEqual(core.labelsOf(["a", "é".repeat(81)]), ["a", `${"é".repeat(79)}\u2026`]);
  const script = "import sys, json; from overbrainer_contract.cli import plot; print(json.dumps([plot.LABEL_CHARS, plot.label_of(json.load(sys.stdin))]))";
  assert.deepEqual(python(script, "😀".repeat(81)), [core.LABEL_CHARS, core.labelOf("😀".repeat(81))]);
});

// The picker's globs, the runs' order and the groups' keys, held to Python's own rules (python3
// is the oracle, as the command line's `plot` follows them): fnmatch.fnmatchcase for a glob
// against a key, runs/discover.py's `natural_key` for the order of names. The groups' keys
// and the table's order are checked on cases written here.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { it } from "node:test";
import { matchPattern } from "../../dist/index.js";
import { pickKeys, sections } from "../src/glob.js";
import { entriesOf, groupKeys } from "../src/groups.js";
import { namesOf, naturalCompare } from "../src/names.js";
import { LABEL_CHARS, labelOf } from "../src/plot.js";
import { FIELDS, scalarColumn, sortRows } from "../src/table.js";

const PYTHON = process.env.PYTHON || "python3";

/** The core's patterns, as the page is given them (the package's WebAssembly). */
const core = { matchPattern };

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
    const matched = matchPattern(pattern, KEYS, { glob: true }).map((key) => key !== null);
    assert.deepEqual(matched, want[at], `pattern ${JSON.stringify(pattern)}`);
  });
});

it("orders names as runs/discover.py's natural_key does", () => {
  const names = ["seed10", "seed2", "seed1", "a/seed2", "a/seed10", "b", "B", "lr1e-4-seed3", "lr1e-4-seed12", "lr3e-2", "x01", "x1", "x001a", "é", "z", "10", "9", "", "ü2", "ü10"];
  const script = [
    "import sys, json, re",
    "D = re.compile(r'(\\d+)')",
    "key = lambda t: [(0, int(p), '') if p.isdigit() else (1, 0, p) for p in D.split(t)]",
    "print(json.dumps(sorted(json.load(sys.stdin), key=key)))",
  ].join("\n");
  assert.deepEqual([...names].sort(naturalCompare), python(script, names));
});

it("picks keys in the patterns' order, each once, under their prefixes", () => {
  const picked = pickKeys(core, ["rewards/*", "eval_*", "*loss", "rewards/chosen"], KEYS);
  assert.deepEqual(picked, ["rewards/chosen", "rewards/margins", "rewards/rejected", "eval_accuracy", "eval_loss", "loss"]);
  assert.deepEqual(sections(picked), [
    { heading: "", keys: ["eval_accuracy", "eval_loss", "loss"] },
    { heading: "rewards", keys: ["rewards/chosen", "rewards/margins", "rewards/rejected"] },
  ]);
  assert.deepEqual(sections(pickKeys(core, ["train/*"], KEYS)), [{ heading: "train", keys: ["train/x"] }, { heading: "train/y", keys: ["train/y/z"] }]);
  assert.deepEqual(pickKeys(core, ["nothing"], KEYS), []);
  // a glob of many stars over a long key: one pass of the core's (a backtracking engine
  // tries every way of placing the stars)
  const long = "a".repeat(300_000);
  assert.deepEqual(pickKeys(core, [`${"*a".repeat(50)}*b`, "a*"], [long, "b"]), [long]);
});

it("names runs by their path below the folder they have in common", () => {
  const placed = (unit) => ({ unit, placed: true });
  assert.deepEqual(namesOf([placed("runs/a"), placed("runs/b")]), ["a", "b"]);
  assert.deepEqual(namesOf([placed("nest/exp1/seed1"), placed("nest/exp2/seed1")]), ["exp1/seed1", "exp2/seed1"]);
  assert.deepEqual(namesOf([placed("runs/7")]), ["7"]);
  assert.deepEqual(namesOf([placed("tiny-run")]), ["tiny-run"]);
  assert.deepEqual(namesOf([placed("x/a"), placed("y/b"), { unit: "metrics.jsonl", placed: false }, { unit: "metrics.jsonl", placed: false }]), [
    "x/a", "y/b", "metrics.jsonl", "metrics.jsonl (2)",
  ]);
  // a metrics file of another name stands for itself
  assert.deepEqual(namesOf([placed("runs/7/other.jsonl"), placed("runs/7")]), ["7/other.jsonl", "7"]);
});

it("groups runs by the expression's first capture group, else its whole match", () => {
  const names = ["baseline", "lr1e-4-seed1", "lr1e-4-seed2", "lr3e-4-seed1", "lr1e-4-seed3"];
  const of = (text) => entriesOf(names, /** @type {(string | null)[] | null} */ (groupKeys(core, text, names))).map(({ key, members }) => [key, members]);
  assert.deepEqual(of("lr[^-]*"), [[null, [0]], ["lr1e", [1, 2, 4]], ["lr3e", [3]]]);
  assert.deepEqual(of("lr[^-]*-[^-]*"), [[null, [0]], ["lr1e-4", [1, 2, 4]], ["lr3e-4", [3]]]);
  assert.deepEqual(of("(lr.*)-seed"), [[null, [0]], ["lr1e-4", [1, 2, 4]], ["lr3e-4", [3]]]);
  assert.deepEqual(of("seed(\\d)|base"), [["", [0]], ["1", [1, 3]], ["2", [2]], ["3", [4]]]);
  assert.deepEqual(of(""), names.map((_, at) => [null, [at]]));
  assert.ok(groupKeys(core, "(", names) instanceof Error);
  assert.ok(groupKeys(core, "(".repeat(2000) + ")".repeat(2000), names) instanceof Error);
  // a name a backtracking engine would never be done with: answered in one pass
  const long = `${"a".repeat(100_000)}!`;
  assert.deepEqual(entriesOf([long, "aa"], /** @type {(string | null)[]} */ (groupKeys(core, "(a+)+$", [long, "aa"]))), [
    { key: null, members: [0] },
    { key: "aa", members: [1] },
  ]);
});

it("cuts a long label where plot.py cuts it", () => {
  const script = "import json; from overbrainer_contract.cli import plot; print(json.dumps(plot.LABEL_CHARS))";
  assert.equal(LABEL_CHARS, python(script, null));
  assert.equal(labelOf("k".repeat(300_000)), `${"k".repeat(79)}\u2026`);
  assert.equal(labelOf("é".repeat(80)), "é".repeat(80)); // 80 characters: whole
  assert.equal(labelOf("😀".repeat(80)), "😀".repeat(80)); // 160 UTF-16 units, 80 characters
  assert.equal(labelOf("😀".repeat(81)), `${"😀".repeat(79)}\u2026`);
});

it("sorts the table's rows, the rows without a value last either way", () => {
  const record = (loss, accuracy) => ({
    loss: loss === null ? null : { step: 1, value: loss },
    scalars: accuracy === undefined ? {} : { eval_accuracy: { last: { step: 1, value: accuracy }, min: null, max: null } },
  });
  const rows = [
    { name: "run10", record: record(2, 0.5) },
    { name: "run2", record: record(null, "NaN") },
    { name: "run1", record: record(3, "Infinity") },
    { name: "run3", record: record(1, undefined) },
    { name: "run4", record: record(2, null) },
    { name: "run5", record: record(null, "-Infinity") },
  ];
  const loss = /** @type {import("../src/table.js").Column} */ (FIELDS.find((each) => each.id === "loss"));
  const order = (column, descending) => sortRows(rows, column, descending).map((row) => row.name);
  assert.deepEqual(order(loss, false), ["run3", "run4", "run10", "run1", "run2", "run5"]);
  assert.deepEqual(order(loss, true), ["run1", "run4", "run10", "run3", "run2", "run5"]);
  const accuracy = scalarColumn("eval_accuracy");
  assert.deepEqual(order(accuracy, false), ["run5", "run10", "run1", "run2", "run3", "run4"]);
  assert.deepEqual(order(accuracy, true), ["run1", "run10", "run5", "run2", "run3", "run4"]);
  const name = /** @type {import("../src/table.js").Column} */ (FIELDS.find((each) => each.id === "name"));
  assert.deepEqual(sortRows(rows, name, false).map((row) => row.name), ["run1", "run2", "run3", "run4", "run5", "run10"]);
});

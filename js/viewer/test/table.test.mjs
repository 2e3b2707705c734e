// The runs table's order: its rows sorted by a column, the rows without a value last either
// way, ties in the natural order of their names (the core's, `naturalCompare`).

import assert from "node:assert/strict";
import { it } from "node:test";
import * as core from "../../dist/index.js";
import { useCore } from "../src/names.js";
import { columnsOf, scalarColumn, sortRows } from "../src/table.js";

useCore(/** @type {any} */ (core));

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
  const columns = columnsOf(/** @type {any} */ (core), []);
  const loss = /** @type {import("../src/table.js").Column} */ (columns.find((each) => each.id === "loss"));
  const order = (column, descending) => sortRows(rows, column, descending).map((row) => row.name);
  assert.deepEqual(order(loss, false), ["run3", "run4", "run10", "run1", "run2", "run5"]);
  assert.deepEqual(order(loss, true), ["run1", "run4", "run10", "run3", "run2", "run5"]);
  const accuracy = scalarColumn("eval_accuracy", 5);
  assert.deepEqual(order(accuracy, false), ["run5", "run10", "run1", "run2", "run3", "run4"]);
  assert.deepEqual(order(accuracy, true), ["run1", "run10", "run5", "run2", "run3", "run4"]);
  const name = /** @type {import("../src/table.js").Column} */ (columns.find((each) => each.id === "name"));
  assert.deepEqual(sortRows(rows, name, false).map((row) => row.name), ["run1", "run2", "run3", "run4", "run5", "run10"]);
});

it("lays out the command line's columns, each cell the core's of the same index", () => {
  const columns = columnsOf(/** @type {any} */ (core), ["eval_accuracy"]);
  const [before, after] = core.headings();
  assert.deepEqual(columns.map((each) => each.heading), [...before, "eval_accuracy", ...after]);
  assert.deepEqual(columns.map((each) => each.at), columns.map((_, at) => at));
});

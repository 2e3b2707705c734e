// The table of many runs: one row per run, the fields of the core's status record (the
// package's `Status` report, what `status -o json` writes) in the words and number formats of
// `overbrainer-contract status`'s table (cli/status.py `_cells`), then one column per key of
// the records' `scalars` (its latest value; the union of the keys over the runs). Sorted by
// any column: a click on its heading sorts ascending, a second descending; the runs without
// a value there last either way, the ties in the order of their names. Every text is set as
// text (textContent), never markup.

import { ago, formatDuration, formatG, percent, thousands } from "./format.js";
import { codePointCompare, naturalCompare } from "./names.js";

/** @typedef {import("overbrainer-contract/core").StatusReport} StatusReport */
/** @typedef {{ name: string, record: StatusReport }} Row */
/** A column: its id, heading, a cell's text and exact value (or null), and the value a row is
 * sorted by (null: none, last).
 * @typedef {{ id: string, heading: string, cell: (record: StatusReport) => [string, string | null],
 *   key: (row: Row) => number | string | null, text?: boolean }} Column */

/** The phases in the schema's order: a run's course, `waiting` to `ended` (how `status
 * --sort stage` orders them). */
const PHASES = ["waiting", "started", "training", "evaluating", "ended"];

/** @param {number | bigint} value @returns {number} */
const count = (value) => Number(value);

/** A `{step, value}` as a cell: `.4g`, the exact value and its step as the title.
 * @param {{ step: number | bigint, value: number } | null | undefined} stepValue
 * @returns {[string, string | null]} */
function valueCell(stepValue) {
  if (stepValue === null || stepValue === undefined) return ["-", null];
  return [formatG(stepValue.value, 4), `${stepValue.value} at step ${thousands(stepValue.step)}`];
}

/** A scalar's value as the row is sorted by it: a number, the infinities as numbers; NaN and
 * null as none.
 * @param {unknown} value
 * @returns {number | null} */
function scalarKey(value) {
  if (typeof value === "number") return value;
  if (value === "Infinity") return Infinity;
  if (value === "-Infinity") return -Infinity;
  return null;
}

/** The status record's columns.
 * @type {Column[]} */
export const FIELDS = [
  {
    id: "name",
    heading: "name",
    text: true,
    cell: (record) => [record.run, null],
    key: (row) => row.name,
  },
  {
    id: "phase",
    heading: "phase",
    text: true,
    cell: (record) => {
      let phase = record.phase;
      const { evaluation } = record;
      if (evaluation !== null && evaluation.total) phase += ` ${evaluation.step}/${evaluation.total}`;
      if (record.begins > 1) phase += ", resumed";
      return [phase, null];
    },
    key: (row) => PHASES.indexOf(row.record.phase),
  },
  {
    id: "step",
    heading: "step / max_steps",
    cell: (record) => [thousands(record.step) + (record.max_steps === null ? "" : `/${thousands(record.max_steps)}`), null],
    key: (row) => count(row.record.step),
  },
  {
    id: "progress",
    heading: "progress",
    cell: (record) => (record.progress === null ? ["-", null] : [percent(record.progress), String(record.progress)]),
    key: (row) => row.record.progress,
  },
  {
    id: "loss",
    heading: "loss",
    cell: (record) => valueCell(record.loss),
    key: (row) => row.record.loss?.value ?? null,
  },
  {
    id: "eval_loss",
    heading: "eval loss",
    cell: (record) => valueCell(record.eval_loss),
    key: (row) => row.record.eval_loss?.value ?? null,
  },
  {
    id: "best_eval_loss",
    heading: "best eval loss",
    cell: (record) => {
      const best = record.best_eval_loss;
      if (best === null) return ["-", null];
      return [`${formatG(best.value, 4)} @${thousands(best.step)}`, String(best.value)];
    },
    key: (row) => row.record.best_eval_loss?.value ?? null,
  },
  {
    id: "eta",
    heading: "ETA",
    cell: (record) => {
      if (record.ended) return ["-", null];
      if (record.eta_stale) return ["stale", null];
      const remaining = record.eta_remaining_seconds;
      return remaining === null ? ["?", null] : [formatDuration(remaining), String(remaining)];
    },
    key: (row) => row.record.eta_remaining_seconds,
  },
  {
    id: "last_line",
    heading: "last line",
    cell: (record) => {
      const silence = record.last_line_seconds;
      if (record.last_time === null || silence === null) return ["-", null];
      return [silence < 0 ? `${ago(-silence)} ahead` : `${ago(silence)} ago`, null];
    },
    key: (row) => row.record.last_line_seconds,
  },
  {
    id: "valid",
    heading: "valid",
    text: true,
    cell: (record) => [record.valid ? "yes" : "no", null],
    key: (row) => (row.record.valid ? 1 : 0),
  },
];

/** The column of a scalars key: its latest value, `.4g` (its word when not finite, `null`
 * for a null), the exact value and its step as the title; `-` for a run without the key.
 * @param {string} key
 * @returns {Column} */
export function scalarColumn(key) {
  return {
    id: `scalars:${key}`,
    heading: key,
    cell: (record) => {
      const stats = record.scalars?.[key];
      if (stats === undefined) return ["-", null];
      const { value, step } = stats.last;
      if (value === null) return ["null", `null at step ${thousands(step)}`];
      if (typeof value === "string") return [value, `${value} at step ${thousands(step)}`];
      return [formatG(value, 4), `${value} at step ${thousands(step)}`];
    },
    key: (row) => {
      const stats = row.record.scalars?.[key];
      return stats === undefined ? null : scalarKey(stats.last.value);
    },
  };
}

/** The rows in the order of `column` (ascending, or descending when `descending`): the rows
 * without a value last either way, ties (and those) in the order of their names.
 * @param {Row[]} rows
 * @param {Column} column
 * @param {boolean} descending
 * @returns {Row[]} */
export function sortRows(rows, column, descending) {
  const named = [...rows].sort((a, b) => naturalCompare(a.name, b.name));
  const keyed = named.map((row) => ({ row, key: column.key(row) }));
  const known = keyed.filter(({ key }) => key !== null && !(typeof key === "number" && Number.isNaN(key)));
  const isKnown = new Set(known);
  const unknown = keyed.filter((each) => !isKnown.has(each));
  const order = (/** @type {number | string} */ a, /** @type {number | string} */ b) => {
    if (typeof a === "string" && typeof b === "string") return column.id === "name" ? naturalCompare(a, b) : codePointCompare(a, b);
    return a < b ? -1 : a > b ? 1 : 0;
  };
  known.sort((a, b) => (descending ? order(/** @type {number | string} */ (b.key), /** @type {number | string} */ (a.key)) : order(/** @type {number | string} */ (a.key), /** @type {number | string} */ (b.key))));
  return [...known, ...unknown].map(({ row }) => row);
}

/** The table of runs in `table` (a <table> element), redrawn by `render`, sorted by a click
 * on a heading. */
export class RunTable {
  /** @param {HTMLTableElement} table */
  constructor(table) {
    this.table = table;
    /** @type {string | null} the id of the column sorted by; null: the runs' order */
    this.sortedBy = null;
    this.descending = false;
    /** @type {Row[]} */
    this.rows = [];
    /** @type {string | null} the columns and the sort the heading was made for */
    this.heading = null;
    /** @type {HTMLTableSectionElement | null} */
    this.body = null;
    /** Each run's row as shown: its cells and their texts and titles, by column.
     * @type {Map<string, { row: HTMLTableRowElement, cells: HTMLTableCellElement[], texts: string[], titles: (string | null)[] }>} */
    this.shown = new Map();
    table.addEventListener("click", (event) => {
      const target = event.target instanceof Element ? event.target.closest("th[data-column]") : null;
      if (!(target instanceof HTMLElement) || target.dataset.column === undefined) return;
      const id = target.dataset.column;
      this.sortBy(id);
    });
    table.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      const target = event.target instanceof HTMLElement ? event.target : null;
      if (target === null || target.dataset.column === undefined || target.tagName !== "TH") return;
      event.preventDefault();
      this.sortBy(target.dataset.column);
    });
  }

  /** Sorted by the column `id`: ascending, descending when it was already sorted ascending.
   * @param {string} id */
  sortBy(id) {
    this.descending = this.sortedBy === id ? !this.descending : false;
    this.sortedBy = id;
    this.render(this.rows);
  }

  /** The table of these rows (runs in their order), sorted as asked. The table is updated
   * in place: a heading made again only when the columns or the sort change, a row's cell
   * touched only when its text or title changed, the rows moved only where the order did. A
   * sweep of 1,000 runs with one growing costs that one row's cells, not 1,000 rows' elements
   * made again and laid out from nothing.
   * @param {Row[]} rows */
  render(rows) {
    this.rows = rows;
    const keys = new Set();
    for (const { record } of rows) for (const key of Object.keys(record.scalars ?? {})) keys.add(key);
    const columns = [...FIELDS, ...[...keys].sort(codePointCompare).map(scalarColumn)];
    const column = columns.find((each) => each.id === this.sortedBy) ?? null;
    const ordered = column === null ? rows : sortRows(rows, column, this.descending);
    const heading = JSON.stringify([columns.map((each) => each.id), this.sortedBy, this.descending]);
    if (heading !== this.heading) {
      // other columns: every row made again (its cells are the columns')
      this.heading = heading;
      this.shown.clear();
      const head = document.createElement("tr");
      for (const each of columns) {
        const cell = document.createElement("th");
        cell.textContent = each.heading;
        cell.dataset.column = each.id;
        cell.scope = "col";
        cell.tabIndex = 0;
        if (each.id === this.sortedBy) cell.setAttribute("aria-sort", this.descending ? "descending" : "ascending");
        if (each.id.startsWith("scalars:")) cell.classList.add("scalar");
        head.append(cell);
      }
      const thead = document.createElement("thead");
      thead.append(head);
      this.body = document.createElement("tbody");
      this.table.replaceChildren(thead, this.body);
    }
    const body = /** @type {HTMLTableSectionElement} */ (this.body);
    /** @type {Set<string>} */
    const named = new Set();
    let at = /** @type {ChildNode | null} */ (body.firstChild);
    for (const { name, record } of ordered) {
      // a row by its run's name (a second run of the same name, its own row)
      let key = name;
      for (let again = 2; named.has(key); again += 1) key = `${name}\u0000${again}`;
      named.add(key);
      let shown = this.shown.get(key);
      if (shown === undefined) {
        const row = document.createElement("tr");
        row.dataset.run = name;
        /** @type {HTMLTableCellElement[]} */
        const cells = [];
        for (const each of columns) {
          const cell = document.createElement("td");
          cell.dataset.column = each.id;
          if (!each.text) cell.classList.add("number");
          row.append(cell);
          cells.push(cell);
        }
        shown = { row, cells, texts: columns.map(() => ""), titles: columns.map(() => null) };
        this.shown.set(key, shown);
      }
      for (let index = 0; index < columns.length; index += 1) {
        const [text, title] = columns[index].cell(record);
        if (shown.texts[index] !== text) {
          shown.cells[index].textContent = text;
          shown.texts[index] = text;
        }
        if (shown.titles[index] !== title) {
          if (title === null) shown.cells[index].removeAttribute("title");
          else shown.cells[index].title = title;
          shown.titles[index] = title;
        }
      }
      // in the order asked: moved only when it is not already where it belongs
      if (at === shown.row) at = at.nextSibling;
      else body.insertBefore(shown.row, at);
    }
    for (const [key, { row }] of this.shown) {
      if (named.has(key)) continue;
      row.remove();
      this.shown.delete(key);
    }
  }
}

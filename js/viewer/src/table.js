// The table of many runs: one row per run, the cells of `overbrainer-contract status`'s table
// of runs, the core's words (the package's `cells`, made from the core's status record, what
// `status -o json` writes), then one column per key of the records' `scalars` (its latest
// value, as `--metric KEY` shows it; the union of the keys over the runs). Sorted by any
// column: a click on its heading sorts ascending, a second descending; the runs without a
// value there last either way, the ties in the order of their names. Every text is set as
// text (textContent), never markup.
//
// A virtual table: every run is sorted, but only the rows in the scrolled box's view (and a
// few either side) are in the page, their cells made by the core when they come into view;
// the rows above and below are the padding of the table's sizer, so that the box scrolls as
// if they were there. A sweep of 10,000 runs costs the page some 50 rows.

import { codePointCompare, naturalCompare } from "./names.js";

/** @typedef {import("overbrainer-contract/core").Api} Api */
/** @typedef {import("overbrainer-contract/core").StatusReport} StatusReport */
/** @typedef {{ name: string, record: StatusReport }} Row */
/** A column: its id, its heading, the index of its cell among the core's cells of a row, the
 * exact value behind a rounded cell (or null), and the value a row is sorted by (null: none,
 * last).
 * @typedef {{ id: string, heading: string, at: number, title: (record: StatusReport) => string | null,
 *   key: (row: Row) => number | string | null, text?: boolean }} Column */

/** The phases in the schema's order: a run's course, `waiting` to `ended` (how `status
 * --sort stage` orders them). */
const PHASES = ["waiting", "started", "training", "evaluating", "ended"];

/** @param {number | bigint} value @returns {number} */
const count = (value) => Number(value);

/** @param {{ value: number } | null | undefined} stepValue @returns {string | null} */
const exact = (stepValue) => (stepValue === null || stepValue === undefined ? null : String(stepValue.value));

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

/** The columns of the command line's table before the scalars (the core's cells 0 to 4), and
 * after them (the last five), by id; the headings are the core's (`headings()`).
 * @type {[Omit<Column, "heading" | "at">[], Omit<Column, "heading" | "at">[]]} */
const COLUMNS = [
  [
    { id: "name", text: true, title: () => null, key: (row) => row.name },
    { id: "stage", text: true, title: () => null, key: (row) => PHASES.indexOf(row.record.phase) },
    { id: "step", title: () => null, key: (row) => count(row.record.step) },
    { id: "loss", title: (record) => exact(record.loss), key: (row) => row.record.loss?.value ?? null },
    { id: "best_eval_loss", title: (record) => exact(record.best_eval_loss), key: (row) => row.record.best_eval_loss?.value ?? null },
  ],
  [
    {
      id: "eta",
      title: (record) => (record.eta_remaining_seconds === null || record.ended || record.eta_stale ? null : String(record.eta_remaining_seconds)),
      key: (row) => row.record.eta_remaining_seconds,
    },
    { id: "last_line", title: () => null, key: (row) => row.record.last_line_seconds },
    { id: "snapshot", text: true, title: () => null, key: (row) => row.record.snapshot?.taken?.step ?? null },
    { id: "invalid", title: () => null, key: (row) => count(row.record.invalid_lines) },
    { id: "alerts", text: true, title: () => null, key: (row) => count(row.record.alerts?.length ?? 0) },
  ],
];

/** The table's columns for these scalar keys: the command line's, each scalar's after the
 * fifth, as the core orders the cells of a row.
 * @param {Api} core
 * @param {string[]} keys
 * @returns {Column[]} */
export function columnsOf(core, keys) {
  const [before, after] = core.headings();
  const named = (/** @type {Omit<Column, "heading" | "at">} */ column, /** @type {string} */ heading, /** @type {number} */ at) => ({ ...column, heading, at });
  return [
    ...COLUMNS[0].map((column, index) => named(column, before[index], index)),
    ...keys.map((key, index) => scalarColumn(key, before.length + index)),
    ...COLUMNS[1].map((column, index) => named(column, after[index], before.length + keys.length + index)),
  ];
}

/** The column of a scalars key, its cell the core's `at`-th: its latest value, the exact
 * value as the title.
 * @param {string} key
 * @param {number} at
 * @returns {Column} */
export function scalarColumn(key, at) {
  return {
    id: `scalars:${key}`,
    heading: key,
    at,
    title: (record) => {
      const value = record.scalars?.[key]?.last.value;
      return typeof value === "number" ? String(value) : null;
    },
    key: (row) => {
      const stats = row.record.scalars?.[key];
      return stats === undefined ? null : scalarKey(stats.last.value);
    },
  };
}

/** A run's cells, the core's, for these scalar keys: its name the page's.
 * @param {Api} core
 * @param {Row} row
 * @param {string[]} keys
 * @returns {string[]} */
export function cellsOf(core, row, keys) {
  // `KEY:last`: the key's latest value, whatever the key ends in (`acc:max` is a key)
  return core.cells({ ...row.record, name: row.name }, { metrics: keys.map((key) => `${key}:last`) });
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

/** Rows made beyond each edge of the box's view: a short scroll shows rows already made. */
const OVERSCAN = 20;
/** A row's height before one is measured (CSS pixels). */
const ROW_HEIGHT = 24;

/** The table of runs in `table` (a <table> element in a sizer, in a scrolled box), redrawn by
 * `render`, sorted by a click on a heading, its rows in view made as the box scrolls. */
export class RunTable {
  /** @param {HTMLTableElement} table @param {Api} core */
  constructor(table, core) {
    this.table = table;
    this.core = core;
    /** the element whose padding stands for the rows not made, and the box that scrolls */
    this.sizer = /** @type {HTMLElement} */ (table.parentElement);
    this.box = /** @type {HTMLElement} */ (this.sizer.parentElement);
    /** @type {Row[]} the rows in the order shown, and each one's key (its run's name, a
     * second run of one name told apart) */
    this.ordered = [];
    /** @type {string[]} */
    this.keys = [];
    /** @type {Column[]} */
    this.columns = [];
    /** @type {string[]} */
    this.scalars = [];
    /** a row's height as measured, and the heading's */
    this.rowHeight = ROW_HEIGHT;
    this.measured = false;
    /** @type {[number, number]} the rows made: from, to (not included) */
    this.window = [0, 0];
    this.scrolled = false;
    this.box.addEventListener("scroll", () => {
      if (this.scrolled) return;
      this.scrolled = true;
      requestAnimationFrame(() => {
        this.scrolled = false;
        this.paint();
      });
    });
    /** @type {string | null} the id of the column sorted by; null: the runs' order */
    this.sortedBy = null;
    this.descending = false;
    /** @type {Row[]} */
    this.rows = [];
    /** @type {string | null} the columns and the sort the heading was made for */
    this.heading = null;
    /** @type {HTMLTableSectionElement | null} */
    this.body = null;
    /** Each row made (those in view): its cells and their texts and titles, by column.
     * `scalars`: its scalar cells, the core's, and the count of lines they were made at (the
     * clock does not move them: made again only when the run grew, not at every tick).
     * @type {Map<string, { row: HTMLTableRowElement, cells: HTMLTableCellElement[], texts: string[], titles: (string | null)[],
     *   scalars: { lines: number | bigint, texts: string[] } | null }>} */
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

  /** The table of these rows (runs in their order), sorted as asked, its rows in view made.
   * The table is updated in place: a heading made again only when the columns or the sort
   * change, a row's cell touched only when its text or title changed, the rows moved only
   * where the order did. A sweep of 10,000 runs with one growing costs a sort and the rows in
   * view, not 10,000 rows' elements made again and laid out from nothing.
   * @param {Row[]} rows */
  render(rows) {
    this.rows = rows;
    const keys = new Set();
    for (const { record } of rows) for (const key of Object.keys(record.scalars ?? {})) keys.add(key);
    const scalars = [...keys].sort(codePointCompare);
    const columns = columnsOf(this.core, scalars);
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
    // each row's key: its run's name, a second run of the same name told apart
    /** @type {Set<string>} */
    const named = new Set();
    this.keys = ordered.map(({ name }) => {
      let key = name;
      for (let again = 2; named.has(key); again += 1) key = `${name}\u0000${again}`;
      named.add(key);
      return key;
    });
    this.ordered = ordered;
    this.columns = columns;
    this.scalars = scalars;
    this.table.setAttribute("aria-rowcount", String(ordered.length + 1));
    this.paint();
  }

  /** The rows in the box's view made (and OVERSCAN either side), the others left to the
   * sizer's padding: a row made is touched only where its cells changed. */
  paint() {
    const body = /** @type {HTMLTableSectionElement | null} */ (this.body);
    if (body === null) return;
    const { ordered, keys, columns, scalars } = this;
    const head = this.table.tHead?.offsetHeight ?? 0;
    const top = this.box.scrollTop - head;
    const from = Math.max(0, Math.min(ordered.length, Math.floor(top / this.rowHeight) - OVERSCAN));
    // the box's view: as tall as the window at most (the box is only as tall as its rows
    // until the padding is laid out, and never taller than the window)
    const view = Math.max(this.box.clientHeight, globalThis.innerHeight || 0);
    const to = Math.min(ordered.length, Math.ceil((top + view) / this.rowHeight) + OVERSCAN);
    this.window = [from, Math.max(from, to)];
    /** @type {Set<string>} */
    const made = new Set();
    let at = /** @type {ChildNode | null} */ (body.firstChild);
    for (let index = from; index < to; index += 1) {
      const { name, record } = ordered[index];
      const key = keys[index];
      made.add(key);
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
        shown = { row, cells, texts: columns.map(() => ""), titles: columns.map(() => null), scalars: null };
        this.shown.set(key, shown);
      }
      shown.row.setAttribute("aria-rowindex", String(index + 2));
      const base = cellsOf(this.core, { name, record }, []);
      if (shown.scalars === null || shown.scalars.lines !== record.lines) {
        const cells = scalars.length === 0 ? [] : cellsOf(this.core, { name, record }, scalars);
        shown.scalars = { lines: record.lines, texts: cells.slice(5, 5 + scalars.length) };
      }
      const texts = [...base.slice(0, 5), ...shown.scalars.texts, ...base.slice(5)];
      // painted as the command line paints the row: an invalid run, a stale ETA
      shown.row.classList.toggle("invalid", !record.valid);
      shown.row.classList.toggle("stale", record.valid && record.eta_stale);
      // and a run with an alert: its alerts cell a badge
      shown.row.classList.toggle("alerted", (record.alerts?.length ?? 0) > 0);
      for (let column = 0; column < columns.length; column += 1) {
        const text = texts[columns[column].at] ?? "";
        const title = columns[column].title(record);
        if (shown.texts[column] !== text) {
          shown.cells[column].textContent = text;
          shown.texts[column] = text;
        }
        if (shown.titles[column] !== title) {
          if (title === null) shown.cells[column].removeAttribute("title");
          else shown.cells[column].title = title;
          shown.titles[column] = title;
        }
      }
      // in the order asked: moved only when it is not already where it belongs
      if (at === shown.row) at = at.nextSibling;
      else body.insertBefore(shown.row, at);
    }
    for (const [key, { row }] of this.shown) {
      if (made.has(key)) continue;
      row.remove();
      this.shown.delete(key);
    }
    if (!this.measured && to > from && body.offsetHeight > 0) {
      // the rows' height as laid out (rows of one line each): the padding's unit from now on
      this.rowHeight = body.offsetHeight / (to - from);
      this.measured = true;
    }
    const before = `${from * this.rowHeight}px`;
    const after = `${(ordered.length - to) * this.rowHeight}px`;
    if (this.sizer.style.paddingTop !== before) this.sizer.style.paddingTop = before;
    if (this.sizer.style.paddingBottom !== after) this.sizer.style.paddingBottom = after;
  }
}

// Runs named and ordered as the command line names and orders them: by the reader core's rules
// (overbrainer_core::names, through the package's WebAssembly: `runNames`, `unitOf`,
// `naturalCompare`), which Python's commands ask too. A run's name is its path below the
// folder the runs have in common; names are paths with `/`, as the browser gives them (a
// picked folder's webkitRelativePath, a dropped folder's entries).

/** @typedef {import("overbrainer-contract/core").Api} Api */

/** The core the page's names are ordered by, once loaded (`useCore`).
 * @type {Api | null} */
let core = null;

/** The core every order of names here asks, given once the page has loaded it.
 * @param {Api} api */
export function useCore(api) {
  core = api;
}

/** The order of names (the core's natural order: the numbers in them compared as numbers,
 * `seed2` before `seed10`, the rest by code point), a comparator for `sort`.
 * @param {string} a
 * @param {string} b
 * @returns {number} */
export function naturalCompare(a, b) {
  if (core === null) throw new Error("the reader core is not loaded");
  return core.naturalCompare(a, b);
}

/** Seconds as `status` writes a duration (the core's: `H:MM:SS`, below zero `0:00:00`).
 * @param {number} seconds
 * @returns {string} */
export function durationText(seconds) {
  if (core === null) throw new Error("the reader core is not loaded");
  return core.formatDuration(seconds);
}

/** Strings ordered by their code points, as Python orders `str` (JavaScript's `<` compares
 * UTF-16 code units, which differs past U+FFFF).
 * @param {string} a
 * @param {string} b
 * @returns {number} */
export function codePointCompare(a, b) {
  const x = [...a];
  const y = [...b];
  const count = Math.min(x.length, y.length);
  for (let i = 0; i < count; i += 1) {
    const p = /** @type {number} */ (x[i].codePointAt(0));
    const q = /** @type {number} */ (y[i].codePointAt(0));
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

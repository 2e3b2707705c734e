// Runs named as the command line names them (runs/discover.py): a run's name is its path
// below the folder the runs have in common — the nearest folder holding them all — where a
// run folder, or a metrics file named metrics.jsonl or metrics.jsonl.gz, stands for its
// folder and any other metrics file for itself. Names are paths with `/`, as the browser
// gives them (a picked folder's webkitRelativePath, a dropped folder's entries).

/** The order of names: the numbers in them compared as numbers (`seed2` before `seed10`),
 * the rest by code point (runs/discover.py `natural_key`).
 * @param {string} a
 * @param {string} b
 * @returns {number} */
export function naturalCompare(a, b) {
  const left = a.split(/(\d+)/);
  const right = b.split(/(\d+)/);
  const count = Math.min(left.length, right.length);
  for (let i = 0; i < count; i += 1) {
    if (left[i] === right[i]) continue;
    if (i % 2 === 1) {
      // both digits (split's odd parts): as integers of any size
      const x = BigInt(left[i]);
      const y = BigInt(right[i]);
      if (x !== y) return x < y ? -1 : 1;
      continue; // `01` and `1`: equal as numbers, as Python's int() reads them
    }
    return codePointCompare(left[i], right[i]);
  }
  return left.length - right.length;
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

/** What a run's name is made from: its folder (a run folder's path, or the folder of a file
 * named one of `metricsNames`), or the file's own path for a metrics file of another name.
 * `path` is the metrics file's path (`a/b/metrics.jsonl`, or a lone file's name).
 * @param {string} path
 * @param {readonly string[]} metricsNames
 * @returns {string} */
export function unitOf(path, metricsNames) {
  const cut = path.lastIndexOf("/");
  const file = path.slice(cut + 1);
  if (cut >= 0 && metricsNames.includes(file)) return path.slice(0, cut);
  return path;
}

/** What a run's name is made from: its unit (unitOf), and whether the browser gave its path
 * (a picked or dropped folder's file) or only its file's name (a file opened alone).
 * @typedef {{ unit: string, placed: boolean }} Unit */

/** The names of runs made from their units: each placed unit its path below the folder the
 * placed ones have in common; a file opened alone (whose folder the browser does not tell)
 * its file name. Two names alike (two loose files of one name) get ` (2)`, ` (3)`... after
 * the first, so that no two runs share a name.
 * @param {Unit[]} units
 * @returns {string[]} */
export function namesOf(units) {
  const parents = units.filter((each) => each.placed).map(({ unit }) => {
    const parts = unit.split("/");
    parts.pop();
    return parts;
  });
  let common = parents.length > 0 ? parents[0] : [];
  for (const parts of parents.slice(1)) {
    let same = 0;
    while (same < common.length && same < parts.length && common[same] === parts[same]) same += 1;
    common = common.slice(0, same);
  }
  const depth = common.length;
  /** @type {Map<string, number>} */
  const seen = new Map();
  return units.map(({ unit, placed }) => {
    const name = placed ? unit.split("/").slice(depth).join("/") : unit;
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : `${name} (${count})`;
  });
}

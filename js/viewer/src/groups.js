// Runs in groups, as `plot --group REGEX` groups them: the runs whose names the regular
// expression matches (anywhere in the name; the core matches it, Rust's regex syntax, as the
// command line does) form groups by their key — the expression's
// first capture group when it has one (its text, "" when it took no part in the match),
// else the whole match; the runs it does not match are drawn alone. A group is drawn as its
// mean line with a band of one standard deviation (population: divided by n) each side, per
// step, over the group's runs that have a finite value at that step.

/** @typedef {import("./series.js").Points} Points */

/** A legend entry: a group of runs (`key` not null) or one run alone (its index).
 * @typedef {{ key: string | null, members: number[] }} Entry */

/** What matches the page's patterns: the core's `matchPattern` (the package's), as the
 * command line matches them.
 * @typedef {{ matchPattern: (pattern: string, texts: readonly string[], options?: { glob?: boolean }) => (string | null)[] }} Matcher */

/** The groups' keys of the runs' names (`--group`'s): for each name, null where the
 * expression does not match it, else its key — the first capture group's text ("" when
 * that took no part in the match), else the whole match — as the core finds it, in time
 * linear in the expression and the name. null for no expression (an empty text); an Error
 * saying why the core refuses the text.
 * @param {Matcher} core
 * @param {string} text
 * @param {string[]} names
 * @returns {(string | null)[] | null | Error} */
export function groupKeys(core, text, names) {
  if (text === "") return null;
  try {
    return core.matchPattern(text, names);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** The entries of the legend, in the order shown: each group at its first run's place, each
 * run the expression does not match alone. `names` are the runs' names in their order,
 * `keys` their groups' keys (`groupKeys`; null: no groups).
 * @param {string[]} names
 * @param {(string | null)[] | null} keys
 * @returns {Entry[]} */
export function entriesOf(names, keys) {
  if (keys === null) return names.map((_, index) => ({ key: null, members: [index] }));
  /** @type {Entry[]} */
  const entries = [];
  /** @type {Map<string, Entry>} */
  const byKey = new Map();
  names.forEach((_, index) => {
    const key = keys[index] ?? null;
    if (key === null) {
      entries.push({ key: null, members: [index] });
      return;
    }
    const entry = byKey.get(key);
    if (entry !== undefined) entry.members.push(index);
    else {
      const made = { key, members: [index] };
      byKey.set(key, made);
      entries.push(made);
    }
  });
  return entries;
}

/** A group's band of one metric: per step, its mean and standard deviation and how many
 * runs had a finite value there.
 * @typedef {{ steps: Float64Array, mean: Float64Array, std: Float64Array, count: Uint32Array,
 *   low: number, high: number, lowPositive: number }} Band */

/** The band of a group's Points (one per run, or null where a run lacks the key). A run that
 * logged one step more than once counts with its last value there.
 * @param {(Points | null)[]} members
 * @returns {Band} */
export function bandOf(members) {
  /** @type {Map<number, number[]>} */
  const byStep = new Map();
  for (const points of members) {
    if (points === null) continue;
    /** @type {Map<number, number>} */
    const last = new Map();
    for (let i = 0; i < points.length; i += 1) {
      if (points.kinds[i] !== 0) last.delete(points.steps[i]);
      else last.set(points.steps[i], points.values[i]);
    }
    for (const [step, value] of last) {
      if (!Number.isFinite(value)) continue;
      let values = byStep.get(step);
      if (values === undefined) byStep.set(step, (values = []));
      values.push(value);
    }
  }
  const steps = [...byStep.keys()].sort((a, b) => a - b);
  const band = {
    steps: new Float64Array(steps),
    mean: new Float64Array(steps.length),
    std: new Float64Array(steps.length),
    count: new Uint32Array(steps.length),
    low: Infinity,
    high: -Infinity,
    lowPositive: Infinity,
  };
  steps.forEach((step, at) => {
    const values = /** @type {number[]} */ (byStep.get(step));
    let sum = 0;
    for (const value of values) sum += value;
    const mean = sum / values.length;
    let squares = 0;
    for (const value of values) squares += (value - mean) * (value - mean);
    const std = Math.sqrt(squares / values.length);
    band.mean[at] = mean;
    band.std[at] = std;
    band.count[at] = values.length;
    band.low = Math.min(band.low, mean - std);
    band.high = Math.max(band.high, mean + std);
    for (const edge of [mean - std, mean, mean + std]) if (edge > 0 && edge < band.lowPositive) band.lowPositive = edge;
  });
  return band;
}

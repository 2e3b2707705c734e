// Runs in groups, as `plot --group REGEX` groups them: the runs whose names the regular
// expression matches (anywhere in the name; the core matches it, Rust's regex syntax, as the
// command line does) form groups by their key — the expression's first capture group when it
// has one, else the whole match; the others are drawn alone. Which runs form a group and a
// group's band (mean and population standard deviation per step) are the core's numbers
// (`groupEntries`, `band`); here, the page's words for a refused expression and the band's
// range on the axis.

/** @typedef {import("./series.js").Points} Points */

/** What the page asks of the core here (the package's).
 * @typedef {Pick<import("overbrainer-contract/core").Api, "matchPattern" | "band">} Core */

/** The groups' keys of the runs' names (`--group`'s): for each name, null where the
 * expression does not match it, else its key. null for no expression (an empty text); an
 * Error saying why the core refuses the text.
 * @param {Pick<Core, "matchPattern">} core
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

/** A group's band of one metric (the core's), with the range it spans on the axis: `low`
 * and `high` the least and most of mean - std and mean + std, `lowPositive` the least of
 * those and the mean above 0 (a log scale's).
 * @typedef {import("overbrainer-contract/core").Band & { low: number, high: number, lowPositive: number }} Band */

/** The band of a group's Points (one per run, or null where a run lacks the key).
 * @param {Pick<Core, "band">} core
 * @param {(Points | null)[]} members
 * @returns {Band} */
export function bandOf(core, members) {
  const made = core.band(members);
  let low = Infinity;
  let high = -Infinity;
  let lowPositive = Infinity;
  for (let at = 0; at < made.steps.length; at += 1) {
    const mean = made.mean[at];
    const std = made.std[at];
    low = Math.min(low, mean - std);
    high = Math.max(high, mean + std);
    for (const edge of [mean - std, mean, mean + std]) if (edge > 0 && edge < lowPositive) lowPositive = edge;
  }
  return { ...made, low, high, lowPositive };
}

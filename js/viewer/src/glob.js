// The metric picker's patterns: comma-separated globs matched against every metric key of the
// runs by the core (`matchPattern`, in time linear in the glob and the key), as the command
// line matches them, fnmatch.fnmatchcase's rule: `*` any run of
// characters, `/` included; `?` one character; `[abc]`, `[a-z]` a class, `[!abc]` its
// complement; any other character itself (case counts). Panels come in the order the patterns
// match the keys (the keys one pattern matches in sorted order, each key once), grouped under
// a heading per prefix: the key's text before its last `/`.

import { codePointCompare } from "./names.js";

/** The default patterns: the losses and the learning rate, as `plot` draws them. */
export const DEFAULT_PATTERNS = "loss,eval_loss,learning_rate";

/** The patterns of the picker's text: split at commas, each trimmed, the empty ones dropped.
 * @param {string} text
 * @returns {string[]} */
export function patternsOf(text) {
  return text
    .split(",")
    .map((each) => each.trim())
    .filter((each) => each !== "");
}

/** The keys the patterns pick, in their order: for each pattern, the keys it matches (the
 * core's glob) that no pattern before it did, sorted (by code point). A pattern the core
 * refuses picks none.
 * @param {import("./groups.js").Matcher} core
 * @param {string[]} patterns
 * @param {Iterable<string>} keys
 * @returns {string[]} */
export function pickKeys(core, patterns, keys) {
  const sorted = [...new Set(keys)].sort(codePointCompare);
  /** @type {string[]} */
  const picked = [];
  const taken = new Set();
  for (const pattern of patterns) {
    let matched;
    try {
      matched = core.matchPattern(pattern, sorted, { glob: true });
    } catch {
      continue; // refused (a glob past the core's bounds): it matches no key
    }
    sorted.forEach((key, at) => {
      if (!taken.has(key) && matched[at] !== null) {
        taken.add(key);
        picked.push(key);
      }
    });
  }
  return picked;
}

/** A key's heading: its text before its last `/`; "" for a key without `/`.
 * @param {string} key
 * @returns {string} */
export function prefixOf(key) {
  const cut = key.lastIndexOf("/");
  return cut < 0 ? "" : key.slice(0, cut);
}

/** The picked keys under their headings: the keys without `/` first (heading ""), then each
 * prefix in the order its first key was picked; in each, the keys in the order picked.
 * @param {string[]} picked
 * @returns {{ heading: string, keys: string[] }[]} */
export function sections(picked) {
  /** @type {Map<string, string[]>} */
  const byPrefix = new Map([["", []]]);
  for (const key of picked) {
    const prefix = prefixOf(key);
    let keys = byPrefix.get(prefix);
    if (keys === undefined) byPrefix.set(prefix, (keys = []));
    keys.push(key);
  }
  return [...byPrefix].filter(([, keys]) => keys.length > 0).map(([heading, keys]) => ({ heading, keys }));
}

// The metric picker's patterns: comma-separated globs matched against every metric key of the
// runs, as Python's fnmatch.fnmatchcase matches them (the command line's rule): `*` any run of
// characters, `/` included; `?` one character; `[abc]`, `[a-z]` a class, `[!abc]` its
// complement; any other character itself (case counts). Panels come in the order the patterns
// match the keys (the keys one pattern matches in sorted order, each key once), grouped under
// a heading per prefix: the key's text before its last `/`.

import { codePointCompare } from "./names.js";

/** The default patterns: the losses and the learning rate, as `plot` draws them. */
export const DEFAULT_PATTERNS = "loss,eval_loss,learning_rate";

/** A character of a glob as a regular expression's text (flag `u`), matched as itself.
 * @param {string} text
 * @returns {string} */
function escaped(text) {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** A character of a glob's class as a class member's text (flag `u`), matched as itself.
 * @param {string} text
 * @returns {string} */
function member(text) {
  return text.replace(/[\\\][^-]/g, "\\$&");
}

/** A glob as a regular expression matching a whole key (fnmatch's translation).
 * @param {string} glob
 * @returns {RegExp} */
export function globRegExp(glob) {
  const chars = [...glob];
  let out = "";
  for (let i = 0; i < chars.length; ) {
    const char = chars[i];
    i += 1;
    if (char === "*") {
      out += "[^]*";
    } else if (char === "?") {
      out += "[^]";
    } else if (char === "[") {
      let j = i;
      if (j < chars.length && chars[j] === "!") j += 1;
      if (j < chars.length && chars[j] === "]") j += 1;
      while (j < chars.length && chars[j] !== "]") j += 1;
      if (j >= chars.length) {
        out += "\\["; // no closing bracket: a `[` of its own
        continue;
      }
      let inside = chars.slice(i, j);
      i = j + 1;
      const negated = inside[0] === "!";
      if (negated) inside = inside.slice(1);
      // each member a character or a range a-z, escaped for a JavaScript class
      let members = "";
      for (let k = 0; k < inside.length; k += 1) {
        if (k + 2 < inside.length && inside[k + 1] === "-") {
          if (codePointCompare(inside[k], inside[k + 2]) <= 0) members += `${member(inside[k])}-${member(inside[k + 2])}`;
          k += 2; // a reversed range matches nothing of its own, as in fnmatch
        } else members += member(inside[k]);
      }
      if (members === "") out += negated ? "[^]" : "[]";
      else out += negated ? `[^${members}]` : `[${members}]`;
    } else {
      out += escaped(char);
    }
  }
  return new RegExp(`^(?:${out})$`, "u");
}

/** The patterns of the picker's text: split at commas, each trimmed, the empty ones dropped.
 * @param {string} text
 * @returns {string[]} */
export function patternsOf(text) {
  return text
    .split(",")
    .map((each) => each.trim())
    .filter((each) => each !== "");
}

/** The keys the patterns pick, in their order: for each pattern, the keys it matches that no
 * pattern before it did, sorted (by code point).
 * @param {string[]} patterns
 * @param {Iterable<string>} keys
 * @returns {string[]} */
export function pickKeys(patterns, keys) {
  const sorted = [...new Set(keys)].sort(codePointCompare);
  /** @type {string[]} */
  const picked = [];
  const taken = new Set();
  for (const pattern of patterns) {
    const matcher = globRegExp(pattern);
    for (const key of sorted) {
      if (!taken.has(key) && matcher.test(key)) {
        taken.add(key);
        picked.push(key);
      }
    }
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

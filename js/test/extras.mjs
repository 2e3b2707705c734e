// The fields of a metrics line that the reference does not know (a log's `scalars`, an end's
// `summary`): those whose type schema/metrics-line.schema.json marks `"x-serde": {"skip": true}`.
// They are not in the reference's value of a line; the test runners compare them apart.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SCHEMA = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "schema", "metrics-line.schema.json");
const DEFS = JSON.parse(readFileSync(SCHEMA, "utf8")).$defs;

/** The names of those fields. */
export const CONTRACT_ONLY = new Set(
  Object.values(DEFS).flatMap((definition) =>
    Object.entries(definition.properties ?? {})
      .filter(([, prop]) => DEFS[(prop.$ref ?? "").replace("#/$defs/", "")]?.["x-serde"]?.skip)
      .map(([name]) => name),
  ),
);

/** A line split into the reference's value and the fields it does not know. */
export function split(line) {
  const value = {};
  const extra = {};
  for (const [key, field] of Object.entries(line)) (CONTRACT_ONLY.has(key) ? extra : value)[key] = field;
  return [value, extra];
}

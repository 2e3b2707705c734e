// The fields of a metrics line that the reference does not know (a log's `scalars`, an end's
// `summary`): those whose type the metrics line's schema marks `"x-serde": {"skip": true}`.
// They are not in the reference's value of a line; the test runners compare them apart.

import { readFileSync } from "node:fs";

/** A splitter of lines by the schema at `schemaFile` (metrics-line.schema.json): a line into
 * the reference's value and the fields it does not know. */
export function splitter(schemaFile) {
  const defs = JSON.parse(readFileSync(schemaFile, "utf8")).$defs;
  const unknown = new Set(
    Object.values(defs).flatMap((definition) =>
      Object.entries(definition.properties ?? {})
        .filter(([, prop]) => defs[(prop.$ref ?? "").replace("#/$defs/", "")]?.["x-serde"]?.skip)
        .map(([name]) => name),
    ),
  );
  return (line) => {
    const value = {};
    const extra = {};
    for (const [key, field] of Object.entries(line)) (unknown.has(key) ? extra : value)[key] = field;
    return [value, extra];
  };
}

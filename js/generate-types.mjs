#!/usr/bin/env node
// TypeScript types generated from schema/*.schema.json with json-schema-to-typescript, one
// declaration file per schema in js/types/. The output is deterministic (a fixed banner, no date,
// versions pinned in package-lock.json), so it is committed and checked for drift:
//
//   node generate-types.mjs           write js/types/*.d.ts (nox -s generate runs it, with the rest)
//   node generate-types.mjs --check   fail, naming the command that fixes it, if they differ
//
// One rewrite of the input, not of schema/: a `$ref` with sibling keywords (a property's own
// `description` beside `"$ref": "#/$defs/U64"`) becomes `allOf: [{$ref}]` plus the siblings.
// json-schema-to-typescript would otherwise mint a new alias per use (U641, UnixTime3...); this
// way every use is the one named type, and the property keeps its own doc comment.
//
// And one rule of the types themselves: an integer whose `maximum` is beyond
// Number.MAX_SAFE_INTEGER (a u64) is `number | bigint`, as the package's reader gives it (exact:
// a number up to 2^53 - 1, a bigint beyond); its doc comment says so.

import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const HERE = dirname(fileURLToPath(import.meta.url));
const SCHEMA_DIR = join(HERE, "..", "schema");
const TYPES_DIR = join(HERE, "types");
const FIX = "nox -s generate";

function refsAlone(node) {
  if (Array.isArray(node)) return node.map(refsAlone);
  if (node === null || typeof node !== "object") return node;
  const out = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, refsAlone(value)]));
  if (out.type === "integer" && typeof out.maximum === "number" && out.maximum > Number.MAX_SAFE_INTEGER) {
    out.tsType = "number | bigint";
    const exact =
      "In JavaScript: a `number` up to `Number.MAX_SAFE_INTEGER`, a `bigint` beyond " +
      "(the package's reader keeps every value exact).";
    out.description = out.description ? `${out.description} ${exact}` : exact;
  }
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...siblings } = out;
    return { ...siblings, allOf: [{ $ref }] };
  }
  return out;
}

/** { "metrics-line.d.ts": text, ... } from the schemas as they are now. */
export async function generate() {
  const files = {};
  for (const name of readdirSync(SCHEMA_DIR).sort()) {
    if (!name.endsWith(".schema.json")) continue;
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, name), "utf8"));
    const banner =
      `/* Generated from schema/${name} by js/generate-types.mjs (json-schema-to-typescript). ` +
      `Do not edit: change the schema, then run \`${FIX}\`. */`;
    const ts = await compile(refsAlone(schema), schema.title, {
      bannerComment: banner,
      cwd: SCHEMA_DIR, // cross-file $refs (job-stage.schema.json) resolve here
      declareExternallyReferenced: true,
      format: true,
      strictIndexSignatures: false,
      unknownAny: true,
    });
    files[name.replace(/\.schema\.json$/, ".d.ts")] = ts;
  }
  return files;
}

async function main() {
  const fresh = await generate();
  if (process.argv.includes("--check")) {
    const committed = existsSync(TYPES_DIR) ? readdirSync(TYPES_DIR).filter((n) => n.endsWith(".d.ts")) : [];
    const names = [...new Set([...Object.keys(fresh), ...committed])].sort();
    const stale = names.filter((n) => {
      const path = join(TYPES_DIR, n);
      return !(n in fresh) || !existsSync(path) || readFileSync(path, "utf8") !== fresh[n];
    });
    if (stale.length > 0) {
      console.error(`js/types/ is out of date with schema/ (${stale.join(", ")} differ). Run '${FIX}' and commit the result.`);
      process.exitCode = 1;
      return;
    }
    console.log(`js/types/ matches schema/ (${names.length} files)`);
    return;
  }
  if (existsSync(TYPES_DIR)) rmSync(TYPES_DIR, { recursive: true });
  mkdirSync(TYPES_DIR);
  for (const [name, text] of Object.entries(fresh)) writeFileSync(join(TYPES_DIR, name), text);
  console.log(`wrote js/types/ (${Object.keys(fresh).join(", ")})`);
}

await main();

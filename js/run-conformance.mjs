#!/usr/bin/env node
// The golden conformance suite's schema verdicts, through a second and independent consumer:
// Ajv (JSON Schema draft 2020-12) in strict mode, with the `discriminator` keyword that
// metrics-line.schema.json carries. Reads tests/conformance/manifest.json as the README there
// says, checks every line's `schema` verdict, and prints `N passed, N failed, N skipped`.
//
//   node run-conformance.mjs [--verbose]
//
// A line tagged `optional: ["bignum"]` holds an integer beyond 2^53, which a JavaScript number
// cannot hold: it is counted as skipped (never as passed). Exit status: 0 when nothing failed.

import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020Module from "ajv/dist/2020.js";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const SCHEMA_DIR = join(ROOT, "schema");
const CONFORMANCE = join(ROOT, "tests", "conformance");
// The `$id` carries the contract's version: read it from contract.json, its one source.
const VERSION = JSON.parse(readFileSync(join(SCHEMA_DIR, "contract.json"), "utf8")).version;
const METRICS_LINE_ID = `https://overbrainer.dev/contract/${VERSION}/metrics-line.schema.json`;
const VERBOSE = process.argv.includes("--verbose");

/** Every keyword named `x-...` anywhere in `schemas` (not a property's name). */
function annotationKeywords(schemas) {
  const found = new Set();
  const walk = (node, inProperties) => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, false));
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (!inProperties && key.startsWith("x-")) found.add(key);
      walk(value, !inProperties && (key === "properties" || key === "$defs"));
    }
  };
  schemas.forEach((schema) => walk(schema, false));
  return [...found].sort();
}

/** Every schema of schema/, in one strict Ajv instance: each must compile. */
export function loadSchemas() {
  const warnings = [];
  const ajv = new Ajv2020({
    strict: true, // strictSchema, strictNumbers, strictTypes, strictTuples, strictRequired: errors
    discriminator: true, // metrics-line.schema.json: discriminator {propertyName: "event"}
    logger: {
      log: console.log,
      warn: (...args) => warnings.push(args.join(" ")),
      error: console.error,
    },
  });
  const ids = [];
  const schemas = [];
  for (const name of readdirSync(SCHEMA_DIR).sort()) {
    if (!name.endsWith(".schema.json")) continue;
    schemas.push(JSON.parse(readFileSync(join(SCHEMA_DIR, name), "utf8")));
  }
  // `x-` keywords are annotations for the contract's code generators (`x-serde`: the reader
  // core's Rust types); strict mode refuses unknown keywords, so each is declared as one that
  // validates nothing. Any other unknown keyword is still refused.
  for (const keyword of annotationKeywords(schemas)) ajv.addKeyword(keyword);
  for (const schema of schemas) {
    ajv.addSchema(schema);
    ids.push(schema.$id);
  }
  for (const id of ids) ajv.getSchema(id); // compile each now: strict mode refuses here, with its reason
  if (warnings.length > 0) {
    throw new Error(`Ajv strict mode refuses schema/:\n  ${[...new Set(warnings)].join("\n  ")}`);
  }
  return { ajv, ids };
}

/** True when a parsed value holds a number JSON.parse turned into ±Infinity (beyond f64). */
function hasNonFinite(value) {
  if (typeof value === "number") return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasNonFinite);
  return false;
}

/** The lines of an input file, as the conformance README says: split on "\n", drop the last piece. */
function readLines(path) {
  const text = readFileSync(path, "utf8");
  if (!text.endsWith("\n")) throw new Error(`${path} must end with a newline`);
  return text.slice(0, -1).split("\n");
}

function main() {
  const { ajv, ids } = loadSchemas();
  const validate = ajv.getSchema(METRICS_LINE_ID);
  if (!validate) throw new Error(`no schema ${METRICS_LINE_ID} in schema/`);
  // contract.json is the data the contract schema describes: a consumer reads it, so check it.
  const contract = JSON.parse(readFileSync(join(SCHEMA_DIR, "contract.json"), "utf8"));
  const validateContract = ajv.getSchema(contract.$schema);
  if (!validateContract || !validateContract(contract)) {
    throw new Error(`schema/contract.json does not follow ${contract.$schema}: ${ajv.errorsText(validateContract?.errors)}`);
  }

  const manifest = JSON.parse(readFileSync(join(CONFORMANCE, "manifest.json"), "utf8"));
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures = [];
  for (const suite of manifest.suites) {
    const lines = readLines(join(CONFORMANCE, suite.input));
    const expect = JSON.parse(readFileSync(join(CONFORMANCE, suite.expect), "utf8"));
    if (lines.length !== expect.lines.length) {
      failed += 1;
      failures.push(`${suite.name}: ${lines.length} input lines, ${expect.lines.length} expectations`);
      continue;
    }
    lines.forEach((line, index) => {
      const e = expect.lines[index];
      const where = `${suite.name}:${index + 1} (${e.description})`;
      if ((e.optional ?? []).includes("bignum")) {
        skipped += 1; // a JavaScript number cannot hold the integer: skipped, never passed
        if (VERBOSE) console.log(`skip ${where}: bignum`);
        return;
      }
      const problem = check(line, e.schema, validate, ajv);
      if (problem === null) {
        passed += 1;
      } else {
        failed += 1;
        failures.push(`${where}: ${problem}`);
      }
    });
  }
  for (const failure of failures) console.error(`FAIL ${failure}`);
  console.log(
    `ajv ${ajvVersion()} (draft 2020-12, strict, discriminator), ${ids.length} schemas, ` +
      `${manifest.suites.length} suites of ${relative(process.cwd(), CONFORMANCE) || "."}`,
  );
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = failed === 0 ? 0 : 1;
}

/** null when the line gets its expected schema verdict, else what went wrong. */
function check(line, expected, validate, ajv) {
  let value;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return expected === null ? null : `JSON.parse refused the line (${error.message}), expected schema ${expected}`;
  }
  if (expected === null) {
    // No verdict: the line must be something JSON.parse refuses, or hold a number beyond f64.
    return hasNonFinite(value) ? null : "JSON.parse read the line to finite values, but no schema verdict is expected";
  }
  const got = validate(value);
  if (got === expected) return null;
  return `schema says ${got}, expected ${expected}${got ? "" : `: ${ajv.errorsText(validate.errors)}`}`;
}

function ajvVersion() {
  return JSON.parse(readFileSync(join(HERE, "node_modules", "ajv", "package.json"), "utf8")).version;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();

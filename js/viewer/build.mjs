#!/usr/bin/env node
// Builds the run viewer: one self-contained HTML file, dist/viewer.html, that opens from disk
// (file://, where a page may neither fetch nor import its siblings) or from any web server.
//
//   node build.mjs [--out FILE] [--also FILE]     (each written whole, then put in place)
//
// Inlined into the page: the package's glue (../dist/core.js) and its WebAssembly module
// (../dist/overbrainer_core.wasm, as base64) — both built by `cd js && node build.mjs` — the
// page's own modules (src/), bundled by esbuild, and the contract's file names and side-file
// limits (schema/contract.json, checked against its schema by Ajv here). A side file's
// meaning is the core's, in the WebAssembly module: the page holds no validator. The page's
// Content-Security-Policy allows only its own script and style (by their SHA-256) and
// WebAssembly: nothing else runs, whatever a file holds.

import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020Module from "ajv/dist/2020.js";
import * as esbuild from "esbuild";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

const HERE = dirname(fileURLToPath(import.meta.url));
const PACKAGE = resolve(HERE, "..");
const SCHEMA = resolve(PACKAGE, "..", "schema");
const GLUE = join(PACKAGE, "dist", "core.js");
const WASM = join(PACKAGE, "dist", "overbrainer_core.wasm");

const at = process.argv.indexOf("--out");
const OUT = at >= 0 ? resolve(process.argv[at + 1]) : join(HERE, "dist", "viewer.html");
const also = process.argv.indexOf("--also");
/** A second place for the page (`--also FILE`: the Python package's, which `serve` serves). */
const ALSO = also >= 0 ? resolve(process.argv[also + 1]) : null;

/** `text` written to `path` whole or not at all: into a file created exclusively beside it,
 * then renamed over it.
 * @param {string} path
 * @param {string} text */
function putInPlace(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}`);
  try {
    writeFileSync(temporary, text, { flag: "wx" });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

for (const needed of [GLUE, WASM]) {
  if (!existsSync(needed)) {
    console.error(`${needed}: missing; build the package first: cd js && npm ci && node build.mjs`);
    process.exit(2);
  }
}

/** The contract's constants (schema/contract.json, checked against its schema here): the
 * file names of a run folder, the most bytes its side files may hold and the contract's
 * version, read rather than retyped. */
function contract() {
  const schemas = readdirSync(SCHEMA)
    .filter((name) => name.endsWith(".schema.json"))
    .map((name) => JSON.parse(readFileSync(join(SCHEMA, name), "utf8")));
  const ajv = new Ajv2020({ strict: false });
  const constants = JSON.parse(readFileSync(join(SCHEMA, "contract.json"), "utf8"));
  const validate = ajv.compile(schemas.find((schema) => schema.$id === constants.$schema));
  if (!validate(constants)) throw new Error(`schema/contract.json: ${ajv.errorsText(validate.errors)}`);
  if (!constants.max_bytes) throw new Error("schema/contract.json: no max_bytes (contract 1.2.0)");
  return [
    `export const files = ${JSON.stringify(constants.files)};`,
    `export const maxBytes = ${JSON.stringify(constants.max_bytes)};`,
    `export const version = ${JSON.stringify(constants.version)};`,
    "",
  ].join("\n");
}

const generated = {
  name: "viewer-generated",
  setup(build) {
    build.onResolve({ filter: /^viewer:/ }, (args) => ({ path: args.path, namespace: "viewer" }));
    build.onResolve({ filter: /^overbrainer-contract\/core$/ }, () => ({ path: GLUE }));
    build.onLoad({ filter: /.*/, namespace: "viewer" }, (args) => {
      if (args.path === "viewer:wasm") {
        const base64 = readFileSync(WASM).toString("base64");
        return { contents: `export default ${JSON.stringify(base64)};`, loader: "js" };
      }
      if (args.path === "viewer:contract") return { contents: contract(), loader: "js" };
      return null;
    });
  },
};

const bundle = await esbuild.build({
  entryPoints: [join(HERE, "src", "main.js")],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome120", "firefox120", "safari17"],
  write: false,
  legalComments: "inline",
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [generated],
  logLevel: "warning",
});
// Inside an inline <script>, `</script` would end it (esbuild escapes it in strings already).
const script = bundle.outputFiles[0].text.replace(/<\/(script)/gi, "<\\/$1");
const style = readFileSync(join(HERE, "src", "style.css"), "utf8");
const hash = (text) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
const policy = [
  "default-src 'none'",
  `script-src ${hash(script)} 'wasm-unsafe-eval'`,
  `style-src ${hash(style)}`,
  "img-src 'none'",
  // fetch from the page's own origin alone: `serve`'s API (a page from disk fetches nothing)
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
].join("; ");
const template = readFileSync(join(HERE, "src", "page.html"), "utf8");
const page = template
  .replace("__CSP__", () => policy)
  .replace("__STYLE__", () => style)
  .replace("__SCRIPT__", () => script);
for (const path of [OUT, ...(ALSO === null ? [] : [ALSO])]) putInPlace(path, page);
// the sizes in decimal units, as docs/viewer.md states the page's (test/sizes.test.mjs)
const kilobytes = (/** @type {number} */ bytes) => `${Math.round(bytes / 1000).toLocaleString("en")} KB`;
const module = readFileSync(WASM).length;
console.log(`${OUT}: ${kilobytes(Buffer.byteLength(page, "utf8"))} (the .wasm ${kilobytes(module)}, ${kilobytes(Math.ceil(module / 3) * 4)} as base64)`);

// The package's main entry, for Node: the reader core's WebAssembly module shipped beside this
// file, loaded once at import (top-level await), so that no call needs an init first.
//
//   import { parseLine, ParseError, mark, dumpLine, Pace, Reader, readLines } from "overbrainer-contract";
//
// Elsewhere (a browser page, a worker, a bundle that inlines the module): `load(bytes)` from
// "overbrainer-contract/core" gives the same API from the module's bytes.

import { readFile } from "node:fs/promises";
import { load } from "./core.js";
import type { Api, Pace as PaceType, Reader as ReaderType } from "./core.js";

export { ParseError, load } from "./core.js";
export type {
  Answer,
  Api,
  BeginLine,
  Category,
  Duration,
  EndLine,
  EvalLine,
  JobStage,
  Known,
  Line,
  LogLine,
  Mark,
  MetricLine,
  PaceConstructor,
  ReaderConstructor,
  ReaderOptions,
  Source,
  StageLine,
  U64,
} from "./core.js";

const api: Api = await load(await readFile(new URL("./overbrainer_core.wasm", import.meta.url)));

export const parseLine: Api["parseLine"] = api.parseLine;
export const mark: Api["mark"] = api.mark;
export const dumpLine: Api["dumpLine"] = api.dumpLine;
export const readLines: Api["readLines"] = api.readLines;
export const Pace: Api["Pace"] = api.Pace;
export type Pace = PaceType;
export const Reader: Api["Reader"] = api.Reader;
export type Reader = ReaderType;

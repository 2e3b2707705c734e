// The types of the modules build.mjs makes while it bundles the page (esbuild's `viewer:`
// namespace: the core's .wasm as base64, Ajv's validators, schema/contract.json's constants),
// for the type check of src/ (tsconfig.json). Written by hand: build.mjs makes their code.

declare module "viewer:wasm" {
  /** The reader core's WebAssembly module (js/dist/overbrainer_core.wasm), as base64. */
  const base64: string;
  export default base64;
}

declare module "viewer:validators" {
  import type { Snapshot } from "overbrainer-contract/types/snapshot.js";
  import type { SnapshotRequest } from "overbrainer-contract/types/snapshot-request.js";

  /** An error of Ajv's, as its standalone validators leave them in `errors`. */
  export interface ValidationError {
    instancePath: string;
    schemaPath: string;
    keyword: string;
    params: Record<string, unknown>;
    message?: string;
  }
  /** A validator generated from schema/ by Ajv (standalone code): true when `data` is valid
   * (then it is a `T`: the type generated from the same schema), else false with its errors
   * in `errors`. */
  export interface Validator<T> {
    (data: unknown): data is T;
    errors?: ValidationError[] | null;
  }
  export const validateSnapshot: Validator<Snapshot>;
  export const validateRequest: Validator<SnapshotRequest>;
}

declare module "viewer:contract" {
  /** schema/contract.json's file names of a run folder. */
  export const files: { metrics: string; snapshot: string; snapshot_request: string };
  /** schema/contract.json's most bytes each side file may hold. */
  export const maxBytes: { snapshot: number; snapshot_request: number };
  /** The contract's version. */
  export const version: string;
}

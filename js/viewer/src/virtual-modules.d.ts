// The types of the modules build.mjs makes while it bundles the page (esbuild's `viewer:`
// namespace: the core's .wasm as base64, schema/contract.json's constants),
// for the type check of src/ (tsconfig.json). Written by hand: build.mjs makes their code.

declare module "viewer:wasm" {
  /** The reader core's WebAssembly module (js/dist/overbrainer_core.wasm), as base64. */
  const base64: string;
  export default base64;
}

declare module "viewer:contract" {
  /** schema/contract.json's file names of a run folder. */
  export const files: { metrics: string; snapshot: string; snapshot_request: string };
  /** schema/contract.json's most bytes each side file may hold. */
  export const maxBytes: { snapshot: number; snapshot_request: number };
  /** The contract's version. */
  export const version: string;
}

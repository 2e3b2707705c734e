// A run folder's side files, `snapshot.json` and `snapshot.request`, as the package's
// status() takes them: each file's bytes and when it was last written, or the words it was
// refused in. What they mean (a proof's problems in serde's words, the request's word, the
// pending rule, the snapshot row's words) is the core's: the record the status gives.

import { files as contractFiles, maxBytes } from "viewer:contract";

/** The most bytes each side file may hold: the contract's `max_bytes` (schema/contract.json),
 * inlined by build.mjs: a larger file is not read (the core refuses it by its size). */
export const REQUEST_LIMIT = maxBytes.snapshot_request;
export const PROOF_LIMIT = maxBytes.snapshot;

/** @typedef {import("overbrainer-contract/core").SideFiles} SideFiles */
/** @typedef {import("overbrainer-contract/core").SideFileRead} SideFileRead */
/** @typedef {import("overbrainer-contract/core").SideFileRefused} SideFileRefused */

/** A side file as status() takes it: its bytes (none past `limit`: its size says it is too
 * large) and its time in seconds, or the words it was refused in, or undefined when absent.
 * @param {File | null} file
 * @param {string | null} refused
 * @param {number} limit
 * @returns {Promise<SideFileRead | SideFileRefused | undefined>} */
async function sideFile(file, refused, limit) {
  if (refused !== null) return { refused };
  if (file === null) return undefined;
  const mtime = file.lastModified / 1000;
  if (file.size > limit) return { bytes: new Uint8Array(0), mtime, size: file.size };
  return { bytes: new Uint8Array(await file.arrayBuffer()), mtime };
}

/** The words a server refused each side file in, from its `side_problem` line (each file's
 * `NAME: words`, `; `-joined, the proof's first): null for a file not refused.
 * @param {string | null} line
 * @returns {{ proof: string | null, request: string | null }} */
function refusals(line) {
  /** @type {{ proof: string | null, request: string | null }} */
  const found = { proof: null, request: null };
  if (line === null) return found;
  const proof = `${contractFiles.snapshot}: `;
  const request = `${contractFiles.snapshot_request}: `;
  const at = line.indexOf(`; ${request}`);
  const [proofPart, requestPart] = at >= 0 ? [line.slice(0, at), line.slice(at + 2)] : [line, ""];
  if (proofPart.startsWith(proof)) found.proof = proofPart.slice(proof.length);
  else if (proofPart.startsWith(request)) found.request = proofPart.slice(request.length);
  if (requestPart.startsWith(request)) found.request = requestPart.slice(request.length);
  return found;
}

/** A run folder's side files for status(): `side` holds its Files (each null where the
 * folder has none); `refused`, a server's `side_problem` line (why it did not serve a side
 * file: `snapshot.json: a symlink, not read`).
 * @param {{ proof: File | null, request: File | null }} side
 * @param {string | null} [refused]
 * @returns {Promise<SideFiles>} */
export async function sideFiles(side, refused = null) {
  const why = refusals(refused);
  return {
    snapshot: await sideFile(side.proof, why.proof, PROOF_LIMIT),
    request: await sideFile(side.request, why.request, REQUEST_LIMIT),
  };
}

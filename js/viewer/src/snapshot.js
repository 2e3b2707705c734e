// The snapshot row of `status`: whether a snapshot was requested (and why), whether it was
// taken (the proof, `snapshot.json`), and whether the request is still pending (there, and
// newer than the proof). cli/status.py `snapshot_status` and `_snapshot_text`, with the
// files of a folder the user opened. The proof and the request are checked by validators
// generated from schema/ (Ajv's standalone code, made by build.mjs): a proof's problems are
// listed as status lists them (`snapshot.json: $.step: ...`), in Ajv's words.

import { maxBytes } from "viewer:contract";
import { thousands } from "./format.js";

/** The most bytes each side file may hold: the contract's `max_bytes` (schema/contract.json,
 * as runs/sidefile.py reads it: REQUEST_LIMIT, PROOF_LIMIT), inlined by build.mjs. */
export const REQUEST_LIMIT = maxBytes.snapshot_request;
export const PROOF_LIMIT = maxBytes.snapshot;

/** @typedef {import("viewer:validators").ValidationError} ValidationError */
/** @typedef {import("overbrainer-contract/types/snapshot.js").Snapshot} Snapshot */
/** @typedef {{ snapshot: import("viewer:validators").Validator<Snapshot>, request: import("viewer:validators").Validator<string> }} Validators */

/** Ajv's errors as status lists a proof's problems.
 * @param {ValidationError[] | null | undefined} errors
 * @returns {string} */
function ajvProblem(errors) {
  return (errors || [])
    .map((error) => `${error.instancePath ? `$${error.instancePath.replaceAll("/", ".")}` : "$"}: ${error.message}`)
    .join("; ");
}

/** A side file's text, refused over `limit` bytes.
 * @param {File} file
 * @param {number} limit
 * @returns {Promise<string>} */
async function readSide(file, limit) {
  if (file.size > limit) {
    throw new Error(`${file.name}: ${thousands(file.size)} bytes, over the ${thousands(limit)} it may hold`);
  }
  return new TextDecoder("utf-8").decode(await file.arrayBuffer()); // bytes not UTF-8 replaced
}

/** The reason of a request's text: its one word, or null when it is empty or not one word.
 * @param {string} text
 * @param {Validators["request"]} validRequest
 * @returns {string | null} */
function requestReason(text, validRequest) {
  if (!validRequest(text)) return null;
  const word = text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  return word === "" ? null : word;
}

/** The snapshot row's text. `side` is null without a run folder, else `{proof, request}`
 * (Files or null); `validators` holds `snapshot` and `request` (generated from schema/);
 * `refused`, why a side file was not read (the server's words, `snapshot.json: a symlink,
 * not read`), said after the rest.
 * @param {{ proof: File | null, request: File | null } | null} side
 * @param {Validators} validators
 * @param {string | null} [refused]
 * @returns {Promise<string>} */
export async function snapshotText(side, validators, refused = null) {
  if (side === null) return "- (no run folder opened: open the folder to see its snapshot)";
  /** @type {{ reason: string | null, time: number } | null} */
  let request = null;
  /** @type {(Snapshot & { written: number }) | null} */
  let taken = null;
  /** @type {string | null} */
  let problem = null;
  try {
    if (side.request) {
      const text = await readSide(side.request, REQUEST_LIMIT);
      request = { reason: requestReason(text, validators.request), time: side.request.lastModified };
    }
    if (side.proof) {
      const text = await readSide(side.proof, PROOF_LIMIT);
      let proof;
      try {
        proof = JSON.parse(text);
      } catch (error) {
        problem = `${side.proof.name}: $: not JSON (${error instanceof Error ? error.message : error})`;
      }
      if (problem === null) {
        if (validators.snapshot(proof)) taken = { ...proof, written: side.proof.lastModified };
        else problem = `${side.proof.name}: ${ajvProblem(validators.snapshot.errors)}`;
      }
    }
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const pending = request !== null && (taken === null || taken.written < request.time);
  const parts = [];
  if (pending && request !== null) parts.push(`requested (${request.reason || "no reason"}), not taken yet`);
  if (taken !== null) {
    const reason = taken.reason || "no reason";
    const earlier = pending ? "an earlier one " : "";
    parts.push(`${earlier}taken at step ${thousands(taken.step)}: ${taken.checkpoint} (${reason})`);
  }
  if (problem) parts.push(problem);
  if (refused) parts.push(refused);
  return parts.join("; ") || "none requested";
}

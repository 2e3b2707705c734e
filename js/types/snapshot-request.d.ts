/* Generated from schema/snapshot-request.schema.json by js/generate-types.mjs (json-schema-to-typescript). Do not edit: change the schema, then run `nox -s generate`. */

/**
 * The text of `snapshot.request`, as a JSON string: the reason for the snapshot, one word, or nothing. White space (space, tab, CR, LF) around the word is allowed and ignored, so `echo manual > snapshot.request` is a valid request. A word is 1 to 64 ASCII letters, digits, `_` or `-`. The plugin reads the reason only from a regular file, whole up to 64 KiB: a request of another kind (a FIFO...) or longer still takes the snapshot, with no reason.
 */
export type SnapshotRequest = string;

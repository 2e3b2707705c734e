/* Generated from schema/job-stage.schema.json by js/generate-types.mjs (json-schema-to-typescript). Do not edit: change the schema, then run `nox -s generate`. */

/**
 * A command of a training job, as its stage event names it: `train` (the training itself), `merge` (the merge of the adapter into the base model), `export` (the export of the model to GGUF), `compare` (the child's answers to the eval questions, for `overbrainer compare`).
 */
export type JobStage = "train" | "merge" | "export" | "compare";

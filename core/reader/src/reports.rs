// @generated from schema/ by core/codegen/reports.py: do not edit.
// Regenerate with `nox -s generate`; `nox -s generated` fails when this file is stale.

#![allow(clippy::doc_markdown)]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::generated::{JobStage, Snapshot};
use crate::scalars::{Scalar, Scalars};

// check-report.schema.json
/// `error`: the file is invalid (the reference rejects the line, or a snapshot file breaks its schema). `warning`: what a reader copes with (a last line cut short, lines out of order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Severity {
    #[serde(rename = "error")]
    Error,
    #[serde(rename = "warning")]
    Warning,
}

impl Severity {
    /// The name the schema gives it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

/// What kind of problem: `syntax`, `eof`, `data` (the reference's `serde_json::Error::classify()` of a rejected line), `length` (a line over the length `check` reads), `order` (a step going back, a line before `begin` or after `end`), `truncated` (a last line cut short: no newline, and a whole line or one the reference finds cut, category `eof`), `schema` (a snapshot file against its schema; a warning where a line's `scalars` or `summary` breaks its schema, which the reference ignores).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Category {
    #[serde(rename = "syntax")]
    Syntax,
    #[serde(rename = "eof")]
    Eof,
    #[serde(rename = "data")]
    Data,
    #[serde(rename = "length")]
    Length,
    #[serde(rename = "order")]
    Order,
    #[serde(rename = "truncated")]
    Truncated,
    #[serde(rename = "schema")]
    Schema,
}

impl Category {
    /// The name the schema gives it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Eof => "eof",
            Self::Data => "data",
            Self::Length => "length",
            Self::Order => "order",
            Self::Truncated => "truncated",
            Self::Schema => "schema",
        }
    }
}

/// One problem in a file, where it is and what it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportFinding {
    /// The file, as the user named it (`-` for standard input).
    pub file: String,
    /// 1-based line number; null for a snapshot file, or a finding of the whole file (gzip-compressed data where lines should be).
    pub line: Option<u64>,
    /// The column in the line where the problem was found, when known: the reference's (serde_json's), counted in bytes of the line without its newline, 1 for its first byte; 0 is before the first byte, where a line with no byte at all (a blank line) is rejected. Null when no column is known. From 0 since contract 2.0.0 (1 before).
    pub column: Option<u64>,
    /// JSON path of the offending value (`$.step`); `$` for the whole line or file.
    pub path: String,
    pub severity: Severity,
    pub category: Category,
    /// What is wrong, in one line.
    pub message: String,
}

impl ReportFinding {
    /// Its `type`: the tag of its line.
    pub const TYPE: &'static str = "finding";
}

/// What a checked file is: a metrics file, `snapshot.json` or `snapshot.request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileKind {
    #[serde(rename = "metrics")]
    Metrics,
    #[serde(rename = "snapshot")]
    Snapshot,
    #[serde(rename = "snapshot-request")]
    SnapshotRequest,
}

impl FileKind {
    /// The name the schema gives it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Metrics => "metrics",
            Self::Snapshot => "snapshot",
            Self::SnapshotRequest => "snapshot-request",
        }
    }
}

/// Valid lines of a metrics file, by event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventCounts {
    pub begin: u64,
    pub log: u64,
    pub eval: u64,
    pub stage: u64,
    pub end: u64,
}

/// The summary of one checked file, after its findings: it counts them all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportFile {
    /// The file, as the user named it (`-` for standard input).
    pub file: String,
    pub kind: FileKind,
    /// No error (warnings allowed).
    pub valid: bool,
    /// Lines read from a metrics file; null for a snapshot file.
    pub lines: Option<u64>,
    /// Valid lines by event, for a metrics file; null for a snapshot file.
    pub events: Option<EventCounts>,
    pub errors: u64,
    pub warnings: u64,
}

impl ReportFile {
    /// Its `type`: the tag of its line.
    pub const TYPE: &'static str = "file";
}

/// A path that could not be read (missing, a FIFO, a folder, too large...): `check` exits 2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportUnreadable {
    /// The path, as the user named it.
    pub file: String,
    /// Why it cannot be read, in one line.
    pub message: String,
}

impl ReportUnreadable {
    /// Its `type`: the tag of its line.
    pub const TYPE: &'static str = "unreadable";
}

/// One line of `overbrainer-contract check -o json` (JSON Lines: one JSON object a line, tagged by `type`). For each file checked, in order: a `finding` for each problem as it is found, then the file's `file` summary, which counts every problem; a path that cannot be read gives one `unreadable` line instead. With `--total`, one last line more: a `total` over every file and path (`check-total.schema.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CheckReport {
    /// One problem in a file, where it is and what it is.
    #[serde(rename = "finding")]
    Finding(ReportFinding),
    /// The summary of one checked file, after its findings: it counts them all.
    #[serde(rename = "file")]
    File(ReportFile),
    /// A path that could not be read (missing, a FIFO, a folder, too large...): `check` exits 2.
    #[serde(rename = "unreadable")]
    Unreadable(ReportUnreadable),
}

// check-total.schema.json
/// The last line of `overbrainer-contract check -o json --total`, after the lines of `check-report.schema.json`: a total over every file checked and every path that could not be read. (A line of its own schema, asked for: a reader of the check report as it was released reads the report without it.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckTotal {
    /// Always `TYPE`: the tag of the line.
    #[serde(rename = "type")]
    pub kind: CheckTotalTag,
    /// Files checked (metrics files and snapshot files).
    pub files: u64,
    /// Files with at least one error.
    pub invalid_files: u64,
    /// Paths that could not be read.
    pub unreadable: u64,
    /// Lines read from the metrics files.
    pub lines: u64,
    /// Errors in every file.
    pub errors: u64,
    /// Warnings in every file.
    pub warnings: u64,
    /// No error and no unreadable path: `check` exits 0.
    pub valid: bool,
}

/// The `type` of a `CheckTotal` line: `total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum CheckTotalTag {
    #[serde(rename = "total")]
    #[default]
    Total,
}

// status-report.schema.json
/// Where the run is: `waiting` (no line yet), `started` (a line, no training step), `training`, `evaluating` (an evaluation under way), `ended`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    #[serde(rename = "waiting")]
    Waiting,
    #[serde(rename = "started")]
    Started,
    #[serde(rename = "training")]
    Training,
    #[serde(rename = "evaluating")]
    Evaluating,
    #[serde(rename = "ended")]
    Ended,
}

impl Phase {
    /// The name the schema gives it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Started => "started",
            Self::Training => "training",
            Self::Evaluating => "evaluating",
            Self::Ended => "ended",
        }
    }
}

/// A metric's value and the step it was logged at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepValue {
    pub step: u64,
    pub value: f64,
}

/// An evaluation's progress: steps done, of how many when known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub step: u64,
    pub total: Option<u64>,
}

/// Whether a snapshot was requested (and why), whether it was taken, whether the request waits for an answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotState {
    /// `snapshot.request` is there.
    pub requested: bool,
    /// The request is there and newer than the proof, or there is no proof.
    pub pending: bool,
    /// The request's word, if it holds one.
    pub reason: Option<String>,
    /// The proof, `snapshot.json`, when valid.
    pub taken: Option<Snapshot>,
    /// What is wrong with the snapshot files, in one line, if anything.
    pub problem: Option<String>,
}

/// A scalar's value as logged (a number, null, or a non-finite value's word) and the step it was logged at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScalarValue {
    pub step: u64,
    pub value: Scalar,
}

/// One scalar over a run: its latest value, and its lowest and highest finite values (the first step that reached each; null when none was finite).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScalarStats {
    pub last: ScalarValue,
    pub min: Option<StepValue>,
    pub max: Option<StepValue>,
}

/// What an alert is: `stalled`, a run that has not ended and has been silent for longer than its pace predicts (`eta_stale`); `nonfinite`, a loss, evaluation loss or gradient norm that was not finite (`alerts.nonfinite` in `contract.json`); `spike`, a training loss far above the median of the losses before it (`alerts.spike`); `invalid`, an invalid line (or a gzip stream cut short) or invalid snapshot files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AlertKind {
    #[serde(rename = "stalled")]
    Stalled,
    #[serde(rename = "nonfinite")]
    Nonfinite,
    #[serde(rename = "spike")]
    Spike,
    #[serde(rename = "invalid")]
    Invalid,
}

impl AlertKind {
    /// The name the schema gives it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Stalled => "stalled",
            Self::Nonfinite => "nonfinite",
            Self::Spike => "spike",
            Self::Invalid => "invalid",
        }
    }
}

/// One thing in a run that needs a look: its kind, where it stands in the run (the step, and the time of the line it was seen in, when it has them) and one line of words, made by the core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alert {
    pub kind: AlertKind,
    /// The training step it was seen at (`stalled`: the run's step; `invalid`: the step the run had reached before its first invalid line); null for the snapshot files.
    pub step: Option<u64>,
    /// The `time` of the line it was seen in (`stalled`: the run's last line); null for invalid lines and files, which have none.
    pub time: Option<f64>,
    /// What happened, in one line.
    pub message: String,
}

/// The state of one run as `overbrainer-contract status -o json` writes it: one JSON object for one run, one such object a line (JSON Lines) for several, in the order asked for (`--sort`). What the run's lines say so far, how long ago its last line came and whether its ETA still holds, its snapshot files, and whether `check` would find it valid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusReport {
    /// The run as the user named it: a run folder, a metrics file, `-` for standard input (or the folder found below a folder of runs).
    pub run: String,
    /// The run's name among the runs asked for: its path below the folder they have in common (`exp1/seed1`); its folder's name alone.
    pub name: String,
    /// Lines read.
    pub lines: u64,
    /// Lines the reference rejects (and lines over `--max-line`): what `check` counts as errors in the metrics file.
    pub invalid_lines: u64,
    /// The last line is cut short (no newline yet): a run still writing, or killed; not counted invalid.
    pub partial_last_line: bool,
    pub phase: Phase,
    /// The latest `stage` line's command, if any.
    pub stage: Option<JobStage>,
    /// The latest training step (the `end` line's after it).
    pub step: u64,
    /// The training's total steps, when known (from the logs, else the `begin` line).
    pub max_steps: Option<u64>,
    /// `step / max_steps`, at most 1; null without `max_steps`.
    pub progress: Option<f64>,
    /// An `end` line came, and no `begin` since.
    pub ended: bool,
    /// `begin` lines: more than one, the run was resumed.
    pub begins: u64,
    /// The latest training loss.
    pub loss: Option<StepValue>,
    /// The latest evaluation loss.
    pub eval_loss: Option<StepValue>,
    /// The lowest evaluation loss, at the first step that reached it.
    pub best_eval_loss: Option<StepValue>,
    /// The latest learning rate.
    pub learning_rate: Option<f64>,
    /// The evaluation under way (its latest `eval` line), until its result is logged.
    pub evaluation: Option<Evaluation>,
    /// The time left as the pace measured it at its latest training log (overbrainer's ETA); null until it can be told.
    pub eta_seconds: Option<f64>,
    /// The time left at `now`: `eta_seconds` less the time since that log, at least 0; null without an ETA, when stale, or once ended.
    pub eta_remaining_seconds: Option<f64>,
    /// The run has been silent for much longer than its pace predicts (longer than 50 steps at its pace, and than 120 s): its ETA no longer holds. Never for a run that ended.
    pub eta_stale: bool,
    /// The `time` of the last valid line.
    pub last_time: Option<f64>,
    /// Seconds from `last_time` to `now` (negative when the line is ahead of this clock); null without a line.
    pub last_line_seconds: Option<f64>,
    /// When this report was made (seconds since the epoch, the lines' clock).
    pub now: f64,
    /// The run folder's snapshot files; null for a run read from a file or standard input alone.
    pub snapshot: Option<SnapshotState>,
    /// What `check` of the same run would say: no invalid line, and its snapshot files valid. `status` exits 1 when a run is not.
    pub valid: bool,
    /// Every key of the logs' `scalars` and of the `end` lines' `summary`, by key: its latest value and its lowest and highest finite values, each at its step.
    #[serde(default)]
    pub scalars: BTreeMap<String, ScalarStats>,
    /// The latest `end` line's `summary`: the training's one-shot values; null without one.
    #[serde(default)]
    pub summary: Option<Scalars>,
    /// What in the run needs a look, by the rules of `alerts` and `stale` in `contract.json`: at most one alert of each kind but `invalid` (one for the lines, one for the snapshot files), in the order of `AlertKind`; empty when nothing does. Since contract 2.2.0.
    #[serde(default)]
    pub alerts: Vec<Alert>,
}

// contract.json: stale
/// When a run's ETA is stale: the run silent (no line of any kind) for longer than `max(steps * step_seconds, floor_seconds)`, `step_seconds` being the mean time a step takes at the run's own pace (the floor alone without a pace). A stale ETA is said as such, never counted down. Since contract 2.0.0.
pub mod stale {
    /// Silence, in steps at the run's own pace, after which its ETA is stale (`STALE_STEPS`): a run writes a line every few steps, and may go quiet longer while it saves a checkpoint.
    pub const STEPS: u64 = 50;
    /// Silence, in seconds, below which an ETA is never stale (`STALE_FLOOR`): a fast run's saves and evaluations are not taken for a stall.
    pub const FLOOR_SECONDS: f64 = 120.0;
}

// contract.json: alerts
/// The rules of a run's alerts (`alerts` in the status record), as thresholds: `stalled` is the `stale` rule for a run that has not ended; `invalid` an invalid line or snapshot file; `spike` and `nonfinite` are these. Since contract 2.2.0.
pub mod alerts {
    // spike: A training loss that jumps: a log's `loss` above `ratio` times the median (of an even count, the lower of the two middle values) of the finite training losses of the `window` logs with a loss before it (fewer at the start of the stream), judged once `min_logs` such losses came before it and only where that median is above 0. The latest such log is the alert.
    /// How many times the median a loss must exceed (`SPIKE_RATIO`).
    pub const SPIKE_RATIO: f64 = 4.0;
    /// How many training losses before a log its median is taken over (`SPIKE_WINDOW`): a constant, so that judging every log costs `window` at most each.
    pub const SPIKE_WINDOW: usize = 20;
    /// How many training losses must come before a log for it to be judged (`SPIKE_MIN_LOGS`), at most `window`: the first logs of a training have no median to speak of.
    pub const SPIKE_MIN_LOGS: usize = 5;
    // nonfinite: A value that was not finite: a log whose `scalars` hold `"NaN"`, `"Infinity"` or `"-Infinity"` under one of `keys` (the plugin writes a `loss`, `eval_loss` or `grad_norm` that is not finite there, and `null` in its field), or an `end` line's `summary` that does. The alert is the first log of the latest stretch of such logs, a stretch ended by a log that holds a finite value under one of `keys` (in its field or its `scalars`).
    /// The keys watched (`NONFINITE_KEYS`).
    pub const NONFINITE_KEYS: [&str; 4] = ["loss", "eval_loss", "grad_norm", "train_loss"];
}

// contract.json: max_bytes
/// The most bytes each side file of a run folder may hold, by its key in `files`: the command line refuses a larger one unread, the plugin reads no reason from a larger request. Since contract 1.2.0.
pub mod max_bytes {
    /// `snapshot.request` (`REQUEST_LIMIT`): its word of at most 64 characters and any white space around it. What the plugin reads of a request (its own `_REQUEST_READ_LIMIT`, since it travels alone), so that the command line and the plugin agree on every request.
    pub const SNAPSHOT_REQUEST: usize = 65536;
    /// `snapshot.json` (`PROOF_LIMIT`): four short fields and a checkpoint's path.
    pub const SNAPSHOT: usize = 65536;
}

// snapshot.schema.json, snapshot-request.schema.json, contract.json: files
/// What the core checks of a run folder's side files beyond their Rust types.
pub mod side {
    /// The request's file name.
    pub const REQUEST_FILE: &str = "snapshot.request";
    /// The proof's file name.
    pub const PROOF_FILE: &str = "snapshot.json";
    /// The proof's required fields, in the schema's order.
    pub const PROOF_REQUIRED: [&str; 4] = ["checkpoint", "step", "time", "reason"];
    /// The proof's `checkpoint`: its `minLength`.
    pub const CHECKPOINT_MIN_LENGTH: usize = 1;
    /// One word: 1 to 64 ASCII letters, digits, `_` or `-`.
    pub const WORD_TITLE: &str = "Word";
    /// The pattern of a `Word`.
    pub const WORD_PATTERN: &str = "^[A-Za-z0-9_-]{1,64}$";
    /// The request's text: its schema's pattern.
    pub const REQUEST_PATTERN: &str = "^[ \\t\\r\\n]*([A-Za-z0-9_-]{1,64}[ \\t\\r\\n]*)?$";
}

// @generated from schema/ by core/codegen/generate.py: do not edit.
// Regenerate with `nox -s generate`; `nox -s generated` fails when this file is stale.

use serde::{Deserialize, Serialize};

use crate::scalars::Scalars;
use crate::values::{Kind, Value};

/// A training or evaluation log: the trainer's step and the values it logged (the reference's `TrainMetric`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainMetric {
    /// Unix time of the log, in seconds.
    pub time: f64,
    /// Optimizer steps done.
    pub step: u64,
    /// Fractional epoch, when known.
    #[serde(default)]
    pub epoch: Option<f64>,
    /// Total steps of the run, when known.
    #[serde(default)]
    pub max_steps: Option<u64>,
    /// Training loss.
    #[serde(default)]
    pub loss: Option<f64>,
    /// Loss on `data/eval.jsonl`, on evaluation lines.
    #[serde(default)]
    pub eval_loss: Option<f64>,
    /// Learning rate.
    #[serde(default)]
    pub learning_rate: Option<f64>,
    /// Gradient norm.
    #[serde(default)]
    pub grad_norm: Option<f64>,
    /// The log's other numeric values (`eval_accuracy`, `rewards/chosen`, `num_input_tokens_seen`), each under the key the Trainer gave it; and a `loss`, `eval_loss`, `learning_rate` or `grad_norm` that was not finite, which its field cannot hold (`null` there), by its name (`"NaN"`, `"Infinity"`, `"-Infinity"`) under the same key (since contract 2.2.0). Unknown to the reference, which ignores it.
    #[serde(skip)]
    pub scalars: Option<Scalars>,
}

/// A line of `metrics.jsonl`: one JSON object, tagged by `event`. The plugin writes `begin`, `log`, `eval` and `end`; the job's shell writes `stage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "lowercase")]
pub enum MetricLine {
    /// Training started: the plugin is loaded.
    Begin {
        /// Unix time, in seconds.
        time: f64,
        /// Total steps of the run, when known.
        #[serde(default)]
        max_steps: Option<u64>,
    },
    /// A training or evaluation log: the trainer's step and the values it logged (the reference's `TrainMetric`).
    Log(TrainMetric),
    /// The job starts one of its commands; written by the job's own shell before the command, not by the plugin.
    Stage {
        /// Unix time, in seconds.
        time: f64,
        /// The command starting.
        name: JobStage,
    },
    /// An evaluation is under way: at most one line every 2 seconds.
    Eval {
        /// Unix time, in seconds.
        time: f64,
        /// Prediction steps done in this evaluation, from 1.
        step: u64,
        /// Prediction steps of the whole evaluation, when known.
        #[serde(default)]
        total: Option<u64>,
    },
    /// The training loop ended: what follows is the trainer's final work.
    End {
        /// Unix time, in seconds.
        time: f64,
        /// Optimizer steps done.
        step: u64,
        /// The training's one-shot values, logged once at its end (`train_runtime`, `train_samples_per_second`, `total_flos`, `train_loss`). Unknown to the reference, which ignores it.
        #[serde(skip)]
        summary: Option<Scalars>,
    },
}

/// A command of a training job, as its stage event names it: `train` (the training itself), `merge` (the merge of the adapter into the base model), `export` (the export of the model to GGUF), `compare` (the child's answers to the eval questions, for `overbrainer compare`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStage {
    Train,
    Merge,
    Export,
    Compare,
}

impl JobStage {
    /// Every stage, in the schema's order.
    pub const ALL: [Self; 4] = [Self::Train, Self::Merge, Self::Export, Self::Compare];

    /// The name its stage event carries.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Train => "train",
            Self::Merge => "merge",
            Self::Export => "export",
            Self::Compare => "compare",
        }
    }
}

/// The proof of a snapshot, `snapshot.json`, written by the plugin once the checkpoint is saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The checkpoint folder, relative to the run folder (the request's folder), with `/` separators, e.g. `out/checkpoint-12`.
    pub checkpoint: String,
    /// Optimizer steps done when the checkpoint was saved.
    pub step: u64,
    /// Unix time the proof was written, in seconds.
    pub time: f64,
    /// The request's one word, or null when the request was empty, not one word, not a regular file or longer than 64 KiB; `preempted` for a snapshot taken on SIGTERM (`OVERBRAINER_SNAPSHOT_ON_SIGTERM`, contract 1.1.0).
    pub reason: Option<String>,
}

/// The field that holds a line's tag.
pub const TAG_FIELD: &str = "event";

/// Each variant's name (its `title`: the generated models' class names).
pub const NAMES: [&str; 5] = ["Begin", "Log", "Stage", "Eval", "End"];

/// Each variant's tag, in declaration order (a variant's index in the tables below).
pub const TAGS: [&str; 5] = ["begin", "log", "stage", "eval", "end"];

/// Each variant's fields and their kinds, in declaration order.
pub const FIELDS: [&[(&str, Kind)]; 5] = [
    &[("time", Kind::F64), ("max_steps", Kind::OptU64)],
    &[
        ("time", Kind::F64),
        ("step", Kind::U64),
        ("epoch", Kind::OptF64),
        ("max_steps", Kind::OptU64),
        ("loss", Kind::OptF64),
        ("eval_loss", Kind::OptF64),
        ("learning_rate", Kind::OptF64),
        ("grad_norm", Kind::OptF64),
    ],
    &[("time", Kind::F64), ("name", Kind::Stage)],
    &[
        ("time", Kind::F64),
        ("step", Kind::U64),
        ("total", Kind::OptU64),
    ],
    &[("time", Kind::F64), ("step", Kind::U64)],
];

/// Every field of any variant, with its kind: a name has one kind in every variant.
pub const UNION: [(&str, Kind); 10] = [
    ("time", Kind::F64),
    ("max_steps", Kind::OptU64),
    ("step", Kind::U64),
    ("epoch", Kind::OptF64),
    ("loss", Kind::OptF64),
    ("eval_loss", Kind::OptF64),
    ("learning_rate", Kind::OptF64),
    ("grad_norm", Kind::OptF64),
    ("name", Kind::Stage),
    ("total", Kind::OptU64),
];

/// Each variant's fields as indices in `UNION`, in declaration order.
pub const SLOTS: [&[usize]; 5] = [
    &[0, 1],
    &[0, 2, 3, 1, 4, 5, 6, 7],
    &[0, 8],
    &[0, 2, 9],
    &[0, 2],
];

/// Each variant's field that the reference does not know, if any (its key).
pub const EXTRAS: [Option<&str>; 5] = [None, Some("scalars"), None, None, Some("summary")];

/// The most fields a variant has.
pub const MAX_FIELDS: usize = 8;

/// The index in `UNION` of a field's name.
#[must_use]
pub fn union_index(name: &str) -> Option<usize> {
    match name {
        "time" => Some(0),
        "max_steps" => Some(1),
        "step" => Some(2),
        "epoch" => Some(3),
        "loss" => Some(4),
        "eval_loss" => Some(5),
        "learning_rate" => Some(6),
        "grad_norm" => Some(7),
        "name" => Some(8),
        "total" => Some(9),
        _ => None,
    }
}

impl MetricLine {
    /// The index of this line's variant in `TAGS` and `FIELDS`.
    #[must_use]
    pub const fn variant(&self) -> usize {
        match self {
            Self::Begin { .. } => 0,
            Self::Log(_) => 1,
            Self::Stage { .. } => 2,
            Self::Eval { .. } => 3,
            Self::End { .. } => 4,
        }
    }

    /// Each field's value, in declaration order (`FIELDS[self.variant()]`).
    pub fn for_each_value<F: FnMut(Value)>(&self, mut each: F) {
        match self {
            Self::Begin { time, max_steps } => {
                each(Value::F64(*time));
                each(Value::OptU64(*max_steps));
            }
            Self::Log(line) => {
                each(Value::F64(line.time));
                each(Value::U64(line.step));
                each(Value::OptF64(line.epoch));
                each(Value::OptU64(line.max_steps));
                each(Value::OptF64(line.loss));
                each(Value::OptF64(line.eval_loss));
                each(Value::OptF64(line.learning_rate));
                each(Value::OptF64(line.grad_norm));
            }
            Self::Stage { time, name } => {
                each(Value::F64(*time));
                each(Value::Stage(*name));
            }
            Self::Eval { time, step, total } => {
                each(Value::F64(*time));
                each(Value::U64(*step));
                each(Value::OptU64(*total));
            }
            Self::End { time, step, .. } => {
                each(Value::F64(*time));
                each(Value::U64(*step));
            }
        }
    }

    /// The line of variant `variant` with these values, in declaration order; `None`
    /// when their number or kinds are not the variant's.
    #[must_use]
    pub fn from_values(variant: usize, values: &[Value]) -> Option<Self> {
        match (variant, values) {
            (0, [Value::F64(time), Value::OptU64(max_steps)]) => Some(Self::Begin {
                time: *time,
                max_steps: *max_steps,
            }),
            (
                1,
                [Value::F64(time), Value::U64(step), Value::OptF64(epoch), Value::OptU64(max_steps), Value::OptF64(loss), Value::OptF64(eval_loss), Value::OptF64(learning_rate), Value::OptF64(grad_norm)],
            ) => Some(Self::Log(TrainMetric {
                time: *time,
                step: *step,
                epoch: *epoch,
                max_steps: *max_steps,
                loss: *loss,
                eval_loss: *eval_loss,
                learning_rate: *learning_rate,
                grad_norm: *grad_norm,
                scalars: None,
            })),
            (2, [Value::F64(time), Value::Stage(name)]) => Some(Self::Stage {
                time: *time,
                name: *name,
            }),
            (3, [Value::F64(time), Value::U64(step), Value::OptU64(total)]) => Some(Self::Eval {
                time: *time,
                step: *step,
                total: *total,
            }),
            (4, [Value::F64(time), Value::U64(step)]) => Some(Self::End {
                time: *time,
                step: *step,
                summary: None,
            }),
            _ => None,
        }
    }

    /// The field the reference does not know (`EXTRAS[self.variant()]`), to fill.
    pub fn extra_mut(&mut self) -> Option<&mut Option<Scalars>> {
        match self {
            Self::Log(line) => Some(&mut line.scalars),
            Self::End { summary, .. } => Some(summary),
            _ => None,
        }
    }

    /// The field the reference does not know, when the line holds it.
    #[must_use]
    pub const fn extra(&self) -> Option<&Scalars> {
        match self {
            Self::Log(line) => line.scalars.as_ref(),
            Self::End { summary, .. } => summary.as_ref(),
            _ => None,
        }
    }
}

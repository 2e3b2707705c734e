//! A field's kind and value: how the generated tables describe the variants' fields, and
//! how a line's values cross to another language (the Python binding) and back.

use crate::generated::JobStage;

/// The kind of a field, as the schema gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `f64`: any JSON number.
    F64,
    /// `u64`: an integer literal from 0 to u64::MAX.
    U64,
    /// `Option<f64>` with `#[serde(default)]`: absent or null is `None`.
    OptF64,
    /// `Option<u64>` with `#[serde(default)]`.
    OptU64,
    /// A job stage's name.
    Stage,
}

impl Kind {
    /// The value of an absent field, when the field may be absent.
    #[must_use]
    pub const fn absent(self) -> Option<Value> {
        match self {
            Self::OptF64 => Some(Value::OptF64(None)),
            Self::OptU64 => Some(Value::OptU64(None)),
            Self::F64 | Self::U64 | Self::Stage => None,
        }
    }
}

/// One field's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    F64(f64),
    U64(u64),
    OptF64(Option<f64>),
    OptU64(Option<u64>),
    Stage(JobStage),
}

//! overbrainer's metrics lines, read exactly as its reference (0.8.2, module `metrics`) reads
//! them.
//!
//! The types in [`generated`] are written from the contract's JSON Schemas as the same serde
//! derives as the reference's: [`parse_line`] is the reference's own reading of them by
//! serde_json. [`read_line`] gives the same answer faster: a single pass that reads the
//! usual line straight into its variant, and the derived reading for any other line, with
//! the error's category, message, position and JSON path. [`Pace`], [`MetricLine::mark`]
//! and [`dump_line`] are the reference's, from its specification.
//!
//! Whole streams: [`split`] cuts bytes into lines of any length as they come, [`scan`]
//! answers each, in order, for a consumer: [`order`] (the facts `check` reports),
//! [`columns`] (a table, in Arrow's layout) or [`notable`] (the lines a run's state is
//! made of: `status`, `watch`), folded by [`status`] (a run's state) and [`watch`] (a run
//! followed live: its events).

#![forbid(unsafe_code)]

pub mod alerts;
pub mod both;
pub mod check;
pub mod columns;
pub mod digest;
pub mod error;
mod fast;
pub mod format;
pub mod generated;
pub mod groups;
pub mod names;
pub mod notable;
pub mod order;
mod pace;
pub mod pattern;
mod plain;
pub mod reports;
pub mod scalars;
pub mod scan;
pub mod side;
pub mod split;
pub mod status;
pub mod values;
pub mod view;
pub mod watch;

pub use error::{is_cut, Category, ParseError, Path, Segment};
pub use generated::{JobStage, MetricLine, Snapshot, TrainMetric};
pub use pace::{try_from_secs_f64, Pace};
pub use values::{Kind, Value};

/// The reference's `parse_line`: `serde_json::from_str` of the derived types.
///
/// # Errors
///
/// Returns the JSON error when the line is not a metrics record.
pub fn parse_line(line: &str) -> Result<MetricLine, serde_json::Error> {
    serde_json::from_str(line)
}

/// One line, as `parse_line` answers it: bytes that are not UTF-8 are a syntax error (the
/// reference takes `&str`); white space around the value, a trailing newline included, is
/// accepted.
///
/// # Errors
///
/// Returns the reference's error, placed (`ParseError`), when the line is not a metrics
/// record.
pub fn read_line(line: &[u8]) -> Result<MetricLine, ParseError> {
    read_bytes(line, read_str)
}

/// `read` of `line` once it is known to be UTF-8. One check of the whole line (ASCII at a
/// word a step) costs less than serde_json's reader of bytes checking each key and string
/// apart; a line that is not UTF-8 is the reference's syntax error wherever it goes.
fn read_bytes(
    line: &[u8],
    read: fn(&str) -> Result<MetricLine, ParseError>,
) -> Result<MetricLine, ParseError> {
    match std::str::from_utf8(line) {
        Ok(text) => read(text),
        Err(error) => Err(ParseError::utf8(error.valid_up_to())),
    }
}

/// `read_line` of a line already known to be UTF-8.
///
/// # Errors
///
/// As `read_line`.
pub fn read_str(text: &str) -> Result<MetricLine, ParseError> {
    read_text(text, ParseError::from_serde)
}

/// `read_line`, a rejected line's path not located (`None`): for a face that gives the
/// path only when it is asked for, by [`path_of`] (locating it walks the line again, which
/// costs more than the rest of the error). Everything else is `read_line`'s.
///
/// # Errors
///
/// As `read_line`, the error's `path` `None`.
pub fn read_line_unlocated(line: &[u8]) -> Result<MetricLine, ParseError> {
    read_bytes(line, read_str_unlocated)
}

/// `read_line_unlocated` of a line already known to be UTF-8.
///
/// # Errors
///
/// As `read_line_unlocated`.
pub fn read_str_unlocated(text: &str) -> Result<MetricLine, ParseError> {
    read_text(text, ParseError::unlocated)
}

/// The path `read_line` gives the error of `line`, located: `None` for a line it accepts
/// and for an error after the value (what a face that read the line unlocated gives when
/// the path is asked for).
#[must_use]
pub fn path_of(line: &[u8]) -> Option<Path> {
    read_line(line).err().and_then(|error| error.path)
}

fn read_text(
    text: &str,
    error: fn(&str, &serde_json::Error) -> ParseError,
) -> Result<MetricLine, ParseError> {
    let (mut line, extra) = match read_quickly(text) {
        Some(read) => read,
        None => (parse_line(text).map_err(|found| error(text, &found))?, true),
    };
    if extra {
        fill_extra(text, &mut line);
    }
    Ok(line)
}

/// The line's field that the reference does not know (a log's `scalars`, an end's
/// `summary`), read from its text beside the reference's reading.
fn fill_extra(text: &str, line: &mut MetricLine) {
    let variant = line.variant();
    if let (Some(field), Some(slot)) = (generated::EXTRAS[variant], line.extra_mut()) {
        *slot = scalars::read(text, field);
    }
}

/// `read_line`'s verdict alone: the line, or the category of the reference's error, without
/// the words, column and path of a finding (what counting invalid lines needs).
///
/// # Errors
///
/// The category of the reference's error, when the line is not a metrics record.
pub fn read_verdict(line: &[u8]) -> Result<MetricLine, Category> {
    let text = std::str::from_utf8(line).map_err(|_| Category::Syntax)?;
    let (mut line, extra) = match read_quickly(text) {
        Some(read) => read,
        None => (
            parse_line(text).map_err(|error| ParseError::category_of(&error))?,
            true,
        ),
    };
    if extra {
        fill_extra(text, &mut line);
    }
    Ok(line)
}

/// The usual line read by hand, else one pass over serde_json's parser: each answers only
/// where its answer is the reference's (`None`: the derived reading answers); and whether
/// the line may hold a field the reference does not know (the hand reading knows it has
/// none when it met no such key).
fn read_quickly(text: &str) -> Option<(MetricLine, bool)> {
    match plain::read_or_stop(text) {
        Ok(read) => Some(read),
        Err(plain::Stop::Refused) => None,
        Err(plain::Stop::Unread) => {
            // The single pass reads an object, whole: a line that does not begin with `{` and
            // end with `}` (white space aside) is none, and the pass would only find it out.
            let object = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
            if object.starts_with('{') && object.ends_with('}') {
                fast::read(text).map(|line| (line, true))
            } else {
                None
            }
        }
    }
}

/// The lines of `body`: the pieces between newlines (`\n` only), the empty piece after a final
/// newline left out, so that a body not ending in a newline ends in a line without one.
pub fn lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let trimmed = body.strip_suffix(b"\n").unwrap_or(body);
    let count = if body.is_empty() { 0 } else { usize::MAX };
    memchr::memchr_iter(b'\n', trimmed)
        .chain(std::iter::once(trimmed.len()))
        .scan(0, move |start, end| {
            let piece = &trimmed[*start..end];
            *start = end + 1;
            Some(piece)
        })
        .take(count)
}

/// The canonical JSON of a line, as the reference's `Serialize` writes it: `serde_json`'s
/// `to_string`, the tag first, then the fields in order, compact, floats by ryu (a float that
/// is not finite is `null`).
#[must_use]
pub fn dump_line(line: &MetricLine) -> String {
    // The derived `Serialize` of these types writes only strings, numbers and null: it
    // cannot fail, and an empty string would only stand for a bug.
    serde_json::to_string(line).unwrap_or_default()
}

/// What a line other than a log says of the job's progress: the stage, the evaluation and
/// the end lines, without their time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A command starts.
    Stage(JobStage),
    /// Step `step` of an evaluation of `total` steps, when known.
    Eval { step: u64, total: Option<u64> },
    /// The training loop ended at `step`.
    End { step: u64 },
}

impl MetricLine {
    /// The mark of a stage, evaluation or end line; `None` for the others.
    #[must_use]
    pub const fn mark(&self) -> Option<Mark> {
        match *self {
            Self::Stage { name, .. } => Some(Mark::Stage(name)),
            Self::Eval { step, total, .. } => Some(Mark::Eval { step, total }),
            Self::End { step, .. } => Some(Mark::End { step }),
            Self::Begin { .. } | Self::Log(_) => None,
        }
    }
}

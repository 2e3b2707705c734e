//! The words every face shows a run's state in, made from its [`StatusReport`]: the rows of
//! `status`'s one-run screen ([`screen`]), the cells of its table of runs ([`cells`],
//! [`footer`]), and `watch`'s progress line ([`progress`]). The command line lays them out
//! with rich, the page with the DOM; neither writes a word of its own.
//!
//! A row is a pair of texts, its label and its words: the screen is a list of them, in the
//! order shown. Strings that come from the run's files or names (the run's name, a stage,
//! a checkpoint's path, a request's reason, a scalar's key) are in the words as they are,
//! and nothing else in them is a character a terminal acts on: a face that escapes such
//! characters (the command line's `shown`) escapes a whole row and changes only the data.
//!
//! Numbers are written by [`crate::format`], as Python's format specifications write them.

use crate::format::{ago, clock, duration, general, percent, rate, thousands};
use crate::reports::{Alert, ScalarStats, SnapshotState, StatusReport, StepValue};
use crate::scalars::Scalar;
use crate::status::Estimate;

/// A run read from standard input is named `-`.
const STDIN: &str = "-";

/// The value of a scalar a column or a row shows: its latest, its lowest or its highest
/// finite value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    Last,
    Min,
    Max,
}

impl Aggregate {
    /// `last`, `min` or `max`; `None` for another word.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "last" => Some(Self::Last),
            "min" => Some(Self::Min),
            "max" => Some(Self::Max),
            _ => None,
        }
    }
}

/// A scalar asked for (`--metric KEY[:AGG]`): its key, which value, and the text it was
/// asked by (a row's label, a column's heading).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub key: String,
    pub aggregate: Aggregate,
    pub text: String,
}

impl Asked {
    /// `KEY[:last|min|max]`: the text after the last `:` is the aggregate when it is one of
    /// them, else part of the key (`a:b` is the key `a:b`, its latest value).
    #[must_use]
    pub fn parse(text: &str) -> Self {
        if let Some((key, word)) = text.rsplit_once(':') {
            if let Some(aggregate) = Aggregate::from_name(word) {
                return Self {
                    key: key.to_owned(),
                    aggregate,
                    text: text.to_owned(),
                };
            }
        }
        Self {
            key: text.to_owned(),
            aggregate: Aggregate::Last,
            text: text.to_owned(),
        }
    }
}

/// `.4g`: how a loss or a scalar is written.
fn number(value: f64) -> String {
    general(value, 4)
}

/// `count word` or `count words`, the count grouped by three.
fn plural(count: u64, word: &str) -> String {
    let ending = if count == 1 { "" } else { "s" };
    format!("{} {word}{ending}", thousands(count))
}

/// A scalar's words: empty for a run without the key; its latest value (`null`, or its
/// word: `NaN`, `Infinity`, `-Infinity`), or `value @step` of the lowest or highest (`-`
/// when no value was finite).
#[must_use]
pub fn scalar_text(record: &StatusReport, asked: &Asked) -> String {
    record
        .scalars
        .get(&asked.key)
        .map_or_else(String::new, |stats| scalar_words(stats, asked.aggregate))
}

fn scalar_words(stats: &ScalarStats, aggregate: Aggregate) -> String {
    let chosen = match aggregate {
        Aggregate::Last => {
            return match stats.last.value {
                Scalar::Number(value) => number(value),
                Scalar::Null => "null".to_owned(),
                Scalar::NaN => "NaN".to_owned(),
                Scalar::Infinity => "Infinity".to_owned(),
                Scalar::NegInfinity => "-Infinity".to_owned(),
            }
        }
        Aggregate::Min => stats.min.as_ref(),
        Aggregate::Max => stats.max.as_ref(),
    };
    chosen.map_or_else(
        || "-".to_owned(),
        |value| format!("{} @{}", number(value.value), thousands(value.step)),
    )
}

/// The rows `status` shows for one run, label and words, with a row for each scalar asked
/// for (`- (not logged)` where the run has not logged it), and last, when the run has any,
/// its alerts.
#[must_use]
pub fn screen(record: &StatusReport, asked: &[Asked]) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::with_capacity(12 + asked.len());
    let mut row = |label: &str, words: String| rows.push((label.to_owned(), words));
    row("run", record.run.clone());
    row("stage", stage_text(record));
    row("step", step_text(record));
    row("loss", value_text(record.loss.as_ref()));
    row("eval loss", value_text(record.eval_loss.as_ref()));
    if let Some(rate) = record.learning_rate {
        row("learning rate", general(rate, 3));
    }
    for each in asked {
        let words = scalar_text(record, each);
        let words = if words.is_empty() {
            "- (not logged)".to_owned()
        } else {
            words
        };
        row(&each.text, words);
    }
    row("evaluation", evaluation_text(record));
    row("eta", eta_text(record));
    row("last line", age_text(record));
    row(
        "snapshot",
        snapshot_text(record.snapshot.as_ref(), record.run == STDIN),
    );
    row("lines", lines_row(record));
    if !record.alerts.is_empty() {
        row("alerts", alerts_text(record));
    }
    rows
}

/// The alerts row: each alert as `kind: message`, in the record's order, joined by `; `.
#[must_use]
pub fn alerts_text(record: &StatusReport) -> String {
    record
        .alerts
        .iter()
        .map(|alert| format!("{}: {}", alert.kind.name(), alert.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The stage row: the latest `stage` line's command, or that there is none, and the phase
/// (`ended at step N` once ended).
#[must_use]
pub fn stage_text(record: &StatusReport) -> String {
    let phase = if record.ended {
        format!("ended at step {}", thousands(record.step))
    } else {
        record.phase.name().to_owned()
    };
    match record.stage {
        Some(stage) => format!("{} ({phase})", stage.name()),
        None => format!("no stage line ({phase})"),
    }
}

/// `step / max_steps (progress)`.
fn step_text(record: &StatusReport) -> String {
    let mut text = thousands(record.step);
    if let Some(total) = record.max_steps {
        text.push_str(&format!(" / {}", thousands(total)));
    }
    if let Some(progress) = record.progress {
        text.push_str(&format!(" ({})", percent(progress)));
    }
    text
}

/// `2.5 at step 40`, or `-`.
fn value_text(value: Option<&StepValue>) -> String {
    value.map_or_else(
        || "-".to_owned(),
        |value| format!("{} at step {}", number(value.value), thousands(value.step)),
    )
}

/// The evaluation row: its progress, or none under way.
fn evaluation_text(record: &StatusReport) -> String {
    match &record.evaluation {
        None => "none under way".to_owned(),
        Some(evaluation) => match evaluation.total {
            Some(total) if total > 0 => {
                #[allow(clippy::cast_precision_loss)] // a share, as Python divides two ints
                let share = evaluation.step as f64 / total as f64;
                format!(
                    "{} / {} ({})",
                    thousands(evaluation.step),
                    thousands(total),
                    percent(share)
                )
            }
            _ => format!("{} steps done", thousands(evaluation.step)),
        },
    }
}

/// The ETA as the screen says it: counted down since it was measured, stale, or why it is
/// not known yet.
#[must_use]
pub fn eta_text(record: &StatusReport) -> String {
    if record.ended {
        return "- (training ended)".to_owned();
    }
    if let (true, Some(silence)) = (record.eta_stale, record.last_line_seconds) {
        return format!(
            "stale (no line for {}, much longer than its pace predicts)",
            ago(silence)
        );
    }
    if let Some(remaining) = record.eta_remaining_seconds {
        return duration(remaining);
    }
    format!("unknown yet ({})", eta_unknown_reason(record))
}

/// Why the time left cannot be told yet, from what the record holds: the pace needs
/// training logs (those with a loss), two of them apart in steps and in time, and the
/// number of steps a log says the training takes (`max_steps`).
fn eta_unknown_reason(record: &StatusReport) -> &'static str {
    if record.loss.is_none() {
        "no training log yet"
    } else if record.max_steps.is_none() {
        "no line with max_steps yet"
    } else {
        "no two training logs apart in steps and time yet, or no log line with max_steps"
    }
}

/// When the last line came, from the record's time: `30 h ago`, `5 s ahead of this
/// clock`; `None` without a line.
fn age(record: &StatusReport) -> Option<String> {
    record.last_time?;
    let silence = record.last_line_seconds?;
    Some(if silence < 0.0 {
        format!("{} ahead of this clock", ago(-silence))
    } else {
        format!("{} ago", ago(silence))
    })
}

/// The last line row: `30 h ago`, or `none yet`.
#[must_use]
pub fn age_text(record: &StatusReport) -> String {
    age(record).unwrap_or_else(|| "none yet".to_owned())
}

/// `last line 30 h ago` (`last line 5 s ahead of this clock`), or `no line yet`: how `watch`
/// says it.
#[must_use]
pub fn last_line_text(record: &StatusReport) -> String {
    age(record).map_or_else(
        || "no line yet".to_owned(),
        |age| format!("last line {age}"),
    )
}

/// The snapshot row: a request not yet answered, the proof, what is wrong with the files;
/// for a run read from its metrics file alone (`stdin`: from standard input), that no
/// snapshot file was read.
#[must_use]
pub fn snapshot_text(snapshot: Option<&SnapshotState>, stdin: bool) -> String {
    let snapshot = match snapshot {
        Some(snapshot) => snapshot,
        None if stdin => return "- (standard input)".to_owned(),
        None => return "- (a metrics file named alone: name its folder)".to_owned(),
    };
    let mut parts = Vec::new();
    if snapshot.pending {
        let reason = snapshot.reason.as_deref().unwrap_or("no reason");
        parts.push(format!("requested ({reason}), not taken yet"));
    }
    if let Some(taken) = &snapshot.taken {
        let reason = taken.reason.as_deref().unwrap_or("no reason");
        let earlier = if snapshot.pending {
            "an earlier one "
        } else {
            ""
        };
        parts.push(format!(
            "{earlier}taken at step {}: {} ({reason})",
            thousands(taken.step),
            taken.checkpoint
        ));
    }
    if let Some(problem) = snapshot.problem.as_deref().filter(|text| !text.is_empty()) {
        parts.push(problem.to_owned());
    }
    if parts.is_empty() {
        "none requested".to_owned()
    } else {
        parts.join("; ")
    }
}

/// The lines row: how many, the bad ones in `check`'s words (in parentheses: a face may
/// paint them), and how many `begin` lines when the run was resumed.
#[must_use]
pub fn lines_row(record: &StatusReport) -> String {
    let mut text = thousands(record.lines);
    let words = crate::check::lines_text(record.invalid_lines, record.partial_last_line);
    if !words.is_empty() {
        text.push_str(&format!(" ({words})"));
    }
    if record.begins > 1 {
        text.push_str(&format!(" ({} begin lines: resumed)", record.begins));
    }
    text
}

/// The headings of the table's columns before the scalars asked for, and after them.
pub const HEADINGS: ([&str; 5], [&str; 5]) = (
    ["run", "stage", "step", "loss", "best eval"],
    ["eta", "last line", "snapshot", "invalid", "alerts"],
);

/// A run's row of the table of runs, in the order of [`HEADINGS`] with a cell for each
/// scalar asked for after the first five: name, stage (its phase with an evaluation's
/// progress; `, resumed` after a second `begin`), step/max_steps, loss, best eval `value
/// @step`, the scalars (blank for a run without the key), eta, last line, snapshot, invalid
/// lines (blank for none), alerts ([`alerts_cell`]: blank for none).
#[must_use]
pub fn cells(record: &StatusReport, asked: &[Asked]) -> Vec<String> {
    let mut phase = record.phase.name().to_owned();
    if let Some(evaluation) = &record.evaluation {
        if let Some(total) = evaluation.total.filter(|total| *total > 0) {
            phase.push_str(&format!(" {}/{total}", evaluation.step));
        }
    }
    let mut stage = match record.stage {
        Some(stage) => format!("{} ({phase})", stage.name()),
        None => phase,
    };
    if record.begins > 1 {
        stage.push_str(", resumed");
    }
    let mut step = thousands(record.step);
    if let Some(total) = record.max_steps {
        step.push_str(&format!("/{}", thousands(total)));
    }
    let loss = record
        .loss
        .as_ref()
        .map_or_else(|| "-".to_owned(), |loss| number(loss.value));
    let best = record.best_eval_loss.as_ref().map_or_else(
        || "-".to_owned(),
        |best| format!("{} @{}", number(best.value), thousands(best.step)),
    );
    let eta = if record.ended {
        "-".to_owned()
    } else if record.eta_stale {
        "stale".to_owned()
    } else {
        record
            .eta_remaining_seconds
            .map_or_else(|| "?".to_owned(), duration)
    };
    let age = age(record).unwrap_or_else(|| "-".to_owned());
    let invalid = if record.invalid_lines > 0 {
        thousands(record.invalid_lines)
    } else {
        String::new()
    };
    let mut row = vec![record.name.clone(), stage, step, loss, best];
    row.extend(asked.iter().map(|each| scalar_text(record, each)));
    row.extend([
        eta,
        age,
        snapshot_cell(record.snapshot.as_ref()),
        invalid,
        alerts_cell(&record.alerts),
    ]);
    row
}

/// The alerts cell: each alert's kind and, when it has one, its step (`spike@77`,
/// `invalid` for the snapshot files), in their order, joined by `, `; blank for none.
#[must_use]
pub fn alerts_cell(alerts: &[Alert]) -> String {
    alerts
        .iter()
        .map(|alert| match alert.step {
            Some(step) => format!("{}@{}", alert.kind.name(), thousands(step)),
            None => alert.kind.name().to_owned(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The snapshot cell: `invalid`, `requested`, `taken @N`, or `-`.
fn snapshot_cell(snapshot: Option<&SnapshotState>) -> String {
    let snapshot = match snapshot {
        Some(snapshot) => snapshot,
        None => return "-".to_owned(),
    };
    if snapshot
        .problem
        .as_deref()
        .map_or(false, |text| !text.is_empty())
    {
        "invalid".to_owned()
    } else if snapshot.pending {
        "requested".to_owned()
    } else if let Some(taken) = &snapshot.taken {
        format!("taken @{}", thousands(taken.step))
    } else {
        "-".to_owned()
    }
}

/// The line under the table: the runs, how many ended, how many are silent for longer than
/// their pace predicts and how many are invalid (those two when there are any).
#[must_use]
pub fn footer(records: &[StatusReport]) -> String {
    let count = |test: fn(&StatusReport) -> bool| {
        u64::try_from(records.iter().filter(|record| test(record)).count()).unwrap_or(u64::MAX)
    };
    let runs = u64::try_from(records.len()).unwrap_or(u64::MAX);
    let ended = count(|record| record.ended);
    let stale = count(|record| record.eta_stale);
    let invalid = count(|record| !record.valid);
    let mut parts = vec![plural(runs, "run"), format!("{} ended", thousands(ended))];
    if stale > 0 {
        parts.push(format!(
            "{} silent for longer than their pace predicts",
            thousands(stale)
        ));
    }
    if invalid > 0 {
        parts.push(format!("{} invalid", thousands(invalid)));
    }
    parts.join(", ")
}

/// What `watch` shows of the time at a look: the time left and the pace ([`Estimate`]) and
/// the training's time so far (since the latest `begin`; to the `end` line once ended).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Told {
    pub estimate: Estimate,
    pub elapsed: Option<f64>,
}

/// `watch`'s progress line: `step 2/4, loss 2, eval loss 2.5, eta 0:00:02` (the pace's ETA,
/// as measured); with the time at a look (`told`), the ETA counted down (or `eta stale`),
/// when the last line came and, as tqdm shows them, `[elapsed<remaining, rate]`: `…, eta
/// 0:00:02, last line 1 s ago [00:02<00:02, 1.00it/s]`. Once ended, no ETA.
#[must_use]
pub fn progress(record: &StatusReport, told: Option<&Told>) -> String {
    let mut step = format!("step {}", thousands(record.step));
    if let Some(total) = record.max_steps {
        step.push_str(&format!("/{}", thousands(total)));
    }
    let mut parts = vec![step];
    if let Some(loss) = &record.loss {
        parts.push(format!("loss {}", number(loss.value)));
    }
    if let Some(eval_loss) = &record.eval_loss {
        parts.push(format!("eval loss {}", number(eval_loss.value)));
    }
    let told = match told {
        Some(told) => told,
        None => {
            if !record.ended {
                let eta = record.eta_seconds.map_or_else(|| "?".to_owned(), duration);
                parts.push(format!("eta {eta}"));
            }
            return parts.join(", ");
        }
    };
    let estimate = &told.estimate;
    if !record.ended {
        parts.push(if estimate.stale {
            "eta stale".to_owned()
        } else {
            estimate.remaining.map_or_else(
                || "eta ?".to_owned(),
                |left| format!("eta {}", duration(left)),
            )
        });
    }
    parts.push(last_line_text(record));
    let left = if estimate.stale {
        "stale".to_owned()
    } else {
        estimate.remaining.map_or_else(|| "?".to_owned(), clock)
    };
    let elapsed = told.elapsed.map_or_else(|| "?".to_owned(), clock);
    let pace = estimate
        .step_seconds
        .filter(|seconds| *seconds != 0.0)
        .map(|seconds| 1.0 / seconds);
    format!("{} [{elapsed}<{left}, {}]", parts.join(", "), rate(pace))
}

/// `watch`'s event when a run's ETA goes stale: `eta stale: last line 3 min ago`.
#[must_use]
pub fn stale_event(record: &StatusReport) -> String {
    format!("eta stale: {}", last_line_text(record))
}

/// What a finding's category says of a line in plain words, said after the reference's
/// message where a person reads it (`check`'s text): a syntax error is a line that is not
/// JSON at all (`$: expected ident at column 2 (the line is not JSON)`), as against a JSON
/// value that is no metrics record (`data`) or one cut short (`eof`). `None` for the others,
/// whose message says it plainly.
#[must_use]
pub const fn finding_note(category: crate::reports::Category) -> Option<&'static str> {
    match category {
        crate::reports::Category::Syntax => Some("the line is not JSON"),
        _ => None,
    }
}

/// A finding's message as a person reads it: the reference's words, then what its category
/// says of the line in plain words ([`finding_note`]) where the message does not say it
/// already (a byte order mark's note), inside a note of where the line is that ends the
/// message (`(the last line, without its newline; the line is not JSON)`).
#[must_use]
pub fn finding_said(message: &str, category: crate::reports::Category) -> String {
    match finding_note(category) {
        Some(note) if !message.contains(crate::check::BOM_NOTE) => {
            match message.strip_suffix(')') {
                Some(before) => format!("{before}; {note})"),
                None => format!("{message} ({note})"),
            }
        }
        _ => message.to_owned(),
    }
}

/// What `watch` says of an event of a followed run: `stage train`, `training began: 100
/// steps`, `training resumed at step 40: 100 steps`, `evaluation at step 40`, `evaluation
/// ended at step 40: 25/25 prediction steps`, `eval loss 2.5 at step 40`, `training ended at
/// step 100`; for a line the reference rejects, its JSON path
/// and the finding's words (`$.step: invalid type: ... (the line is not JSON)`, [`finding_said`])
/// and for one over the user's bound `$:` and why: the face writes them after the file and
/// the line (`PATH:LINE `).
#[must_use]
pub fn event_words(event: &crate::watch::Event) -> String {
    use crate::watch::Event;
    match event {
        Event::Stage { stage, .. } => format!("stage {}", stage.name()),
        Event::Began {
            max_steps,
            resumed,
            step,
            ..
        } => {
            let what = if *resumed {
                format!("resumed at step {}", thousands(*step))
            } else {
                "began".to_owned()
            };
            let steps =
                max_steps.map_or_else(String::new, |total| format!(": {} steps", thousands(total)));
            format!("training {what}{steps}")
        }
        Event::EvaluationStarted { step } => format!("evaluation at step {}", thousands(*step)),
        Event::EvaluationEnded { step, done, total } => {
            let steps = match total {
                Some(total) => format!("{}/{}", thousands(*done), thousands(*total)),
                None => thousands(*done),
            };
            let noun = if *done == 1 && total.map_or(true, |total| total == 1) {
                "prediction step"
            } else {
                "prediction steps"
            };
            format!(
                "evaluation ended at step {}: {steps} {noun}",
                thousands(*step)
            )
        }
        Event::EvalLoss { step, value } => {
            format!("eval loss {} at step {}", number(*value), thousands(*step))
        }
        Event::Ended { step, .. } => format!("training ended at step {}", thousands(*step)),
        Event::Rejected { error, .. } => {
            use crate::reports::Category;
            let message = error.to_string();
            let said = match error.category {
                crate::Category::Syntax => finding_said(&message, Category::Syntax),
                crate::Category::Data => finding_said(&message, Category::Data),
                crate::Category::Eof => finding_said(&message, Category::Eof),
                crate::Category::Io => message,
            };
            let path = error.rendered_path().unwrap_or_else(|| "$".to_owned());
            format!("{path}: {said}")
        }
        Event::Over {
            size,
            complete,
            limit,
            ..
        } => {
            let limit = u64::try_from(*limit).unwrap_or(u64::MAX);
            format!(
                "$: {}",
                crate::check::overlong_text(*size, *complete, limit)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{alerts_cell, event_words, finding_said};
    use crate::check::BOM_NOTE;
    use crate::reports::{Alert, AlertKind, Category};
    use crate::watch::Event;
    use crate::ParseError;

    #[test]
    fn the_alerts_cell_names_each_kind_at_its_step() {
        let alert = |kind, step| Alert {
            kind,
            step,
            time: None,
            message: String::new(),
        };
        assert_eq!(alerts_cell(&[]), "");
        assert_eq!(
            alerts_cell(&[
                alert(AlertKind::Stalled, Some(1200)),
                alert(AlertKind::Spike, Some(77)),
                alert(AlertKind::Invalid, Some(0)),
                alert(AlertKind::Invalid, None),
            ]),
            "stalled@1,200, spike@77, invalid@0, invalid"
        );
    }

    #[test]
    fn watch_says_each_event_in_the_cores_words() {
        let began = Event::Began {
            line: 3,
            max_steps: Some(1200),
            resumed: true,
            step: 1000,
        };
        assert_eq!(
            event_words(&began),
            "training resumed at step 1,000: 1,200 steps"
        );
        let result = Event::EvalLoss {
            step: 40,
            value: 2.123_456,
        };
        assert_eq!(event_words(&result), "eval loss 2.123 at step 40");
        let ended = Event::EvaluationEnded {
            step: 1500,
            done: 1200,
            total: Some(1200),
        };
        assert_eq!(
            event_words(&ended),
            "evaluation ended at step 1,500: 1,200/1,200 prediction steps"
        );
        let unknown = Event::EvaluationEnded {
            step: 40,
            done: 1,
            total: None,
        };
        assert_eq!(
            event_words(&unknown),
            "evaluation ended at step 40: 1 prediction step"
        );
        let rejected = Event::Rejected {
            line: 2,
            error: ParseError::utf8(3),
        };
        assert_eq!(
            event_words(&rejected),
            "$: invalid UTF-8 at column 4 (the line is not JSON)"
        );
    }

    #[test]
    fn a_line_that_is_not_json_is_said_so_after_the_references_words() {
        let said = |message: &str, category| finding_said(message, category);
        assert_eq!(
            said("expected ident at column 2", Category::Syntax),
            "expected ident at column 2 (the line is not JSON)"
        );
        assert_eq!(
            said(
                "expected value at column 1 (the last line, without its newline)",
                Category::Syntax
            ),
            "expected value at column 1 (the last line, without its newline; the line is not JSON)"
        );
        let bom = format!("expected value at column 1 ({BOM_NOTE})");
        assert_eq!(said(&bom, Category::Syntax), bom);
        let data = "invalid type: floating point `3`, expected u64 at column 35";
        assert_eq!(said(data, Category::Data), data);
    }
}

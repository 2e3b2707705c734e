//! The lines a run's state is made of: what `status` and `watch` take from a metrics file,
//! with the logs that change nothing left out.
//!
//! A run's state (`overbrainer_contract.runs.state.RunState`) after a run of consecutive
//! logs depends on only a few of them: the pace on the first with a loss of the whole
//! stream, the last with a loss, the last with a step count and the last (the reference's
//! `Pace`); the latest loss, learning rate and evaluation loss on the last with each; and
//! `watch` shows every log with an evaluation loss, and times a training from the stream's
//! first line when no `begin` line came before it. So of each run of logs only those are
//! kept, in order, and the stream's first log. Of a run of evaluation lines (an evaluation's progress) the last is kept:
//! each replaces the one before in the state, and `watch` shows a run's start by the state
//! before it (no evaluation under way) and the training step, which the run does not move,
//! so the last shows what the first did. Every other line, each rejected line and each line
//! over the bound is kept.
//!
//! Every log's `scalars` (and every end's `summary`) counts in each key's stats, so those
//! are folded here, as the lines come, and kept as one [`Notable::Scalars`] per take (and
//! before each `stage` line), after the lines they were folded from. So are the alerts that
//! every log counts in (a loss spike, a value that was not finite): one [`Notable::Alerts`]
//! per take and before each `stage` line, a segment of the stream that the state joins to
//! the ones before it.

use crate::alerts::Segment;
use crate::digest::Digests;
use crate::error::ParseError;
use crate::generated::{MetricLine, TrainMetric};
use crate::scalars::Stats;
use crate::scan::{each_answer, Answer, Consumer, Options, Part};

/// One kept line (numbered from 1).
#[derive(Debug, Clone, PartialEq)]
pub enum Notable {
    /// Logs of one run of consecutive logs, in order: those the state depends on.
    Logs(Vec<TrainMetric>),
    /// A line other than a log.
    Line { line: u64, read: MetricLine },
    /// A line the reference rejects; `complete`: it ends in its newline.
    Rejected {
        line: u64,
        error: ParseError,
        complete: bool,
    },
    /// A complete line the reference rejects, read tersely (`Options::terse`).
    Refused { line: u64 },
    /// A line over the user's bound.
    Over {
        line: u64,
        size: u64,
        complete: bool,
        limit: usize,
    },
    /// The scalar maps' stats of the lines kept (or left out) since the last of these.
    Scalars(Stats),
    /// What the lines since the last of these say of spikes and non-finite values.
    Alerts(Segment),
    /// The logs' series since the last of these, digested (when the scan asks for them).
    Digests(Digests),
}

impl Notable {
    /// The same, its line numbered after `before` more lines.
    #[must_use]
    pub fn after(self, before: u64) -> Self {
        match self {
            Self::Logs(logs) => Self::Logs(logs),
            Self::Scalars(stats) => Self::Scalars(stats),
            Self::Alerts(segment) => Self::Alerts(segment),
            Self::Digests(digests) => Self::Digests(digests),
            Self::Line { line, read } => Self::Line {
                line: line + before,
                read,
            },
            Self::Rejected {
                line,
                error,
                complete,
            } => Self::Rejected {
                line: line + before,
                error,
                complete,
            },
            Self::Refused { line } => Self::Refused {
                line: line + before,
            },
            Self::Over {
                line,
                size,
                complete,
                limit,
            } => Self::Over {
                line: line + before,
                size,
                complete,
                limit,
            },
        }
    }
}

/// Why a log of a run is kept (bits of `Notables::logs`' reasons).
const FIRST_LOSS: u8 = 1;
const LAST_LOSS: u8 = 2;
const LAST_STEPS: u8 = 4;
const LAST_RATE: u8 = 8;
const EVAL_LOSS: u8 = 16;
const LATEST: u8 = 32;
const FIRST: u8 = 64;
/// The reasons a later log takes over.
const PASSING: u8 = LAST_LOSS | LAST_STEPS | LAST_RATE | LATEST;

/// The kept lines of a stream, gathered as its lines come.
#[derive(Debug, Clone, Default)]
pub struct Notables {
    /// What is kept, not yet taken (`take`).
    pub kept: Vec<Notable>,
    /// The run of logs under way: the logs kept so far, each with why.
    logs: Vec<(TrainMetric, u8)>,
    /// Whether a log with a loss came yet: the pace's first training log is the stream's
    /// first, so only that one is kept for being first.
    seen_loss: bool,
    /// Whether a log came yet: the stream's first is kept (when no other line came before
    /// it, the time a training is timed from).
    seen_log: bool,
    /// The run of evaluation lines under way: its latest line.
    last_eval: Option<(u64, MetricLine)>,
    /// The scalar maps' stats since the last take.
    stats: Stats,
    /// The alerts' segment since the last take.
    alerts: Segment,
    /// The logs' series digested since the last take, when asked for.
    digests: Option<Digests>,
}

impl Notables {
    /// None kept yet; the logs' series digested in at most `digest` buckets a key, when
    /// asked for (`Options::digest`).
    #[must_use]
    pub fn new(digest: Option<usize>) -> Self {
        Self {
            digests: digest.map(Digests::new),
            ..Self::default()
        }
    }

    /// None kept yet; the logs' series digested as `options` ask (`digest`, `digest_steps`).
    #[must_use]
    pub fn of(options: Options) -> Self {
        Self {
            digests: options.digest.map(|most| match options.digest_steps {
                Some((first, last)) => Digests::within(most, first, last),
                None => Digests::new(most),
            }),
            ..Self::default()
        }
    }

    /// What is kept since the last call, the runs under way closed.
    pub fn take(&mut self) -> Vec<Notable> {
        self.close_logs();
        self.close_evals();
        self.close_stats();
        std::mem::take(&mut self.kept)
    }

    fn close_stats(&mut self) {
        if !self.stats.is_empty() {
            self.kept
                .push(Notable::Scalars(std::mem::take(&mut self.stats)));
        }
        if !self.alerts.is_empty() {
            self.kept
                .push(Notable::Alerts(std::mem::take(&mut self.alerts)));
        }
        if let Some(digests) = &mut self.digests {
            if !digests.is_empty() {
                let emptied = digests.emptied();
                let taken = std::mem::replace(digests, emptied);
                self.kept.push(Notable::Digests(taken));
            }
        }
    }

    fn close_logs(&mut self) {
        if !self.logs.is_empty() {
            let logs = self.logs.drain(..).map(|(metric, _)| metric).collect();
            self.kept.push(Notable::Logs(logs));
        }
    }

    fn close_evals(&mut self) {
        if let Some((line, read)) = self.last_eval.take() {
            self.kept.push(Notable::Line { line, read });
        }
    }

    fn log(&mut self, metric: TrainMetric) {
        self.close_evals();
        if let Some(scalars) = &metric.scalars {
            self.stats.add(metric.step, scalars);
        }
        self.alerts.log(&metric);
        if let Some(digests) = &mut self.digests {
            digests.log(&metric);
        }
        let mut reasons = LATEST;
        if !self.seen_log {
            reasons |= FIRST;
            self.seen_log = true;
        }
        if metric.loss.is_some() {
            reasons |= LAST_LOSS;
            if !self.seen_loss {
                reasons |= FIRST_LOSS;
                self.seen_loss = true;
            }
        }
        if metric.max_steps.is_some() {
            reasons |= LAST_STEPS;
        }
        if metric.learning_rate.is_some() {
            reasons |= LAST_RATE;
        }
        if metric.eval_loss.is_some() {
            reasons |= EVAL_LOSS;
        }
        let passing = reasons & PASSING;
        for (_, kept) in &mut self.logs {
            *kept &= !passing;
        }
        self.logs.retain(|(_, kept)| *kept != 0);
        self.logs.push((metric, reasons));
    }

    fn other(&mut self, line: u64, read: MetricLine) {
        self.close_logs();
        if let MetricLine::End {
            step,
            time,
            summary: Some(summary),
        } = &read
        {
            self.stats.add(*step, summary);
            self.alerts.summary(*step, *time, summary);
        }
        if matches!(read, MetricLine::Eval { .. }) {
            self.last_eval = Some((line, read));
            return;
        }
        self.close_evals();
        if matches!(read, MetricLine::Stage { .. }) {
            // the stats and alerts of the lines before a stage kept before it: `watch` folds
            // nothing after the job's last stage, and they are the status it ends on
            self.close_stats();
        }
        self.kept.push(Notable::Line { line, read });
    }
}

impl Consumer for Notables {
    type Kept = Vec<Notable>;

    /// A part's own notables, its lines numbered from 1: a run of logs or of evaluation
    /// lines cut by a part's end is kept as two runs, which keep what it keeps.
    fn answer_part(lines: &[u8], options: Options) -> Part<Vec<Notable>> {
        let mut notables = Self::of(options);
        let mut count = 0;
        each_answer(lines, options, |_, answer| {
            count += 1;
            notables.line(count, answer, true);
        });
        Part {
            kept: notables.take(),
            lines: count,
        }
    }

    fn take_part(&mut self, before: u64, part: Part<Vec<Notable>>) {
        self.close_logs();
        self.close_evals();
        self.close_stats();
        self.kept
            .extend(part.kept.into_iter().map(|notable| notable.after(before)));
    }

    fn line(&mut self, line: u64, answer: Answer, complete: bool) {
        match answer {
            Answer::Read(MetricLine::Log(metric)) => self.log(metric),
            Answer::Read(read) => self.other(line, read),
            Answer::Bad(error) => {
                self.close_logs();
                self.close_evals();
                self.kept.push(Notable::Rejected {
                    line,
                    error,
                    complete,
                });
            }
            Answer::Refused(_) => {
                self.close_logs();
                self.close_evals();
                self.kept.push(Notable::Refused { line });
            }
            Answer::Over { size, limit } => {
                self.close_logs();
                self.close_evals();
                self.kept.push(Notable::Over {
                    line,
                    size,
                    complete,
                    limit,
                });
            }
        }
    }
}

//! What in a run needs a look: the status record's `alerts`, by the contract's rules
//! (`alerts` and `stale` in `contract.json`, the constants of [`crate::reports::alerts`] and
//! [`crate::reports::stale`]).
//!
//! Two of the rules need every log of a stream, not the few that [`crate::notable`] keeps
//! of a run of logs: a loss spike (a training loss above `SPIKE_RATIO` times the median of
//! the `SPIKE_WINDOW` training losses before it) and a value that was not finite (the first
//! log of the latest stretch of them). So they are folded as the lines come, into a
//! [`Segment`] of a stream: what a part of the stream says of them, read alone, and which of
//! its logs wait for the losses before it to be judged. A run's state joins the segments in
//! order ([`Alerts::then`]): the same answer however the stream is cut into parts, each log
//! judged once against a window of the `SPIKE_WINDOW` losses before it (a log costs
//! `O(SPIKE_WINDOW)`, a segment's first losses `O(SPIKE_WINDOW^2)` more, whatever the
//! stream's length).
//!
//! `stalled` (the run has not ended and its ETA is stale) and `invalid` (an invalid line, a
//! gzip stream cut short, invalid snapshot files) come from the state's own fields when the
//! record is made ([`crate::status::RunState::report`]).

use std::collections::VecDeque;

use crate::format::{ago, general, thousands};
use crate::generated::TrainMetric;
use crate::reports::alerts::{NONFINITE_KEYS, SPIKE_MIN_LOGS, SPIKE_RATIO, SPIKE_WINDOW};
use crate::reports::{Alert, AlertKind};
use crate::scalars::{Scalar, Scalars};

/// A training loss: its log's step and time, and its value (finite: a line's number).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loss {
    pub step: u64,
    pub time: f64,
    pub value: f64,
}

/// A loss judged a spike, with the median it was judged against and how many losses that
/// median was taken over.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spike {
    pub loss: Loss,
    pub median: f64,
    pub over: usize,
}

/// The values of the latest losses, at most `SPIKE_WINDOW`, in order, and the least of them:
/// the window a loss is judged against.
#[derive(Debug, Clone, PartialEq)]
struct Window {
    recent: VecDeque<f64>,
    /// The least value of `recent` (infinity when empty), found again only when the value
    /// that leaves the window was it.
    least: f64,
}

impl Default for Window {
    fn default() -> Self {
        Self {
            recent: VecDeque::new(),
            least: f64::INFINITY,
        }
    }
}

impl Window {
    /// `loss` in, the oldest out once the window is full.
    fn push(&mut self, loss: Loss) {
        let mut least_left = false;
        if self.recent.len() >= SPIKE_WINDOW.max(1) {
            least_left = self
                .recent
                .pop_front()
                .map_or(false, |old| old <= self.least);
        }
        self.recent.push_back(loss.value);
        self.least = if least_left {
            self.recent.iter().copied().fold(f64::INFINITY, lower)
        } else {
            lower(self.least, loss.value)
        };
    }

    /// The median of the window (of an even count, the lower of the two middle values).
    fn median(&self) -> Option<f64> {
        let mut values: Vec<f64> = self.recent.iter().copied().collect();
        let middle = values.len().checked_sub(1)? / 2;
        let (_, median, _) = values.select_nth_unstable_by(middle, f64::total_cmp);
        Some(*median)
    }

    /// `loss` judged against this window, `before` training losses having come before it in
    /// the stream: a spike when at least `SPIKE_MIN_LOGS` came, the median is above 0 and
    /// the loss above `SPIKE_RATIO` times it. A loss at most `SPIKE_RATIO` times the window's
    /// least value (so its median) is none, told without the median: the median is taken
    /// only for a loss above that, which a training rarely logs.
    fn judge(&self, loss: Loss, before: u64) -> Option<Spike> {
        let least = SPIKE_MIN_LOGS.clamp(1, SPIKE_WINDOW.max(1));
        if before < u64::try_from(least).unwrap_or(u64::MAX) {
            return None;
        }
        if loss.value <= SPIKE_RATIO * self.least {
            return None;
        }
        let median = self.median()?;
        (median > 0.0 && loss.value > SPIKE_RATIO * median).then_some(Spike {
            loss,
            median,
            over: self.recent.len(),
        })
    }
}

/// The lower of two values (the values of losses: finite).
fn lower(low: f64, value: f64) -> f64 {
    if value < low {
        value
    } else {
        low
    }
}

/// A value that was not finite: where it was seen, under which key, and its word.
#[derive(Debug, Clone, PartialEq)]
pub struct NonFinite {
    pub step: u64,
    pub time: f64,
    pub key: String,
    pub word: &'static str,
    /// Seen in an `end` line's `summary`, not in a log's `scalars`.
    pub summary: bool,
}

/// What a line says of the values watched for not being finite.
enum Finiteness {
    /// A watched key holds `NaN`, `Infinity` or `-Infinity`: the first such key of the
    /// contract's list.
    Not(String, &'static str),
    /// A watched key holds a finite value, and none holds a non-finite one.
    Finite,
    /// No watched key holds a value.
    Silent,
}

/// The value a log's own field holds for a watched key, where it has a field of that name.
fn field(metric: &TrainMetric, key: &str) -> Option<f64> {
    match key {
        "loss" => metric.loss,
        "eval_loss" => metric.eval_loss,
        "grad_norm" => metric.grad_norm,
        "learning_rate" => metric.learning_rate,
        "epoch" => metric.epoch,
        _ => None,
    }
}

/// How a line's fields (a log's; none for an `end` line) and scalar map stand.
fn finiteness(metric: Option<&TrainMetric>, scalars: Option<&Scalars>) -> Finiteness {
    let mut finite = false;
    for key in NONFINITE_KEYS {
        let value = scalars.and_then(|scalars| scalars.get(key));
        if let Some(word) = value.and_then(Scalar::word) {
            return Finiteness::Not(key.to_owned(), word);
        }
        finite = finite
            || matches!(value, Some(Scalar::Number(_)))
            || metric.map_or(false, |metric| field(metric, key).is_some());
    }
    if finite {
        Finiteness::Finite
    } else {
        Finiteness::Silent
    }
}

/// The stretches of non-finite values in a segment: where the latest one that surely began
/// in it began, and how the segment begins and ends.
#[derive(Debug, Clone, Default, PartialEq)]
struct Stretches {
    /// The segment's first line with a watched value, when that value was not finite: a
    /// stretch begins there unless one was under way before the segment.
    leading: Option<NonFinite>,
    /// Whether a line with a watched value came yet in the segment (and whether the latest
    /// was not finite).
    last: Option<bool>,
    /// The latest stretch that began after a finite value of the segment.
    latest: Option<NonFinite>,
}

impl Stretches {
    fn add(&mut self, seen: Finiteness, step: u64, time: f64, summary: bool) {
        match seen {
            Finiteness::Silent => {}
            Finiteness::Finite => self.last = Some(false),
            Finiteness::Not(key, word) => {
                let at = NonFinite {
                    step,
                    time,
                    key,
                    word,
                    summary,
                };
                match self.last {
                    None => self.leading = Some(at),
                    Some(false) => self.latest = Some(at),
                    Some(true) => {}
                }
                self.last = Some(true);
            }
        }
    }
}

/// What one part of a stream says of its spikes and non-finite values, read alone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Segment {
    /// The segment's first training losses (at most `SPIKE_WINDOW`): their window reaches
    /// before the segment, so they are judged when it is joined to what came before.
    head: Vec<Loss>,
    /// The segment's latest losses: the window of what follows.
    window: Window,
    /// Training losses in the segment.
    count: u64,
    /// The latest spike among the losses judged within the segment (those after its head).
    latest: Option<Spike>,
    stretches: Stretches,
}

impl Segment {
    /// A log of the stream, in order.
    pub fn log(&mut self, metric: &TrainMetric) {
        if let Some(value) = metric.loss {
            let loss = Loss {
                step: metric.step,
                time: metric.time,
                value,
            };
            if self.head.len() < SPIKE_WINDOW {
                self.head.push(loss);
            } else if let Some(spike) = self.window.judge(loss, self.count) {
                self.latest = Some(spike);
            }
            self.window.push(loss);
            self.count += 1;
        }
        let seen = finiteness(Some(metric), metric.scalars.as_ref());
        self.stretches.add(seen, metric.step, metric.time, false);
    }

    /// An `end` line's summary, in the stream's order.
    pub fn summary(&mut self, step: u64, time: f64, summary: &Scalars) {
        let seen = finiteness(None, Some(summary));
        self.stretches.add(seen, step, time, true);
    }

    /// Whether the segment saw nothing the alerts depend on.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0 && self.stretches.last.is_none()
    }
}

/// A stream's spikes and non-finite values so far, from its start: segments joined in
/// order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Alerts {
    window: Window,
    count: u64,
    spike: Option<Spike>,
    /// The first line of the latest stretch of non-finite values.
    nonfinite: Option<NonFinite>,
    /// Whether that stretch is still under way (no finite value since).
    in_stretch: bool,
}

impl Alerts {
    /// The next segment of the stream, joined: its first losses judged against the losses
    /// before it, its stretches continued.
    pub fn then(&mut self, segment: Segment) {
        let mut window = self.window.clone();
        let mut head_spike = None;
        for (before, loss) in (self.count..).zip(segment.head.iter().copied()) {
            if let Some(spike) = window.judge(loss, before) {
                head_spike = Some(spike);
            }
            window.push(loss);
        }
        if let Some(spike) = segment.latest.or(head_spike) {
            self.spike = Some(spike);
        }
        if segment.count >= u64::try_from(SPIKE_WINDOW).unwrap_or(u64::MAX) {
            self.window = segment.window;
        } else {
            self.window = window;
        }
        self.count += segment.count;
        let stretches = segment.stretches;
        if let Some(leading) = stretches.leading {
            if !self.in_stretch {
                self.nonfinite = Some(leading);
            }
        }
        if let Some(latest) = stretches.latest {
            self.nonfinite = Some(latest);
        }
        if let Some(last) = stretches.last {
            self.in_stretch = last;
        }
    }

    /// The latest spike.
    #[must_use]
    pub const fn spike(&self) -> Option<&Spike> {
        self.spike.as_ref()
    }

    /// The first line of the latest stretch of non-finite values.
    #[must_use]
    pub const fn nonfinite(&self) -> Option<&NonFinite> {
        self.nonfinite.as_ref()
    }

    /// The `nonfinite` and `spike` alerts, in that order.
    #[must_use]
    pub fn alerts(&self) -> Vec<Alert> {
        let mut alerts = Vec::new();
        if let Some(at) = &self.nonfinite {
            let place = if at.summary {
                format!("in the summary at step {}", thousands(at.step))
            } else {
                format!("at step {}", thousands(at.step))
            };
            alerts.push(Alert {
                kind: AlertKind::Nonfinite,
                step: Some(at.step),
                time: Some(at.time),
                message: format!("{} was {} {place}", at.key, at.word),
            });
        }
        if let Some(spike) = &self.spike {
            alerts.push(Alert {
                kind: AlertKind::Spike,
                step: Some(spike.loss.step),
                time: Some(spike.loss.time),
                message: format!(
                    "loss {} at step {}: more than {} times the median {} of the {} training losses before it",
                    general(spike.loss.value, 4),
                    thousands(spike.loss.step),
                    general(SPIKE_RATIO, 4),
                    general(spike.median, 4),
                    spike.over
                ),
            });
        }
        alerts
    }
}

/// The `stalled` alert of a run silent for `silence` seconds at `step`, its last line's
/// time `last_time`.
#[must_use]
pub fn stalled(step: u64, last_time: Option<f64>, silence: f64) -> Alert {
    Alert {
        kind: AlertKind::Stalled,
        step: Some(step),
        time: last_time,
        message: format!(
            "no line for {}, much longer than its pace predicts",
            ago(silence)
        ),
    }
}

/// The `invalid` alert of a metrics file: `invalid` lines, the first numbered `first` (the
/// run at `step` before it), and whether its gzip stream was cut short; `None` when neither.
#[must_use]
pub fn invalid_lines(invalid: u64, first: Option<(u64, u64)>, gzip_cut: bool) -> Option<Alert> {
    let mut parts = Vec::new();
    if let (true, Some((line, _))) = (invalid > 0, first) {
        parts.push(if invalid == 1 {
            format!("line {} is invalid", thousands(line))
        } else {
            format!(
                "{} invalid lines, the first line {}",
                thousands(invalid),
                thousands(line)
            )
        });
    }
    if gzip_cut {
        parts.push("the gzip stream is cut short".to_owned());
    }
    if parts.is_empty() {
        return None;
    }
    Some(Alert {
        kind: AlertKind::Invalid,
        step: first.map(|(_, step)| step),
        time: None,
        message: parts.join("; "),
    })
}

/// The `invalid` alert of a run folder's snapshot files, in the words of their problem.
#[must_use]
pub fn invalid_snapshot(problem: Option<&str>) -> Alert {
    Alert {
        kind: AlertKind::Invalid,
        step: None,
        time: None,
        message: problem.filter(|text| !text.is_empty()).map_or_else(
            || "the snapshot files are invalid".to_owned(),
            str::to_owned,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalars::read;

    fn log(step: u64, loss: Option<f64>, scalars: Option<&str>) -> TrainMetric {
        TrainMetric {
            time: 1000.0 + float(step),
            step,
            epoch: None,
            max_steps: None,
            loss,
            eval_loss: None,
            learning_rate: None,
            grad_norm: None,
            scalars: scalars.and_then(|text| read(&format!("{{\"scalars\":{text}}}"), "scalars")),
        }
    }

    #[allow(clippy::cast_precision_loss)]
    const fn float(count: u64) -> f64 {
        count as f64
    }

    /// The alerts of `logs`, fed as segments cut after every `size` logs.
    fn fed(logs: &[TrainMetric], size: usize) -> Alerts {
        let mut alerts = Alerts::default();
        for part in logs.chunks(size.max(1)) {
            let mut segment = Segment::default();
            part.iter().for_each(|metric| segment.log(metric));
            alerts.then(segment);
        }
        alerts
    }

    /// Every way of cutting `logs` gives what one segment gives.
    fn whole(logs: &[TrainMetric]) -> Alerts {
        let alerts = fed(logs, logs.len());
        for size in 1..=logs.len() {
            assert_eq!(
                fed(logs, size).alerts(),
                alerts.alerts(),
                "cut every {size}"
            );
        }
        alerts
    }

    /// The spike rule written plainly: each loss against the sorted losses before it.
    fn plainly(losses: &[f64]) -> Option<(usize, f64)> {
        let mut found = None;
        for (at, value) in losses.iter().enumerate() {
            let start = at.saturating_sub(SPIKE_WINDOW);
            let mut window = losses[start..at].to_vec();
            window.sort_by(f64::total_cmp);
            if window.len() < SPIKE_MIN_LOGS || window.is_empty() {
                continue;
            }
            let median = window[(window.len() - 1) / 2];
            if median > 0.0 && *value > SPIKE_RATIO * median {
                found = Some((at, median));
            }
        }
        found
    }

    #[test]
    fn a_spike_is_a_loss_over_the_ratio_of_the_median_before_it() {
        // 24 losses of 2.0, a 9.0 (over 4 x 2.0), then 2.0 again
        let mut values = vec![2.0; 24];
        values.push(9.0);
        values.extend([2.0; 5]);
        let logs: Vec<_> = (1..)
            .zip(&values)
            .map(|(step, value)| log(step, Some(*value), None))
            .collect();
        let alerts = whole(&logs);
        let spike = alerts.spike().copied();
        assert_eq!(spike.map(|spike| spike.loss.step), Some(25));
        assert_eq!(
            spike.map(|spike| (spike.median, spike.over)),
            Some((2.0, 20))
        );
        assert_eq!(
            alerts.alerts()[0].message,
            "loss 9 at step 25: more than 4 times the median 2 of the 20 training losses before it"
        );
        // exactly 4 times is no spike
        let mut level = vec![2.0; 10];
        level.push(8.0);
        let logs: Vec<_> = (1..)
            .zip(&level)
            .map(|(step, value)| log(step, Some(*value), None))
            .collect();
        assert_eq!(whole(&logs).spike(), None);
    }

    #[test]
    fn the_first_losses_are_not_judged_and_a_median_at_most_zero_never_spikes() {
        let few: Vec<_> = [1.0, 1.0, 1.0, 1.0, 50.0]
            .iter()
            .zip(1..)
            .map(|(value, step)| log(step, Some(*value), None))
            .collect();
        assert_eq!(whole(&few).spike(), None); // 4 losses before it: under SPIKE_MIN_LOGS
        let negative: Vec<_> = [-1.0, -1.0, -1.0, -1.0, -1.0, 3.0]
            .iter()
            .zip(1..)
            .map(|(value, step)| log(step, Some(*value), None))
            .collect();
        assert_eq!(whole(&negative).spike(), None);
    }

    #[test]
    fn the_windowed_median_agrees_with_the_plain_rule_however_the_stream_is_cut() {
        // deterministic wandering series with jumps, judged plainly and by the segments: of
        // positive values, of a few values repeated (the least leaving the window while a
        // copy stays), and around zero (medians at or below 0, negative losses)
        let shapes: [fn(f64) -> f64; 3] = [
            |draw| if draw > 0.93 { 10.0 + draw } else { 1.0 + draw },
            |draw| {
                if draw > 0.9 {
                    9.0
                } else {
                    (draw * 4.0).floor() + 1.0
                }
            },
            |draw| {
                if draw > 0.95 {
                    30.0 * draw
                } else {
                    draw * 4.0 - 1.0
                }
            },
        ];
        for (shape, value_of) in shapes.iter().enumerate() {
            for seed in [12345_u64, 7, 99, 2026] {
                let mut state = seed;
                let mut values = Vec::new();
                for _ in 0..200 {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    values.push(value_of(float(state >> 40) / float(1 << 24)));
                }
                let logs: Vec<_> = (1..)
                    .zip(&values)
                    .map(|(step, value)| log(step, Some(*value), None))
                    .collect();
                let expected = plainly(&values);
                if shape < 2 {
                    assert!(expected.is_some(), "shape {shape}, seed {seed}");
                }
                for size in [1, 3, 7, 19, 20, 21, 64, 200] {
                    let got = fed(&logs, size).spike().map(|spike| {
                        (
                            usize::try_from(spike.loss.step - 1).unwrap_or(0),
                            spike.median,
                        )
                    });
                    assert_eq!(
                        got, expected,
                        "shape {shape}, seed {seed}, cut every {size}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_nonfinite_alert_is_the_first_log_of_the_latest_stretch() {
        let logs = vec![
            log(1, Some(2.0), None),
            log(2, None, Some(r#"{"loss":"NaN"}"#)),
            log(3, None, Some(r#"{"loss":"NaN"}"#)),
            log(4, Some(1.5), None),
            log(5, None, None), // holds no watched value: the stretch goes on
            log(6, None, Some(r#"{"grad_norm":"Infinity"}"#)),
            log(7, None, None),
            log(8, None, Some(r#"{"loss":"-Infinity","grad_norm":"NaN"}"#)),
        ];
        let alerts = whole(&logs);
        let at = alerts.nonfinite().cloned();
        assert_eq!(
            at.as_ref().map(|at| (at.step, at.word)),
            Some((6, "Infinity"))
        );
        assert_eq!(
            alerts.alerts()[0].message,
            "grad_norm was Infinity at step 6"
        );
        // a stretch that ended is still the alert; a finite scalar of a watched key ends one
        let ended = vec![
            log(1, None, Some(r#"{"eval_loss":"NaN"}"#)),
            log(2, None, Some(r#"{"eval_loss":1.0}"#)),
        ];
        assert_eq!(whole(&ended).nonfinite().map(|at| at.step), Some(1));
        // other keys are not watched
        let other = vec![log(1, Some(1.0), Some(r#"{"rewards/chosen":"NaN"}"#))];
        assert_eq!(whole(&other).alerts(), vec![]);
    }

    #[test]
    fn an_end_summary_that_was_not_finite_is_an_alert() {
        let mut segment = Segment::default();
        segment.log(&log(1, Some(1.0), None));
        let summary = read(
            r#"{"summary":{"train_runtime":3.5,"train_loss":"NaN"}}"#,
            "summary",
        );
        segment.summary(60, 2000.0, summary.as_ref().unwrap_or(&Scalars::default()));
        let mut alerts = Alerts::default();
        alerts.then(segment);
        assert_eq!(
            alerts.alerts(),
            vec![Alert {
                kind: AlertKind::Nonfinite,
                step: Some(60),
                time: Some(2000.0),
                message: "train_loss was NaN in the summary at step 60".to_owned(),
            }]
        );
    }

    #[test]
    fn invalid_words() {
        assert_eq!(invalid_lines(0, None, false), None);
        let one = invalid_lines(1, Some((7, 3)), false);
        assert_eq!(
            one.map(|alert| (alert.step, alert.message)),
            Some((Some(3), "line 7 is invalid".to_owned()))
        );
        let many = invalid_lines(1200, Some((2, 0)), true).map(|alert| alert.message);
        assert_eq!(
            many.as_deref(),
            Some("1,200 invalid lines, the first line 2; the gzip stream is cut short")
        );
        assert_eq!(
            invalid_snapshot(None).message,
            "the snapshot files are invalid"
        );
    }
}

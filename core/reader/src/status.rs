//! Where a run stands: the fold of its lines into its state, and that state told at a time
//! as the contract's record of `status -o json` ([`StatusReport`]:
//! `schema/status-report.schema.json`).
//!
//! The state is fed what [`crate::notable`] keeps of a stream (the lines a state is made
//! of, in order): a log moves the pace and the latest loss, evaluation loss and learning
//! rate (the lowest evaluation loss at the first step that reached it); an `eval` line is
//! the evaluation under way, until a log holds its result, a `stage` or an `end` line; a
//! `begin` line starts a training (more than one, the run was resumed) and forgets an
//! earlier `end`. A rejected line or one over the user's bound is invalid, but for the last
//! line without its newline that the reference finds cut (`eof`): a run still writing.
//!
//! The time left and whether it holds are told at a time the face gives (the core reads no
//! clock): the pace's ETA, measured at its latest training log, counted down since then,
//! never below zero; **stale** when the run has been silent (no line of any kind) for
//! longer than `max(stale::STEPS * step_seconds, stale::FLOOR_SECONDS)` — the contract's
//! rule, `stale` in `contract.json` — `step_seconds` being the mean time a step takes at
//! the pace (its ETA over the steps left), the floor alone without one. A run that ended is
//! never stale and has no time left.

use std::collections::HashMap;

use crate::alerts::{self, Alerts};
use crate::check::BOM;
use crate::digest::Digests;
use crate::error::is_cut;
use crate::generated::{JobStage, MetricLine, TrainMetric};
use crate::notable::{Notable, Notables};
use crate::pace::Pace;
use crate::pattern::Pattern;
use crate::reports::{stale, Evaluation, Phase, SnapshotState, StatusReport, StepValue};
use crate::scalars::{Scalars, Stats};
use crate::scan::{Options, Scan};

/// What a run's lines say so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunState {
    /// Lines read (set from the scan: every line, invalid ones included).
    pub lines: u64,
    /// Lines the reference rejects, and lines over the user's bound.
    pub invalid: u64,
    /// Whether the last line is cut short (no newline, and the reference finds it cut).
    pub partial: bool,
    /// Whether the file begins with a UTF-8 byte order mark (its first line is invalid).
    pub bom: bool,
    /// Whether the input was a gzip stream cut short (its lines up to the cut are read).
    pub gzip_cut: bool,
    first: bool,
    began: bool,
    begins: u64,
    stage: Option<JobStage>,
    /// The step of the latest `end` line, if no training began since.
    end_step: Option<u64>,
    /// The latest training loss, its step and its log's time (what the ETA is measured at).
    loss: Option<(StepValue, f64)>,
    eval_loss: Option<StepValue>,
    best_eval: Option<StepValue>,
    learning_rate: Option<f64>,
    evaluation: Option<Evaluation>,
    last_time: Option<f64>,
    /// `max_steps` of the latest `begin` line (known before the first log).
    begin_max_steps: Option<u64>,
    pace: Pace,
    /// Each key's stats over the logs' `scalars` and the ends' `summary`.
    scalars: Stats,
    /// The latest `end` line's `summary`.
    summary: Option<Scalars>,
    /// The spikes and non-finite values of the stream so far.
    alerts: Alerts,
    /// The first invalid line's number, and the step the run had reached before it.
    first_invalid: Option<(u64, u64)>,
    /// Its logs' series digested for a plot, when the scan digests them (`Options::digest`).
    digests: Option<Digests>,
    /// The keys whose series are digested, when not every key's (`digest_only`).
    digest_only: Option<KeyFilter>,
}

/// The keys a plot shows: those a glob of `globs` matches (the core's glob, against the whole
/// key, as [`crate::names::pick_keys`] picks them), each key decided once.
#[derive(Debug, Clone, Default, PartialEq)]
struct KeyFilter {
    globs: Vec<String>,
    decided: HashMap<String, bool>,
}

impl KeyFilter {
    fn wants(&mut self, key: &str) -> bool {
        if let Some(wanted) = self.decided.get(key) {
            return *wanted;
        }
        let wanted = self.globs.iter().any(|glob| {
            Pattern::glob(glob).map_or(false, |pattern| pattern.is_match(key.as_bytes()))
        });
        self.decided.insert(key.to_owned(), wanted);
        wanted
    }
}

impl RunState {
    #[must_use]
    pub fn new() -> Self {
        Self {
            first: true,
            ..Self::default()
        }
    }

    /// The stream's first bytes (any call before the first non-empty one is ignored): a
    /// byte order mark noted.
    pub fn first_bytes(&mut self, bytes: &[u8]) {
        if self.first && !bytes.is_empty() {
            self.first = false;
            self.bom = bytes.starts_with(&BOM);
        }
    }

    /// Only the series of the keys `globs` pick are digested from here on (the core's globs,
    /// `plot --metric`'s: a plot that shows those keys); every other key is listed by its
    /// name alone, with no point. An empty list digests no key's series.
    pub fn digest_only<S: AsRef<str>>(&mut self, globs: &[S]) {
        self.digest_only = Some(KeyFilter {
            globs: globs.iter().map(|glob| glob.as_ref().to_owned()).collect(),
            decided: HashMap::new(),
        });
    }

    /// The input was a gzip stream cut short: the lines read are those before the cut.
    pub fn gzip_cut(&mut self) {
        self.gzip_cut = true;
    }

    /// What `scan` kept since the last call, folded in, in order; its lines counted.
    pub fn take_from(&mut self, scan: &mut Scan<Notables>) {
        self.take_seeing(scan, |_| {});
    }

    /// [`Self::take_from`], each kept line shown to `seen` before it is folded in (a face
    /// that notes the lines rejected).
    pub fn take_seeing(&mut self, scan: &mut Scan<Notables>, seen: impl FnMut(&Notable)) {
        self.take_kept(&mut scan.consumer, scan.lines, seen);
    }

    /// What `notables` kept since the last call, folded in, each shown to `seen` first;
    /// `lines`: the lines its scan has handed over (a scan whose consumer holds `notables`
    /// beside another, as [`crate::both::Both`] does).
    pub fn take_kept(
        &mut self,
        notables: &mut Notables,
        lines: u64,
        mut seen: impl FnMut(&Notable),
    ) {
        for notable in notables.take() {
            seen(&notable);
            self.take(notable);
        }
        self.lines = lines;
    }

    /// One kept line (or run of logs) folded in.
    pub fn take(&mut self, notable: Notable) {
        match notable {
            Notable::Logs(logs) => logs.iter().for_each(|log| self.log(log)),
            Notable::Line { read, .. } => self.line(&read),
            Notable::Rejected {
                line,
                error,
                complete,
            } => {
                if is_cut(complete, error.category) {
                    self.partial = true; // the last line, still being written (or cut)
                } else {
                    self.invalid_line(line);
                }
            }
            Notable::Refused { line } | Notable::Over { line, .. } => self.invalid_line(line),
            Notable::Scalars(stats) => self.scalars.then(stats),
            Notable::Alerts(segment) => self.alerts.then(segment),
            Notable::Digests(digests) => {
                let joined = self.digests.get_or_insert_with(|| digests.emptied());
                match &mut self.digest_only {
                    Some(only) => joined.then_only(digests, |key| only.wants(key)),
                    None => joined.then(digests),
                }
            }
        }
    }

    /// Line `line` is invalid: counted, and the first one's place kept for its alert.
    fn invalid_line(&mut self, line: u64) {
        self.invalid += 1;
        if self.first_invalid.is_none() {
            self.first_invalid = Some((line, self.step()));
        }
    }

    pub(crate) fn log(&mut self, log: &TrainMetric) {
        self.last_time = Some(log.time);
        self.pace.add(log);
        if let Some(value) = log.loss {
            self.loss = Some((StepValue::at(log.step, value), log.time));
        }
        if let Some(value) = log.eval_loss {
            let reached = StepValue::at(log.step, value);
            if self
                .best_eval
                .as_ref()
                .map_or(true, |best| value < best.value)
            {
                self.best_eval = Some(reached.clone());
            }
            self.eval_loss = Some(reached);
            self.evaluation = None;
        }
        if let Some(value) = log.learning_rate {
            self.learning_rate = Some(value);
        }
    }

    pub(crate) fn line(&mut self, line: &MetricLine) {
        match *line {
            MetricLine::Log(ref log) => self.log(log),
            MetricLine::Eval { time, step, total } => {
                self.last_time = Some(time);
                self.evaluation = Some(Evaluation { step, total });
            }
            MetricLine::Stage { time, name } => {
                self.last_time = Some(time);
                self.stage = Some(name);
                self.evaluation = None;
            }
            MetricLine::Begin { time, max_steps } => {
                self.last_time = Some(time);
                self.began = true;
                self.begins += 1;
                self.end_step = None;
                if max_steps.is_some() {
                    self.begin_max_steps = max_steps;
                }
            }
            MetricLine::End {
                time,
                step,
                ref summary,
            } => {
                self.last_time = Some(time);
                self.end_step = Some(step);
                self.evaluation = None;
                if summary.is_some() {
                    self.summary = summary.clone();
                }
            }
        }
    }

    /// The evaluation under way: its latest progress line, until its result is logged.
    #[must_use]
    pub const fn evaluation(&self) -> Option<&Evaluation> {
        self.evaluation.as_ref()
    }

    /// The latest `stage` line's stage.
    #[must_use]
    pub const fn stage(&self) -> Option<JobStage> {
        self.stage
    }

    /// The `begin` lines read: more than one, the run was resumed.
    #[must_use]
    pub const fn begins(&self) -> u64 {
        self.begins
    }

    /// The pace of the training logs.
    #[must_use]
    pub const fn pace(&self) -> &Pace {
        &self.pace
    }

    /// Whether an `end` line came, and no `begin` since.
    #[must_use]
    pub const fn ended(&self) -> bool {
        self.end_step.is_some()
    }

    /// The latest training step (the `end` line's after it).
    #[must_use]
    pub fn step(&self) -> u64 {
        self.end_step.unwrap_or_else(|| self.pace.step())
    }

    /// Total steps: from the logs (as the pace), else from the latest `begin` line.
    #[must_use]
    pub fn total_steps(&self) -> Option<u64> {
        self.pace.max_steps().or(self.begin_max_steps)
    }

    /// Where the run is.
    #[must_use]
    pub fn phase(&self) -> Phase {
        if self.ended() {
            Phase::Ended
        } else if self.evaluation.is_some() {
            Phase::Evaluating
        } else if self.pace.step() > 0 {
            Phase::Training
        } else if self.began || self.lines > 0 {
            Phase::Started
        } else {
            Phase::Waiting
        }
    }

    /// The pace's ETA in seconds (the reference's `Pace::eta`), when it can be told.
    #[must_use]
    pub fn eta_seconds(&self) -> Option<f64> {
        self.pace.eta().map(|eta| eta.as_secs_f64())
    }

    /// The time left and whether it holds, told at `now`.
    #[must_use]
    pub fn estimate(&self, now: f64) -> Estimate {
        let left = self
            .pace
            .max_steps()
            .map(|total| total.saturating_sub(self.pace.step()));
        estimate(
            self.eta_seconds(),
            left,
            self.loss.as_ref().map(|(_, time)| *time),
            self.last_time,
            now,
        )
    }

    /// The state as `status -o json` records it, told at `now` (seconds since the epoch,
    /// the lines' clock): `run` and `name` as the face names the run, `snapshot` the run
    /// folder's snapshot files as the face read them (None for a run read from a file
    /// alone), `side_valid` whether those files are valid.
    #[must_use]
    pub fn report(
        &self,
        run: &str,
        name: &str,
        now: f64,
        snapshot: Option<SnapshotState>,
        side_valid: bool,
    ) -> StatusReport {
        let step = self.step();
        let total = self.total_steps();
        let ended = self.ended();
        let estimate = self.estimate(now);
        let stale = estimate.stale && !ended;
        let side_problem = (!side_valid).then(|| {
            snapshot
                .as_ref()
                .and_then(|snapshot| snapshot.problem.clone())
        });
        StatusReport {
            run: run.to_owned(),
            name: name.to_owned(),
            lines: self.lines,
            invalid_lines: self.invalid,
            partial_last_line: self.partial,
            phase: self.phase(),
            stage: self.stage,
            step,
            max_steps: total,
            progress: total
                .filter(|total| *total > 0)
                .map(|total| (float(step) / float(total)).min(1.0)),
            ended,
            begins: self.begins,
            loss: self.loss.as_ref().map(|(value, _)| value.clone()),
            eval_loss: self.eval_loss.clone(),
            best_eval_loss: self.best_eval.clone(),
            learning_rate: self.learning_rate,
            evaluation: self.evaluation.clone(),
            eta_seconds: self.eta_seconds(),
            eta_remaining_seconds: if ended || stale {
                None
            } else {
                estimate.remaining
            },
            eta_stale: stale,
            last_time: self.last_time,
            last_line_seconds: self.last_time.map(|last| now - last),
            now,
            snapshot,
            valid: self.invalid == 0 && !self.gzip_cut && side_valid,
            scalars: self.scalars.keys.clone(),
            summary: self.summary.clone(),
            alerts: self.alerts(stale, estimate.silence, side_problem),
        }
    }

    /// Its logs' series digested, when the scan digests them.
    #[must_use]
    pub const fn digests(&self) -> Option<&Digests> {
        self.digests.as_ref()
    }

    /// The alerts of the run's lines told at `now`, as [`RunState::report`] gives them for a
    /// run read without its snapshot files: what `watch` compares look by look.
    #[must_use]
    pub fn alerts_at(&self, now: f64) -> Vec<crate::reports::Alert> {
        let estimate = self.estimate(now);
        self.alerts(estimate.stale && !self.ended(), estimate.silence, None)
    }

    /// The run's alerts, in the order of their kinds: `stalled` when `stale` (silent for
    /// `silence` seconds), `nonfinite` and `spike`, `invalid` for the lines and, where
    /// `side_problem` is given, for the snapshot files (in the words of their problem).
    fn alerts(
        &self,
        stale: bool,
        silence: Option<f64>,
        side_problem: Option<Option<String>>,
    ) -> Vec<crate::reports::Alert> {
        let mut alerts = Vec::new();
        if let (true, Some(silence)) = (stale, silence) {
            alerts.push(alerts::stalled(self.step(), self.last_time, silence));
        }
        alerts.extend(self.alerts.alerts());
        alerts.extend(alerts::invalid_lines(
            self.invalid,
            self.first_invalid,
            self.gzip_cut,
        ));
        if let Some(problem) = side_problem {
            alerts.push(alerts::invalid_snapshot(problem.as_deref()));
        }
        alerts
    }
}

impl StepValue {
    const fn at(step: u64, value: f64) -> Self {
        Self { step, value }
    }
}

/// A count as a float (exact below 2^53).
#[allow(clippy::cast_precision_loss)]
const fn float(count: u64) -> f64 {
    count as f64
}

/// The time left as it stands at a given time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Seconds left (the ETA less the time since it was measured, at least 0); None without
    /// an ETA or when stale.
    pub remaining: Option<f64>,
    /// Whether the run has been silent for much longer than its pace predicts.
    pub stale: bool,
    /// Seconds since the last line, at least 0 (None without one).
    pub silence: Option<f64>,
    /// The pace's mean time a step takes, when it can be told.
    pub step_seconds: Option<f64>,
}

/// The pace's mean time a step takes, from its ETA and the steps it counts left (the ETA is
/// `steps_left * step_seconds`); None when either is unknown or no step is left.
#[must_use]
pub fn step_seconds(eta_seconds: Option<f64>, steps_left: Option<u64>) -> Option<f64> {
    let (eta, left) = eta_seconds.zip(steps_left)?;
    if left == 0 {
        return None;
    }
    let value = eta / float(left);
    if value.is_finite() && value > 0.0 {
        Some(value)
    } else {
        None
    }
}

/// The silence (seconds) after which an ETA is stale: `max(stale::STEPS * step_seconds,
/// stale::FLOOR_SECONDS)`, the floor alone without a pace.
#[must_use]
pub fn stale_after(step_seconds: Option<f64>) -> f64 {
    match step_seconds {
        Some(seconds) if seconds.is_finite() && seconds > 0.0 => {
            (float(stale::STEPS) * seconds).max(stale::FLOOR_SECONDS)
        }
        _ => stale::FLOOR_SECONDS,
    }
}

/// The time left at `now` and whether it is stale: `eta_seconds` the pace's ETA,
/// `steps_left` its total steps less its step, `measured_at` the time of its latest
/// training log, `last_time` the time of the run's last line of any kind.
#[must_use]
pub fn estimate(
    eta_seconds: Option<f64>,
    steps_left: Option<u64>,
    measured_at: Option<f64>,
    last_time: Option<f64>,
    now: f64,
) -> Estimate {
    let silence = last_time.map(|last| at_least_zero(now - last));
    let seconds = step_seconds(eta_seconds, steps_left);
    let stale = silence.map_or(false, |silence| silence > stale_after(seconds));
    let remaining = match eta_seconds {
        Some(eta) if !stale => {
            let since = measured_at.map_or(0.0, |measured| at_least_zero(now - measured));
            Some(at_least_zero(eta - since))
        }
        _ => None,
    };
    Estimate {
        remaining,
        stale,
        silence,
        step_seconds: seconds,
    }
}

/// `max(value, 0.0)` as Python writes it: a NaN stays NaN.
fn at_least_zero(value: f64) -> f64 {
    if value < 0.0 {
        0.0
    } else {
        value
    }
}

/// The status of a whole metrics file in memory (the npm package's face, tests): its lines
/// read with the user's bound `max_line`, told at `now`, with no snapshot files.
#[must_use]
pub fn status_bytes(
    run: &str,
    name: &str,
    bytes: &[u8],
    max_line: Option<usize>,
    now: f64,
) -> StatusReport {
    let mut state = RunState::new();
    state.first_bytes(bytes);
    // a complete line rejected is counted: its words are no part of the state
    let options = Options {
        max_line,
        terse: true,
        unlocated: false,
        digest: None,
        digest_steps: None,
    };
    let mut scan = Scan::new(options, Notables::default());
    scan.feed(bytes);
    scan.finish();
    state.take_from(&mut scan);
    state.report(run, name, now, None, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: f64 = 1_000_000.0;

    fn status(text: &str, now: f64) -> StatusReport {
        status_bytes("runs/7", "7", text.as_bytes(), None, now)
    }

    /// Logs of `steps` one second apart (step `n` at `start + n`), of 100 steps.
    fn logs(start: f64, steps: std::ops::RangeInclusive<u64>) -> String {
        steps
            .map(|step| {
                format!(
                    "{{\"event\":\"log\",\"time\":{},\"step\":{step},\"max_steps\":100,\"loss\":{}}}\n",
                    start + float(step),
                    loss(step)
                )
            })
            .collect()
    }

    /// The loss logged at `step` (exact in binary and in decimal).
    fn loss(step: u64) -> f64 {
        float(100 - step) / 4.0
    }

    #[test]
    fn no_line_is_waiting_and_valid() {
        let report = status("", NOW);
        assert_eq!(report.phase, Phase::Waiting);
        assert_eq!((report.lines, report.step, report.begins), (0, 0, 0));
        assert_eq!(report.last_line_seconds, None);
        assert!(report.valid && !report.eta_stale);
        assert_eq!(report.eta_remaining_seconds, None);
    }

    #[test]
    fn a_training_counts_its_eta_down_since_its_latest_log() {
        let start = NOW - 20.0;
        let text = format!(
            "{{\"event\":\"begin\",\"time\":{start},\"max_steps\":100}}\n{}",
            logs(start, 1..=11)
        );
        let report = status(&text, NOW - 4.0);
        assert_eq!(report.phase, Phase::Training);
        assert_eq!((report.step, report.max_steps), (11, Some(100)));
        assert_eq!(report.progress, Some(0.11));
        // ten steps in ten seconds: 89 left, 89 s, measured at start + 11 = NOW - 9
        assert_eq!(report.eta_seconds, Some(89.0));
        assert_eq!(report.eta_remaining_seconds, Some(84.0));
        assert_eq!(report.last_line_seconds, Some(5.0));
        assert_eq!(
            report.loss,
            Some(StepValue {
                step: 11,
                value: loss(11)
            })
        );
        assert!(!report.eta_stale && report.valid);
    }

    #[test]
    fn a_silent_run_is_stale_by_the_contracts_rule() {
        let start = NOW;
        let text = logs(start, 1..=11); // one step a second: stale after max(50 s, floor)
        let last = start + 11.0;
        let after = stale_after(Some(1.0));
        assert_eq!(after, (50.0_f64).max(stale::FLOOR_SECONDS));
        let quiet = status(&text, last + after);
        assert!(!quiet.eta_stale);
        assert!(quiet.eta_remaining_seconds.is_some());
        let silent = status(&text, last + after + 0.5);
        assert!(silent.eta_stale);
        assert_eq!(silent.eta_remaining_seconds, None);
        assert_eq!(silent.eta_seconds, Some(89.0)); // the pace's own ETA stays told
    }

    #[test]
    fn without_a_pace_the_floor_alone_decides() {
        let text = "{\"event\":\"begin\",\"time\":10,\"max_steps\":5}\n";
        assert!(!status(text, 10.0 + stale::FLOOR_SECONDS).eta_stale);
        let report = status(text, 10.5 + stale::FLOOR_SECONDS);
        assert!(report.eta_stale);
        assert_eq!(report.phase, Phase::Started);
        assert_eq!((report.max_steps, report.progress), (Some(5), Some(0.0)));
    }

    #[test]
    fn an_ended_run_is_never_stale_nor_counted_down() {
        let text = format!(
            "{}{{\"event\":\"end\",\"time\":200,\"step\":60}}\n{{\"event\":\"stage\",\"time\":201,\"name\":\"merge\"}}\n",
            logs(0.0, 1..=3)
        );
        let report = status(&text, 1e9);
        assert_eq!(report.phase, Phase::Ended);
        assert!(report.ended && !report.eta_stale);
        assert_eq!(report.step, 60);
        assert_eq!(report.eta_remaining_seconds, None);
        assert_eq!(report.stage, Some(JobStage::Merge));
        assert_eq!(report.last_time, Some(201.0));
    }

    #[test]
    fn a_resumed_run_forgets_its_end_and_counts_its_begins() {
        let text = format!(
            "{{\"event\":\"begin\",\"time\":0,\"max_steps\":100}}\n{}{{\"event\":\"end\",\"time\":5,\"step\":3}}\n{{\"event\":\"begin\",\"time\":50}}\n",
            logs(0.0, 1..=3)
        );
        let report = status(&text, 60.0);
        assert_eq!(report.begins, 2);
        assert!(!report.ended);
        assert_eq!(report.phase, Phase::Training);
        assert_eq!((report.step, report.max_steps), (3, Some(100)));
    }

    #[test]
    fn an_evaluation_is_under_way_until_its_result_is_logged() {
        let eval =
            |step: u64| format!("{{\"event\":\"eval\",\"time\":9,\"step\":{step},\"total\":4}}\n");
        let under_way = format!("{}{}{}", logs(0.0, 1..=2), eval(1), eval(3));
        let report = status(&under_way, 10.0);
        assert_eq!(report.phase, Phase::Evaluating);
        assert_eq!(
            report.evaluation,
            Some(Evaluation {
                step: 3,
                total: Some(4)
            })
        );
        let done = format!(
            "{under_way}{{\"event\":\"log\",\"time\":10,\"step\":2,\"eval_loss\":1.5}}\n{}",
            "{\"event\":\"log\",\"time\":11,\"step\":3,\"eval_loss\":1.5}\n"
        );
        let report = status(&done, 12.0);
        assert_eq!((report.phase, report.evaluation), (Phase::Training, None));
        assert_eq!(report.eval_loss, Some(StepValue::at(3, 1.5)));
        assert_eq!(report.best_eval_loss, Some(StepValue::at(2, 1.5))); // the first to reach it
    }

    #[test]
    fn invalid_lines_and_a_cut_last_line() {
        let text = "\u{feff}{\"event\":\"stage\",\"time\":1,\"name\":\"train\"}\nnot json\n{\"event\":\"log\",\"time\":2,\"step\":1,\"loss\":1}\n{\"event\":\"lo";
        let report = status(text, 3.0);
        assert_eq!((report.lines, report.invalid_lines), (4, 2));
        assert!(report.partial_last_line && !report.valid);
        assert_eq!(report.stage, None); // the first line, with its mark, is invalid
        assert_eq!(report.last_time, Some(2.0));
        let mut state = RunState::new();
        state.first_bytes(text.as_bytes());
        assert!(state.bom);
        // a cut last line alone is a warning, not an invalid line
        let cut = status(
            "{\"event\":\"stage\",\"time\":1,\"name\":\"train\"}\n{\"ev",
            3.0,
        );
        assert!(cut.partial_last_line && cut.valid);
        assert_eq!(cut.invalid_lines, 0);
        // a last line without its newline that is no metrics line is invalid
        let bad = status(
            "{\"event\":\"stage\",\"time\":1,\"name\":\"train\"}\nnope",
            3.0,
        );
        assert!(!bad.partial_last_line && !bad.valid);
    }

    #[test]
    fn lines_over_the_bound_are_invalid_and_the_snapshot_is_the_faces() {
        let text = "{\"event\":\"stage\",\"time\":1,\"name\":\"train\"}\n";
        let report = status_bytes("r", "r", text.as_bytes(), Some(10), 3.0);
        assert_eq!((report.invalid_lines, report.valid), (1, false));
        let mut state = RunState::new();
        let mut scan = Scan::new(Options::default(), Notables::default());
        scan.feed(text.as_bytes());
        state.take_from(&mut scan);
        assert!(!state.report("r", "r", 3.0, None, false).valid);
        state.gzip_cut();
        assert!(!state.report("r", "r", 3.0, None, true).valid);
    }

    #[test]
    fn a_line_ahead_of_the_clock_is_negative_seconds_ago() {
        let report = status(
            "{\"event\":\"stage\",\"time\":100,\"name\":\"train\"}\n",
            90.0,
        );
        assert_eq!(report.last_line_seconds, Some(-10.0));
        assert!(!report.eta_stale);
    }

    #[test]
    fn the_fold_does_not_depend_on_how_the_input_is_cut() {
        let text = format!(
            "{{\"event\":\"begin\",\"time\":0,\"max_steps\":100}}\n{}{{\"event\":\"eval\",\"time\":30,\"step\":1}}\nbad\n{}",
            logs(0.0, 1..=20),
            logs(10.0, 21..=40)
        );
        let whole = status(&text, 100.0);
        for size in [1, 7, 64, 1000] {
            let mut state = RunState::new();
            let mut scan = Scan::new(Options::default(), Notables::default());
            for chunk in text.as_bytes().chunks(size) {
                state.first_bytes(chunk);
                scan.feed(chunk);
                state.take_from(&mut scan);
            }
            scan.finish();
            state.take_from(&mut scan);
            assert_eq!(state.report("runs/7", "7", 100.0, None, true), whole);
        }
    }
}

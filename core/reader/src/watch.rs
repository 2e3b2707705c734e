//! A run followed live (`watch`): its state folded as its lines come ([`RunState`], the
//! fold `status` reports), the events its lines are worth telling, and the span of the
//! training being watched.
//!
//! The events, in the order of the lines: a stage begins (the job is done once its last
//! stage, the last of [`JobStage::ALL`], begins: the lines after that one are not read); a
//! training begins, or resumes (a `begin` line after another: it goes on from the step the
//! run stood at); an evaluation starts (an `eval` line with none under way, at the
//! training's step); the evaluation under way ends (its result logged, a stage, the
//! training's end); an evaluation's result (each log with an evaluation loss); the training
//! ends (`end`); a line is invalid (the reference rejects it, or it is over the user's
//! bound). The last line without its newline that the reference finds cut is a run still
//! writing: no event.
//!
//! The span: a training is timed from its latest `begin` line (from the stream's first line
//! before any), at the step the run stood at then, to its `end` line once there is one.
//! Once ended, nothing is left, and its rate is its average: the steps since it began over
//! the time from its start to its end.

use crate::error::{is_cut, ParseError};
use crate::generated::{JobStage, MetricLine, TrainMetric};
use crate::notable::{Notable, Notables};
use crate::reports::{SnapshotState, StatusReport};
use crate::scan::Scan;
use crate::status::{Estimate, RunState};

/// What a line of a followed run is worth telling.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A stage began (line `line`); `last`: the job's last stage (the job is done).
    Stage {
        line: u64,
        stage: JobStage,
        last: bool,
    },
    /// A training began (`begin`); `resumed`: after an earlier `begin`, going on from
    /// `step` (the step the run stood at); `max_steps` as the line says.
    Began {
        line: u64,
        max_steps: Option<u64>,
        resumed: bool,
        step: u64,
    },
    /// An evaluation started (an `eval` line with none under way), at the training's step.
    /// (No line number: of a run of an evaluation's progress lines the scan keeps the last.)
    EvaluationStarted { step: u64 },
    /// The evaluation under way ended (its result logged, a stage or the training's end), at
    /// the training's step: `done` prediction steps of `total` when known (its last progress
    /// line's).
    EvaluationEnded {
        step: u64,
        done: u64,
        total: Option<u64>,
    },
    /// An evaluation's result: a log with an evaluation loss.
    EvalLoss { step: u64, value: f64 },
    /// The training ended (`end`) at `step`.
    Ended { line: u64, step: u64 },
    /// A line the reference rejects.
    Rejected { line: u64, error: ParseError },
    /// A line over the user's bound: `size` bytes (so far, when not `complete`).
    Over {
        line: u64,
        size: u64,
        complete: bool,
        limit: usize,
    },
}

/// When the training being watched began and ended, from its lines' `time`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Span {
    /// The latest `begin` line's time (the stream's first line's, before any `begin`).
    began: Option<f64>,
    /// The step the run stood at then.
    began_step: u64,
    /// The `end` line's time after it, once there is one.
    ended: Option<f64>,
}

impl Span {
    /// A line taken into account, `step` the run's step before it.
    fn take(&mut self, line: &MetricLine, step: u64) {
        match *line {
            MetricLine::Begin { time, .. } => {
                *self = Self {
                    began: Some(time),
                    began_step: step,
                    ended: None,
                };
            }
            MetricLine::End { time, .. } => self.ended = Some(time),
            MetricLine::Log(TrainMetric { time, .. })
            | MetricLine::Eval { time, .. }
            | MetricLine::Stage { time, .. } => {
                if self.began.is_none() {
                    self.began = Some(time);
                    self.began_step = step;
                }
            }
        }
    }

    /// Steps a second from the start to the end, once ended; None before, or when no step
    /// was done or no time passed.
    fn rate(&self, step: u64) -> Option<f64> {
        let (began, ended) = self.began.zip(self.ended)?;
        let done = step.checked_sub(self.began_step).filter(|done| *done > 0)?;
        if ended > began {
            Some(float(done) / (ended - began))
        } else {
            None
        }
    }

    /// Seconds from the start to the end, or to `now` while the training runs.
    fn elapsed(&self, now: f64) -> Option<f64> {
        let began = self.began?;
        let until = self.ended.unwrap_or(now) - began;
        Some(if until < 0.0 { 0.0 } else { until })
    }
}

/// A count as a float (exact below 2^53).
#[allow(clippy::cast_precision_loss)]
const fn float(count: u64) -> f64 {
    count as f64
}

/// A run followed live: its state, its span, and where the job was done.
#[derive(Debug, Clone, PartialEq)]
pub struct Watch {
    state: RunState,
    span: Span,
    /// The line the job's last stage began at: what comes after it is not read.
    done_at: Option<u64>,
}

impl Default for Watch {
    fn default() -> Self {
        Self::new()
    }
}

impl Watch {
    #[must_use]
    pub fn new() -> Self {
        Self {
            state: RunState::new(),
            span: Span::default(),
            done_at: None,
        }
    }

    /// The stream's first bytes (a byte order mark noted: [`RunState::first_bytes`]).
    pub fn first_bytes(&mut self, bytes: &[u8]) {
        self.state.first_bytes(bytes);
    }

    /// What `scan` kept since the last call, folded in, in order; the events told, in
    /// order; its lines counted (up to the job's last stage, once it began).
    pub fn take_from(&mut self, scan: &mut Scan<Notables>) -> Vec<Event> {
        let mut events = Vec::new();
        for notable in scan.consumer.take() {
            self.take(notable, &mut events);
        }
        self.state.lines = self.done_at.unwrap_or(scan.lines);
        events
    }

    /// One kept line (or run of logs) folded in, its events added to `events`.
    pub fn take(&mut self, notable: Notable, events: &mut Vec<Event>) {
        if self.done_at.is_some() {
            return;
        }
        match notable {
            Notable::Logs(logs) => {
                if let Some(first) = logs.first() {
                    if self.span.began.is_none() {
                        self.span.began = Some(first.time);
                        self.span.began_step = self.state.step();
                    }
                }
                for log in &logs {
                    self.log(log, events);
                }
            }
            Notable::Line { line, read } => self.line(line, &read, events),
            Notable::Rejected {
                line,
                error,
                complete,
            } => {
                let cut = is_cut(complete, error.category);
                self.state.take(Notable::Rejected {
                    line,
                    error: error.clone(),
                    complete,
                });
                if !cut {
                    events.push(Event::Rejected { line, error });
                }
            }
            // counted (a watch reads every line in full, so that each rejected one is said)
            Notable::Refused { line } => self.state.take(Notable::Refused { line }),
            // the keys' stats: the status a watch ends on; no event of their own
            Notable::Scalars(stats) => self.state.take(Notable::Scalars(stats)),
            Notable::Alerts(segment) => self.state.take(Notable::Alerts(segment)),
            Notable::Digests(digests) => self.state.take(Notable::Digests(digests)),
            Notable::Over {
                line,
                size,
                complete,
                limit,
            } => {
                self.state.take(Notable::Over {
                    line,
                    size,
                    complete,
                    limit,
                });
                events.push(Event::Over {
                    line,
                    size,
                    complete,
                    limit,
                });
            }
        }
    }

    fn log(&mut self, log: &TrainMetric, events: &mut Vec<Event>) {
        let under_way = self.state.evaluation().cloned();
        self.state.log(log);
        self.evaluation_ended(under_way, events);
        if let Some(value) = log.eval_loss {
            events.push(Event::EvalLoss {
                step: log.step,
                value,
            });
        }
    }

    fn line(&mut self, number: u64, line: &MetricLine, events: &mut Vec<Event>) {
        let step = self.state.step();
        let under_way = self.state.evaluation().cloned();
        let evaluating = under_way.is_some();
        let resumed = self.state.begins() > 0;
        self.span.take(line, step);
        self.state.line(line);
        self.evaluation_ended(under_way, events);
        match *line {
            MetricLine::Log(ref log) => {
                if let Some(value) = log.eval_loss {
                    events.push(Event::EvalLoss {
                        step: log.step,
                        value,
                    });
                }
            }
            MetricLine::Eval { .. } => {
                if !evaluating {
                    events.push(Event::EvaluationStarted {
                        step: self.state.pace().step(),
                    });
                }
            }
            MetricLine::Stage { name, .. } => {
                let last = JobStage::ALL.last() == Some(&name);
                events.push(Event::Stage {
                    line: number,
                    stage: name,
                    last,
                });
                if last {
                    self.done_at = Some(number);
                }
            }
            MetricLine::Begin { max_steps, .. } => events.push(Event::Began {
                line: number,
                max_steps,
                resumed,
                step,
            }),
            MetricLine::End { step, .. } => events.push(Event::Ended { line: number, step }),
        }
    }

    /// The evaluation that was under way before a line (`under_way`), told as ended when
    /// the line ended it.
    fn evaluation_ended(
        &self,
        under_way: Option<crate::reports::Evaluation>,
        events: &mut Vec<Event>,
    ) {
        if let Some(evaluation) = under_way {
            if self.state.evaluation().is_none() {
                events.push(Event::EvaluationEnded {
                    step: self.state.pace().step(),
                    done: evaluation.step,
                    total: evaluation.total,
                });
            }
        }
    }

    /// The state folded so far.
    #[must_use]
    pub const fn state(&self) -> &RunState {
        &self.state
    }

    /// Whether the job's last stage began (the lines after it are not read).
    #[must_use]
    pub const fn job_done(&self) -> bool {
        self.done_at.is_some()
    }

    /// Whether the training is over: it ended, or a stage after training began.
    #[must_use]
    pub fn training_over(&self) -> bool {
        self.state.ended()
            || self
                .state
                .stage()
                .map_or(false, |stage| stage != JobStage::Train)
    }

    /// Seconds the training took (to its end), or has taken until `now` while it runs.
    #[must_use]
    pub fn elapsed(&self, now: f64) -> Option<f64> {
        self.span.elapsed(now)
    }

    /// The time left at `now` and whether it holds: the state's while the training runs
    /// ([`RunState::estimate`]); once ended, nothing left, never stale, and the mean time
    /// a step took over the whole training.
    #[must_use]
    pub fn estimate(&self, now: f64) -> Estimate {
        let running = self.state.estimate(now);
        if !self.state.ended() {
            return running;
        }
        Estimate {
            remaining: Some(0.0),
            stale: false,
            silence: running.silence,
            step_seconds: self.span.rate(self.state.step()).map(|rate| 1.0 / rate),
        }
    }

    /// The state as `status -o json` records it, told at `now` ([`RunState::report`]).
    #[must_use]
    pub fn report(
        &self,
        run: &str,
        name: &str,
        now: f64,
        snapshot: Option<SnapshotState>,
        side_valid: bool,
    ) -> StatusReport {
        self.state.report(run, name, now, snapshot, side_valid)
    }

    /// The alerts of the lines so far told at `now` ([`RunState::alerts_at`]): the fold
    /// kept as the lines came, so a look costs nothing of the lines before it.
    #[must_use]
    pub fn alerts(&self, now: f64) -> Vec<crate::reports::Alert> {
        self.state.alerts_at(now)
    }
}

/// What a look at a followed file found there other than new bytes: each face follows a
/// file by its own means (Python's `Follower`, the viewer's listing of a server) and says
/// what it found in these words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChange {
    /// The same file, shorter than what was read: read again from its start.
    Truncated,
    /// The same file, its bytes already read changed: read again from its start.
    Rewritten,
    /// Another file at the path: the new one read from its start.
    Replaced,
    /// Nothing at the path: the run as last read stays shown.
    Removed,
    /// A file at the path again after it was removed: read from its start.
    Back,
}

impl FileChange {
    /// Every change, in the order above.
    pub const ALL: [FileChange; 5] = [
        FileChange::Truncated,
        FileChange::Rewritten,
        FileChange::Replaced,
        FileChange::Removed,
        FileChange::Back,
    ];

    /// Its name: `truncated`, `rewritten`, `replaced`, `removed`, `back`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            FileChange::Truncated => "truncated",
            FileChange::Rewritten => "rewritten",
            FileChange::Replaced => "replaced",
            FileChange::Removed => "removed",
            FileChange::Back => "back",
        }
    }

    /// The change of that name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<FileChange> {
        FileChange::ALL
            .into_iter()
            .find(|change| change.name() == name)
    }

    /// What every face says when it finds this change of the file it shows as `path`.
    #[must_use]
    pub fn text(self, path: &str) -> String {
        match self {
            FileChange::Truncated => {
                format!("{path} was truncated: reading it again from its start")
            }
            FileChange::Rewritten => {
                format!("{path} was rewritten in place: reading it again from its start")
            }
            FileChange::Replaced => {
                format!("{path} was replaced by another file: reading the new file from its start")
            }
            FileChange::Removed => {
                format!(
                    "{path} was removed: waiting for it to come back (the run as last read shown)"
                )
            }
            FileChange::Back => {
                format!("{path} is there again: reading the new file from its start")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reports::Phase;
    use crate::scan::Options;
    use crate::status::status_bytes;

    /// The events and the watch of `text` fed in chunks of `size` bytes, then finished.
    fn watched(text: &str, size: usize) -> (Vec<Event>, Watch) {
        let mut watch = Watch::new();
        let mut scan = Scan::new(Options::default(), Notables::default());
        let mut events = Vec::new();
        for chunk in text.as_bytes().chunks(size.max(1)) {
            watch.first_bytes(chunk);
            scan.feed(chunk);
            events.extend(watch.take_from(&mut scan));
        }
        scan.finish();
        events.extend(watch.take_from(&mut scan));
        (events, watch)
    }

    fn log(time: f64, step: u64, loss: &str, eval_loss: &str) -> String {
        format!("{{\"event\":\"log\",\"time\":{time},\"step\":{step},\"max_steps\":10,\"loss\":{loss},\"eval_loss\":{eval_loss}}}\n")
    }

    fn run() -> String {
        let mut text = String::from("{\"event\":\"stage\",\"time\":1,\"name\":\"train\"}\n");
        text += "{\"event\":\"begin\",\"time\":2,\"max_steps\":10}\n";
        text += &log(3.0, 1, "2.5", "null");
        text += &log(4.0, 2, "2.0", "null");
        text += "{\"event\":\"eval\",\"time\":5,\"step\":1,\"total\":2}\n";
        text += "{\"event\":\"eval\",\"time\":6,\"step\":2,\"total\":2}\n";
        text += &log(7.0, 2, "null", "1.5");
        text += "not json\n";
        text += "{\"event\":\"eval\",\"time\":11,\"step\":1}\n";
        text += "{\"event\":\"end\",\"time\":12,\"step\":4}\n";
        text += "{\"event\":\"begin\",\"time\":20}\n";
        text += &log(21.0, 5, "1.0", "null");
        text += "{\"event\":\"end\",\"time\":30,\"step\":8}\n";
        text += "{\"event\":\"stage\",\"time\":31,\"name\":\"merge\"}\n";
        text
    }

    #[test]
    fn the_alerts_and_scalars_before_the_last_stage_stay_whatever_the_chunks() {
        // 24 losses of 1, a 9 at step 25 (over 4 times the median 1 of the 20 before it), a
        // NaN grad_norm at step 26, then the end and the job's last stage: what `watch` ends
        // on holds the spike, the value that was not finite and the scalar, read in one chunk
        // (the stage in it) or in any other
        let mut text = String::from("{\"event\":\"begin\",\"time\":1,\"max_steps\":30}\n");
        for step in 1..=25 {
            let loss = if step == 25 { "9" } else { "1" };
            text += &format!(
                "{{\"event\":\"log\",\"time\":{},\"step\":{step},\"loss\":{loss}}}\n",
                step + 1
            );
        }
        text += "{\"event\":\"log\",\"time\":27,\"step\":26,\"scalars\":{\"grad_norm\":\"NaN\"}}\n";
        text += "{\"event\":\"end\",\"time\":28,\"step\":26}\n";
        let last = JobStage::ALL.last().map_or("", |stage| stage.name());
        text += &format!("{{\"event\":\"stage\",\"time\":29,\"name\":\"{last}\"}}\n");
        for size in [text.len(), 4096, 100, 7] {
            let (_, watch) = watched(&text, size);
            assert!(watch.job_done(), "cut every {size}");
            let kinds: Vec<_> = watch
                .alerts(29.0)
                .iter()
                .map(|alert| (alert.kind, alert.step))
                .collect();
            assert_eq!(
                kinds,
                vec![
                    (crate::reports::AlertKind::Nonfinite, Some(26)),
                    (crate::reports::AlertKind::Spike, Some(25)),
                ],
                "cut every {size}"
            );
            let report = watch.report("run", "run", 29.0, None, true);
            assert!(report.scalars.contains_key("grad_norm"), "cut every {size}");
        }
    }

    #[test]
    fn a_runs_events_in_the_order_of_its_lines() {
        let (events, watch) = watched(&run(), 4096);
        let stage = |line, stage, last| Event::Stage { line, stage, last };
        assert_eq!(
            events,
            vec![
                stage(1, JobStage::Train, false),
                Event::Began {
                    line: 2,
                    max_steps: Some(10),
                    resumed: false,
                    step: 0
                },
                Event::EvaluationStarted { step: 2 },
                Event::EvaluationEnded {
                    step: 2,
                    done: 2,
                    total: Some(2)
                },
                Event::EvalLoss {
                    step: 2,
                    value: 1.5
                },
                Event::Rejected {
                    line: 8,
                    error: crate::read_line(b"not json").unwrap_err(),
                },
                // an evaluation with no result, ended by the `end` line
                Event::EvaluationStarted { step: 2 },
                Event::EvaluationEnded {
                    step: 2,
                    done: 1,
                    total: None
                },
                Event::Ended { line: 10, step: 4 },
                Event::Began {
                    line: 11,
                    max_steps: None,
                    resumed: true,
                    step: 4
                },
                Event::Ended { line: 13, step: 8 },
                stage(14, JobStage::Merge, false),
            ]
        );
        assert!(watch.training_over() && !watch.job_done());
        // the resumed training: from step 4 at time 20 to step 8 at time 30
        assert_eq!(watch.elapsed(1e9), Some(10.0));
        let told = watch.estimate(1e9);
        assert_eq!((told.remaining, told.stale), (Some(0.0), false));
        assert_eq!(told.step_seconds, Some(2.5));
    }

    #[test]
    fn the_events_and_the_state_do_not_depend_on_how_the_input_is_cut() {
        let text = run();
        let (whole, watch) = watched(&text, text.len());
        assert_eq!(
            watch.report("r", "r", 40.0, None, true),
            status_bytes("r", "r", text.as_bytes(), None, 40.0)
        );
        for size in [1, 5, 33, 100] {
            let (events, cut) = watched(&text, size);
            assert_eq!(events, whole, "chunks of {size}");
            assert_eq!(cut, watch, "chunks of {size}");
        }
    }

    #[test]
    fn the_job_is_done_at_its_last_stage_and_nothing_after_is_read() {
        let text = format!(
            "{}{{\"event\":\"stage\",\"time\":40,\"name\":\"compare\"}}\n{}",
            run(),
            log(41.0, 9, "0.5", "0.25")
        );
        let (events, watch) = watched(&text, 7);
        assert_eq!(
            events.last(),
            Some(&Event::Stage {
                line: 15,
                stage: JobStage::Compare,
                last: true
            })
        );
        assert!(watch.job_done());
        let report = watch.report("r", "r", 50.0, None, true);
        assert_eq!(
            (report.lines, report.step, report.phase),
            (15, 8, Phase::Ended)
        );
    }

    #[test]
    fn a_running_training_is_timed_to_now_from_its_first_line_without_a_begin() {
        let text = format!(
            "{}{}{}",
            log(100.0, 1, "null", "null"),
            log(101.0, 2, "null", "null"),
            log(110.0, 20, "1.0", "null")
        );
        let (events, watch) = watched(&text, 4096);
        assert!(events.is_empty());
        assert!(!watch.training_over());
        assert_eq!(watch.elapsed(130.0), Some(30.0));
        assert_eq!(watch.elapsed(90.0), Some(0.0)); // a clock behind the lines: no time yet
        assert_eq!(watch.estimate(130.0), watch.state().estimate(130.0));
    }

    #[test]
    fn a_cut_last_line_is_no_event_and_a_line_over_the_bound_is_one() {
        let (events, watch) = watched("{\"event\":\"stage\",\"time\":1,\"na", 8);
        assert!(events.is_empty());
        assert!(watch.state().partial);
        let mut watch = Watch::new();
        let mut scan = Scan::new(
            Options {
                max_line: Some(10),
                terse: false,
                unlocated: false,
                digest: None,
                digest_steps: None,
            },
            Notables::default(),
        );
        scan.feed(b"{\"event\":\"stage\",\"time\":1,\"name\":\"train\"}\n");
        assert_eq!(
            watch.take_from(&mut scan),
            vec![Event::Over {
                line: 1,
                size: 42,
                complete: true,
                limit: 10
            }]
        );
        assert_eq!(watch.state().invalid, 1);
    }

    #[test]
    fn an_end_without_time_passed_or_steps_done_has_no_rate() {
        let text = "{\"event\":\"begin\",\"time\":5}\n{\"event\":\"end\",\"time\":5,\"step\":3}\n";
        assert_eq!(watched(text, 64).1.estimate(9.0).step_seconds, None);
        let text = "{\"event\":\"begin\",\"time\":5}\n{\"event\":\"end\",\"time\":9,\"step\":0}\n";
        let (_, watch) = watched(text, 64);
        assert_eq!(watch.estimate(9.0).step_seconds, None);
        assert_eq!(watch.elapsed(100.0), Some(4.0));
    }

    #[test]
    fn a_file_change_is_said_in_one_sentence_naming_the_path() {
        for change in FileChange::ALL {
            assert_eq!(FileChange::from_name(change.name()), Some(change));
            let text = change.text("runs/7/metrics.jsonl");
            assert!(text.starts_with("runs/7/metrics.jsonl "), "{text}");
            assert!(!text.contains('\n'));
        }
        assert_eq!(FileChange::from_name("moved"), None);
        assert_eq!(
            FileChange::Back.text("m.jsonl"),
            "m.jsonl is there again: reading the new file from its start"
        );
    }
}

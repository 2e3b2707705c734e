//! `alerts_cost FILE [ROUNDS]`: what computing a run's alerts adds to its status. Times, the
//! best of ROUNDS rounds (default 3) each, on one thread:
//!
//! - the status of FILE as a whole (`status::status_bytes`: every line read, the state, the
//!   scalars' stats, the alerts, the record told);
//! - the alerts' own work on the same lines, read beforehand: every log and every end line's
//!   summary through an [`alerts::Segment`] (the loss window, the spikes, the non-finite
//!   stretches), joined to a stream's [`alerts::Alerts`] and told.
//!
//! and prints the share the second is of the first's work without it: how much more `status`
//! costs for computing alerts (goal: at most 5 %, exit 1 above it).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use overbrainer_core::alerts::{Alerts, Segment};
use overbrainer_core::MetricLine;

/// The most `status` may cost more for its alerts.
const GOAL: f64 = 0.05;
/// Lines read at a time before their alerts' work is timed.
const BLOCK: usize = 1024;

mod common;

fn main() -> ExitCode {
    let common::Args { data, rounds, rest } =
        match common::Args::read("alerts_cost", "FILE [ROUNDS]") {
            Ok(args) => args,
            Err(code) => return ExitCode::from(code),
        };
    if !rest.is_empty() {
        eprintln!("usage: alerts_cost FILE [ROUNDS]");
        return ExitCode::from(2);
    }
    let lines: Vec<&[u8]> = overbrainer_core::lines(&data).collect();
    let (status, record) = common::best_told(rounds, || {
        let start = Instant::now();
        let record = overbrainer_core::status::status_bytes("run", "run", &data, None, 0.0);
        (start.elapsed(), record.alerts.len())
    });
    // the lines read a block at a time, the alerts' work on a block timed alone: each line
    // is in the cache when its alerts are made, as when `status` reads it
    let (alerts, told) = common::best_told(rounds, || {
        let mut spent = Duration::ZERO;
        let mut segment = Segment::default();
        for block in lines.chunks(BLOCK) {
            let read: Vec<MetricLine> = block
                .iter()
                .filter_map(|line| overbrainer_core::read_line(line).ok())
                .collect();
            let start = Instant::now();
            for line in &read {
                match line {
                    MetricLine::Log(metric) => segment.log(metric),
                    MetricLine::End {
                        step,
                        time,
                        summary: Some(summary),
                    } => segment.summary(*step, *time, summary),
                    _ => {}
                }
            }
            spent += start.elapsed();
        }
        let start = Instant::now();
        let mut stream = Alerts::default();
        stream.then(segment);
        let told = stream.alerts().len();
        (spent + start.elapsed(), told)
    });
    let (status, alerts) = (status.as_secs_f64(), alerts.as_secs_f64());
    let share = alerts / (status - alerts).max(f64::MIN_POSITIVE);
    println!(
        "{} lines: status {status:.3} s, its alerts' work {alerts:.4} s ({told} alerts of spikes and non-finite values; {record} in the record): \
         status costs {:.1} % more for its alerts (goal: at most {:.0} %)",
        lines.len(),
        100.0 * share,
        100.0 * GOAL,
    );
    if share <= GOAL {
        ExitCode::SUCCESS
    } else {
        eprintln!("alerts_cost: the goal is not met");
        ExitCode::FAILURE
    }
}

//! `per_line FILE [ROUNDS [core]]`: the time one thread takes to read every line of FILE with
//! `read_line` (the core) and with `parse_line` (the reference's reading), the best of
//! ROUNDS rounds (default 3) each, and their ratio; the counts of lines each reads as a
//! metrics record, which must agree. With `core`, `read_line` alone (for a profiler).

use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let path = match args.next() {
        Some(path) => path,
        None => {
            eprintln!("usage: per_line FILE [ROUNDS]");
            return ExitCode::from(2);
        }
    };
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(3).max(1);
    let core_only = args.next().as_deref() == Some("core");
    let data = match std::fs::read(&path) {
        Ok(data) => data,
        Err(error) => {
            eprintln!("per_line: {path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let lines: Vec<&[u8]> = overbrainer_core::lines(&data).collect();
    let texts: Vec<&str> = lines
        .iter()
        .map(|line| std::str::from_utf8(line).unwrap_or(""))
        .collect();
    let core = best(rounds, || {
        lines
            .iter()
            .filter(|line| overbrainer_core::read_line(line).is_ok())
            .count()
    });
    if core_only {
        println!(
            "{} lines: read_line {:.3} s ({} ok)",
            lines.len(),
            core.0.as_secs_f64(),
            core.1
        );
        return ExitCode::SUCCESS;
    }
    let reference = best(rounds, || {
        texts
            .iter()
            .filter(|text| overbrainer_core::parse_line(text).is_ok())
            .count()
    });
    println!(
        "{} lines: read_line {:.3} s ({} ok), parse_line {:.3} s ({} ok): {:.2}x",
        lines.len(),
        core.0.as_secs_f64(),
        core.1,
        reference.0.as_secs_f64(),
        reference.1,
        reference.0.as_secs_f64() / core.0.as_secs_f64(),
    );
    if core.1 == reference.1 {
        ExitCode::SUCCESS
    } else {
        eprintln!("per_line: the counts differ");
        ExitCode::FAILURE
    }
}

/// The shortest time of `rounds` runs of `run`, and its answer.
fn best(rounds: usize, mut run: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = (Duration::MAX, 0);
    for _ in 0..rounds {
        let start = Instant::now();
        let answer = run();
        let spent = start.elapsed();
        if spent < best.0 {
            best = (spent, answer);
        }
    }
    best
}

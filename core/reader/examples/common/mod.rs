//! What the timing examples share: their command line (`NAME FILE [ROUNDS ...]`, the file
//! read whole) and the best of several rounds.

use std::time::{Duration, Instant};

/// A timing example's command line: FILE's bytes, ROUNDS (default 3, at least 1) and the
/// arguments after them; `Err` with the exit code once the fault is said on stderr.
pub struct Args {
    pub data: Vec<u8>,
    pub rounds: usize,
    pub rest: Vec<String>,
}

impl Args {
    /// The process's arguments, for the example `name` whose usage is `usage`.
    pub fn read(name: &str, usage: &str) -> Result<Self, u8> {
        let mut args = std::env::args().skip(1);
        let path = match args.next() {
            Some(path) => path,
            None => {
                eprintln!("usage: {name} {usage}");
                return Err(2);
            }
        };
        let rounds = args.next().and_then(|n| n.parse().ok()).unwrap_or(3).max(1);
        match std::fs::read(&path) {
            Ok(data) => Ok(Self {
                data,
                rounds,
                rest: args.collect(),
            }),
            Err(error) => {
                eprintln!("{name}: {path}: {error}");
                Err(1)
            }
        }
    }
}

/// The shortest of the times `rounds` runs of `run` say they took, and its answer.
pub fn best_told(rounds: usize, mut run: impl FnMut() -> (Duration, usize)) -> (Duration, usize) {
    let mut best = (Duration::MAX, 0);
    for _ in 0..rounds {
        let (spent, answer) = run();
        if spent < best.0 {
            best = (spent, answer);
        }
    }
    best
}

/// The shortest time of `rounds` runs of `run`, and its answer.
#[allow(dead_code)] // each example includes this module; not every one times a whole run
pub fn best(rounds: usize, mut run: impl FnMut() -> usize) -> (Duration, usize) {
    best_told(rounds, || {
        let start = Instant::now();
        let answer = run();
        (start.elapsed(), answer)
    })
}

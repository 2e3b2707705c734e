//! `count FILE`: every line of FILE through `read_line`, and the counts (`lines ok errors`):
//! the reference runner's `count`, through the core.

use std::process::ExitCode;

fn main() -> ExitCode {
    let path = match std::env::args().nth(1) {
        Some(path) => path,
        None => {
            eprintln!("usage: count FILE");
            return ExitCode::from(2);
        }
    };
    let data = match std::fs::read(&path) {
        Ok(data) => data,
        Err(error) => {
            eprintln!("count: {path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let (mut ok, mut errors) = (0_u64, 0_u64);
    for line in data.split(|&byte| byte == b'\n') {
        if line.is_empty() {
            continue;
        }
        match overbrainer_core::read_line(line) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    println!("{} {ok} {errors}", ok + errors);
    ExitCode::SUCCESS
}

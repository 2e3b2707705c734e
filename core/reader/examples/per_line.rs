//! `per_line FILE [ROUNDS [core]]`: the time one thread takes to read every line of FILE with
//! `read_line` (the core) and with `parse_line` (the reference's reading), the best of
//! ROUNDS rounds (default 3) each, and their ratio; the counts of lines each reads as a
//! metrics record, which must agree. With `core`, `read_line` alone (for a profiler).

use std::process::ExitCode;

mod common;

fn main() -> ExitCode {
    let common::Args { data, rounds, rest } =
        match common::Args::read("per_line", "FILE [ROUNDS [core]]") {
            Ok(args) => args,
            Err(code) => return ExitCode::from(code),
        };
    let core_only = rest.first().map(String::as_str) == Some("core");
    let lines: Vec<&[u8]> = overbrainer_core::lines(&data).collect();
    let texts: Vec<&str> = lines
        .iter()
        .map(|line| std::str::from_utf8(line).unwrap_or(""))
        .collect();
    let core = common::best(rounds, || {
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
    let reference = common::best(rounds, || {
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

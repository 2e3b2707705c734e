//! The reference runner: overbrainer's `metrics.rs` (brought in by `build.rs`) answering
//! metrics lines, so that the project can hold its Python parser to it.
//!
//! - `lines [FILE]`: every line of FILE (standard input without one), split on `\n` only
//!   (the empty piece after a final newline dropped), answered with one JSON object a line:
//!   `{"ok":true,"dump":…,"mark":…,"pace":…}` or `{"ok":false,"category":…,"message":…}`;
//!   `pace` is the state of one `Pace` fed every `log` line so far, as the golden suite has it.
//! - `frames`: a long-lived answerer over a pipe: each request is the byte length of a line
//!   in ASCII decimal and `\n`, then the line's bytes (any bytes, newlines included); each
//!   answer is one JSON object as above, with the pace of a fresh `Pace` fed that line.
//! - `count FILE`: parses every line of FILE and prints only the counts
//!   (`lines ok errors`): the benchmark's process, doing what a reader does and no more.
//!
//! A line that is not UTF-8 cannot reach the reference (it takes `&str`): its answer is
//! `{"ok":false,"category":"utf8"}`.

use std::io::{self, BufRead, BufWriter, Read, Write};
use std::process::ExitCode;

use serde_json::error::Category;
use serde_json::{json, Value};

#[allow(dead_code, clippy::all)]
mod metrics {
    include!(concat!(env!("OUT_DIR"), "/metrics.rs"));
}

use metrics::{parse_line, Mark, MetricLine, Pace};

fn category(error: &serde_json::Error) -> &'static str {
    match error.classify() {
        Category::Io => "io",
        Category::Syntax => "syntax",
        Category::Data => "data",
        Category::Eof => "eof",
    }
}

fn mark_json(mark: Option<Mark>) -> Value {
    match mark {
        None => Value::Null,
        Some(Mark::Stage(stage)) => json!({"kind": "stage", "stage": stage.name()}),
        Some(Mark::Eval { step, total }) => json!({"kind": "eval", "step": step, "total": total}),
        Some(Mark::End { step }) => json!({"kind": "end", "step": step}),
    }
}

fn pace_json(pace: &Pace) -> Value {
    let eta = pace
        .eta()
        .map(|eta| json!({"secs": eta.as_secs(), "nanos": eta.subsec_nanos()}));
    json!({"step": pace.step(), "max_steps": pace.max_steps(), "eta": eta})
}

/// The reference's answer to one line, `pace` fed with it when it is a log.
fn answer(bytes: &[u8], pace: &mut Pace) -> Value {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return json!({"ok": false, "category": "utf8", "pace": pace_json(pace)});
    };
    match parse_line(text) {
        Ok(line) => {
            if let MetricLine::Log(metric) = &line {
                pace.add(metric);
            }
            let dump = serde_json::to_string(&line).expect("a parsed line serializes");
            json!({"ok": true, "dump": dump, "mark": mark_json(line.mark()), "pace": pace_json(pace)})
        }
        Err(error) => json!({
            "ok": false,
            "category": category(&error),
            "message": error.to_string(),
            "pace": pace_json(pace),
        }),
    }
}

/// The lines of a file as the golden suite reads them: split on `\n`, nothing stripped,
/// the empty piece after a final newline dropped.
fn split_lines(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let data = data.strip_suffix(b"\n").unwrap_or(data);
    let empty = data.is_empty();
    data.split(|&byte| byte == b'\n')
        .take(if empty { 0 } else { usize::MAX })
}

fn read_input(path: Option<&str>) -> io::Result<Vec<u8>> {
    match path {
        Some(path) => std::fs::read(path),
        None => {
            let mut data = Vec::new();
            io::stdin().lock().read_to_end(&mut data)?;
            Ok(data)
        }
    }
}

fn run_lines(path: Option<&str>) -> io::Result<()> {
    let data = read_input(path)?;
    let mut out = BufWriter::new(io::stdout().lock());
    let mut pace = Pace::default();
    for line in split_lines(&data) {
        serde_json::to_writer(&mut out, &answer(line, &mut pace))?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

fn run_frames() -> io::Result<()> {
    let mut input = io::stdin().lock();
    let mut out = io::stdout().lock();
    let mut header = String::new();
    loop {
        header.clear();
        if input.read_line(&mut header)? == 0 {
            return Ok(());
        }
        let length: usize = header.trim_end().parse().map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("bad frame header {header:?}"),
            )
        })?;
        let mut line = vec![0; length];
        input.read_exact(&mut line)?;
        let mut reply = serde_json::to_vec(&answer(&line, &mut Pace::default()))?;
        reply.push(b'\n');
        out.write_all(&reply)?;
        out.flush()?;
    }
}

fn run_count(path: &str) -> io::Result<()> {
    let data = std::fs::read_to_string(path)?;
    let (mut ok, mut errors) = (0_u64, 0_u64);
    for line in data.split('\n') {
        if line.is_empty() {
            continue;
        }
        match parse_line(line) {
            Ok(_) => ok += 1,
            Err(_) => errors += 1,
        }
    }
    println!("{} {ok} {errors}", ok + errors);
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["lines"] => run_lines(None),
        ["lines", path] => run_lines(Some(path)),
        ["frames"] => run_frames(),
        ["count", path] => run_count(path),
        ["source"] => {
            println!("{}", env!("OVERBRAINER_METRICS_SOURCE"));
            Ok(())
        }
        _ => {
            eprintln!(
                "usage: overbrainer-reference-runner lines [FILE] | frames | count FILE | source"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("overbrainer-reference-runner: {error}");
            ExitCode::FAILURE
        }
    }
}

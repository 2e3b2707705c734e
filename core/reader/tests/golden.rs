//! The golden conformance suite (`tests/conformance/` of the repository) through the core:
//! every line of every suite read by `read_line` and by `parse_line` (the reference's own
//! `serde_json::from_str`), its verdict, category, value, dump and mark, and the pace after
//! each line, exactly as the suite expects them.
//!
//! Values are compared to the bit. The expectation files are read here with a small JSON
//! reader that keeps each number's text, parsed by `str::parse` (correctly rounded):
//! serde_json's default reading, the one under test, is best-effort, so an expectation read
//! with it could be one float away from what the suite writes.

use std::fs;
use std::path::{Path, PathBuf};

use overbrainer_core::generated::EXTRAS;
use overbrainer_core::scalars::Scalar;
use overbrainer_core::{
    dump_line, parse_line, read_line, read_line_unlocated, read_verdict, Mark, MetricLine, Pace,
    ParseError,
};

mod common;
use common::{read_json, Json, Reader};

/// A field's value, as the reference's types hold it.
#[derive(Debug)]
enum Field {
    F64(f64),
    OptF64(Option<f64>),
    U64(u64),
    OptU64(Option<u64>),
    Stage(&'static str),
}

/// The tag and the fields of a line, in declaration order (the reference's `Serialize`).
fn fields(line: &MetricLine) -> (&'static str, Vec<(&'static str, Field)>) {
    match line {
        MetricLine::Begin { time, max_steps } => (
            "begin",
            vec![
                ("time", Field::F64(*time)),
                ("max_steps", Field::OptU64(*max_steps)),
            ],
        ),
        MetricLine::Log(metric) => (
            "log",
            vec![
                ("time", Field::F64(metric.time)),
                ("step", Field::U64(metric.step)),
                ("epoch", Field::OptF64(metric.epoch)),
                ("max_steps", Field::OptU64(metric.max_steps)),
                ("loss", Field::OptF64(metric.loss)),
                ("eval_loss", Field::OptF64(metric.eval_loss)),
                ("learning_rate", Field::OptF64(metric.learning_rate)),
                ("grad_norm", Field::OptF64(metric.grad_norm)),
            ],
        ),
        MetricLine::Stage { time, name } => (
            "stage",
            vec![
                ("time", Field::F64(*time)),
                ("name", Field::Stage(name.name())),
            ],
        ),
        MetricLine::Eval { time, step, total } => (
            "eval",
            vec![
                ("time", Field::F64(*time)),
                ("step", Field::U64(*step)),
                ("total", Field::OptU64(*total)),
            ],
        ),
        MetricLine::End { time, step, .. } => (
            "end",
            vec![("time", Field::F64(*time)), ("step", Field::U64(*step))],
        ),
    }
}

/// The float a literal stands for, correctly rounded.
fn float(expected: &Json) -> f64 {
    match expected {
        Json::Number(text) => text.parse().expect("a float"),
        _ => panic!("not a number: {expected:?}"),
    }
}

/// Whether `field` is the suite's `expected` value: floats to the bit, counts exactly.
fn same(field: &Field, expected: &Json) -> bool {
    match (field, expected) {
        (Field::OptF64(None), Json::Null) | (Field::OptU64(None), Json::Null) => true,
        (Field::F64(x), Json::Number(_)) | (Field::OptF64(Some(x)), Json::Number(_)) => {
            x.to_bits() == float(expected).to_bits()
        }
        (Field::U64(n), Json::Number(_)) | (Field::OptU64(Some(n)), Json::Number(_)) => {
            Some(*n) == expected.count()
        }
        (Field::Stage(name), Json::String(text)) => name == text,
        _ => false,
    }
}

/// How a line's fields differ from the suite's `value` (empty: they do not).
fn value_problems(line: &MetricLine, expected: &Json) -> Vec<String> {
    let (tag, fields) = fields(line);
    let entries = match expected {
        Json::Object(entries) => entries,
        _ => return vec![format!("value: not an object: {expected:?}")],
    };
    let keys: Vec<&str> = entries.iter().map(|(key, _)| key.as_str()).collect();
    let mut want = vec!["event"];
    want.extend(fields.iter().map(|(name, _)| *name));
    if keys != want || expected.field("event").text() != tag {
        return vec![format!("value: {line:?}, suite {expected:?}")];
    }
    fields
        .iter()
        .filter(|(name, field)| !same(field, expected.field(name)))
        .map(|(name, field)| {
            format!(
                "value of {name}: {field:?}, suite {:?}",
                expected.field(name)
            )
        })
        .collect()
}

fn mark_json(mark: Option<Mark>) -> Json {
    let count = |n: u64| Json::Number(n.to_string());
    let kind = |name: &str| ("kind".to_owned(), Json::String(name.to_owned()));
    match mark {
        None => Json::Null,
        Some(Mark::Stage(stage)) => Json::Object(vec![
            kind("stage"),
            ("stage".to_owned(), Json::String(stage.name().to_owned())),
        ]),
        Some(Mark::Eval { step, total }) => Json::Object(vec![
            kind("eval"),
            ("step".to_owned(), count(step)),
            ("total".to_owned(), total.map_or(Json::Null, count)),
        ]),
        Some(Mark::End { step }) => {
            Json::Object(vec![kind("end"), ("step".to_owned(), count(step))])
        }
    }
}

/// How the core's answer to one line differs from the suite's `reference` (empty: none).
fn problems(bytes: &[u8], expected: &Json) -> Vec<String> {
    let got = read_line(bytes);
    let derived = std::str::from_utf8(bytes).map(parse_line);
    let verdict = read_verdict(bytes);
    if !expected.field("ok").flag() {
        let category = expected.field("category").text();
        let mut wrong = Vec::new();
        match verdict {
            Ok(line) => wrong.push(format!("read_verdict accepts it: {}", dump_line(&line))),
            Err(got) if got.name() != category => wrong.push(format!(
                "category: read_verdict {}, suite {category}",
                got.name()
            )),
            Err(_) => {}
        }
        match &got {
            Ok(line) => wrong.push(format!("read_line accepts it: {}", dump_line(line))),
            Err(error) if error.category.name() != category => wrong.push(format!(
                "category: read_line {} ({error}), suite {category}",
                error.category.name()
            )),
            Err(_) => {}
        }
        // Read unlocated, the same error but for its path, which is left to locate later.
        match (&got, read_line_unlocated(bytes)) {
            (Err(located), Err(unlocated)) => {
                let expected = ParseError {
                    path: None,
                    ..located.clone()
                };
                if unlocated != expected {
                    wrong.push(format!(
                        "read_line_unlocated {unlocated:?}, read_line {located:?}"
                    ));
                }
            }
            (_, unlocated) => wrong.push(format!("read_line_unlocated: {unlocated:?}")),
        }
        match &derived {
            Ok(Ok(line)) => wrong.push(format!("parse_line accepts it: {}", dump_line(line))),
            Ok(Err(error)) => {
                let name = match error.classify() {
                    serde_json::error::Category::Io => "io",
                    serde_json::error::Category::Syntax => "syntax",
                    serde_json::error::Category::Data => "data",
                    serde_json::error::Category::Eof => "eof",
                };
                if name != category {
                    wrong.push(format!(
                        "category: parse_line {name} ({error}), suite {category}"
                    ));
                }
                if let Err(mine) = &got {
                    if !error.to_string().starts_with(&mine.message) {
                        wrong.push(format!("message: read_line {mine}, parse_line {error}"));
                    }
                }
            }
            Err(_) => wrong.push("not UTF-8".to_owned()),
        }
        return wrong;
    }
    let line = match got {
        Ok(line) => line,
        Err(error) => return vec![format!("read_line refuses it: {error:?}")],
    };
    let dump = expected.field("dump").text();
    let mut wrong = value_problems(&line, expected.field("value"));
    match verdict {
        Ok(other) if other == line => {}
        other => wrong.push(format!("read_verdict: {other:?}")),
    }
    if dump_line(&line) != dump {
        wrong.push(format!(
            "dump: read_line {}, suite {dump}",
            dump_line(&line)
        ));
    }
    match derived {
        Ok(Ok(other)) => {
            wrong.extend(value_problems(&other, expected.field("value")));
            if dump_line(&other) != dump {
                wrong.push(format!(
                    "dump: parse_line {}, suite {dump}",
                    dump_line(&other)
                ));
            }
        }
        other => wrong.push(format!("parse_line: {other:?}")),
    }
    wrong.extend(scalars_problems(&line, expected.get("scalars")));
    if mark_json(line.mark()) != *expected.field("mark") {
        wrong.push(format!(
            "mark: {:?}, suite {:?}",
            line.mark(),
            expected.field("mark")
        ));
    }
    wrong
}

/// How the line's field that the reference does not know differs from the suite's
/// `scalars` (absent: the line has none): its name, each value to the bit, each path refused.
fn scalars_problems(line: &MetricLine, expected: Option<&Json>) -> Vec<String> {
    let (scalars, expected) = match (line.extra(), expected) {
        (None, None) => return Vec::new(),
        (Some(scalars), Some(expected)) => (scalars, expected),
        (got, want) => return vec![format!("scalars: {got:?}, suite {want:?}")],
    };
    let mut wrong = Vec::new();
    let field = EXTRAS[line.variant()].unwrap_or("?");
    if expected.field("field").text() != field {
        wrong.push(format!("scalars: the field {field}, suite {expected:?}"));
    }
    let want = match expected.field("value") {
        Json::Object(want) => want,
        other => return vec![format!("scalars: the suite's value {other:?}")],
    };
    let keys: Vec<&str> = scalars
        .entries
        .iter()
        .map(|(key, _)| key.as_str())
        .collect();
    let want_keys: Vec<&str> = want.iter().map(|(key, _)| key.as_str()).collect();
    if keys != want_keys {
        wrong.push(format!("scalars keys: {keys:?}, suite {want_keys:?}"));
    }
    for ((key, value), (_, want)) in scalars.entries.iter().zip(want) {
        let same = match (value, want) {
            (Scalar::Number(number), Json::Number(_)) => float(want).to_bits() == number.to_bits(),
            (Scalar::Null, Json::Null) => true,
            (word, Json::String(want)) => word.word() == Some(want.as_str()),
            _ => false,
        };
        if !same {
            wrong.push(format!("scalars.{key}: {value:?}, suite {want:?}"));
        }
    }
    let refused: Vec<String> = scalars
        .refusals(field)
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    let want_refused: Vec<&str> = expected
        .field("refused")
        .items()
        .iter()
        .map(Json::text)
        .collect();
    if refused != want_refused {
        wrong.push(format!(
            "scalars refused: {refused:?}, suite {want_refused:?}"
        ));
    }
    wrong
}

/// How `pace` differs from the suite's state (empty: it does not).
fn pace_problems(pace: &Pace, expected: &Json) -> Vec<String> {
    let mut wrong = Vec::new();
    if Some(pace.step()) != expected.field("step").count() {
        wrong.push(format!(
            "step {}, suite {:?}",
            pace.step(),
            expected.field("step")
        ));
    }
    if pace.max_steps() != expected.field("max_steps").count() {
        wrong.push(format!(
            "max_steps {:?}, suite {:?}",
            pace.max_steps(),
            expected.field("max_steps")
        ));
    }
    let eta = pace
        .eta()
        .map(|eta| (eta.as_secs(), u64::from(eta.subsec_nanos())));
    let want = match expected.field("eta") {
        Json::Null => None,
        eta => Some((eta.field("secs").count(), eta.field("nanos").count())),
    };
    if eta.map(|(secs, nanos)| (Some(secs), Some(nanos))) != want {
        wrong.push(format!(
            "eta {:?}, suite {:?}",
            pace.eta(),
            expected.field("eta")
        ));
    }
    wrong
}

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance")
}

fn suites() -> Vec<Json> {
    read_json(&suite_dir().join("manifest.json"))
        .field("suites")
        .items()
        .to_vec()
}

/// The lines of a suite's input as its README says: split on `\n`, the empty piece after
/// the final newline dropped, nothing stripped.
fn lines(path: &Path) -> Vec<Vec<u8>> {
    let data = fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let body = data
        .strip_suffix(b"\n")
        .unwrap_or_else(|| panic!("{} must end with a newline", path.display()));
    body.split(|&byte| byte == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

#[test]
fn every_suite_reads_as_the_suite_expects() {
    let dir = suite_dir();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for suite in suites() {
        let name = suite.field("name").text();
        let input = lines(&dir.join(suite.field("input").text()));
        let expect = read_json(&dir.join(suite.field("expect").text()));
        let entries = expect.field("lines").items();
        assert_eq!(input.len(), entries.len(), "{name}: one expectation a line");
        let paces = expect.get("pace").map(Json::items);
        if let Some(paces) = paces {
            assert_eq!(paces.len(), entries.len(), "{name}: one pace a line");
        }
        let mut pace = Pace::default();
        for (number, (bytes, entry)) in input.iter().zip(entries).enumerate() {
            let reference = entry.field("reference");
            let description = entry.field("description").text();
            let place = format!("{name}:{} ({description})", number + 1);
            wrong.extend(
                problems(bytes, reference)
                    .into_iter()
                    .map(|p| format!("{place}: {p}")),
            );
            if let Some(paces) = paces {
                if let Ok(MetricLine::Log(metric)) = read_line(bytes) {
                    pace.add(&metric);
                }
                wrong.extend(
                    pace_problems(&pace, &paces[number])
                        .into_iter()
                        .map(|p| format!("{place}: pace: {p}")),
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} lines");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_case_file_is_a_suite() {
    let mut listed: Vec<String> = suites()
        .iter()
        .flat_map(|suite| {
            vec![
                suite.field("input").text().to_owned(),
                suite.field("expect").text().to_owned(),
            ]
        })
        .collect();
    let mut on_disk: Vec<String> = fs::read_dir(suite_dir().join("cases"))
        .expect("the cases")
        .map(|entry| {
            format!(
                "cases/{}",
                entry.expect("an entry").file_name().to_string_lossy()
            )
        })
        .collect();
    listed.sort();
    on_disk.sort();
    assert_eq!(listed, on_disk);
}

#[test]
fn the_reader_of_expectations_keeps_every_digit() {
    let value = Reader::parse(
        r#"{"a": [1.7976931348623157e308, -0.0, 18446744073709551615], "b": "\u00e9\ud83d\ude00\n"}"#,
    );
    let items = value.field("a").items();
    assert_eq!(float(&items[0]).to_bits(), f64::MAX.to_bits());
    assert_eq!(float(&items[1]).to_bits(), (-0.0_f64).to_bits());
    assert_eq!(items[2].count(), Some(u64::MAX));
    assert_eq!(value.field("b").text(), "é😀\n");
    // a literal serde_json's default reading gets one float wrong, read exactly
    assert_eq!(
        float(&Json::Number("1700000000.3745239".to_owned())).to_bits(),
        1_700_000_000.374_523_9_f64.to_bits()
    );
}

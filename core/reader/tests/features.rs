//! serde_json's features as the reference has them: its defaults, `float_roundtrip` and
//! `arbitrary_precision` off. Cargo unifies features: a crate built beside this one that turns
//! either on changes how every line is read, and these tests fail.

use overbrainer_core::{parse_line, read_line, MetricLine};

/// A literal that serde_json's default (best-effort) reading takes to the float above the
/// correctly rounded one; the reference runner's dump of the line says `1700000000.374524`.
const LINE: &str = r#"{"event":"begin","time":1700000000.3745239}"#;

fn time(line: &MetricLine) -> f64 {
    match line {
        MetricLine::Begin { time, .. } => *time,
        other => panic!("not a begin line: {other:?}"),
    }
}

#[test]
fn floats_are_read_best_effort_as_the_reference_reads_them() {
    let reference = 1_700_000_000.374_524_f64;
    let correctly_rounded = 1_700_000_000.374_523_9_f64; // rustc's own reading of the literal
    assert_ne!(reference.to_bits(), correctly_rounded.to_bits());
    let derived = time(&parse_line(LINE).expect("the line parses"));
    assert_eq!(
        derived.to_bits(),
        reference.to_bits(),
        "serde_json read {derived:?}, not the reference's {reference:?}: is its float_roundtrip on?"
    );
    let read = time(&read_line(LINE.as_bytes()).expect("the line reads"));
    assert_eq!(
        read.to_bits(),
        reference.to_bits(),
        "read_line gave {read:?}"
    );
}

#[test]
fn numbers_are_not_kept_as_text() {
    // With `arbitrary_precision`, serde_json keeps a number's text and reads `1e400` into a
    // `Value`; by default it is out of range, and `1.0e0` is the float 1.0.
    assert!(serde_json::from_str::<serde_json::Value>("1e400").is_err());
    let one: serde_json::Value = serde_json::from_str("1.0e0").expect("a number");
    assert_eq!(
        one.to_string(),
        "1.0",
        "is serde_json's arbitrary_precision on?"
    );
}

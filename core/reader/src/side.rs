//! A run folder's side files, `snapshot.request` and `snapshot.json`: what they mean, for
//! every face.
//!
//! A face opens the files (safely: no symlink followed, no FIFO waited on) and gives the
//! core what it found, a [`SideFile`]: nothing there, the bytes and their modification
//! time, or its own words for a file it refused unread. The core checks the bytes (the
//! contract's `max_bytes` too, whatever the face read), makes `check`'s findings of each
//! file ([`check_side`]) and the snapshot part of a run's status record
//! ([`snapshot_state`]): whether a snapshot was requested and why, whether a valid proof
//! was taken, whether the request is pending, and what is wrong, in one line.
//!
//! The proof is read by serde as the generated [`Snapshot`] is: every problem listed, each
//! in serde's own words. Bytes that are not JSON are serde_json's error ([`ParseError`]'s
//! words, its column counted from the file's first byte); then each field, missing or not
//! of its type, is said as serde says it when that field's value is deserialized into the
//! field's Rust type (`invalid type: string "x", expected u64`); then the schema's bounds
//! the Rust type does not hold (a checkpoint's `minLength`, a reason that must be a
//! `Word`), said in serde's form (`invalid value: string "", expected ...`) with the
//! schema's numbers and pattern ([`crate::reports::side`]).
//!
//! Each function reads its bytes once, in time linear in their length, and never panics.

use serde::de::{Error as _, Unexpected};
use serde::Deserialize;
use serde_json::Value;

use crate::check::{grouped, BOM};
use crate::generated::Snapshot;
use crate::reports::{
    max_bytes, side, Category, FileKind, ReportFile, ReportFinding, Severity, SnapshotState,
};
use crate::ParseError;

/// Said after the words of a proof that is not JSON and begins with a UTF-8 byte order
/// mark: one JSON document, not lines.
pub const FILE_BOM_NOTE: &str = "the file begins with a UTF-8 byte order mark, bytes EF BB BF, which JSON may not hold: save it without";

/// The text of a request's warning before the request's own text.
const NOT_ONE_WORD: &str = "the request is not one word (1 to 64 of A-Z a-z 0-9 _ -)";

/// The text of a request's warning after the request's own text.
const TAKEN_ALL_THE_SAME: &str = "the plugin takes the snapshot all the same, with no reason";

/// The characters of a request's text shown in its warning: all of them up to this many,
/// else the first `SHOWN_CHARS - 3` and `...`.
const SHOWN_CHARS: usize = 40;

/// What a face found of one side file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SideFile<'a> {
    /// Nothing at its path.
    Absent,
    /// Its bytes, and its modification time (seconds since the epoch).
    Read { bytes: &'a [u8], mtime: f64 },
    /// Something at its path that the face refused unread, in its words (`a symlink, not
    /// read`, `a FIFO, not a file`).
    Refused(&'a str),
}

/// One problem of a side file: the JSON path of the value at fault (`$` for the whole
/// file) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl Problem {
    fn whole(message: String) -> Self {
        Self {
            path: "$".to_owned(),
            message,
        }
    }
}

/// The most bytes a side file of `kind` may hold: the contract's `max_bytes`.
#[must_use]
pub const fn limit(kind: FileKind) -> usize {
    match kind {
        FileKind::SnapshotRequest => max_bytes::SNAPSHOT_REQUEST,
        FileKind::Snapshot | FileKind::Metrics => max_bytes::SNAPSHOT,
    }
}

/// The words of a side file of `kind` refused for its size: `None` within the limit.
#[must_use]
pub fn over_limit(kind: FileKind, size: usize) -> Option<String> {
    let limit = limit(kind);
    (size > limit).then(|| {
        format!(
            "{} bytes, over the {} it may hold",
            grouped(size as u64),
            grouped(limit as u64)
        )
    })
}

/// The proof in `bytes`, or every problem it has (in order: not JSON; else the whole
/// document not an object; else each field in the schema's order).
///
/// # Errors
///
/// The problems, at least one, when `bytes` is not a valid proof.
pub fn read_proof(bytes: &[u8]) -> Result<Snapshot, Vec<Problem>> {
    let value = document(bytes).map_err(|problem| vec![problem])?;
    let fields = match &value {
        Value::Object(fields) => fields,
        // serde's derived struct would take an array too; the schema asks for an object
        other => {
            let error = serde_json::Error::invalid_type(unexpected(other), &"struct Snapshot");
            return Err(vec![Problem::whole(error.to_string())]);
        }
    };
    let mut problems = Vec::new();
    for name in side::PROOF_REQUIRED {
        match fields.get(name) {
            None => problems.push(Problem::whole(
                serde_json::Error::missing_field(name).to_string(),
            )),
            Some(value) => {
                if let Err(message) = field(name, value) {
                    problems.push(Problem {
                        path: format!("$.{name}"),
                        message,
                    });
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    // every field fits: the derived reading, which says whatever else it finds
    Snapshot::deserialize(&value).map_err(|error| vec![Problem::whole(error.to_string())])
}

/// The JSON value of a proof's bytes, or serde_json's words for bytes that are not one.
fn document(bytes: &[u8]) -> Result<Value, Problem> {
    let error = match std::str::from_utf8(bytes) {
        Err(error) => ParseError::utf8(error.valid_up_to()),
        Ok(text) => match serde_json::from_str::<Value>(text) {
            Ok(value) => return Ok(value),
            Err(error) => ParseError::from_serde(text, &error),
        },
    };
    let mut message = error.to_string();
    if bytes.starts_with(&BOM) {
        message = format!("{message} ({FILE_BOM_NOTE})");
    }
    Err(Problem {
        path: error.rendered_path().unwrap_or_else(|| "$".to_owned()),
        message,
    })
}

/// A proof's field `name` against its type and its schema's bounds: serde's words when
/// it is not what they say.
fn field(name: &str, value: &Value) -> Result<(), String> {
    let words = |error: serde_json::Error| error.to_string();
    match name {
        "checkpoint" => {
            let text = String::deserialize(value).map_err(words)?;
            let least = side::CHECKPOINT_MIN_LENGTH;
            if text.chars().take(least).count() < least {
                let expected = format!(
                    "a string of at least {least} character{}",
                    if least == 1 { "" } else { "s" }
                );
                return Err(words(serde_json::Error::invalid_value(
                    Unexpected::Str(&text),
                    &expected.as_str(),
                )));
            }
            Ok(())
        }
        "step" => u64::deserialize(value).map(drop).map_err(words),
        "time" => f64::deserialize(value).map(drop).map_err(words),
        "reason" => match Option::<String>::deserialize(value).map_err(words)? {
            Some(text) if !is_word(&text) => {
                let expected = format!(
                    "a {} (a string matching {}) or null",
                    side::WORD_TITLE,
                    side::WORD_PATTERN
                );
                Err(words(serde_json::Error::invalid_value(
                    Unexpected::Str(&text),
                    &expected.as_str(),
                )))
            }
            _ => Ok(()),
        },
        // a field of the schema this reading does not know: the derived reading says it
        _ => Ok(()),
    }
}

/// What serde names a JSON value it did not expect.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(flag) => Unexpected::Bool(*flag),
        Value::Number(number) => match (number.as_u64(), number.as_i64(), number.as_f64()) {
            (Some(count), _, _) => Unexpected::Unsigned(count),
            (None, Some(count), _) => Unexpected::Signed(count),
            (None, None, Some(float)) => Unexpected::Float(float),
            (None, None, None) => Unexpected::Other("number"),
        },
        Value::String(text) => Unexpected::Str(text),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// Whether `text` is a `Word` (its schema's pattern): a snapshot's reason.
#[must_use]
pub fn is_word(text: &str) -> bool {
    // the schema's pattern is fixed text: it always compiles; refused, nothing is a word
    WORD.with(|word| {
        word.as_ref()
            .map_or(false, |pattern| pattern.is_match(text))
    })
}

thread_local! {
    /// The schema's patterns, compiled once a thread (`None`: refused, never the case).
    static WORD: Option<regex::Regex> = regex::Regex::new(side::WORD_PATTERN).ok();
    static REQUEST: Option<regex::Regex> = regex::Regex::new(side::REQUEST_PATTERN).ok();
}

/// The reason a request's bytes hold: `Ok(Some(word))`, `Ok(None)` for one that is empty
/// (white space aside), or the warning's words for text that is not one word (the plugin
/// takes the snapshot all the same, with no reason). Bytes that are not UTF-8 are read
/// with each bad sequence replaced by U+FFFD.
///
/// # Errors
///
/// The warning's words, for a request that is not one word.
pub fn read_request(bytes: &[u8]) -> Result<Option<String>, String> {
    let text = String::from_utf8_lossy(bytes);
    let found = REQUEST.with(|pattern| {
        pattern.as_ref().and_then(|pattern| {
            pattern
                .captures(&text)
                .map(|found| found.get(1).map(|word| word.range()))
        })
    });
    match found {
        Some(word) => Ok(word
            .and_then(|range| text.get(range))
            .map(|word| word.trim_end_matches([' ', '\t', '\r', '\n']).to_owned())),
        None => {
            let shown = if text.chars().take(SHOWN_CHARS + 1).count() <= SHOWN_CHARS {
                text.into_owned()
            } else {
                let mut cut: String = text.chars().take(SHOWN_CHARS - 3).collect();
                cut.push_str("...");
                cut
            };
            Err(format!("{NOT_ONE_WORD}: {shown:?}; {TAKEN_ALL_THE_SAME}"))
        }
    }
}

/// What `check` finds in a side file's `bytes` (`kind`: the proof or the request), named
/// `file` in its findings: each finding (a proof's problems as errors, a request that is
/// not one word as a warning; category `schema`, no line or column) and the file's summary.
///
/// # Errors
///
/// The words of a file over the contract's `max_bytes` (a face reports it unreadable, as
/// a file it refused itself).
pub fn check_side(
    kind: FileKind,
    file: &str,
    bytes: &[u8],
) -> Result<(Vec<ReportFinding>, ReportFile), String> {
    if let Some(words) = over_limit(kind, bytes.len()) {
        return Err(words);
    }
    let finding = |path: String, severity, message| ReportFinding {
        file: file.to_owned(),
        line: None,
        column: None,
        path,
        severity,
        category: Category::Schema,
        message,
    };
    let findings: Vec<ReportFinding> = match kind {
        FileKind::SnapshotRequest => match read_request(bytes) {
            Ok(_) => Vec::new(),
            Err(message) => vec![finding("$".to_owned(), Severity::Warning, message)],
        },
        FileKind::Snapshot | FileKind::Metrics => match read_proof(bytes) {
            Ok(_) => Vec::new(),
            Err(problems) => problems
                .into_iter()
                .map(|problem| finding(problem.path, Severity::Error, problem.message))
                .collect(),
        },
    };
    let count = |severity| {
        findings
            .iter()
            .filter(|found| found.severity == severity)
            .count() as u64
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let summary = ReportFile {
        file: file.to_owned(),
        kind,
        valid: errors == 0,
        lines: None,
        events: None,
        errors,
        warnings,
    };
    Ok((findings, summary))
}

/// The snapshot part of a run folder's status record, from what the face found of its
/// request and its proof.
///
/// - `requested`: something is at the request's path (a refused file too: the plugin
///   takes its presence as a request);
/// - `reason`: the request's word, when it holds one;
/// - `taken`: the proof, when valid;
/// - `pending`: requested, and no valid proof at least as new as the request (a request
///   whose time is not known, refused, is pending beside any proof);
/// - `problem`: the errors `check` finds in the files, and the files refused, in one line:
///   `snapshot.json: $.step: invalid type: ...; missing field `reason``, each file's
///   problems after its name, the request's first; `None` when there is none.
#[must_use]
pub fn snapshot_state(request: SideFile<'_>, proof: SideFile<'_>) -> SnapshotState {
    let mut problems: Vec<String> = Vec::new();
    let mut said = |file: &str, words: Vec<String>| {
        if !words.is_empty() {
            problems.push(format!("{file}: {}", words.join("; ")));
        }
    };
    let requested = !matches!(request, SideFile::Absent);
    let mut reason = None;
    let mut request_time = None;
    match admitted(request, FileKind::SnapshotRequest) {
        Ok(None) => {}
        Ok(Some((bytes, mtime))) => {
            reason = read_request(bytes).ok().flatten();
            request_time = Some(mtime);
        }
        Err(words) => said(side::REQUEST_FILE, vec![words]),
    }
    let mut taken = None;
    let mut proof_time = None;
    match admitted(proof, FileKind::Snapshot) {
        Ok(None) => {}
        Ok(Some((bytes, mtime))) => match read_proof(bytes) {
            Ok(proof) => {
                taken = Some(proof);
                proof_time = Some(mtime);
            }
            Err(found) => said(
                side::PROOF_FILE,
                found
                    .into_iter()
                    .map(|problem| {
                        if problem.path == "$" {
                            problem.message
                        } else {
                            format!("{}: {}", problem.path, problem.message)
                        }
                    })
                    .collect(),
            ),
        },
        Err(words) => said(side::PROOF_FILE, vec![words]),
    }
    let pending = requested
        && match (request_time, proof_time) {
            (Some(asked), Some(proved)) => proved < asked,
            _ => true,
        };
    SnapshotState {
        requested,
        pending,
        reason,
        taken,
        problem: (!problems.is_empty()).then(|| problems.join("; ")),
    }
}

/// Whether a run's side files are valid as `check` finds them (and so may its record be):
/// no snapshot state (no run folder), or one with no problem.
#[must_use]
pub fn valid(state: Option<&SnapshotState>) -> bool {
    state.map_or(true, |state| state.problem.is_none())
}

/// A side file's bytes and time, `None` when absent; the words of one refused by the face
/// or over the contract's `max_bytes` for its `kind`.
fn admitted(found: SideFile<'_>, kind: FileKind) -> Result<Option<(&[u8], f64)>, String> {
    match found {
        SideFile::Absent => Ok(None),
        SideFile::Refused(words) => Err(words.to_owned()),
        SideFile::Read { bytes, mtime } => match over_limit(kind, bytes.len()) {
            Some(words) => Err(words),
            None => Ok(Some((bytes, mtime))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(bytes: &[u8]) -> Vec<(String, String)> {
        match read_proof(bytes) {
            Ok(_) => Vec::new(),
            Err(found) => found.into_iter().map(|p| (p.path, p.message)).collect(),
        }
    }

    fn one(path: &str, message: &str) -> Vec<(String, String)> {
        vec![(path.to_owned(), message.to_owned())]
    }

    const PROOF: &[u8] =
        br#"{"checkpoint":"out/checkpoint-2","step":2,"time":1764460022.5,"reason":"manual"}"#;

    #[test]
    fn a_valid_proof_is_read() {
        let proof = read_proof(PROOF).expect("valid");
        assert_eq!(proof.checkpoint, "out/checkpoint-2");
        assert_eq!(proof.step, 2);
        assert_eq!(proof.reason.as_deref(), Some("manual"));
        let null = br#"{"checkpoint":"c","step":0,"time":1,"reason":null}"#;
        assert_eq!(read_proof(null).expect("valid").reason, None);
    }

    #[test]
    fn every_missing_field_is_said_in_order() {
        // serde's `missing field` for each; `reason` is required by the schema although
        // its Rust type, an Option, would take it missing
        assert_eq!(
            problems(br#"{"checkpoint":"out/checkpoint-2","time":1764460022.5}"#),
            vec![
                ("$".to_owned(), "missing field `step`".to_owned()),
                ("$".to_owned(), "missing field `reason`".to_owned()),
            ]
        );
    }

    #[test]
    fn fields_of_the_wrong_type_in_serde_words() {
        // `{"checkpoint": 7, "step": "x"}`: each field's value deserialized into its type
        assert_eq!(
            problems(br#"{"checkpoint": 7, "step": "x"}"#),
            vec![
                (
                    "$.checkpoint".to_owned(),
                    "invalid type: integer `7`, expected a string".to_owned()
                ),
                (
                    "$.step".to_owned(),
                    "invalid type: string \"x\", expected u64".to_owned()
                ),
                ("$".to_owned(), "missing field `time`".to_owned()),
                ("$".to_owned(), "missing field `reason`".to_owned()),
            ]
        );
        let step = |text: &str| {
            let doc = format!(r#"{{"checkpoint":"c","step":{text},"time":1,"reason":null}}"#);
            problems(doc.as_bytes())
        };
        assert_eq!(
            step("-1"),
            one("$.step", "invalid value: integer `-1`, expected u64")
        );
        assert_eq!(
            step("1.5"),
            one("$.step", "invalid type: floating point `1.5`, expected u64")
        );
        assert_eq!(
            step("null"),
            one("$.step", "invalid type: null, expected u64")
        );
        let time = br#"{"checkpoint":"c","step":1,"time":"x","reason":null}"#;
        assert_eq!(
            problems(time),
            one("$.time", "invalid type: string \"x\", expected f64")
        );
    }

    #[test]
    fn the_schema_bounds_in_serde_form() {
        let empty = br#"{"checkpoint":"","step":1,"time":1,"reason":null}"#;
        assert_eq!(
            problems(empty),
            one(
                "$.checkpoint",
                "invalid value: string \"\", expected a string of at least 1 character"
            )
        );
        let word = br#"{"checkpoint":"c","step":1,"time":1,"reason":"two words"}"#;
        assert_eq!(
            problems(word),
            one(
                "$.reason",
                "invalid value: string \"two words\", expected a Word (a string matching ^[A-Za-z0-9_-]{1,64}$) or null"
            )
        );
        let long = format!(
            r#"{{"checkpoint":"c","step":1,"time":1,"reason":"{}"}}"#,
            "a".repeat(65)
        );
        assert_eq!(problems(long.as_bytes()).len(), 1);
        let typed = br#"{"checkpoint":"c","step":1,"time":1,"reason":7}"#;
        assert_eq!(
            problems(typed),
            one("$.reason", "invalid type: integer `7`, expected a string")
        );
    }

    #[test]
    fn not_json_nor_an_object() {
        assert_eq!(
            problems(b"not json"),
            one("$", "expected ident at column 2")
        );
        assert_eq!(
            problems(b""),
            one("$", "EOF while parsing a value at column 0")
        );
        assert_eq!(
            problems(b"{\"a\xff\":1}"),
            one("$", "invalid UTF-8 at column 4")
        );
        assert_eq!(
            problems(b"[1]"),
            one("$", "invalid type: sequence, expected struct Snapshot")
        );
        assert_eq!(
            problems(b"null"),
            one("$", "invalid type: null, expected struct Snapshot")
        );
        let bom = problems(b"\xef\xbb\xbf{}");
        assert_eq!(bom.len(), 1);
        assert!(bom[0].1.ends_with(&format!("({FILE_BOM_NOTE})")));
        // a field given twice: the JSON value keeps the last, a proof
        let twice = br#"{"checkpoint":"c","step":1,"time":1,"reason":null,"step":2}"#;
        assert_eq!(read_proof(twice).map(|proof| proof.step), Ok(2));
    }

    #[test]
    fn no_bytes_make_it_panic() {
        for bytes in [
            &b"\xff\xfe"[..],
            b"{",
            b"{\"checkpoint\":",
            b"\x00",
            b"{\"step\":18446744073709551616}",
            b"{\"time\":1e999}",
            b"[[[[[[[[[[[[[[[[[[[[",
        ] {
            let _ = read_proof(bytes);
            let _ = read_request(bytes);
        }
        let deep = "[".repeat(100_000);
        assert_eq!(problems(deep.as_bytes()).len(), 1);
        // bytes of every kind, pieces of a proof among them: an answer each time
        let pieces: [&[u8]; 8] = [
            b"{",
            b"}",
            b"\"checkpoint\":",
            b"\"step\":",
            b"\"reason\":",
            b"\"a b\"",
            b"-1",
            b"\xff",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..5_000 {
            let mut bytes = Vec::new();
            for _ in 0..(seed % 12) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let at = usize::try_from(seed % 9).unwrap_or(0);
                match pieces.get(at) {
                    Some(piece) => bytes.extend_from_slice(piece),
                    None => bytes.push(seed.to_le_bytes()[3]),
                }
            }
            let answer = read_proof(&bytes);
            assert!(answer.is_ok() || answer.map_err(|found| found.len()) != Err(0));
            let _ = read_request(&bytes);
            let _ = snapshot_state(read(&bytes, 1.0), read(&bytes, 2.0));
        }
    }

    #[test]
    fn a_request_is_one_word_or_nothing() {
        assert_eq!(read_request(b"manual\n"), Ok(Some("manual".to_owned())));
        assert_eq!(
            read_request(b" \t\r\nwhy-not_1 \n"),
            Ok(Some("why-not_1".to_owned()))
        );
        assert_eq!(read_request(b""), Ok(None));
        assert_eq!(read_request(b"\n\n"), Ok(None));
        assert_eq!(
            read_request(b"save now\n"),
            Err("the request is not one word (1 to 64 of A-Z a-z 0-9 _ -): \"save now\\n\"; the plugin takes the snapshot all the same, with no reason".to_owned())
        );
        let long = "a".repeat(65);
        let said = read_request(long.as_bytes()).expect_err("65 letters");
        assert!(
            said.contains(&format!("\"{}...\"", "a".repeat(37))),
            "{said}"
        );
        let forty = "b ".repeat(20);
        let said = read_request(forty.as_bytes()).expect_err("not a word");
        assert!(said.contains(&format!("{forty:?}")), "{said}");
        let said = read_request(b"\xffx").expect_err("not UTF-8");
        assert!(said.contains("\"\u{fffd}x\""), "{said}");
    }

    #[test]
    fn check_finds_what_is_wrong() {
        let (found, file) = check_side(
            FileKind::Snapshot,
            "run/snapshot.json",
            br#"{"checkpoint":"c"}"#,
        )
        .expect("within the limit");
        assert_eq!(found.len(), 3);
        assert!(found.iter().all(|f| f.severity == Severity::Error
            && f.category == Category::Schema
            && f.line.is_none()
            && f.file == "run/snapshot.json"));
        assert_eq!((file.valid, file.errors, file.warnings), (false, 3, 0));
        assert_eq!(file.kind, FileKind::Snapshot);
        let (found, file) =
            check_side(FileKind::SnapshotRequest, "snapshot.request", b"a b").expect("small");
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!((file.valid, file.errors, file.warnings), (true, 0, 1));
        let (found, file) = check_side(FileKind::Snapshot, "p", PROOF).expect("small");
        assert!(found.is_empty() && file.valid);
        let big = vec![b' '; max_bytes::SNAPSHOT + 1];
        assert_eq!(
            check_side(FileKind::Snapshot, "p", &big),
            Err("65,537 bytes, over the 65,536 it may hold".to_owned())
        );
    }

    fn read(bytes: &[u8], mtime: f64) -> SideFile<'_> {
        SideFile::Read { bytes, mtime }
    }

    #[test]
    fn the_pending_rule() {
        let state = snapshot_state(read(b"manual\n", 10.0), SideFile::Absent);
        assert!(state.requested && state.pending);
        assert_eq!(state.reason.as_deref(), Some("manual"));
        assert_eq!((state.taken, state.problem), (None, None));
        // a proof newer than the request answers it; one older does not
        assert!(!snapshot_state(read(b"x", 10.0), read(PROOF, 12.5)).pending);
        assert!(!snapshot_state(read(b"x", 10.0), read(PROOF, 10.0)).pending);
        assert!(snapshot_state(read(b"x", 10.0), read(PROOF, 9.0)).pending);
        // a proof alone: taken, nothing asked
        let alone = snapshot_state(SideFile::Absent, read(PROOF, 9.0));
        assert!(!alone.requested && !alone.pending && alone.taken.is_some());
        // a bad proof answers nothing, and is said
        let bad = snapshot_state(read(b"a b", 10.0), read(br#"{"step":"x"}"#, 12.0));
        assert!(bad.pending && bad.taken.is_none() && bad.reason.is_none());
        assert_eq!(
            bad.problem.as_deref(),
            Some("snapshot.json: missing field `checkpoint`; $.step: invalid type: string \"x\", expected u64; missing field `time`; missing field `reason`")
        );
    }

    #[test]
    fn refused_and_oversized_files_are_problems() {
        let state = snapshot_state(
            SideFile::Refused("a symlink, not read"),
            SideFile::Refused("a FIFO, not a file"),
        );
        assert!(state.requested && state.pending && state.reason.is_none());
        assert_eq!(
            state.problem.as_deref(),
            Some("snapshot.request: a symlink, not read; snapshot.json: a FIFO, not a file")
        );
        let big = vec![b'a'; max_bytes::SNAPSHOT_REQUEST + 1];
        let state = snapshot_state(read(&big, 1.0), SideFile::Absent);
        assert!(state.requested && state.reason.is_none());
        assert_eq!(
            state.problem.as_deref(),
            Some("snapshot.request: 65,537 bytes, over the 65,536 it may hold")
        );
    }
}

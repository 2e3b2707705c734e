//! The run-level golden suite (`tests/conformance/runs/` of the repository) through the core:
//! every case's metrics file, as bytes alone (the `stdin` variant: named `-`), checked by
//! `check::check_bytes` and told by `status::status_bytes` at the case's `now`, each record
//! serialised as every face writes it and compared with the expectation field by field
//! (numbers as doubles, read correctly rounded from both sides). And every case's run folder
//! (the `folder` variant): its side files checked by `side::check_side` (the records after
//! the metrics file's) and its snapshot state made by `side::snapshot_state` from their bytes
//! and the manifest's `mtimes`, against the folder's expectations. And the words of every
//! status of the suite (`view`): the screen's rows, the table's cells, `watch`'s line.

use std::fs;
use std::path::{Path, PathBuf};

use overbrainer_core::check::{check_bytes, GZIP_MAGIC};
use overbrainer_core::reports::{side, CheckReport, FileKind, StatusReport};
use overbrainer_core::side::{check_side, snapshot_state, SideFile};
use overbrainer_core::status::status_bytes;
use overbrainer_core::view;

mod common;
use common::{read_json, Json, Reader};

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/runs")
}

/// Where `got` differs from `expected` (`at`: the JSON path so far).
fn differences(at: &str, got: &Json, expected: &Json, out: &mut Vec<String>) {
    match (got, expected) {
        (Json::Number(a), Json::Number(b)) => {
            let (x, y) = (a.parse::<f64>(), b.parse::<f64>());
            if x.is_err() || y.is_err() || x.ok().map(f64::to_bits) != y.ok().map(f64::to_bits) {
                out.push(format!("{at}: {a} where {b} is expected"));
            }
        }
        (Json::Object(a), Json::Object(b)) => {
            for (key, value) in b {
                match got.get(key) {
                    Some(mine) => differences(&format!("{at}.{key}"), mine, value, out),
                    None => out.push(format!("{at}.{key}: missing")),
                }
            }
            for (key, _) in a {
                if expected.get(key).is_none() {
                    out.push(format!("{at}.{key}: not expected"));
                }
            }
        }
        (Json::Array(a), Json::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!(
                    "{at}: {} items where {} are expected",
                    a.len(),
                    b.len()
                ));
            }
            for (index, (mine, value)) in a.iter().zip(b).enumerate() {
                differences(&format!("{at}[{index}]"), mine, value, out);
            }
        }
        _ if got == expected => {}
        _ => out.push(format!("{at}: {got:?} where {expected:?} is expected")),
    }
}

/// The records of a JSON Lines expectation.
fn json_lines(path: &Path) -> Vec<Json> {
    let text =
        fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    text.lines().map(Reader::parse).collect()
}

/// What the core says of one case's metrics bytes, against its `stdin` expectations.
fn case_problems(case: &Json) -> Vec<String> {
    let name = case.field("name").text();
    let folder = suite_dir().join(name);
    let run = case
        .field("runs")
        .items()
        .iter()
        .find(|run| run.field("variant").text() == "stdin")
        .unwrap_or_else(|| panic!("{name}: no stdin variant"));
    let bytes = fs::read(folder.join(run.field("stdin").text())).expect("the case's metrics file");
    let mut problems = Vec::new();

    let reports: Vec<Json> = check_bytes("-", &bytes, None, None)
        .iter()
        .map(|report| Reader::parse(&serde_json::to_string(report).expect("a report serialises")))
        .collect();
    let expected = Json::Array(json_lines(
        &folder.join(run.field("check").field("expect").text()),
    ));
    differences(
        &format!("{name} check"),
        &Json::Array(reports),
        &expected,
        &mut problems,
    );

    let now: f64 = match case.field("now") {
        Json::Number(text) => text.parse().expect("a number"),
        other => panic!("{name}: now is {other:?}"),
    };
    match run.field("status").field("expect") {
        Json::Null => {
            // No run is read: the bytes are gzip data where lines should be, refused by the
            // face that opens them (the check above says so in its one finding).
            if !bytes.starts_with(&GZIP_MAGIC) {
                problems.push(format!(
                    "{name} status: expected none, for bytes that are not gzip"
                ));
            }
        }
        expect => {
            let report = status_bytes("-", "-", &bytes, None, now);
            let got = Reader::parse(&serde_json::to_string(&report).expect("a report serialises"));
            let expected = read_json(&folder.join(expect.text()));
            differences(&format!("{name} status"), &got, &expected, &mut problems);
        }
    }
    problems
}

/// A side file as read (its time from the manifest), or absent.
fn given(bytes: Option<&[u8]>, mtime: impl FnOnce() -> f64) -> SideFile<'_> {
    match bytes {
        Some(bytes) => SideFile::Read {
            bytes,
            mtime: mtime(),
        },
        None => SideFile::Absent,
    }
}

/// What the core says of one case's side files, against its `folder` expectations: the
/// check's records of `snapshot.request` then `snapshot.json` (as `check` reads a folder),
/// and the status's `snapshot`.
fn side_problems(case: &Json) -> Vec<String> {
    let name = case.field("name").text();
    let folder = suite_dir().join(name);
    let run = case
        .field("runs")
        .items()
        .iter()
        .find(|run| run.field("variant").text() == "folder")
        .unwrap_or_else(|| panic!("{name}: no folder variant"));
    let mtime = |file: &str| match case.field("mtimes").get(&format!("run/{file}")) {
        Some(Json::Number(text)) => text.parse::<f64>().expect("a number"),
        _ => panic!("{name}: no mtime for {file}"),
    };
    let read = |file: &str| fs::read(folder.join("run").join(file)).ok();
    let (request, proof) = (read(side::REQUEST_FILE), read(side::PROOF_FILE));
    let mut problems = Vec::new();
    let mut records = Vec::new();
    for (file, kind, bytes) in [
        (side::REQUEST_FILE, FileKind::SnapshotRequest, &request),
        (side::PROOF_FILE, FileKind::Snapshot, &proof),
    ] {
        if let Some(bytes) = bytes {
            let (findings, summary) =
                check_side(kind, &format!("run/{file}"), bytes).expect("within the limit");
            let made = findings
                .into_iter()
                .map(CheckReport::Finding)
                .chain([CheckReport::File(summary)]);
            for record in made {
                let text = serde_json::to_string(&record).expect("a record serialises");
                records.push(Reader::parse(&text));
            }
        }
    }
    let expected: Vec<Json> = json_lines(&folder.join(run.field("check").field("expect").text()))
        .into_iter()
        .filter(|record| {
            let file = record.field("file").text();
            [side::REQUEST_FILE, side::PROOF_FILE]
                .iter()
                .any(|side| file == format!("run/{side}"))
        })
        .collect();
    differences(
        &format!("{name} side files' check"),
        &Json::Array(records),
        &Json::Array(expected),
        &mut problems,
    );
    if let Json::String(expect) = run.field("status").field("expect") {
        let state = snapshot_state(
            given(request.as_deref(), || mtime(side::REQUEST_FILE)),
            given(proof.as_deref(), || mtime(side::PROOF_FILE)),
        );
        let got = Reader::parse(&serde_json::to_string(&state).expect("a state serialises"));
        let expected = read_json(&folder.join(expect));
        differences(
            &format!("{name} snapshot"),
            &got,
            expected.field("snapshot"),
            &mut problems,
        );
    }
    problems
}

#[test]
fn every_case_reads_as_the_suite_expects() {
    let manifest = read_json(&suite_dir().join("manifest.json"));
    let cases = manifest.field("cases").items();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    let problems: Vec<String> = cases.iter().flat_map(case_problems).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_run_folder_side_files_read_as_the_suite_expects() {
    let manifest = read_json(&suite_dir().join("manifest.json"));
    let cases = manifest.field("cases").items();
    let with_side = cases
        .iter()
        .filter(|case| matches!(case.field("mtimes"), Json::Object(files) if !files.is_empty()))
        .count();
    assert!(with_side >= 7, "{with_side} cases with side files");
    let problems: Vec<String> = cases.iter().flat_map(side_problems).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_changed_expectation_is_found() {
    let got = Reader::parse(r#"{"type":"finding","line":2,"column":27,"message":"EOF"}"#);
    for changed in [
        r#"{"type":"finding","line":2,"column":28,"message":"EOF"}"#,
        r#"{"type":"finding","line":2,"column":27,"message":"EOF "}"#,
        r#"{"type":"finding","line":2,"column":27}"#,
        r#"{"type":"finding","line":2,"column":27,"message":"EOF","path":"$"}"#,
    ] {
        let mut problems = Vec::new();
        differences("$", &got, &Reader::parse(changed), &mut problems);
        assert_eq!(problems.len(), 1, "{changed}: {problems:?}");
    }
    let mut none = Vec::new();
    let same = Reader::parse(r#"{"message":"EOF","column":27.0,"line":2,"type":"finding"}"#);
    differences("$", &got, &same, &mut none);
    assert!(none.is_empty(), "{none:?}");
}

/// The words of every status of the suite (`<variant>.view.json`): the one-run screen's
/// rows, the table's cells and `watch`'s line, made by `view` from the expected status
/// object, against those the suite reasons from it.
fn view_problems(case: &Json) -> Vec<String> {
    let name = case.field("name").text();
    let folder = suite_dir().join(name);
    let mut problems = Vec::new();
    for run in case.field("runs").items() {
        let variant = run.field("variant").text();
        let status = run.field("status").field("expect");
        let view = match (status, run.get("view")) {
            (Json::Null, None) => continue,
            (Json::Null, Some(_)) => {
                problems.push(format!("{name} {variant}: a view of no status"));
                continue;
            }
            (_, None) => {
                problems.push(format!("{name} {variant}: a status without its view"));
                continue;
            }
            (status, Some(view)) => (status.text().to_owned(), view.field("expect").text()),
        };
        let bytes = fs::read(folder.join(&view.0)).expect("the status expectation");
        let record: StatusReport = serde_json::from_slice(&bytes).expect("a status object");
        let words: serde_json::Value =
            serde_json::from_slice(&fs::read(folder.join(view.1)).expect("the view"))
                .expect("the view is JSON");
        let at = format!("{name} {variant}");
        let screen: Vec<(String, String)> = serde_json::from_value(words["screen"].clone())
            .unwrap_or_else(|error| panic!("{at}: screen: {error}"));
        let got = view::screen(&record, &[]);
        if got != screen {
            problems.push(format!("{at} screen: {got:?}\n  expected {screen:?}"));
        }
        let cells: Vec<String> = serde_json::from_value(words["cells"].clone())
            .unwrap_or_else(|error| panic!("{at}: cells: {error}"));
        let got = view::cells(&record, &[]);
        if got != cells {
            problems.push(format!("{at} cells: {got:?}\n  expected {cells:?}"));
        }
        let got = view::progress(&record, None);
        if words["watch"] != got.as_str() {
            problems.push(format!("{at} watch: {got:?}, expected {}", words["watch"]));
        }
    }
    problems
}

#[test]
fn every_status_says_the_suites_words() {
    let manifest = read_json(&suite_dir().join("manifest.json"));
    let cases = manifest.field("cases").items();
    let views = cases
        .iter()
        .flat_map(|case| case.field("runs").items())
        .filter(|run| run.get("view").is_some())
        .count();
    assert!(views >= 40, "{views} views");
    let problems: Vec<String> = cases.iter().flat_map(view_problems).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

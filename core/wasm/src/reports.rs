//! The run level for JavaScript: the check of a metrics file and the status of a run, made
//! by the core (`overbrainer_core::check`, `overbrainer_core::status`) and written as the
//! contract's records in JSON — what `check -o json` and `status -o json` write, field for
//! field, serialised by serde from the types generated from the schemas.
//!
//! A check or a status under way has a handle (`ob_check_new`, `ob_status_new`); it is fed
//! the input buffer's bytes and writes its records to the output buffer, as a reader does.

use std::cell::RefCell;

use overbrainer_core::both::Both;
use overbrainer_core::check::{FileCheck, Shown, GZIP_MAGIC, PIECE_LINES, SHOWN_DEFAULT};
use overbrainer_core::names::patterns_of;
use overbrainer_core::notable::{Notable, Notables};
use overbrainer_core::order::Order;
use overbrainer_core::reports::{CheckReport, SnapshotState};
use overbrainer_core::scan::{pieces_of_lines, Options, Scan};
use overbrainer_core::side;
use overbrainer_core::status::RunState;

use crate::with_state;

/// A check under way: its scan, its findings' rules, how many of them are made (past them
/// a finding is counted in the summary only), and whether its bytes are the file's own (not
/// decompressed by the face: gzip data there is one finding, and nothing more).
struct Checking {
    scan: Scan<Order>,
    check: FileCheck,
    shown: Shown,
    raw: bool,
    started: bool,
}

/// The most line numbers a status keeps of the lines rejected between two asks
/// (`ob_status_rejected`): a page asks after each chunk; a caller that never asks holds no
/// more than these.
const REJECTED_KEPT: usize = 4096;

/// A status's scan: of the status alone, or of the status and the file's check in one pass
/// (each line answered once), with the check's rules, how many findings it makes, and its
/// findings not yet asked for (`ob_status_findings`).
enum Lines {
    Status(Box<Scan<Notables>>),
    Checked {
        scan: Box<Scan<Both>>,
        check: FileCheck,
        shown: Shown,
        findings: Vec<CheckReport>,
    },
}

/// A status under way: its scan and the state its lines make, and the numbers of the lines
/// rejected since they were last asked for (`ob_status_rejected`, the first `REJECTED_KEPT`).
struct Telling {
    lines: Lines,
    state: RunState,
    raw: bool,
    started: bool,
    rejected: Vec<u64>,
}

impl Telling {
    /// The first bytes of the input (a byte order mark, a note of the check's).
    fn first_bytes(&mut self, bytes: &[u8]) {
        self.state.first_bytes(bytes);
        if let Lines::Checked { check, .. } = &mut self.lines {
            check.first_bytes(bytes);
        }
    }

    /// `bytes` fed, what they complete taken.
    fn feed(&mut self, bytes: &[u8]) {
        match &mut self.lines {
            Lines::Status(scan) => scan.feed(bytes),
            Lines::Checked {
                scan,
                check,
                shown,
                findings,
            } => {
                // a piece of lines at a time, as a check is fed: what one feed holds is
                // bounded, and the check's findings are made as they come
                for piece in pieces_of_lines(bytes, PIECE_LINES) {
                    scan.feed(piece);
                    take_checked(scan, check, shown, findings, None);
                    if scan.splitter.stopped() {
                        break;
                    }
                }
            }
        }
        self.take();
    }

    /// The end of the input: the last line fed, the check's last findings and summary made.
    fn finish(&mut self) {
        match &mut self.lines {
            Lines::Status(scan) => scan.finish(),
            Lines::Checked {
                scan,
                check,
                shown,
                findings,
            } => {
                let before = scan.lines;
                scan.finish();
                take_checked(scan, check, shown, findings, Some(before));
                let counts = scan.consumer.order.counts;
                findings.push(CheckReport::File(check.report(scan.lines, &counts)));
            }
        }
        self.take();
    }

    /// What the scan kept since the last take, folded into the state, each rejected line's
    /// number (a line the reference rejects, or over the user's bound) noted.
    fn take(&mut self) {
        let rejected = &mut self.rejected;
        let seen = |notable: &Notable| match notable {
            Notable::Rejected { line, .. }
            | Notable::Refused { line }
            | Notable::Over { line, .. }
                if rejected.len() < REJECTED_KEPT =>
            {
                rejected.push(*line);
            }
            _ => {}
        };
        match &mut self.lines {
            Lines::Status(scan) => self.state.take_seeing(scan, seen),
            Lines::Checked { scan, .. } => {
                self.state
                    .take_kept(&mut scan.consumer.notables, scan.lines, seen);
            }
        }
    }
}

/// The check's findings of the facts its scan found since the last call (with `before`, the
/// lines before the last line: the file's end, its rule applied); past the findings it
/// shows, its lines read tersely.
fn take_checked(
    scan: &mut Scan<Both>,
    check: &mut FileCheck,
    shown: &mut Shown,
    findings: &mut Vec<CheckReport>,
    before: Option<u64>,
) {
    let stopped = scan.splitter.stopped();
    for fact in scan.consumer.order.take() {
        if let Some(finding) = check.take(fact, stopped) {
            if shown.shows(finding.severity) {
                findings.push(CheckReport::Finding(finding));
            }
        }
    }
    if let Some(before) = before {
        if let Some(finding) = check.finish(before, scan.lines) {
            if shown.shows(finding.severity) {
                findings.push(CheckReport::Finding(finding));
            }
        }
    }
    if shown.errors_past() {
        scan.options.terse = true;
    }
}

#[derive(Default)]
struct Runs {
    checks: Vec<Option<Checking>>,
    statuses: Vec<Option<Telling>>,
}

thread_local! {
    static RUNS: RefCell<Runs> = RefCell::new(Runs::default());
}

/// The user's bound on a line's length from JavaScript's number (none when `has_max` is 0).
pub(crate) fn bound(has_max: u32, max_line: f64) -> Option<usize> {
    if has_max == 0 || max_line.is_nan() || max_line < 0.0 {
        None
    } else if max_line >= 4_294_967_295.0 {
        Some(u32::MAX as usize)
    } else {
        // a whole number below 2^32: exact
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(max_line as usize)
    }
}

/// `item` in the first free slot of `slots`: its handle.
fn keep<T>(slots: &mut Vec<Option<T>>, item: T) -> u32 {
    let at = slots
        .iter()
        .position(Option::is_none)
        .unwrap_or(slots.len());
    if at == slots.len() {
        slots.push(Some(item));
    } else {
        slots[at] = Some(item);
    }
    u32::try_from(at).unwrap_or(u32::MAX)
}

fn release<T>(slots: &mut Vec<Option<T>>, id: u32) {
    if let Some(slot) = slots.get_mut(id as usize) {
        *slot = None;
    }
    while matches!(slots.last(), Some(None)) {
        slots.pop();
    }
}

/// The first `len` bytes of the input as text (invalid UTF-8 replaced).
fn input_text(len: usize) -> String {
    with_state(|state| String::from_utf8_lossy(state.input.get(..len).unwrap_or(&[])).into_owned())
}

/// `records` as JSON Lines in the output.
fn put_records(records: &[CheckReport]) {
    with_state(|state| {
        state.output.clear();
        for record in records {
            // The generated types hold strings, numbers, booleans and null: serialising one
            // cannot fail (an empty line would only stand for a bug).
            if let Ok(text) = serde_json::to_string(record) {
                state.output.extend_from_slice(text.as_bytes());
            }
            state.output.push(b'\n');
        }
    });
}

/// The findings of each severity a check makes from JavaScript's number: `SHOWN_DEFAULT`
/// when `has_shown` is 0, all for one of 2^53 or more (`Infinity`), else that many.
fn shown_of(has_shown: u32, shown: f64) -> Shown {
    if has_shown == 0 || shown.is_nan() || shown < 0.0 {
        Shown::new(Some(SHOWN_DEFAULT))
    } else if shown >= 9_007_199_254_740_992.0 {
        Shown::new(None)
    } else {
        // a whole number below 2^53: exact
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Shown::new(Some(shown as u64))
    }
}

/// A new check of a metrics file named by the first `name_len` bytes of the input (`-` for
/// standard input); `raw`: its bytes are the file's own (gzip data is then its one finding);
/// `has_max`/`max_line`: the user's bound on a line's length; `has_shown`/`shown`: the
/// findings of each severity it makes (`shown_of`). Its handle.
#[no_mangle]
pub extern "C" fn ob_check_new(
    name_len: usize,
    raw: u32,
    has_max: u32,
    max_line: f64,
    has_shown: u32,
    shown: f64,
) -> u32 {
    let name = input_text(name_len);
    let checking = Checking {
        scan: Scan::new(
            Options {
                max_line: bound(has_max, max_line),
                terse: false,
                unlocated: false,
                digest: None,
                digest_steps: None,
            },
            Order::default(),
        ),
        check: FileCheck::new(&name),
        shown: shown_of(has_shown, shown),
        raw: raw != 0,
        started: false,
    };
    RUNS.with(|runs| keep(&mut runs.borrow_mut().checks, checking))
}

/// Runs `each` on check `id`, its findings since then in the output. `0` for no such check.
fn with_check(id: u32, each: impl FnOnce(&mut Checking, &[u8], &mut Vec<CheckReport>)) -> u32 {
    let input = with_state(|state| std::mem::take(&mut state.input));
    let mut records = Vec::new();
    let found = RUNS.with(|runs| match runs.borrow_mut().checks.get_mut(id as usize) {
        Some(Some(checking)) => {
            each(checking, &input, &mut records);
            true
        }
        _ => false,
    });
    with_state(|state| state.input = input);
    put_records(&records);
    u32::from(found)
}

fn take_findings(checking: &mut Checking, records: &mut Vec<CheckReport>, before: Option<u64>) {
    let stopped = checking.scan.splitter.stopped();
    for fact in checking.scan.consumer.take() {
        if let Some(finding) = checking.check.take(fact, stopped) {
            if checking.shown.shows(finding.severity) {
                records.push(CheckReport::Finding(finding));
            }
        }
    }
    if let Some(before) = before {
        if let Some(finding) = checking.check.finish(before, checking.scan.lines) {
            if checking.shown.shows(finding.severity) {
                records.push(CheckReport::Finding(finding));
            }
        }
    }
    if checking.shown.errors_past() {
        checking.scan.options.terse = true;
    }
}

/// Feed check `id` the first `len` bytes of the input: the output holds the findings of the
/// lines they complete, one JSON object a line.
#[no_mangle]
pub extern "C" fn ob_check_feed(id: u32, len: usize) -> u32 {
    with_check(id, |checking, input, records| {
        let bytes = input.get(..len).unwrap_or(&[]);
        if checking.check.gzip || bytes.is_empty() {
            return;
        }
        if !checking.started {
            checking.started = true;
            if checking.raw && bytes.starts_with(&GZIP_MAGIC) {
                let stdin = checking.check.name == "-";
                records.push(CheckReport::Finding(checking.check.gzip_data(stdin)));
                return;
            }
            checking.check.first_bytes(bytes);
        }
        for piece in pieces_of_lines(bytes, PIECE_LINES) {
            checking.scan.feed(piece);
            take_findings(checking, records, None);
            if checking.scan.splitter.stopped() {
                break;
            }
        }
    })
}

/// Check `id`'s input was a gzip stream cut short after `size` decompressed bytes: said at
/// the end, instead of the last line's finding.
#[no_mangle]
pub extern "C" fn ob_check_gzip_cut(id: u32, size: f64) -> u32 {
    with_check(id, |checking, _, _| {
        // bytes of a stream: a whole number below 2^53, exact
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        checking.check.gzip_cut(size.max(0.0) as u64);
    })
}

/// The end of check `id`'s input: the output holds the last findings, then the file's
/// summary (`type: "file"`).
#[no_mangle]
pub extern "C" fn ob_check_finish(id: u32) -> u32 {
    with_check(id, |checking, _, records| {
        if !checking.check.gzip {
            let before = checking.scan.lines;
            checking.scan.finish();
            take_findings(checking, records, Some(before));
        }
        let counts = checking.scan.consumer.counts;
        let report = checking.check.report(checking.scan.lines, &counts);
        records.push(CheckReport::File(report));
    })
}

/// Check `id` is done with.
#[no_mangle]
pub extern "C" fn ob_check_free(id: u32) {
    RUNS.with(|runs| release(&mut runs.borrow_mut().checks, id));
}

/// A new status of a run's metrics file; `raw`, `has_max`, `max_line` as for a check;
/// `digest`: its logs' series digested for a plot in at most that many buckets a key (0:
/// none); with `has_steps`, of the logs whose step is from `first` to `last` only (a plot
/// zoomed in). With `check`, the file's check in the same pass, as `ob_check_new` makes it
/// of the file named by the first `name_len` bytes of the input, its findings of each
/// severity `has_shown`/`shown` (`ob_status_findings`). With `has_keys`, only the series of
/// the keys picked by the globs of the `keys_len` bytes after the name (comma-separated, as
/// `plot --metric` takes them) are digested, every other key listed by its name alone. Its
/// handle.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn ob_status_new(
    raw: u32,
    has_max: u32,
    max_line: f64,
    digest: u32,
    has_steps: u32,
    first: u64,
    last: u64,
    check: u32,
    name_len: usize,
    has_shown: u32,
    shown: f64,
    has_keys: u32,
    keys_len: usize,
) -> u32 {
    let mut options = Options {
        max_line: bound(has_max, max_line),
        // a complete line rejected is counted: its words are no part of the state
        terse: true,
        unlocated: false,
        digest: (digest > 0).then_some(digest as usize),
        digest_steps: (has_steps != 0).then_some((first, last)),
    };
    let lines = if check == 0 {
        Lines::Status(Box::new(Scan::new(options, Notables::of(options))))
    } else {
        // the check's words for a rejected line (until it shows no more of them)
        options.terse = false;
        Lines::Checked {
            scan: Box::new(Scan::new(options, Both::of(options))),
            check: FileCheck::new(&input_text(name_len)),
            shown: shown_of(has_shown, shown),
            findings: Vec::new(),
        }
    };
    let mut state = RunState::new();
    if has_keys != 0 {
        let keys = with_state(|state| {
            let end = name_len.saturating_add(keys_len);
            String::from_utf8_lossy(state.input.get(name_len..end).unwrap_or(&[])).into_owned()
        });
        state.digest_only(&patterns_of(&keys));
    }
    let telling = Telling {
        lines,
        state,
        raw: raw != 0,
        started: false,
        rejected: Vec::new(),
    };
    RUNS.with(|runs| keep(&mut runs.borrow_mut().statuses, telling))
}

/// Runs `each` on status `id` with the input. `0` for no such status, `2` when its bytes
/// are gzip data where lines should be (no run is read), else `1`.
fn with_status(id: u32, each: impl FnOnce(&mut Telling, &[u8]) -> u32) -> u32 {
    let input = with_state(|state| std::mem::take(&mut state.input));
    let done = RUNS.with(
        |runs| match runs.borrow_mut().statuses.get_mut(id as usize) {
            Some(Some(telling)) => each(telling, &input),
            _ => 0,
        },
    );
    with_state(|state| {
        state.input = input;
        state.output.clear();
    });
    done
}

/// Feed status `id` the first `len` bytes of the input. `2`: they are gzip data where
/// lines should be (what `ob_status_report` then refuses).
#[no_mangle]
pub extern "C" fn ob_status_feed(id: u32, len: usize) -> u32 {
    with_status(id, |telling, input| {
        let bytes = input.get(..len).unwrap_or(&[]);
        if !telling.started && !bytes.is_empty() {
            telling.started = true;
            if telling.raw && bytes.starts_with(&GZIP_MAGIC) {
                telling.raw = false;
                telling.started = false;
                return 2;
            }
            telling.first_bytes(bytes);
        }
        telling.feed(bytes);
        1
    })
}

/// Status `id`'s input was a gzip stream cut short after `size` decompressed bytes: the run
/// is not valid (its check says so at the end).
#[no_mangle]
pub extern "C" fn ob_status_gzip_cut(id: u32, size: f64) -> u32 {
    with_status(id, |telling, _| {
        telling.state.gzip_cut();
        if let Lines::Checked { check, .. } = &mut telling.lines {
            // bytes of a stream: a whole number below 2^53, exact
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            check.gzip_cut(size.max(0.0) as u64);
        }
        1
    })
}

/// The end of status `id`'s input: its last line (without its newline) folded in.
#[no_mangle]
pub extern "C" fn ob_status_finish(id: u32) -> u32 {
    with_status(id, |telling, _| {
        telling.finish();
        1
    })
}

/// The findings of status `id`'s check (made with `check`) since the last call, one JSON
/// object a line in the output, the file's summary last once its input ended. `0` for no
/// such status, `2` for one made without a check.
#[no_mangle]
pub extern "C" fn ob_status_findings(id: u32) -> u32 {
    let mut records = Vec::new();
    let done = RUNS.with(
        |runs| match runs.borrow_mut().statuses.get_mut(id as usize) {
            Some(Some(Telling {
                lines: Lines::Checked { findings, .. },
                ..
            })) => {
                records = std::mem::take(findings);
                1
            }
            Some(Some(_)) => 2,
            _ => 0,
        },
    );
    put_records(&records);
    done
}

/// The status of run `id` at `now` (seconds since the epoch), from the lines fed so far
/// (told again at another `now` as often as asked): the input holds the run's name as the user gave it (`run_len` bytes) and its name among the runs
/// (`name_len` bytes after); the output holds the `StatusReport` as JSON.
#[no_mangle]
pub extern "C" fn ob_status_report(id: u32, run_len: usize, name_len: usize, now: f64) -> u32 {
    status_report(id, run_len, name_len, now, |_| None)
}

/// `ob_status_report`, with the snapshot state `snapshot` makes of the input after the
/// names (a run folder's side files; `None`: a run read from its metrics file alone).
pub(crate) fn status_report(
    id: u32,
    run_len: usize,
    name_len: usize,
    now: f64,
    snapshot: impl FnOnce(&[u8]) -> Option<SnapshotState>,
) -> u32 {
    let (run, name, snapshot) = with_state(|state| {
        let input = &state.input;
        let names_end = run_len.saturating_add(name_len);
        let run = input.get(..run_len).unwrap_or(&[]);
        let name = input.get(run_len..names_end).unwrap_or(&[]);
        (
            String::from_utf8_lossy(run).into_owned(),
            String::from_utf8_lossy(name).into_owned(),
            snapshot(input.get(names_end..).unwrap_or(&[])),
        )
    });
    let side_valid = side::valid(snapshot.as_ref());
    let mut text = String::new();
    let done = RUNS.with(
        |runs| match runs.borrow_mut().statuses.get_mut(id as usize) {
            Some(Some(telling)) => {
                let report = telling.state.report(&run, &name, now, snapshot, side_valid);
                text = serde_json::to_string(&report).unwrap_or_default();
                1
            }
            _ => 0,
        },
    );
    with_state(|state| {
        state.output.clear();
        state.output.extend_from_slice(text.as_bytes());
    });
    done
}

/// Status `id`'s output written by `write` (nothing for no such status): `0` for none.
fn status_output(id: u32, write: impl FnOnce(&mut Telling, &[u8]) -> Vec<u8>) -> u32 {
    let input = with_state(|state| std::mem::take(&mut state.input));
    let mut text = Vec::new();
    let done = RUNS.with(
        |runs| match runs.borrow_mut().statuses.get_mut(id as usize) {
            Some(Some(telling)) => {
                text = write(telling, &input);
                1
            }
            _ => 0,
        },
    );
    with_state(|state| {
        state.input = input;
        state.output.clear();
        state.output.extend_from_slice(&text);
    });
    done
}

/// The numbers of status `id`'s lines rejected since the last call (the reference rejects
/// them, or they are over the user's bound), in the output as a JSON array.
#[no_mangle]
pub extern "C" fn ob_status_rejected(id: u32) -> u32 {
    status_output(id, |telling, _| {
        let lines = std::mem::take(&mut telling.rejected);
        serde_json::to_vec(&lines).unwrap_or_default()
    })
}

/// Status `id`'s logs' series digested (made with `digest`), of the keys the input holds
/// as a JSON array of strings (`keys_len` bytes; every key when `all`), in the output as
/// the JSON of `Digests::json`; `{}` without `digest`. A key list that is not JSON's array
/// of strings is none.
#[no_mangle]
pub extern "C" fn ob_status_digests(id: u32, keys_len: usize, all: u32) -> u32 {
    status_output(id, |telling, input| {
        let keys: Option<Vec<String>> = if all == 0 {
            Some(serde_json::from_slice(input.get(..keys_len).unwrap_or(&[])).unwrap_or_default())
        } else {
            None
        };
        let json = match telling.state.digests() {
            Some(digests) => digests.json(keys.as_deref()),
            None => serde_json::Value::Object(serde_json::Map::new()),
        };
        serde_json::to_vec(&json).unwrap_or_default()
    })
}

/// Status `id`'s metric keys digested so far, in the order they came, in the output as a
/// JSON array.
#[no_mangle]
pub extern "C" fn ob_status_digest_keys(id: u32) -> u32 {
    status_output(id, |telling, _| {
        let keys: Vec<&str> = telling
            .state
            .digests()
            .map(|digests| digests.keys().map(|(key, _)| key).collect())
            .unwrap_or_default();
        serde_json::to_vec(&keys).unwrap_or_default()
    })
}

/// Status `id` is done with.
#[no_mangle]
pub extern "C" fn ob_status_free(id: u32) {
    RUNS.with(|runs| release(&mut runs.borrow_mut().statuses, id));
}

/// The words every face says a file's bad lines in (`overbrainer_core::check::lines_text`),
/// in the output: `invalid` lines (a whole number below 2^53), the last line `cut` short.
#[no_mangle]
pub extern "C" fn ob_lines_text(invalid: f64, cut: u32) {
    // a count of lines: a whole number below 2^53, exact
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let text = overbrainer_core::check::lines_text(invalid.max(0.0) as u64, cut != 0);
    with_state(|state| {
        state.output.clear();
        state.output.extend_from_slice(text.as_bytes());
    });
}

/// A followed file's change in the core's words (`overbrainer_core::watch::FileChange`), in
/// the output: the input holds the change's name (`name_len` bytes: `truncated`, `rewritten`,
/// `replaced`, `removed`, `back`), then the path as the page shows it (`path_len` bytes).
/// 1, or 0 (the output empty) for a name that is no change.
#[no_mangle]
pub extern "C" fn ob_change_text(name_len: usize, path_len: usize) -> u32 {
    let (name, path) = with_state(|state| {
        let input = &state.input;
        let name = input.get(..name_len).unwrap_or(&[]);
        let path = name_len
            .checked_add(path_len)
            .and_then(|end| input.get(name_len..end))
            .unwrap_or(&[]);
        (
            String::from_utf8_lossy(name).into_owned(),
            String::from_utf8_lossy(path).into_owned(),
        )
    });
    let change = overbrainer_core::watch::FileChange::from_name(&name);
    let text = change.map(|change| change.text(&path)).unwrap_or_default();
    with_state(|state| {
        state.output.clear();
        state.output.extend_from_slice(text.as_bytes());
    });
    u32::from(change.is_some())
}

/// gzip data where lines should be, in the core's words (`stdin`: standard input), in the
/// output: what a face says when it refuses such bytes.
#[no_mangle]
pub extern "C" fn ob_gzip_not_named_text(stdin: u32) {
    let text = overbrainer_core::check::gzip_not_named_text(stdin != 0);
    with_state(|state| {
        state.output.clear();
        state.output.extend_from_slice(text.as_bytes());
    });
}

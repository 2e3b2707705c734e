//! The check of a metrics file: what each fact of [`crate::order`] means to a user — its
//! severity, its category, its JSON path, its words — as the contract's report records
//! ([`ReportFinding`], [`ReportFile`]: `schema/check-report.schema.json`), and the rules of
//! a whole file: a byte order mark on the first line, gzip data where lines should be, a
//! gzip stream cut short, the last line without its newline, the reading stopped.
//!
//! Every face (`check` under Python, `check()` of the npm package) reports these records as
//! they are; the words said about a file's lines ([`lines_text`]) and sizes
//! ([`size_text`]) are said here once for every command.

use crate::error::{is_cut, Category as LineCategory, ParseError};
use crate::generated::TAGS;
use crate::order::{Fact, Order, Phase};
use crate::reports::{
    Category, CheckReport, EventCounts, FileKind, ReportFile, ReportFinding, Severity,
};
use crate::scan::{Options, Scan};
use crate::split::SKIP_LIMIT;

/// The first bytes of a gzip stream (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The UTF-8 byte order mark.
pub const BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// What a rejected first line that begins with a byte order mark is told beside the
/// reference's error (`expected value at column 1`), which does not name the mark.
pub const BOM_NOTE: &str = "the line begins with a UTF-8 byte order mark, bytes EF BB BF, which a JSON line may not hold: save the file without it";

/// The check of one metrics file under way: the facts of its lines made findings, counted.
#[derive(Debug, Clone)]
pub struct FileCheck {
    /// The file, as the user named it (`-` for standard input).
    pub name: String,
    /// Whether the first line begins with a byte order mark (known from the first bytes).
    bom: bool,
    first: bool,
    pub errors: u64,
    pub warnings: u64,
    /// Lines rejected or over the bound: the file's errors on lines.
    pub invalid: u64,
    /// Whether the last line is cut short (no newline, the reference finds it cut): a
    /// warning, not an invalid line.
    pub cut: bool,
    /// A gzip stream cut short: its decompressed size; said instead of the last line.
    gzip_cut: Option<u64>,
    /// Whether the file is gzip data where lines should be: one finding, no line read.
    pub gzip: bool,
}

impl FileCheck {
    #[must_use]
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            bom: false,
            first: true,
            errors: 0,
            warnings: 0,
            invalid: 0,
            cut: false,
            gzip_cut: None,
            gzip: false,
        }
    }

    /// The file's first bytes (any call before the first non-empty one is ignored): a byte
    /// order mark noted. Gzip's magic bytes are not looked at here: the face that opens the
    /// file knows whether it decompresses it ([`FileCheck::gzip_data`]).
    pub fn first_bytes(&mut self, bytes: &[u8]) {
        if self.first && !bytes.is_empty() {
            self.first = false;
            self.bom = bytes.starts_with(&BOM);
        }
    }

    /// The one finding of a file that holds gzip data where lines should be (`stdin`:
    /// standard input, which cannot be renamed).
    pub fn gzip_data(&mut self, stdin: bool) -> ReportFinding {
        self.gzip = true;
        self.errors += 1;
        self.finding(
            None,
            None,
            "$",
            Severity::Error,
            Category::Syntax,
            gzip_not_named_text(stdin),
        )
    }

    /// The input was a gzip stream cut short after `size` decompressed bytes: said once,
    /// at the end ([`FileCheck::finish`]), instead of the last line's finding.
    pub fn gzip_cut(&mut self, size: u64) {
        self.gzip_cut = Some(size);
    }

    fn finding(
        &self,
        line: Option<u64>,
        column: Option<usize>,
        path: &str,
        severity: Severity,
        category: Category,
        message: String,
    ) -> ReportFinding {
        ReportFinding {
            file: self.name.clone(),
            line,
            column: column.map(|column| column as u64),
            path: path.to_owned(),
            severity,
            category,
            message,
        }
    }

    /// The finding a fact makes (none for the last line's when a gzip cut is said instead,
    /// none for a line read tersely: an error counted, not shown), counted; `stopped`: the reading stopped within a line skipped for `SKIP_LIMIT` bytes.
    pub fn take(&mut self, fact: Fact, stopped: bool) -> Option<ReportFinding> {
        self.take_noting(fact, stopped).map(|(finding, _)| finding)
    }

    /// `take`, and the token a rejected line's error lies on when it is `NaN`, `Infinity`
    /// or `-Infinity` (`ParseError::nonfinite`): what a face may explain beside the
    /// reference's words.
    pub fn take_noting(
        &mut self,
        fact: Fact,
        stopped: bool,
    ) -> Option<(ReportFinding, Option<&'static str>)> {
        let nonfinite = match &fact {
            Fact::Rejected { error, .. }
            | Fact::Last {
                error: Some(error), ..
            } => error.nonfinite,
            _ => None,
        };
        let finding = match fact {
            Fact::Refused { .. } => {
                // counted: its finding is one the caller said it does not show
                self.invalid += 1;
                self.errors += 1;
                return None;
            }
            Fact::Rejected { line, error } => {
                let mut message = error.to_string();
                if line == 1 && self.bom {
                    message = format!("{message} ({BOM_NOTE})");
                }
                self.rejected(line, &error, message)
            }
            Fact::Over {
                line,
                size,
                complete,
                limit,
            } => {
                let mut message = overlong_text(size, complete, limit as u64);
                if stopped && !complete {
                    message = format!("{message} ({})", stopped_text());
                }
                self.invalid += 1;
                self.finding(
                    Some(line),
                    None,
                    "$",
                    Severity::Error,
                    Category::Length,
                    message,
                )
            }
            Fact::Order {
                line,
                variant,
                phase,
            } => {
                let event = TAGS.get(variant).copied().unwrap_or("?");
                let whence = if phase == Phase::Before {
                    "before the first begin line"
                } else {
                    "after the end line"
                };
                let message = format!("{event} line {whence}");
                self.finding(
                    Some(line),
                    None,
                    "$.event",
                    Severity::Warning,
                    Category::Order,
                    message,
                )
            }
            Fact::Back { line, step, last } => {
                let message = format!("step {step} goes back (after step {last})");
                self.finding(
                    Some(line),
                    None,
                    "$.step",
                    Severity::Warning,
                    Category::Order,
                    message,
                )
            }
            Fact::Scalars {
                line,
                path,
                message,
            } => self.finding(
                Some(line),
                None,
                &path,
                Severity::Warning,
                Category::Schema,
                message,
            ),
            Fact::Last { line, error } => {
                if self.gzip_cut.is_some() {
                    return None;
                }
                self.last_line(line, error, stopped)
            }
        };
        match finding.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
        Some((finding, nonfinite))
    }

    /// The last line without its newline: a warning when the reference reads it as a line
    /// cut short (a whole line, or one rejected `eof`), else an error no byte can mend.
    fn last_line(&mut self, line: u64, error: Option<ParseError>, stopped: bool) -> ReportFinding {
        let error = match error {
            Some(error) => error,
            None => {
                let message = "truncated last line: no newline at its end".to_owned();
                let category = Category::Truncated;
                return self.finding(Some(line), None, "$", Severity::Warning, category, message);
            }
        };
        // `Fact::Last`: the input's last line, without its newline
        if is_cut(false, error.category) {
            self.cut = true;
            let message = format!("truncated last line: {error}");
            let (column, category) = (error.column, Category::Truncated);
            let path = path_of(&error);
            return self.finding(
                Some(line),
                column,
                &path,
                Severity::Warning,
                category,
                message,
            );
        }
        let whence = if stopped {
            stopped_text()
        } else {
            "the last line, without its newline".to_owned()
        };
        let message = format!("{error} ({whence})");
        self.rejected(line, &error, message)
    }

    /// The error finding of a line the reference rejects (an invalid line), in `message`'s
    /// words, at the error's column and path.
    fn rejected(&mut self, line: u64, error: &ParseError, message: String) -> ReportFinding {
        self.invalid += 1;
        let category = line_category(error.category);
        let path = path_of(error);
        self.finding(
            Some(line),
            error.column,
            &path,
            Severity::Error,
            category,
            message,
        )
    }

    /// What the end of the input adds (after the last facts are taken): the gzip cut, at
    /// the last line when bytes followed the last newline (`lines` now, `before` the lines
    /// read before the last line's facts).
    pub fn finish(&mut self, before: u64, lines: u64) -> Option<ReportFinding> {
        let size = self.gzip_cut?;
        let at = if lines > before { Some(lines) } else { None };
        self.cut = at.is_some();
        self.errors += 1;
        let message = gzip_cut_text(size);
        Some(self.finding(at, None, "$", Severity::Error, Category::Truncated, message))
    }

    /// The file's summary: its lines, its valid lines by event (`counts`, by index in
    /// `TAGS`), every finding counted.
    #[must_use]
    pub fn report(&self, lines: u64, counts: &[u64; TAGS.len()]) -> ReportFile {
        let count = |tag: &str| {
            TAGS.iter()
                .position(|each| *each == tag)
                .map_or(0, |at| counts[at])
        };
        ReportFile {
            file: self.name.clone(),
            kind: FileKind::Metrics,
            valid: self.errors == 0,
            lines: Some(lines),
            events: Some(EventCounts {
                begin: count("begin"),
                log: count("log"),
                eval: count("eval"),
                stage: count("stage"),
                end: count("end"),
            }),
            errors: self.errors,
            warnings: self.warnings,
        }
    }
}

/// The findings of each severity a face shows of a file by default (`check`'s text, the npm
/// package's `check()`): a file of random bytes is one screen, a file of a million bad lines
/// one screen too, its summary counting them all.
pub const SHOWN_DEFAULT: u64 = 20;

/// The most lines a face's check reads at a time (`scan::pieces_of_lines`): their findings
/// are all it holds at once (about half a KiB each, in the core and then in the face's
/// objects), 16 MiB at most whatever the file or the chunk.
pub const PIECE_LINES: usize = 32_768;

/// How many findings of each severity a face shows of a file: past `most` errors (and `most`
/// warnings) a finding is counted in the file's summary, not made. Once the errors are past
/// it, the rejected lines that follow can be read for their verdict alone
/// ([`Options::terse`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    /// The most of each severity; `None`: all.
    most: Option<u64>,
    /// Findings shown so far: errors, warnings.
    made: [u64; 2],
}

impl Shown {
    /// At most `most` findings of each severity (`None`: all).
    #[must_use]
    pub const fn new(most: Option<u64>) -> Self {
        Self { most, made: [0; 2] }
    }

    /// Whether a finding of `severity` is shown (then counted as shown).
    pub fn shows(&mut self, severity: Severity) -> bool {
        let made = &mut self.made[usize::from(severity == Severity::Warning)];
        if self.most.map_or(false, |most| *made >= most) {
            return false;
        }
        *made += 1;
        true
    }

    /// Whether no more error is shown.
    #[must_use]
    pub fn errors_past(&self) -> bool {
        self.most.map_or(false, |most| self.made[0] >= most)
    }
}

/// The check of a whole metrics file in memory (the npm package's `check`, the run-level
/// golden suite): its findings in the file's order, then its summary. `gzip_cut`: the
/// bytes are what a gzip stream cut short held (the face decompressed them).
#[must_use]
pub fn check_bytes(
    name: &str,
    bytes: &[u8],
    max_line: Option<usize>,
    gzip_cut: Option<u64>,
) -> Vec<CheckReport> {
    let mut check = FileCheck::new(name);
    let mut out = Vec::new();
    if bytes.starts_with(&GZIP_MAGIC) && gzip_cut.is_none() {
        out.push(CheckReport::Finding(check.gzip_data(name == "-")));
        out.push(CheckReport::File(check.report(0, &[0; TAGS.len()])));
        return out;
    }
    if let Some(size) = gzip_cut {
        check.gzip_cut(size);
    }
    check.first_bytes(bytes);
    let options = Options {
        max_line,
        terse: false,
        unlocated: false,
        digest: None,
        digest_steps: None,
    };
    let mut scan = Scan::new(options, Order::default());
    scan.feed(bytes);
    let taken = |scan: &mut Scan<Order>, check: &mut FileCheck, out: &mut Vec<CheckReport>| {
        let stopped = scan.splitter.stopped();
        for fact in scan.consumer.take() {
            if let Some(finding) = check.take(fact, stopped) {
                out.push(CheckReport::Finding(finding));
            }
        }
    };
    taken(&mut scan, &mut check, &mut out);
    let before = scan.lines;
    scan.finish();
    taken(&mut scan, &mut check, &mut out);
    if let Some(finding) = check.finish(before, scan.lines) {
        out.push(CheckReport::Finding(finding));
    }
    out.push(CheckReport::File(
        check.report(scan.lines, &scan.consumer.counts),
    ));
    out
}

/// The error's JSON path as every face writes it; `$` for the whole line.
fn path_of(error: &ParseError) -> String {
    error
        .path
        .as_ref()
        .map_or_else(|| "$".to_owned(), ToString::to_string)
}

const fn line_category(category: LineCategory) -> Category {
    match category {
        LineCategory::Syntax | LineCategory::Io => Category::Syntax,
        LineCategory::Eof => Category::Eof,
        LineCategory::Data => Category::Data,
    }
}

/// A count with its thousands grouped by commas (`1,234,567`).
#[must_use]
pub fn grouped(count: u64) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A size as the command line writes it (`--max-line 64M`), shortest first: `1M`, `64M`,
/// `1536K`, `1000`.
#[must_use]
pub fn size_text(size: u64) -> String {
    for (unit, bytes) in [
        ("T", 1_u64 << 40),
        ("G", 1 << 30),
        ("M", 1 << 20),
        ("K", 1 << 10),
    ] {
        if size >= bytes && size % bytes == 0 {
            return format!("{}{unit}", size / bytes);
        }
    }
    size.to_string()
}

/// What is wrong with a line of `size` bytes (its newline included when `complete`) over
/// the user's bound of `limit` bytes, naming the option that sets it.
#[must_use]
pub fn overlong_text(size: u64, complete: bool, limit: u64) -> String {
    let without = if complete {
        ""
    } else {
        ", without its newline"
    };
    format!(
        "a line of {} bytes{without}: over the {} bytes a line is read to (--max-line {}; a larger --max-line reads it)",
        grouped(size),
        grouped(limit),
        size_text(limit)
    )
}

/// Said of a line skipped for `SKIP_LIMIT` bytes without a newline, where the reading ends.
#[must_use]
pub fn stopped_text() -> String {
    format!(
        "the last line read: no newline in its first {}, the reading stopped there",
        size_text(SKIP_LIMIT)
    )
}

/// The words every command says a file's bad lines in: `9 invalid lines`, `9 invalid lines
/// and the last line cut short`, `the last line cut short`; empty for none.
#[must_use]
pub fn lines_text(invalid: u64, cut: bool) -> String {
    let mut words = Vec::new();
    if invalid > 0 {
        let plural = if invalid == 1 { "" } else { "s" };
        words.push(format!("{} invalid line{plural}", grouped(invalid)));
    }
    if cut {
        words.push("the last line cut short".to_owned());
    }
    words.join(" and ")
}

/// gzip data where JSON lines should be: what it is, what to do (`stdin`: standard input).
#[must_use]
pub fn gzip_not_named_text(stdin: bool) -> String {
    let fix = if stdin {
        "gunzip it first (zcat FILE | ...)"
    } else {
        "name it .jsonl.gz, or gunzip it"
    };
    format!("gzip-compressed data, not JSON lines (it begins with gzip's magic bytes 1f 8b): {fix}")
}

/// A gzip stream that ends before its end, after `size` decompressed bytes.
#[must_use]
pub fn gzip_cut_text(size: u64) -> String {
    format!(
        "gzip data cut short after {} bytes (the stream ends before its end: a file still being written, or cut)",
        grouped(size)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(bytes: &[u8]) -> Vec<ReportFinding> {
        check_bytes("m", bytes, None, None)
            .into_iter()
            .filter_map(|report| match report {
                CheckReport::Finding(finding) => Some(finding),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn shown_counts_each_severity_apart() {
        let mut shown = Shown::new(Some(2));
        let said: Vec<bool> = [
            Severity::Error,
            Severity::Warning,
            Severity::Error,
            Severity::Error,
            Severity::Warning,
            Severity::Warning,
        ]
        .iter()
        .map(|severity| shown.shows(*severity))
        .collect();
        assert_eq!(said, [true, true, true, false, true, false]);
        assert!(shown.errors_past());
        let mut none = Shown::new(Some(0));
        assert!(none.errors_past());
        assert!(!none.shows(Severity::Warning));
        let mut all = Shown::new(None);
        assert!((0..1000).all(|_| all.shows(Severity::Error)));
        assert!(!all.errors_past());
    }

    #[test]
    fn words() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(size_text(1 << 20), "1M");
        assert_eq!(size_text(1536 << 10), "1536K");
        assert_eq!(size_text(1000), "1000");
        assert_eq!(size_text(SKIP_LIMIT), "4G");
        assert_eq!(lines_text(0, false), "");
        assert_eq!(lines_text(1, false), "1 invalid line");
        assert_eq!(
            lines_text(1200, true),
            "1,200 invalid lines and the last line cut short"
        );
        assert_eq!(lines_text(0, true), "the last line cut short");
    }

    #[test]
    fn a_line_cut_mid_file_is_eof_and_a_cut_last_line_a_warning() {
        let found = findings(b"{\"event\":\"stage\",\"name\":\"tra\n{\"event\":\"stage\",\"na");
        assert_eq!(found.len(), 2);
        assert_eq!(
            (found[0].category, found[0].severity),
            (Category::Eof, Severity::Error)
        );
        assert_eq!(found[0].column, Some(28)); // serde_json: EOF at the last byte read
        assert_eq!(
            (found[1].category, found[1].severity),
            (Category::Truncated, Severity::Warning)
        );
        assert!(found[1]
            .message
            .starts_with("truncated last line: EOF while parsing"));
    }

    #[test]
    fn a_nonfinite_token_is_noted_beside_the_reference_words() {
        let mut check = FileCheck::new("m");
        let mut scan = Scan::new(Options::default(), Order::default());
        scan.feed(b"{\"event\":\"log\",\"time\":1,\"step\":1,\"loss\":NaN}\n{\"event\":\"log\",\"time\":1,\"step\":1,\"loss\":-Infinity}\n[1,\n");
        let noted: Vec<_> = scan
            .consumer
            .take()
            .into_iter()
            .filter_map(|fact| check.take_noting(fact, false))
            .map(|(finding, token)| (finding.line, token))
            .collect();
        assert_eq!(
            noted,
            [
                (Some(1), Some("NaN")),
                (Some(2), Some("-Infinity")),
                (Some(3), None)
            ]
        );
    }

    #[test]
    fn a_byte_order_mark_is_named() {
        let found = findings(b"\xef\xbb\xbf{\"event\":\"stage\",\"name\":\"train\",\"time\":1}\n");
        assert_eq!(found.len(), 1);
        assert!(found[0].message.ends_with(&format!("({BOM_NOTE})")));
    }

    #[test]
    fn gzip_data_is_one_finding_and_no_line() {
        let reports = check_bytes("-", &[0x1f, 0x8b, 8, 0], None, None);
        assert_eq!(reports.len(), 2);
        match &reports[0] {
            CheckReport::Finding(finding) => {
                assert_eq!(finding.line, None);
                assert!(finding
                    .message
                    .ends_with("gunzip it first (zcat FILE | ...)"));
            }
            other => panic!("{other:?}"),
        }
    }
}

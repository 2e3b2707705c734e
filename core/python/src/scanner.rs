//! Whole files under Python: a stream fed in chunks, each line answered by the core, on
//! every core of the machine (rayon), without the GIL; only what a command shows crosses
//! back: `check`'s facts (`CheckScan`), a table's columns (`TableScan`).

use overbrainer_core::check::{FileCheck, Shown, PIECE_LINES};
use overbrainer_core::columns::{Batch, Column, Columns, LEFT_OUT};
use overbrainer_core::generated::{MetricLine, UNION};
use overbrainer_core::is_cut;
use overbrainer_core::notable::{Notable, Notables};
use overbrainer_core::order::Order;
use overbrainer_core::reports::{Category, FileKind, ReportFile, ReportFinding, Severity};
use overbrainer_core::scan::{parts, pieces_of_lines, Consumer, Options, Part, Scan, Work};
use overbrainer_core::split::{Piece, Splitter, Why};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::once_cell::GILOnceCell;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use rayon::prelude::*;

use crate::{answer_object, body_answer, bound, each_answer, error_object, model};

/// Complete lines are answered in parts, in parallel, from this many bytes on: below it the
/// threads' hand-over costs more than they save.
const PARALLEL_FROM: usize = 128 * 1024;

/// `answer` of each part of `lines` (complete lines, each part cut after a newline), in
/// order: in parts on rayon's threads when there are enough lines. The one way the binding
/// answers lines in parallel (the scans here, `parse_lines`' pipeline).
pub(crate) fn in_parts<'a, T: Send>(
    lines: &'a [u8],
    answer: impl Fn(&'a [u8]) -> T + Sync,
) -> Vec<T> {
    let threads = rayon::current_num_threads();
    if lines.len() < PARALLEL_FROM || threads < 2 {
        return vec![answer(lines)];
    }
    parts(lines, threads * 4)
        .par_iter()
        .map(|part| answer(part))
        .collect()
}

/// The answers of `lines` (complete lines), in order.
fn answers<C: Consumer>(lines: &[u8], options: Options) -> Vec<Part<C::Kept>> {
    in_parts(lines, |part| C::answer_part(part, options))
}

/// `chunk` through `scan` (the end of the input when `None`), every line answered.
pub(crate) fn run<C: Consumer + Send>(scan: &mut Scan<C>, chunk: Option<&[u8]>) {
    let options = scan.options;
    let settle = |scan: &mut Scan<C>, work: Work<'_>| match work {
        Work::Lines(lines) => {
            for part in answers::<C>(lines, options) {
                scan.take(part);
            }
        }
        Work::Answered(answered) => scan.give(answered),
    };
    match chunk {
        Some(chunk) => scan.split(chunk, settle),
        None => scan.split_end(settle),
    }
}

/// Every line read in full: a rejected line's words, column and path kept.
fn options(max_line: Option<usize>) -> Options {
    Options {
        max_line,
        terse: false,
        unlocated: false,
        digest: None,
        digest_steps: None,
    }
}

/// Every line of a stream, cut by the core's `Splitter` as it is fed and answered as
/// `parse_lines` answers a body (`iter_lines`): each line's model or its `ParseError`, in
/// order, but for the input's last line when it is cut short (`is_cut`): that one is kept
/// apart, its bytes in `cut`.
#[pyclass(module = "overbrainer_contract._core")]
pub struct LineScan {
    splitter: Splitter,
    lines: u64,
    cut: Option<Vec<u8>>,
}

#[pymethods]
impl LineScan {
    #[new]
    fn new() -> Self {
        Self {
            splitter: Splitter::new(None),
            lines: 0,
            cut: None,
        }
    }

    /// The answers to the lines `chunk` completes.
    fn feed(&mut self, py: Python<'_>, chunk: &PyBytes) -> PyResult<PyObject> {
        self.answers(py, Some(chunk.as_bytes()))
    }

    /// The answer to the input's last line, when it has no newline and is not cut short.
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        self.answers(py, None)
    }

    /// Lines read so far, a cut last line included.
    #[getter]
    fn lines(&self) -> u64 {
        self.lines
    }

    /// The input's last line when it is cut short (no newline, rejected `eof`), its bytes.
    #[getter]
    fn cut<'p>(&self, py: Python<'p>) -> Option<&'p PyBytes> {
        self.cut.as_deref().map(|bytes| PyBytes::new(py, bytes))
    }
}

impl LineScan {
    /// The answers to what `chunk` completes (the input's end when `None`), in a list.
    fn answers(&mut self, py: Python<'_>, chunk: Option<&[u8]>) -> PyResult<PyObject> {
        let list = PyList::empty(py);
        let mut answered = Ok(());
        let (lines, cut) = (&mut self.lines, &mut self.cut);
        let mut out = |piece: Piece<'_>| {
            if answered.is_ok() {
                answered = line_answers(py, list, piece, lines, cut);
            }
        };
        match chunk {
            Some(chunk) => self.splitter.feed(chunk, &mut out),
            None => self.splitter.finish(&mut out),
        }
        answered.map(|()| list.into())
    }
}

/// The answers to what the splitter gave, appended to `list`, each line counted.
fn line_answers(
    py: Python<'_>,
    list: &PyList,
    piece: Piece<'_>,
    lines: &mut u64,
    cut: &mut Option<Vec<u8>>,
) -> PyResult<()> {
    let bound = bound(py)?;
    match piece {
        Piece::Lines(body) => each_answer(body, |answer| {
            *lines += 1;
            list.append(answer_object(py, bound, answer)?)
                .map(|()| true)
        }),
        Piece::Last(line) => {
            *lines += 1;
            match body_answer(line) {
                Err((error, _)) if is_cut(false, error.category) => {
                    *cut = Some(line.to_vec());
                    Ok(())
                }
                answer => list.append(answer_object(py, bound, answer)?),
            }
        }
        // a line skipped (no bound is given: its start decides it invalid, never cut)
        Piece::Skipped(skipped) => {
            *lines += 1;
            match skipped.why {
                Why::Invalid(error) => list.append(error_object(py, bound, &error)?),
                Why::Over(_) => Err(PyRuntimeError::new_err("a line over no bound")),
            }
        }
    }
}

/// The report classes `CheckScan` builds (the generated msgspec models of
/// `check-report.schema.json`), given once by `bind_reports`.
struct Reports {
    finding: Py<PyAny>,
    file: Py<PyAny>,
    events: Py<PyAny>,
    /// `Severity`, `Category` and `FileKind` members, by name.
    members: Vec<(&'static str, Py<PyAny>)>,
}

static REPORTS: GILOnceCell<Reports> = GILOnceCell::new();

/// Hands the core the check report's models: `ReportFinding`, `ReportFile`, `EventCounts`
/// and the enums `Severity`, `Category`, `FileKind`. A second call changes nothing.
#[pyfunction]
pub fn bind_reports(
    py: Python<'_>,
    classes: (&PyAny, &PyAny, &PyAny),
    enums: (&PyAny, &PyAny, &PyAny),
) -> PyResult<()> {
    let mut members = Vec::new();
    for severity in [Severity::Error, Severity::Warning] {
        members.push((severity.name(), enums.0.call1((severity.name(),))?.into()));
    }
    for category in [
        Category::Syntax,
        Category::Eof,
        Category::Data,
        Category::Length,
        Category::Order,
        Category::Truncated,
        Category::Schema,
    ] {
        let name = category.name();
        members.push((name, enums.1.call1((name,))?.into()));
    }
    for kind in [
        FileKind::Metrics,
        FileKind::Snapshot,
        FileKind::SnapshotRequest,
    ] {
        members.push((kind.name(), enums.2.call1((kind.name(),))?.into()));
    }
    let _ = REPORTS.set(
        py,
        Reports {
            finding: classes.0.into(),
            file: classes.1.into(),
            events: classes.2.into(),
            members,
        },
    );
    Ok(())
}

fn reports(py: Python<'_>) -> PyResult<&Reports> {
    REPORTS.get(py).ok_or_else(|| {
        PyRuntimeError::new_err(
            "CheckScan is used before bind_reports(): import overbrainer_contract.check",
        )
    })
}

impl Reports {
    fn member(&self, py: Python<'_>, name: &str) -> PyObject {
        self.members
            .iter()
            .find(|(each, _)| *each == name)
            .map_or_else(|| py.None(), |(_, member)| member.clone_ref(py))
    }

    fn finding(&self, py: Python<'_>, finding: ReportFinding) -> PyResult<PyObject> {
        let severity = self.member(py, finding.severity.name());
        let category = self.member(py, finding.category.name());
        let args = (
            finding.file,
            finding.line,
            finding.column,
            finding.path,
            severity,
            category,
            finding.message,
        );
        self.finding.call1(py, args)
    }

    fn file(&self, py: Python<'_>, report: ReportFile) -> PyResult<PyObject> {
        let events = match report.events {
            Some(events) => self.events.call1(
                py,
                (
                    events.begin,
                    events.log,
                    events.eval,
                    events.stage,
                    events.end,
                ),
            )?,
            None => py.None(),
        };
        let kind = self.member(py, report.kind.name());
        let args = (
            report.file,
            kind,
            report.valid,
            report.lines,
            events,
            report.errors,
            report.warnings,
        );
        self.file.call1(py, args)
    }
}

/// The check of a metrics file, read as it is fed: `feed(chunk)` and `finish()` give the
/// findings of the lines they complete, in order, as the contract's `ReportFinding`
/// records (the core's words: `overbrainer_core::check`); `report()` the file's
/// `ReportFile`.
///
/// `shown`: the most findings of each severity the caller shows (0: all). Past them a
/// finding is counted in the report, not made; once the errors are past it, the rejected
/// lines that follow are read for their verdict alone (`Options::terse`), the last line
/// excepted.
#[pyclass(module = "overbrainer_contract._core")]
pub struct CheckScan {
    scan: Scan<Order>,
    check: FileCheck,
    shown: Shown,
}

#[pymethods]
impl CheckScan {
    #[new]
    #[args(max_line = "None", shown = "0")]
    fn new(name: &str, max_line: Option<usize>, shown: u64) -> Self {
        Self {
            scan: Scan::new(options(max_line), Order::default()),
            check: FileCheck::new(name),
            shown: Shown::new((shown > 0).then_some(shown)),
        }
    }

    /// The lines `chunk` completes checked: `emit(finding)` for each finding, in order, and
    /// `hint(finding, token)` after one whose error lies on `NaN`, `Infinity` or `-Infinity`
    /// (when `hint` is given). The chunk is read `PIECE_LINES` lines at a time: no more
    /// findings are held at once, whatever the file.
    #[args(hint = "None")]
    fn feed(
        &mut self,
        py: Python<'_>,
        chunk: &PyBytes,
        emit: &PyAny,
        hint: Option<&PyAny>,
    ) -> PyResult<()> {
        let bytes = chunk.as_bytes();
        self.check.first_bytes(bytes);
        for piece in pieces_of_lines(bytes, PIECE_LINES) {
            let scan = &mut self.scan;
            py.allow_threads(|| run(scan, Some(piece)));
            // SAFETY: FFI edge. The objects a piece's findings make (their strings, what
            // `emit` returns) are owned by this pool and released with it, at the end of the
            // piece, not of the whole chunk; none of its references outlives the pool: the
            // findings handed to `emit` are owned (`PyObject`), the pool's own are not kept.
            let pool = unsafe { py.new_pool() };
            self.emit(pool.python(), emit, hint, None)?;
            drop(pool);
            if self.scan.splitter.stopped() {
                break;
            }
        }
        Ok(())
    }

    /// The input's end checked: the findings of its last line (no newline) and of its end
    /// (a gzip stream cut short), as `feed` gives them.
    #[args(hint = "None")]
    fn finish(&mut self, py: Python<'_>, emit: &PyAny, hint: Option<&PyAny>) -> PyResult<()> {
        let before = self.scan.lines;
        let scan = &mut self.scan;
        py.allow_threads(|| run(scan, None));
        self.emit(py, emit, hint, Some(before))
    }

    /// The one finding of a file that holds gzip data where lines should be (`stdin`:
    /// standard input); nothing more is fed.
    fn gzip_data(&mut self, py: Python<'_>, stdin: bool) -> PyResult<PyObject> {
        let finding = self.check.gzip_data(stdin);
        reports(py)?.finding(py, finding)
    }

    /// The input is a gzip stream cut short after `size` decompressed bytes: said at
    /// `finish` instead of the last line's finding.
    fn gzip_cut(&mut self, size: u64) {
        self.check.gzip_cut(size);
    }

    /// The file's summary, every finding counted.
    fn report(&self, py: Python<'_>) -> PyResult<PyObject> {
        let report = self
            .check
            .report(self.scan.lines, &self.scan.consumer.counts);
        reports(py)?.file(py, report)
    }

    /// Lines read so far.
    #[getter]
    fn lines(&self) -> u64 {
        self.scan.lines
    }

    /// Invalid lines so far: rejected, or over the bound.
    #[getter]
    fn invalid(&self) -> u64 {
        self.check.invalid
    }

    /// Whether the last line is cut short (a warning, not an invalid line).
    #[getter]
    fn cut(&self) -> bool {
        self.check.cut
    }

    /// Errors so far.
    #[getter]
    fn errors(&self) -> u64 {
        self.check.errors
    }

    /// Whether the reading stopped within a line skipped for 4 GiB without a newline.
    #[getter]
    fn stopped(&self) -> bool {
        self.scan.splitter.stopped()
    }
}

impl CheckScan {
    fn emit(
        &mut self,
        py: Python<'_>,
        emit: &PyAny,
        hint: Option<&PyAny>,
        finished: Option<u64>,
    ) -> PyResult<()> {
        let reports = reports(py)?;
        let stopped = self.scan.splitter.stopped();
        for fact in self.scan.consumer.take() {
            if let Some((finding, nonfinite)) = self.check.take_noting(fact, stopped) {
                if !self.shown.shows(finding.severity) {
                    continue;
                }
                let made = reports.finding(py, finding)?;
                emit.call1((made.clone_ref(py),))?;
                if let (Some(hint), Some(token)) = (hint, nonfinite) {
                    hint.call1((made, token))?;
                }
            }
        }
        if let Some(before) = finished {
            if let Some(finding) = self.check.finish(before, self.scan.lines) {
                if self.shown.shows(finding.severity) {
                    emit.call1((reports.finding(py, finding)?,))?;
                }
            }
        }
        if self.shown.errors_past() {
            self.scan.options.terse = true;
        }
        Ok(())
    }
}

/// The lines a run's state is made of (`status`, `watch`), read as they are fed: `feed(chunk)`
/// and `finish()` give what they complete, in order, as tuples: `("logs", [Log, ...])` (of a
/// run of consecutive logs, those the state depends on), `("line", line, model)` (any other
/// line; of a run of evaluation lines, the last), `("rejected", line,
/// ParseError, complete)`, `("over", line, size, complete, limit)` (and `("refused", line)`
/// for a line read tersely, which this scan never does).
#[pyclass(module = "overbrainer_contract._core")]
pub struct StateScan {
    scan: Scan<Notables>,
}

#[pymethods]
impl StateScan {
    #[new]
    #[args(max_line = "None")]
    fn new(max_line: Option<usize>) -> Self {
        Self {
            scan: Scan::new(options(max_line), Notables::default()),
        }
    }

    /// What the lines `chunk` completes keep.
    fn feed(&mut self, py: Python<'_>, chunk: &PyBytes) -> PyResult<PyObject> {
        let bytes = chunk.as_bytes();
        let scan = &mut self.scan;
        py.allow_threads(|| run(scan, Some(bytes)));
        self.notables(py)
    }

    /// What the input's last line keeps, when it has no newline.
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let scan = &mut self.scan;
        py.allow_threads(|| run(scan, None));
        self.notables(py)
    }

    /// Lines read so far.
    #[getter]
    fn lines(&self) -> u64 {
        self.scan.lines
    }

    /// Whether the reading stopped within a line skipped for 4 GiB without a newline.
    #[getter]
    fn stopped(&self) -> bool {
        self.scan.splitter.stopped()
    }
}

impl StateScan {
    fn notables(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let bound = bound(py)?;
        let list = PyList::empty(py);
        for notable in self.scan.consumer.take() {
            let item: PyObject = match notable {
                Notable::Logs(logs) => {
                    let models = PyList::empty(py);
                    for metric in logs {
                        models.append(model(py, bound, &MetricLine::Log(metric))?)?;
                    }
                    ("logs", models).into_py(py)
                }
                Notable::Line { line, read } => {
                    ("line", line, model(py, bound, &read)?).into_py(py)
                }
                Notable::Rejected {
                    line,
                    error,
                    complete,
                } => ("rejected", line, error_object(py, bound, &error)?, complete).into_py(py),
                Notable::Refused { line } => ("refused", line).into_py(py),
                // `StatusScan`'s report
                Notable::Scalars(_) | Notable::Alerts(_) | Notable::Digests(_) => continue,
                Notable::Over {
                    line,
                    size,
                    complete,
                    limit,
                } => ("over", line, size, complete, limit).into_py(py),
            };
            list.append(item)?;
        }
        Ok(list.into())
    }
}

/// A metrics file's table, read as it is fed: `feed(chunk)` and `finish()` give the batches
/// they complete (`batch_lines` lines each, less the lines left out; none without rows), each
/// `(rows, line, event, fields)`: the rows' line numbers (u64) and variants (i8, by index in
/// `TAGS`) as little-endian bytes, and for each field of `FIELD_NAMES`, in order,
/// `(values, validity or None, nulls)` in Arrow's layout (a stage as its i8 index in
/// `JobStage`'s order).
#[pyclass(module = "overbrainer_contract._core")]
pub struct TableScan {
    scan: Scan<Columns>,
}

#[pymethods]
impl TableScan {
    #[new]
    #[args(max_line = "None")]
    fn new(batch_lines: u64, max_line: Option<usize>) -> Self {
        Self {
            // a rejected line is left out of the table by its category alone
            scan: Scan::new(
                Options {
                    max_line,
                    terse: true,
                    unlocated: false,
                    digest: None,
                    digest_steps: None,
                },
                Columns::new(batch_lines),
            ),
        }
    }

    /// The batches `chunk` completes.
    fn feed(&mut self, py: Python<'_>, chunk: &PyBytes) -> PyResult<PyObject> {
        let bytes = chunk.as_bytes();
        let scan = &mut self.scan;
        py.allow_threads(|| run(scan, Some(bytes)));
        let batches = self.scan.consumer.take(false);
        batch_objects(py, &batches)
    }

    /// The last batches, the input's last line in.
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let scan = &mut self.scan;
        py.allow_threads(|| run(scan, None));
        let batches = self.scan.consumer.take(true);
        batch_objects(py, &batches)
    }

    /// Lines read so far.
    #[getter]
    fn lines(&self) -> u64 {
        self.scan.lines
    }

    /// Lines left out so far, by category (`LEFT_OUT`).
    #[getter]
    fn left_out<'p>(&self, py: Python<'p>) -> &'p PyTuple {
        PyTuple::new(py, self.scan.consumer.left_out)
    }

    /// The first line left out for one of those categories.
    #[getter]
    fn first_left_out(&self) -> Option<u64> {
        self.scan.consumer.first_left_out
    }

    /// Whether the last line, without its newline, is cut short (rejected `eof`): left out,
    /// counted apart; a last line no byte can mend is left out by its category.
    #[getter]
    fn cut(&self) -> bool {
        self.scan.consumer.cut
    }

    /// Whether the reading stopped within a line skipped for 4 GiB without a newline.
    #[getter]
    fn stopped(&self) -> bool {
        self.scan.splitter.stopped()
    }
}

fn le_bytes<'p, T: Copy, const N: usize>(
    py: Python<'p>,
    values: &[T],
    to: impl Fn(T) -> [u8; N],
) -> &'p PyBytes {
    let mut out = Vec::with_capacity(values.len() * N);
    for value in values {
        out.extend_from_slice(&to(*value));
    }
    PyBytes::new(py, &out)
}

fn batch_objects(py: Python<'_>, batches: &[Batch]) -> PyResult<PyObject> {
    let list = PyList::empty(py);
    for batch in batches {
        let line = le_bytes(py, &batch.line, u64::to_le_bytes);
        let event: Vec<u8> = batch
            .event
            .iter()
            .map(|each| each.to_le_bytes()[0])
            .collect();
        let fields = PyList::empty(py);
        for column in &batch.fields {
            fields.append(column_object(py, column))?;
        }
        let long = &batch.scalars;
        let scalars = (
            le_bytes(py, &long.row, u32::to_le_bytes),
            le_bytes(py, &long.key, u32::to_le_bytes),
            column_object(py, &long.value),
            long.keys.clone(),
        );
        list.append((batch.rows, line, PyBytes::new(py, &event), fields, scalars))?;
    }
    Ok(list.into())
}

/// A column as `(values, validity or None, nulls)`.
fn column_object(py: Python<'_>, column: &Column) -> PyObject {
    let validity: PyObject = if column.nulls == 0 {
        py.None()
    } else {
        PyBytes::new(py, &column.validity).into()
    };
    (PyBytes::new(py, &column.values), validity, column.nulls).into_py(py)
}

/// The names of the table's fields, in the order of `TableScan`'s columns.
pub fn field_names() -> Vec<&'static str> {
    UNION.iter().map(|(name, _)| *name).collect()
}

/// The categories of the lines a table leaves out, in the order of `TableScan.left_out`.
pub const fn left_out_names() -> [&'static str; 4] {
    LEFT_OUT
}

/// A size as the command line writes it, in the core's words (`overbrainer_core::check`):
/// what the commands say beside a report comes from there too.
#[pyfunction]
pub fn size_text(size: u64) -> String {
    overbrainer_core::check::size_text(size)
}

/// A line over the user's bound, in the core's words.
#[pyfunction]
pub fn overlong_text(size: u64, complete: bool, limit: u64) -> String {
    overbrainer_core::check::overlong_text(size, complete, limit)
}

/// A file's invalid lines and its last line cut short, in the core's words.
#[pyfunction]
pub fn lines_text(invalid: u64, cut: bool) -> String {
    overbrainer_core::check::lines_text(invalid, cut)
}

/// A followed file's change (`truncated`, `rewritten`, `replaced`, `removed`, `back`) found
/// at `path` (as the command shows it), in the core's words.
#[pyfunction]
pub fn change_text(change: &str, path: &str) -> PyResult<String> {
    match overbrainer_core::watch::FileChange::from_name(change) {
        Some(found) => Ok(found.text(path)),
        None => Err(PyValueError::new_err(format!(
            "no such change of a file: {change:?}"
        ))),
    }
}

/// gzip data where lines should be, in the core's words.
#[pyfunction]
pub fn gzip_not_named_text(stdin: bool) -> String {
    overbrainer_core::check::gzip_not_named_text(stdin)
}

/// A gzip stream cut short, in the core's words.
#[pyfunction]
pub fn gzip_cut_text(size: u64) -> String {
    overbrainer_core::check::gzip_cut_text(size)
}

//! Whole files under Python: a stream fed in chunks, each line answered by the core, on
//! every core of the machine (rayon), without the GIL; only what a command shows crosses
//! back: `check`'s facts (`CheckScan`), a table's columns (`TableScan`).

use overbrainer_core::columns::{Batch, Columns, LEFT_OUT};
use overbrainer_core::generated::{MetricLine, TAGS, UNION};
use overbrainer_core::notable::{Notable, Notables};
use overbrainer_core::order::{Fact, Order, Phase};
use overbrainer_core::scan::{parts, Consumer, Options, Part, Scan, Work};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use rayon::prelude::*;

use crate::{bound, error_object, model, rendered_path};

/// Complete lines are answered in parts, in parallel, from this many bytes on: below it the
/// threads' hand-over costs more than they save.
const PARALLEL_FROM: usize = 128 * 1024;

/// The answers of `lines` (complete lines), in order: in parts on rayon's threads when
/// there are enough of them.
fn answers<C: Consumer>(lines: &[u8], options: Options) -> Vec<Part<C::Kept>> {
    let threads = rayon::current_num_threads();
    if lines.len() < PARALLEL_FROM || threads < 2 {
        return vec![C::answer_part(lines, options)];
    }
    parts(lines, threads * 4)
        .par_iter()
        .map(|part| C::answer_part(part, options))
        .collect()
}

/// `chunk` through `scan` (the end of the input when `None`), every line answered.
fn run<C: Consumer + Send>(scan: &mut Scan<C>, chunk: Option<&[u8]>) {
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

fn options(max_line: Option<usize>) -> Options {
    Options { max_line }
}

/// The facts `check` reports on a metrics file, read as it is fed: `feed(chunk)` and
/// `finish()` give the facts of the lines they complete, in order, as tuples:
/// `("rejected", line, path, category, text, column)` (a rejected line's error as the
/// finding shows it: `str` of its `ParseError`), `("over", line, size, complete, limit)`,
/// `("order", line, tag, "before" | "after")`, `("back", line, step, last_step)`,
/// `("last", line, ParseError | None)` (the last line, without its newline).
#[pyclass(module = "overbrainer_contract_core")]
pub struct CheckScan {
    scan: Scan<Order>,
}

#[pymethods]
impl CheckScan {
    #[new]
    #[args(max_line = "None")]
    fn new(max_line: Option<usize>) -> Self {
        Self {
            scan: Scan::new(options(max_line), Order::default()),
        }
    }

    /// The facts of the lines `chunk` completes.
    fn feed(&mut self, py: Python<'_>, chunk: &PyBytes) -> PyResult<PyObject> {
        let bytes = chunk.as_bytes();
        let scan = &mut self.scan;
        py.allow_threads(|| run(scan, Some(bytes)));
        self.facts(py)
    }

    /// The facts of the input's last line, when it has no newline.
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let scan = &mut self.scan;
        py.allow_threads(|| run(scan, None));
        self.facts(py)
    }

    /// Lines read so far.
    #[getter]
    fn lines(&self) -> u64 {
        self.scan.lines
    }

    /// Lines of each variant so far, in the order of `TAGS`.
    #[getter]
    fn counts<'p>(&self, py: Python<'p>) -> &'p PyTuple {
        PyTuple::new(py, self.scan.consumer.counts)
    }

    /// Whether the reading stopped within a line skipped for 4 GiB without a newline.
    #[getter]
    fn stopped(&self) -> bool {
        self.scan.splitter.stopped()
    }
}

impl CheckScan {
    fn facts(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let bound = bound(py)?;
        let list = PyList::empty(py);
        for fact in self.scan.consumer.take() {
            let item: PyObject = match fact {
                Fact::Rejected { line, error } => (
                    "rejected",
                    line,
                    rendered_path(py, &error),
                    error.category.name(),
                    error.to_string(),
                    error.column,
                )
                    .into_py(py),
                Fact::Over {
                    line,
                    size,
                    complete,
                    limit,
                } => ("over", line, size, complete, limit).into_py(py),
                Fact::Order {
                    line,
                    variant,
                    phase,
                } => {
                    let phase = if phase == Phase::Before {
                        "before"
                    } else {
                        "after"
                    };
                    ("order", line, TAGS[variant], phase).into_py(py)
                }
                Fact::Back { line, step, last } => ("back", line, step, last).into_py(py),
                Fact::Last { line, error } => {
                    let error = match error {
                        Some(error) => error_object(py, bound, &error)?,
                        None => py.None(),
                    };
                    ("last", line, error).into_py(py)
                }
            };
            list.append(item)?;
        }
        Ok(list.into())
    }
}

/// The lines a run's state is made of (`status`, `watch`), read as they are fed: `feed(chunk)`
/// and `finish()` give what they complete, in order, as tuples: `("logs", [Log, ...])` (of a
/// run of consecutive logs, those the state depends on), `("line", line, model)` (any other
/// line; of a run of evaluation lines, the last), `("rejected", line,
/// ParseError, complete)`, `("over", line, size, complete, limit)`.
#[pyclass(module = "overbrainer_contract_core")]
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
#[pyclass(module = "overbrainer_contract_core")]
pub struct TableScan {
    scan: Scan<Columns>,
}

#[pymethods]
impl TableScan {
    #[new]
    #[args(max_line = "None")]
    fn new(batch_lines: u64, max_line: Option<usize>) -> Self {
        Self {
            scan: Scan::new(options(max_line), Columns::new(batch_lines)),
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

    /// Whether the last line, without its newline, is not a metrics line.
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

fn le_bytes<'p, T: Copy>(py: Python<'p>, values: &[T], to: impl Fn(T) -> [u8; 8]) -> &'p PyBytes {
    let mut out = Vec::with_capacity(values.len() * 8);
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
            let validity: PyObject = if column.nulls == 0 {
                py.None()
            } else {
                PyBytes::new(py, &column.validity).into()
            };
            fields.append((PyBytes::new(py, &column.values), validity, column.nulls))?;
        }
        list.append((batch.rows, line, PyBytes::new(py, &event), fields))?;
    }
    Ok(list.into())
}

/// The names of the table's fields, in the order of `TableScan`'s columns.
pub fn field_names() -> Vec<&'static str> {
    UNION.iter().map(|(name, _)| *name).collect()
}

/// The categories of the lines a table leaves out, in the order of `TableScan.left_out`.
pub const fn left_out_names() -> [&'static str; 4] {
    LEFT_OUT
}

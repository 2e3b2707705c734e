//! `overbrainer_contract._core`: the reader core under Python.
//!
//! The thin edge between the core (`overbrainer-core`) and Python: lines in (str, bytes),
//! the generated msgspec models out, `ParseError` raised as the package defines it. It knows
//! no Python module by name: `overbrainer_contract.reader` hands it the classes once
//! (`bind`), so the Python package's layout is its own.

use overbrainer_core::scalars::{Scalar, Scalars};
use overbrainer_core::{
    dump_line as dump, generated::FIELDS, generated::NAMES, lines, path_of as core_path_of,
    read_line_unlocated, read_str, read_str_unlocated, Category, JobStage, Kind, Mark, MetricLine,
    Pace as CorePace, ParseError, Value,
};
use pyo3::exceptions::{PyOverflowError, PyRuntimeError, PyTypeError};
use pyo3::once_cell::GILOnceCell;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyFloat, PyList, PyString, PyTuple};
use pyo3::{ffi, AsPyPointer};

/// The Python classes the core builds and raises, given once by `bind`.
pub(crate) struct Bound {
    /// The generated models, in the order of the core's variants.
    variants: Vec<Py<PyAny>>,
    /// The `JobStage` members, in the order of `JobStage::ALL`.
    stages: Vec<Py<PyAny>>,
    parse_error: Py<PyAny>,
    /// `StageMark`, `EvalMark`, `EndMark`.
    marks: Vec<Py<PyAny>>,
    timedelta: Py<PyAny>,
    /// msgspec's `UNSET`: an optional field left out when a model was made by hand.
    unset: Py<PyAny>,
}

static BOUND: GILOnceCell<Bound> = GILOnceCell::new();

mod names;
mod pattern;
mod scanner;
mod side;
mod status;
mod view;
mod watch;

pub(crate) fn bound(py: Python<'_>) -> PyResult<&Bound> {
    BOUND.get(py).ok_or_else(|| {
        PyRuntimeError::new_err(
            "overbrainer_contract._core is used before bind(): import overbrainer_contract.reader",
        )
    })
}

/// Hands the core the classes it builds: the models (by class name, as the core names its
/// variants), the `JobStage` enum, `ParseError`, the three mark classes, `timedelta`, and
/// msgspec's `UNSET`. A second call changes nothing.
#[pyfunction]
fn bind(
    py: Python<'_>,
    models: &PyAny,
    job_stage: &PyAny,
    parse_error: &PyAny,
    marks: (&PyAny, &PyAny, &PyAny),
    timedelta: &PyAny,
    unset: &PyAny,
) -> PyResult<()> {
    let variants = NAMES
        .iter()
        .map(|name| models.getattr(*name).map(Into::into))
        .collect::<PyResult<Vec<Py<PyAny>>>>()?;
    let stages = JobStage::ALL
        .iter()
        .map(|stage| job_stage.call1((stage.name(),)).map(Into::into))
        .collect::<PyResult<Vec<Py<PyAny>>>>()?;
    let _ = BOUND.set(
        py,
        Bound {
            variants,
            stages,
            parse_error: parse_error.into(),
            marks: vec![marks.0.into(), marks.1.into(), marks.2.into()],
            timedelta: timedelta.into(),
            unset: unset.into(),
        },
    );
    Ok(())
}

pub(crate) fn stage_index(stage: JobStage) -> usize {
    JobStage::ALL
        .iter()
        .position(|candidate| *candidate == stage)
        .unwrap_or(0)
}

/// A parsed line as its generated model: the class called with the fields in order.
///
/// The one place the binding builds objects itself (the hot path of every line): the
/// argument tuple is filled in place (`PyTuple_SetItem` takes each new reference), with no
/// vector of owned objects to drop after.
pub(crate) fn model(py: Python<'_>, bound: &Bound, line: &MetricLine) -> PyResult<PyObject> {
    // the field the reference does not know (a log's `scalars`, an end's `summary`) comes
    // after the variant's own, as the models declare it; absent, the model's default
    let extra = match line.extra() {
        Some(scalars) => Some(scalars_dict(py, scalars)?),
        None => None,
    };
    let count = FIELDS[line.variant()].len() + usize::from(extra.is_some());
    // SAFETY: FFI edge. Every pointer is checked for NULL (a raised error) before use; the
    // tuple is owned by `args` from its creation, so it is released on every path, and
    // `PyTuple_SetItem` steals the one reference each new value holds, on success or not.
    unsafe {
        let args: Py<PyTuple> =
            Py::from_owned_ptr_or_err(py, ffi::PyTuple_New(count as ffi::Py_ssize_t))?;
        let mut at: ffi::Py_ssize_t = 0;
        let mut failed = false;
        line.for_each_value(|value| {
            if failed {
                return;
            }
            let item = match value {
                Value::F64(number) | Value::OptF64(Some(number)) => ffi::PyFloat_FromDouble(number),
                Value::U64(count) | Value::OptU64(Some(count)) => {
                    ffi::PyLong_FromUnsignedLongLong(count)
                }
                Value::OptF64(None) | Value::OptU64(None) => {
                    let none = ffi::Py_None();
                    ffi::Py_INCREF(none);
                    none
                }
                Value::Stage(stage) => bound.stages[stage_index(stage)].clone_ref(py).into_ptr(),
            };
            if item.is_null() || ffi::PyTuple_SetItem(args.as_ptr(), at, item) != 0 {
                failed = true;
            }
            at += 1;
        });
        if failed {
            return Err(PyErr::fetch(py));
        }
        if let Some(extra) = extra {
            if ffi::PyTuple_SetItem(args.as_ptr(), at, extra.into_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        let class = bound.variants[line.variant()].as_ptr();
        Py::from_owned_ptr_or_err(
            py,
            ffi::PyObject_Call(class, args.as_ptr(), std::ptr::null_mut()),
        )
    }
}

/// A scalar map as the models hold it: a dict from each key, in the writer's order, to a
/// float, `None` or the word of a value that is not finite.
pub(crate) fn scalars_dict(py: Python<'_>, scalars: &Scalars) -> PyResult<PyObject> {
    let dict = PyDict::new(py);
    for (key, value) in &scalars.entries {
        match (value, value.word()) {
            (Scalar::Number(number), _) => dict.set_item(key, *number)?,
            (_, Some(word)) => dict.set_item(key, word)?,
            _ => dict.set_item(key, py.None())?,
        }
    }
    Ok(dict.into())
}

/// `ParseError(category, message, path, column, None)`, as the package defines it.
pub(crate) fn error_object(
    py: Python<'_>,
    bound: &Bound,
    error: &ParseError,
) -> PyResult<PyObject> {
    made(py, bound, error, error.rendered_path(), None)
}

/// `ParseError(category, message, None, column, line)`: an error read unlocated
/// (`read_line_unlocated`), the line it was read from kept in its path's place, which the
/// package's `ParseError.path` locates it in when it is asked for (`path_of`).
fn unlocated_object(
    py: Python<'_>,
    bound: &Bound,
    error: &ParseError,
    line: &PyAny,
) -> PyResult<PyObject> {
    made(py, bound, error, None, Some(line))
}

/// `ParseError(category, message, path, column, line)`: `line` `None` for a located error.
fn made(
    py: Python<'_>,
    bound: &Bound,
    error: &ParseError,
    path: Option<String>,
    line: Option<&PyAny>,
) -> PyResult<PyObject> {
    let category = category_name(py, error.category);
    let message = error.message.as_str();
    bound
        .parse_error
        .call1(py, (category, message, path, error.column, line))
}

/// The category's name (`Category::name`), one interned str for each.
fn category_name(py: Python<'_>, category: Category) -> &PyString {
    match category {
        Category::Io => pyo3::intern!(py, Category::Io.name()),
        Category::Syntax => pyo3::intern!(py, Category::Syntax.name()),
        Category::Data => pyo3::intern!(py, Category::Data.name()),
        Category::Eof => pyo3::intern!(py, Category::Eof.name()),
    }
}

fn raised(py: Python<'_>, bound: &Bound, error: &ParseError) -> PyErr {
    into_raised(py, error_object(py, bound, error))
}

/// The exception `made` raises (or the failure to make it).
fn into_raised(py: Python<'_>, made: PyResult<PyObject>) -> PyErr {
    match made {
        Ok(instance) => PyErr::from_value(instance.as_ref(py)),
        Err(failure) => failure,
    }
}

/// A str that is not UTF-8 (a lone surrogate): a syntax error at the first such character.
fn surrogate_error(py: Python<'_>, line: &PyString) -> ParseError {
    let start = match line.call_method1("encode", ("utf-8",)) {
        Ok(_) => 0,
        Err(error) => error
            .value(py)
            .getattr("start")
            .and_then(PyAny::extract::<usize>)
            .unwrap_or(0),
    };
    ParseError {
        category: Category::Syntax,
        message: "not UTF-8: a lone surrogate code point".to_owned(),
        column: Some(start + 1),
        path: None,
        nonfinite: None,
    }
}

/// The answer to one line of any accepted type: its model, or its `ParseError` raised with
/// the line kept to locate its path in when asked (a `bytes` or `str` as it is; a bytearray
/// or memoryview, which may change after, as a copy).
fn answer(py: Python<'_>, bound: &Bound, line: &PyAny) -> PyResult<PyObject> {
    let (parsed, kept): (_, &PyAny) = if let Ok(bytes) = line.downcast::<PyBytes>() {
        (read_line_unlocated(bytes.as_bytes()), line)
    } else if let Ok(text) = line.downcast::<PyString>() {
        match text.to_str() {
            Ok(text) => (read_str_unlocated(text), line),
            Err(_) => return Err(raised(py, bound, &surrogate_error(py, text))),
        }
    } else if let Ok(array) = line.downcast::<PyByteArray>() {
        let copy = PyBytes::new(py, &array.to_vec());
        (read_line_unlocated(copy.as_bytes()), copy.as_ref())
    } else if line.get_type().name()? == "memoryview" {
        let copy: &PyBytes = line.call_method0("tobytes")?.downcast()?;
        (read_line_unlocated(copy.as_bytes()), copy.as_ref())
    } else {
        return Err(PyTypeError::new_err(format!(
            "parse_line takes str or bytes, not {}",
            line.get_type().name()?
        )));
    };
    match parsed {
        Ok(parsed) => model(py, bound, &parsed),
        Err(error) => Err(into_raised(py, unlocated_object(py, bound, &error, kept))),
    }
}

/// The JSON path of the error `parse_line` raises for `line` (str or bytes), as the core
/// writes it; `None` where there is none (after the value, or a line it accepts). What
/// `ParseError.path` gives for an error made with its line.
#[pyfunction]
#[pyo3(text_signature = "(line, /)")]
fn path_of(line: &PyAny) -> PyResult<Option<String>> {
    let bytes = if let Ok(bytes) = line.downcast::<PyBytes>() {
        bytes.as_bytes()
    } else if let Ok(text) = line.downcast::<PyString>() {
        match text.to_str() {
            Ok(text) => text.as_bytes(),
            Err(_) => return Ok(None), // a lone surrogate: the error at it has no path
        }
    } else {
        return Err(PyTypeError::new_err(format!(
            "path_of takes str or bytes, not {}",
            line.get_type().name()?
        )));
    };
    Ok(core_path_of(bytes).map(|path| path.render()))
}

/// Parse one line of `metrics.jsonl` as the reference's `parse_line` does.
///
/// line: str | bytes (bytes-like too), its newline optional.
/// Returns Begin | Log | Stage | Eval | End (a `MetricLine`); raises `ParseError`
/// (its `category`, `path`, `column`) for a line the reference rejects.
#[pyfunction]
#[pyo3(text_signature = "(line, /)")]
fn parse_line(py: Python<'_>, line: &PyAny) -> PyResult<PyObject> {
    answer(py, bound(py)?, line)
}

/// Bodies from this size on are read ahead by another thread while this one builds the
/// models.
const PIPELINE_FROM: usize = 256 * 1024;
/// The bytes of a body answered at a time ahead of the models (cut after a newline): a few
/// thousand lines, answered in parts on every core (`scanner::in_parts`).
const WINDOW: usize = 1 << 20;

/// A line's answer in a body: its model, or its error read unlocated with the line it was
/// read from (its path is located when asked for: `unlocated_object`).
type BodyAnswer<'a> = Result<MetricLine, (ParseError, &'a [u8])>;

/// Each line of `body` answered by the core, in order, handed to `each` until it says stop
/// (`Ok(false)`) or fails. A large body is read ahead a window at a time by a thread of
/// the core's own (no Python in it: only the core's reading, of bytes the caller holds),
/// each window's lines answered on every core (`scanner::in_parts`, rayon), while this
/// thread, which holds the GIL, builds the models and takes the windows in order.
fn each_answer<'a, F>(body: &'a [u8], each: F) -> PyResult<()>
where
    F: FnMut(BodyAnswer<'a>) -> PyResult<bool>,
{
    each_answer_from(body, PIPELINE_FROM, each)
}

/// One line of a body answered.
fn body_answer(line: &[u8]) -> BodyAnswer<'_> {
    read_line_unlocated(line).map_err(|error| (error, line))
}

/// The lines of `body` answered, one window's answers in order.
fn window_answers(window: &[u8]) -> Vec<BodyAnswer<'_>> {
    scanner::in_parts(window, |part| {
        lines(part).map(body_answer).collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `each_answer`, read ahead from `threshold` bytes on.
fn each_answer_from<'a, F>(body: &'a [u8], threshold: usize, mut each: F) -> PyResult<()>
where
    F: FnMut(BodyAnswer<'a>) -> PyResult<bool>,
{
    if body.len() < threshold {
        for piece in lines(body) {
            if !each(body_answer(piece))? {
                break;
            }
        }
        return Ok(());
    }
    std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::sync_channel(4);
        scope.spawn(move || {
            for window in windows(body) {
                if sender.send(window_answers(window)).is_err() {
                    return; // the reader stopped
                }
            }
        });
        for batch in receiver {
            for answer in batch {
                if !each(answer)? {
                    return Ok(());
                }
            }
        }
        Ok(())
    })
}

/// `body` in windows of about `WINDOW` bytes, each but the last cut after a newline.
fn windows(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = body;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = if rest.len() <= WINDOW {
            rest.len()
        } else {
            memchr_newline(&rest[WINDOW - 1..]).map_or(rest.len(), |at| WINDOW + at)
        };
        let (window, after) = rest.split_at(end);
        rest = after;
        Some(window)
    })
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|byte| *byte == b'\n')
}

/// Every line of `body` as its model or its `ParseError` (made, not raised), in order: a
/// newline ends each line, and a last line without one is answered too.
///
/// body: bytes | str (bytes-like too), as `parse_line` takes a line. Returns
/// list[MetricLine | ParseError].
#[pyfunction]
#[pyo3(text_signature = "(body, /)")]
fn parse_lines(py: Python<'_>, body: &PyAny) -> PyResult<PyObject> {
    let bound = bound(py)?;
    if let Ok(bytes) = body.downcast::<PyBytes>() {
        return answers(py, bound, bytes.as_bytes());
    }
    if let Ok(text) = body.downcast::<PyString>() {
        return match text.to_str() {
            Ok(text) => answers(py, bound, text.as_bytes()),
            Err(_) => answers_of_surrogates(py, bound, text),
        };
    }
    if let Ok(array) = body.downcast::<PyByteArray>() {
        return answers(py, bound, &array.to_vec());
    }
    if body.get_type().name()? == "memoryview" {
        let bytes: &PyBytes = body.call_method0("tobytes")?.downcast()?;
        return answers(py, bound, bytes.as_bytes());
    }
    Err(PyTypeError::new_err(format!(
        "parse_lines takes bytes or str, not {}",
        body.get_type().name()?
    )))
}

/// The answers to the lines of `body`, as `parse_lines` gives them.
fn answers(py: Python<'_>, bound: &Bound, body: &[u8]) -> PyResult<PyObject> {
    let list = PyList::empty(py);
    each_answer(body, |answer| {
        list.append(answer_object(py, bound, answer)?)
            .map(|()| true)
    })?;
    Ok(list.into())
}

/// A line's answer in a body as `parse_lines` gives it: its model, or its `ParseError`.
fn answer_object(py: Python<'_>, bound: &Bound, answer: BodyAnswer<'_>) -> PyResult<PyObject> {
    match answer {
        Ok(line) => model(py, bound, &line),
        Err((error, line)) => unlocated_object(py, bound, &error, PyBytes::new(py, line)),
    }
}

/// A str that is not UTF-8 throughout (a lone surrogate somewhere): answered a line at a
/// time, each line as `parse_line` answers it — a line holding a surrogate is the syntax
/// error at its first one, the others are read as they are.
fn answers_of_surrogates(py: Python<'_>, bound: &Bound, body: &PyString) -> PyResult<PyObject> {
    let list = PyList::empty(py);
    let pieces: &PyList = body.call_method1("split", ("\n",))?.downcast()?;
    let count = pieces.len();
    for (at, piece) in pieces.iter().enumerate() {
        let piece: &PyString = piece.downcast()?;
        let text = piece.to_str();
        if at + 1 == count && matches!(text, Ok("")) {
            break; // the newline that ends the last line begins no line
        }
        let item = match text {
            Ok(text) => match read_str(text) {
                Ok(line) => model(py, bound, &line)?,
                Err(error) => error_object(py, bound, &error)?,
            },
            Err(_) => error_object(py, bound, &surrogate_error(py, piece))?,
        };
        list.append(item)?;
    }
    Ok(list.into())
}

fn absent(bound: &Bound, value: &PyAny) -> bool {
    value.is_none() || value.is(bound.unset.as_ref(value.py()))
}

/// A value of a model's field as the core's `Value` of `kind`.
fn field_value(bound: &Bound, kind: Kind, value: &PyAny) -> PyResult<Value> {
    Ok(match kind {
        Kind::F64 => Value::F64(value.extract()?),
        Kind::U64 => Value::U64(value.extract()?),
        Kind::OptF64 if absent(bound, value) => Value::OptF64(None),
        Kind::OptF64 => Value::OptF64(Some(value.extract()?)),
        Kind::OptU64 if absent(bound, value) => Value::OptU64(None),
        Kind::OptU64 => Value::OptU64(Some(value.extract()?)),
        Kind::Stage => {
            let py = value.py();
            let at = bound
                .stages
                .iter()
                .position(|stage| value.is(stage.as_ref(py)));
            match at {
                Some(at) => Value::Stage(JobStage::ALL[at]),
                None => {
                    return Err(PyTypeError::new_err(format!(
                        "a job stage must be a JobStage, not {}",
                        value.repr()?
                    )))
                }
            }
        }
    })
}

/// The core's line for a model (`Begin`, `Log`, `Stage`, `Eval`, `End`).
fn from_model(bound: &Bound, line: &PyAny, what: &str) -> PyResult<MetricLine> {
    let py = line.py();
    let class = line.get_type();
    let variant = bound
        .variants
        .iter()
        .position(|model| class.is(model.as_ref(py)))
        .ok_or_else(|| {
            PyTypeError::new_err(format!(
                "{what} takes a metrics line ({}), not {}",
                NAMES.join(", "),
                class.name().unwrap_or("?")
            ))
        })?;
    let values = FIELDS[variant]
        .iter()
        .map(|(name, kind)| field_value(bound, *kind, line.getattr(*name)?))
        .collect::<PyResult<Vec<Value>>>()?;
    MetricLine::from_values(variant, &values)
        .ok_or_else(|| PyRuntimeError::new_err("the core's tables disagree with its types"))
}

/// The canonical JSON of a parsed line, as the reference's `serde_json::to_string` writes it.
///
/// line: MetricLine (Begin | Log | Stage | Eval | End). Returns str, without a newline.
#[pyfunction]
#[pyo3(text_signature = "(line, /)")]
fn dump_line(py: Python<'_>, line: &PyAny) -> PyResult<String> {
    Ok(dump(&from_model(bound(py)?, line, "dump_line")?))
}

/// The mark of a stage, evaluation or end line, without its time; `None` for `begin` and
/// `log` lines (the reference's `MetricLine::mark`).
///
/// line: MetricLine. Returns StageMark | EvalMark | EndMark | None.
#[pyfunction]
#[pyo3(text_signature = "(line, /)")]
fn mark(py: Python<'_>, line: &PyAny) -> PyResult<PyObject> {
    let bound = bound(py)?;
    Ok(match from_model(bound, line, "mark")?.mark() {
        None => py.None(),
        Some(Mark::Stage(stage)) => {
            bound.marks[0].call1(py, (bound.stages[stage_index(stage)].clone_ref(py),))?
        }
        Some(Mark::Eval { step, total }) => bound.marks[1].call1(py, (step, total))?,
        Some(Mark::End { step }) => bound.marks[2].call1(py, (step,))?,
    })
}

/// The pace of a training, from its logs in order: steps per second between the first and
/// the latest training log (the ones with a loss), on the plugin's own clock, and the time
/// left at that pace (the reference's `Pace`).
///
/// Pace() -> Pace; `add(log: Log)`, `add_logs(logs: Iterable[Log])`; `step: int`,
/// `max_steps: int | None`; `eta() -> timedelta | None`, `eta_seconds() -> float | None`,
/// `eta_duration() -> tuple[int, int] | None`.
#[pyclass(module = "overbrainer_contract", name = "Pace", text_signature = "()")]
#[derive(Clone, Default)]
struct Pace {
    inner: CorePace,
}

/// The TypeError of `Pace.add` given a line that is not a log: what it takes, and what came.
fn not_a_log(metric: &PyAny) -> PyErr {
    let kind = metric
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), str::to_owned);
    PyTypeError::new_err(format!(
        "Pace.add takes a Log (a training log line: step, max_steps, loss, time), not {kind}"
    ))
}

fn optional<'p, T: FromPyObject<'p>>(bound: &Bound, value: &'p PyAny) -> PyResult<Option<T>> {
    if absent(bound, value) {
        Ok(None)
    } else {
        value.extract().map(Some)
    }
}

#[pymethods]
impl Pace {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Take the next log `metric` into account.
    ///
    /// metric: Log (a training log line; anything with its `step`, `max_steps`, `loss` and
    /// `time`). Another line (Begin, Eval, Stage, End) is a TypeError.
    #[pyo3(text_signature = "($self, metric, /)")]
    fn add(&mut self, py: Python<'_>, metric: &PyAny) -> PyResult<()> {
        let bound = bound(py)?;
        let field = |name: &str| -> PyResult<&PyAny> {
            metric.getattr(name).map_err(|_| not_a_log(metric))
        };
        let step: u64 = field("step")?.extract()?;
        let max_steps: Option<u64> = optional(bound, field("max_steps")?)?;
        let loss: Option<f64> = optional(bound, field("loss")?)?;
        let time: f64 = field("time")?.extract()?;
        self.inner.add_values(step, max_steps, loss, time);
        Ok(())
    }

    /// Take the next logs, in order, into account: what `add` on each in turn does, by `add`
    /// on the few that decide it, in order (`watch` on a block read whole): the first with a
    /// loss, the last with a loss, the last with a step count, the last.
    ///
    /// logs: Iterable[Log].
    #[pyo3(text_signature = "($self, logs, /)")]
    fn add_logs(&mut self, py: Python<'_>, logs: &PyAny) -> PyResult<()> {
        let bound = bound(py)?;
        let logs = logs.iter()?.collect::<PyResult<Vec<&PyAny>>>()?;
        let has = |log: &PyAny, name: &str| -> PyResult<bool> {
            Ok(!absent(
                bound,
                log.getattr(name).map_err(|_| not_a_log(log))?,
            ))
        };
        let mut deciding: Vec<usize> = Vec::with_capacity(4);
        for (at, log) in logs.iter().enumerate() {
            if has(log, "loss")? {
                deciding.push(at);
                break;
            }
        }
        for (at, log) in logs.iter().enumerate().rev() {
            if has(log, "loss")? {
                deciding.push(at);
                break;
            }
        }
        for (at, log) in logs.iter().enumerate().rev() {
            if has(log, "max_steps")? {
                deciding.push(at);
                break;
            }
        }
        if !logs.is_empty() {
            deciding.push(logs.len() - 1);
        }
        deciding.sort_unstable();
        deciding.dedup();
        for at in deciding {
            self.add(py, logs[at])?;
        }
        Ok(())
    }

    /// Latest step, of any log.
    #[getter]
    fn step(&self) -> u64 {
        self.inner.step()
    }

    /// Total steps of the run, as last given.
    #[getter]
    fn max_steps(&self) -> Option<u64> {
        self.inner.max_steps()
    }

    /// The reference's `eta()` exactly: (seconds, nanoseconds), or None until two training
    /// logs apart in steps and time, or without a step count.
    fn eta_duration(&self) -> Option<(u64, u32)> {
        self.inner
            .eta()
            .map(|eta| (eta.as_secs(), eta.subsec_nanos()))
    }

    /// The time left in seconds (`Duration::as_secs_f64`), or None.
    fn eta_seconds(&self) -> Option<f64> {
        self.inner.eta().map(|eta| eta.as_secs_f64())
    }

    /// The time left as a `timedelta` (to the microsecond), or None. A duration beyond
    /// `timedelta.max` (about 2.7 million years) is clamped to it; `eta_duration` keeps the
    /// exact value.
    fn eta(&self, py: Python<'_>) -> PyResult<PyObject> {
        let eta = match self.inner.eta() {
            None => return Ok(py.None()),
            Some(eta) => eta,
        };
        let timedelta = bound(py)?.timedelta.as_ref(py);
        let micros = f64::from(eta.subsec_nanos()) / 1000.0;
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("seconds", eta.as_secs())?;
        kwargs.set_item("microseconds", micros)?;
        match timedelta.call((), Some(kwargs)) {
            Ok(value) => Ok(value.into()),
            Err(error) if error.is_instance_of::<PyOverflowError>(py) => {
                Ok(timedelta.getattr("max")?.into())
            }
            Err(error) => Err(error),
        }
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &PyAny) -> Self {
        self.clone()
    }

    fn __repr__(&self) -> String {
        let max_steps = self
            .inner
            .max_steps()
            .map_or_else(|| "None".to_owned(), |steps| steps.to_string());
        let eta = self
            .eta_seconds()
            .map_or_else(|| "None".to_owned(), float_repr);
        format!(
            "Pace(step={}, max_steps={max_steps}, eta={eta})",
            self.inner.step()
        )
    }
}

/// A float as Python's `repr` writes it (shortest digits that read back).
fn float_repr(value: f64) -> String {
    Python::with_gil(|py| {
        PyFloat::new(py, value)
            .repr()
            .map(|repr| repr.to_string())
            .unwrap_or_else(|_| value.to_string())
    })
}

#[pymodule]
fn _core(_py: Python<'_>, module: &PyModule) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(bind, module)?)?;
    module.add_function(wrap_pyfunction!(parse_line, module)?)?;
    module.add_function(wrap_pyfunction!(path_of, module)?)?;
    module.add_function(wrap_pyfunction!(parse_lines, module)?)?;
    module.add_function(wrap_pyfunction!(dump_line, module)?)?;
    module.add_function(wrap_pyfunction!(mark, module)?)?;
    module.add_class::<Pace>()?;
    module.add_class::<pattern::Pattern>()?;
    names::add(module)?;
    module.add_class::<scanner::CheckScan>()?;
    module.add_function(wrap_pyfunction!(scanner::bind_reports, module)?)?;
    for text in [
        wrap_pyfunction!(scanner::size_text, module)?,
        wrap_pyfunction!(scanner::overlong_text, module)?,
        wrap_pyfunction!(scanner::lines_text, module)?,
        wrap_pyfunction!(scanner::change_text, module)?,
        wrap_pyfunction!(scanner::gzip_not_named_text, module)?,
        wrap_pyfunction!(scanner::gzip_cut_text, module)?,
    ] {
        module.add_function(text)?;
    }
    module.add("BOM_NOTE", overbrainer_core::check::BOM_NOTE)?;
    module.add("SHOWN_DEFAULT", overbrainer_core::check::SHOWN_DEFAULT)?;
    module.add_class::<scanner::TableScan>()?;
    module.add_class::<scanner::StateScan>()?;
    module.add_class::<scanner::LineScan>()?;
    module.add_class::<status::StatusScan>()?;
    module.add_class::<status::PyEstimate>()?;
    module.add_function(wrap_pyfunction!(status::estimate, module)?)?;
    module.add_function(wrap_pyfunction!(status::stale_after, module)?)?;
    module.add_function(wrap_pyfunction!(status::step_seconds, module)?)?;
    view::add(module)?;
    side::add(module)?;
    module.add_class::<watch::WatchScan>()?;
    module.add_class::<watch::StageStarted>()?;
    module.add_class::<watch::TrainingBegan>()?;
    module.add_class::<watch::EvaluationStarted>()?;
    module.add_class::<watch::EvaluationEnded>()?;
    module.add_class::<watch::EvaluationResult>()?;
    module.add_class::<watch::TrainingEnded>()?;
    module.add_class::<watch::LineRejected>()?;
    module.add_class::<watch::LineOver>()?;
    module.add("FIELD_NAMES", PyTuple::new(_py, scanner::field_names()))?;
    module.add("LEFT_OUT", PyTuple::new(_py, scanner::left_out_names()))?;
    module.add("SKIP_LIMIT", overbrainer_core::split::SKIP_LIMIT)?;
    module.add(
        "TAGS",
        PyTuple::new(_py, overbrainer_core::generated::TAGS.iter()),
    )?;
    Ok(())
}

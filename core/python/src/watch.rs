//! `watch` under Python: a run's metrics file fed as it grows, its lines answered by the core
//! on every core (the scan of `scanner`), folded by the core (`overbrainer_core::watch`): the
//! events its lines are worth telling, as typed records, and its state told at a time as the
//! contract's `StatusReport` (the fold `status` reports).

use overbrainer_core::notable::Notables;
use overbrainer_core::scan::{Options, Scan};
use overbrainer_core::watch::{Event, Watch};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::scanner::run;
use crate::status::PyEstimate;
use crate::{bound, error_object, stage_index};

/// A stage began; `last`: the job's last stage (the job is done, the lines after it unread).
#[pyclass(module = "overbrainer_contract._core")]
pub struct StageStarted {
    /// What `watch` says of it, the core's words (`view::event_words`).
    #[pyo3(get)]
    words: String,
    #[pyo3(get)]
    line: u64,
    /// The stage, a `JobStage`.
    #[pyo3(get)]
    stage: PyObject,
    #[pyo3(get)]
    last: bool,
}

/// A training began (a `begin` line); `resumed`: after an earlier one, going on from `step`.
#[pyclass(module = "overbrainer_contract._core")]
pub struct TrainingBegan {
    /// What `watch` says of it, the core's words (`view::event_words`).
    #[pyo3(get)]
    words: String,
    #[pyo3(get)]
    line: u64,
    #[pyo3(get)]
    max_steps: Option<u64>,
    #[pyo3(get)]
    resumed: bool,
    #[pyo3(get)]
    step: u64,
}

/// An evaluation started (an `eval` line with none under way), at the training's step.
#[pyclass(module = "overbrainer_contract._core")]
pub struct EvaluationStarted {
    /// What `watch` says of it, the core's words (`view::event_words`).
    #[pyo3(get)]
    words: String,
    #[pyo3(get)]
    step: u64,
}

/// The evaluation under way ended (its result logged, a stage or the training's end), at
/// the training's `step`: `done` prediction steps of `total` when known.
#[pyclass(module = "overbrainer_contract._core")]
pub struct EvaluationEnded {
    /// What `watch` says of it, the core's words (`view::event_words`).
    #[pyo3(get)]
    words: String,
    #[pyo3(get)]
    step: u64,
    #[pyo3(get)]
    done: u64,
    #[pyo3(get)]
    total: Option<u64>,
}

/// An evaluation's result: a log with an evaluation loss.
#[pyclass(module = "overbrainer_contract._core")]
pub struct EvaluationResult {
    /// What `watch` says of it, the core's words (`view::event_words`).
    #[pyo3(get)]
    words: String,
    #[pyo3(get)]
    step: u64,
    #[pyo3(get)]
    eval_loss: f64,
}

/// The training ended (an `end` line) at `step`.
#[pyclass(module = "overbrainer_contract._core")]
pub struct TrainingEnded {
    /// What `watch` says of it, the core's words (`view::event_words`).
    #[pyo3(get)]
    words: String,
    #[pyo3(get)]
    line: u64,
    #[pyo3(get)]
    step: u64,
}

/// A line the reference rejects: its `ParseError`.
#[pyclass(module = "overbrainer_contract._core")]
pub struct LineRejected {
    /// What `watch` says of it, the core's words (`view::event_words`).
    #[pyo3(get)]
    words: String,
    #[pyo3(get)]
    line: u64,
    #[pyo3(get)]
    error: PyObject,
}

/// A line over the user's bound (`limit` bytes): `size` bytes, so far when not `complete`.
#[pyclass(module = "overbrainer_contract._core")]
pub struct LineOver {
    /// What `watch` says of it, the core's words (`view::event_words`).
    #[pyo3(get)]
    words: String,
    #[pyo3(get)]
    line: u64,
    #[pyo3(get)]
    size: u64,
    #[pyo3(get)]
    complete: bool,
    #[pyo3(get)]
    limit: usize,
}

/// A run followed as its metrics file grows: `feed(chunk)` for each chunk in order gives
/// the events of the lines it completes (`finish()` those of a last line without its
/// newline); `report(run, name, now)` the JSON of its `StatusReport` at `now`;
/// `estimate(now)` the time left and the mean time a step takes; `elapsed(now)` the
/// training's time.
#[pyclass(module = "overbrainer_contract._core")]
pub struct WatchScan {
    scan: Scan<Notables>,
    watch: Watch,
}

#[pymethods]
impl WatchScan {
    #[new]
    #[args(max_line = "None")]
    fn new(max_line: Option<usize>) -> Self {
        Self {
            scan: Scan::new(
                Options {
                    max_line,
                    terse: false,
                    unlocated: false,
                    digest: None,
                    digest_steps: None,
                },
                Notables::default(),
            ),
            watch: Watch::new(),
        }
    }

    /// The events of the lines `chunk` completes, in order.
    fn feed(&mut self, py: Python<'_>, chunk: &PyBytes) -> PyResult<PyObject> {
        let bytes = chunk.as_bytes();
        let (scan, watch) = (&mut self.scan, &mut self.watch);
        let events = py.allow_threads(|| {
            watch.first_bytes(bytes);
            run(scan, Some(bytes));
            watch.take_from(scan)
        });
        event_objects(py, events)
    }

    /// The events of the input's last line, when it has no newline.
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let (scan, watch) = (&mut self.scan, &mut self.watch);
        let events = py.allow_threads(|| {
            run(scan, None);
            watch.take_from(scan)
        });
        event_objects(py, events)
    }

    /// The state told at `now` (seconds since the epoch, the lines' clock) as the JSON of
    /// its `StatusReport`, `run` and `name` as the run is named (no snapshot files read).
    fn report<'p>(&self, py: Python<'p>, run: &str, name: &str, now: f64) -> PyResult<&'p PyBytes> {
        finite(now)?;
        let report = self.watch.report(run, name, now, None, true);
        let json = serde_json::to_vec(&report)
            .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
        Ok(PyBytes::new(py, &json))
    }

    /// The JSON of the run's `alerts` told at `now`, as `report` holds them (no snapshot
    /// files read), without the rest of the record.
    fn alerts<'p>(&self, py: Python<'p>, now: f64) -> PyResult<&'p PyBytes> {
        finite(now)?;
        let json = serde_json::to_vec(&self.watch.alerts(now))
            .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
        Ok(PyBytes::new(py, &json))
    }

    /// The time left at `now` and whether it holds; once ended, nothing left and the mean
    /// time a step took over the whole training.
    fn estimate(&self, now: f64) -> PyResult<PyEstimate> {
        finite(now)?;
        Ok(PyEstimate::from(self.watch.estimate(now)))
    }

    /// Seconds the training took (to its `end` line), or has taken until `now`.
    fn elapsed(&self, now: f64) -> PyResult<Option<f64>> {
        finite(now)?;
        Ok(self.watch.elapsed(now))
    }

    /// Whether the training is over: it ended, or a stage after training began.
    #[getter]
    fn training_over(&self) -> bool {
        self.watch.training_over()
    }

    /// Whether the job's last stage began.
    #[getter]
    fn job_done(&self) -> bool {
        self.watch.job_done()
    }

    /// Lines read so far (up to the job's last stage, once it began).
    #[getter]
    fn lines(&self) -> u64 {
        self.watch.state().lines
    }

    /// Whether the reading stopped within a line skipped for 4 GiB without a newline.
    #[getter]
    fn stopped(&self) -> bool {
        self.scan.splitter.stopped()
    }
}

fn finite(now: f64) -> PyResult<()> {
    if now.is_finite() {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "now must be a finite number of seconds, not {now}"
        )))
    }
}

/// The events as their Python records, in order.
fn event_objects(py: Python<'_>, events: Vec<Event>) -> PyResult<PyObject> {
    let bound = bound(py)?;
    let list = PyList::empty(py);
    for event in events {
        let words = overbrainer_core::view::event_words(&event);
        let object: PyObject = match event {
            Event::Stage { line, stage, last } => {
                let stage = bound.stages[stage_index(stage)].clone_ref(py);
                Py::new(
                    py,
                    StageStarted {
                        line,
                        stage,
                        last,
                        words,
                    },
                )?
                .into_py(py)
            }
            Event::Began {
                line,
                max_steps,
                resumed,
                step,
            } => Py::new(
                py,
                TrainingBegan {
                    line,
                    max_steps,
                    resumed,
                    step,
                    words,
                },
            )?
            .into_py(py),
            Event::EvaluationStarted { step } => {
                Py::new(py, EvaluationStarted { step, words })?.into_py(py)
            }
            Event::EvaluationEnded { step, done, total } => Py::new(
                py,
                EvaluationEnded {
                    step,
                    done,
                    total,
                    words,
                },
            )?
            .into_py(py),
            Event::EvalLoss { step, value } => Py::new(
                py,
                EvaluationResult {
                    step,
                    eval_loss: value,
                    words,
                },
            )?
            .into_py(py),
            Event::Ended { line, step } => {
                Py::new(py, TrainingEnded { line, step, words })?.into_py(py)
            }
            Event::Rejected { line, error } => {
                let error = error_object(py, bound, &error)?;
                Py::new(py, LineRejected { line, error, words })?.into_py(py)
            }
            Event::Over {
                line,
                size,
                complete,
                limit,
            } => Py::new(
                py,
                LineOver {
                    line,
                    size,
                    complete,
                    limit,
                    words,
                },
            )?
            .into_py(py),
        };
        list.append(object)?;
    }
    Ok(list.into())
}

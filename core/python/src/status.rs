//! `status` under Python: a run's metrics file fed in chunks, its lines answered by the core
//! on every core (the scan of `scanner`), folded into the run's state by the core
//! (`overbrainer_core::status`), and that state told at a time as the contract's
//! `StatusReport`, written by serde as the JSON of `schema/status-report.schema.json`; the
//! time left and whether it is stale by the same rule for `watch` (`estimate`).

use overbrainer_core::names::patterns_of;
use overbrainer_core::notable::Notables;
use overbrainer_core::reports::SnapshotState;
use overbrainer_core::scan::{Options, Scan};
use overbrainer_core::status::{self, Estimate, RunState};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::scanner::run;

/// A run's state, read as its metrics file is fed: `feed(chunk)` for each chunk in order,
/// `finish()` at the end of the input (`gzip_cut()` when it was a gzip stream cut short),
/// then `report(run, name, now, snapshot, side_valid)`: the JSON of its `StatusReport`.
#[pyclass(module = "overbrainer_contract._core")]
pub struct StatusScan {
    scan: Scan<Notables>,
    state: RunState,
}

#[pymethods]
impl StatusScan {
    #[new]
    #[args(max_line = "None", digest = "None", steps = "None", keys = "None")]
    fn new(
        max_line: Option<usize>,
        digest: Option<usize>,
        steps: Option<(u64, u64)>,
        keys: Option<&str>,
    ) -> Self {
        let options = Options {
            max_line,
            // a complete line rejected is counted: its words are no part of the state
            terse: true,
            unlocated: false,
            digest,
            digest_steps: steps,
        };
        let mut state = RunState::new();
        if let Some(keys) = keys {
            state.digest_only(&patterns_of(keys));
        }
        Self {
            scan: Scan::new(options, Notables::of(options)),
            state,
        }
    }

    /// The lines `chunk` completes, folded into the state.
    fn feed(&mut self, py: Python<'_>, chunk: &PyBytes) {
        let bytes = chunk.as_bytes();
        let (scan, state) = (&mut self.scan, &mut self.state);
        py.allow_threads(|| {
            state.first_bytes(bytes);
            run(scan, Some(bytes));
            state.take_from(scan);
        });
    }

    /// The input's last line, when it has no newline, folded into the state.
    fn finish(&mut self, py: Python<'_>) {
        let (scan, state) = (&mut self.scan, &mut self.state);
        py.allow_threads(|| {
            run(scan, None);
            state.take_from(scan);
        });
    }

    /// The input was a gzip stream cut short: the lines fed are those before the cut.
    fn gzip_cut(&mut self) {
        self.state.gzip_cut();
    }

    /// The logs' series digested for a plot (the scan made with `digest`: at most that many
    /// buckets a key), of `keys` (every key when None), as JSON bytes: `{KEY: {"shift",
    /// "count", "points": [[STEP, VALUE, TIME], ...]}}` (`overbrainer_core::digest`); `{}` without
    /// `digest`.
    #[args(keys = "None")]
    fn digests<'p>(&self, py: Python<'p>, keys: Option<Vec<String>>) -> PyResult<&'p PyBytes> {
        let json = match self.state.digests() {
            Some(digests) => digests.json(keys.as_deref()),
            None => serde_json::Value::Object(serde_json::Map::new()),
        };
        let bytes = serde_json::to_vec(&json)
            .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The state told at `now` (seconds since the epoch, the lines' clock) as the JSON of
    /// its `StatusReport`: `run` and `name` as the run is named, `snapshot` the JSON of the
    /// run folder's `SnapshotState` (None for a run read from a file alone), `side_valid`
    /// whether its snapshot files are valid.
    #[args(snapshot = "None", side_valid = "true")]
    fn report<'p>(
        &self,
        py: Python<'p>,
        run: &str,
        name: &str,
        now: f64,
        snapshot: Option<&PyBytes>,
        side_valid: bool,
    ) -> PyResult<&'p PyBytes> {
        if !now.is_finite() {
            return Err(PyValueError::new_err(format!(
                "now must be a finite number of seconds, not {now}"
            )));
        }
        let snapshot: Option<SnapshotState> = match snapshot {
            None => None,
            Some(json) => Some(serde_json::from_slice(json.as_bytes()).map_err(|error| {
                PyValueError::new_err(format!("snapshot is not a SnapshotState: {error}"))
            })?),
        };
        let report = self.state.report(run, name, now, snapshot, side_valid);
        let json = serde_json::to_vec(&report)
            .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
        Ok(PyBytes::new(py, &json))
    }

    /// Lines read so far.
    #[getter]
    fn lines(&self) -> u64 {
        self.state.lines
    }

    /// Lines the reference rejects so far, and lines over the bound.
    #[getter]
    fn invalid(&self) -> u64 {
        self.state.invalid
    }

    /// Whether the last line is cut short (no newline, and the reference finds it cut).
    #[getter]
    fn partial(&self) -> bool {
        self.state.partial
    }

    /// Whether the input begins with a UTF-8 byte order mark.
    #[getter]
    fn bom(&self) -> bool {
        self.state.bom
    }

    /// Whether the reading stopped within a line skipped for 4 GiB without a newline.
    #[getter]
    fn stopped(&self) -> bool {
        self.scan.splitter.stopped()
    }
}

/// The time left at a time and whether it holds (`overbrainer_core::status::Estimate`):
/// `remaining`, `stale`, `silence`, `step_seconds`.
#[pyclass(module = "overbrainer_contract._core", name = "Estimate")]
pub struct PyEstimate {
    inner: Estimate,
}

impl From<Estimate> for PyEstimate {
    fn from(inner: Estimate) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl PyEstimate {
    /// Seconds left (the ETA less the time since it was measured, at least 0); None
    /// without an ETA or when stale.
    #[getter]
    fn remaining(&self) -> Option<f64> {
        self.inner.remaining
    }

    /// Whether the run has been silent for much longer than its pace predicts.
    #[getter]
    fn stale(&self) -> bool {
        self.inner.stale
    }

    /// Seconds since the last line, at least 0 (None without one).
    #[getter]
    fn silence(&self) -> Option<f64> {
        self.inner.silence
    }

    /// The pace's mean time a step takes, when it can be told.
    #[getter]
    fn step_seconds(&self) -> Option<f64> {
        self.inner.step_seconds
    }
}

/// The time left at `now` and whether it is stale, by the contract's rule: `eta_seconds` the
/// pace's ETA, `steps_left` its total steps less its step, `measured_at` the time of its
/// latest training log, `last_time` the time of the run's last line of any kind.
#[pyfunction]
#[pyo3(text_signature = "(eta_seconds, steps_left, measured_at, last_time, now, /)")]
pub fn estimate(
    eta_seconds: Option<f64>,
    steps_left: Option<u64>,
    measured_at: Option<f64>,
    last_time: Option<f64>,
    now: f64,
) -> PyEstimate {
    PyEstimate {
        inner: status::estimate(eta_seconds, steps_left, measured_at, last_time, now),
    }
}

/// The silence (seconds) after which an ETA is stale, by the contract's rule.
#[pyfunction]
#[pyo3(text_signature = "(step_seconds, /)")]
pub fn stale_after(step_seconds: Option<f64>) -> f64 {
    status::stale_after(step_seconds)
}

/// The pace's mean time a step takes, from its ETA and the steps left; None when either is
/// unknown or no step is left.
#[pyfunction]
#[pyo3(text_signature = "(eta_seconds, steps_left, /)")]
pub fn step_seconds(eta_seconds: Option<f64>, steps_left: Option<u64>) -> Option<f64> {
    status::step_seconds(eta_seconds, steps_left)
}

//! A run folder's side files (`overbrainer_core::side`) under Python: `check`'s findings of
//! `snapshot.json` and `snapshot.request`, the snapshot part of a status record, a proof's
//! problems and whether a reason is one word. The face opens the files; the core reads
//! their bytes. Records go out as their JSON, which the face decodes into its models.

use overbrainer_core::reports::FileKind;
use overbrainer_core::side::{self, SideFile};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The kind of a side file by its schema name: `snapshot` or `snapshot-request`.
fn kind_of(kind: &str) -> PyResult<FileKind> {
    match kind {
        "snapshot" => Ok(FileKind::Snapshot),
        "snapshot-request" => Ok(FileKind::SnapshotRequest),
        other => Err(PyValueError::new_err(format!(
            "not a side file's kind: {other:?}"
        ))),
    }
}

fn json(py: Python<'_>, made: serde_json::Result<Vec<u8>>) -> PyResult<PyObject> {
    made.map(|bytes| PyBytes::new(py, &bytes).into_py(py))
        .map_err(|error| PyValueError::new_err(error.to_string()))
}

/// What `check` finds in a side file's bytes, named `file`: the JSON of `[findings,
/// summary]` (a list of `ReportFinding`, a `ReportFile`). ValueError with the words of a
/// file over the contract's `max_bytes`.
///
/// side_check(kind: str, file: str, data: bytes) -> bytes
#[pyfunction]
fn side_check(py: Python<'_>, kind: &str, file: &str, data: &[u8]) -> PyResult<PyObject> {
    let kind = kind_of(kind)?;
    let checked = side::check_side(kind, file, data).map_err(PyValueError::new_err)?;
    json(py, serde_json::to_vec(&checked))
}

/// What the face found of a side file: None (absent), a str (refused, its words), or
/// `(bytes, mtime)` (read; seconds since the epoch).
#[derive(FromPyObject)]
enum Found<'a> {
    Read(&'a [u8], f64),
    Refused(&'a str),
}

fn found<'a>(given: &'a Option<Found<'a>>) -> SideFile<'a> {
    match given {
        None => SideFile::Absent,
        Some(Found::Refused(words)) => SideFile::Refused(words),
        Some(Found::Read(bytes, mtime)) => SideFile::Read {
            bytes,
            mtime: *mtime,
        },
    }
}

/// The JSON of the `SnapshotState` of a run folder whose request and proof are each None
/// (absent), a str (refused by the face, its words) or `(bytes, mtime)`.
///
/// snapshot_state(request: tuple[bytes, float] | str | None, proof: same) -> bytes
#[pyfunction]
fn snapshot_state(
    py: Python<'_>,
    request: Option<Found<'_>>,
    proof: Option<Found<'_>>,
) -> PyResult<PyObject> {
    let state = side::snapshot_state(found(&request), found(&proof));
    json(py, serde_json::to_vec(&state))
}

/// Every problem of a proof's bytes, `(JSON path, message)`, in serde's words; empty for a
/// valid proof.
///
/// proof_problems(data: bytes) -> list[tuple[str, str]]
#[pyfunction]
fn proof_problems(data: &[u8]) -> Vec<(String, String)> {
    match side::read_proof(data) {
        Ok(_) => Vec::new(),
        Err(problems) => problems
            .into_iter()
            .map(|problem| (problem.path, problem.message))
            .collect(),
    }
}

/// Whether `text` is one word, a snapshot's reason (the schema's `Word`).
///
/// is_word(text: str) -> bool
#[pyfunction]
fn is_word(text: &str) -> bool {
    side::is_word(text)
}

/// The side files' functions and limits, added to the module.
pub(crate) fn add(module: &PyModule) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(side_check, module)?)?;
    module.add_function(wrap_pyfunction!(snapshot_state, module)?)?;
    module.add_function(wrap_pyfunction!(proof_problems, module)?)?;
    module.add_function(wrap_pyfunction!(is_word, module)?)?;
    module.add("PROOF_LIMIT", side::limit(FileKind::Snapshot))?;
    module.add("REQUEST_LIMIT", side::limit(FileKind::SnapshotRequest))?;
    Ok(())
}

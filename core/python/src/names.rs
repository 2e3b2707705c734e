//! The core's names and groups (`overbrainer_core::names`, `overbrainer_core::groups`) under
//! Python: the natural order, a run's name, a label, the keys a glob picks and their
//! sections, the legend's entries and a group's band. A str that holds lone surrogates (a
//! file name's bytes that are not UTF-8, as `os.fsdecode` gives them) is read as those bytes
//! (`surrogateescape`), and a name made of them is given back the same way.

use std::cmp::Ordering;

use overbrainer_core::groups;
use overbrainer_core::names::{self, Unit};
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::pattern::bytes_of;

/// `bytes` as a str: its UTF-8, or its `surrogateescape` decoding when it is not UTF-8.
fn text_of(py: Python<'_>, bytes: &[u8]) -> PyResult<PyObject> {
    let made: &PyAny = match std::str::from_utf8(bytes) {
        Ok(plain) => PyString::new(py, plain),
        Err(_) => PyBytes::new(py, bytes).call_method1("decode", ("utf-8", "surrogateescape"))?,
    };
    Ok(made.into_py(py))
}

/// The key of a name in the natural order (`sorted(names, key=NaturalKey)`): the numbers in
/// it (runs of ASCII digits) compared as numbers of any length, the rest by code point, a
/// tie (`x01`, `x1`) by the text itself.
///
/// NaturalKey(text: str); `text: str`; compared with another NaturalKey by `<`, `==`...
#[pyclass(module = "overbrainer_contract", name = "NaturalKey")]
pub(crate) struct NaturalKey {
    bytes: Vec<u8>,
    text: Py<PyString>,
}

#[pymethods]
impl NaturalKey {
    #[new]
    fn new(text: &PyString) -> PyResult<Self> {
        Ok(Self {
            bytes: bytes_of(text)?.into_owned(),
            text: text.into(),
        })
    }

    /// The name as given.
    #[getter]
    fn text(&self, py: Python<'_>) -> Py<PyString> {
        self.text.clone_ref(py)
    }

    fn __richcmp__(&self, other: PyRef<'_, Self>, op: CompareOp) -> bool {
        let order = names::natural_cmp(&self.bytes, &other.bytes);
        match op {
            CompareOp::Lt => order == Ordering::Less,
            CompareOp::Le => order != Ordering::Greater,
            CompareOp::Eq => order == Ordering::Equal,
            CompareOp::Ne => order != Ordering::Equal,
            CompareOp::Gt => order == Ordering::Greater,
            CompareOp::Ge => order != Ordering::Less,
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("NaturalKey({})", self.text.as_ref(py).repr()?))
    }
}

/// The names of runs made from their units, `(path, placed)` each: a placed unit's path
/// (its folder's, or a metrics file's of its own name; absolute, `/` between its parts) below
/// the folder the placed ones have in common, parts joined by `/`; a unit not placed (`-`,
/// standard input) its text as given. Names alike get ` (2)`, ` (3)`... `below`: a folder
/// the common folder is taken no deeper than (a sweep's, so that a run keeps its name as runs
/// come and go).
#[pyfunction(below = "None")]
#[pyo3(text_signature = "(units, /, below=None)")]
fn run_names(
    py: Python<'_>,
    units: Vec<(&PyString, bool)>,
    below: Option<&PyString>,
) -> PyResult<Vec<PyObject>> {
    let below = below.map(bytes_of).transpose()?;
    let paths = units
        .iter()
        .map(|(path, _)| bytes_of(path))
        .collect::<PyResult<Vec<_>>>()?;
    let given: Vec<Unit<'_>> = paths
        .iter()
        .zip(&units)
        .map(|(path, (_, placed))| Unit {
            path,
            placed: *placed,
        })
        .collect();
    names::run_names_below(&given, below.as_deref())
        .iter()
        .map(|name| text_of(py, name))
        .collect()
}

/// What a run's name is made from, given its metrics file's path: its folder when the file
/// is named one of `metrics_names`, else the path itself.
#[pyfunction]
#[pyo3(text_signature = "(path, metrics_names, /)")]
fn unit_of(py: Python<'_>, path: &PyString, metrics_names: Vec<&PyString>) -> PyResult<PyObject> {
    let bytes = bytes_of(path)?;
    let names = metrics_names
        .iter()
        .map(|name| bytes_of(name))
        .collect::<PyResult<Vec<_>>>()?;
    let names: Vec<&[u8]> = names.iter().map(|name| &name[..]).collect();
    text_of(py, names::unit_of(&bytes, &names))
}

/// `text` as a label shows it: whole up to `LABEL_CHARS` characters, else its first
/// `LABEL_CHARS - 1` and an ellipsis.
#[pyfunction]
#[pyo3(text_signature = "(text, /)")]
fn label_of(py: Python<'_>, text: &PyString) -> PyResult<PyObject> {
    let bytes = bytes_of(text)?;
    match names::label_of(&bytes) {
        std::borrow::Cow::Borrowed(_) => Ok(text.into_py(py)),
        std::borrow::Cow::Owned(label) => text_of(py, &label),
    }
}

/// The globs of a text (`--metric`): split at commas, each trimmed, the empty ones dropped.
#[pyfunction]
#[pyo3(text_signature = "(text, /)")]
fn patterns_of(text: &str) -> Vec<&str> {
    names::patterns_of(text)
}

/// The keys the globs pick, in their order: for each glob, the keys it matches that no glob
/// before it did, sorted by code point, each key once; a glob the core refuses picks none.
#[pyfunction]
#[pyo3(text_signature = "(globs, keys, /)")]
fn pick_keys(py: Python<'_>, globs: Vec<&str>, keys: Vec<&PyString>) -> PyResult<Vec<PyObject>> {
    let bytes = keys
        .iter()
        .map(|key| bytes_of(key))
        .collect::<PyResult<Vec<_>>>()?;
    names::pick_keys(&globs, &bytes)
        .iter()
        .map(|key| text_of(py, key))
        .collect()
}

/// The picked keys under their headings (a key's text before its last `/`): the keys
/// without one first (heading ""), then each heading in the order its first key was picked;
/// `[(heading, keys)]`.
#[pyfunction]
#[pyo3(text_signature = "(picked, /)")]
fn sections(py: Python<'_>, picked: Vec<&PyString>) -> PyResult<Vec<(PyObject, Vec<PyObject>)>> {
    let bytes = picked
        .iter()
        .map(|key| bytes_of(key))
        .collect::<PyResult<Vec<_>>>()?;
    names::sections(&bytes)
        .into_iter()
        .map(|(heading, keys)| {
            let keys = keys.into_iter().map(|at| picked[at].into_py(py)).collect();
            Ok((text_of(py, heading)?, keys))
        })
        .collect()
}

/// The legend's entries from each run's group key (None: alone), in the order shown: each
/// group at its first run's place; `[(key, members)]`, `members` the runs' indices.
#[pyfunction]
#[pyo3(text_signature = "(keys, /)")]
fn group_entries(
    py: Python<'_>,
    keys: Vec<Option<&PyString>>,
) -> PyResult<Vec<(Option<PyObject>, Vec<usize>)>> {
    let bytes = keys
        .iter()
        .map(|key| key.map(bytes_of).transpose())
        .collect::<PyResult<Vec<_>>>()?;
    let given: Vec<Option<&[u8]>> = bytes.iter().map(|key| key.as_deref()).collect();
    groups::entries_of(&given)
        .into_iter()
        .map(|entry| {
            let key = match entry.members.first() {
                Some(&first) if entry.key.is_some() => keys[first].map(|key| key.into_py(py)),
                _ => None,
            };
            Ok((key, entry.members))
        })
        .collect()
}

/// The little-endian numbers of `bytes`, `N` bytes each.
fn numbers<const N: usize>(bytes: &[u8]) -> PyResult<impl Iterator<Item = [u8; N]> + '_> {
    if bytes.len() % N != 0 {
        return Err(PyValueError::new_err(format!(
            "{} bytes: not a whole number of {N}-byte numbers",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(N)
        .map(|chunk| chunk.try_into().unwrap_or([0; N])))
}

/// A group's band of one metric from its runs' points, each `(steps, values)` as bytes
/// (`uint64` and `float64`, little-endian; a null a NaN): per step, ascending, the mean and
/// the population standard deviation of the runs' last finite values there and how many
/// runs had one; `(steps, mean, std, count)` as bytes (`uint64`, `float64`, `float64`,
/// `uint32`, little-endian).
#[pyfunction]
#[pyo3(text_signature = "(members, /)")]
fn band(py: Python<'_>, members: Vec<(&[u8], &[u8])>) -> PyResult<PyObject> {
    let mut points = Vec::with_capacity(members.len());
    for (steps, values) in &members {
        let steps: Vec<u64> = numbers::<8>(steps)?.map(u64::from_le_bytes).collect();
        let values: Vec<f64> = numbers::<8>(values)?.map(f64::from_le_bytes).collect();
        points.push((steps, values));
    }
    let given: Vec<(&[u64], &[f64])> = points
        .iter()
        .map(|(steps, values)| (&steps[..], &values[..]))
        .collect();
    let made = py.allow_threads(|| groups::band(&given));
    let bytes = |each: Vec<u8>| -> PyObject { PyBytes::new(py, &each).into_py(py) };
    Ok((
        bytes(made.steps.iter().flat_map(|x| x.to_le_bytes()).collect()),
        bytes(made.mean.iter().flat_map(|x| x.to_le_bytes()).collect()),
        bytes(made.std.iter().flat_map(|x| x.to_le_bytes()).collect()),
        bytes(made.count.iter().flat_map(|x| x.to_le_bytes()).collect()),
    )
        .into_py(py))
}

/// The names and groups' functions and constants, added to the module.
pub(crate) fn add(module: &PyModule) -> PyResult<()> {
    module.add_class::<NaturalKey>()?;
    module.add_function(wrap_pyfunction!(run_names, module)?)?;
    module.add_function(wrap_pyfunction!(unit_of, module)?)?;
    module.add_function(wrap_pyfunction!(label_of, module)?)?;
    module.add_function(wrap_pyfunction!(patterns_of, module)?)?;
    module.add_function(wrap_pyfunction!(pick_keys, module)?)?;
    module.add_function(wrap_pyfunction!(sections, module)?)?;
    module.add_function(wrap_pyfunction!(group_entries, module)?)?;
    module.add_function(wrap_pyfunction!(band, module)?)?;
    module.add("LABEL_CHARS", names::LABEL_CHARS)?;
    module.add("DEFAULT_PATTERNS", names::DEFAULT_PATTERNS)?;
    Ok(())
}

//! The core's patterns (`overbrainer_core::pattern`) under Python: a regular expression or a
//! glob, matched against a name or a key given as str. A str that holds lone surrogates (a
//! file name's bytes that are not UTF-8, as `os.fsdecode` gives them) is matched as those
//! bytes (`surrogateescape`), and a key taken from it is given back the same way.

use std::borrow::Cow;

use overbrainer_core::pattern::Pattern as CorePattern;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// A pattern the core matches, in time linear in the pattern and the text (Rust's `regex`
/// crate): a regular expression searched for anywhere in a text, or with `glob` a glob
/// (fnmatch's `*`, `?`, `[...]`) matched against the whole of it. A pattern the core refuses
/// (its syntax, its size, its nesting) is a ValueError of one line.
///
/// Pattern(text: str, glob: bool = False); `pattern: str`, `groups: bool`;
/// `search(text: str) -> bool`, `key(text: str) -> str | None`.
#[pyclass(module = "overbrainer_contract", name = "Pattern")]
pub(crate) struct Pattern {
    core: CorePattern,
    text: String,
    glob: bool,
}

/// The bytes of `text`: its UTF-8, or its `surrogateescape` encoding when it holds lone
/// surrogates.
pub(crate) fn bytes_of(text: &PyString) -> PyResult<Cow<'_, [u8]>> {
    if let Ok(plain) = text.to_str() {
        return Ok(Cow::Borrowed(plain.as_bytes()));
    }
    let encoded = text.call_method1("encode", ("utf-8", "surrogateescape"))?;
    Ok(Cow::Owned(
        encoded.downcast::<PyBytes>()?.as_bytes().to_vec(),
    ))
}

#[pymethods]
impl Pattern {
    #[new]
    #[args(glob = "false")]
    fn new(text: &str, glob: bool) -> PyResult<Self> {
        let core = if glob {
            CorePattern::glob(text)
        } else {
            CorePattern::regex(text)
        };
        let core = core.map_err(PyValueError::new_err)?;
        Ok(Self {
            core,
            text: text.to_owned(),
            glob,
        })
    }

    /// The pattern as given.
    #[getter]
    fn pattern(&self) -> &str {
        &self.text
    }

    /// Whether it is a glob (matched against a whole text).
    #[getter]
    fn glob(&self) -> bool {
        self.glob
    }

    /// Whether the expression has a capture group (a group's key is then its first).
    #[getter]
    fn groups(&self) -> bool {
        self.core.groups()
    }

    /// Whether the pattern matches `text` (an expression anywhere in it, a glob the whole).
    #[pyo3(text_signature = "($self, text, /)")]
    fn search(&self, text: &PyString) -> PyResult<bool> {
        Ok(self.core.is_match(&bytes_of(text)?))
    }

    /// The key of `text`'s group where the pattern matches it: the first capture group's
    /// text when the expression has one ("" when that group took no part in the match),
    /// else the whole match; None where it does not match.
    #[pyo3(text_signature = "($self, text, /)")]
    fn key(&self, py: Python<'_>, text: &PyString) -> PyResult<Option<PyObject>> {
        let bytes = bytes_of(text)?;
        let key = match self.core.key(&bytes) {
            None => return Ok(None),
            Some(key) => key,
        };
        let made: &PyAny = match std::str::from_utf8(key) {
            Ok(plain) => PyString::new(py, plain),
            Err(_) => PyBytes::new(py, key).call_method1("decode", ("utf-8", "surrogateescape"))?,
        };
        Ok(Some(made.into_py(py)))
    }
}
